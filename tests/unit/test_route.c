// SPDX-License-Identifier: GPL-2.0-or-later
/* Routing: host placement, ECMP paths and shares, rates and expected rates. */
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

#include "model/route.h"
#include "model/topo_gen.h"

/* Hosts file "h1 10.0.0.1" .. "hN" with @extra appended to host @which's line (1-based). */
static void hosts_n(struct fab_hosts *hs, unsigned int n, unsigned int which, const char *extra)
{
	char buf[8192];
	size_t len = 0;
	struct fab_err err;

	for (unsigned int i = 1; i <= n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "h%u 10.0.%u.%u %s\n", i, i / 200,
					i % 200 + 1, i == which ? extra : "");
	hosts_init(hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(hs, buf, len, "hosts", &err), 0);
}

static struct route *route_for(const struct topo *t, const struct fab_hosts *hs)
{
	struct route *r = NULL;
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(route_new(&r, t), 0);
	assert_int_equal(route_place(r, hs, &err), 0);
	route_rates(r, hs, NULL, NULL);
	return r;
}

/* A generated leaf-spine with hosts h1..hN placed and rated. */
static struct route *route_2l(const struct topo_gen_2l *g, unsigned int which, const char *extra,
			      struct topo **t, struct fab_hosts *hs)
{
	assert_int_equal(topo_gen_leaf_spine(t, g), 0);
	hosts_n(hs, g->leaves * g->hosts_per_leaf, which, extra);
	return route_for(*t, hs);
}

static double share_sum(const struct path *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i].share;
	return s;
}

/* Consecutive hops of @p share a node; first leaves host a, last reaches host b. */
static void assert_path_chain(const struct route *r, const struct path *p, unsigned int a,
			      unsigned int b)
{
	const struct topo *t = r->topo;
	const struct topo_node *at = t->nodes[r->hosts[a].node];

	for (size_t h = 0; h < p->n_hops; h++) {
		const struct topo_link *l = t->links[p->hops[h].link];
		const struct topo_port *from = p->hops[h].fwd ? l->a : l->b;
		const struct topo_port *to = p->hops[h].fwd ? l->b : l->a;

		assert_ptr_equal(from->node, at);
		at = to->node;
	}
	assert_ptr_equal(at, t->nodes[r->hosts[b].node]);
}

static void test_ecmp_two_spines(void **state)
{
	struct topo_gen_2l g = { .leaves = 2, .hosts_per_leaf = 2, .spines = 2,
				 .host_mbps = 10000, .uplink_mbps = 40000 };
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	struct pair_route pr;
	struct fab_err err;

	r = route_2l(&g, 0, "", &t, &hs);
	assert_int_equal(r->n_leaves, 2);
	/* h1-h3: two leaves, two spines -> two paths of 4 links, 1/2 each. */
	assert_int_equal(route_pair(r, 0, 2, &pr, &err), 0);
	assert_int_equal(pr.n_ab, 2);
	assert_int_equal(pr.n_ba, 2);
	assert_int_equal(pr.klass, 4);
	assert_true(fabs(pr.ab[0].share - 0.5) < 1e-12);
	assert_true(fabs(share_sum(pr.ba, pr.n_ba) - 1) < 1e-12);
	for (size_t i = 0; i < pr.n_ab; i++) {
		assert_int_equal(pr.ab[i].n_hops, 4);
		assert_path_chain(r, &pr.ab[i], 0, 2);
		assert_path_chain(r, &pr.ba[i], 2, 0);
	}
	assert_int_not_equal(pr.ab[0].hops[1].link, pr.ab[1].hops[1].link);
	assert_true(pr.expected_mbps == 10000);
	pair_route_fini(&pr);
	/* h1-h2: same leaf, one path of the two access links. */
	assert_int_equal(route_pair(r, 0, 1, &pr, &err), 0);
	assert_int_equal(pr.n_ab, 1);
	assert_int_equal(pr.klass, 2);
	assert_int_equal(pr.ab[0].n_hops, 2);
	assert_path_chain(r, &pr.ab[0], 0, 1);
	pair_route_fini(&pr);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

static void test_ecmp_three_levels(void **state)
{
	struct topo_gen_3l g = { .pods = 2, .leaves_per_pod = 2, .hosts_per_leaf = 2,
				 .aggs_per_pod = 2, .cores_per_agg = 3 };
	const struct route_load *items;
	struct route_info info;
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	struct pair_route pr;
	struct fab_err err;
	double up = 0, expected;
	unsigned int klass;
	size_t n;

	assert_int_equal(topo_gen_fat_tree(&t, &g), 0);
	hosts_n(&hs, 8, 0, "");
	r = route_for(t, &hs);
	assert_int_equal(r->n_leaves, 4);
	/* h1 (pod 1) - h5 (pod 2): 2 aggs x 3 cores = 6 paths of 6 links. */
	assert_int_equal(route_pair(r, 0, 4, &pr, &err), 0);
	assert_int_equal(pr.n_ab, 6);
	assert_int_equal(pr.klass, 6);
	assert_true(fabs(share_sum(pr.ab, pr.n_ab) - 1) < 1e-12);
	for (size_t i = 0; i < pr.n_ab; i++) {
		assert_int_equal(pr.ab[i].n_hops, 6);
		assert_path_chain(r, &pr.ab[i], 0, 4);
		assert_path_chain(r, &pr.ba[i], 4, 0);
	}
	assert_true(pr.expected_mbps == 0);	/* no rates in this graph */
	pair_route_fini(&pr);
	/* h1 - h3: same pod, other leaf: 2 paths of 4 links. */
	assert_int_equal(route_pair(r, 0, 2, &pr, &err), 0);
	assert_int_equal(pr.n_ab, 2);
	assert_int_equal(pr.klass, 4);
	pair_route_fini(&pr);
	/* Loads agree with the paths: each leaf uplink 1/2, each core link 1/6. */
	assert_int_equal(route_pair_loads(r, 0, 4, &items, &n, &info), 0);
	assert_int_equal(n, 2 + 2 + 6 + 6 + 2);
	assert_true(info.n_paths == 6);
	for (size_t i = 0; i < n; i++) {
		const struct topo_link *l = t->links[items[i].link];

		if (strncmp(l->a->node->name, "leaf", 4) == 0 || strncmp(l->b->node->name, "leaf", 4) == 0)
			if (l->a->node->type == TOPO_NODE_SWITCH && l->b->node->type == TOPO_NODE_SWITCH)
				up += items[i].share;
		if (strncmp(l->a->node->name, "spine", 5) == 0 || strncmp(l->b->node->name, "spine", 5) == 0)
			assert_true(fabs(items[i].share - 1.0 / 6) < 1e-12);
	}
	assert_true(fabs(up - 2) < 1e-12);	/* 1 leaving leaf 1, 1 entering leaf 3 */
	/* The cap: over it, -E2BIG with the class and no paths; counting still works. */
	r->max_paths = 4;
	assert_int_equal(route_pair(r, 0, 4, &pr, &err), -E2BIG);
	assert_int_equal(pr.n_ab, 0);
	assert_int_equal(pr.klass, 6);
	assert_int_equal(route_pair_info(r, 0, 4, &info, &expected, &klass), 0);
	assert_true(info.n_paths == 6);
	assert_int_equal(klass, 6);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

static void test_expected_min_along_path(void **state)
{
	struct topo_gen_2l g = { .leaves = 2, .hosts_per_leaf = 2, .spines = 1,
				 .host_mbps = 25000, .uplink_mbps = 10000 };
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	struct pair_route pr;
	struct fab_err err;

	r = route_2l(&g, 0, "", &t, &hs);
	assert_int_equal(route_pair(r, 0, 3, &pr, &err), 0);
	assert_true(pr.expected_mbps == 10000);	/* the uplink */
	pair_route_fini(&pr);
	assert_int_equal(route_pair(r, 0, 1, &pr, &err), 0);
	assert_true(pr.expected_mbps == 25000);	/* same leaf: host ports only */
	pair_route_fini(&pr);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

/* veth-like: every port of a host, and every leaf port facing a host. */
static bool access_virtual(const struct topo_port *p, void *arg)
{
	(void)arg;
	return p->node->type == TOPO_NODE_HOST || (p->peer && p->peer->node->type == TOPO_NODE_HOST);
}

static void test_virtual_speed_and_rate_gbps(void **state)
{
	struct topo_gen_2l g = { .leaves = 1, .hosts_per_leaf = 3, .host_mbps = 10000 };
	double expected;
	unsigned int klass;
	struct route_info info;
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;

	r = route_2l(&g, 1, "rate_gbps=2.5", &t, &hs);
	/* rate_gbps wins over the 10 Gb/s both ends claim. */
	assert_int_equal(r->link_mbps[r->hosts[0].link], 2500);
	assert_int_equal(r->link_mbps[r->hosts[1].link], 10000);
	assert_int_equal(route_pair_info(r, 0, 1, &info, &expected, &klass), 0);
	assert_true(expected == 2500);
	/* Virtual ports: their claimed speed is no rate; rate_gbps still wins. */
	route_rates(r, &hs, access_virtual, NULL);
	assert_int_equal(r->link_mbps[r->hosts[1].link], 0);
	assert_int_equal(r->link_mbps[r->hosts[0].link], 2500);
	assert_int_equal(route_pair_info(r, 1, 2, &info, &expected, &klass), 0);
	assert_true(expected == 0);
	assert_int_equal(route_pair_info(r, 0, 2, &info, &expected, &klass), 0);
	assert_true(expected == 2500);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

/* The node's own ethtool speed (eth_mbps, LLDP views) rates a port; lane rates win. */
static void test_eth_speed(void **state)
{
	struct topo_gen_2l g = { .leaves = 1, .hosts_per_leaf = 2 };
	double expected;
	unsigned int klass;
	struct route_info info;
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;

	(void)state;
	r = route_2l(&g, 0, "", &t, &hs);
	assert_int_equal(route_pair_info(r, 0, 1, &info, &expected, &klass), 0);
	assert_true(expected == 0);
	/* h1's NIC reports 25 Gb/s, h2's 100 Gb/s; the switch side is unknown. */
	t->links[r->hosts[0].link]->a->eth_mbps = 25000;
	t->links[r->hosts[0].link]->b->eth_mbps = 25000;
	t->links[r->hosts[1].link]->a->eth_mbps = 100000;
	route_rates(r, &hs, NULL, NULL);
	assert_int_equal(r->link_mbps[r->hosts[0].link], 25000);
	assert_int_equal(r->link_mbps[r->hosts[1].link], 100000);
	assert_int_equal(route_pair_info(r, 0, 1, &info, &expected, &klass), 0);
	assert_true(expected == 25000);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

/* leaf1 with: "alpha.example.com" (LLDP FQDN), "nodeX" (lldp_name=), two IB CAs of "ib1". */
static struct topo *mixed_topo(void)
{
	struct topo *t = topo_new();
	struct topo_node *sw = topo_node_add(t, TOPO_NODE_SWITCH, "leaf1", 0);
	const char *names[] = { "alpha.example.com", "nodeX", "ib1 mlx5_0", "ib1 mlx5_1", "plan7" };
	enum topo_node_type types[] = { TOPO_NODE_HOST, TOPO_NODE_HOST, TOPO_NODE_CA, TOPO_NODE_CA,
					TOPO_NODE_HOST };

	for (unsigned int i = 0; i < 5; i++) {
		struct topo_node *n = topo_node_add(t, types[i], names[i], 0);
		struct topo_port *hp = types[i] == TOPO_NODE_CA ? topo_port_get(n, 1, NULL) :
								   topo_port_get(n, 0, "eth0");
		char pn[16];

		snprintf(pn, sizeof(pn), "swp%u", i + 1);
		assert_int_equal(topo_link_add(t, hp, topo_port_get(sw, 0, pn), TOPO_SRC_LLDP), 0);
	}
	topo_sort(t);
	return t;
}

static void test_placement(void **state)
{
	static const char text[] =
		"alpha 10.0.0.1\n"
		"beta 10.0.0.2 lldp_name=nodeX\n"
		"ib1 10.0.0.3 rdma=mlx5_1\n"
		"plan7 10.0.0.4\n";
	struct topo *t = mixed_topo();
	struct fab_hosts hs;
	struct fab_err err;
	struct route *r;

	hosts_init(&hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&hs, text, strlen(text), "hosts", &err), 0);
	assert_int_equal(route_new(&r, t), 0);
	assert_int_equal(route_place(r, &hs, &err), 0);
	assert_string_equal(t->nodes[r->hosts[0].node]->name, "alpha.example.com");
	assert_string_equal(t->nodes[r->hosts[1].node]->name, "nodeX");
	assert_string_equal(t->nodes[r->hosts[2].node]->name, "ib1 mlx5_1");
	assert_int_equal(r->hosts[2].port->num, 1);
	assert_string_equal(t->nodes[r->hosts[3].node]->name, "plan7");
	assert_string_equal(r->hosts[3].port->peer->name, "swp5");
	assert_string_equal(t->nodes[r->hosts[0].attach]->name, "leaf1");
	assert_int_equal(r->n_leaves, 1);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

static void place_fails(const char *text, int code, const char *needle)
{
	struct topo *t = mixed_topo();
	struct fab_hosts hs;
	struct fab_err err;
	struct route *r;

	hosts_init(&hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&hs, text, strlen(text), "hosts", &err), 0);
	assert_int_equal(route_new(&r, t), 0);
	assert_int_equal(route_place(r, &hs, &err), code);
	assert_int_equal(err.kind, FAB_ERR_INPUT);
	assert_non_null(strstr(err.msg, needle));
	assert_int_equal(r->n_hosts, 0);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

static void test_unplaced_host(void **state)
{
	place_fails("alpha 10.0.0.1\nghost9 10.0.0.9\n", -ENOENT, "host ghost9 (line 2)");
	/* Two adapters of ib1, none named: ambiguous, not the first one. */
	place_fails("ib1 10.0.0.3\n", -EINVAL, "rdma=DEV");
	/* An adapter that is not there. */
	place_fails("ib1 10.0.0.3 rdma=mlx5_7\n", -ENOENT, "host ib1");
	/* Two hosts on one node. */
	place_fails("alpha 10.0.0.1\nzeta 10.0.0.2 lldp_name=alpha.example.com\n", -EINVAL, "same port");
}

/*
 * route_pair_info() (a leaf pair's figures kept, route.h) against
 * route_pair_loads() (walked every time): hops, paths and lowest rate,
 * asked twice (the second from what was kept).
 */
static void assert_info_kept(struct route *r, unsigned int a, unsigned int b)
{
	const struct route_load *items;
	struct route_info want, got;
	double mbps;
	unsigned int klass;
	size_t n;

	assert_int_equal(route_pair_loads(r, a, b, &items, &n, &want), 0);
	for (int twice = 0; twice < 2; twice++) {
		assert_int_equal(route_pair_info(r, a, b, &got, &mbps, &klass), 0);
		assert_int_equal(got.hops, want.hops);
		assert_true(got.n_paths == want.n_paths);
		assert_true(got.min_mbps == want.min_mbps && mbps == want.min_mbps);
		assert_int_equal(klass, want.hops);
	}
}

static bool all_virtual(const struct topo_port *p, void *arg)
{
	(void)p;
	(void)arg;
	return true;
}

/* The figures kept per leaf pair are forgotten when the rates change (route_rates()). */
static void test_pair_info_rates_change(void **state)
{
	struct topo_gen_3l g = { .pods = 2, .leaves_per_pod = 2, .hosts_per_leaf = 2,
				 .aggs_per_pod = 2, .cores_per_agg = 2, .host_mbps = 100000,
				 .leaf_mbps = 40000, .core_mbps = 25000 };
	struct route_info info;
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	double mbps;
	unsigned int klass;

	(void)state;
	assert_int_equal(topo_gen_fat_tree(&t, &g), 0);
	hosts_n(&hs, 8, 0, "");
	r = route_for(t, &hs);
	assert_int_equal(route_pair_info(r, 0, 4, &info, &mbps, &klass), 0);
	assert_true(mbps == 25000);	/* the agg-core links */
	assert_int_equal(klass, 6);
	assert_int_equal(route_pair_info(r, 0, 2, &info, &mbps, &klass), 0);
	assert_true(mbps == 40000);
	route_rates(r, &hs, all_virtual, NULL);	/* no rate known any more */
	assert_int_equal(route_pair_info(r, 0, 4, &info, &mbps, &klass), 0);
	assert_true(mbps == 0);
	assert_info_kept(r, 0, 4);
	route_rates(r, &hs, NULL, NULL);
	assert_int_equal(route_pair_info(r, 0, 4, &info, &mbps, &klass), 0);
	assert_true(mbps == 25000);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

/* The node hop @h arrives at. */
static const char *hop_node(const struct route *r, const struct path_hop *h)
{
	const struct topo_link *l = r->topo->links[h->link];

	return (h->fwd ? l->b : l->a)->node->name;
}

/* Do the nodes path @p reaches between its first and last switch read @names[0..n)? */
static bool path_reads(const struct route *r, const struct path *p, const char *const *names,
		       size_t n)
{
	if (p->n_hops - 2 != n + 1)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(hop_node(r, &p->hops[1 + i]), names[i]))
			return false;
	return true;
}

/*
 * route_pair_nth() and route_pair_find() against route_pair(r, a, b): every
 * path of both directions, hop for hop and share; past the last path
 * -ENOENT; each path found by its nodes (its own index, or -EEXIST where
 * another path reads the same nodes: parallel cables, counted by brute
 * force here), a list of the wrong length -ENOENT; route_pair_pick() the
 * two paths, share 1.
 */
static void assert_by_index(struct route *r, unsigned int a, unsigned int b)
{
	struct pair_route pr, pk;
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(route_pair(r, a, b, &pr, &err), 0);
	assert_info_kept(r, a, b);
	for (int dir = 0; dir < 2; dir++) {
		const struct path *v = dir ? pr.ba : pr.ab;
		size_t n = dir ? pr.n_ba : pr.n_ab;
		struct path q;

		for (size_t i = 0; i < n; i++) {
			const char *names[64];
			size_t nn = v[i].n_hops >= 3 ? v[i].n_hops - 3 : 0, same = 0, at = 0;
			int rc;

			assert_int_equal(route_pair_nth(r, a, b, dir, i, &q), 0);
			assert_int_equal(q.n_hops, v[i].n_hops);
			assert_true(fabs(q.share - v[i].share) < 1e-12);
			for (size_t h = 0; h < q.n_hops; h++) {
				assert_int_equal(q.hops[h].link, v[i].hops[h].link);
				assert_int_equal(q.hops[h].fwd, v[i].hops[h].fwd);
			}
			assert_true(nn < 64);
			for (size_t h = 0; h < nn; h++)
				names[h] = hop_node(r, &v[i].hops[1 + h]);
			for (size_t x = 0; x < n; x++)
				same += path_reads(r, &v[x], names, nn);
			rc = route_pair_find(r, a, b, dir, names, nn, &at);
			if (v[i].n_hops < 2) {
				assert_int_equal(rc, -EINVAL);
			} else if (v[i].n_hops == 2) {
				assert_int_equal(rc, -ENOENT);	/* one leaf: no member */
			} else if (same > 1) {
				assert_int_equal(rc, -EEXIST);
			} else {
				assert_int_equal(rc, 0);
				assert_int_equal(at, i);
				assert_int_equal(route_pair_find(r, a, b, dir, names, nn + 1, &at), -ENOENT);
			}
			if (v[i].n_hops >= 4) {	/* a first node no path reaches */
				names[0] = "no-such-node";
				assert_int_equal(route_pair_find(r, a, b, dir, names, nn, &at), -ENOENT);
			}
		}
		assert_int_equal(route_pair_nth(r, a, b, dir, n, &q), -ENOENT);
	}
	assert_int_equal(route_pair_pick(r, a, b, pr.n_ab - 1, 0, &pk), 0);
	assert_int_equal(pk.n_ab, 1);
	assert_int_equal(pk.n_ba, 1);
	assert_true(pk.ab[0].share == 1 && pk.ba[0].share == 1);
	assert_int_equal(pk.ab[0].n_hops, pr.ab[pr.n_ab - 1].n_hops);
	assert_memory_equal(pk.ab[0].hops, pr.ab[pr.n_ab - 1].hops,
			    pk.ab[0].n_hops * sizeof(*pk.ab[0].hops));
	assert_memory_equal(pk.ba[0].hops, pr.ba[0].hops, pk.ba[0].n_hops * sizeof(*pk.ba[0].hops));
	assert_true(pk.expected_mbps == pr.expected_mbps);
	assert_int_equal(pk.klass, pr.klass);
	pair_route_fini(&pk);
	assert_int_equal(route_pair_pick(r, a, b, pr.n_ab, 0, &pk), -ENOENT);
	pair_route_fini(&pr);
}

/* Two hosts cabled back to back: one link, class 1; the lower rate_gbps wins. */
static void test_back_to_back(void **state)
{
	static const char text[] = "a 10.0.0.1 rate_gbps=10\nb 10.0.0.2 rate_gbps=25\n";
	struct topo *t = topo_new();
	struct topo_node *na = topo_node_add(t, TOPO_NODE_HOST, "a", 0);
	struct topo_node *nb = topo_node_add(t, TOPO_NODE_HOST, "b", 0);
	struct fab_hosts hs;
	struct fab_err err;
	struct route *r;
	struct pair_route pr;

	assert_int_equal(topo_link_add(t, topo_port_get(na, 0, "eth0"), topo_port_get(nb, 0, "eth0"),
				       TOPO_SRC_LLDP), 0);
	topo_sort(t);
	hosts_init(&hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&hs, text, strlen(text), "hosts", &err), 0);
	r = route_for(t, &hs);
	assert_int_equal(route_pair(r, 0, 1, &pr, &err), 0);
	assert_int_equal(pr.klass, 1);
	assert_int_equal(pr.n_ab, 1);
	assert_int_equal(pr.ab[0].n_hops, 1);
	assert_path_chain(r, &pr.ab[0], 0, 1);
	assert_path_chain(r, &pr.ba[0], 1, 0);
	assert_true(pr.expected_mbps == 10000);
	pair_route_fini(&pr);
	assert_by_index(r, 0, 1);
	assert_by_index(r, 1, 0);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

static struct topo_port *rnd_port(struct topo_node *n, unsigned int mbps)
{
	char name[16];
	struct topo_port *p;

	snprintf(name, sizeof(name), "p%zu", n->n_ports + 1);
	p = topo_port_get(n, 0, name);
	assert_non_null(p);
	if (mbps) {
		p->facts |= TOPO_F_SPEED;
		p->width_x = 1;
		p->lane_mbps = mbps;
	}
	return p;
}

static unsigned int rnd_u(uint64_t *s, unsigned int n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned int)((*s >> 33) % n);
}

/* route_pair_nth/find/pick against route_pair() for every host pair of generated fat trees. */
static void test_by_index_fat_trees(void **state)
{
	const struct topo_gen_3l gs[] = {
		{ .pods = 2, .leaves_per_pod = 2, .hosts_per_leaf = 2, .aggs_per_pod = 2, .cores_per_agg = 3 },
		{ .pods = 3, .leaves_per_pod = 3, .hosts_per_leaf = 2, .aggs_per_pod = 3, .cores_per_agg = 2 },
		{ .pods = 2, .leaves_per_pod = 2, .hosts_per_leaf = 3, .aggs_per_pod = 1, .cores_per_agg = 1 },
	};

	(void)state;
	for (size_t g = 0; g < sizeof(gs) / sizeof(gs[0]); g++) {
		unsigned int nh = gs[g].pods * gs[g].leaves_per_pod * gs[g].hosts_per_leaf;
		struct topo *t;
		struct fab_hosts hs;
		struct route *r;

		assert_int_equal(topo_gen_fat_tree(&t, &gs[g]), 0);
		hosts_n(&hs, nh, 0, "");
		r = route_for(t, &hs);
		for (unsigned int a = 0; a < nh; a++)
			for (unsigned int b = 0; b < nh; b++)
				if (a != b)
					assert_by_index(r, a, b);
		assert_int_equal(route_pair_nth(r, 0, 0, 0, 0, &(struct path){ 0 }), -EINVAL);
		route_free(r);
		hosts_fini(&hs);
		topo_free(t);
	}
}

/*
 * route_leaf_loads() against the enumerated paths, on random switch graphs
 * (a chain plus random cables, parallel ones too, so shortest paths of odd
 * and even length, rates known on some links): per link the share is the
 * sum of the shares of the paths crossing it, the link set is the paths'
 * (without the access links), hops, path count and lowest rate agree; with
 * ecmp_whole every share is 1.  Each pair, both ways: assert_by_index().
 */
static void test_leaf_loads_match_paths(void **state)
{
	uint64_t seed = 42;

	for (int it = 0; it < 40; it++) {
		unsigned int ns = 2 + rnd_u(&seed, 7), extra = rnd_u(&seed, 2 * ns + 1);
		struct topo *t = topo_new();
		struct topo_node *sw[9];
		struct fab_hosts hs;
		struct route *r;
		double *want;
		uint8_t *on;

		assert_non_null(t);
		for (unsigned int i = 0; i < ns; i++) {
			char name[16];

			snprintf(name, sizeof(name), "s%u", i + 1);
			sw[i] = topo_node_add(t, TOPO_NODE_SWITCH, name, 0);
			assert_non_null(sw[i]);
		}
		for (unsigned int i = 0; i + 1 < ns + extra; i++) {
			unsigned int x = i + 1 < ns ? i : rnd_u(&seed, ns), y = i + 1 < ns ? i + 1 : rnd_u(&seed, ns);
			unsigned int mbps = rnd_u(&seed, 3) ? 0 : 1000 * (1 + rnd_u(&seed, 4));

			if (x == y)
				continue;
			assert_int_equal(topo_link_add(t, rnd_port(sw[x], mbps), rnd_port(sw[y], mbps),
						       TOPO_SRC_PLAN), 0);
		}
		for (unsigned int i = 0; i < ns; i++) {
			char name[16];
			struct topo_node *h;

			snprintf(name, sizeof(name), "h%u", i + 1);
			h = topo_node_add(t, TOPO_NODE_HOST, name, 0);
			assert_non_null(h);
			assert_int_equal(topo_link_add(t, rnd_port(h, 0), rnd_port(sw[i], 0), TOPO_SRC_PLAN), 0);
		}
		topo_sort(t);
		hosts_n(&hs, ns, 0, "");
		r = route_for(t, &hs);
		r->max_paths = 1u << 16;
		want = calloc(t->n_links + 1, sizeof(*want));
		on = calloc(t->n_links + 1, 1);
		assert_true(want && on);
		for (unsigned int a = 0; a < ns; a++)
			for (unsigned int b = a + 1; b < ns; b++) {
				const struct route_load *items;
				struct route_info info;
				struct pair_route pr;
				struct fab_err err;
				double lo = 0;
				size_t n;

				assert_int_equal(route_pair(r, a, b, &pr, &err), 0);
				memset(want, 0, t->n_links * sizeof(*want));
				for (size_t p = 0; p < pr.n_ab; p++)
					for (size_t h = 1; h + 1 < pr.ab[p].n_hops; h++) {
						uint32_t l = pr.ab[p].hops[h].link;

						want[l] += pr.ab[p].share;
						if (r->link_mbps[l] && (!lo || r->link_mbps[l] < lo))
							lo = r->link_mbps[l];
					}
				for (int whole = 0; whole < 2; whole++) {
					size_t links = 0;

					r->ecmp_whole = whole;
					assert_int_equal(route_leaf_loads(r, r->hosts[a].leaf, r->hosts[b].leaf, &items,
									  &n, &info), 0);
					assert_int_equal(info.hops + 2, pr.klass);
					assert_true(info.n_paths == (double)pr.n_ab);
					assert_true(info.min_mbps == lo);
					memset(on, 0, t->n_links);
					for (size_t i = 0; i < n; i++) {
						assert_int_equal(on[items[i].link], 0);	/* each link once */
						on[items[i].link] = 1;
						assert_true(want[items[i].link] > 0);
						assert_true(fabs(items[i].share - (whole ? 1 : want[items[i].link])) < 1e-12);
					}
					for (size_t l = 0; l < t->n_links; l++)
						links += want[l] > 0;
					assert_int_equal(n, links);
				}
				r->ecmp_whole = false;
				pair_route_fini(&pr);
				assert_by_index(r, a, b);
				assert_by_index(r, b, a);
			}
		free(want);
		free(on);
		route_free(r);
		hosts_fini(&hs);
		topo_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eth_speed),
		cmocka_unit_test(test_ecmp_two_spines),
		cmocka_unit_test(test_ecmp_three_levels),
		cmocka_unit_test(test_expected_min_along_path),
		cmocka_unit_test(test_virtual_speed_and_rate_gbps),
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_unplaced_host),
		cmocka_unit_test(test_back_to_back),
		cmocka_unit_test(test_leaf_loads_match_paths),
		cmocka_unit_test(test_by_index_fat_trees),
		cmocka_unit_test(test_pair_info_rates_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
