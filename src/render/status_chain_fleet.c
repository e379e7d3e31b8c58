// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status --hosts, after the table: the lossless chain of each node's RoCE
 * ports, one line a port, the same line `status` prints on the node
 * (render/chain_text.c), read back from the "chain" of each port of the
 * node's own "fabricctl.status/1" document (docs/json-status.md):
 *
 *   chains (RoCE ports):
 *   NODE             CHAIN
 *   h1               eth0 (mlx5_0/1) ok: DSCP 26 → prio 3 → TC 3 → buffer 1, PFC on
 *   h2               eth0 (mlx5_0/1) BROKEN: DSCP 26 → prio 4 → TC 4, but PFC is off on priority 4
 *
 * Nothing when no node reports a chain (InfiniBand, no RDMA, veth).
 */
#include <stdio.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "model/lossless.h"
#include "render/render_impl.h"

static void str_copy(char *dst, size_t len, const json_t *j)
{
	snprintf(dst, len, "%s", json_is_string(j) ? json_string_value(j) : "");
}

static int int_or(const json_t *j, int dflt)
{
	return json_is_integer(j) ? (int)json_integer_value(j) : dflt;
}

/* "mlx5_0/1" into rdma_dev and rdma_port; "" when null. */
static void chain_rdma(struct lossless_chain *c, const json_t *j)
{
	char *slash;

	str_copy(c->rdma_dev, sizeof(c->rdma_dev), j);
	slash = strrchr(c->rdma_dev, '/');
	if (!slash)
		return;
	*slash = '\0';
	sscanf(slash + 1, "%u", &c->rdma_port);
}

/* What chain_text() shows of a chain, back from its JSON (verify_json.c's chain_to_json()). */
static void chain_from_json(const json_t *j, struct lossless_chain *c)
{
	const char *v = json_string_value(json_object_get(j, "verdict"));
	const json_t *cnp = json_object_get(j, "cnp"), *gid = json_object_get(j, "gid");

	memset(c, 0, sizeof(*c));
	c->verdict = v && !strcmp(v, "ok") ? LOSSLESS_OK :
		     v && !strcmp(v, "broken") ? LOSSLESS_BROKEN : LOSSLESS_UNKNOWN;
	str_copy(c->ifname, sizeof(c->ifname), json_object_get(j, "interface"));
	chain_rdma(c, json_object_get(j, "rdma"));
	str_copy(c->path, sizeof(c->path), json_object_get(j, "path"));
	str_copy(c->finding, sizeof(c->finding), json_object_get(j, "finding"));
	str_copy(c->why, sizeof(c->why), json_object_get(j, "why"));
	c->prio = int_or(json_object_get(j, "prio"), -1);
	c->pfc = json_is_true(json_object_get(j, "pfc"));
	c->cnp_prio = int_or(json_object_get(cnp, "prio"), -1);
	c->cnp_tc = int_or(json_object_get(cnp, "tc"), -1);
	c->gid_index = int_or(json_object_get(gid, "index"), -1);
	str_copy(c->addr, sizeof(c->addr), json_object_get(gid, "address"));
}

/* Each chain of node @name's status document @st; the header first, once (*@head). */
static void node_chains_print(FILE *f, struct render_txt *tx, int w, const char *name,
			      const json_t *st, bool *head)
{
	struct lossless_chain c;
	const json_t *d, *p, *j;
	char line[700];
	size_t k, m;

	json_array_foreach(json_object_get(st, "rdma"), k, d) {
		json_array_foreach(json_object_get(d, "ports"), m, p) {
			j = json_object_get(p, "chain");
			if (!json_is_object(j))
				continue;
			if (!*head)
				fprintf(f, "\nchains (RoCE ports):\n%-*s %s\n", w, "NODE", "CHAIN");
			*head = true;
			chain_from_json(j, &c);
			fprintf(f, "%-*s %s\n", w, render_txt(tx, name),
				render_txt(tx, chain_text(&c, line, sizeof(line))));
		}
	}
}

void status_fleet_chains_text(FILE *f, int w, const struct fleet_run *run)
{
	struct render_txt tx = { .next = 0 };
	bool head = false;

	for (size_t i = 0; i < run->n; i++)
		if (run->nodes[i].ok && run->nodes[i].doc)
			node_chains_print(f, &tx, w, run->nodes[i].node, run->nodes[i].doc, &head);
}
