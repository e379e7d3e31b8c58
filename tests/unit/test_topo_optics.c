// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover --lldp --hosts: the hosts' cable ends on the discovered graph
 * (model/topo_optics.h) and in discover's outputs
 * (render/discover_optics.c), on readings built from the specifications'
 * page images (module_img.h), as fleet_optics_read() would hand them:
 *   - a host end with lane 3 dark is failing, shown on its cable (its
 *     peer the leaf port LLDP found), first, in JSON and text;
 *   - a host-to-host cable (LLDP: h3 eth1 faces h4 eth1) with Rx low at
 *     h3 and Tx normal at h4 is one cable of two ends with
 *     optics_cable_verdict()'s finding (cable_loss, lane 2);
 *   - hosts without a module (a veth: no module interface) give nothing:
 *     no t->optics, the documents byte for byte what they were;
 *   - the streamed JSON equals the whole document's bytes with "cables";
 *   - the report's cable table (render/report_html_cables.c) drawn from
 *     that document's "cables": one row per end with its peer and module,
 *     the both-ends row, worst first; nothing without cables; a failing
 *     cable makes the page's verdict 1 (report_verdict()), as discover's
 *     own exit status.
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

#include "model/optics.h"
#include "model/topo.h"
#include "model/topo_optics.h"
#include "render/optics.h"
#include "render/render.h"
#include "render/report_html.h"
#include "module_img.h"

static struct img img;
static struct module_eeprom ee;
static struct optics_policy pol;

static int setup(void **state)
{
	(void)state;
	optics_policy_default(&pol);
	return 0;
}

/* Host @host's port @ifname in @t, cabled to @peer's port @pport (NULL: not cabled). */
static struct topo_port *cable(struct topo *t, const char *host, const char *ifname,
			       const char *peer, const char *pport)
{
	struct topo_node *n = topo_node_by_name(t, host);
	struct topo_node *m;
	struct topo_port *a, *b;

	if (!n)
		n = topo_node_add(t, TOPO_NODE_HOST, host, 0);
	assert_non_null(n);
	a = topo_port_get(n, 0, ifname);
	assert_non_null(a);
	if (!peer)
		return a;
	m = topo_node_by_name(t, peer);
	if (!m)
		m = topo_node_add(t, strncmp(peer, "leaf", 4) ? TOPO_NODE_HOST : TOPO_NODE_SWITCH,
				  peer, 0);
	assert_non_null(m);
	b = topo_port_get(m, 0, pport);
	assert_non_null(b);
	assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_LLDP), 0);
	return a;
}

/* The LLDP graph: h1, h2 on leaf1; h3 eth1 -- h4 eth1; h5 on leaf1 (a veth, no module). */
static struct topo *graph(void)
{
	struct topo *t = topo_new();

	assert_non_null(t);
	cable(t, "h1", "eth0", "leaf1", "swp1");
	cable(t, "h2", "eth0", "leaf1", "swp2");
	cable(t, "h3", "eth1", "h4", "eth1");
	cable(t, "h5", "eth0", "leaf1", "swp5");
	t->src |= TOPO_SRC_LLDP;
	topo_sort(t);
	return t;
}

/* A port @ifname of @s with img's module (one reading: no window). */
static struct optics_port *port_add(struct optics_set *s, const char *ifname)
{
	struct optics_port *p = optics_set_add(s, ifname);

	assert_non_null(p);
	img_fill(&img, &ee);
	assert_int_equal(module_decode(&ee, &p->mod), 0);
	p->link.speed_mbps = 100000;
	p->link.lanes = 4;
	return p;
}

/* A port without a module interface, as a veth answers. */
static void veth_add(struct optics_set *s, const char *ifname)
{
	struct optics_port *p = optics_set_add(s, ifname);

	assert_non_null(p);
	p->module_rc = -EOPNOTSUPP;
	snprintf(p->module_err, sizeof(p->module_err), "%s: no module interface", ifname);
	p->link_rc = -EOPNOTSUPP;
}

/* The five hosts' readings: h1 lane 3 dark; h2 and h4 clean; h3 lane 2 low; h5 a veth. */
static struct topo_optics *readings(void)
{
	struct topo_optics *o = topo_optics_new(5);

	assert_non_null(o);
	for (size_t i = 0; i < 5; i++) {
		snprintf(o->names[i], sizeof(o->names[i]), "h%zu", i + 1);
		o->read[i] = true;
	}
	qsfp_even_build(&img);
	qsfp_rx_mw(&img, 3, 0);
	port_add(&o->sets[0], "eth0");
	qsfp_even_build(&img);
	port_add(&o->sets[1], "eth0");
	qsfp_rx_mw(&img, 2, 0.05);		/* below the low warning 0.0871; h4 sends 0.9 mW */
	port_add(&o->sets[2], "eth1");
	qsfp_even_build(&img);
	port_add(&o->sets[3], "eth1");
	veth_add(&o->sets[4], "eth0");
	return o;
}

static const struct optics_finding *find(const struct optics_verdict *v, const char *code,
					 unsigned int lane)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->f[i].code, code) == 0 && v->f[i].lane == lane)
			return &v->f[i];
	return NULL;
}

static void test_attach(void **state)
{
	struct topo *t = graph();
	const struct topo_optics *o;
	const struct topo_optics_cable *c;

	(void)state;
	assert_int_equal(topo_optics_attach(t, readings(), &pol), 0);
	o = t->optics;
	assert_non_null(o);
	/* h1's, h2's, and h3-h4's: the veth is no cable end */
	assert_int_equal(o->n_cables, 3);
	assert_int_equal(o->worst, OPTICS_FAILING);
	assert_int_equal(o->n_ends[OPTICS_FAILING], 1);
	assert_int_equal(o->n_ends[OPTICS_MARGINAL], 1);
	assert_int_equal(o->n_ends[OPTICS_HEALTHY], 2);
	assert_int_equal(o->n_ends[OPTICS_UNKNOWN], 0);

	/* worst first: h1's end, failing on lane 3, on leaf1 swp1 */
	c = &o->cables[0];
	assert_int_equal(c->health, OPTICS_FAILING);
	assert_int_equal(c->n_ends, 1);
	assert_string_equal(o->names[c->end[0].host], "h1");
	assert_string_equal(c->end[0].port->ifname, "eth0");
	assert_non_null(c->end[0].at);
	assert_non_null(c->end[0].at->peer);
	assert_string_equal(c->end[0].at->peer->node->name, "leaf1");
	assert_string_equal(c->end[0].at->peer->name, "swp1");
	assert_int_equal(optics_verdict_worst(&c->end[0].port->verdict)->lane, 3);

	/* the host-to-host cable: both ends, and what only both tell */
	c = &o->cables[1];
	assert_int_equal(c->health, OPTICS_MARGINAL);
	assert_int_equal(c->n_ends, 2);
	assert_string_equal(o->names[c->end[0].host], "h3");
	assert_string_equal(o->names[c->end[1].host], "h4");
	assert_int_equal(c->end[1].port->verdict.health, OPTICS_HEALTHY);
	assert_int_equal(c->both.health, OPTICS_MARGINAL);
	assert_non_null(find(&c->both, "cable_loss", 2));
	/* both ends are eth1: the sentence names each end by its node */
	assert_non_null(strstr(find(&c->both, "cable_loss", 2)->text, " sent at h4:eth1, "));
	assert_non_null(strstr(find(&c->both, "cable_loss", 2)->text, " received at h3:eth1: "));

	c = &o->cables[2];
	assert_int_equal(c->health, OPTICS_HEALTHY);
	assert_string_equal(o->names[c->end[0].host], "h2");
	topo_free(t);
}

/* A port LLDP did not see (a module of its own, not cabled through the graph): no peer. */
static void test_unseen_port(void **state)
{
	struct topo *t = graph();
	struct topo_optics *o = topo_optics_new(2);

	(void)state;
	assert_non_null(o);
	snprintf(o->names[0], sizeof(o->names[0]), "h2");
	snprintf(o->names[1], sizeof(o->names[1]), "h9");	/* not in the graph */
	o->read[0] = o->read[1] = true;
	qsfp_even_build(&img);
	qsfp_rx_mw(&img, 3, 0);
	port_add(&o->sets[0], "optqsfp");
	qsfp_even_build(&img);
	port_add(&o->sets[1], "eth0");
	assert_int_equal(topo_optics_attach(t, o, &pol), 0);
	assert_non_null(t->optics);
	assert_int_equal(t->optics->n_cables, 2);
	assert_null(t->optics->cables[0].end[0].at);
	assert_null(t->optics->cables[1].end[0].at);
	assert_int_equal(t->optics->cables[0].health, OPTICS_FAILING);
	topo_free(t);
}

static char *text_of(const struct topo *t)
{
	struct render out = { .ops = &render_text_ops };
	char *buf = NULL;
	size_t len = 0;

	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(render_text_ops.discover(&out, t), 0);
	fclose(out.f);
	return buf;
}

static char *json_of(const struct topo *t, bool stream, bool pretty)
{
	struct render out = { .ops = &render_json_ops, .pretty = pretty };
	char *buf = NULL;
	size_t len = 0;

	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(stream ? render_json_ops.discover(&out, t)
				: render_json_emit(&out, discover_to_json(t)), 0);
	fclose(out.f);
	return buf;
}

/* No module anywhere: nothing attached, and every output as it was. */
static void test_no_module(void **state)
{
	struct topo *t = graph();
	struct topo_optics *o = topo_optics_new(2);
	char *text0 = text_of(t), *json0 = json_of(t, true, true), *text1, *json1;

	(void)state;
	assert_non_null(o);
	snprintf(o->names[0], sizeof(o->names[0]), "h5");
	snprintf(o->names[1], sizeof(o->names[1]), "h1");
	o->read[0] = o->read[1] = true;
	veth_add(&o->sets[0], "eth0");		/* h1: nothing at all (an empty set) */
	assert_int_equal(topo_optics_attach(t, o, &pol), 0);
	assert_null(t->optics);
	text1 = text_of(t);
	json1 = json_of(t, true, true);
	assert_string_equal(text1, text0);
	assert_string_equal(json1, json0);
	assert_null(strstr(json1, "cables"));
	free(text0);
	free(text1);
	free(json0);
	free(json1);
	topo_free(t);
}

/* @o's member @a's member @b (borrowed), NULL when absent. */
static json_t *get2(const json_t *o, const char *a, const char *b)
{
	return json_object_get(json_object_get(o, a), b);
}

static void test_render(void **state)
{
	struct topo *t = graph();
	char *text, *want, *got;
	json_t *doc, *cables, *e;
	json_error_t jerr;

	(void)state;
	assert_int_equal(topo_optics_attach(t, readings(), &pol), 0);
	/* the stream's bytes are the whole document's, compact and indented */
	for (int pretty = 0; pretty <= 1; pretty++) {
		want = json_of(t, false, pretty);
		got = json_of(t, true, pretty);
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	got = json_of(t, true, true);
	doc = json_loads(got, 0, &jerr);
	free(got);
	assert_non_null(doc);
	cables = json_object_get(doc, "cables");
	assert_int_equal(json_array_size(cables), 3);
	e = json_array_get(json_object_get(json_array_get(cables, 0), "ends"), 0);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cables, 0), "health")),
			    "failing");
	assert_string_equal(json_string_value(json_object_get(e, "node")), "h1");
	assert_string_equal(json_string_value(json_object_get(e, "ifname")), "eth0");
	assert_string_equal(json_string_value(get2(e, "peer", "node")), "leaf1");
	assert_string_equal(json_string_value(get2(e, "peer", "port")), "swp1");
	assert_string_equal(json_string_value(get2(e, "module", "type")), "QSFP28");
	assert_string_equal(json_string_value(get2(e, "verdict", "health")),
			    "failing");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(get2(
		e, "verdict", "findings"), 0), "lane")), 3);
	assert_true(json_is_null(json_object_get(json_array_get(cables, 0), "both_ends")));
	e = json_array_get(cables, 1);
	assert_int_equal(json_array_size(json_object_get(e, "ends")), 2);
	assert_string_equal(json_string_value(get2(e, "both_ends", "health")),
			    "marginal");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(get2(
		e, "both_ends", "findings"), 0), "text")), " received at h3:eth1: "));
	json_decref(doc);

	text = text_of(t);
	assert_non_null(strstr(text, "\ncable ends: 5 nodes read, 4 cable ends: 1 failing, "
				     "1 marginal, 2 healthy\n  failing:\n    h1 eth0 -> leaf1 swp1 "
				     "QSFP28 "));
	assert_non_null(strstr(text, "  marginal:\n    h3 eth1 -> h4 eth1 QSFP28 "));
	assert_non_null(strstr(text, "\n    h3 eth1 <-> h4 eth1, both ends: lane 2: "));
	assert_non_null(strstr(text, " sent at h4:eth1, "));
	assert_null(strstr(text, "    h2 eth0"));	/* healthy ends are counted, not listed */
	free(text);
	topo_free(t);
}

/* The report's table of @cables (a discover document's), as a string. */
static char *report_of(const json_t *cables)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_html_discover_cables(f, cables, "d<1>.json");
	fclose(f);
	return buf;
}

/* report_verdict() of a report of discover document @doc alone. */
static int verdict_of(json_t *doc)
{
	struct report r;
	struct fab_err err;
	int v;

	report_init(&r);
	fab_err_init(&err);
	assert_int_equal(report_add(&r, "d.json", doc, &err), 0);
	v = report_verdict(&r);
	report_fini(&r);
	return v;
}

/* discover's document, as `fabricctl report` reads it: its cables as a table, worst first. */
static void test_report(void **state)
{
	struct topo *t = graph();
	const char *h1, *h3, *both, *h2;
	json_t *doc;
	char *html, *js;

	(void)state;
	assert_int_equal(topo_optics_attach(t, readings(), &pol), 0);
	js = json_of(t, true, false);
	doc = json_loads(js, 0, NULL);
	free(js);
	assert_non_null(doc);
	html = report_of(json_object_get(doc, "cables"));
	assert_non_null(strstr(html, "<section id=\"discover-cables\"><h2>Cables <small>d&lt;1&gt;.json "
				     "&middot; 4 cable ends, one reading</small></h2>"));
	h1 = strstr(html, "<tr><td>h1</td><td>eth0</td><td>leaf1 swp1</td><td>QSFP28 ");
	h3 = strstr(html, "<tr><td>h3</td><td>eth1</td><td>h4 eth1</td><td>QSFP28 ");
	both = strstr(html, "<tr class=\"both\"><td colspan=\"3\">h3 eth1 &harr; h4 eth1</td>"
			    "<td>both ends</td><td><span class=\"tag slow\">marginal</span></td>"
			    "<td><b>12.55 dB</b> (limit 0 dB): lane 2: ");
	h2 = strstr(html, "<tr><td>h2</td><td>eth0</td><td>leaf1 swp2</td>");
	assert_non_null(h1);
	assert_non_null(h3);
	assert_non_null(both);
	assert_non_null(h2);
	assert_true(h1 < h3 && h3 < both && both < h2);	/* worst first */
	assert_non_null(strstr(h1, " sn "));
	assert_non_null(strstr(h1, "<span class=\"tag bad\">failing</span>"));
	assert_non_null(strstr(both, " received at h3:eth1: "));
	assert_null(strstr(html, "<td>h5</td>"));	/* the veth is no cable end */
	free(html);
	/* the page's verdict: a failing cable is discover's exit 1, no problem needed */
	assert_int_equal(json_array_size(json_object_get(doc, "problems")), 0);
	assert_int_equal(verdict_of(doc), 1);
	json_array_remove(json_object_get(doc, "cables"), 0);	/* h1's, the failing one */
	assert_int_equal(verdict_of(doc), 0);
	json_decref(doc);
	/* no cables (absent, empty): nothing */
	html = report_of(NULL);
	assert_string_equal(html, "");
	free(html);
	doc = json_array();
	html = report_of(doc);
	assert_string_equal(html, "");
	free(html);
	json_decref(doc);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_attach, setup),
		cmocka_unit_test_setup(test_unseen_port, setup),
		cmocka_unit_test_setup(test_no_module, setup),
		cmocka_unit_test_setup(test_report, setup),
		cmocka_unit_test_setup(test_render, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
