/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Generic sample statistics, pure C, no I/O (the sweep's verdict built on
 * them is model/sweep_judge.h): percentiles by the nearest-rank method (the value
 * below which q of the samples lie: sorted[ceil(q * n) - 1]), the median
 * as the mean of the two middle values when n is even, and the median
 * absolute deviation (MAD, unscaled; multiply by 1.4826 for a normal
 * sigma).
 */
#ifndef FAB_MODEL_STATS_H
#define FAB_MODEL_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats_summary {
	size_t n;
	double min, p50, p99, p999, max, mean;
};

/* Sort @v ascending in place. */
void stats_sort(double *v, size_t n);
/* Nearest-rank percentile of sorted @v (q in [0,1]); NAN when n == 0. */
double stats_percentile_sorted(const double *v, size_t n, double q);
/* Median of sorted @v; NAN when n == 0. */
double stats_median_sorted(const double *v, size_t n);
/* Median of @v (copied, not changed); NAN when n == 0 or out of memory. */
double stats_median(const double *v, size_t n);
/* Median absolute deviation of @v around @median; NAN when n == 0. */
double stats_mad(const double *v, size_t n, double median);
/* Summary of @v (sorted in place); -EINVAL when n == 0. */
int stats_summarize(double *v, size_t n, struct stats_summary *s);

/*
 * Reservoir sampling (algorithm R): a uniform sample of at most @cap of
 * the items offered so far, whatever their number, in O(cap) memory.  The
 * caller keeps the items in its own array; for each item offered,
 * stats_reservoir_slot() says where to store it (a slot < cap, replacing
 * what was there) or SIZE_MAX to drop it.  While no more than @cap were
 * offered every item is kept, in order, so statistics of the sample are
 * those of all items; beyond, any subset of the slots is itself a uniform
 * sample.  Deterministic for a given @seed.
 */
struct stats_reservoir {
	size_t cap;
	uint64_t seen;
	uint64_t rng;
};

void stats_reservoir_init(struct stats_reservoir *r, size_t cap, uint64_t seed);
size_t stats_reservoir_slot(struct stats_reservoir *r);
/* Items held: min(seen, cap). */
size_t stats_reservoir_len(const struct stats_reservoir *r);

/* Scale from MAD to a normal standard deviation. */
#define STATS_MAD_SIGMA 1.4826

#endif
