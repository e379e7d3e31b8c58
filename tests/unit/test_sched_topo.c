// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Topology-aware rounds: no round over-subscribes a link (checked here
 * against the enumerated paths, independently of the scheduler's loads),
 * every pair exactly once, and the rounds close to the proven bound.
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

struct fab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
};

/* Hosts h1..hN, leaving out every @skip-th one (0: none). */
static void fab_hosts_skip(struct fab_hosts *hs, size_t n, size_t skip)
{
	size_t cap = 64 * n + 1, len = 0;
	char *buf = malloc(cap);
	struct fab_err err;

	assert_non_null(buf);
	for (size_t i = 1; i <= n; i++)
		if (!skip || i % skip)
			len += (size_t)snprintf(buf + len, cap - len, "h%zu 10.%zu.%zu.%zu\n", i, i / 65536,
						i / 256 % 256, i % 256);
	hosts_init(hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(hs, buf, len, "hosts", &err), 0);
	free(buf);
}

static void fab_up_skip(struct fab *f, struct topo *t, size_t n_hosts, size_t skip)
{
	struct fab_err err;

	f->t = t;
	fab_hosts_skip(&f->hs, n_hosts, skip);
	fab_err_init(&err);
	assert_int_equal(route_new(&f->r, t), 0);
	assert_int_equal(route_place(f->r, &f->hs, &err), 0);
	route_rates(f->r, &f->hs, NULL, NULL);
}

static void fab_up(struct fab *f, struct topo *t, size_t n_hosts)
{
	fab_up_skip(f, t, n_hosts, 0);
}

/* Hosts from @text (labels such as rate_gbps= included). */
static void fab_up_text(struct fab *f, struct topo *t, const char *text)
{
	struct fab_err err;

	f->t = t;
	hosts_init(&f->hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&f->hs, text, strlen(text), "hosts", &err), 0);
	assert_int_equal(route_new(&f->r, t), 0);
	assert_int_equal(route_place(f->r, &f->hs, &err), 0);
	route_rates(f->r, &f->hs, NULL, NULL);
}

static void fab_2l(struct fab *f, unsigned int leaves, unsigned int hosts, unsigned int spines,
		   unsigned int host_mbps, unsigned int up_mbps)
{
	struct topo_gen_2l g = { .leaves = leaves, .hosts_per_leaf = hosts, .spines = spines,
				 .host_mbps = host_mbps, .uplink_mbps = up_mbps };
	struct topo *t;

	assert_int_equal(topo_gen_leaf_spine(&t, &g), 0);
	fab_up(f, t, (size_t)leaves * hosts);
}

static void fab_down(struct fab *f)
{
	route_free(f->r);
	hosts_fini(&f->hs);
	topo_free(f->t);
}

/*
 * Independent check: per round, sum of share / cap over the enumerated paths
 * (a -> b; the routes are symmetric), or over @routes when given.
 */
static void assert_routes_fit(struct fab *f, const struct sched *s, const struct pair_route *routes,
			      size_t n_routes)
{
	double *used = calloc(f->t->n_links + 1, sizeof(*used));
	double *pair_use = calloc(f->t->n_links + 1, sizeof(*pair_use));
	struct fab_err err;

	assert_non_null(used);
	assert_non_null(pair_use);
	for (size_t rd = 0; rd < s->n_rounds; rd++) {
		memset(used, 0, f->t->n_links * sizeof(*used));
		for (size_t i = s->round_start[rd]; i < s->round_start[rd + 1]; i++) {
			struct pair_route own;
			const struct pair_route *pr = &own;

			if (routes) {
				pr = NULL;
				for (size_t k = 0; k < n_routes && !pr; k++)
					if ((routes[k].a == s->pairs[i].a && routes[k].b == s->pairs[i].b) ||
					    (routes[k].b == s->pairs[i].a && routes[k].a == s->pairs[i].b))
						pr = &routes[k];
				assert_non_null(pr);
			} else {
				assert_int_equal(route_pair(f->r, s->pairs[i].a, s->pairs[i].b, &own, &err), 0);
			}
			memset(pair_use, 0, f->t->n_links * sizeof(*pair_use));
			for (size_t p = 0; p < pr->n_ab; p++)
				for (size_t h = 0; h < pr->ab[p].n_hops; h++)
					pair_use[pr->ab[p].hops[h].link] += pr->ab[p].share;
			for (size_t l = 0; l < f->t->n_links; l++) {
				double rate = f->r->link_mbps[l], cap = 1;

				if (rate > 0 && pr->expected_mbps > 0)
					cap = fmax(1, floor(rate / pr->expected_mbps + 1e-9));
				used[l] += pair_use[l] / cap;
			}
			if (!routes)
				pair_route_fini(&own);
		}
		for (size_t l = 0; l < f->t->n_links; l++)
			assert_true(used[l] <= 1 + 1e-6);
	}
	free(used);
	free(pair_use);
}

static void assert_rounds_fit(struct fab *f, const struct sched *s)
{
	assert_routes_fit(f, s, NULL, 0);
}

/* Every pair of @want (all pairs of n when NULL) exactly once; no host twice in a round. */
static void assert_cover(const struct sched *s, size_t n, const struct sched_pair *want, size_t n_want)
{
	unsigned char *seen = calloc(n * n + 1, 1);

	assert_non_null(seen);
	assert_int_equal(sched_check(s, n), 0);
	if (!want)
		assert_int_equal(s->n_pairs, n * (n - 1) / 2);
	else
		assert_int_equal(s->n_pairs, n_want);
	for (size_t i = 0; i < s->n_pairs; i++)
		seen[s->pairs[i].a * n + s->pairs[i].b] = seen[s->pairs[i].b * n + s->pairs[i].a] = 1;
	if (!want) {
		for (size_t a = 0; a < n; a++)
			for (size_t b = a + 1; b < n; b++)
				assert_true(seen[a * n + b]);
	} else {
		for (size_t i = 0; i < n_want; i++)
			assert_true(seen[want[i].a * n + want[i].b]);
	}
	free(seen);
}

static size_t all_pairs_checked(struct fab *f, struct sched_topo_bound *b)
{
	struct sched s;
	struct fab_err err;
	size_t rounds;

	fab_err_init(&err);
	assert_int_equal(sched_topo_all(&s, b, f->r, &err), 0);
	assert_cover(&s, f->r->n_hosts, NULL, 0);
	assert_rounds_fit(f, &s);
	assert_int_equal(sched_topo_check(&s, f->r, NULL, 0, &err), 0);
	assert_true(s.n_rounds >= b->bound);
	rounds = s.n_rounds;
	sched_fini(&s);
	return rounds;
}

/* The issue's first lab: 2 leaves x 4 hosts, one spine, every port 1 Gb/s. */
static void test_issue_two_leaves_one_uplink(void **state)
{
	struct sched_topo_bound b;
	struct fab f;
	size_t rounds;

	fab_2l(&f, 2, 4, 1, 1000, 1000);
	rounds = all_pairs_checked(&f, &b);
	/* 16 cross-leaf pairs through one 1-flow uplink: 16 rounds at least. */
	assert_int_equal(b.link, 16);
	assert_int_equal(b.bound, 16);
	assert_int_equal(b.node, 7);
	assert_true(rounds * 4 <= b.bound * 5);
	fab_down(&f);
}

/* 3 leaves x 3 hosts, one spine: uplinks of 1 flow, then of 2 flows. */
static void test_issue_three_leaves_oversubscribed(void **state)
{
	struct sched_topo_bound b;
	struct fab f;
	size_t rounds;

	fab_2l(&f, 3, 3, 1, 1000, 1000);
	rounds = all_pairs_checked(&f, &b);
	/* 27 cross pairs, each needs two of the three 1-flow uplinks: one per round. */
	assert_int_equal(b.cut, 27);
	assert_int_equal(b.link, 18);
	assert_true(rounds * 4 <= b.bound * 5);
	fab_down(&f);

	fab_2l(&f, 3, 3, 1, 1000, 2000);
	rounds = all_pairs_checked(&f, &b);
	assert_int_equal(b.cut, 9);	/* floor(6 / 2) = 3 cross pairs a round */
	assert_int_equal(b.bound, 9);
	assert_true(rounds * 4 <= b.bound * 5);
	fab_down(&f);
}

/* Full bisection: n - 1 rounds, the node bound. */
static void test_clean_trees_reach_n_minus_1(void **state)
{
	struct topo_gen_3l g3 = { .pods = 2, .leaves_per_pod = 2, .hosts_per_leaf = 2,
				  .aggs_per_pod = 2, .cores_per_agg = 2,
				  .host_mbps = 10000, .leaf_mbps = 10000, .core_mbps = 10000 };
	struct sched_topo_bound b;
	struct topo *t;
	struct fab f;

	fab_2l(&f, 4, 4, 4, 10000, 10000);
	assert_int_equal(all_pairs_checked(&f, &b), 15);
	assert_int_equal(b.bound, 15);
	fab_down(&f);
	/* Unknown rates: one flow per link, four spines carry four. */
	fab_2l(&f, 4, 4, 4, 0, 0);
	assert_int_equal(all_pairs_checked(&f, &b), 15);
	fab_down(&f);
	assert_int_equal(topo_gen_fat_tree(&t, &g3), 0);
	fab_up(&f, t, 8);
	assert_int_equal(all_pairs_checked(&f, &b), 7);
	fab_down(&f);
	/* Odd host count: n rounds. */
	fab_2l(&f, 3, 3, 3, 10000, 10000);
	assert_int_equal(all_pairs_checked(&f, &b), 9);
	assert_int_equal(b.node, 9);
	fab_down(&f);
}

/* Property test over many shapes and rates. */
static void test_property_many_fabrics(void **state)
{
	static const unsigned int rates[][2] = {
		{ 1000, 1000 }, { 1000, 2000 }, { 10000, 25000 }, { 0, 0 }, { 1000, 0 }, { 25000, 10000 },
	};
	double worst = 0;
	unsigned int cases = 0;

	for (unsigned int leaves = 1; leaves <= 5; leaves++)
		for (unsigned int hosts = 1; hosts <= 5; hosts++)
			for (unsigned int spines = 1; spines <= 3; spines++)
				for (size_t k = 0; k < sizeof(rates) / sizeof(rates[0]); k++) {
					struct sched_topo_bound b;
					struct fab f;
					size_t rounds;

					if (leaves * hosts < 2)
						continue;
					fab_2l(&f, leaves, hosts, spines, rates[k][0], rates[k][1]);
					rounds = all_pairs_checked(&f, &b);
					if ((double)rounds > 1.25 * (double)b.bound)
						print_message("%u leaves x %u hosts, %u spines, %u/%u Mb/s: %zu rounds, bound %zu (node %zu link %zu cut %zu)\n",
							      leaves, hosts, spines, rates[k][0], rates[k][1], rounds, b.bound, b.node, b.link, b.cut);
					worst = fmax(worst, (double)rounds / (double)b.bound);
					cases++;
					fab_down(&f);
				}
	print_message("%u fabrics, worst rounds / bound %.3f\n", cases, worst);
	assert_true(worst <= 1.25 + 1e-9);
}

/* Unequal leaves (every third host not in the sweep) and 3-level trees: capacity and coverage. */
static void test_property_unequal_and_3l(void **state)
{
	double worst = 0;
	unsigned int cases = 0;

	for (unsigned int leaves = 2; leaves <= 6; leaves++)
		for (unsigned int hosts = 2; hosts <= 6; hosts++)
			for (unsigned int up = 1000; up <= 3000; up += 1000) {
				struct topo_gen_2l g = { .leaves = leaves, .hosts_per_leaf = hosts, .spines = 1,
							 .host_mbps = 1000, .uplink_mbps = up };
				struct sched_topo_bound b;
				struct topo *t;
				struct fab f;
				size_t rounds;

				assert_int_equal(topo_gen_leaf_spine(&t, &g), 0);
				fab_up_skip(&f, t, (size_t)leaves * hosts, 3);
				rounds = all_pairs_checked(&f, &b);
				worst = fmax(worst, (double)rounds / (double)b.bound);
				cases++;
				fab_down(&f);
			}
	for (unsigned int pods = 1; pods <= 3; pods++)
		for (unsigned int aggs = 1; aggs <= 3; aggs++) {
			struct topo_gen_3l g = { .pods = pods, .leaves_per_pod = 3, .hosts_per_leaf = 3,
						 .aggs_per_pod = aggs, .cores_per_agg = 2,
						 .host_mbps = 1000, .leaf_mbps = 1000, .core_mbps = 1000 };
			struct sched_topo_bound b;
			struct topo *t;
			struct fab f;
			size_t rounds;

			assert_int_equal(topo_gen_fat_tree(&t, &g), 0);
			fab_up(&f, t, (size_t)pods * 9);
			rounds = all_pairs_checked(&f, &b);
			worst = fmax(worst, (double)rounds / (double)b.bound);
			cases++;
			fab_down(&f);
		}
	print_message("%u fabrics, worst rounds / bound %.3f\n", cases, worst);
	assert_true(worst <= 1.25 + 1e-9);
}

/* Pair lists (--pairs) and new x old (--new) go through the same packer. */
static void test_pairs_and_bipartite(void **state)
{
	struct sched_pair want[40];
	bool is_new[12] = { false };
	struct sched_topo_bound b;
	struct fab_err err;
	struct sched s;
	struct fab f;
	size_t n = 0;
	unsigned int seed = 7;

	fab_2l(&f, 3, 4, 1, 1000, 1000);
	while (n < 40) {
		unsigned int a, c;
		bool dup = false;

		seed = seed * 1103515245 + 12345;
		a = (seed >> 16) % 12;
		seed = seed * 1103515245 + 12345;
		c = (seed >> 16) % 12;
		for (size_t i = 0; i < n; i++)
			dup |= (want[i].a == a && want[i].b == c) || (want[i].a == c && want[i].b == a);
		if (a == c || dup)
			continue;
		want[n++] = (struct sched_pair){ a, c };
	}
	fab_err_init(&err);
	assert_int_equal(sched_topo_pairs(&s, &b, f.r, want, n, &err), 0);
	assert_cover(&s, 12, want, n);
	assert_rounds_fit(&f, &s);
	assert_int_equal(sched_topo_check(&s, f.r, want, n, &err), 0);
	assert_true(s.n_rounds >= b.bound);
	sched_fini(&s);
	is_new[0] = is_new[5] = is_new[9] = true;
	assert_int_equal(sched_topo_bipartite(&s, &b, f.r, is_new, &err), 0);
	assert_int_equal(s.n_pairs, 27);
	assert_rounds_fit(&f, &s);
	assert_true(s.n_rounds >= b.bound);
	assert_true(s.n_rounds * 4 <= b.bound * 5);
	sched_fini(&s);
	fab_down(&f);
}

/*
 * Pairs with their own single-path routes (as InfiniBand's forwarding
 * tables give): 2 leaves x 4 hosts under 2 spines, every pair pinned to
 * one spine by (a + b) mod 2, as an LFT would.
 */
static void test_routed_pairs(void **state)
{
	struct pair_route routes[28];
	struct sched_topo_bound b;
	struct fab_err err;
	struct sched s;
	struct fab f;
	size_t n = 0;

	fab_2l(&f, 2, 4, 2, 1000, 1000);
	fab_err_init(&err);
	for (unsigned int a = 0; a < 8; a++)
		for (unsigned int c = a + 1; c < 8; c++) {
			struct pair_route *pr = &routes[n++];

			assert_int_equal(route_pair(f.r, a, c, pr, &err), 0);
			if (pr->n_ab == 2) {	/* keep one spine */
				size_t keep = (a + c) % 2;

				if (keep) {
					struct path t = pr->ab[0];

					pr->ab[0] = pr->ab[1];
					pr->ab[1] = t;
					t = pr->ba[0];
					pr->ba[0] = pr->ba[1];
					pr->ba[1] = t;
				}
				path_fini(&pr->ab[1]);
				path_fini(&pr->ba[1]);
				pr->n_ab = pr->n_ba = 1;
				pr->ab[0].share = pr->ba[0].share = 1;
			}
		}
	assert_int_equal(sched_topo_routed(&s, &b, f.r, routes, n, &err), 0);
	assert_cover(&s, 8, NULL, 0);
	assert_routes_fit(&f, &s, routes, n);
	/* 16 cross pairs, 8 per spine: each leaf's uplink to a spine carries 8. */
	assert_int_equal(b.link, 8);
	assert_true(s.n_rounds >= b.bound);
	assert_true(s.n_rounds * 4 <= b.bound * 5);
	sched_fini(&s);
	for (size_t i = 0; i < n; i++)
		pair_route_fini(&routes[i]);
	fab_down(&f);
}

/* The checker catches an over-subscribed round and a missing pair. */
static void test_checker_rejects(void **state)
{
	struct sched_pair two[2] = { { 0, 4 }, { 1, 5 } };
	struct sched s = { 0 };
	size_t starts[2] = { 0, 2 };
	struct fab_err err;
	struct fab f;

	fab_2l(&f, 2, 4, 1, 1000, 1000);
	s.pairs = two;
	s.n_pairs = 2;
	s.round_start = starts;
	s.n_rounds = 1;
	fab_err_init(&err);
	assert_int_equal(sched_topo_check(&s, f.r, two, 2, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "over capacity"));
	s.n_pairs = 1;
	starts[1] = 1;
	fab_err_init(&err);
	assert_int_equal(sched_topo_check(&s, f.r, two, 2, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "1 of 2"));
	fab_down(&f);
}

/* The streamed generator on a 3-level tree: the same guarantees, round by round. */
static void test_generator_streams(void **state)
{
	struct topo_gen_3l g3 = { .pods = 4, .leaves_per_pod = 4, .hosts_per_leaf = 4,
				  .aggs_per_pod = 2, .cores_per_agg = 2,
				  .host_mbps = 10000, .leaf_mbps = 10000, .core_mbps = 10000 };
	struct sched_topo_checker *c;
	struct sched_topo_gen *g;
	struct sched_pair buf[32];
	struct fab_err err;
	struct topo *t;
	struct fab f;
	size_t n, rounds = 0, counted;
	int rc;

	assert_int_equal(topo_gen_fat_tree(&t, &g3), 0);
	fab_up(&f, t, 64);
	fab_err_init(&err);
	assert_int_equal(sched_topo_gen_new(&g, f.r, &err), 0);
	assert_int_equal(sched_topo_gen_count(g, &counted), 0);
	assert_int_equal(sched_topo_checker_new(&c, f.r, NULL, 0), 0);
	while ((rc = sched_topo_gen_next(g, buf, &n)) == 1) {
		assert_int_equal(sched_topo_checker_round(c, buf, n, &err), 0);
		rounds++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(sched_topo_checker_finish(c, &err), 0);
	assert_int_equal(rounds, counted);
	/* 2 aggs for 4 hosts a leaf: 2:1 oversubscribed; the bound says so. */
	assert_true(sched_topo_gen_bound(g)->bound > 63);
	assert_true(rounds * 4 <= sched_topo_gen_bound(g)->bound * 5);
	print_message("3-level 64 hosts 2:1: %zu rounds, bound %zu (node %zu link %zu cut %zu)\n", rounds,
		      sched_topo_gen_bound(g)->bound, sched_topo_gen_bound(g)->node,
		      sched_topo_gen_bound(g)->link, sched_topo_gen_bound(g)->cut);
	sched_topo_checker_free(c);
	sched_topo_gen_free(g);
	fab_down(&f);
}

/*
 * Pairs of one leaf pair at different expected rates put different demands
 * on the uplink: 1 Gb/s pairs take half of a 2 Gb/s uplink, 2 Gb/s pairs
 * all of it.  Two of the first fit in one round, the others one a round:
 * 3 rounds, the link bound.
 */
static void test_rate_classes(void **state)
{
	static const char text[] = "h1 10.0.0.1 rate_gbps=1\nh2 10.0.0.2 rate_gbps=1\nh3 10.0.0.3\n"
				   "h4 10.0.0.4\nh5 10.0.0.5 rate_gbps=1\nh6 10.0.0.6 rate_gbps=1\n"
				   "h7 10.0.0.7\nh8 10.0.0.8\n";
	struct topo_gen_2l g = { .leaves = 2, .hosts_per_leaf = 4, .spines = 1, .host_mbps = 2000,
				 .uplink_mbps = 2000 };
	struct sched_pair want[4] = { { 0, 4 }, { 1, 5 }, { 2, 6 }, { 3, 7 } };
	struct sched_topo_bound b;
	struct fab_err err;
	struct sched s;
	struct topo *t;
	struct fab f;

	assert_int_equal(topo_gen_leaf_spine(&t, &g), 0);
	fab_up_text(&f, t, text);
	fab_err_init(&err);
	assert_int_equal(sched_topo_pairs(&s, &b, f.r, want, 4, &err), 0);
	assert_cover(&s, 8, want, 4);
	assert_rounds_fit(&f, &s);
	assert_int_equal(sched_topo_check(&s, f.r, want, 4, &err), 0);
	assert_int_equal(b.link, 3);
	assert_int_equal(b.bound, 3);
	assert_int_equal(s.n_rounds, 3);
	sched_fini(&s);
	fab_down(&f);
}

/*
 * Merged links stand for each of their links: on ECMP fabrics (3 levels,
 * parallel uplinks) with hosts at mixed rates and random pair lists, every
 * round fits on every link by the enumerated paths, and the link bound is
 * the most any one link carries (recounted link by link, the first such
 * link named).
 */
static void test_ecmp_units(void **state)
{
	uint64_t seed = 15;

	for (int it = 0; it < 24; it++) {
		struct topo_gen_3l g3 = { .pods = 1 + it % 3, .leaves_per_pod = 2 + it % 2, .hosts_per_leaf = 3,
					  .aggs_per_pod = 1 + it % 3, .cores_per_agg = 1 + it % 2,
					  .host_mbps = 10000, .leaf_mbps = it % 4 ? 10000 : 20000,
					  .core_mbps = 10000 };
		struct topo_gen_2l g2 = { .leaves = 3, .hosts_per_leaf = 3, .spines = 2,
					  .uplinks_per_spine = 2, .host_mbps = 10000, .uplink_mbps = 5000 };
		size_t nh, n = 0, nl, want_link = 0;
		struct sched_pair *want;
		struct sched_topo_bound b;
		uint32_t want_at = ROUTE_NONE;
		struct fab_err err;
		struct sched s;
		struct topo *t;
		double *load;
		struct fab f;
		char text[4096];
		size_t len = 0;

		if (it % 6 == 5)
			assert_int_equal(topo_gen_leaf_spine(&t, &g2), 0);
		else
			assert_int_equal(topo_gen_fat_tree(&t, &g3), 0);
		nh = 0;
		for (size_t i = 0; i < t->n_nodes; i++)
			nh += t->nodes[i]->type == TOPO_NODE_HOST;
		for (size_t i = 1; i <= nh; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			len += (size_t)snprintf(text + len, sizeof(text) - len, "h%zu 10.0.0.%zu%s\n", i, i,
						(seed >> 33) % 3 ? "" : " rate_gbps=5");
		}
		fab_up_text(&f, t, text);
		nl = t->n_links;
		want = calloc(nh * nh + 1, sizeof(*want));
		load = calloc(nl + 1, sizeof(*load));
		assert_true(want && load);
		for (unsigned int a = 0; a < nh; a++)
			for (unsigned int c = a + 1; c < nh; c++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				if ((seed >> 33) % 3 == 0)
					want[n++] = (struct sched_pair){ a, c };
			}
		/* The link bound, link by link over the enumerated paths (hosts' own links: the node bound). */
		for (size_t i = 0; i < n; i++) {
			struct pair_route pr;

			assert_int_equal(route_pair(f.r, want[i].a, want[i].b, &pr, &err), 0);
			for (size_t p = 0; p < pr.n_ab; p++)
				for (size_t h = 1; h + 1 < pr.ab[p].n_hops; h++) {
					uint32_t l = pr.ab[p].hops[h].link;

					load[l] += pr.ab[p].share / sched_topo_cap(f.r, l, pr.expected_mbps);
				}
			pair_route_fini(&pr);
		}
		for (size_t l = 0; l < nl; l++)
			if ((size_t)ceil(load[l] - 1e-6) > want_link) {
				want_link = (size_t)ceil(load[l] - 1e-6);
				want_at = (uint32_t)l;
			}
		fab_err_init(&err);
		assert_int_equal(sched_topo_pairs(&s, &b, f.r, want, n, &err), 0);
		assert_cover(&s, nh, want, n);
		assert_rounds_fit(&f, &s);
		assert_int_equal(sched_topo_check(&s, f.r, want, n, &err), 0);
		if (b.link != want_link || b.link_at != want_at)
			print_message("fabric %d: link bound %zu at %u, recounted %zu at %u\n", it, b.link,
				      b.link_at, want_link, want_at);
		assert_int_equal(b.link, want_link);
		assert_int_equal(b.link_at, want_at);
		assert_true(s.n_rounds >= b.bound);
		sched_fini(&s);
		free(want);
		free(load);
		fab_down(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_issue_two_leaves_one_uplink),
		cmocka_unit_test(test_issue_three_leaves_oversubscribed),
		cmocka_unit_test(test_clean_trees_reach_n_minus_1),
		cmocka_unit_test(test_property_many_fabrics),
		cmocka_unit_test(test_property_unequal_and_3l),
		cmocka_unit_test(test_pairs_and_bipartite),
		cmocka_unit_test(test_routed_pairs),
		cmocka_unit_test(test_checker_rejects),
		cmocka_unit_test(test_generator_streams),
		cmocka_unit_test(test_rate_classes),
		cmocka_unit_test(test_ecmp_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
