// SPDX-License-Identifier: GPL-2.0-or-later
/* One op on every node, answers merged.  See fleet_op.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet/fleet_op.h"

struct op_req {
	const char *op;
	const json_t *params;
};

/* The same request for every node: {"op": op} plus the params' members. */
static json_t *op_req(const struct fab_host *host, const void *arg, struct fab_err *err)
{
	const struct op_req *r = arg;
	json_t *req = r->params ? json_deep_copy(r->params) : json_object();

	if (req && json_object_set_new(req, "op", json_string(r->op)) < 0) {
		json_decref(req);
		req = NULL;
	}
	return req;
}

int fleet_run_op(const struct fab_hosts *hosts, const struct fleet_opts *o, const char *op,
		 const json_t *params, const char *schema, int timeout_ms, json_t **doc,
		 size_t *n_failed, struct fab_err *err)
{
	json_t **results = calloc(hosts->n, sizeof(*results)), *nodes = json_array();
	char **errors = calloc(hosts->n, sizeof(*errors));
	struct fleet f = { 0 };
	size_t failed = 0;
	int rc;

	if (!results || !errors || !nodes) {
		rc = fab_err_set(err, -ENOMEM, "fleet: out of memory");
		goto out;
	}
	rc = fleet_start(&f, hosts, o, err);
	if (rc < 0)
		goto out;
	rc = fleet_call_all(&f, op_req, &(struct op_req){ op, params }, timeout_ms, results, errors,
			    err);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < hosts->n; i++) {
		const struct fab_host *h = &hosts->hosts[i];
		json_t *n = json_pack("{s:s, s:s, s:b, s:o}", "node", h->name, "address", h->addr,
				      "ok", results[i] != NULL,
				      "error", errors[i] ? json_string(errors[i])
							 : results[i] ? json_null()
								      : json_string("no answer"));

		json_object_set(n, op, results[i] ? results[i] : json_null());
		json_array_append_new(nodes, n);
		failed += results[i] == NULL;
	}
	*doc = json_pack("{s:s, s:s, s:O, s:{s:i, s:i, s:i}}", "schema", schema, "op", op,
			 "nodes", nodes, "summary", "nodes", (int)hosts->n,
			 "ok", (int)(hosts->n - failed), "failed", (int)failed);
	*n_failed = failed;
	rc = *doc ? 0 : fab_err_set(err, -ENOMEM, "fleet: out of memory");
out:
	fleet_fini(&f);
	for (size_t i = 0; results && errors && i < hosts->n; i++) {
		json_decref(results[i]);
		free(errors[i]);
	}
	free(results);
	free(errors);
	json_decref(nodes);
	return rc;
}

/* ---- verify --hosts, apply --hosts: checking and merging the node documents ---- */

static bool is_str(const json_t *o, const char *key)
{
	return json_is_string(json_object_get(o, key));
}

/* A node's "fabricctl.verify/1": NULL when well-formed, else what is wrong. */
static const char *verify_doc_check(const json_t *v)
{
	const json_t *drift = json_object_get(v, "drift"), *d, *n = json_object_get(v, "n_drift");
	size_t i;

	if (!json_is_object(v))
		return "not an object";
	if (!json_is_string(json_object_get(v, "schema")) ||
	    strcmp(json_string_value(json_object_get(v, "schema")), "fabricctl.verify/1") != 0)
		return "schema is not \"fabricctl.verify/1\"";
	if (!json_is_array(drift))
		return "\"drift\" is not an array";
	if (!json_is_integer(n) || json_integer_value(n) != (json_int_t)json_array_size(drift))
		return "\"n_drift\" is not the length of \"drift\"";
	if (!json_is_boolean(json_object_get(v, "ok")) ||
	    json_is_true(json_object_get(v, "ok")) != (json_array_size(drift) == 0))
		return "\"ok\" does not agree with \"drift\"";
	json_array_foreach(drift, i, d)
		if (!json_is_object(d) || !is_str(d, "interface") || !is_str(d, "field") ||
		    !is_str(d, "wanted") || !is_str(d, "found"))
			return "a \"drift\" entry lacks interface, field, wanted or found";
	return NULL;
}

/* A node's "fabricctl.apply/1": NULL when well-formed, else what is wrong. */
static const char *apply_doc_check(const json_t *a)
{
	const json_t *steps = json_object_get(a, "steps"), *s, *e = json_object_get(a, "error");
	size_t i;

	if (!json_is_object(a))
		return "not an object";
	if (!json_is_string(json_object_get(a, "schema")) ||
	    strcmp(json_string_value(json_object_get(a, "schema")), "fabricctl.apply/1") != 0)
		return "schema is not \"fabricctl.apply/1\"";
	if (!json_is_array(steps))
		return "\"steps\" is not an array";
	if (!json_is_boolean(json_object_get(a, "ok")) ||
	    !json_is_boolean(json_object_get(a, "dry_run")) ||
	    !json_is_boolean(json_object_get(a, "rolled_back")))
		return "\"ok\", \"dry_run\" or \"rolled_back\" is not a boolean";
	if (!json_is_null(e) && !json_is_string(e))
		return "\"error\" is neither a string nor null";
	if (!json_is_true(json_object_get(a, "ok")) && !json_is_string(e))
		return "a failed apply without an \"error\"";
	json_array_foreach(steps, i, s)
		if (!json_is_object(s) || !is_str(s, "object") || !is_str(s, "field") ||
		    !is_str(s, "from") || !is_str(s, "to") || !is_str(s, "status"))
			return "a \"steps\" entry lacks object, field, from, to or status";
	return NULL;
}

/* Mark node @n failed: "ok" false, "error" @why then @what, @key null. */
static void node_fail(json_t *n, const char *key, const char *why, const char *what)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s%s", why, what);
	json_object_set_new(n, "ok", json_false());
	json_object_set_new(n, "error", json_string(msg));
	json_object_set_new(n, key, json_null());
}

json_t *fleet_verify_merge(const json_t *run, const char *profile, size_t *n_failed,
			   size_t *n_drifted)
{
	const json_t *node;
	json_t *nodes = json_array(), *drift = json_array(), *doc = NULL;
	size_t i, failed = 0, drifted = 0;

	if (!nodes || !drift)
		goto out;
	json_array_foreach(json_object_get(run, "nodes"), i, node) {
		json_t *n = json_deep_copy(node);
		const json_t *v = json_object_get(n, "verify"), *d;
		const char *name = json_string_value(json_object_get(n, "node")), *bad;
		size_t k;

		if (!n || json_array_append_new(nodes, n) < 0)
			goto out;
		if (!json_is_true(json_object_get(n, "ok"))) {
			failed++;
			continue;
		}
		bad = verify_doc_check(v);
		if (bad) {
			node_fail(n, "verify", "sent a malformed verify document: ", bad);
			failed++;
			continue;
		}
		drifted += json_array_size(json_object_get(v, "drift")) > 0;
		json_array_foreach(json_object_get(v, "drift"), k, d) {
			json_t *e = json_pack("{s:s, s:O, s:O, s:O, s:O}", "node", name ? name : "",
					      "interface", json_object_get(d, "interface"),
					      "field", json_object_get(d, "field"),
					      "wanted", json_object_get(d, "wanted"),
					      "found", json_object_get(d, "found"));

			if (!e || json_array_append_new(drift, e) < 0)
				goto out;
		}
	}
	doc = json_pack("{s:s, s:s, s:b, s:O, s:O, s:{s:I, s:I, s:I, s:I, s:I}}",
			"schema", "fabricctl.fleet-verify/1", "profile", profile,
			"ok", !failed && !drifted, "nodes", nodes, "drift", drift, "summary",
			"nodes", (json_int_t)json_array_size(nodes),
			"ok", (json_int_t)(json_array_size(nodes) - failed - drifted),
			"drifted", (json_int_t)drifted, "failed", (json_int_t)failed,
			"n_drift", (json_int_t)json_array_size(drift));
	if (doc) {
		*n_failed = failed;
		*n_drifted = drifted;
	}
out:
	json_decref(nodes);
	json_decref(drift);
	return doc;
}

json_t *fleet_apply_merge(const json_t *run, const char *profile, bool dry_run,
			  size_t *n_failed)
{
	const json_t *node;
	json_t *nodes = json_array(), *changes = json_array(), *doc = NULL;
	size_t i, failed = 0, changed = 0;

	if (!nodes || !changes)
		goto out;
	json_array_foreach(json_object_get(run, "nodes"), i, node) {
		json_t *n = json_deep_copy(node);
		const json_t *a = json_object_get(n, "apply"), *s;
		const char *name = json_string_value(json_object_get(n, "node")), *bad;
		size_t k;

		if (!n || json_array_append_new(nodes, n) < 0)
			goto out;
		if (!json_is_true(json_object_get(n, "ok"))) {
			failed++;
			continue;
		}
		bad = apply_doc_check(a);
		if (bad) {
			node_fail(n, "apply", "sent a malformed apply document: ", bad);
			failed++;
			continue;
		}
		if (json_is_true(json_object_get(a, "dry_run")) != dry_run) {
			node_fail(n, "apply", "", dry_run ? "applied instead of a dry run"
							   : "did a dry run instead of applying");
			failed++;
			continue;
		}
		changed += json_array_size(json_object_get(a, "steps")) > 0;
		json_array_foreach(json_object_get(a, "steps"), k, s) {
			json_t *e = json_pack("{s:s, s:O, s:O, s:O, s:O, s:O}", "node", name ? name : "",
					      "object", json_object_get(s, "object"),
					      "field", json_object_get(s, "field"),
					      "from", json_object_get(s, "from"),
					      "to", json_object_get(s, "to"),
					      "status", json_object_get(s, "status"));

			if (!e || json_array_append_new(changes, e) < 0)
				goto out;
		}
		if (!json_is_true(json_object_get(a, "ok"))) {
			/* The node's own rollback ran; its document tells how far. */
			json_object_set_new(n, "ok", json_false());
			json_object_set(n, "error", json_object_get(a, "error"));
			failed++;
		}
	}
	doc = json_pack("{s:s, s:s, s:b, s:b, s:O, s:O, s:{s:I, s:I, s:I, s:I, s:I}}",
			"schema", "fabricctl.fleet-apply/1", "profile", profile,
			"dry_run", dry_run, "ok", !failed, "nodes", nodes, "changes", changes,
			"summary", "nodes", (json_int_t)json_array_size(nodes),
			"ok", (json_int_t)(json_array_size(nodes) - failed),
			"failed", (json_int_t)failed, "changed", (json_int_t)changed,
			"n_changes", (json_int_t)json_array_size(changes));
	if (doc)
		*n_failed = failed;
out:
	json_decref(nodes);
	json_decref(changes);
	return doc;
}
