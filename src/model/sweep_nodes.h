/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node rule: how a sweep without an expected rate (no topology, no
 * rated speed) still sees one slow host when the machine is busy.
 *
 * The fleet rule judges each pair against the median of all pairs and
 * wants it to be an outlier on a log scale too.  Under load the pairs
 * spread by factors (a 2-core lab at load 9: median 713 Mb/s, MAD 468),
 * the outlier floor falls below anything, and a host at 100 Mbit/s goes
 * unseen.  A host's own pairs share its fault, while the noise of a busy
 * machine hits every host alike: the median of a node's pairs moves far
 * less than one pair does.  So each node's median bandwidth (over a
 * uniform sample of SWEEP_NODE_SAMPLE of its pairs) is compared with the
 * other nodes' medians: a node below slow_pct % of the median of node
 * medians and an outlier among them (ln below their median by more than
 * mad_k sigmas, sigma the larger of 1.4826 x their MAD and the noise of
 * a median of the node's k pairs, 1.2533 x the pairs' ln sigma / sqrt k,
 * the pairs' sigma over the pairs that touch no node already below
 * slow_pct %)
 * is a slow node, and each of its pairs is
 * judged against the median of node medians as its expected figure
 * (SWEEP_EXPECT_NODES), so a retest judges it the same way.
 *
 * Needs at least SWEEP_NODES_MIN nodes with SWEEP_NODES_MIN_PAIRS pairs
 * each (a coverage sweep of two pairs a node has no node median).  Pure;
 * two passes over the pairs: sweep_nodes_add() each, sweep_nodes_judge(),
 * then sweep_nodes_expect() each.
 */
#ifndef FAB_MODEL_SWEEP_NODES_H
#define FAB_MODEL_SWEEP_NODES_H

#include <stdbool.h>
#include <stddef.h>

#include "model/stats.h"
#include "model/sweep_judge.h"

#define SWEEP_NODES_MIN 4
#define SWEEP_NODES_MIN_PAIRS 3
/* A node below this % of the nodes' median stays out of the noise estimate. */
#define SWEEP_NODES_CAND_PCT 50

struct sweep_nodes_slot {
	double mbps;
	unsigned int peer;		/* the pair's other node */
};

struct sweep_nodes {
	size_t n;			/* hosts */
	struct sweep_nodes_slot **bw;	/* per host: its slots, grown up to SWEEP_NODE_SAMPLE */
	size_t *bw_cap;			/* per host: slots allocated */
	bool nomem;			/* a sample could not be stored: judge says -ENOMEM */
	struct stats_reservoir *res;	/* per host */
	double *median;			/* per host, NAN with too few pairs */
	bool *slow;			/* per host: below the others */
	double ref_mbps;		/* the median of node medians, NAN when none */
	double floor_mbps;		/* the lowest node floor (nodes differ by their pair counts) */
	size_t n_slow;
};

/* For @n hosts.  0 or -ENOMEM. */
int sweep_nodes_begin(struct sweep_nodes *sn, size_t n);
void sweep_nodes_fini(struct sweep_nodes *sn);

/* Offer @p's bandwidth to both its nodes (pairs with an expected rate or no figure: ignored). */
void sweep_nodes_add(struct sweep_nodes *sn, const struct sweep_pair *p);

/* Node medians, their reference and the slow nodes.  0 or -ENOMEM. */
int sweep_nodes_judge(struct sweep_nodes *sn, const struct sweep_cfg *cfg);

/* @p's expected figure when one of its nodes is slow: ref_mbps; else NAN. */
double sweep_nodes_expect(const struct sweep_nodes *sn, const struct sweep_pair *p);

#endif
