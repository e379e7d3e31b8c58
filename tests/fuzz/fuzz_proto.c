// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Worker protocol on arbitrary bytes, the way the controller and the
 * worker see them: framed into lines by proto_reader (through a pipe),
 * each line parsed strictly, and the wire forms inside (plan, result,
 * token, status, trace request and result, bond reading) decoded from
 * whatever parsed.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet/proto.h"
#include "fleet/proto_bond.h"
#include "fleet/proto_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A trace request's flows, within bounds. */
static void trace_req(const json_t *doc)
{
	struct flow_trace *tr = NULL;
	struct trace_opts o;
	struct fab_err err;
	size_t n = 0;

	fab_err_init(&err);
	if (proto_trace_req_parse(doc, &tr, &n, &o, &err) == 0) {
		assert(n <= TRACE_MAX_FLOWS && o.max_ttl >= 1 && o.max_ttl <= FLOW_TRACE_MAX_TTL);
		free(tr);
	}
}

/* A trace result read into two traces, hops in order. */
static void trace_result(const json_t *res)
{
	struct flow_trace tr[2];
	struct fab_err err;

	memset(tr, 0, sizeof(tr));
	fab_err_init(&err);
	if (proto_trace_result_parse(res, tr, 2, &err) == 0)
		for (size_t i = 0; i < 2; i++) {
			for (size_t h = 1; h < tr[i].n_hops; h++)
				assert(tr[i].hops[h].ttl == tr[i].hops[0].ttl + h);
			flow_trace_fini(&tr[i]);
		}
	else
		assert(!tr[0].hops && !tr[1].hops);
}

/* A bond reading (the "bond" op's result): within bounds; written back, it reads the same. */
static void bond_result(const json_t *res)
{
	struct bond_snap s, back;
	struct fab_err err;
	json_t *j;

	fab_err_init(&err);
	if (proto_bond_from_json(res, &s, &err) < 0)
		return;
	assert(s.n_members <= FAB_BOND_MAX_MEMBERS && (s.n_members > 0) == s.is_bond);
	j = proto_bond_result(&s);
	if (!j)
		return;
	assert(proto_bond_from_json(j, &back, &err) == 0);
	assert(back.n_members == s.n_members && back.is_bond == s.is_bond);
	for (size_t i = 0; i < s.n_members; i++)
		assert(back.m[i].tx_bytes == s.m[i].tx_bytes &&
		       !strcmp(back.m[i].name, s.m[i].name));
	json_decref(j);
}

static void one_line(const char *line, size_t len)
{
	struct proto_msg m;
	struct fab_err err;
	struct tp_result res;
	struct tp_spec spec;
	uint8_t tok[TP_TOKEN_LEN];

	fab_err_init(&err);
	if (proto_parse(line, len, &m, &err) < 0) {
		assert(m.doc == NULL && err.msg[0]);
		return;
	}
	assert(m.doc && m.id >= 0);
	switch (m.kind) {
	case PROTO_REQUEST:
		assert(m.op && *m.op);
		if (proto_spec_from_json(json_object_get(m.doc, "plan"), &spec, &err) == 0)
			assert(spec.streams <= 64 && spec.msg_bytes <= 65536);
		tp_token_parse(json_string_value(json_object_get(m.doc, "token")), tok, false);
		trace_req(m.doc);
		break;
	case PROTO_EVENT:
		assert(m.event && *m.event);
		break;
	case PROTO_REPLY:
		assert(m.ok || m.error);
		if (m.ok && m.result && proto_result_from_json(m.result, &res, &err) == 0) {
			json_t *back = proto_result_to_json(&res);

			assert(back);
			json_decref(back);
		}
		if (m.ok && m.result) {	/* a status reply (accept's reach stage reads it) */
			struct host_state hs;

			host_state_init(&hs);
			if (proto_status_from_json(m.result, &hs, &err) == 0)
				assert(hs.hostname[sizeof(hs.hostname) - 1] == '\0');
			host_state_fini(&hs);
		}
		if (m.ok && m.result) {
			trace_result(m.result);
			bond_result(m.result);
		}
		break;
	}
	proto_msg_fini(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_reader r;
	int fds[2];
	char *line;
	size_t len;

	if (size > 60000 || pipe(fds) < 0)
		return 0;
	proto_reader_init(&r);
	if (write(fds[1], data, size) == (ssize_t)size) {
		close(fds[1]);
		fds[1] = -1;
		while (!r.eof && proto_reader_fill(&r, fds[0]) == 0)
			while (proto_reader_line(&r, &line, &len) == 1) {
				one_line(line, len);
				free(line);
			}
	}
	if (fds[1] >= 0)
		close(fds[1]);
	close(fds[0]);
	proto_reader_fini(&r);
	/* And the whole input as one line, as proto_parse sees it from any reader. */
	one_line((const char *)data, size);
	return 0;
}
