// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status --hosts: the nodes grouped by their PCIe picture
 * (model/pcie_fleet.h), after the table in text, as "pcie_groups" in the
 * "fabricctl.fleet-status/1" document.
 */
#include <stdio.h>

#include "model/pcie_fleet.h"
#include "render/render_impl.h"

/* The groups into the fleet-status document @doc (owned by the caller). */
void status_pcie_fleet_json(json_t *doc)
{
	if (doc)
		json_object_set_new(doc, "pcie_groups",
				    pcie_fleet_groups(json_object_get(doc, "nodes")));
}

static void group_text(FILE *f, struct render_txt *tx, const json_t *g)
{
	const json_t *nodes = json_object_get(g, "nodes"), *d;
	size_t i, n = json_array_size(nodes);

	fprintf(f, "  ");
	for (i = 0; i < n && i < 8; i++)
		fprintf(f, "%s%s", i ? ", " : "", render_txt(tx, json_string_value(json_array_get(nodes, i))));
	if (n > 8)
		fprintf(f, " and %zu more", n - 8);
	fprintf(f, ":\n");
	json_array_foreach(json_object_get(g, "differs"), i, d)
		fprintf(f, "    %s: %s (majority: %s)\n",
			render_txt(tx, json_string_value(json_object_get(d, "what"))),
			render_txt(tx, json_string_value(json_object_get(d, "here"))),
			render_txt(tx, json_string_value(json_object_get(d, "majority"))));
}

void status_pcie_fleet_text(FILE *f, const json_t *doc)
{
	json_t *groups = pcie_fleet_groups(json_object_get(doc, "nodes")), *g;
	struct render_txt tx = { .next = 0 };
	json_int_t total = 0, most;
	size_t i;

	if (!groups || !json_array_size(groups)) {
		json_decref(groups);
		return;
	}
	json_array_foreach(groups, i, g)
		total += json_integer_value(json_object_get(g, "count"));
	most = json_integer_value(json_object_get(json_array_get(groups, 0), "count"));
	if (most == total) {
		fprintf(f, "\nPCIe: all %lld nodes alike\n", (long long)total);
	} else {
		fprintf(f, "\nPCIe: %lld of %lld nodes alike; %lld differ:\n", (long long)most,
			(long long)total, (long long)(total - most));
		for (i = 1; i < json_array_size(groups); i++)
			group_text(f, &tx, json_array_get(groups, i));
	}
	json_decref(groups);
}
