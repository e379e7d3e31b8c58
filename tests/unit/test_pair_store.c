// SPDX-License-Identifier: GPL-2.0-or-later
/* The sweep's pair store (io/pair_store.c): every field back, in memory and on file. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "io/pair_store.h"

/* A pair whose every field depends on @i. */
static void pair_make(struct sweep_pair *p, unsigned int i)
{
	memset(p, 0, sizeof(*p));
	p->a = i % 97;
	p->b = 100 + i % 89;
	p->round = i / 7 + 1;
	p->status = (enum sweep_status)(i % 5);
	if (i % 3)
		snprintf(p->reason, sizeof(p->reason), "reason %u: bandwidth %.1f Mb/s", i % 11, i * 0.5);
	if (i % 17 == 0)	/* the longest a reason can be */
		memset(p->reason, 'r', sizeof(p->reason) - 1);
	p->have_lat = i % 2;
	p->lat_ns = (struct stats_summary){ .n = i, .min = i + 0.25, .p50 = i + 1.5, .p99 = i + 2.75,
					    .p999 = i * 1e-9, .max = 1e300, .mean = -i };
	p->ab = (struct sweep_bw){ .measured = i % 4 != 0, .avg_mbps = i * 1.125, .min_mbps = i / 3.0,
				   .bytes = (uint64_t)i << 33, .secs = 1.0 / (i + 1), .intervals = i };
	p->ba = (struct sweep_bw){ .measured = i % 4 != 1, .avg_mbps = NAN, .min_mbps = -0.0,
				   .bytes = i, .secs = i, .intervals = ~0u - i };
	p->pct_rated = i % 6 ? i * 0.1 : -1;
	p->expected_mbps = i * 10.0;
	p->expect_src = (enum sweep_expect)(i % 3);
	p->klass = i % 9;
	p->retested = i % 5 == 0;
	p->first_slow = i % 7 == 0;
	p->slow_lat = i % 11 == 0;
	p->test_s = i * 0.001;
	p->have_base = i % 13 == 0;
	p->base_ab_mbps = i % 13 ? NAN : i * 2.0;
	p->base_ba_mbps = i * 3.0;
	p->change_pct = -i * 0.01;
	p->sport_ab = (uint16_t)(i % 3 ? 0xc000 + i : 0);
	p->sport_ba = (uint16_t)(0xffff - i);
}

static void same_double(double a, double b)
{
	if (isnan(a))
		assert_true(isnan(b));
	else
		assert_memory_equal(&a, &b, sizeof(a));
}

static void pair_equal(const struct sweep_pair *x, const struct sweep_pair *y)
{
	assert_int_equal(x->a, y->a);
	assert_int_equal(x->b, y->b);
	assert_int_equal(x->round, y->round);
	assert_int_equal(x->status, y->status);
	assert_string_equal(x->reason, y->reason);
	assert_int_equal(x->have_lat, y->have_lat);
	assert_int_equal(x->lat_ns.n, y->lat_ns.n);
	same_double(x->lat_ns.min, y->lat_ns.min);
	same_double(x->lat_ns.p50, y->lat_ns.p50);
	same_double(x->lat_ns.p99, y->lat_ns.p99);
	same_double(x->lat_ns.p999, y->lat_ns.p999);
	same_double(x->lat_ns.max, y->lat_ns.max);
	same_double(x->lat_ns.mean, y->lat_ns.mean);
	for (int d = 0; d < 2; d++) {
		const struct sweep_bw *u = d ? &x->ba : &x->ab, *v = d ? &y->ba : &y->ab;

		assert_int_equal(u->measured, v->measured);
		same_double(u->avg_mbps, v->avg_mbps);
		same_double(u->min_mbps, v->min_mbps);
		assert_true(u->bytes == v->bytes);
		same_double(u->secs, v->secs);
		assert_int_equal(u->intervals, v->intervals);
	}
	same_double(x->pct_rated, y->pct_rated);
	same_double(x->expected_mbps, y->expected_mbps);
	assert_int_equal(x->expect_src, y->expect_src);
	assert_int_equal(x->klass, y->klass);
	assert_int_equal(x->retested, y->retested);
	assert_int_equal(x->first_slow, y->first_slow);
	assert_int_equal(x->slow_lat, y->slow_lat);
	same_double(x->test_s, y->test_s);
	assert_int_equal(x->have_base, y->have_base);
	same_double(x->base_ab_mbps, y->base_ab_mbps);
	same_double(x->base_ba_mbps, y->base_ba_mbps);
	same_double(x->change_pct, y->change_pct);
	assert_int_equal(x->sport_ab, y->sport_ab);
	assert_int_equal(x->sport_ba, y->sport_ba);
}

static void roundtrip(unsigned int n, bool want_file)
{
	struct pair_store *ps;
	struct sweep_pair p, q;
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(pair_store_new(&ps, 0, &err), 0);
	for (unsigned int i = 0; i < n; i++) {
		pair_make(&p, i);
		assert_int_equal(pair_store_append(ps, &p, &err), 0);
	}
	assert_int_equal(pair_store_count(ps), n);
	assert_int_equal(pair_store_on_file(ps), want_file);
	for (unsigned int i = 0; i < n; i++) {
		pair_make(&p, i);
		assert_int_equal(pair_store_get(ps, i, &q, &err), 0);
		pair_equal(&p, &q);
	}
	/* Every third pair rewritten with another pair's fields and a new reason. */
	for (unsigned int i = 0; i < n; i += 3) {
		pair_make(&p, i + 1000003);
		snprintf(p.reason, sizeof(p.reason), "rewritten %u", i);
		assert_int_equal(pair_store_put(ps, i, &p, &err), 0);
	}
	for (unsigned int i = 0; i < n; i++) {
		pair_make(&p, i % 3 ? i : i + 1000003);
		if (i % 3 == 0)
			snprintf(p.reason, sizeof(p.reason), "rewritten %u", i);
		assert_int_equal(pair_store_get(ps, i, &q, &err), 0);
		pair_equal(&p, &q);
	}
	assert_int_equal(pair_store_get(ps, n, &q, &err), -EINVAL);
	assert_int_equal(pair_store_put(ps, n, &p, &err), -EINVAL);
	pair_store_free(ps);
}

static void test_memory(void **state)
{
	unsetenv("FABRICCTL_SPOOL_MEM");
	roundtrip(5000, false);
}

static void test_file(void **state)
{
	setenv("FABRICCTL_SPOOL_MEM", "4096", 1);
	roundtrip(20000, true);
	unsetenv("FABRICCTL_SPOOL_MEM");
	pair_store_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
