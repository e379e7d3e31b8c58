// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Modules in status output: the "modules" array of fabricctl.status/1
 * against a golden file (a QSFP28 with a low-warning lane, a CMIS module
 * and a port whose module could not be read), the keys that stay null,
 * the Prometheus families, and the text views.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "render/optics.h"
#include "render/render.h"
#include "module_img.h"

#define GOLDEN "tests/golden/status-modules.json"

static struct img img;

static void port_from(struct optics_set *s, const char *ifname, bool windowed)
{
	struct optics_port *p = optics_set_add(s, ifname);
	struct optics_policy pol;
	struct module_eeprom e;

	assert_non_null(p);
	optics_policy_default(&pol);
	img_fill(&img, &e);
	assert_int_equal(module_decode(&e, &p->mod), 0);
	p->link.speed_mbps = 100000;
	p->link.lanes = 4;
	p->link.fec_ok = true;
	p->link.fec = OPTICS_FEC_RS;
	p->link.corrected_blocks = (struct optics_fec_stat){ true, 120, 2, { 100, 20 } };
	p->link.uncorrectable_blocks = (struct optics_fec_stat){ true, 0, 0, { 0 } };
	p->link.carrier_changes_ok = true;
	p->link.carrier_changes = 2;
	p->link.t_s = 12.0;
	if (windowed) {
		p->before = p->link;
		p->before.t_s = 10.0;
		p->have_before = true;
		p->link.corrected_bits = (struct optics_fec_stat){ true, 2000000, 0, { 0 } };
		p->before.corrected_bits = (struct optics_fec_stat){ true, 0, 0, { 0 } };
	}
	optics_verdict(&p->mod, p->have_before ? &p->before : NULL, &p->link, &pol, &p->verdict);
}

static void fill(struct host_state *hs)
{
	struct optics_port *p;

	host_state_init(hs);
	snprintf(hs->hostname, sizeof(hs->hostname), "node07");
	hs->optics = calloc(1, sizeof(*hs->optics));
	assert_non_null(hs->optics);
	optics_set_init(hs->optics);
	qsfp_build(&img);
	img.a0[9] = 0x01;	/* lane 2 Rx low warning */
	put16(img.a0, 34 + 2, 0);
	port_from(hs->optics, "eth0", true);
	cmis_build(&img);
	port_from(hs->optics, "eth1", false);
	p = optics_set_add(hs->optics, "eth2");
	p->module_rc = -ENODEV;
	snprintf(p->module_err, sizeof(p->module_err), "module: eth2: no module plugged");
	p->link_rc = -ENODEV;
	snprintf(p->link_err, sizeof(p->link_err), "link: eth2: gone");
}

static char *render(int (*fn)(struct render *, const struct host_state *),
		    const struct host_state *hs)
{
	struct render out = { .pretty = true };
	char *buf = NULL;
	size_t len = 0;

	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(fn(&out, hs), 0);
	fclose(out.f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
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
	struct host_state hs;
	char *got, *want;

	(void)state;
	fill(&hs);
	got = render(render_json_ops.status, &hs);
	if (getenv("FAB_UPDATE_GOLDEN")) {
		FILE *f = fopen(GOLDEN, "w");

		fputs(got, f);
		fclose(f);
	}
	want = slurp(GOLDEN);
	assert_string_equal(got, want);
	free(got);
	free(want);
	host_state_fini(&hs);
}

static void test_json_values(void **state)
{
	struct host_state hs;
	json_t *doc, *m0, *lanes, *v;

	(void)state;
	fill(&hs);
	doc = status_to_json(&hs);
	m0 = json_array_get(json_object_get(doc, "modules"), 0);
	lanes = json_object_get(json_object_get(m0, "module"), "lanes");
	assert_int_equal(json_array_size(lanes), 4);
	/* no light: mW 0, dBm null; a light lane has both */
	assert_true(json_real_value(json_object_get(json_array_get(lanes, 1), "rx_power_mw")) == 0);
	assert_true(json_is_null(json_object_get(json_array_get(lanes, 1), "rx_power_dbm")));
	assert_true(json_is_real(json_object_get(json_array_get(lanes, 0), "rx_power_dbm")));
	v = json_object_get(m0, "verdict");
	assert_string_equal(json_string_value(json_object_get(v, "health")), "failing");
	assert_true(json_is_true(json_object_get(v, "windowed")));
	/* 2e6 bits over 2 s at 100 Gb/s: 1e-5 */
	assert_true(fabs(json_real_value(json_object_get(v, "pre_fec_ber")) - 1e-5) < 1e-12);
	assert_string_equal(json_string_value(json_object_get(v, "fec_code")), "RS(528,514)");
	/* the unreadable port: module and link null, errors said, same keys */
	m0 = json_array_get(json_object_get(doc, "modules"), 2);
	assert_true(json_is_null(json_object_get(m0, "module")));
	assert_string_equal(json_string_value(json_object_get(m0, "module_error")),
			    "module: eth2: no module plugged");
	assert_string_equal(json_string_value(json_object_get(json_object_get(m0, "verdict"),
							     "health")), "unknown");
	json_decref(doc);
	/* modules not read (a fleet node): null, not [] */
	optics_set_fini(hs.optics);
	free(hs.optics);
	hs.optics = NULL;
	doc = status_to_json(&hs);
	assert_true(json_is_null(json_object_get(doc, "modules")));
	json_decref(doc);
	host_state_fini(&hs);
}

/* Every line a comment or "name{labels} value" with a finite number, families declared. */
static void test_prom(void **state)
{
	struct host_state hs;
	char *got, *line, *save = NULL;
	unsigned int series = 0;

	(void)state;
	fill(&hs);
	got = render(render_prom_ops.status, &hs);
	for (line = strtok_r(got, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp;

		if (line[0] == '#')
			continue;
		series++;
		assert_true(!strncmp(line, "fabricctl_module_", 17) ||
			    !strncmp(line, "fabricctl_link_", 15));
		assert_non_null(strstr(line, "{host=\"node07\",ifname=\""));
		sp = strrchr(line, ' ');
		assert_non_null(sp);
		assert_true(isfinite(strtod(sp + 1, NULL)));
	}
	assert_true(series > 40);
	free(got);
	got = render(render_prom_ops.status, &hs);
	assert_non_null(strstr(got, "fabricctl_module_rx_power_dbm{host=\"node07\",ifname=\"eth0\","
				    "lane=\"1\"} -0.9691001301"));
	assert_null(strstr(got, "fabricctl_module_rx_power_dbm{host=\"node07\",ifname=\"eth0\","
				"lane=\"2\"}"));
	assert_non_null(strstr(got, "fabricctl_module_rx_power_milliwatts{host=\"node07\","
				    "ifname=\"eth0\",lane=\"2\"} 0\n"));
	assert_non_null(strstr(got, "fabricctl_module_health{host=\"node07\","
				    "ifname=\"eth0\"} 2\n"));
	assert_non_null(strstr(got, "fabricctl_module_health{host=\"node07\","
				    "ifname=\"eth2\"} -1\n"));
	assert_non_null(strstr(got, "fabricctl_module_flag{host=\"node07\",ifname=\"eth0\","
				    "lane=\"2\",quantity=\"rx_power\"} 1\n"));
	assert_non_null(strstr(got, "fabricctl_link_pre_fec_ber{host=\"node07\","
				    "ifname=\"eth0\"} 1e-05"));
	assert_non_null(strstr(got, "# TYPE fabricctl_link_fec_corrected_blocks_total counter"));
	free(got);
	host_state_fini(&hs);
}

static void test_text(void **state)
{
	struct host_state hs;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	fill(&hs);
	f = open_memstream(&buf, &len);
	optics_text_summary(f, hs.optics);
	fclose(f);
	assert_non_null(strstr(buf, "MODULE"));
	assert_non_null(strstr(buf, "eth0         QSFP28         FABRICCTL TEST   "
				    "QSFP28-SR4-TEST"));
	assert_non_null(strstr(buf, "dark (2)"));
	assert_non_null(strstr(buf, "failing: lane 2 has no light"));
	assert_non_null(strstr(buf, "eth2"));
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	optics_text_detail(f, hs.optics);
	fclose(f);
	assert_non_null(strstr(buf, "eth1: healthy\n"));
	assert_non_null(strstr(buf, "    QSFP-DD CMIS 5.0, FABRICCTL TEST, "
				    "QSFPDD-SR8-TEST rev 02"));
	assert_non_null(strstr(buf, "window 2.0 s: uncorrectable 0, flaps 0, "
				    "pre-FEC BER 1.00e-05"));
	assert_non_null(strstr(buf, "       8     0.00    -1.19    8.700\n"));
	free(buf);
	/* nothing read or nothing there: the summary is silent */
	buf = NULL;
	f = open_memstream(&buf, &len);
	optics_text_summary(f, NULL);
	fclose(f);
	assert_string_equal(buf, "");
	free(buf);
	host_state_fini(&hs);
}

/* diagnose's evidence: the suspects' hosts' cable ends, text and JSON. */
static void test_hosts(void **state)
{
	struct fab_host hv[3] = { { .name = "h1" }, { .name = "h2" }, { .name = "h3" } };
	struct fab_hosts hosts = { .hosts = hv, .n = 3 };
	struct optics_hosts c;
	struct host_state hs;
	char *buf = NULL;
	size_t len = 0;
	json_t *j, *h;
	FILE *f;

	(void)state;
	fill(&hs);
	assert_int_equal(optics_hosts_init(&c, 3), 0);
	c.wanted[1] = c.wanted[2] = true;	/* h1 not a suspect: not shown */
	c.read[0] = c.read[1] = true;
	c.why[2] = strdup("its worker is gone");
	c.set[1] = *hs.optics;			/* moved */
	c.set[1].window_s = 2.0;
	free(hs.optics);
	hs.optics = NULL;
	f = open_memstream(&buf, &len);
	optics_text_hosts(f, &hosts, &c);
	fclose(f);
	assert_non_null(strstr(buf, "\ncable ends of the suspects' hosts (read before and after "
				    "the sweep, 2.0 s apart):\n"));
	assert_non_null(strstr(buf, "  h2 eth0: failing (QSFP28 FABRICCTL TEST QSFP28-SR4-TEST sn "));
	assert_non_null(strstr(buf, "      failing: lane 2 has no light"));
	assert_non_null(strstr(buf, "  h2 eth1: healthy (QSFP-DD "));
	assert_non_null(strstr(buf, ", one reading\n"));
	assert_non_null(strstr(buf, "  h2 eth2: unknown (module: module: eth2: no module plugged)"));
	assert_non_null(strstr(buf, "  h3: not read: its worker is gone\n"));
	assert_null(strstr(buf, "  h1"));
	free(buf);
	j = optics_hosts_to_json(&hosts, &c);
	assert_true(fabs(json_real_value(json_object_get(j, "window_s")) - 2.0) < 1e-9);
	assert_int_equal(json_array_size(json_object_get(j, "hosts")), 2);
	h = json_array_get(json_object_get(j, "hosts"), 0);
	assert_string_equal(json_string_value(json_object_get(h, "node")), "h2");
	assert_true(json_is_true(json_object_get(h, "read")));
	assert_true(json_is_null(json_object_get(h, "note")));
	assert_int_equal(json_array_size(json_object_get(h, "ports")), 3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_array_get(json_object_get(h, "ports"), 0), "verdict"), "health")), "failing");
	h = json_array_get(json_object_get(j, "hosts"), 1);
	assert_true(json_is_false(json_object_get(h, "read")));
	assert_string_equal(json_string_value(json_object_get(h, "note")), "its worker is gone");
	assert_int_equal(json_array_size(json_object_get(h, "ports")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "ib_ports")), 0);
	assert_true(json_is_null(json_object_get(j, "ib_window_s")));
	json_decref(j);
	/* InfiniBand ends: their own section, before the hosts' */
	{
		struct optics_ib_end *e = optics_hosts_ib_add(&c);
		struct optics_policy pol;

		optics_policy_default(&pol);
		assert_non_null(e);
		snprintf(e->node, sizeof(e->node), "leaf-001");
		e->port = 5;
		e->before = (struct optics_ib_pma){ .ok = true };
		e->after = (struct optics_ib_pma){ .ok = true, .symbol_errors = 40 };
		c.ib_window_s = 30;
		optics_ib_verdict(&e->before, &e->after, 30, 100000, &pol, &e->verdict);
	}
	buf = NULL;
	f = open_memstream(&buf, &len);
	optics_text_hosts(f, &hosts, &c);
	fclose(f);
	assert_non_null(strstr(buf, "\ncable ends of the suspects' links (InfiniBand PMA counters, 30 s "
				    "since the sweep began):\n  leaf-001 port 5: failing\n      failing: "
				    "40 symbol errors in 30 s: 1.33e-11 per bit"));
	assert_true(strstr(buf, "InfiniBand") < strstr(buf, "suspects' hosts"));
	free(buf);
	j = optics_hosts_to_json(&hosts, &c);
	h = json_array_get(json_object_get(j, "ib_ports"), 0);
	assert_string_equal(json_string_value(json_object_get(h, "node")), "leaf-001");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(h, "after"),
							    "symbol_errors")), 40);
	assert_true(json_is_null(json_object_get(h, "rate_mbps")));
	json_decref(j);
	/* not read at all: no text, JSON null */
	assert_true(json_is_null(j = optics_hosts_to_json(&hosts, NULL)));
	json_decref(j);
	buf = NULL;
	f = open_memstream(&buf, &len);
	optics_text_hosts(f, &hosts, NULL);
	fclose(f);
	assert_string_equal(buf, "");
	free(buf);
	optics_hosts_fini(&c);
	host_state_fini(&hs);
}

/* status --hosts: the nodes' cable ends grouped by verdict, worst first. */
static void test_fleet(void **state)
{
	struct host_state hs;
	json_t *doc, *g, *mods;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	fill(&hs);	/* eth0 failing, eth1 healthy, eth2 unknown (no module) */
	mods = optics_set_to_json(hs.optics);
	doc = json_pack("{s:[{s:s, s:{s:O}}, {s:s, s:{s:O}}, {s:s, s:{s:n}}, {s:s, s:n}]}", "nodes",
			"node", "n1", "status", "modules", mods, "node", "n2", "status", "modules",
			mods, "node", "n3", "status", "modules", "node", "n4", "status");
	assert_non_null(doc);
	optics_fleet_json(doc);
	g = json_object_get(doc, "module_groups");
	assert_int_equal(json_array_size(g), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(g, 0), "health")),
			    "failing");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(g, 0), "count")), 2);
	assert_int_equal(json_array_size(json_object_get(json_array_get(g, 0), "nodes")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
		json_array_get(g, 0), "ports"), 1), "node")), "n2");
	assert_string_equal(json_string_value(json_object_get(json_array_get(g, 1), "health")),
			    "unknown");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(
		json_array_get(g, 1), "ports"), 0), "finding")), "module: eth2: no module plugged");
	assert_string_equal(json_string_value(json_object_get(json_array_get(g, 2), "health")),
			    "healthy");
	assert_int_equal(json_array_size(json_object_get(json_array_get(g, 2), "ports")), 0);
	f = open_memstream(&buf, &len);
	optics_fleet_text(f, doc);
	fclose(f);
	assert_non_null(strstr(buf, "\nmodules: 2 nodes read, 6 cable ends: 2 failing, 2 unknown, "
				    "2 healthy; 2 nodes not read\n  failing:\n    n1 eth0 QSFP28 "
				    "FABRICCTL TEST QSFP28-SR4-TEST sn "));
	assert_non_null(strstr(buf, ": lane 2 has no light"));
	assert_non_null(strstr(buf, "  unknown:\n    n1 eth2: module: eth2: no module plugged\n"));
	free(buf);
	json_decref(doc);
	/* no node reported a module: no text, an empty list */
	doc = json_pack("{s:[{s:s, s:{s:n}}]}", "nodes", "node", "n1", "status", "modules");
	optics_fleet_json(doc);
	assert_int_equal(json_array_size(json_object_get(doc, "module_groups")), 0);
	buf = NULL;
	f = open_memstream(&buf, &len);
	optics_fleet_text(f, doc);
	fclose(f);
	assert_string_equal(buf, "");
	free(buf);
	json_decref(doc);
	json_decref(mods);
	host_state_fini(&hs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_golden),
		cmocka_unit_test(test_json_values),
		cmocka_unit_test(test_prom),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_fleet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
