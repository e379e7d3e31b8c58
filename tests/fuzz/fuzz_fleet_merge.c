// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts / apply --hosts checks on arbitrary worker answers: the
 * bytes are one reply line as a worker would send it, parsed strictly
 * (proto_parse); its result becomes a node's "verify" and "apply" document
 * next to a well-formed failed node, both checks run over it, and their
 * documents and text renderers (render/fleet_doc.c) are written.
 * Invariants: counts add up, every flattened entry names its node, a node
 * is ok only with a well-formed document; verify's PCIe groups hold every
 * verified node once, largest first, with host-side drift only.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "fleet/proto.h"
#include "model/pcie_fleet.h"
#include "render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A node "fuzz" that answered @result (an error string beside it), one that did not. */
static void run_of(struct fleet_run *run, const char *op, json_t *result)
{
	fleet_run_init(run, op);
	fleet_run_add(run, "fuzz", "10.0.0.1", json_incref(result), op);
	fleet_run_add(run, "dead", "10.0.0.2", NULL, "no hello");
}

static void groups_check(const json_t *doc, const struct fleet_run *run)
{
	const json_t *groups = json_object_get(doc, "pcie_groups"), *g, *d;
	json_int_t total = 0, last = 0;
	size_t i, k;

	assert(json_is_array(groups));
	json_array_foreach(groups, i, g) {
		json_int_t c = json_integer_value(json_object_get(g, "count"));

		assert(c >= 1 && (size_t)c == json_array_size(json_object_get(g, "nodes")));
		assert(i == 0 || c <= last);
		assert(json_is_true(json_object_get(g, "majority")) == (i == 0));
		json_array_foreach(json_object_get(g, "drift"), k, d)
			assert(pcie_fleet_drift_field(json_string_value(json_object_get(d, "field")),
						      json_string_value(json_object_get(d, "wanted"))));
		total += c;
		last = c;
	}
	assert((size_t)total == run->n - run->n_failed);
}

static void check(json_t *doc, const char *list, const struct fleet_run *run)
{
	const json_t *sum = json_object_get(doc, "summary"), *e, *n;
	size_t i, ok = 0;

	assert(doc);
	assert(run->n_failed >= 1 && run->n_failed <= 2);
	assert(json_integer_value(json_object_get(sum, "nodes")) == 2);
	assert(json_integer_value(json_object_get(sum, "failed")) == (json_int_t)run->n_failed);
	json_array_foreach(json_object_get(doc, list), i, e)
		assert(!strcmp(json_string_value(json_object_get(e, "node")), "fuzz"));
	json_array_foreach(json_object_get(doc, "nodes"), i, n) {
		ok += json_is_true(json_object_get(n, "ok"));
		assert(json_is_true(json_object_get(n, "ok")) || json_is_string(json_object_get(n, "error")));
	}
	assert(ok + run->n_failed == 2);
	if (!strcmp(list, "drift"))
		groups_check(doc, run);
	json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *null = fopen("/dev/null", "we");
	struct render out = { .ops = &render_text_ops, .f = null };
	struct proto_msg m;
	struct fab_err err;
	struct fleet_run run;
	struct fleet_verify v;
	struct fleet_apply a;

	fab_err_init(&err);
	if (!null || proto_parse((const char *)data, size, &m, &err) < 0)
		goto out;
	if (m.kind != PROTO_REPLY || !m.ok || !m.result) {
		proto_msg_fini(&m);
		goto out;
	}
	run_of(&run, "verify", m.result);
	if (fleet_verify_check(&run, "p.yaml", &v) == 0) {
		check(fleet_verify_to_json(&v), "drift", &run);
		assert(v.n_drifted <= 1 && run.n_failed + v.n_drifted <= 2);
		render_text_ops.verify_fleet(&out, &v);
		fleet_verify_fini(&v);
	}
	fleet_run_fini(&run);
	for (int dry = 0; dry < 2; dry++) {
		run_of(&run, "apply", m.result);
		if (fleet_apply_check(&run, "p.yaml", dry, &a) == 0) {
			check(fleet_apply_to_json(&a), "changes", &run);
			render_text_ops.apply_fleet(&out, &a);
			fleet_apply_fini(&a);
		}
		fleet_run_fini(&run);
	}
	proto_msg_fini(&m);
out:
	if (null)
		fclose(null);
	return 0;
}
