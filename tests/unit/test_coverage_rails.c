// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Coverage per rail (model/coverage_rails.h) on a 2-rail lab: 4 hosts x 2
 * NICs, eth0 on leaf1 (rail 0), eth1 on leaf2 (rail 1), a spine joining
 * them.  Only rail-aligned end-point pairs; every link a rail's pairs can
 * cross crossed by >= K of that rail's pairs (recounted here on the
 * route, not read from the picker); fewer pairs than all the rail pairs;
 * the pairs pack into link-safe rounds with no NIC in two tests of one,
 * both rails in the same rounds.  accept's pairs on rails
 * (accept_pairs_cover_rails): each new port in K pairs of its rail, new x
 * new rail pairs added, the uplinks no rail pair crosses counted once.
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

#include "model/accept.h"
#include "model/coverage_rails.h"
#include "model/plan_yaml.h"
#include "model/sched_topo.h"

static const char lab[] =
	"version: 1\n"
	"nodes:\n"
	"  - { name: leaf1, type: switch }\n"
	"  - { name: leaf2, type: switch }\n"
	"  - { name: spine, type: switch }\n"
	"links:\n"
	"  - [ h1:eth0, leaf1:swp1 ]\n"
	"  - [ h2:eth0, leaf1:swp2 ]\n"
	"  - [ h3:eth0, leaf1:swp3 ]\n"
	"  - [ h4:eth0, leaf1:swp4 ]\n"
	"  - [ h1:eth1, leaf2:swp1 ]\n"
	"  - [ h2:eth1, leaf2:swp2 ]\n"
	"  - [ h3:eth1, leaf2:swp3 ]\n"
	"  - [ h4:eth1, leaf2:swp4 ]\n"
	"  - [ h5:eth0, leaf1:swp5 ]\n"
	"  - [ h6:eth0, leaf2:swp6 ]\n"
	"  - [ leaf1:swp49, spine:swp1 ]\n"
	"  - [ leaf2:swp49, spine:swp2 ]\n";

static const char rails_hosts[] =
	"h1 10.0.0.1 ifname=eth0\n"
	"h1 10.0.1.1 ifname=eth1\n"
	"h2 10.0.0.2 ifname=eth0\n"
	"h2 10.0.1.2 ifname=eth1\n"
	"h3 10.0.0.3 ifname=eth0 new\n"
	"h3 10.0.1.3 ifname=eth1\n"
	"h4 10.0.1.4 ifname=eth1 rail=1\n"
	"h4 10.0.0.4 ifname=eth0 rail=0\n";

struct fab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
};

static void fab_up(struct fab *f, const char *hosts_text)
{
	struct fab_err err;

	fab_err_init(&err);
	f->t = topo_new();
	assert_non_null(f->t);
	if (plan_yaml_parse(f->t, NULL, lab, strlen(lab), "lab.yaml", &err) < 0)
		fail_msg("%s", err.msg);
	topo_sort(f->t);
	hosts_init(&f->hs);
	if (hosts_parse(&f->hs, hosts_text, strlen(hosts_text), "hosts", &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(route_new(&f->r, f->t), 0);
	if (route_place(f->r, &f->hs, &err) < 0)
		fail_msg("%s", err.msg);
}

static void fab_down(struct fab *f)
{
	route_free(f->r);
	hosts_fini(&f->hs);
	topo_free(f->t);
}

/* The rail of pair @a-@b: the known one of its ends (-1: neither knows). */
static int pair_rail(const struct fab_hosts *hs, unsigned int a, unsigned int b)
{
	return hs->hosts[a].rail >= 0 ? hs->hosts[a].rail : hs->hosts[b].rail;
}

/* Per link, the pairs of rail @rail crossing it: chosen (@got) and all rail pairs (@could). */
static void rail_count(struct fab *f, const struct coverage *c, int rail, uint32_t *got,
		       uint32_t *could)
{
	const struct route_load *items;
	struct route_info info;
	size_t ni;

	memset(got, 0, f->t->n_links * sizeof(*got));
	memset(could, 0, f->t->n_links * sizeof(*could));
	for (size_t i = 0; i < c->n_pairs; i++) {
		if (pair_rail(&f->hs, c->pairs[i].a, c->pairs[i].b) != rail)
			continue;
		assert_int_equal(route_pair_loads(f->r, c->pairs[i].a, c->pairs[i].b, &items, &ni,
						  &info), 0);
		for (size_t j = 0; j < ni; j++)
			got[items[j].link]++;
	}
	for (unsigned int a = 0; a < f->hs.n; a++)
		for (unsigned int b = a + 1; b < f->hs.n; b++) {
			if (!hosts_ports_pair(&f->hs.hosts[a], &f->hs.hosts[b], false) ||
			    pair_rail(&f->hs, a, b) != rail)
				continue;
			assert_int_equal(route_pair_loads(f->r, a, b, &items, &ni, &info), 0);
			for (size_t j = 0; j < ni; j++)
				could[items[j].link]++;
		}
}

/* Every pair rail-aligned and of two hosts, none twice, a < b; counters as recounted. */
static void pairs_check(struct fab *f, const struct coverage *c)
{
	uint32_t *hp = calloc(f->hs.n, sizeof(*hp));

	assert_non_null(hp);
	for (size_t i = 0; i < c->n_pairs; i++) {
		unsigned int a = c->pairs[i].a, b = c->pairs[i].b;

		assert_true(a < b && b < f->hs.n);
		assert_true(hosts_ports_pair(&f->hs.hosts[a], &f->hs.hosts[b], false));
		for (size_t j = 0; j < i; j++)
			assert_false(c->pairs[j].a == a && c->pairs[j].b == b);
		hp[a]++;
		hp[b]++;
	}
	for (size_t h = 0; h < f->hs.n; h++)
		assert_int_equal(c->host_pairs[h], hp[h]);
	free(hp);
}

/* Link-safe rounds; no end point in two tests of a round; the rounds. */
static size_t rounds_check(struct fab *f, const struct coverage *c, bool both_rails)
{
	struct sched_topo_bound b;
	struct fab_err err;
	struct sched s;
	size_t n;

	fab_err_init(&err);
	assert_int_equal(sched_topo_pairs(&s, &b, f->r, c->pairs, c->n_pairs, &err), 0);
	assert_int_equal(s.n_pairs, c->n_pairs);
	assert_int_equal(sched_topo_check(&s, f->r, c->pairs, c->n_pairs, &err), 0);
	for (size_t k = 0; k < s.n_rounds; k++) {
		unsigned int in[2] = { 0, 0 };
		uint32_t used[16] = { 0 };

		for (size_t i = s.round_start[k]; i < s.round_start[k + 1]; i++) {
			int rail = pair_rail(&f->hs, s.pairs[i].a, s.pairs[i].b);

			assert_int_equal(used[s.pairs[i].a]++, 0);
			assert_int_equal(used[s.pairs[i].b]++, 0);
			if (rail >= 0)
				in[rail]++;
		}
		if (both_rails)
			assert_true(in[0] && in[1]);
	}
	n = s.n_rounds;
	sched_fini(&s);
	return n;
}

static void k_case(unsigned int k, size_t max_rounds)
{
	struct coverage_req req = { .k = k };
	uint32_t got[32], could[32];
	struct coverage c;
	struct fab_err err;
	struct fab f;
	size_t all = 0;

	fab_up(&f, rails_hosts);
	assert_true(f.t->n_links <= 32);
	fab_err_init(&err);
	assert_int_equal(coverage_pick_rails(&c, f.r, &f.hs, &req, &err), 0);
	pairs_check(&f, &c);
	for (int rail = 0; rail < 2; rail++) {
		rail_count(&f, &c, rail, got, could);
		for (size_t l = 0; l < f.t->n_links; l++) {
			if (could[l] && got[l] < k)
				fail_msg("K %u, rail %d: link %zu crossed %u times", k, rail, l,
					 got[l]);
			assert_int_equal(c.link_cross[l] >= got[l], true);
		}
	}
	/* The spine is no rail's: no rail-aligned pair leaves its leaf. */
	for (size_t l = 0; l < f.t->n_links; l++)
		if (f.t->links[l]->a->node->type == TOPO_NODE_SWITCH &&
		    f.t->links[l]->b->node->type == TOPO_NODE_SWITCH)
			assert_int_equal(c.link_cross[l], 0);
	for (size_t h = 0; h < f.hs.n; h++)
		assert_true(c.host_pairs[h] >= k);
	assert_int_equal(c.links_target, 8);
	assert_int_equal(c.links_short, 0);
	assert_int_equal(c.hosts_short, 0);
	assert_int_equal(c.hosts_target, 8);
	for (unsigned int a = 0; a < f.hs.n; a++)
		for (unsigned int b = a + 1; b < f.hs.n; b++)
			all += hosts_ports_pair(&f.hs.hosts[a], &f.hs.hosts[b], false);
	assert_int_equal(all, 12);
	assert_true(c.n_pairs < all);
	assert_true(rounds_check(&f, &c, true) <= max_rounds);
	coverage_fini(&c);
	fab_down(&f);
}

/* K = 1: a matching a rail (4 pairs), one round with both rails; K = 2: 8 pairs, 2 rounds. */
static void test_k1(void **state)
{
	k_case(1, 1);
}

static void test_k2(void **state)
{
	k_case(2, 2);
}

/* --new: h3 (both its NICs new) in >= K pairs of each rail; every pair touches it. */
static void test_subset(void **state)
{
	struct coverage_req req = { .k = 2 };
	bool sub[8];
	struct coverage c;
	struct fab_err err;
	struct fab f;

	fab_up(&f, rails_hosts);
	for (size_t h = 0; h < f.hs.n; h++)
		sub[h] = f.hs.hosts[h].is_new;
	assert_true(sub[4] && sub[5]);
	req.subset = sub;
	fab_err_init(&err);
	assert_int_equal(coverage_pick_rails(&c, f.r, &f.hs, &req, &err), 0);
	pairs_check(&f, &c);
	for (size_t i = 0; i < c.n_pairs; i++)
		assert_true(sub[c.pairs[i].a] || sub[c.pairs[i].b]);
	assert_true(c.host_pairs[4] >= 2 && c.host_pairs[5] >= 2);
	assert_int_equal(c.hosts_short, 0);
	assert_int_equal(c.links_short, 0);
	rounds_check(&f, &c, false);
	coverage_fini(&c);
	fab_down(&f);
}

/*
 * Hosts of one port and no rail (h5 on leaf1, h6 on leaf2) are on every
 * rail: paired with both rails' NICs, h5-h6 (crossing the spine) kept once
 * when both rails choose it.
 */
static void test_no_rail_hosts(void **state)
{
	char text[1024];
	struct coverage_req req = { .k = 3 };
	struct coverage c;
	struct fab_err err;
	struct fab f;

	snprintf(text, sizeof(text), "%sh5 10.0.2.5\nh6 10.0.2.6\n", rails_hosts);
	fab_up(&f, text);
	assert_int_equal(f.hs.hosts[8].rail, -1);
	fab_err_init(&err);
	assert_int_equal(coverage_pick_rails(&c, f.r, &f.hs, &req, &err), 0);
	pairs_check(&f, &c);
	assert_int_equal(c.links_short, 0);
	assert_true(c.host_pairs[8] >= 3 && c.host_pairs[9] >= 3);
	rounds_check(&f, &c, false);
	coverage_fini(&c);
	fab_down(&f);
}

/* accept_pairs_cover_rails() with the new ports flagged in @hosts_text: the pairs into @c. */
static void accept_pick(struct fab *f, const char *hosts_text, unsigned int k, struct coverage *c,
			bool *sub)
{
	struct fab_err err;

	fab_up(f, hosts_text);
	for (size_t h = 0; h < f->hs.n; h++)
		sub[h] = f->hs.hosts[h].is_new;
	fab_err_init(&err);
	if (accept_pairs_cover_rails(f->r, &f->hs, sub, NULL, 0, k, c, &err) < 0)
		fail_msg("%s", err.msg);
	pairs_check(f, c);
	for (size_t i = 0; i < c->n_pairs; i++)
		assert_true(sub[c->pairs[i].a] || sub[c->pairs[i].b]);
}

/*
 * accept, h4 new (4 hosts x 2 rails, each rail on one leaf): each of h4's
 * ports in K = 2 pairs of its rail, 4 pairs instead of its 6 rail pairs;
 * the targets its two access links; the leaves' uplinks, wanted (a new
 * host's leaf) but crossed by no rail pair, counted once each (2).
 */
static void test_accept_one_new(void **state)
{
	static const char hosts[] =
		"h1 10.0.0.1 ifname=eth0\nh1 10.0.1.1 ifname=eth1\n"
		"h2 10.0.0.2 ifname=eth0\nh2 10.0.1.2 ifname=eth1\n"
		"h3 10.0.0.3 ifname=eth0\nh3 10.0.1.3 ifname=eth1\n"
		"h4 10.0.0.4 ifname=eth0 new\nh4 10.0.1.4 ifname=eth1\n";
	struct coverage c;
	bool sub[8];
	struct fab f;

	accept_pick(&f, hosts, 2, &c, sub);
	assert_true(sub[6] && sub[7]);
	assert_int_equal(c.n_pairs, 4);
	assert_int_equal(c.host_pairs[6], 2);
	assert_int_equal(c.host_pairs[7], 2);
	assert_int_equal(c.links_target, 2);
	assert_int_equal(c.links_short, 0);
	assert_int_equal(c.links_unreachable, 2);
	assert_int_equal(c.hosts_short, 0);
	rounds_check(&f, &c, false);
	coverage_fini(&c);
	fab_down(&f);
}

/* h3 and h4 new: their rail pairs with each other (h3:ethI-h4:ethI) are all measured. */
static void test_accept_new_rack(void **state)
{
	static const char hosts[] =
		"h1 10.0.0.1 ifname=eth0\nh1 10.0.1.1 ifname=eth1\n"
		"h2 10.0.0.2 ifname=eth0\nh2 10.0.1.2 ifname=eth1\n"
		"h3 10.0.0.3 ifname=eth0 new\nh3 10.0.1.3 ifname=eth1\n"
		"h4 10.0.0.4 ifname=eth0 new\nh4 10.0.1.4 ifname=eth1\n";
	size_t nn = 0;
	struct coverage c;
	bool sub[8];
	struct fab f;

	accept_pick(&f, hosts, 2, &c, sub);
	for (size_t i = 0; i < c.n_pairs; i++)
		nn += sub[c.pairs[i].a] && sub[c.pairs[i].b];
	assert_int_equal(nn, 2);
	for (size_t h = 4; h < 8; h++)
		assert_true(c.host_pairs[h] >= 2);
	rounds_check(&f, &c, false);
	coverage_fini(&c);
	fab_down(&f);
}

/* K 0 and a file with no rail of two hosts are refused as input. */
static void test_refused(void **state)
{
	struct coverage_req req = { .k = 0 };
	struct coverage c = { 0 };
	struct fab_err err;
	struct fab f;

	fab_up(&f, "h1 10.0.0.1 ifname=eth0\nh1 10.0.1.1 ifname=eth1\n");
	fab_err_init(&err);
	assert_int_equal(coverage_pick_rails(&c, f.r, &f.hs, &req, &err), -EINVAL);
	req.k = 1;
	fab_err_init(&err);
	assert_int_equal(coverage_pick_rails(&c, f.r, &f.hs, &req, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no rail has end points of two hosts"));
	assert_null(c.pairs);
	fab_down(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_k1),
		cmocka_unit_test(test_k2),
		cmocka_unit_test(test_subset),
		cmocka_unit_test(test_no_rail_hosts),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_accept_one_new),
		cmocka_unit_test(test_accept_new_rack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
