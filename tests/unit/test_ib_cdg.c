// SPDX-License-Identifier: GPL-2.0-or-later
/* model/ib_cdg: channel dependency graphs and credit loops on hand-built route sets. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "model/ib_cdg.h"

#define ROUTE(g, ...) do { \
	static const uint32_t r_[] = { __VA_ARGS__ }; \
	assert_int_equal(ib_cdg_add_route(g, r_, sizeof(r_) / sizeof(r_[0])), 0); \
} while (0)

struct found {
	struct ib_cdg_cycle *c;
	size_t n, loops;
};

static void cycles(struct ib_cdg *g, size_t max, struct found *f)
{
	assert_int_equal(ib_cdg_cycles(g, max, &f->c, &f->n, &f->loops), 0);
}

static void assert_cycle(const struct ib_cdg_cycle *c, size_t n, const uint32_t *want)
{
	assert_int_equal(c->n, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(c->ch[i], want[i]);
}

static void test_empty(void **state)
{
	struct ib_cdg *g = ib_cdg_new(0);
	struct found f;

	(void)state;
	assert_non_null(g);
	cycles(g, 4, &f);
	assert_int_equal(f.n, 0);
	assert_int_equal(f.loops, 0);
	assert_null(f.c);
	ib_cdg_free(g);
	ib_cdg_free(NULL);
}

/* Up*-down* on a line: routes only climb then descend, nothing comes back. */
static void test_line_acyclic(void **state)
{
	struct ib_cdg *g = ib_cdg_new(8);
	struct found f;

	(void)state;
	ROUTE(g, 0, 1, 2, 3);
	ROUTE(g, 1, 2, 3);
	ROUTE(g, 4, 5, 6, 7);
	ROUTE(g, 0, 5);
	assert_int_equal(ib_cdg_n_edges(g), 7);
	cycles(g, 4, &f);
	assert_int_equal(f.loops, 0);
	assert_int_equal(f.n, 0);
	ib_cdg_free(g);
}

/*
 * Four switches in a ring, each route two hops clockwise (what minhop
 * does on a ring of five): channel i is switch i -> i + 1; the route from
 * switch i to switch i + 2 makes i -> i + 1 wait on i + 1 -> i + 2.
 */
static void test_ring(void **state)
{
	static const uint32_t want[] = { 0, 1, 2, 3 };
	struct ib_cdg *g = ib_cdg_new(8);
	struct found f;

	(void)state;
	ROUTE(g, 0, 1);
	ROUTE(g, 1, 2);
	ROUTE(g, 2, 3);
	ROUTE(g, 3, 0);
	/* Counter-clockwise one-hop routes: no dependency at all. */
	ROUTE(g, 4);
	ROUTE(g, 5);
	cycles(g, 4, &f);
	assert_int_equal(f.loops, 1);
	assert_int_equal(f.n, 1);
	assert_cycle(&f.c[0], 4, want);
	assert_int_equal(f.c[0].scc_size, 4);
	ib_cdg_cycles_free(f.c, f.n);
	/* Asked again after a dependency more: the same graph plus it. */
	ROUTE(g, 5, 4);
	ROUTE(g, 4, 5);
	cycles(g, 4, &f);
	assert_int_equal(f.loops, 2);
	assert_int_equal(f.c[1].n, 2);
	assert_int_equal(f.c[1].ch[0], 4);
	assert_int_equal(f.c[1].ch[1], 5);
	ib_cdg_cycles_free(f.c, f.n);
	ib_cdg_free(g);
}

static void test_self_dependency(void **state)
{
	struct ib_cdg *g = ib_cdg_new(6);
	struct found f;

	(void)state;
	ROUTE(g, 1, 2);
	ROUTE(g, 5, 5);
	cycles(g, 4, &f);
	assert_int_equal(f.loops, 1);
	assert_int_equal(f.c[0].n, 1);
	assert_int_equal(f.c[0].ch[0], 5);
	assert_int_equal(f.c[0].scc_size, 1);
	ib_cdg_cycles_free(f.c, f.n);
	ib_cdg_free(g);
}

/* Two loops apart, listed by their lowest channel; @max keeps the count true. */
static void test_two_loops_and_max(void **state)
{
	static const uint32_t a[] = { 2, 7 }, b[] = { 3, 4, 6 };
	struct ib_cdg *g = ib_cdg_new(10);
	struct found f;

	(void)state;
	ROUTE(g, 6, 3, 4, 6, 3);
	ROUTE(g, 7, 2, 7);
	ROUTE(g, 0, 2);		/* into a loop, not part of it */
	ROUTE(g, 4, 9);		/* out of a loop */
	cycles(g, 4, &f);
	assert_int_equal(f.loops, 2);
	assert_int_equal(f.n, 2);
	assert_cycle(&f.c[0], 2, a);
	assert_cycle(&f.c[1], 3, b);
	ib_cdg_cycles_free(f.c, f.n);
	cycles(g, 1, &f);
	assert_int_equal(f.loops, 2);
	assert_int_equal(f.n, 1);
	assert_cycle(&f.c[0], 2, a);
	ib_cdg_cycles_free(f.c, f.n);
	ib_cdg_free(g);
}

/* A component with a long and a short cycle through its first channel: the short one. */
static void test_shortest_cycle(void **state)
{
	static const uint32_t want[] = { 0, 2, 3 };
	struct ib_cdg *g = ib_cdg_new(6);
	struct found f;

	(void)state;
	ROUTE(g, 0, 1, 2, 3, 4, 5, 0);
	ROUTE(g, 0, 2);
	ROUTE(g, 3, 0);
	cycles(g, 4, &f);
	assert_int_equal(f.loops, 1);
	assert_cycle(&f.c[0], 3, want);
	assert_int_equal(f.c[0].scc_size, 6);
	ib_cdg_cycles_free(f.c, f.n);
	ib_cdg_free(g);
}

static void test_dedup_and_range(void **state)
{
	struct ib_cdg *g = ib_cdg_new(3);

	(void)state;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(ib_cdg_add(g, 0, 1), 0);
	assert_int_equal(ib_cdg_n_edges(g), 1);
	assert_int_equal(ib_cdg_add(g, 3, 0), -EINVAL);
	assert_int_equal(ib_cdg_add(g, 0, 3), -EINVAL);
	assert_int_equal(ib_cdg_n_edges(g), 1);
	ib_cdg_free(g);
}

/*
 * 100,000 channels in one chain (and every channel also depending on the
 * one two ahead): acyclic; one dependency back from the end closes a
 * loop through all of them, found without recursion.
 */
static void test_long_chain(void **state)
{
	enum { N = 100000 };
	struct ib_cdg *g = ib_cdg_new(N);
	struct found f;

	(void)state;
	for (uint32_t i = 0; i + 1 < N; i++) {
		assert_int_equal(ib_cdg_add(g, i, i + 1), 0);
		if (i + 2 < N)
			assert_int_equal(ib_cdg_add(g, i, i + 2), 0);
	}
	cycles(g, 4, &f);
	assert_int_equal(f.loops, 0);
	assert_int_equal(ib_cdg_add(g, N - 1, 0), 0);
	cycles(g, 4, &f);
	assert_int_equal(f.loops, 1);
	assert_int_equal(f.c[0].scc_size, N);
	assert_int_equal(f.c[0].ch[0], 0);
	/* Shortest: every other channel, skipping ahead by two. */
	assert_int_equal(f.c[0].n, N / 2 + 1);
	assert_int_equal(f.c[0].ch[f.c[0].n - 1], N - 1);
	ib_cdg_cycles_free(f.c, f.n);
	ib_cdg_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_line_acyclic),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_self_dependency),
		cmocka_unit_test(test_two_loops_and_max),
		cmocka_unit_test(test_shortest_cycle),
		cmocka_unit_test(test_dedup_and_range),
		cmocka_unit_test(test_long_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
