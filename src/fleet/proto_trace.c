// SPDX-License-Identifier: GPL-2.0-or-later
/* The worker protocol's "trace" op on the wire (proto_trace.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/proto_trace.h"
#include "util/str.h"

json_t *proto_trace_req(const struct flow_trace *tr, size_t n, const struct trace_opts *o)
{
	json_t *flows = json_array();

	for (size_t i = 0; flows && i < n; i++) {
		const struct flow *f = &tr[i].flow;
		json_t *j = json_pack("{s:s, s:s, s:s, s:i, s:i}", "proto", flow_proto_name(f->proto),
				      "src", f->src, "dst", f->dst, "sport", (int)f->sport,
				      "dport", (int)f->dport);

		/* "label" only when set: a worker from before it reads the flow as ever */
		if (j && f->label && json_object_set_new(j, "label", json_integer(f->label)) < 0) {
			json_decref(j);
			j = NULL;
		}
		if (json_array_append_new(flows, j) < 0) {
			json_decref(flows);
			return NULL;
		}
	}
	if (!flows)
		return NULL;
	return json_pack("{s:s, s:o, s:i, s:i, s:i}", "op", "trace", "flows", flows,
			 "max_ttl", (int)o->max_ttl, "tries", (int)o->tries,
			 "retry_ms", (int)o->retry_ms);
}

static int get_num(const json_t *j, const char *key, long long max, long long *out,
		   struct fab_err *err)
{
	const json_t *v = json_object_get(j, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return fab_err_set(err, -EPROTO, "protocol: trace: \"%s\" must be an integer 0..%lld",
				   key, max);
	*out = json_integer_value(v);
	return 0;
}

static int get_addr(const json_t *j, const char *key, char *buf, size_t len, struct fab_err *err)
{
	const char *s = json_string_value(json_object_get(j, key));

	if (!s || strlen(s) >= len)
		return fab_err_set(err, -EPROTO, "protocol: trace: \"%s\" must be an address", key);
	str_fmt(buf, len, "%s", s);
	return 0;
}

static int flow_parse(const json_t *j, struct flow *f, struct fab_err *err)
{
	const char *proto = json_string_value(json_object_get(j, "proto"));
	long long sp, dp;

	if (!proto || (strcmp(proto, "tcp") && strcmp(proto, "udp")))
		return fab_err_set(err, -EPROTO, "protocol: trace: \"proto\" must be tcp or udp");
	f->proto = strcmp(proto, "tcp") ? FLOW_UDP : FLOW_TCP;
	if (get_addr(j, "src", f->src, sizeof(f->src), err) < 0 ||
	    get_addr(j, "dst", f->dst, sizeof(f->dst), err) < 0 ||
	    get_num(j, "sport", 65535, &sp, err) < 0 || get_num(j, "dport", 65535, &dp, err) < 0)
		return -EPROTO;
	f->sport = (uint16_t)sp;
	f->dport = (uint16_t)dp;
	if (json_object_get(j, "label")) {
		long long l;

		if (get_num(j, "label", 0xfffff, &l, err) < 0)
			return -EPROTO;
		f->label = (uint32_t)l;
	}
	return 0;
}

static int opts_parse(const json_t *req, struct trace_opts *o, struct fab_err *err)
{
	long long v;

	*o = (struct trace_opts)TRACE_OPTS_DEFAULT;
	if (get_num(req, "max_ttl", FLOW_TRACE_MAX_TTL, &v, err) < 0 || v < 1)
		return fab_err_set(err, -EPROTO, "protocol: trace: \"max_ttl\" must be 1..%d",
				   FLOW_TRACE_MAX_TTL);
	o->max_ttl = (unsigned int)v;
	if (get_num(req, "tries", 16, &v, err) < 0 || v < 1)
		return fab_err_set(err, -EPROTO, "protocol: trace: \"tries\" must be 1..16");
	o->tries = (unsigned int)v;
	if (get_num(req, "retry_ms", 60000, &v, err) < 0 || v < 1)
		return fab_err_set(err, -EPROTO, "protocol: trace: \"retry_ms\" must be 1..60000");
	o->retry_ms = (unsigned int)v;
	return 0;
}

int proto_trace_req_parse(const json_t *req, struct flow_trace **tr, size_t *n,
			  struct trace_opts *o, struct fab_err *err)
{
	const json_t *flows = json_object_get(req, "flows"), *v;
	struct flow_trace *t;
	size_t i;

	if (!json_is_array(flows))
		return fab_err_set(err, -EPROTO, "protocol: trace: \"flows\" must be an array");
	if (json_array_size(flows) > TRACE_MAX_FLOWS)
		return fab_err_set(err, -E2BIG, "protocol: trace: more than %u flows", TRACE_MAX_FLOWS);
	if (opts_parse(req, o, err) < 0)
		return -EPROTO;
	t = calloc(json_array_size(flows) + 1, sizeof(*t));
	if (!t)
		return fab_err_set(err, -ENOMEM, "protocol: out of memory");
	json_array_foreach(flows, i, v)
		if (flow_parse(v, &t[i].flow, err) < 0) {
			free(t);
			return -EPROTO;
		}
	*tr = t;
	*n = json_array_size(flows);
	return 0;
}

static json_t *hop_json(const struct flow_hop *h)
{
	return json_pack("{s:i, s:s, s:i, s:s, s:s, s:I, s:i}", "ttl", (int)h->ttl,
			 "answer", hop_answer_name(h->answer), "code", (int)h->code,
			 "addr", h->addr, "other", h->other, "rtt_us", (json_int_t)h->rtt_us,
			 "tries", (int)h->tries);
}

json_t *proto_trace_result(const struct flow_trace *tr, size_t n)
{
	json_t *traces = json_array();

	for (size_t i = 0; traces && i < n; i++) {
		json_t *hops = json_array();

		for (size_t h = 0; hops && h < tr[i].n_hops; h++)
			if (json_array_append_new(hops, hop_json(&tr[i].hops[h])) < 0) {
				json_decref(hops);
				hops = NULL;
			}
		if (!hops || json_array_append_new(traces, json_pack("{s:s, s:b, s:i, s:o}",
				"src", tr[i].flow.src, "reached", tr[i].reached,
				"reached_ttl", (int)tr[i].reached_ttl, "hops", hops)) < 0) {
			json_decref(traces);
			return NULL;
		}
	}
	return traces ? json_pack("{s:o}", "traces", traces) : NULL;
}

static int answer_parse(const char *s, enum hop_answer *a)
{
	static const enum hop_answer all[] = { HOP_NONE, HOP_TIME_EXCEEDED, HOP_UNREACHABLE,
					       HOP_TCP_RST, HOP_TCP_SYNACK };

	for (size_t i = 0; s && i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(s, hop_answer_name(all[i]))) {
			*a = all[i];
			return 0;
		}
	return -EPROTO;
}

static int hop_parse(const json_t *j, struct flow_hop *h, struct fab_err *err)
{
	long long ttl, code, rtt, tries;

	memset(h, 0, sizeof(*h));
	if (get_num(j, "ttl", FLOW_TRACE_MAX_TTL, &ttl, err) < 0 ||
	    get_num(j, "code", 255, &code, err) < 0 ||
	    get_num(j, "rtt_us", UINT32_MAX, &rtt, err) < 0 ||
	    get_num(j, "tries", 1000000, &tries, err) < 0 ||
	    get_addr(j, "addr", h->addr, sizeof(h->addr), err) < 0 ||
	    get_addr(j, "other", h->other, sizeof(h->other), err) < 0)
		return -EPROTO;
	if (answer_parse(json_string_value(json_object_get(j, "answer")), &h->answer) < 0)
		return fab_err_set(err, -EPROTO, "protocol: trace: \"answer\" unknown");
	h->ttl = (unsigned int)ttl;
	h->code = (unsigned int)code;
	h->rtt_us = (uint32_t)rtt;
	h->tries = (unsigned int)tries;
	return 0;
}

/* One trace's hops into @t (its flow kept); -EPROTO, -ENOMEM. */
static int trace_parse(const json_t *j, struct flow_trace *t, struct fab_err *err)
{
	const json_t *hops = json_object_get(j, "hops"), *v;
	const json_t *reached = json_object_get(j, "reached");
	long long rt;
	size_t i;

	if (!json_is_array(hops) || json_array_size(hops) > FLOW_TRACE_MAX_TTL ||
	    !json_is_boolean(reached))
		return fab_err_set(err, -EPROTO, "protocol: trace: a trace needs \"hops\" and \"reached\"");
	if (get_num(j, "reached_ttl", FLOW_TRACE_MAX_TTL, &rt, err) < 0)
		return -EPROTO;
	if (!t->flow.src[0] && get_addr(j, "src", t->flow.src, sizeof(t->flow.src), err) < 0)
		return -EPROTO;
	t->hops = calloc(json_array_size(hops) + 1, sizeof(*t->hops));
	if (!t->hops)
		return fab_err_set(err, -ENOMEM, "protocol: out of memory");
	json_array_foreach(hops, i, v) {
		if (hop_parse(v, &t->hops[i], err) < 0)
			return -EPROTO;
		if (i && t->hops[i].ttl != t->hops[0].ttl + i)
			return fab_err_set(err, -EPROTO, "protocol: trace: hops out of order");
		t->n_hops = i + 1;
	}
	t->reached = json_is_true(reached);
	t->reached_ttl = (unsigned int)rt;
	return 0;
}

int proto_trace_result_parse(const json_t *res, struct flow_trace *tr, size_t n,
			     struct fab_err *err)
{
	const json_t *traces = json_object_get(res, "traces");
	int rc = 0;

	if (!json_is_array(traces) || json_array_size(traces) != n)
		return fab_err_set(err, -EPROTO, "protocol: trace: %zu traces asked, %zu answered", n,
				   json_is_array(traces) ? json_array_size(traces) : 0);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = trace_parse(json_array_get(traces, i), &tr[i], err);
	if (rc < 0)
		for (size_t i = 0; i < n; i++) {
			free(tr[i].hops);
			tr[i].hops = NULL;
			tr[i].n_hops = 0;
		}
	return rc;
}
