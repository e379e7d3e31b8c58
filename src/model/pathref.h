/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The judge's reference bandwidth where no rate is known: one per path
 * class, that stays right when most pairs cross one bad link.  Pure C, no
 * I/O.  docs/sweep.md ("Judging without a rate") explains the rule and its failure modes.
 *
 * With a topology (pathref_compute): the pairs of class c (same hop count,
 * pair_route.klass) are compared with each other.  Candidates for ref_c:
 *   - the median of all class-c pairs;
 *   - for each link L among the PATHREF_SUSPECTS links that explain the
 *     most slow pairs (most crossing pairs below the class median, then
 *     the lowest median of its crossing pairs, which must be below the
 *     class median), the median of the class-c pairs that do NOT cross L;
 *   - for each two of the first PATHREF_SUSPECTS_2 of those links, the
 *     median of the pairs that cross neither (two bad links at once);
 * a candidate counts only when the pairs left are at least
 * max(PATHREF_MIN_PAIRS, PATHREF_MIN_SHARE of the class).  ref_c is the
 * highest candidate.  One bad link crossed by up to 80 % of a class (two
 * links: their union) leaves the healthy pairs' median as a candidate, and
 * no candidate is above the healthy level unless healthy pairs themselves
 * are, so the reference stays at the healthy value.
 *
 * Without a topology (pathref_cluster): the highest dense cluster in
 * log bandwidth: the highest window of width ln(1/0.8) holding at least
 * max(3, 20 %) of the pairs, widened down by one window; its median.
 *
 * Ownership: struct pathref owns its classes; pathref_fini() frees them.
 * The pairs' link arrays are borrowed for the call only.
 * Cost: O(n log n + sum of path lengths + suspects^2 x n).
 */
#ifndef FAB_MODEL_PATHREF_H
#define FAB_MODEL_PATHREF_H

#include <stddef.h>
#include <stdint.h>

#define PATHREF_MIN_PAIRS 3
#define PATHREF_MIN_SHARE 0.2
#define PATHREF_SUSPECTS 32
#define PATHREF_SUSPECTS_2 8
#define PATHREF_NO_LINK UINT32_MAX

struct pathref_pair {
	unsigned int klass;	/* path class; pairs of one class are compared */
	double bw_mbps;		/* measured; NAN or <= 0: no figure (failed pair) */
	const uint32_t *links;	/* borrowed: the links its paths cross (duplicates allowed) */
	size_t n_links;
};

struct pathref_class {
	unsigned int klass;
	size_t n;		/* pairs with a figure */
	double median_mbps;	/* of all of them */
	double ref_mbps;	/* the reference; NAN when n < PATHREF_MIN_PAIRS */
	uint32_t excluded[2];	/* links whose pairs were left out for ref, PATHREF_NO_LINK */
	size_t n_ref;		/* pairs ref is the median of */
	/*
	 * A link crossed by so many of the class's pairs that too few would be
	 * left without it: the rule cannot see it slow (e.g. two leaves under
	 * one spine: every cross-leaf pair crosses both uplinks).
	 * PATHREF_NO_LINK when none.
	 */
	uint32_t blind_link;
};

struct pathref {
	struct pathref_class *classes;	/* sorted by klass */
	size_t n_classes;
};

/* @n_links: links in the graph (every pair's links are < n_links).  -ENOMEM, -EINVAL. */
int pathref_compute(struct pathref *ref, const struct pathref_pair *pairs, size_t n, size_t n_links);
/* The class's entry, NULL when no pair of that class had a figure. */
const struct pathref_class *pathref_class(const struct pathref *ref, unsigned int klass);
void pathref_fini(struct pathref *ref);

/* No topology: reference of @n bandwidths (NAN/<= 0 skipped); NAN when none. */
double pathref_cluster(const double *bw_mbps, size_t n);

#endif
