// SPDX-License-Identifier: GPL-2.0-or-later
/* render/report_html.c: escaping, input kinds, the page's data block. */
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
#include "render/report_html.h"

static char *esc(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_html_esc(f, s);
	fclose(f);
	return buf;
}

static void test_html_escape(void **state)
{
	char *s = esc("<script>alert('x')</script> & \"q\"");

	assert_string_equal(s, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;");
	free(s);
	s = esc(NULL);
	assert_string_equal(s, "");
	free(s);
}

static void test_json_for_script(void **state)
{
	json_t *doc = json_pack("{s:s, s:i}", "name", "</script><img src=x onerror=a()>&amp;", "n", 3);
	char *s = report_json_for_script(doc);
	json_t *back;

	assert_non_null(s);
	assert_null(strchr(s, '<'));
	assert_null(strchr(s, '>'));
	assert_null(strchr(s, '&'));
	assert_non_null(strstr(s, "\\u003c/script\\u003e"));
	/* Still the same JSON. */
	back = json_loads(s, 0, NULL);
	assert_non_null(back);
	assert_true(json_equal(back, doc));
	json_decref(back);
	json_decref(doc);
	free(s);
}

static void test_add_kinds(void **state)
{
	struct report r;
	struct fab_err err;
	json_t *sweep = json_pack("{s:s}", "schema", "fabricctl.sweep/2");
	json_t *odd = json_pack("{s:s}", "schema", "fabricctl.nonsense/7");
	json_t *none = json_pack("{s:i}", "x", 1);
	json_t *acc = json_pack("{s:s}", "schema", "fabricctl.accept/1");

	fab_err_init(&err);
	report_init(&r);
	assert_int_equal(report_add(&r, "a.json", sweep, &err), 0);
	assert_int_equal(report_add(&r, "b.json", sweep, &err), -EINVAL);
	assert_string_equal(err.msg, "b.json: a second sweep document (the first is a.json): "
				     "one of each kind per report");
	assert_int_equal(fab_err_exit(&err), 2);
	assert_int_equal(report_add(&r, "c.json", odd, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "c.json: unknown schema 'fabricctl.nonsense/7'"));
	assert_int_equal(report_add(&r, "d.json", none, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "d.json: no \"schema\""));
	assert_int_equal(report_add(&r, "e.json", acc, &err), 0);
	assert_ptr_equal(r.doc[REPORT_SWEEP], sweep);
	assert_ptr_equal(r.doc[REPORT_ACCEPT], acc);
	report_fini(&r);
	json_decref(sweep);
	json_decref(odd);
	json_decref(none);
	json_decref(acc);
}

/* The page of @doc (and @hosts), and its data block parsed. */
static char *page(json_t *doc, const struct fab_hosts *hosts, json_t **data)
{
	struct report r;
	struct fab_err err;
	char *buf = NULL, *b, *e;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fab_err_init(&err);
	report_init(&r);
	r.hosts = hosts;
	assert_int_equal(report_add(&r, "t.json", doc, &err), 0);
	assert_int_equal(report_html_write(&r, f, &err), 0);
	fclose(f);
	report_fini(&r);
	b = strstr(buf, "<script type=\"application/json\" id=\"fab-data\">");
	assert_non_null(b);
	b += strlen("<script type=\"application/json\" id=\"fab-data\">");
	e = strstr(b, "</script>");
	assert_non_null(e);
	*data = json_loadb(b, (size_t)(e - b), 0, NULL);
	assert_non_null(*data);
	return buf;
}

/* Four hosts on two leaves (labels from a hosts file), node10 slow with everyone. */
static json_t *small_sweep(void)
{
	static const char *names[] = { "node10", "node2", "node1", "node3" };
	json_t *nodes = json_array(), *pairs = json_array();

	for (int i = 0; i < 4; i++)
		json_array_append_new(nodes, json_pack("{s:s}", "name", names[i]));
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++) {
			bool slow = i == 0;

			json_array_append_new(pairs, json_pack(
				"{s:s, s:s, s:s, s:s?, s:i, s:{s:f, s:f}, s:{s:f}, s:{s:f}}",
				"a", names[i], "b", names[j], "status", slow ? "slow" : "ok",
				"reason", slow ? "<b>slow</b>" : NULL, "round", 1,
				"lat_ns", "p50", 50000.0, "p99", 90000.0,
				"bw_ab", "avg_mbps", slow ? 100.0 : 1000.0,
				"bw_ba", "avg_mbps", slow ? 110.0 : 990.0));
		}
	return json_pack("{s:s, s:o, s:o, s:{s:i, s:i, s:i, s:i}, s:{s:f, s:f}, s:[{s:s, s:n, s:f, s:{s:s}}]}",
			 "schema", "fabricctl.sweep/1", "nodes", nodes, "pairs", pairs,
			 "summary", "pairs", 6, "ok", 3, "slow", 3, "failed", 0,
			 "reference", "bw_median_mbps", 990.0, "lat_median_ns", 50000.0,
			 "suspects", "node", "node10", "link", "score", 1.0, "evidence", "text", "x");
}

static void test_sweep_page(void **state)
{
	static const char hosts_txt[] =
		"node1 10.0.0.1 leaf=L2\nnode2 10.0.0.2 leaf=L10\nnode3 10.0.0.3 leaf=L2\n"
		"node10 10.0.0.10 leaf=L2\n";
	struct fab_hosts hs;
	struct fab_err err;
	json_t *doc = small_sweep(), *data, *sw, *g;
	char *html;
	const char *order[] = { "node1", "node3", "node10", "node2" };

	fab_err_init(&err);
	hosts_init(&hs);
	assert_int_equal(hosts_parse(&hs, hosts_txt, sizeof(hosts_txt) - 1, "hosts", &err), 0);
	html = page(doc, &hs, &data);
	sw = json_object_get(data, "sweep");
	/* Grouped by leaf in natural order (L2 before L10), natural order inside. */
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(json_string_value(json_array_get(json_array_get(
			json_object_get(sw, "hosts"), i), 0)), order[i]);
	assert_int_equal(json_array_size(json_object_get(sw, "groups")), 2);
	assert_string_equal(json_string_value(json_array_get(json_array_get(
		json_object_get(sw, "groups"), 1), 0)), "L10");
	assert_int_equal(json_integer_value(json_array_get(json_array_get(
		json_object_get(sw, "groups"), 1), 1)), 3);
	/* Status column: 6 pairs over the upper triangle; node10 is index 2: pairs (0,2), (1,2), (2,3) slow,
	 * in the order (0,1) (0,2) (0,3) (1,2) (1,3) (2,3). */
	assert_string_equal(json_string_value(json_object_get(json_object_get(sw, "cols"), "st")),
			    "AQIBAgEC");	/* 01 02 01 02 01 02 */
	/* Labels only: a graph of hosts and leaves; node10's link is the suspect. */
	g = json_object_get(data, "graph");
	assert_true(json_is_true(json_object_get(g, "inferred")));
	assert_int_equal(json_array_size(json_object_get(g, "links")), 4);
	for (size_t i = 0; i < 4; i++) {
		json_t *l = json_array_get(json_object_get(g, "links"), i);
		json_t *n = json_array_get(json_object_get(g, "nodes"),
					   (size_t)json_integer_value(json_array_get(l, 0)));
		bool is10 = !strcmp(json_string_value(json_array_get(n, 0)), "node10");

		assert_int_equal(json_is_true(json_array_get(l, 7)), is10);
		/* Crossing and bad counts: every host is in 3 pairs; node10's all bad, the others' one. */
		assert_int_equal(json_integer_value(json_array_get(l, 5)), 3);
		assert_int_equal(json_integer_value(json_array_get(l, 6)), is10 ? 3 : 1);
	}
	/* The reason is escaped in the table. */
	assert_non_null(strstr(html, "&lt;b&gt;slow&lt;/b&gt;"));
	assert_null(strstr(html, "<b>slow</b>"));
	assert_non_null(strstr(html, "data-exit=\"1\""));
	free(html);
	json_decref(data);
	json_decref(doc);
	hosts_fini(&hs);
}

static void test_pair_unknown_node(void **state)
{
	json_t *doc = small_sweep();
	struct report r;
	struct fab_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	json_object_set_new(json_array_get(json_object_get(doc, "pairs"), 0), "b", json_string("ghost"));
	fab_err_init(&err);
	report_init(&r);
	assert_int_equal(report_add(&r, "t.json", doc, &err), 0);
	assert_int_equal(report_html_write(&r, f, &err), -EINVAL);
	assert_string_equal(err.msg, "t.json: pairs[0]: node 'ghost' is not in nodes[]");
	fclose(f);
	free(buf);
	report_fini(&r);
	json_decref(doc);
}

/* A discover document with no problem: "as planned" only when a plan was checked. */
static void test_discover_no_plan(void **state)
{
	const char *srcs[] = { "lldp", "plan" };

	for (int planned = 0; planned < 2; planned++) {
		json_t *doc = json_pack("{s:s, s:[s], s:{s:i, s:i, s:i}, s:[], s:[], s:[]}",
					"schema", "fabricctl.discover/1", "sources", srcs[0],
					"summary", "nodes", 0, "links", 0, "problems", 0,
					"nodes", "links", "problems"), *data;
		char *html;

		if (planned)
			json_array_append_new(json_object_get(doc, "sources"), json_string(srcs[1]));
		html = page(doc, NULL, &data);
		if (planned) {
			assert_non_null(strstr(html, "every link healthy and as planned."));
			assert_null(strstr(html, "No plan given"));
		} else {
			assert_null(strstr(html, "as planned"));
			assert_non_null(strstr(html, "No plan given: the cabling was not checked"));
		}
		free(html);
		json_decref(data);
		json_decref(doc);
	}
}

/* discover --checks: the families, tiers, loops, unreachable pairs and SMs, escaped. */
static void test_discover_ib_checks(void **state)
{
	static const char doc_text[] =
		"{\"schema\": \"fabricctl.discover/1\", \"sources\": [\"smp\"],"
		" \"summary\": {\"nodes\": 10, \"links\": 10, \"problems\": 1},"
		" \"nodes\": [], \"links\": [], \"problems\": [{\"kind\": \"credit-loop\","
		"  \"ports\": [], \"expected\": null, \"detail\": \"3 channels\"}],"
		" \"ib_checks\": {\"checks\": [\"routes\", \"credit-loops\", \"balance\", \"sm\"],"
		"  \"routes\": {\"skipped\": null, \"ca_ports\": 5, \"lids\": 5, \"pairs\": 20,"
		"   \"unreachable\": 1, \"unreachable_pairs\": [{\"src\": {\"node\": \"h<1>\", \"port\": 1},"
		"   \"dst\": {\"node\": \"h3\", \"port\": 1}, \"dlid\": 3, \"switch\": {\"node\": \"r1\"},"
		"   \"port\": null, \"to\": null, \"reason\": \"no-entry\"}]},"
		"  \"credit_loops\": {\"skipped\": null, \"vls\": 1, \"channels\": 10, \"dependencies\": 10,"
		"   \"loops\": 1, \"cycles\": [{\"component\": 3, \"channels\": ["
		"    {\"from\": {\"node\": \"r1\", \"port\": 2}, \"to\": {\"node\": \"r2\", \"port\": 3}},"
		"    {\"from\": {\"node\": \"r2\", \"port\": 2}, \"to\": {\"node\": \"r3\", \"port\": 3}},"
		"    {\"from\": {\"node\": \"r3\", \"port\": 2}, \"to\": {\"node\": \"r1\", \"port\": 3}}]}]},"
		"  \"balance\": {\"skipped\": null, \"factor\": 2, \"tiers\": [{\"tier\": \"sw1>sw2\","
		"   \"links\": 4, \"min\": 0, \"median\": 0, \"max\": 4, \"outliers\": 2}]},"
		"  \"ids\": null,"
		"  \"sm\": {\"skipped\": null, \"masters\": 1, \"standby\": 0, \"silent\": 0, \"agree\": true,"
		"   \"sms\": [{\"port\": {\"node\": \"h1\", \"port\": 1, \"lid\": 1}, \"state\": \"master\","
		"   \"priority\": 0, \"sm_guid\": \"0x0000000000000011\", \"act_count\": 7}]}}}";
	json_t *doc = json_loads(doc_text, 0, NULL), *data;
	char *html;

	assert_non_null(doc);
	html = page(doc, NULL, &data);
	assert_non_null(strstr(html, "<h3>InfiniBand subnet checks</h3>"));
	assert_non_null(strstr(html, "5 CA ports, 5 LIDs, 20 pairs, <b>1 unreachable</b>"));
	assert_non_null(strstr(html, "<b>1 loops</b> (1 VL, 10 switch channels, 10 dependencies)"));
	assert_non_null(strstr(html, "r1 [2] &rarr; r2 [2] &rarr; r3 [2] &rarr; r1 [2]"));
	assert_non_null(strstr(html, "<td>sw1&gt;sw2</td><td>4</td><td>0</td><td>0</td><td>4</td>"
				     "<td><span class=\"tag bad\">2</span></td>"));
	assert_non_null(strstr(html, "<td>h&lt;1&gt; [1]</td><td>h3 [1]</td><td>3</td><td>r1</td>"
				     "<td>none</td><td>no-entry</td>"));
	assert_non_null(strstr(html, "<td>h1 [1]</td><td>1</td><td>master</td><td>0</td>"));
	assert_null(strstr(html, "<td>ids</td>"));	/* not asked: no row */
	free(html);
	json_decref(data);
	json_decref(doc);
}

/* Credit loops per VL: each lane's figures, the SLs' source, each loop channel's lane. */
static void test_discover_ib_checks_vl(void **state)
{
	static const char doc_text[] =
		"{\"schema\": \"fabricctl.discover/1\", \"sources\": [\"smp\"],"
		" \"summary\": {\"nodes\": 10, \"links\": 10, \"problems\": 1},"
		" \"nodes\": [], \"links\": [], \"problems\": [],"
		" \"ib_checks\": {\"checks\": [\"credit-loops\"],"
		"  \"credit_loops\": {\"skipped\": null, \"vls\": 2, \"channels\": 14, \"dependencies\": 10,"
		"   \"loops\": 1, \"by_vl\": true, \"sl2vl_tables\": 20, \"path_sls\": \"s<a>\","
		"   \"cross_vl_dependencies\": 0, \"cross_vl_loops\": 0, \"unmapped_hops\": 0,"
		"   \"dropped_routes\": 0, \"per_vl\": [{\"vl\": 0, \"channels\": 10, \"dependencies\": 8,"
		"   \"loops\": 0}, {\"vl\": 1, \"channels\": 4, \"dependencies\": 2, \"loops\": 1}],"
		"   \"cycles\": [{\"component\": 2, \"vls\": [1, 1], \"channels\": ["
		"    {\"from\": {\"node\": \"r1\", \"port\": 2}, \"to\": {\"node\": \"r2\", \"port\": 3}},"
		"    {\"from\": {\"node\": \"r2\", \"port\": 3}, \"to\": {\"node\": \"r1\", \"port\": 2}}]}]}}}";
	json_t *doc = json_loads(doc_text, 0, NULL), *data;
	char *html;

	(void)state;
	assert_non_null(doc);
	html = page(doc, NULL, &data);
	assert_non_null(strstr(html, "<b>1 loops</b> (2 VL, 14 switch channels, 10 dependencies); "
				     "per VL by SL2VL, path SLs s&lt;a&gt;: VL 0: 10 channels, 8 "
				     "dependencies, 0 loops; VL 1: 4 channels, 2 dependencies, <b>1 loops</b>"));
	assert_non_null(strstr(html, "r1 [2] (VL 1) &rarr; r2 [3] (VL 1) &rarr; r1 [2]"));
	free(html);
	json_decref(data);
	json_decref(doc);
}

/* A link suspect's evidence in words, not raw keys. */
static void test_suspect_evidence_words(void **state)
{
	json_t *doc = small_sweep(), *data;
	json_t *ev = json_pack("{s:i, s:i, s:i, s:i, s:i, s:f, s:i, s:i, s:[], s:s, s:i}",
			       "cross_bad", 15, "cross_n", 15, "other_bad", 0, "other_n", 13,
			       "cross_failed", 2, "cross_pct_median", 48.0, "probes_run", 0,
			       "probes_bad", 0, "counters", "text", "leaf1 swp1 <-> spine1 swp1",
			       "odd_key", 7);
	json_t *ev2 = json_pack("{s:i, s:i, s:i, s:i, s:f, s:f}", "pairs", 7, "bad_pairs", 6,
				"slow_pairs", 6, "failed_pairs", 0, "median_bw_mbps", 95.0,
				"fleet_median_bw_mbps", 940.0);
	json_t *c = json_pack("[{s:{s:s, s:i}, s:s, s:i, s:i, s:s}]", "port", "node", "leaf1",
			      "port", 3, "counter", "symbol_errors", "delta", 40, "threshold", 10,
			      "severity", "error");
	char *html;

	json_object_set(json_array_get(json_object_get(doc, "suspects"), 0), "evidence", ev);
	json_array_append_new(json_object_get(doc, "suspects"),
			      json_pack("{s:s, s:n, s:f, s:O}", "node", "node2", "link", "score", 0.5,
					"evidence", ev2));
	html = page(doc, NULL, &data);
	assert_non_null(strstr(html, "15 of 15 pairs crossing it not ok (2 failed), the slow ones "
				     "at 48 % of expected (median); 0 of 13 other pairs not ok; odd key 7"));
	assert_non_null(strstr(html, "6 of 7 pairs with it not ok (6 slow, 0 failed); its median "));
	assert_null(strstr(html, "cross_bad"));
	assert_null(strstr(html, "cross_n"));
	assert_null(strstr(html, "counters []"));
	assert_null(strstr(html, "probe pairs"));	/* none run: nothing said */
	free(html);
	json_decref(data);
	/* Counter findings named by port and counter. */
	json_object_set_new(ev, "counters", c);
	json_object_set_new(ev, "probes_run", json_integer(4));
	json_object_set_new(ev, "probes_bad", json_integer(3));
	json_object_set(json_array_get(json_object_get(doc, "suspects"), 0), "evidence", ev);
	html = page(doc, NULL, &data);
	assert_non_null(strstr(html, "; 3 of 4 probe pairs not ok; counters: leaf1 [3] symbol_errors "
				     "+40 (threshold 10, error)"));
	free(html);
	json_decref(data);
	json_decref(ev);
	json_decref(ev2);
	json_decref(doc);
}

/*
 * The ECMP member table: two steered pairs through leaf1 <-> spine1 (one
 * slow), one through leaf1 <-> spine2 (ok), one fallen back; the slow
 * member first, its slow pair named in the direction it took, the host
 * cables (first and last hops) not members, names escaped; nothing for a
 * sweep without steered pairs.
 */
#define E(n, p) "{\"node\": \"" n "\", \"port\": \"" p "\"}"
#define H(a, ap, b, bp) "{\"from\": " E(a, ap) ", \"to\": " E(b, bp) "}"
#define PATH(sp, tr) "{\"share\": 0.5" tr ", \"hops\": [" H("h1", "eth0", "leaf1", "swp1") ", " \
	H("leaf1", "swp49", sp, "swp1") ", " H(sp, "swp2", "leaf2", "swp49") ", " H("leaf2", "swp1", "h2", "eth0") "]}"
#define TR ", \"traced\": true"
static void test_members_table(void **state)
{
	static const char doc[] = "{\"pairs\": ["
		"{\"a\": \"h1\", \"b\": \"h<2\", \"status\": \"slow\", \"pct_expected\": 20,"
		" \"steer\": {\"traced\": true, \"steered\": true, \"fallback\": null},"
		" \"routes\": {\"ab\": [" PATH("spine1", TR) ", " PATH("spine2", "") "],"
		"  \"ba\": [" PATH("spine1", "") ", " PATH("spine2", TR) "]}},"
		"{\"a\": \"h3\", \"b\": \"h4\", \"status\": \"ok\", \"pct_expected\": 95,"
		" \"steer\": {\"traced\": true, \"steered\": true, \"fallback\": null},"
		" \"routes\": {\"ab\": [" PATH("spine1", "") ", " PATH("spine2", TR) "],"
		"  \"ba\": [" PATH("spine1", "") ", " PATH("spine2", TR) "]}},"
		"{\"a\": \"h5\", \"b\": \"h6\", \"status\": \"ok\","
		" \"steer\": {\"traced\": false, \"steered\": false, \"fallback\": \"silent\"}}]}";
	json_t *sweep = json_loads(doc, 0, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(sweep);
	f = open_memstream(&buf, &len);
	report_members_table(f, sweep);
	fclose(f);
	assert_non_null(strstr(buf, "2 pairs steered onto traced members, 1 on whole ECMP sets (silent 1)."));
	/* leaf1 <-> spine1: 1 test, slow, h1 -> h&lt;2 named; listed before spine2's rows */
	assert_non_null(strstr(buf, "<tr><td>leaf1 swp49</td><td>spine1 swp1</td><td class=\"num\">1</td>"
				    "<td class=\"num\">1</td><td class=\"num\">20%</td>"
				    "<td><span class=\"tag slow\">h1 &rarr; h&lt;2</span></td></tr>"));
	assert_true(strstr(buf, "spine1 swp1</td>") < strstr(buf, "spine2 swp1</td>"));
	/* leaf1 <-> spine2: h1-h<2 back, h3 -> h4 and back: 3 tests, 1 not ok (b -> a) */
	assert_non_null(strstr(buf, "<tr><td>leaf1 swp49</td><td>spine2 swp1</td><td class=\"num\">3</td>"
				    "<td class=\"num\">1</td><td class=\"num\">95%</td>"
				    "<td><span class=\"tag slow\">h&lt;2 &rarr; h1</span></td></tr>"));
	assert_null(strstr(buf, "eth0"));	/* host cables are not members */
	free(buf);
	json_decref(sweep);
	/* no steered pair: nothing */
	sweep = json_loads("{\"pairs\": [{\"a\": \"x\", \"b\": \"y\", \"status\": \"ok\"}]}", 0, NULL);
	buf = NULL;
	f = open_memstream(&buf, &len);
	report_members_table(f, sweep);
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
	json_decref(sweep);
}

/*
 * A sweep of hosts of two fabric ports (a, b: e0 on rail 0, e1 on rail 1)
 * and one of a single port without a rail (s): a:e1-b:e1 slow, a:e0-b:e1
 * a cross-rail pair, s paired with a port on each rail.
 */
#define EP(n, h, r, l) \
	"{\"name\": \"" n "\", \"host\": \"" h "\", \"rail\": " r ", \"leaf\": \"" l "\"}"
#define RP(a, ah, ar, b, bh, br, st) \
	"{\"a\": \"" a "\", \"b\": \"" b "\", \"status\": \"" st "\"," \
	" \"a_host\": \"" ah "\", \"a_rail\": " ar ", \"b_host\": \"" bh "\", \"b_rail\": " br "," \
	" \"bw_ab\": {\"avg_mbps\": 900}, \"bw_ba\": {\"avg_mbps\": 900}," \
	" \"lat_ns\": {\"p50\": 5e4}}"
static json_t *rail_sweep(void)
{
	static const char doc[] = "{\"schema\": \"fabricctl.sweep/2\", \"nodes\": ["
		EP("a:e0", "a", "0", "L0") ", " EP("a:e1", "a", "1", "L1") ", "
		EP("b:e0", "b", "0", "L0") ", " EP("b:e1", "b", "1", "L1") ", "
		EP("s", "s", "null", "L0") "], \"pairs\": ["
		RP("a:e0", "a", "0", "b:e0", "b", "0", "ok") ", "
		RP("a:e1", "a", "1", "b:e1", "b", "1", "slow") ", "
		RP("a:e0", "a", "0", "b:e1", "b", "1", "ok") ", "
		RP("s", "s", "null", "a:e1", "a", "1", "ok") ", "
		RP("s", "s", "null", "b:e0", "b", "0", "ok") "],"
		" \"reference\": {\"bw_median_mbps\": 900}, \"config\": {\"slow_pct\": 80}}";
	json_t *d = json_loads(doc, 0, NULL);

	assert_non_null(d);
	return d;
}

/* The pairs of @view as "a-b status", space-separated, into @buf. */
static const char *view_pairs(const json_t *view, char *buf, size_t size)
{
	const json_t *p;
	size_t i, n = 0;

	buf[0] = '\0';
	json_array_foreach(json_object_get(view, "pairs"), i, p)
		n += (size_t)snprintf(buf + n, size - n, "%s%s-%s %s", i ? " " : "",
				      json_string_value(json_object_get(p, "a")),
				      json_string_value(json_object_get(p, "b")),
				      json_string_value(json_object_get(p, "status")));
	return buf;
}

static void test_rail_views(void **state)
{
	json_t *doc = rail_sweep(), *views, *v;
	size_t cross = 99, i;
	char buf[256];

	(void)state;
	assert_int_equal(report_rail_views(doc, &views, &cross), 0);
	assert_non_null(views);
	assert_int_equal(cross, 1);
	assert_int_equal(json_array_size(views), 2);
	assert_string_equal(view_pairs(json_array_get(views, 0), buf, sizeof(buf)),
			    "a-b ok s-b ok");
	assert_string_equal(view_pairs(json_array_get(views, 1), buf, sizeof(buf)),
			    "a-b slow s-a ok");
	json_array_foreach(views, i, v) {
		const json_t *n;
		size_t k;

		assert_int_equal(json_integer_value(json_object_get(v, "rail")), (json_int_t)i);
		/* Hosts, once each, with the leaf of their port on this rail (s: its one's). */
		assert_int_equal(json_array_size(json_object_get(v, "nodes")), 3);
		json_array_foreach(json_object_get(v, "nodes"), k, n) {
			const char *name = json_string_value(json_object_get(n, "name"));
			const char *leaf = json_string_value(json_object_get(n, "leaf"));

			assert_string_equal(leaf, !strcmp(name, "s") || !i ? "L0" : "L1");
		}
		assert_ptr_equal(json_object_get(v, "reference"),
				 json_object_get(doc, "reference"));
	}
	json_decref(views);
	json_decref(doc);
	/* One port a host: no view. */
	doc = small_sweep();
	assert_int_equal(report_rail_views(doc, &views, &cross), 0);
	assert_null(views);
	assert_int_equal(cross, 0);
	json_decref(doc);
}

static void test_rail_page(void **state)
{
	json_t *doc = rail_sweep(), *data, *rails, *r1, *g, *l;
	char *html;
	size_t i;

	(void)state;
	html = page(doc, NULL, &data);
	rails = json_object_get(data, "rails");
	assert_int_equal(json_array_size(rails), 2);
	r1 = json_array_get(rails, 1);
	assert_int_equal(json_integer_value(json_object_get(r1, "rail")), 1);
	/* Rail 1: s (leaf L0), then a, b (L1); a-b slow. */
	assert_int_equal(json_integer_value(json_object_get(r1, "n")), 3);
	assert_string_equal(json_string_value(json_array_get(json_array_get(
		json_object_get(r1, "hosts"), 0), 0)), "s");
	assert_string_equal(json_string_value(json_object_get(json_object_get(r1, "cols"), "st")),
			    "AQAC");	/* (s,a) ok, (s,b) untested, (a,b) slow: 01 00 02 */
	assert_true(json_is_null(json_object_get(r1, "base")));
	/* The sweep's own maps keep their end points; graph counted once: a:e0 in 2 pairs. */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(data, "sweep"), "n")),
			 5);
	g = json_object_get(data, "graph");
	json_array_foreach(json_object_get(g, "links"), i, l) {
		const json_t *n = json_array_get(json_object_get(g, "nodes"),
						 (size_t)json_integer_value(json_array_get(l, 0)));

		if (!strcmp(json_string_value(json_array_get(n, 0)), "a:e0"))
			assert_int_equal(json_integer_value(json_array_get(l, 5)), 2);
	}
	assert_non_null(strstr(html, "<button type=\"button\" class=\"rsel\" data-view=\"1\" "
				    "data-bad=\"1\" aria-pressed=\"false\">rail 1 "
				    "<span class=\"tag slow\">1 not ok</span></button>"));
	assert_non_null(strstr(html, "data-view=\"0\" data-bad=\"0\" aria-pressed=\"false\">"
				    "rail 0</button>"));
	assert_non_null(strstr(html, "id=\"rv-r1\" data-view=\"1\" hidden>"));
	assert_non_null(strstr(html, " 1 cross-rail pair (NIC"));
	assert_non_null(strstr(html, "function rails()"));
	assert_true(strstr(html, "function rails()") < strstr(html, "function graph()"));
	free(html);
	json_decref(data);
	json_decref(doc);
	/* One port a host: none of it. */
	doc = small_sweep();
	html = page(doc, NULL, &data);
	assert_null(json_object_get(data, "rails"));
	assert_null(strstr(html, "function rails()"));
	assert_null(strstr(html, "railsel"));
	assert_null(strstr(html, "rv-all"));
	free(html);
	json_decref(data);
	json_decref(doc);
}

/* A sweep of two bonded hosts, every pair ok, ha's leg a2 slow (as sweep -j writes it). */
#define LEG(m, port, bw, v, fault, finding) \
	"{\"member\": \"" m "\", \"link_up\": true, \"sport\": " port ", \"bw_mbps\": " bw "," \
	" \"bytes\": 1000, \"tx_bytes\": 1010, \"verdict\": \"" v "\", \"fault\": " fault "," \
	" \"switch\": null, \"switch_port\": null, \"finding\": " finding "}"
static const char legs_doc[] = "{\"schema\": \"fabricctl.sweep/2\","
	" \"nodes\": [{\"name\": \"ha\"}, {\"name\": \"hb\"}],"
	" \"summary\": {\"pairs\": 1, \"ok\": 1, \"slow\": 0, \"failed\": 0},"
	" \"pairs\": [{\"a\": \"ha\", \"b\": \"hb\", \"status\": \"ok\", \"round\": 1,"
	"  \"bw_ab\": {\"avg_mbps\": 19.0}, \"bw_ba\": {\"avg_mbps\": 18.0},"
	"  \"legs\": {\"ab\": {\"node\": \"ha\", \"bond\": \"bond0\", \"mode\": \"balance-xor\","
	"   \"xmit_hash_policy\": \"layer3+4\", \"dport\": 29099, \"trials\": 2, \"unclear\": 0,"
	"   \"ref_mbps\": 19.0, \"why\": null, \"legs\": ["
	LEG("a1", "29100", "19.0", "ok", "false", "null") ", "
	LEG("a2", "29101", "3.9", "slow", "true", "\"slow leg: ha a2: 4 of 19 Mbit/s\"") "]},"
	"  \"ba\": null}}],"
	" \"legs\": {\"pairs\": 1, \"bad\": 1, \"findings\": [\"slow leg: ha a2: 4 of 19 Mbit/s\"]}}";

/*
 * Dual-homed legs: a table per bonded pair, the slow leg's row marked
 * with its finding, the verdict bad although every pair is ok; without
 * "legs" no section.
 */
static void test_legs_table(void **state)
{
	json_t *doc = json_loads(legs_doc, 0, NULL), *data;
	char *html, *row;

	(void)state;
	assert_non_null(doc);
	html = page(doc, NULL, &data);
	assert_non_null(strstr(html, "<h2>Dual-homed legs <small>one flow per bond member, one after "
				     "another: 1 not ok</small></h2>"));
	assert_non_null(strstr(html, "<h3>ha &harr; hb</h3>"));
	row = strstr(html, "<tr class=\"legbad\"><td>ha &rarr; hb</td><td>bond0</td><td>a2</td>"
			   "<td>29101</td><td>3.9 Mb/s</td><td>1010</td><td>&ndash;</td>"
			   "<td><span class=\"tag slow\">slow</span></td>"
			   "<td>slow leg: ha a2: 4 of 19 Mbit/s</td></tr>");
	assert_non_null(row);
	assert_non_null(strstr(html, "<tr><td>ha &rarr; hb</td><td>bond0</td><td>a1</td>"
				     "<td>29100</td><td>19.0 Mb/s</td>"));
	assert_non_null(strstr(html, "data-exit=\"1\""));
	assert_non_null(strstr(html, "1 dual-homed leg not ok"));
	free(html);
	json_decref(data);
	json_object_del(doc, "legs");
	json_object_del(json_array_get(json_object_get(doc, "pairs"), 0), "legs");
	html = page(doc, NULL, &data);
	assert_null(strstr(html, "Dual-homed legs"));
	assert_non_null(strstr(html, "data-exit=\"0\""));
	free(html);
	json_decref(data);
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html_escape),
		cmocka_unit_test(test_json_for_script),
		cmocka_unit_test(test_add_kinds),
		cmocka_unit_test(test_sweep_page),
		cmocka_unit_test(test_pair_unknown_node),
		cmocka_unit_test(test_discover_no_plan),
		cmocka_unit_test(test_discover_ib_checks),
		cmocka_unit_test(test_discover_ib_checks_vl),
		cmocka_unit_test(test_suspect_evidence_words),
		cmocka_unit_test(test_members_table),
		cmocka_unit_test(test_rail_views),
		cmocka_unit_test(test_rail_page),
		cmocka_unit_test(test_legs_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
