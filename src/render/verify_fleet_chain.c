// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts: the nodes grouped by their lossless chains (each
 * chain's verdict, break and path, interface names aside), largest group
 * first (ties: the group of the first node in the hosts file), so the
 * hosts whose chains differ stand out.  Read from each node's own
 * "fabricctl.verify/1" document ("chains"); nodes without chains are in
 * no group.
 *
 * JSON, the fleet document's "chain_groups" (docs/json-verify.md):
 *   [{"count": 2, "majority": true, "nodes": ["h1", "h2"],
 *     "chains": [{"verdict": "ok", "break": null, "path": "DSCP 26 → ..."}]}]
 *
 * Text, after the drift table, written from that array:
 *   chains: 2 kinds, by group, largest first:
 *     11 nodes ok: DSCP 26 → prio 3 → TC 3 → buffer 1: h1 h2 h3 ...
 *     1 node BROKEN (pfc_off): DSCP 26 → prio 4 → TC 4: h7
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "render/render_impl.h"

#define CHAIN_GROUPS_MAX 64

struct chain_group {
	char sig[512];		/* "ok: DSCP 26 → prio 3 → TC 3 → buffer 1" */
	const json_t *chains;	/* the first node's chains (borrowed) */
	json_t *nodes;		/* its nodes' names, hosts-file order */
	size_t n, first;	/* nodes; the index of the first in the run */
};

/* A node's chains as one signature: each chain's verdict, break and path, ";"-joined. */
static void chain_sig(const json_t *chains, char *sig, size_t len)
{
	const json_t *c;
	size_t i, off = 0;

	sig[0] = '\0';
	json_array_foreach(chains, i, c) {
		const char *brk = json_string_value(json_object_get(c, "break"));
		const char *path = json_string_value(json_object_get(c, "path"));
		const char *verdict = json_string_value(json_object_get(c, "verdict"));

		if (off < len)
			off += (size_t)snprintf(sig + off, len - off, "%s%s%s%s%s: %s", i ? "; " : "",
						verdict && !strcmp(verdict, "broken") ? "BROKEN" :
						verdict ? verdict : "?", brk ? " (" : "",
						brk ? brk : "", brk ? ")" : "", path && *path ? path : "-");
	}
}

static int chain_group_add(struct chain_group *g, size_t *n, const json_t *chains, size_t idx,
			   const char *node)
{
	char sig[512];
	size_t i;

	chain_sig(chains, sig, sizeof(sig));
	for (i = 0; i < *n && strcmp(g[i].sig, sig); i++)
		;
	if (i == *n) {
		if (*n == CHAIN_GROUPS_MAX)
			return 0;
		snprintf(g[i].sig, sizeof(g[i].sig), "%s", sig);
		g[i].chains = chains;
		g[i].first = idx;
		g[i].nodes = json_array();
		if (!g[i].nodes)
			return -1;
		(*n)++;
	}
	g[i].n++;
	return json_array_append_new(g[i].nodes, json_string(node));
}

static int group_cmp(const void *a, const void *b)
{
	const struct chain_group *x = a, *y = b;

	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* {verdict, break, path} of each chain of @chains. */
static json_t *chains_brief(const json_t *chains)
{
	json_t *a = json_array();
	const json_t *c;
	size_t i;

	json_array_foreach(chains, i, c) {
		json_t *e = json_pack("{s:O?, s:O?, s:O?}",
				      "verdict", json_object_get(c, "verdict"),
				      "break", json_object_get(c, "break"),
				      "path", json_object_get(c, "path"));

		if (!a || json_array_append_new(a, e) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *groups_json(struct chain_group *g, size_t n)
{
	json_t *a = json_array();

	qsort(g, n, sizeof(*g), group_cmp);
	for (size_t i = 0; a && i < n; i++) {
		json_t *e = json_pack("{s:I, s:b, s:O, s:o}", "count", (json_int_t)g[i].n,
				      "majority", i == 0, "nodes", g[i].nodes,
				      "chains", chains_brief(g[i].chains));

		if (json_array_append_new(a, e) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

json_t *verify_fleet_chain_groups(const struct fleet_run *run)
{
	struct chain_group *g = calloc(CHAIN_GROUPS_MAX, sizeof(*g));
	json_t *a = NULL;
	size_t n = 0, i;

	if (!g)
		return NULL;
	for (i = 0; i < run->n; i++) {
		const json_t *chains = run->nodes[i].doc ?
				       json_object_get(run->nodes[i].doc, "chains") : NULL;

		if (!json_is_array(chains) || !json_array_size(chains))
			continue;
		if (chain_group_add(g, &n, chains, i, run->nodes[i].node) < 0)
			break;
	}
	if (i == run->n)
		a = groups_json(g, n);
	for (i = 0; i < n; i++)
		json_decref(g[i].nodes);
	free(g);
	return a;
}

/* "a b c", cut short with " ..." where it would pass @len. */
static void nodes_line(const json_t *nodes, char *buf, size_t len)
{
	const json_t *s;
	size_t i, l = 0;

	buf[0] = '\0';
	json_array_foreach(nodes, i, s) {
		const char *node = json_string_value(s) ? json_string_value(s) : "-";

		if (l + strlen(node) + 5 >= len) {
			snprintf(buf + l, len - l, " ...");
			return;
		}
		l += (size_t)snprintf(buf + l, len - l, "%s%s", l ? " " : "", node);
	}
}

void verify_fleet_chains_text(FILE *f, const json_t *groups)
{
	struct render_txt tx = { .next = 0 };
	char sig[512], nodes[1024];
	const json_t *g;
	size_t i, n = json_array_size(groups);

	if (n)
		fprintf(f, "\nchains: %zu kind%s, by group, largest first:\n", n,
			n == 1 ? "" : "s");
	json_array_foreach(groups, i, g) {
		json_int_t c = json_integer_value(json_object_get(g, "count"));

		chain_sig(json_object_get(g, "chains"), sig, sizeof(sig));
		nodes_line(json_object_get(g, "nodes"), nodes, sizeof(nodes));
		fprintf(f, "  %lld node%s %s: %s\n", (long long)c, c == 1 ? "" : "s",
			render_txt(&tx, sig), render_txt(&tx, nodes));
	}
}
