// SPDX-License-Identifier: GPL-2.0-or-later
/* Worker protocol: strict parsing, framing, wire forms round trip. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fleet/proto.h"

static int parse(const char *s, struct proto_msg *m, struct fab_err *err)
{
	fab_err_init(err);
	return proto_parse(s, strlen(s), m, err);
}

static void test_kinds(void **state)
{
	struct proto_msg m;
	struct fab_err err;

	assert_int_equal(parse("{\"v\":1,\"id\":7,\"op\":\"listen\",\"x\":1}", &m, &err), 0);
	assert_int_equal(m.kind, PROTO_REQUEST);
	assert_int_equal(m.id, 7);
	assert_string_equal(m.op, "listen");
	proto_msg_fini(&m);
	assert_int_equal(parse("{\"v\":1,\"id\":3,\"event\":\"ready\",\"endpoint\":{}}", &m, &err), 0);
	assert_int_equal(m.kind, PROTO_EVENT);
	assert_string_equal(m.event, "ready");
	proto_msg_fini(&m);
	assert_int_equal(parse("{\"v\":1,\"id\":3,\"ok\":true,\"result\":{\"a\":1}}", &m, &err), 0);
	assert_int_equal(m.kind, PROTO_REPLY);
	assert_true(m.ok);
	assert_int_equal(json_integer_value(json_object_get(m.result, "a")), 1);
	proto_msg_fini(&m);
	assert_int_equal(parse("{\"v\":1,\"id\":3,\"ok\":false,\"error\":\"tcp: bind\"}", &m, &err), 0);
	assert_false(m.ok);
	assert_string_equal(m.error, "tcp: bind");
	proto_msg_fini(&m);
}

static void expect_bad(const char *s, const char *msg_part)
{
	struct proto_msg m;
	struct fab_err err;

	assert_int_equal(parse(s, &m, &err), s[0] == '{' || s[0] == '[' || s[0] == '"' ? -EPROTO : -EPROTO);
	assert_non_null(strstr(err.msg, msg_part));
	assert_null(m.doc);
}

static void test_garbage(void **state)
{
	expect_bad("hello world", "not JSON");
	expect_bad("", "not JSON");
	expect_bad("[1,2]", "not a JSON object");
	expect_bad("{\"id\":1,\"op\":\"x\"}", "\"v\":1");
	expect_bad("{\"v\":2,\"id\":1,\"op\":\"x\"}", "\"v\":1");
	expect_bad("{\"v\":1,\"op\":\"x\"}", "\"id\"");
	expect_bad("{\"v\":1,\"id\":-1,\"op\":\"x\"}", "\"id\"");
	expect_bad("{\"v\":1,\"id\":\"1\",\"op\":\"x\"}", "\"id\"");
	expect_bad("{\"v\":1,\"id\":1}", "exactly one");
	expect_bad("{\"v\":1,\"id\":1,\"op\":\"x\",\"ok\":true}", "exactly one");
	expect_bad("{\"v\":1,\"id\":1,\"op\":5}", "\"op\"");
	expect_bad("{\"v\":1,\"id\":1,\"op\":\"\"}", "\"op\"");
	expect_bad("{\"v\":1,\"id\":1,\"ok\":1}", "\"ok\"");
	expect_bad("{\"v\":1,\"id\":1,\"ok\":false}", "\"error\"");
	expect_bad("{\"v\":1,\"v\":1,\"id\":1,\"op\":\"x\"}", "not JSON");	/* duplicate key */
	expect_bad("{\"v\":1,\"id\":1,\"op\":\"x\"} {}", "not JSON");	/* trailing data */
}

static void test_reader_framing(void **state)
{
	struct proto_reader r;
	int fds[2];
	char *line;
	size_t len;

	assert_int_equal(pipe(fds), 0);
	proto_reader_init(&r);
	assert_int_equal(write(fds[1], "one\ntw", 6), 6);
	assert_int_equal(proto_reader_fill(&r, fds[0]), 0);
	assert_int_equal(proto_reader_line(&r, &line, &len), 1);
	assert_string_equal(line, "one");
	assert_int_equal(len, 3);
	free(line);
	assert_int_equal(proto_reader_line(&r, &line, &len), 0);
	assert_int_equal(write(fds[1], "o\n", 2), 2);
	close(fds[1]);
	assert_int_equal(proto_reader_fill(&r, fds[0]), 0);
	assert_int_equal(proto_reader_line(&r, &line, &len), 1);
	assert_string_equal(line, "two");
	free(line);
	assert_int_equal(proto_reader_fill(&r, fds[0]), 0);
	assert_true(r.eof);
	close(fds[0]);
	proto_reader_fini(&r);
}

/* A last line without its newline is still a line, once EOF is seen. */
static void test_reader_last_line_at_eof(void **state)
{
	struct proto_reader r;
	char *junk = malloc(FAB_PROTO_LINE_MAX + 10);
	int fds[2], rc;
	char *line;
	size_t len;

	assert_non_null(junk);
	assert_int_equal(pipe(fds), 0);
	proto_reader_init(&r);
	assert_int_equal(write(fds[1], "one\nlast", 8), 8);
	close(fds[1]);
	assert_int_equal(proto_reader_fill(&r, fds[0]), 0);
	assert_int_equal(proto_reader_line(&r, &line, &len), 1);
	assert_string_equal(line, "one");
	free(line);
	assert_int_equal(proto_reader_line(&r, &line, &len), 0);	/* more may come */
	assert_int_equal(proto_reader_fill(&r, fds[0]), 0);
	assert_true(r.eof);
	assert_int_equal(proto_reader_line(&r, &line, &len), 1);
	assert_string_equal(line, "last");
	assert_int_equal(len, 4);
	free(line);
	assert_int_equal(proto_reader_line(&r, &line, &len), 0);
	close(fds[0]);
	proto_reader_fini(&r);

	/* An over-long last line is thrown away, not handed out at EOF. */
	memset(junk, 'a', FAB_PROTO_LINE_MAX + 10);
	assert_int_equal(pipe(fds), 0);
	proto_reader_init(&r);
	if (fork() == 0) {
		close(fds[0]);
		_exit(write(fds[1], junk, FAB_PROTO_LINE_MAX + 10) == FAB_PROTO_LINE_MAX + 10 ? 0 : 1);
	}
	close(fds[1]);
	do
		rc = proto_reader_fill(&r, fds[0]);
	while (!r.eof && (rc == 0 || rc == -EMSGSIZE));
	assert_true(r.eof);
	assert_int_equal(proto_reader_line(&r, &line, &len), 0);
	wait(NULL);
	close(fds[0]);
	proto_reader_fini(&r);
	free(junk);
}

static void test_reader_limit(void **state)
{
	struct proto_reader r;
	char *junk = malloc(65536);
	int fds[2], rc = 0;
	size_t total = 0;

	assert_non_null(junk);
	memset(junk, 'x', 65536);
	assert_int_equal(pipe(fds), 0);
	proto_reader_init(&r);
	/* A line without end: refused once it passes the limit. */
	while (total <= FAB_PROTO_LINE_MAX + 65536 && rc == 0) {
		assert_int_equal(write(fds[1], junk, 65536), 65536);
		while (rc == 0 && r.len + 65536 > total + 0 && r.len < total + 65536) {
			rc = proto_reader_fill(&r, fds[0]);
			if (r.len == total + 65536)
				break;
		}
		total += 65536;
	}
	assert_int_equal(rc, -EMSGSIZE);
	assert_true(total <= FAB_PROTO_LINE_MAX + 65536);
	close(fds[0]);
	close(fds[1]);
	proto_reader_fini(&r);
	free(junk);
}

/* Feed @len bytes of 'x' into @fd in pieces, filling @r as it goes; the fill codes seen. */
static void feed_junk(struct proto_reader *r, int fd_w, int fd_r, size_t len, int *n_msgsize)
{
	static char junk[32768];

	memset(junk, 'x', sizeof(junk));
	while (len) {
		size_t n = len < sizeof(junk) ? len : sizeof(junk);

		assert_int_equal(write(fd_w, junk, n), (ssize_t)n);
		len -= n;
		while (!r->eof) {
			int rc = proto_reader_fill(r, fd_r);

			if (rc == -EMSGSIZE)
				(*n_msgsize)++;
			else if (rc == -EAGAIN)
				break;
			else
				assert_int_equal(rc, 0);
		}
	}
}

/* An over-long line is reported once, skipped to its newline, and reading goes on. */
static void test_reader_skips_long_line(void **state)
{
	struct proto_reader r;
	int fds[2], n_msgsize = 0;
	char *line;
	size_t len;

	assert_int_equal(pipe2(fds, O_NONBLOCK), 0);
	proto_reader_init(&r);
	assert_int_equal(write(fds[1], "first\n", 6), 6);
	feed_junk(&r, fds[1], fds[0], 3 * FAB_PROTO_LINE_MAX, &n_msgsize);
	assert_int_equal(n_msgsize, 1);
	assert_true(r.len < FAB_PROTO_LINE_MAX);
	/* The complete line before the junk is kept. */
	assert_int_equal(proto_reader_line(&r, &line, &len), 1);
	assert_string_equal(line, "first");
	free(line);
	assert_int_equal(proto_reader_line(&r, &line, &len), 0);
	assert_int_equal(write(fds[1], "xx\nnext\n", 8), 8);
	assert_int_equal(proto_reader_fill(&r, fds[0]), 0);
	assert_int_equal(proto_reader_line(&r, &line, &len), 1);
	assert_string_equal(line, "next");
	free(line);
	assert_int_equal(proto_reader_line(&r, &line, &len), 0);
	close(fds[1]);
	assert_int_equal(proto_reader_fill(&r, fds[0]), 0);
	assert_true(r.eof);
	close(fds[0]);
	proto_reader_fini(&r);
}

static void test_str_clean(void **state)
{
	char out[64];

	assert_int_equal(proto_str_clean("plain é", 8, out, sizeof(out)), 8);
	assert_string_equal(out, "plain é");
	assert_int_equal(proto_str_clean("a\x1b[2J\a\x7f\xc2\x9b.", 10, out, sizeof(out)), 25);
	assert_string_equal(out, "a\\x1b[2J\\x07\\x7f\\xc2\\x9b.");
	/* Truncated at a whole escape, always terminated. */
	proto_str_clean("ab\x1b", 3, out, 5);
	assert_string_equal(out, "ab");
	assert_int_equal(proto_str_clean("\n", 1, NULL, 0), 4);
}

static void test_msg_clean(void **state)
{
	const char *line = "{\"v\":1,\"id\":2,\"ok\":false,\"error\":\"bad \\u001b[31m\","
			   "\"x\":{\"k\\u0007\":[\"\\u009b1m\"]}}";
	struct fab_err err;
	struct proto_msg m;
	char *dump;

	fab_err_init(&err);
	assert_int_equal(proto_parse(line, strlen(line), &m, &err), 0);
	assert_int_equal(proto_msg_clean(&m), 0);
	assert_string_equal(m.error, "bad \\x1b[31m");
	dump = json_dumps(json_object_get(m.doc, "x"), JSON_COMPACT);
	assert_string_equal(dump, "{\"k\\\\x07\":[\"\\\\xc2\\\\x9b1m\"]}");
	free(dump);
	proto_msg_fini(&m);
}

static void test_format_adds_version(void **state)
{
	struct proto_msg m;
	struct fab_err err;
	size_t len;
	char *line = proto_format(json_pack("{s:s, s:i}", "op", "hello", "id", 4), &len);

	assert_non_null(line);
	assert_int_equal(line[len - 1], '\n');
	assert_int_equal(strlen(line), len);
	assert_int_equal(proto_parse(line, len - 1, &m, &err), 0);
	assert_string_equal(m.op, "hello");
	assert_int_equal(m.id, 4);
	proto_msg_fini(&m);
	free(line);
}

static void test_plan_result_token(void **state)
{
	struct tp_spec p = { .lat_iters = 1000, .msg_bytes = 64, .duration_ms = 1500,
			     .interval_ms = 100, .streams = 4, .bw_fwd = true, .bw_rev = false,
			     .timeout_ms = 9000 }, q;
	struct tp_result r = { 0 }, s;
	uint8_t tok[TP_TOKEN_LEN], tok2[TP_TOKEN_LEN];
	char hex[2 * TP_TOKEN_LEN + 1];
	struct fab_err err;
	json_t *j;

	j = proto_spec_to_json(&p);
	assert_int_equal(proto_spec_from_json(j, &q, &err), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	json_object_set_new(j, "streams", json_integer(65));
	assert_true(proto_spec_from_json(j, &q, &err) < 0);
	assert_non_null(strstr(err.msg, "streams"));
	json_decref(j);
	/* verbs tuning: carried, optional (absent from an older controller: the defaults). */
	p.verbs = (struct tp_verbs_tuning){ .bw_bytes = 1048576, .tx_depth = 64, .cq_mod = 8,
					    .spin_us = 0 };
	j = proto_spec_to_json(&p);
	assert_int_equal(proto_spec_from_json(j, &q, &err), 0);
	assert_memory_equal(&p.verbs, &q.verbs, sizeof(p.verbs));
	json_object_del(j, "verbs");
	assert_int_equal(proto_spec_from_json(j, &q, &err), 0);
	assert_int_equal(q.verbs.bw_bytes, 65536);
	assert_int_equal(q.verbs.tx_depth, 128);
	assert_int_equal(q.verbs.cq_mod, 32);
	assert_int_equal(q.verbs.spin_us, 20);
	json_object_set_new(j, "verbs", json_pack("{s:i, s:i, s:i, s:i}", "bw_bytes", 1,
						  "tx_depth", 8193, "cq_mod", 1, "spin_us", 0));
	assert_true(proto_spec_from_json(j, &q, &err) < 0);
	assert_non_null(strstr(err.msg, "tx_depth"));
	json_decref(j);
	p.verbs = (struct tp_verbs_tuning){ 0 };
	/* lat_ms: carried, optional (absent from an older controller: 0), bounded. */
	p.lat_ms = 250;
	j = proto_spec_to_json(&p);
	assert_int_equal(json_integer_value(json_object_get(j, "lat_ms")), 250);
	assert_int_equal(proto_spec_from_json(j, &q, &err), 0);
	assert_int_equal(q.lat_ms, 250);
	json_object_del(j, "lat_ms");
	assert_int_equal(proto_spec_from_json(j, &q, &err), 0);
	assert_int_equal(q.lat_ms, 0);
	assert_int_equal(q.lat_iters, 1000);
	json_object_set_new(j, "lat_ms", json_string("soon"));
	assert_true(proto_spec_from_json(j, &q, &err) < 0);
	assert_non_null(strstr(err.msg, "lat_ms"));
	json_decref(j);
	/* Steered ports: on the wire only when set, optional, bounded. */
	p.lat_ms = 0;
	j = proto_spec_to_json(&p);
	assert_null(json_object_get(j, "port"));
	assert_null(json_object_get(j, "sport_fwd"));
	assert_null(json_object_get(j, "sport_rev"));
	json_decref(j);
	p.port = 5301;
	p.sport_fwd = 49152;
	p.sport_rev = 49160;
	j = proto_spec_to_json(&p);
	assert_int_equal(json_integer_value(json_object_get(j, "sport_fwd")), 49152);
	assert_int_equal(proto_spec_from_json(j, &q, &err), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	json_object_set_new(j, "sport_rev", json_integer(65536));
	assert_true(proto_spec_from_json(j, &q, &err) < 0);
	assert_non_null(strstr(err.msg, "sport_rev"));
	json_decref(j);
	p.port = p.sport_fwd = p.sport_rev = 0;

	r.have_lat = true;
	r.lat_ns = (struct stats_summary){ .n = 10, .min = 1, .p50 = 2, .p99 = 3, .p999 = 4,
					   .max = 5, .mean = 2.5 };
	r.fwd = (struct sweep_bw){ .measured = true, .avg_mbps = 9000, .min_mbps = 8000,
				   .bytes = 123456789, .secs = 1.5, .intervals = 15 };
	j = proto_result_to_json(&r);
	assert_int_equal(proto_result_from_json(j, &s, &err), 0);
	assert_true(s.have_lat);
	assert_true(s.lat_ns.p999 == 4 && s.lat_ns.n == 10);
	assert_true(s.fwd.measured && s.fwd.avg_mbps == 9000 && s.fwd.bytes == 123456789);
	assert_int_equal(s.fwd.intervals, 15);
	assert_false(s.rev.measured);
	assert_null(json_object_get(j, "udp_sport"));	/* tcp: absent */
	assert_int_equal(s.sport_fwd, 0);
	json_decref(j);
	r.sport_fwd = 49458;
	r.sport_rev = 0xe341;
	j = proto_result_to_json(&r);
	assert_int_equal(proto_result_from_json(j, &s, &err), 0);
	assert_int_equal(s.sport_fwd, 49458);
	assert_int_equal(s.sport_rev, 0xe341);
	json_object_set_new(json_object_get(j, "udp_sport"), "rev", json_integer(65536));
	assert_true(proto_result_from_json(j, &s, &err) < 0);
	assert_string_equal(err.msg, "protocol: bad \"udp_sport\" in result");
	json_object_set_new(j, "udp_sport", json_pack("{s:i, s:i}", "fwd", 49458, "rev", 1));
	json_object_set_new(j, "fwd", json_string("fast"));
	assert_true(proto_result_from_json(j, &s, &err) < 0);
	json_decref(j);

	for (int i = 0; i < TP_TOKEN_LEN; i++)
		tok[i] = (uint8_t)(i * 17 + 3);
	tp_token_hex(tok, hex);
	assert_int_equal(strlen(hex), 32);
	assert_int_equal(tp_token_parse(hex, tok2, false), 0);
	assert_memory_equal(tok, tok2, TP_TOKEN_LEN);
	hex[5] = 'G';
	assert_int_equal(tp_token_parse(hex, tok2, false), -EINVAL);
	assert_int_equal(tp_token_parse("00", tok2, false), -EINVAL);
	assert_int_equal(tp_token_parse(NULL, tok2, false), -EINVAL);
}

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden"
#endif

/* @doc must not decode, the message naming @part. */
static void status_bad(json_t *doc, const char *part)
{
	struct host_state hs;
	struct fab_err err;

	host_state_init(&hs);
	fab_err_init(&err);
	assert_int_equal(proto_status_from_json(doc, &hs, &err), -EPROTO);
	if (!strstr(err.msg, part))
		fail_msg("'%s' does not name '%s'", err.msg, part);
	host_state_fini(&hs);
}

/* The status reply decoded: the golden document, every field the decoder reads; then damage. */
static void test_status_from_json(void **state)
{
	struct host_state hs;
	struct fab_err err;
	json_error_t je;
	json_t *doc = json_load_file(GOLDEN_DIR "/status.json", 0, &je), *l, *p;

	(void)state;
	assert_non_null(doc);
	host_state_init(&hs);
	fab_err_init(&err);
	if (proto_status_from_json(doc, &hs, &err) < 0)
		fail_msg("%s", err.msg);
	assert_string_equal(hs.hostname, "node07");
	assert_int_equal(hs.n_links, 1);
	assert_string_equal(hs.links[0].name, "eth0");
	assert_int_equal(hs.links[0].ifindex, 2);
	assert_string_equal(hs.links[0].kind, "veth");
	assert_string_equal(hs.links[0].operstate, "up");
	assert_true(hs.links[0].admin_up);
	assert_int_equal(hs.links[0].mtu, 9000);
	assert_int_equal(hs.links[0].speed_mbps, 10000);
	assert_string_equal(hs.links[0].master, "bond0");
	assert_int_equal(hs.n_rdma, 1);
	assert_string_equal(hs.rdma[0].name, "mlx5_0");
	assert_true(hs.rdma[0].node_guid == 0xe41d2d0300a1b2c3ULL);
	assert_string_equal(hs.rdma[0].fw_ver, "");
	assert_int_equal(hs.rdma[0].n_ports, 1);
	assert_int_equal(hs.rdma[0].ports[0].port, 1);
	assert_string_equal(hs.rdma[0].ports[0].link_layer, "InfiniBand");
	assert_string_equal(hs.rdma[0].ports[0].state, "ACTIVE");
	assert_string_equal(hs.rdma[0].ports[0].phys_state, "LINK_UP");
	assert_int_equal(hs.rdma[0].ports[0].width_x, 4);
	assert_string_equal(hs.rdma[0].ports[0].speed, "NDR");
	assert_true(hs.rdma[0].ports[0].rate_gbps == 400.0);
	assert_int_equal(hs.rdma[0].ports[0].active_mtu, 4096);
	assert_int_equal(hs.rdma[0].ports[0].lid, 12);
	assert_true(hs.rdma[0].ports[0].port_guid == 0xe41d2d0300a1b2c4ULL);
	assert_int_equal(hs.rdma[0].ports[0].n_gids, 0);	/* not decoded (proto.h) */
	host_state_fini(&hs);

	/* Unknowns are null: -1 / 0 / "". */
	l = json_array_get(json_object_get(doc, "links"), 0);
	p = json_array_get(json_object_get(json_array_get(json_object_get(doc, "rdma"), 0), "ports"), 0);
	json_object_set_new(l, "speed_mbps", json_null());
	json_object_set_new(p, "width", json_null());
	host_state_init(&hs);
	assert_int_equal(proto_status_from_json(doc, &hs, &err), 0);
	assert_int_equal(hs.links[0].speed_mbps, -1);
	assert_int_equal(hs.rdma[0].ports[0].width_x, 0);
	host_state_fini(&hs);

	/* Damage, each named. */
	json_object_set_new(p, "width", json_string("3X"));
	status_bad(doc, "rdma[0].ports[0]");
	json_object_set_new(p, "width", json_string("4X"));
	json_object_set_new(l, "operstate", json_integer(6));
	status_bad(doc, "links[0].operstate: not a string");
	json_object_set_new(l, "operstate", json_string("up"));
	json_object_set_new(l, "name", json_string("a-name-far-too-long-for-a-netdev"));
	status_bad(doc, "links[0].name: too long");
	json_object_del(l, "name");
	status_bad(doc, "links[0]: Object item not found: name");
	json_object_set_new(doc, "schema", json_string("fabricctl.status/2"));
	status_bad(doc, "not a fabricctl.status/1 document");
	json_decref(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_reader_framing),
		cmocka_unit_test(test_reader_last_line_at_eof),
		cmocka_unit_test(test_reader_limit),
		cmocka_unit_test(test_reader_skips_long_line),
		cmocka_unit_test(test_str_clean),
		cmocka_unit_test(test_msg_clean),
		cmocka_unit_test(test_format_adds_version),
		cmocka_unit_test(test_plan_result_token),
		cmocka_unit_test(test_status_from_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
