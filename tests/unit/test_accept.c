// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * accept's model: fault code names, stage dependencies and the verdict,
 * the policy file, cabling problems restricted to the new nodes,
 * dual-homing from LLDP neighbours, and the traffic pairs (coverage K in
 * O((n + m) K) pairs on a generated 1000-node fabric).
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

#include "model/accept.h"
#include "model/topo_diff.h"

static void test_codes(void **state)
{
	(void)state;
	assert_string_equal(accept_code_name(FAB_REACH_NO_WORKER), "FAB-REACH-NO-WORKER");
	assert_string_equal(accept_code_name(FAB_CABLE_MISWIRED), "FAB-CABLE-MISWIRED");
	assert_string_equal(accept_code_name(FAB_CABLE_SINGLE_HOMED), "FAB-CABLE-SINGLE-HOMED");
	assert_string_equal(accept_code_name(FAB_TRAFFIC_SLOW_LINK), "FAB-TRAFFIC-SLOW-LINK");
	assert_null(accept_code_name(FAB_CODE_N));
	for (int c = 0; c < FAB_CODE_N; c++)
		assert_non_null(accept_code_name(c));	/* every code has its name */
}

static void test_blocking_and_verdict(void **state)
{
	struct accept_report r;

	(void)state;
	accept_report_init(&r);
	accept_stage_set(&r, ACCEPT_ST_REACH, ACCEPT_PASSED, "ok");
	accept_stage_set(&r, ACCEPT_ST_CONFIG, ACCEPT_SKIPPED, "no profile");
	assert_int_equal(accept_stage_blocker(&r, ACCEPT_ST_TRAFFIC), -1);
	accept_stage_set(&r, ACCEPT_ST_CABLING, ACCEPT_FAILED, "miswired");
	assert_int_equal(accept_stage_blocker(&r, ACCEPT_ST_TRAFFIC), ACCEPT_ST_CABLING);
	assert_int_equal(accept_stage_blocker(&r, ACCEPT_ST_COUNTERS_BASE), -1);
	accept_stage_set(&r, ACCEPT_ST_TRAFFIC, ACCEPT_BLOCKED, "blocked");
	assert_int_equal(accept_stage_blocker(&r, ACCEPT_ST_COUNTERS_AFTER), ACCEPT_ST_TRAFFIC);
	assert_false(accept_verdict(&r));
	accept_report_fini(&r);

	/* A finding alone rejects, even when no stage says failed. */
	accept_report_init(&r);
	assert_true(accept_verdict(&r));
	assert_int_equal(accept_finding_add(&r, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_FAILED, "", "a <-> b",
					    "no %s", "figures"), 0);
	assert_false(accept_verdict(&r));
	assert_string_equal(r.findings[0].evidence, "no figures");
	assert_int_equal(accept_stage_findings(&r, ACCEPT_ST_TRAFFIC), 1);
	accept_report_fini(&r);
}

static int policy(struct accept_policy *p, const char *text, struct fab_err *err)
{
	fab_err_init(err);
	return accept_policy_parse(p, text, strlen(text), "pol.yaml", err);
}

static void test_policy(void **state)
{
	struct accept_policy p;
	struct fab_err err;

	(void)state;
	assert_int_equal(policy(&p, "", &err), 0);
	assert_int_equal(p.pct_expected, 90);
	assert_int_equal(p.coverage_k, 2);
	assert_true(p.stage_on[ACCEPT_ST_TRAFFIC]);
	assert_int_equal(policy(&p, "pct_expected: 85\ncoverage: 3\nstages: { traffic: false }\n",
				&err), 0);
	assert_int_equal(p.pct_expected, 85);
	assert_int_equal(p.coverage_k, 3);
	assert_false(p.stage_on[ACCEPT_ST_TRAFFIC]);
	assert_true(p.stage_on[ACCEPT_ST_CABLING]);
	/* The floor: never below 80 %. */
	assert_int_equal(policy(&p, "pct_expected: 79\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "pol.yaml:1:"));
	assert_non_null(strstr(err.msg, "80..100"));
	assert_int_equal(policy(&p, "stages: { trafic: false }\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown key 'trafic'"));
	assert_int_equal(policy(&p, "coverage: 0\n", &err), -EINVAL);
}

/* found: h1, h2 (existing) on leaf1; h3 (new) cabled to leaf2 swp2, planned on swp1. */
static struct topo *graph(void)
{
	struct topo *t = topo_new();
	struct topo_node *l1 = topo_node_add(t, TOPO_NODE_SWITCH, "leaf1", 0);
	struct topo_node *l2 = topo_node_add(t, TOPO_NODE_SWITCH, "leaf2", 0);
	struct topo_node *h3 = topo_node_add(t, TOPO_NODE_HOST, "h3", 0);
	struct topo_node *h4 = topo_node_add(t, TOPO_NODE_HOST, "h4", 0);

	assert_int_equal(topo_link_add(t, topo_port_get(h3, 0, "eth0"), topo_port_get(l2, 0, "swp2"),
				       TOPO_SRC_LLDP), 0);
	assert_int_equal(topo_link_add(t, topo_port_get(h3, 0, "eth1"), topo_port_get(l2, 0, "swp3"),
				       TOPO_SRC_LLDP), 0);
	assert_int_equal(topo_link_add(t, topo_port_get(h4, 0, "eth0"), topo_port_get(l1, 0, "swp4"),
				       TOPO_SRC_LLDP), 0);
	assert_int_equal(topo_link_add(t, topo_port_get(h4, 0, "eth1"), topo_port_get(l2, 0, "swp4"),
				       TOPO_SRC_LLDP), 0);
	return t;
}

static void test_cabling_restricted_to_new(void **state)
{
	const char *new_names[] = { "h3", "leaf2" };
	struct topo_problem p = { .kind = TOPO_PROB_MISWIRED, .has_a = true, .has_b = true,
				  .has_expected = true };
	struct topo *t = graph();
	struct accept_report r;
	size_t other = 0;

	(void)state;
	accept_report_init(&r);
	strcpy(p.a.node, "h3");
	strcpy(p.a.port_name, "eth0");
	strcpy(p.b.node, "leaf2");
	strcpy(p.b.port_name, "swp2");
	strcpy(p.expected.node, "leaf2");
	strcpy(p.expected.port_name, "swp1");
	assert_int_equal(topo_problem_add(t, &p), 0);
	/* A problem among existing nodes only: not the new racks' doing. */
	p = (struct topo_problem){ .kind = TOPO_PROB_MTU_MISMATCH, .has_a = true, .has_b = true };
	strcpy(p.a.node, "h1");
	strcpy(p.a.port_name, "eth0");
	strcpy(p.b.node, "leaf1");
	strcpy(p.b.port_name, "swp1");
	assert_int_equal(topo_problem_add(t, &p), 0);
	assert_int_equal(accept_cabling_findings(&r, t, new_names, 2, &other), 0);
	assert_int_equal(other, 1);
	assert_int_equal(r.n_findings, 1);
	assert_int_equal(r.findings[0].code, FAB_CABLE_MISWIRED);
	assert_int_equal(r.findings[0].stage, ACCEPT_ST_CABLING);
	assert_string_equal(r.findings[0].link, "h3 eth0 <-> leaf2 swp2");
	assert_string_equal(r.findings[0].evidence,
			    "h3 eth0 is cabled to leaf2 swp2; it should go to leaf2 swp1");
	accept_report_fini(&r);
	topo_free(t);
}

static void test_dual_homing(void **state)
{
	const char *members[] = { "eth0", "eth1" };
	struct topo *t = graph();
	struct accept_report r;

	(void)state;
	accept_report_init(&r);
	/* h4: eth0 -> leaf1, eth1 -> leaf2: dual-homed. */
	assert_int_equal(accept_dual_homing(&r, t, "h4", members, 2, "bond0"), 0);
	assert_int_equal(r.n_findings, 0);
	/* h3: both legs on leaf2: single-homed, the switch named. */
	assert_int_equal(accept_dual_homing(&r, t, "h3", members, 2, "bond0"), 0);
	assert_int_equal(r.n_findings, 1);
	assert_int_equal(r.findings[0].code, FAB_CABLE_SINGLE_HOMED);
	assert_string_equal(r.findings[0].node, "h3");
	assert_non_null(strstr(r.findings[0].evidence, "one switch, leaf2"));
	assert_non_null(strstr(r.findings[0].evidence, "eth0 -> leaf2 swp2, eth1 -> leaf2 swp3"));
	/* One leg not linked at all: single-homed as well. */
	{
		const char *m2[] = { "eth0", "eth7" };

		assert_int_equal(accept_dual_homing(&r, t, "h4", m2, 2, "bond1"), 0);
		assert_int_equal(r.n_findings, 2);
		assert_non_null(strstr(r.findings[1].evidence, "only one of 2 members"));
	}
	/* Not in the graph, or a one-member bond: not judged here. */
	assert_int_equal(accept_dual_homing(&r, t, "h9", members, 2, "bond0"), 0);
	assert_int_equal(accept_dual_homing(&r, t, "h3", members, 1, "bond0"), 0);
	assert_int_equal(r.n_findings, 2);
	accept_report_fini(&r);
	topo_free(t);
}

/* @n hosts on leaves of @per_leaf; the last @n_new hosts are new. */
static void gen_hosts(struct fab_hosts *hs, size_t n, size_t per_leaf, size_t n_new)
{
	hosts_init(hs);
	hs->hosts = calloc(n, sizeof(*hs->hosts));
	assert_non_null(hs->hosts);
	hs->n = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(hs->hosts[i].name, sizeof(hs->hosts[i].name), "h%zu", i + 1);
		snprintf(hs->hosts[i].leaf, sizeof(hs->hosts[i].leaf), "leaf%zu", i / per_leaf + 1);
		hs->hosts[i].is_new = i >= n - n_new;
	}
}

/* Check coverage: every new host in >= k pairs, the new leaf's uplink crossed >= k times. */
static void check_pairs(const struct fab_hosts *hs, const struct accept_pairs *pp, unsigned int k,
			const char *new_leaf)
{
	size_t *deg = calloc(hs->n, sizeof(*deg)), crossing = 0;

	assert_non_null(deg);
	for (size_t i = 0; i < pp->n; i++) {
		unsigned int a = pp->pairs[i][0], b = pp->pairs[i][1];
		bool la = strcmp(hs->hosts[a].leaf, new_leaf) == 0;
		bool lb = strcmp(hs->hosts[b].leaf, new_leaf) == 0;

		assert_true(a != b);
		assert_true(hs->hosts[a].is_new || hs->hosts[b].is_new);	/* touches a new host */
		deg[a]++;
		deg[b]++;
		crossing += la != lb;
		for (size_t j = 0; j < i; j++)	/* each pair once */
			assert_false((pp->pairs[j][0] == a && pp->pairs[j][1] == b) ||
				     (pp->pairs[j][0] == b && pp->pairs[j][1] == a));
	}
	for (size_t i = 0; i < hs->n; i++)
		if (hs->hosts[i].is_new)
			assert_true(deg[i] >= k);
	assert_true(crossing >= k);
	free(deg);
}

static void test_pairs_small(void **state)
{
	struct fab_hosts hs;
	struct accept_pairs pp;

	(void)state;
	/* The lab of accept-netns.sh: 9 hosts, 3 leaves of 3, leaf3's three new. */
	gen_hosts(&hs, 9, 3, 3);
	assert_int_equal(accept_pairs_pick(&hs, NULL, 2, &pp), 0);
	assert_int_equal(pp.n, 3 + 3 * 2);	/* the ring of 3, each new host with 2 existing */
	check_pairs(&hs, &pp, 2, "leaf3");
	accept_pairs_fini(&pp);
	/* k larger than the new hosts: no duplicates, every new pair once. */
	assert_int_equal(accept_pairs_pick(&hs, NULL, 5, &pp), 0);
	assert_int_equal(pp.n, 3 + 3 * 5);
	check_pairs(&hs, &pp, 5, "leaf3");
	accept_pairs_fini(&pp);
	hosts_fini(&hs);
}

static void test_pairs_1000(void **state)
{
	struct fab_hosts hs;
	struct accept_pairs pp;
	const size_t n = 1000, n_new = 40;
	const unsigned int k = 2;

	(void)state;
	/* 25 leaves of 40 hosts; the last leaf is new. */
	gen_hosts(&hs, n, 40, n_new);
	assert_int_equal(accept_pairs_pick(&hs, NULL, k, &pp), 0);
	printf("1000 nodes (%zu new, %zu existing), K=%u: %zu pairs measured (all pairs: %zu)\n",
	       n_new, n - n_new, k, pp.n, n * (n - 1) / 2);
	assert_true(pp.n <= n * k);		/* O((n + m) K) */
	assert_int_equal(pp.n, n_new * k * 2);	/* ring k per new host + k existing per new host */
	check_pairs(&hs, &pp, k, "leaf25");
	/* The existing hosts paired with the new ones sit on other leaves (crossing the uplink). */
	for (size_t i = 0; i < pp.n; i++) {
		const struct fab_host *a = &hs.hosts[pp.pairs[i][0]], *b = &hs.hosts[pp.pairs[i][1]];

		if (a->is_new != b->is_new)
			assert_string_not_equal(a->leaf, b->leaf);
	}
	accept_pairs_fini(&pp);
	hosts_fini(&hs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes),
		cmocka_unit_test(test_blocking_and_verdict),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_cabling_restricted_to_new),
		cmocka_unit_test(test_dual_homing),
		cmocka_unit_test(test_pairs_small),
		cmocka_unit_test(test_pairs_1000),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
