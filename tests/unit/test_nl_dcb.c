// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DCB netlink encode/decode (src/sys/nl_dcb.c, nl_util.c) without a
 * socket.  Requests are compared byte for byte with what iproute2's dcb(8)
 * sent for the same change (tests/golden/dcb-*.hex, captured in the VM by
 * tests/vm/dcbtest/capture-golden; only the sequence number differs, and
 * the test takes it from the golden message).  The reply parser reads a
 * real kernel reply captured the same way.
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

#include <libmnl/libmnl.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "sys/nl_dcb.h"
#include "sys/nl_util.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden"
#endif

struct golden {
	unsigned char b[4096];
	size_t len;
};

/* Hex bytes of a golden file, '#' lines skipped. */
static void golden_load(const char *name, struct golden *g)
{
	char path[256], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (run from the repository root)", path);
	g->len = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		if (line[0] == '#')
			continue;
		for (;;) {
			unsigned long v = strtoul(p, &end, 16);

			if (end == p)
				break;
			assert_true(v <= 0xff && g->len < sizeof(g->b));
			g->b[g->len++] = (unsigned char)v;
			p = end;
		}
	}
	fclose(f);
	assert_true(g->len >= 16);
}

static uint32_t golden_seq(const struct golden *g)
{
	return ((const struct nlmsghdr *)(const void *)g->b)->nlmsg_seq;
}

static void assert_bytes(const struct nlmsghdr *nlh, const struct golden *g)
{
	const unsigned char *p = (const void *)nlh;

	assert_non_null(nlh);
	assert_int_equal(nlh->nlmsg_len, g->len);
	for (size_t i = 0; i < g->len; i++)
		if (p[i] != g->b[i])
			fail_msg("byte %zu: got 0x%02x, iproute2 sent 0x%02x", i, p[i], g->b[i]);
}

static char buf[NL_BUF_SIZE] __attribute__((aligned(8)));

static void test_pfc_set_like_iproute2(void **state)
{
	/* dcb pfc set dev dcbt0 prio-pfc 3:on 5:on, from pfc_cap 8 and all else 0 */
	struct fab_dcb_pfc pfc = { .pfc_cap = 8, .pfc_en = (1 << 3) | (1 << 5) };
	struct golden g;

	golden_load("dcb-pfc-set.hex", &g);
	assert_bytes(nl_dcb_msg_pfc_set(buf, golden_seq(&g), "dcbt0", &pfc), &g);
}

static void test_ets_set_like_iproute2(void **state)
{
	struct fab_dcb_ets ets = {
		.ets_cap = 8,
		.tc_tx_bw_pct = { 60, 40 },
		.tc_tsa = { FAB_DCB_TSA_ETS, FAB_DCB_TSA_ETS },
		.prio_tc = { 0, 0, 0, 1, 0, 1, 0, 0 },
	};
	struct golden g;

	golden_load("dcb-ets-set.hex", &g);
	assert_bytes(nl_dcb_msg_ets_set(buf, golden_seq(&g), "dcbt0", &ets), &g);
}

static void test_app_add_del_like_iproute2(void **state)
{
	const struct fab_dcb_app add[] = {
		{ .selector = FAB_DCB_APP_SEL_DSCP, .protocol = 26, .priority = 3 },
		{ .selector = FAB_DCB_APP_SEL_DSCP, .protocol = 46, .priority = 5 },
	};
	struct golden g;

	golden_load("dcb-app-add.hex", &g);
	assert_bytes(nl_dcb_msg_app(buf, golden_seq(&g), "dcbt0", false, add, 2), &g);
	golden_load("dcb-app-del.hex", &g);
	assert_bytes(nl_dcb_msg_app(buf, golden_seq(&g), "dcbt0", true, &add[1], 1), &g);
}

static void test_buffer_set_like_iproute2(void **state)
{
	/* dcb buffer set dev dcbt0 prio-buffer 3:1 5:1 buffer-size 0:262144 1:131072,
	 * from everything 0 and total_size 524288 (sent back as read) */
	const struct fab_dcb_buffer b = {
		.prio2buffer = { 0, 0, 0, 1, 0, 1, 0, 0 },
		.buffer_size = { 262144, 131072 },
		.total_size = 524288,
	};
	struct golden g;

	golden_load("dcb-buffer-set.hex", &g);
	assert_bytes(nl_dcb_msg_buffer_set(buf, golden_seq(&g), "dcbt0", &b), &g);
}

static void test_maxrate_set_like_iproute2(void **state)
{
	/*
	 * dcb maxrate set dev dcbt0 tc-maxrate 1:100Mbit 7:25Gbit.  iproute2
	 * 6.1 puts get_rate64()'s bytes per second into struct ieee_maxrate,
	 * whose unit is kbit/s (fixed in later iproute2: "dcb: maxrate: ...
	 * converts Bps to kbps"), so its 100Mbit is the 12500000 kbit/s below:
	 * the same bytes for the same numbers in the struct.
	 */
	uint64_t kbps[8] = { 0, 12500000, 0, 0, 0, 0, 0, 3125000000ULL };
	struct golden g;

	golden_load("dcb-maxrate-set.hex", &g);
	assert_bytes(nl_dcb_msg_maxrate_set(buf, golden_seq(&g), "dcbt0", kbps), &g);
}

static void test_get_request(void **state)
{
	struct nlmsghdr *nlh = nl_dcb_msg_get(buf, 7, "eth0");
	const struct dcbmsg *d;
	const struct nlattr *a;

	assert_non_null(nlh);
	assert_int_equal(nlh->nlmsg_type, RTM_GETDCB);
	assert_int_equal(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	assert_int_equal(nlh->nlmsg_seq, 7);
	d = mnl_nlmsg_get_payload(nlh);
	assert_int_equal(d->cmd, DCB_CMD_IEEE_GET);
	assert_int_equal(d->dcb_family, AF_UNSPEC);
	a = (const struct nlattr *)((const char *)d + MNL_ALIGN(sizeof(*d)));
	assert_int_equal(mnl_attr_get_type(a), DCB_ATTR_IFNAME);
	assert_string_equal(mnl_attr_get_str(a), "eth0");
	assert_int_equal(nlh->nlmsg_len, 16 + 4 + 4 + 8);
}

static void test_bad_ifname(void **state)
{
	struct fab_dcb_pfc pfc = { 0 };

	assert_null(nl_dcb_msg_get(buf, 1, "this-name-is-too-long"));
	assert_null(nl_dcb_msg_get(buf, 1, ""));
	assert_null(nl_dcb_msg_pfc_set(buf, 1, "0123456789abcdef", &pfc));
	assert_non_null(nl_dcb_msg_pfc_set(buf, 1, "0123456789abcde", &pfc));
}

static void test_trust_table(void **state)
{
	const uint8_t sel[] = { FAB_DCB_APP_SEL_DSCP, FAB_DCB_APP_SEL_PCP };
	struct nlmsghdr *nlh = nl_dcb_msg_trust_set(buf, 1, "swp1", sel, 2);
	const struct nlattr *a, *ieee = NULL, *table = NULL, *t;
	int n = 0;

	assert_non_null(nlh);
	mnl_attr_for_each(a, nlh, sizeof(struct dcbmsg))
		if (mnl_attr_get_type(a) == DCB_ATTR_IEEE)
			ieee = a;
	assert_non_null(ieee);
	mnl_attr_for_each_nested(a, ieee)
		if (mnl_attr_get_type(a) == NL_DCB_ATTR_APP_TRUST_TABLE)
			table = a;
	assert_non_null(table);
	mnl_attr_for_each_nested(t, table) {
		/* IEEE selectors as DCB_ATTR_IEEE_APP, PCP as DCB_ATTR_DCB_APP, u8 each */
		assert_int_equal(mnl_attr_get_payload_len(t), 1);
		assert_int_equal(mnl_attr_get_u8(t), sel[n]);
		assert_int_equal(mnl_attr_get_type(t), n == 0 ? DCB_ATTR_IEEE_APP : NL_DCB_ATTR_DCB_APP);
		n++;
	}
	assert_int_equal(n, 2);
	assert_null(nl_dcb_msg_trust_set(buf, 1, "swp1", sel, FAB_DCB_TRUST_MAX + 1));
}

static void test_parse_kernel_reply(void **state)
{
	struct fab_dcb dcb;
	struct golden g;

	golden_load("dcb-get-reply.hex", &g);
	fab_dcb_init(&dcb);
	assert_int_equal(nl_dcb_reply_parse((const void *)g.b, g.len, &dcb), 0);
	assert_string_equal(dcb.ifname, "dcbt0");
	assert_true(dcb.pfc_supported);
	assert_int_equal(dcb.pfc.pfc_cap, 8);
	assert_int_equal(dcb.pfc.pfc_en, 0x28);
	assert_true(dcb.ets_supported);
	assert_int_equal(dcb.ets.ets_cap, 8);
	assert_int_equal(dcb.ets.tc_tx_bw_pct[0], 60);
	assert_int_equal(dcb.ets.tc_tx_bw_pct[1], 40);
	assert_int_equal(dcb.ets.tc_tx_bw_pct[2], 0);
	assert_int_equal(dcb.ets.tc_tsa[0], FAB_DCB_TSA_ETS);
	assert_int_equal(dcb.ets.tc_tsa[1], FAB_DCB_TSA_ETS);
	assert_int_equal(dcb.ets.tc_tsa[2], FAB_DCB_TSA_STRICT);
	assert_int_equal(dcb.ets.prio_tc[3], 1);
	assert_int_equal(dcb.ets.prio_tc[5], 1);
	assert_int_equal(dcb.ets.prio_tc[4], 0);
	assert_true(dcb.app_supported);
	assert_int_equal(dcb.n_apps, 1);
	assert_int_equal(dcb.apps[0].selector, FAB_DCB_APP_SEL_DSCP);
	assert_int_equal(dcb.apps[0].protocol, 26);
	assert_int_equal(dcb.apps[0].priority, 3);
	/* Linux 6.1 has no DCB_ATTR_DCB_APP_TRUST_TABLE. */
	assert_false(dcb.trust_supported);
	assert_true(dcb.dcbx_supported);
	assert_int_equal(dcb.dcbx, FAB_DCBX_HOST | FAB_DCBX_VER_IEEE);
	/* dcbtest answers max rates and buffers too (untouched: zeros, 512 KiB of memory). */
	assert_true(dcb.maxrate_supported);
	assert_int_equal(dcb.tc_maxrate_kbps[7], 0);
	assert_true(dcb.buffer_supported);
	assert_int_equal(dcb.buffer.total_size, 524288);
	assert_int_equal(dcb.buffer.buffer_size[0], 0);
	fab_dcb_fini(&dcb);
}

static void test_parse_truncated(void **state)
{
	struct fab_dcb dcb;
	struct golden g;

	golden_load("dcb-get-reply.hex", &g);
	/* Shorter than nlmsg_len says. */
	fab_dcb_init(&dcb);
	assert_int_equal(nl_dcb_reply_parse((const void *)g.b, g.len - 1, &dcb), -EBADMSG);
	fab_dcb_fini(&dcb);
	/* The ETS attribute shrunk to 8 bytes of payload: malformed, not a short copy. */
	assert_int_equal(g.b[36], 0x3f);
	g.b[36] = 12;
	fab_dcb_init(&dcb);
	assert_int_equal(nl_dcb_reply_parse((const void *)g.b, g.len, &dcb), -EBADMSG);
	fab_dcb_fini(&dcb);
	/* Not a GET reply at all. */
	golden_load("dcb-pfc-set.hex", &g);
	fab_dcb_init(&dcb);
	assert_int_equal(nl_dcb_reply_parse((const void *)g.b, g.len, &dcb), -EBADMSG);
	fab_dcb_fini(&dcb);
}

/* A DCB_CMD_IEEE_SET reply carrying the driver's error as u8. */
static struct nlmsghdr *set_reply(uint8_t cmd, int error)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct dcbmsg *d;

	nlh->nlmsg_type = RTM_SETDCB;
	d = mnl_nlmsg_put_extra_header(nlh, sizeof(*d));
	d->cmd = cmd;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "dcbt0");
	mnl_attr_put_u8(nlh, DCB_ATTR_IEEE, (uint8_t)error);
	return nlh;
}

static void test_set_reply_error(void **state)
{
	struct nlmsghdr *nlh;
	int error = 1;

	nlh = set_reply(DCB_CMD_IEEE_SET, -EINVAL);
	assert_int_equal(nl_dcb_set_reply_parse(nlh, nlh->nlmsg_len, &error), 0);
	assert_int_equal(error, -EINVAL);
	nlh = set_reply(DCB_CMD_IEEE_DEL, -ENOENT);
	assert_int_equal(nl_dcb_set_reply_parse(nlh, nlh->nlmsg_len, &error), 0);
	assert_int_equal(error, -ENOENT);
	nlh = set_reply(DCB_CMD_IEEE_SET, 0);
	assert_int_equal(nl_dcb_set_reply_parse(nlh, nlh->nlmsg_len, &error), 0);
	assert_int_equal(error, 0);
	nlh = set_reply(DCB_CMD_IEEE_GET, 0);
	assert_int_equal(nl_dcb_set_reply_parse(nlh, nlh->nlmsg_len, &error), -EBADMSG);
}

/* NLMSG_ERROR for @req, capped or not, with an extack message when @msg. */
static struct nlmsghdr *err_msg(const struct nlmsghdr *req, int error, bool capped,
				const char *msg)
{
	static char ebuf[NL_BUF_SIZE] __attribute__((aligned(8)));
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(ebuf);
	struct nlmsgerr *e;
	size_t echo = capped ? sizeof(*req) : req->nlmsg_len;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = (capped ? NLM_F_CAPPED : 0) | (msg ? NLM_F_ACK_TLVS : 0);
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(e->error) + MNL_ALIGN(echo));
	e->error = error;
	memcpy(&e->msg, req, echo);
	if (msg) {
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_OFFS + 10, "ignored");
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	}
	return nlh;
}

static void test_extack(void **state)
{
	struct nlmsghdr *req = nl_dcb_msg_get(buf, 3, "veth0"), *nlh;
	char msg[128];
	int error = 0;

	nlh = err_msg(req, -EOPNOTSUPP, true, "Unknown device type");
	assert_int_equal(nl_err_parse(nlh, nlh->nlmsg_len, &error, msg, sizeof(msg)), 0);
	assert_int_equal(error, -EOPNOTSUPP);
	assert_string_equal(msg, "Unknown device type");

	nlh = err_msg(req, -EINVAL, false, "mtu greater than device maximum");
	assert_int_equal(nl_err_parse(nlh, nlh->nlmsg_len, &error, msg, sizeof(msg)), 0);
	assert_int_equal(error, -EINVAL);
	assert_string_equal(msg, "mtu greater than device maximum");

	/* A plain ack: error 0, no text. */
	nlh = err_msg(req, 0, true, NULL);
	assert_int_equal(nl_err_parse(nlh, nlh->nlmsg_len, &error, msg, sizeof(msg)), 0);
	assert_int_equal(error, 0);
	assert_string_equal(msg, "");

	/* Truncated: the echoed request claims more than there is. */
	nlh = err_msg(req, -EINVAL, false, "x");
	((struct nlmsgerr *)mnl_nlmsg_get_payload(nlh))->msg.nlmsg_len = 4000;
	assert_int_equal(nl_err_parse(nlh, nlh->nlmsg_len, &error, msg, sizeof(msg)), -EBADMSG);
	nlh->nlmsg_len = 10;
	assert_int_equal(nl_err_parse(nlh, 10, &error, msg, sizeof(msg)), -EBADMSG);
}

static void test_strerror(void **state)
{
	char b[128];

	assert_string_equal(nl_strerror(-EINVAL, "", b, sizeof(b)), "Invalid argument");
	assert_string_equal(nl_strerror(-EINVAL, "bad mtu", b, sizeof(b)),
			    "Invalid argument (bad mtu)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pfc_set_like_iproute2),
		cmocka_unit_test(test_ets_set_like_iproute2),
		cmocka_unit_test(test_app_add_del_like_iproute2),
		cmocka_unit_test(test_buffer_set_like_iproute2),
		cmocka_unit_test(test_maxrate_set_like_iproute2),
		cmocka_unit_test(test_get_request),
		cmocka_unit_test(test_bad_ifname),
		cmocka_unit_test(test_trust_table),
		cmocka_unit_test(test_parse_kernel_reply),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_set_reply_error),
		cmocka_unit_test(test_extack),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests_name("nl_dcb", tests, NULL, NULL);
}
