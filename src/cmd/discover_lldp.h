/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LLDP discovery across a fleet: `discover --lldp --hosts FILE`.
 *
 * Controller side: start `fabricctl worker` on every node of the hosts
 * file through the fleet layer (src/fleet/) and merge every node's LLDP
 * view (fleet_lldp_collect(), fleet/fleet_lldp.h: the socket rule, and a
 * node that fails fails the discovery: -EHOSTUNREACH naming every failed
 * node), then every node's modules, read once (model/topo_optics.h),
 * unless no_optics.
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
	bool no_optics;			/* --no-optics: no module read asked, no cables */
};

/* Controller: merge every node's view into @t.  Bad hosts file: bad input. */
int discover_lldp_fleet_read(struct fab_ctx *ctx, const struct discover_lldp_fleet *o,
			     struct topo *t);

#endif
