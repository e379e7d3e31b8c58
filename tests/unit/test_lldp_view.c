// SPDX-License-Identifier: GPL-2.0-or-later
/* LLDP views: JSON both ways, merge into a graph; MTU and plan rail checks. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/lldp_view.h"
#include "model/plan_yaml.h"
#include "model/topo_lldp_checks.h"
#include "util/array.h"

/* A host h1 (eth0 -> leaf1:swp1, eth1 -> leaf2:swp1) as its lldpd sees it. */
static void host_view(struct lldp_view *v, const char *name, unsigned int mtu)
{
	struct lldp_port *p;
	struct lldp_neighbor *n;

	lldp_view_init(v);
	snprintf(v->name, sizeof(v->name), "%s", name);
	snprintf(v->chassis_id, sizeof(v->chassis_id), "aa:bb:cc:00:00:01");
	v->cap_enabled = LLDP_VIEW_CAP_STATION;
	for (int i = 0; i < 2; i++) {
		char ifn[8], leaf[8];

		snprintf(ifn, sizeof(ifn), "eth%d", i);
		snprintf(leaf, sizeof(leaf), "leaf%d", i + 1);
		p = lldp_view_port_add(v, ifn);
		assert_non_null(p);
		p->mtu = mtu;
		snprintf(p->operstate, sizeof(p->operstate), "up");
		p->admin_up = true;
		n = lldp_port_neighbor_add(p);
		assert_non_null(n);
		snprintf(n->chassis_name, sizeof(n->chassis_name), "%s", leaf);
		snprintf(n->chassis_id, sizeof(n->chassis_id), "%s-id", leaf);
		snprintf(n->port_id, sizeof(n->port_id), "swp1");
		snprintf(n->port_descr, sizeof(n->port_descr), "to %s", name);
		n->ttl_s = 120;
		n->cap_enabled = LLDP_VIEW_CAP_BRIDGE;
	}
}

/* leaf1 as its own lldpd sees it: swp1 -> h1:eth0, MTU @mtu. */
static void leaf_view(struct lldp_view *v, unsigned int mtu)
{
	struct lldp_port *p;
	struct lldp_neighbor *n;

	lldp_view_init(v);
	snprintf(v->name, sizeof(v->name), "leaf1");
	v->cap_enabled = LLDP_VIEW_CAP_BRIDGE | LLDP_VIEW_CAP_ROUTER;
	p = lldp_view_port_add(v, "swp1");
	p->mtu = mtu;
	snprintf(p->operstate, sizeof(p->operstate), "up");
	p->admin_up = true;
	n = lldp_port_neighbor_add(p);
	snprintf(n->chassis_name, sizeof(n->chassis_name), "h1");
	snprintf(n->port_id, sizeof(n->port_id), "eth0");
	n->cap_enabled = LLDP_VIEW_CAP_STATION;
	p = lldp_view_port_add(v, "swp2");	/* no neighbor */
	p->mtu = mtu;
	snprintf(p->operstate, sizeof(p->operstate), "lowerlayerdown");
	p->admin_up = true;
}

static void test_json_roundtrip(void **state)
{
	struct lldp_view v, w;
	struct fab_err err;
	json_t *j;

	host_view(&v, "h1", 9000);
	v.ports[1].neighbors[0].mfs = 9018;
	j = lldp_view_to_json(&v);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "ports"), 0), "mtu")), 9000);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(json_array_get(
		json_object_get(j, "ports"), 0), "neighbors"), 0), "mfs")));
	lldp_view_init(&w);
	fab_err_init(&err);
	assert_int_equal(lldp_view_from_json(&w, j, &err), 0);
	assert_string_equal(w.name, "h1");
	assert_int_equal(w.cap_enabled, LLDP_VIEW_CAP_STATION);
	assert_int_equal(w.n_ports, 2);
	assert_string_equal(w.ports[1].name, "eth1");
	assert_int_equal(w.ports[1].mtu, 9000);
	assert_string_equal(w.ports[1].operstate, "up");
	assert_true(w.ports[1].admin_up);
	assert_int_equal(w.ports[1].n_neighbors, 1);
	assert_string_equal(w.ports[1].neighbors[0].chassis_name, "leaf2");
	assert_string_equal(w.ports[1].neighbors[0].port_descr, "to h1");
	assert_int_equal(w.ports[1].neighbors[0].ttl_s, 120);
	assert_int_equal(w.ports[1].neighbors[0].mfs, 9018);
	assert_int_equal(w.ports[1].neighbors[0].cap_enabled, LLDP_VIEW_CAP_BRIDGE);
	json_decref(j);
	lldp_view_fini(&v);
	lldp_view_fini(&w);
}

static void test_json_errors(void **state)
{
	static const struct {
		const char *json;
		const char *msg;
	} cases[] = {
		{ "[]", "lldp view: not an object" },
		{ "{\"name\":\"x\"}", "lldp view: ports: missing or not an array" },
		{ "{\"name\":3,\"ports\":[]}", "lldp view: view.name: not a string" },
		{ "{\"ports\":[{\"mtu\":1500}]}", "lldp view: ports[0].name: missing" },
		{ "{\"ports\":[{\"name\":\"e\",\"mtu\":-1}]}",
		  "lldp view: ports[0].mtu: not an integer in 0..1048576" },
		{ "{\"ports\":[{\"name\":\"e\",\"neighbors\":[{\"mfs\":70000}]}]}",
		  "lldp view: ports[0].neighbors[0].mfs: not an integer in 0..65535" },
		{ "{\"ports\":[{\"name\":\"e\",\"admin_up\":1}]}",
		  "lldp view: ports[0].admin_up: not a boolean" },
		{ "{\"ports\":[{\"name\":\"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\"}]}",
		  "lldp view: ports[0].name: string too long or has NUL" },
		{ "{\"ports\":[{\"name\":\"e\",\"neighbors\":{}}]}",
		  "lldp view: ports[0].neighbors: not an array" },
		{ "{\"capabilities\":[1],\"ports\":[]}", "lldp view: view.capabilities[0]: not a string" },
		{ "{\"mgmt_addresses\":[\"10.0.0.1\",\"nope\"],\"ports\":[]}",
		  "lldp view: view.mgmt_addresses[1]: not an IP address" },
		{ "{\"ports\":[{\"name\":\"e\",\"neighbors\":[{\"mgmt_addresses\":\"10.0.0.1\"}]}]}",
		  "lldp view: ports[0].neighbors[0].mgmt_addresses: not an array of at most 4096" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		json_t *j = json_loads(cases[i].json, 0, NULL);
		struct lldp_view v;
		struct fab_err err;

		assert_non_null(j);
		lldp_view_init(&v);
		fab_err_init(&err);
		assert_int_equal(lldp_view_from_json(&v, j, &err), -EINVAL);
		assert_string_equal(err.msg, cases[i].msg);
		assert_int_equal(err.kind, FAB_ERR_INPUT);
		lldp_view_fini(&v);
		json_decref(j);
	}
}

static void test_merge_both_ends(void **state)
{
	struct topo *t = topo_new();
	struct lldp_view h, l;
	unsigned int conflicts = 0;
	struct topo_node *leaf1, *h1;
	struct topo_port *p;

	host_view(&h, "h1", 1500);
	leaf_view(&l, 1500);
	assert_int_equal(lldp_view_merge(t, &h, &conflicts), 0);
	assert_int_equal(lldp_view_merge(t, &l, &conflicts), 0);
	assert_int_equal(conflicts, 0);
	assert_int_equal(t->n_nodes, 3);	/* h1, leaf1, leaf2 */
	assert_int_equal(t->n_links, 2);	/* the same h1-leaf1 cable seen twice is one */
	assert_true(t->src & TOPO_SRC_LLDP);
	h1 = topo_node_by_name(t, "h1");
	leaf1 = topo_node_by_name(t, "leaf1");
	assert_int_equal(h1->type, TOPO_NODE_HOST);
	assert_int_equal(leaf1->type, TOPO_NODE_SWITCH);
	assert_string_equal(leaf1->chassis_id, "leaf1-id");
	p = topo_port_find(leaf1, 0, "swp1");
	assert_non_null(p);
	assert_ptr_equal(p->peer, topo_port_find(h1, 0, "eth0"));
	assert_int_equal(p->mtu, 1500);
	assert_true(p->facts & TOPO_F_MTU);
	assert_true(p->facts & TOPO_F_STATE);
	assert_int_equal(p->state, TOPO_PORT_ACTIVE);
	/* unlinked, up but no carrier */
	p = topo_port_find(leaf1, 0, "swp2");
	assert_non_null(p);
	assert_null(p->peer);
	assert_int_equal(p->state, TOPO_PORT_DOWN);
	assert_int_equal(p->phys_state, TOPO_PHYS_POLLING);
	/* leaf2 only seen from h1: no MTU fact on its port */
	p = topo_port_find(topo_node_by_name(t, "leaf2"), 0, "swp1");
	assert_false(p->facts & TOPO_F_MTU);

	/* a second neighbor claiming h1:eth0 is a conflict, not a crash */
	strcpy(l.ports[0].neighbors[0].port_id, "eth9");
	strcpy(l.ports[0].name, "swp1");
	assert_int_equal(lldp_view_merge(t, &l, &conflicts), 0);
	assert_int_equal(conflicts, 1);
	assert_int_equal(t->n_links, 2);

	lldp_view_fini(&h);
	lldp_view_fini(&l);
	topo_free(t);
}

/*
 * Management addresses: carried both ways in JSON (normalised, once each),
 * and merged into the nodes' addresses, the local system's and each
 * neighbor's, leaving out loopback and link-local ones.
 */
static void test_mgmt_addresses(void **state)
{
	struct topo *t = topo_new();
	struct lldp_view h, w;
	struct lldp_neighbor *n;
	struct topo_node *leaf1, *h1;
	struct fab_err err;
	json_t *j;

	host_view(&h, "h1", 1500);
	assert_int_equal(lldp_mgmt_add(&h.mgmt, &h.n_mgmt, "10.77.1.1"), 0);
	assert_int_equal(lldp_mgmt_add(&h.mgmt, &h.n_mgmt, "FE80::1"), 0);
	assert_int_equal(lldp_mgmt_add(&h.mgmt, &h.n_mgmt, "10.77.1.1"), 0);	/* once */
	assert_int_equal(lldp_mgmt_add(&h.mgmt, &h.n_mgmt, "10.77.1"), -EINVAL);
	n = &h.ports[0].neighbors[0];
	assert_int_equal(lldp_mgmt_add(&n->mgmt, &n->n_mgmt, "10.77.255.1"), 0);
	assert_int_equal(lldp_mgmt_add(&n->mgmt, &n->n_mgmt, "10.77.1.254"), 0);
	assert_int_equal(lldp_mgmt_add(&n->mgmt, &n->n_mgmt, "127.0.0.1"), 0);
	assert_int_equal(h.n_mgmt, 2);
	assert_string_equal(h.mgmt[1], "fe80::1");

	j = lldp_view_to_json(&h);
	assert_non_null(j);
	lldp_view_init(&w);
	fab_err_init(&err);
	assert_int_equal(lldp_view_from_json(&w, j, &err), 0);
	assert_int_equal(w.n_mgmt, 2);
	assert_string_equal(w.mgmt[0], "10.77.1.1");
	assert_int_equal(w.ports[0].neighbors[0].n_mgmt, 3);
	assert_string_equal(w.ports[0].neighbors[0].mgmt[1], "10.77.1.254");
	assert_int_equal(w.ports[1].neighbors[0].n_mgmt, 0);

	assert_int_equal(lldp_view_merge(t, &w, NULL), 0);
	h1 = topo_node_by_name(t, "h1");
	leaf1 = topo_node_by_name(t, "leaf1");
	assert_int_equal(h1->n_addrs, 1);		/* fe80::1 left out */
	assert_string_equal(h1->addrs[0], "10.77.1.1");
	assert_int_equal(leaf1->n_addrs, 2);		/* 127.0.0.1 left out */
	assert_string_equal(leaf1->addrs[0], "10.77.255.1");
	assert_string_equal(leaf1->addrs[1], "10.77.1.254");
	assert_int_equal(topo_node_by_name(t, "leaf2")->n_addrs, 0);
	/* merging again adds nothing */
	assert_int_equal(lldp_view_merge(t, &w, NULL), 0);
	assert_int_equal(leaf1->n_addrs, 2);
	json_decref(j);
	lldp_view_fini(&h);
	lldp_view_fini(&w);
	topo_free(t);
}

static void test_mtu_both_ends(void **state)
{
	struct topo *t = topo_new();
	struct lldp_view h, l;

	host_view(&h, "h1", 9000);
	leaf_view(&l, 1500);
	assert_int_equal(lldp_view_merge(t, &h, NULL), 0);
	assert_int_equal(lldp_view_merge(t, &l, NULL), 0);
	assert_int_equal(topo_mtu_check(t, NULL), 0);
	assert_int_equal(t->n_problems, 1);
	assert_int_equal(t->problems[0].kind, TOPO_PROB_MTU_MISMATCH);
	assert_true(t->problems[0].has_a && t->problems[0].has_b);
	assert_string_equal(t->problems[0].detail, "mtu 9000 on \"h1\" eth0, 1500 on \"leaf1\" swp1");
	lldp_view_fini(&h);
	lldp_view_fini(&l);
	topo_free(t);
}

/* MFS vs MTU: [mtu+14, mtu+22] is equal, outside is a mismatch. */
static void test_mtu_mfs(void **state)
{
	static const struct {
		unsigned int mtu, mfs;
		size_t problems;
	} cases[] = {
		{ 9000, 1518, 1 }, { 1500, 1518, 0 }, { 1500, 1514, 0 }, { 1500, 1522, 0 },
		{ 1500, 1513, 1 }, { 1500, 1523, 1 }, { 9000, 9018, 0 }, { 1500, 9216, 1 },
		{ 1500, 0, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct topo *t = topo_new();
		struct lldp_view h;

		host_view(&h, "h1", cases[i].mtu);
		h.ports[0].neighbors[0].mfs = cases[i].mfs;
		assert_int_equal(lldp_view_merge(t, &h, NULL), 0);
		assert_int_equal(topo_mtu_check(t, NULL), 0);
		print_message("mtu %u mfs %u\n", cases[i].mtu, cases[i].mfs);
		assert_int_equal(t->n_problems, cases[i].problems);
		if (t->n_problems) {
			assert_string_equal(t->problems[0].a.port_name, "eth0");
			assert_string_equal(t->problems[0].b.node, "leaf1");
			assert_string_equal(t->problems[0].b.port_name, "swp1");
		}
		if (i == 0)
			assert_string_equal(t->problems[0].detail,
				"mtu 9000 on \"h1\" eth0, peer \"leaf1\" swp1 advertises max frame size 1518 (mtu 1500)");
		lldp_view_fini(&h);
		topo_free(t);
	}
}

static struct topo *plan_parse(const char *text, struct topo_rails *r)
{
	struct topo *p = topo_new();
	struct fab_err err;

	topo_rails_init(r);
	fab_err_init(&err);
	if (plan_yaml_parse(p, r, text, strlen(text), "p.yaml", &err) < 0)
		fail_msg("%s", err.msg);
	return p;
}

static void test_mtu_plan(void **state)
{
	struct topo_rails r;
	struct topo *plan = plan_parse("version: 1\ndefaults: {mtu: 9000}\nlinks:\n"
				       "  - [h1:eth0, leaf1:swp1]\n  - [h1:eth1, leaf2:swp1]\n", &r);
	struct topo *t = topo_new();
	struct lldp_view h;

	host_view(&h, "h1", 1500);
	assert_int_equal(lldp_view_merge(t, &h, NULL), 0);
	assert_int_equal(topo_mtu_check(t, plan), 0);
	assert_int_equal(t->n_problems, 2);
	topo_sort(t);
	assert_string_equal(t->problems[0].detail, "mtu 1500 on \"h1\" eth0, plan expects 9000");
	assert_string_equal(t->problems[1].detail, "mtu 1500 on \"h1\" eth1, plan expects 9000");
	lldp_view_fini(&h);
	topo_free(t);
	/* matching MTU: nothing */
	t = topo_new();
	host_view(&h, "h1", 9000);
	assert_int_equal(lldp_view_merge(t, &h, NULL), 0);
	assert_int_equal(topo_mtu_check(t, plan), 0);
	assert_int_equal(t->n_problems, 0);
	lldp_view_fini(&h);
	topo_free(t);
	topo_rails_fini(&r);
	topo_free(plan);
}

static void test_rails(void **state)
{
	static const char text[] =
		"version: 1\n"
		"nodes:\n"
		"  - { name: leaf1, rail: 0 }\n"
		"  - { name: leaf2, rail: 1 }\n"
		"  - { name: leaf3, rail: 0 }\n"
		"  - { name: h1, nics: [eth0, eth1] }\n"
		"links:\n"
		"  - [h1:eth0, leaf1:swp1]\n  - [h1:eth1, leaf2:swp1]\n";
	struct topo_rails r;
	struct topo *plan = plan_parse(text, &r);
	struct topo *t = topo_new();
	struct lldp_view h;

	/* aligned */
	host_view(&h, "h1", 1500);
	assert_int_equal(lldp_view_merge(t, &h, NULL), 0);
	assert_int_equal(topo_rail_plan_check(t, &r), 0);
	assert_int_equal(t->n_problems, 0);
	lldp_view_fini(&h);
	topo_free(t);

	/* NICs crossed: eth0 on leaf2 (rail 1), eth1 on leaf1 (rail 0) */
	t = topo_new();
	host_view(&h, "h1", 1500);
	strcpy(h.ports[0].neighbors[0].chassis_name, "leaf2");
	strcpy(h.ports[1].neighbors[0].chassis_name, "leaf1");
	assert_int_equal(lldp_view_merge(t, &h, NULL), 0);
	assert_int_equal(topo_rail_plan_check(t, &r), 0);
	assert_int_equal(t->n_problems, 2);
	assert_int_equal(t->problems[0].kind, TOPO_PROB_RAIL);
	assert_string_equal(t->problems[0].a.node, "h1");
	assert_string_equal(t->problems[0].a.port_name, "eth0");
	assert_string_equal(t->problems[0].b.node, "leaf2");
	assert_string_equal(t->problems[0].detail,
			    "nic 0 (rail 0) reaches leaf2 of rail 1; rail 0 leaves: leaf1, leaf3");
	assert_string_equal(t->problems[1].a.port_name, "eth1");
	lldp_view_fini(&h);
	topo_free(t);

	/* eth0 on leaf3: another leaf of the same rail is fine for the rail check */
	t = topo_new();
	host_view(&h, "h1", 1500);
	strcpy(h.ports[0].neighbors[0].chassis_name, "leaf3");
	assert_int_equal(lldp_view_merge(t, &h, NULL), 0);
	assert_int_equal(topo_rail_plan_check(t, &r), 0);
	assert_int_equal(t->n_problems, 0);
	lldp_view_fini(&h);
	topo_free(t);

	topo_rails_fini(&r);
	topo_free(plan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_json_errors),
		cmocka_unit_test(test_merge_both_ends),
		cmocka_unit_test(test_mgmt_addresses),
		cmocka_unit_test(test_mtu_both_ends),
		cmocka_unit_test(test_mtu_mfs),
		cmocka_unit_test(test_mtu_plan),
		cmocka_unit_test(test_rails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
