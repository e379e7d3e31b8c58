// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The counter rules: one table for the limit on one reading (discover) and
 * the threshold on a rise (sweep, diagnose, accept); its names; the policy
 * file moving both under one name; docs/counters.md printing it.
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

#include "model/counter_eval.h"
#include "model/counter_rules.h"
#include "model/topo.h"

#ifndef DOCS_DIR
#define DOCS_DIR "docs"
#endif

/* Every PMA counter a topo_port holds has exactly one entry, by its alias. */
static void test_pma_entries(void **state)
{
	size_t n;
	const struct counter_rule *r = counter_rules_default(&n);

	(void)state;
	for (int c = 0; c < TOPO_CNT_MAX; c++) {
		int hits = 0;

		for (size_t i = 0; i < n; i++)
			hits += r[i].alias && strcmp(r[i].alias, topo_counter_name(c)) == 0;
		if (hits != 1)
			fail_msg("%s: %d entries", topo_counter_name(c), hits);
	}
	for (size_t i = 0; i < n; i++) {
		assert_non_null(r[i].meaning);
		assert_non_null(counter_sev_name(r[i].sev));
		/* An alias is a PMA counter's; so is a sysfs name; only those have limits. */
		if (r[i].alias)
			assert_true(topo_counter_parse(r[i].alias) >= 0);
		else
			assert_true(r[i].limit == COUNTER_OFF && !r[i].sysfs);
		for (size_t j = i + 1; j < n; j++) {
			assert_string_not_equal(r[i].name, r[j].name);
			if (r[i].alias && r[j].alias)
				assert_string_not_equal(r[i].alias, r[j].alias);
		}
	}
}

/* The limits are discover's defaults of before the one table, unchanged. */
static void test_limits(void **state)
{
	static const uint64_t want[TOPO_CNT_MAX] = {
		[TOPO_CNT_SYMBOL_ERR] = 10, [TOPO_CNT_LINK_RECOVERS] = 10,
		[TOPO_CNT_LINK_DOWNED] = 10, [TOPO_CNT_RCV_ERR] = 10,
		[TOPO_CNT_RCV_REMOTE_PHYS_ERR] = 10, [TOPO_CNT_RCV_SWITCH_RELAY_ERR] = 100,
		[TOPO_CNT_XMT_DISCARDS] = 100, [TOPO_CNT_XMT_CONSTRAINT_ERR] = 100,
		[TOPO_CNT_RCV_CONSTRAINT_ERR] = 100, [TOPO_CNT_LINK_INTEGRITY_ERR] = 10,
		[TOPO_CNT_EXCESS_BUF_OVERRUN] = 10, [TOPO_CNT_VL15_DROPPED] = 100,
		[TOPO_CNT_XMT_WAIT] = COUNTER_OFF, [TOPO_CNT_XMT_DATA] = COUNTER_OFF,
		[TOPO_CNT_RCV_DATA] = COUNTER_OFF, [TOPO_CNT_XMT_PKTS] = COUNTER_OFF,
		[TOPO_CNT_RCV_PKTS] = COUNTER_OFF,
	};
	struct topo_thresholds th;

	(void)state;
	topo_thresholds_default(&th);
	for (int c = 0; c < TOPO_CNT_MAX; c++)
		if (th.max[c] != want[c])
			fail_msg("%s: %llu", topo_counter_name(c), (unsigned long long)th.max[c]);
}

/* status's sysfs names: recorded once, read by --thresholds and by the workers' snapshots. */
static void test_sysfs(void **state)
{
	(void)state;
	assert_string_equal(counter_rules_sysfs("symbol_error")->alias, "symbol_errors");
	assert_string_equal(counter_rules_sysfs("VL15_dropped")->alias, "vl15_dropped");
	assert_null(counter_rules_sysfs("link_downed"));	/* the same as its alias */
	assert_null(counter_rules_sysfs("symbol_errors"));
	assert_int_equal(topo_counter_parse("symbol_error"), TOPO_CNT_SYMBOL_ERR);
	assert_int_equal(topo_counter_parse("SYMBOL_ERROR"), TOPO_CNT_SYMBOL_ERR);
	assert_int_equal(topo_counter_parse("VL15_dropped"), TOPO_CNT_VL15_DROPPED);
	assert_int_equal(topo_counter_parse("SymbolErrorCounter"), -1);
}

/* One link sw[1] -- ca[1], both ends with counters read. */
static struct topo *one_link(struct topo_port **ca)
{
	struct topo *t = topo_new();
	struct topo_node *sw = topo_node_add(t, TOPO_NODE_SWITCH, "sw", 0x10);
	struct topo_node *h = topo_node_add(t, TOPO_NODE_CA, "ca", 0x20);
	struct topo_port *a = topo_port_get(sw, 1, NULL);

	*ca = topo_port_get(h, 1, NULL);
	assert_int_equal(topo_link_add(t, a, *ca, TOPO_SRC_SMP), 0);
	a->facts |= TOPO_F_COUNTERS;
	(*ca)->facts |= TOPO_F_COUNTERS;
	topo_sort(t);
	return t;
}

/* discover's verdict on one reading of @v symbol errors on ca[1] under @pol: problems. */
static size_t limit_verdict(const struct counter_policy *pol, uint64_t v, char *detail,
			    size_t len)
{
	struct topo_port *ca;
	struct topo *t = one_link(&ca);
	struct topo_thresholds th;
	size_t n;

	ca->counters[TOPO_CNT_SYMBOL_ERR] = v;
	topo_thresholds_from(&th, pol);
	assert_int_equal(topo_health_check(t, &th), 0);
	n = t->n_problems;
	snprintf(detail, len, "%s", n ? t->problems[0].detail : "");
	topo_free(t);
	return n;
}

/* The window verdict on a rise of @delta symbol errors on ca[1] under @pol: findings. */
static size_t delta_verdict(const struct counter_policy *pol, uint64_t delta, uint64_t *thr)
{
	struct topo_port *ca;
	struct topo *t = one_link(&ca);
	struct counter_snap b, a;
	struct counter_report r;
	size_t n;

	counter_snap_init(&b);
	counter_snap_init(&a);
	counter_snap_add_topo_port(&b, ca);
	ca->counters[TOPO_CNT_SYMBOL_ERR] += delta;
	counter_snap_add_topo_port(&a, ca);
	assert_int_equal(counter_eval(t, pol, &b, &a, &r), 0);
	n = r.n_findings;
	*thr = n ? r.findings[0].threshold : 0;
	if (n)
		assert_string_equal(r.findings[0].name, "symbol_errors");
	counter_report_fini(&r);
	counter_snap_fini(&a);
	counter_snap_fini(&b);
	topo_free(t);
	return n;
}

static void parse_ok(struct counter_policy *pol, const char *yaml)
{
	struct fab_err err;

	fab_err_init(&err);
	if (counter_policy_parse(pol, yaml, strlen(yaml), "p.yaml", &err) != 0)
		fail_msg("%s", err.msg);
}

/* The test: one policy item, one name, both evaluators move. */
static void test_one_name_both_rules(void **state)
{
	static const char *const files[] = {
		"counters:\n  - { name: SymbolErrorCounter, threshold: 5, limit: 3 }\n",
		"counters:\n  - { name: symbol_errors, threshold: 5, limit: 3 }\n",
	};
	struct counter_policy pol;
	char detail[128];
	uint64_t thr;

	(void)state;
	/* The table: a reading of 4 is under the limit 10; a rise of 4 is over 0. */
	assert_int_equal(limit_verdict(NULL, 4, detail, sizeof(detail)), 0);
	assert_int_equal(delta_verdict(NULL, 4, &thr), 1);
	assert_int_equal(thr, 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		parse_ok(&pol, files[i]);
		assert_int_equal(limit_verdict(&pol, 3, detail, sizeof(detail)), 0);
		assert_int_equal(limit_verdict(&pol, 4, detail, sizeof(detail)), 1);
		assert_string_equal(detail, "symbol_errors 4 > 3");
		assert_int_equal(delta_verdict(&pol, 5, &thr), 0);
		assert_int_equal(delta_verdict(&pol, 6, &thr), 1);
		assert_int_equal(thr, 5);
	}
}

/* "off" in either column; a counter with no window rule given one. */
static void test_off_and_on(void **state)
{
	struct counter_policy pol;
	struct topo_thresholds th;
	char detail[128];
	uint64_t thr;

	(void)state;
	parse_ok(&pol, "counters:\n  - { name: SymbolErrorCounter, threshold: off, limit: off }\n");
	assert_int_equal(limit_verdict(&pol, 1000000, detail, sizeof(detail)), 0);
	assert_int_equal(delta_verdict(&pol, 1000000, &thr), 0);
	assert_null(counter_policy_find(&pol, "symbol_errors"));
	assert_non_null(counter_policy_entry(&pol, "symbol_errors"));

	/* VL15Dropped: a limit, no window rule, until a policy gives it one. */
	assert_null(counter_policy_find(NULL, "vl15_dropped"));
	assert_int_equal(counter_policy_entry(NULL, "VL15Dropped")->limit, 100);
	parse_ok(&pol, "counters:\n  - { name: VL15Dropped, threshold: 2, severity: warn }\n");
	assert_int_equal(counter_policy_find(&pol, "vl15_dropped")->threshold, 2);
	assert_int_equal(counter_policy_find(&pol, "vl15_dropped")->sev, COUNTER_SEV_WARN);
	topo_thresholds_from(&th, &pol);
	assert_int_equal(th.max[TOPO_CNT_VL15_DROPPED], 100);	/* limit kept */

	/* A glob whose entry is off covers nothing, not a shorter glob either. */
	parse_ok(&pol, "counters:\n  - { name: \"rx_prio*_pause_duration\", threshold: off }\n");
	assert_null(counter_policy_find(&pol, "rx_prio3_pause_duration"));
	assert_string_equal(counter_policy_find(&pol, "rx_prio3_pause")->name, "rx_prio*_pause");
}

static void test_policy_errors(void **state)
{
	static const char *const bad[] = {
		"counters:\n  - { name: SymbolErrorCounter, limit: many }\n",
		"counters:\n  - { name: SymbolErrorCounter, limit: -1 }\n",
		"counters:\n  - { name: SymbolErrorCounter, threshold: [1] }\n",
	};
	struct counter_policy pol;
	struct fab_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fab_err_init(&err);
		assert_int_equal(counter_policy_parse(&pol, bad[i], strlen(bad[i]), "p.yaml", &err),
				 -EINVAL);
		assert_non_null(strstr(err.msg, "p.yaml:2:"));
	}
	assert_non_null(strstr(err.msg, "threshold"));
}

/* "| `name` | alias | sysfs | limit | threshold | severity | meaning |" of entry @r. */
static void doc_row(const struct counter_rule *r, char *buf, size_t len)
{
	char lim[24], thr[24];

	snprintf(lim, sizeof(lim), "%llu", (unsigned long long)r->limit);
	snprintf(thr, sizeof(thr), "%llu", (unsigned long long)r->threshold);
	snprintf(buf, len, "| `%s` | %s | %s | %s | %s | %s | %s |", r->name,
		 r->alias ? r->alias : "", r->sysfs ? r->sysfs : "",
		 r->limit == COUNTER_OFF ? "off" : lim, r->threshold == COUNTER_OFF ? "off" : thr,
		 counter_sev_name(r->sev), r->meaning);
}

/* docs/counters.md prints the table, every row, in order. */
static void test_docs(void **state)
{
	FILE *f = fopen(DOCS_DIR "/counters.md", "r");
	size_t n, k = 0;
	const struct counter_rule *r = counter_rules_default(&n);
	char line[512], want[512];

	(void)state;
	if (!f)
		fail_msg(DOCS_DIR "/counters.md: cannot open");
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "| `", 3) != 0)
			continue;
		if (k == n)
			fail_msg("docs/counters.md: a row past the table: %s", line);
		doc_row(&r[k++], want, sizeof(want));
		if (strcmp(line, want) != 0)
			fail_msg("counters.md row %zu:\n  is:   %s\n  want: %s", k, line, want);
	}
	fclose(f);
	if (k != n)
		fail_msg("counters.md: %zu rows, the table has %zu; next: %s", k, n, r[k].name);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pma_entries),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_sysfs),
		cmocka_unit_test(test_one_name_both_rules),
		cmocka_unit_test(test_off_and_on),
		cmocka_unit_test(test_policy_errors),
		cmocka_unit_test(test_docs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
