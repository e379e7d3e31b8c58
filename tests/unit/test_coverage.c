// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Coverage pairs: every link some allowed pair can cross is crossed by at
 * least K chosen pairs and every (subset) host is in at least K pairs,
 * checked here by recounting the chosen pairs' loads (route_pair_loads),
 * independently of the picker's own counters; far fewer pairs than all
 * pairs; the pairs schedule into link-safe rounds.
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

#include "model/coverage.h"
#include "model/sched_topo.h"
#include "model/topo_gen.h"

struct fab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
};

/* Hosts h1..hN, leaving out every @skip-th one (0: none). */
static void fab_up_skip(struct fab *f, struct topo *t, size_t n, size_t skip)
{
	size_t cap = 64 * n + 1, len = 0;
	char *buf = malloc(cap);
	struct fab_err err;

	assert_non_null(buf);
	for (size_t i = 1; i <= n; i++)
		if (!skip || i % skip)
			len += (size_t)snprintf(buf + len, cap - len, "h%zu 10.%zu.%zu.%zu\n", i, i / 65536,
						i / 256 % 256, i % 256);
	f->t = t;
	hosts_init(&f->hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&f->hs, buf, len, "hosts", &err), 0);
	free(buf);
	assert_int_equal(route_new(&f->r, t), 0);
	assert_int_equal(route_place(f->r, &f->hs, &err), 0);
	route_rates(f->r, &f->hs, NULL, NULL);
}

static void fab_2l(struct fab *f, unsigned int leaves, unsigned int hosts, unsigned int spines,
		   unsigned int ups)
{
	struct topo_gen_2l g = { .leaves = leaves, .hosts_per_leaf = hosts, .spines = spines,
				 .uplinks_per_spine = ups, .host_mbps = 100000,
				 .uplink_mbps = 100000 };
	struct topo *t;

	assert_int_equal(topo_gen_leaf_spine(&t, &g), 0);
	fab_up_skip(f, t, (size_t)leaves * hosts, 0);
}

static void fab_3l(struct fab *f, unsigned int pods, unsigned int leaves, unsigned int hosts,
		   unsigned int aggs, unsigned int cores)
{
	struct topo_gen_3l g = { .pods = pods, .leaves_per_pod = leaves, .hosts_per_leaf = hosts,
				 .aggs_per_pod = aggs, .cores_per_agg = cores,
				 .host_mbps = 100000, .leaf_mbps = 100000, .core_mbps = 100000 };
	struct topo *t;

	assert_int_equal(topo_gen_fat_tree(&t, &g), 0);
	fab_up_skip(f, t, (size_t)pods * leaves * hosts, 0);
}

static void fab_down(struct fab *f)
{
	route_free(f->r);
	hosts_fini(&f->hs);
	topo_free(f->t);
}

static bool allowed(const bool *subset, unsigned int a, unsigned int b)
{
	return a != b && (!subset || subset[a] || subset[b]);
}

/*
 * Independent recount: per link the chosen pairs crossing it (@got) and the
 * allowed pairs that could (@could, all pairs enumerated); per host its
 * chosen pairs.  Checks no pair twice, a < b, every pair allowed, and the
 * picker's counters equal the recount.
 */
static void recount(struct fab *f, const struct coverage *c, const bool *subset, uint32_t *got,
		    uint32_t *could, uint32_t *hp)
{
	size_t n = f->r->n_hosts, nl = f->t->n_links;
	unsigned char *seen = calloc(n * n, 1);
	const struct route_load *items;
	struct route_info info;
	size_t ni;

	assert_non_null(seen);
	memset(got, 0, nl * sizeof(*got));
	memset(could, 0, nl * sizeof(*could));
	memset(hp, 0, n * sizeof(*hp));
	for (size_t i = 0; i < c->n_pairs; i++) {
		unsigned int a = c->pairs[i].a, b = c->pairs[i].b;

		assert_true(a < b && b < n);
		assert_true(allowed(subset, a, b));
		assert_false(seen[a * n + b]);
		seen[a * n + b] = 1;
		hp[a]++;
		hp[b]++;
		assert_int_equal(route_pair_loads(f->r, a, b, &items, &ni, &info), 0);
		for (size_t j = 0; j < ni; j++)
			got[items[j].link]++;
	}
	for (unsigned int a = 0; a < n; a++)
		for (unsigned int b = a + 1; b < n; b++) {
			if (!allowed(subset, a, b) || route_pair_loads(f->r, a, b, &items, &ni, &info) < 0)
				continue;
			for (size_t j = 0; j < ni; j++)
				could[items[j].link]++;
		}
	for (size_t l = 0; l < nl; l++)
		assert_int_equal(c->link_cross[l], got[l]);
	for (size_t h = 0; h < n; h++)
		assert_int_equal(c->host_pairs[h], hp[h]);
	free(seen);
}

/* Host @h's allowed partners. */
static unsigned int partners(size_t n, const bool *subset, unsigned int h)
{
	unsigned int p = 0;

	for (unsigned int b = 0; b < n; b++)
		p += allowed(subset, h, b);
	return p;
}

/* All mode: the rule holds wherever it can; returns the pair count. */
static size_t check_all(struct fab *f, unsigned int k)
{
	size_t n = f->r->n_hosts, nl = f->t->n_links;
	uint32_t *got = calloc(nl, sizeof(*got)), *could = calloc(nl, sizeof(*could));
	uint32_t *hp = calloc(n, sizeof(*hp));
	struct coverage_req req = { .k = k };
	struct coverage c;
	struct fab_err err;
	size_t targets = 0, n_pairs;

	assert_true(got && could && hp);
	fab_err_init(&err);
	assert_int_equal(coverage_pick(&c, f->r, &req, &err), 0);
	recount(f, &c, NULL, got, could, hp);
	for (size_t l = 0; l < nl; l++) {
		uint32_t want = could[l] < k ? could[l] : k;

		assert_true(got[l] >= want);
		targets += could[l] > 0;
	}
	for (unsigned int h = 0; h < n; h++) {
		unsigned int p = partners(n, NULL, h);

		assert_true(hp[h] >= (p < k ? p : k));
	}
	assert_int_equal(c.links_target, targets);
	assert_int_equal(c.hosts_target, n);
	n_pairs = c.n_pairs;
	coverage_fini(&c);
	coverage_fini(&c);
	free(got);
	free(could);
	free(hp);
	return n_pairs;
}

/* Leaf-spine, K = 1..3: every link crossed K times, pairs about n K / 2, far below all pairs. */
static void test_leaf_spine(void **state)
{
	struct fab f;

	fab_2l(&f, 8, 8, 4, 2);
	for (unsigned int k = 1; k <= 3; k++) {
		size_t n = 64, pairs = check_all(&f, k);

		/* n K / 2 is the least any list can have; all pairs is 2016. */
		assert_true(pairs >= n * k / 2);
		assert_true(pairs <= n * k / 2 + n / 8);
		assert_true(pairs * 10 < n * (n - 1) / 2);
	}
	fab_down(&f);
}

/* 3-level fat tree: 4 pods x 4 leaves x 4 hosts, 4 aggs per pod, 2 cores per agg. */
static void test_fat_tree(void **state)
{
	struct fab f;

	fab_3l(&f, 4, 4, 4, 4, 2);
	for (unsigned int k = 1; k <= 4; k++) {
		size_t n = 64, pairs = check_all(&f, k);

		assert_true(pairs >= n * k / 2);
		assert_true(pairs <= n * k / 2 + n / 8);
	}
	fab_down(&f);
}

/*
 * Uneven leaves: leaf1 and leaf2 with one listed host each, leaf3 with
 * six.  The lone hosts' uplinks and leaf3's are crossed K times, every
 * host is in K pairs.
 */
static void test_uneven_leaves(void **state)
{
	struct topo_gen_2l g = { .leaves = 3, .hosts_per_leaf = 6, .spines = 2,
				 .host_mbps = 1000, .uplink_mbps = 1000 };
	const char *text = "h1 10.0.0.1\nh7 10.0.0.7\nh13 10.0.0.13\nh14 10.0.0.14\n"
			   "h15 10.0.0.15\nh16 10.0.0.16\nh17 10.0.0.17\nh18 10.0.0.18\n";
	struct fab_err err;
	struct fab f;

	assert_int_equal(topo_gen_leaf_spine(&f.t, &g), 0);
	hosts_init(&f.hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&f.hs, text, strlen(text), "hosts", &err), 0);
	assert_int_equal(route_new(&f.r, f.t), 0);
	assert_int_equal(route_place(f.r, &f.hs, &err), 0);
	route_rates(f.r, &f.hs, NULL, NULL);
	for (unsigned int k = 1; k <= 4; k++)
		check_all(&f, k);
	fab_down(&f);
}

/* Hosts left out of the hosts file: their access links are not targets, but wanted: unreachable. */
static void test_unreachable_and_short(void **state)
{
	struct fab f;
	struct coverage_req req = { .k = 2 };
	struct coverage c;
	struct fab_err err;
	bool *want;
	size_t n_wanted = 0;

	fab_err_init(&err);
	fab_2l(&f, 1, 3, 0, 0);
	/* One leaf of three hosts, K = 3: each host has only two partners. */
	req.k = 3;
	assert_int_equal(coverage_pick(&c, f.r, &req, &err), 0);
	assert_int_equal(c.n_pairs, 3);
	assert_int_equal(c.hosts_short, 3);
	assert_int_equal(c.first_short_host, 0);
	assert_int_equal(c.links_short, 3);
	coverage_fini(&c);
	req.k = 0;
	assert_int_equal(coverage_pick(&c, f.r, &req, &err), -EINVAL);
	fab_down(&f);

	/* 2 leaves x 4 hosts, every 4th host not listed: h4 and h8's cables cannot be crossed. */
	struct topo_gen_2l g = { .leaves = 2, .hosts_per_leaf = 4, .spines = 1,
				 .host_mbps = 1000, .uplink_mbps = 1000 };
	struct topo *t;

	assert_int_equal(topo_gen_leaf_spine(&t, &g), 0);
	fab_up_skip(&f, t, 8, 4);
	want = calloc(t->n_links, sizeof(*want));
	assert_non_null(want);
	for (size_t l = 0; l < t->n_links; l++) {
		want[l] = true;
		n_wanted++;
	}
	req = (struct coverage_req){ .k = 2, .want_link = want };
	assert_int_equal(coverage_pick(&c, f.r, &req, &err), 0);
	assert_int_equal(c.links_unreachable, 2);
	assert_int_equal(c.links_target, n_wanted - 2);
	assert_int_equal(c.links_short, 0);
	assert_int_equal(c.hosts_short, 0);
	assert_int_equal(c.first_short_link, COVERAGE_NONE);
	coverage_fini(&c);
	free(want);
	fab_down(&f);
}

/*
 * Subset (accept): a new leaf of hosts (they could meet only each other
 * and never cross their leaf's uplinks), then that leaf plus one new host
 * on another leaf.  Every
 * pair touches a new host, every new host is in K pairs, their access
 * links and their leaves' uplinks are crossed K times; far fewer pairs
 * than new x all.
 */
static void subset_case(bool one_more)
{
	struct fab f;
	size_t n, nl;
	bool *sub;
	uint32_t *got, *could, *hp;
	struct coverage c;
	struct fab_err err;
	unsigned int k = 3;
	struct coverage_req req = { .k = k };
	size_t n_new = 0;

	fab_2l(&f, 6, 8, 4, 1);
	n = f.r->n_hosts;
	nl = f.t->n_links;
	sub = calloc(n, sizeof(*sub));
	got = calloc(nl, sizeof(*got));
	could = calloc(nl, sizeof(*could));
	hp = calloc(n, sizeof(*hp));
	assert_true(sub && got && could && hp);
	for (unsigned int h = 16; h < 24; h++)	/* all of leaf3 */
		sub[h] = true;
	sub[41] = one_more;			/* one host of leaf6 */
	for (size_t h = 0; h < n; h++)
		n_new += sub[h];
	req.subset = sub;
	fab_err_init(&err);
	assert_int_equal(coverage_pick(&c, f.r, &req, &err), 0);
	recount(&f, &c, sub, got, could, hp);
	assert_int_equal(c.hosts_target, n_new);
	assert_int_equal(c.hosts_short, 0);
	assert_int_equal(c.links_short, 0);
	for (unsigned int h = 0; h < n; h++)
		if (sub[h])
			assert_true(hp[h] >= k);
	for (size_t l = 0; l < nl; l++) {
		const struct topo_link *lk = f.t->links[l];
		const char *na = lk->a->node->name, *nb = lk->b->node->name;
		bool up = (!strcmp(na, "leaf3") || !strcmp(nb, "leaf3") ||
			   (one_more && (!strcmp(na, "leaf6") || !strcmp(nb, "leaf6")))) &&
			  (!strncmp(na, "spine", 5) || !strncmp(nb, "spine", 5));
		bool access = false;

		for (unsigned int h = 0; h < n; h++)
			access |= sub[h] && f.r->hosts[h].link == l;
		if (up || access)
			assert_true(got[l] >= k);
	}
	/* n_new x K / 2 at least; new x all would be about n_new x 47. */
	assert_true(c.n_pairs >= (n_new * k + 1) / 2);
	assert_true(c.n_pairs <= n_new * k);
	coverage_fini(&c);
	free(sub);
	free(got);
	free(could);
	free(hp);
	fab_down(&f);
}

static void test_subset(void **state)
{
	subset_case(false);
	subset_case(true);
}

/* The pairs pack into link-safe rounds (the scheduler's checker), few of them. */
static void test_schedules(void **state)
{
	struct coverage_req req = { .k = 2 };
	struct sched_topo_bound b;
	struct coverage c;
	struct fab_err err;
	struct sched s;
	struct fab f;

	fab_3l(&f, 4, 4, 4, 4, 2);
	fab_err_init(&err);
	assert_int_equal(coverage_pick(&c, f.r, &req, &err), 0);
	assert_int_equal(sched_topo_pairs(&s, &b, f.r, c.pairs, c.n_pairs, &err), 0);
	assert_int_equal(s.n_pairs, c.n_pairs);
	assert_int_equal(sched_topo_check(&s, f.r, c.pairs, c.n_pairs, &err), 0);
	assert_true(s.n_rounds >= b.bound);
	assert_true(s.n_rounds <= 2 * b.bound + 2);
	sched_fini(&s);
	coverage_fini(&c);
	fab_down(&f);
}

static unsigned int rnd(uint64_t *s, unsigned int n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)((*s >> 33) % n);
}

/* Many small generated fabrics, random K and subsets: the rule wherever it can hold. */
static void test_property(void **state)
{
	uint64_t seed = 15;

	for (int it = 0; it < 60; it++) {
		struct fab f;
		size_t n, nl;
		unsigned int k = 1 + rnd(&seed, 3);
		bool *sub = NULL;

		if (it % 2) {
			fab_2l(&f, 1 + rnd(&seed, 5), 1 + rnd(&seed, 5), 1 + rnd(&seed, 3),
			       1 + rnd(&seed, 2));
		} else {
			fab_3l(&f, 1 + rnd(&seed, 3), 1 + rnd(&seed, 3), 1 + rnd(&seed, 3),
			       1 + rnd(&seed, 3), 1 + rnd(&seed, 2));
		}
		n = f.r->n_hosts;
		nl = f.t->n_links;
		if (n < 2) {
			fab_down(&f);
			continue;
		}
		if (it % 3 == 0) {
			sub = calloc(n, sizeof(*sub));
			assert_non_null(sub);
			sub[rnd(&seed, (unsigned int)n)] = true;
			sub[rnd(&seed, (unsigned int)n)] = true;
		}
		uint32_t *got = calloc(nl, sizeof(*got)), *could = calloc(nl, sizeof(*could));
		uint32_t *hp = calloc(n, sizeof(*hp));
		struct coverage_req req = { .k = k, .subset = sub };
		struct coverage c;
		struct fab_err err;

		assert_true(got && could && hp);
		fab_err_init(&err);
		assert_int_equal(coverage_pick(&c, f.r, &req, &err), 0);
		recount(&f, &c, sub, got, could, hp);
		for (unsigned int h = 0; h < n; h++) {
			unsigned int p = partners(n, sub, h);

			if (!sub || sub[h])
				assert_true(hp[h] >= (p < k ? p : k));
		}
		if (!sub) {
			for (size_t l = 0; l < nl; l++)
				assert_true(got[l] >= (could[l] < k ? could[l] : k));
			/* Within a quarter of the host bound (n K / 2), plus the link phase's few. */
			assert_true(c.n_pairs <= (n * k + 1) / 2 + n / 4 + 2 * f.r->n_leaves);
		}
		assert_int_equal(c.links_short + c.hosts_short == 0,
				 c.first_short_link == COVERAGE_NONE &&
				 c.first_short_host == COVERAGE_NONE);
		coverage_fini(&c);
		free(got);
		free(could);
		free(hp);
		free(sub);
		fab_down(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_spine),
		cmocka_unit_test(test_fat_tree),
		cmocka_unit_test(test_uneven_leaves),
		cmocka_unit_test(test_unreachable_and_short),
		cmocka_unit_test(test_subset),
		cmocka_unit_test(test_schedules),
		cmocka_unit_test(test_property),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
