// SPDX-License-Identifier: GPL-2.0-or-later
/* Topology-aware sweep rounds (sched_topo.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched_topo.h"
#include "util/array.h"

#define EPS 1e-9

static double min_known(double cur, double v)
{
	return v > 0 && (cur <= 0 || v < cur) ? v : cur;
}

double sched_topo_cap(const struct route *r, uint32_t link, double expected_mbps)
{
	double rate = r->link_mbps[link];

	if (rate <= 0 || expected_mbps <= 0)
		return 1;
	rate = floor(rate / expected_mbps + EPS);
	return rate < 1 ? 1 : rate;
}

/* cap(L, e) over a run of links, computed once per rate: the links of a path set mostly share one. */
struct cap_memo {
	double rate, e, cap;
};

static double cap_of(struct cap_memo *m, const struct route *r, uint32_t link, double e)
{
	if (m->rate != r->link_mbps[link] || m->e != e) {
		m->rate = r->link_mbps[link];
		m->e = e;
		m->cap = sched_topo_cap(r, link, e);
	}
	return m->cap;
}

/* Expected rate of a pair from its leaf pair's lowest known rate and its access links. */
static double pair_expected(const struct route *r, unsigned int a, unsigned int b, double lp_min)
{
	return min_known(min_known(lp_min, r->link_mbps[r->hosts[a].link]),
			 r->link_mbps[r->hosts[b].link]);
}

static bool node_is_switch(const struct topo_node *n)
{
	return n->type == TOPO_NODE_SWITCH || n->type == TOPO_NODE_ROUTER;
}

static bool cross_leaf(const struct route *r, unsigned int a, unsigned int b)
{
	return r->hosts[a].leaf != r->hosts[b].leaf && r->hosts[a].link != r->hosts[b].link;
}

static size_t ceil_sz(double v)
{
	return v <= EPS ? 0 : (size_t)ceil(v - EPS);
}

/* ---- bounds ---- */

struct bound_acc {
	struct route *r;
	double *load;		/* per link, lower bound of the demands */
	double *x;		/* per leaf: pairs leaving it */
	double *emin;		/* per leaf: lowest known expected rate of those, 0 none */
	double x_total;
};

static int bacc_init(struct bound_acc *ba, struct route *r)
{
	memset(ba, 0, sizeof(*ba));
	ba->r = r;
	ba->load = calloc(r->n_links + 1, sizeof(*ba->load));
	ba->x = calloc(r->n_leaves + 1, sizeof(*ba->x));
	ba->emin = calloc(r->n_leaves + 1, sizeof(*ba->emin));
	return ba->load && ba->x && ba->emin ? 0 : -ENOMEM;
}

static void bacc_fini(struct bound_acc *ba)
{
	free(ba->load);
	free(ba->x);
	free(ba->emin);
}

/* @count pairs between leaves la and lb whose expected rates are at least @e_lo (0 unknown). */
static void bacc_add(struct bound_acc *ba, uint32_t la, uint32_t lb, const struct route_load *items,
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
static double leaf_cut(const struct route *r, uint32_t l, double emin, size_t hosts)
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

static void bacc_finish(struct bound_acc *ba, const size_t *leaf_hosts, struct sched_topo_bound *b)
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

static size_t *leaf_host_counts(const struct route *r)
{
	size_t *c = calloc(r->n_leaves + 1, sizeof(*c));

	if (c)
		for (size_t i = 0; i < r->n_hosts; i++)
			c[r->hosts[i].leaf]++;
	return c;
}

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

struct gpair {
	uint32_t a, b;
	uint32_t cls;		/* demand class, ROUTE_NONE: none (hosts on one leaf) */
	bool cross;		/* its hosts are on different leaves */
	double e;		/* expected Mb/s, 0 unknown */
};

struct gdem {
	uint32_t unit;
	double d;		/* demand on each link of the unit */
};

/* A distinct key of a round: how many pairs have it, where they start in the round's order. */
struct kdist {
	double key;
	uint32_t count, off;
};

/* A slot of the round's table of distinct keys (by their bits). */
struct kslot {
	uint64_t bits;
	uint32_t dist, stamp;
};

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

struct greedy {
	struct route *r;
	struct gpair *p;
	size_t n;
	size_t n_cls;
	size_t *cls_off;	/* n_cls + 1 into dem */
	struct gdem *dem;
	double *cls_crit;	/* per class: the most its units still have to carry */
	uint32_t *cls_fail;	/* per class: 1 + the round in which it stopped fitting */
	uint32_t *unit;		/* per link: its unit */
	size_t n_units;
	double *rem, *used;	/* per unit, in capacity units */
	double *rem_x, *cut;	/* per leaf */
	size_t *deg;		/* per host */
	uint32_t *touched;
	size_t n_touched;
	uint32_t *left;		/* pairs not yet scheduled, by rank */
	uint32_t *ord;		/* this round's order of them */
	bool *taken;		/* per pair, this attempt */
	struct kdist *kd;	/* a round's distinct keys */
	uint32_t *kd_of;	/* per position in left: its key in kd */
	uint32_t *kd_ord;	/* kd by key, highest first */
	struct kslot *ktab;	/* bits -> kd (n_ktab slots, a power of 2, at most half full) */
	size_t n_ktab;
	uint32_t kstamp;
	uint32_t *rank;		/* tie-break: a pair's place in this attempt's order */
	bool *busy;		/* per host, this round */
	double *rem0, *rem_x0;	/* state before the first attempt */
	size_t *deg0;
	unsigned int mode;	/* key variant of this attempt */
};

static void greedy_fini(struct greedy *g)
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

static int greedy_setup(struct greedy *g, struct route *r, const struct sched_pair *pairs, size_t n,
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
static double greedy_work(size_t n_pairs, const struct sched_topo_bound *b)
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

/* ---- streamed all-pairs generator ---- */

/* Circle method on m (even) slots: pair @i of round @rd. */
static void circle_pair(size_t m, size_t rd, size_t i, size_t *x, size_t *y)
{
	if (i == 0) {
		*x = m - 1;
		*y = rd % (m - 1);
	} else {
		*x = (i + rd) % (m - 1);
		*y = (m - 1 - i + rd) % (m - 1);
	}
}

enum { LP_PENDING = 0, LP_ACTIVE, LP_DONE };

struct gen_lp {
	uint32_t s, g;		/* smaller and larger leaf */
	size_t pos, total;
	size_t c;
	size_t slot;		/* index of its plan_c entry */
	int state;
};

struct sched_topo_gen {
	struct route *r;
	/*
	 * "Leaves" here are host groups: the physical leaves, or with an odd
	 * number of leaves each leaf's two halves (so that no leaf's uplinks
	 * sit idle through a bye); gleaf maps a group to its physical leaf.
	 */
	size_t n, n_leaves, m_leaves;	/* m_leaves: groups rounded up to even */
	uint32_t *gleaf;
	size_t *lstart;		/* hosts of leaf l: lhost[lstart[l] .. lstart[l + 1]) */
	uint32_t *lhost;
	double *amax;		/* per leaf: highest known access rate, 0 none */
	bool *aunk;		/* per leaf: a host's access rate unknown */
	double *amin;		/* per leaf: lowest known access rate */
	size_t lround;		/* current leaf round; m_leaves - 1 when all are done */
	struct gen_lp *lps;
	size_t n_lps;
	/* intra-leaf pairs, in circle order per leaf */
	size_t *ioff;		/* bit offset of leaf l's done bits */
	uint8_t *idone;
	size_t *ifirst, *ileft;
	size_t intra_left;
	bool *busy;
	double *acc;
	uint32_t *touched;
	size_t n_touched;
	size_t *plan_c;		/* per (leaf round, slot): tests at once in the first wave, 0 later */
	size_t wave_no;		/* waves started in this leaf round */
	struct sched_topo_bound bound;
	int dead;		/* an error made the generator stop */
};

static size_t leaf_n(const struct sched_topo_gen *g, uint32_t l)
{
	return g->lstart[l + 1] - g->lstart[l];
}

static size_t even_up(size_t n)
{
	return n % 2 ? n + 1 : n;
}

void sched_topo_gen_free(struct sched_topo_gen *g)
{
	if (!g)
		return;
	free(g->lstart);
	free(g->lhost);
	free(g->gleaf);
	free(g->amax);
	free(g->aunk);
	free(g->amin);
	free(g->lps);
	free(g->ioff);
	free(g->idone);
	free(g->ifirst);
	free(g->ileft);
	free(g->busy);
	free(g->acc);
	free(g->touched);
	free(g->plan_c);
	free(g);
}

static void gen_load_lround(struct sched_topo_gen *g)
{
	g->n_lps = 0;
	g->wave_no = 0;
	if (g->lround >= g->m_leaves - 1)
		return;
	for (size_t i = 0; i < g->m_leaves / 2; i++) {
		size_t x, y;
		struct gen_lp *lp = &g->lps[g->n_lps];

		circle_pair(g->m_leaves, g->lround, i, &x, &y);
		if (x >= g->n_leaves || y >= g->n_leaves)
			continue;	/* a bye: that leaf's hosts take their own pairs */
		if (leaf_n(g, (uint32_t)x) > leaf_n(g, (uint32_t)y)) {
			size_t t = x;

			x = y;
			y = t;
		}
		*lp = (struct gen_lp){ .s = (uint32_t)x, .g = (uint32_t)y,
				       .total = leaf_n(g, (uint32_t)x) * leaf_n(g, (uint32_t)y),
				       .slot = g->lround * (g->m_leaves / 2) + i };
		if (!lp->total)
			lp->state = LP_DONE;
		g->n_lps++;
	}
}

void sched_topo_gen_reset(struct sched_topo_gen *g)
{
	size_t bits = g->ioff[g->n_leaves];

	memset(g->idone, 0, bits / 8 + 1);
	g->intra_left = 0;
	for (uint32_t l = 0; l < g->n_leaves; l++) {
		size_t h = leaf_n(g, l);

		g->ifirst[l] = 0;
		g->ileft[l] = h * (h - (h > 0)) / 2;
		g->intra_left += g->ileft[l];
	}
	g->lround = 0;
	g->dead = 0;
	gen_load_lround(g);
}

/* Highest expected rate a pair of the leaf pair can have (its worst demand). */
static double lp_e_max(const struct sched_topo_gen *g, uint32_t i, uint32_t j, double lp_min)
{
	double xi[2] = { g->amax[i], 0 }, xj[2] = { g->amax[j], 0 }, e = 0;

	for (int p = 0; p < 1 + g->aunk[i]; p++)
		for (int q = 0; q < 1 + g->aunk[j]; q++)
			e = fmax(e, min_known(min_known(lp_min, xi[p]), xj[q]));
	return e;
}

/* Lowest known expected rate a pair of the leaf pair can have (0 none): for the bound. */
static double lp_e_lo(const struct sched_topo_gen *g, uint32_t i, uint32_t j, double lp_min)
{
	double xi[2] = { g->amin[i], 0 }, xj[2] = { g->amin[j], 0 }, e = 0;

	for (int p = 0; p < 1 + g->aunk[i]; p++)
		for (int q = 0; q < 1 + g->aunk[j]; q++) {
			double v = min_known(min_known(lp_min, xi[p]), xj[q]);

			e = e > 0 && v > 0 ? fmin(e, v) : e > 0 ? e : v;
		}
	return e;
}

/* Links between two groups: none within one physical leaf. */
static int group_loads(struct sched_topo_gen *g, uint32_t x, uint32_t y,
		       const struct route_load **it, size_t *m, struct route_info *info)
{
	if (g->gleaf[x] == g->gleaf[y]) {
		*it = NULL;
		*m = 0;
		*info = (struct route_info){ 0 };
		return 0;
	}
	return route_leaf_loads(g->r, g->gleaf[x], g->gleaf[y], it, m, info);
}

static int lp_add_loads(struct sched_topo_gen *g, const struct gen_lp *lp, double sign, bool *over)
{
	const struct route_load *it;
	struct cap_memo memo = { .rate = -1 };
	struct route_info info;
	size_t m;
	double e;
	int rc = group_loads(g, lp->s, lp->g, &it, &m, &info);

	if (rc < 0)
		return rc;
	e = lp_e_max(g, lp->s, lp->g, info.min_mbps);
	*over = false;
	for (size_t k = 0; k < m; k++) {
		uint32_t l = it[k].link;

		if (g->acc[l] == 0 && sign > 0)
			g->touched[g->n_touched++] = l;
		g->acc[l] += sign * it[k].share / cap_of(&memo, g->r, l, e);
		if (g->acc[l] > 1 + EPS)
			*over = true;
		if (g->acc[l] < EPS)
			g->acc[l] = 1e-300;	/* stays "touched" */
	}
	return 0;
}

/* Start the next wave: the pending leaf pairs that fit together at one test each. */
static int gen_wave(struct sched_topo_gen *g, bool *started)
{
	double f = INFINITY;
	bool over;
	int rc;

	*started = false;
	/* The first wave of a leaf round was planned with the bound. */
	for (size_t i = 0; i < g->n_lps; i++)
		if (g->wave_no == 0 && g->lps[i].state == LP_PENDING && g->plan_c[g->lps[i].slot]) {
			g->lps[i].c = g->plan_c[g->lps[i].slot];
			g->lps[i].state = LP_ACTIVE;
			*started = true;
		}
	g->wave_no++;
	if (*started)
		return 0;
	for (size_t i = 0; i < g->n_lps; i++) {
		struct gen_lp *lp = &g->lps[i];

		if (lp->state != LP_PENDING)
			continue;
		if ((rc = lp_add_loads(g, lp, 1, &over)) < 0)
			return rc;
		if (over && *started) {
			if ((rc = lp_add_loads(g, lp, -1, &over)) < 0)
				return rc;
			continue;
		}
		lp->state = LP_ACTIVE;	/* the first always runs: alone, it fits */
		*started = true;
	}
	for (size_t i = 0; i < g->n_touched; i++) {
		if (g->acc[g->touched[i]] > 1e-200)
			f = fmin(f, 1 / g->acc[g->touched[i]]);
		g->acc[g->touched[i]] = 0;
	}
	g->n_touched = 0;
	for (size_t i = 0; i < g->n_lps; i++)
		if (g->lps[i].state == LP_ACTIVE) {
			size_t hs = leaf_n(g, g->lps[i].s);

			g->lps[i].c = f >= (double)hs ? hs : f < 1 ? 1 : (size_t)floor(f + EPS);
		}
	return 0;
}

static bool idone_get(const struct sched_topo_gen *g, uint32_t l, size_t q)
{
	size_t bit = g->ioff[l] + q;

	return g->idone[bit / 8] >> (bit % 8) & 1;
}

static void idone_set(struct sched_topo_gen *g, uint32_t l, size_t q)
{
	size_t bit = g->ioff[l] + q;

	g->idone[bit / 8] |= (uint8_t)(1u << (bit % 8));
}

/* Pair up the idle hosts of leaf @l with pairs of their own leaf, in circle order. */
static void gen_intra(struct sched_topo_gen *g, uint32_t l, struct sched_pair *out, size_t *n)
{
	size_t h = leaf_n(g, l), m = even_up(h), free_n = 0, slots = (m - 1) * (m / 2);
	const uint32_t *hosts = g->lhost + g->lstart[l];

	if (!g->ileft[l])
		return;
	for (size_t i = 0; i < h; i++)
		free_n += !g->busy[hosts[i]];
	for (size_t q = g->ifirst[l]; q < slots && free_n >= 2; q++) {
		size_t x, y;

		if (idone_get(g, l, q)) {
			if (q == g->ifirst[l])
				g->ifirst[l]++;
			continue;
		}
		circle_pair(m, q / (m / 2), q % (m / 2), &x, &y);
		if (x >= h || y >= h) {
			idone_set(g, l, q);	/* a bye */
			if (q == g->ifirst[l])
				g->ifirst[l]++;
			continue;
		}
		if (g->busy[hosts[x]] || g->busy[hosts[y]])
			continue;
		g->busy[hosts[x]] = g->busy[hosts[y]] = true;
		idone_set(g, l, q);
		if (q == g->ifirst[l])
			g->ifirst[l]++;
		out[*n].a = hosts[x] < hosts[y] ? hosts[x] : hosts[y];
		out[*n].b = hosts[x] < hosts[y] ? hosts[y] : hosts[x];
		(*n)++;
		free_n -= 2;
		g->ileft[l]--;
		g->intra_left--;
	}
}

int sched_topo_gen_next(struct sched_topo_gen *g, struct sched_pair *out, size_t *n)
{
	bool any_active, any_pending, started;
	int rc;

	*n = 0;
	if (g->dead)
		return g->dead;
	for (;;) {
		any_active = any_pending = false;
		for (size_t i = 0; i < g->n_lps; i++) {
			any_active |= g->lps[i].state == LP_ACTIVE;
			any_pending |= g->lps[i].state == LP_PENDING;
		}
		if (!any_active && any_pending) {
			if ((rc = gen_wave(g, &started)) < 0)
				return g->dead = rc;
			continue;
		}
		if (!any_active && g->lround < g->m_leaves - 1) {
			/* This leaf round is over (or was all byes): the next one. */
			g->lround++;
			gen_load_lround(g);
			continue;
		}
		break;
	}
	if (!any_active && g->intra_left == 0)
		return 0;
	memset(g->busy, 0, g->n * sizeof(*g->busy));
	for (size_t i = 0; i < g->n_lps; i++) {
		struct gen_lp *lp = &g->lps[i];
		size_t hs = leaf_n(g, lp->s), hg = leaf_n(g, lp->g), k;

		if (lp->state != LP_ACTIVE)
			continue;
		k = lp->total - lp->pos < lp->c ? lp->total - lp->pos : lp->c;
		for (size_t t = 0; t < k; t++) {
			size_t mi = lp->pos + t, sig = mi / hs, p = mi % hs;
			uint32_t x = g->lhost[g->lstart[lp->s] + p];
			uint32_t y = g->lhost[g->lstart[lp->g] + (p + sig) % hg];

			g->busy[x] = g->busy[y] = true;
			out[*n].a = x < y ? x : y;
			out[*n].b = x < y ? y : x;
			(*n)++;
		}
		lp->pos += k;
		if (lp->pos == lp->total)
			lp->state = LP_DONE;
	}
	for (uint32_t l = 0; l < g->n_leaves; l++)
		gen_intra(g, l, out, n);
	return *n ? 1 : 0;
}

int sched_topo_gen_count(struct sched_topo_gen *g, size_t *n_rounds)
{
	struct sched_pair *buf = calloc(g->n / 2 + 1, sizeof(*buf));
	size_t k = 0, n;
	int rc;

	if (!buf)
		return -ENOMEM;
	sched_topo_gen_reset(g);
	while ((rc = sched_topo_gen_next(g, buf, &n)) == 1)
		k++;
	free(buf);
	sched_topo_gen_reset(g);
	if (rc == 0)
		*n_rounds = k;
	return rc;
}

const struct sched_topo_bound *sched_topo_gen_bound(const struct sched_topo_gen *g)
{
	return &g->bound;
}

/*
 * One pass over every leaf pair, by leaf round: the bound's loads, and the
 * plan of each leaf round's first wave (which leaf pairs fit together at one
 * test each, and how many tests each then runs at once).
 */
static int gen_bound(struct sched_topo_gen *g)
{
	struct route *r = g->r;
	struct bound_acc ba;
	size_t *lh = leaf_host_counts(r);
	int rc = bacc_init(&ba, r);

	g->plan_c = calloc((g->m_leaves - 1) * (g->m_leaves / 2) + 1, sizeof(*g->plan_c));
	if (rc < 0 || !lh || !g->plan_c) {
		rc = -ENOMEM;
		goto out;
	}
	for (g->lround = 0; g->lround < g->m_leaves - 1; g->lround++) {
		bool any = false;
		double f = INFINITY;

		gen_load_lround(g);
		for (size_t k = 0; k < g->n_lps; k++) {
			const struct gen_lp *lp = &g->lps[k];
			const struct route_load *it;
			struct cap_memo memo = { .rate = -1 };
			struct route_info info;
			bool over = false;
			size_t m;
			double e;

			if (lp->state == LP_DONE)
				continue;
			rc = group_loads(g, lp->s, lp->g, &it, &m, &info);
			if (rc < 0)
				goto out;
			if (g->gleaf[lp->s] != g->gleaf[lp->g])
				bacc_add(&ba, g->gleaf[lp->s], g->gleaf[lp->g], it, m,
					 lp_e_lo(g, lp->s, lp->g, info.min_mbps), (double)lp->total);
			e = lp_e_max(g, lp->s, lp->g, info.min_mbps);
			for (size_t q = 0; q < m; q++) {
				uint32_t l = it[q].link;

				if (g->acc[l] == 0)
					g->touched[g->n_touched++] = l;
				g->acc[l] += it[q].share / cap_of(&memo, r, l, e);
				over |= g->acc[l] > 1 + EPS;
			}
			if (over && any) {
				for (size_t q = 0; q < m; q++) {
					g->acc[it[q].link] -= it[q].share / cap_of(&memo, r, it[q].link, e);
					if (g->acc[it[q].link] < EPS)
						g->acc[it[q].link] = 1e-300;
				}
				continue;
			}
			any = true;
			g->plan_c[lp->slot] = 1;
		}
		for (size_t i = 0; i < g->n_touched; i++) {
			if (g->acc[g->touched[i]] > 1e-200)
				f = fmin(f, 1 / g->acc[g->touched[i]]);
			g->acc[g->touched[i]] = 0;
		}
		g->n_touched = 0;
		for (size_t k = 0; k < g->n_lps; k++) {
			size_t hs = leaf_n(g, g->lps[k].s);

			if (g->plan_c[g->lps[k].slot])
				g->plan_c[g->lps[k].slot] = f >= (double)hs ? hs : f < 1 ? 1 : (size_t)floor(f + EPS);
		}
	}
	g->bound.node = g->n < 2 ? 0 : g->n % 2 ? g->n : g->n - 1;
	bacc_finish(&ba, lh, &g->bound);
	rc = 0;
out:
	bacc_fini(&ba);
	free(lh);
	return rc;
}

static int gen_create(struct sched_topo_gen **out, struct route *r, bool split, struct fab_err *err)
{
	struct sched_topo_gen *g = calloc(1, sizeof(*g));
	size_t *fill = NULL, *per_leaf = NULL, *seen = NULL, bits = 0;
	int rc = -ENOMEM;

	if (!g)
		return fab_err_set(err, -ENOMEM, "schedule: out of memory");
	g->r = r;
	g->n = r->n_hosts;
	g->n_leaves = split ? 2 * r->n_leaves : r->n_leaves;
	g->m_leaves = even_up(g->n_leaves) ? even_up(g->n_leaves) : 2;
	for (size_t i = 0; i < r->n_leaves; i++)
		if (!node_is_switch(r->topo->nodes[r->leaves[i]])) {
			rc = fab_err_set(err, -EOPNOTSUPP, "schedule: host cabled to '%s', not to a switch",
					 r->topo->nodes[r->leaves[i]]->name);
			goto out;
		}
	g->lstart = calloc(g->n_leaves + 2, sizeof(*g->lstart));
	g->lhost = calloc(g->n + 1, sizeof(*g->lhost));
	g->amax = calloc(g->n_leaves + 1, sizeof(*g->amax));
	g->amin = calloc(g->n_leaves + 1, sizeof(*g->amin));
	g->aunk = calloc(g->n_leaves + 1, sizeof(*g->aunk));
	g->lps = calloc(g->m_leaves / 2 + 1, sizeof(*g->lps));
	g->ioff = calloc(g->n_leaves + 1, sizeof(*g->ioff));
	g->ifirst = calloc(g->n_leaves + 1, sizeof(*g->ifirst));
	g->ileft = calloc(g->n_leaves + 1, sizeof(*g->ileft));
	g->busy = calloc(g->n + 1, sizeof(*g->busy));
	g->acc = calloc(r->n_links + 1, sizeof(*g->acc));
	g->touched = calloc(r->n_links + 1, sizeof(*g->touched));
	fill = calloc(g->n_leaves + 1, sizeof(*fill));
	g->gleaf = calloc(g->n_leaves + 1, sizeof(*g->gleaf));
	per_leaf = leaf_host_counts(r);
	seen = calloc(r->n_leaves + 1, sizeof(*seen));
	if (!g->lstart || !g->lhost || !g->amax || !g->amin || !g->aunk || !g->lps || !g->ioff ||
	    !g->ifirst || !g->ileft || !g->busy || !g->acc || !g->touched || !fill || !g->gleaf ||
	    !per_leaf || !seen)
		goto out;
	for (uint32_t l = 0; l < g->n_leaves; l++)
		g->gleaf[l] = split ? l / 2 : l;
	for (size_t h = 0; h < g->n; h++) {
		uint32_t pl = r->hosts[h].leaf;
		/* split: the first half of a leaf's hosts (in host order) in group 2l, the rest in 2l + 1 */
		uint32_t l = split ? 2 * pl + (seen[pl]++ >= (per_leaf[pl] + 1) / 2) : pl;
		double a = r->link_mbps[r->hosts[h].link];

		g->lstart[l + 1]++;
		if (a > 0) {
			g->amax[l] = fmax(g->amax[l], a);
			g->amin[l] = min_known(g->amin[l], a);
		} else {
			g->aunk[l] = true;
		}
	}
	for (size_t l = 0; l < g->n_leaves; l++)
		g->lstart[l + 1] += g->lstart[l];
	memset(seen, 0, r->n_leaves * sizeof(*seen));
	for (size_t h = 0; h < g->n; h++) {
		uint32_t pl = r->hosts[h].leaf;
		uint32_t l = split ? 2 * pl + (seen[pl]++ >= (per_leaf[pl] + 1) / 2) : pl;

		g->lhost[g->lstart[l] + fill[l]++] = (uint32_t)h;
	}
	for (uint32_t l = 0; l < g->n_leaves; l++) {
		size_t m = even_up(leaf_n(g, l));

		g->ioff[l] = bits;
		bits += m ? (m - 1) * (m / 2) : 0;
	}
	g->ioff[g->n_leaves] = bits;
	g->idone = calloc(bits / 8 + 1, 1);
	if (!g->idone)
		goto out;
	rc = gen_bound(g);
	if (rc < 0) {
		fab_err_set(err, rc, "schedule: leaves without a path between them");
		goto out;
	}
	sched_topo_gen_reset(g);
out:
	free(fill);
	free(per_leaf);
	free(seen);
	if (rc < 0) {
		if (!err || !err->code)
			fab_err_set(err, rc, "schedule: out of memory");
		sched_topo_gen_free(g);
		return rc;
	}
	*out = g;
	return 0;
}

int sched_topo_gen_new(struct sched_topo_gen **out, struct route *r, struct fab_err *err)
{
	struct sched_topo_gen *whole = NULL, *halves = NULL;
	size_t n_whole, n_halves;
	int rc = gen_create(&whole, r, false, err);

	/* An odd number of leaves: also try halves of leaves; keep the fewer rounds. */
	if (rc < 0 || r->n_leaves < 3 || r->n_leaves % 2 == 0) {
		if (rc == 0)
			*out = whole;
		return rc;
	}
	if ((rc = gen_create(&halves, r, true, err)) < 0 ||
	    (rc = sched_topo_gen_count(whole, &n_whole)) < 0 ||
	    (rc = sched_topo_gen_count(halves, &n_halves)) < 0) {
		sched_topo_gen_free(whole);
		sched_topo_gen_free(halves);
		return fab_err_set(err, rc, "schedule: all pairs of %zu hosts", r->n_hosts);
	}
	if (n_halves < n_whole) {
		sched_topo_gen_free(whole);
		*out = halves;
	} else {
		sched_topo_gen_free(halves);
		*out = whole;
	}
	return 0;
}

/* ---- all pairs, explicit ---- */

static int gen_collect(struct sched_topo_gen *g, struct sched *s)
{
	size_t total = g->n * (g->n - (g->n > 0)) / 2, n, k = 0;
	struct sched_pair *buf = calloc(g->n / 2 + 1, sizeof(*buf));
	int rc = -ENOMEM;

	sched_init(s);
	s->pairs = calloc(total + 1, sizeof(*s->pairs));
	s->round_start = calloc(total + 2, sizeof(*s->round_start));
	if (!buf || !s->pairs || !s->round_start)
		goto out;
	sched_topo_gen_reset(g);
	while ((rc = sched_topo_gen_next(g, buf, &n)) == 1) {
		if (k + n > total) {
			rc = -EOVERFLOW;
			goto out;
		}
		memcpy(s->pairs + k, buf, n * sizeof(*buf));
		k += n;
		s->round_start[++s->n_rounds] = k;
	}
	s->n_pairs = k;
out:
	free(buf);
	if (rc < 0)
		sched_fini(s);
	return rc;
}

int sched_topo_all(struct sched *s, struct sched_topo_bound *b, struct route *r,
		   struct fab_err *err)
{
	struct sched_topo_gen *g = NULL;
	struct sched circ, greedy_s;
	struct sched_topo_bound gb;
	int rc;

	if (r->n_hosts > SCHED_TOPO_EXPLICIT_MAX)
		return fab_err_set(err, -E2BIG, "schedule: %zu hosts: stream the rounds (sched_topo_gen)",
				   r->n_hosts);
	sched_init(s);
	rc = sched_topo_gen_new(&g, r, err);
	if (rc == 0) {
		rc = gen_collect(g, s);
		*b = g->bound;
		sched_topo_gen_free(g);
		if (rc < 0)
			return fab_err_set(err, rc, "schedule: all pairs of %zu hosts", r->n_hosts);
		if (s->n_rounds <= b->bound ||
		    greedy_work(s->n_pairs, b) > SCHED_TOPO_GREEDY_WORK)
			return 0;
	} else if (rc != -EOPNOTSUPP) {
		return rc;
	} else if (err) {
		fab_err_init(err);	/* not a switch fabric: the packer alone */
	}
	/* Small fleets: the greedy packer over the circle order, if it does better. */
	if ((rc = sched_circle(&circ, r->n_hosts)) < 0)
		return fab_err_set(err, rc, "schedule: all pairs");
	rc = sched_topo_pairs(&greedy_s, &gb, r, circ.pairs, circ.n_pairs, err);
	sched_fini(&circ);
	if (rc < 0) {
		sched_fini(s);
		return rc;
	}
	if (!g) {
		*b = gb;
	} else {
		/* Both bounds hold: keep the larger of each. */
		b->node = b->node > gb.node ? b->node : gb.node;
		if (gb.link > b->link) {
			b->link = gb.link;
			b->link_at = gb.link_at;
		}
		b->cut = b->cut > gb.cut ? b->cut : gb.cut;
		b->bound = b->bound > gb.bound ? b->bound : gb.bound;
	}
	if (!s->pairs || greedy_s.n_rounds < s->n_rounds) {
		sched_fini(s);
		*s = greedy_s;
	} else {
		sched_fini(&greedy_s);
	}
	return 0;
}

/* ---- checker ---- */

struct chk_item {
	uint32_t la, lb;	/* la < lb; la == lb: not cross-leaf */
	double e;
	unsigned int a, b;
};

struct sched_topo_checker {
	struct route *r;
	size_t n_hosts;
	uint8_t *want;		/* n x n bits: requested, then cleared when seen */
	uint8_t *seen;
	size_t n_want, n_seen, round;
	bool *busy;
	double *used;
	uint32_t *touched;
	size_t n_touched;
	struct chk_item *items;
};

void sched_topo_checker_free(struct sched_topo_checker *c)
{
	if (!c)
		return;
	free(c->want);
	free(c->seen);
	free(c->busy);
	free(c->used);
	free(c->touched);
	free(c->items);
	free(c);
}

static size_t bit_of(const struct sched_topo_checker *c, unsigned int a, unsigned int b)
{
	return a < b ? (size_t)a * c->n_hosts + b : (size_t)b * c->n_hosts + a;
}

static bool bit_get(const uint8_t *v, size_t i)
{
	return v[i / 8] >> (i % 8) & 1;
}

static void bit_set(uint8_t *v, size_t i)
{
	v[i / 8] |= (uint8_t)(1u << (i % 8));
}

int sched_topo_checker_new(struct sched_topo_checker **out, struct route *r,
			   const struct sched_pair *want, size_t n_want)
{
	struct sched_topo_checker *c = calloc(1, sizeof(*c));
	size_t n = r->n_hosts, bytes = n * n / 8 + 1;

	if (!c)
		return -ENOMEM;
	c->r = r;
	c->n_hosts = n;
	c->want = calloc(bytes, 1);
	c->seen = calloc(bytes, 1);
	c->busy = calloc(n + 1, sizeof(*c->busy));
	c->used = calloc(r->n_links + 1, sizeof(*c->used));
	c->touched = calloc(r->n_links + 1, sizeof(*c->touched));
	c->items = calloc(n / 2 + 1, sizeof(*c->items));
	if (!c->want || !c->seen || !c->busy || !c->used || !c->touched || !c->items) {
		sched_topo_checker_free(c);
		return -ENOMEM;
	}
	if (!want) {
		for (unsigned int a = 0; a < n; a++)
			for (unsigned int b = a + 1; b < n; b++)
				bit_set(c->want, bit_of(c, a, b));
		c->n_want = n * (n - (n > 0)) / 2;
	} else {
		for (size_t i = 0; i < n_want; i++) {
			if (want[i].a >= n || want[i].b >= n || want[i].a == want[i].b ||
			    bit_get(c->want, bit_of(c, want[i].a, want[i].b))) {
				sched_topo_checker_free(c);
				return -EINVAL;
			}
			bit_set(c->want, bit_of(c, want[i].a, want[i].b));
		}
		c->n_want = n_want;
	}
	*out = c;
	return 0;
}

static int chk_cmp(const void *x, const void *y)
{
	const struct chk_item *a = x, *b = y;

	if (a->la != b->la)
		return a->la < b->la ? -1 : 1;
	if (a->lb != b->lb)
		return a->lb < b->lb ? -1 : 1;
	return a->e < b->e ? -1 : a->e > b->e;
}

static void chk_use(struct sched_topo_checker *c, uint32_t link, double d)
{
	if (c->used[link] == 0)
		c->touched[c->n_touched++] = link;
	c->used[link] += d;
}

int sched_topo_checker_round(struct sched_topo_checker *c, const struct sched_pair *pairs,
			     size_t n, struct fab_err *err)
{
	struct route *r = c->r;
	int rc = -EINVAL;

	c->round++;
	if (n > c->n_hosts / 2)
		return fab_err_set(err, -EINVAL, "round %zu: %zu pairs for %zu hosts", c->round, n, c->n_hosts);
	for (size_t i = 0; i < n; i++) {
		unsigned int a = pairs[i].a, b = pairs[i].b;

		if (a >= c->n_hosts || b >= c->n_hosts || a == b) {
			fab_err_set(err, -EINVAL, "round %zu: bad pair (%u, %u)", c->round, a, b);
			goto out;
		}
		if (c->busy[a] || c->busy[b]) {
			fab_err_set(err, -EINVAL, "round %zu: host %u in two pairs", c->round, c->busy[a] ? a : b);
			goto out;
		}
		c->busy[a] = c->busy[b] = true;
		if (!bit_get(c->want, bit_of(c, a, b)) || bit_get(c->seen, bit_of(c, a, b))) {
			fab_err_set(err, -EINVAL, "round %zu: pair (%u, %u) %s", c->round, a, b,
				    bit_get(c->want, bit_of(c, a, b)) ? "scheduled twice" : "not requested");
			goto out;
		}
		bit_set(c->seen, bit_of(c, a, b));
		c->n_seen++;
		c->items[i] = (struct chk_item){ .a = a, .b = b };
		if (cross_leaf(r, a, b)) {
			c->items[i].la = r->hosts[a].leaf < r->hosts[b].leaf ? r->hosts[a].leaf : r->hosts[b].leaf;
			c->items[i].lb = r->hosts[a].leaf < r->hosts[b].leaf ? r->hosts[b].leaf : r->hosts[a].leaf;
		}
	}
	/* Expected rates need the leaf pair's lowest rate: fill them per group. */
	qsort(c->items, n, sizeof(*c->items), chk_cmp);
	for (size_t i = 0; i < n;) {
		const struct route_load *it = NULL;
		struct route_info info = { 0 };
		size_t j = i, m = 0;

		if (c->items[i].la != c->items[i].lb) {
			rc = route_leaf_loads(r, c->items[i].la, c->items[i].lb, &it, &m, &info);
			if (rc < 0) {
				fab_err_set(err, rc, "round %zu: no path for pair (%u, %u)", c->round,
					    c->items[i].a, c->items[i].b);
				goto out;
			}
		}
		for (; j < n && c->items[j].la == c->items[i].la && c->items[j].lb == c->items[i].lb; j++) {
			struct chk_item *p = &c->items[j];

			p->e = pair_expected(r, p->a, p->b, info.min_mbps);
			chk_use(c, r->hosts[p->a].link, 1 / sched_topo_cap(r, r->hosts[p->a].link, p->e));
			if (r->hosts[p->b].link != r->hosts[p->a].link)
				chk_use(c, r->hosts[p->b].link, 1 / sched_topo_cap(r, r->hosts[p->b].link, p->e));
		}
		/* Per distinct expected rate within the leaf pair: count x demand. */
		qsort(c->items + i, j - i, sizeof(*c->items), chk_cmp);
		for (size_t k = i; k < j;) {
			size_t q = k;

			while (q < j && c->items[q].e == c->items[k].e)
				q++;
			for (size_t t = 0; t < m; t++)
				chk_use(c, it[t].link, (double)(q - k) * it[t].share /
						       sched_topo_cap(r, it[t].link, c->items[k].e));
			k = q;
		}
		i = j;
	}
	rc = 0;
	for (size_t i = 0; i < c->n_touched && rc == 0; i++)
		if (c->used[c->touched[i]] > 1 + 1e-6) {
			const struct topo_link *l = r->topo->links[c->touched[i]];

			rc = fab_err_set(err, -EINVAL, "round %zu: link %s:%s - %s:%s over capacity (%.3f)",
					 c->round, l->a->node->name, l->a->name, l->b->node->name, l->b->name,
					 c->used[c->touched[i]]);
		}
out:
	for (size_t i = 0; i < c->n_touched; i++)
		c->used[c->touched[i]] = 0;
	c->n_touched = 0;
	for (size_t i = 0; i < n; i++)
		if (pairs[i].a < c->n_hosts && pairs[i].b < c->n_hosts)
			c->busy[pairs[i].a] = c->busy[pairs[i].b] = false;
	return rc;
}

int sched_topo_checker_finish(struct sched_topo_checker *c, struct fab_err *err)
{
	if (c->n_seen != c->n_want)
		return fab_err_set(err, -EINVAL, "%zu of %zu requested pairs scheduled", c->n_seen, c->n_want);
	return 0;
}

int sched_topo_check(const struct sched *s, struct route *r, const struct sched_pair *want,
		     size_t n_want, struct fab_err *err)
{
	struct sched_topo_checker *c;
	int rc = sched_topo_checker_new(&c, r, want, n_want);

	if (rc < 0)
		return fab_err_set(err, rc, "check: requested pairs");
	for (size_t i = 0; i < s->n_rounds && rc == 0; i++)
		rc = sched_topo_checker_round(c, s->pairs + s->round_start[i], sched_round_size(s, i), err);
	if (rc == 0)
		rc = sched_topo_checker_finish(c, err);
	sched_topo_checker_free(c);
	return rc;
}
