// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/transport/verbs_gid.c: the RoCE v2 GID chosen by address from a
 * fake sysfs tree laid out like rxe's (link-local GIDs at 0/1, the IPv4
 * GID as RoCE v1 and v2 after them), including a renumbered table as after
 * a bond failover; and the verbs endpoint's JSON form.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "transport/verbs_gid.h"
/*
 * The transport's own file, for its static helpers and because nothing
 * would pull verbs.o out of libfab.a: transport.h only references
 * transport_verbs_ops weakly.
 */
#include "transport/verbs.c"
#include "util/array.h"

static char root[200];

static void put(const char *rel, const char *content)
{
	char path[PATH_MAX * 2], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static void gid(const char *dev, unsigned int idx, const char *g, const char *type)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/ports/1/gids/%u", dev, idx);
	put(rel, g);
	if (type) {
		snprintf(rel, sizeof(rel), "%s/ports/1/gid_attrs/types/%u", dev, idx);
		put(rel, type);
	}
}

static int fixture(void **state)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	snprintf(root, sizeof(root), "%s/test_verbs_gid.XXXXXX", tmp);
	assert_non_null(mkdtemp(root));
	/* rxe0 as the kernel shows it: fe80 v1/v2, IPv4 v1 at 2, v2 at 3. */
	gid("rxe0", 0, "fe80:0000:0000:0000:5054:00ff:fe12:3456\n", "IB/RoCE v1\n");
	gid("rxe0", 1, "fe80:0000:0000:0000:5054:00ff:fe12:3456\n", "RoCE v2\n");
	gid("rxe0", 2, "0000:0000:0000:0000:0000:ffff:c0a8:4d01\n", "IB/RoCE v1\n");
	gid("rxe0", 3, "0000:0000:0000:0000:0000:ffff:c0a8:4d01\n", "RoCE v2\n");
	gid("rxe0", 4, "0000:0000:0000:0000:0000:0000:0000:0000\n", NULL);	/* unused */
	gid("rxe0", 5, "fd00:0000:0000:0000:0000:0000:0000:0007\n", "IB/RoCE v1\n");
	gid("rxe0", 6, "fd00:0000:0000:0000:0000:0000:0000:0007\n", "RoCE v2\n");
	/* A second IPv4 address whose only entry is RoCE v1. */
	gid("rxe0", 7, "0000:0000:0000:0000:0000:ffff:0a00:0001\n", "IB/RoCE v1\n");
	put("rxe0/ports/1/gids/README", "not an index\n");
	/* rxe1 after a failover: the IPv4 GID moved to 9 (v2) and 12 (v2 again). */
	gid("rxe1", 0, "fe80:0000:0000:0000:5054:00ff:fe12:3457\n", "IB/RoCE v1\n");
	gid("rxe1", 1, "fe80:0000:0000:0000:5054:00ff:fe12:3457\n", "RoCE v2\n");
	gid("rxe1", 12, "0000:0000:0000:0000:0000:ffff:c0a8:4d02\n", "RoCE v2\n");
	gid("rxe1", 8, "0000:0000:0000:0000:0000:ffff:c0a8:4d02\n", "IB/RoCE v1\n");
	gid("rxe1", 9, "0000:0000:0000:0000:0000:ffff:c0a8:4d02\n", "RoCE v2\n");
	/* A v2-matching GID without a readable type: skipped. */
	gid("rxe1", 2, "0000:0000:0000:0000:0000:ffff:c0a8:4d09\n", NULL);
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_from_addr(void **state)
{
	uint8_t g[16];
	const uint8_t v4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 77, 1 };
	const uint8_t v6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7 };

	assert_int_equal(verbs_gid_from_addr("192.168.77.1", g), 0);
	assert_memory_equal(g, v4, 16);
	assert_int_equal(verbs_gid_from_addr("fd00::7", g), 0);
	assert_memory_equal(g, v6, 16);
	assert_int_equal(verbs_gid_from_addr("192.168.77", g), -EINVAL);
	assert_int_equal(verbs_gid_from_addr("", g), -EINVAL);
	assert_int_equal(verbs_gid_from_addr(NULL, g), -EINVAL);
}

static void test_ipv4_v2(void **state)
{
	struct fab_err err;
	unsigned int idx = 99;
	uint8_t g[16], want[16];

	fab_err_init(&err);
	assert_int_equal(verbs_gid_find(root, "rxe0", 1, "192.168.77.1", &idx, g, &err), 0);
	assert_int_equal(idx, 3);	/* the v2 entry, not the v1 one at 2 */
	verbs_gid_from_addr("192.168.77.1", want);
	assert_memory_equal(g, want, 16);
}

static void test_ipv6_v2(void **state)
{
	struct fab_err err;
	unsigned int idx = 99;
	uint8_t g[16];

	fab_err_init(&err);
	assert_int_equal(verbs_gid_find(root, "rxe0", 1, "fd00::7", &idx, g, &err), 0);
	assert_int_equal(idx, 6);
}

static void test_renumbered_lowest(void **state)
{
	char path[400];
	struct fab_err err;
	unsigned int idx = 99;
	uint8_t g[16];

	fab_err_init(&err);
	assert_int_equal(verbs_gid_find(root, "rxe1", 1, "192.168.77.2", &idx, g, &err), 0);
	assert_int_equal(idx, 9);	/* lowest v2 match; 8 is v1, 12 also v2 */
	/* The table changes (failover): the next lookup follows it. */
	gid("rxe1", 9, "0000:0000:0000:0000:0000:0000:0000:0000\n", NULL);
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/rxe1/ports/1/gid_attrs/types/9", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(verbs_gid_find(root, "rxe1", 1, "192.168.77.2", &idx, g, &err), 0);
	assert_int_equal(idx, 12);
}

static void test_only_v1(void **state)
{
	struct fab_err err;
	unsigned int idx = 99;
	uint8_t g[16];

	fab_err_init(&err);
	assert_int_equal(verbs_gid_find(root, "rxe0", 1, "10.0.0.1", &idx, g, &err), -ENOENT);
	assert_int_equal(idx, 99);
	assert_string_equal(err.msg, "verbs: rxe0: port 1: no RoCE v2 gid for 10.0.0.1 "
			    "(only IB/RoCE v1 at index 7)");
}

static void test_absent(void **state)
{
	struct fab_err err;
	unsigned int idx = 99;
	uint8_t g[16];

	fab_err_init(&err);
	assert_int_equal(verbs_gid_find(root, "rxe0", 1, "192.168.77.9", &idx, g, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "rxe0: port 1: no RoCE v2 gid for 192.168.77.9"));
	/* A matching GID whose type cannot be read is not taken. */
	assert_int_equal(verbs_gid_find(root, "rxe1", 1, "192.168.77.9", &idx, g, &err), -ENOENT);
	fab_err_init(&err);
	assert_int_equal(verbs_gid_find(root, "rxe9", 1, "192.168.77.1", &idx, g, &err), -ENOENT);
	assert_string_equal(err.msg, "verbs: rxe9: port 1: gid table: No such file or directory");
	assert_int_equal(verbs_gid_find(root, "rxe0", 2, "192.168.77.1", &idx, g, &err), -ENOENT);
	assert_int_equal(idx, 99);
}

static void test_bad_input(void **state)
{
	struct fab_err err;
	unsigned int idx = 99;
	uint8_t g[16];

	fab_err_init(&err);
	assert_int_equal(verbs_gid_find(root, "../rxe0", 1, "192.168.77.1", &idx, g, &err), -EINVAL);
	assert_int_equal(verbs_gid_find(root, "", 1, "192.168.77.1", &idx, g, &err), -EINVAL);
	assert_int_equal(verbs_gid_find(root, "rxe0", 1, "node07", &idx, g, &err), -EINVAL);
	assert_string_equal(err.msg, "verbs: rxe0: port 1: bad address 'node07'");
	assert_int_equal(idx, 99);
}

static struct verbs_ep sample_ep(void)
{
	struct verbs_ep ep = {
		.lid = 0, .qpn = 0x11, .psn = 0xabcdef, .gid_index = 3, .rkey = 0xfffffffe,
		.addr = 0x00007f12345678c0ull, .lat_bytes = 64, .bw_bytes = 65536,
		.mtu_bytes = 1024,
	};

	verbs_gid_from_addr("192.168.77.1", ep.gid);
	for (int i = 0; i < TP_TOKEN_LEN; i++)
		ep.token[i] = (uint8_t)(0xa0 + i);
	return ep;
}

static void test_ep_roundtrip(void **state)
{
	struct verbs_ep ep = sample_ep(), back;
	struct fab_err err;
	json_t *j = verbs_ep_to_json(&ep);

	fab_err_init(&err);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "gid")), "::ffff:192.168.77.1");
	assert_string_equal(json_string_value(json_object_get(j, "addr")), "0x00007f12345678c0");
	assert_string_equal(json_string_value(json_object_get(j, "token")),
			    "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf");
	assert_int_equal(json_integer_value(json_object_get(j, "psn")), 0xabcdef);
	assert_int_equal(json_integer_value(json_object_get(j, "rkey")), 0xfffffffe);
	assert_int_equal(verbs_ep_from_json(j, &back, &err), 0);
	assert_int_equal(back.qpn, ep.qpn);
	assert_int_equal(back.psn, ep.psn);
	assert_int_equal(back.rkey, ep.rkey);
	assert_true(back.addr == ep.addr);
	assert_int_equal(back.lat_bytes, 64);
	assert_int_equal(back.bw_bytes, 65536);
	assert_int_equal(back.mtu_bytes, 1024);
	assert_int_equal(back.gid_index, 3);
	assert_memory_equal(back.gid, ep.gid, 16);
	assert_true(tp_token_equal(back.token, ep.token));
	json_decref(j);
}

/* Each case: one key replaced by a bad value must be refused. */
static void test_ep_rejects(void **state)
{
	static const struct {
		const char *key, *json;
	} bad[] = {
		{ "qpn", "0" }, { "qpn", "16777216" }, { "psn", "-1" }, { "psn", "16777216" },
		{ "lid", "65536" }, { "rkey", "4294967296" }, { "mtu", "300" }, { "mtu", "8192" },
		{ "lat_bytes", "0" }, { "bw_bytes", "67108865" }, { "gid", "\"192.168.77.1\"" },
		{ "gid", "7" }, { "addr", "\"7f1234\"" }, { "addr", "\"0x\"" },
		{ "addr", "\"0x10000000000000000\"" }, { "addr", "\"0xzz\"" }, { "addr", "12" },
		{ "token", "\"a0a1\"" }, { "token", "\"g0a1a2a3a4a5a6a7a8a9aaabacadaeaf\"" },
		{ "qpn", "\"17\"" }, { "gid_index", "-2" },
	};
	struct verbs_ep ep = sample_ep(), back;
	struct fab_err err;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		json_t *j = verbs_ep_to_json(&ep);

		json_object_set_new(j, bad[i].key, json_loads(bad[i].json, JSON_DECODE_ANY, NULL));
		fab_err_init(&err);
		if (verbs_ep_from_json(j, &back, &err) != -EPROTO)
			fail_msg("%s=%s accepted", bad[i].key, bad[i].json);
		assert_non_null(strstr(err.msg, bad[i].key));
		json_decref(j);
	}
	/* A missing key, and not an object. */
	{
		json_t *j = verbs_ep_to_json(&ep);

		json_object_del(j, "rkey");
		assert_int_equal(verbs_ep_from_json(j, &back, &err), -EPROTO);
		assert_non_null(strstr(err.msg, "\"rkey\""));
		json_decref(j);
		j = json_array();
		assert_int_equal(verbs_ep_from_json(j, &back, &err), -EPROTO);
		json_decref(j);
		assert_int_equal(verbs_ep_from_json(NULL, &back, &err), -EPROTO);
	}
}

static void test_token(void **state)
{
	uint8_t a[TP_TOKEN_LEN], b[TP_TOKEN_LEN];
	char hex[2 * TP_TOKEN_LEN + 1];

	assert_int_equal(tp_token_parse("00112233445566778899AABBCCDDEEFF", a, true), 0);
	tp_token_hex(a, hex);
	assert_string_equal(hex, "00112233445566778899aabbccddeeff");
	memcpy(b, a, sizeof(a));
	assert_true(tp_token_equal(a, b));
	b[TP_TOKEN_LEN - 1] ^= 1;
	assert_false(tp_token_equal(a, b));
	assert_int_equal(tp_token_parse("00112233445566778899aabbccddeef", a, true), -EINVAL);
	assert_int_equal(tp_token_parse(NULL, a, true), -EINVAL);
}

/*
 * The transport itself without a usable device (this machine may have no
 * RDMA at all): every refusal names the device and port, nothing leaks
 * (ASan), and close() is NULL-safe.
 */
static void test_transport_no_device(void **state)
{
	const struct transport_ops *tp = transport_find("verbs");
	struct tp_params p = { .local_addr = "192.168.77.1", .dev = "fabtest_nodev", .dev_port = 2 };
	struct tp_session *s = NULL;
	json_t *ep = NULL;
	struct fab_err err;
	int rc;

	assert_non_null(tp);
	assert_ptr_equal(tp, &transport_verbs_ops);
	assert_string_equal(tp->name, "verbs");
	fab_err_init(&err);
	rc = tp->server_open(&p, &s, &ep, &err);
	assert_true(rc < 0);
	assert_null(s);
	assert_null(ep);
	assert_non_null(strstr(err.msg, "verbs: fabtest_nodev: port 2: "));
	p.dev = "";
	fab_err_init(&err);
	assert_int_equal(tp->server_open(&p, &s, &ep, &err), -EINVAL);
	assert_string_equal(err.msg, "verbs: 192.168.77.1: no rdma device (give rdma=DEV in the hosts file)");
	p.dev = "fabtest_nodev";
	p.dev_port = 256;
	fab_err_init(&err);
	assert_int_equal(tp->client_open(&p, NULL, &s, &ep, &err), -EINVAL);
	assert_string_equal(err.msg, "verbs: fabtest_nodev: bad port 256");
	tp->close(NULL);
}

/* Sender-side metering (tp_util.c): warm-up excluded, slowest full interval, units. */
static void test_meter(void **state)
{
	struct tp_meter m = { .interval_ns = 100000000ull, .t0 = 1000, .t_last = 1000 };
	struct sweep_bw bw = { 0 };
	uint64_t fig[5];

	/* 1 MB every 10 ms for 0.35 s, except 2 MB missing in the second interval. */
	for (int i = 1; i <= 35; i++)
		if (!(i >= 11 && i <= 12))
			assert_int_equal(tp_meter_add(&m, 1000 + (uint64_t)i * 10000000ull, 1000000), 0);
	tp_meter_figures(&m, fig);
	assert_true(fig[0] == 33000000ull);
	assert_true(fig[1] == 350000000ull);
	assert_true(fig[2] == 3);		/* full intervals */
	assert_true(fig[3] == 8000000ull);	/* the slowest: 10 - 2 MB */
	assert_true(fig[4] == 100000000ull);
	tp_bw_from_figures(&bw, fig);
	assert_true(bw.measured);
	assert_float_equal(bw.avg_mbps, 33e6 * 8 / 0.35 / 1e6, 1e-9);
	assert_float_equal(bw.min_mbps, 8e6 * 8 / 0.1 / 1e6, 1e-9);
	assert_float_equal(bw.secs, 0.35, 1e-12);
	assert_int_equal(bw.intervals, 3);
	tp_meter_fini(&m);
	assert_int_equal(mtu_enum(1024), IBV_MTU_1024);
	assert_int_equal(mtu_bytes(IBV_MTU_4096), 4096);
	assert_int_equal(wc_errno(IBV_WC_RETRY_EXC_ERR), -ETIMEDOUT);
	assert_int_equal(wc_errno(IBV_WC_REM_ACCESS_ERR), -EACCES);
	assert_int_equal(lat_warmup(100), 10);
	assert_int_equal(lat_warmup(1000000), 1000);
}

/*
 * The RoCE v2 UDP source port, against values worked out by hand from
 * include/rdma/ib_verbs.h (rdma_calc_flow_label: v = l * r, v ^= v >> 20,
 * v ^= v >> 40, 20 bits; rdma_flow_label_to_udp_sport: low 14 bits xor
 * bits 14..19, | 0xc000).
 */
static void test_udp_sport(void **state)
{
	(void)state;
	/* 17 * 18 = 306 = 0x132: no high bits to fold; 0xc000 | 0x132. */
	assert_int_equal(verbs_calc_flow_label(17, 18), 0x132);
	assert_int_equal(verbs_udp_sport(0, 17, 18), 49458);
	assert_int_equal(verbs_udp_sport(0, 18, 17), 49458);	/* symmetric: one port */
	/* 0x12345: low 0x2345, bits 14..19 = 4: 0x2345 ^ 4 = 0x2341 | 0xc000. */
	assert_int_equal(verbs_flow_label_sport(0x12345), 0xe341);
	assert_int_equal(verbs_udp_sport(0x12345, 17, 18), 0xe341);	/* a label wins */
	assert_int_equal(verbs_flow_label_sport(0xfffff), 0xffc0);	/* 0x3fff ^ 0x3f */
	assert_int_equal(verbs_flow_label_sport(1), 0xc001);
	/* 0xffffff^2 = 0xfffffe000001 folds to 0xfff1e; 0x3f1e ^ 0x3f = 0x3f21. */
	assert_int_equal(verbs_calc_flow_label(0xffffff, 0xffffff), 0xfff1e);
	assert_int_equal(verbs_udp_sport(0, 0xffffff, 0xffffff), 0xff21);
	assert_int_equal(verbs_udp_sport(0, 0x123456, 0x654321), 63367);
	/* The label for a port, and back; never 0 (the kernel's "none"). */
	assert_int_equal(verbs_sport_flow_label(0xc000), 0x4001);
	assert_int_equal(verbs_flow_label_sport(0x4001), 0xc000);
	assert_int_equal(verbs_sport_flow_label(0xc001), 1);
	assert_int_equal(verbs_sport_flow_label(0xffff), 0x3fff);
	for (unsigned int sp = 0xc000; sp <= 0xffff; sp++) {
		uint32_t fl = verbs_sport_flow_label(sp);

		assert_true(fl && fl <= 0xfffff);
		assert_int_equal(verbs_flow_label_sport(fl), sp);
	}
	assert_int_equal(verbs_sport_flow_label(0), 0);
	assert_int_equal(verbs_sport_flow_label(0xbfff), 0);
	assert_int_equal(verbs_sport_flow_label(0x10000), 0);
}

/*
 * What the transport records as each direction's UDP source port: only on
 * RoCE v2 (an Ethernet port whose GID in use is RoCE v1 has no UDP, nor
 * has InfiniBand); the client's from its own label, the server's from the
 * label the plan's sport_rev gives it.  And the GID re-check at connect:
 * the same GID bytes at an index that is now RoCE v1 are refused.
 */
static void test_sports_recorded(void **state)
{
	struct tp_session s = { .ethernet = true, .roce_v2 = false };
	struct tp_result r = { 0 };
	uint8_t g[16], other[16];
	struct fab_err err;

	(void)state;
	s.me.qpn = 17;
	s.peer.qpn = 18;
	session_sports(&s, &r);		/* RoCE v1 */
	assert_int_equal(r.sport_fwd, 0);
	assert_int_equal(r.sport_rev, 0);
	s.ethernet = false;		/* InfiniBand */
	session_sports(&s, &r);
	assert_int_equal(r.sport_fwd, 0);
	s.ethernet = s.roce_v2 = true;	/* no plan: the symmetric port both ways */
	session_sports(&s, &r);
	assert_int_equal(r.sport_fwd, 49458);
	assert_int_equal(r.sport_rev, 49458);
	s.p.spec.sport_fwd = 0xc123;	/* steered: each QP its planned port */
	s.p.spec.sport_rev = 0xd456;
	s.flow_label = verbs_sport_flow_label(s.p.spec.sport_fwd);
	session_sports(&s, &r);
	assert_int_equal(r.sport_fwd, 0xc123);
	assert_int_equal(r.sport_rev, 0xd456);

	assert_int_equal(verbs_gid_from_addr("192.168.77.1", g), 0);
	assert_int_equal(verbs_gid_from_addr("192.168.77.2", other), 0);
	fab_err_init(&err);
	assert_int_equal(verbs_gid_recheck("rxe0", 1, 3, g, g, true, "192.168.77.1", &err), 0);
	assert_int_equal(verbs_gid_recheck("rxe0", 1, 3, g, g, false, "192.168.77.1", &err),
			 -EAGAIN);
	assert_string_equal(err.msg, "verbs: rxe0: port 1: gid 3 of 192.168.77.1 is no longer RoCE "
			    "v2 (the table changed while resolving it)");
	fab_err_init(&err);
	assert_int_equal(verbs_gid_recheck("rxe0", 1, 3, g, other, true, "192.168.77.1", &err),
			 -EAGAIN);
	assert_string_equal(err.msg, "verbs: rxe0: port 1: gid 3 changed while resolving "
			    "192.168.77.1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_addr),
		cmocka_unit_test(test_ipv4_v2),
		cmocka_unit_test(test_ipv6_v2),
		cmocka_unit_test(test_renumbered_lowest),
		cmocka_unit_test(test_only_v1),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_ep_roundtrip),
		cmocka_unit_test(test_ep_rejects),
		cmocka_unit_test(test_token),
		cmocka_unit_test(test_transport_no_device),
		cmocka_unit_test(test_meter),
		cmocka_unit_test(test_udp_sport),
		cmocka_unit_test(test_sports_recorded),
	};

	return cmocka_run_group_tests(tests, fixture, teardown);
}
