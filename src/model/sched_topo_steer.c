// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Topology-aware sweep rounds (sched_topo.h): steered rounds, each pair's
 * test on the ECMP members its source port takes, counted per directed hop
 * (sched_topo.h "Steered rounds").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched_topo_impl.h"

/* One directed hop of an option and the pair's demand on it. */
struct shop {
	uint32_t dl;		/* link * 2 + (against the link's a -> b) */
	double d;
};

struct steer {
	struct route *r;
	const struct sched_steer_pair *p;
	size_t n;
	size_t *opt_off;	/* per pair: its first option in hop_off (n + 1) */
	size_t *hop_off;	/* per option: its first hop in hops */
	size_t n_opt, cap_opt;
	struct shop *hops;
	size_t n_hops, cap_hops;
	uint32_t *stamp, gen;	/* per directed link: seen in this option */
	double *load;		/* per directed link, this round */
	uint32_t *crossed;	/* per directed link: tests placed on it so far (all rounds) */
	uint32_t *touched, *tmark, tgen;	/* directed links loaded this round */
	size_t n_touched;
	bool *busy;		/* per host, this round */
	size_t *cur;		/* per pair placed: its option (index into hop_off) */
	uint64_t *key;		/* per pair: its place in a round's order */
	uint32_t salt;		/* this attempt's tie-break */
	uint32_t *order;	/* pair indices sorted by their key */
	/* the result, built round by round */
	uint32_t *out;		/* pair indices in round order */
	size_t n_out;
	size_t *starts;
	size_t n_rounds;
};

static void steer_fini(struct steer *g)
{
	free(g->opt_off);
	free(g->hop_off);
	free(g->hops);
	free(g->stamp);
	free(g->load);
	free(g->crossed);
	free(g->touched);
	free(g->tmark);
	free(g->busy);
	free(g->cur);
	free(g->key);
	free(g->order);
	free(g->out);
	free(g->starts);
}

static int hop_add(struct steer *g, uint32_t link, bool fwd, double e)
{
	uint32_t dl = link * 2 + !fwd;

	if (g->stamp[dl] == g->gen)
		return 0;
	g->stamp[dl] = g->gen;
	if (g->n_hops == g->cap_hops) {
		size_t cap = g->cap_hops ? g->cap_hops * 2 : 256;
		struct shop *h = realloc(g->hops, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		g->hops = h;
		g->cap_hops = cap;
	}
	g->hops[g->n_hops++] = (struct shop){ .dl = dl, .d = 1.0 / sched_topo_cap(g->r, link, e) };
	return 0;
}

static int path_add(struct steer *g, const struct path *pa, double e)
{
	for (size_t h = 0; h < pa->n_hops; h++) {
		if (pa->hops[h].link >= g->r->n_links)
			return -EINVAL;
		if (hop_add(g, pa->hops[h].link, pa->hops[h].fwd, e) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Open option number g->n_opt (its hops follow). */
static int opt_open(struct steer *g)
{
	if (g->n_opt + 1 >= g->cap_opt) {
		size_t cap = g->cap_opt ? g->cap_opt * 2 : 256;
		size_t *o = realloc(g->hop_off, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		g->hop_off = o;
		g->cap_opt = cap;
	}
	g->hop_off[g->n_opt++] = g->n_hops;
	g->hop_off[g->n_opt] = g->n_hops;
	g->gen++;
	return 0;
}

/* Pair @i's options as directed hops: each option's two paths, or every path (whole). */
static int pair_opts(struct steer *g, size_t i)
{
	const struct sched_steer_pair *sp = &g->p[i];
	const struct pair_route *pr = sp->route;
	double e = pr->expected_mbps;
	int rc = 0;

	g->opt_off[i] = g->n_opt;
	if (!sp->n_opts) {
		rc = opt_open(g);
		for (size_t k = 0; rc == 0 && k < pr->n_ab; k++)
			rc = path_add(g, &pr->ab[k], e);
		for (size_t k = 0; rc == 0 && k < pr->n_ba; k++)
			rc = path_add(g, &pr->ba[k], e);
		return rc;
	}
	for (size_t o = 0; rc == 0 && o < sp->n_opts; o++) {
		if (sp->opts[o].ab >= pr->n_ab || sp->opts[o].ba >= pr->n_ba)
			return -EINVAL;
		rc = opt_open(g);
		if (rc == 0)
			rc = path_add(g, &pr->ab[sp->opts[o].ab], e);
		if (rc == 0)
			rc = path_add(g, &pr->ba[sp->opts[o].ba], e);
	}
	return rc;
}

static int key_cmp(const void *x, const void *y, void *arg)
{
	const struct sched_steer_pair *p = ((const struct steer *)arg)->p;
	const struct pair_route *a = p[*(const uint32_t *)x].route;
	const struct pair_route *b = p[*(const uint32_t *)y].route;
	uint64_t ka = sched_pair_key(a->a, a->b), kb = sched_pair_key(b->a, b->b);

	return ka < kb ? -1 : ka > kb;
}

/* Pair index of a <-> b, or -1. */
static long pair_find(const struct steer *g, unsigned int a, unsigned int b)
{
	uint64_t k = sched_pair_key(a, b);
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pair_route *pr = g->p[g->order[mid]].route;
		uint64_t km = sched_pair_key(pr->a, pr->b);

		if (km == k)
			return g->order[mid];
		if (km < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int steer_setup(struct steer *g, struct route *r, const struct sched_steer_pair *p,
		       size_t n)
{
	size_t dls = r->n_links * 2 + 1;
	int rc = 0;

	memset(g, 0, sizeof(*g));
	g->r = r;
	g->p = p;
	g->n = n;
	g->opt_off = calloc(n + 1, sizeof(*g->opt_off));
	g->stamp = calloc(dls, sizeof(*g->stamp));
	g->load = calloc(dls, sizeof(*g->load));
	g->crossed = calloc(dls, sizeof(*g->crossed));
	g->touched = calloc(dls, sizeof(*g->touched));
	g->tmark = calloc(dls, sizeof(*g->tmark));
	g->tgen = 1;
	g->busy = calloc(r->n_hosts + 1, sizeof(*g->busy));
	g->order = calloc(n + 1, sizeof(*g->order));
	g->cur = calloc(n + 1, sizeof(*g->cur));
	g->key = calloc(n + 1, sizeof(*g->key));
	g->out = calloc(n + 1, sizeof(*g->out));
	g->starts = calloc(n + 2, sizeof(*g->starts));
	if (!g->opt_off || !g->stamp || !g->load || !g->crossed || !g->touched || !g->tmark ||
	    !g->busy || !g->order ||
	    !g->cur || !g->key || !g->out || !g->starts)
		return -ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		if (p[i].route->a >= r->n_hosts || p[i].route->b >= r->n_hosts ||
		    p[i].route->a == p[i].route->b)
			return -EINVAL;
		g->order[i] = (uint32_t)i;
		rc = pair_opts(g, i);
	}
	g->opt_off[n] = g->n_opt;
	qsort_r(g->order, n, sizeof(*g->order), key_cmp, g);
	return rc;
}

/* The fullest hop of option @o once the pair is added; > 1 when it does not fit. */
static double opt_peak(const struct steer *g, size_t o)
{
	double peak = 0;

	for (size_t h = g->hop_off[o]; h < g->hop_off[o + 1]; h++) {
		double v = g->load[g->hops[h].dl] + g->hops[h].d;

		if (v > peak)
			peak = v;
	}
	return peak;
}

static void opt_load(struct steer *g, size_t o, double sign)
{
	for (size_t h = g->hop_off[o]; h < g->hop_off[o + 1]; h++) {
		uint32_t dl = g->hops[h].dl;

		if (g->tmark[dl] != g->tgen) {
			g->tmark[dl] = g->tgen;
			g->touched[g->n_touched++] = dl;
		}
		g->load[dl] += sign * g->hops[h].d;
	}
}

/* The fewest tests placed so far on a hop of option @o. */
static uint32_t opt_cover(const struct steer *g, size_t o)
{
	uint32_t least = UINT32_MAX;

	for (size_t h = g->hop_off[o]; h < g->hop_off[o + 1]; h++)
		least = g->crossed[g->hops[h].dl] < least ? g->crossed[g->hops[h].dl] : least;
	return least;
}

static void opt_cross(struct steer *g, size_t o, int sign)
{
	for (size_t h = g->hop_off[o]; h < g->hop_off[o + 1]; h++)
		g->crossed[g->hops[h].dl] += (uint32_t)sign;
}

/*
 * Pair @i's fitting option whose least tested hop has the fewest tests
 * so far (a member no test has taken first: a fault there is seen), then
 * whose fullest hop stays lowest; SIZE_MAX: none fits.
 */
static size_t best_opt(const struct steer *g, size_t i, size_t skip)
{
	size_t best = SIZE_MAX;
	double best_peak = 2;
	uint32_t best_cover = UINT32_MAX;

	for (size_t o = g->opt_off[i]; o < g->opt_off[i + 1]; o++) {
		double v = o == skip ? 2 : opt_peak(g, o);
		uint32_t c;

		if (v > 1 + EPS)
			continue;
		c = opt_cover(g, o);
		if (c < best_cover || (c == best_cover && v < best_peak - EPS)) {
			best = o;
			best_peak = v;
			best_cover = c;
		}
	}
	return best;
}

static void place_on(struct steer *g, size_t i, size_t o)
{
	opt_load(g, o, 1);
	opt_cross(g, o, 1);
	g->cur[i] = o;
	g->busy[g->p[i].route->a] = g->busy[g->p[i].route->b] = true;
	g->out[g->n_out++] = (uint32_t)i;
}

/*
 * No option of pair @i fits: move one pair placed this round to another
 * of its options so that one of @i's fits (one swap deep).  1 when done.
 */
static int steer_swap(struct steer *g, size_t i)
{
	for (size_t k = g->starts[g->n_rounds]; k < g->n_out; k++) {
		size_t q = g->out[k], was = g->cur[q], o, o2;

		if (g->opt_off[q + 1] - g->opt_off[q] < 2)
			continue;
		opt_load(g, was, -1);
		o = best_opt(g, i, SIZE_MAX);
		if (o != SIZE_MAX) {
			opt_load(g, o, 1);
			o2 = best_opt(g, q, was);
			if (o2 != SIZE_MAX) {
				opt_load(g, o2, 1);
				opt_cross(g, was, -1);
				opt_cross(g, o2, 1);
				g->cur[q] = o2;
				opt_load(g, o, -1);
				place_on(g, i, o);
				return 1;
			}
			opt_load(g, o, -1);
		}
		opt_load(g, was, 1);
	}
	return 0;
}

/* Place pair @i on its best fitting option, else by one swap: 1 placed, 0 not. */
static int steer_place(struct steer *g, size_t i)
{
	size_t o = best_opt(g, i, SIZE_MAX);

	if (o != SIZE_MAX) {
		place_on(g, i, o);
		return 1;
	}
	return steer_swap(g, i);
}

static void round_close(struct steer *g)
{
	for (size_t k = 0; k < g->n_touched; k++)
		g->load[g->touched[k]] = 0;
	g->n_touched = 0;
	g->tgen++;
	for (size_t k = g->starts[g->n_rounds]; k < g->n_out; k++)
		g->busy[g->p[g->out[k]].route->a] = g->busy[g->p[g->out[k]].route->b] = false;
	if (g->n_out > g->starts[g->n_rounds])
		g->starts[++g->n_rounds] = g->n_out;
}

/*
 * Pairs with fewer options first (the whole set: one); among equals a
 * mix of the pair and the round, so that the pairs left over (the last
 * of a tight round) are not always the same hosts'.
 */
static int opts_cmp(const void *x, const void *y, void *arg)
{
	const struct steer *g = arg;
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	size_t a = g->p[i].n_opts, b = g->p[j].n_opts;

	a = a ? a : 1;
	b = b ? b : 1;
	if (a != b)
		return a < b ? -1 : 1;
	if (g->key[i] != g->key[j])
		return g->key[i] < g->key[j] ? -1 : 1;
	return i < j ? -1 : 1;
}

static uint32_t mix(uint32_t i, uint32_t rd)
{
	uint32_t h = i * 2654435761u ^ (rd + 1) * 40503u;

	h ^= h >> 15;
	h *= 2246822519u;
	return h ^ h >> 13;
}

static int wait_cmp(const void *x, const void *y, void *arg)
{
	const struct steer *g = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (g->key[a] != g->key[b])
		return g->key[a] < g->key[b] ? -1 : 1;
	return a < b ? -1 : 1;
}

/* One round of @base: its pairs steered, the ones that fit nowhere appended to @wait. */
static int base_round(struct steer *g, const struct sched *base, size_t rd, bool *seen,
		      uint32_t *buf, uint32_t *wait, size_t *n_wait)
{
	size_t k = 0;

	for (size_t i = base->round_start[rd]; i < base->round_start[rd + 1]; i++) {
		long x = pair_find(g, base->pairs[i].a, base->pairs[i].b);

		if (x < 0 || seen[x])
			return -EINVAL;
		seen[x] = true;
		g->key[x] = mix((uint32_t)x, (uint32_t)rd);
		buf[k++] = (uint32_t)x;
	}
	qsort_r(buf, k, sizeof(*buf), opts_cmp, g);
	for (size_t i = 0; i < k; i++)
		if (!steer_place(g, buf[i]))
			wait[(*n_wait)++] = buf[i];
	round_close(g);
	return 0;
}

/* Waiting pairs whose hosts wait most first: @deg per host, counted over @wait. */
static void wait_order(struct steer *g, uint32_t *wait, size_t n_wait, uint32_t *deg)
{
	memset(deg, 0, (g->r->n_hosts + 1) * sizeof(*deg));
	for (size_t i = 0; i < n_wait; i++) {
		deg[g->p[wait[i]].route->a]++;
		deg[g->p[wait[i]].route->b]++;
	}
	for (size_t i = 0; i < n_wait; i++) {
		const struct pair_route *pr = g->p[wait[i]].route;

		/* the most waiting first, then a mix of the pair and the attempt */
		g->key[wait[i]] = (uint64_t)(UINT32_MAX - deg[pr->a] - deg[pr->b]) << 32 |
				  mix(wait[i], g->salt);
	}
	qsort_r(wait, n_wait, sizeof(*wait), wait_cmp, g);
}

/* The pairs that waited, packed greedily into rounds of their own, busiest hosts first. */
static int extra_rounds(struct steer *g, uint32_t *wait, size_t n_wait)
{
	uint32_t *deg = calloc(g->r->n_hosts + 1, sizeof(*deg));

	if (!deg)
		return -ENOMEM;
	while (n_wait) {
		size_t kept = 0;

		wait_order(g, wait, n_wait, deg);
		for (size_t i = 0; i < n_wait; i++) {
			const struct pair_route *pr = g->p[wait[i]].route;

			if (g->busy[pr->a] || g->busy[pr->b] || !steer_place(g, wait[i]))
				wait[kept++] = wait[i];
		}
		round_close(g);
		n_wait = kept;
	}
	free(deg);
	return 0;
}

/* A packing of every pair, kept while attempts go on. */
struct steer_snap {
	uint32_t *out;
	size_t *starts, *cur;
	size_t n_rounds;
};

static int snap_take(const struct steer *g, struct steer_snap *sn)
{
	if (!sn->out) {
		sn->out = calloc(g->n + 1, sizeof(*sn->out));
		sn->starts = calloc(g->n + 2, sizeof(*sn->starts));
		sn->cur = calloc(g->n + 1, sizeof(*sn->cur));
		if (!sn->out || !sn->starts || !sn->cur)
			return -ENOMEM;
	}
	memcpy(sn->out, g->out, g->n * sizeof(*sn->out));
	memcpy(sn->starts, g->starts, (g->n_rounds + 1) * sizeof(*sn->starts));
	memcpy(sn->cur, g->cur, g->n * sizeof(*sn->cur));
	sn->n_rounds = g->n_rounds;
	return 0;
}

static void snap_restore(struct steer *g, const struct steer_snap *sn)
{
	memcpy(g->out, sn->out, g->n * sizeof(*g->out));
	memcpy(g->starts, sn->starts, (sn->n_rounds + 1) * sizeof(*g->starts));
	memcpy(g->cur, sn->cur, g->n * sizeof(*g->cur));
	g->n_rounds = sn->n_rounds;
	g->n_out = g->n;
}

static void snap_fini(struct steer_snap *sn)
{
	free(sn->out);
	free(sn->starts);
	free(sn->cur);
}

/*
 * Small sets: also pack every pair directly, the busiest hosts first, a
 * few orders; keep the fewest rounds.  *@direct: one of those won.
 */
static int direct_attempts(struct steer *g, uint32_t *wait, bool *direct)
{
	struct steer_snap best = { 0 };
	int rc = snap_take(g, &best);

	*direct = false;
	for (uint32_t a = 1; rc == 0 && a <= SCHED_STEER_ATTEMPTS; a++) {
		g->n_out = 0;
		g->n_rounds = 0;
		memset(g->crossed, 0, (g->r->n_links * 2 + 1) * sizeof(*g->crossed));
		g->salt = a;
		for (size_t i = 0; i < g->n; i++)
			wait[i] = (uint32_t)i;
		rc = extra_rounds(g, wait, g->n);
		if (rc == 0 && g->n_rounds < best.n_rounds) {
			rc = snap_take(g, &best);
			*direct = true;
		}
	}
	if (rc == 0)
		snap_restore(g, &best);
	snap_fini(&best);
	return rc;
}

static size_t node_bound(const struct steer *g)
{
	size_t *deg = calloc(g->r->n_hosts + 1, sizeof(*deg));
	size_t per;

	if (!deg)
		return 0;
	for (size_t i = 0; i < g->n; i++) {
		deg[g->p[i].route->a]++;
		deg[g->p[i].route->b]++;
	}
	per = sched_node_bound(deg, g->r->n_hosts, g->n);
	free(deg);
	return per;
}

static int steer_emit(struct steer *g, struct sched *s, uint32_t *choice)
{
	sched_init(s);
	s->pairs = calloc(g->n_out + 1, sizeof(*s->pairs));
	s->round_start = calloc(g->n_rounds + 1, sizeof(*s->round_start));
	if (!s->pairs || !s->round_start) {
		sched_fini(s);
		return -ENOMEM;
	}
	for (size_t k = 0; k < g->n_out; k++) {
		size_t i = g->out[k];

		choice[i] = g->p[i].n_opts ? (uint32_t)(g->cur[i] - g->opt_off[i]) : SCHED_STEER_WHOLE;
	}
	for (size_t k = 0; k < g->n_out; k++)
		s->pairs[k] = (struct sched_pair){ .a = g->p[g->out[k]].route->a,
						   .b = g->p[g->out[k]].route->b };
	memcpy(s->round_start, g->starts, (g->n_rounds + 1) * sizeof(*s->round_start));
	s->n_pairs = g->n_out;
	s->n_rounds = g->n_rounds;
	return 0;
}

static int steer_err(int rc, struct fab_err *err)
{
	if (rc == -ENOMEM)
		return fab_err_set(err, rc, "schedule: out of memory");
	return fab_err_set(err, rc, "schedule: steered rounds: the base rounds' pairs are not "
			   "the steered pairs, or an option names a path the pair does not have");
}

int sched_topo_steer(struct sched *s, uint32_t *choice, struct sched_steer_stats *st,
		     struct route *r, const struct sched *base, const struct sched_steer_pair *p,
		     size_t n, struct fab_err *err)
{
	struct steer g;
	bool *seen = calloc(n + 1, sizeof(*seen));
	uint32_t *buf = calloc(n + 1, sizeof(*buf)), *wait = calloc(n + 1, sizeof(*wait));
	size_t n_wait = 0;
	int rc = steer_setup(&g, r, p, n);

	if (rc == 0 && (!seen || !buf || !wait))
		rc = -ENOMEM;
	if (rc == 0 && base->n_pairs != n)
		rc = -EINVAL;
	for (size_t rd = 0; rc == 0 && rd < base->n_rounds; rd++)
		rc = base_round(&g, base, rd, seen, buf, wait, &n_wait);
	if (rc == 0) {
		memset(st, 0, sizeof(*st));
		st->base_rounds = g.n_rounds;
		st->moved = n_wait;
		rc = extra_rounds(&g, wait, n_wait);
	}
	if (rc == 0) {
		st->extra_rounds = g.n_rounds - st->base_rounds;
		if (n <= SCHED_STEER_DIRECT_MAX)
			rc = direct_attempts(&g, wait, &st->direct);
	}
	if (rc == 0) {
		st->node_bound = node_bound(&g);
		for (size_t i = 0; i < n; i++)
			*(p[i].n_opts ? &st->steered : &st->whole) += 1;
		rc = steer_emit(&g, s, choice);
	}
	steer_fini(&g);
	free(seen);
	free(buf);
	free(wait);
	return rc < 0 ? steer_err(rc, err) : 0;
}

size_t sched_steer_opts_all(const struct pair_route *route, struct sched_steer_opt *opts,
			    size_t room)
{
	size_t k = 0;

	for (size_t i = 0; i < route->n_ab; i++)
		for (size_t j = 0; j < route->n_ba && k < room; j++)
			opts[k++] = (struct sched_steer_opt){ .ab = (uint16_t)i, .ba = (uint16_t)j };
	return k;
}
