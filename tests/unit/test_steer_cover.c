// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Coverage on ECMP members (model/steer_cover.h) over a simulated
 * per-switch hash (model/ecmp_sim.h): candidates with the paths a few
 * traced ports take.  Checked apart from the picker, from the paths its
 * choices take: no host twice in a round, no pair twice, no directed hop
 * over capacity in any round, fillers only between hosts of one leaf,
 * the crossings and the short links and hosts it reports, and (where the
 * candidates allow it) every target link crossed K times and every host
 * in K pairs; K = 3 on fat trees within ceil(1.25 K) = 4 rounds, K in 10
 * of 16.  With step 7's new pairs (traced by more_trace() as the sweep
 * traces candidates) the same checks hold for them (on two leaves, never
 * twice, within capacity, their tags the caller's).  Random 2- and
 * 3-level fabrics; the walk the same twice; bad input.
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
#include "model/steer_cover.h"
#include "model/topo_gen.h"
#include "sim_fab.h"

#define HOPS 32
#define PORTS 8

struct fab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	struct ecmp_sim *es;
	struct pair_route *cand;
	size_t n_cand;
	size_t n_more;			/* more_trace() calls */
	size_t n_taken;			/* new pairs chosen (check()) */
};

static void fab_place(struct fab *f, size_t nh, uint64_t seed)
{
	sim_fab_place(&f->hs, &f->r, f->t, nh);
	assert_int_equal(ecmp_sim_new(&f->es, f->r, seed), 0);
}

/* Add the path of flow @fl to @ps (distinct paths only). */
static void add_traced(struct fab *f, const struct ecmp_flow *fl, struct path **ps, size_t *n)
{
	struct path_hop h[HOPS];
	size_t nh;

	assert_int_equal(ecmp_sim_path(f->es, fl, h, HOPS, &nh), 0);
	for (size_t i = 0; i < *n; i++)
		if (sim_path_is(&(*ps)[i], h, nh))
			return;
	*ps = realloc(*ps, (*n + 1) * sizeof(**ps));
	assert_non_null(*ps);
	(*ps)[*n].hops = malloc(nh * sizeof(*h));
	assert_non_null((*ps)[*n].hops);
	memcpy((*ps)[*n].hops, h, nh * sizeof(*h));
	(*ps)[*n].n_hops = nh;
	(*ps)[*n].share = 1;
	(*n)++;
}

/* Candidates: @per partners per host on other leaves, PORTS traced ports each way. */
static void cands_make(struct fab *f, unsigned int per, uint64_t seed)
{
	size_t nh = f->r->n_hosts;

	f->cand = calloc(nh * per + 1, sizeof(*f->cand));
	assert_non_null(f->cand);
	for (size_t a = 0; a < nh; a++)
		for (unsigned int c = 0; c < per; c++) {
			size_t b = (a + 1 + sim_mix(seed ^ (a << 8 | c)) % (nh - 1)) % nh;
			bool dup = false;

			if (f->r->hosts[a].leaf == f->r->hosts[b].leaf)
				continue;
			for (size_t i = 0; i < f->n_cand && !dup; i++)
				dup = (f->cand[i].a == a && f->cand[i].b == b) ||
				      (f->cand[i].a == b && f->cand[i].b == a);
			if (dup)
				continue;
			struct pair_route *pr = &f->cand[f->n_cand++];

			pr->a = (unsigned int)a;
			pr->b = (unsigned int)b;
			pr->expected_mbps = 100000;
			for (unsigned int k = 0; k < PORTS; k++) {
				struct ecmp_flow ab = { .src = pr->a, .dst = pr->b, .proto = 6,
							.sport = (uint16_t)(20000 + k), .dport = 5201 };
				struct ecmp_flow ba = { .src = pr->b, .dst = pr->a, .proto = 6,
							.sport = 5201, .dport = (uint16_t)(20100 + k) };

				add_traced(f, &ab, &pr->ab, &pr->n_ab);
				add_traced(f, &ba, &pr->ba, &pr->n_ba);
			}
		}
}

/*
 * steer_cover's step 7: a new pair traced as the candidates are (PORTS
 * ports each way), as sweep_steer.c's cover_more_trace() does; the tag:
 * the call's number.
 */
static long more_trace(void *ctx, unsigned int a, unsigned int b, struct pair_route *pr)
{
	struct fab *f = ctx;

	assert_true(a < b && b < f->r->n_hosts);
	assert_int_not_equal(f->r->hosts[a].leaf, f->r->hosts[b].leaf);
	pr->a = a;
	pr->b = b;
	pr->expected_mbps = 100000;
	for (unsigned int k = 0; k < PORTS; k++) {
		struct ecmp_flow ab = { .src = a, .dst = b, .proto = 6,
					.sport = (uint16_t)(20000 + k), .dport = 5201 };
		struct ecmp_flow ba = { .src = b, .dst = a, .proto = 6,
					.sport = 5201, .dport = (uint16_t)(20100 + k) };

		add_traced(f, &ab, &pr->ab, &pr->n_ab);
		add_traced(f, &ba, &pr->ba, &pr->n_ba);
	}
	return (long)f->n_more++;
}

static void fab_down(struct fab *f)
{
	for (size_t i = 0; i < f->n_cand; i++)
		pair_route_fini(&f->cand[i]);
	free(f->cand);
	sim_fab_free(&f->hs, f->r, f->t, f->es);
}

static void load_path(const struct fab *f, const struct pair_route *pr, const struct path *pa,
		      double *load, uint32_t *cross)
{
	for (size_t h = 0; h < pa->n_hops; h++) {
		load[pa->hops[h].link * 2 + !pa->hops[h].fwd] +=
			1.0 / sched_topo_cap(f->r, pa->hops[h].link, pr->expected_mbps);
		cross[pa->hops[h].link]++;
	}
}

/*
 * Pick (@more: with step 7's new pairs, traced by more_trace()), then
 * check every property apart from the picker; *@rounds, the rounds.
 */
static void check(struct fab *f, unsigned int k, bool want_full, bool more, size_t *rounds)
{
	size_t nh = f->r->n_hosts, nl = f->r->n_links;
	const struct pair_route **cp = calloc(f->n_cand + 1, sizeof(*cp));
	struct steer_cover_req req = { .k = k, .max_rounds = k + 3, .walk = true,
				       .more = more ? more_trace : NULL, .more_ctx = f };
	struct steer_cover c;
	struct fab_err err;
	double *load = calloc(nl * 2, sizeof(*load));
	uint32_t *cross = calloc(nl, sizeof(*cross)), *hp = calloc(nh, sizeof(*hp));
	bool *busy = calloc(nh, sizeof(*busy)), *seen = calloc(nh * nh, sizeof(*seen));
	bool *target = calloc(nl, sizeof(*target));
	size_t short_links = 0, short_hosts = 0;

	assert_true(cp && load && cross && hp && busy && seen && target);
	for (size_t i = 0; i < f->n_cand; i++) {
		cp[i] = &f->cand[i];
		for (size_t x = 0; x < f->cand[i].n_ab; x++)
			for (size_t h = 0; h < f->cand[i].ab[x].n_hops; h++)
				target[f->cand[i].ab[x].hops[h].link] = true;
		for (size_t x = 0; x < f->cand[i].n_ba; x++)
			for (size_t h = 0; h < f->cand[i].ba[x].n_hops; h++)
				target[f->cand[i].ba[x].hops[h].link] = true;
	}
	for (size_t h = 0; h < nh; h++)
		target[f->r->hosts[h].link] = true;
	fab_err_init(&err);
	f->n_more = 0;
	assert_int_equal(steer_cover_pick(&c, f->r, &req, cp, f->n_cand, &err), 0);
	assert_int_equal(c.mend_traced, f->n_more);
	assert_true(c.n_extra <= c.mend_traced && c.mend_traced <= STEER_COVER_MORE_MAX);
	for (size_t e = 0; e < c.n_extra; e++)
		assert_true(c.extra_tag[e] < f->n_more);
	assert_int_equal(sched_check(&c.s, nh), 0);	/* no host twice a round, no pair twice */
	assert_true(c.s.n_rounds <= req.max_rounds);
	for (size_t r = 0; r < c.s.n_rounds; r++) {
		memset(load, 0, nl * 2 * sizeof(*load));
		memset(busy, 0, nh * sizeof(*busy));
		for (size_t i = c.s.round_start[r]; i < c.s.round_start[r + 1]; i++) {
			unsigned int a = c.s.pairs[i].a, b = c.s.pairs[i].b;

			assert_false(busy[a] || busy[b]);
			busy[a] = busy[b] = true;
			assert_false(seen[a * nh + b] || seen[b * nh + a]);
			seen[a * nh + b] = true;
			hp[a]++;
			hp[b]++;
			if (c.pick[i] == STEER_COVER_FILL) {
				assert_int_equal(f->r->hosts[a].leaf, f->r->hosts[b].leaf);
				cross[f->r->hosts[a].link] += 2;
				cross[f->r->hosts[b].link] += 2;
				continue;
			}
			/* a candidate, or a new pair of step 7 (on two leaves) */
			assert_true(c.pick[i] < f->n_cand + c.n_extra);
			const struct pair_route *pr = c.pick[i] < f->n_cand
							      ? &f->cand[c.pick[i]]
							      : &c.extra[c.pick[i] - f->n_cand];

			assert_true(pr->a == a && pr->b == b);
			assert_int_not_equal(f->r->hosts[a].leaf, f->r->hosts[b].leaf);
			assert_true(c.ab[i] < pr->n_ab && c.ba[i] < pr->n_ba);
			load_path(f, pr, &pr->ab[c.ab[i]], load, cross);
			load_path(f, pr, &pr->ba[c.ba[i]], load, cross);
		}
		for (size_t l = 0; l < nl * 2; l++)
			assert_true(load[l] <= 1 + 1e-9);
	}
	for (size_t l = 0; l < nl; l++) {
		assert_int_equal(cross[l], c.cross[l]);
		short_links += target[l] && cross[l] < k;
	}
	for (size_t h = 0; h < nh; h++) {
		assert_int_equal(hp[h], c.host_pairs[h]);
		short_hosts += hp[h] < k;
	}
	assert_int_equal(short_links, c.links_short);
	assert_int_equal(short_hosts, c.hosts_short);
	if (want_full) {
		assert_int_equal(c.links_short, 0);
		assert_int_equal(c.hosts_short, 0);
	}
	*rounds = c.s.n_rounds;
	f->n_taken = c.n_extra;
	steer_cover_fini(&c);
	steer_cover_fini(&c);	/* safe twice */
	free(cp);
	free(load);
	free(cross);
	free(hp);
	free(busy);
	free(seen);
	free(target);
}

static void test_property_2l(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct topo_gen_2l g = { .leaves = 2 + (unsigned int)(sim_mix(seed) % 7),
					 .hosts_per_leaf = 2 + (unsigned int)(sim_mix(seed + 9) % 9),
					 .spines = 2 + (unsigned int)(sim_mix(seed + 3) % 3),
					 .host_mbps = 100000, .uplink_mbps = 100000 };
		struct fab f = { 0 };
		size_t rounds;

		g.uplinks_per_spine = 1 + (g.hosts_per_leaf + g.spines - 1) / g.spines / 2;
		assert_int_equal(topo_gen_leaf_spine(&f.t, &g), 0);
		fab_place(&f, (size_t)g.leaves * g.hosts_per_leaf, seed);
		cands_make(&f, 6, seed);
		check(&f, 1 + (unsigned int)(seed % 3), false, seed % 2, &rounds);
		fab_down(&f);
	}
}

static void test_property_3l(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct topo_gen_3l g = { .pods = 2 + (unsigned int)(seed % 3), .leaves_per_pod = 4,
					 .hosts_per_leaf = 4, .aggs_per_pod = 4, .cores_per_agg = 2,
					 .host_mbps = 100000, .leaf_mbps = 100000,
					 .core_mbps = 100000 };
		struct fab f = { 0 };
		size_t rounds;

		assert_int_equal(topo_gen_fat_tree(&f.t, &g), 0);
		fab_place(&f, (size_t)g.pods * 16, seed);
		cands_make(&f, 10, seed);
		/* K = 2 on a fat tree of 32-64 hosts: reachable within the extra rounds. */
		check(&f, 2, true, seed % 2, &rounds);
		assert_true(rounds <= 2 + 3);
		fab_down(&f);
	}
}

/*
 * K = 3 on random 3-level fat trees (24-160 hosts, every rate equal: one
 * flow per directed hop and round) with 4 or 6 candidates per host: the
 * rounds within ceil(1.25 K) = 4, every link crossed 3 times and every
 * host in 3 pairs (check() recounts both, and the loads, from the paths
 * chosen).  Without the repair 3 of these 16 fabrics took 5 rounds; with
 * the walk (steer_cover.c "Step 7", on in check()) 10 take K = 3 rounds
 * (deterministic: fixed seeds), the others 4; with step 7's new pairs
 * too (here: 96 traced, 2 taken) the same 10 (what is left there is
 * links, not a leaf's parity).
 */
static void test_rounds_3l(void **state)
{
	size_t three = 0, traced = 0, taken = 0;

	(void)state;
	for (uint64_t seed = 1; seed <= 16; seed++) {
		struct topo_gen_3l g = { .pods = 2 + (unsigned int)(sim_mix(seed) % 3),
					 .leaves_per_pod = 3 + (unsigned int)(sim_mix(seed + 1) % 3),
					 .hosts_per_leaf = 4 + (unsigned int)(sim_mix(seed + 2) % 5),
					 .aggs_per_pod = 4, .cores_per_agg = 2 + (unsigned int)(seed % 2),
					 .host_mbps = 100000, .leaf_mbps = 100000,
					 .core_mbps = 100000 };
		struct fab f = { 0 };
		size_t rounds;

		assert_int_equal(topo_gen_fat_tree(&f.t, &g), 0);
		fab_place(&f, (size_t)g.pods * g.leaves_per_pod * g.hosts_per_leaf, seed);
		cands_make(&f, 4 + 2 * (unsigned int)(seed % 2), seed);
		check(&f, 3, true, true, &rounds);
		assert_true(rounds <= 4);
		three += rounds == 3;
		traced += f.n_more;
		taken += f.n_taken;
		fab_down(&f);
	}
	printf("K = 3 rounds: %zu of 16 fabrics (new pairs: %zu traced, %zu taken)\n", three,
	       traced, taken);
	assert_true(three >= 10);
}

/*
 * The walk is deterministic (nrand48() from a fixed seed): the same
 * candidates give the same rounds, pairs and paths twice.  A fat tree of
 * 72 hosts (3 pods of 4 leaves) on which the walk runs (cost 6 left by
 * the repair).
 */
static void test_walk_same_twice(void **state)
{
	struct topo_gen_3l g = { .pods = 3, .leaves_per_pod = 4, .hosts_per_leaf = 6,
				 .aggs_per_pod = 4, .cores_per_agg = 2, .host_mbps = 100000,
				 .leaf_mbps = 100000, .core_mbps = 100000 };
	struct steer_cover_req req = { .k = 3, .max_rounds = 6, .walk = true };
	struct steer_cover c[2];
	struct fab f = { 0 };
	struct fab_err err;
	const struct pair_route **cp;

	(void)state;
	assert_int_equal(topo_gen_fat_tree(&f.t, &g), 0);
	fab_place(&f, (size_t)g.pods * g.leaves_per_pod * g.hosts_per_leaf, 7);
	cands_make(&f, 6, 7);
	cp = calloc(f.n_cand + 1, sizeof(*cp));
	assert_non_null(cp);
	for (size_t i = 0; i < f.n_cand; i++)
		cp[i] = &f.cand[i];
	fab_err_init(&err);
	for (int x = 0; x < 2; x++)
		assert_int_equal(steer_cover_pick(&c[x], f.r, &req, cp, f.n_cand, &err), 0);
	assert_int_equal(c[0].s.n_rounds, c[1].s.n_rounds);
	assert_int_equal(c[0].s.n_pairs, c[1].s.n_pairs);
	for (size_t r = 0; r <= c[0].s.n_rounds; r++)
		assert_int_equal(c[0].s.round_start[r], c[1].s.round_start[r]);
	for (size_t i = 0; i < c[0].s.n_pairs; i++) {
		assert_int_equal(c[0].s.pairs[i].a, c[1].s.pairs[i].a);
		assert_int_equal(c[0].s.pairs[i].b, c[1].s.pairs[i].b);
		assert_int_equal(c[0].pick[i], c[1].pick[i]);
		assert_int_equal(c[0].ab[i], c[1].ab[i]);
		assert_int_equal(c[0].ba[i], c[1].ba[i]);
	}
	steer_cover_fini(&c[0]);
	steer_cover_fini(&c[1]);
	free(cp);
	fab_down(&f);
}

static void test_bad_input(void **state)
{
	struct topo_gen_2l g = { .leaves = 2, .hosts_per_leaf = 2, .spines = 2 };
	struct steer_cover_req req = { .k = 0, .max_rounds = 3 };
	struct fab f = { 0 };
	struct steer_cover c;
	struct fab_err err;
	const struct pair_route *cp[1];

	(void)state;
	assert_int_equal(topo_gen_leaf_spine(&f.t, &g), 0);
	fab_place(&f, 4, 1);
	cands_make(&f, 2, 1);
	assert_true(f.n_cand > 0);
	cp[0] = &f.cand[0];
	fab_err_init(&err);
	assert_int_equal(steer_cover_pick(&c, f.r, &req, cp, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "k 0"));
	req.k = 4;		/* fewer rounds than K */
	assert_int_equal(steer_cover_pick(&c, f.r, &req, cp, 1, &err), -EINVAL);
	req.k = 1;
	f.cand[0].b = f.cand[0].a;
	assert_int_equal(steer_cover_pick(&c, f.r, &req, cp, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "candidate 0"));
	fab_down(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_property_2l),
		cmocka_unit_test(test_property_3l),
		cmocka_unit_test(test_rounds_3l),
		cmocka_unit_test(test_walk_same_twice),
		cmocka_unit_test(test_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
