// SPDX-License-Identifier: GPL-2.0-or-later
/* Host placement, link rates and ECMP routes over a struct topo (route.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/route.h"

#define DIST_NONE UINT16_MAX

/* Breadth-first search from one leaf over switches: distance and path count. */
struct route_bfs {
	uint32_t src;		/* node index; ROUTE_NONE when the slot is free */
	uint32_t leaf;
	uint64_t used;		/* LRU tick */
	uint16_t *dist;
	double *cnt;
};

/* A leaf pair's route_pair_info() figures (lpi_get). */
struct route_lpi {
	uint32_t n_paths;	/* paths; 0 not known yet (or more than fit) */
	uint32_t min_mbps;	/* lowest known rate on them, 0 none */
	uint16_t hops;
	uint16_t unreach;	/* no switch path */
};

struct ptr_idx {
	const void *p;
	uint32_t i;
};

static int ptr_cmp(const void *x, const void *y)
{
	const struct ptr_idx *a = x, *b = y;

	return a->p < b->p ? -1 : a->p > b->p;
}

static uint32_t ptr_find(const struct ptr_idx *v, size_t n, const void *p)
{
	struct ptr_idx key = { .p = p }, *hit;

	hit = bsearch(&key, v, n, sizeof(*v), ptr_cmp);
	return hit ? hit->i : ROUTE_NONE;
}

uint32_t route_node_index(const struct route *r, const struct topo_node *n)
{
	return ptr_find(r->sorted_nodes, r->n_nodes, n);
}

uint32_t route_link_index(const struct route *r, const struct topo_link *l)
{
	return ptr_find(r->sorted_links, r->n_links, l);
}

static bool node_transit(const struct topo_node *n)
{
	return n->type == TOPO_NODE_SWITCH || n->type == TOPO_NODE_ROUTER;
}

void route_free(struct route *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_cache; i++) {
		free(r->cache[i].dist);
		free(r->cache[i].cnt);
	}
	free(r->cache);
	free(r->leaf_slot);
	free(r->adj_start);
	free(r->adj);
	free(r->link_mbps);
	free(r->hosts);
	free(r->leaves);
	free(r->mark);
	free(r->transit);
	free(r->front);
	free(r->next);
	free(r->items);
	free(r->pitems);
	free(r->sorted_nodes);
	free(r->sorted_links);
	free(r->link_a);
	free(r->nth_hops);
	free(r->name_hash);
	free(r->lpi);
	free(r);
}

/* FNV-1a of a node name: route_pair_find() compares names by it first. */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

static struct ptr_idx *index_ptrs(void *const *v, size_t n)
{
	struct ptr_idx *s = calloc(n ? n : 1, sizeof(*s));

	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		s[i].p = v[i];
		s[i].i = (uint32_t)i;
	}
	qsort(s, n, sizeof(*s), ptr_cmp);
	return s;
}

int route_new(struct route **out, const struct topo *t)
{
	struct route *r = calloc(1, sizeof(*r));
	uint32_t *fill = NULL;
	int rc = -ENOMEM;

	if (!r)
		return -ENOMEM;
	if (t->n_nodes >= ROUTE_NONE || t->n_links >= ROUTE_NONE / 2) {
		rc = -E2BIG;
		goto out;
	}
	r->topo = t;
	r->n_nodes = t->n_nodes;
	r->n_links = t->n_links;
	r->max_paths = ROUTE_MAX_PATHS;
	r->sorted_nodes = index_ptrs((void *const *)t->nodes, t->n_nodes);
	r->sorted_links = index_ptrs((void *const *)t->links, t->n_links);
	r->adj_start = calloc(r->n_nodes + 1, sizeof(*r->adj_start));
	r->adj = calloc(2 * r->n_links + 1, sizeof(*r->adj));
	r->link_mbps = calloc(r->n_links + 1, sizeof(*r->link_mbps));
	r->mark = calloc(r->n_nodes + 1, sizeof(*r->mark));
	r->transit = calloc(r->n_nodes + 1, sizeof(*r->transit));
	r->front = calloc(r->n_nodes + 1, sizeof(*r->front));
	r->next = calloc(r->n_nodes + 1, sizeof(*r->next));
	r->link_a = calloc(r->n_links + 1, sizeof(*r->link_a));
	r->nth_hops = calloc(2 * (r->n_nodes + 2), sizeof(*r->nth_hops));
	r->name_hash = calloc(r->n_nodes + 1, sizeof(*r->name_hash));
	fill = calloc(r->n_nodes + 1, sizeof(*fill));
	if (!r->sorted_nodes || !r->sorted_links || !r->adj_start || !r->adj || !r->link_mbps ||
	    !r->mark || !r->transit || !r->front || !r->next || !r->link_a || !r->nth_hops ||
	    !r->name_hash || !fill)
		goto out;
	for (size_t i = 0; i < r->n_nodes; i++) {
		r->transit[i] = node_transit(t->nodes[i]);
		r->name_hash[i] = name_hash(t->nodes[i]->name);
	}
	/* Adjacency (CSR): both ends of every link. */
	for (size_t l = 0; l < r->n_links; l++) {
		uint32_t x = route_node_index(r, t->links[l]->a->node);
		uint32_t y = route_node_index(r, t->links[l]->b->node);

		if (x == ROUTE_NONE || y == ROUTE_NONE) {
			rc = -EINVAL;
			goto out;
		}
		r->adj_start[x + 1]++;
		r->adj_start[y + 1]++;
		/* a self-loop is never forward (link_fwd_from) */
		r->link_a[l] = x == y ? ROUTE_NONE : x;
	}
	for (size_t i = 0; i < r->n_nodes; i++)
		r->adj_start[i + 1] += r->adj_start[i];
	for (size_t l = 0; l < r->n_links; l++) {
		uint32_t x = route_node_index(r, t->links[l]->a->node);
		uint32_t y = route_node_index(r, t->links[l]->b->node);

		r->adj[r->adj_start[x] + fill[x]++] = (struct route_adj){ y, (uint32_t)l };
		r->adj[r->adj_start[y] + fill[y]++] = (struct route_adj){ x, (uint32_t)l };
	}
	rc = 0;
out:
	free(fill);
	if (rc < 0)
		route_free(r);
	else
		*out = r;
	return rc;
}

/* ---- placement ---- */

/* Word @w (0-based) of @s equals @want. */
static bool word_is(const char *s, unsigned int w, const char *want)
{
	size_t len = strlen(want);

	while (*s == ' ')
		s++;
	for (; w; w--) {
		s += strcspn(s, " ");
		while (*s == ' ')
			s++;
	}
	return strncmp(s, want, len) == 0 && (s[len] == ' ' || s[len] == '\0');
}

static size_t linked_ports(const struct topo_node *n, const struct topo_port **only)
{
	size_t k = 0;

	for (size_t i = 0; i < n->n_ports; i++)
		if (n->ports[i]->link) {
			if (!k)
				*only = n->ports[i];
			k++;
		}
	return k;
}

/* @n's cabled port named @nic, or NULL. */
static const struct topo_port *nic_port(const struct topo_node *n, const char *nic)
{
	for (size_t i = 0; i < n->n_ports; i++)
		if (n->ports[i]->link && strcmp(n->ports[i]->name, nic) == 0)
			return n->ports[i];
	return NULL;
}

static int place_port(const struct fab_host *h, const struct topo_node *n, bool by_rdma,
		      const struct topo_port **out, struct fab_err *err)
{
	const char *want = hosts_label(h, "port");
	const struct topo_port *p = NULL;
	size_t k = linked_ports(n, &p);

	if (h->n_ports > 1) {	/* a port of a host of several: its ifname= names it */
		p = nic_port(n, h->nic);
		if (!p)
			return fab_err_input(err, -ENOENT, "host %s (line %u): node '%s' has no cabled port %s in the topology",
					     h->name, h->line, n->name, h->nic);
	} else if (by_rdma && h->rdma_port) {
		p = topo_port_find(n, h->rdma_port, NULL);
		if (!p || !p->link)
			return fab_err_input(err, -ENOENT, "host %s (line %u): port %u of '%s' is not cabled in the topology",
					     h->name, h->line, h->rdma_port, n->name);
	} else if (want) {
		p = NULL;
		for (size_t i = 0; i < n->n_ports && !p; i++)
			if (n->ports[i]->peer && strcmp(n->ports[i]->peer->name, want) == 0)
				p = n->ports[i];
		if (!p)
			return fab_err_input(err, -ENOENT, "host %s (line %u): no port of '%s' is cabled to a port named %s",
					     h->name, h->line, n->name, want);
	} else if (k == 0) {
		return fab_err_input(err, -ENOENT, "host %s (line %u): node '%s' has no cabled port in the topology",
				     h->name, h->line, n->name);
	} else if (k > 1) {
		const struct topo_port *p1 = by_rdma ? topo_port_find(n, 1, NULL) : NULL;

		if (!p1 || !p1->link)
			return fab_err_input(err, -EINVAL, "host %s (line %u): node '%s' has %zu cabled ports; name the leaf port with port=",
					     h->name, h->line, n->name, k);
		p = p1;
	}
	*out = p;
	return 0;
}

struct name_ctx {
	const struct topo *t;
};

static int name_idx_cmp(const void *x, const void *y, void *arg)
{
	const struct topo *t = ((const struct name_ctx *)arg)->t;

	return strcmp(t->nodes[*(const uint32_t *)x]->name, t->nodes[*(const uint32_t *)y]->name);
}

/* A host or CA node named exactly @want, by binary search over @by_name. */
static const struct topo_node *node_named(const struct topo *t, const uint32_t *by_name,
					  const char *want)
{
	size_t lo = 0, hi = t->n_nodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->nodes[by_name[mid]]->name, want);

		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n_nodes && strcmp(t->nodes[by_name[lo]]->name, want) == 0; lo++)
		if (t->nodes[by_name[lo]]->type == TOPO_NODE_HOST || t->nodes[by_name[lo]]->type == TOPO_NODE_CA)
			return t->nodes[by_name[lo]];
	return NULL;
}

static int place_one(struct route *r, const struct fab_host *h, struct route_host *rh,
		     const uint32_t *by_name, struct fab_err *err)
{
	const struct topo *t = r->topo;
	const char *want = hosts_label(h, "lldp_name");
	const struct topo_node *n = NULL;
	const struct topo_port *port = NULL;
	bool by_rdma = false;
	size_t hits = 0;
	int rc;

	if (!want)
		want = hosts_node(h);
	if (h->rdma[0])
		for (size_t i = 0; i < t->n_nodes; i++)
			if (t->nodes[i]->type == TOPO_NODE_CA && word_is(t->nodes[i]->name, 0, want) &&
			    word_is(t->nodes[i]->name, 1, h->rdma)) {
				n = t->nodes[i];
				by_rdma = true;
				hits++;
			}
	if (!n && (n = node_named(t, by_name, want)) != NULL)
		hits = 1;
	if (!n && !h->rdma[0])
		for (size_t i = 0; i < t->n_nodes; i++)
			if (t->nodes[i]->type == TOPO_NODE_CA && word_is(t->nodes[i]->name, 0, want))
				n = t->nodes[i], hits++;
	if (!n)
		for (size_t i = 0; i < t->n_nodes; i++) {
			const char *nm = t->nodes[i]->name;
			size_t len = strlen(want);

			if (t->nodes[i]->type == TOPO_NODE_HOST && strncmp(nm, want, len) == 0 &&
			    nm[len] == '.')
				n = t->nodes[i], hits++;
		}
	if (!n)
		return fab_err_input(err, -ENOENT,
				     "host %s (line %u): not found in the topology (no LLDP system or plan node named '%s'%s%s%s)",
				     h->name, h->line, want, h->rdma[0] ? ", no IB adapter described '" : "",
				     h->rdma[0] ? want : "", h->rdma[0] ? " DEV'" : "");
	if (hits > 1)
		return fab_err_input(err, -EINVAL, "host %s (line %u): %zu nodes match '%s'%s",
				     h->name, h->line, hits, want,
				     h->rdma[0] ? "" : "; name the adapter with rdma=DEV");
	rc = place_port(h, n, by_rdma, &port, err);
	if (rc < 0)
		return rc;
	rh->node = route_node_index(r, n);
	rh->port = port;
	rh->link = route_link_index(r, port->link);
	rh->attach = route_node_index(r, port->peer->node);
	return 0;
}

int route_place(struct route *r, const struct fab_hosts *hs, struct fab_err *err)
{
	struct route_host *v = calloc(hs->n ? hs->n : 1, sizeof(*v));
	uint32_t *leaves = calloc(hs->n ? hs->n : 1, sizeof(*leaves));
	uint32_t *slot_of = calloc(r->n_nodes + 1, sizeof(*slot_of));
	uint32_t *by_name = calloc(r->n_nodes + 1, sizeof(*by_name));
	uint32_t *link_owner = calloc(2 * r->n_links + 1, sizeof(*link_owner));
	size_t n_leaves = 0, side;
	int rc = -ENOMEM;

	if (!v || !leaves || !slot_of || !by_name || !link_owner)
		goto out;
	for (size_t i = 0; i < r->n_nodes; i++)
		by_name[i] = (uint32_t)i;
	qsort_r(by_name, r->n_nodes, sizeof(*by_name), name_idx_cmp, &(struct name_ctx){ r->topo });
	for (size_t i = 0; i < hs->n; i++) {
		rc = place_one(r, &hs->hosts[i], &v[i], by_name, err);
		if (rc < 0)
			goto out;
		/* One host per port: a slot per end of each link. */
		side = 2 * (size_t)v[i].link + (r->topo->links[v[i].link]->a != v[i].port);
		if (link_owner[side]) {
			rc = fab_err_input(err, -EINVAL, "host %s (line %u): placed on the same port as host %s",
					   hs->hosts[i].name, hs->hosts[i].line,
					   hs->hosts[link_owner[side] - 1].name);
			goto out;
		}
		link_owner[side] = (uint32_t)i + 1;
		/* slot_of[node] = leaf index + 1 */
		if (!slot_of[v[i].attach]) {
			leaves[n_leaves] = v[i].attach;
			slot_of[v[i].attach] = (uint32_t)++n_leaves;
		}
		v[i].leaf = slot_of[v[i].attach] - 1;
	}
	free(r->hosts);
	free(r->leaves);
	free(r->leaf_slot);
	r->hosts = v;
	r->n_hosts = hs->n;
	r->leaves = leaves;
	r->n_leaves = n_leaves;
	v = NULL;
	leaves = NULL;
	r->leaf_slot = malloc((n_leaves + 1) * sizeof(*r->leaf_slot));
	free(r->lpi);
	r->lpi = n_leaves >= 2 && n_leaves <= ROUTE_LPI_LEAVES
		 ? calloc(n_leaves * (n_leaves - 1) / 2, sizeof(*r->lpi)) : NULL;
	rc = r->leaf_slot ? 0 : -ENOMEM;	/* no lpi: each pair walks its leaf pair */
	for (size_t i = 0; r->leaf_slot && i < n_leaves; i++)
		r->leaf_slot[i] = ROUTE_NONE;
	for (size_t i = 0; i < r->n_cache; i++)
		r->cache[i].src = ROUTE_NONE;
out:
	free(v);
	free(leaves);
	free(slot_of);
	free(by_name);
	free(link_owner);
	return rc;
}

/* ---- rates ---- */

uint32_t route_port_mbps(const struct topo_port *p)
{
	uint64_t v;

	if (!(p->facts & TOPO_F_SPEED) || !p->lane_mbps)
		return p->eth_mbps;	/* the node's own ethtool speed, 0 unknown */
	v = (uint64_t)(p->width_x ? p->width_x : 1) * p->lane_mbps;
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

void route_rates(struct route *r, const struct fab_hosts *hs,
		 bool (*port_virtual)(const struct topo_port *p, void *arg), void *arg)
{
	for (size_t l = 0; l < r->n_links; l++) {
		const struct topo_link *lk = r->topo->links[l];
		uint32_t a = port_virtual && port_virtual(lk->a, arg) ? 0 : route_port_mbps(lk->a);
		uint32_t b = port_virtual && port_virtual(lk->b, arg) ? 0 : route_port_mbps(lk->b);

		r->link_mbps[l] = !a ? b : !b ? a : a < b ? a : b;
	}
	if (r->lpi)	/* the lowest rates change */
		memset(r->lpi, 0, r->n_leaves * (r->n_leaves - 1) / 2 * sizeof(*r->lpi));
	if (!hs || !r->hosts)
		return;
	/* rate_gbps= wins; two hosts cabled back to back: the lower. */
	for (size_t i = 0; i < hs->n && i < r->n_hosts; i++)
		if (hs->hosts[i].rate_gbps > 0) {
			double m = hs->hosts[i].rate_gbps * 1000.0;
			uint32_t v = m >= UINT32_MAX ? UINT32_MAX : (uint32_t)llround(m);

			r->link_mbps[r->hosts[i].link] = v ? v : 1;
		}
	for (size_t i = 0; i < hs->n && i < r->n_hosts; i++)
		for (size_t j = 0; j < i && !r->transit[r->hosts[i].attach]; j++)
			if (r->hosts[i].attach == r->hosts[j].node && hs->hosts[i].rate_gbps > 0 &&
			    hs->hosts[j].rate_gbps > 0 && hs->hosts[j].rate_gbps < hs->hosts[i].rate_gbps)
				r->link_mbps[r->hosts[i].link] = (uint32_t)llround(hs->hosts[j].rate_gbps * 1000.0);
}

/* ---- BFS cache ---- */

static int bfs_run(struct route *r, struct route_bfs *b, uint32_t src)
{
	size_t nf = 1, nn;

	for (size_t i = 0; i < r->n_nodes; i++) {
		b->dist[i] = DIST_NONE;
		b->cnt[i] = 0;
	}
	b->src = src;
	b->dist[src] = 0;
	b->cnt[src] = 1;
	r->front[0] = src;
	for (uint16_t d = 1; nf; d++) {
		if (d == DIST_NONE)
			return -E2BIG;
		nn = 0;
		for (size_t f = 0; f < nf; f++) {
			uint32_t u = r->front[f];

			for (uint32_t e = r->adj_start[u]; e < r->adj_start[u + 1]; e++) {
				uint32_t v = r->adj[e].node;

				if (!r->transit[v])
					continue;
				if (b->dist[v] == DIST_NONE) {
					b->dist[v] = d;
					r->next[nn++] = v;
				}
				if (b->dist[v] == d)
					b->cnt[v] += b->cnt[u];
			}
		}
		memcpy(r->front, r->next, nn * sizeof(*r->front));
		nf = nn;
	}
	return 0;
}

static int cache_init(struct route *r)
{
	size_t per = r->n_nodes * (sizeof(uint16_t) + sizeof(double)) + 1;
	size_t n = ROUTE_CACHE_BYTES / per;

	if (n < 2)
		n = 2;
	if (n > r->n_leaves)
		n = r->n_leaves < 2 ? 2 : r->n_leaves;
	r->cache = calloc(n, sizeof(*r->cache));
	if (!r->cache)
		return -ENOMEM;
	r->n_cache = n;
	for (size_t i = 0; i < n; i++)
		r->cache[i].src = ROUTE_NONE;
	return 0;
}

void route_cache_drop(struct route *r)
{
	for (size_t i = 0; i < r->n_cache; i++) {
		free(r->cache[i].dist);
		free(r->cache[i].cnt);
	}
	free(r->cache);
	r->cache = NULL;
	r->n_cache = 0;
	for (size_t i = 0; r->leaf_slot && i < r->n_leaves; i++)
		r->leaf_slot[i] = ROUTE_NONE;
}

static int bfs_get(struct route *r, uint32_t leaf, const struct route_bfs **out)
{
	struct route_bfs *b;
	size_t victim = 0;
	int rc;

	if (!r->cache && (rc = cache_init(r)) < 0)
		return rc;
	if (r->leaf_slot[leaf] != ROUTE_NONE) {
		b = &r->cache[r->leaf_slot[leaf]];
		b->used = ++r->tick;
		*out = b;
		return 0;
	}
	for (size_t i = 0; i < r->n_cache; i++) {
		if (r->cache[i].src == ROUTE_NONE) {
			victim = i;
			break;
		}
		if (r->cache[i].used < r->cache[victim].used)
			victim = i;
	}
	b = &r->cache[victim];
	if (b->src != ROUTE_NONE)
		r->leaf_slot[b->leaf] = ROUTE_NONE;
	if (!b->dist) {
		b->dist = malloc(r->n_nodes * sizeof(*b->dist));
		b->cnt = malloc(r->n_nodes * sizeof(*b->cnt));
		if (!b->dist || !b->cnt)
			return -ENOMEM;
	}
	rc = bfs_run(r, b, r->leaves[leaf]);
	if (rc < 0) {
		b->src = ROUTE_NONE;
		return rc;
	}
	b->leaf = leaf;
	b->used = ++r->tick;
	r->leaf_slot[leaf] = (uint32_t)victim;
	*out = b;
	return 0;
}

static int items_reserve(struct route_load **v, size_t *cap, size_t need)
{
	struct route_load *nv;
	size_t n = *cap ? *cap : 64;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	nv = realloc(*v, n * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = n;
	return 0;
}

static double min_known(double cur, uint32_t mbps)
{
	return mbps && (cur == 0 || mbps < cur) ? mbps : cur;
}

/*
 * Half of the shortest-path DAG between the BFS sources of @near and @far:
 * from @near's source, the nodes at most @h - 1 hops from it (all on the
 * DAG), and from each the links one hop nearer to @far's source.  The
 * share of link u -> v (u nearer the pair's first leaf) is
 * cnt_s(u) cnt_t(v) / total whichever end the walk starts from.
 */
static size_t dag_half(struct route *r, const struct route_bfs *near, const struct route_bfs *far,
		       unsigned int h, double total, size_t k, struct route_info *info)
{
	size_t nf = h > 0;

	r->front[0] = near->src;
	r->mark[near->src] = r->mark_gen;
	while (nf) {
		size_t nn = 0;

		for (size_t f = 0; f < nf; f++) {
			uint32_t x = r->front[f];
			bool deeper = near->dist[x] + 1u < h;

			for (uint32_t e = r->adj_start[x]; e < r->adj_start[x + 1]; e++) {
				uint32_t y = r->adj[e].node;

				/* A distance means y is a switch or far's source (bfs_run). */
				if (far->dist[y] == DIST_NONE || far->dist[y] + 1 != far->dist[x])
					continue;
				r->items[k].link = r->adj[e].link;
				r->items[k].share = r->ecmp_whole ? 1.0 : near->cnt[x] * far->cnt[y] / total;
				info->min_mbps = min_known(info->min_mbps, r->link_mbps[r->adj[e].link]);
				k++;
				if (deeper && r->mark[y] != r->mark_gen) {
					r->mark[y] = r->mark_gen;
					r->next[nn++] = y;
				}
			}
		}
		memcpy(r->front, r->next, nn * sizeof(*r->front));
		nf = nn;
	}
	return k;
}

int route_leaf_loads(struct route *r, uint32_t la, uint32_t lb, const struct route_load **items,
		     size_t *n, struct route_info *info)
{
	const struct route_bfs *bs, *bt;
	unsigned int d;
	size_t k;
	int rc;

	if (!r->leaf_slot || la >= r->n_leaves || lb >= r->n_leaves || la == lb)
		return -EINVAL;
	if ((rc = bfs_get(r, la, &bs)) < 0 || (rc = bfs_get(r, lb, &bt)) < 0)
		return rc;
	/* bfs_get(lb) never evicts la: la is the most recently used. */
	d = bs->dist[r->leaves[lb]];
	if (d == DIST_NONE)
		return -ENETUNREACH;
	*info = (struct route_info){ .hops = d, .n_paths = bs->cnt[r->leaves[lb]] };
	if (++r->mark_gen == 0) {
		memset(r->mark, 0, r->n_nodes * sizeof(*r->mark));
		r->mark_gen = 1;
	}
	/* Every DAG edge is a distinct link: room for all of them, once. */
	if (items_reserve(&r->items, &r->n_items_cap, r->n_links + 1) < 0)
		return -ENOMEM;
	/*
	 * Meet in the middle: the first ceil(d / 2) layers of links from la's
	 * side, the others from lb's.  The nodes of the middle layer (a fat
	 * tree's many cores) are reached but never scanned, and the two halves
	 * visit disjoint nodes, so one mark generation serves both.
	 */
	k = dag_half(r, bs, bt, (d + 1) / 2, info->n_paths, 0, info);
	k = dag_half(r, bt, bs, d / 2, info->n_paths, k, info);
	*items = r->items;
	*n = k;
	return 0;
}

static bool pair_ok(const struct route *r, unsigned int a, unsigned int b)
{
	return a < r->n_hosts && b < r->n_hosts && a != b;
}

int route_pair_loads(struct route *r, unsigned int a, unsigned int b,
		     const struct route_load **items, size_t *n, struct route_info *info)
{
	const struct route_host *ha, *hb;
	const struct route_load *li = NULL;
	size_t nl = 0;
	int rc;

	if (!pair_ok(r, a, b))
		return -EINVAL;
	ha = &r->hosts[a];
	hb = &r->hosts[b];
	*info = (struct route_info){ .n_paths = 1 };
	if (items_reserve(&r->pitems, &r->n_pitems_cap, 2) < 0)
		return -ENOMEM;
	r->pitems[0] = (struct route_load){ ha->link, 1.0 };
	if (ha->link == hb->link) {	/* cabled back to back */
		info->hops = 1;
		info->min_mbps = r->link_mbps[ha->link];
		*items = r->pitems;
		*n = 1;
		return 0;
	}
	r->pitems[1] = (struct route_load){ hb->link, 1.0 };
	if (ha->leaf != hb->leaf) {
		rc = route_leaf_loads(r, ha->leaf, hb->leaf, &li, &nl, info);
		if (rc < 0)
			return rc;
		if (items_reserve(&r->pitems, &r->n_pitems_cap, nl + 2) < 0)
			return -ENOMEM;
		memcpy(r->pitems + 2, li, nl * sizeof(*li));
	}
	info->hops += 2;
	info->min_mbps = min_known(min_known(info->min_mbps, r->link_mbps[ha->link]),
				   r->link_mbps[hb->link]);
	*items = r->pitems;
	*n = nl + 2;
	return 0;
}

/* Leaf pair (la, lb)'s figures: kept (r->lpi) or walked; as route_leaf_loads(). */
static int lpi_get(struct route *r, uint32_t la, uint32_t lb, struct route_info *info)
{
	uint32_t lo = la < lb ? la : lb, hi = la < lb ? lb : la;
	struct route_lpi *e = r->lpi ? &r->lpi[(size_t)lo * (2 * r->n_leaves - lo - 1) / 2 +
					       (hi - lo - 1)] : NULL;
	const struct route_load *items;
	size_t n;
	int rc;

	if (e && e->unreach)
		return -ENETUNREACH;
	if (e && e->n_paths) {
		*info = (struct route_info){ .hops = e->hops, .n_paths = e->n_paths,
					     .min_mbps = e->min_mbps };
		return 0;
	}
	/* the same figures from either leaf: one DAG, its paths counted either way */
	rc = route_leaf_loads(r, la, lb, &items, &n, info);
	if (e && rc == -ENETUNREACH)
		e->unreach = 1;
	if (e && rc == 0 && info->n_paths <= UINT32_MAX && info->hops <= UINT16_MAX)
		*e = (struct route_lpi){ .n_paths = (uint32_t)info->n_paths,
					 .min_mbps = (uint32_t)info->min_mbps,
					 .hops = (uint16_t)info->hops };
	return rc;
}

int route_pair_info(struct route *r, unsigned int a, unsigned int b, struct route_info *info,
		    double *expected_mbps, unsigned int *klass)
{
	const struct route_load *items;
	size_t n;
	int rc;

	if (pair_ok(r, a, b) && r->hosts[a].link != r->hosts[b].link &&
	    r->hosts[a].leaf != r->hosts[b].leaf) {
		const struct route_host *ha = &r->hosts[a], *hb = &r->hosts[b];

		if ((rc = lpi_get(r, ha->leaf, hb->leaf, info)) < 0)
			return rc;
		info->hops += 2;
		info->min_mbps = min_known(min_known(info->min_mbps, r->link_mbps[ha->link]),
					   r->link_mbps[hb->link]);
		*expected_mbps = info->min_mbps;
		*klass = info->hops;
		return 0;
	}
	rc = route_pair_loads(r, a, b, &items, &n, info);
	if (rc < 0)
		return rc;
	*expected_mbps = info->min_mbps;
	*klass = info->hops;
	return 0;
}

/* ---- enumeration ---- */

struct walk {
	struct route *r;
	const struct route_bfs *bs, *bt;
	uint32_t t;
	struct path_hop *stack;
	struct path *out;
	size_t n_out, len;
	const struct route_host *ha, *hb;
};

static bool link_fwd_from(const struct route *r, uint32_t link, uint32_t node)
{
	return r->link_a[link] == node;
}

static int walk_emit(struct walk *w)
{
	struct path *p = &w->out[w->n_out];
	size_t k = 0;

	p->hops = calloc(w->len + 2, sizeof(*p->hops));
	if (!p->hops)
		return -ENOMEM;
	p->hops[k++] = (struct path_hop){ w->ha->link, w->r->topo->links[w->ha->link]->a == w->ha->port };
	for (size_t i = 0; i < w->len; i++)
		p->hops[k++] = w->stack[i];
	p->hops[k++] = (struct path_hop){ w->hb->link, w->r->topo->links[w->hb->link]->b == w->hb->port };
	p->n_hops = k;
	w->n_out++;
	return 0;
}

static int walk_from(struct walk *w, uint32_t u)
{
	struct route *r = w->r;
	int rc;

	if (u == w->t)
		return walk_emit(w);
	for (uint32_t e = r->adj_start[u]; e < r->adj_start[u + 1]; e++) {
		uint32_t v = r->adj[e].node;

		if (w->bs->dist[v] != w->bs->dist[u] + 1 || w->bt->dist[v] == DIST_NONE ||
		    w->bt->dist[v] + 1 != w->bt->dist[u] || !r->transit[v])
			continue;
		w->stack[w->len++] = (struct path_hop){ r->adj[e].link, link_fwd_from(r, r->adj[e].link, u) };
		rc = walk_from(w, v);
		w->len--;
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int paths_reverse(struct path **out, const struct path *v, size_t n)
{
	struct path *rv = calloc(n, sizeof(*rv));

	if (!rv)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		rv[i].hops = calloc(v[i].n_hops, sizeof(*rv[i].hops));
		if (!rv[i].hops) {
			for (size_t j = 0; j < i; j++)
				path_fini(&rv[j]);
			free(rv);
			return -ENOMEM;
		}
		rv[i].n_hops = v[i].n_hops;
		rv[i].share = v[i].share;
		for (size_t h = 0; h < v[i].n_hops; h++) {
			rv[i].hops[h] = v[i].hops[v[i].n_hops - 1 - h];
			rv[i].hops[h].fwd = !rv[i].hops[h].fwd;
		}
	}
	*out = rv;
	return 0;
}

int route_pair(struct route *r, unsigned int a, unsigned int b, struct pair_route *out,
	       struct fab_err *err)
{
	struct route_info info;
	struct walk w = { .r = r };
	int rc;

	memset(out, 0, sizeof(*out));
	rc = route_pair_info(r, a, b, &info, &out->expected_mbps, &out->klass);
	if (rc == -ENETUNREACH)
		return fab_err_input(err, rc, "no path between hosts %u and %u in the topology", a, b);
	if (rc < 0)
		return fab_err_set(err, rc, "route: pair %u-%u", a, b);
	out->a = a;
	out->b = b;
	if (info.n_paths > r->max_paths)
		return -E2BIG;
	w.ha = &r->hosts[a];
	w.hb = &r->hosts[b];
	w.out = calloc((size_t)info.n_paths, sizeof(*w.out));
	w.stack = calloc(info.hops + 1, sizeof(*w.stack));
	rc = -ENOMEM;
	if (!w.out || !w.stack)
		goto out;
	if (w.ha->link == w.hb->link) {
		w.out[0].hops = calloc(1, sizeof(*w.out[0].hops));
		if (!w.out[0].hops)
			goto out;
		w.out[0].hops[0] = (struct path_hop){ w.ha->link, r->topo->links[w.ha->link]->a == w.ha->port };
		w.out[0].n_hops = 1;
		w.n_out = 1;
	} else if (w.ha->leaf == w.hb->leaf) {
		rc = walk_emit(&w);
		if (rc < 0)
			goto out;
	} else {
		if ((rc = bfs_get(r, w.ha->leaf, &w.bs)) < 0 || (rc = bfs_get(r, w.hb->leaf, &w.bt)) < 0)
			goto out;
		w.t = w.hb->attach;
		rc = walk_from(&w, w.ha->attach);
		if (rc < 0)
			goto out;
	}
	for (size_t i = 0; i < w.n_out; i++)
		w.out[i].share = 1.0 / (double)w.n_out;
	out->ab = w.out;
	out->n_ab = w.n_out;
	w.out = NULL;
	rc = paths_reverse(&out->ba, out->ab, out->n_ab);
	if (rc == 0)
		out->n_ba = out->n_ab;
out:
	if (w.out) {
		for (size_t i = 0; i < w.n_out; i++)
			path_fini(&w.out[i]);
		free(w.out);
	}
	free(w.stack);
	if (rc < 0 && rc != -E2BIG) {
		pair_route_fini(out);
		return fab_err_set(err, rc, "route: pair %u-%u", a, b);
	}
	return rc;
}

/* ---- one path by its index, one index by its nodes ---- */

/* The leaf pair's searches of a cross-leaf pair (route_pair_nth, route_pair_find). */
static int pair_bfs(struct route *r, const struct route_host *ha, const struct route_host *hb,
		    const struct route_bfs **bs, const struct route_bfs **bt)
{
	int rc;

	if ((rc = bfs_get(r, ha->leaf, bs)) < 0 || (rc = bfs_get(r, hb->leaf, bt)) < 0)
		return rc;
	return (*bs)->dist[hb->attach] == DIST_NONE ? -ENETUNREACH : 0;
}

/* Is u -> v (adjacency entry @e of u) a next hop of walk_from()'s? */
static bool next_hop(const struct route *r, const struct route_bfs *bs, const struct route_bfs *bt,
		     uint32_t u, uint32_t v)
{
	return bs->dist[v] == bs->dist[u] + 1 && bt->dist[v] != DIST_NONE &&
	       bt->dist[v] + 1 == bt->dist[u] && r->transit[v];
}

int route_pair_nth(struct route *r, unsigned int a, unsigned int b, int dir, size_t i,
		   struct path *out)
{
	const struct route_host *ha, *hb;
	const struct route_bfs *bs, *bt;
	struct path_hop *hops = r->nth_hops + (dir ? r->n_nodes + 2 : 0);
	double total = 1, rem = (double)i;
	size_t k = 0;
	int rc;

	if (!pair_ok(r, a, b) || (dir != 0 && dir != 1))
		return -EINVAL;
	ha = &r->hosts[a];
	hb = &r->hosts[b];
	hops[k++] = (struct path_hop){ ha->link, r->topo->links[ha->link]->a == ha->port };
	if (ha->link != hb->link && ha->leaf != hb->leaf) {
		uint32_t u = ha->attach;

		if ((rc = pair_bfs(r, ha, hb, &bs, &bt)) < 0)
			return rc;
		total = bs->cnt[hb->attach];
		if (rem >= total)
			return -ENOENT;
		while (u != hb->attach) {
			uint32_t e = r->adj_start[u];

			for (; e < r->adj_start[u + 1]; e++) {
				uint32_t v = r->adj[e].node;

				if (!next_hop(r, bs, bt, u, v))
					continue;
				if (rem < bt->cnt[v])
					break;
				rem -= bt->cnt[v];
			}
			if (e == r->adj_start[u + 1] || k > r->n_nodes)
				return -EIO;	/* counts that do not add up: a bug */
			hops[k++] = (struct path_hop){ r->adj[e].link,
						       link_fwd_from(r, r->adj[e].link, u) };
			u = r->adj[e].node;
		}
	} else if (i > 0) {
		return -ENOENT;
	}
	if (ha->link != hb->link)
		hops[k++] = (struct path_hop){ hb->link, r->topo->links[hb->link]->b == hb->port };
	if (dir)	/* the reverse of a -> b path i, as paths_reverse() makes it */
		for (size_t x = 0; x < (k + 1) / 2; x++) {
			struct path_hop h = hops[x];

			hops[x] = hops[k - 1 - x];
			hops[k - 1 - x] = h;
			hops[x].fwd = !hops[x].fwd;
			if (k - 1 - x != x)
				hops[k - 1 - x].fwd = !hops[k - 1 - x].fwd;
		}
	*out = (struct path){ .hops = hops, .n_hops = k, .share = 1.0 / total };
	return 0;
}

struct find {
	const struct route *r;
	const struct route_bfs *bs, *bt;
	uint32_t t;
	unsigned int d;
	const char *const *names;
	int dir;
	size_t found, n_found;
};

/* The name the path must reach at depth @k (1 .. d - 1) from the first leaf. */
static const char *find_want(const struct find *f, unsigned int k)
{
	return f->names[f->dir ? f->d - 1 - k : k - 1];
}

/* walk_from() restricted to the named nodes; @base: the index of u's first path. */
static void find_from(struct find *f, uint32_t u, unsigned int depth, double base)
{
	const struct route *r = f->r;
	const char *want;
	uint64_t wh;
	double off = 0;

	if (u == f->t) {
		if (!f->n_found++)
			f->found = (size_t)base;
		return;
	}
	want = depth + 1 < f->d ? find_want(f, depth + 1) : "";
	wh = name_hash(want);
	for (uint32_t e = r->adj_start[u]; e < r->adj_start[u + 1] && f->n_found < 2; e++) {
		uint32_t v = r->adj[e].node;

		if (!next_hop(r, f->bs, f->bt, u, v))
			continue;
		if (depth + 1 == f->d ||
		    (r->name_hash[v] == wh && strcmp(r->topo->nodes[v]->name, want) == 0))
			find_from(f, v, depth + 1, base + off);
		off += f->bt->cnt[v];
	}
}

int route_pair_find(struct route *r, unsigned int a, unsigned int b, int dir,
		    const char *const *names, size_t n, size_t *index)
{
	const struct route_host *ha, *hb;
	struct find f = { .r = r, .names = names, .dir = dir };
	int rc;

	if (!pair_ok(r, a, b) || (dir != 0 && dir != 1))
		return -EINVAL;
	ha = &r->hosts[a];
	hb = &r->hosts[b];
	if (ha->link == hb->link)
		return -EINVAL;		/* one hop: not a path between two switches */
	if (ha->leaf == hb->leaf)
		return -ENOENT;		/* no link between switches: no member matches */
	if ((rc = pair_bfs(r, ha, hb, &f.bs, &f.bt)) < 0)
		return rc;
	f.t = hb->attach;
	f.d = f.bs->dist[f.t];
	if (f.d != n + 1)
		return -ENOENT;
	find_from(&f, ha->attach, 0, 0);
	if (!f.n_found)
		return -ENOENT;
	if (f.n_found > 1)
		return -EEXIST;
	*index = f.found;
	return 0;
}

int route_pair_pick(struct route *r, unsigned int a, unsigned int b, size_t iab, size_t iba,
		    struct pair_route *out)
{
	struct pair_route pr = { .a = a, .b = b };
	struct route_info info;
	struct path pab, pba;
	int rc = route_pair_info(r, a, b, &info, &pr.expected_mbps, &pr.klass);

	memset(out, 0, sizeof(*out));
	if (rc == 0)
		rc = route_pair_nth(r, a, b, 0, iab, &pab);
	if (rc == 0)
		rc = route_pair_nth(r, a, b, 1, iba, &pba);
	if (rc < 0)
		return rc;
	pr.ab = calloc(1, sizeof(*pr.ab));
	pr.ba = calloc(1, sizeof(*pr.ba));
	pr.n_ab = pr.ab != NULL;
	pr.n_ba = pr.ba != NULL;
	rc = !pr.ab || !pr.ba ? -ENOMEM : path_dup(pr.ab, &pab);
	if (rc == 0)
		rc = path_dup(pr.ba, &pba);
	if (rc < 0) {
		pair_route_fini(&pr);	/* frees the arrays whatever their count */
		return rc;
	}
	pr.ab->share = pr.ba->share = 1.0;	/* the one path each way */
	*out = pr;
	return 0;
}
