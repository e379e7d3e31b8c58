// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * apply --hosts: the merged "fabricctl.fleet-apply/1" document (built by
 * src/fleet/fleet_op.c), as one step table with a NODE column plus a
 * line per failed node, or as the JSON document itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "render/render_impl.h"

int apply_fleet_text(struct render *out, const json_t *doc)
{
	const json_t *sum = json_object_get(doc, "summary"), *c;
	bool dry = json_is_true(json_object_get(doc, "dry_run"));
	FILE *f = out->f;
	int w = fleet_doc_node_width(doc);
	size_t i;

	fprintf(f, "apply %s%s on %lld node%s: %lld ok, %lld failed, %lld changed (%lld change%s)\n",
		fleet_doc_str(json_object_get(doc, "profile")), dry ? " (dry run)" : "",
		fleet_doc_int(sum, "nodes"), fleet_doc_int(sum, "nodes") == 1 ? "" : "s", fleet_doc_int(sum, "ok"),
		fleet_doc_int(sum, "failed"), fleet_doc_int(sum, "changed"), fleet_doc_int(sum, "n_changes"),
		fleet_doc_int(sum, "n_changes") == 1 ? "" : "s");
	if (json_array_size(json_object_get(doc, "changes"))) {
		fprintf(f, "%-*s %-11s %-16s %-16s %s\n", w, "NODE", "STATUS", "OBJECT", "FIELD",
			"FROM -> TO");
		json_array_foreach(json_object_get(doc, "changes"), i, c) {
			const char *st = fleet_doc_str(json_object_get(c, "status"));
			const json_t *fails = json_object_get(c, "fails");

			fprintf(f, "%-*s %-11s %-16s %-16s %s -> %s\n", w,
				fleet_doc_str(json_object_get(c, "node")),
				dry && json_is_string(fails) ? "WOULD-FAIL"
				: dry && !strcmp(st, "planned") ? "would" : st,
				fleet_doc_str(json_object_get(c, "object")),
				fleet_doc_str(json_object_get(c, "field")),
				fleet_doc_str(json_object_get(c, "from")),
				fleet_doc_str(json_object_get(c, "to")));
			if (dry && json_is_string(fails))
				fprintf(f, "%-*s %s\n", w, "", json_string_value(fails));
		}
	}
	fleet_doc_failed_print(out, doc);
	return fflush(f) == EOF ? -EIO : 0;
}
