// SPDX-License-Identifier: GPL-2.0-or-later
/* Generated fat trees (topo_gen.h). */
#include <errno.h>
#include <stdlib.h>

#include "util/str.h"
#include "model/topo_gen.h"

#define GEN_MAX_HOSTS (1u << 20)

struct gen {
	struct topo *t;
	int rc;
};

static struct topo_node *gen_node(struct gen *g, enum topo_node_type type, const char *prefix,
				  unsigned int i)
{
	char name[64];
	struct topo_node *n;

	if (g->rc)
		return NULL;
	str_fmt(name, sizeof(name), "%s%u", prefix, i);
	n = topo_node_add(g->t, type, name, 0);
	if (!n)
		g->rc = -ENOMEM;
	else
		n->src = TOPO_SRC_PLAN;
	return n;
}

static struct topo_port *gen_port(struct gen *g, struct topo_node *n, unsigned int mbps)
{
	char name[32];
	struct topo_port *p;

	if (g->rc || !n)
		return NULL;
	if (n->type == TOPO_NODE_HOST)
		str_fmt(name, sizeof(name), "eth%zu", n->n_ports);
	else
		str_fmt(name, sizeof(name), "swp%zu", n->n_ports + 1);
	p = topo_port_get(n, 0, name);
	if (!p) {
		g->rc = -ENOMEM;
		return NULL;
	}
	p->src = TOPO_SRC_PLAN;
	p->state = TOPO_PORT_ACTIVE;
	p->facts = TOPO_F_STATE;
	if (mbps) {
		p->facts |= TOPO_F_SPEED | TOPO_F_WIDTH;
		p->width_x = p->width_max_x = 1;
		p->lane_mbps = p->lane_max_mbps = mbps;
	}
	return p;
}

/* Cable a new port of @x to a new port of @y. */
static void gen_cable(struct gen *g, struct topo_node *x, struct topo_node *y, unsigned int mbps)
{
	struct topo_port *a = gen_port(g, x, mbps), *b = gen_port(g, y, mbps);

	if (!g->rc && a && b)
		g->rc = topo_link_add(g->t, a, b, TOPO_SRC_PLAN);
}

static int gen_finish(struct gen *g, struct topo **out)
{
	if (g->rc) {
		topo_free(g->t);
		return g->rc;
	}
	g->t->src = TOPO_SRC_PLAN;
	topo_sort(g->t);
	*out = g->t;
	return 0;
}

int topo_gen_leaf_spine(struct topo **out, const struct topo_gen_2l *c)
{
	unsigned int up = c->uplinks_per_spine ? c->uplinks_per_spine : 1, h = 1;
	struct topo_node **spine = NULL;
	struct gen g = { 0 };

	if (!c->leaves || !c->hosts_per_leaf ||
	    (unsigned long long)c->leaves * c->hosts_per_leaf > GEN_MAX_HOSTS ||
	    c->spines > GEN_MAX_HOSTS)
		return -EINVAL;
	g.t = topo_new();
	spine = calloc(c->spines + 1, sizeof(*spine));
	if (!g.t || !spine) {
		free(spine);
		topo_free(g.t);
		return -ENOMEM;
	}
	for (unsigned int s = 0; s < c->spines; s++)
		spine[s] = gen_node(&g, TOPO_NODE_SWITCH, "spine", s + 1);
	for (unsigned int l = 0; l < c->leaves && !g.rc; l++) {
		struct topo_node *leaf = gen_node(&g, TOPO_NODE_SWITCH, "leaf", l + 1);

		for (unsigned int i = 0; i < c->hosts_per_leaf; i++)
			gen_cable(&g, leaf, gen_node(&g, TOPO_NODE_HOST, "h", h++), c->host_mbps);
		for (unsigned int s = 0; s < c->spines; s++)
			for (unsigned int u = 0; u < up; u++)
				gen_cable(&g, leaf, spine[s], c->uplink_mbps);
	}
	free(spine);
	return gen_finish(&g, out);
}

int topo_gen_fat_tree(struct topo **out, const struct topo_gen_3l *c)
{
	unsigned long long hosts = (unsigned long long)c->pods * c->leaves_per_pod * c->hosts_per_leaf;
	unsigned int n_core = c->aggs_per_pod * c->cores_per_agg, h = 1, leaf_i = 1, agg_i = 1;
	struct topo_node **core = NULL, **agg = NULL;
	struct gen g = { 0 };

	if (!hosts || !c->aggs_per_pod || !c->cores_per_agg || hosts > GEN_MAX_HOSTS ||
	    n_core > GEN_MAX_HOSTS || (unsigned long long)c->aggs_per_pod * c->cores_per_agg > GEN_MAX_HOSTS)
		return -EINVAL;
	g.t = topo_new();
	core = calloc(n_core, sizeof(*core));
	agg = calloc(c->aggs_per_pod, sizeof(*agg));
	if (!g.t || !core || !agg) {
		g.rc = -ENOMEM;
		goto out;
	}
	for (unsigned int i = 0; i < n_core; i++)
		core[i] = gen_node(&g, TOPO_NODE_SWITCH, "spine", i + 1);
	for (unsigned int p = 0; p < c->pods && !g.rc; p++) {
		for (unsigned int a = 0; a < c->aggs_per_pod; a++) {
			agg[a] = gen_node(&g, TOPO_NODE_SWITCH, "agg", agg_i++);
			for (unsigned int k = 0; k < c->cores_per_agg; k++)
				gen_cable(&g, agg[a], core[a * c->cores_per_agg + k], c->core_mbps);
		}
		for (unsigned int l = 0; l < c->leaves_per_pod; l++) {
			struct topo_node *leaf = gen_node(&g, TOPO_NODE_SWITCH, "leaf", leaf_i++);

			for (unsigned int i = 0; i < c->hosts_per_leaf; i++)
				gen_cable(&g, leaf, gen_node(&g, TOPO_NODE_HOST, "h", h++), c->host_mbps);
			for (unsigned int a = 0; a < c->aggs_per_pod; a++)
				gen_cable(&g, leaf, agg[a], c->leaf_mbps);
		}
	}
out:
	free(core);
	free(agg);
	if (!g.t)
		return -ENOMEM;
	return gen_finish(&g, out);
}
