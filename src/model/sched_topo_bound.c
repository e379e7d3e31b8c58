// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Topology-aware sweep rounds (sched_topo.h): cap(L, e), and the lower
 * bound's accumulator (sched_topo.h "Lower bound": node, link and cut),
 * filled by the packer's set-up and the generator's.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched_topo_impl.h"

double sched_topo_cap(const struct route *r, uint32_t link, double expected_mbps)
{
	double rate = r->link_mbps[link];

	if (rate <= 0 || expected_mbps <= 0)
		return 1;
	rate = floor(rate / expected_mbps + EPS);
	return rate < 1 ? 1 : rate;
}

/* ---- bounds ---- */

int bacc_init(struct bound_acc *ba, struct route *r)
{
	memset(ba, 0, sizeof(*ba));
	ba->r = r;
	ba->load = calloc(r->n_links + 1, sizeof(*ba->load));
	ba->x = calloc(r->n_leaves + 1, sizeof(*ba->x));
	ba->emin = calloc(r->n_leaves + 1, sizeof(*ba->emin));
	return ba->load && ba->x && ba->emin ? 0 : -ENOMEM;
}

void bacc_fini(struct bound_acc *ba)
{
	free(ba->load);
	free(ba->x);
	free(ba->emin);
}

/* @count pairs between leaves la and lb whose expected rates are at least @e_lo (0 unknown). */
void bacc_add(struct bound_acc *ba, uint32_t la, uint32_t lb, const struct route_load *items,
		     size_t n, double e_lo, double count)
{
	struct cap_memo memo = { .rate = -1 };

	for (size_t i = 0; i < n; i++)
		ba->load[items[i].link] += count * items[i].share / cap_of(&memo, ba->r, items[i].link, e_lo);
	ba->x[la] += count;
	ba->x[lb] += count;
	ba->x_total += count;
	ba->emin[la] = min_known(ba->emin[la], e_lo);
	ba->emin[lb] = min_known(ba->emin[lb], e_lo);
}

/* Capacity of leaf @l's uplink cut in tests: min(hosts, sum of cap(L, emin)). */
double leaf_cut(const struct route *r, uint32_t l, double emin, size_t hosts)
{
	uint32_t v = r->leaves[l];
	double c = 0;

	for (uint32_t e = r->adj_start[v]; e < r->adj_start[v + 1]; e++) {
		const struct topo_node *u = r->topo->nodes[r->adj[e].node];

		if (u->type == TOPO_NODE_SWITCH || u->type == TOPO_NODE_ROUTER)
			c += sched_topo_cap(r, r->adj[e].link, emin);
	}
	return c < (double)hosts ? c : (double)hosts;
}

void bacc_finish(struct bound_acc *ba, const size_t *leaf_hosts, struct sched_topo_bound *b)
{
	struct route *r = ba->r;
	double sum_c = 0;

	b->link = 0;
	b->link_at = ROUTE_NONE;
	for (size_t l = 0; l < r->n_links; l++)
		if (ceil_sz(ba->load[l]) > b->link) {
			b->link = ceil_sz(ba->load[l]);
			b->link_at = (uint32_t)l;
		}
	b->cut = 0;
	for (uint32_t l = 0; l < r->n_leaves; l++) {
		double c = leaf_cut(r, l, ba->emin[l], leaf_hosts[l]);

		if (ba->x[l] > 0) {
			size_t v = c > 0 ? ceil_sz(ba->x[l] / c) : SIZE_MAX;

			if (v > b->cut)
				b->cut = v;
		}
		sum_c += c;
	}
	if (ba->x_total > 0 && floor(sum_c / 2 + EPS) >= 1) {
		size_t v = ceil_sz(ba->x_total / floor(sum_c / 2 + EPS));

		if (v > b->cut)
			b->cut = v;
	}
	b->bound = b->node;
	if (b->link > b->bound)
		b->bound = b->link;
	if (b->cut > b->bound)
		b->bound = b->cut;
}

size_t *leaf_host_counts(const struct route *r)
{
	size_t *c = calloc(r->n_leaves + 1, sizeof(*c));

	if (c)
		for (size_t i = 0; i < r->n_hosts; i++)
			c[r->hosts[i].leaf]++;
	return c;
}

size_t sched_node_bound(const size_t *deg, size_t n_hosts, size_t n_pairs)
{
	size_t most = 0, hosts = 0, per;

	for (size_t h = 0; h < n_hosts; h++) {
		most = deg[h] > most ? deg[h] : most;
		hosts += deg[h] > 0;
	}
	per = hosts / 2 ? hosts / 2 : 1;
	per = (n_pairs + per - 1) / per;
	return per > most ? per : most;
}
