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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_nearest_rank),
		cmocka_unit_test(test_median_mad),
		cmocka_unit_test(test_summarize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
