// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Steered rounds, streamed (sched_topo.h "Steered rounds, streamed") over
 * a simulated per-switch hash (model/ecmp_sim.h).  The property, checked
 * apart from the packer's loads by summing each round's demands per
 * directed hop over the paths its choices take (a pair counted whole:
 * every path): no member over its capacity in any round, no host twice in
 * a round, every pair once.  Random 2- and 3-level fabrics, rates, ports
 * per pair and whole (fallback) pairs; all pairs and subsets.  And the
 * hash: every path a shortest one, the same for the same tuple, spread.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/ecmp_sim.h"
#include "model/sched_topo.h"
#include "model/topo_gen.h"
#include "sim_fab.h"

#define HOPS 32

struct fab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	struct ecmp_sim *es;
	uint64_t seed;		/* ports and fallbacks per pair */
	unsigned int whole_leaf;	/* pairs touching this leaf fall back; UINT32_MAX none */
};

static void fab_place(struct fab *f, size_t nh)
{
	sim_fab_place(&f->hs, &f->r, f->t, nh);
	assert_int_equal(ecmp_sim_new(&f->es, f->r, f->seed), 0);
}

static void fab_2l(struct fab *f, const struct topo_gen_2l *g, uint64_t seed)
{
	memset(f, 0, sizeof(*f));
	f->seed = seed;
	f->whole_leaf = UINT32_MAX;
	assert_int_equal(topo_gen_leaf_spine(&f->t, g), 0);
	fab_place(f, (size_t)g->leaves * g->hosts_per_leaf);
}

static void fab_3l(struct fab *f, const struct topo_gen_3l *g, uint64_t seed)
{
	memset(f, 0, sizeof(*f));
	f->seed = seed;
	f->whole_leaf = UINT32_MAX;
	assert_int_equal(topo_gen_fat_tree(&f->t, g), 0);
	fab_place(f, (size_t)g->pods * g->leaves_per_pod * g->hosts_per_leaf);
}

static void fab_down(struct fab *f)
{
	sim_fab_free(&f->hs, f->r, f->t, f->es);
}

static int add_path(struct sched_steer_alts *al, int dir, const struct path_hop *h, size_t n)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = sched_steer_alt_hop(al, dir, h[i].link, h[i].fwd);
	return rc;
}

/* A fallback pair: every hop of every path, both ways. */
static int whole_alts(struct fab *f, unsigned int a, unsigned int b, struct sched_steer_alts *al)
{
	struct pair_route pr;
	struct fab_err err;
	int rc = route_pair(f->r, a, b, &pr, &err);

	al->whole = true;
	if (rc == 0)
		rc = sched_steer_alt_open(al, 0);
	for (size_t k = 0; rc == 0 && k < pr.n_ab; k++)
		rc = add_path(al, 0, pr.ab[k].hops, pr.ab[k].n_hops);
	for (size_t k = 0; rc == 0 && k < pr.n_ba; k++)
		rc = add_path(al, 0, pr.ba[k].hops, pr.ba[k].n_hops);
	pair_route_fini(&pr);
	return rc;
}

/*
 * 1 to 8 traced ports per pair and direction, the hash's paths (duplicates
 * kept); asked @wide (the pair waited), 4 more ports.
 */
static int gen_alts(void *ctx, unsigned int a, unsigned int b, struct sched_steer_alts *al)
{
	struct fab *f = ctx;
	uint64_t h = sim_mix(f->seed ^ ((uint64_t)a << 32 | b));
	unsigned int ports = 1 + (unsigned int)(h % 8) + (al->wide ? 4 : 0);
	struct route_info info;
	unsigned int klass;
	int rc = route_pair_info(f->r, a, b, &info, &al->expected_mbps, &klass);

	if (rc == 0 && (f->r->hosts[a].leaf == f->whole_leaf || f->r->hosts[b].leaf == f->whole_leaf))
		return whole_alts(f, a, b, al);
	for (int d = 0; rc == 0 && d < 2; d++)
		for (unsigned int k = 0; rc == 0 && k < ports; k++) {
			struct ecmp_flow fl = { .src = d ? b : a, .dst = d ? a : b, .proto = 6,
						.sport = (uint16_t)(30000 + (h >> 8 & 0xff) + k + d * 300),
						.dport = 4791 };
			struct path_hop hops[HOPS];
			size_t n;

			rc = ecmp_sim_path(f->es, &fl, hops, HOPS, &n);
			if (rc == 0)
				rc = sched_steer_alt_open(al, d);
			if (rc == 0)
				rc = add_path(al, d, hops, n);
		}
	return rc;
}

/*
 * Every round of the stream over @base against the paths its choices take;
 * streamed (@planned false): a choice is wide exactly in the extra rounds.
 */
static void check_stream_as(struct fab *f, struct sched_src *base, size_t n_pairs,
			    struct sched_steer_stats *st, size_t *rounds, bool planned)
{
	struct sched_steer_gen gen = { .alts = gen_alts, .ctx = f };
	struct sched_steer_stream *ss = NULL;
	size_t nh = f->r->n_hosts, room = nh / 2 + 1, n, seen_n = 0;
	struct sched_pair *pairs = calloc(room, sizeof(*pairs));
	uint32_t *choice = calloc(room, sizeof(*choice));
	double *load = calloc(f->r->n_links * 2, sizeof(*load));
	uint32_t *stamp = calloc(f->r->n_links * 2, sizeof(*stamp)), tick = 0;
	bool *busy = calloc(nh, sizeof(*busy)), *seen = calloc(nh * nh, sizeof(*seen));
	struct sched_steer_alts al = { 0 };
	size_t wide_rounds = 0;
	bool any_w, any_plain;
	int rc;

	assert_true(pairs && choice && load && stamp && busy && seen);
	assert_int_equal(sched_steer_stream_new(&ss, f->r, base, &gen), 0);
	*rounds = 0;
	while ((rc = sched_steer_stream_next(ss, pairs, choice, &n)) > 0) {
		(*rounds)++;
		memset(load, 0, f->r->n_links * 2 * sizeof(*load));
		memset(busy, 0, nh * sizeof(*busy));
		for (size_t i = 0; i < n; i++) {
			unsigned int a = pairs[i].a, b = pairs[i].b;

			assert_false(busy[a] || busy[b]);
			busy[a] = busy[b] = true;
			assert_false(seen[a * nh + b] || seen[b * nh + a]);
			seen[a * nh + b] = true;
			seen_n++;
			al.n_dl = 0;
			al.n[0] = al.n[1] = 0;
			al.whole = false;
			al.wide = choice[i] != SCHED_STEER_WHOLE && choice[i] & SCHED_STEER_WIDE;
			assert_int_equal(gen_alts(f, a, b, &al), 0);
			assert_int_equal(choice[i] == SCHED_STEER_WHOLE, al.whole);
			for (int d = 0; d < 2; d++) {
				unsigned int k = al.whole ? 0 : d ? SCHED_STEER_BA(choice[i]) : SCHED_STEER_AB(choice[i]);

				if (al.whole && d)
					break;
				assert_true(k < al.n[d]);
				tick++;
				for (uint32_t h = al.span[d][k][0]; h < al.span[d][k][1]; h++) {
					if (stamp[al.dl[h]] == tick)	/* a whole set: a link per path */
						continue;
					stamp[al.dl[h]] = tick;
					load[al.dl[h]] += 1.0 / sched_topo_cap(f->r, al.dl[h] / 2,
									       al.expected_mbps);
				}
			}
		}
		/* streamed: the base rounds' pairs asked plain, then every extra round's wide */
		any_w = any_plain = false;
		for (size_t i = 0; i < n; i++)
			if (choice[i] != SCHED_STEER_WHOLE) {
				any_w |= !!(choice[i] & SCHED_STEER_WIDE);
				any_plain |= !(choice[i] & SCHED_STEER_WIDE);
			}
		if (!planned) {
			assert_false(any_w && any_plain);
			assert_false(any_plain && wide_rounds);
			wide_rounds += any_w;
		}
		for (size_t l = 0; l < f->r->n_links * 2; l++)
			if (load[l] > 1 + 1e-9)
				fail_msg("seed %llu round %zu: directed link %zu at %.3f",
					 (unsigned long long)f->seed, *rounds, l, load[l]);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(seen_n, n_pairs);
	sched_steer_stream_stats(ss, st);
	if (!planned) {	/* each host's waiting pairs go one a round */
		assert_int_equal(wide_rounds, st->extra_rounds);
		assert_true(st->extra_rounds >= st->wait_most);
	}
	assert_int_equal(st->steered + st->whole, n_pairs);
	assert_true(*rounds >= st->node_bound);
	sched_steer_stream_free(ss);
	free(al.dl);
	free(pairs);
	free(choice);
	free(load);
	free(stamp);
	free(busy);
	free(seen);
}

static void check_stream(struct fab *f, struct sched_src *base, size_t n_pairs,
			 struct sched_steer_stats *st, size_t *rounds)
{
	check_stream_as(f, base, n_pairs, st, rounds, true);
}

/* All pairs (or every @every-th pair) of @f, base rounds spread over the paths. */
static size_t steer_fab(struct fab *f, unsigned int every, struct sched_steer_stats *st)
{
	size_t nh = f->r->n_hosts, n = 0, rounds;
	struct sched_pair *want = calloc(nh * nh / 2 + 1, sizeof(*want));
	struct sched_topo_bound b;
	struct fab_err err;
	struct sched s;
	struct sched_src src;

	assert_non_null(want);
	for (unsigned int a = 0; a < nh; a++)
		for (unsigned int x = a + 1; x < nh; x++)
			if (sim_mix(f->seed ^ a * 7919u ^ x) % every == 0)
				want[n++] = (struct sched_pair){ .a = a, .b = x };
	f->r->ecmp_whole = false;
	assert_int_equal(sched_topo_pairs(&s, &b, f->r, want, n, &err), 0);
	sched_src_explicit(&src, &s);
	check_stream(f, &src, n, st, &rounds);
	sched_fini(&s);
	free(want);
	return rounds;
}

static void test_property_2l(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 12; seed++) {
		struct topo_gen_2l g = { .leaves = 2 + (unsigned int)(seed % 4),
					 .hosts_per_leaf = 2 + (unsigned int)(sim_mix(seed) % 5),
					 .spines = 1 + (unsigned int)(sim_mix(seed + 1) % 4),
					 .uplinks_per_spine = 1 + (unsigned int)(sim_mix(seed + 7) % 2),
					 .host_mbps = 100000,
					 .uplink_mbps = (unsigned int)(sim_mix(seed + 2) % 3) * 100000 };
		struct sched_steer_stats st;
		struct fab f;

		fab_2l(&f, &g, seed);
		if (seed % 3 == 0)
			f.whole_leaf = 0;
		steer_fab(&f, 1 + (unsigned int)(seed % 3), &st);
		fab_down(&f);
	}
}

static void test_property_3l(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct topo_gen_3l g = { .pods = 2 + (unsigned int)(seed % 2), .leaves_per_pod = 2,
					 .hosts_per_leaf = 2 + (unsigned int)(seed % 3),
					 .aggs_per_pod = 1 + (unsigned int)(sim_mix(seed) % 3),
					 .cores_per_agg = 1 + (unsigned int)(sim_mix(seed + 3) % 3),
					 .host_mbps = 100000, .leaf_mbps = 100000, .core_mbps = 100000 };
		struct sched_steer_stats st;
		struct fab f;

		fab_3l(&f, &g, seed);
		if (seed % 2 == 0)
			f.whole_leaf = 1;
		steer_fab(&f, 1 + (unsigned int)(seed % 2), &st);
		fab_down(&f);
	}
}

/* The issue's plan: 8 leaves x 16 hosts at 100G, 4 spines at 400G; all pairs near n - 1. */
static void test_issue_plan(void **state)
{
	struct topo_gen_2l g = { .leaves = 8, .hosts_per_leaf = 16, .spines = 4,
				 .host_mbps = 100000, .uplink_mbps = 400000 };
	struct sched_steer_stats st;
	struct fab f;
	size_t rounds;

	(void)state;
	fab_2l(&f, &g, 24);
	rounds = steer_fab(&f, 1, &st);
	assert_int_equal(st.node_bound, 127);
	assert_true(rounds * 4 <= st.node_bound * 5);
	fab_down(&f);
}

static int gen_next(struct sched_src *src, struct sched_pair *buf, size_t *n)
{
	return sched_topo_gen_next(src->impl, buf, n);
}

/*
 * All pairs of a full-bisection fat tree of 320 hosts, streamed (more than
 * SCHED_STEER_DIRECT_MAX * 4 pairs: not planned): the property, the pairs
 * that waited asked wide in the extra rounds only, each host's waiting
 * pairs spread (the most of one host within 10 % of the mean: 69, 65.4),
 * and the rounds near the node bound.
 */
static void test_streamed_waits(void **state)
{
	struct topo_gen_3l g = { .pods = 5, .leaves_per_pod = 8, .hosts_per_leaf = 8,
				 .aggs_per_pod = 8, .cores_per_agg = 8, .host_mbps = 100000,
				 .leaf_mbps = 100000, .core_mbps = 100000 };
	struct sched_steer_stats st;
	struct sched_topo_gen *gen;
	struct sched_src src;
	struct fab_err err;
	struct fab f;
	size_t nh, rounds;

	(void)state;
	fab_3l(&f, &g, 11);
	nh = f.r->n_hosts;
	f.r->ecmp_whole = false;
	fab_err_init(&err);
	assert_int_equal(sched_topo_gen_new(&gen, f.r, &err), 0);
	src = (struct sched_src){ .next = gen_next, .impl = gen, .max_round = nh / 2,
				  .n_pairs = nh * (nh - 1) / 2 };
	assert_true(src.n_pairs > SCHED_STEER_DIRECT_MAX * 4);
	check_stream_as(&f, &src, src.n_pairs, &st, &rounds, false);
	assert_true(st.moved > 0);
	assert_true(st.wait_most * nh * 10 <= st.moved * 2 * 11);	/* within 10 % of the mean */
	assert_int_equal(st.node_bound, nh - 1);
	assert_true(rounds * 10 <= st.node_bound * 13);	/* 406 / 319 (1 to 8 ports a pair) */
	sched_topo_gen_free(gen);
	fab_down(&f);
}

/* Every hash path is a shortest path of the pair, the same for the same tuple, and they spread. */
static void test_hash_paths(void **state)
{
	struct topo_gen_3l g = { .pods = 2, .leaves_per_pod = 2, .hosts_per_leaf = 2,
				 .aggs_per_pod = 2, .cores_per_agg = 2, .host_mbps = 100000,
				 .leaf_mbps = 100000, .core_mbps = 100000 };
	struct fab f;
	struct path_hop h[HOPS], h2[HOPS];
	bool used[64] = { false };
	size_t n, n2, distinct = 0;

	(void)state;
	fab_3l(&f, &g, 5);
	for (uint16_t p = 0; p < 64; p++) {
		struct ecmp_flow fl = { .src = 0, .dst = 7, .proto = 6, .sport = (uint16_t)(1000 + p),
					.dport = 80 };
		struct route_info info;
		double e;
		unsigned int klass;

		assert_int_equal(ecmp_sim_path(f.es, &fl, h, HOPS, &n), 0);
		assert_int_equal(ecmp_sim_path(f.es, &fl, h2, HOPS, &n2), 0);
		assert_int_equal(n, n2);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(h[i].link, h2[i].link);
			assert_int_equal(h[i].fwd, h2[i].fwd);
		}
		assert_int_equal(route_pair_info(f.r, 0, 7, &info, &e, &klass), 0);
		assert_int_equal(n, info.hops);
		assert_int_equal(h[0].link, f.r->hosts[0].link);
		assert_int_equal(h[n - 1].link, f.r->hosts[7].link);
		for (size_t i = 0; i + 1 < n; i++) {	/* each hop starts where the last ended */
			const struct topo_link *l = f.t->links[h[i].link];
			const struct topo_link *m = f.t->links[h[i + 1].link];
			const struct topo_node *end = h[i].fwd ? l->b->node : l->a->node;

			assert_ptr_equal(end, h[i + 1].fwd ? m->a->node : m->b->node);
		}
		if (!used[h[2].link % 64])	/* the agg -> core member */
			distinct++;
		used[h[2].link % 64] = true;
	}
	assert_int_equal(distinct, 4);	/* 2 aggs x 2 cores each */
	assert_int_equal(ecmp_sim_path(f.es, &(struct ecmp_flow){ .src = 3, .dst = 3 }, h, HOPS, &n),
			 -EINVAL);
	fab_down(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_property_2l),
		cmocka_unit_test(test_property_3l),
		cmocka_unit_test(test_issue_plan),
		cmocka_unit_test(test_streamed_waits),
		cmocka_unit_test(test_hash_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
