// SPDX-License-Identifier: GPL-2.0-or-later
/* Percentiles, median, MAD and summaries (model/stats.c). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/stats.h"

static void test_percentile_nearest_rank(void **state)
{
	double v[100];

	for (int i = 0; i < 100; i++)
		v[i] = i + 1;	/* 1..100 */
	assert_true(stats_percentile_sorted(v, 100, 0.99) == 99);
	assert_true(stats_percentile_sorted(v, 100, 0.999) == 100);
	assert_true(stats_percentile_sorted(v, 100, 0.5) == 50);
	assert_true(stats_percentile_sorted(v, 100, 0.01) == 1);
	assert_true(stats_percentile_sorted(v, 100, 0) == 1);
	assert_true(stats_percentile_sorted(v, 100, 1) == 100);
	assert_true(stats_percentile_sorted(v, 1, 0.99) == 1);
	assert_true(isnan(stats_percentile_sorted(v, 0, 0.5)));
	/* 1000 samples: p99.9 is the 999th. */
	{
		double w[1000];

		for (int i = 0; i < 1000; i++)
			w[i] = i;
		assert_true(stats_percentile_sorted(w, 1000, 0.999) == 998);
		assert_true(stats_percentile_sorted(w, 1000, 0.99) == 989);
	}
}

static void test_median_mad(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };
	double x[] = { 1, 1, 2, 2, 4, 6, 9 };	/* median 2, |dev| 1 1 0 0 2 4 7 -> MAD 1 */

	assert_true(stats_median(odd, 3) == 3);
	assert_true(stats_median(even, 4) == 2.5);
	/* stats_median copies: the input keeps its order. */
	assert_true(odd[0] == 5);
	assert_true(stats_median(x, 7) == 2);
	assert_true(stats_mad(x, 7, 2) == 1);
	assert_true(isnan(stats_median(x, 0)));
	assert_true(isnan(stats_mad(x, 0, 0)));
}

static void test_summarize(void **state)
{
	double v[10] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	struct stats_summary s;

	assert_int_equal(stats_summarize(v, 10, &s), 0);
	assert_int_equal(s.n, 10);
	assert_true(s.min == 1);
	assert_true(s.max == 10);
	assert_true(s.p50 == 5.5);
	assert_true(s.p99 == 10);
	assert_true(s.p999 == 10);
	assert_true(s.mean == 5.5);
	/* Sorted in place. */
	assert_true(v[0] == 1 && v[9] == 10);
	assert_int_equal(stats_summarize(v, 0, &s), -EINVAL);
}

/*
 * The reservoir keeps every item, in order, while they fit; beyond, each
 * item is in the sample with probability cap/seen: over many seeds every
 * item's count is near that (a biased draw, e.g. the first or last items
 * favoured, fails).  Deterministic for one seed.
 */
static void test_reservoir(void **state)
{
	enum { CAP = 50, N = 1000, SEEDS = 4000 };
	static unsigned int hits[N];
	struct stats_reservoir r;
	size_t slot[CAP], slot2[CAP];

	stats_reservoir_init(&r, CAP, 7);
	for (size_t i = 0; i < CAP; i++)
		assert_int_equal(stats_reservoir_slot(&r), i);
	assert_int_equal(stats_reservoir_len(&r), CAP);
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		stats_reservoir_init(&r, CAP, seed);
		for (size_t i = 0; i < N; i++) {
			size_t k = stats_reservoir_slot(&r);

			if (k != SIZE_MAX) {
				assert_true(k < CAP);
				slot[k] = i;
			}
		}
		assert_int_equal(stats_reservoir_len(&r), CAP);
		for (size_t k = 0; k < CAP; k++)
			hits[slot[k]]++;
		if (seed == 1)
			memcpy(slot2, slot, sizeof(slot));
	}
	/* expected SEEDS * CAP / N = 200 each; binomial sd ~ 13.8: 6 sd either way */
	for (size_t i = 0; i < N; i++)
		assert_true(hits[i] > 117 && hits[i] < 283);
	stats_reservoir_init(&r, CAP, 1);
	for (size_t i = 0; i < N; i++) {
		size_t k = stats_reservoir_slot(&r);

		if (k != SIZE_MAX)
			slot[k] = i;
	}
	assert_memory_equal(slot, slot2, sizeof(slot));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_nearest_rank),
		cmocka_unit_test(test_median_mad),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_reservoir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
