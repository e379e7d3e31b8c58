// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts / apply --hosts merging on arbitrary worker answers: the
 * bytes are one reply line as a worker would send it, parsed strictly
 * (proto_parse); its result becomes a node's "verify" and "apply" document
 * next to a well-formed failed node, and both merges and both text
 * renderers run over it.  Invariants: counts add up, every flattened
 * entry names its node, a node is ok only with a well-formed document.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "fleet/proto.h"
#include "render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static json_t *run_of(const char *op, const json_t *result)
{
	return json_pack("{s:s, s:[{s:s, s:s, s:b, s:n, s:O}, {s:s, s:s, s:b, s:s, s:n}]}",
			 "op", op, "nodes",
			 "node", "fuzz", "address", "10.0.0.1", "ok", 1, "error", op, result,
			 "node", "dead", "address", "10.0.0.2", "ok", 0, "error", "no hello", op);
}

static void check(json_t *doc, const char *list, size_t failed)
{
	const json_t *sum = json_object_get(doc, "summary"), *e, *n;
	FILE *null = fopen("/dev/null", "we");
	struct render out = { .f = null };
	size_t i, ok = 0;

	assert(doc);
	assert(failed >= 1 && failed <= 2);
	assert(json_integer_value(json_object_get(sum, "nodes")) == 2);
	assert(json_integer_value(json_object_get(sum, "failed")) == (json_int_t)failed);
	json_array_foreach(json_object_get(doc, list), i, e)
		assert(!strcmp(json_string_value(json_object_get(e, "node")), "fuzz"));
	json_array_foreach(json_object_get(doc, "nodes"), i, n) {
		ok += json_is_true(json_object_get(n, "ok"));
		assert(json_is_true(json_object_get(n, "ok")) || json_is_string(json_object_get(n, "error")));
	}
	assert(ok + failed == 2);
	if (null) {
		if (!strcmp(list, "drift"))
			render_text_ops.verify_fleet(&out, doc);
		else
			render_text_ops.apply_fleet(&out, doc);
		fclose(null);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proto_msg m;
	struct fab_err err;
	size_t failed, drifted;
	json_t *run, *doc;

	fab_err_init(&err);
	if (proto_parse((const char *)data, size, &m, &err) < 0)
		return 0;
	if (m.kind != PROTO_REPLY || !m.ok || !m.result) {
		proto_msg_fini(&m);
		return 0;
	}
	run = run_of("verify", m.result);
	doc = fleet_verify_merge(run, "p.yaml", &failed, &drifted);
	check(doc, "drift", failed);
	assert(drifted <= 1 && failed + drifted <= 2);
	json_decref(doc);
	json_decref(run);
	for (int dry = 0; dry < 2; dry++) {
		run = run_of("apply", m.result);
		doc = fleet_apply_merge(run, "p.yaml", dry, &failed);
		check(doc, "changes", failed);
		json_decref(doc);
		json_decref(run);
	}
	proto_msg_fini(&m);
	return 0;
}
