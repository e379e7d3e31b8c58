// SPDX-License-Identifier: GPL-2.0-or-later
/* Profile loader: values, strictness, and exact file:line:column messages. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "io/load.h"
#include "model/profile.h"
#include "util/array.h"
#include "util/err.h"

static struct profile *parse_ok(const char *text)
{
	struct profile *p = NULL;
	struct fab_err err;

	fab_err_init(&err);
	if (profile_parse("t.yaml", (const unsigned char *)text, strlen(text), &p, &err) < 0)
		fail_msg("unexpected error: %s", err.msg);
	assert_non_null(p);
	return p;
}

/* Parse @text, expect failure with exactly @msg and exit code 2. */
static void parse_err(const char *text, const char *msg)
{
	struct profile *p = NULL;
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(profile_parse("t.yaml", (const unsigned char *)text, strlen(text), &p,
				       &err), -EINVAL);
	assert_null(p);
	assert_string_equal(err.msg, msg);
	assert_int_equal(fab_err_exit(&err), FAB_EXIT_USAGE);
}

static void test_full_interface(void **state)
{
	struct profile *p = parse_ok(
		"name: t\n"
		"interfaces:\n"
		"  - match: [\"eth*\", \"en*\"]\n"
		"    driver: mlx5_core\n"
		"    mtu: 9000\n"
		"    pfc: {enable: [3, 4]}\n"
		"    ets:\n"
		"      prio_tc: [0, 1, 2, 3, 4, 5, 6, 7]\n"
		"      tc_bw: [10, 5, 5, 50, 10, 10, 0, 10]\n"
		"      tsa: [ets, ets, ets, ets, ets, ets, strict, ets]\n"
		"    trust: [dscp, pcp]\n"
		"    dscp_map: {26: 3, 48: 6}\n"
		"    ecn: {np: [3], rp: [3, 5]}\n"
		"    roce: {tos: 106, mtu: 4096}\n");
	const struct profile_iface *f = &p->ifaces[0];

	assert_string_equal(p->name, "t");
	assert_int_equal(p->n_ifaces, 1);
	assert_int_equal(f->n_match, 2);
	assert_string_equal(f->match[1], "en*");
	assert_string_equal(f->driver, "mlx5_core");
	assert_int_equal(f->mark.line, 3);
	assert_int_equal(f->mark.col, 5);
	assert_int_equal(f->mtu, 9000);
	assert_true(f->has_pfc);
	assert_int_equal(f->pfc_en, 0x18);
	assert_true(f->has_ets);
	assert_int_equal(f->ets_prio_tc[7], 7);
	assert_int_equal(f->ets_tc_bw_pct[3], 50);
	assert_int_equal(f->ets_tsa[6], FAB_DCB_TSA_STRICT);
	assert_int_equal(f->ets_tsa[0], FAB_DCB_TSA_ETS);
	assert_int_equal(f->n_trust, 2);
	assert_int_equal(f->trust[0], FAB_DCB_APP_SEL_DSCP);
	assert_int_equal(f->trust[1], FAB_DCB_APP_SEL_PCP);
	assert_int_equal(f->n_apps, 2);
	assert_int_equal(f->apps[0].selector, FAB_DCB_APP_SEL_DSCP);
	assert_int_equal(f->apps[0].protocol, 26);
	assert_int_equal(f->apps[0].priority, 3);
	assert_int_equal(f->apps[1].protocol, 48);
	assert_int_equal(f->apps[1].priority, 6);
	assert_true(f->has_ecn_np);
	assert_int_equal(f->ecn_np, 0x08);
	assert_int_equal(f->ecn_rp, 0x28);
	assert_int_equal(f->roce_tos, 106);
	assert_int_equal(f->roce_mtu, 4096);
	profile_free(p);
}

static void test_minimal_and_unset(void **state)
{
	struct profile *p = parse_ok("interfaces:\n  - match: eth*\n    mtu: 9000\n");

	assert_int_equal(p->n_ifaces, 1);
	assert_int_equal(p->ifaces[0].mtu, 9000);
	assert_false(p->ifaces[0].has_pfc);
	assert_false(p->ifaces[0].has_ets);
	assert_false(p->ifaces[0].has_ecn_np);
	assert_int_equal(p->ifaces[0].roce_tos, -1);
	assert_int_equal(p->ifaces[0].roce_lossless, -1);
	assert_int_equal(p->ifaces[0].roce_prio, -1);
	assert_int_equal(p->ifaces[0].roce_gid_index, -1);
	assert_int_equal(p->n_bonds, 0);
	profile_free(p);
	/* The chain's keys. */
	p = parse_ok("interfaces:\n  - match: eth*\n    roce: {tos: 106, lossless: false, prio: 3, gid_index: 2}\n");
	assert_int_equal(p->ifaces[0].roce_lossless, 0);
	assert_int_equal(p->ifaces[0].roce_prio, 3);
	assert_int_equal(p->ifaces[0].roce_gid_index, 2);
	assert_false(p->ifaces[0].has_pfc);
	profile_free(p);
	/* pfc.delay alone leaves pfc.enable unset. */
	p = parse_ok("interfaces:\n  - match: eth*\n    pfc: {delay: 10}\n"
		     "    buffer: {size: [1, 2, 3, 4, 5, 6, 7, 4294967295]}\n");
	assert_false(p->ifaces[0].has_pfc);
	assert_true(p->ifaces[0].has_pfc_delay);
	assert_int_equal(p->ifaces[0].pfc_delay, 10);
	assert_false(p->ifaces[0].has_buf_prio);
	assert_true(p->ifaces[0].has_buf_size);
	assert_int_equal(p->ifaces[0].buf_size[7], 4294967295u);
	assert_int_equal(p->ifaces[0].pfc_storm_ms, -1);
	profile_free(p);
	p = parse_ok("interfaces:\n  - match: eth0\n    pfc: {storm_timeout_ms: auto}\n"
		     "  - match: eth1\n    pfc: {storm_timeout_ms: 0}\n"
		     "  - match: eth2\n    pfc: {storm_timeout_ms: 500}\n");
	assert_int_equal(p->ifaces[0].pfc_storm_ms, PROFILE_PFC_STORM_AUTO);
	assert_int_equal(p->ifaces[1].pfc_storm_ms, 0);
	assert_int_equal(p->ifaces[2].pfc_storm_ms, 500);
	profile_free(p);
	/* Every section optional: an empty mapping is a valid (empty) profile. */
	p = parse_ok("{}\n");
	assert_int_equal(p->n_ifaces + p->n_bonds + p->n_ib, 0);
	profile_free(p);
}

static void test_bond_and_ib(void **state)
{
	struct profile *p = parse_ok(
		"bonds:\n"
		"  - name: bond0\n"
		"    mode: 802.3ad\n"
		"    miimon: 100\n"
		"    lacp_rate: fast\n"
		"    xmit_hash_policy: layer3+4\n"
		"    min_links: 1\n"
		"    members: [eth0, eth1]\n"
		"    mtu: 9000\n"
		"infiniband:\n"
		"  - match: mlx5_*\n"
		"    port: 1\n"
		"    state: active\n"
		"    width: 4x\n"
		"    speed: ndr\n"
		"    active_mtu: 4096\n");
	const struct fab_bond *b = &p->bonds[0].want;

	assert_string_equal(b->name, "bond0");
	assert_int_equal(b->mode, FAB_BOND_MODE_8023AD);
	assert_int_equal(b->miimon_ms, 100);
	assert_int_equal(b->lacp_rate, FAB_BOND_LACP_FAST);
	assert_int_equal(b->xmit_hash_policy, FAB_BOND_XMIT_LAYER34);
	assert_int_equal(b->min_links, 1);
	assert_int_equal(b->n_members, 2);
	assert_string_equal(b->members[1].name, "eth1");
	assert_int_equal(p->bonds[0].mtu, 9000);
	assert_string_equal(p->ib[0].state, "ACTIVE");
	assert_string_equal(p->ib[0].speed, "NDR");
	assert_int_equal(p->ib[0].width_x, 4);
	assert_int_equal(p->ib[0].port, 1);
	assert_int_equal(p->ib[0].active_mtu, 4096);
	profile_free(p);
	p = parse_ok("bonds:\n  - name: bond1\n    mode: active-backup\n");
	assert_int_equal(p->bonds[0].want.mode, FAB_BOND_MODE_ACTIVE_BACKUP);
	assert_int_equal(p->bonds[0].want.lacp_rate, -1);
	assert_int_equal(p->bonds[0].want.miimon_ms, -1);
	profile_free(p);
}

static void test_errors(void **state)
{
	parse_err("interfaces:\n  - match: eth0\n    mtux: 9000\n",
		  "t.yaml:3:5: interfaces[0]: unknown key 'mtux' (known: match, driver, kind, optional, mtu, pfc, ets, trust, dscp_map, ecn, roce, buffer, maxrate_kbps, dcqcn)");
	parse_err("interfaces:\n  - match: eth0\n    mtu: 9000\n    mtu: 1500\n",
		  "t.yaml:4:5: interfaces[0]: duplicate key 'mtu'");
	parse_err("interfaces:\n  - match: eth0\n    mtu: 70000\n",
		  "t.yaml:3:10: mtu: 70000 out of range 68..65535");
	parse_err("interfaces:\n  - match: eth0\n    mtu: big\n",
		  "t.yaml:3:10: mtu: expected a number, found 'big'");
	parse_err("interfaces:\n  - match: eth0\n    mtu: -5\n",
		  "t.yaml:3:10: mtu: expected a number, found '-5'");
	parse_err("infiniband:\n  - match: mlx5_*\n    port: -5\n",
		  "t.yaml:3:11: port: expected a number, found '-5'");
	/* a quoted number is a string: a wrong type, as documented */
	parse_err("interfaces:\n  - match: eth0\n    mtu: \"9000\"\n",
		  "t.yaml:3:10: mtu: expected a number, found the string \"9000\" (write it without quotes)");
	parse_err("interfaces:\n  - match: eth0\n    optional: 'true'\n",
		  "t.yaml:3:15: optional: expected true or false, found the string \"true\" (write it without quotes)");
	parse_err("interfaces:\n  - match: eth0\n    pfc: {enable: [3, 8]}\n",
		  "t.yaml:3:23: pfc.enable: 8 out of range 0..7");
	parse_err("interfaces:\n  - match: eth0\n    pfc: {enable: 3}\n",
		  "t.yaml:3:19: pfc.enable: expected a list, found a scalar");
	parse_err("interfaces:\n  - mtu: 9000\n",
		  "t.yaml:2:5: interfaces[0]: needs at least one of match, driver, kind");
	parse_err("interfaces: {match: eth0}\n",
		  "t.yaml:1:13: interfaces: expected a list, found a mapping");
	parse_err("interfaces:\n  - match: eth0\n    dscp_map: {64: 3}\n",
		  "t.yaml:3:16: dscp_map: dscp: 64 out of range 0..63");
	parse_err("interfaces:\n  - match: eth0\n    dscp_map: {26: 3, 26: 4}\n",
		  "t.yaml:3:23: dscp_map: dscp 26 listed twice");
	parse_err("interfaces:\n  - match: eth0\n    trust: [dscp, vlan]\n",
		  "t.yaml:3:19: trust: unknown selector 'vlan' (known: pcp, dscp, ethertype, stream, dgram, any)");
	parse_err("interfaces:\n  - match: eth0\n    ets: {tc_bw: [50, 40, 0, 0, 0, 0, 0, 0]}\n",
		  "t.yaml:3:10: ets: tc_bw of the ets classes sums to 90%, must be 100%");
	parse_err("interfaces:\n  - match: eth0\n    ets: {prio_tc: [0, 1]}\n",
		  "t.yaml:3:20: ets.prio_tc: expected 8 entries (one per priority), found 2");
	parse_err("interfaces:\n  - match: eth0\n    roce: {mtu: 3000}\n",
		  "t.yaml:3:17: roce.mtu: 3000 is not one of 256, 512, 1024, 2048, 4096");
	parse_err("interfaces:\n  - match: eth0\n    buffer: {prio_buffer: [0, 0, 0, 8, 0, 0, 0, 0]}\n",
		  "t.yaml:3:37: buffer.prio_buffer: 8 out of range 0..7");
	parse_err("interfaces:\n  - match: eth0\n    maxrate_kbps: [1, 2]\n",
		  "t.yaml:3:19: maxrate_kbps: expected 8 entries (one per traffic class), found 2");
	parse_err("interfaces:\n  - match: eth0\n    pfc: {storm_timeout_ms: 50}\n",
		  "t.yaml:3:29: pfc.storm_timeout_ms: 50 is under 80 (0 turns it off)");
	parse_err("interfaces:\n  - match: eth0\n    pfc: {delay: 70000}\n",
		  "t.yaml:3:18: pfc.delay: 70000 out of range 0..65535");
	parse_err("interfaces:\n  - match: eth0\n    roce: {prio: 8}\n",
		  "t.yaml:3:18: roce.prio: 8 out of range 0..7");
	parse_err("interfaces:\n  - match: eth0\n    roce: {tos: 1, gid: 3}\n",
		  "t.yaml:3:20: roce: unknown key 'gid' (known: tos, mtu, lossless, prio, gid_index)");
	parse_err("bonds:\n  - name: bond0\n    mode: fastest\n",
		  "t.yaml:3:11: mode: unknown bonding mode 'fastest' (known: balance-rr, active-backup, balance-xor, broadcast, 802.3ad, balance-tlb, balance-alb)");
	parse_err("bonds:\n  - mode: 802.3ad\n", "t.yaml:2:5: bonds[0]: 'name' is required");
	parse_err("bonds:\n  - name: b\n  - name: b\n", "t.yaml:3:5: bonds[1]: bond 'b' defined twice");
	parse_err("infiniband:\n  - match: m\n    width: 3x\n",
		  "t.yaml:3:12: width: expected 1x, 2x, 4x, 8x or 12x, found '3x'");
	parse_err("interfaces:\n  - &a {match: eth0}\n  - *a\n",
		  "t.yaml:2:5: anchors and aliases are not allowed in a profile");
	parse_err("", "t.yaml:1:1: empty profile");
	parse_err("- a\n", "t.yaml:1:1: profile: expected a mapping, found a list");
	parse_err("interfaces:\n  - match: eth0\n---\nname: x\n",
		  "t.yaml:3:1: more than one document in a profile");
	/* libyaml's own syntax errors keep its line:column. */
	parse_err("interfaces:\n  - match: [eth0\n", "t.yaml:3:1: did not find expected ',' or ']' while parsing a flow sequence");
}

static void test_load_file_errors(void **state)
{
	struct profile *p = NULL;
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(profile_load("/nonexistent/p.yaml", &p, &err), -ENOENT);
	assert_string_equal(err.msg, "/nonexistent/p.yaml: No such file or directory");
	assert_int_equal(fab_err_exit(&err), FAB_EXIT_USAGE);
}

static void test_shipped_profiles(void **state)
{
	static const char *const files[] = {
		"profiles/roce-lossless.yaml", "profiles/roce-dual-homed.yaml",
		"profiles/roce-dual-homed-active-backup.yaml", "profiles/ib-ndr.yaml",
	};

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct profile *p = NULL;
		struct fab_err err;

		fab_err_init(&err);
		if (profile_load(files[i], &p, &err) < 0)
			fail_msg("%s: %s", files[i], err.msg);
		if (i == 0) {
			assert_int_equal(p->ifaces[0].mtu, 9000);
			assert_int_equal(p->ifaces[0].pfc_en, 1u << 3);
			assert_int_equal(p->ifaces[0].roce_tos, 106);
			assert_int_equal(p->ifaces[0].roce_mtu, 4096);
		}
		if (i == 1)
			assert_int_equal(p->bonds[0].want.mode, FAB_BOND_MODE_8023AD);
		if (i == 2)
			assert_int_equal(p->bonds[0].want.mode, FAB_BOND_MODE_ACTIVE_BACKUP);
		if (i == 3)
			assert_string_equal(p->ib[0].speed, "NDR");
		profile_free(p);
	}
}

static void test_matching(void **state)
{
	struct profile *p = parse_ok(
		"interfaces:\n"
		"  - match: [eth*, ens*]\n"
		"  - driver: mlx5_*\n"
		"  - match: '*'\n"
		"    kind: hw\n");

	assert_true(profile_iface_matches(&p->ifaces[0], "eth3", "", "veth"));
	assert_true(profile_iface_matches(&p->ifaces[0], "ens1f0np0", "mlx5_core", ""));
	assert_false(profile_iface_matches(&p->ifaces[0], "lo", "", ""));
	assert_true(profile_iface_matches(&p->ifaces[1], "whatever", "mlx5_core", ""));
	assert_false(profile_iface_matches(&p->ifaces[1], "eth0", "veth", "veth"));
	assert_true(profile_iface_matches(&p->ifaces[2], "eno1", "ixgbe", ""));
	assert_false(profile_iface_matches(&p->ifaces[2], "veth0", "veth", "veth"));
	profile_free(p);
	profile_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_interface),
		cmocka_unit_test(test_minimal_and_unset),
		cmocka_unit_test(test_bond_and_ib),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_load_file_errors),
		cmocka_unit_test(test_shipped_profiles),
		cmocka_unit_test(test_matching),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
