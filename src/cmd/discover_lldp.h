/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LLDP discovery across a fleet: `discover --lldp --hosts FILE`.
 *
 * Controller side: start `fabricctl worker` on every node of the hosts
 * file through the fleet layer (src/fleet/), ask each for its LLDP view
 * (worker op "lldp", docs/discover-lldp.md), and merge every view into
 * one struct topo with lldp_view_merge().  Each node's lldpd socket is,
 * in order: --lldp-socket with "{host}" replaced by the node's NAME, the
 * node's `lldp_socket=PATH` label in the hosts file, or the system
 * default.  A node that fails (worker dead, lldpd not answering, bad
 * reply) fails the discovery: -EHOSTUNREACH naming every failed node.
 *
 * Worker side: the worker's "lldp" op answers {"op":"lldp",
 * "socket":PATH|null} with the node's view (node_lldp_read(), node/node.c)
 * as JSON (lldp_view_to_json).
 */
#ifndef FAB_CMD_DISCOVER_LLDP_H
#define FAB_CMD_DISCOVER_LLDP_H

#include <jansson.h>

#include "cmd/cmd.h"
#include "fleet/fleet.h"
#include "model/hosts.h"
#include "model/topo.h"

struct discover_lldp_fleet {
	const char *hosts_file;
	const char *launcher;		/* fleet launcher name or template; NULL: "ssh" */
	const char *socket;		/* per-node lldpd socket, may hold {host}; NULL */
	int timeout_ms;			/* per node, for start and answer; 0: 20000 */
};

/* Controller: merge every node's view into @t.  Bad hosts file: bad input. */
int discover_lldp_fleet_read(struct fab_ctx *ctx, const struct discover_lldp_fleet *o,
			     struct topo *t);

/*
 * The same over a fleet the caller started on @hosts (the sweep's own
 * workers): o->socket and o->timeout_ms are used, hosts_file and launcher
 * are not.
 */
int discover_lldp_fleet_collect(struct fab_ctx *ctx, struct fleet *f, const struct fab_hosts *hosts,
				const struct discover_lldp_fleet *o, struct topo *t);

#endif
