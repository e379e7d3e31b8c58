// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status --hosts: every node's cable ends (the "modules" of its
 * "fabricctl.status/1" answer, read and judged on the node when the
 * controller asks, docs/worker-protocol.md) grouped by verdict, worst
 * first: in text after the PCIe groups, one line per cable end that is
 * not healthy with its first finding and hint, the healthy ones counted;
 * as "module_groups" in "fabricctl.fleet-status/1".  Built from the
 * fleet document, as the PCIe groups are (render/status_pcie_fleet.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "render/optics.h"
#include "render/render_impl.h"

/* A string member's value, "-" when it is not one. */
static const char *jstr(const json_t *j)
{
	return json_is_string(j) ? json_string_value(j) : "-";
}

static const char *const levels[] = { "failing", "marginal", "unknown", "healthy" };
#define N_LEVELS (sizeof(levels) / sizeof(levels[0]))

/* The finding that stands for @verdict: the first at its level (optics_verdict_worst()). */
static const json_t *worst(const json_t *verdict)
{
	const char *h = json_string_value(json_object_get(verdict, "health"));
	const json_t *f;
	size_t i;

	json_array_foreach(json_object_get(verdict, "findings"), i, f)
		if (h && strcmp(jstr(json_object_get(f, "level")), h) == 0)
			return f;
	return NULL;
}

/* One cable end of @node as a group entry (members the port lacks are null). */
static json_t *entry(const char *node, const json_t *port)
{
	const json_t *m = json_object_get(port, "module");
	const json_t *w = worst(json_object_get(port, "verdict"));

	const json_t *text = w ? json_object_get(w, "text") : json_object_get(port, "module_error");

	return json_pack("{s:s, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?, s:O?}", "node", node,
			 "ifname", json_object_get(port, "ifname"),
			 "type", json_object_get(m, "type"), "vendor", json_object_get(m, "vendor"),
			 "pn", json_object_get(m, "pn"), "sn", json_object_get(m, "sn"),
			 "finding", text, "hint", w ? json_object_get(w, "hint") : NULL);
}

/* Count @port of @node in group @g; @list: as an entry too.  A node is named once. */
static void group_add(json_t *g, const char *node, const json_t *port, bool list)
{
	json_t *nodes = json_object_get(g, "nodes");
	size_t n = json_array_size(nodes);

	json_object_set_new(g, "count", json_integer(json_integer_value(json_object_get(g, "count"))
						     + 1));
	if (!n || strcmp(jstr(json_array_get(nodes, n - 1)), node) != 0)
		json_array_append_new(nodes, json_string(node));
	if (list)
		json_array_append_new(json_object_get(g, "ports"), entry(node, port));
}

/*
 * [{"health", "count", "nodes": [...], "ports": [entry...]}] worst first,
 * levels with no cable end left out; healthy ports are counted, not listed.
 * *@not_read: nodes whose answer has no "modules".
 */
static json_t *groups(const json_t *nodes, size_t *not_read)
{
	json_t *g[N_LEVELS], *out = json_array();
	const json_t *n, *p;
	size_t i, k;

	*not_read = 0;
	for (k = 0; k < N_LEVELS; k++)
		g[k] = json_pack("{s:s, s:i, s:[], s:[]}", "health", levels[k], "count", 0, "nodes",
				 "ports");
	json_array_foreach(nodes, i, n) {
		const char *node = jstr(json_object_get(n, "node"));
		const json_t *mods = json_object_get(json_object_get(n, "status"), "modules");

		if (!json_is_array(mods)) {
			*not_read += 1;
			continue;
		}
		json_array_foreach(mods, k, p) {
			const char *h = jstr(json_object_get(json_object_get(p, "verdict"),
								      "health"));
			size_t l = 0;

			while (l < N_LEVELS - 1 && strcmp(levels[l], h) != 0)
				l++;
			group_add(g[l], node, p, strcmp(levels[l], "healthy") != 0);
		}
	}
	for (k = 0; k < N_LEVELS; k++) {
		if (g[k] && json_integer_value(json_object_get(g[k], "count")))
			json_array_append(out, g[k]);
		json_decref(g[k]);
	}
	return out;
}

void optics_fleet_json(json_t *doc)
{
	size_t not_read;

	if (doc)
		json_object_set_new(doc, "module_groups",
				    groups(json_object_get(doc, "nodes"), &not_read));
}

static void port_text(FILE *f, struct render_txt *tx, const json_t *e)
{
	const char *hint = json_string_value(json_object_get(e, "hint"));

	fprintf(f, "    %s %s", render_txt(tx, jstr(json_object_get(e, "node"))),
		render_txt(tx, jstr(json_object_get(e, "ifname"))));
	if (json_is_string(json_object_get(e, "type")))
		fprintf(f, " %s %s %s sn %s", jstr(json_object_get(e, "type")),
			render_txt(tx, jstr(json_object_get(e, "vendor"))),
			render_txt(tx, jstr(json_object_get(e, "pn"))),
			render_txt(tx, jstr(json_object_get(e, "sn"))));
	fprintf(f, ": %s%s%s\n", render_txt(tx, jstr(json_object_get(e, "finding"))),
		hint ? "; " : "", hint ? render_txt(tx, hint) : "");
}

void optics_fleet_text(FILE *f, const json_t *doc)
{
	const json_t *nodes = json_object_get(doc, "nodes"), *g, *e;
	struct render_txt tx = { .next = 0 };
	size_t not_read, i, k, total = 0;
	json_t *gs = groups(nodes, &not_read);

	json_array_foreach(gs, i, g)
		total += (size_t)json_integer_value(json_object_get(g, "count"));
	if (!total) {
		json_decref(gs);
		return;
	}
	fprintf(f, "\nmodules: %zu node%s read, %zu cable end%s:", json_array_size(nodes) - not_read,
		json_array_size(nodes) - not_read == 1 ? "" : "s", total, total == 1 ? "" : "s");
	json_array_foreach(gs, i, g)
		fprintf(f, "%s %lld %s", i ? "," : "",
			(long long)json_integer_value(json_object_get(g, "count")),
			jstr(json_object_get(g, "health")));
	if (not_read)
		fprintf(f, "; %zu node%s not read", not_read, not_read == 1 ? "" : "s");
	fputc('\n', f);
	json_array_foreach(gs, i, g) {
		if (!json_array_size(json_object_get(g, "ports")))
			continue;
		fprintf(f, "  %s:\n", jstr(json_object_get(g, "health")));
		json_array_foreach(json_object_get(g, "ports"), k, e)
			port_text(f, &tx, e);
	}
	json_decref(gs);
}
