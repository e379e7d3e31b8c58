// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status --hosts: the merged "fabricctl.fleet-status/1" document (built by
 * src/fleet/fleet_op.c from every node's "fabricctl.status/1"), as one
 * JSON document or one text table with a NODE column.
 */
#include <errno.h>
#include <stdio.h>

#include "render/render_impl.h"

int status_fleet_text(struct render *out, const json_t *doc)
{
	const json_t *nodes = json_object_get(doc, "nodes"), *node;
	FILE *f = out->f;
	int w = fleet_doc_node_width(doc);
	size_t i;

	fprintf(f, "%-*s %-16s %-8s %6s %10s %-10s %-8s\n", w,
		"NODE", "IFNAME", "STATE", "MTU", "SPEED", "DRIVER", "KIND");
	json_array_foreach(nodes, i, node) {
		const char *name = json_string_value(json_object_get(node, "node"));
		const json_t *st = json_object_get(node, "status"), *l, *d;
		size_t k;

		if (!json_is_true(json_object_get(node, "ok"))) {
			fprintf(f, "%-*s %s%s%s\n", w, name, out->color ? "\033[31m" : "",
				fleet_doc_str(json_object_get(node, "error")), out->color ? "\033[0m" : "");
			continue;
		}
		json_array_foreach(json_object_get(st, "links"), k, l) {
			const json_t *sp = json_object_get(l, "speed_mbps");
			char speed[24] = "-";

			if (json_is_integer(sp))
				snprintf(speed, sizeof(speed), "%lldMb/s", (long long)json_integer_value(sp));
			fprintf(f, "%-*s %-16s %-8s %6lld %10s %-10s %-8s\n", w, name,
				fleet_doc_str(json_object_get(l, "name")),
				fleet_doc_str(json_object_get(l, "operstate")),
				(long long)json_integer_value(json_object_get(l, "mtu")), speed,
				fleet_doc_str(json_object_get(l, "driver")),
				fleet_doc_str(json_object_get(l, "kind")));
		}
		json_array_foreach(json_object_get(st, "rdma"), k, d) {
			const json_t *p;
			size_t m;

			json_array_foreach(json_object_get(d, "ports"), m, p) {
				char port[96];

				snprintf(port, sizeof(port), "%s/%lld",
					 fleet_doc_str(json_object_get(d, "name")),
					 (long long)json_integer_value(json_object_get(p, "port")));
				fprintf(f, "%-*s %-16s %-8s %6lld %10s %-10s %-8s\n", w, name, port,
					fleet_doc_str(json_object_get(p, "state")),
					(long long)json_integer_value(json_object_get(p, "active_mtu")),
					fleet_doc_str(json_object_get(p, "speed")), "-",
					fleet_doc_str(json_object_get(p, "link_layer")));
			}
		}
	}
	status_pcie_fleet_text(f, doc);
	return fflush(f) == EOF ? -EIO : 0;
}
