// SPDX-License-Identifier: GPL-2.0-or-later
/* Counter rules, snapshot deltas, resets, absent counters, policy overrides. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/counter_eval.h"

/* sw port 1 -- h1 mlx5_0 (IB-style numbered switch port, named host port); sw port 2 unlinked. */
struct small {
	struct topo *t;
	struct topo_port *sw1, *sw2, *h;
};

static void small_build(struct small *s)
{
	struct topo_node *sw, *h;

	s->t = topo_new();
	sw = topo_node_add(s->t, TOPO_NODE_SWITCH, "leaf1", 0);
	h = topo_node_add(s->t, TOPO_NODE_HOST, "h1", 0);
	s->sw1 = topo_port_get(sw, 1, NULL);
	s->sw2 = topo_port_get(sw, 2, NULL);
	s->h = topo_port_get(h, 0, "mlx5_0");
	assert_int_equal(topo_link_add(s->t, s->sw1, s->h, TOPO_SRC_PLAN), 0);
	topo_sort(s->t);
}

static void setup(struct small *s, struct counter_snap *b, struct counter_snap *a)
{
	small_build(s);
	counter_snap_init(b);
	counter_snap_init(a);
}

static void test_table(void **state)
{
	size_t n;
	const struct counter_rule *r = counter_rules_default(&n);
	struct counter_policy pol;

	assert_true(n > 20);
	counter_policy_default(&pol);
	assert_int_equal(pol.n, n);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(counter_sev_name(r[i].sev));
		assert_non_null(r[i].meaning);
		for (size_t j = i + 1; j < n; j++) {
			assert_string_not_equal(r[i].name, r[j].name);
			if (r[i].alias && r[j].alias)
				assert_string_not_equal(r[i].alias, r[j].alias);
		}
	}
	/* Errors are errors, congestion is not. */
	assert_int_equal(counter_policy_find(&pol, "SymbolErrorCounter")->sev, COUNTER_SEV_ERROR);
	assert_int_equal(counter_policy_find(&pol, "PortXmitDiscards")->sev, COUNTER_SEV_ERROR);
	assert_int_equal(counter_policy_find(&pol, "PortXmitWait")->sev, COUNTER_SEV_INFO);
	assert_int_equal(counter_policy_find(&pol, "np_cnp_sent")->sev, COUNTER_SEV_WARN);
	/* Aliases, globs, longest glob first, no prefix matches. */
	assert_string_equal(counter_policy_find(&pol, "symbol_errors")->name, "SymbolErrorCounter");
	assert_string_equal(counter_policy_find(&pol, "rx_prio3_pause")->name, "rx_prio*_pause");
	assert_string_equal(counter_policy_find(&pol, "rx_prio3_pause_duration")->name,
			    "rx_prio*_pause_duration");
	assert_null(counter_policy_find(&pol, "SymbolError"));
	assert_null(counter_policy_find(&pol, "rx_bytes"));
	/* Every PMA alias fabricctl prints resolves, except the data counters. */
	for (int c = 0; c < TOPO_CNT_MAX; c++) {
		const struct counter_rule *k = counter_policy_find(&pol, topo_counter_name(c));

		if (c == TOPO_CNT_XMT_DATA || c == TOPO_CNT_RCV_DATA || c == TOPO_CNT_XMT_PKTS ||
		    c == TOPO_CNT_RCV_PKTS || c == TOPO_CNT_XMT_CONSTRAINT_ERR ||
		    c == TOPO_CNT_RCV_CONSTRAINT_ERR || c == TOPO_CNT_VL15_DROPPED)
			assert_null(k);
		else
			assert_non_null(k);
	}
	for (int s = 0; s < 3; s++)
		assert_int_equal(counter_sev_parse(counter_sev_name(s)), s);
	assert_int_equal(counter_sev_parse("fatal"), -1);
	assert_null(counter_sev_name(3));
}

static const struct counter_finding *find(const struct counter_report *r, const char *name)
{
	for (size_t i = 0; i < r->n_findings; i++)
		if (strcmp(r->findings[i].name, name) == 0)
			return &r->findings[i];
	return NULL;
}

static void test_eval(void **state)
{
	struct small s;
	struct counter_snap b, a;
	struct counter_report r;
	const struct counter_finding *f;

	setup(&s, &b, &a);
	/* switch port 1 */
	assert_int_equal(counter_snap_add(&b, s.sw1, "SymbolErrorCounter", 100), 0);
	assert_int_equal(counter_snap_add(&a, s.sw1, "SymbolErrorCounter", 105), 0);
	assert_int_equal(counter_snap_add(&b, s.sw1, "PortXmitWait", 10), 0);
	assert_int_equal(counter_snap_add(&a, s.sw1, "PortXmitWait", 90010), 0);
	assert_int_equal(counter_snap_add(&b, s.sw1, "LinkDownedCounter", 3), 0);
	assert_int_equal(counter_snap_add(&a, s.sw1, "LinkDownedCounter", 3), 0);
	assert_int_equal(counter_snap_add(&b, s.sw1, "PortRcvErrors", 50), 0);	/* after: absent */
	/* host port */
	assert_int_equal(counter_snap_add(&b, s.h, "np_cnp_sent", 0), 0);
	assert_int_equal(counter_snap_add(&a, s.h, "np_cnp_sent", 500), 0);		/* below 1000 */
	assert_int_equal(counter_snap_add(&b, s.h, "rp_cnp_handled", 0), 0);
	assert_int_equal(counter_snap_add(&a, s.h, "rp_cnp_handled", 1500), 0);	/* above */
	assert_int_equal(counter_snap_add(&b, s.h, "rx_discards_phy", 900), 0);
	assert_int_equal(counter_snap_add(&a, s.h, "rx_discards_phy", 7), 0);	/* went back */
	assert_int_equal(counter_snap_add(&b, s.h, "rx_prio3_pause", 0), 0);
	assert_int_equal(counter_snap_add(&a, s.h, "rx_prio3_pause", 5000), 0);
	assert_int_equal(counter_snap_add(&b, s.h, "rx_bytes", 0), 0);
	assert_int_equal(counter_snap_add(&a, s.h, "rx_bytes", 1 << 30), 0);	/* no rule */
	assert_int_equal(counter_snap_add(&a, s.h, "out_of_sequence", 4), 0);	/* before: absent */
	/* unlinked switch port */
	assert_int_equal(counter_snap_add(&b, s.sw2, "PortXmitDiscards", 0), 0);
	assert_int_equal(counter_snap_add(&a, s.sw2, "PortXmitDiscards", 2), 0);

	assert_int_equal(counter_eval(s.t, NULL, &b, &a, &r), 0);
	assert_int_equal(r.n_findings, 6);
	f = find(&r, "SymbolErrorCounter");
	assert_non_null(f);
	assert_int_equal(f->delta, 5);
	assert_int_equal(f->sev, COUNTER_SEV_ERROR);
	assert_ptr_equal(f->port, s.sw1);
	assert_int_equal(f->link, 0);
	f = find(&r, "PortXmitWait");
	assert_int_equal(f->delta, 90000);
	assert_int_equal(f->sev, COUNTER_SEV_INFO);
	assert_null(find(&r, "LinkDownedCounter"));	/* no change */
	assert_null(find(&r, "PortRcvErrors"));		/* absent after: skipped, not invented */
	assert_null(find(&r, "np_cnp_sent"));
	f = find(&r, "rp_cnp_handled");
	assert_int_equal(f->sev, COUNTER_SEV_WARN);
	assert_int_equal(f->delta, 1500);
	assert_int_equal(f->link, 0);			/* the host end counts for the same link */
	f = find(&r, "rx_discards_phy");
	assert_true(f->reset);
	assert_int_equal(f->delta, 0);
	assert_int_equal(f->sev, COUNTER_SEV_INFO);
	assert_int_equal(f->before, 900);
	assert_int_equal(f->after, 7);
	f = find(&r, "rx_prio3_pause");
	assert_int_equal(f->sev, COUNTER_SEV_WARN);
	f = find(&r, "PortXmitDiscards");
	assert_int_equal(f->link, COUNTER_NO_LINK);
	assert_null(find(&r, "rx_bytes"));
	assert_null(find(&r, "out_of_sequence"));
	assert_int_equal(r.n_unknown, 1);
	assert_int_equal(r.n_absent, 2);		/* PortRcvErrors, out_of_sequence */
	assert_int_equal(r.n_ports, 3);
	for (size_t i = 0; i < r.n_ports; i++)
		assert_int_equal(r.ports[i].link, r.ports[i].port == s.sw2 ? COUNTER_NO_LINK : 0);
	counter_report_fini(&r);
	counter_report_fini(&r);

	/* Empty snapshots: nothing found, nothing read. */
	struct counter_snap e;

	counter_snap_init(&e);
	assert_int_equal(counter_eval(s.t, NULL, &e, &e, &r), 0);
	assert_int_equal(r.n_findings, 0);
	assert_int_equal(r.n_ports, 0);
	counter_report_fini(&r);
	counter_snap_fini(&a);
	counter_snap_fini(&b);
	counter_snap_fini(&b);
	topo_free(s.t);
}

static void test_topo_port_snapshot(void **state)
{
	struct small s;
	struct counter_snap b, a;
	struct counter_report r;

	setup(&s, &b, &a);
	assert_int_equal(counter_snap_add_topo_port(&b, s.sw1), 0);
	assert_int_equal(b.n, 0);			/* no TOPO_F_COUNTERS: nothing read */
	s.sw1->facts |= TOPO_F_COUNTERS;
	s.sw1->counters[TOPO_CNT_SYMBOL_ERR] = 7;
	assert_int_equal(counter_snap_add_topo_port(&b, s.sw1), 0);
	assert_int_equal(b.n, TOPO_CNT_MAX);
	s.sw1->counters[TOPO_CNT_SYMBOL_ERR] = 19;
	s.sw1->counters[TOPO_CNT_XMT_DATA] = 1u << 20;	/* data: no rule */
	assert_int_equal(counter_snap_add_topo_port(&a, s.sw1), 0);
	assert_int_equal(counter_eval(s.t, NULL, &b, &a, &r), 0);
	assert_int_equal(r.n_findings, 1);
	assert_string_equal(r.findings[0].name, "symbol_errors");
	assert_int_equal(r.findings[0].delta, 12);
	assert_int_equal(r.findings[0].sev, COUNTER_SEV_ERROR);
	counter_report_fini(&r);
	counter_snap_fini(&a);
	counter_snap_fini(&b);
	topo_free(s.t);
}

static void test_overrides(void **state)
{
	struct counter_policy pol, before;
	struct fab_err err;
	struct counter_override ok[] = {
		{ .name = "np_cnp_sent", .has_threshold = true, .threshold = 100,
		  .has_sev = true, .sev = COUNTER_SEV_ERROR },
		{ .name = "port_xmit_wait", .has_sev = true, .sev = COUNTER_SEV_WARN },
		{ .name = "rx_prio*_pause", .has_threshold = true, .threshold = 10 },
	};
	struct counter_override bad[] = {
		{ .name = "SymbolErrorCounter", .has_threshold = true, .threshold = 99 },
		{ .name = "SymbolErrors", .has_threshold = true, .threshold = 1, .where = "policy.yaml:7" },
	};
	struct counter_override badsev[] = {
		{ .name = "PortXmitWait", .has_sev = true, .sev = (enum counter_sev)9 },
	};

	counter_policy_default(&pol);
	fab_err_init(&err);
	assert_int_equal(counter_policy_apply(&pol, ok, 3, &err), 0);
	assert_int_equal(counter_policy_find(&pol, "np_cnp_sent")->threshold, 100);
	assert_int_equal(counter_policy_find(&pol, "np_cnp_sent")->sev, COUNTER_SEV_ERROR);
	assert_int_equal(counter_policy_find(&pol, "PortXmitWait")->sev, COUNTER_SEV_WARN);
	assert_int_equal(counter_policy_find(&pol, "PortXmitWait")->threshold, 0);	/* kept */
	assert_int_equal(counter_policy_find(&pol, "tx_prio0_pause")->threshold, 1000);
	assert_int_equal(counter_policy_find(&pol, "rx_prio7_pause")->threshold, 10);

	/* Unknown name: bad input, all valid names listed, nothing changed. */
	before = pol;
	assert_int_equal(counter_policy_apply(&pol, bad, 2, &err), -EINVAL);
	assert_int_equal(err.kind, FAB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "policy.yaml:7"));
	assert_non_null(strstr(err.msg, "'SymbolErrors'"));
	assert_non_null(strstr(err.msg, "SymbolErrorCounter"));
	assert_non_null(strstr(err.msg, "rx_pcs_symbol_err_phy"));
	assert_memory_equal(&pol, &before, sizeof(pol));
	fab_err_init(&err);
	assert_int_equal(counter_policy_apply(&pol, badsev, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "severity"));

	/* The override changes the verdict on the same data. */
	struct small s;
	struct counter_snap b, a;
	struct counter_report r;

	setup(&s, &b, &a);
	assert_int_equal(counter_snap_add(&b, s.h, "np_cnp_sent", 0), 0);
	assert_int_equal(counter_snap_add(&a, s.h, "np_cnp_sent", 500), 0);
	assert_int_equal(counter_eval(s.t, NULL, &b, &a, &r), 0);
	assert_int_equal(r.n_findings, 0);
	counter_report_fini(&r);
	assert_int_equal(counter_eval(s.t, &pol, &b, &a, &r), 0);
	assert_int_equal(r.n_findings, 1);
	assert_int_equal(r.findings[0].sev, COUNTER_SEV_ERROR);
	counter_report_fini(&r);
	counter_snap_fini(&a);
	counter_snap_fini(&b);
	topo_free(s.t);
}

/* The policy file: overrides by name or alias; bad input names file, line and field. */
static void test_policy_file(void **state)
{
	const char *good = "counters:\n"
			   "  - { name: SymbolErrorCounter, threshold: 10, severity: warn }\n"
			   "  - { name: port_xmit_wait, severity: error }\n";
	const char *unknown = "counters:\n  - { name: Bogus, threshold: 1 }\n";
	const char *badsev = "counters:\n  - { name: SymbolErrorCounter, severity: fatal }\n";
	const char *badkey = "counters:\n  - { name: SymbolErrorCounter, max: 3 }\n";
	const char *noname = "counters:\n  - { threshold: 3 }\n";
	const struct counter_rule *r;
	struct counter_policy pol;
	struct fab_err err;

	(void)state;
	fab_err_init(&err);
	assert_int_equal(counter_policy_parse(&pol, good, strlen(good), "p.yaml", &err), 0);
	r = counter_policy_find(&pol, "SymbolErrorCounter");
	assert_non_null(r);
	assert_int_equal(r->threshold, 10);
	assert_int_equal(r->sev, COUNTER_SEV_WARN);
	r = counter_policy_find(&pol, "PortXmitWait");
	assert_int_equal(r->sev, COUNTER_SEV_ERROR);
	assert_int_equal(counter_policy_parse(&pol, unknown, strlen(unknown), "p.yaml", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "p.yaml:2"));
	assert_non_null(strstr(err.msg, "Bogus"));
	/* All or nothing: a refused file leaves the defaults. */
	assert_int_equal(counter_policy_find(&pol, "SymbolErrorCounter")->threshold, 0);
	assert_int_equal(counter_policy_parse(&pol, badsev, strlen(badsev), "p.yaml", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "p.yaml:2:"));
	assert_non_null(strstr(err.msg, "severity: 'fatal'"));
	assert_int_equal(counter_policy_parse(&pol, badkey, strlen(badkey), "p.yaml", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown key 'max'"));
	assert_int_equal(counter_policy_parse(&pol, noname, strlen(noname), "p.yaml", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'name' is required"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_topo_port_snapshot),
		cmocka_unit_test(test_overrides),
		cmocka_unit_test(test_policy_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
