// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * accept's model: fault code names, stage dependencies and the verdict,
 * the policy file, cabling problems restricted to the new nodes,
 * dual-homing from LLDP neighbours, the traffic pairs (coverage K in
 * O((n + m) K) pairs on a generated 1000-node fabric), and stage 1's
 * judgement of a new host's fabric ports (down, below rated speed, below
 * the fleet's or the profile's RDMA width/speed), and stage 5's new
 * bonds whose legs were not measured (FAB-TRAFFIC-LEG-UNREAD).
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
#include "model/accept_legs.h"
#include "model/bond_legs.h"
#include "model/topo_diff.h"
#include "model/topo_gen.h"

static void test_codes(void **state)
{
	(void)state;
	assert_string_equal(accept_code_name(FAB_REACH_NO_WORKER), "FAB-REACH-NO-WORKER");
	assert_string_equal(accept_code_name(FAB_REACH_PORT_DOWN), "FAB-REACH-PORT-DOWN");
	assert_string_equal(accept_code_name(FAB_REACH_PORT_DEGRADED), "FAB-REACH-PORT-DEGRADED");
	assert_string_equal(accept_code_name(FAB_REACH_PORT_UNREAD), "FAB-REACH-PORT-UNREAD");
	assert_string_equal(accept_code_name(FAB_CABLE_MISWIRED), "FAB-CABLE-MISWIRED");
	assert_string_equal(accept_code_name(FAB_CABLE_SINGLE_HOMED), "FAB-CABLE-SINGLE-HOMED");
	assert_string_equal(accept_code_name(FAB_TRAFFIC_SLOW_LINK), "FAB-TRAFFIC-SLOW-LINK");
	assert_null(accept_code_name(FAB_CODE_N));
	for (int c = 0; c < FAB_CODE_N; c++)
		assert_non_null(accept_code_name(c));	/* every code has its name */
}

/*
 * Stage 5 passes no new bonded host whose legs were not measured
 * (model/accept_legs.h), h1..h9:
 *   h1 new, its legs measured                       -> nothing
 *   h2 new, no bond answer, stage 1 unknown          -> finding (could not tell)
 *   h3 new, no bond answer, stage 1 not a bond       -> nothing (n_plain)
 *   h4 new, answered, stage 1 a bond, no direction   -> finding (measured none)
 *   h5 new, its only direction unread                -> finding, the direction's why
 *   h6 existing, no bond answer                      -> nothing (not judged)
 *   h7 new, answered, stage 1 not a bond, nothing    -> nothing
 *   h8 new, no bond answer, stage 1 a bond           -> finding (a bond, stage 1)
 *   h9 new, one direction unread, one measured       -> nothing
 */
static void test_legs_gaps(void **state)
{
	struct fab_host h[9];
	struct fab_hosts hs = { .hosts = h, .n = 9 };
	struct bond_legs_pair lp[4];
	struct bond_legs_unanswered un[3] = {
		{ .host = 1, .why = "unknown op 'bond'" },
		{ .host = 2, .why = "unknown op 'bond'" },
		{ .host = 5, .why = "no answer within 2000 ms" },
	};
	struct bond_legs_unanswered un8 = { .host = 7, .why = "unknown op 'bond'" };
	struct bond_legs_unanswered unall[4];
	unsigned char dp[9] = { ACCEPT_DP_BOND, ACCEPT_DP_UNKNOWN, ACCEPT_DP_PLAIN, ACCEPT_DP_BOND,
				ACCEPT_DP_BOND, ACCEPT_DP_BOND, ACCEPT_DP_PLAIN, ACCEPT_DP_BOND,
				ACCEPT_DP_BOND };
	struct sweep_report r;
	struct accept_report ar;
	size_t gaps, plain;

	(void)state;
	memset(h, 0, sizeof(h));
	for (int i = 0; i < 9; i++) {
		snprintf(h[i].name, sizeof(h[i].name), "h%d", i + 1);
		h[i].is_new = i != 5;
	}
	memset(lp, 0, sizeof(lp));
	lp[0] = (struct bond_legs_pair){ .a = 0, .b = 6 };
	lp[0].ab = (struct bond_legs_dir){ .run = true, .node = "h1", .n_legs = 2 };
	lp[1] = (struct bond_legs_pair){ .a = 4, .b = 0 };
	lp[1].ab = (struct bond_legs_dir){ .run = true, .node = "h5", .unread = true, .n_legs = 2,
					   .why = "the bond's counters could not be read "
						  "(see the warnings)" };
	lp[2] = (struct bond_legs_pair){ .a = 8, .b = 0 };
	lp[2].ab = (struct bond_legs_dir){ .run = true, .node = "h9", .unread = true, .n_legs = 2,
					   .why = "every trial flow failed (see the warnings)" };
	lp[3] = (struct bond_legs_pair){ .a = 0, .b = 8 };
	lp[3].ba = (struct bond_legs_dir){ .run = true, .node = "h9", .n_legs = 2 };
	memcpy(unall, un, sizeof(un));
	unall[3] = un8;
	memset(&r, 0, sizeof(r));
	r.hosts = &hs;
	r.legs = lp;
	r.n_legs = 4;
	r.legs_unanswered = unall;
	r.n_legs_unanswered = 4;

	accept_report_init(&ar);
	assert_int_equal(accept_legs_gaps(&ar, &r, dp, &gaps, &plain), 0);
	assert_int_equal(gaps, 4);
	assert_int_equal(plain, 1);
	assert_int_equal(ar.n_findings, 4);
	for (size_t i = 0; i < ar.n_findings; i++) {
		assert_int_equal(ar.findings[i].code, FAB_TRAFFIC_LEG_UNREAD);
		assert_int_equal(ar.findings[i].stage, ACCEPT_ST_TRAFFIC);
	}
	assert_string_equal(ar.findings[0].node, "h2");
	assert_string_equal(ar.findings[0].evidence, "legs not measured: worker did not answer the "
			    "bond request: unknown op 'bond' (stage 1 could not tell whether its "
			    "data path is a bond)");
	assert_string_equal(ar.findings[1].node, "h4");
	assert_string_equal(ar.findings[1].evidence, "legs not measured: its data path is a bond "
			    "(stage 1), the sweep measured none of its legs");
	assert_string_equal(ar.findings[2].node, "h5");
	assert_string_equal(ar.findings[2].evidence, "legs not measured: the bond's counters could "
			    "not be read (see the warnings)");
	assert_string_equal(ar.findings[3].node, "h8");
	assert_string_equal(ar.findings[3].evidence, "legs not measured: worker did not answer the "
			    "bond request: unknown op 'bond' (its data path is a bond, stage 1)");
	assert_false(accept_verdict(&ar));
	accept_report_fini(&ar);

	/* Without stage 1's reading (NULL): every unanswered new host is a finding, h3 too. */
	accept_report_init(&ar);
	assert_int_equal(accept_legs_gaps(&ar, &r, NULL, &gaps, &plain), 0);
	assert_int_equal(gaps, 4);	/* h2, h3, h5, h8 (h4's bond is stage 1's word) */
	assert_int_equal(plain, 0);
	assert_string_equal(ar.findings[1].node, "h3");
	accept_report_fini(&ar);

	/* Every leg measured, every worker answered: nothing. */
	lp[1].ab.unread = false;
	r.n_legs_unanswered = 0;
	dp[3] = dp[7] = ACCEPT_DP_PLAIN;
	accept_report_init(&ar);
	assert_int_equal(accept_legs_gaps(&ar, &r, dp, &gaps, &plain), 0);
	assert_int_equal(gaps + plain + ar.n_findings, 0);
	assert_true(accept_verdict(&ar));
	accept_report_fini(&ar);
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
	/* Latency p99 bound and counter thresholds. */
	assert_int_equal(p.lat_p99_us, 0);
	assert_int_equal(policy(&p, "coverage: 2\nlatency_p99_us: 500\ncounters:\n"
				"  - { name: symbol_errors, threshold: 3, severity: error }\n", &err), 0);
	assert_int_equal(p.lat_p99_us, 500);
	assert_int_equal(counter_policy_find(&p.counters, "SymbolErrorCounter")->threshold, 3);
	assert_int_equal(p.port_rate_gbps, 0);
	assert_int_equal(policy(&p, "port_rate_gbps: 100\n", &err), 0);
	assert_int_equal(p.port_rate_gbps, 100);
	assert_int_equal(policy(&p, "port_rate_gbps: 2.5\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "port_rate_gbps"));
	/* leg_pct: a new bond's leg against its fastest (stage 5), 10..100, default 80 */
	assert_int_equal(policy(&p, "coverage: 2\n", &err), 0);
	assert_int_equal(p.leg_pct, 80);
	assert_int_equal(policy(&p, "leg_pct: 50\n", &err), 0);
	assert_int_equal(p.leg_pct, 50);
	assert_int_equal(policy(&p, "leg_pct: 5\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "leg_pct"));
	assert_int_equal(policy(&p, "latency_p99_us: fast\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "pol.yaml:1:"));
	assert_non_null(strstr(err.msg, "latency_p99_us"));
	assert_int_equal(policy(&p, "coverage: 2\ncounters:\n  - { name: bogus_counter, threshold: 1 }\n",
				&err), -EINVAL);
	assert_non_null(strstr(err.msg, "pol.yaml:3"));
	assert_non_null(strstr(err.msg, "bogus_counter"));
	assert_int_equal(policy(&p, "counters:\n  - { name: symbol_errors, threshold: -1 }\n", &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "pol.yaml:2:"));
	assert_non_null(strstr(err.msg, "threshold"));
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

/* A new name matches the node of that name, or an IB node description "NAME DEV". */
static void test_name_in(void **state)
{
	const char *const names[] = { "h33", "leaf-008" };

	(void)state;
	assert_true(accept_name_in(names, 2, "h33"));
	assert_true(accept_name_in(names, 2, "h33 mlx5_0"));
	assert_true(accept_name_in(names, 2, "leaf-008"));
	assert_false(accept_name_in(names, 2, "h330"));
	assert_false(accept_name_in(names, 2, "h3"));
	assert_false(accept_name_in(names, 2, "leaf-0081"));
	assert_false(accept_name_in(names, 2, ""));
	assert_false(accept_name_in(names, 2, NULL));
}

struct gfab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	bool *is_new;
	const char **new_names;
	size_t n_new_names;
};

/*
 * A generated leaf-spine fabric (model/topo_gen.h), hosts h1..hN placed on
 * it; the hosts of the last @new_leaves leaves are new, and so are those
 * leaves themselves (new racks: the switch and its hosts).
 */
static void gfab_up(struct gfab *f, unsigned int leaves, unsigned int per_leaf,
		    unsigned int spines, unsigned int new_leaves)
{
	struct topo_gen_2l g = { .leaves = leaves, .hosts_per_leaf = per_leaf, .spines = spines,
				 .host_mbps = 100000, .uplink_mbps = 100000 };
	size_t n = (size_t)leaves * per_leaf, cap = 40 * n + 1, len = 0;
	char *buf = malloc(cap);
	struct fab_err err;

	assert_non_null(buf);
	memset(f, 0, sizeof(*f));
	assert_int_equal(topo_gen_leaf_spine(&f->t, &g), 0);
	for (size_t i = 1; i <= n; i++)
		len += (size_t)snprintf(buf + len, cap - len, "h%zu 10.%zu.%zu.%zu\n", i, i / 65536,
					i / 256 % 256, i % 256);
	hosts_init(&f->hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&f->hs, buf, len, "hosts", &err), 0);
	free(buf);
	f->is_new = calloc(n, sizeof(*f->is_new));
	f->new_names = calloc(n + leaves, sizeof(*f->new_names));
	assert_non_null(f->is_new);
	assert_non_null(f->new_names);
	for (size_t i = 0; i < n; i++) {
		f->is_new[i] = f->hs.hosts[i].is_new = i / per_leaf >= leaves - new_leaves;
		if (f->is_new[i])
			f->new_names[f->n_new_names++] = f->hs.hosts[i].name;
	}
	for (size_t i = 0; i < f->t->n_nodes; i++) {	/* leafN: the new leaves' switches */
		const char *nm = f->t->nodes[i]->name;

		if (strncmp(nm, "leaf", 4) == 0 && (unsigned int)atoi(nm + 4) > leaves - new_leaves)
			f->new_names[f->n_new_names++] = nm;
	}
	assert_int_equal(route_new(&f->r, f->t), 0);
	assert_int_equal(route_place(f->r, &f->hs, &err), 0);
	route_rates(f->r, &f->hs, NULL, NULL);
	f->r->ecmp_whole = true;	/* as accept's sweep routes them */
}

static void gfab_down(struct gfab *f)
{
	route_free(f->r);
	hosts_fini(&f->hs);
	topo_free(f->t);
	free(f->is_new);
	free(f->new_names);
}

/*
 * Recount the chosen pairs independently of the picker: no existing x
 * existing pair, none twice, every new host in >= k pairs, every wanted
 * link (new links, the new leaves' uplinks) crossed >= k times.  Returns
 * the number of wanted links.
 */
static size_t check_cover(struct gfab *f, const struct coverage *c, unsigned int k)
{
	size_t n = f->hs.n, nl = f->t->n_links, n_want = 0, ni;
	bool *want = calloc(nl, sizeof(*want));
	uint32_t *got = calloc(nl, sizeof(*got)), *hp = calloc(n, sizeof(*hp));
	const struct route_load *items;
	struct route_info info;

	assert_non_null(want);
	assert_non_null(got);
	assert_non_null(hp);
	assert_true(accept_want_links(f->r, f->is_new, f->new_names, f->n_new_names, want) > 0);
	for (size_t i = 0; i < c->n_pairs; i++) {
		unsigned int a = c->pairs[i].a, b = c->pairs[i].b;

		assert_true(a < b && b < n);
		assert_true(f->is_new[a] || f->is_new[b]);	/* new x new or new x existing */
		for (size_t j = 0; j < i && n < 200; j++)	/* each pair once (small cases) */
			assert_false(c->pairs[j].a == a && c->pairs[j].b == b);
		hp[a]++;
		hp[b]++;
		assert_int_equal(route_pair_loads(f->r, a, b, &items, &ni, &info), 0);
		for (size_t j = 0; j < ni; j++)
			got[items[j].link]++;
	}
	for (size_t h = 0; h < n; h++)
		if (f->is_new[h])
			assert_true(hp[h] >= k);
	for (size_t l = 0; l < nl; l++) {
		if (!want[l])
			continue;
		n_want++;
		if (got[l] < k)
			fail_msg("wanted link %zu crossed %u times < K = %u", l, got[l], k);
	}
	/* Every uplink of a new leaf and every new host's cable is wanted. */
	for (size_t l = 0; l < nl; l++) {
		const struct topo_link *lk = f->t->links[l];

		if (accept_name_in(f->new_names, f->n_new_names, lk->a->node->name) ||
		    accept_name_in(f->new_names, f->n_new_names, lk->b->node->name))
			assert_true(want[l]);
	}
	assert_int_equal(c->links_short, 0);
	assert_int_equal(c->hosts_short, 0);
	free(want);
	free(got);
	free(hp);
	return n_want;
}

/* The new x new pairs of @c (each counted once: check_cover() refused repeats). */
static size_t new_x_new(const struct gfab *f, const struct coverage *c)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n_pairs; i++)
		k += f->is_new[c->pairs[i].a] && f->is_new[c->pairs[i].b];
	return k;
}

static void test_pairs_small(void **state)
{
	struct coverage c;
	struct fab_err err;
	struct gfab f;
	size_t n_want;

	(void)state;
	/* 3 leaves of 3 hosts, 2 spines; leaf3 and its three hosts are new. */
	gfab_up(&f, 3, 3, 2, 1);
	fab_err_init(&err);
	assert_int_equal(accept_pairs_cover(f.r, f.is_new, f.new_names, f.n_new_names, 2, &c, &err),
			 0);
	n_want = check_cover(&f, &c, 2);
	assert_int_equal(n_want, 3 + 2);	/* three host cables, two uplinks */
	assert_true(c.n_pairs <= 9 * 2);
	assert_int_equal(new_x_new(&f, &c), 3);	/* a new rack: all against all */
	coverage_fini(&c);
	/* K above the new hosts' count: still no repeat, every new host in K pairs. */
	assert_int_equal(accept_pairs_cover(f.r, f.is_new, f.new_names, f.n_new_names, 5, &c, &err),
			 0);
	check_cover(&f, &c, 5);
	coverage_fini(&c);
	assert_int_equal(accept_pairs_cover(f.r, f.is_new, f.new_names, f.n_new_names, 0, &c, &err),
			 -EINVAL);
	gfab_down(&f);
}

/*
 * 1000 end points on a generated leaf-spine (25 leaves of 40, 4 spines):
 * with one new rack (40 new, 960 existing) and with twelve (480 new), the
 * pairs stay within (n + m) K, against (n + m)(n + m - 1) / 2 = 499500
 * for all pairs, and every new link and new-leaf uplink is crossed K times.
 */
static void test_pairs_1000(void **state)
{
	static const struct { unsigned int new_leaves, k; } cases[] = {
		{ 1, 2 }, { 1, 4 }, { 12, 2 }, { 12, 4 }, { 25, 2 },
	};
	const size_t n = 1000;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct coverage c;
		struct fab_err err;
		struct gfab f;
		size_t n_want;

		gfab_up(&f, 25, 40, 4, cases[i].new_leaves);
		fab_err_init(&err);
		assert_int_equal(accept_pairs_cover(f.r, f.is_new, f.new_names, f.n_new_names,
						    cases[i].k, &c, &err), 0);
		n_want = check_cover(&f, &c, cases[i].k);
		printf("1000 end points (%u new, %zu existing), K=%u: %zu pairs measured, "
		       "%zu links crossed >= K (all pairs: %zu)\n", cases[i].new_leaves * 40,
		       n - cases[i].new_leaves * 40, cases[i].k, c.n_pairs, n_want,
		       n * (n - 1) / 2);
		assert_true(c.n_pairs <= n * cases[i].k);	/* O((n + m) K), c = 1 */
		if (cases[i].new_leaves == 1)	/* one new rack: all 780 new x new pairs fit */
			assert_int_equal(new_x_new(&f, &c), 40 * 39 / 2);
		assert_true(c.n_pairs * 50 < n * (n - 1) / 2);	/* far from O((n + m)^2) */
		coverage_fini(&c);
		gfab_down(&f);
	}
}

/* ---- stage 1: fabric ports ---- */

static struct fab_link *link_up(struct host_state *hs, const char *name, const char *kind,
				bool up, int64_t speed_mbps, const char *master)
{
	struct fab_link *l = host_state_link_add(hs);

	assert_non_null(l);
	snprintf(l->name, sizeof(l->name), "%s", name);
	snprintf(l->kind, sizeof(l->kind), "%s", kind);
	snprintf(l->operstate, sizeof(l->operstate), "%s", up ? "up" : "down");
	snprintf(l->master, sizeof(l->master), "%s", master);
	l->admin_up = up;
	l->speed_mbps = speed_mbps;
	return l;
}

static struct fab_rdma_port *rdma_up(struct host_state *hs, const char *dev, unsigned int port,
				     const char *layer, const char *state, unsigned int width,
				     const char *speed, const char *netdev)
{
	struct fab_rdma_dev *d = host_state_rdma_by_name(hs, dev);
	struct fab_rdma_port *p;

	if (!d) {
		d = host_state_rdma_add(hs);
		assert_non_null(d);
		snprintf(d->name, sizeof(d->name), "%s", dev);
	}
	p = rdma_dev_port_add(d);
	assert_non_null(p);
	p->port = port;
	snprintf(p->link_layer, sizeof(p->link_layer), "%s", layer);
	snprintf(p->state, sizeof(p->state), "%s", state);
	snprintf(p->phys_state, sizeof(p->phys_state), "%s",
		 strcmp(state, "ACTIVE") == 0 ? "LINK_UP" : "DISABLED");
	p->width_x = width;
	snprintf(p->speed, sizeof(p->speed), "%s", speed);
	snprintf(p->netdev, sizeof(p->netdev), "%s", netdev);
	return p;
}

/* Judge @hs as new node "n1"; the findings' "code evidence" joined by " | " into @out. */
static size_t judge(const struct host_state *hs, const struct accept_port_want *w,
		    const struct accept_port_norm *norm, struct accept_port_count *c, char *out,
		    size_t len)
{
	struct accept_report r;
	size_t n, off = 0;

	accept_report_init(&r);
	memset(c, 0, sizeof(*c));
	assert_int_equal(accept_ports_judge(&r, "n1", hs, w, norm, c), 0);
	out[0] = '\0';
	for (size_t i = 0; i < r.n_findings; i++) {
		assert_int_equal(r.findings[i].stage, ACCEPT_ST_REACH);
		assert_string_equal(r.findings[i].node, "n1");
		off += (size_t)snprintf(out + off, len - off, "%s%s %s", i ? " | " : "",
					accept_code_name(r.findings[i].code), r.findings[i].evidence);
	}
	n = r.n_findings;
	accept_report_fini(&r);
	return n;
}

static void test_ports_ethernet(void **state)
{
	struct accept_port_want w = { .datapath = "eth0", .rate_gbps = 25, .rate_from = "rate_gbps=" };
	struct accept_port_count c;
	struct host_state hs;
	char got[1024];

	(void)state;
	/* Up, 10000 Mb/s (what a veth says), rated 25 Gb/s: below the rated speed. */
	host_state_init(&hs);
	link_up(&hs, "lo", "", true, -1, "");
	link_up(&hs, "eth0", "veth", true, 10000, "");
	link_up(&hs, "eth1", "veth", false, 10000, "");	/* not a fabric port: not judged */
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 1);
	assert_string_equal(got, "FAB-REACH-PORT-DEGRADED eth0 10000 Mb/s, rated 25 Gb/s "
			    "(rate_gbps=): the data-path interface");
	assert_int_equal(c.ports, 1);
	assert_int_equal(c.degraded, 1);
	/* At or above the rated speed: nothing; no rated speed: nothing. */
	w.rate_gbps = 10;
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 0);
	w.rate_gbps = 0;
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 0);
	assert_int_equal(c.ports, 1);
	/* Down (ip link set eth0 down): down, and not judged on its speed. */
	w.rate_gbps = 25;
	hs.links[1].admin_up = false;
	snprintf(hs.links[1].operstate, sizeof(hs.links[1].operstate), "down");
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 1);
	assert_string_equal(got, "FAB-REACH-PORT-DOWN eth0 down (admin down, operstate down): "
			    "the data-path interface");
	/* Admin up, no carrier (the cable pulled at the far end). */
	hs.links[1].admin_up = true;
	snprintf(hs.links[1].operstate, sizeof(hs.links[1].operstate), "lowerlayerdown");
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 1);
	assert_string_equal(got, "FAB-REACH-PORT-DOWN eth0 down (operstate lowerlayerdown): "
			    "the data-path interface");
	/* "unknown" (no carrier reporting) counts as up; no speed: not judged on it, counted. */
	snprintf(hs.links[1].operstate, sizeof(hs.links[1].operstate), "unknown");
	hs.links[1].speed_mbps = -1;
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 0);
	assert_int_equal(c.speed_unknown, 1);
	/* No data-path interface known: nothing judged without a profile. */
	w.datapath = NULL;
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 0);
	assert_int_equal(c.ports, 0);
	host_state_fini(&hs);

	/* A bond as the data path: its members carry the rated speed, each. */
	host_state_init(&hs);
	link_up(&hs, "eth0", "", true, 25000, "bond0");
	link_up(&hs, "eth1", "", true, 100000, "bond0");
	link_up(&hs, "bond0", "bond", true, 125000, "");
	w = (struct accept_port_want){ .datapath = "bond0", .rate_gbps = 100,
				       .rate_from = "the policy's port_rate_gbps" };
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 1);
	assert_string_equal(got, "FAB-REACH-PORT-DEGRADED eth0 25000 Mb/s, rated 100 Gb/s (the "
			    "policy's port_rate_gbps): a member of the data-path bond bond0");
	assert_int_equal(c.ports, 3);
	/* A bridge is not a bond: its ports (taps, other VMs) are not the data path. */
	snprintf(hs.links[2].kind, sizeof(hs.links[2].kind), "bridge");
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 0);
	assert_int_equal(c.ports, 1);
	host_state_fini(&hs);
}

static void test_ports_profile(void **state)
{
	static const char text[] =
		"interfaces:\n"
		"  - match: \"eth1\"\n    mtu: 9000\n"
		"  - match: \"eth2\"\n    optional: true\n    mtu: 9000\n"
		"  - kind: \"bridge\"\n    mtu: 1500\n"		/* by kind: not a list of fabric ports */
		"bonds:\n  - name: bond1\n    mode: active-backup\n    members: [eth3, eth4]\n";
	struct accept_port_want w = { .datapath = "eth0" };
	struct accept_port_count c;
	struct profile *p = NULL;
	struct host_state hs;
	struct fab_err err;
	char got[1024];

	(void)state;
	fab_err_init(&err);
	assert_int_equal(profile_parse("p.yaml", (const unsigned char *)text, sizeof(text) - 1, &p,
				       &err), 0);
	w.profile = p;
	host_state_init(&hs);
	link_up(&hs, "lo", "", false, -1, "");
	link_up(&hs, "eth0", "", true, 100000, "");
	link_up(&hs, "eth1", "", false, 100000, "");
	link_up(&hs, "eth2", "", false, 100000, "");	/* optional item: not judged */
	link_up(&hs, "eth3", "", false, 100000, "");	/* a member of the profile's bond */
	link_up(&hs, "docker0", "bridge", false, -1, "");	/* matched by the kind item only */
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 2);
	assert_string_equal(got, "FAB-REACH-PORT-DOWN eth1 down (admin down, operstate down): "
			    "named by the profile's interfaces | FAB-REACH-PORT-DOWN eth3 down "
			    "(admin down, operstate down): a member of the profile's bond bond1");
	assert_int_equal(c.ports, 3);	/* eth0, eth1, eth3 (eth4 and bond1 absent: stage 2's) */
	host_state_fini(&hs);
	profile_free(p);
}

static void test_ports_rdma(void **state)
{
	static const char text[] =
		"infiniband:\n  - match: \"mlx5_*\"\n    width: 4X\n    speed: NDR\n";
	struct accept_port_want w = { .datapath = "ib0", .rdma = "mlx5_0" };
	struct accept_port_norm norm;
	struct accept_port_count c;
	struct host_state fleet[4], hs;
	struct profile *p = NULL;
	struct fab_err err;
	char got[1024];

	(void)state;
	/* The fleet: three hosts at 4X HDR, one (the new one, below) at 1X HDR. */
	memset(&norm, 0, sizeof(norm));
	for (int i = 0; i < 3; i++) {
		host_state_init(&fleet[i]);
		link_up(&fleet[i], "ib0", "", true, -1, "");
		rdma_up(&fleet[i], "mlx5_0", 1, "InfiniBand", "ACTIVE", 4, "HDR", "");
		accept_port_norm_add(&norm, &fleet[i], &w);
	}
	host_state_init(&hs);
	link_up(&hs, "ib0", "", true, -1, "");
	rdma_up(&hs, "mlx5_0", 1, "InfiniBand", "ACTIVE", 1, "HDR", "");
	rdma_up(&hs, "mlx5_0", 2, "InfiniBand", "DOWN", 0, "", "");	/* unused: not judged */
	accept_port_norm_add(&norm, &hs, &w);
	assert_int_equal(norm.width[0].n, 4);
	assert_int_equal(judge(&hs, &w, &norm, &c, got, sizeof(got)), 1);
	assert_string_equal(got, "FAB-REACH-PORT-DEGRADED mlx5_0/1 1X, expected 4X (3 of 4 RDMA "
			    "ports of the fleet run 4X): rdma= of the hosts file");
	assert_int_equal(c.ports, 2);	/* ib0 and mlx5_0/1 */
	/* rdma=DEV:PORT names the port; a port or device the host lacks is down. */
	w.rdma_port = 2;
	assert_int_equal(judge(&hs, &w, &norm, &c, got, sizeof(got)), 1);
	assert_string_equal(got, "FAB-REACH-PORT-DOWN mlx5_0/2 DOWN, phys DISABLED: rdma= of the "
			    "hosts file");
	w.rdma_port = 3;
	assert_int_equal(judge(&hs, &w, &norm, &c, got, sizeof(got)), 1);
	assert_string_equal(got, "FAB-REACH-PORT-DOWN rdma=mlx5_0:3: mlx5_0 has no port 3");
	w.rdma_port = 0;
	w.rdma = "mlx5_9";
	assert_int_equal(judge(&hs, &w, &norm, &c, got, sizeof(got)), 1);
	assert_string_equal(got, "FAB-REACH-PORT-DOWN rdma=mlx5_9: no such RDMA device (the host "
			    "has mlx5_0)");
	/* Without a norm (a fleet of one) nothing says 1X is wrong. */
	w.rdma = "mlx5_0";
	assert_int_equal(judge(&hs, &w, NULL, &c, got, sizeof(got)), 0);
	/* The profile's infiniband: width and speed win over the fleet, on every port it matches. */
	fab_err_init(&err);
	assert_int_equal(profile_parse("p.yaml", (const unsigned char *)text, sizeof(text) - 1, &p,
				       &err), 0);
	w.profile = p;
	hs.rdma[0].ports[0].width_x = 4;
	assert_int_equal(judge(&hs, &w, &norm, &c, got, sizeof(got)), 2);
	assert_string_equal(got, "FAB-REACH-PORT-DEGRADED mlx5_0/1 HDR, expected NDR (the profile): "
			    "rdma= of the hosts file | FAB-REACH-PORT-DOWN mlx5_0/2 DOWN, phys "
			    "DISABLED: matched by the profile's infiniband");
	profile_free(p);
	host_state_fini(&hs);

	/* RoCE: the port on the data-path netdev, whatever rdma= says. */
	w = (struct accept_port_want){ .datapath = "eth0" };
	host_state_init(&hs);
	link_up(&hs, "eth0", "", true, 100000, "");
	rdma_up(&hs, "mlx5_1", 1, "Ethernet", "DOWN", 4, "EDR", "eth0");
	rdma_up(&hs, "mlx5_2", 1, "Ethernet", "DOWN", 4, "EDR", "eth9");	/* another netdev */
	assert_int_equal(judge(&hs, &w, &norm, &c, got, sizeof(got)), 1);
	assert_string_equal(got, "FAB-REACH-PORT-DOWN mlx5_1/1 DOWN, phys DISABLED: the RoCE port "
			    "of eth0");
	/* The InfiniBand norm does not judge an Ethernet port. */
	snprintf(hs.rdma[0].ports[0].state, sizeof(hs.rdma[0].ports[0].state), "ACTIVE");
	snprintf(hs.rdma[0].ports[0].phys_state, sizeof(hs.rdma[0].ports[0].phys_state), "LINK_UP");
	hs.rdma[0].ports[0].width_x = 1;
	assert_int_equal(judge(&hs, &w, &norm, &c, got, sizeof(got)), 0);
	host_state_fini(&hs);
	for (int i = 0; i < 3; i++)
		host_state_fini(&fleet[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codes),
		cmocka_unit_test(test_blocking_and_verdict),
		cmocka_unit_test(test_legs_gaps),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_cabling_restricted_to_new),
		cmocka_unit_test(test_dual_homing),
		cmocka_unit_test(test_name_in),
		cmocka_unit_test(test_pairs_small),
		cmocka_unit_test(test_pairs_1000),
		cmocka_unit_test(test_ports_ethernet),
		cmocka_unit_test(test_ports_profile),
		cmocka_unit_test(test_ports_rdma),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
