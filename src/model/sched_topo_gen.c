// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Topology-aware sweep rounds (sched_topo.h): the streamed all-pairs
 * generator (struct sched_topo_gen: leaves by the circle method, a leaf
 * pair's hosts as a Latin rectangle, waves of leaf pairs that fit
 * together), and sched_topo_all(): its rounds collected, or the greedy
 * packer's when they are fewer.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched_topo_impl.h"

static bool node_is_switch(const struct topo_node *n)
{
	return n->type == TOPO_NODE_SWITCH || n->type == TOPO_NODE_ROUTER;
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
