// SPDX-License-Identifier: GPL-2.0-or-later
/* The lossless chain (model/lossless.c): one test per way it can break. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/lossless.h"

/* A port set up as profiles/roce-lossless.yaml says, plus buffers and a GID. */
struct fx {
	struct fab_dcb dcb;
	struct fab_dcb_app apps[2];
	struct fab_gid gids[3];
	char addrs[2][FAB_ADDRSTRLEN];
	struct lossless_in in;
	struct lossless_chain c;
};

static void fx_init(struct fx *f)
{
	static const uint8_t bw[] = { 10, 5, 5, 50, 10, 10, 0, 10 };

	memset(f, 0, sizeof(*f));
	f->dcb.pfc_supported = f->dcb.ets_supported = f->dcb.app_supported = true;
	f->dcb.trust_supported = f->dcb.buffer_supported = true;
	f->dcb.pfc.pfc_en = 1u << 3;
	for (unsigned int i = 0; i < 8; i++) {
		f->dcb.ets.prio_tc[i] = (uint8_t)i;
		f->dcb.ets.tc_tsa[i] = FAB_DCB_TSA_ETS;
		f->dcb.ets.tc_tx_bw_pct[i] = bw[i];
		f->dcb.buffer.prio2buffer[i] = i == 3;
	}
	f->dcb.ets.tc_tsa[6] = FAB_DCB_TSA_STRICT;
	f->dcb.buffer.buffer_size[0] = 65536;
	f->dcb.buffer.buffer_size[1] = 131072;
	f->dcb.trust[0] = FAB_DCB_APP_SEL_DSCP;
	f->dcb.n_trust = 1;
	f->apps[0] = (struct fab_dcb_app){ FAB_DCB_APP_SEL_DSCP, 26, 3 };
	f->apps[1] = (struct fab_dcb_app){ FAB_DCB_APP_SEL_DSCP, 48, 6 };
	f->dcb.apps = f->apps;
	f->dcb.n_apps = 2;
	f->gids[0] = (struct fab_gid){ 0, "fe80::b20e:c3ff:fe7c:e855", "RoCE v2", "eth0" };
	f->gids[1] = (struct fab_gid){ 1, "::ffff:192.168.77.1", "RoCE v1", "eth0" };
	f->gids[2] = (struct fab_gid){ 3, "::ffff:192.168.77.1", "RoCE v2", "eth0" };
	strcpy(f->addrs[0], "192.168.77.1");
	strcpy(f->addrs[1], "fe80::b20e:c3ff:fe7c:e855");
	f->in = (struct lossless_in){
		.ifname = "eth0", .tos = 106, .dcb = &f->dcb, .pcp_prio = -1,
		.lossless = true, .dcqcn = true,
		.ecn_known = { true, true }, .ecn = { 1u << 3, 1u << 3 },
		.cnp_dscp = 48, .cnp_prio = 6,
		.cable_m = 10, .speed_mbps = 100000, .mtu = 9000,
		.rdma_dev = "mlx5_0", .rdma_port = 1, .gids = f->gids, .n_gids = 3,
		.addrs = f->addrs, .n_addrs = 2, .gid_pin = -1,
	};
}

static void check(struct fx *f)
{
	lossless_check(&f->in, &f->c);
}

static void assert_broken(struct fx *f, enum lossless_break b, const char *finding)
{
	check(f);
	assert_int_equal(f->c.verdict, LOSSLESS_BROKEN);
	assert_string_equal(lossless_break_name(f->c.brk), lossless_break_name(b));
	assert_string_equal(f->c.finding, finding);
}

static void test_whole_chain(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f);
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
	assert_string_equal(f.c.path, "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1");
	assert_string_equal(f.c.finding, "");
	assert_int_equal(f.c.dscp, 26);
	assert_int_equal(f.c.prio, 3);
	assert_string_equal(f.c.prio_by, "app");
	assert_int_equal(f.c.tc, 3);
	assert_int_equal(f.c.buffer, 1);
	assert_true(f.c.pfc);
	assert_int_equal(f.c.buffer_bytes, 131072);
	assert_int_equal(f.c.buffer_need, 65808);
	assert_int_equal(f.c.cnp_prio, 6);
	assert_int_equal(f.c.cnp_tc, 6);
	/* The RoCE v2 GID of the IPv4 address, not the v1 one of the same address. */
	assert_int_equal(f.c.gid_index, 3);
	assert_string_equal(f.c.addr, "192.168.77.1");
	assert_string_equal(f.c.gid, "::ffff:192.168.77.1");
	f.in.gid_pin = 3;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
}

static void test_headroom_formula(void **state)
{
	(void)state;
	/* (301 + 2.16 * 10) * 100 + 2.72 * 9000 = 32200 + 24480 */
	assert_int_equal(lossless_xoff_bytes(10, 100000, 9000), 56680);
	assert_int_equal(lossless_buffer_min_bytes(10, 100000, 9000), 56680 + 9000 + 128);
	/* below 40 Gb/s the driver counts 40 */
	assert_int_equal(lossless_xoff_bytes(10, 25000, 9000), 322 * 40 + 24480);
	assert_int_equal(lossless_xoff_bytes(100, 400000, 4200), 517 * 400 + 11424);
	assert_int_equal(lossless_xoff_bytes(0, -1, 1500), 301 * 40 + 4080);
}

static void test_pfc_off(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f);
	f.dcb.pfc.pfc_en = 1u << 4;
	/* buffer 1 holds only priority 3, which now lacks PFC: the PFC link breaks first */
	assert_broken(&f, LOSSLESS_BREAK_PFC_OFF,
		      "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1, but PFC is off on priority 3");
	/* Without a lossless expectation PFC off is no break. */
	f.in.lossless = false;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
	assert_false(f.c.pfc);
}

/* Every field "matches" its own profile line, yet the map sends RoCE elsewhere. */
static void test_dscp_to_lossy_prio(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f);
	f.apps[0].priority = 4;
	assert_broken(&f, LOSSLESS_BREAK_PFC_OFF,
		      "DSCP 26 \u2192 prio 4 \u2192 TC 4 \u2192 buffer 0, but PFC is off on priority 4");
	/* No APP entry under DSCP trust: priority 0, said so. */
	fx_init(&f);
	f.dcb.n_apps = 0;
	assert_broken(&f, LOSSLESS_BREAK_PFC_OFF,
		      "DSCP 26 \u2192 prio 0 (no APP entry) \u2192 TC 0 \u2192 buffer 0, but PFC is off on priority 0");
	assert_string_equal(f.c.prio_by, "default");
}

static void test_tc_without_bandwidth(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f);
	f.dcb.ets.tc_tx_bw_pct[3] = 0;
	f.dcb.ets.tc_tx_bw_pct[0] = 60;
	assert_broken(&f, LOSSLESS_BREAK_TC_NO_BW,
		      "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1, but TC 3 is an ETS class with 0 % bandwidth");
	/* A strict class needs no share. */
	f.dcb.ets.tc_tsa[3] = FAB_DCB_TSA_STRICT;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
}

static void test_wrong_buffer(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f);
	f.dcb.buffer.prio2buffer[3] = 0;	/* RoCE lands in the lossy buffer */
	assert_broken(&f, LOSSLESS_BREAK_BUFFER_LOSSY,
		      "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 0, but buffer 0 also holds priorities 0,1,2,4,5,6,7, which have no PFC (a lossy buffer)");
	fx_init(&f);
	f.dcb.buffer.buffer_size[1] = 40000;
	assert_broken(&f, LOSSLESS_BREAK_BUFFER_SMALL,
		      "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1, but buffer 1 is 40000 bytes, under the 65808 a lossless buffer needs for 10 m at 100000 Mb/s, MTU 9000");
	f.dcb.buffer.buffer_size[1] = 0;
	assert_broken(&f, LOSSLESS_BREAK_BUFFER_SMALL,
		      "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1, but buffer 1 has no size");
	/* Unknown cable: the size is not judged. */
	f.dcb.buffer.buffer_size[1] = 40000;
	f.in.cable_m = 0;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
	assert_int_equal(f.c.buffer_need, 0);
	/* A driver without buffers: the chain stops at the TC. */
	f.dcb.buffer_supported = false;
	check(&f);
	assert_string_equal(f.c.path, "DSCP 26 \u2192 prio 3 \u2192 TC 3");
	assert_int_equal(f.c.buffer, -1);
}

static void test_ecn_off(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f);
	f.in.ecn[FAB_ECN_RP] = 1u << 4;
	assert_broken(&f, LOSSLESS_BREAK_ECN_OFF,
		      "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1, but ECN is off on priority 3 (reaction point)");
	f.in.ecn[FAB_ECN_NP] = 0;
	assert_broken(&f, LOSSLESS_BREAK_ECN_OFF,
		      "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1, but ECN is off on priority 3 (reaction and notification point)");
	/* The NP enable is port-wide: any priority's bit counts. */
	fx_init(&f);
	f.in.ecn[FAB_ECN_NP] = 1u << 0;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
	/* Not expected: no break; expected but unreadable: unknown. */
	f.in.ecn[FAB_ECN_RP] = 0;
	f.in.dcqcn = false;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
	f.in.dcqcn = true;
	f.in.ecn_known[FAB_ECN_RP] = false;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_UNKNOWN);
	assert_string_equal(f.c.why, "ECN not readable");
}

static void test_cnp(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f);
	f.apps[1].priority = 3;	/* DSCP 48 → prio 3: CNPs behind the data */
	assert_broken(&f, LOSSLESS_BREAK_CNP_SHARED,
		      "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1, but CNPs (DSCP 48, prio 3) ride TC 3 too, behind the data they should slow down");
	fx_init(&f);
	f.dcb.ets.tc_tsa[6] = FAB_DCB_TSA_ETS;
	f.dcb.ets.tc_tx_bw_pct[6] = 10;
	f.dcb.ets.tc_tx_bw_pct[0] = 0;
	assert_broken(&f, LOSSLESS_BREAK_CNP_LOSSY,
		      "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1, but CNPs (DSCP 48, prio 6) ride TC 6, a lossy class: no PFC on priority 6 and not strict");
	/* A lossless CNP class is fine. */
	f.dcb.pfc.pfc_en |= 1u << 6;
	f.dcb.buffer.prio2buffer[6] = 1;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
	/* PCP trust: the CNPs' 802.1p priority. */
	fx_init(&f);
	f.dcb.trust[0] = FAB_DCB_APP_SEL_PCP;
	f.in.pcp_prio = 3;
	f.in.cnp_prio = 3;
	assert_broken(&f, LOSSLESS_BREAK_CNP_SHARED,
		      "DSCP 26 \u2192 prio 3 (pcp) \u2192 TC 3 \u2192 buffer 1, but CNPs (DSCP 48, prio 3) ride TC 3 too, behind the data they should slow down");
}

static void test_gid(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f);
	f.gids[2].gid[strlen(f.gids[2].gid) - 1] = '9';	/* only 192.168.77.9 has a v2 GID */
	assert_broken(&f, LOSSLESS_BREAK_NO_GID,
		      "address 192.168.77.1 of eth0 has no RoCE v2 GID on mlx5_0/1");
	assert_int_equal(f.c.gid_index, -1);
	/* A v2 GID of another netdev does not count. */
	fx_init(&f);
	strcpy(f.gids[2].netdev, "eth1");
	assert_broken(&f, LOSSLESS_BREAK_NO_GID,
		      "address 192.168.77.1 of eth0 has no RoCE v2 GID on mlx5_0/1");
	/* A pinned index that is not the one. */
	fx_init(&f);
	f.in.gid_pin = 1;
	assert_broken(&f, LOSSLESS_BREAK_GID_PIN,
		      "the RoCE v2 GID of 192.168.77.1 is index 3 on mlx5_0/1, not 1");
	/* Only a link-local address: nothing to look up. */
	fx_init(&f);
	f.in.n_addrs = 0;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
	assert_int_equal(f.c.gid_index, -1);
	/* An earlier break wins; the GID is not looked at after it. */
	fx_init(&f);
	f.dcb.pfc.pfc_en = 0;
	f.in.gid_pin = 1;
	check(&f);
	assert_int_equal(f.c.brk, LOSSLESS_BREAK_PFC_OFF);
}

static void test_unknown(void **state)
{
	struct fx f;

	(void)state;
	fx_init(&f);
	f.in.dcb = NULL;
	f.in.dcb_why = "dcb: veth0: dcb not supported by driver";
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_UNKNOWN);
	assert_string_equal(f.c.why, "DCB not read: dcb: veth0: dcb not supported by driver");
	assert_string_equal(f.c.path, "DSCP 26");
	/* PCP trust without roce.prio. */
	fx_init(&f);
	f.dcb.trust[0] = FAB_DCB_APP_SEL_PCP;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_UNKNOWN);
	assert_int_equal(f.c.prio, -1);
	/* No ToS at all. */
	fx_init(&f);
	f.in.tos = -1;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_UNKNOWN);
	assert_string_equal(f.c.path, "");
	/* No trust table (kernel < 6.4): DSCP APP entries mean DSCP trust. */
	fx_init(&f);
	f.dcb.trust_supported = false;
	f.dcb.n_trust = 0;
	check(&f);
	assert_int_equal(f.c.verdict, LOSSLESS_OK);
	assert_int_equal(f.c.prio, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_chain),
		cmocka_unit_test(test_headroom_formula),
		cmocka_unit_test(test_pfc_off),
		cmocka_unit_test(test_dscp_to_lossy_prio),
		cmocka_unit_test(test_tc_without_bandwidth),
		cmocka_unit_test(test_wrong_buffer),
		cmocka_unit_test(test_ecn_off),
		cmocka_unit_test(test_cnp),
		cmocka_unit_test(test_gid),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
