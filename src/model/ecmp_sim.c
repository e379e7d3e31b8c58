// SPDX-License-Identifier: GPL-2.0-or-later
/* A simulated per-switch ECMP hash (ecmp_sim.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/ecmp_sim.h"

#define FAR 255

struct ecmp_sim {
	const struct route *r;
	uint64_t *seed;		/* per node */
	uint8_t *dist;		/* [leaf][node]: switch hops to the leaf, FAR unreachable */
	uint32_t *link_a;	/* per link: node index of its a end */
	uint32_t *queue;
	uint32_t *nb_start;	/* per node: its switch neighbours nb[nb_start[i] ..] */
	struct route_adj *nb;
};

void ecmp_sim_free(struct ecmp_sim *s)
{
	if (!s)
		return;
	free(s->seed);
	free(s->dist);
	free(s->link_a);
	free(s->queue);
	free(s->nb_start);
	free(s->nb);
	free(s);
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static bool is_switch(const struct route *r, uint32_t node)
{
	return r->topo->nodes[node]->type != TOPO_NODE_HOST;
}

/* Breadth first from leaf @l over switches only. */
static void dist_fill(struct ecmp_sim *s, size_t l)
{
	const struct route *r = s->r;
	uint8_t *d = s->dist + l * r->n_nodes;
	size_t head = 0, tail = 0;

	memset(d, FAR, r->n_nodes);
	d[r->leaves[l]] = 0;
	s->queue[tail++] = r->leaves[l];
	while (head < tail) {
		uint32_t u = s->queue[head++];

		for (uint32_t k = r->adj_start[u]; k < r->adj_start[u + 1]; k++) {
			uint32_t v = r->adj[k].node;

			if (d[v] != FAR || !is_switch(r, v) || d[u] + 1 >= FAR)
				continue;
			d[v] = (uint8_t)(d[u] + 1);
			s->queue[tail++] = v;
		}
	}
}

/* Each node's neighbours that are switches (a leaf's hosts are never a next hop). */
static void nb_fill(struct ecmp_sim *s)
{
	const struct route *r = s->r;
	uint32_t k = 0;

	for (size_t u = 0; u < r->n_nodes; u++) {
		s->nb_start[u] = k;
		for (uint32_t a = r->adj_start[u]; a < r->adj_start[u + 1]; a++)
			if (is_switch(r, r->adj[a].node))
				s->nb[k++] = r->adj[a];
	}
	s->nb_start[r->n_nodes] = k;
}

int ecmp_sim_new(struct ecmp_sim **out, const struct route *r, uint64_t seed)
{
	struct ecmp_sim *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->r = r;
	s->seed = calloc(r->n_nodes + 1, sizeof(*s->seed));
	s->dist = malloc(r->n_leaves * r->n_nodes + 1);
	s->link_a = calloc(r->n_links + 1, sizeof(*s->link_a));
	s->queue = calloc(r->n_nodes + 1, sizeof(*s->queue));
	s->nb_start = calloc(r->n_nodes + 1, sizeof(*s->nb_start));
	s->nb = calloc(r->adj_start[r->n_nodes] + 1, sizeof(*s->nb));
	if (!s->seed || !s->dist || !s->link_a || !s->queue || !s->nb_start || !s->nb) {
		ecmp_sim_free(s);
		return -ENOMEM;
	}
	if (!r->hosts) {
		ecmp_sim_free(s);
		return -EINVAL;
	}
	for (size_t i = 0; i < r->n_nodes; i++)
		s->seed[i] = mix64(seed ^ mix64(i + 1));
	for (size_t l = 0; l < r->n_links; l++)
		s->link_a[l] = route_node_index(r, r->topo->links[l]->a->node);
	for (size_t l = 0; l < r->n_leaves; l++)
		dist_fill(s, l);
	nb_fill(s);
	*out = s;
	return 0;
}

uint32_t ecmp_sim_link_a(const struct ecmp_sim *s, uint32_t link)
{
	return s->link_a[link];
}

static uint64_t flow_hash(const struct ecmp_flow *f, uint64_t seed)
{
	uint64_t h = seed;

	h = mix64(h ^ f->src);
	h = mix64(h ^ ((uint64_t)f->dst << 8 | f->proto));
	return mix64(h ^ ((uint64_t)f->sport << 16 | f->dport));
}

static struct path_hop hop_of(const struct ecmp_sim *s, uint32_t link, uint32_t from)
{
	return (struct path_hop){ .link = link, .fwd = s->link_a[link] == from };
}

/* The member switch @u's hash picks towards leaf @l at distance @du; ROUTE_NONE: none. */
static uint32_t next_hop(const struct ecmp_sim *s, uint32_t u, size_t l, const struct ecmp_flow *f,
			 uint32_t *link)
{
	const struct route *r = s->r;
	const uint8_t *d = s->dist + l * r->n_nodes;
	uint32_t n = 0, pick;

	for (uint32_t k = s->nb_start[u]; k < s->nb_start[u + 1]; k++)
		n += d[s->nb[k].node] + 1 == d[u];
	if (!n)
		return ROUTE_NONE;
	pick = (uint32_t)(flow_hash(f, s->seed[u]) % n);
	for (uint32_t k = s->nb_start[u]; k < s->nb_start[u + 1]; k++)
		if (d[s->nb[k].node] + 1 == d[u] && !pick--) {
			*link = s->nb[k].link;
			return s->nb[k].node;
		}
	return ROUTE_NONE;
}

int ecmp_sim_path(const struct ecmp_sim *s, const struct ecmp_flow *f, struct path_hop *hops,
		  size_t room, size_t *n)
{
	const struct route *r = s->r;
	const struct route_host *ha, *hb;
	uint32_t u;
	size_t k = 0;

	*n = 0;
	if (f->src == f->dst || f->src >= r->n_hosts || f->dst >= r->n_hosts)
		return -EINVAL;
	ha = &r->hosts[f->src];
	hb = &r->hosts[f->dst];
	if (room < 2)
		return -E2BIG;
	hops[k++] = hop_of(s, ha->link, ha->node);
	u = ha->attach;
	if (s->dist[hb->leaf * r->n_nodes + u] == FAR)
		return -ENETUNREACH;
	while (u != hb->attach) {
		uint32_t link = 0, v = next_hop(s, u, hb->leaf, f, &link);

		if (v == ROUTE_NONE)
			return -ENETUNREACH;
		if (k + 1 >= room)
			return -E2BIG;
		hops[k++] = hop_of(s, link, u);
		u = v;
	}
	hops[k++] = hop_of(s, hb->link, hb->attach);
	*n = k;
	return 0;
}
