// SPDX-License-Identifier: GPL-2.0-or-later
/* The rails discover --save-plan writes: derived from hosts file and graph, written, read back. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/hosts.h"
#include "model/plan_rails.h"
#include "model/plan_yaml.h"

/* Two rails: h1, h2 on both, h3 one port on leaf2; {X} and {Y}: h2's two leaves. */
static const char lab[] =
	"version: 1\n"
	"nodes:\n"
	"  - { name: leaf1, type: switch }\n"
	"  - { name: leaf2, type: switch }\n"
	"  - { name: spine, type: switch }\n"
	"links:\n"
	"  - [ h1:eth0, leaf1:swp1 ]\n"
	"  - [ h1:eth1, leaf2:swp1 ]\n"
	"  - [ h2:eth0, %s:swp2 ]\n"
	"  - [ h2:eth1, %s:swp3 ]\n"
	"  - [ h3:eth0, leaf2:swp4 ]\n"
	"  - [ leaf1:swp49, spine:swp1 ]\n"
	"  - [ leaf2:swp49, spine:swp2 ]\n";

static struct topo *graph(const char *x, const char *y)
{
	struct topo *t = topo_new();
	struct fab_err err;
	char buf[1024];

	assert_non_null(t);
	fab_err_init(&err);
	snprintf(buf, sizeof(buf), lab, x, y);
	if (plan_yaml_parse(t, NULL, buf, strlen(buf), "lab.yaml", &err) < 0)
		fail_msg("%s", err.msg);
	topo_sort(t);
	return t;
}

/* The plan written with the rails derived from @hosts_text, as text (caller frees). */
static char *save(const struct topo *t, const char *hosts_text, struct topo_rails *r)
{
	struct fab_hosts hs;
	struct fab_err err;
	struct strbuf sb;
	size_t len;

	hosts_init(&hs);
	fab_err_init(&err);
	if (hosts_parse(&hs, hosts_text, strlen(hosts_text), "hosts", &err) < 0)
		fail_msg("%s", err.msg);
	topo_rails_init(r);
	assert_int_equal(plan_rails_derive(t, &hs, r), 0);
	hosts_fini(&hs);
	strbuf_init(&sb);
	assert_int_equal(plan_yaml_format_rails(t, r, &sb), 0);
	return strbuf_take(&sb, &len);
}

/* @text parsed back: its rails, and no rail problem on @t. */
static void reload_check(struct topo *t, const char *text, size_t n_leaves, size_t n_nics)
{
	struct topo *t2 = topo_new();
	struct topo_rails r2;
	struct fab_err err;

	topo_rails_init(&r2);
	fab_err_init(&err);
	if (plan_yaml_parse(t2, &r2, text, strlen(text), "saved.yaml", &err) < 0)
		fail_msg("%s\n---\n%s", err.msg, text);
	assert_int_equal(r2.n_leaves, n_leaves);
	assert_int_equal(r2.n_nics, n_nics);
	assert_int_equal(topo_rail_plan_check(t, &r2), 0);
	for (size_t i = 0; i < t->n_problems; i++)
		assert_int_not_equal(t->problems[i].kind, TOPO_PROB_RAIL);
	topo_rails_fini(&r2);
	topo_free(t2);
}

static void assert_has(const char *text, const char *line)
{
	if (!strstr(text, line))
		fail_msg("no '%s' in\n%s", line, text);
}

static void assert_lacks(const char *text, const char *what)
{
	if (strstr(text, what))
		fail_msg("'%s' in\n%s", what, text);
}

/* Hosts of several lines: NICs in rail order (rail= or the lines' order); leaves from them. */
static void test_from_hosts_lines(void **state)
{
	struct topo *t = graph("leaf1", "leaf2");
	struct topo_rails r;
	char *text = save(t, "h1 10.0.0.1 ifname=eth0\n"
			     "h1 10.0.1.1 ifname=eth1\n"
			     "h2 10.0.1.2 ifname=eth1 rail=1\n"
			     "h2 10.0.0.2 ifname=eth0 rail=0\n"
			     "h3 10.0.1.3\n"
			     "leaf1 10.0.255.1 role=leaf\n", &r);

	assert_has(text, "- {name: leaf1, type: switch, rail: 0}\n");
	assert_has(text, "- {name: leaf2, type: switch, rail: 1}\n");
	assert_has(text, "- {name: spine, type: switch}\n");
	assert_has(text, "- {name: h1, type: host, nics: [eth0, eth1]}\n");
	assert_has(text, "- {name: h2, type: host, nics: [eth0, eth1]}\n");
	assert_has(text, "- {name: h3, type: host}\n");
	reload_check(t, text, 2, 4);
	free(text);
	topo_rails_fini(&r);
	topo_free(t);
}

/* A port of the hosts file LLDP did not see: that host has no nics:, the others do. */
static void test_from_hosts_unseen(void **state)
{
	struct topo *t = graph("leaf1", "leaf2");
	struct topo_rails r;
	char *text = save(t, "h1 10.0.0.1 ifname=eth0\nh1 10.0.1.1 ifname=eth7\n"
			     "h2 10.0.0.2 ifname=eth0\nh2 10.0.1.2 ifname=eth1\n", &r);

	assert_has(text, "- {name: h1, type: host}\n");
	assert_has(text, "- {name: h2, type: host, nics: [eth0, eth1]}\n");
	assert_has(text, "- {name: leaf1, type: switch, rail: 0}\n");
	reload_check(t, text, 2, 2);
	free(text);
	topo_rails_fini(&r);
	topo_free(t);
}

/* One line a host: the ports LLDP saw, by name; crossed cabling: the leaves without a rail. */
static void test_from_lldp(void **state)
{
	static const char hosts[] = "h1 10.0.0.1\nh2 10.0.0.2\nh3 10.0.0.3\n";
	struct topo *t = graph("leaf1", "leaf2");
	struct topo_rails r;
	char *text = save(t, hosts, &r);

	assert_has(text, "- {name: h1, type: host, nics: [eth0, eth1]}\n");
	assert_has(text, "- {name: h3, type: host}\n");
	assert_has(text, "- {name: leaf2, type: switch, rail: 1}\n");
	reload_check(t, text, 2, 4);
	free(text);
	topo_rails_fini(&r);
	topo_free(t);

	t = graph("leaf2", "leaf1");	/* h2's eth0 on rail 1's leaf: no leaf has one rail */
	text = save(t, hosts, &r);
	assert_has(text, "- {name: h2, type: host, nics: [eth0, eth1]}\n");
	assert_lacks(text, "rail:");
	reload_check(t, text, 0, 4);
	free(text);
	topo_rails_fini(&r);
	topo_free(t);

	t = graph("leaf1", "leaf1");	/* both of h2's ports on one switch: not rails */
	text = save(t, hosts, &r);
	assert_has(text, "- {name: h2, type: host}\n");
	assert_has(text, "- {name: leaf1, type: switch, rail: 0}\n");
	free(text);
	topo_rails_fini(&r);
	topo_free(t);
}

/* No rails: the text is plan_yaml_format()'s, byte for byte. */
static void test_no_rails_identical(void **state)
{
	static const char one[] =
		"version: 1\nnodes:\n  - { name: leaf1, type: switch }\n"
		"links:\n  - [ h1:eth0, leaf1:swp1 ]\n  - [ h2:eth0, leaf1:swp2 ]\n";
	struct topo *t = topo_new();
	struct topo_rails r;
	struct fab_err err;
	struct strbuf sb;
	char *a, *b;
	size_t len;

	fab_err_init(&err);
	assert_int_equal(plan_yaml_parse(t, NULL, one, strlen(one), "one.yaml", &err), 0);
	topo_sort(t);
	b = save(t, "h1 10.0.0.1\nh2 10.0.0.2 ifname=eth0 rail=0\n", &r);
	assert_int_equal(r.n_nics, 0);
	assert_int_equal(r.n_leaves, 0);
	strbuf_init(&sb);
	assert_int_equal(plan_yaml_format(t, &sb), 0);
	a = strbuf_take(&sb, &len);
	assert_string_equal(a, b);
	free(a);
	free(b);
	topo_rails_fini(&r);
	topo_free(t);
}

/* Written by hand: gaps end the list, a host without rail 0 gets none, digit names quoted. */
static void test_format_rails(void **state)
{
	struct topo *t = graph("leaf1", "leaf2");
	struct topo_rails r;
	struct strbuf sb;
	char *text;
	size_t len;

	topo_rails_init(&r);
	assert_int_equal(topo_rails_nic_add(&r, "h1", 0, "eth1", 1), 0);
	assert_int_equal(topo_rails_nic_add(&r, "h1", 0, "eth0", 0), 0);
	assert_int_equal(topo_rails_nic_add(&r, "h1", 0, "eth5", 3), 0);
	assert_int_equal(topo_rails_nic_add(&r, "h2", 0, "eth1", 1), 0);
	assert_int_equal(topo_rails_nic_add(&r, "h3", 0, "7", 0), 0);
	assert_int_equal(topo_rails_leaf_add(&r, "spine", 4), 0);
	strbuf_init(&sb);
	assert_int_equal(plan_yaml_format_rails(t, &r, &sb), 0);
	text = strbuf_take(&sb, &len);
	assert_has(text, "- {name: h1, type: host, nics: [eth0, eth1]}\n");
	assert_has(text, "- {name: h2, type: host}\n");
	assert_has(text, "- {name: h3, type: host, nics: [\"7\"]}\n");
	assert_has(text, "- {name: spine, type: switch, rail: 4}\n");
	free(text);
	topo_rails_fini(&r);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_hosts_lines),
		cmocka_unit_test(test_from_hosts_unseen),
		cmocka_unit_test(test_from_lldp),
		cmocka_unit_test(test_no_rails_identical),
		cmocka_unit_test(test_format_rails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
