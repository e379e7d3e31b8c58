// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/transport/tp_util.c: the bandwidth meter both transports use
 * (buckets from t0, the five figures, the slowest full interval) and its
 * figures as Mb/s; deadlines rounded up to whole milliseconds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "transport/tp_util.h"
#include "transport/transport.h"
#include "util/clock.h"

#define MS 1000000ull

static void test_meter_figures(void **state)
{
	struct tp_meter m = { .t0 = 1000 * MS, .interval_ns = 100 * MS };
	uint64_t fig[5];

	(void)state;
	/* 3 full intervals (1000, 500, 2000 bytes), then 50 ms into a 4th. */
	assert_int_equal(tp_meter_add(&m, 1010 * MS, 600), 0);
	assert_int_equal(tp_meter_add(&m, 1090 * MS, 400), 0);
	assert_int_equal(tp_meter_add(&m, 1150 * MS, 500), 0);
	assert_int_equal(tp_meter_add(&m, 1250 * MS, 2000), 0);
	assert_int_equal(tp_meter_add(&m, 1350 * MS, 7), 0);
	tp_meter_figures(&m, fig);
	assert_int_equal(fig[0], 3507);
	assert_int_equal(fig[1], 350 * MS);
	assert_int_equal(fig[2], 3);
	assert_int_equal(fig[3], 500);
	assert_int_equal(fig[4], 100 * MS);
	tp_meter_fini(&m);
	assert_null(m.bucket);
	tp_meter_fini(&m);	/* twice is harmless */
}

static void test_meter_far_bucket(void **state)
{
	struct tp_meter m = { .t0 = 0, .interval_ns = MS };
	uint64_t fig[5];

	(void)state;
	/* A bucket far past the first allocation: the array grows, zeroed. */
	assert_int_equal(tp_meter_add(&m, 1000 * MS + 1, 10), 0);
	assert_true(m.n_bucket > 1000);
	tp_meter_figures(&m, fig);
	assert_int_equal(fig[2], 1000);
	assert_int_equal(fig[3], 0);	/* the empty intervals before it */
	tp_meter_fini(&m);
}

static void test_meter_empty(void **state)
{
	struct tp_meter m = { .t0 = 5 * MS, .t_last = 0, .interval_ns = MS };
	uint64_t fig[5];

	(void)state;
	tp_meter_figures(&m, fig);	/* t_last before t0: nothing elapsed */
	assert_int_equal(fig[0], 0);
	assert_int_equal(fig[1], 0);
	assert_int_equal(fig[2], 0);
	assert_int_equal(fig[3], 0);
}

static void test_bw_from_figures(void **state)
{
	const uint64_t fig[5] = { 125000000, 1000 * MS, 10, 10000000, 100 * MS };
	const uint64_t none[5] = { 1000, 0, 0, 0, 100 * MS };
	struct sweep_bw bw = { 0 };

	(void)state;
	tp_bw_from_figures(&bw, fig);
	assert_true(bw.measured);
	assert_int_equal(bw.bytes, 125000000);
	assert_float_equal(bw.secs, 1.0, 1e-9);
	assert_float_equal(bw.avg_mbps, 1000.0, 1e-9);	/* 125 MB in 1 s */
	assert_int_equal(bw.intervals, 10);
	assert_float_equal(bw.min_mbps, 800.0, 1e-9);	/* 10 MB in 100 ms */
	tp_bw_from_figures(&bw, none);
	assert_float_equal(bw.avg_mbps, 0.0, 0);
	assert_float_equal(bw.min_mbps, 0.0, 0);	/* no full interval: the average */
}

static void test_ms_left(void **state)
{
	uint64_t now = clock_mono_ns();

	(void)state;
	assert_int_equal(tp_ms_left(now - 1), 0);
	assert_int_equal(tp_ms_left(0), 0);
	/* 10 s ahead: 9999 or 10000 ms, never more (rounded up, time passes). */
	assert_in_range(tp_ms_left(now + 10000 * MS), 9999, 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meter_figures),
		cmocka_unit_test(test_meter_far_bucket),
		cmocka_unit_test(test_meter_empty),
		cmocka_unit_test(test_bw_from_figures),
		cmocka_unit_test(test_ms_left),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
