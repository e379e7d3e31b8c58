// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Coverage pair picking (coverage.h): reach by pruned BFS per leaf, a link
 * step over a few spread partner leaves, a host matching, a repair step.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/coverage.h"

#define NONE UINT32_MAX
/* Phase 1 looks at no more host combinations per leaf pair once it has one. */
#define PICK_COMBOS (1u << 14)
/* Phase 1: partner leaves tried per leaf and pass. */
#define LINK_CANDIDATES 4
/* Repair: nearest leaves tried on each side of a short link. */
#define REPAIR_NEAR 8
/* Phase 2 tries this many rotations before leaving a host for later. */
#define MATCH_TRIES 8

struct cov_work {
	struct route *r;
	const bool *subset;
	unsigned int k;
	size_t nh, nl, n_leaves;
	uint8_t *reach, *target;	/* per link */
	uint32_t *leaf_start, *leaf_hosts;	/* hosts per leaf (CSR) */
	uint8_t *leaf_sub;		/* per leaf: holds a subset host */
	uint32_t *cross, *hp;		/* per link crossings, per host pairs */
	struct sched_pair *pairs;
	size_t n, cap;
	uint32_t *head, *next;		/* per host: its pairs as entries 2p + side */
	uint32_t *dist, *order;		/* BFS scratch, per node */
	uint8_t *useful, *is_leaf;	/* per node */
};

static bool host_target(const struct cov_work *w, uint32_t h)
{
	return !w->subset || w->subset[h];
}

static bool pair_allowed(const struct cov_work *w, uint32_t a, uint32_t b)
{
	return a != b && (!w->subset || w->subset[a] || w->subset[b]);
}

static bool paired(const struct cov_work *w, uint32_t a, uint32_t b)
{
	for (uint32_t e = w->head[a]; e != NONE; e = w->next[e]) {
		const struct sched_pair *p = &w->pairs[e / 2];

		if ((e & 1 ? p->a : p->b) == b)
			return true;
	}
	return false;
}

static int pairs_grow(struct cov_work *w)
{
	size_t cap = w->cap ? w->cap * 2 : 256;
	struct sched_pair *p = realloc(w->pairs, cap * sizeof(*p));
	uint32_t *nx;

	if (!p)
		return -ENOMEM;
	w->pairs = p;
	nx = realloc(w->next, cap * 2 * sizeof(*nx));
	if (!nx)
		return -ENOMEM;
	w->next = nx;
	w->cap = cap;
	return 0;
}

/* Add pair a-b and count its crossings; -ENETUNREACH (nothing added) when it has no route. */
static int pair_add(struct cov_work *w, uint32_t a, uint32_t b)
{
	const struct route_load *items;
	struct route_info info;
	size_t n, p;
	int rc;

	if (a > b) {
		uint32_t t = a;

		a = b;
		b = t;
	}
	rc = route_pair_loads(w->r, a, b, &items, &n, &info);
	if (rc < 0)
		return rc == -EHOSTUNREACH ? -ENETUNREACH : rc;
	if (w->n == w->cap && (rc = pairs_grow(w)) < 0)
		return rc;
	p = w->n++;
	w->pairs[p] = (struct sched_pair){ a, b };
	w->next[2 * p] = w->head[a];
	w->head[a] = (uint32_t)(2 * p);
	w->next[2 * p + 1] = w->head[b];
	w->head[b] = (uint32_t)(2 * p + 1);
	w->hp[a]++;
	w->hp[b]++;
	for (size_t i = 0; i < n; i++)
		if (items[i].link < w->nl && w->cross[items[i].link] < UINT32_MAX)
			w->cross[items[i].link]++;
	return 0;
}

/* ---- setup ---- */

static int leaves_index(struct cov_work *w)
{
	const struct route *r = w->r;
	uint32_t *fill;

	w->leaf_start = calloc(w->n_leaves + 1, sizeof(*w->leaf_start));
	w->leaf_hosts = malloc(w->nh * sizeof(*w->leaf_hosts));
	w->leaf_sub = calloc(w->n_leaves ? w->n_leaves : 1, 1);
	fill = calloc(w->n_leaves + 1, sizeof(*fill));
	if (!w->leaf_start || !w->leaf_hosts || !w->leaf_sub || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t h = 0; h < w->nh; h++)
		w->leaf_start[r->hosts[h].leaf + 1]++;
	for (size_t l = 0; l < w->n_leaves; l++)
		w->leaf_start[l + 1] += w->leaf_start[l];
	for (size_t h = 0; h < w->nh; h++) {
		uint32_t l = r->hosts[h].leaf;

		w->leaf_hosts[w->leaf_start[l] + fill[l]++] = (uint32_t)h;
		if (w->subset && w->subset[h])
			w->leaf_sub[l] = 1;
	}
	free(fill);
	return 0;
}

static bool skip_rc(int rc)
{
	return rc == -ENETUNREACH || rc == -EHOSTUNREACH || rc == -EINVAL;
}

static bool node_transit(const struct topo_node *n)
{
	return n->type == TOPO_NODE_SWITCH || n->type == TOPO_NODE_ROUTER;
}

/*
 * Breadth-first search from node @src through switches and routers (the
 * source expands whatever it is); w->dist and w->order (visit order) are
 * filled; returns the number of nodes reached.
 */
static size_t bfs(struct cov_work *w, uint32_t src)
{
	const struct route *r = w->r;
	size_t head = 0, tail = 0;

	memset(w->dist, 0xff, r->n_nodes * sizeof(*w->dist));
	w->dist[src] = 0;
	w->order[tail++] = src;
	while (head < tail) {
		uint32_t x = w->order[head++];

		if (x != src && !node_transit(r->topo->nodes[x]))
			continue;
		for (uint32_t e = r->adj_start[x]; e < r->adj_start[x + 1]; e++) {
			uint32_t y = r->adj[e].node;

			if (w->dist[y] == NONE) {
				w->dist[y] = w->dist[x] + 1;
				w->order[tail++] = y;
			}
		}
	}
	return tail;
}

/*
 * The links on a shortest switch path from leaf node @src to any other
 * leaf (what route_leaf_loads() can return for some leaf pair) into
 * w->reach: the shortest-path DAG from @src, pruned to the nodes from
 * which it still reaches a leaf.  O(nodes + links).
 */
static void reach_from(struct cov_work *w, uint32_t src)
{
	const struct route *r = w->r;
	size_t n = bfs(w, src);

	for (size_t i = n; i-- > 0;) {
		uint32_t x = w->order[i];
		bool u = x != src && w->is_leaf[x];

		if (x == src || node_transit(r->topo->nodes[x]))
			for (uint32_t e = r->adj_start[x]; e < r->adj_start[x + 1] && !u; e++) {
				uint32_t y = r->adj[e].node;

				u = w->dist[y] == w->dist[x] + 1 && w->useful[y];
			}
		w->useful[x] = u;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t x = w->order[i];

		if (x != src && !node_transit(r->topo->nodes[x]))
			continue;
		for (uint32_t e = r->adj_start[x]; e < r->adj_start[x + 1]; e++) {
			uint32_t y = r->adj[e].node;

			if (w->dist[y] == w->dist[x] + 1 && w->useful[y] && r->adj[e].link < w->nl)
				w->reach[r->adj[e].link] = 1;
		}
	}
	for (size_t i = 0; i < n; i++)
		w->useful[w->order[i]] = 0;
}

/* Links some allowed leaf pair crosses: one pruned BFS per (subset) leaf. */
static void leaf_reach(struct cov_work *w)
{
	for (size_t l = 0; l < w->n_leaves; l++)
		w->is_leaf[w->r->leaves[l]] = 1;
	for (size_t l = 0; l < w->n_leaves; l++)
		if (!w->subset || w->leaf_sub[l])
			reach_from(w, w->r->leaves[l]);
}

/* Access links of hosts that have an allowed partner. */
static void access_reach(struct cov_work *w)
{
	size_t n_sub = 0;

	for (size_t h = 0; w->subset && h < w->nh; h++)
		n_sub += w->subset[h];
	for (size_t h = 0; h < w->nh; h++) {
		bool partner = !w->subset || w->subset[h] ? w->nh > 1 : n_sub > 0;

		if (partner && w->r->hosts[h].link < w->nl)
			w->reach[w->r->hosts[h].link] = 1;
	}
}

/* Subset default: access links of subset hosts, uplinks of their leaves. */
static int subset_want(struct cov_work *w, uint8_t *want)
{
	const struct route *r = w->r;
	uint8_t *sub_leaf = calloc(r->n_nodes ? r->n_nodes : 1, 1);

	if (!sub_leaf)
		return -ENOMEM;
	for (size_t h = 0; h < w->nh; h++)
		if (w->subset[h]) {
			if (r->hosts[h].link < w->nl)
				want[r->hosts[h].link] = 1;
			sub_leaf[r->hosts[h].attach] = 1;
		}
	for (size_t l = 0; l < w->nl; l++) {
		const struct topo_link *lk = r->topo->links[l];
		uint32_t a = route_node_index(r, lk->a->node), b = route_node_index(r, lk->b->node);

		if (a == ROUTE_NONE || b == ROUTE_NONE)
			continue;
		if ((sub_leaf[a] && node_transit(lk->b->node) && node_transit(lk->a->node)) ||
		    (sub_leaf[b] && node_transit(lk->a->node) && node_transit(lk->b->node)))
			want[l] = 1;
	}
	free(sub_leaf);
	return 0;
}

static int targets_set(struct cov_work *w, const struct coverage_req *req, struct coverage *out)
{
	uint8_t *want = NULL;
	int rc = 0;

	if (!req->want_link && w->subset) {
		want = calloc(w->nl ? w->nl : 1, 1);
		if (!want)
			return -ENOMEM;
		rc = subset_want(w, want);
	}
	for (size_t l = 0; rc == 0 && l < w->nl; l++) {
		bool wanted = req->want_link ? req->want_link[l] : want ? want[l] : w->reach[l];

		w->target[l] = wanted && w->reach[l];
		if (req->reached && w->target[l])
			req->reached[l] = 1;
		out->links_target += w->target[l];
		out->links_unreachable += wanted && !w->reach[l];
	}
	free(want);
	return rc;
}

/* ---- phase 1: links ---- */

static uint32_t leaf_gain(struct cov_work *w, uint32_t la, uint32_t lb, int *rc)
{
	const struct route_load *items;
	struct route_info info;
	uint32_t g = 0;
	size_t n;

	*rc = route_leaf_loads(w->r, la, lb, &items, &n, &info);
	if (*rc < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t l = items[i].link;

		g += l < w->nl && w->target[l] && w->cross[l] < w->k;
	}
	return g;
}

/* Lower is better: target hosts first, then the fewest pairs. */
static uint32_t host_key(const struct cov_work *w, uint32_t h)
{
	return w->hp[h] + (host_target(w, h) ? 0 : w->k);
}

/* The two hosts for leaf pair la-lb; false when every allowed pair is taken. */
static bool leaf_pair_hosts(const struct cov_work *w, uint32_t la, uint32_t lb, uint32_t *pa,
			    uint32_t *pb)
{
	uint64_t best = UINT64_MAX;
	size_t seen = 0;

	for (uint32_t i = w->leaf_start[la]; i < w->leaf_start[la + 1]; i++)
		for (uint32_t j = w->leaf_start[lb]; j < w->leaf_start[lb + 1]; j++) {
			uint32_t a = w->leaf_hosts[i], b = w->leaf_hosts[j];
			uint64_t key = (uint64_t)host_key(w, a) + host_key(w, b);

			if (best != UINT64_MAX && ++seen > PICK_COMBOS)
				return true;
			if (key >= best || !pair_allowed(w, a, b) || paired(w, a, b))
				continue;
			best = key;
			*pa = a;
			*pb = b;
		}
	return best != UINT64_MAX;
}

static size_t gcd(size_t a, size_t b)
{
	while (b) {
		size_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Leaf @l still has a short target link of its own (a cable of the leaf switch). */
static bool leaf_short(const struct cov_work *w, uint32_t l)
{
	const struct route *r = w->r;
	uint32_t x = r->leaves[l];

	for (uint32_t e = r->adj_start[x]; e < r->adj_start[x + 1]; e++) {
		uint32_t k = r->adj[e].link;

		if (k < w->nl && w->target[k] && w->cross[k] < w->k &&
		    node_transit(r->topo->nodes[r->adj[e].node]))
			return true;
	}
	return false;
}

static size_t coprime_step(size_t n)
{
	size_t step = n * 618 / 1000 + 1;

	while (step > 1 && gcd(step, n) != 1)
		step--;
	return step;
}

/* Add a pair for leaf pair la-lb; 1 added, 0 none possible, -errno. */
static int leaf_pair_add(struct cov_work *w, uint32_t la, uint32_t lb)
{
	uint32_t a, b;
	int rc;

	if (!leaf_pair_hosts(w, la, lb, &a, &b))
		return 0;
	rc = pair_add(w, a, b);
	if (rc < 0)
		return skip_rc(rc) ? 0 : rc;
	return 1;
}

/*
 * Phase 1: every leaf with a short uplink of its own tries LINK_CANDIDATES
 * partner leaves spread over the fabric and takes the one crossing the
 * most short target links; passes until one adds nothing.
 */
static int phase_links(struct cov_work *w)
{
	size_t nl = w->n_leaves, step = coprime_step(nl ? nl : 1), added;

	for (size_t pass = 0; nl > 1; pass++) {
		added = 0;
		for (uint32_t la = 0; la < nl; la++) {
			uint32_t best_lb = NONE, best = 0;
			int rc;

			if ((w->subset && !w->leaf_sub[la]) || !leaf_short(w, la))
				continue;
			for (size_t j = 0; j < LINK_CANDIDATES; j++) {
				uint32_t lb = (uint32_t)((la + (pass * LINK_CANDIDATES + j + 1) * step) % nl);
				uint32_t g;

				if (lb == la)
					continue;
				g = leaf_gain(w, la, lb, &rc);
				if (rc < 0 && !skip_rc(rc))
					return rc;
				if (g > best) {
					best = g;
					best_lb = lb;
				}
			}
			if (best_lb == NONE)
				continue;
			rc = leaf_pair_add(w, la, best_lb);
			if (rc < 0)
				return rc;
			added += (size_t)rc;
		}
		if (!added || pass > 4 * (size_t)w->k + nl)
			break;
	}
	return 0;
}

/* Leaves by distance from @node (nearest first), at most REPAIR_NEAR, into @out. */
static size_t nearest_leaves(struct cov_work *w, uint32_t node, uint32_t *out)
{
	size_t n = bfs(w, node), k = 0;

	for (size_t i = 0; i < n && k < REPAIR_NEAR; i++)
		if (w->is_leaf[w->order[i]])
			for (uint32_t l = 0; l < w->n_leaves; l++)
				if (w->r->leaves[l] == w->order[i]) {
					out[k++] = l;
					break;
				}
	return k;
}

static bool loads_hold(const struct route_load *items, size_t n, uint32_t link)
{
	for (size_t i = 0; i < n; i++)
		if (items[i].link == link)
			return true;
	return false;
}

/* A switch link still short: pairs between leaves nearest its two ends, when their paths cross it. */
static int repair_link(struct cov_work *w, uint32_t link)
{
	const struct topo_link *lk = w->r->topo->links[link];
	uint32_t u = route_node_index(w->r, lk->a->node), v = route_node_index(w->r, lk->b->node);
	uint32_t su[REPAIR_NEAR], sv[REPAIR_NEAR];
	size_t nu, nv;

	if (u == ROUTE_NONE || v == ROUTE_NONE)
		return 0;
	nu = nearest_leaves(w, u, su);
	nv = nearest_leaves(w, v, sv);
	for (size_t i = 0; i < nu; i++)
		for (size_t j = 0; j < nv && w->cross[link] < w->k; j++) {
			const struct route_load *items;
			struct route_info info;
			size_t n;
			int rc;

			if (su[i] == sv[j] ||
			    (w->subset && !w->leaf_sub[su[i]] && !w->leaf_sub[sv[j]]))
				continue;
			rc = route_leaf_loads(w->r, su[i], sv[j], &items, &n, &info);
			if (rc < 0 && !skip_rc(rc))
				return rc;
			if (rc < 0 || !loads_hold(items, n, link))
				continue;
			while (w->cross[link] < w->k) {
				rc = leaf_pair_add(w, su[i], sv[j]);
				if (rc <= 0) {
					if (rc < 0)
						return rc;
					break;
				}
			}
		}
	return 0;
}

/* Last: links still short after both phases (off the paths phase 1 tried). */
static int phase_repair(struct cov_work *w)
{
	for (uint32_t l = 0; l < w->nl; l++) {
		int rc;

		if (!w->target[l] || w->cross[l] >= w->k)
			continue;
		if ((rc = repair_link(w, l)) < 0)
			return rc;
	}
	return 0;
}

/* ---- phase 2: hosts ---- */

/* The allowed partner of @h in the fewest pairs, on another leaf when there is one. */
static int fallback_partner(struct cov_work *w, uint32_t h, uint8_t *tried)
{
	for (;;) {
		uint64_t best = UINT64_MAX;
		uint32_t pick = NONE;
		int rc;

		for (uint32_t b = 0; b < w->nh; b++) {
			uint64_t key = (uint64_t)host_key(w, b) * 2 +
				       (w->r->hosts[b].leaf == w->r->hosts[h].leaf);

			if (key < best && !tried[b] && pair_allowed(w, h, b) && !paired(w, h, b)) {
				best = key;
				pick = b;
			}
		}
		if (pick == NONE)
			return -ENOENT;
		rc = pair_add(w, h, pick);
		if (rc == 0 || !skip_rc(rc))
			return rc;
		tried[pick] = 1;
	}
}

/* Hosts still short, in index order, into @d; returns how many. */
static size_t short_hosts(const struct cov_work *w, const uint8_t *stuck, uint32_t *d)
{
	size_t m = 0;

	for (uint32_t h = 0; h < w->nh; h++)
		if (host_target(w, h) && w->hp[h] < w->k && !stuck[h])
			d[m++] = h;
	return m;
}

/*
 * One pass: host i of the first half of @d meets host i + shift (mod rest)
 * of the second half: a pass is a matching, and one leaf's hosts (next to
 * each other in the list) meet one or two leaves, so the pairs span few
 * leaf pairs (the scheduler keeps the links of each leaf pair it sees).
 * Pass p shifts by p x (rest / (K + 1) + 1): one host's partners of
 * successive passes sit far apart (other pods), so a bad pair of a faulty
 * access link is not explained away by one faulty far end.
 */
static int match_pass(struct cov_work *w, const uint32_t *d, size_t m, size_t pass,
		      size_t *made)
{
	size_t half = m / 2, rest = m - half;
	size_t shift = pass * (rest / (w->k + 1) + 1);

	*made = 0;
	for (size_t i = 0; i < half; i++)
		for (size_t t = 0; t < MATCH_TRIES && t < rest; t++) {
			uint32_t a = d[i], b = d[half + (i + shift + t) % rest];
			int rc;

			if (w->hp[b] >= w->k || !pair_allowed(w, a, b) || paired(w, a, b))
				continue;
			rc = pair_add(w, a, b);
			if (rc < 0 && !skip_rc(rc))
				return rc;
			if (rc == 0) {
				(*made)++;
				break;
			}
		}
	return 0;
}

/* Hosts still short, leaf by leaf (leaves in index order), into @d; returns how many. */
static size_t short_hosts_by_leaf(const struct cov_work *w, const uint8_t *stuck, uint32_t *d)
{
	size_t m = 0;

	for (size_t l = 0; l < w->n_leaves; l++)
		for (uint32_t i = w->leaf_start[l]; i < w->leaf_start[l + 1]; i++) {
			uint32_t h = w->leaf_hosts[i];

			if (host_target(w, h) && w->hp[h] < w->k && !stuck[h])
				d[m++] = h;
		}
	return m;
}

/* Pair @a and @b when both are short and the pair is new and allowed: 1 added, 0 not, -errno. */
static int try_pair(struct cov_work *w, uint32_t a, uint32_t b)
{
	int rc;

	if (w->hp[a] >= w->k || w->hp[b] >= w->k || !pair_allowed(w, a, b) || paired(w, a, b))
		return 0;
	rc = pair_add(w, a, b);
	if (rc < 0)
		return skip_rc(rc) ? 0 : rc;
	return 1;
}

/*
 * Near passes over @d in leaf order: kind 0 pairs neighbours on one leaf
 * (a pair that crosses only the two access links), kind 1 pairs the t-th
 * short host of leaf block 2j with the t-th of block 2j + 1 (neighbouring
 * leaves, usually one pod).  Such pairs keep a host's evidence from being
 * explained away by a fault further up that all its far pairs cross.
 */
static int near_pass(struct cov_work *w, const uint32_t *d, size_t m, int kind, size_t *made)
{
	const struct route_host *rh = w->r->hosts;
	size_t i = 0;
	int rc;

	*made = 0;
	if (kind == 0) {
		while (i + 1 < m) {
			rc = rh[d[i]].leaf == rh[d[i + 1]].leaf ? try_pair(w, d[i], d[i + 1]) : 0;
			if (rc < 0)
				return rc;
			*made += (size_t)rc;
			i += rc ? 2 : 1;
		}
		return 0;
	}
	while (i < m) {
		size_t a = i, b, e;

		while (i < m && rh[d[i]].leaf == rh[d[a]].leaf)
			i++;
		b = i;
		while (i < m && rh[d[i]].leaf == rh[d[b]].leaf)
			i++;
		e = i;
		for (size_t t = 0; a + t < b && b + t < e; t++) {
			if ((rc = try_pair(w, d[a + t], d[b + t])) < 0)
				return rc;
			*made += (size_t)rc;
		}
	}
	return 0;
}

/* Every short host takes the least used allowed partners until it has K (or none is left). */
static int fallback_all(struct cov_work *w, const uint32_t *d, size_t m, uint8_t *stuck,
			uint8_t *tried)
{
	for (size_t i = 0; i < m; i++) {
		memset(tried, 0, w->nh);
		while (w->hp[d[i]] < w->k) {
			int rc = fallback_partner(w, d[i], tried);

			if (rc == -ENOENT) {
				stuck[d[i]] = 1;
				break;
			}
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/*
 * Step 2.  Passes: with K >= 2 first a same-leaf pass, with K >= 3 then a
 * neighbouring-leaf pass, then far passes (match_pass) while they make
 * pairs; then the fallback for whoever is still short.
 */
static int phase_hosts(struct cov_work *w)
{
	uint32_t *d = malloc((w->nh ? w->nh : 1) * sizeof(*d));
	uint8_t *stuck = calloc(w->nh ? w->nh : 1, 1);
	uint8_t *tried = calloc(w->nh ? w->nh : 1, 1);
	size_t m, made, far = 0;
	int rc = 0;

	if (!d || !stuck || !tried) {
		rc = -ENOMEM;
		goto out;
	}
	for (int kind = 0; kind < 2 && (unsigned int)kind + 2 <= w->k; kind++) {
		m = short_hosts_by_leaf(w, stuck, d);
		if ((rc = near_pass(w, d, m, kind, &made)) < 0)
			goto out;
	}
	while ((m = short_hosts(w, stuck, d)) > 0) {
		made = 0;
		if (m > 1 && (rc = match_pass(w, d, m, far++, &made)) < 0)
			goto out;
		if (!made && (rc = fallback_all(w, d, m, stuck, tried)) < 0)
			goto out;
	}
out:
	free(d);
	free(stuck);
	free(tried);
	return rc;
}

/* ---- result ---- */

static void result_fill(struct cov_work *w, struct coverage *out)
{
	out->first_short_link = COVERAGE_NONE;
	out->first_short_host = COVERAGE_NONE;
	for (size_t l = 0; l < w->nl; l++)
		if (w->target[l] && w->cross[l] < w->k) {
			if (!out->links_short++)
				out->first_short_link = (uint32_t)l;
		}
	for (size_t h = 0; h < w->nh; h++) {
		if (!host_target(w, (uint32_t)h))
			continue;
		out->hosts_target++;
		if (w->hp[h] < w->k && !out->hosts_short++)
			out->first_short_host = (uint32_t)h;
	}
	out->pairs = w->pairs;
	out->n_pairs = w->n;
	out->link_cross = w->cross;
	out->host_pairs = w->hp;
	out->n_links = w->nl;
	out->n_hosts = w->nh;
	w->pairs = NULL;
	w->cross = w->hp = NULL;
}

static void work_fini(struct cov_work *w)
{
	free(w->reach);
	free(w->target);
	free(w->leaf_start);
	free(w->leaf_hosts);
	free(w->leaf_sub);
	free(w->cross);
	free(w->hp);
	free(w->pairs);
	free(w->head);
	free(w->next);
	free(w->dist);
	free(w->order);
	free(w->useful);
	free(w->is_leaf);
}

static int work_init(struct cov_work *w, struct route *r, const struct coverage_req *req)
{
	size_t nl;

	memset(w, 0, sizeof(*w));
	w->r = r;
	w->k = req->k;
	w->subset = req->subset;
	w->nh = r->n_hosts;
	w->nl = r->topo->n_links;
	w->n_leaves = r->n_leaves;
	nl = w->nl ? w->nl : 1;
	w->reach = calloc(nl, 1);
	w->target = calloc(nl, 1);
	w->cross = calloc(nl, sizeof(*w->cross));
	w->hp = calloc(w->nh, sizeof(*w->hp));
	w->head = malloc(w->nh * sizeof(*w->head));
	w->dist = malloc((r->n_nodes + 1) * sizeof(*w->dist));
	w->order = malloc((r->n_nodes + 1) * sizeof(*w->order));
	w->useful = calloc(r->n_nodes + 1, 1);
	w->is_leaf = calloc(r->n_nodes + 1, 1);
	if (!w->reach || !w->target || !w->cross || !w->hp || !w->head || !w->dist || !w->order ||
	    !w->useful || !w->is_leaf)
		return -ENOMEM;
	memset(w->head, 0xff, w->nh * sizeof(*w->head));
	return leaves_index(w);
}

int coverage_pick(struct coverage *out, struct route *r, const struct coverage_req *req,
		  struct fab_err *err)
{
	struct coverage res = { 0 };
	struct cov_work w;
	int rc;

	if (!req || req->k == 0)
		return fab_err_input(err, -EINVAL, "coverage: K must be at least 1");
	if (!r->hosts || r->n_hosts < 2)
		return fab_err_input(err, -EINVAL, "coverage: needs at least two placed hosts");
	rc = work_init(&w, r, req);
	if (rc == 0) {
		leaf_reach(&w);
		access_reach(&w);
		rc = targets_set(&w, req, &res);
	}
	if (rc == 0 && (rc = phase_links(&w)) == 0) {
		res.n_phase1 = w.n;
		rc = phase_hosts(&w);
	}
	if (rc == 0)
		rc = phase_repair(&w);
	if (rc < 0) {
		work_fini(&w);
		return fab_err_set(err, rc, "coverage: %s",
				   rc == -ENOMEM ? "out of memory" : "routing failed");
	}
	result_fill(&w, &res);
	work_fini(&w);
	*out = res;
	return 0;
}

void coverage_fini(struct coverage *c)
{
	free(c->pairs);
	free(c->link_cross);
	free(c->host_pairs);
	memset(c, 0, sizeof(*c));
}
