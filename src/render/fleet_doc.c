// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The fleet documents of status, verify and apply --hosts, written from
 * fleet/'s structs (fleet/fleet_op.h): "fabricctl.fleet-status/1",
 * "fabricctl.fleet-verify/1", "fabricctl.fleet-apply/1"
 * (docs/json-status.md, docs/json-verify.md); and what their text tables
 * share: the NODE column's width, a line per failed node.
 *
 *   {"schema", ["profile", "dry_run",] "ok"?, "nodes": [{"node", "address",
 *    "ok", "error", <op>: the node's own document or null}], <flattened
 *    entries, each with "node">, "summary": {...}[, "pcie_groups": [...],
 *    "chain_groups": [...]]}
 */
#include <stdio.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "model/pcie_fleet.h"
#include "render/optics.h"
#include "render/render_impl.h"

/* One node: its own document (borrowed) under the op's name. */
static json_t *node_json(const struct fleet_answer *a, const char *op)
{
	json_t *n = json_pack("{s:s, s:s, s:b, s:o}", "node", a->node, "address", a->addr,
			      "ok", a->ok, "error", a->error ? json_string(a->error) : json_null());

	if (n && json_object_set(n, op, a->doc ? a->doc : json_null()) < 0) {
		json_decref(n);
		n = NULL;
	}
	return n;
}

static json_t *nodes_json(const struct fleet_run *run)
{
	json_t *nodes = json_array();

	for (size_t i = 0; nodes && i < run->n; i++)
		if (json_array_append_new(nodes, node_json(&run->nodes[i], run->op)) < 0) {
			json_decref(nodes);
			nodes = NULL;
		}
	return nodes;
}

/* The link named @ifname in node @node's status document (borrowed), or NULL. */
static const json_t *port_link(const struct fleet_run *run, const char *node, const char *ifname,
			       const struct fleet_answer **ans)
{
	const json_t *l;
	size_t k;

	*ans = NULL;
	for (size_t i = 0; i < run->n && !*ans; i++)
		if (strcmp(run->nodes[i].node, node) == 0)
			*ans = &run->nodes[i];
	if (!*ans || !(*ans)->doc)
		return NULL;
	json_array_foreach(json_object_get((*ans)->doc, "links"), k, l)
		if (strcmp(fleet_doc_str(json_object_get(l, "name")), ifname) == 0)
			return l;
	return NULL;
}

/* @l's member @key (a new reference), or null. */
static json_t *field_or_null(const json_t *l, const char *key)
{
	json_t *v = l ? json_object_get(l, key) : NULL;

	return v ? json_incref(v) : json_null();
}

/*
 * Hosts of several fabric ports: each port of the hosts file as its node
 * reports it, {"node", "ifname", "rail", "address", "rdma", "state",
 * "speed_mbps", "mtu"}; state is the link's operstate, "missing" when
 * the node has no such link, null when the node was not read.
 */
json_t *fleet_ports_json(const struct fleet_run *run)
{
	json_t *a = json_array();

	for (size_t i = 0; a && run->ports && i < run->ports->n; i++) {
		const struct fab_host *h = &run->ports->hosts[i];
		const struct fleet_answer *ans;
		const json_t *l = port_link(run, hosts_node(h), h->nic, &ans);
		const char *state = l ? fleet_doc_str(json_object_get(l, "operstate"))
				      : ans && ans->doc ? "missing" : NULL;
		json_t *e = json_pack("{s:s, s:s, s:o, s:s, s:o, s:o, s:o, s:o}", "node", hosts_node(h),
				      "ifname", h->nic, "rail", h->rail >= 0 ? json_integer(h->rail) : json_null(),
				      "address", h->addr, "rdma", h->rdma[0] ? json_string(h->rdma) : json_null(),
				      "state", state ? json_string(state) : json_null(),
				      "speed_mbps", field_or_null(l, "speed_mbps"),
				      "mtu", field_or_null(l, "mtu"));

		if (json_array_append_new(a, e) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

json_t *fleet_status_to_json(const struct fleet_run *run)
{
	json_t *doc = json_pack("{s:s, s:s, s:o, s:{s:i, s:i, s:i}}", "schema", "fabricctl.fleet-status/1",
				"op", run->op, "nodes", nodes_json(run), "summary", "nodes", (int)run->n,
				"ok", (int)(run->n - run->n_failed), "failed", (int)run->n_failed);

	/* Hosts of several fabric ports: each of them (a file of one line a node: none). */
	if (doc && run->ports && run->ports->n)
		json_object_set_new(doc, "ports", fleet_ports_json(run));
	return doc;
}

static json_t *drift_json(const struct fleet_verify *v)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < v->n_drift; i++) {
		const struct fleet_drift *d = &v->drift[i];

		json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s}", "node", d->node,
				      "interface", d->interface, "field", d->field,
				      "wanted", d->wanted, "found", d->found);

		if (json_array_append_new(a, e) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

/* The verified nodes grouped by their host-side drift (model/pcie_fleet.h). */
static int pcie_groups_add(json_t *doc)
{
	json_t *g = pcie_fleet_drift_groups(json_object_get(doc, "nodes"),
					    json_object_get(doc, "drift"));

	return json_object_set_new(doc, "pcie_groups", g);
}

/* The verified nodes grouped by their lossless chains (render/verify_fleet_chain.c). */
static int chain_groups_add(json_t *doc, const struct fleet_run *run)
{
	return json_object_set_new(doc, "chain_groups", verify_fleet_chain_groups(run));
}

json_t *fleet_verify_to_json(const struct fleet_verify *v)
{
	size_t n = v->run->n, failed = v->run->n_failed, drifted = v->n_drifted;
	json_t *doc;

	doc = json_pack("{s:s, s:s, s:b, s:o, s:o, s:{s:I, s:I, s:I, s:I, s:I}}",
			"schema", "fabricctl.fleet-verify/1", "profile", v->profile,
			"ok", !failed && !drifted, "nodes", nodes_json(v->run),
			"drift", drift_json(v), "summary", "nodes", (json_int_t)n,
			"ok", (json_int_t)(n - failed - drifted), "drifted", (json_int_t)drifted,
			"failed", (json_int_t)failed, "n_drift", (json_int_t)v->n_drift);
	if (doc && (pcie_groups_add(doc) < 0 || chain_groups_add(doc, v->run) < 0)) {
		json_decref(doc);
		doc = NULL;
	}
	return doc;
}

static json_t *change_json(const struct fleet_change *c)
{
	json_t *e = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "node", c->node,
			      "object", c->object, "field", c->field, "from", c->from,
			      "to", c->to, "status", c->status);

	if (e && c->fails && json_object_set_new(e, "fails", json_string(c->fails)) < 0) {
		json_decref(e);
		e = NULL;
	}
	return e;
}

static json_t *changes_json(const struct fleet_apply *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < a->n_changes; i++)
		if (json_array_append_new(arr, change_json(&a->changes[i])) < 0) {
			json_decref(arr);
			arr = NULL;
		}
	return arr;
}

json_t *fleet_apply_to_json(const struct fleet_apply *a)
{
	size_t n = a->run->n, failed = a->run->n_failed;

	return json_pack("{s:s, s:s, s:b, s:b, s:o, s:o, s:{s:I, s:I, s:I, s:I, s:I}}",
			 "schema", "fabricctl.fleet-apply/1", "profile", a->profile,
			 "dry_run", a->dry_run, "ok", !failed, "nodes", nodes_json(a->run),
			 "changes", changes_json(a), "summary", "nodes", (json_int_t)n,
			 "ok", (json_int_t)(n - failed), "failed", (json_int_t)failed,
			 "changed", (json_int_t)a->n_changed,
			 "n_changes", (json_int_t)a->n_changes);
}

int status_fleet_json(struct render *out, const struct fleet_run *run)
{
	json_t *doc = fleet_status_to_json(run);

	status_pcie_fleet_json(doc);
	optics_fleet_json(doc);
	return render_json_emit(out, doc);
}

int verify_fleet_json(struct render *out, const struct fleet_verify *v)
{
	return render_json_emit(out, fleet_verify_to_json(v));
}

int apply_fleet_json(struct render *out, const struct fleet_apply *a)
{
	return render_json_emit(out, fleet_apply_to_json(a));
}

/* ---- text ---- */

const char *fleet_dash(const char *s)
{
	return s && *s ? s : "-";
}

const char *fleet_doc_str(const json_t *j)
{
	return fleet_dash(json_string_value(j));
}

/* The NODE column: as wide as the longest node name, 16 at least, so long names keep rows aligned. */
int fleet_node_width(const struct fleet_run *run)
{
	size_t w = 16;

	for (size_t i = 0; i < run->n; i++) {
		size_t len = strlen(fleet_dash(run->nodes[i].node));

		if (len > w && len < 1024)
			w = len;
	}
	return (int)w;
}

void fleet_failed_print(struct render *out, const struct fleet_run *run)
{
	const char *red = out->color ? "\033[31m" : "", *off = out->color ? "\033[0m" : "";
	int w = fleet_node_width(run);

	for (size_t i = 0; i < run->n; i++)
		if (!run->nodes[i].ok)
			fprintf(out->f, "%-*s %sFAILED: %s%s\n", w, fleet_dash(run->nodes[i].node),
				red, fleet_dash(run->nodes[i].error), off);
}
