// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts as one drift table with a NODE column plus the nodes
 * that could not be verified (fleet/fleet_op.h's struct fleet_verify),
 * then, when a node has host-side drift (PCIe, NUMA, ACS, GPUDirect,
 * firmware LLDP: model/pcie_fleet.h's pcie_fleet_drift_groups()), the
 * verified nodes grouped by it, one line a group, largest first:
 *
 *   PCIe drift on 2 of 5 verified nodes, by group, largest first:
 *     3 nodes: no PCIe drift: h1, h2, h4
 *     2 nodes: mlx5_1 pcie.width x8, want x16 (max): h3, h5
 *
 * and the nodes grouped by lossless chain (render/verify_fleet_chain.c).
 * JSON: render/fleet_doc.c ("pcie_groups", "chain_groups"; each node's document has its chains).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "render/render_impl.h"

#define GROUP_NAMES_MAX 8	/* node names shown a group, then "and N more" */
#define GROUP_IFS_MAX 3		/* interfaces shown an item, then "+N" */

static const char *dstr(const json_t *d, const char *key)
{
	return fleet_doc_str(json_object_get(d, key));
}

/* @a and @b drift the same way (field, wanted and found), perhaps on other interfaces. */
static bool same_drift(const json_t *a, const json_t *b)
{
	return !strcmp(dstr(a, "field"), dstr(b, "field")) &&
	       !strcmp(dstr(a, "wanted"), dstr(b, "wanted")) &&
	       !strcmp(dstr(a, "found"), dstr(b, "found"));
}

/*
 * Entry @i of @drift with the later ones that drift the same way, as one
 * item: "enp19s0np0, enp21s0np0, enp51s0np0 +6 gpudirect no dma-buf, want
 * ready"; nothing when an earlier entry drifts the same way (it was written).
 */
static void item_text(FILE *f, struct render_txt *tx, const json_t *drift, size_t i, bool *first)
{
	const json_t *d = json_array_get(drift, i);
	size_t j, n = 0;

	for (j = 0; j < i; j++)
		if (same_drift(json_array_get(drift, j), d))
			return;
	fprintf(f, "%s", *first ? "" : "; ");
	*first = false;
	for (j = i; j < json_array_size(drift); j++) {
		if (!same_drift(json_array_get(drift, j), d))
			continue;
		if (n < GROUP_IFS_MAX)
			fprintf(f, "%s%s", n ? ", " : "",
				render_txt(tx, dstr(json_array_get(drift, j), "interface")));
		n++;
	}
	if (n > GROUP_IFS_MAX)
		fprintf(f, " +%zu", n - GROUP_IFS_MAX);
	fprintf(f, " %s %s, want %s", render_txt(tx, dstr(d, "field")),
		render_txt(tx, dstr(d, "found")), render_txt(tx, dstr(d, "wanted")));
}

/* "  2 nodes: mlx5_1 pcie.width x8, want x16; ...: h3, h5" */
static void group_line(FILE *f, struct render_txt *tx, const json_t *g)
{
	const json_t *drift = json_object_get(g, "drift"), *nodes = json_object_get(g, "nodes");
	json_int_t count = json_integer_value(json_object_get(g, "count"));
	size_t i, n = json_array_size(nodes);
	bool first = true;

	fprintf(f, "  %lld node%s: ", (long long)count, count == 1 ? "" : "s");
	if (!json_array_size(drift))
		fprintf(f, "no PCIe drift");
	for (i = 0; i < json_array_size(drift); i++)
		item_text(f, tx, drift, i, &first);
	fprintf(f, ":");
	for (i = 0; i < n && i < GROUP_NAMES_MAX; i++)
		fprintf(f, "%s %s", i ? "," : "",
			render_txt(tx, fleet_doc_str(json_array_get(nodes, i))));
	if (n > GROUP_NAMES_MAX)
		fprintf(f, " and %zu more", n - GROUP_NAMES_MAX);
	fprintf(f, "\n");
}

/* The groups of @groups (pcie_fleet_drift_groups()), when any has drift. */
static void groups_text(FILE *f, const json_t *groups)
{
	struct render_txt tx = { .next = 0 };
	json_int_t total = 0, drifting = 0;
	const json_t *g;
	size_t i;

	json_array_foreach(groups, i, g) {
		json_int_t c = json_integer_value(json_object_get(g, "count"));

		total += c;
		if (json_array_size(json_object_get(g, "drift")))
			drifting += c;
	}
	if (!drifting)
		return;
	fprintf(f, "\nPCIe drift on %lld of %lld verified node%s, by group, largest first:\n",
		(long long)drifting, (long long)total, total == 1 ? "" : "s");
	json_array_foreach(groups, i, g)
		group_line(f, &tx, g);
}

int verify_fleet_text(struct render *out, const struct fleet_verify *v)
{
	const char *red = out->color ? "\033[31m" : "", *off = out->color ? "\033[0m" : "";
	long long n = (long long)v->run->n, failed = (long long)v->run->n_failed;
	long long drifted = (long long)v->n_drifted, n_drift = (long long)v->n_drift;
	FILE *f = out->f;
	int w = fleet_node_width(v->run);
	json_t *doc;

	fprintf(f, "verify %s on %lld node%s: %lld ok, %lld drifted (%lld drift%s), %lld failed\n",
		fleet_dash(v->profile), n, n == 1 ? "" : "s", n - failed - drifted, drifted,
		n_drift, n_drift == 1 ? "" : "s", failed);
	if (v->n_drift)
		fprintf(f, "%-*s %-16s %-18s %-20s %s\n", w, "NODE", "INTERFACE", "FIELD", "WANTED",
			"FOUND");
	for (size_t i = 0; i < v->n_drift; i++) {
		const struct fleet_drift *d = &v->drift[i];

		fprintf(f, "%-*s %-16s %-18s %-20s %s%s%s\n", w, fleet_dash(d->node),
			fleet_dash(d->interface), fleet_dash(d->field), fleet_dash(d->wanted), red,
			fleet_dash(d->found), off);
	}
	fleet_failed_print(out, v->run);
	doc = fleet_verify_to_json(v);
	if (!doc)
		return -ENOMEM;
	groups_text(f, json_object_get(doc, "pcie_groups"));
	verify_fleet_chains_text(f, json_object_get(doc, "chain_groups"));
	json_decref(doc);
	return fflush(f) == EOF ? -EIO : 0;
}
