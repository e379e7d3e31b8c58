// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Steered rounds (sched_topo.h "Steered rounds"): checked here, apart from
 * the packer's own loads, by summing every round's demands per directed
 * hop over the chosen option's paths (or every path of a pair counted
 * whole): no member over its capacity in any round, no host twice, every
 * pair once; and the rounds near the node bound where steering is free.
 */
#include <errno.h>
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

#include "model/sched_topo.h"
#include "model/topo_gen.h"
#include "sim_fab.h"

struct fab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	struct pair_route *routes;
	struct sched_steer_pair *sp;
	struct sched_steer_opt *opts;	/* per pair: room for OPT_ROOM */
	size_t n;
};

#define OPT_ROOM 64

static void fab_up(struct fab *f, unsigned int leaves, unsigned int hosts, unsigned int spines,
		   unsigned int host_mbps, unsigned int up_mbps)
{
	struct topo_gen_2l g = { .leaves = leaves, .hosts_per_leaf = hosts, .spines = spines,
				 .host_mbps = host_mbps, .uplink_mbps = up_mbps };
	size_t nh = (size_t)leaves * hosts, k = 0;
	struct fab_err err;

	memset(f, 0, sizeof(*f));
	assert_int_equal(topo_gen_leaf_spine(&f->t, &g), 0);
	sim_fab_place(&f->hs, &f->r, f->t, nh);
	fab_err_init(&err);
	f->n = nh * (nh - 1) / 2;
	f->routes = calloc(f->n, sizeof(*f->routes));
	f->sp = calloc(f->n, sizeof(*f->sp));
	f->opts = calloc(f->n * OPT_ROOM, sizeof(*f->opts));
	assert_non_null(f->routes);
	assert_non_null(f->sp);
	assert_non_null(f->opts);
	for (unsigned int a = 0; a < nh; a++)
		for (unsigned int b = a + 1; b < nh; b++, k++) {
			assert_int_equal(route_pair(f->r, a, b, &f->routes[k], &err), 0);
			f->sp[k].route = &f->routes[k];
		}
}

static void fab_down(struct fab *f)
{
	for (size_t i = 0; i < f->n; i++)
		pair_route_fini(&f->routes[i]);
	free(f->routes);
	free(f->sp);
	free(f->opts);
	sim_fab_free(&f->hs, f->r, f->t, NULL);
}

/* A stand-in for a switch's hash of a 5-tuple: which of @k members. */
static unsigned int hash_member(unsigned int a, unsigned int b, unsigned int port, unsigned int k,
				unsigned int seed)
{
	uint32_t h = 2166136261u ^ seed;
	unsigned int v[3] = { a, b, port };

	for (size_t i = 0; i < 3; i++) {
		h ^= v[i];
		h *= 16777619u;
		h ^= h >> 13;
	}
	return h % k;
}

/*
 * Options: every combination (@ports 0), or @ports traced source ports
 * hashed each way; pairs of leaf pairs for which @fallback says so
 * get none (the whole set).
 */
static void fab_opts(struct fab *f, unsigned int ports, unsigned int seed,
		     bool (*fallback)(const struct fab *f, const struct pair_route *pr))
{
	for (size_t i = 0; i < f->n; i++) {
		const struct pair_route *pr = &f->routes[i];
		struct sched_steer_opt *o = &f->opts[i * OPT_ROOM];

		f->sp[i].opts = o;
		f->sp[i].n_opts = 0;
		if (fallback && fallback(f, pr))
			continue;
		if (!ports) {
			f->sp[i].n_opts = sched_steer_opts_all(pr, o, OPT_ROOM);
			continue;
		}
		for (unsigned int p = 0; p < ports && p < OPT_ROOM; p++)
			o[f->sp[i].n_opts++] = (struct sched_steer_opt){
				.sport = (uint16_t)(49152 + p),
				.ab = (uint16_t)hash_member(pr->a, pr->b, p, (unsigned int)pr->n_ab, seed),
				.ba = (uint16_t)hash_member(pr->b, pr->a, p, (unsigned int)pr->n_ba, seed + 7),
			};
	}
}

/* Independent check of @s against the routes: capacity per directed hop, hosts, coverage. */
static void assert_steered_fits(const struct fab *f, const struct sched *s, const uint32_t *choice)
{
	size_t dls = f->t->n_links * 2;
	double *load = calloc(dls, sizeof(*load));
	bool *busy = calloc(f->r->n_hosts, sizeof(*busy));
	unsigned int *seen = calloc(f->n, sizeof(*seen));

	assert_non_null(load);
	assert_non_null(busy);
	assert_non_null(seen);
	assert_int_equal(s->n_pairs, f->n);
	for (size_t rd = 0; rd < s->n_rounds; rd++) {
		memset(load, 0, dls * sizeof(*load));
		memset(busy, 0, f->r->n_hosts * sizeof(*busy));
		for (size_t i = s->round_start[rd]; i < s->round_start[rd + 1]; i++) {
			size_t k = 0;

			while (k < f->n && sched_pair_key(f->routes[k].a, f->routes[k].b) !=
					       sched_pair_key(s->pairs[i].a, s->pairs[i].b))
				k++;
			assert_true(k < f->n);
			seen[k]++;
			assert_false(busy[s->pairs[i].a]);
			assert_false(busy[s->pairs[i].b]);
			busy[s->pairs[i].a] = busy[s->pairs[i].b] = true;

			const struct pair_route *pr = &f->routes[k];
			bool *hold = calloc(dls, sizeof(*hold));

			assert_non_null(hold);
			for (size_t p = 0; p < pr->n_ab; p++)
				if (choice[k] == SCHED_STEER_WHOLE || f->sp[k].opts[choice[k]].ab == p)
					for (size_t h = 0; h < pr->ab[p].n_hops; h++)
						hold[pr->ab[p].hops[h].link * 2 + !pr->ab[p].hops[h].fwd] = true;
			for (size_t p = 0; p < pr->n_ba; p++)
				if (choice[k] == SCHED_STEER_WHOLE || f->sp[k].opts[choice[k]].ba == p)
					for (size_t h = 0; h < pr->ba[p].n_hops; h++)
						hold[pr->ba[p].hops[h].link * 2 + !pr->ba[p].hops[h].fwd] = true;
			assert_true(choice[k] == SCHED_STEER_WHOLE ? f->sp[k].n_opts == 0
								   : choice[k] < f->sp[k].n_opts);
			for (size_t dl = 0; dl < dls; dl++) {
				double rate = f->r->link_mbps[dl / 2], e = pr->expected_mbps, cap = 1;

				if (!hold[dl])
					continue;
				if (rate > 0 && e > 0)
					cap = fmax(1, floor(rate / e + 1e-9));
				load[dl] += 1 / cap;
				assert_true(load[dl] <= 1 + 1e-6);
			}
			free(hold);
		}
	}
	for (size_t k = 0; k < f->n; k++)
		assert_int_equal(seen[k], 1);
	free(load);
	free(busy);
	free(seen);
}

/* Steer over the spread rounds; returns the rounds. */
static size_t steer(struct fab *f, struct sched_steer_stats *st, bool print, const char *what)
{
	struct sched base, s;
	struct sched_topo_bound b;
	uint32_t *choice = calloc(f->n, sizeof(*choice));
	struct fab_err err;
	size_t rounds;

	assert_non_null(choice);
	fab_err_init(&err);
	f->r->ecmp_whole = false;
	assert_int_equal(sched_topo_all(&base, &b, f->r, &err), 0);
	assert_int_equal(sched_topo_steer(&s, choice, st, f->r, &base, f->sp, f->n, &err), 0);
	assert_steered_fits(f, &s, choice);
	rounds = s.n_rounds;
	if (!st->direct)
		assert_int_equal(rounds, st->base_rounds + st->extra_rounds);
	else
		assert_true(rounds < st->base_rounds + st->extra_rounds);
	if (print)
		print_message("%s: %zu rounds (%zu + %zu extra, %zu pairs moved), node bound %zu, "
			      "%zu steered, %zu whole\n", what, rounds, st->base_rounds,
			      st->extra_rounds, st->moved, st->node_bound, st->steered, st->whole);
	sched_fini(&base);
	sched_fini(&s);
	free(choice);
	return rounds;
}

/* Whole-set rounds (today's rule) for comparison. */
static size_t whole_rounds(struct fab *f)
{
	struct sched s;
	struct sched_topo_bound b;
	struct fab_err err;
	size_t rounds;

	fab_err_init(&err);
	f->r->ecmp_whole = true;
	assert_int_equal(sched_topo_all(&s, &b, f->r, &err), 0);
	rounds = s.n_rounds;
	sched_fini(&s);
	f->r->ecmp_whole = false;
	return rounds;
}

/*
 * The issue's non-blocking 2-level plan: 8 leaves x 16 hosts at 100G,
 * 4 spines, 4 x 400G uplinks per leaf.  Whole sets: 448 rounds (3.5 x the
 * node bound); steered, every member free: <= 1.25 x 127; with 4 or 8
 * traced ports per pair (a hash each way) likewise or said.
 */
static void test_issue_plan_steered(void **state)
{
	struct sched_steer_stats st;
	struct fab f;
	size_t whole, all, p8, p4;

	(void)state;
	fab_up(&f, 8, 16, 4, 100000, 400000);
	whole = whole_rounds(&f);
	fab_opts(&f, 0, 0, NULL);
	all = steer(&f, &st, true, "8x16, 4 spines, every member");
	assert_int_equal(st.node_bound, 127);
	assert_true(all * 4 <= 127 * 5);
	fab_opts(&f, 8, 1, NULL);
	p8 = steer(&f, &st, true, "8x16, 4 spines, 8 traced ports");
	assert_true(p8 * 4 <= 127 * 5);
	fab_opts(&f, 4, 3, NULL);
	p4 = steer(&f, &st, true, "8x16, 4 spines, 4 traced ports");
	assert_true(p4 * 4 <= 127 * 5);
	print_message("8x16, 4 spines: whole-set %zu rounds\n", whole);
	assert_true(whole > all);
	fab_down(&f);
}

static bool fallback_first_leaf(const struct fab *f, const struct pair_route *pr)
{
	return f->r->hosts[pr->a].leaf == 0 || f->r->hosts[pr->b].leaf == 0;
}

/* Property: random fabrics, rates, traced ports, some leaf pairs whole: no member over capacity. */
static void test_property_no_member_over(void **state)
{
	unsigned int seed = 12345;

	(void)state;
	for (int it = 0; it < 60; it++) {
		unsigned int leaves = 2 + (seed = seed * 1103515245u + 12345u) % 4;
		unsigned int hosts = 1 + (seed = seed * 1103515245u + 12345u) % 5;
		unsigned int spines = 1 + (seed = seed * 1103515245u + 12345u) % 4;
		unsigned int up = (seed = seed * 1103515245u + 12345u) % 3;
		unsigned int ports = (seed = seed * 1103515245u + 12345u) % 6;
		unsigned int rates[3] = { 0, 100000, 250000 };
		struct sched_steer_stats st;
		struct fab f;

		if ((size_t)leaves * hosts < 2)
			continue;
		fab_up(&f, leaves, hosts, spines, up ? 100000 : 0, rates[up]);
		fab_opts(&f, ports, (unsigned int)it, it % 3 == 0 ? fallback_first_leaf : NULL);
		steer(&f, &st, false, "");
		assert_int_equal(st.steered + st.whole, f.n);
		fab_down(&f);
	}
}

/* Options that name a path the pair lacks, or base rounds of other pairs: -EINVAL. */
static void test_refuses(void **state)
{
	struct sched base, s;
	struct sched_topo_bound b;
	struct sched_steer_stats st;
	struct fab f;
	struct fab_err err;
	uint32_t choice[64];
	struct sched_steer_opt bad = { .ab = 9, .ba = 0 };

	(void)state;
	fab_up(&f, 2, 2, 2, 0, 0);
	fab_opts(&f, 2, 0, NULL);
	fab_err_init(&err);
	assert_int_equal(sched_topo_all(&base, &b, f.r, &err), 0);
	assert_int_equal(sched_topo_steer(&s, choice, &st, f.r, &base, f.sp, f.n - 1, &err), -EINVAL);
	f.sp[1].opts = &bad;
	f.sp[1].n_opts = 1;
	assert_int_equal(sched_topo_steer(&s, choice, &st, f.r, &base, f.sp, f.n, &err), -EINVAL);
	sched_fini(&base);
	fab_down(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_plan_steered),
		cmocka_unit_test(test_property_no_member_over),
		cmocka_unit_test(test_refuses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
