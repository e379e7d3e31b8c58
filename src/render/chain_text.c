// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A RoCE port's lossless chain in one line, for verify's and status's text:
 *   eth0 (mlx5_0/1) ok: DSCP 26 → prio 3 → TC 3 → buffer 1, PFC on; CNP prio 6 → TC 6; GID 3 (192.168.77.1)
 *   eth0 (mlx5_0/1) BROKEN: DSCP 26 → prio 4 → TC 4, but PFC is off on priority 4
 *   eth0 unknown: DSCP 26 (DCB not read: dcb: eth0: dcb not supported by driver); GID 1 (10.0.0.1)
 */
#include <stdio.h>
#include <string.h>

#include "model/lossless.h"
#include "render/render_impl.h"
#include "util/str.h"

static void cat(char *buf, size_t len, const char *s)
{
	size_t n = strlen(buf);

	str_fmt(buf + n, len - n, "%s", s);
}

static void gid_text(const struct lossless_chain *c, char *buf, size_t len)
{
	char part[96];

	if (c->gid_index < 0)
		return;
	str_fmt(part, sizeof(part), "; GID %d (%s)", c->gid_index, c->addr);
	cat(buf, len, part);
}

static void chain_ok_text(const struct lossless_chain *c, char *buf, size_t len)
{
	char part[160];

	cat(buf, len, c->path);
	if (c->prio >= 0) {
		str_fmt(part, sizeof(part), ", PFC %s", c->pfc ? "on" : "off");
		cat(buf, len, part);
	}
	if (c->cnp_prio >= 0 && c->cnp_tc >= 0) {
		str_fmt(part, sizeof(part), "; CNP prio %d \u2192 TC %d", c->cnp_prio, c->cnp_tc);
		cat(buf, len, part);
	}
	gid_text(c, buf, len);
}

const char *chain_text(const struct lossless_chain *c, char *buf, size_t len)
{
	char port[96] = "";

	if (c->rdma_dev[0])
		str_fmt(port, sizeof(port), " (%s/%u)", c->rdma_dev, c->rdma_port);
	str_fmt(buf, len, "%s%s %s: ", c->ifname, port,
		c->verdict == LOSSLESS_BROKEN ? "BROKEN" : lossless_verdict_name(c->verdict));
	switch (c->verdict) {
	case LOSSLESS_OK:
		chain_ok_text(c, buf, len);
		break;
	case LOSSLESS_BROKEN:
		cat(buf, len, c->finding);
		break;
	case LOSSLESS_UNKNOWN:
		cat(buf, len, c->path[0] ? c->path : "-");
		cat(buf, len, " (");
		cat(buf, len, c->why);
		cat(buf, len, ")");
		gid_text(c, buf, len);
		break;
	}
	return buf;
}
