// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ethernet / RoCE counters by name: `ethtool -S` text, the worker op's
 * JSON, the snapshot names counter_eval sees, and the sysfs reader
 * (src/sys/nic_counters.c) on the labelled mlx5 fixture
 * (tests/fixtures/mlx5-roce), with pause and discard deltas judged.
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
#include "model/nic_counters.h"
#include "sys/sys.h"

#define FIXTURE "tests/fixtures/mlx5-roce"

static const struct nic_sample *find(const struct nic_counters *c, enum nic_src src,
				     const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].src == src && strcmp(c->v[i].name, name) == 0)
			return &c->v[i];
	return NULL;
}

static void test_parse_ethtool(void **state)
{
	static const char text[] =
		"NIC statistics:\n"
		"     rx_packets: 81234567\n"
		"     rx_prio3_pause: 1200\n"
		"\ttx_pause_storm_warning_events: 0\r\n"
		"     bogus line without number\n"
		"     rx_bad: 12x\n"
		"     rx_neg: -1\n"
		"     rx_huge: 18446744073709551615\n"
		"     rx_over: 18446744073709551616\n"
		"     rx_last: 7";
	struct nic_counters c;

	(void)state;
	nic_counters_init(&c);
	assert_int_equal(nic_counters_parse_ethtool(&c, text, strlen(text)), 0);
	assert_int_equal(c.n, 5);
	assert_int_equal(find(&c, NIC_SRC_ETHTOOL, "rx_packets")->value, 81234567);
	assert_int_equal(find(&c, NIC_SRC_ETHTOOL, "rx_prio3_pause")->value, 1200);
	assert_int_equal(find(&c, NIC_SRC_ETHTOOL, "tx_pause_storm_warning_events")->value, 0);
	assert_true(find(&c, NIC_SRC_ETHTOOL, "rx_huge")->value == UINT64_MAX);
	assert_int_equal(find(&c, NIC_SRC_ETHTOOL, "rx_last")->value, 7);
	assert_null(find(&c, NIC_SRC_ETHTOOL, "rx_bad"));
	assert_null(find(&c, NIC_SRC_ETHTOOL, "rx_neg"));
	assert_null(find(&c, NIC_SRC_ETHTOOL, "rx_over"));
	nic_counters_fini(&c);
}

static void test_json_roundtrip(void **state)
{
	struct nic_counters c, d;
	struct fab_err err;
	json_t *j;
	int k;

	(void)state;
	fab_err_init(&err);
	nic_counters_init(&c);
	nic_counters_init(&d);
	snprintf(c.ifname, sizeof(c.ifname), "eth0");
	assert_int_equal(nic_counters_add(&c, NIC_SRC_STATS, 0, "rx_dropped", 3), 0);
	assert_int_equal(nic_counters_add(&c, NIC_SRC_ETHTOOL, 0, "rx_discards_phy", 9), 0);
	k = nic_counters_add_rdma(&c, "mlx5_0", 1);
	assert_int_equal(k, 0);
	assert_int_equal(nic_counters_add(&c, NIC_SRC_HW, 0, "np_cnp_sent", 4000), 0);
	assert_int_equal(nic_counters_add(&c, NIC_SRC_IB, 0, "symbol_error", 2), 0);
	j = nic_counters_to_json(&c);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "stats"), "rx_dropped")), 3);
	assert_int_equal(nic_counters_from_json(&d, j, &err), 0);
	assert_string_equal(d.ifname, "eth0");
	assert_int_equal(d.n, 4);
	assert_int_equal(d.n_rdma, 1);
	assert_string_equal(d.rdma[0].dev, "mlx5_0");
	assert_int_equal(find(&d, NIC_SRC_HW, "np_cnp_sent")->value, 4000);
	assert_int_equal(find(&d, NIC_SRC_IB, "symbol_error")->value, 2);
	json_decref(j);
	nic_counters_fini(&d);

	/* Bad input names the source and the counter; nothing invented. */
	nic_counters_init(&d);
	j = json_pack("{s:s, s:{s:s}}", "ifname", "eth0", "ethtool", "rx_x", "12");
	assert_int_equal(nic_counters_from_json(&d, j, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "ethtool: rx_x: not a non-negative integer"));
	json_decref(j);
	nic_counters_fini(&d);
	nic_counters_init(&d);
	j = json_pack("{s:s, s:[{s:s}]}", "ifname", "eth0", "rdma", "dev", "mlx5_0");
	assert_int_equal(nic_counters_from_json(&d, j, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "rdma[0]"));
	json_decref(j);
	nic_counters_fini(&d);
	nic_counters_fini(&c);
}

/* hw_counters before ethtool before stats; symbol_error is the PMA alias. */
static void test_snap_names(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *h = topo_node_add(t, TOPO_NODE_HOST, "h1", 0);
	struct topo_port *p = topo_port_get(h, 0, "eth0");
	struct nic_counters c;
	struct counter_snap s;

	(void)state;
	nic_counters_init(&c);
	counter_snap_init(&s);
	nic_counters_add(&c, NIC_SRC_STATS, 0, "rx_dropped", 1);
	nic_counters_add(&c, NIC_SRC_ETHTOOL, 0, "rx_dropped", 2);
	nic_counters_add_rdma(&c, "mlx5_0", 1);
	nic_counters_add(&c, NIC_SRC_IB, 0, "symbol_error", 5);
	nic_counters_add(&c, NIC_SRC_HW, 0, "link_downed", 6);
	nic_counters_add(&c, NIC_SRC_IB, 0, "link_downed", 7);
	nic_counters_add(&c, NIC_SRC_STATS, 0, "rx_packets", 99);	/* no rule: left out */
	assert_int_equal(nic_counters_snap(&c, NULL, p, &s), 0);
	assert_int_equal(s.n, 3);	/* sorted by name */
	assert_string_equal(s.v[0].name, "link_downed");
	assert_int_equal(s.v[0].value, 6);
	assert_string_equal(s.v[1].name, "rx_dropped");
	assert_int_equal(s.v[1].value, 2);
	assert_true(s.v[1].port == p);
	assert_string_equal(s.v[2].name, "symbol_errors");
	assert_int_equal(s.v[2].value, 5);
	counter_snap_fini(&s);
	nic_counters_fini(&c);
	topo_free(t);
}

/* The severities of the Ethernet / RoCE names the issue lists. */
static void test_rules(void **state)
{
	static const struct {
		const char *name;
		enum counter_sev sev;
		uint64_t threshold;
	} want[] = {
		{ "rx_prio3_pause", COUNTER_SEV_WARN, 1000 },
		{ "tx_prio3_pause", COUNTER_SEV_WARN, 1000 },
		{ "rx_prio3_pause_duration", COUNTER_SEV_INFO, 0 },
		{ "tx_pause_storm_warning_events", COUNTER_SEV_WARN, 0 },
		{ "tx_pause_storm_error_events", COUNTER_SEV_ERROR, 0 },
		{ "rx_discards_phy", COUNTER_SEV_ERROR, 0 },
		{ "rx_out_of_buffer", COUNTER_SEV_ERROR, 0 },
		{ "out_of_buffer", COUNTER_SEV_ERROR, 0 },
		{ "np_cnp_sent", COUNTER_SEV_WARN, 1000 },
		{ "rp_cnp_handled", COUNTER_SEV_WARN, 1000 },
		{ "np_ecn_marked_roce_packets", COUNTER_SEV_WARN, 1000 },
		{ "out_of_sequence", COUNTER_SEV_WARN, 0 },
		{ "packet_seq_err", COUNTER_SEV_WARN, 0 },
		{ "local_ack_timeout_err", COUNTER_SEV_WARN, 0 },
		{ "rx_pcs_symbol_err_phy", COUNTER_SEV_ERROR, 0 },
		{ "rx_symbol_err_phy", COUNTER_SEV_ERROR, 0 },
		{ "rx_err_lane_2_phy", COUNTER_SEV_ERROR, 0 },
		{ "rx_prio3_buf_discard", COUNTER_SEV_ERROR, 0 },
		{ "completer_retry_err", COUNTER_SEV_WARN, 0 },
		{ "rcvd_seq_err", COUNTER_SEV_WARN, 0 },
		{ "retry_exceeded_err", COUNTER_SEV_ERROR, 0 },
		{ "rx_dropped", COUNTER_SEV_WARN, 0 },
		{ "rx_crc_errors", COUNTER_SEV_ERROR, 0 },
		{ "carrier_changes", COUNTER_SEV_ERROR, 0 },
		{ "symbol_errors", COUNTER_SEV_ERROR, 0 },
	};
	struct counter_policy pol;

	(void)state;
	counter_policy_default(&pol);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct counter_rule *r = counter_policy_find(&pol, want[i].name);

		assert_non_null(r);
		if (r->sev != want[i].sev || r->threshold != want[i].threshold)
			fail_msg("%s: %s/%llu", want[i].name, counter_sev_name(r->sev),
				 (unsigned long long)r->threshold);
	}
	/* Traffic counters are not evidence. */
	assert_null(counter_policy_find(&pol, "rx_packets"));
	assert_null(counter_policy_find(&pol, "rx_prio3_bytes"));
	assert_null(counter_policy_find(&pol, "rx_write_requests"));
}

/* ---- the sysfs reader on the fixture ---------------------------------------------- */

static char root[200];

static int fixture_copy(void **state)
{
	char cmd[512];

	(void)state;
	snprintf(root, sizeof(root), "%s/test_nic_counters.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return -1;
	snprintf(cmd, sizeof(cmd), "cp -r '%s/sys' '%s/ethtool-S' '%s/'", FIXTURE, FIXTURE, root);
	return system(cmd) == 0 ? 0 : -1;
}

static int fixture_rm(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int read_fixture(struct sys *s, const char *ifname, const char *addr, struct nic_counters *c,
			struct fab_err *err)
{
	struct nic_counters_req q = { .ifname = ifname, .addr = addr };

	nic_counters_init(c);
	return sys_nic_counters_read(s, &q, c, err);
}

static void test_sysfs_fixture(void **state)
{
	struct nic_counters c;
	struct fab_err err;
	struct sys *s = NULL;

	(void)state;
	fab_err_init(&err);
	assert_int_equal(sys_real_new(&s, root, &err), 0);
	assert_int_equal(read_fixture(s, "enp1s0f0np0", NULL, &c, &err), 0);
	assert_string_equal(c.ifname, "enp1s0f0np0");
	/* statistics/, carrier_changes, ethtool -S, and mlx5_0 only (its netdev). */
	assert_int_equal(find(&c, NIC_SRC_STATS, "rx_packets")->value, 81234567);
	assert_int_equal(find(&c, NIC_SRC_STATS, "carrier_changes")->value, 2);
	assert_int_equal(find(&c, NIC_SRC_ETHTOOL, "rx_prio3_pause")->value, 1200);
	assert_int_equal(find(&c, NIC_SRC_ETHTOOL, "rx_discards_phy")->value, 17);
	assert_int_equal(c.n_rdma, 1);
	assert_string_equal(c.rdma[0].dev, "mlx5_0");
	assert_int_equal(c.rdma[0].port, 1);
	assert_int_equal(find(&c, NIC_SRC_HW, "np_cnp_sent")->value, 3400);
	assert_non_null(find(&c, NIC_SRC_IB, "symbol_error"));
	assert_null(find(&c, NIC_SRC_HW, "lifespan"));	/* a setting, not a counter */
	/* Absent counters are absent, never zero. */
	assert_null(find(&c, NIC_SRC_ETHTOOL, "rx_prio5_pause"));
	assert_null(find(&c, NIC_SRC_HW, "roce_adp_retrans_cnp"));
	nic_counters_fini(&c);

	/* The idle port has no ethtool-S capture: nothing from ethtool. */
	assert_int_equal(read_fixture(s, "enp1s0f1np1", NULL, &c, &err), 0);
	assert_null(find(&c, NIC_SRC_ETHTOOL, "rx_packets"));
	assert_int_equal(c.n_rdma, 1);
	assert_string_equal(c.rdma[0].dev, "mlx5_1");
	nic_counters_fini(&c);

	/* No such interface; a name that is a path; nothing named. */
	assert_int_equal(read_fixture(s, "eth9", NULL, &c, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "eth9: no such interface"));
	nic_counters_fini(&c);
	assert_int_equal(read_fixture(s, "../../x", NULL, &c, &err), -EINVAL);
	nic_counters_fini(&c);
	assert_int_equal(read_fixture(s, NULL, "not-an-address", &c, &err), -EINVAL);
	nic_counters_fini(&c);
	assert_int_equal(read_fixture(s, NULL, "192.0.2.99", &c, &err), -ENODEV);
	assert_non_null(strstr(err.msg, "no interface has address 192.0.2.99"));
	nic_counters_fini(&c);
	sys_free(s);
}

/* Before, raise pause and discards, after: counter_eval's findings on the host port. */
static void test_fixture_deltas(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *sw = topo_node_add(t, TOPO_NODE_SWITCH, "leaf1", 0);
	struct topo_node *h = topo_node_add(t, TOPO_NODE_HOST, "h1", 0);
	struct topo_port *lp = topo_port_get(sw, 0, "swp1");
	struct topo_port *hp = topo_port_get(h, 0, "enp1s0f0np0");
	struct nic_counters b, a;
	struct counter_snap sb, sa;
	struct counter_report rep = { 0 };
	struct fab_err err;
	struct sys *s = NULL;
	char text[8192];
	FILE *f;
	size_t len;

	(void)state;
	fab_err_init(&err);
	assert_int_equal(topo_link_add(t, lp, hp, TOPO_SRC_LLDP), 0);
	topo_sort(t);
	assert_int_equal(sys_real_new(&s, root, &err), 0);
	assert_int_equal(read_fixture(s, "enp1s0f0np0", NULL, &b, &err), 0);
	/* rx_prio3_pause +5000 (> 1000), tx_prio3_pause +10 (under), rx_discards_phy +40. */
	f = fopen(FIXTURE "/ethtool-S/enp1s0f0np0", "r");
	assert_non_null(f);
	len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	{
		char *p;

		p = strstr(text, "rx_prio3_pause: 1200");
		assert_non_null(p);
		memcpy(p, "rx_prio3_pause: 6200", 20);
		p = strstr(text, "tx_prio3_pause: 800");
		memcpy(p, "tx_prio3_pause: 810", 19);
		p = strstr(text, "rx_discards_phy: 17");
		memcpy(p, "rx_discards_phy: 57", 19);
	}
	put("ethtool-S/enp1s0f0np0", text);
	put("sys/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", "9400\n");
	put("sys/class/net/enp1s0f0np0/statistics/rx_packets", "91234567\n");
	assert_int_equal(read_fixture(s, "enp1s0f0np0", NULL, &a, &err), 0);
	counter_snap_init(&sb);
	counter_snap_init(&sa);
	assert_int_equal(nic_counters_snap(&b, NULL, hp, &sb), 0);
	assert_int_equal(nic_counters_snap(&a, NULL, hp, &sa), 0);
	assert_int_equal(counter_eval(t, NULL, &sb, &sa, &rep), 0);
	assert_int_equal(rep.n_findings, 3);
	for (size_t i = 0; i < rep.n_findings; i++) {
		const struct counter_finding *cf = &rep.findings[i];

		assert_true(cf->port == hp);
		assert_int_equal(cf->link, 0);
		if (strcmp(cf->name, "np_cnp_sent") == 0) {
			assert_int_equal(cf->delta, 6000);
			assert_int_equal(cf->sev, COUNTER_SEV_WARN);
		} else if (strcmp(cf->name, "rx_prio3_pause") == 0) {
			assert_int_equal(cf->delta, 5000);
			assert_int_equal(cf->sev, COUNTER_SEV_WARN);
			assert_int_equal(cf->threshold, 1000);
		} else {
			assert_string_equal(cf->name, "rx_discards_phy");
			assert_int_equal(cf->delta, 40);
			assert_int_equal(cf->sev, COUNTER_SEV_ERROR);
		}
	}
	assert_int_equal(rep.n_ports, 1);
	counter_report_fini(&rep);
	counter_snap_fini(&sb);
	counter_snap_fini(&sa);
	nic_counters_fini(&b);
	nic_counters_fini(&a);
	sys_free(s);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ethtool),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_snap_names),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_sysfs_fixture),
		cmocka_unit_test(test_fixture_deltas),
	};

	return cmocka_run_group_tests(tests, fixture_copy, fixture_rm);
}
