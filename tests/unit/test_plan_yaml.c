// SPDX-License-Identifier: GPL-2.0-or-later
/* YAML cabling plans: parser, writer, errors with positions. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/plan_yaml.h"
#include "util/array.h"

static const char plan_ok[] =
	"# two rails, two hosts\n"
	"version: 1\n"
	"defaults: { mtu: 9000, speed_mbps: 100000 }\n"
	"nodes:\n"
	"  - { name: leaf1, type: switch, rail: 0 }\n"
	"  - { name: leaf2, rail: 1 }\n"
	"  - { name: h1, type: host, nics: [eth0, eth1] }\n"
	"  - { name: ibsw, type: switch, guid: 0x0002c90000000001 }\n"
	"links:\n"
	"  - a: h1:eth0\n"
	"    b: leaf1:swp1\n"
	"  - [ \"h1:eth1\", \"leaf2:swp1\" ]\n"
	"  - { a: h2:eth0, b: leaf1:swp2, mtu: 1500 }\n"
	"  - { a: ibsw:3, b: { node: hca1, port: 1 }, width: 4, speed: EDR }\n"
	"  - { a: { node: odd, port: \"7\" }, b: leaf2:swp49 }\n";

static int parse(const char *text, struct topo **t, struct topo_rails *r, struct fab_err *err)
{
	*t = topo_new();
	assert_non_null(*t);
	topo_rails_init(r);
	fab_err_init(err);
	return plan_yaml_parse(*t, r, text, strlen(text), "p.yaml", err);
}

static struct topo_port *port(struct topo *t, const char *node, unsigned int num, const char *name)
{
	struct topo_node *n = topo_node_by_name(t, node);

	assert_non_null(n);
	return topo_port_find(n, num, name);
}

static void test_parse_ok(void **state)
{
	struct topo_rails r;
	struct fab_err err;
	struct topo *t;
	struct topo_port *p;

	assert_int_equal(parse(plan_ok, &t, &r, &err), 0);
	assert_int_equal(t->n_links, 5);
	assert_int_equal(t->src, TOPO_SRC_PLAN);
	/* types: declared, implied by rail, implied by numbered port, default host */
	assert_int_equal(topo_node_by_name(t, "leaf1")->type, TOPO_NODE_SWITCH);
	assert_int_equal(topo_node_by_name(t, "leaf2")->type, TOPO_NODE_SWITCH);
	assert_int_equal(topo_node_by_name(t, "hca1")->type, TOPO_NODE_CA);
	assert_int_equal(topo_node_by_name(t, "h2")->type, TOPO_NODE_HOST);
	assert_true(topo_node_by_guid(t, 0x0002c90000000001ull) == topo_node_by_name(t, "ibsw"));
	/* Named only in links: marked so (sweep --topology may find a switch there). */
	assert_int_equal(topo_node_by_name(t, "h2")->src, TOPO_SRC_PLAN | TOPO_SRC_IMPLIED);
	assert_int_equal(topo_node_by_name(t, "hca1")->src, TOPO_SRC_PLAN | TOPO_SRC_IMPLIED);
	assert_int_equal(topo_node_by_name(t, "h1")->src, TOPO_SRC_PLAN);
	assert_int_equal(topo_node_by_name(t, "leaf2")->src, TOPO_SRC_PLAN);

	p = port(t, "h1", 0, "eth0");
	assert_non_null(p);
	assert_string_equal(p->peer->node->name, "leaf1");
	assert_string_equal(p->peer->name, "swp1");
	assert_int_equal(p->mtu, 9000);
	assert_true(p->facts & TOPO_F_MTU);
	assert_int_equal(p->lane_mbps, 100000);
	assert_int_equal(p->width_x, 1);
	assert_int_equal(p->peer->mtu, 9000);
	assert_int_equal(p->src, TOPO_SRC_PLAN);

	p = port(t, "h1", 0, "eth1");
	assert_string_equal(p->peer->node->name, "leaf2");
	/* per-link override of the default */
	assert_int_equal(port(t, "h2", 0, "eth0")->mtu, 1500);
	/* IB: port numbers, width and speed name */
	p = port(t, "ibsw", 3, NULL);
	assert_non_null(p);
	assert_int_equal(p->peer->num, 1);
	assert_string_equal(p->peer->node->name, "hca1");
	assert_int_equal(p->width_x, 4);
	assert_int_equal(p->lane_mbps, topo_speed_parse("EDR"));
	/* a quoted all-digit port is a name */
	assert_non_null(port(t, "odd", 0, "7"));

	assert_int_equal(r.n_leaves, 2);
	assert_string_equal(r.leaves[1].node, "leaf2");
	assert_int_equal(r.leaves[1].rail, 1);
	assert_int_equal(r.n_nics, 2);
	assert_string_equal(r.nics[1].port, "eth1");
	assert_int_equal(r.nics[1].rail, 1);
	topo_rails_fini(&r);
	topo_free(t);
}

/* Numbers are decimal like the profile's: a leading zero is not octal. */
static void test_parse_decimal(void **state)
{
	static const char text[] =
		"version: 01\n"
		"defaults: { mtu: 09000 }\n"
		"nodes:\n"
		"  - { name: leaf1, rail: 010 }\n"
		"  - { name: sw, type: switch, guid: 0x10 }\n"
		"  - { name: sw2, type: switch, guid: 010 }\n"
		"links:\n"
		"  - { a: h1:eth0, b: leaf1:swp1, mtu: 01500 }\n"
		"  - { a: sw:010, b: { node: hca1, port: 08 }, width: 04, speed_mbps: 0100 }\n";
	struct topo_rails r;
	struct fab_err err;
	struct topo *t;

	assert_int_equal(parse(text, &t, &r, &err), 0);
	assert_int_equal(port(t, "h1", 0, "eth0")->mtu, 1500);
	assert_int_equal(port(t, "sw", 10, NULL)->peer->mtu, 9000);
	assert_non_null(port(t, "hca1", 8, NULL));
	assert_int_equal(port(t, "sw", 10, NULL)->width_x, 4);
	assert_int_equal(topo_node_by_name(t, "sw")->guid, 16);
	assert_int_equal(topo_node_by_name(t, "sw2")->guid, 10);
	topo_rails_fini(&r);
	topo_free(t);
}

struct bad_case {
	const char *text;
	const char *msg;	/* exact error message */
};

static void test_parse_errors(void **state)
{
	static const struct bad_case cases[] = {
		{ "", "p.yaml:1:1: empty plan (expected 'version: 1')" },
		{ "links: []\n", "p.yaml:1:1: plan: needs 'version: 1'" },
		{ "version: 2\n", "p.yaml:1:10: version: 2 out of range 1..1" },
		{ "version: 1\nlinkz: []\n", "p.yaml:2:1: plan: unknown key 'linkz' (known: version, defaults, nodes, links)" },
		{ "version: 1\nversion: 1\n", "p.yaml:2:1: plan: duplicate key 'version'" },
		{ "version: 1\nlinks:\n  - [a:1]\n",
		  "p.yaml:3:5: link: a list form link has exactly two ends, not 1" },
		{ "version: 1\nlinks:\n  - { a: h1, b: s:1 }\n", "p.yaml:3:10: a: 'h1' is not NODE:PORT" },
		{ "version: 1\nlinks:\n  - { a: h1:eth0, b: s:swp1, mtu: 12 }\n",
		  "p.yaml:3:35: mtu: 12 out of range 68..65535" },
		{ "version: 1\nlinks:\n  - { a: h1:eth0, b: s:swp1, mtu: big }\n",
		  "p.yaml:3:35: mtu: expected a number, found 'big'" },
		{ "version: 1\nlinks:\n  - { a: h1:eth0, b: s:swp1 }\n  - { a: h1:eth0, b: s:swp2 }\n",
		  "p.yaml:4:5: link 2: h1:eth0 is already cabled to s:swp1" },
		{ "version: 1\nlinks:\n  - { a: h1:eth0, b: h1:eth0 }\n",
		  "p.yaml:3:5: link 1: h1:eth0 is cabled to itself" },
		{ "version: 1\nnodes:\n  - { name: a }\n  - { name: a }\n",
		  "p.yaml:4:13: node 'a' declared twice" },
		{ "version: 1\nnodes:\n  - { name: h, type: host, rail: 1 }\n",
		  "p.yaml:3:34: rail: only a switch (a leaf) serves a rail" },
		{ "version: 1\nnodes:\n  - { name: h, type: hub }\n",
		  "p.yaml:3:22: type: 'hub' is not one of switch, ca, host, router" },
		{ "version: 1\nlinks:\n  - { a: s:1, b: t:1, speed: LDR }\n",
		  "p.yaml:3:30: speed: unknown InfiniBand speed 'LDR' (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)" },
		{ "version: 1\nlinks: {}\n", "p.yaml:2:8: links: expected a list, found a mapping" },
		{ "version: 1\nlinks:\n  - { a: s:999, b: t:1 }\n",
		  "p.yaml:3:10: a: port number 999 out of range 0..255" },
		{ "version: 1\nlinks: [\n", "p.yaml:3:1: did not find expected node content while parsing a flow node" },
		{ "version: 1\n---\nversion: 1\n", "p.yaml:2:1: a plan is one YAML document" },
		{ "version: 1\nnodes:\n  - { name: s, addresses: [10.0.0.1, 10.0.0.300] }\n",
		  "p.yaml:3:38: addresses: '10.0.0.300' is not an IPv4 or IPv6 address" },
		{ "version: 1\nnodes:\n  - { name: s, addresses: 10.0.0.1 }\n",
		  "p.yaml:3:27: addresses: expected a list, found a scalar" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct topo_rails r;
		struct fab_err err;
		struct topo *t;

		print_message("case %zu\n", i);
		assert_int_equal(parse(cases[i].text, &t, &r, &err), -EINVAL);
		assert_string_equal(err.msg, cases[i].msg);
		assert_int_equal(err.kind, FAB_ERR_INPUT);
		topo_rails_fini(&r);
		topo_free(t);
	}
}

static void test_sniff(void **state)
{
	assert_true(plan_yaml_sniff("# c\n\nversion: 1\n", 15));
	assert_true(plan_yaml_sniff("  links:\n", 9));
	assert_true(plan_yaml_sniff("---\n", 4));
	assert_false(plan_yaml_sniff("#\nvendid=0x2c9\nSwitch 8 \"S-1\"\n", 30));
	assert_false(plan_yaml_sniff("Switch 8 \"S-1\"\n", 15));
	assert_false(plan_yaml_sniff("", 0));
	assert_false(plan_yaml_sniff("# only a comment\n", 17));
}

/* The writer's output parses back to the same links, MTUs, types and GUIDs. */
static void test_write_roundtrip(void **state)
{
	struct topo_rails r, r2;
	struct fab_err err;
	struct topo *t, *t2;
	char *buf = NULL;
	size_t len = 0;
	struct strbuf sb;

	assert_int_equal(parse(plan_ok, &t, &r, &err), 0);
	strbuf_init(&sb);
	assert_int_equal(plan_yaml_format(t, &sb), 0);
	buf = strbuf_take(&sb, &len);
	assert_non_null(buf);
	assert_true(plan_yaml_sniff(buf, len));
	t2 = topo_new();
	topo_rails_init(&r2);
	fab_err_init(&err);
	if (plan_yaml_parse(t2, &r2, buf, len, "w.yaml", &err) < 0)
		fail_msg("%s\n---\n%s", err.msg, buf);
	assert_int_equal(t2->n_links, t->n_links);
	assert_int_equal(t2->n_nodes, t->n_nodes);
	for (size_t i = 0; i < t->n_links; i++) {
		const struct topo_port *a = t->links[i]->a, *b = t->links[i]->b;
		const struct topo_node *n2 = topo_node_by_name(t2, a->node->name);
		const struct topo_port *a2;

		assert_non_null(n2);
		assert_int_equal(n2->type, a->node->type);
		assert_true(n2->guid == a->node->guid);
		a2 = topo_port_find(n2, a->num, a->name);
		assert_non_null(a2);
		assert_non_null(a2->peer);
		assert_string_equal(a2->peer->node->name, b->node->name);
		assert_string_equal(a2->peer->name, b->name);
		assert_int_equal(a2->peer->num, b->num);
		assert_int_equal(a2->mtu, a->mtu);
		assert_int_equal(a2->lane_mbps, a->lane_mbps);
		assert_int_equal(a2->width_x ? a2->width_x : 1, a->width_x ? a->width_x : 1);
	}
	free(buf);
	topo_rails_fini(&r);
	topo_rails_fini(&r2);
	topo_free(t);
	topo_free(t2);
}

/* Names that need quoting or the mapping form survive the round trip. */
static void test_write_odd_names(void **state)
{
	struct topo *t = topo_new(), *t2 = topo_new();
	struct topo_node *a = topo_node_add(t, TOPO_NODE_HOST, "host: with colon", 0);
	struct topo_node *b = topo_node_add(t, TOPO_NODE_SWITCH, "sw #1", 0);
	struct fab_err err;
	char *buf = NULL;
	size_t len = 0;
	struct strbuf sb;

	assert_int_equal(topo_link_add(t, topo_port_get(a, 0, "eth0"), topo_port_get(b, 0, "12"),
				       TOPO_SRC_LLDP), 0);
	/* a port name with a colon (found by fuzzing: "odd::" did not read back) */
	assert_int_equal(topo_link_add(t, topo_port_get(a, 0, "eth1"), topo_port_get(b, 0, "Eth1/1:2"),
				       TOPO_SRC_LLDP), 0);
	strbuf_init(&sb);
	assert_int_equal(plan_yaml_format(t, &sb), 0);
	buf = strbuf_take(&sb, &len);
	assert_non_null(buf);
	fab_err_init(&err);
	if (plan_yaml_parse(t2, NULL, buf, len, "w.yaml", &err) < 0)
		fail_msg("%s\n---\n%s", err.msg, buf);
	assert_non_null(topo_node_by_name(t2, "host: with colon"));
	assert_non_null(topo_port_find(topo_node_by_name(t2, "sw #1"), 0, "12"));
	assert_string_equal(topo_port_find(topo_node_by_name(t2, "sw #1"), 0, "12")->peer->name, "eth0");
	assert_non_null(topo_port_find(topo_node_by_name(t2, "sw #1"), 0, "Eth1/1:2"));
	assert_string_equal(topo_port_find(topo_node_by_name(t2, "sw #1"), 0, "Eth1/1:2")->peer->name, "eth1");
	free(buf);
	topo_free(t);
	topo_free(t2);
}

/*
 * addresses: a node's IP addresses, kept in inet_ntop(3)'s form, once each;
 * written back as a flow list (IPv6 quoted) and read back the same.
 */
static void test_addresses(void **state)
{
	static const char text[] =
		"version: 1\n"
		"nodes:\n"
		"  - { name: spine1, type: switch, addresses: [10.0.255.0, \"FD00:0::1\", 10.0.255.0] }\n"
		"  - { name: h1, addresses: [] }\n"
		"links:\n"
		"  - [ \"h1:eth0\", \"spine1:swp1\" ]\n";
	static const char want[] =
		"# fabricctl cabling plan (fabricctl-plan(5)), written by discover --save-plan\n"
		"version: 1\n"
		"nodes:\n"
		"- {name: spine1, type: switch, addresses: [10.0.255.0, \"fd00::1\"]}\n"
		"- {name: h1, type: host}\n"
		"links:\n"
		"- a: spine1:swp1\n"
		"  b: h1:eth0\n";
	struct topo_rails r;
	struct fab_err err;
	struct topo *t, *t2;
	struct topo_node *n;
	struct strbuf sb;
	char *buf;
	size_t len;

	assert_int_equal(parse(text, &t, &r, &err), 0);
	n = topo_node_by_name(t, "spine1");
	assert_int_equal(n->n_addrs, 2);
	assert_string_equal(n->addrs[0], "10.0.255.0");
	assert_string_equal(n->addrs[1], "fd00::1");
	assert_int_equal(topo_node_by_name(t, "h1")->n_addrs, 0);
	assert_int_equal(topo_node_addr_add(n, "nonsense"), -EINVAL);
	topo_sort(t);
	strbuf_init(&sb);
	assert_int_equal(plan_yaml_format(t, &sb), 0);
	buf = strbuf_take(&sb, &len);
	assert_string_equal(buf, want);
	t2 = topo_new();
	fab_err_init(&err);
	assert_int_equal(plan_yaml_parse(t2, NULL, buf, len, "w.yaml", &err), 0);
	n = topo_node_by_name(t2, "spine1");
	assert_int_equal(n->n_addrs, 2);
	assert_string_equal(n->addrs[1], "fd00::1");
	free(buf);
	topo_rails_fini(&r);
	topo_free(t);
	topo_free(t2);
}

/* The writer's exact output for a small LLDP graph (a golden text). */
static void test_write_golden(void **state)
{
	static const char want[] =
		"# fabricctl cabling plan (fabricctl-plan(5)), written by discover --save-plan\n"
		"version: 1\n"
		"nodes:\n"
		"- {name: leaf1, type: switch}\n"
		"- {name: h1, type: host}\n"
		"links:\n"
		"- a: leaf1:swp1\n"
		"  b: h1:eth0\n"
		"  mtu: 9000\n"
		"- a: leaf1:swp2\n"
		"  b: h1:eth1\n";
	struct topo *t = topo_new();
	struct topo_node *leaf = topo_node_add(t, TOPO_NODE_SWITCH, "leaf1", 0);
	struct topo_node *h = topo_node_add(t, TOPO_NODE_HOST, "h1", 0);
	struct topo_port *p;
	char *buf = NULL;
	size_t len = 0;
	struct strbuf sb;

	p = topo_port_get(h, 0, "eth0");
	p->mtu = 9000;
	p->facts |= TOPO_F_MTU;
	assert_int_equal(topo_link_add(t, topo_port_get(leaf, 0, "swp1"), p, TOPO_SRC_LLDP), 0);
	/* ends that disagree on MTU: no mtu written */
	p = topo_port_get(h, 0, "eth1");
	p->mtu = 9000;
	p->facts |= TOPO_F_MTU;
	assert_int_equal(topo_link_add(t, topo_port_get(leaf, 0, "swp2"), p, TOPO_SRC_LLDP), 0);
	p = topo_port_find(leaf, 0, "swp2");
	p->mtu = 1500;
	p->facts |= TOPO_F_MTU;
	topo_node_add(t, TOPO_NODE_HOST, "lonely", 0);	/* no links: not written */
	topo_sort(t);
	strbuf_init(&sb);
	assert_int_equal(plan_yaml_format(t, &sb), 0);
	buf = strbuf_take(&sb, &len);
	assert_non_null(buf);
	assert_string_equal(buf, want);
	free(buf);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_sniff),
		cmocka_unit_test(test_parse_decimal),
		cmocka_unit_test(test_write_roundtrip),
		cmocka_unit_test(test_write_odd_names),
		cmocka_unit_test(test_write_golden),
		cmocka_unit_test(test_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
