// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Coverage pair picking (coverage.h): phase 1 a lazy greedy over leaf
 * pairs for the links, phase 2 a matching of the hosts still short.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/coverage.h"

#define NONE UINT32_MAX
/* Phase 1 looks at no more host combinations per leaf pair once it has one. */
#define PICK_COMBOS (1u << 14)
/* Phase 2 tries this many rotations before leaving a host for later. */
#define MATCH_TRIES 8

struct heap_ent {
	uint32_t gain, la, lb;
};

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
	struct heap_ent *heap;
	size_t n_heap;
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

/* ---- heap of leaf pairs, highest gain first ---- */

static bool ent_above(const struct heap_ent *x, const struct heap_ent *y)
{
	if (x->gain != y->gain)
		return x->gain > y->gain;
	return x->la != y->la ? x->la < y->la : x->lb < y->lb;
}

static void heap_push(struct cov_work *w, struct heap_ent e)
{
	size_t i = w->n_heap++;

	while (i && ent_above(&e, &w->heap[(i - 1) / 2])) {
		w->heap[i] = w->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->heap[i] = e;
}

static struct heap_ent heap_pop(struct cov_work *w)
{
	struct heap_ent top = w->heap[0], last = w->heap[--w->n_heap];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= w->n_heap)
			break;
		if (c + 1 < w->n_heap && ent_above(&w->heap[c + 1], &w->heap[c]))
			c++;
		if (!ent_above(&w->heap[c], &last))
			break;
		w->heap[i] = w->heap[c];
		i = c;
	}
	if (w->n_heap)
		w->heap[i] = last;
	return top;
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

/* Links each leaf pair crosses (reach) and its first bound into the heap. */
static int leaf_pairs_scan(struct cov_work *w)
{
	size_t nl = w->n_leaves, cap = nl * (nl - 1) / 2;

	w->heap = malloc((cap ? cap : 1) * sizeof(*w->heap));
	if (!w->heap)
		return -ENOMEM;
	for (uint32_t la = 0; la < nl; la++)
		for (uint32_t lb = la + 1; lb < nl; lb++) {
			const struct route_load *items;
			struct route_info info;
			size_t n;
			int rc;

			if (w->subset && !w->leaf_sub[la] && !w->leaf_sub[lb])
				continue;
			rc = route_leaf_loads(w->r, la, lb, &items, &n, &info);
			if (rc < 0) {
				if (skip_rc(rc))
					continue;
				return rc;
			}
			for (size_t i = 0; i < n; i++)
				if (items[i].link < w->nl)
					w->reach[items[i].link] = 1;
			if (n)
				heap_push(w, (struct heap_ent){ (uint32_t)n, la, lb });
		}
	return 0;
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

static bool node_transit(const struct topo_node *n)
{
	return n->type == TOPO_NODE_SWITCH || n->type == TOPO_NODE_ROUTER;
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

static int phase_links(struct cov_work *w)
{
	while (w->n_heap) {
		struct heap_ent e = heap_pop(w);
		uint32_t a, b;
		int rc;

		e.gain = leaf_gain(w, e.la, e.lb, &rc);
		if (rc < 0 && !skip_rc(rc))
			return rc;
		if (e.gain == 0)
			continue;
		if (w->n_heap && ent_above(&w->heap[0], &e)) {
			heap_push(w, e);
			continue;
		}
		if (!leaf_pair_hosts(w, e.la, e.lb, &a, &b))
			continue;
		rc = pair_add(w, a, b);
		if (rc < 0 && !skip_rc(rc))
			return rc;
		if (rc == 0)
			heap_push(w, e);
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

/* One pass: the first half of @d meets the second, rotated by @shift; returns pairs made. */
static int match_pass(struct cov_work *w, const uint32_t *d, size_t m, size_t shift,
		      size_t *made)
{
	size_t half = m / 2, rest = m - half;

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

static int phase_hosts(struct cov_work *w)
{
	uint32_t *d = malloc((w->nh ? w->nh : 1) * sizeof(*d));
	uint8_t *stuck = calloc(w->nh ? w->nh : 1, 1);
	uint8_t *tried = calloc(w->nh ? w->nh : 1, 1);
	size_t m, made, pass = 0;
	int rc = 0;

	if (!d || !stuck || !tried) {
		rc = -ENOMEM;
		goto out;
	}
	while ((m = short_hosts(w, stuck, d)) > 0) {
		made = 0;
		if (m > 1 && (rc = match_pass(w, d, m, pass++, &made)) < 0)
			goto out;
		if (made)
			continue;
		/* Nobody short to meet: each takes the least used allowed partner. */
		for (size_t i = 0; i < m; i++) {
			memset(tried, 0, w->nh);
			while (w->hp[d[i]] < w->k) {
				rc = fallback_partner(w, d[i], tried);
				if (rc == -ENOENT) {
					stuck[d[i]] = 1;
					rc = 0;
					break;
				}
				if (rc < 0)
					goto out;
			}
		}
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
	free(w->heap);
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
	if (!w->reach || !w->target || !w->cross || !w->hp || !w->head)
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
	if (rc == 0 && (rc = leaf_pairs_scan(&w)) == 0) {
		access_reach(&w);
		rc = targets_set(&w, req, &res);
	}
	if (rc == 0 && (rc = phase_links(&w)) == 0) {
		res.n_phase1 = w.n;
		rc = phase_hosts(&w);
	}
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
