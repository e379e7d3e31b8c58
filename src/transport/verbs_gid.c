// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RoCE v2 GID choice by address (sysfs) and the verbs endpoint's JSON
 * form; see verbs_gid.h.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sys.h"
#include "transport/verbs_gid.h"

int verbs_gid_from_addr(const char *addr, uint8_t gid[16])
{
	struct in_addr a4;

	if (!addr)
		return -EINVAL;
	if (inet_pton(AF_INET, addr, &a4) == 1) {
		memset(gid, 0, 10);
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, &a4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, gid) == 1)
		return 0;
	return -EINVAL;
}

/* A decimal directory entry name (a GID index). */
static bool index_name(const char *name, unsigned int *idx)
{
	unsigned long v = 0;

	if (!*name || strlen(name) > 5)
		return false;
	for (const char *c = name; *c; c++) {
		if (*c < '0' || *c > '9')
			return false;
		v = v * 10 + (unsigned long)(*c - '0');
	}
	*idx = (unsigned int)v;
	return true;
}

int verbs_gid_find(const char *root, const char *dev, unsigned int port, const char *addr,
		   unsigned int *index, uint8_t gid[16], struct fab_err *err)
{
	char base[512], path[600], text[128];
	uint8_t want[16], g[16];
	bool found = false, other_type = false;
	char other[64] = "";
	unsigned int best = 0;
	struct dirent *de;
	DIR *d;
	int rc;

	if (!root)
		root = "";
	if (!dev || !*dev || strchr(dev, '/') || strcmp(dev, "..") == 0)
		return fab_err_set(err, -EINVAL, "verbs: bad rdma device name '%s'", dev ? dev : "");
	if (verbs_gid_from_addr(addr, want) < 0)
		return fab_err_set(err, -EINVAL, "verbs: %s: port %u: bad address '%s'", dev, port,
				   addr ? addr : "");
	snprintf(base, sizeof(base), "%s/sys/class/infiniband/%s/ports/%u", root, dev, port);
	snprintf(path, sizeof(path), "%s/gids", base);
	d = opendir(path);
	if (!d) {
		rc = -errno;
		return fab_err_set(err, rc, "verbs: %s: port %u: gid table: %s", dev, port,
				   strerror(-rc));
	}
	while ((de = readdir(d))) {
		unsigned int idx;

		if (!index_name(de->d_name, &idx))
			continue;
		snprintf(path, sizeof(path), "%s/gids/%s", base, de->d_name);
		if (sys_read_line(path, text, sizeof(text)) < 0 || inet_pton(AF_INET6, text, g) != 1)
			continue;
		if (memcmp(g, want, 16) != 0)
			continue;
		snprintf(path, sizeof(path), "%s/gid_attrs/types/%s", base, de->d_name);
		/* Entries that are not in use have no type: read fails with EINVAL. */
		if (sys_read_line(path, text, sizeof(text)) < 0)
			continue;
		if (strcmp(text, VERBS_GID_TYPE_ROCE_V2) != 0) {
			other_type = true;
			snprintf(other, sizeof(other), "%.40s at index %u", text, idx);
			continue;
		}
		if (!found || idx < best) {
			best = idx;
			memcpy(gid, g, 16);
		}
		found = true;
	}
	closedir(d);
	if (!found) {
		if (other_type)
			return fab_err_set(err, -ENOENT, "verbs: %s: port %u: no RoCE v2 gid for %s "
					   "(only %s)", dev, port, addr, other);
		return fab_err_set(err, -ENOENT, "verbs: %s: port %u: no RoCE v2 gid for %s "
				   "(is the address on the device's netdev?)", dev, port, addr);
	}
	*index = best;
	return 0;
}

int verbs_gid_recheck(const char *dev, unsigned int port, unsigned int idx,
		      const uint8_t want[16], const uint8_t got[16], bool got_roce_v2,
		      const char *addr, struct fab_err *err)
{
	if (memcmp(want, got, 16) != 0)
		return fab_err_set(err, -EAGAIN, "verbs: %s: port %u: gid %u changed while "
				   "resolving %s", dev, port, idx, addr);
	if (!got_roce_v2)
		return fab_err_set(err, -EAGAIN, "verbs: %s: port %u: gid %u of %s is no longer "
				   "RoCE v2 (the table changed while resolving it)", dev, port, idx,
				   addr);
	return 0;
}

/* ---- endpoint ---- */

json_t *verbs_ep_to_json(const struct verbs_ep *ep)
{
	char gid[INET6_ADDRSTRLEN], addr[24], token[2 * TP_TOKEN_LEN + 1];

	if (!inet_ntop(AF_INET6, ep->gid, gid, sizeof(gid)))
		return NULL;
	snprintf(addr, sizeof(addr), "0x%016" PRIx64, ep->addr);
	tp_token_hex(ep->token, token);
	return json_pack("{s:i, s:I, s:I, s:s, s:i, s:I, s:s, s:I, s:I, s:i, s:s}",
			 "lid", (int)ep->lid, "qpn", (json_int_t)ep->qpn, "psn", (json_int_t)ep->psn,
			 "gid", gid, "gid_index", ep->gid_index, "rkey", (json_int_t)ep->rkey,
			 "addr", addr, "lat_bytes", (json_int_t)ep->lat_bytes,
			 "bw_bytes", (json_int_t)ep->bw_bytes, "mtu", (int)ep->mtu_bytes,
			 "token", token);
}

static int get_uint(const json_t *j, const char *key, json_int_t min, json_int_t max,
		    json_int_t *v, struct fab_err *err)
{
	const json_t *x = json_object_get(j, key);

	if (!json_is_integer(x) || json_integer_value(x) < min || json_integer_value(x) > max)
		return fab_err_set(err, -EPROTO, "verbs: peer endpoint: \"%s\" must be an integer "
				   "%lld..%lld", key, (long long)min, (long long)max);
	*v = json_integer_value(x);
	return 0;
}

static int get_string(const json_t *j, const char *key, const char **v, struct fab_err *err)
{
	*v = json_string_value(json_object_get(j, key));
	if (!*v)
		return fab_err_set(err, -EPROTO, "verbs: peer endpoint: \"%s\" must be a string", key);
	return 0;
}

int verbs_ep_from_json(const json_t *j, struct verbs_ep *ep, struct fab_err *err)
{
	json_int_t lid, qpn, psn, idx, rkey, lat, bw, mtu;
	const char *gid, *addr, *token;
	char *end;
	int rc;

	if (!json_is_object(j))
		return fab_err_set(err, -EPROTO, "verbs: peer endpoint must be an object");
	memset(ep, 0, sizeof(*ep));
	if ((rc = get_uint(j, "lid", 0, 0xffff, &lid, err)) < 0 ||
	    (rc = get_uint(j, "qpn", 1, 0xffffff, &qpn, err)) < 0 ||
	    (rc = get_uint(j, "psn", 0, 0xffffff, &psn, err)) < 0 ||
	    (rc = get_uint(j, "gid_index", -1, 0xffff, &idx, err)) < 0 ||
	    (rc = get_uint(j, "rkey", 0, 0xffffffff, &rkey, err)) < 0 ||
	    (rc = get_uint(j, "lat_bytes", 1, VERBS_EP_MAX_REGION, &lat, err)) < 0 ||
	    (rc = get_uint(j, "bw_bytes", 1, VERBS_EP_MAX_REGION, &bw, err)) < 0 ||
	    (rc = get_uint(j, "mtu", 256, 4096, &mtu, err)) < 0 ||
	    (rc = get_string(j, "gid", &gid, err)) < 0 ||
	    (rc = get_string(j, "addr", &addr, err)) < 0 ||
	    (rc = get_string(j, "token", &token, err)) < 0)
		return rc;
	if (mtu & (mtu - 1))
		return fab_err_set(err, -EPROTO, "verbs: peer endpoint: \"mtu\" must be a power of two");
	if (inet_pton(AF_INET6, gid, ep->gid) != 1)
		return fab_err_set(err, -EPROTO, "verbs: peer endpoint: bad \"gid\" '%.64s'", gid);
	if (strncmp(addr, "0x", 2) != 0 || strlen(addr) < 3 || strlen(addr) > 18 ||
	    strspn(addr + 2, "0123456789abcdefABCDEF") != strlen(addr + 2))
		return fab_err_set(err, -EPROTO, "verbs: peer endpoint: \"addr\" must be a 0x hex string");
	errno = 0;
	ep->addr = strtoull(addr + 2, &end, 16);
	if (errno || *end)
		return fab_err_set(err, -EPROTO, "verbs: peer endpoint: bad \"addr\" '%.24s'", addr);
	if (tp_token_parse(token, ep->token, true) < 0)
		return fab_err_set(err, -EPROTO, "verbs: peer endpoint: \"token\" must be %d hex digits",
				   2 * TP_TOKEN_LEN);
	ep->lid = (unsigned int)lid;
	ep->qpn = (uint32_t)qpn;
	ep->psn = (uint32_t)psn;
	ep->gid_index = (int)idx;
	ep->rkey = (uint32_t)rkey;
	ep->lat_bytes = (uint32_t)lat;
	ep->bw_bytes = (uint32_t)bw;
	ep->mtu_bytes = (unsigned int)mtu;
	return 0;
}

/* ---- the RoCE v2 UDP source port (include/rdma/ib_verbs.h) ---- */

uint32_t verbs_calc_flow_label(uint32_t lqpn, uint32_t rqpn)
{
	uint64_t v = (uint64_t)lqpn * rqpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return (uint32_t)(v & VERBS_FLOW_LABEL_MASK);
}

uint16_t verbs_flow_label_sport(uint32_t fl)
{
	uint32_t lo = fl & 0x3fff, hi = fl & 0xfc000;

	lo ^= hi >> 14;
	return (uint16_t)(lo | VERBS_SPORT_MIN);
}

uint16_t verbs_udp_sport(uint32_t fl, uint32_t lqpn, uint32_t rqpn)
{
	if (!fl)
		fl = verbs_calc_flow_label(lqpn, rqpn);
	return verbs_flow_label_sport(fl);
}

uint32_t verbs_sport_flow_label(unsigned int sport)
{
	if (sport < VERBS_SPORT_MIN || sport > 0xffff)
		return 0;
	if (sport == VERBS_SPORT_MIN)
		return 1u << 14 | 1;	/* 0 is "no label"; 1 ^ (0x4000 >> 14) = 0 */
	return sport & 0x3fff;
}
