// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * accept's rule for a new host's cable ends (model/accept_optics.h) and
 * the set helpers it stands on (optics_set_judge, optics_verdict_worst),
 * on readings built from the specifications' page images (module_img.h):
 * a lost lane is one FAB-COUNTER-OPTICS-FAILING naming host, interface,
 * lane and hint; a lane 4 dB below its siblings FAB-COUNTER-OPTICS-MARGINAL;
 * stage 6 says only what the window adds (uncorrectable FEC blocks), not
 * stage 4's findings again; an unreadable module is counted, not a finding;
 * the policy's optics: {marginal: note} names a marginal end in the count
 * instead (not a finding: ACCEPT), reject (the default) keeps the finding,
 * and a bad value is refused naming file, line and field.
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

#include "model/accept.h"
#include "model/accept_optics.h"
#include "model/optics.h"
#include "module_img.h"

static struct img img;
static struct module_eeprom ee;
static struct optics_policy pol;

/* A port @ifname of @s with the module of img and a link reading at @t (RS, 100G, 4 lanes). */
static struct optics_port *port_add(struct optics_set *s, const char *ifname, double t,
				    uint64_t uncorrectable)
{
	struct optics_port *p = optics_set_add(s, ifname);

	assert_non_null(p);
	img_fill(&img, &ee);
	assert_int_equal(module_decode(&ee, &p->mod), 0);
	p->link.t_s = t;
	p->link.speed_mbps = 100000;
	p->link.lanes = 4;
	p->link.fec_ok = true;
	p->link.fec = OPTICS_FEC_RS;
	p->link.uncorrectable_blocks.ok = true;
	p->link.uncorrectable_blocks.total = uncorrectable;
	return p;
}

static int setup(void **state)
{
	(void)state;
	optics_policy_default(&pol);
	return 0;
}

static void test_judge_and_worst(void **state)
{
	struct optics_set s, b;
	const struct optics_finding *w;

	(void)state;
	optics_set_init(&s);
	optics_set_init(&b);
	qsfp_even_build(&img);
	port_add(&b, "eth0", 100, 0);
	qsfp_rx_mw(&img, 3, 0);				/* lane 3 lost */
	port_add(&s, "eth0", 110, 7);		/* 7 uncorrectable blocks in 10 s */
	port_add(&s, "eth1", 110, 0);		/* no earlier reading: one reading */
	optics_set_judge(&s, &b, &pol);
	assert_true(s.v[0].have_before);
	assert_true(s.v[0].verdict.windowed);
	assert_false(s.v[1].verdict.windowed);
	assert_true(fabs(s.window_s - 10) < 1e-9);
	assert_int_equal(s.v[0].verdict.health, OPTICS_FAILING);
	w = optics_verdict_worst(&s.v[0].verdict);
	assert_non_null(w);
	assert_string_equal(w->code, "lane_lost");	/* the module's evidence first */
	assert_int_equal(w->lane, 3);
	assert_ptr_equal(optics_set_find(&s, "eth1"), &s.v[1]);
	assert_null(optics_set_find(&s, "eth9"));
	/* healthy: no worst */
	qsfp_even_build(&img);
	optics_set_fini(&s);
	port_add(&s, "eth0", 1, 0);
	optics_set_judge(&s, NULL, &pol);
	assert_int_equal(s.v[0].verdict.health, OPTICS_HEALTHY);
	assert_null(optics_verdict_worst(&s.v[0].verdict));
	optics_set_fini(&s);
	optics_set_fini(&b);
}

static void test_stage4(void **state)
{
	struct accept_optics_count c = { 0 };
	struct accept_report r;
	struct optics_set s;
	struct optics_port *p;

	(void)state;
	accept_report_init(&r);
	optics_set_init(&s);
	qsfp_even_build(&img);
	qsfp_rx_mw(&img, 3, 0);
	port_add(&s, "eth0", 1, 0);		/* lane 3 lost: failing */
	qsfp_even_build(&img);
	qsfp_rx_mw(&img, 2, 0.8 * 0.398);		/* lane 2 4 dB below: marginal */
	port_add(&s, "eth1", 1, 0);
	qsfp_even_build(&img);
	port_add(&s, "eth2", 1, 0);		/* healthy */
	p = port_add(&s, "eth3", 1, 0);		/* no module in the cage */
	p->module_rc = -EIO;
	optics_set_judge(&s, NULL, &pol);
	assert_int_equal(accept_optics_findings(&r, ACCEPT_ST_COUNTERS_BASE, "h7", &s, NULL, false,
						 &c), 0);
	assert_int_equal(c.hosts, 1);
	assert_int_equal(c.ports, 3);
	assert_int_equal(c.failing, 1);
	assert_int_equal(c.marginal, 1);
	assert_int_equal(c.unread, 1);
	assert_int_equal(r.n_findings, 2);
	assert_int_equal(r.findings[0].code, FAB_COUNTER_OPTICS_FAILING);
	assert_int_equal(r.findings[0].stage, ACCEPT_ST_COUNTERS_BASE);
	assert_string_equal(r.findings[0].node, "h7");
	assert_string_equal(accept_code_name(r.findings[0].code), "FAB-COUNTER-OPTICS-FAILING");
	/* host, interface, lane, figure and the hint */
	assert_true(strncmp(r.findings[0].evidence, "eth0 failing: lane 3 ", 21) == 0);
	assert_non_null(strstr(r.findings[0].evidence, "clean"));
	assert_non_null(strstr(r.findings[0].evidence, "QSFP28"));
	assert_int_equal(r.findings[1].code, FAB_COUNTER_OPTICS_MARGINAL);
	assert_true(strncmp(r.findings[1].evidence, "eth1 marginal: lane 2 ", 22) == 0);
	assert_non_null(strstr(r.findings[1].evidence, "dB"));
	assert_false(accept_verdict(&r));	/* a finding: REJECT */
	optics_set_fini(&s);
	accept_report_fini(&r);
}

static void test_stage6(void **state)
{
	struct accept_optics_count c = { 0 };
	struct accept_report r;
	struct optics_set b, s;

	(void)state;
	accept_report_init(&r);
	optics_set_init(&b);
	optics_set_init(&s);
	qsfp_even_build(&img);
	qsfp_rx_mw(&img, 2, 0.8 * 0.398);
	port_add(&b, "eth0", 100, 5);
	port_add(&b, "eth1", 100, 5);
	optics_set_judge(&b, NULL, &pol);
	port_add(&s, "eth0", 130, 5);		/* the same marginal lane, nothing in the window */
	port_add(&s, "eth1", 130, 9);		/* and 4 uncorrectable blocks during the traffic */
	optics_set_judge(&s, &b, &pol);
	assert_int_equal(accept_optics_findings(&r, ACCEPT_ST_COUNTERS_AFTER, "h7", &s, &b, false,
						 &c), 0);
	assert_int_equal(r.n_findings, 1);	/* eth0's finding was stage 4's */
	assert_int_equal(r.findings[0].code, FAB_COUNTER_OPTICS_FAILING);
	assert_int_equal(r.findings[0].stage, ACCEPT_ST_COUNTERS_AFTER);
	assert_true(strncmp(r.findings[0].evidence, "eth1 failing: ", 14) == 0);
	assert_non_null(strstr(r.findings[0].evidence, "uncorrectable"));
	assert_non_null(strstr(r.findings[0].evidence, "2 findings in all"));
	assert_int_equal(c.failing, 1);
	assert_int_equal(c.marginal, 0);
	optics_set_fini(&s);
	optics_set_fini(&b);
	accept_report_fini(&r);
}

/* The same host with lane 2 4 dB below its siblings on eth1 and eth2: marginal. */
static void marginal_set(struct optics_set *s)
{
	optics_set_init(s);
	qsfp_even_build(&img);
	qsfp_rx_mw(&img, 2, 0.8 * 0.398);
	port_add(s, "eth1", 1, 0);
	port_add(s, "eth2", 1, 0);
	qsfp_even_build(&img);
	port_add(s, "eth3", 1, 0);		/* healthy */
	optics_set_judge(s, NULL, &pol);
}

static int pol_parse(struct accept_policy *p, const char *text, struct fab_err *err)
{
	fab_err_init(err);
	return accept_policy_parse(p, text, strlen(text), "site.yaml", err);
}

/* optics: {marginal: reject | note}: the default rejects, note accepts and names the ends. */
static void test_marginal_policy(void **state)
{
	struct accept_optics_count c = { 0 };
	struct accept_policy ap;
	struct accept_report r;
	struct optics_set s;
	struct fab_err err;

	(void)state;
	/* the default, and reject said out loud: a finding each, REJECT */
	assert_int_equal(pol_parse(&ap, "", &err), 0);
	assert_false(ap.optics_marginal_note);
	assert_int_equal(pol_parse(&ap, "optics: { marginal: reject }\n", &err), 0);
	assert_false(ap.optics_marginal_note);
	marginal_set(&s);
	accept_report_init(&r);
	assert_int_equal(accept_optics_findings(&r, ACCEPT_ST_COUNTERS_BASE, "h7", &s, NULL,
						ap.optics_marginal_note, &c), 0);
	assert_int_equal(r.n_findings, 2);
	assert_int_equal(r.findings[0].code, FAB_COUNTER_OPTICS_MARGINAL);
	assert_int_equal(c.marginal, 2);
	assert_int_equal(c.noted, 0);
	assert_string_equal(c.noted_ends, "");
	assert_false(accept_verdict(&r));
	accept_report_fini(&r);

	/* note: counted and named, no finding: ACCEPT */
	assert_int_equal(pol_parse(&ap, "coverage: 2\noptics:\n  marginal: note\n", &err), 0);
	assert_true(ap.optics_marginal_note);
	memset(&c, 0, sizeof(c));
	accept_report_init(&r);
	assert_int_equal(accept_optics_findings(&r, ACCEPT_ST_COUNTERS_BASE, "h7", &s, NULL,
						ap.optics_marginal_note, &c), 0);
	assert_int_equal(r.n_findings, 0);
	assert_int_equal(c.ports, 3);
	assert_int_equal(c.marginal, 2);
	assert_int_equal(c.noted, 2);
	assert_string_equal(c.noted_ends, "h7 eth1, h7 eth2");
	assert_true(accept_verdict(&r));
	/* a failing end stays a finding */
	qsfp_even_build(&img);
	qsfp_rx_mw(&img, 3, 0);
	port_add(&s, "eth4", 1, 0);
	optics_set_judge(&s, NULL, &pol);
	memset(&c, 0, sizeof(c));
	assert_int_equal(accept_optics_findings(&r, ACCEPT_ST_COUNTERS_BASE, "h7", &s, NULL,
						true, &c), 0);
	assert_int_equal(r.n_findings, 1);
	assert_int_equal(r.findings[0].code, FAB_COUNTER_OPTICS_FAILING);
	assert_int_equal(c.noted, 2);
	assert_false(accept_verdict(&r));
	accept_report_fini(&r);
	optics_set_fini(&s);

	/* a long list ends in ", ..." and still counts */
	marginal_set(&s);
	memset(&c, 0, sizeof(c));
	accept_report_init(&r);
	for (int i = 0; i < 20; i++)
		assert_int_equal(accept_optics_findings(&r, ACCEPT_ST_COUNTERS_BASE,
							"a-rather-long-node-name", &s, NULL, true,
							&c), 0);
	assert_int_equal(c.noted, 40);
	assert_int_equal(r.n_findings, 0);
	assert_true(strlen(c.noted_ends) < sizeof(c.noted_ends));
	assert_non_null(strstr(c.noted_ends, "a-rather-long-node-name eth1, "));
	assert_string_equal(c.noted_ends + strlen(c.noted_ends) - 5, ", ...");
	accept_report_fini(&r);
	optics_set_fini(&s);

	/* bad values: file, line, field */
	assert_int_equal(pol_parse(&ap, "coverage: 2\noptics: { marginal: warn }\n", &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "site.yaml:2:"));
	assert_non_null(strstr(err.msg, "optics: marginal: 'warn' is not reject or note"));
	assert_int_equal(pol_parse(&ap, "optics: { marginl: note }\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "site.yaml:1:"));
	assert_non_null(strstr(err.msg, "marginl"));
	assert_int_equal(pol_parse(&ap, "optics: note\n", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "site.yaml:1:"));
	assert_non_null(strstr(err.msg, "optics"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_judge_and_worst, setup),
		cmocka_unit_test_setup(test_stage4, setup),
		cmocka_unit_test_setup(test_stage6, setup),
		cmocka_unit_test_setup(test_marginal_policy, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
