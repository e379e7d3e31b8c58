/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The worker protocol's "trace" op (docs/worker-protocol.md): flows to
 * trace from the worker's host, and what the tracer found, on the wire.
 * The public form of a trace is render/'s ("fabricctl.trace/1"), never
 * this one.
 *
 *   request  {"op":"trace","flows":[{"proto":"tcp","src":"","dst":"10.77.2.2",
 *             "sport":49152,"dport":5301}, ...],"max_ttl":16,"tries":3,"retry_ms":1000}
 *   result   {"traces":[{"src":"10.77.1.1","reached":true,"reached_ttl":4,
 *             "hops":[{"ttl":1,"answer":"time-exceeded","code":0,"addr":"10.77.1.254",
 *                      "other":"","rtt_us":91,"tries":1}, ...]}, ...]}   one per flow, in order
 *
 * Ownership: the json_t returned are new references; the traces filled
 * own their hops (flow_trace_fini()).
 */
#ifndef FAB_FLEET_PROTO_TRACE_H
#define FAB_FLEET_PROTO_TRACE_H

#include <jansson.h>
#include <stddef.h>

#include "model/flow_trace.h"
#include "transport/trace.h"
#include "util/err.h"

/* The request for @tr's flows (their .flow) under @o; NULL: ENOMEM. */
json_t *proto_trace_req(const struct flow_trace *tr, size_t n, const struct trace_opts *o);
/*
 * A request's flows into *@tr (new array of *@n, flows only, zeroed
 * otherwise; the caller frees it and each trace) and its options over
 * TRACE_OPTS_DEFAULT.  -EPROTO naming the field, -E2BIG over
 * TRACE_MAX_FLOWS, -ENOMEM.
 */
int proto_trace_req_parse(const json_t *req, struct flow_trace **tr, size_t *n,
			  struct trace_opts *o, struct fab_err *err);

/* The result for the traced @tr; NULL: ENOMEM. */
json_t *proto_trace_result(const struct flow_trace *tr, size_t n);
/*
 * A result into @tr (the @n traces the request was made of, their flows
 * kept; src filled when the request's was ""): hops, reached.  -EPROTO
 * (the number of traces differs, a field is wrong), -ENOMEM.
 */
int proto_trace_result_parse(const json_t *res, struct flow_trace *tr, size_t n,
			     struct fab_err *err);

#endif
