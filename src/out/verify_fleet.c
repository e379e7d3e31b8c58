// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts: the merged "fabricctl.fleet-verify/1" document (built by
 * src/fleet/fleet_status.c), as one drift table with a NODE column plus
 * the nodes that could not be verified, or as the JSON document itself.
 */
#include <errno.h>
#include <stdio.h>

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

int verify_fleet_text(struct fab_out *out, const json_t *doc)
{
	const json_t *sum = json_object_get(doc, "summary"), *d, *n;
	const char *red = out->color ? "\033[31m" : "", *off = out->color ? "\033[0m" : "";
	FILE *f = out->f;
	size_t i;

	fprintf(f, "verify %s on %lld node%s: %lld ok, %lld drifted (%lld drift%s), %lld failed\n",
		str_or_dash(json_object_get(doc, "profile")), num(sum, "nodes"),
		num(sum, "nodes") == 1 ? "" : "s", num(sum, "ok"), num(sum, "drifted"),
		num(sum, "n_drift"), num(sum, "n_drift") == 1 ? "" : "s", num(sum, "failed"));
	if (json_array_size(json_object_get(doc, "drift"))) {
		fprintf(f, "%-16s %-16s %-18s %-20s %s\n", "NODE", "INTERFACE", "FIELD", "WANTED",
			"FOUND");
		json_array_foreach(json_object_get(doc, "drift"), i, d)
			fprintf(f, "%-16s %-16s %-18s %-20s %s%s%s\n",
				str_or_dash(json_object_get(d, "node")),
				str_or_dash(json_object_get(d, "interface")),
				str_or_dash(json_object_get(d, "field")),
				str_or_dash(json_object_get(d, "wanted")), red,
				str_or_dash(json_object_get(d, "found")), off);
	}
	json_array_foreach(json_object_get(doc, "nodes"), i, n)
		if (!json_is_true(json_object_get(n, "ok")))
			fprintf(f, "%-16s %sFAILED: %s%s\n", str_or_dash(json_object_get(n, "node")),
				red, str_or_dash(json_object_get(n, "error")), off);
	return fflush(f) == EOF ? -EIO : 0;
}

int verify_fleet_json(struct fab_out *out, const json_t *doc)
{
	return out_json_emit(out, json_deep_copy(doc));
}
