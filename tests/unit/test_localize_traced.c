// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Localisation on traced paths (docs/paths.md, issue 24): every measured
 * pair carries the one member its test took each way (a pair_route with
 * one path per direction), so a slow leaf-spine cable is named alone, as
 * a link with both ends, and the pairs through the other members are its
 * contrast.  Beside it, the same verdicts over whole ECMP sets name a
 * crowd: the reason to trace.  A switch's hash is stood in for by a fixed
 * mix of the pair and its source port.
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

#include "model/localize.h"
#include "model/route.h"
#include "model/topo_gen.h"

#define MAXP 1024

struct lab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	uint32_t host_link[64];
	const char *names[64];
	struct pair_route whole[MAXP], traced[MAXP];
	struct loc_pair pw[MAXP], pt[MAXP];
	size_t n_hosts, n;
};

static unsigned int hash_pick(unsigned int a, unsigned int b, unsigned int k, unsigned int salt)
{
	uint32_t h = (a * 73856093u) ^ (b * 19349663u) ^ (salt * 83492791u);

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return h % k;
}

static void path_copy(struct path *dst, const struct path *src)
{
	dst->hops = calloc(src->n_hops, sizeof(*dst->hops));
	assert_non_null(dst->hops);
	memcpy(dst->hops, src->hops, src->n_hops * sizeof(*dst->hops));
	dst->n_hops = src->n_hops;
	dst->share = 1;
}

/* 3 leaves x 3 hosts, 2 spines (the lab's shape), all pairs, each traced one member per way. */
static void lab_up(struct lab *l, unsigned int leaves, unsigned int hosts, unsigned int spines)
{
	struct topo_gen_2l g = { .leaves = leaves, .hosts_per_leaf = hosts, .spines = spines };
	char buf[2048];
	size_t len = 0;
	struct fab_err err;

	memset(l, 0, sizeof(*l));
	l->n_hosts = (size_t)leaves * hosts;
	assert_int_equal(topo_gen_leaf_spine(&l->t, &g), 0);
	for (size_t i = 1; i <= l->n_hosts; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "h%zu 10.0.0.%zu\n", i, i);
	hosts_init(&l->hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&l->hs, buf, len, "hosts", &err), 0);
	assert_int_equal(route_new(&l->r, l->t), 0);
	assert_int_equal(route_place(l->r, &l->hs, &err), 0);
	for (size_t i = 0; i < l->n_hosts; i++) {
		l->host_link[i] = l->r->hosts[i].link;
		l->names[i] = l->hs.hosts[i].name;
	}
	for (unsigned int a = 0; a < l->n_hosts; a++)
		for (unsigned int b = a + 1; b < l->n_hosts; b++) {
			struct pair_route *w = &l->whole[l->n], *t = &l->traced[l->n];

			assert_int_equal(route_pair(l->r, a, b, w, &err), 0);
			*t = *w;
			t->ab = calloc(1, sizeof(*t->ab));
			t->ba = calloc(1, sizeof(*t->ba));
			assert_non_null(t->ab);
			assert_non_null(t->ba);
			path_copy(t->ab, &w->ab[hash_pick(a, b, (unsigned int)w->n_ab, 1)]);
			path_copy(t->ba, &w->ba[hash_pick(b, a, (unsigned int)w->n_ba, 2)]);
			t->n_ab = t->n_ba = 1;
			l->pw[l->n].route = w;
			l->pt[l->n].route = t;
			l->n++;
		}
}

static void lab_down(struct lab *l)
{
	for (size_t i = 0; i < l->n; i++) {
		pair_route_fini(&l->whole[i]);
		pair_route_fini(&l->traced[i]);
	}
	route_free(l->r);
	hosts_fini(&l->hs);
	topo_free(l->t);
}

/* Does @pr's a -> b or b -> a path cross @link (in the direction @dir: 1 fwd, 0 back, -1 either)? */
static bool crosses_dir(const struct pair_route *pr, uint32_t link, int dir)
{
	const struct path *ps[2] = { pr->ab, pr->ba };
	size_t ns[2] = { pr->n_ab, pr->n_ba };

	for (size_t s = 0; s < 2; s++)
		for (size_t p = 0; p < ns[s]; p++)
			for (size_t h = 0; h < ps[s][p].n_hops; h++)
				if (ps[s][p].hops[h].link == link &&
				    (dir < 0 || ps[s][p].hops[h].fwd == (dir == 1)))
					return true;
	return false;
}

/* Verdicts from the traced paths: slow when a test crossed @link (in @dir); the same on both. */
static size_t lab_fault(struct lab *l, uint32_t link, int dir)
{
	size_t bad = 0;

	for (size_t i = 0; i < l->n; i++) {
		bool slow = crosses_dir(&l->traced[i], link, dir);

		l->pt[i].verdict = l->pw[i].verdict = slow ? LOC_SLOW : LOC_OK;
		l->pt[i].pct_expected = l->pw[i].pct_expected = slow ? 15.0 : 98.0;
		bad += slow;
	}
	return bad;
}

/* The cable between leaf @leaf (1-based) and spine @spine (1-based). */
static uint32_t uplink(const struct lab *l, unsigned int leaf, unsigned int spine)
{
	char ln[32], sn[32];

	snprintf(ln, sizeof(ln), "leaf%u", leaf);
	snprintf(sn, sizeof(sn), "spine%u", spine);
	for (size_t i = 0; i < l->t->n_links; i++) {
		const char *a = l->t->links[i]->a->node->name, *b = l->t->links[i]->b->node->name;

		if ((!strcmp(a, ln) && !strcmp(b, sn)) || (!strcmp(a, sn) && !strcmp(b, ln)))
			return (uint32_t)i;
	}
	fail();
	return 0;
}

static void localize(struct lab *l, const struct loc_pair *pairs, struct loc_result *r)
{
	struct loc_input in = { l->t, l->host_link, l->names, l->n_hosts, pairs, l->n, NULL };
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(loc_localize(&in, NULL, r, &err), 0);
}

/* Every uplink of the lab slowed in turn, both ways: named alone on traced paths. */
static void test_member_named_alone(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	size_t alone = 0, total = 0;

	(void)state;
	assert_non_null(l);
	lab_up(l, 3, 3, 2);
	for (unsigned int leaf = 1; leaf <= 3; leaf++)
		for (unsigned int sp = 1; sp <= 2; sp++) {
			uint32_t link = uplink(l, leaf, sp);
			struct loc_result r;

			if (!lab_fault(l, link, -1))
				continue;
			total++;
			localize(l, l->pt, &r);
			assert_true(r.n_suspects >= 1);
			assert_int_equal(r.suspects[0].kind, LOC_KIND_LINK);
			assert_int_equal(r.suspects[0].n_members, 1);
			assert_int_equal(r.suspects[0].members[0].link, link);
			assert_int_equal(r.suspects[0].members[0].host, -1);
			for (size_t s = 0; s < r.n_suspects; s++)
				assert_int_not_equal(r.suspects[s].kind, LOC_KIND_NODE);
			assert_int_equal(r.n_unexplained, 0);
			alone++;
			loc_result_fini(&r);
		}
	assert_true(total >= 5);
	assert_int_equal(alone, total);
	lab_down(l);
	free(l);
}

/*
 * tc tbf slows one way of a cable (the leaf's egress to the spine): only
 * the tests that crossed it that way are slow; the ones that crossed it
 * the other way are ok.  Still that link alone, and the whole-set view
 * of the same verdicts names no single link.
 */
static void test_one_way_and_whole_set(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	uint32_t link;
	struct loc_result r, w;
	const struct topo_link *tl;
	int dir;

	(void)state;
	assert_non_null(l);
	lab_up(l, 3, 3, 2);
	link = uplink(l, 1, 1);
	tl = l->t->links[link];
	dir = !strcmp(tl->a->node->name, "leaf1") ? 1 : 0;	/* leaf1 -> spine1 */
	assert_true(lab_fault(l, link, dir) >= 2);
	localize(l, l->pt, &r);
	assert_int_equal(r.suspects[0].kind, LOC_KIND_LINK);
	assert_int_equal(r.suspects[0].n_members, 1);
	assert_int_equal(r.suspects[0].members[0].link, link);
	localize(l, l->pw, &w);
	assert_false(w.n_suspects && w.suspects[0].kind == LOC_KIND_LINK && w.suspects[0].n_members == 1 &&
		     w.suspects[0].members[0].link == link);
	print_message("leaf1 -> spine1 slowed: traced: link alone (score %.2f); whole sets: %s of %zu\n",
		      r.suspects[0].score, w.n_suspects ? loc_kind_name(w.suspects[0].kind) : "none",
		      w.n_suspects ? w.suspects[0].n_members : 0);
	loc_result_fini(&r);
	loc_result_fini(&w);
	lab_down(l);
	free(l);
}

/* The index of the path among @ps that goes through node @via. */
static size_t path_via(const struct topo *t, const struct path *ps, size_t n, const char *via)
{
	for (size_t p = 0; p < n; p++)
		for (size_t h = 0; h < ps[p].n_hops; h++) {
			const struct topo_link *tl = t->links[ps[p].hops[h].link];

			if (!strcmp(tl->a->node->name, via) || !strcmp(tl->b->node->name, via))
				return p;
		}
	fail();
	return 0;
}

/*
 * The lab run that named a group (sweep-steer.sh, 2026-12-03): 3 leaves x
 * 2 hosts, leaf1 <-> spine1 slowed both ways, and every test of a leaf1
 * host took spine2 one way and spine1 the other.  As pairs, each bad pair
 * crossed both of leaf1's uplinks: the two cannot be told apart (a
 * group).  As directions (loc_acc_add_dirs: the way through spine2 at
 * full rate, the way through spine1 slow), leaf1 <-> spine1 alone.
 */
static void test_directions_split_a_group(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	struct loc_acc *pairs, *dirs;
	struct loc_result rp, rd;
	uint32_t link;
	struct fab_err err;
	size_t split = 0;

	(void)state;
	assert_non_null(l);
	lab_up(l, 3, 2, 2);
	link = uplink(l, 1, 1);
	for (size_t i = 0; i < l->n; i++) {	/* a -> b via spine2, b -> a via spine1 */
		struct pair_route *w = &l->whole[i], *t = &l->traced[i];

		if (w->n_ab < 2)
			continue;
		path_fini(t->ab);
		path_fini(t->ba);
		path_copy(t->ab, &w->ab[path_via(l->t, w->ab, w->n_ab, "spine2")]);
		path_copy(t->ba, &w->ba[path_via(l->t, w->ba, w->n_ba, "spine1")]);
	}
	struct loc_input in = { l->t, l->host_link, l->names, l->n_hosts, NULL, 0, NULL };

	assert_int_equal(loc_acc_new(&pairs, &in), 0);
	assert_int_equal(loc_acc_new(&dirs, &in), 0);
	for (size_t i = 0; i < l->n; i++) {
		const struct pair_route *t = &l->traced[i];
		bool s_ab = crosses_dir(&(struct pair_route){ .ab = t->ab, .n_ab = 1 }, link, -1);
		bool s_ba = crosses_dir(&(struct pair_route){ .ba = t->ba, .n_ba = 1 }, link, -1);
		struct loc_dirs d = { { s_ab ? LOC_SLOW : LOC_OK, s_ba ? LOC_SLOW : LOC_OK },
				      { s_ab ? 1.0 : 98.0, s_ba ? 1.0 : 98.0 } };

		assert_int_equal(loc_acc_add(pairs, t->a, t->b, t, s_ab || s_ba ? LOC_SLOW : LOC_OK,
					     s_ab || s_ba ? 1.0 : 98.0), 0);
		assert_int_equal(loc_acc_add_dirs(dirs, t->a, t->b, t, &d), 0);
		split += s_ab != s_ba;
	}
	assert_int_equal(split, 8);	/* every cross-leaf pair of a leaf1 host, one way slow */
	fab_err_init(&err);
	in.acc = pairs;
	assert_int_equal(loc_localize(&in, NULL, &rp, &err), 0);
	in.acc = dirs;
	assert_int_equal(loc_localize(&in, NULL, &rd, &err), 0);
	assert_int_equal(rp.suspects[0].kind, LOC_KIND_GROUP);	/* what the sweep said */
	assert_int_equal(rp.suspects[0].n_members, 2);
	assert_int_equal(rd.suspects[0].kind, LOC_KIND_LINK);
	assert_int_equal(rd.suspects[0].n_members, 1);
	assert_int_equal(rd.suspects[0].members[0].link, link);
	assert_int_equal(rd.n_unexplained, 0);
	for (size_t s = 0; s < rd.n_suspects; s++)
		assert_int_not_equal(rd.suspects[s].kind, LOC_KIND_NODE);
	print_message("leaf1 <-> spine1, each leaf1 test one way through each spine: pairs: a group of %zu; "
		      "directions: the link alone (score %.2f)\n", rp.suspects[0].n_members, rd.suspects[0].score);
	loc_result_fini(&rp);
	loc_result_fini(&rd);
	loc_acc_free(pairs);
	loc_acc_free(dirs);
	lab_down(l);
	free(l);
}

/*
 * One spine: both directions of a leaf1 pair cross leaf1 <-> spine1, one
 * of them slow (tc on the leaf's egress).  The ok direction clears
 * nothing the slow one crossed: the link alone, every observation
 * crossing it bad, as with whole pairs.
 */
static void test_dirs_shared_link(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	struct loc_acc *acc;
	struct loc_result r;
	struct fab_err err;
	uint32_t link;
	int dir;

	(void)state;
	assert_non_null(l);
	lab_up(l, 3, 2, 1);
	link = uplink(l, 1, 1);
	dir = !strcmp(l->t->links[link]->a->node->name, "leaf1") ? 1 : 0;	/* leaf1 -> spine1 */
	struct loc_input in = { l->t, l->host_link, l->names, l->n_hosts, NULL, 0, NULL };

	assert_int_equal(loc_acc_new(&acc, &in), 0);
	for (size_t i = 0; i < l->n; i++) {
		const struct pair_route *t = &l->traced[i];
		bool s_ab = crosses_dir(&(struct pair_route){ .ab = t->ab, .n_ab = 1 }, link, dir);
		bool s_ba = crosses_dir(&(struct pair_route){ .ba = t->ba, .n_ba = 1 }, link, dir);
		struct loc_dirs d = { { s_ab ? LOC_SLOW : LOC_OK, s_ba ? LOC_SLOW : LOC_OK },
				      { s_ab ? 20.0 : 98.0, s_ba ? 20.0 : 98.0 } };

		assert_int_equal(loc_acc_add_dirs(acc, t->a, t->b, t, &d), 0);
	}
	in.acc = acc;
	fab_err_init(&err);
	assert_int_equal(loc_localize(&in, NULL, &r, &err), 0);
	assert_int_equal(r.suspects[0].kind, LOC_KIND_LINK);
	assert_int_equal(r.suspects[0].members[0].link, link);
	assert_int_equal(r.suspects[0].ev.cross_bad, 8);
	assert_int_equal(r.suspects[0].ev.cross_n, 8);
	loc_result_fini(&r);
	loc_acc_free(acc);
	lab_down(l);
	free(l);
}

/* A route with one direction only: loc_acc_add_dirs() adds the worse verdict once. */
static void test_dirs_one_way_route(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	struct loc_acc *acc;
	struct loc_result r;
	struct fab_err err;
	struct pair_route half;
	struct loc_dirs d = { { LOC_OK, LOC_SLOW }, { 98.0, 5.0 } };

	(void)state;
	assert_non_null(l);
	lab_up(l, 2, 2, 1);
	struct loc_input in = { l->t, l->host_link, l->names, l->n_hosts, NULL, 0, NULL };

	assert_int_equal(loc_acc_new(&acc, &in), 0);
	half = l->traced[0];
	half.n_ba = 0;
	half.ba = NULL;
	assert_int_equal(loc_acc_add_dirs(acc, half.a, half.b, &half, &d), 0);
	in.acc = acc;
	fab_err_init(&err);
	assert_int_equal(loc_localize(&in, NULL, &r, &err), 0);
	assert_int_equal(r.n_bad, 1);	/* one observation, slow */
	loc_result_fini(&r);
	loc_acc_free(acc);
	lab_down(l);
	free(l);
}

/* A clean fabric on traced paths: nothing named. */
static void test_clean(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	struct loc_result r;

	(void)state;
	assert_non_null(l);
	lab_up(l, 3, 3, 2);
	lab_fault(l, UINT32_MAX, -1);
	localize(l, l->pt, &r);
	assert_int_equal(r.n_suspects, 0);
	assert_int_equal(r.n_bad, 0);
	loc_result_fini(&r);
	lab_down(l);
	free(l);
}

/* Is @link in @v[0..n)? */
static bool listed(const uint32_t *v, size_t n, uint32_t link)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == link)
			return true;
	return false;
}

static bool named_alone(const struct loc_result *r, uint32_t link)
{
	for (size_t s = 0; s < r->n_suspects; s++)
		if (r->suspects[s].n_members == 1 && r->suspects[s].members[0].link == link)
			return true;
	return false;
}

/*
 * The sweep's confirming probes (docs/paths.md "Confirming suspects"), the
 * localiser's half: a second fault G (h1's access link) whose measured
 * pairs all crossed a first one F (leaf-spine) is hidden, F explains its
 * pairs; loc_acc_unexonerated() lists it (every crossing bad) beside F,
 * and lists no link that an ok pair crossed.  A probe on a path crossing
 * G and not F (h1 with a host of its own leaf), slow, names G too; a
 * probe crossing an innocent listed link alone, ok, clears it.
 */
static void test_unexonerated_masked(void **state)
{
	struct lab *l = calloc(1, sizeof(*l));
	struct loc_acc *acc = NULL;
	struct loc_input in;
	struct loc_result r;
	struct fab_err err;
	uint32_t t[64], f, g;
	size_t nt, mate = SIZE_MAX, kept = 0;

	(void)state;
	assert_non_null(l);
	lab_up(l, 3, 3, 2);
	g = l->host_link[0];
	f = UINT32_MAX;
	/* F: an uplink of another leaf that some of h1's traced pairs cross */
	for (unsigned int leaf = 1; leaf <= 3 && f == UINT32_MAX; leaf++)
		for (unsigned int sp = 1; sp <= 2 && f == UINT32_MAX; sp++) {
			uint32_t u = uplink(l, leaf, sp);

			for (size_t i = 0; i < l->n && f == UINT32_MAX; i++)
				if ((l->traced[i].a == 0 || l->traced[i].b == 0) &&
				    crosses_dir(&l->traced[i], u, -1) &&
				    l->r->hosts[l->traced[i].a].leaf != l->r->hosts[l->traced[i].b].leaf)
					f = u;
		}
	assert_int_not_equal(f, UINT32_MAX);
	for (size_t h = 1; h < l->n_hosts && mate == SIZE_MAX; h++)
		if (l->r->hosts[h].leaf == l->r->hosts[0].leaf)
			mate = h;
	assert_int_not_equal(mate, SIZE_MAX);
	in = (struct loc_input){ l->t, l->host_link, l->names, l->n_hosts, NULL, 0, NULL };
	assert_int_equal(loc_acc_new(&acc, &in), 0);
	in.acc = acc;
	/* measured: every pair but those crossing G and not F; slow when crossing either */
	for (size_t i = 0; i < l->n; i++) {
		bool cf = crosses_dir(&l->traced[i], f, -1), cg = crosses_dir(&l->traced[i], g, -1);

		if (cg && !cf)
			continue;
		assert_int_equal(loc_acc_add(acc, l->traced[i].a, l->traced[i].b, &l->traced[i],
					     cf || cg ? LOC_SLOW : LOC_OK, cf || cg ? 20.0 : 98.0), 0);
		kept += cg;
	}
	assert_true(kept >= 1);
	fab_err_init(&err);
	assert_int_equal(loc_localize(&in, NULL, &r, &err), 0);
	assert_true(named_alone(&r, f));
	assert_false(named_alone(&r, g));	/* hidden behind F */
	nt = loc_acc_unexonerated(acc, &r, t, 64);
	assert_true(nt >= 2);
	assert_int_equal(t[0], f);		/* the suspects' members first */
	assert_true(listed(t, nt, g));
	for (size_t i = 0; i < l->n; i++) {	/* a link an ok pair crossed is never listed */
		bool cf = crosses_dir(&l->traced[i], f, -1), cg = crosses_dir(&l->traced[i], g, -1);

		for (size_t h = 0; !cf && !cg && h < l->traced[i].ab[0].n_hops; h++)
			assert_false(listed(t, nt, l->traced[i].ab[0].hops[h].link));
	}
	assert_int_equal(loc_acc_unexonerated(acc, &r, t, 1), 1);	/* @max holds */
	/* the probe: h1 with its leaf-mate crosses G, not F; slow */
	for (size_t i = 0; i < l->n; i++) {
		const struct pair_route *pr = &l->traced[i];

		if (!((pr->a == 0 && pr->b == mate) || (pr->b == 0 && pr->a == mate)))
			continue;
		assert_false(crosses_dir(pr, f, -1));
		assert_int_equal(loc_acc_add(acc, pr->a, pr->b, pr, LOC_SLOW, 20.0), 0);
	}
	loc_result_fini(&r);
	assert_int_equal(loc_localize(&in, NULL, &r, &err), 0);
	assert_true(named_alone(&r, f));
	assert_true(named_alone(&r, g));
	nt = loc_acc_unexonerated(acc, &r, t, 64);
	assert_true(nt >= 3);	/* F, G and an innocent link that only shared their pairs */
	/*
	 * An innocent listed link (one that only shared F's or G's pairs),
	 * probed alone and ok (another member of some pair's ECMP set: the
	 * traced pairs that cross it all cross F or G), is no longer listed
	 * or named.
	 */
	bool cleared = false;

	for (size_t k = 0; k < nt && !cleared; k++) {
		if (t[k] == f || t[k] == g)
			continue;
		for (size_t i = 0; i < l->n && !cleared; i++) {
			const struct pair_route *w = &l->whole[i];

			for (size_t x = 0; x < w->n_ab && !cleared; x++)
				for (size_t y = 0; y < w->n_ba && !cleared; y++) {
					struct pair_route pr = *w;
					uint32_t lk = t[k];

					pr.ab = &w->ab[x];
					pr.ba = &w->ba[y];
					pr.n_ab = pr.n_ba = 1;
					if (!crosses_dir(&pr, lk, -1) || crosses_dir(&pr, f, -1) ||
					    crosses_dir(&pr, g, -1))
						continue;
					assert_int_equal(loc_acc_add(acc, pr.a, pr.b, &pr, LOC_OK, 98.0), 0);
					loc_result_fini(&r);
					assert_int_equal(loc_localize(&in, NULL, &r, &err), 0);
					nt = loc_acc_unexonerated(acc, &r, t, 64);
					assert_false(listed(t, nt, lk));
					assert_false(named_alone(&r, lk));
					assert_true(named_alone(&r, f));
					assert_true(named_alone(&r, g));
					cleared = true;	/* one is enough */
				}
		}
	}
	assert_true(cleared);
	loc_result_fini(&r);
	loc_acc_free(acc);
	lab_down(l);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_member_named_alone),
		cmocka_unit_test(test_one_way_and_whole_set),
		cmocka_unit_test(test_directions_split_a_group),
		cmocka_unit_test(test_dirs_shared_link),
		cmocka_unit_test(test_dirs_one_way_route),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_unexonerated_masked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
