// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Topology-aware sweep rounds (sched_topo.h): the greedy packer's rounds
 * (criticality order, then each pair that still fits) and its attempts;
 * sched_topo_pairs(), sched_topo_routed(), sched_topo_bipartite().  Its
 * set-up is sched_topo_demand.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched_topo_impl.h"

static bool greedy_fits(const struct greedy *g, uint32_t c)
{
	for (size_t j = g->cls_off[c]; j < g->cls_off[c + 1]; j++)
		if (g->used[g->dem[j].unit] + g->dem[j].d > 1 + EPS)
			return false;
	return true;
}

static void greedy_take(struct greedy *g, const struct gpair *p)
{
	for (size_t j = p->cls == ROUTE_NONE ? 0 : g->cls_off[p->cls];
	     p->cls != ROUTE_NONE && j < g->cls_off[p->cls + 1]; j++) {
		uint32_t u = g->dem[j].unit;

		if (g->used[u] == 0)
			g->touched[g->n_touched++] = u;
		g->used[u] += g->dem[j].d;
		g->rem[u] -= g->dem[j].d;
	}
	g->deg[p->a]--;
	g->deg[p->b]--;
	if (p->cross) {
		g->rem_x[g->r->hosts[p->a].leaf]--;
		g->rem_x[g->r->hosts[p->b].leaf]--;
	}
}

/* The pair's criticality this round (the key variant of g->mode). */
static double greedy_key(const struct greedy *g, const struct gpair *p)
{
	size_t da = g->deg[p->a], db = g->deg[p->b];
	double k = (double)(da > db ? da : db);

	if (p->cls != ROUTE_NONE && g->cls_crit[p->cls] > k)
		k = g->cls_crit[p->cls];
	if (p->cross) {
		uint32_t la = g->r->hosts[p->a].leaf, lb = g->r->hosts[p->b].leaf;
		double xa = g->rem_x[la] / g->cut[la], xb = g->rem_x[lb] / g->cut[lb];
		double x = xa > xb ? xa : xb;

		if (x > k)
			k = x;
	}
	if (g->mode == 1)	/* also favour pairs of two busy hosts */
		k += 0.5 * (double)(da < db ? da : db);
	else if (g->mode == 2)
		k = floor(k);
	return k + 0.0;	/* never -0: equal keys have equal bits */
}

/* The slot of @bits in the key table: its own, or the empty one where it goes. */
static struct kslot *ktab_slot(struct greedy *g, uint64_t bits)
{
	size_t mask = g->n_ktab - 1, h = (size_t)((bits * 0x9e3779b97f4a7c15ull) >> 40);

	while (g->ktab[h & mask].stamp == g->kstamp && g->ktab[h & mask].bits != bits)
		h++;
	return &g->ktab[h & mask];
}

/* Twice the slots, the round's keys so far put back. */
static int ktab_grow(struct greedy *g, size_t n_d)
{
	struct kslot *nt = calloc(2 * g->n_ktab, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	free(g->ktab);
	g->ktab = nt;
	g->n_ktab *= 2;
	for (size_t i = 0; i < n_d; i++) {
		uint64_t bits;

		memcpy(&bits, &g->kd[i].key, sizeof(bits));
		*ktab_slot(g, bits) = (struct kslot){ bits, (uint32_t)i, g->kstamp };
	}
	return 0;
}

static int kd_cmp(const void *x, const void *y, void *arg)
{
	const struct kdist *kd = arg;
	double a = kd[*(const uint32_t *)x].key, b = kd[*(const uint32_t *)y].key;

	return a > b ? -1 : a < b;
}

/*
 * This round's order of g->left (in rank order) into g->ord: key
 * descending, then rank.  Keys are few (host degrees, link and cut
 * criticalities): each pair's key goes into a table of the distinct keys,
 * the distinct keys are sorted, and a counting sort places the pairs,
 * keeping rank order within a key.  O(pairs + keys log keys).
 */
static int greedy_order(struct greedy *g, size_t left)
{
	size_t n_d = 0, off = 0;
	int rc;

	g->kstamp++;
	for (size_t o = 0; o < left; o++) {
		double k = greedy_key(g, &g->p[g->left[o]]);
		struct kslot *t;
		uint64_t bits;

		memcpy(&bits, &k, sizeof(bits));
		t = ktab_slot(g, bits);
		if (t->stamp != g->kstamp) {
			if (2 * (n_d + 1) > g->n_ktab) {
				if ((rc = ktab_grow(g, n_d)) < 0)
					return rc;
				t = ktab_slot(g, bits);
			}
			*t = (struct kslot){ bits, (uint32_t)n_d, g->kstamp };
			g->kd[n_d++] = (struct kdist){ .key = k };
		}
		g->kd[t->dist].count++;
		g->kd_of[o] = t->dist;
	}
	for (size_t i = 0; i < n_d; i++)
		g->kd_ord[i] = (uint32_t)i;
	qsort_r(g->kd_ord, n_d, sizeof(*g->kd_ord), kd_cmp, g->kd);
	for (size_t i = 0; i < n_d; i++) {
		g->kd[g->kd_ord[i]].off = (uint32_t)off;
		off += g->kd[g->kd_ord[i]].count;
	}
	for (size_t o = 0; o < left; o++)
		g->ord[g->kd[g->kd_of[o]].off++] = g->left[o];
	return 0;
}

/* Pack g's pairs into @s; the order in which pairs were given breaks ties. */
static int greedy_run(struct greedy *g, struct sched *s)
{
	size_t left = g->n, *start = calloc(g->n + 2, sizeof(*start));
	struct sched_pair *out = calloc(g->n + 1, sizeof(*out));
	size_t n_out = 0, n_rounds = 0;
	int rc = -ENOMEM;

	if (!start || !out)
		goto out;
	for (size_t i = 0; i < g->n; i++)
		g->left[g->rank[i]] = (uint32_t)i;
	memset(g->cls_fail, 0, g->n_cls * sizeof(*g->cls_fail));
	memset(g->taken, 0, g->n * sizeof(*g->taken));
	while (left) {
		size_t kept = 0, before = n_out;
		uint32_t stamp = (uint32_t)n_rounds + 1;

		for (size_t c = 0; c < g->n_cls; c++) {
			double crit = 0;

			for (size_t j = g->cls_off[c]; j < g->cls_off[c + 1]; j++)
				if (g->rem[g->dem[j].unit] > crit)
					crit = g->rem[g->dem[j].unit];
			g->cls_crit[c] = crit;
		}
		if ((rc = greedy_order(g, left)) < 0)
			goto out;
		for (size_t o = 0; o < left; o++) {
			const struct gpair *p = &g->p[g->ord[o]];

			/* A class that no longer fits stays so this round: loads only grow. */
			if (g->busy[p->a] || g->busy[p->b] ||
			    (p->cls != ROUTE_NONE &&
			     (g->cls_fail[p->cls] == stamp || !greedy_fits(g, p->cls)))) {
				if (p->cls != ROUTE_NONE && !g->busy[p->a] && !g->busy[p->b])
					g->cls_fail[p->cls] = stamp;
				continue;
			}
			g->taken[g->ord[o]] = true;
			g->busy[p->a] = g->busy[p->b] = true;
			greedy_take(g, p);
			out[n_out].a = p->a < p->b ? p->a : p->b;
			out[n_out].b = p->a < p->b ? p->b : p->a;
			n_out++;
		}
		for (size_t o = 0; o < left; o++)	/* the pairs left, still by rank */
			if (!g->taken[g->left[o]])
				g->left[kept++] = g->left[o];
		left = kept;
		for (size_t i = before; i < n_out; i++)
			g->busy[out[i].a] = g->busy[out[i].b] = false;
		for (size_t i = 0; i < g->n_touched; i++)
			g->used[g->touched[i]] = 0;
		g->n_touched = 0;
		if (n_out == before) {
			rc = -EDEADLK;	/* cannot happen: an idle fabric fits any one pair */
			goto out;
		}
		start[++n_rounds] = n_out;
	}
	sched_init(s);
	s->pairs = out;
	s->n_pairs = n_out;
	s->round_start = start;
	s->n_rounds = n_rounds;
	out = NULL;
	start = NULL;
	rc = 0;
out:
	free(start);
	free(out);
	return rc;
}

/* Attempts: the pairs in the given order, then shuffled orders and key variants; the fewest rounds wins. */
double greedy_work(size_t n_pairs, const struct sched_topo_bound *b)
{
	return (double)n_pairs * (double)(b->bound ? b->bound : 1);
}

/*
 * An attempt visits every pair's demands (its units) about once per round:
 * the effort is counted in those visits when they are more than the pairs.
 */
static double greedy_item_work(const struct greedy *g, const struct sched_topo_bound *b)
{
	double items = 0;

	for (size_t i = 0; i < g->n; i++) {
		uint32_t c = g->p[i].cls;

		items += 1.0 + (c == ROUTE_NONE ? 0.0 : (double)(g->cls_off[c + 1] - g->cls_off[c]));
	}
	return items * (double)(b->bound ? b->bound : 1);
}

static int greedy_best(struct greedy *g, struct sched *s, const struct sched_topo_bound *b)
{
	double w = fmax(greedy_work(g->n, b), greedy_item_work(g, b) / SCHED_TOPO_ITEMS_PER_PAIR);
	double fit = SCHED_TOPO_GREEDY_WORK / w;
	size_t attempts = fit >= SCHED_TOPO_ATTEMPTS ? SCHED_TOPO_ATTEMPTS : fit >= 1 ? (size_t)fit : 1;
	struct route *r = g->r;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int rc = 0;

	g->rank = calloc(g->n + 1, sizeof(*g->rank));
	g->rem0 = malloc((g->n_units + 1) * sizeof(*g->rem0));
	g->rem_x0 = malloc((r->n_leaves + 1) * sizeof(*g->rem_x0));
	g->deg0 = malloc((r->n_hosts + 1) * sizeof(*g->deg0));
	if (!g->rank || !g->rem0 || !g->rem_x0 || !g->deg0)
		return -ENOMEM;
	memcpy(g->rem0, g->rem, g->n_units * sizeof(*g->rem));
	memcpy(g->rem_x0, g->rem_x, r->n_leaves * sizeof(*g->rem_x));
	memcpy(g->deg0, g->deg, r->n_hosts * sizeof(*g->deg));
	sched_init(s);
	for (size_t t = 0; t < attempts; t++) {
		struct sched try;

		memcpy(g->rem, g->rem0, g->n_units * sizeof(*g->rem));
		memcpy(g->rem_x, g->rem_x0, r->n_leaves * sizeof(*g->rem_x));
		memcpy(g->deg, g->deg0, r->n_hosts * sizeof(*g->deg));
		for (size_t i = 0; i < g->n; i++)
			g->rank[i] = (uint32_t)i;
		/* Attempt 0 keeps the caller's order (the circle method's, for all pairs). */
		for (size_t i = g->n; t > 0 && i > 1; i--) {
			size_t j;
			uint32_t x;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			j = (size_t)((seed >> 33) % i);
			x = g->rank[i - 1];
			g->rank[i - 1] = g->rank[j];
			g->rank[j] = x;
		}
		g->mode = (unsigned int)(t % 3);
		rc = greedy_run(g, &try);
		if (rc < 0)
			break;
		if (!s->pairs || try.n_rounds < s->n_rounds) {
			sched_fini(s);
			*s = try;
		} else {
			sched_fini(&try);
		}
		if (s->n_rounds <= b->bound)
			break;	/* optimal: no order can do better */
	}
	if (rc < 0)
		sched_fini(s);
	return rc;
}

int sched_topo_pairs(struct sched *s, struct sched_topo_bound *b, struct route *r,
		     const struct sched_pair *pairs, size_t n_pairs, struct fab_err *err)
{
	struct sched_topo_bound bb;
	struct greedy g;
	int rc = greedy_setup(&g, r, pairs, n_pairs, NULL, &bb, err);

	if (rc == 0)
		rc = greedy_best(&g, s, &bb);
	greedy_fini(&g);
	if (rc == 0)
		*b = bb;
	else if (!err || !err->code)
		fab_err_set(err, rc, "schedule: %zu pairs", n_pairs);
	return rc;
}

int sched_topo_routed(struct sched *s, struct sched_topo_bound *b, struct route *r,
		      const struct pair_route *routes, size_t n_routes, struct fab_err *err)
{
	struct sched_pair *pairs = calloc(n_routes + 1, sizeof(*pairs));
	struct sched_topo_bound bb;
	struct greedy g;
	int rc;

	if (!pairs)
		return fab_err_set(err, -ENOMEM, "schedule: out of memory");
	for (size_t i = 0; i < n_routes; i++)
		pairs[i] = (struct sched_pair){ routes[i].a, routes[i].b };
	rc = greedy_setup(&g, r, pairs, n_routes, routes, &bb, err);
	if (rc == 0)
		rc = greedy_best(&g, s, &bb);
	greedy_fini(&g);
	free(pairs);
	if (rc == 0)
		*b = bb;
	else if (!err || !err->code)
		fab_err_set(err, rc, "schedule: %zu routed pairs", n_routes);
	return rc;
}

int sched_topo_bipartite(struct sched *s, struct sched_topo_bound *b, struct route *r,
			 const bool *is_new, struct fab_err *err)
{
	struct sched base;
	int rc = sched_bipartite(&base, is_new, r->n_hosts);

	if (rc < 0)
		return fab_err_set(err, rc, "schedule: new x old pairs");
	rc = sched_topo_pairs(s, b, r, base.pairs, base.n_pairs, err);
	sched_fini(&base);
	return rc;
}
