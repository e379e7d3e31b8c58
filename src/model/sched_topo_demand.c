// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Topology-aware sweep rounds (sched_topo.h): the greedy packer's set-up.
 * Its pairs, their demand classes and the units they load, its bound
 * (greedy_setup()); its rounds are sched_topo_pack.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched_topo_impl.h"
#include "util/array.h"

/* ---- greedy packer for explicit pair lists ---- */

/*
 * Demands.  The pairs of one leaf pair with one expected rate (a class; a
 * routed pair is a class of its own) put the same demand, share / cap(L, e),
 * on the same links, so a class's demand vector is built once.  Links
 * whose demands are equal in every class (a unit: a leaf's ECMP uplinks,
 * the spine links of a pod) receive the same demands in the same order, so
 * their sums stay bit for bit equal and one counter stands for the unit:
 * a pair of an ECMP fat tree is checked and taken over a handful of units,
 * not hundreds of links, with the same decisions link by link.
 *
 * Units by partition refinement, as the classes' loads stream by (no
 * link-level vector is kept): every link starts in group 0; a class moves
 * each link it crosses to a new group per (old group, demand), one hash
 * probe per link.  A group remembers its parent, the class that made it and
 * the demand; the links of a final group (a unit) went through the same
 * chain of groups, so the classes that cross a unit, and its demand in
 * each, are the makers of its ancestors: the demand vectors are read off
 * those chains in O(their total length).
 */

/* A group of the refinement: made by class cls from group parent, demand d on its links. */
struct ggroup {
	uint32_t parent, cls;
	double d;
};

struct gslot {
	uint64_t d;		/* a demand's bits */
	uint32_t grp, id, stamp;
};

struct gref {
	uint32_t *grp;		/* per link: its group now */
	struct ggroup *v;	/* groups; 0 is every link's first */
	size_t n, cap;
	struct gslot *tab;	/* one class's (old group, demand) -> new group; stamp: class + 1 */
	size_t n_tab;
	size_t n_cls;
};

void greedy_fini(struct greedy *g)
{
	free(g->p);
	free(g->cls_off);
	free(g->dem);
	free(g->cls_crit);
	free(g->cls_fail);
	free(g->unit);
	free(g->rem);
	free(g->used);
	free(g->rem_x);
	free(g->cut);
	free(g->deg);
	free(g->touched);
	free(g->left);
	free(g->ord);
	free(g->taken);
	free(g->kd);
	free(g->kd_of);
	free(g->kd_ord);
	free(g->ktab);
	free(g->rank);
	free(g->busy);
	free(g->rem0);
	free(g->rem_x0);
	free(g->deg0);
}

static void gref_fini(struct gref *ref)
{
	free(ref->grp);
	free(ref->v);
	free(ref->tab);
}

static uint64_t lp_key_of(const struct route *r, uint32_t a, uint32_t b)
{
	uint64_t x = r->hosts[a].leaf, y = r->hosts[b].leaf;

	return x < y ? x << 32 | y : y << 32 | x;
}

/* A new class at expected rate @e over @it (each link once): demands share / cap(L, e). */
static int gref_class(struct gref *ref, const struct route *r, const struct route_load *it,
		      size_t m, double e)
{
	struct cap_memo memo = { .rate = -1 };
	uint32_t c = (uint32_t)ref->n_cls++, stamp = c + 1;
	size_t size = 16;

	if (ref->n_cls >= UINT32_MAX)
		return -E2BIG;
	while (size < 2 * m)
		size *= 2;
	if (size > ref->n_tab) {	/* stale slots have older stamps: empty */
		free(ref->tab);
		ref->tab = calloc(size, sizeof(*ref->tab));
		ref->n_tab = ref->tab ? size : 0;
		if (!ref->tab)
			return -ENOMEM;
	}
	if (ref->n + m > ref->cap) {
		size_t cap = 2 * (ref->n + m);
		struct ggroup *nv;

		if (cap >= UINT32_MAX)
			return -E2BIG;
		nv = realloc(ref->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		ref->v = nv;
		ref->cap = cap;
	}
	for (size_t j = 0; j < m; j++) {
		uint32_t l = it[j].link, old = ref->grp[l];
		double d = it[j].share / cap_of(&memo, r, l, e);
		struct gslot *t;
		uint64_t bits, h;

		memcpy(&bits, &d, sizeof(bits));
		h = (bits ^ (uint64_t)old * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
		for (h >>= 32;; h++) {
			t = &ref->tab[h & (size - 1)];
			if (t->stamp != stamp || (t->grp == old && t->d == bits))
				break;
		}
		if (t->stamp != stamp) {
			*t = (struct gslot){ bits, old, (uint32_t)ref->n, stamp };
			ref->v[ref->n++] = (struct ggroup){ old, c, d };
		}
		ref->grp[l] = t->id;
	}
	return 0;
}

/* A routed pair's items: per link the larger of its a -> b and b -> a shares. */
static int route_items(const struct route *r, const struct pair_route *pr, double *acc,
		       struct route_load *tmp, size_t *n)
{
	size_t m = 0;

	for (int dir = 0; dir < 2; dir++) {
		const struct path *v = dir ? pr->ba : pr->ab;
		size_t nv = dir ? pr->n_ba : pr->n_ab;

		for (size_t i = 0; i < nv; i++)
			for (size_t h = 0; h < v[i].n_hops; h++) {
				uint32_t l = v[i].hops[h].link;

				if (l >= r->n_links)
					return -EINVAL;
				if (acc[2 * l] == 0 && acc[2 * l + 1] == 0)
					tmp[m++].link = l;
				acc[2 * l + dir] += v[i].share;
			}
	}
	for (size_t i = 0; i < m; i++) {
		uint32_t l = tmp[i].link;

		tmp[i].share = fmax(acc[2 * l], acc[2 * l + 1]);
		acc[2 * l] = acc[2 * l + 1] = 0;
	}
	*n = m;
	return 0;
}

static int e_cmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/*
 * The classes of one leaf pair, whose pairs are @mem (@n_mem, in pair
 * order): one per distinct expected rate, each pair's e and class set.
 */
static int lp_classes(struct greedy *g, struct gref *ref, const uint32_t *mem, size_t n_mem,
		      const struct route_load *it, size_t m, double lp_min, double *es)
{
	size_t n_e = 0;
	int rc;

	for (size_t q = 0; q < n_mem; q++) {
		struct gpair *p = &g->p[mem[q]];

		p->e = pair_expected(g->r, p->a, p->b, lp_min);
		if (!n_e || es[n_e - 1] != p->e)
			es[n_e++] = p->e;
	}
	if (n_e > 1) {	/* rates differ: one class per distinct rate */
		size_t k = 1;

		qsort(es, n_e, sizeof(*es), e_cmp);
		for (size_t i = 1; i < n_e; i++)
			if (es[i] != es[k - 1])
				es[k++] = es[i];
		n_e = k;
	}
	for (size_t i = 0; i < n_e; i++)
		if ((rc = gref_class(ref, g->r, it, m, es[i])) < 0)
			return rc;
	for (size_t q = 0; q < n_mem; q++) {
		struct gpair *p = &g->p[mem[q]];
		const double *hit = n_e > 1 ? bsearch(&p->e, es, n_e, sizeof(*es), e_cmp) : es;

		p->cls = (uint32_t)(ref->n_cls - n_e + (size_t)(hit - es));
	}
	return 0;
}

/* Cross-leaf pairs: one route_leaf_loads() per leaf pair, its classes. */
static int lp_build(struct greedy *g, struct gref *ref, struct fab_err *err)
{
	struct route *r = g->r;
	size_t k = 0, n_lp = 0, *start = NULL;
	uint64_t *key = calloc(g->n + 1, sizeof(*key));
	uint32_t *mem = calloc(g->n + 1, sizeof(*mem));
	double *es = calloc(g->n + 1, sizeof(*es));
	int rc = -ENOMEM;

	if (!key || !mem || !es)
		goto out;
	for (size_t i = 0; i < g->n; i++)
		if (g->p[i].cross)
			key[k++] = lp_key_of(r, g->p[i].a, g->p[i].b);
	qsort(key, k, sizeof(*key), array_cmp_u64);
	for (size_t i = 0; i < k; i++)
		if (!n_lp || key[n_lp - 1] != key[i])
			key[n_lp++] = key[i];
	start = calloc(n_lp + 2, sizeof(*start));
	if (!start)
		goto out;
	/* Pairs by leaf pair (a counting sort: in pair order within one). */
	for (size_t i = 0; i < g->n; i++)
		if (g->p[i].cross) {
			uint64_t x = lp_key_of(r, g->p[i].a, g->p[i].b);
			uint64_t *hit = bsearch(&x, key, n_lp, sizeof(x), array_cmp_u64);

			g->p[i].cls = (uint32_t)(hit - key);
			start[g->p[i].cls + 2]++;
		}
	for (size_t i = 0; i < n_lp; i++)
		start[i + 2] += start[i + 1];
	for (size_t i = 0; i < g->n; i++)
		if (g->p[i].cross)
			mem[start[g->p[i].cls + 1]++] = (uint32_t)i;
	for (size_t i = 0; i < n_lp; i++) {
		uint32_t la = (uint32_t)(key[i] >> 32), lb = (uint32_t)key[i];
		const struct route_load *it;
		struct route_info info;
		size_t m;

		rc = route_leaf_loads(r, la, lb, &it, &m, &info);
		if (rc < 0) {
			rc = fab_err_set(err, rc, "schedule: no path between leaves %s and %s",
					 r->topo->nodes[r->leaves[la]]->name, r->topo->nodes[r->leaves[lb]]->name);
			goto out;
		}
		rc = lp_classes(g, ref, mem + start[i], start[i + 1] - start[i], it, m, info.min_mbps, es);
		if (rc < 0)
			goto out;
	}
	rc = 0;
out:
	free(key);
	free(mem);
	free(es);
	free(start);
	return rc;
}

/* Routed pairs: each its own class over its route's links. */
static int routed_build(struct greedy *g, struct gref *ref, const struct pair_route *routes)
{
	const struct route *r = g->r;
	double *acc = calloc(2 * r->n_links + 1, sizeof(*acc));
	struct route_load *tmp = calloc(r->n_links + 1, sizeof(*tmp));
	int rc = acc && tmp ? 0 : -ENOMEM;

	for (size_t i = 0; i < g->n && rc == 0; i++) {
		size_t m;

		g->p[i].e = routes[i].expected_mbps;
		g->p[i].cls = (uint32_t)i;
		rc = route_items(r, &routes[i], acc, tmp, &m);
		if (rc == 0)
			rc = gref_class(ref, r, tmp, m, g->p[i].e);
	}
	free(acc);
	free(tmp);
	return rc;
}

/* Units (dense, in link order) and each class's demands over them, from the refinement. */
static int units_finish(struct greedy *g, const struct gref *ref)
{
	size_t nl = g->r->n_links, k = 0;
	uint32_t *uof = malloc((ref->n + 1) * sizeof(*uof));
	int rc = -ENOMEM;

	g->n_cls = ref->n_cls;
	g->unit = calloc(nl + 1, sizeof(*g->unit));
	g->cls_off = calloc(ref->n_cls + 2, sizeof(*g->cls_off));
	g->cls_crit = calloc(ref->n_cls + 1, sizeof(*g->cls_crit));
	g->cls_fail = calloc(ref->n_cls + 1, sizeof(*g->cls_fail));
	if (!uof || !g->unit || !g->cls_off || !g->cls_crit || !g->cls_fail)
		goto out;
	memset(uof, 0xff, (ref->n + 1) * sizeof(*uof));
	g->n_units = 0;
	for (size_t l = 0; l < nl; l++) {
		if (uof[ref->grp[l]] == UINT32_MAX)
			uof[ref->grp[l]] = (uint32_t)g->n_units++;
		g->unit[l] = uof[ref->grp[l]];
	}
	/* Count per class along every unit's chain, then fill (cls_off[c + 1] is c's cursor). */
	for (size_t id = 1; id < ref->n; id++)
		for (size_t a = uof[id] == UINT32_MAX ? 0 : id; a; a = ref->v[a].parent)
			g->cls_off[ref->v[a].cls + 2]++;
	for (size_t c = 0; c < ref->n_cls; c++)
		g->cls_off[c + 2] += g->cls_off[c + 1];
	g->dem = calloc(g->cls_off[ref->n_cls + 1] + 1, sizeof(*g->dem));
	if (!g->dem)
		goto out;
	for (size_t id = 1; id < ref->n; id++)
		for (size_t a = uof[id] == UINT32_MAX ? 0 : id; a; a = ref->v[a].parent, k++)
			g->dem[g->cls_off[ref->v[a].cls + 1]++] = (struct gdem){ uof[id], ref->v[a].d };
	rc = 0;
out:
	free(uof);
	return rc;
}

int greedy_setup(struct greedy *g, struct route *r, const struct sched_pair *pairs, size_t n,
			const struct pair_route *routes, struct sched_topo_bound *b, struct fab_err *err)
{
	size_t *lh = NULL, users = 0;
	struct bound_acc ba = { 0 };
	struct gref ref = { 0 };
	bool *seen_host = NULL;
	int rc = -ENOMEM;

	memset(g, 0, sizeof(*g));
	g->r = r;
	g->n = n;
	g->p = calloc(n + 1, sizeof(*g->p));
	g->deg = calloc(r->n_hosts + 1, sizeof(*g->deg));
	g->rem_x = calloc(r->n_leaves + 1, sizeof(*g->rem_x));
	g->cut = calloc(r->n_leaves + 1, sizeof(*g->cut));
	g->left = calloc(n + 1, sizeof(*g->left));
	g->ord = calloc(n + 1, sizeof(*g->ord));
	g->taken = calloc(n + 1, sizeof(*g->taken));
	g->kd = calloc(n + 1, sizeof(*g->kd));
	g->kd_of = calloc(n + 1, sizeof(*g->kd_of));
	g->kd_ord = calloc(n + 1, sizeof(*g->kd_ord));
	g->n_ktab = 64;
	g->ktab = calloc(g->n_ktab, sizeof(*g->ktab));
	g->busy = calloc(r->n_hosts + 1, sizeof(*g->busy));
	seen_host = calloc(r->n_hosts + 1, sizeof(*seen_host));
	if (!g->p || !g->deg || !g->rem_x || !g->cut || !g->left || !g->ord || !g->taken || !g->kd ||
	    !g->kd_of || !g->kd_ord || !g->ktab || !g->busy || !seen_host || bacc_init(&ba, r) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct gpair *p = &g->p[i];

		if (pairs[i].a >= r->n_hosts || pairs[i].b >= r->n_hosts || pairs[i].a == pairs[i].b) {
			rc = fab_err_set(err, -EINVAL, "schedule: pair %zu (%u, %u) names no two hosts", i,
					 pairs[i].a, pairs[i].b);
			goto out;
		}
		if (routes && (routes[i].a != pairs[i].a || routes[i].b != pairs[i].b)) {
			rc = fab_err_set(err, -EINVAL, "schedule: route %zu is not of pair (%u, %u)", i,
					 pairs[i].a, pairs[i].b);
			goto out;
		}
		*p = (struct gpair){ .a = pairs[i].a, .b = pairs[i].b, .cls = ROUTE_NONE,
				     .cross = cross_leaf(r, pairs[i].a, pairs[i].b) };
		if (!routes && !p->cross)
			p->e = pair_expected(r, p->a, p->b, 0);
	}
	ref.grp = calloc(r->n_links + 1, sizeof(*ref.grp));
	ref.v = calloc(1, sizeof(*ref.v));
	ref.n = ref.cap = 1;	/* group 0 */
	if (!ref.grp || !ref.v)
		goto out;
	rc = routes ? routed_build(g, &ref, routes) : lp_build(g, &ref, err);
	if (rc < 0) {
		if (routes)
			fab_err_set(err, rc, "schedule: pair routes");
		goto out;
	}
	if ((rc = units_finish(g, &ref)) < 0)
		goto out;
	rc = -ENOMEM;
	g->rem = calloc(g->n_units + 1, sizeof(*g->rem));
	g->used = calloc(g->n_units + 1, sizeof(*g->used));
	g->touched = calloc(g->n_units + 1, sizeof(*g->touched));
	if (!g->rem || !g->used || !g->touched)
		goto out;
	/* Per pair, in order: demands into rem and the bound. */
	for (size_t i = 0; i < n; i++) {
		const struct gpair *p = &g->p[i];

		for (size_t j = p->cls == ROUTE_NONE ? 0 : g->cls_off[p->cls];
		     p->cls != ROUTE_NONE && j < g->cls_off[p->cls + 1]; j++)
			g->rem[g->dem[j].unit] += g->dem[j].d;
		if (p->cross) {
			bacc_add(&ba, r->hosts[p->a].leaf, r->hosts[p->b].leaf, NULL, 0, p->e, 1);
			g->rem_x[r->hosts[p->a].leaf]++;
			g->rem_x[r->hosts[p->b].leaf]++;
		}
		g->deg[p->a]++;
		g->deg[p->b]++;
		users += !seen_host[p->a] + !seen_host[p->b];
		seen_host[p->a] = seen_host[p->b] = true;
	}
	for (size_t l = 0; l < r->n_links; l++)
		ba.load[l] = g->rem[g->unit[l]];
	b->node = 0;
	for (size_t h = 0; h < r->n_hosts; h++)
		if (g->deg[h] > b->node)
			b->node = g->deg[h];
	if (users >= 2 && ceil_sz((double)n / (double)(users / 2)) > b->node)
		b->node = ceil_sz((double)n / (double)(users / 2));
	lh = leaf_host_counts(r);
	if (!lh)
		goto out;
	bacc_finish(&ba, lh, b);
	for (uint32_t l = 0; l < r->n_leaves; l++) {
		g->cut[l] = leaf_cut(r, l, ba.emin[l], lh[l]);
		if (g->cut[l] <= 0)
			g->cut[l] = 1;
	}
	rc = 0;
out:
	gref_fini(&ref);
	bacc_fini(&ba);
	free(lh);
	free(seen_host);
	return rc;
}
