// SPDX-License-Identifier: GPL-2.0-or-later
/* Schedules: every pair exactly once, no node twice in a round, round counts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/schedule.h"

/* Every unordered pair of 0..n-1 appears exactly once. */
static void assert_all_pairs(const struct sched *s, size_t n)
{
	unsigned int *seen = calloc(n * n + 1, sizeof(*seen));

	assert_non_null(seen);
	assert_int_equal(s->n_pairs, n * (n - 1) / 2);
	for (size_t i = 0; i < s->n_pairs; i++) {
		assert_true(s->pairs[i].a < s->pairs[i].b);
		seen[s->pairs[i].a * n + s->pairs[i].b]++;
	}
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n; b++)
			assert_int_equal(seen[a * n + b], 1);
	free(seen);
}

static void test_circle_even_odd(void **state)
{
	for (size_t n = 2; n <= 65; n++) {
		struct sched s;

		assert_int_equal(sched_circle(&s, n), 0);
		assert_int_equal(sched_check(&s, n), 0);
		assert_all_pairs(&s, n);
		/* n-1 rounds of n/2 pairs (n even); n rounds of (n-1)/2 with a bye (odd). */
		assert_int_equal(s.n_rounds, n % 2 ? n : n - 1);
		for (size_t r = 0; r < s.n_rounds; r++)
			assert_int_equal(sched_round_size(&s, r), n / 2);
		sched_fini(&s);
	}
}

static void test_circle_8_exact(void **state)
{
	struct sched s;
	bool in_round[8];

	assert_int_equal(sched_circle(&s, 8), 0);
	assert_int_equal(s.n_rounds, 7);
	assert_int_equal(s.n_pairs, 28);
	/* Every node in every round (no byes with n even). */
	for (size_t r = 0; r < 7; r++) {
		memset(in_round, 0, sizeof(in_round));
		for (size_t i = s.round_start[r]; i < s.round_start[r + 1]; i++)
			in_round[s.pairs[i].a] = in_round[s.pairs[i].b] = true;
		for (size_t v = 0; v < 8; v++)
			assert_true(in_round[v]);
	}
	/* Round 0 pairs the fixed node 7 with node 0. */
	assert_int_equal(s.pairs[0].a, 0);
	assert_int_equal(s.pairs[0].b, 7);
	sched_fini(&s);
}

static void test_circle_tiny(void **state)
{
	struct sched s;

	assert_int_equal(sched_circle(&s, 0), 0);
	assert_int_equal(s.n_pairs, 0);
	assert_int_equal(s.n_rounds, 0);
	sched_fini(&s);
	assert_int_equal(sched_circle(&s, 1), 0);
	assert_int_equal(s.n_pairs, 0);
	assert_int_equal(s.n_rounds, 0);
	sched_fini(&s);
	assert_int_equal(sched_circle(&s, 3), 0);
	assert_int_equal(s.n_rounds, 3);
	assert_int_equal(s.n_pairs, 3);
	sched_fini(&s);
}

static void test_serial(void **state)
{
	struct sched s;

	assert_int_equal(sched_serial(&s, 6), 0);
	assert_int_equal(sched_check(&s, 6), 0);
	assert_all_pairs(&s, 6);
	assert_int_equal(s.n_rounds, 15);
	for (size_t r = 0; r < s.n_rounds; r++)
		assert_int_equal(sched_round_size(&s, r), 1);
	sched_fini(&s);
}

static void test_one_per_round(void **state)
{
	struct sched_pair p[3] = { { 0, 1 }, { 2, 3 }, { 1, 2 } };
	struct sched s;

	(void)state;
	assert_int_equal(sched_one_per_round(&s, p, 3), 0);
	assert_int_equal(sched_check(&s, 4), 0);
	assert_int_equal(s.n_rounds, 3);
	for (size_t r = 0; r < s.n_rounds; r++) {
		assert_int_equal(sched_round_size(&s, r), 1);
		assert_int_equal(s.pairs[s.round_start[r]].a, p[r].a);
		assert_int_equal(s.pairs[s.round_start[r]].b, p[r].b);
	}
	sched_fini(&s);
}

static void test_bipartite(void **state)
{
	bool nw[7] = { false, true, false, false, true, false, false };	/* 2 new, 5 old */
	unsigned int cross[7][7] = { { 0 } };
	struct sched s;

	assert_int_equal(sched_bipartite(&s, nw, 7), 0);
	assert_int_equal(sched_check(&s, 7), 0);
	assert_int_equal(s.n_pairs, 10);
	assert_int_equal(s.n_rounds, 5);
	for (size_t i = 0; i < s.n_pairs; i++) {
		/* Exactly one end is new. */
		assert_true(nw[s.pairs[i].a] != nw[s.pairs[i].b]);
		cross[s.pairs[i].a][s.pairs[i].b]++;
	}
	for (size_t a = 0; a < 7; a++)
		for (size_t b = a + 1; b < 7; b++)
			assert_int_equal(cross[a][b], nw[a] != nw[b] ? 1 : 0);
	sched_fini(&s);
	/* More new than old: rounds = #new. */
	for (size_t i = 0; i < 7; i++)
		nw[i] = i != 3;
	assert_int_equal(sched_bipartite(&s, nw, 7), 0);
	assert_int_equal(sched_check(&s, 7), 0);
	assert_int_equal(s.n_pairs, 6);
	assert_int_equal(s.n_rounds, 6);
	sched_fini(&s);
	/* Nobody new: nothing to do. */
	memset(nw, 0, sizeof(nw));
	assert_int_equal(sched_bipartite(&s, nw, 7), 0);
	assert_int_equal(s.n_pairs, 0);
	assert_int_equal(s.n_rounds, 0);
	sched_fini(&s);
}

static void test_from_pairs(void **state)
{
	/* Star around node 0 needs one round per pair; 1-2 and 3-4 fit with them. */
	struct sched_pair p[] = { { 0, 1 }, { 0, 2 }, { 0, 3 }, { 1, 2 }, { 3, 4 } };
	struct sched_pair bad[] = { { 0, 0 } };
	struct sched s;

	assert_int_equal(sched_from_pairs(&s, p, 5, 5), 0);
	assert_int_equal(sched_check(&s, 5), 0);
	assert_int_equal(s.n_pairs, 5);
	assert_int_equal(s.n_rounds, 3);
	/* Round 1 greedily takes 0-1 and 3-4. */
	assert_int_equal(sched_round_size(&s, 0), 2);
	assert_int_equal(s.pairs[0].a, 0);
	assert_int_equal(s.pairs[0].b, 1);
	assert_int_equal(s.pairs[1].a, 3);
	assert_int_equal(s.pairs[1].b, 4);
	sched_fini(&s);
	assert_int_equal(sched_from_pairs(&s, bad, 1, 5), -EINVAL);
	bad[0].b = 9;
	assert_int_equal(sched_from_pairs(&s, bad, 1, 5), -EINVAL);
}

static void test_check_rejects(void **state)
{
	struct sched s;

	assert_int_equal(sched_circle(&s, 4), 0);
	/* Put a node twice into round 0. */
	s.pairs[1].a = s.pairs[0].a;
	assert_int_equal(sched_check(&s, 4), -EINVAL);
	sched_fini(&s);
	assert_int_equal(sched_serial(&s, 3), 0);
	/* The same pair twice. */
	s.pairs[1] = s.pairs[0];
	assert_int_equal(sched_check(&s, 3), -EINVAL);
	sched_fini(&s);
}

/* The circle method as a source: the rounds of sched_circle(), one at a time. */
static void test_src_circle(void **state)
{
	for (size_t n = 0; n <= 13; n++) {
		struct sched s;
		struct sched_src src, ex;
		struct sched_pair buf[8], buf2[8];
		size_t got, got2, r = 0;
		int rc;

		sched_init(&s);
		assert_int_equal(sched_circle(&s, n), 0);
		sched_src_circle(&src, n);
		sched_src_explicit(&ex, &s);
		assert_int_equal(src.n_rounds, s.n_rounds);
		assert_int_equal(src.n_pairs, s.n_pairs);
		assert_int_equal(ex.n_rounds, s.n_rounds);
		assert_int_equal(ex.n_pairs, s.n_pairs);
		assert_true(src.max_round <= 8 && ex.max_round <= src.max_round);
		while ((rc = src.next(&src, buf, &got)) == 1) {
			assert_int_equal(ex.next(&ex, buf2, &got2), 1);
			assert_int_equal(got, sched_round_size(&s, r));
			assert_int_equal(got, got2);
			assert_memory_equal(buf, s.pairs + s.round_start[r], got * sizeof(*buf));
			assert_memory_equal(buf2, buf, got * sizeof(*buf));
			r++;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(ex.next(&ex, buf2, &got2), 0);
		assert_int_equal(r, s.n_rounds);
		sched_src_fini(&src);
		sched_src_fini(&src);
		sched_fini(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_circle_even_odd),
		cmocka_unit_test(test_circle_8_exact),
		cmocka_unit_test(test_circle_tiny),
		cmocka_unit_test(test_serial),
		cmocka_unit_test(test_one_per_round),
		cmocka_unit_test(test_bipartite),
		cmocka_unit_test(test_from_pairs),
		cmocka_unit_test(test_check_rejects),
		cmocka_unit_test(test_src_circle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
