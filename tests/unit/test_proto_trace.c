// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The worker protocol's "trace" op on the wire (fleet/proto_trace.h):
 * request and result round trips, and what a parser refuses.
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

#include "fleet/proto_trace.h"

static void test_request_round_trip(void **state)
{
	struct flow_trace in[2] = {
		{ .flow = { .proto = FLOW_TCP, .src = "10.77.1.1", .dst = "10.77.2.2",
			    .sport = 49152, .dport = 5301 } },
		{ .flow = { .proto = FLOW_UDP, .src = "", .dst = "fd77:10:77:3::3", .sport = 1,
			    .dport = 4791, .label = 0xfabcd } },
	};
	struct trace_opts o = TRACE_OPTS_DEFAULT, q;
	struct flow_trace *out = NULL;
	struct fab_err err;
	size_t n = 0;
	json_t *j;

	(void)state;
	fab_err_init(&err);
	o.max_ttl = 6;
	o.tries = 2;
	j = proto_trace_req(in, 2, &o);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "op")), "trace");
	assert_int_equal(proto_trace_req_parse(j, &out, &n, &q, &err), 0);
	assert_int_equal(n, 2);
	assert_memory_equal(&out[0].flow, &in[0].flow, sizeof(in[0].flow));
	assert_memory_equal(&out[1].flow, &in[1].flow, sizeof(in[1].flow));
	assert_int_equal(q.max_ttl, 6);
	assert_int_equal(q.tries, 2);
	assert_int_equal(q.retry_ms, 1000);
	assert_int_equal(q.window, 4);
	free(out);
	/* a label only where set: a worker from before it reads the flow as ever */
	assert_null(json_object_get(json_array_get(json_object_get(j, "flows"), 0), "label"));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(j, "flows"), 1),
							    "label")), 0xfabcd);
	/* refused: a label past 20 bits, a bad protocol, a port over 65535, max_ttl 0 */
	json_object_set_new(json_array_get(json_object_get(j, "flows"), 1), "label",
			    json_integer(0x100000));
	assert_int_equal(proto_trace_req_parse(j, &out, &n, &q, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "label"));
	json_object_set_new(json_array_get(json_object_get(j, "flows"), 1), "label",
			    json_integer(1));
	json_object_set_new(json_array_get(json_object_get(j, "flows"), 1), "proto",
			    json_string("sctp"));
	assert_int_equal(proto_trace_req_parse(j, &out, &n, &q, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "proto"));
	json_object_set_new(json_array_get(json_object_get(j, "flows"), 1), "proto",
			    json_string("udp"));
	json_object_set_new(json_array_get(json_object_get(j, "flows"), 0), "sport",
			    json_integer(65536));
	assert_int_equal(proto_trace_req_parse(j, &out, &n, &q, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "sport"));
	json_object_set_new(json_array_get(json_object_get(j, "flows"), 0), "sport",
			    json_integer(1));
	json_object_set_new(j, "max_ttl", json_integer(0));
	assert_int_equal(proto_trace_req_parse(j, &out, &n, &q, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "max_ttl"));
	json_decref(j);
}

static void test_result_round_trip(void **state)
{
	struct flow_hop hops[3] = {
		{ .ttl = 1, .answer = HOP_TIME_EXCEEDED, .addr = "10.77.1.254", .rtt_us = 91,
		  .tries = 1 },
		{ .ttl = 2, .answer = HOP_NONE, .tries = 4 },
		{ .ttl = 3, .answer = HOP_TCP_RST, .addr = "10.77.2.2", .other = "10.77.2.9",
		  .rtt_us = 40, .tries = 2 },
	};
	struct flow_trace t = { .flow = { .proto = FLOW_TCP, .src = "10.77.1.1",
					  .dst = "10.77.2.2", .sport = 49152, .dport = 5301 },
				.hops = hops, .n_hops = 3, .reached = true, .reached_ttl = 3 };
	struct flow_trace back = { .flow = { .proto = FLOW_TCP, .dst = "10.77.2.2",
					     .sport = 49152, .dport = 5301 } };
	struct fab_err err;
	json_t *j;

	(void)state;
	fab_err_init(&err);
	j = proto_trace_result(&t, 1);
	assert_non_null(j);
	assert_int_equal(proto_trace_result_parse(j, &back, 1, &err), 0);
	assert_string_equal(back.flow.src, "10.77.1.1");
	assert_true(back.reached);
	assert_int_equal(back.reached_ttl, 3);
	assert_int_equal(back.n_hops, 3);
	assert_memory_equal(back.hops, hops, sizeof(hops));
	flow_trace_fini(&back);
	/* refused: a count that is not the request's, hops out of order, an unknown answer */
	back.flow.src[0] = '\0';
	assert_int_equal(proto_trace_result_parse(j, &back, 2, &err), -EPROTO);
	json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(j, "traces"), 0),
							    "hops"), 2), "ttl", json_integer(7));
	assert_int_equal(proto_trace_result_parse(j, &back, 1, &err), -EPROTO);
	assert_null(back.hops);
	json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(j, "traces"), 0),
							    "hops"), 2), "ttl", json_integer(3));
	json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(j, "traces"), 0),
							    "hops"), 1), "answer", json_string("maybe"));
	assert_int_equal(proto_trace_result_parse(j, &back, 1, &err), -EPROTO);
	assert_non_null(strstr(err.msg, "answer"));
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_round_trip),
		cmocka_unit_test(test_result_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
