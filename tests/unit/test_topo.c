// SPDX-License-Identifier: GPL-2.0-or-later
/* struct topo: ownership, lookups, links, health checks, thresholds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/topo.h"

/* sw[1..4] -- ca1[1], ca2[1]; every port active 4xEDR, enabled 4xEDR. */
static struct topo *small(void)
{
	struct topo *t = topo_new();
	struct topo_node *sw = topo_node_add(t, TOPO_NODE_SWITCH, "sw", 0x10);
	struct topo_node *c1 = topo_node_add(t, TOPO_NODE_CA, "ca1", 0x20);
	struct topo_node *c2 = topo_node_add(t, TOPO_NODE_CA, "ca2", 0x30);
	struct topo_port *ports[4] = {
		topo_port_get(sw, 1, NULL), topo_port_get(c1, 1, NULL),
		topo_port_get(sw, 2, NULL), topo_port_get(c2, 1, NULL),
	};

	for (int i = 0; i < 4; i++) {
		struct topo_port *p = ports[i];

		p->facts = TOPO_F_STATE | TOPO_F_WIDTH | TOPO_F_SPEED | TOPO_F_COUNTERS;
		p->state = TOPO_PORT_ACTIVE;
		p->phys_state = TOPO_PHYS_LINKUP;
		p->width_x = p->width_max_x = 4;
		p->lane_mbps = p->lane_max_mbps = topo_speed_parse("EDR");
	}
	assert_int_equal(topo_link_add(t, ports[0], ports[1], TOPO_SRC_SMP), 0);
	assert_int_equal(topo_link_add(t, ports[3], ports[2], TOPO_SRC_SMP), 0);
	return t;
}

static void test_lookup_ownership(void **state)
{
	struct topo *t = small();
	struct topo_node *sw = topo_node_by_guid(t, 0x10), *n;
	struct topo_port *p1 = topo_port_find(sw, 1, NULL);

	/* Borrowed pointers stay valid while the graph grows. */
	for (int i = 0; i < 100; i++) {
		char name[16];

		snprintf(name, sizeof(name), "x%d", i);
		n = topo_node_add(t, TOPO_NODE_HOST, name, 0);
		assert_non_null(topo_port_get(n, 0, "eth0"));
	}
	assert_ptr_equal(topo_node_by_guid(t, 0x10), sw);
	assert_ptr_equal(topo_port_find(sw, 1, NULL), p1);
	assert_string_equal(p1->peer->node->name, "ca1");
	assert_ptr_equal(topo_node_by_name(t, "x57"), topo_node_find(t, "x57", 0));
	assert_null(topo_node_by_name(t, "x"));		/* exact names only, no prefix */
	assert_null(topo_node_by_guid(t, 0));			/* 0 is "no GUID" */
	n = topo_node_by_name(t, "x3");
	assert_ptr_equal(topo_port_get(n, 0, "eth0"), topo_port_find(n, 0, "eth0"));
	assert_null(topo_port_find(n, 0, "eth1"));
	assert_null(topo_port_find(n, 0, NULL));		/* named ports are not port 0 */
	topo_free(t);
	topo_free(NULL);
}

static void test_link_rules(void **state)
{
	struct topo *t = small();
	struct topo_node *sw = topo_node_by_name(t, "sw"), *c1 = topo_node_by_name(t, "ca1");
	struct topo_port *s1 = topo_port_find(sw, 1, NULL), *c11 = topo_port_find(c1, 1, NULL);
	struct topo_port *s3 = topo_port_get(sw, 3, NULL);

	/* The same cable again only adds provenance. */
	assert_int_equal(topo_link_add(t, c11, s1, TOPO_SRC_PLAN), 0);
	assert_int_equal(t->n_links, 2);
	assert_int_equal(s1->link->src, TOPO_SRC_SMP | TOPO_SRC_PLAN);
	/* A second cable on a cabled port is a conflict, not a crash. */
	assert_int_equal(topo_link_add(t, s3, c11, TOPO_SRC_SMP), -EEXIST);
	assert_int_equal(topo_link_add(t, s3, s3, TOPO_SRC_SMP), -EINVAL);
	assert_null(s3->peer);
	topo_free(t);
}

static void test_health_clean(void **state)
{
	struct topo *t = small();
	struct topo_thresholds th;
	struct topo_node *sw = topo_node_by_name(t, "sw");
	struct topo_port *empty = topo_port_get(sw, 7, NULL);

	/* An empty socket polling is not a problem without a plan. */
	empty->facts = TOPO_F_STATE;
	empty->state = TOPO_PORT_DOWN;
	empty->phys_state = TOPO_PHYS_POLLING;
	topo_thresholds_default(&th);
	assert_int_equal(topo_health_check(t, &th), 0);
	assert_int_equal(t->n_problems, 0);
	for (size_t i = 0; i < t->n_links; i++)
		assert_int_equal(t->links[i]->status, TOPO_LINK_OK);
	topo_free(t);
}

static void test_health_faults(void **state)
{
	struct topo *t = small();
	struct topo_thresholds th;
	struct topo_node *sw = topo_node_by_name(t, "sw");
	struct topo_port *s1 = topo_port_find(sw, 1, NULL), *s2 = topo_port_find(sw, 2, NULL);

	/* sw[1] trained at 1x although 4x is enabled; ca1 end the same. */
	s1->width_x = 1;
	s1->peer->width_x = 1;
	/* ca2 sees symbol errors just over the default threshold (10). */
	s2->peer->counters[TOPO_CNT_SYMBOL_ERR] = 11;
	s2->counters[TOPO_CNT_LINK_DOWNED] = 10;	/* at the threshold: fine */
	topo_thresholds_default(&th);
	assert_int_equal(topo_health_check(t, &th), 0);
	topo_sort(t);
	assert_int_equal(t->n_problems, 2);	/* one degraded per link, not per end */
	assert_int_equal(t->problems[0].kind, TOPO_PROB_DEGRADED);
	assert_string_equal(t->problems[0].a.node, "sw");
	assert_int_equal(t->problems[0].a.port, 1);
	assert_string_equal(t->problems[0].b.node, "ca1");
	assert_string_equal(t->problems[0].detail, "width 1x, enabled 4x");
	assert_int_equal(t->problems[1].kind, TOPO_PROB_ERRORS);
	assert_string_equal(t->problems[1].a.node, "ca2");
	assert_string_equal(t->problems[1].detail, "symbol_errors 11 > 10");
	assert_int_equal(s1->link->status, TOPO_LINK_DEGRADED);
	assert_int_equal(s2->link->status, TOPO_LINK_ERRORS);
	assert_string_equal(topo_problem_kind_name(t->problems[1].kind), "errors");
	topo_free(t);
}

static void test_health_down_and_speed(void **state)
{
	struct topo *t = small();
	struct topo_thresholds th;
	struct topo_node *sw = topo_node_by_name(t, "sw");
	struct topo_port *s1 = topo_port_find(sw, 1, NULL), *s2 = topo_port_find(sw, 2, NULL);

	s1->state = TOPO_PORT_DOWN;
	s1->phys_state = TOPO_PHYS_POLLING;
	s2->lane_mbps = topo_speed_parse("QDR");	/* EDR enabled */
	topo_thresholds_default(&th);
	assert_int_equal(topo_health_check(t, &th), 0);
	topo_sort(t);
	assert_int_equal(t->n_problems, 2);
	assert_int_equal(t->problems[0].kind, TOPO_PROB_DEGRADED);
	assert_string_equal(t->problems[0].detail, "speed QDR, enabled EDR");
	assert_int_equal(t->problems[1].kind, TOPO_PROB_DOWN);
	assert_string_equal(t->problems[1].detail, "state down, phys polling");
	assert_int_equal(s1->link->status, TOPO_LINK_DOWN);
	topo_free(t);
}

/*
 * A 2-level fat tree like ibsim's: 4 leaves, 2 spines, 2 CAs per leaf
 * (8 ca-leaf and 8 leaf-spine links), every port 4xEDR active and, as the
 * simulator and a misconfigured port report it, enabled = active.  CAs
 * are one model (vendor 0x2c9, device 0x1017); switches another.
 */
static void tree_port(struct topo_port *p)
{
	p->facts = TOPO_F_STATE | TOPO_F_WIDTH | TOPO_F_SPEED;
	p->state = TOPO_PORT_ACTIVE;
	p->phys_state = TOPO_PHYS_LINKUP;
	p->width_x = p->width_max_x = 4;
	p->lane_mbps = p->lane_max_mbps = topo_speed_parse("EDR");
}

static struct topo *tree(void)
{
	struct topo *t = topo_new();
	struct topo_node *leaf[4], *spine[2];
	char name[32];

	for (int s = 0; s < 2; s++) {
		snprintf(name, sizeof(name), "spine-%d", s + 1);
		spine[s] = topo_node_add(t, TOPO_NODE_SWITCH, name, 0x100 + (uint64_t)s);
		spine[s]->vendor_id = 0x2c9;
		spine[s]->device_id = 0xcf08;
	}
	for (int l = 0; l < 4; l++) {
		snprintf(name, sizeof(name), "leaf-%d", l + 1);
		leaf[l] = topo_node_add(t, TOPO_NODE_SWITCH, name, 0x200 + (uint64_t)l);
		leaf[l]->vendor_id = 0x2c9;
		leaf[l]->device_id = 0xcf08;
		for (int c = 0; c < 2; c++) {
			struct topo_node *ca;
			struct topo_port *a, *b;

			snprintf(name, sizeof(name), "h%d", l * 2 + c + 1);
			ca = topo_node_add(t, TOPO_NODE_CA, name, 0x300 + (uint64_t)(l * 2 + c));
			ca->vendor_id = 0x2c9;
			ca->device_id = 0x1017;
			a = topo_port_get(leaf[l], (unsigned int)c + 1, NULL);
			b = topo_port_get(ca, 1, NULL);
			tree_port(a);
			tree_port(b);
			assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_SMP), 0);
		}
		for (int s = 0; s < 2; s++) {
			struct topo_port *a = topo_port_get(leaf[l], (unsigned int)s + 3, NULL);
			struct topo_port *b = topo_port_get(spine[s], (unsigned int)l + 1, NULL);

			tree_port(a);
			tree_port(b);
			assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_SMP), 0);
		}
	}
	return t;
}

static struct topo_port *tree_find(struct topo *t, const char *node, unsigned int port)
{
	struct topo_port *p = topo_port_find(topo_node_by_name(t, node), port, NULL);

	assert_non_null(p);
	return p;
}

/* Set both ends of @p's link to @width_x / @speed, enabled = active. */
static void narrow(struct topo_port *p, unsigned int width_x, const char *speed)
{
	struct topo_port *e[2] = { p, p->peer };

	for (int i = 0; i < 2; i++) {
		e[i]->width_x = e[i]->width_max_x = width_x;
		e[i]->lane_mbps = e[i]->lane_max_mbps = topo_speed_parse(speed);
	}
}

static void check_one(struct topo *t, const char *node, unsigned int port, const char *peer,
		      const char *detail)
{
	struct topo_thresholds th;

	topo_thresholds_default(&th);
	assert_int_equal(topo_health_check(t, &th), 0);
	topo_sort(t);
	if (!detail) {
		assert_int_equal(t->n_problems, 0);
		return;
	}
	assert_int_equal(t->n_problems, 1);
	assert_int_equal(t->problems[0].kind, TOPO_PROB_DEGRADED);
	assert_string_equal(t->problems[0].a.node, node);
	assert_int_equal(t->problems[0].a.port, port);
	assert_string_equal(t->problems[0].b.node, peer);
	assert_string_equal(t->problems[0].detail, detail);
	assert_int_equal(tree_find(t, node, port)->link->status, TOPO_LINK_DEGRADED);
}

/* Below its tier without a plan, although the port enables only what it runs. */
static void test_health_tier_width(void **state)
{
	struct topo *t = tree();

	check_one(t, NULL, 0, NULL, NULL);	/* clean: nothing */
	topo_free(t);
	t = tree();
	narrow(tree_find(t, "leaf-3", 3), 1, "EDR");	/* leaf-3 -- spine-1 */
	check_one(t, "leaf-3", 3, "spine-1", "width 1x; 7 of 8 leaf-spine links run 4x");
	topo_free(t);
	t = tree();
	narrow(tree_find(t, "h5", 1), 1, "EDR");	/* h5 -- leaf-3[1] */
	check_one(t, "leaf-3", 1, "h5", "width 1x; 7 of 8 ca-leaf links run 4x");
	topo_free(t);
}

static void test_health_tier_speed(void **state)
{
	struct topo *t = tree();

	narrow(tree_find(t, "spine-2", 4), 4, "QDR");	/* leaf-4 -- spine-2 */
	check_one(t, "leaf-4", 4, "spine-2", "speed QDR; 7 of 8 leaf-spine links run EDR");
	topo_free(t);
	t = tree();
	narrow(tree_find(t, "spine-2", 4), 2, "FDR");
	check_one(t, "leaf-4", 4, "spine-2",
		  "width 2x; 7 of 8 leaf-spine links run 4x; speed FDR; 7 of 8 leaf-spine links run EDR");
	topo_free(t);
}

/*
 * An end not known to do better is still held to its tier, and the
 * detail says so; nothing is flagged when the tier has no strict majority.
 */
static void test_health_tier_limits(void **state)
{
	struct topo *t = tree();
	struct topo_thresholds th;
	struct topo_port *h;

	/* h5 is another model, with nothing showing it can do 4x: reported, saying so. */
	h = tree_find(t, "h5", 1);
	h->node->device_id = 0x1234;
	narrow(h, 1, "EDR");
	check_one(t, "leaf-3", 1, "h5",
		  "width 1x; 7 of 8 ca-leaf links run 4x; h5 port 1 not known to support 4x");
	topo_free(t);
	/* Nothing known of either end's model (ibsim: vendor and device 0), slower too. */
	t = tree();
	h = tree_find(t, "h5", 1);
	h->node->vendor_id = h->node->device_id = 0;
	narrow(h, 1, "QDR");
	h->peer->node->vendor_id = h->peer->node->device_id = 0;
	check_one(t, "leaf-3", 1, "h5",
		  "width 1x; 7 of 8 ca-leaf links run 4x; speed QDR; 7 of 8 ca-leaf links run EDR; "
		  "h5 port 1 not known to support 4x or EDR");
	topo_free(t);
	/* The same, but its port enables 4x: below what it supports after all. */
	t = tree();
	h = tree_find(t, "h5", 1);
	h->node->device_id = 0x1234;
	narrow(h, 1, "EDR");
	h->width_max_x = 4;
	h->peer->width_max_x = 1;
	check_one(t, "h5", 1, "leaf-3", "width 1x, enabled 4x");
	topo_free(t);
	/* Half the leaf-spine links at 1x: no tier width to hold them to. */
	t = tree();
	for (int l = 1; l <= 4; l++) {
		char name[16];

		snprintf(name, sizeof(name), "leaf-%d", l);
		narrow(tree_find(t, name, 3), 1, "EDR");
	}
	check_one(t, NULL, 0, NULL, NULL);
	topo_free(t);
	/* A down link is reported down, not as narrow. */
	t = tree();
	h = tree_find(t, "leaf-2", 4);
	narrow(h, 1, "EDR");
	h->state = TOPO_PORT_DOWN;
	h->phys_state = TOPO_PHYS_POLLING;
	topo_thresholds_default(&th);
	assert_int_equal(topo_health_check(t, &th), 0);
	assert_int_equal(t->n_problems, 1);
	assert_int_equal(t->problems[0].kind, TOPO_PROB_DOWN);
	topo_free(t);
}

/* A plan of the tree's cables, h5's (to leaf-3[1]) stating @width_x (0: no width). */
static struct topo *tree_plan(unsigned int h5_width_x, unsigned int h5_lane_mbps)
{
	struct topo *found = tree(), *plan = topo_new();

	for (size_t i = 0; i < found->n_links; i++) {
		const struct topo_link *l = found->links[i];
		struct topo_port *e[2];

		for (int k = 0; k < 2; k++) {
			const struct topo_node *n = k ? l->b->node : l->a->node;
			struct topo_node *m = topo_node_by_name(plan, n->name);

			if (!m)
				m = topo_node_add(plan, n->type, n->name, 0);
			e[k] = topo_port_get(m, (k ? l->b : l->a)->num, NULL);
			assert_non_null(e[k]);
		}
		assert_int_equal(topo_link_add(plan, e[0], e[1], TOPO_SRC_PLAN), 0);
		if (strcmp(l->a->node->name, "h5") != 0 && strcmp(l->b->node->name, "h5") != 0)
			continue;
		for (int k = 0; k < 2; k++) {
			if (h5_width_x) {
				e[k]->width_x = h5_width_x;
				e[k]->facts |= TOPO_F_WIDTH;
			}
			if (h5_lane_mbps) {
				e[k]->lane_mbps = h5_lane_mbps;
				e[k]->facts |= TOPO_F_SPEED;
			}
		}
	}
	topo_free(found);
	return plan;
}

/* h5's cable at 1x QDR in the tree, against @plan: the problems' details, "|"-joined. */
static void tier_vs_plan(const struct topo *plan, const char *want)
{
	struct topo *t = tree();
	struct topo_thresholds th;
	char got[1024] = "";
	size_t off = 0;

	narrow(tree_find(t, "h5", 1), 1, "QDR");
	topo_thresholds_default(&th);
	assert_int_equal(topo_health_check_plan(t, &th, plan), 0);
	topo_sort(t);
	for (size_t i = 0; i < t->n_problems; i++)
		off += (size_t)snprintf(got + off, sizeof(got) - off, "%s%s", i ? "|" : "",
					t->problems[i].detail);
	assert_string_equal(got, want);
	topo_free(t);
}

/*
 * With a plan: a plan that states no width or speed for the cable
 * changes nothing (ibnetdiscover files without widths); a plan's width
 * or speed for that cable wins over the tier's, dimension by dimension.
 */
static void test_health_tier_plan(void **state)
{
	struct topo *plan;

	tier_vs_plan(NULL, "width 1x; 7 of 8 ca-leaf links run 4x; "
		     "speed QDR; 7 of 8 ca-leaf links run EDR");
	plan = tree_plan(0, 0);
	tier_vs_plan(plan, "width 1x; 7 of 8 ca-leaf links run 4x; "
		     "speed QDR; 7 of 8 ca-leaf links run EDR");
	topo_free(plan);
	plan = tree_plan(1, 0);		/* the plan says 1x: the speed alone */
	tier_vs_plan(plan, "speed QDR; 7 of 8 ca-leaf links run EDR");
	topo_free(plan);
	plan = tree_plan(1, topo_speed_parse("QDR"));	/* as planned: nothing */
	tier_vs_plan(plan, "");
	topo_free(plan);
	plan = tree_plan(4, topo_speed_parse("EDR"));	/* topo_diff() judges it, not the tier */
	tier_vs_plan(plan, "");
	topo_free(plan);
}

/*
 * Ethernet: hosts' NICs report their own speed (eth_mbps; switches'
 * ports report none); a host cable slower than most of its tier's links
 * on the same leaf is held to them, naming the ends whose capability is
 * unknown.
 */
static void test_health_tier_eth(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *leaf = topo_node_add(t, TOPO_NODE_SWITCH, "leaf0", 0);
	struct topo_thresholds th;

	for (unsigned int i = 0; i < 5; i++) {
		char name[16], port[16];
		struct topo_node *h;
		struct topo_port *a, *b;

		snprintf(name, sizeof(name), "host%u", i);
		snprintf(port, sizeof(port), "swp%u", i + 1);
		h = topo_node_add(t, TOPO_NODE_HOST, name, 0);
		a = topo_port_get(h, 0, "eth0");
		b = topo_port_get(leaf, 0, port);
		a->eth_mbps = i == 3 ? 25000 : 100000;
		assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_LLDP), 0);
	}
	topo_thresholds_default(&th);
	assert_int_equal(topo_health_check(t, &th), 0);
	assert_int_equal(t->n_problems, 1);
	assert_int_equal(t->problems[0].kind, TOPO_PROB_DEGRADED);
	assert_string_equal(t->problems[0].a.node, "leaf0");
	assert_string_equal(t->problems[0].a.port_name, "swp4");
	assert_string_equal(t->problems[0].b.node, "host3");
	assert_string_equal(t->problems[0].detail,
			    "speed 25000 Mb/s; 4 of 5 host-leaf links of leaf0 run 100000 Mb/s; "
			    "leaf0 swp4 and host3 eth0 not known to support 100000 Mb/s");
	/* A second 100G NIC on host3 shows the host can: only the switch end is unknown. */
	{
		struct topo_port *a = topo_port_get(topo_node_by_name(t, "host3"), 0, "eth1");
		struct topo_port *b = topo_port_get(leaf, 0, "swp9");

		a->eth_mbps = 100000;
		assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_LLDP), 0);
	}
	t->n_problems = 0;
	topo_node_by_name(t, "host3")->ports[0]->link->status = TOPO_LINK_OK;
	assert_int_equal(topo_health_check(t, &th), 0);
	assert_int_equal(t->n_problems, 1);
	assert_string_equal(t->problems[0].detail,
			    "speed 25000 Mb/s; 5 of 6 host-leaf links of leaf0 run 100000 Mb/s; "
			    "leaf0 swp4 not known to support 100000 Mb/s");
	/*
	 * Each host's 1G management NIC on a switch of its own: the same
	 * host-leaf tier, mostly 1G now, but Ethernet speeds are held to the
	 * links on the same leaf: neither the management links nor host3's
	 * data link change their verdict.
	 */
	{
		struct topo_node *mgmt = topo_node_add(t, TOPO_NODE_SWITCH, "mgmt0", 0);

		for (unsigned int i = 0; i < 5; i++) {
			char name[16], port[16];
			struct topo_port *a, *b;

			snprintf(name, sizeof(name), "host%u", i);
			snprintf(port, sizeof(port), "ge%u", i + 1);
			a = topo_port_get(topo_node_by_name(t, name), 0, "mgmt");
			b = topo_port_get(mgmt, 0, port);
			a->eth_mbps = 1000;
			assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_LLDP), 0);
		}
	}
	t->n_problems = 0;
	topo_node_by_name(t, "host3")->ports[0]->link->status = TOPO_LINK_OK;
	assert_int_equal(topo_health_check(t, &th), 0);
	assert_int_equal(t->n_problems, 1);
	assert_string_equal(t->problems[0].b.node, "host3");
	assert_string_equal(t->problems[0].b.port_name, "eth0");
	topo_free(t);
}

static void test_thresholds_parse(void **state)
{
	struct topo_thresholds th;
	char bad[64];

	topo_thresholds_default(&th);
	assert_int_equal(th.max[TOPO_CNT_SYMBOL_ERR], 10);
	assert_int_equal(th.max[TOPO_CNT_XMT_DATA], UINT64_MAX);	/* data is not an error */
	assert_int_equal(topo_thresholds_parse(&th, "symbol_errors=0,link_downed=off", bad,
					       sizeof(bad)), 0);
	assert_int_equal(th.max[TOPO_CNT_SYMBOL_ERR], 0);
	assert_true(th.max[TOPO_CNT_LINK_DOWNED] == UINT64_MAX);
	assert_int_equal(topo_thresholds_parse(&th, "symbol_errors=1,bogus=3", bad, sizeof(bad)),
			 -EINVAL);
	assert_string_equal(bad, "bogus=3");
	assert_int_equal(topo_thresholds_parse(&th, "symbol_errors=-1", bad, sizeof(bad)), -EINVAL);
	assert_int_equal(topo_thresholds_parse(&th, "symbol_errors", bad, sizeof(bad)), -EINVAL);
	assert_int_equal(topo_thresholds_parse(&th, "symbol_errors=", bad, sizeof(bad)), -EINVAL);
	/* status's sysfs names (symbol_error, VL15_dropped) are accepted too */
	assert_int_equal(topo_thresholds_parse(&th, "symbol_error=3,VL15_dropped=4", bad,
					       sizeof(bad)), 0);
	assert_int_equal(th.max[TOPO_CNT_SYMBOL_ERR], 3);
	assert_int_equal(th.max[TOPO_CNT_VL15_DROPPED], 4);
}

static void test_counter_list(void **state)
{
	char buf[512];

	topo_counter_list(buf, sizeof(buf));
	assert_non_null(strstr(buf, "symbol_errors, link_error_recovery, "));
	assert_non_null(strstr(buf, ", vl15_dropped, "));
	topo_counter_list(buf, 20);	/* truncated, still terminated */
	assert_true(strlen(buf) < 20);
}

static void test_names(void **state)
{
	assert_int_equal(topo_speed_parse("HDR"), 53125);
	assert_string_equal(topo_speed_name(2500), "SDR");
	assert_null(topo_speed_name(1234));
	assert_int_equal(topo_speed_parse("hdr"), 0);
	assert_int_equal(topo_counter_parse("port_rcv_errors"), TOPO_CNT_RCV_ERR);
	assert_int_equal(topo_counter_parse("nope"), -1);
	assert_string_equal(topo_node_type_name(TOPO_NODE_CA), "ca");
	assert_string_equal(topo_problem_kind_name(TOPO_PROB_MTU_MISMATCH), "mtu-mismatch");
}

static void test_sort(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *b = topo_node_add(t, TOPO_NODE_CA, "b", 2);
	struct topo_node *s = topo_node_add(t, TOPO_NODE_SWITCH, "z", 3);
	struct topo_node *a = topo_node_add(t, TOPO_NODE_CA, "a", 1);

	assert_int_equal(topo_link_add(t, topo_port_get(b, 1, NULL), topo_port_get(s, 9, NULL), 0), 0);
	assert_int_equal(topo_link_add(t, topo_port_get(a, 1, NULL), topo_port_get(s, 2, NULL), 0), 0);
	topo_sort(t);
	assert_ptr_equal(t->nodes[0], s);	/* switches first */
	assert_ptr_equal(t->nodes[1], a);
	assert_int_equal(s->ports[0]->num, 2);
	assert_ptr_equal(t->links[0]->a->node, s);	/* oriented switch first */
	assert_int_equal(t->links[0]->a->num, 2);
	assert_int_equal(t->links[1]->a->num, 9);
	topo_free(t);
}

/*
 * Ports from a reserved block and ports allocated one by one live side by
 * side (the block runs out, named ports come after it); lookups find each
 * wherever it sits, sorting moves them, topo_free() frees each once (ASan).
 */
static void test_reserved_ports(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *sw = topo_node_add(t, TOPO_NODE_SWITCH, "sw", 0x10);
	struct topo_node *ca = topo_node_add(t, TOPO_NODE_CA, "ca", 0x20);
	char long_name[200];

	assert_int_equal(topo_node_reserve_ports(sw, 3), 0);
	assert_int_equal(topo_node_reserve_ports(sw, 3), -EEXIST);
	assert_int_equal(topo_node_reserve_ports(ca, 0), 0);
	for (unsigned int i = 0; i <= 4; i++)	/* 0..2 from the block, 3 and 4 not */
		assert_non_null(topo_port_add(sw, i, NULL));
	assert_ptr_equal(sw->ports[0], &sw->reserved[0]);
	assert_ptr_equal(sw->ports[2], &sw->reserved[2]);
	assert_int_equal(sw->n_reserved_used, 3);
	for (unsigned int i = 0; i <= 4; i++)
		assert_int_equal(topo_port_find(sw, i, NULL)->num, i);
	/* Out of order: the guess at [num - 1] or [num] misses, the scan finds it. */
	assert_non_null(topo_port_add(ca, 9, NULL));
	assert_non_null(topo_port_add(ca, 1, NULL));
	assert_int_equal(topo_port_find(ca, 1, NULL)->num, 1);
	assert_int_equal(topo_port_find(ca, 9, NULL)->num, 9);
	assert_null(topo_port_find(ca, 2, NULL));
	assert_ptr_equal(topo_port_get(ca, 9, NULL), ca->ports[0]);
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(strlen(topo_port_get(sw, 0, long_name)->name), sizeof(sw->ports[0]->name) - 1);
	assert_int_equal(strlen(topo_node_add(t, TOPO_NODE_HOST, long_name, 0)->name),
			 sizeof(sw->name) - 1);
	assert_string_equal(topo_node_add(t, TOPO_NODE_HOST, NULL, 0)->name, "");
	assert_int_equal(topo_link_add(t, sw->ports[4], ca->ports[1], TOPO_SRC_SMP), 0);
	assert_int_equal(topo_link_add(t, sw->ports[1], ca->ports[0], TOPO_SRC_SMP), 0);
	topo_sort(t);
	assert_ptr_equal(t->links[0]->a, topo_port_find(sw, 1, NULL));
	assert_ptr_equal(t->links[1]->b, topo_port_find(ca, 1, NULL));
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup_ownership),
		cmocka_unit_test(test_link_rules),
		cmocka_unit_test(test_health_clean),
		cmocka_unit_test(test_health_faults),
		cmocka_unit_test(test_health_down_and_speed),
		cmocka_unit_test(test_health_tier_width),
		cmocka_unit_test(test_health_tier_speed),
		cmocka_unit_test(test_health_tier_limits),
		cmocka_unit_test(test_health_tier_plan),
		cmocka_unit_test(test_health_tier_eth),
		cmocka_unit_test(test_thresholds_parse),
		cmocka_unit_test(test_counter_list),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_reserved_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
