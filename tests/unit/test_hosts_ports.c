// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hosts of several fabric ports: which end points a sweep pairs
 * (hosts_port_pairs), and the rounds made of them: no end point in two
 * tests of a round, no link over its capacity (sched_topo_check on a rail
 * plan), every rail of a round of nodes at once, --per-host N
 * (sched_group_limit) keeping at most N tests a node; the same-rail pairs
 * counted without building them (hosts_rail_pairs_count).
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

#include "model/hosts.h"
#include "model/plan_yaml.h"
#include "model/route.h"
#include "model/sched_topo.h"
#include "model/schedule.h"
#include "model/topo.h"

static void hosts_text(struct fab_hosts *hs, const char *text)
{
	struct fab_err err;

	hosts_init(hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(hs, text, strlen(text), "hosts", &err), 0);
}

/* 4 hosts x 2 NICs, NIC i on the leaf of rail i, the two leaves under one spine; 1 Gb/s. */
static const char rail_plan[] =
	"version: 1\n"
	"nodes:\n"
	"  - { name: r0, type: switch, rail: 0 }\n"
	"  - { name: r1, type: switch, rail: 1 }\n"
	"  - { name: sp, type: switch }\n"
	"links:\n"
	"  - { a: \"h1:eth0\", b: \"r0:swp1\", speed_mbps: 1000 }\n"
	"  - { a: \"h2:eth0\", b: \"r0:swp2\", speed_mbps: 1000 }\n"
	"  - { a: \"h3:eth0\", b: \"r0:swp3\", speed_mbps: 1000 }\n"
	"  - { a: \"h4:eth0\", b: \"r0:swp4\", speed_mbps: 1000 }\n"
	"  - { a: \"h1:eth1\", b: \"r1:swp1\", speed_mbps: 1000 }\n"
	"  - { a: \"h2:eth1\", b: \"r1:swp2\", speed_mbps: 1000 }\n"
	"  - { a: \"h3:eth1\", b: \"r1:swp3\", speed_mbps: 1000 }\n"
	"  - { a: \"h4:eth1\", b: \"r1:swp4\", speed_mbps: 1000 }\n"
	"  - { a: \"r0:swp49\", b: \"sp:swp1\", speed_mbps: 1000 }\n"
	"  - { a: \"r1:swp49\", b: \"sp:swp2\", speed_mbps: 1000 }\n";

static const char rail_hosts[] =
	"h1 10.0.0.1 ifname=eth0\nh1 10.0.1.1 ifname=eth1\n"
	"h2 10.0.0.2 ifname=eth0\nh2 10.0.1.2 ifname=eth1\n"
	"h3 10.0.0.3 ifname=eth0\nh3 10.0.1.3 ifname=eth1\n"
	"h4 10.0.0.4 ifname=eth0\nh4 10.0.1.4 ifname=eth1\n";

/* Both rails of every round: the pairs of round @r on rail @rail. */
static size_t round_rail_pairs(const struct sched *s, const struct fab_hosts *hs, size_t r, int rail)
{
	size_t n = 0;

	for (size_t i = s->round_start[r]; i < s->round_start[r + 1]; i++)
		n += hs->hosts[s->pairs[i].a].rail == rail;
	return n;
}

static void rail_schedule(bool cross)
{
	struct topo *t = topo_new();
	struct route *r = NULL;
	struct fab_hosts hs;
	struct sched_pair *want = NULL;
	struct sched_topo_bound b;
	struct sched s;
	struct fab_err err;
	size_t n = 0;

	fab_err_init(&err);
	assert_non_null(t);
	assert_int_equal(plan_yaml_parse(t, NULL, rail_plan, strlen(rail_plan), "p.yaml", &err), 0);
	topo_sort(t);
	hosts_text(&hs, rail_hosts);
	assert_int_equal(route_new(&r, t), 0);
	assert_int_equal(route_place(r, &hs, &err), 0);
	route_rates(r, &hs, NULL, NULL);
	/* Each end point on its own access link: h2:eth1 on r1 swp2. */
	assert_string_equal(r->hosts[3].port->name, "eth1");
	assert_string_equal(r->hosts[3].port->peer->node->name, "r1");
	assert_int_equal(hosts_port_pairs(&hs, cross, false, &want, &n), 0);
	assert_int_equal(n, cross ? 24 : 12);
	for (size_t i = 0; i < n; i++) {
		const struct fab_host *a = &hs.hosts[want[i].a], *c = &hs.hosts[want[i].b];

		assert_string_not_equal(a->node, c->node);
		if (!cross)
			assert_int_equal(a->rail, c->rail);
	}
	sched_init(&s);
	assert_int_equal(sched_topo_pairs(&s, &b, r, want, n, &err), 0);
	assert_int_equal(s.n_pairs, n);
	/* No end point in two tests of a round; no link over its capacity. */
	assert_int_equal(sched_check(&s, hs.n), 0);
	assert_int_equal(sched_topo_check(&s, r, want, n, &err), 0);
	if (!cross) {
		/* One rail alone is 3 rounds of 2 (4 hosts): both rails in the same 3. */
		assert_int_equal(s.n_rounds, 3);
		for (size_t k = 0; k < s.n_rounds; k++) {
			assert_int_equal(round_rail_pairs(&s, &hs, k, 0), 2);
			assert_int_equal(round_rail_pairs(&s, &hs, k, 1), 2);
		}
	}
	sched_fini(&s);
	free(want);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
}

static void test_rail_plan(void **state)
{
	rail_schedule(false);
}

static void test_rail_plan_cross(void **state)
{
	rail_schedule(true);
}

/* New x rest, by rail: h4 is new (given on one of its lines). */
static void test_rail_new(void **state)
{
	struct fab_hosts hs;
	struct sched_pair *want = NULL;
	size_t n = 0;
	char text[sizeof(rail_hosts) + 8];

	snprintf(text, sizeof(text), "%s", rail_hosts);
	strcpy(strstr(text, "h4 10.0.1.4 ifname=eth1") + strlen("h4 10.0.1.4 ifname=eth1"), " new\n");
	hosts_text(&hs, text);
	assert_true(hs.hosts[6].is_new);
	assert_int_equal(hosts_port_pairs(&hs, false, true, &want, &n), 0);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(hs.hosts[want[i].b].node, "h4");
	free(want);
	hosts_fini(&hs);
}

/* Random fleets: nodes 2..9 of 1..4 rails, some one-port hosts (no rail, or rail=K). */
static void random_fleet(struct fab_hosts *hs, unsigned int seed, size_t *n_nodes, int *rails)
{
	char buf[4096];
	size_t len = 0;

	srand(seed);
	*n_nodes = 2 + (size_t)rand() % 8;
	*rails = 1 + rand() % 4;
	for (size_t h = 0; h < *n_nodes; h++) {
		int kind = rand() % 5;	/* 0: one port, no rail; 1: one port, rail=K; else all rails */
		int ports = kind < 2 ? 1 : *rails;

		for (int k = 0; k < ports; k++) {
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "n%zu 10.%zu.%d.1 ifname=e%d",
						h, h, k, k);
			if (kind == 1)
				len += (size_t)snprintf(buf + len, sizeof(buf) - len, " rail=%d",
							rand() % *rails);
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "\n");
		}
	}
	hosts_text(hs, buf);
}

static void test_random_property(void **state)
{
	for (unsigned int seed = 1; seed <= 300; seed++) {
		struct fab_hosts hs;
		struct sched_pair *want = NULL;
		struct sched s;
		size_t n = 0, n_nodes, expect = 0, ng;
		unsigned int *node;
		int rails;
		bool cross = seed % 3 == 0;

		random_fleet(&hs, seed, &n_nodes, &rails);
		for (size_t a = 0; a < hs.n; a++)
			for (size_t b = a + 1; b < hs.n; b++)
				expect += hosts_ports_pair(&hs.hosts[a], &hs.hosts[b], cross);
		assert_int_equal(hosts_port_pairs(&hs, cross, false, &want, &n), 0);
		assert_int_equal(n, expect);
		for (size_t i = 0; i < n; i++)
			assert_true(hosts_ports_pair(&hs.hosts[want[i].a], &hs.hosts[want[i].b], cross));
		node = hosts_node_ids(&hs, &ng);
		assert_non_null(node);
		assert_int_equal(ng, n_nodes);
		/* Counted without building them: the same-rail pairs, and the nodes. */
		if (!cross) {
			size_t nn = 0;

			assert_int_equal(hosts_rail_pairs_count(&hs, &nn), n);
			assert_int_equal(nn, n_nodes);
		}
		sched_init(&s);
		assert_int_equal(sched_from_pairs(&s, want, n, hs.n), 0);
		assert_int_equal(sched_check(&s, hs.n), 0);
		/* Every port of every node on every rail, same-rail pairs: the circle's rounds. */
		if (!cross && hs.n == n_nodes * (size_t)rails && n)
			assert_int_equal(s.n_rounds, n_nodes % 2 ? n_nodes : n_nodes - 1);
		/* --per-host L: at most L tests a node a round, the same pairs. */
		for (unsigned int lim = 1; lim <= 2; lim++) {
			struct sched t;

			sched_init(&t);
			assert_int_equal(sched_from_pairs(&t, want, n, hs.n), 0);
			assert_int_equal(sched_group_limit(&t, node, ng, lim), 0);
			assert_int_equal(t.n_pairs, n);
			assert_int_equal(sched_check(&t, hs.n), 0);
			for (size_t r = 0; r < t.n_rounds; r++) {
				unsigned int cnt[16] = { 0 };

				for (size_t i = t.round_start[r]; i < t.round_start[r + 1]; i++) {
					assert_true(++cnt[node[t.pairs[i].a]] <= lim);
					assert_true(++cnt[node[t.pairs[i].b]] <= lim);
				}
			}
			sched_fini(&t);
		}
		free(node);
		sched_fini(&s);
		free(want);
		hosts_fini(&hs);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rail_plan),
		cmocka_unit_test(test_rail_plan_cross),
		cmocka_unit_test(test_rail_new),
		cmocka_unit_test(test_random_property),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
