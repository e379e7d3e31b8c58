// SPDX-License-Identifier: GPL-2.0-or-later
/* Every live worker traces its own flows (fleet_trace.h). */
#include <errno.h>
#include <stdlib.h>

#include "fleet/fleet_trace.h"
#include "fleet/proto_trace.h"
#include "util/log.h"

struct trace_call {
	const struct fleet *f;
	struct flow_trace *const *tr;
	const size_t *n;
	const struct trace_opts *o;
};

static json_t *trace_req(const struct fab_host *host, const void *arg, struct fab_err *err)
{
	const struct trace_call *c = arg;

	for (size_t i = 0; i < c->f->n; i++)
		if (c->f->w[i].host == host) {
			if (c->n[i] > TRACE_MAX_FLOWS) {
				fab_err_set(err, -E2BIG, "trace: %s: more than %u flows", host->name,
					    TRACE_MAX_FLOWS);
				return NULL;
			}
			return proto_trace_req(c->tr[i], c->n[i], c->o);
		}
	return json_pack("{s:s, s:[], s:i, s:i, s:i}", "op", "trace", "flows", "max_ttl", 1,
			 "tries", 1, "retry_ms", 1);
}

int fleet_trace_run(struct fleet *f, struct flow_trace *const *tr, const size_t *n,
		    const struct trace_opts *o, int timeout_ms, bool *got, struct fab_err *err)
{
	struct trace_call c = { .f = f, .tr = tr, .n = n, .o = o };
	json_t **results = calloc(f->n ? f->n : 1, sizeof(*results));
	char **errors = calloc(f->n ? f->n : 1, sizeof(*errors));
	int rc = 0;

	if (!results || !errors)
		rc = fab_err_set(err, -ENOMEM, "fleet: out of memory");
	if (rc == 0)
		rc = fleet_call_all(f, trace_req, &c, timeout_ms, results, errors, err);
	for (size_t i = 0; rc == 0 && i < f->n; i++) {
		struct fab_err e;

		fab_err_init(&e);
		got[i] = false;
		if (!results[i]) {
			if (n[i])
				fab_warn("trace: %s: %s", f->w[i].host->name,
					 errors[i] ? errors[i] : "no answer");
			continue;
		}
		if (proto_trace_result_parse(results[i], tr[i], n[i], &e) < 0) {
			if (e.code == -ENOMEM)
				rc = fab_err_set(err, -ENOMEM, "fleet: out of memory");
			else
				fab_warn("trace: %s: %s", f->w[i].host->name, e.msg);
			continue;
		}
		got[i] = true;
	}
	for (size_t i = 0; results && errors && i < f->n; i++) {
		json_decref(results[i]);
		free(errors[i]);
	}
	free(results);
	free(errors);
	return rc;
}
