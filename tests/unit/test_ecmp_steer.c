// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Traced members to paths (model/ecmp_steer): a member's nodes pick one
 * of a pair's enumerated paths each way (2-level spines, 3-level
 * agg > core > agg), parallel cables are ambiguous, an unknown member is
 * none; an option's route is one path each way, share 1.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/ecmp_steer.h"
#include "model/route.h"
#include "model/topo_gen.h"

struct fab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
};

static void fab_up(struct fab *f, struct topo *t, size_t n_hosts)
{
	char buf[4096];
	size_t len = 0;
	struct fab_err err;

	f->t = t;
	for (size_t i = 1; i <= n_hosts; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "h%zu 10.0.0.%zu\n", i, i);
	hosts_init(&f->hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&f->hs, buf, len, "hosts", &err), 0);
	assert_int_equal(route_new(&f->r, t), 0);
	assert_int_equal(route_place(f->r, &f->hs, &err), 0);
}

static void fab_down(struct fab *f)
{
	route_free(f->r);
	hosts_fini(&f->hs);
	topo_free(f->t);
}

static void fab_2l(struct fab *f, unsigned int uplinks_per_spine)
{
	struct topo_gen_2l g = { .leaves = 3, .hosts_per_leaf = 2, .spines = 2,
				 .uplinks_per_spine = uplinks_per_spine };
	struct topo *t;

	assert_int_equal(topo_gen_leaf_spine(&t, &g), 0);
	fab_up(f, t, 6);
}

/* A member of the given names (borrowed strings). */
static struct ecmp_member member(char **names, size_t n)
{
	return (struct ecmp_member){ .nodes = names, .n_nodes = n };
}

/* Host h1 (leaf1) and h3 (leaf2): spine1 and spine2 are two paths each way, both found. */
static void test_two_level(void **state)
{
	char *s1[] = { "spine1" }, *s2[] = { "spine2" }, *s3[] = { "spine3" };
	struct ecmp_member m1 = member(s1, 1), m2 = member(s2, 1), m3 = member(s3, 1);
	struct sched_steer_opt o;
	struct pair_route pr, tr;
	struct fab_err err;
	struct fab f;
	int i1, i2;

	(void)state;
	fab_2l(&f, 1);
	fab_err_init(&err);
	assert_int_equal(route_pair(f.r, 0, 2, &pr, &err), 0);
	assert_int_equal(pr.n_ab, 2);
	i1 = ecmp_steer_path(f.t, pr.ab, pr.n_ab, &m1);
	i2 = ecmp_steer_path(f.t, pr.ab, pr.n_ab, &m2);
	assert_true(i1 >= 0 && i2 >= 0 && i1 != i2);
	assert_int_equal(ecmp_steer_path(f.t, pr.ab, pr.n_ab, &m3), -ENOENT);
	assert_int_equal(ecmp_steer_opt(f.t, &pr, 49152, &m2, &m1, &o), 0);
	assert_int_equal(o.sport, 49152);
	assert_int_equal(o.ab, i2);
	assert_int_equal(ecmp_steer_path(f.t, pr.ba, pr.n_ba, &m1), o.ba);
	assert_int_equal(ecmp_steer_opt(f.t, &pr, 1, &m3, &m1, &o), -ENOENT);
	assert_int_equal(ecmp_steer_opt(f.t, &pr, 49152, &m2, &m1, &o), 0);
	assert_int_equal(ecmp_steer_route(&pr, &o, &tr), 0);
	assert_int_equal(tr.n_ab, 1);
	assert_int_equal(tr.n_ba, 1);
	assert_true(tr.ab[0].share == 1.0 && tr.ba[0].share == 1.0);
	assert_int_equal(tr.a, 0);
	assert_int_equal(tr.b, 2);
	assert_int_equal(tr.ab[0].n_hops, 4);
	assert_memory_equal(tr.ab[0].hops, pr.ab[i2].hops, 4 * sizeof(*tr.ab[0].hops));
	assert_memory_equal(tr.ba[0].hops, pr.ba[o.ba].hops, 4 * sizeof(*tr.ba[0].hops));
	pair_route_fini(&tr);
	assert_int_equal(ecmp_steer_route(&pr, NULL, &tr), 0);	/* whole: every path */
	assert_int_equal(tr.n_ab, 2);
	assert_true(tr.ab[0].share == 0.5);
	pair_route_fini(&tr);
	o.ab = 7;
	assert_int_equal(ecmp_steer_route(&pr, &o, &tr), -EINVAL);
	pair_route_fini(&pr);
	fab_down(&f);
}

/* Two cables from each leaf to each spine: the member names the spine, not the cable. */
static void test_parallel_cables(void **state)
{
	char *s1[] = { "spine1" };
	struct ecmp_member m1 = member(s1, 1);
	struct pair_route pr;
	struct fab_err err;
	struct fab f;

	(void)state;
	fab_2l(&f, 2);
	fab_err_init(&err);
	assert_int_equal(route_pair(f.r, 0, 2, &pr, &err), 0);
	assert_int_equal(pr.n_ab, 8);
	assert_int_equal(ecmp_steer_path(f.t, pr.ab, pr.n_ab, &m1), -EEXIST);
	pair_route_fini(&pr);
	fab_down(&f);
}

/* 3 levels: every path's own nodes (agg > core > agg) find that path and no other, each way. */
static void test_three_level_round_trip(void **state)
{
	struct topo_gen_3l g = { .pods = 2, .leaves_per_pod = 2, .hosts_per_leaf = 1,
				 .aggs_per_pod = 2, .cores_per_agg = 2 };
	struct pair_route pr;
	struct fab_err err;
	struct topo *t;
	struct fab f;

	(void)state;
	assert_int_equal(topo_gen_fat_tree(&t, &g), 0);
	fab_up(&f, t, 4);
	fab_err_init(&err);
	assert_int_equal(route_pair(f.r, 0, 3, &pr, &err), 0);	/* pod 1 to pod 2 */
	assert_int_equal(pr.n_ab, 4);
	for (int dir = 0; dir < 2; dir++) {
		const struct path *ps = dir ? pr.ba : pr.ab;
		size_t n = dir ? pr.n_ba : pr.n_ab;

		for (size_t i = 0; i < n; i++) {
			char *names[3];
			struct ecmp_member mb = member(names, 3);

			assert_int_equal(ps[i].n_hops, 6);
			for (size_t k = 0; k < 3; k++) {
				const struct topo_link *l = f.t->links[ps[i].hops[1 + k].link];

				names[k] = (ps[i].hops[1 + k].fwd ? l->b : l->a)->node->name;
			}
			assert_int_equal(strncmp(names[0], "agg", 3), 0);
			assert_int_equal(strncmp(names[1], "spine", 5), 0);
			assert_int_equal(ecmp_steer_path(f.t, ps, n, &mb), (int)i);
			mb.n_nodes = 1;	/* a 2-level member on a 3-level path: none */
			assert_int_equal(ecmp_steer_path(f.t, ps, n, &mb), -ENOENT);
		}
	}
	pair_route_fini(&pr);
	fab_down(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_level),
		cmocka_unit_test(test_parallel_cables),
		cmocka_unit_test(test_three_level_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
