// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One verdict per cable end (model/optics.c, docs/optics.md): each rule
 * on a module decoded from spec-built pages (module_img.h) with one value
 * changed, the pre-FEC BER estimate and its limits, the window rules; and
 * node_optics_port() through a sys that serves page images, the seam
 * status reads modules through.
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

#include "model/optics.h"
#include "model/optics_wire.h"
#include "node/optics.h"
#include "module_img.h"

static struct img img;
static struct module_eeprom ee;
static struct fab_module mod;
static struct optics_policy pol;
static struct optics_verdict v;

static void judge(void)
{
	img_fill(&img, &ee);
	assert_int_equal(module_decode(&ee, &mod), 0);
	optics_verdict(&mod, NULL, NULL, &pol, &v);
}

static const struct optics_finding *find(const char *code, unsigned int lane)
{
	for (size_t i = 0; i < v.n; i++)
		if (!strcmp(v.f[i].code, code) && v.f[i].lane == lane)
			return &v.f[i];
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	optics_policy_default(&pol);
	return 0;
}

static void test_healthy(void **state)
{
	(void)state;
	sfp_build(&img);
	judge();
	assert_int_equal(v.health, OPTICS_HEALTHY);
	assert_int_equal(v.n, 0);
	assert_int_equal(v.hint, OPTICS_HINT_NONE);
	qsfp_build(&img);
	judge();
	assert_int_equal(v.health, OPTICS_HEALTHY);
	cmis_build(&img);
	judge();
	assert_int_equal(v.health, OPTICS_HEALTHY);
	assert_false(v.windowed);
	/* nothing to judge: no module, no window */
	optics_verdict(NULL, NULL, NULL, &pol, &v);
	assert_int_equal(v.health, OPTICS_UNKNOWN);
}

/* The module's own flag: warning is marginal, alarm failing. */
static void test_flags(void **state)
{
	const struct optics_finding *f;

	(void)state;
	qsfp_build(&img);
	img.a0[9] = 0x01;			/* lane 2 Rx low warning */
	judge();
	assert_int_equal(v.health, OPTICS_MARGINAL);
	f = find("rx_power_low_warning", 2);
	assert_non_null(f);
	assert_string_equal(f->source, "module flag");
	assert_int_equal(f->hint, OPTICS_HINT_CLEAN);
	assert_int_equal(v.hint, OPTICS_HINT_CLEAN);
	img.a0[10] = 0x40;			/* lane 3 Rx low alarm */
	judge();
	assert_int_equal(v.health, OPTICS_FAILING);
	assert_non_null(find("rx_power_low_alarm", 3));
	qsfp_build(&img);
	img.a0[6] = 0x80;			/* temperature high alarm */
	judge();
	assert_int_equal(v.health, OPTICS_FAILING);
	assert_int_equal(find("temperature_high_alarm", 0)->hint, OPTICS_HINT_COOLING);
	qsfp_build(&img);
	img.a0[12] = 0x08;			/* lane 4 bias high alarm: the laser */
	judge();
	assert_int_equal(find("bias_high_alarm", 4)->hint, OPTICS_HINT_REPLACE_OPTIC);
	qsfp_build(&img);
	img.a0[7] = 0x40;			/* Vcc low alarm: contact */
	judge();
	assert_int_equal(find("voltage_low_alarm", 0)->hint, OPTICS_HINT_RESEAT);
}

/* A value past the module's threshold counts with no flag set. */
static void test_thresholds(void **state)
{
	const struct optics_finding *f;

	(void)state;
	sfp_build(&img);
	put16(img.a2, 104, MW(0.04));		/* Rx 0.04 mW: below low warning 0.0501 */
	sfp_sums(&img);
	judge();
	assert_int_equal(v.health, OPTICS_MARGINAL);
	f = find("rx_power_low_warning", 1);
	assert_non_null(f);
	assert_string_equal(f->source, "module threshold");
	assert_true(fabs(f->value - 10 * log10(0.04)) < 1e-6);
	assert_true(fabs(f->limit - 10 * log10(0.0501)) < 1e-6);
	assert_string_equal(f->unit, "dBm");
	put16(img.a2, 104, MW(0.03));		/* below low alarm 0.0316 */
	sfp_sums(&img);
	judge();
	assert_int_equal(v.health, OPTICS_FAILING);
	assert_non_null(find("rx_power_low_alarm", 1));
	/* exactly at the threshold is not past it */
	put16(img.a2, 104, MW(0.0501));
	sfp_sums(&img);
	judge();
	assert_int_equal(v.health, OPTICS_HEALTHY);
	/* Tx power high alarm */
	put16(img.a2, 102, MW(2.0));
	sfp_sums(&img);
	judge();
	assert_int_equal(find("tx_power_high_alarm", 1)->hint, OPTICS_HINT_REPLACE_OPTIC);
}

/* No thresholds in the module: the policy's, for temperature and Rx power. */
static void test_policy_fallback(void **state)
{
	const struct optics_finding *f;

	(void)state;
	sfp_build(&img);
	memset(img.a2, 0, 40);
	put16(img.a2, 104, MW(0.08));		/* -10.97 dBm: below -10 */
	put16(img.a2, 96, DEGC(72));		/* above 70 */
	sfp_sums(&img);
	judge();
	assert_int_equal(v.health, OPTICS_MARGINAL);
	f = find("rx_power_low_warning", 1);
	assert_non_null(f);
	assert_string_equal(f->source, "policy");
	assert_true(fabs(f->limit - (-10.0)) < 1e-9);
	assert_non_null(find("temperature_high_warning", 0));
	pol.rx_low_alarm_dbm = -10.5;
	judge();
	assert_int_equal(v.health, OPTICS_FAILING);
	optics_policy_default(&pol);
}

static void test_lanes(void **state)
{
	const struct optics_finding *f;

	(void)state;
	/* one lane 4 dB below the median of its siblings: marginal, clean */
	qsfp_build(&img);
	for (unsigned int i = 0; i < 4; i++)
		put16(img.a0, 34 + 2 * i, MW(0.8));
	put16(img.a0, 34 + 2 * 2, MW(0.8 * 0.398));
	judge();
	assert_int_equal(v.health, OPTICS_MARGINAL);
	f = find("rx_power_lane_low", 3);
	assert_non_null(f);
	assert_int_equal(f->hint, OPTICS_HINT_CLEAN);
	/* 2 dB below: fine */
	put16(img.a0, 34 + 2 * 2, MW(0.8 * 0.63));
	judge();
	assert_int_equal(v.health, OPTICS_HEALTHY);
	/* a lane lost (no light) while the others have light: failing */
	put16(img.a0, 34 + 2 * 1, 0);
	judge();
	assert_int_equal(v.health, OPTICS_FAILING);
	f = find("lane_lost", 2);
	assert_non_null(f);
	assert_non_null(strstr(f->text, "3 other lanes"));
	/* a lane lost by LOS with a power value left */
	qsfp_build(&img);
	img.a0[3] = 0x08;			/* lane 4 Rx LOS */
	judge();
	assert_non_null(find("lane_lost", 4));
	/* every lane dark: the far end */
	cmis_build(&img);
	for (unsigned int i = 0; i < 8; i++)
		put16(u(&img, 0, 0x11), 186 + 2 * i, 0);
	judge();
	assert_int_equal(v.health, OPTICS_FAILING);
	assert_int_equal(find("rx_no_light", 0)->hint, OPTICS_HINT_FAR_END);
	assert_int_equal(v.n, 1);	/* not eight lanes' low alarms besides */
	/* a weak laser on one lane: Tx spread */
	cmis_build(&img);
	put16(u(&img, 0, 0x11), 154 + 2 * 5, MW(0.4));
	judge();
	assert_int_equal(find("tx_power_lane_low", 6)->hint, OPTICS_HINT_REPLACE_OPTIC);
	/* Tx fault, module fault */
	cmis_build(&img);
	u(&img, 0, 0x11)[135] = 0x01;
	img.a0[3] = 0x05 << 1;
	judge();
	assert_non_null(find("tx_fault", 1));
	assert_non_null(find("module_fault", 0));
	assert_int_equal(v.hint, OPTICS_HINT_REPLACE_OPTIC);
}

static void link_at(struct optics_link *l, double t, int64_t mbps, unsigned int lanes)
{
	optics_link_init(l);
	l->t_s = t;
	l->speed_mbps = mbps;
	l->lanes = lanes;
	l->fec_ok = true;
	l->fec = OPTICS_FEC_RS;
	l->corrected_bits.ok = l->corrected_blocks.ok = l->uncorrectable_blocks.ok = true;
	l->carrier_changes_ok = l->carrier_down_ok = true;
}

static void test_ber(void **state)
{
	struct optics_link a, b;
	char code[16];
	double ber;
	bool lb;

	(void)state;
	/* 400G over 8 lanes: 50 Gb/s PAM4 lanes, KP4 RS(544,514) */
	link_at(&a, 100, 400000, 8);
	link_at(&b, 110, 400000, 8);
	assert_true(fabs(optics_ber_limit(&b, NULL, &pol, code, sizeof(code)) - 2.4e-4) < 1e-12);
	assert_string_equal(code, "RS(544,514)");
	b.corrected_bits.total = 4000000;	/* 4e6 / 4e12 bits = 1e-6 */
	assert_int_equal(optics_ber(&a, &b, &ber, &lb), 0);
	assert_true(fabs(ber - 1e-6) < 1e-15);
	assert_false(lb);
	/* 100G over 4 lanes: 25 Gb/s NRZ, KR4 RS(528,514) */
	b.lanes = 4;
	b.speed_mbps = 100000;
	assert_true(fabs(optics_ber_limit(&b, NULL, &pol, code, sizeof(code)) - 5e-5) < 1e-12);
	assert_string_equal(code, "RS(528,514)");
	/* lanes unknown: from the module's lanes; then none for 100G */
	b.lanes = 0;
	qsfp_build(&img);
	img_fill(&img, &ee);
	module_decode(&ee, &mod);
	assert_true(optics_ber_limit(&b, &mod, &pol, code, sizeof(code)) > 0);
	assert_true(optics_ber_limit(&b, NULL, &pol, code, sizeof(code)) == 0);
	/* BaseR and no FEC have no BER rule */
	b.fec = OPTICS_FEC_BASER;
	assert_true(optics_ber_limit(&b, NULL, &pol, code, sizeof(code)) == 0);
	/* blocks only: a lower bound */
	link_at(&a, 0, 100000, 4);
	link_at(&b, 1, 100000, 4);
	a.corrected_bits.ok = b.corrected_bits.ok = false;
	b.corrected_blocks.total = 1000;
	assert_int_equal(optics_ber(&a, &b, &ber, &lb), 0);
	assert_true(lb);
	assert_true(fabs(ber - 1e-8) < 1e-18);
	/* a counter that went back (reset): no estimate */
	a.corrected_blocks.total = 5000;
	assert_int_equal(optics_ber(&a, &b, &ber, &lb), -ENODATA);
	/* no time, no speed: no estimate */
	b.t_s = 0;
	assert_int_equal(optics_ber(&a, &b, &ber, &lb), -ENODATA);
}

static void test_window(void **state)
{
	struct optics_link a, b;
	const struct optics_finding *f;

	(void)state;
	cmis_build(&img);
	img_fill(&img, &ee);
	module_decode(&ee, &mod);
	link_at(&a, 10, 400000, 8);
	link_at(&b, 12, 400000, 8);	/* 8e11 bits */
	/* clean window */
	b.corrected_bits.total = 8000;	/* 1e-8 */
	optics_verdict(&mod, &a, &b, &pol, &v);
	assert_int_equal(v.health, OPTICS_HEALTHY);
	assert_true(v.windowed && v.ber_ok);
	assert_true(fabs(v.window_s - 2) < 1e-9);
	/* within a decade of the limit: marginal */
	b.corrected_bits.total = (uint64_t)(8e11 * 5e-5);
	optics_verdict(&mod, &a, &b, &pol, &v);
	assert_int_equal(v.health, OPTICS_MARGINAL);
	assert_non_null(find("pre_fec_ber", 0));
	/* above the limit: failing */
	b.corrected_bits.total = (uint64_t)(8e11 * 3e-4);
	optics_verdict(&mod, &a, &b, &pol, &v);
	assert_int_equal(v.health, OPTICS_FAILING);
	f = find("pre_fec_ber", 0);
	assert_true(f->level == OPTICS_FAILING && fabs(f->limit - 2.4e-4) < 1e-12);
	/* uncorrectable blocks in the window: failing, whatever the BER */
	b.corrected_bits.total = 0;
	b.uncorrectable_blocks.total = 1;
	optics_verdict(&mod, &a, &b, &pol, &v);
	assert_int_equal(v.health, OPTICS_FAILING);
	assert_int_equal(v.uncorrectable, 1);
	assert_int_equal(find("fec_uncorrectable", 0)->hint, OPTICS_HINT_CLEAN);
	/* flaps: one is marginal, three failing; carrier_changes count half */
	b.uncorrectable_blocks.total = 0;
	b.carrier_down = 1;
	optics_verdict(&mod, &a, &b, &pol, &v);
	assert_int_equal(v.health, OPTICS_MARGINAL);
	assert_int_equal(find("flaps", 0)->hint, OPTICS_HINT_RESEAT);
	b.carrier_down = 3;
	optics_verdict(&mod, &a, &b, &pol, &v);
	assert_int_equal(v.health, OPTICS_FAILING);
	a.carrier_down_ok = b.carrier_down_ok = false;
	b.carrier_changes = 4;
	optics_verdict(&mod, &a, &b, &pol, &v);
	assert_int_equal(v.flaps, 2);
	b.down_events_ok = a.down_events_ok = true;
	b.down_events = 5;
	optics_verdict(&mod, &a, &b, &pol, &v);
	assert_int_equal(v.flaps, 5);
	/* a single reading never judges the link */
	optics_verdict(&mod, NULL, &b, &pol, &v);
	assert_int_equal(v.health, OPTICS_HEALTHY);
	assert_false(v.windowed);
	/* no module but a window: the link alone */
	optics_verdict(NULL, &a, &b, &pol, &v);
	assert_int_equal(v.health, OPTICS_FAILING);
}

/* Both ends of one cable: the loss between them, or the far end's laser. */
static void test_cable(void **state)
{
	struct optics_set set;
	struct optics_port *a, *b;
	const struct optics_finding *f;

	(void)state;
	optics_set_init(&set);
	qsfp_build(&img);
	a = optics_set_add(&set, "eth0");	/* both ends eth0: told apart by node */
	img_fill(&img, &ee);
	assert_int_equal(module_decode(&ee, &a->mod), 0);
	b = optics_set_add(&set, "eth0");
	a = &set.v[0];
	assert_int_equal(module_decode(&ee, &b->mod), 0);
	optics_cable_verdict(a, "h1:eth0", b, "h2:eth0", &pol, &v);
	assert_int_equal(v.health, OPTICS_HEALTHY);
	assert_int_equal(v.n, 0);
	/* lane 2 at h1 receives 0.05 mW (below the low warning 0.0871) of h2's 0.9 mW */
	a->mod.lane[1].rx_mw.v = 0.05;
	optics_cable_verdict(a, "h1:eth0", b, "h2:eth0", &pol, &v);
	assert_int_equal(v.health, OPTICS_MARGINAL);
	f = find("cable_loss", 2);
	assert_non_null(f);
	assert_int_equal(f->hint, OPTICS_HINT_CLEAN);
	assert_true(fabs(f->value - 10 * log10(0.9 / 0.05)) < 1e-9);
	assert_string_equal(f->text, "lane 2: -0.46 dBm sent at h2:eth0, -13.01 dBm received at "
			    "h1:eth0: 12.6 dB lost between them; clean both connectors, then "
			    "replace the cable");
	/* without names: the interface alone */
	optics_cable_verdict(a, NULL, b, "", &pol, &v);
	f = find("cable_loss", 2);
	assert_non_null(f);
	assert_non_null(strstr(f->text, "sent at eth0, -13.01 dBm received at eth0:"));
	/* ... because h2's laser on lane 2 is weak (below its low warning 0.2512): that optic */
	b->mod.lane[1].tx_mw.v = 0.2;
	optics_cable_verdict(a, "h1:eth0", b, "h2:eth0", &pol, &v);
	f = find("far_tx_low", 2);
	assert_non_null(f);
	assert_int_equal(f->hint, OPTICS_HINT_REPLACE_OPTIC);
	assert_string_equal(f->text, "lane 2: Rx -13.01 dBm at h1:eth0 because Tx is low "
			    "(-6.99 dBm) at h2:eth0: replace that optic");
	/* past the alarm: failing; and the other direction is judged too */
	a->mod.lane[1].rx_mw.v = 0.01;
	b->mod.lane[3].rx_mw.v = 0.02;
	optics_cable_verdict(a, "h1:eth0", b, "h2:eth0", &pol, &v);
	assert_int_equal(v.health, OPTICS_FAILING);
	assert_non_null(find("cable_loss", 4));
	/* an end without a module: nothing to say */
	b->module_rc = -ENODEV;
	optics_cable_verdict(a, "h1:eth0", b, "h2:eth0", &pol, &v);
	assert_int_equal(v.health, OPTICS_UNKNOWN);
	optics_set_fini(&set);
}

/* ---- node_optics_port through a sys serving page images ---- */

struct img_sys {
	struct sys sys;
	int pages_read;
	int fail_page;		/* this page number fails with -EIO; -1 none */
	bool no_module;		/* -EOPNOTSUPP: no module interface */
};

static int img_page_read(struct sys *sys, const char *ifname, const struct module_page_req *req,
			 uint8_t *buf, struct fab_err *err)
{
	struct img_sys *s = (struct img_sys *)sys;
	const uint8_t *d;

	if (s->no_module)
		return fab_err_set(err, -EOPNOTSUPP, "module: %s: no module interface", ifname);
	if (req->upper && req->page == s->fail_page)
		return fab_err_set(err, -EIO, "module: %s: page %u: Input/output error", ifname,
				   req->page);
	s->pages_read++;
	if (req->i2c == MODULE_I2C_A2)
		d = img.a2;
	else if (!req->upper)
		d = img.a0;
	else
		d = img.up[req->bank][req->page] + 128;
	memcpy(buf, d, MODULE_PAGE_LEN);
	return 0;
}

static int img_link_read(struct sys *sys, const char *ifname, struct optics_link *l,
			 struct fab_err *err)
{
	(void)sys;
	(void)ifname;
	(void)err;
	l->speed_mbps = 100000;
	l->fec_ok = true;
	l->fec = OPTICS_FEC_RS;
	return 0;
}

static const struct sys_ops img_ops = {
	.name = "img",
	.module_page_read = img_page_read,
	.link_phy_read = img_link_read,
};

static void test_node_port(void **state)
{
	struct img_sys s = { .sys = { .ops = &img_ops }, .fail_page = -1 };
	struct optics_set set;
	struct optics_port *p;

	(void)state;
	optics_set_init(&set);
	qsfp_build(&img);
	p = optics_set_add(&set, "eth0");
	assert_int_equal(node_optics_port(&s.sys, "eth0", p), 0);
	assert_int_equal(s.pages_read, 3);
	assert_int_equal(p->module_rc, 0);
	assert_string_equal(p->mod.pn, "QSFP28-SR4-TEST");
	assert_int_equal(p->link.fec, OPTICS_FEC_RS);
	/* a page that fails is said, the rest decoded */
	s.fail_page = 3;
	p = optics_set_add(&set, "eth1");
	assert_int_equal(node_optics_port(&s.sys, "eth1", p), 0);
	assert_int_equal(p->module_rc, 0);
	assert_false(p->mod.th.ok);
	assert_non_null(strstr(p->mod.notes[0], "page 03h: not read: Input/output error"));
	/* no module interface: the port is not a cable end */
	s.no_module = true;
	p = optics_set_add(&set, "veth0");
	assert_int_equal(node_optics_port(&s.sys, "veth0", p), -EOPNOTSUPP);
	/* a sys without the slots: -EOPNOTSUPP, no crash */
	s.sys.ops = &(const struct sys_ops){ .name = "none" };
	p = optics_set_add(&set, "x");
	assert_int_equal(node_optics_port(&s.sys, "x", p), -EOPNOTSUPP);
	optics_set_fini(&set);
}

/* The worker's "optics" op and the controller's reading of it: the same module, the same link. */
static void test_wire(void **state)
{
	struct img_sys s = { .sys = { .ops = &img_ops }, .fail_page = 3 };
	const char *names[] = { "eth0" };
	struct optics_set set;
	struct optics_port *p;
	struct fab_err err;
	json_t *doc, *port, *bad;
	char *text;

	(void)state;
	fab_err_init(&err);
	optics_set_init(&set);
	cmis_build(&img);
	s.fail_page = 2;			/* page 02h fails on the node */
	doc = node_optics_wire(&s.sys, names, 1, &err);
	assert_non_null(doc);
	port = json_array_get(json_object_get(doc, "ports"), 0);
	/* through text, as the wire carries it */
	text = json_dumps(port, JSON_COMPACT);
	bad = json_loads(text, 0, NULL);
	free(text);
	p = optics_set_add(&set, "");
	assert_int_equal(optics_wire_from_json(bad, p, &err), 0);
	json_decref(bad);
	assert_string_equal(p->ifname, "eth0");
	assert_int_equal(p->module_rc, 0);
	assert_string_equal(p->mod.pn, "QSFPDD-SR8-TEST");
	assert_int_equal(p->mod.n_lanes, 8);
	assert_true(fabs(p->mod.lane[7].rx_mw.v - 0.76) < 1e-9);
	assert_false(p->mod.th.ok);		/* the page the node could not read */
	assert_non_null(strstr(p->mod.notes[0], "page 02h: not read: Input/output error"));
	assert_int_equal(p->link.speed_mbps, 100000);
	assert_int_equal(p->link.fec, OPTICS_FEC_RS);
	/* what the reader refuses, naming the field */
	bad = json_deep_copy(port);
	json_object_set_new(json_array_get(json_object_get(json_object_get(bad, "module"),
							   "pages"), 0), "data", json_string("zz"));
	p = optics_set_add(&set, "");
	assert_int_equal(optics_wire_from_json(bad, p, &err), -EPROTO);
	assert_string_equal(err.msg, "optics: eth0: pages[].data: want 256 hex digits");
	json_decref(bad);
	bad = json_deep_copy(port);
	json_object_set_new(json_object_get(bad, "link"), "carrier_changes", json_integer(-1));
	assert_int_equal(optics_wire_from_json(bad, p, &err), -EPROTO);
	assert_string_equal(err.msg, "optics: eth0: carrier_changes: want null or a count");
	json_decref(bad);
	bad = json_pack("{s:s}", "ifname", "");
	assert_int_equal(optics_wire_from_json(bad, p, &err), -EPROTO);
	json_decref(bad);
	json_decref(doc);
	/* a port without a module interface is kept, with why */
	s.no_module = true;
	doc = node_optics_wire(&s.sys, names, 1, &err);
	p = optics_set_add(&set, "");
	assert_int_equal(optics_wire_from_json(json_array_get(json_object_get(doc, "ports"), 0), p,
					       &err), 0);
	assert_int_equal(p->module_rc, -EOPNOTSUPP);
	assert_string_equal(p->module_err, "module: eth0: no module interface");
	json_decref(doc);
	/* every port: needs the links, which this sys cannot read */
	assert_null(node_optics_wire(&s.sys, NULL, 0, &err));
	optics_set_fini(&set);
}

/* InfiniBand PMA counters on the same scale: symbol error ratio, flaps. */
static void test_ib(void **state)
{
	struct optics_ib_pma a = { .ok = true, .symbol_errors = 5, .link_recovers = 1,
				   .link_downed = 2 };
	struct optics_ib_pma b = a;
	const struct optics_finding *f;

	(void)state;
	/* nothing moved: healthy, windowed */
	optics_ib_verdict(&a, &b, 10, 100000, &pol, &v);
	assert_int_equal(v.health, OPTICS_HEALTHY);
	assert_true(v.windowed);
	assert_int_equal(v.n, 0);
	/* 40 symbol errors in 10 s at 100 Gb/s: 4e-11 per bit > 1e-12: failing, clean */
	b.symbol_errors = 45;
	optics_ib_verdict(&a, &b, 10, 100000, &pol, &v);
	assert_int_equal(v.health, OPTICS_FAILING);
	f = find("symbol_errors", 0);
	assert_non_null(f);
	assert_true(fabs(f->value - 4e-11) < 1e-20);
	assert_true(f->limit == 1e-12);
	assert_int_equal(v.hint, OPTICS_HINT_CLEAN);
	assert_non_null(strstr(f->text, "40 symbol errors in 10 s: 4.00e-11 per bit"));
	/* one error in 100 s at 200 Gb/s: 5e-14, within the limit: marginal */
	b.symbol_errors = 6;
	optics_ib_verdict(&a, &b, 100, 200000, &pol, &v);
	assert_int_equal(v.health, OPTICS_MARGINAL);
	assert_non_null(strstr(find("symbol_errors", 0)->text, "1 symbol error in 100 s"));
	/* the rate unknown: marginal, said */
	optics_ib_verdict(&a, &b, 100, 0, &pol, &v);
	assert_int_equal(v.health, OPTICS_MARGINAL);
	assert_non_null(strstr(find("symbol_errors", 0)->text, "no ratio"));
	/* at the 16-bit ceiling: a lower bound */
	b.symbol_errors = OPTICS_IB_SYMBOL_MAX;
	optics_ib_verdict(&a, &b, 10, 100000, &pol, &v);
	assert_true(v.ber_lower_bound);
	assert_non_null(strstr(find("symbol_errors", 0)->text, "at least "));
	/* one retrain: marginal; two downs and a retrain: failing, reseat */
	b = a;
	b.link_recovers = 2;
	optics_ib_verdict(&a, &b, 10, 100000, &pol, &v);
	assert_int_equal(v.health, OPTICS_MARGINAL);
	assert_int_equal(v.flaps, 1);
	b.link_downed = 4;
	optics_ib_verdict(&a, &b, 10, 100000, &pol, &v);
	assert_int_equal(v.health, OPTICS_FAILING);
	assert_int_equal(v.flaps, 3);
	f = find("flaps", 0);
	assert_non_null(strstr(f->text, "went down 2 times and retrained 1 time in 10 s"));
	assert_int_equal(f->hint, OPTICS_HINT_RESEAT);
	/* cleared counters are not judged; a missing reading is unknown */
	b = a;
	b.link_downed = 0;
	optics_ib_verdict(&a, &b, 10, 100000, &pol, &v);
	assert_int_equal(v.health, OPTICS_HEALTHY);
	b.ok = false;
	optics_ib_verdict(&a, &b, 10, 100000, &pol, &v);
	assert_int_equal(v.health, OPTICS_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_healthy, setup),
		cmocka_unit_test_setup(test_flags, setup),
		cmocka_unit_test_setup(test_thresholds, setup),
		cmocka_unit_test_setup(test_policy_fallback, setup),
		cmocka_unit_test_setup(test_lanes, setup),
		cmocka_unit_test_setup(test_ber, setup),
		cmocka_unit_test_setup(test_window, setup),
		cmocka_unit_test_setup(test_cable, setup),
		cmocka_unit_test_setup(test_node_port, setup),
		cmocka_unit_test_setup(test_wire, setup),
		cmocka_unit_test_setup(test_ib, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
