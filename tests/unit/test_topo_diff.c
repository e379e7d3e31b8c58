// SPDX-License-Identifier: GPL-2.0-or-later
/* topo_diff: missing, unexpected, miswired (with where it should go), degraded, down; rails. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/ibtopo_parse.h"
#include "model/topo_diff.h"

static const char plan_text[] =
	"Switch 8 \"leaf1\"\n"
	"[1] \"h1\"[1]  # 4xEDR\n[2] \"h2\"[1]  # 4xEDR\n[3] \"h3\"[1]  # 4xEDR\n"
	"[7] \"spine\"[1]  # 4xEDR\n\n"
	"Switch 8 \"spine\"\n[1] \"leaf1\"[7]\n\n"
	"Ca 1 \"h1\"\n[1] \"leaf1\"[1]\n\nCa 1 \"h2\"\n[1] \"leaf1\"[2]\n\n"
	"Ca 1 \"h3\"\n[1] \"leaf1\"[3]\n";

static struct topo *parse(const char *text, unsigned int src)
{
	struct topo *t = topo_new();
	struct fab_err err;

	fab_err_init(&err);
	if (ibtopo_parse(t, text, strlen(text), "x", src, &err) < 0)
		fail_msg("parse: %s", err.msg);
	/* Discovered ports know their state. */
	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++) {
			struct topo_port *p = t->nodes[i]->ports[j];

			p->facts |= TOPO_F_STATE;
			p->state = TOPO_PORT_ACTIVE;
			p->phys_state = TOPO_PHYS_LINKUP;
		}
	return t;
}

static struct topo *diff(const char *found_text, const char *plan)
{
	struct topo *found = parse(found_text, TOPO_SRC_SMP), *exp = parse(plan, TOPO_SRC_PLAN);

	assert_int_equal(topo_diff(found, exp, NULL), 0);
	topo_sort(found);
	topo_free(exp);
	return found;
}

static void test_identical(void **state)
{
	struct topo *t = diff(plan_text, plan_text);

	assert_int_equal(t->n_problems, 0);
	topo_free(t);
}

static void test_swapped(void **state)
{
	/* h1 and h2 swapped at the leaf. */
	struct topo *t = diff("Switch 8 \"leaf1\"\n[1] \"h2\"[1] # 4xEDR\n[2] \"h1\"[1] # 4xEDR\n"
			      "[3] \"h3\"[1] # 4xEDR\n[7] \"spine\"[1] # 4xEDR\n", plan_text);

	assert_int_equal(t->n_problems, 2);	/* one per wrong cable */
	for (size_t i = 0; i < 2; i++) {
		const struct topo_problem *p = &t->problems[i];

		assert_int_equal(p->kind, TOPO_PROB_MISWIRED);
		assert_true(p->has_expected);
	}
	/*
	 * Each wrong cable once, from the first planned end that is wrong:
	 * h1[1] sits on leaf1[2] but belongs on leaf1[1]; leaf1[1] has h2
	 * but should have h1.
	 */
	assert_string_equal(t->problems[0].a.node, "h1");
	assert_int_equal(t->problems[0].a.port, 1);
	assert_string_equal(t->problems[0].b.node, "leaf1");
	assert_int_equal(t->problems[0].b.port, 2);
	assert_string_equal(t->problems[0].expected.node, "leaf1");
	assert_int_equal(t->problems[0].expected.port, 1);
	assert_string_equal(t->problems[0].detail, "should go to \"leaf1\"[1]");
	assert_string_equal(t->problems[1].a.node, "leaf1");
	assert_int_equal(t->problems[1].a.port, 1);
	assert_string_equal(t->problems[1].b.node, "h2");
	assert_string_equal(t->problems[1].expected.node, "h1");
	assert_string_equal(t->problems[1].detail, "should go to \"h1\"[1]");
	/* The links carry the cabling problem too (not "ok" beside "miswired"). */
	{
		const struct topo_node *leaf = topo_node_by_name(t, "leaf1");

		assert_int_equal(topo_port_find(leaf, 1, NULL)->link->status, TOPO_LINK_MISWIRED);
		assert_int_equal(topo_port_find(leaf, 2, NULL)->link->status, TOPO_LINK_MISWIRED);
		assert_int_equal(topo_port_find(leaf, 3, NULL)->link->status, TOPO_LINK_OK);
		assert_string_equal(topo_link_status_name(TOPO_LINK_MISWIRED), "miswired");
	}
	topo_free(t);
}

static void test_missing_unexpected(void **state)
{
	/* h3 unplugged (node gone); a new h4 on port 4. */
	struct topo *t = diff("Switch 8 \"leaf1\"\n[1] \"h1\"[1] # 4xEDR\n[2] \"h2\"[1] # 4xEDR\n"
			      "[4] \"h4\"[1] # 4xEDR\n[7] \"spine\"[1] # 4xEDR\n", plan_text);

	assert_int_equal(t->n_problems, 2);
	assert_int_equal(t->problems[0].kind, TOPO_PROB_MISSING);
	assert_string_equal(t->problems[0].a.node, "leaf1");
	assert_int_equal(t->problems[0].a.port, 3);
	assert_string_equal(t->problems[0].expected.node, "h3");
	assert_string_equal(t->problems[0].detail, "no cable to \"h3\"[1] (peer node not found)");
	assert_int_equal(t->problems[1].kind, TOPO_PROB_UNEXPECTED);
	assert_string_equal(t->problems[1].a.node, "leaf1");
	assert_int_equal(t->problems[1].a.port, 4);
	assert_string_equal(t->problems[1].b.node, "h4");
	assert_int_equal(topo_port_find(topo_node_by_name(t, "leaf1"), 4, NULL)->link->status,
			 TOPO_LINK_UNEXPECTED);
	assert_string_equal(topo_link_status_name(TOPO_LINK_UNEXPECTED), "unexpected");
	topo_free(t);
}

static void test_degraded_and_down(void **state)
{
	struct topo *found = parse("Switch 8 \"leaf1\"\n[1] \"h1\"[1] # 1xEDR\n[2] \"h2\"[1] # 4xQDR\n"
				   "[7] \"spine\"[1] # 4xEDR\n", TOPO_SRC_SMP);
	struct topo *exp = parse(plan_text, TOPO_SRC_PLAN);
	struct topo_node *leaf = topo_node_by_name(found, "leaf1");
	struct topo_port *p3 = topo_port_get(leaf, 3, NULL);

	/* leaf1[3] is there but polling: the planned cable is down, not just missing. */
	p3->facts = TOPO_F_STATE;
	p3->state = TOPO_PORT_DOWN;
	p3->phys_state = TOPO_PHYS_POLLING;
	assert_int_equal(topo_diff(found, exp, NULL), 0);
	topo_sort(found);
	assert_int_equal(found->n_problems, 3);
	assert_int_equal(found->problems[0].kind, TOPO_PROB_DEGRADED);
	assert_int_equal(found->problems[0].a.port, 1);
	assert_string_equal(found->problems[0].detail, "width 1x, expected 4x");
	assert_int_equal(found->problems[1].kind, TOPO_PROB_DEGRADED);
	assert_int_equal(found->problems[1].a.port, 2);
	assert_string_equal(found->problems[1].detail, "speed QDR, expected EDR");
	assert_int_equal(found->problems[2].kind, TOPO_PROB_DOWN);
	assert_int_equal(found->problems[2].a.port, 3);
	assert_string_equal(found->problems[2].expected.node, "h3");
	assert_int_equal(topo_port_find(leaf, 1, NULL)->link->status, TOPO_LINK_DEGRADED);
	topo_free(found);
	topo_free(exp);
}

static void test_guid_match(void **state)
{
	/* A plan by GUID matches nodes whose names changed; another GUID does not match. */
	struct topo *found = parse("Switch 8 \"S-0000000000000010\" # \"renamed\"\n"
				   "[1] \"H-0000000000000020\"[1] # \"hx\" lid 1 4xEDR\n",
				   TOPO_SRC_SMP);
	struct topo *exp = parse("Switch 8 \"S-0000000000000010\" # \"leaf\"\n"
				 "[1] \"H-0000000000000021\"[1] # \"hx\" lid 1 4xEDR\n",
				 TOPO_SRC_PLAN);

	assert_int_equal(topo_diff(found, exp, NULL), 0);
	topo_sort(found);
	assert_int_equal(found->n_problems, 1);
	assert_int_equal(found->problems[0].kind, TOPO_PROB_MISWIRED);
	assert_string_equal(found->problems[0].a.node, "renamed");
	assert_int_equal(found->problems[0].expected.guid, 0x21);
	topo_free(found);
	topo_free(exp);
}

static void test_rails(void **state)
{
	/* Two hosts, two NICs each; rail 0 on leafA, rail 1 on leafB; node2's NICs swapped. */
	struct topo *t = parse("Switch 8 \"leafA\"\n[1] \"node1 mlx5_0\"[1]\n[2] \"node2 mlx5_1\"[1]\n"
			       "[3] \"node3 mlx5_0\"[1]\n\n"
			       "Switch 8 \"leafB\"\n[1] \"node1 mlx5_1\"[1]\n[2] \"node2 mlx5_0\"[1]\n"
			       "[3] \"node3 mlx5_1\"[1]\n", TOPO_SRC_SMP);

	assert_int_equal(topo_rail_check(t), 0);
	topo_sort(t);
	assert_int_equal(t->n_problems, 2);
	assert_int_equal(t->problems[0].kind, TOPO_PROB_RAIL);
	assert_string_equal(t->problems[0].a.node, "node2 mlx5_0");
	assert_string_equal(t->problems[0].b.node, "leafB");
	assert_string_equal(t->problems[1].a.node, "node2 mlx5_1");
	assert_string_equal(t->problems[1].b.node, "leafA");
	assert_int_equal(topo_port_find(topo_node_by_name(t, "leafB"), 2, NULL)->link->status,
			 TOPO_LINK_RAIL);
	assert_int_equal(topo_port_find(topo_node_by_name(t, "leafB"), 1, NULL)->link->status,
			 TOPO_LINK_OK);
	topo_free(t);
}

/* Ethernet: a plan's speed_mbps against the speed the nodes report (eth_mbps). */
static void test_eth_speed(void **state)
{
	struct topo *found = topo_new(), *plan = topo_new();
	struct topo_node *fl = topo_node_add(found, TOPO_NODE_SWITCH, "leaf0", 0);
	struct topo_node *pl = topo_node_add(plan, TOPO_NODE_SWITCH, "leaf0", 0);

	for (unsigned int i = 0; i < 3; i++) {
		char name[16], port[16];
		struct topo_port *a, *b, *pa, *pb;

		snprintf(name, sizeof(name), "host%u", i);
		snprintf(port, sizeof(port), "swp%u", i + 1);
		a = topo_port_get(topo_node_add(found, TOPO_NODE_HOST, name, 0), 0, "eth0");
		b = topo_port_get(fl, 0, port);
		a->eth_mbps = i == 1 ? 25000 : i == 2 ? 0 : 100000;	/* host2: unknown */
		assert_int_equal(topo_link_add(found, a, b, TOPO_SRC_LLDP), 0);
		pa = topo_port_get(topo_node_add(plan, TOPO_NODE_HOST, name, 0), 0, "eth0");
		pb = topo_port_get(pl, 0, port);
		pa->width_x = pb->width_x = 1;
		pa->lane_mbps = pb->lane_mbps = 100000;
		pa->facts = pb->facts = TOPO_F_WIDTH | TOPO_F_SPEED;
		assert_int_equal(topo_link_add(plan, pa, pb, TOPO_SRC_PLAN), 0);
	}
	assert_int_equal(topo_diff(found, plan, NULL), 0);
	assert_int_equal(found->n_problems, 1);
	assert_int_equal(found->problems[0].kind, TOPO_PROB_DEGRADED);
	assert_string_equal(found->problems[0].a.node, "host1");
	assert_string_equal(found->problems[0].detail, "speed 25000 Mb/s, expected 100000 Mb/s");
	topo_free(found);
	topo_free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_swapped),
		cmocka_unit_test(test_missing_unexpected),
		cmocka_unit_test(test_degraded_and_down),
		cmocka_unit_test(test_guid_match),
		cmocka_unit_test(test_rails),
		cmocka_unit_test(test_eth_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
