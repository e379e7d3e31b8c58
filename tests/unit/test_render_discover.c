// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover renderers: JSON against a golden file (same keys whether facts
 * are known or not), text marks and names, DOT highlights, ibnetdiscover
 * output parses back.
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

#include "model/ibtopo_parse.h"
#include "model/topo_diff.h"
#include "render/render.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden"
#endif

/* A discovered 1-switch fabric: sw[1]-hca1 degraded, sw[2]-hca2 symbol errors, plan says hca3 on sw[3]. */
static struct topo *fixture(void)
{
	static const char found_text[] =
		"switchguid=0x10(10)\nSwitch 8 \"S-0000000000000010\" # \"sw\" base port 0 lid 1 lmc 0\n"
		"[1] \"H-0000000000000020\"[1](21) # \"hca1\" lid 2 4xEDR\n"
		"[2] \"H-0000000000000030\"[1](31) # \"hca2\" lid 3 4xEDR\n\n"
		"caguid=0x20\nCa 1 \"H-0000000000000020\" # \"hca1\"\n"
		"[1](21) \"S-0000000000000010\"[1] # lid 2 lmc 0 \"sw\" lid 1 4xEDR\n\n"
		"caguid=0x30\nCa 1 \"H-0000000000000030\" # \"hca2\"\n"
		"[1](31) \"S-0000000000000010\"[2] # lid 3 lmc 0 \"sw\" lid 1 4xEDR\n";
	static const char plan_text[] =
		"Switch 8 \"S-0000000000000010\" # \"sw\"\n"
		"[1] \"H-0000000000000020\"[1] # \"hca1\" 4xEDR\n"
		"[2] \"H-0000000000000030\"[1] # \"hca2\" 4xEDR\n"
		"[3] \"H-0000000000000040\"[1] # \"hca3\" 4xEDR\n";
	struct topo *t = topo_new(), *plan = topo_new();
	struct topo_thresholds th;
	struct topo_node *sw;
	struct fab_err err;
	struct topo_port *p;

	fab_err_init(&err);
	assert_int_equal(ibtopo_parse(t, found_text, strlen(found_text), "f", TOPO_SRC_SMP, &err), 0);
	assert_int_equal(ibtopo_parse(plan, plan_text, strlen(plan_text), "p", TOPO_SRC_PLAN, &err), 0);
	sw = topo_node_by_guid(t, 0x10);
	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++) {
			p = t->nodes[i]->ports[j];
			p->facts |= TOPO_F_STATE | TOPO_F_MTU | TOPO_F_COUNTERS | TOPO_F_LID;
			p->state = TOPO_PORT_ACTIVE;
			p->phys_state = TOPO_PHYS_LINKUP;
			p->mtu = 4096;
			p->width_max_x = 4;
			p->lane_max_mbps = p->lane_mbps;
		}
	p = topo_port_find(sw, 1, NULL);
	p->width_x = 1;
	p->peer->width_x = 1;
	p = topo_port_find(sw, 2, NULL);
	p->peer->counters[TOPO_CNT_SYMBOL_ERR] = 99;
	p->peer->counters[TOPO_CNT_XMT_DATA] = 123456789012ULL;
	topo_thresholds_default(&th);
	assert_int_equal(topo_health_check(t, &th), 0);
	assert_int_equal(topo_diff(t, plan, NULL), 0);
	topo_sort(t);
	topo_free(plan);
	return t;
}

static char *render(const struct render_ops *ops, const struct topo *t, bool pretty)
{
	struct render out = { .ops = ops, .pretty = pretty };
	char *buf = NULL;
	size_t len = 0;

	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(ops->discover(&out, t), 0);
	fclose(out.f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("%s: cannot open", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void test_json_golden(void **state)
{
	struct topo *t = fixture();
	char *got = render(&render_json_ops, t, true), *want;

	if (getenv("FAB_UPDATE_GOLDEN")) {
		FILE *f = fopen(GOLDEN_DIR "/discover.json", "w");

		fputs(got, f);
		fclose(f);
	}
	want = slurp(GOLDEN_DIR "/discover.json");
	assert_string_equal(got, want);
	free(got);
	free(want);
	topo_free(t);
}

static void test_json_shape(void **state)
{
	struct topo *t = fixture();
	char *s = render(&render_json_ops, t, false);
	json_error_t jerr;
	json_t *doc = json_loads(s, 0, &jerr), *l0, *l1;

	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "fabricctl.discover/1");
	assert_int_equal(json_array_size(json_object_get(doc, "nodes")), 3);
	assert_int_equal(json_array_size(json_object_get(doc, "links")), 2);
	assert_int_equal(json_array_size(json_object_get(doc, "problems")), 3);
	l0 = json_array_get(json_object_get(doc, "links"), 0);
	l1 = json_array_get(json_object_get(doc, "links"), 1);
	/* Same keys on every link end; numbers stay numbers; GUIDs are strings. */
	assert_int_equal(json_object_size(json_object_get(l0, "a")), json_object_size(json_object_get(l1, "b")));
	assert_true(json_is_integer(json_object_get(json_object_get(l0, "a"), "width_x")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(l0, "a"), "guid")),
			    "0x0000000000000010");
	assert_string_equal(json_string_value(json_object_get(l0, "status")), "degraded");
	assert_string_equal(json_string_value(json_object_get(l1, "status")), "errors");
	json_decref(doc);
	free(s);
	topo_free(t);
}

static void test_text(void **state)
{
	struct topo *t = fixture();
	char *s = render(&render_text_ops, t, false);

	assert_non_null(strstr(s, "! \"sw\"[1]"));
	assert_non_null(strstr(s, "1xEDR    degraded"));
	assert_non_null(strstr(s, "  missing      \"sw\"[3] expected \"hca3\"[1]: no cable to \"hca3\"[1] (peer node not found)\n"));
	assert_non_null(strstr(s, "  errors       \"hca2\"[1] <-> \"sw\"[2]: symbol_errors 99 > 10\n"));
	assert_non_null(strstr(s, "3 nodes (1 switch, 2 cas, 0 hosts), 2 links, 3 problems\n"));
	free(s);
	topo_free(t);
}

/* A long name widens its column for every row: " <-> " and the status line up. */
static void test_text_columns(void **state)
{
	struct topo *t = fixture();
	struct topo_node *n = topo_node_by_name(t, "hca1");
	char *s, *line, *save = NULL;
	long arrow = -1, status = -1;
	size_t rows = 0;

	assert_non_null(n);
	snprintf(n->name, sizeof(n->name), "%s",
		 "hca1 a node description far longer than forty characters");
	s = render(&render_text_ops, t, false);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *a = strstr(line, " <-> "), *st = strstr(line, "xEDR");

		if (!a || !st || strstr(line, "  errors ") == line || strstr(line, "  missing ") == line)
			continue;
		if (arrow < 0) {
			arrow = a - line;
			status = st - line;
		}
		assert_int_equal(a - line, arrow);	/* the second column starts at one place */
		assert_int_equal(st - line, status);	/* and so does the rate */
		rows++;
	}
	assert_int_equal(rows, 2);
	free(s);
	topo_free(t);
}

static void test_dot(void **state)
{
	struct topo *t = fixture();
	char *s = render(&render_dot_ops, t, false);

	assert_true(strncmp(s, "graph fabric {", 14) == 0);
	assert_non_null(strstr(s, "\tn0 -- n1 [taillabel=\"1\", headlabel=\"1\", label=\"1xEDR degraded\", color=red"));
	assert_non_null(strstr(s, "\tn0 [label=\"sw\\n0x0000000000000010\", shape=box];"));
	free(s);
	topo_free(t);
}

/* CSV: a header, one CRLF record per link, RFC 4180 quoting of a name with a comma and quotes. */
static void test_csv(void **state)
{
	struct topo *t = fixture();
	struct topo_node *hca = topo_node_by_guid(t, 0x20);
	char *s, *line;
	int rows = 0;

	snprintf(hca->name, sizeof(hca->name), "%s", "hca1, \"the\" one");
	s = render(&render_csv_ops, t, false);
	assert_true(strncmp(s, "a_node,a_guid,a_port,a_port_guid,a_lid,a_state,a_phys_state,a_width_x,"
			    "a_speed,a_mtu,a_eth_mbps,b_node,", 87) == 0);
	assert_non_null(strstr(s, ",b_mtu,b_eth_mbps,status\r\n"));
	assert_non_null(strstr(s, "\r\nsw,0x0000000000000010,1,,,active,linkup,1,EDR,4096,,"
				  "\"hca1, \"\"the\"\" one\",0x0000000000000020,1,"));
	for (line = s; (line = strstr(line, "\r\n")); line += 2)
		rows++;
	assert_int_equal(rows, 1 + (int)t->n_links);
	free(s);
	topo_free(t);
}

static void test_ibnet_round_trip(void **state)
{
	struct topo *t = fixture(), *back = topo_new();
	char *s = render(&render_ibnet_ops, t, false);
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(ibtopo_parse(back, s, strlen(s), "out", TOPO_SRC_PLAN, &err), 0);
	assert_int_equal(back->n_links, 2);
	assert_int_equal(back->n_nodes, 3);
	assert_string_equal(topo_node_by_guid(back, 0x20)->name, "hca1");
	assert_int_equal(topo_port_find(topo_node_by_guid(back, 0x10), 1, NULL)->width_x, 1);
	free(s);
	topo_free(back);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_golden),
		cmocka_unit_test(test_json_shape),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_columns),
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_ibnet_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
