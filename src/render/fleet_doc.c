// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What the renderers of the merged fleet documents (status, verify and
 * apply --hosts; built by src/fleet/fleet_op.c) share: the JSON
 * output is the document itself; the text tables print strings or "-",
 * and the nodes that failed.
 */
#include <stdio.h>
#include <string.h>

#include "render/render_impl.h"

const char *fleet_doc_str(const json_t *j)
{
	const char *s = json_string_value(j);

	return s && *s ? s : "-";
}

long long fleet_doc_int(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* The NODE column: as wide as the longest node name, 16 at least, so long names keep rows aligned. */
int fleet_doc_node_width(const json_t *doc)
{
	const json_t *n;
	size_t i, w = 16;

	json_array_foreach(json_object_get(doc, "nodes"), i, n) {
		size_t len = strlen(fleet_doc_str(json_object_get(n, "node")));

		if (len > w && len < 1024)
			w = len;
	}
	return (int)w;
}

void fleet_doc_failed_print(struct render *out, const json_t *doc)
{
	const char *red = out->color ? "\033[31m" : "", *off = out->color ? "\033[0m" : "";
	const json_t *n;
	size_t i;

	json_array_foreach(json_object_get(doc, "nodes"), i, n)
		if (!json_is_true(json_object_get(n, "ok")))
			fprintf(out->f, "%-*s %sFAILED: %s%s\n", fleet_doc_node_width(doc),
				fleet_doc_str(json_object_get(n, "node")), red,
				fleet_doc_str(json_object_get(n, "error")), off);
}

int fleet_doc_json(struct render *out, const json_t *doc)
{
	return render_json_emit(out, json_deep_copy(doc));
}
