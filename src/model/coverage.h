/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Coverage sweeps: instead of all n(n-1)/2 pairs, a pair list in which
 * every link that host pairs can cross is crossed by at least K pairs and
 * every host is in at least K pairs (O(n K) pairs).  The list goes to
 * sched_topo_pairs() (model/sched_topo.h) for link-safe rounds.  Pure C,
 * no I/O.
 *
 * Rule.  A pair crosses a link when its route_pair_loads() items hold the
 * link, whatever the share (an ECMP pair crosses every link of its
 * shortest-path set, and both access links).  Targets:
 *  - links: @want_link when given; else every link some allowed pair
 *    crosses (all mode), or, with a subset, the access links of the subset
 *    hosts and every link between a leaf that holds a subset host and
 *    another switch (the leaf's uplinks), when an allowed pair crosses it;
 *  - hosts: every host (all mode) or every subset host.
 * Allowed pairs: any two distinct hosts (all mode); with a subset
 * (`accept`: new x new and new x existing), pairs with at least one subset
 * host.  No pair is chosen twice.
 *
 * Method (greedy, three steps).
 *  0. Reach: one breadth-first search per leaf (per subset leaf) through
 *     switches, pruned to the nodes that still lead to another leaf, gives
 *     the links some allowed leaf pair's shortest paths use.
 *  1. Links: in passes, every leaf that still has a short target uplink of
 *     its own tries LINK_CANDIDATES (4) partner leaves spread over the
 *     fabric (stride about 0.618 x leaves, a different set each pass),
 *     counts the short target links each leaf pair crosses
 *     (route_leaf_loads) and takes the best, with the host of each leaf in
 *     the fewest pairs so far (subset hosts first); until a pass adds
 *     nothing.  Greedy among those candidates, not over all leaf pairs
 *     (counting all 32640 leaf pairs of 4096 hosts costs 1.7 s).
 *  2. Hosts: the hosts still in fewer than K pairs, in index order, are
 *     matched first half against second half, host i with host i + shift
 *     (a matching; one leaf's hosts meet one or two leaves, so the pairs
 *     span few leaf pairs), the shift growing by rest / (K + 1) each pass
 *     so one host's partners sit in different pods; a host left with no
 *     short partner takes the allowed host in the fewest pairs, on another
 *     leaf when there is one.  Each such pair covers two host deficits,
 *     the most a pair can.
 *  3. Repair: a target link still short (off every path step 1 tried) gets
 *     pairs between the leaves nearest its two ends (REPAIR_NEAR each way)
 *     whose leaf pair crosses it.
 *
 * Cost.  Step 0: O(leaves x (nodes + links)); step 1: O(passes x leaves x
 * LINK_CANDIDATES) leaf-pair counts, O(path links) each; step 2: O(hosts x
 * K) pairs, one route_pair_loads() each, fallbacks O(hosts) each; step 3:
 * two searches and up to REPAIR_NEAR^2 counts per short link.  4096 hosts
 * of a 16-pod 3-level fat tree, K = 3: 6144 pairs in about 0.2 s CPU (docs/scale.md).
 * Memory: O(nodes + links + hosts) counters and scratch, the output pairs
 * and per-pair adjacency (O(pairs), to refuse repeats).
 *
 * Failure modes (the call still succeeds; the result says it):
 *  - a link no allowed pair crosses (a cable on no shortest path, a port of
 *    a node that holds no listed host, a subset whose pairs never reach
 *    it) is not a target: n_links_unreachable counts the wanted ones;
 *  - a target link whose every crossing pair is used, or a host with fewer
 *    than K possible partners (K >= hosts), stays short: n_links_short,
 *    n_hosts_short and the first of each;
 *  - ECMP: a pair "crosses" every member of its path set with share 1/k;
 *    on a real fabric its flows may hash onto a few of them, and links of
 *    one ECMP set are crossed by the same pairs, so traffic alone cannot
 *    tell them apart (localize.h reports them as one group).
 *
 * Ownership: struct coverage owns its arrays; coverage_fini() frees them
 * and zeroes (safe twice).  @r is borrowed, placed and rated (route.h);
 * its caches change: one thread at a time.
 */
#ifndef FAB_MODEL_COVERAGE_H
#define FAB_MODEL_COVERAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/route.h"
#include "model/schedule.h"
#include "util/err.h"

#define COVERAGE_NONE UINT32_MAX

struct coverage_req {
	unsigned int k;			/* >= 1: crossings per link and pairs per host */
	const bool *subset;		/* NULL: all hosts; else r->n_hosts flags (new hosts) */
	const bool *want_link;		/* NULL: the default targets; else r->topo->n_links flags */
	uint8_t *reached;		/* NULL, or r->topo->n_links flags: set to 1 for each target */
};

struct coverage {
	struct sched_pair *pairs;	/* owned: the chosen pairs, a < b */
	size_t n_pairs;
	size_t n_phase1;		/* of them, chosen by step 1 for links (the first n_phase1) */
	uint32_t *link_cross;		/* owned, n_links: pairs crossing each link */
	uint32_t *host_pairs;		/* owned, n_hosts: pairs each host is in */
	size_t n_links, n_hosts;
	size_t links_target;		/* links that had to reach K */
	size_t links_short;		/* of them, crossed fewer than K times */
	size_t links_unreachable;	/* wanted, but no allowed pair crosses them */
	size_t hosts_target, hosts_short;
	uint32_t first_short_link;	/* COVERAGE_NONE when none */
	uint32_t first_short_host;	/* COVERAGE_NONE when none */
};

/*
 * Choose the pairs (rule above) into @out.  0 (check links_short and
 * hosts_short), -EINVAL for k == 0, fewer than two hosts or an unplaced
 * route (fab_err_input), -ENOMEM.  @out is set only on success.
 */
int coverage_pick(struct coverage *out, struct route *r, const struct coverage_req *req,
		  struct fab_err *err);
void coverage_fini(struct coverage *c);

#endif
