// SPDX-License-Identifier: GPL-2.0-or-later
/* Path-class references: majority faults, clean fleets, small fleets, no topology. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/pathref.h"
#include "model/stats.h"

#define SLOW_PCT 80.0

static unsigned int seed = 12345;

/* Uniform noise in [-pct, +pct] percent. */
static double noisy(double v, double pct)
{
	seed = seed * 1103515245 + 12345;
	return v * (1 + pct / 100 * (((seed >> 16) % 2001) / 1000.0 - 1));
}

static bool is_slow(const struct pathref *ref, const struct pathref_pair *p)
{
	const struct pathref_class *c = pathref_class(ref, p->klass);

	assert_non_null(c);
	return p->bw_mbps < c->ref_mbps * SLOW_PCT / 100;
}

/*
 * 100 cross-leaf pairs (class 4): the first @n_bad cross link 999 at 20 %
 * speed; each pair has its own access links and one of 7 other uplinks.
 */
struct fleet {
	struct pathref_pair p[100];
	uint32_t links[100][4];
};

static void fleet_fill(struct fleet *f, size_t n_bad)
{
	for (size_t i = 0; i < 100; i++) {
		f->links[i][0] = (uint32_t)(2 * i);
		f->links[i][1] = (uint32_t)(2 * i + 1);
		f->links[i][2] = (uint32_t)(500 + i % 7);
		f->links[i][3] = i < n_bad ? 999 : (uint32_t)(600 + i % 5);
		f->p[i] = (struct pathref_pair){ .klass = 4, .links = f->links[i], .n_links = 4,
						 .bw_mbps = noisy(i < n_bad ? 200 : 1000, 3) };
	}
}

static void test_majority_fault(void **state)
{
	static const size_t bad[] = { 10, 40, 50, 60, 75 };

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct fleet f;
		struct pathref ref;
		double all[100];
		const struct pathref_class *c;

		fleet_fill(&f, bad[k]);
		assert_int_equal(pathref_compute(&ref, f.p, 100, 1000), 0);
		c = pathref_class(&ref, 4);
		assert_non_null(c);
		if (fabs(c->ref_mbps - 1000) >= 40)
			print_message("bad %zu: ref %.1f median %.1f excluded %u\n", bad[k], c->ref_mbps, c->median_mbps, c->excluded[0]);
		assert_true(fabs(c->ref_mbps - 1000) < 40);
		for (size_t i = 0; i < 100; i++) {
			assert_int_equal(is_slow(&ref, &f.p[i]), i < bad[k]);
			all[i] = f.p[i].bw_mbps;
		}
		if (bad[k] >= 60) {
			/* The fleet median is the slow value: what the plain median judge misses. */
			assert_true(stats_median(all, 100) < 300);
			assert_int_equal(c->excluded[0], 999);
		}
		/* No topology: the dense-cluster fallback finds the healthy level too. */
		assert_true(fabs(pathref_cluster(all, 100) - 1000) < 40);
		pathref_fini(&ref);
	}
}

/* Two bad links, 35 pairs behind each (70 % slow): the pairs crossing neither give the reference. */
static void test_two_bad_links(void **state)
{
	struct fleet f;
	struct pathref ref;
	const struct pathref_class *c;

	fleet_fill(&f, 70);
	for (size_t i = 35; i < 70; i++)
		f.links[i][3] = 998;
	assert_int_equal(pathref_compute(&ref, f.p, 100, 1000), 0);
	c = pathref_class(&ref, 4);
	assert_true(fabs(c->ref_mbps - 1000) < 40);
	assert_int_equal(c->n_ref, 30);
	assert_true((c->excluded[0] == 998 && c->excluded[1] == 999) ||
		    (c->excluded[0] == 999 && c->excluded[1] == 998));
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(is_slow(&ref, &f.p[i]), i < 70);
	pathref_fini(&ref);
}

static void test_clean_nothing_slow(void **state)
{
	struct fleet f;
	struct pathref ref;
	double all[100];

	for (int run = 0; run < 20; run++) {
		fleet_fill(&f, 0);
		for (size_t i = 50; i < 100; i++) {	/* a second class, slower by design */
			f.p[i].klass = 2;
			f.p[i].bw_mbps = noisy(600, 5);
		}
		assert_int_equal(pathref_compute(&ref, f.p, 100, 1000), 0);
		assert_int_equal(ref.n_classes, 2);
		for (size_t i = 0; i < 100; i++) {
			assert_false(is_slow(&ref, &f.p[i]));
			all[i] = f.p[i].bw_mbps;
		}
		assert_true(pathref_class(&ref, 2)->ref_mbps < 650);
		assert_true(pathref_class(&ref, 4)->ref_mbps > 950);
		pathref_fini(&ref);
		/* The fallback on one clean class: nothing below 80 %. */
		for (size_t i = 0; i < 50; i++)
			assert_true(all[i] >= 0.8 * pathref_cluster(all, 50));
	}
}

/* 4 hosts on one leaf, host 3 at 100 Mb/s: its 3 pairs slow, the other 3 ok. */
static void test_small_fleet_one_slow_host(void **state)
{
	static const unsigned int hp[6][2] = { { 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 2 }, { 1, 3 }, { 2, 3 } };
	struct pathref_pair p[6];
	uint32_t links[6][2];
	struct pathref ref;

	for (size_t i = 0; i < 6; i++) {
		links[i][0] = hp[i][0];
		links[i][1] = hp[i][1];
		p[i] = (struct pathref_pair){ .klass = 2, .links = links[i], .n_links = 2,
					      .bw_mbps = hp[i][1] == 3 ? noisy(95, 3) : noisy(9000, 10) };
	}
	assert_int_equal(pathref_compute(&ref, p, 6, 4), 0);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(is_slow(&ref, &p[i]), hp[i][1] == 3);
	assert_int_equal(pathref_class(&ref, 2)->excluded[0], 3);
	pathref_fini(&ref);
	/* The same fleet clean: nothing slow. */
	for (size_t i = 0; i < 6; i++)
		p[i].bw_mbps = noisy(9000, 10);
	assert_int_equal(pathref_compute(&ref, p, 6, 4), 0);
	for (size_t i = 0; i < 6; i++)
		assert_false(is_slow(&ref, &p[i]));
	pathref_fini(&ref);
}

/* Every pair crosses the bad link: the rule says it cannot see it; failed pairs are skipped. */
static void test_blind_link_and_failed(void **state)
{
	struct pathref_pair p[10];
	uint32_t links[10][3];
	struct pathref ref;
	const struct pathref_class *c;

	for (size_t i = 0; i < 10; i++) {
		links[i][0] = (uint32_t)i;
		links[i][1] = 50;	/* one uplink for all */
		links[i][2] = 60;
		p[i] = (struct pathref_pair){ .klass = 4, .links = links[i], .n_links = 3,
					      .bw_mbps = i == 9 ? NAN : noisy(200, 2) };
	}
	assert_int_equal(pathref_compute(&ref, p, 10, 64), 0);
	c = pathref_class(&ref, 4);
	assert_int_equal(c->n, 9);
	assert_int_equal(c->blind_link, 50);
	assert_true(fabs(c->ref_mbps - 200) < 10);
	pathref_fini(&ref);
}

/* Two pairs of a class are no reference: NAN, and the pairs go to the fleet's. */
static void test_class_too_small(void **state)
{
	uint32_t links[5][2] = { { 0, 9 }, { 1, 9 }, { 2, 8 }, { 3, 8 }, { 4, 8 } };
	struct pathref_pair p[5];
	struct pathref ref;

	(void)state;
	for (size_t i = 0; i < 5; i++)
		p[i] = (struct pathref_pair){ .klass = i < 2 ? 2 : 4, .links = links[i], .n_links = 2,
					      .bw_mbps = i == 0 ? 300 : 900 };
	assert_int_equal(pathref_compute(&ref, p, 5, 16), 0);
	assert_int_equal(pathref_class(&ref, 2)->n, 2);
	assert_true(isnan(pathref_class(&ref, 2)->ref_mbps));
	assert_true(fabs(pathref_class(&ref, 4)->ref_mbps - 900) < 1e-9);
	pathref_fini(&ref);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_majority_fault),
		cmocka_unit_test(test_two_bad_links),
		cmocka_unit_test(test_clean_nothing_slow),
		cmocka_unit_test(test_small_fleet_one_slow_host),
		cmocka_unit_test(test_blind_link_and_failed),
		cmocka_unit_test(test_class_too_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
