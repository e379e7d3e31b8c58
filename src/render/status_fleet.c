// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status --hosts as one text table with a NODE column: each node's links
 * and RDMA ports, read from its own "fabricctl.status/1" document (the
 * answer fleet/fleet_op.c collected); a node that could not be read is a
 * line with the reason; then the chain of each RoCE port
 * (render/status_chain_fleet.c).  JSON: render/fleet_doc.c (each node's
 * document as it answered, its ports' "chain" included).
 */
#include <errno.h>
#include <stdio.h>

#include "fleet/fleet_op.h"
#include "render/optics.h"
#include "render/render_impl.h"

#define ROW "%-*s %-16s %-8s %6lld %10s %-10s %-8s\n"

static void links_print(FILE *f, int w, const char *name, const json_t *st)
{
	const json_t *l;
	size_t k;

	json_array_foreach(json_object_get(st, "links"), k, l) {
		const json_t *sp = json_object_get(l, "speed_mbps");
		char speed[24] = "-";

		if (json_is_integer(sp))
			snprintf(speed, sizeof(speed), "%lldMb/s",
				 (long long)json_integer_value(sp));
		fprintf(f, ROW, w, name, fleet_doc_str(json_object_get(l, "name")),
			fleet_doc_str(json_object_get(l, "operstate")),
			(long long)json_integer_value(json_object_get(l, "mtu")), speed,
			fleet_doc_str(json_object_get(l, "driver")),
			fleet_doc_str(json_object_get(l, "kind")));
	}
}

static void ports_print(FILE *f, int w, const char *name, const json_t *st)
{
	const json_t *d, *p;
	size_t k, m;

	json_array_foreach(json_object_get(st, "rdma"), k, d) {
		json_array_foreach(json_object_get(d, "ports"), m, p) {
			char port[96];

			snprintf(port, sizeof(port), "%s/%lld",
				 fleet_doc_str(json_object_get(d, "name")),
				 (long long)json_integer_value(json_object_get(p, "port")));
			fprintf(f, ROW, w, name, port, fleet_doc_str(json_object_get(p, "state")),
				(long long)json_integer_value(json_object_get(p, "active_mtu")),
				fleet_doc_str(json_object_get(p, "speed")), "-",
				fleet_doc_str(json_object_get(p, "link_layer")));
		}
	}
}

/* Hosts of several fabric ports: each port of the hosts file, its state on its node. */
static void fabric_ports_print(FILE *f, int w, const struct fleet_run *run)
{
	json_t *ports = fleet_ports_json(run), *p;
	size_t k;

	fprintf(f, "\nfabric ports (hosts file):\n%-*s %-16s %4s %-39s %-8s %10s\n", w, "NODE",
		"IFNAME", "RAIL", "ADDRESS", "STATE", "SPEED");
	json_array_foreach(ports, k, p) {
		const json_t *sp = json_object_get(p, "speed_mbps"), *rail = json_object_get(p, "rail");
		char speed[24] = "-", r[16] = "-";

		if (json_is_integer(sp))
			snprintf(speed, sizeof(speed), "%lldMb/s", (long long)json_integer_value(sp));
		if (json_is_integer(rail))
			snprintf(r, sizeof(r), "%lld", (long long)json_integer_value(rail));
		fprintf(f, "%-*s %-16s %4s %-39s %-8s %10s\n", w,
			fleet_doc_str(json_object_get(p, "node")), fleet_doc_str(json_object_get(p, "ifname")),
			r, fleet_doc_str(json_object_get(p, "address")),
			json_is_string(json_object_get(p, "state"))
			? fleet_doc_str(json_object_get(p, "state")) : "unread", speed);
	}
	json_decref(ports);
}

int status_fleet_text(struct render *out, const struct fleet_run *run)
{
	FILE *f = out->f;
	int w = fleet_node_width(run);
	json_t *doc;

	fprintf(f, "%-*s %-16s %-8s %6s %10s %-10s %-8s\n", w,
		"NODE", "IFNAME", "STATE", "MTU", "SPEED", "DRIVER", "KIND");
	for (size_t i = 0; i < run->n; i++) {
		const struct fleet_answer *a = &run->nodes[i];

		if (!a->ok) {
			fprintf(f, "%-*s %s%s%s\n", w, a->node, out->color ? "\033[31m" : "",
				fleet_dash(a->error), out->color ? "\033[0m" : "");
			continue;
		}
		links_print(f, w, a->node, a->doc);
		ports_print(f, w, a->node, a->doc);
	}
	status_fleet_chains_text(f, w, run);
	if (run->ports && run->ports->n)
		fabric_ports_print(f, w, run);
	doc = fleet_status_to_json(run);
	if (doc) {
		status_pcie_fleet_text(f, doc);
		optics_fleet_text(f, doc);
	}
	json_decref(doc);
	return fflush(f) == EOF ? -EIO : 0;
}
