/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Compare a discovered struct topo with an expected one (a cabling plan,
 * the same struct filled by a plan parser) and append problems to the
 * discovered graph.  Pure, no I/O.
 *
 * Matching: a plan node matches a found node by GUID when both have one,
 * else by exact name.  A port matches by number (IB) or name (Ethernet).
 * For each planned link (pa, pb):
 *   - both ends found and linked to each other: compare width/speed with
 *     the plan (degraded when below; only facts both sides know; an
 *     Ethernet plan's speed_mbps against the found ends' eth_mbps).  The
 *     tier check (topo_health_check_plan()) leaves a cable whose plan
 *     states its width/speed to this comparison;
 *   - pa linked elsewhere (to x): miswired, naming pa, x and pb as where
 *     it should go (reported once per planned link, from the first end
 *     that is wrong);
 *   - neither end linked: missing (down when the found ports say so).
 * Every found link whose ends are not a planned pair and not already
 * reported as miswired: unexpected.  Found nodes outside the plan are
 * only reported through their links.
 */
#ifndef FAB_MODEL_TOPO_DIFF_H
#define FAB_MODEL_TOPO_DIFF_H

#include "model/topo.h"

struct topo_diff_opts {
	bool check_speed;	/* compare width/speed with the plan (default true) */
};

void topo_diff_opts_default(struct topo_diff_opts *o);

/* Append the differences between @found and @expected to found->problems.  -ENOMEM. */
int topo_diff(struct topo *found, const struct topo *expected, const struct topo_diff_opts *o);

/*
 * Rail alignment without a plan: hosts' NICs are grouped by host (the
 * first word of a CA's name, "node01 mlx5_2" -> node01) and numbered in
 * name order; NIC i of every host should reach the same leaf group.  A
 * leaf reached by NICs of several indices is misaligned: the minority
 * NICs are reported as TOPO_PROB_RAIL naming the NIC port and the leaf
 * port.  Hosts with a single NIC are ignored.  -ENOMEM.
 */
int topo_rail_check(struct topo *t);

#endif
