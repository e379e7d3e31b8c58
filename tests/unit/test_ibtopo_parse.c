// SPDX-License-Identifier: GPL-2.0-or-later
/* ibnetdiscover topology files: parse, errors with file:line:col, write, round trip. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/ibtopo_parse.h"

/* What ibnetdiscover printed for ibsim's net.2sw2path4hca (trimmed to 2 CAs). */
static const char ibnet[] =
	"#\n# Topology file: generated on Mon Nov 30 12:55:16 2026\n#\n"
	"# Initiated from node 0000000000200000 port 0000000000200000\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x200001\nswitchguid=0x200001(200001)\n"
	"Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
	"[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n"
	"[3]\t\"S-0000000000200000\"[3]\t\t# \"Switch1\" lid 1 4xSDR\n"
	"[5]\t\"S-0000000000200000\"[5]\t\t# \"Switch1\" lid 1 1xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x200000\nswitchguid=0x200000(200000)\n"
	"Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000100000\"[1](100001) \t\t# \"Hca1\" lid 2 4xSDR\n"
	"[3]\t\"S-0000000000200001\"[3]\t\t# \"Switch2\" lid 3 4xSDR\n"
	"[5]\t\"S-0000000000200001\"[5]\t\t# \"Switch2\" lid 3 1xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x100003\ncaguid=0x100003\n"
	"Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
	"[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 3 4xSDR\n\n"
	"vendid=0x0\ndevid=0x0\nsysimgguid=0x100000\ncaguid=0x100000\n"
	"Ca\t2 \"H-0000000000100000\"\t\t# \"Hca1\"\n"
	"[1](100001) \t\"S-0000000000200000\"[1]\t\t# lid 2 lmc 0 \"Switch1\" lid 1 4xSDR\n";

static struct topo *parse_ok(const char *text)
{
	struct topo *t = topo_new();
	struct fab_err err;

	fab_err_init(&err);
	if (ibtopo_parse(t, text, strlen(text), "plan.topo", TOPO_SRC_PLAN, &err) < 0)
		fail_msg("unexpected error: %s", err.msg);
	return t;
}

static void parse_err(const char *text, const char *want)
{
	struct topo *t = topo_new();
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(ibtopo_parse(t, text, strlen(text), "plan.topo", TOPO_SRC_PLAN, &err),
			 -EINVAL);
	assert_int_equal(err.kind, FAB_ERR_INPUT);
	if (strcmp(err.msg, want) != 0)
		fail_msg("error '%s', expected '%s'", err.msg, want);
	topo_free(t);
}

static void test_ibnetdiscover_output(void **state)
{
	struct topo *t = parse_ok(ibnet);
	struct topo_node *sw1, *sw2, *hca1;
	struct topo_port *p;

	assert_int_equal(t->n_nodes, 4);
	assert_int_equal(t->n_links, 4);	/* each cable listed from both ends, counted once */
	sw1 = topo_node_by_guid(t, 0x200000);
	sw2 = topo_node_by_guid(t, 0x200001);
	hca1 = topo_node_by_guid(t, 0x100000);
	assert_non_null(sw1);
	assert_non_null(sw2);
	assert_non_null(hca1);
	assert_string_equal(sw1->name, "Switch1");	/* GUID ids: the name is the description */
	assert_string_equal(hca1->name, "Hca1");
	assert_int_equal(sw1->type, TOPO_NODE_SWITCH);
	assert_int_equal(hca1->type, TOPO_NODE_CA);
	assert_int_equal(sw1->n_ports_max, 8);
	assert_int_equal(sw1->sysimg_guid, 0x200000);
	p = topo_port_find(hca1, 1, NULL);
	assert_non_null(p);
	assert_int_equal(p->guid, 0x100001);
	assert_ptr_equal(p->peer, topo_port_find(sw1, 1, NULL));
	assert_int_equal(p->width_x, 4);
	assert_int_equal(p->lane_mbps, 2500);
	assert_true(p->facts & TOPO_F_WIDTH);
	p = topo_port_find(sw1, 5, NULL);
	assert_ptr_equal(p->peer, topo_port_find(sw2, 5, NULL));
	assert_int_equal(p->width_x, 1);
	assert_true(p->link->src & TOPO_SRC_PLAN);
	topo_free(t);
}

static void test_ibsim_netfile(void **state)
{
	struct topo *t = parse_ok("# ibsim netfile\nSwitch\t8 \"sw1\"\n[1]\t\"hca1\"[1] w=1\n"
				  "[2] \"hca2\"[1]\n\nHca 2 \"hca1\"\n[1] \"sw1\"[1] w=1\n\n"
				  "Hca\t2 \"hca2\"\n[1]\t\"sw1\"[2]\n");
	struct topo_node *sw = topo_node_by_name(t, "sw1");

	assert_int_equal(t->n_nodes, 3);
	assert_int_equal(t->n_links, 2);
	assert_int_equal(sw->guid, 0);		/* plain ids carry no GUID */
	assert_string_equal(topo_port_find(sw, 2, NULL)->peer->node->name, "hca2");
	assert_int_equal(topo_node_by_name(t, "hca1")->type, TOPO_NODE_CA);
	topo_free(t);
}

static void test_errors(void **state)
{
	parse_err("Switch 8 \"sw1\"\n[9] \"h\"[1]\n", "plan.topo:2:2: port 9 out of range 1..8");
	parse_err("[1] \"h\"[1]\n", "plan.topo:1:1: port line before any node header");
	parse_err("Switch 8 \"sw1\n", "plan.topo:1:10: unterminated string");
	parse_err("Switch 8 \"sw1\"\n[1] \"h\"[1]\n[2] \"h\"[1]\n",
		  "plan.topo:3:1: 'h'[1] is already linked to 'sw1'[1]");
	parse_err("Switch 8 \"sw1\"\nSwitch 4 \"sw1\"\n", "plan.topo:2:10: node 'sw1' defined twice");
	parse_err("Router 8 \"x\"\n",
		  "plan.topo:1:1: expected Switch, Ca, Hca, Rt, a port line or key=value");
	parse_err("Switch 8 \"sw1\"\n[1] \"h\"[1] garbage\n",
		  "plan.topo:2:12: unexpected text after remote port");
	parse_err("Switch 999 \"sw1\"\n", "plan.topo:1:8: number out of range");
	parse_err("Switch 8 \"sw1\"\n[1] \"sw1\"[1]\n", "plan.topo:2:5: port 1 linked to itself");
	parse_err("Ca 2 \"S-0000000000000001\"\n", "plan.topo:1:6: node id 'S-0000000000000001' does not match its type");
	parse_err("Switch 8 \"sw1\"\n[1] \"h\"[x]\n", "plan.topo:2:9: expected a number");
	parse_err("Ca 2 \"h\"\n[1] \"sw\"[1]\nSwitch 8 \"h2\"\n[3] \"h\"[1]\n",
		  "plan.topo:4:1: 'h'[1] is already linked to 'sw'[1]");
	parse_err("Switch 8 \"sw\"\n[1] \"h\"[3]\nCa 2 \"h\"\n",
		  "plan.topo:3:6: node 'h' has 2 ports but port 3 is linked to it");
	parse_err("sysimgguid=zz\n", "plan.topo:1:12: expected a number");
}

/* Sorted "a[p]-b[q]" list of a graph's links, for comparisons. */
static char *link_list(struct topo *t)
{
	size_t cap = 64 + t->n_links * 300, off = 0;
	char *s = calloc(1, cap);

	topo_sort(t);
	for (size_t i = 0; i < t->n_links; i++)
		off += (size_t)snprintf(s + off, cap - off, "%s/%016llx[%u]-%s[%u]/%ux%u\n",
				t->links[i]->a->node->name,
				(unsigned long long)t->links[i]->a->node->guid, t->links[i]->a->num,
				t->links[i]->b->node->name, t->links[i]->b->num,
				t->links[i]->a->width_x, t->links[i]->a->lane_mbps);
	return s;
}

static void test_round_trip(void **state)
{
	struct topo *t = parse_ok(ibnet), *t2;
	char *buf = NULL, *l1, *l2;
	size_t len = 0;
	struct strbuf sb;

	strbuf_init(&sb);
	assert_int_equal(ibtopo_format(t, &sb), 0);
	buf = strbuf_take(&sb, &len);
	assert_non_null(buf);
	assert_non_null(strstr(buf, "Switch\t8 \"S-0000000000200000\"\t\t# \"Switch1\" base port 0"));
	assert_non_null(strstr(buf, "[1]\t\"H-0000000000100000\"[1](100001)\t\t# \"Hca1\" lid 0 4xSDR\n"));
	assert_non_null(strstr(buf, "caguid=0x100003\nCa\t2 \"H-0000000000100003\""));
	t2 = parse_ok(buf);
	l1 = link_list(t);
	l2 = link_list(t2);
	assert_string_equal(l1, l2);
	assert_int_equal(t2->n_nodes, 4);
	free(l1);
	free(l2);
	free(buf);
	topo_free(t);
	topo_free(t2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ibnetdiscover_output),
		cmocka_unit_test(test_ibsim_netfile),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
