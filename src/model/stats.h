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

/* Scale from MAD to a normal standard deviation. */
#define STATS_MAD_SIGMA 1.4826

#endif
