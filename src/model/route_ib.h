/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * InfiniBand unicast routes, read off the switches' linear forwarding
 * tables (topo_node.lft, filled by the subnet walk with subnet_opts.lft).
 * Pure: no I/O, the graph is only read.
 *
 * A packet from a CA port to destination LID D leaves by the CA port's
 * cable; every switch it enters sends it out of port lft[D], whose cable
 * leads on, until it enters the port that holds D (a CA or router port
 * with base LID D; or a switch whose lft[D] is 0, the switch itself, and
 * whose LID is D).  This is what the hardware does and what ibtracert
 * prints.  LMC 0 is assumed: a port holds exactly its base LID.
 *
 * Errors (-errno, the message names the switch by NodeDescription and
 * GUID, and the LID):
 *   -ENODATA       a switch on the way has no forwarding table (not read,
 *                  or the read failed; a cache file has none)
 *   -ENOENT        a switch has no entry for D (beyond LinearFDBTop, or
 *                  TOPO_LFT_NONE)
 *   -EHOSTUNREACH  a dead end: the chosen port has no cable, or the route
 *                  reaches a CA/router port that does not hold D, or a
 *                  switch forwards D to itself but is not D
 *   -ELOOP         the route enters a switch it has entered before
 *   -EINVAL        the source is not a linked CA/router port, or D is 0
 *
 * Ownership: struct route_ib borrows the topo (which must outlive it and
 * not change: no node, port or link added, no topo_sort()) and owns two
 * indices, LID -> port and link -> index in topo->links[].  Paths
 * returned are owned by the caller (path_fini / pair_route_fini).
 */
#ifndef FAB_MODEL_ROUTE_IB_H
#define FAB_MODEL_ROUTE_IB_H

#include "model/path.h"
#include "model/topo.h"
#include "util/err.h"

struct route_ib;

/* Index @t (sorted already, if it is to be sorted); NULL on ENOMEM. */
struct route_ib *route_ib_new(const struct topo *t);
void route_ib_free(struct route_ib *r);

/* The port holding @lid: a CA/router port with that base LID, or a switch's port 0; NULL. */
const struct topo_port *route_ib_port_by_lid(const struct route_ib *r, unsigned int lid);

/*
 * The route from CA port @src to @dlid: @out gets the hops (directed link
 * indices, source first) and share 1.  @out is set only on success.
 */
int route_ib_path(const struct route_ib *r, const struct topo_port *src, unsigned int dlid,
		  struct path *out, struct fab_err *err);

/*
 * Both routes of a host pair, a's port @pa and b's port @pb (CA ports with
 * LIDs): ab = @pa to @pb's LID, ba = @pb to @pa's LID, computed separately
 * since IB routes need not be symmetric.  klass = links on ab;
 * expected_mbps = the lowest width_x * lane_mbps of the ports along both
 * (each cable's two ends; ports whose width or speed is unknown are
 * skipped; 0 when none is known).  @out->a, b = @a, @b.  @out is set only
 * on success; on failure the message says which direction failed.
 */
int route_ib_pair(const struct route_ib *r, unsigned int a, const struct topo_port *pa,
		  unsigned int b, const struct topo_port *pb, struct pair_route *out,
		  struct fab_err *err);

#endif
