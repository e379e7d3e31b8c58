// SPDX-License-Identifier: GPL-2.0-or-later
/* The node rule of a sweep without expected rates (model/sweep_nodes.c). */
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

#include "model/sweep_nodes.h"

#define N 8

static uint64_t rng = 88172645463325252ull;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / (double)(1ull << 53);
}

/* All pairs of N nodes; bandwidth = base x a log-uniform factor in [1/spread, spread]; @slow's pairs at @slow_bw. */
static size_t fleet(struct sweep_pair *pp, double base, double spread, int slow, double slow_bw)
{
	size_t n = 0;

	for (unsigned int a = 0; a < N; a++)
		for (unsigned int b = a + 1; b < N; b++) {
			struct sweep_pair *p = &pp[n++];
			double f = exp((2 * uniform() - 1) * log(spread));
			double bw = (int)a == slow || (int)b == slow ? slow_bw * (0.9 + 0.2 * uniform())
								      : base * f;

			memset(p, 0, sizeof(*p));
			p->a = a;
			p->b = b;
			p->ab.measured = p->ba.measured = true;
			p->ab.avg_mbps = p->ba.avg_mbps = bw;
			p->status = SWEEP_OK;
		}
	return n;
}

static void judge_all(struct sweep_nodes *sn, const struct sweep_pair *pp, size_t n)
{
	struct sweep_cfg cfg;
	struct sweep_ref ref;

	sweep_cfg_default(&cfg);
	sweep_ref_compute(pp, n, &ref);
	assert_int_equal(sweep_nodes_begin(sn, N), 0);
	for (size_t i = 0; i < n; i++)
		sweep_nodes_add(sn, &pp[i]);
	assert_int_equal(sweep_nodes_judge(sn, &cfg), 0);
}

/*
 * The lab that missed it: a fleet spread by factors (load 9), one host at
 * 100 Mbit/s.  The generator is seeded: these counts are the rule's, not
 * chance's (a simulation of 2,000 fleets each way: docs/sweep.md).
 */
static void test_slow_node_under_noise(void **state)
{
	struct sweep_pair pp[N * N];
	struct sweep_nodes sn;
	size_t n;

	(void)state;
	for (int rep = 0; rep < 200; rep++) {
		n = fleet(pp, 713, 2.0, 3, 95);
		judge_all(&sn, pp, n);
		assert_true(sn.slow[3]);
		assert_true(sn.n_slow <= 2);
		for (size_t i = 0; i < n; i++) {
			double e = sweep_nodes_expect(&sn, &pp[i]);

			if (pp[i].a == 3 || pp[i].b == 3)
				assert_true(e == sn.ref_mbps);
		}
		sweep_nodes_fini(&sn);
	}
}

/* No slow node: the same noise names nobody, in 1000 fleets. */
static void test_clean_noisy_fleet(void **state)
{
	struct sweep_pair pp[N * N];
	struct sweep_nodes sn;
	size_t n, flagged = 0;

	(void)state;
	for (int rep = 0; rep < 1000; rep++) {
		n = fleet(pp, 713, 2.0, -1, 0);
		judge_all(&sn, pp, n);
		flagged += sn.n_slow;
		sweep_nodes_fini(&sn);
	}
	/*
	 * A median of 7 pairs spread x2 either way falls below the floor in
	 * about 2 % of fleets: those pairs are re-tested alone, which clears
	 * them (the retest is the guard, this rule the net).
	 */
	assert_true(flagged <= 30);
	/* quiet machine: spread 1.1 */
	for (int rep = 0; rep < 1000; rep++) {
		n = fleet(pp, 9000, 1.1, -1, 0);
		judge_all(&sn, pp, n);
		assert_int_equal(sn.n_slow, 0);
		sweep_nodes_fini(&sn);
	}
}

/* Pairs with an expected rate, failed pairs and small fleets stay out of it. */
static void test_nodes_scope(void **state)
{
	struct sweep_pair pp[N * N];
	struct sweep_nodes sn;
	struct sweep_cfg cfg;
	struct sweep_ref ref;
	size_t n;

	(void)state;
	sweep_cfg_default(&cfg);
	n = fleet(pp, 1000, 1.05, 2, 100);
	for (size_t i = 0; i < n; i++)
		pp[i].expect_src = SWEEP_EXPECT_RATED;
	judge_all(&sn, pp, n);
	assert_int_equal(sn.n_slow, 0);
	assert_true(isnan(sn.ref_mbps));
	sweep_nodes_fini(&sn);
	/* three nodes: no node reference */
	assert_int_equal(sweep_nodes_begin(&sn, 3), 0);
	for (unsigned int a = 0; a < 3; a++)
		for (unsigned int b = a + 1; b < 3; b++)
			for (int k = 0; k < 3; k++) {
				struct sweep_pair p;

				memset(&p, 0, sizeof(p));
				p.a = a;
				p.b = b;
				p.ab.measured = p.ba.measured = true;
				p.ab.avg_mbps = p.ba.avg_mbps = a == 0 ? 10 : 1000;
				sweep_nodes_add(&sn, &p);
			}
	sweep_ref_compute(NULL, 0, &ref);
	assert_int_equal(sweep_nodes_judge(&sn, &cfg), 0);
	assert_int_equal(sn.n_slow, 0);
	sweep_nodes_fini(&sn);
}

/*
 * More pairs a node than SWEEP_NODE_SAMPLE: each node's slots grow as its
 * pairs come and stop at the sample (the reservoir then replaces); the
 * medians are those of the pairs (node 5's at 100, the others' at 1000
 * and up) and node 5 alone is slow.
 */
static void test_sample_grows(void **state)
{
	struct sweep_nodes sn;
	struct sweep_cfg cfg;
	size_t per = 0;

	(void)state;
	sweep_cfg_default(&cfg);
	assert_int_equal(sweep_nodes_begin(&sn, N), 0);
	for (int rep = 0; rep < 50; rep++)
		for (unsigned int a = 0; a < N; a++)
			for (unsigned int b = a + 1; b < N; b++) {
				struct sweep_pair p;

				memset(&p, 0, sizeof(p));
				p.a = a;
				p.b = b;
				p.ab.measured = p.ba.measured = true;
				p.ab.avg_mbps = p.ba.avg_mbps = a == 5 || b == 5 ? 100 : 1000 + rep;
				sweep_nodes_add(&sn, &p);
				per += a == 0;
			}
	assert_true(per / (N - 1) * (N - 1) > SWEEP_NODE_SAMPLE);
	assert_int_equal(sweep_nodes_judge(&sn, &cfg), 0);
	for (unsigned int v = 0; v < N; v++) {
		assert_int_equal(stats_reservoir_len(&sn.res[v]), SWEEP_NODE_SAMPLE);
		assert_true(sn.bw_cap[v] >= SWEEP_NODE_SAMPLE && sn.bw_cap[v] < 2 * SWEEP_NODE_SAMPLE);
		if (v == 5)
			assert_true(fabs(sn.median[v] - 100) < 1e-9);
		else
			assert_true(sn.median[v] >= 1000 - 1e-9);
	}
	assert_true(sn.slow[5]);
	assert_int_equal(sn.n_slow, 1);
	sweep_nodes_fini(&sn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_node_under_noise),
		cmocka_unit_test(test_clean_noisy_fleet),
		cmocka_unit_test(test_nodes_scope),
		cmocka_unit_test(test_sample_grows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
