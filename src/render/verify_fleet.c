// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts: the merged "fabricctl.fleet-verify/1" document (built by
 * src/fleet/fleet_op.c), as one drift table with a NODE column plus
 * the nodes that could not be verified, or as the JSON document itself.
 */
#include <errno.h>
#include <stdio.h>

#include "render/render_impl.h"

int verify_fleet_text(struct render *out, const json_t *doc)
{
	const json_t *sum = json_object_get(doc, "summary"), *d;
	const char *red = out->color ? "\033[31m" : "", *off = out->color ? "\033[0m" : "";
	FILE *f = out->f;
	int w = fleet_doc_node_width(doc);
	size_t i;

	fprintf(f, "verify %s on %lld node%s: %lld ok, %lld drifted (%lld drift%s), %lld failed\n",
		fleet_doc_str(json_object_get(doc, "profile")), fleet_doc_int(sum, "nodes"),
		fleet_doc_int(sum, "nodes") == 1 ? "" : "s", fleet_doc_int(sum, "ok"), fleet_doc_int(sum, "drifted"),
		fleet_doc_int(sum, "n_drift"), fleet_doc_int(sum, "n_drift") == 1 ? "" : "s", fleet_doc_int(sum, "failed"));
	if (json_array_size(json_object_get(doc, "drift"))) {
		fprintf(f, "%-*s %-16s %-18s %-20s %s\n", w, "NODE", "INTERFACE", "FIELD", "WANTED",
			"FOUND");
		json_array_foreach(json_object_get(doc, "drift"), i, d)
			fprintf(f, "%-*s %-16s %-18s %-20s %s%s%s\n", w,
				fleet_doc_str(json_object_get(d, "node")),
				fleet_doc_str(json_object_get(d, "interface")),
				fleet_doc_str(json_object_get(d, "field")),
				fleet_doc_str(json_object_get(d, "wanted")), red,
				fleet_doc_str(json_object_get(d, "found")), off);
	}
	fleet_doc_failed_print(out, doc);
	return fflush(f) == EOF ? -EIO : 0;
}
