// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts, after the drift table: the nodes grouped by their
 * lossless chains (each chain's verdict, break and path, interface names
 * aside), largest group first, so the hosts whose chains differ stand out:
 *
 *   chains: 2 kinds, by group, largest first:
 *     11 nodes ok: DSCP 26 → prio 3 → TC 3 → buffer 1: h1 h2 h3 ...
 *     1 node BROKEN (pfc_off): DSCP 26 → prio 4 → TC 4: h7
 *
 * Read from each node's own "fabricctl.verify/1" document ("chains").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "render/render_impl.h"

#define CHAIN_GROUPS_MAX 64

struct chain_group {
	char sig[512];		/* "ok: DSCP 26 → prio 3 → TC 3 → buffer 1" */
	char nodes[1024];	/* "a b c" (cut short with "..." when long) */
	size_t n;
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

static void chain_group_add(struct chain_group *g, size_t *n, const char *sig, const char *node)
{
	size_t i, l;

	for (i = 0; i < *n && strcmp(g[i].sig, sig); i++)
		;
	if (i == *n) {
		if (*n == CHAIN_GROUPS_MAX)
			return;
		snprintf(g[i].sig, sizeof(g[i].sig), "%s", sig);
		(*n)++;
	}
	g[i].n++;
	l = strlen(g[i].nodes);
	if (l + strlen(node) + 5 < sizeof(g[i].nodes))
		snprintf(g[i].nodes + l, sizeof(g[i].nodes) - l, "%s%s", l ? " " : "", node);
	else if (!strstr(g[i].nodes, "..."))
		snprintf(g[i].nodes + l, sizeof(g[i].nodes) - l, " ...");
}

static int group_cmp(const void *a, const void *b)
{
	const struct chain_group *x = a, *y = b;

	return x->n == y->n ? 0 : x->n > y->n ? -1 : 1;
}

void verify_fleet_chains_text(FILE *f, const struct fleet_run *run)
{
	struct render_txt tx = { .next = 0 };
	struct chain_group *g = calloc(CHAIN_GROUPS_MAX, sizeof(*g));
	size_t n = 0;
	char sig[512];

	if (!g)
		return;
	for (size_t i = 0; i < run->n; i++) {
		const json_t *chains = run->nodes[i].doc ?
				       json_object_get(run->nodes[i].doc, "chains") : NULL;

		if (!json_is_array(chains) || !json_array_size(chains))
			continue;
		chain_sig(chains, sig, sizeof(sig));
		chain_group_add(g, &n, sig, run->nodes[i].node);
	}
	qsort(g, n, sizeof(*g), group_cmp);
	if (n)
		fprintf(f, "\nchains: %zu kind%s, by group, largest first:\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %zu node%s %s: %s\n", g[i].n, g[i].n == 1 ? "" : "s",
			render_txt(&tx, g[i].sig), render_txt(&tx, g[i].nodes));
	free(g);
}
