// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * apply --hosts: the merged "fabricctl.fleet-apply/1" document (built by
 * src/fleet/fleet_status.c), as one step table with a NODE column plus a
 * line per failed node, or as the JSON document itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "out/out_impl.h"

static const char *str_or_dash(const json_t *j)
{
	const char *s = json_string_value(j);

	return s && *s ? s : "-";
}

static long long num(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

int apply_fleet_text(struct fab_out *out, const json_t *doc)
{
	const json_t *sum = json_object_get(doc, "summary"), *c, *n;
	const char *red = out->color ? "\033[31m" : "", *off = out->color ? "\033[0m" : "";
	bool dry = json_is_true(json_object_get(doc, "dry_run"));
	FILE *f = out->f;
	size_t i;

	fprintf(f, "apply %s%s on %lld node%s: %lld ok, %lld failed, %lld changed (%lld change%s)\n",
		str_or_dash(json_object_get(doc, "profile")), dry ? " (dry run)" : "",
		num(sum, "nodes"), num(sum, "nodes") == 1 ? "" : "s", num(sum, "ok"),
		num(sum, "failed"), num(sum, "changed"), num(sum, "n_changes"),
		num(sum, "n_changes") == 1 ? "" : "s");
	if (json_array_size(json_object_get(doc, "changes"))) {
		fprintf(f, "%-16s %-11s %-16s %-16s %s\n", "NODE", "STATUS", "OBJECT", "FIELD",
			"FROM -> TO");
		json_array_foreach(json_object_get(doc, "changes"), i, c) {
			const char *st = str_or_dash(json_object_get(c, "status"));

			fprintf(f, "%-16s %-11s %-16s %-16s %s -> %s\n",
				str_or_dash(json_object_get(c, "node")),
				dry && !strcmp(st, "planned") ? "would" : st,
				str_or_dash(json_object_get(c, "object")),
				str_or_dash(json_object_get(c, "field")),
				str_or_dash(json_object_get(c, "from")),
				str_or_dash(json_object_get(c, "to")));
		}
	}
	json_array_foreach(json_object_get(doc, "nodes"), i, n)
		if (!json_is_true(json_object_get(n, "ok")))
			fprintf(f, "%-16s %sFAILED: %s%s\n", str_or_dash(json_object_get(n, "node")),
				red, str_or_dash(json_object_get(n, "error")), off);
	return fflush(f) == EOF ? -EIO : 0;
}

int apply_fleet_json(struct fab_out *out, const json_t *doc)
{
	return out_json_emit(out, json_deep_copy(doc));
}
