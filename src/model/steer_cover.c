// SPDX-License-Identifier: GPL-2.0-or-later
/* Coverage on ECMP members: pairs, members and rounds together (steer_cover.h). */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched_topo.h"
#include "model/steer_cover.h"

#define EPS 1e-9
#define GAIN_UNIT 16
#define GAIN_RARE 256
#define AUG_DEPTH 3

struct cov {
	const struct route *r;
	const struct pair_route **cand;	/* the caller's, then step 7's new pairs */
	long (*more)(void *ctx, unsigned int a, unsigned int b, struct pair_route *out);
	void *more_ctx;
	size_t n, nl, nh;
	unsigned int k;
	double *load;			/* per directed link, this round */
	uint32_t *touched;		/* directed links loaded this round */
	bool *tmark;			/* per directed link: in touched[] */
	size_t n_touched;
	bool *access;			/* per link: a host's access link */
	bool *used;			/* per candidate */
	bool *busy;			/* per host, this round */
	uint32_t *adj_start, *adj;	/* per host: its candidates */
	uint32_t *partners;		/* per host: max_rounds partners */
	size_t max_rounds;
	bool walk;
	struct steer_cover *out;
	size_t cap_pairs;
	uint32_t *order;		/* scratch: candidates or hosts */
	uint32_t *score;		/* scratch, per candidate */
	size_t *fill_at;		/* per host: its filler's place in the output, this round */
	size_t *at;			/* per host busy this round: its pair's place in the output */
	uint32_t *supply;		/* per link: candidate paths that hold it */
};

static uint32_t dl_of(const struct path_hop *h)
{
	return h->link * 2 + !h->fwd;
}

static double demand(const struct cov *c, const struct pair_route *pr, uint32_t link)
{
	return 1.0 / sched_topo_cap(c->r, link, pr->expected_mbps);
}

/* Does path @pa fit this round's loads, with @extra (NULL or another path of the pair) added? */
static bool path_fits(const struct cov *c, const struct pair_route *pr, const struct path *pa,
		      const struct path *extra)
{
	for (size_t h = 0; h < pa->n_hops; h++) {
		uint32_t dl = dl_of(&pa->hops[h]);
		double d = demand(c, pr, pa->hops[h].link), have = c->load[dl];

		for (size_t x = 0; extra && x < extra->n_hops; x++)
			if (dl_of(&extra->hops[x]) == dl)
				have += d;
		if (have + d > 1.0 + EPS)
			return false;
	}
	return true;
}

/* Hops of @pa on non-access links still crossed fewer than K times; *@tie: their crossings. */
static unsigned int path_gain(const struct cov *c, const struct path *pa, uint64_t *tie)
{
	unsigned int g = 0;

	for (size_t h = 0; h < pa->n_hops; h++) {
		uint32_t l = pa->hops[h].link;

		if (c->access[l])
			continue;
		/* The further a link is from K, the more it counts; one few candidates reach, a little more. */
		if (c->out->cross[l] < c->k)
			g += (c->k - c->out->cross[l]) * GAIN_UNIT + (c->supply[l] < GAIN_RARE);
		*tie += c->out->cross[l];
	}
	return g;
}

/*
 * Candidate @i's best option: the a -> b and the b -> a path of most gain
 * (ties: least crossed), among those that fit when @fit.  False: none fits.
 */
static bool best_opt(const struct cov *c, size_t i, bool fit, unsigned int *gain, size_t *ab,
		     size_t *ba)
{
	const struct pair_route *pr = c->cand[i];
	unsigned int best = 0;
	uint64_t best_tie = UINT64_MAX;
	bool found = false;

	for (size_t x = 0; x < pr->n_ab; x++) {
		uint64_t tx = 0;
		unsigned int gx = path_gain(c, &pr->ab[x], &tx);

		if (fit && !path_fits(c, pr, &pr->ab[x], NULL))
			continue;
		for (size_t y = 0; y < pr->n_ba; y++) {
			uint64_t t = tx;
			unsigned int g = gx + path_gain(c, &pr->ba[y], &t);

			if (found && (g < best || (g == best && t >= best_tie)))
				continue;
			if (fit && !path_fits(c, pr, &pr->ba[y], &pr->ab[x]))
				continue;
			found = true;
			best = g;
			best_tie = t;
			*ab = x;
			*ba = y;
		}
	}
	*gain = best;
	return found;
}

static int out_push(struct cov *c, unsigned int a, unsigned int b, uint32_t pick, size_t ab,
		    size_t ba)
{
	struct steer_cover *o = c->out;

	if (o->s.n_pairs == c->cap_pairs) {
		size_t cap = c->cap_pairs ? c->cap_pairs * 2 : 256;
		struct sched_pair *p = realloc(o->s.pairs, cap * sizeof(*p));
		uint32_t *pk;
		uint16_t *xa, *xb;

		if (!p)
			return -ENOMEM;
		o->s.pairs = p;
		if (!(pk = realloc(o->pick, cap * sizeof(*pk))))
			return -ENOMEM;
		o->pick = pk;
		if (!(xa = realloc(o->ab, cap * sizeof(*xa))))
			return -ENOMEM;
		o->ab = xa;
		if (!(xb = realloc(o->ba, cap * sizeof(*xb))))
			return -ENOMEM;
		o->ba = xb;
		c->cap_pairs = cap;
	}
	o->s.pairs[o->s.n_pairs] = (struct sched_pair){ .a = a, .b = b };
	o->pick[o->s.n_pairs] = pick;
	o->ab[o->s.n_pairs] = (uint16_t)ab;
	o->ba[o->s.n_pairs] = (uint16_t)ba;
	o->s.n_pairs++;
	c->busy[a] = c->busy[b] = true;
	c->at[a] = c->at[b] = o->s.n_pairs - 1;
	c->partners[(size_t)a * c->max_rounds + o->host_pairs[a]++ % c->max_rounds] = b;
	c->partners[(size_t)b * c->max_rounds + o->host_pairs[b]++ % c->max_rounds] = a;
	return 0;
}

/* This round's loads back to 0 (the directed links touched). */
static void loads_clear(struct cov *c)
{
	for (size_t t = 0; t < c->n_touched; t++) {
		c->load[c->touched[t]] = 0;
		c->tmark[c->touched[t]] = false;
	}
	c->n_touched = 0;
}

/* @pa's demand onto this round's loads (c->load, c->touched). */
static void path_load(struct cov *c, const struct pair_route *pr, const struct path *pa)
{
	for (size_t h = 0; h < pa->n_hops; h++) {
		uint32_t dl = dl_of(&pa->hops[h]);

		if (!c->tmark[dl]) {
			c->tmark[dl] = true;
			c->touched[c->n_touched++] = dl;
		}
		c->load[dl] += demand(c, pr, pa->hops[h].link);
	}
}

static void path_take(struct cov *c, const struct pair_route *pr, const struct path *pa)
{
	path_load(c, pr, pa);
	for (size_t h = 0; h < pa->n_hops; h++)
		c->out->cross[pa->hops[h].link]++;
}

static void path_drop(struct cov *c, const struct pair_route *pr, const struct path *pa)
{
	for (size_t h = 0; h < pa->n_hops; h++) {
		c->load[dl_of(&pa->hops[h])] -= demand(c, pr, pa->hops[h].link);
		c->out->cross[pa->hops[h].link]--;
	}
}

static int place(struct cov *c, size_t i, size_t ab, size_t ba)
{
	const struct pair_route *pr = c->cand[i];

	c->used[i] = true;
	path_take(c, pr, &pr->ab[ab]);
	path_take(c, pr, &pr->ba[ba]);
	return out_push(c, pr->a, pr->b, (uint32_t)i, ab, ba);
}

static bool had_partner(const struct cov *c, unsigned int a, unsigned int b)
{
	size_t n = c->out->host_pairs[a] < c->max_rounds ? c->out->host_pairs[a] : c->max_rounds;

	for (size_t x = 0; x < n; x++)
		if (c->partners[(size_t)a * c->max_rounds + x] == b)
			return true;
	return false;
}

static int cmp_desc(const void *x, const void *y, void *arg)
{
	const uint32_t *s = arg;
	uint32_t a = s[*(const uint32_t *)x], b = s[*(const uint32_t *)y];

	if (a != b)
		return a > b ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

static bool host_wants(const struct cov *c, unsigned int h, bool main)
{
	return !c->busy[h] && (main || c->out->host_pairs[h] < c->k);
}

/* Step 1: candidates in the order of their best gain, each placed where it gains and fits. */
static int step_links(struct cov *c, size_t *placed)
{
	size_t m = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct pair_route *pr = c->cand[i];
		unsigned int g;
		size_t x, y;

		if (!pr || c->used[i] || c->busy[pr->a] || c->busy[pr->b])
			continue;
		if (!best_opt(c, i, false, &g, &x, &y) || !g)
			continue;
		c->score[i] = g;
		c->order[m++] = (uint32_t)i;
	}
	qsort_r(c->order, m, sizeof(*c->order), cmp_desc, c->score);
	for (size_t o = 0; o < m; o++) {
		size_t i = c->order[o], x, y;
		const struct pair_route *pr = c->cand[i];
		unsigned int g;
		int rc;

		if (c->busy[pr->a] || c->busy[pr->b])
			continue;
		if (!best_opt(c, i, true, &g, &x, &y) || !g)
			continue;
		if ((rc = place(c, i, x, y)) < 0)
			return rc;
		(*placed)++;
	}
	return 0;
}

/* Step 2: each host still wanting a pair (fewest pairs first) takes its best candidate that fits. */
static int step_hosts(struct cov *c, bool main, size_t *placed)
{
	size_t m = 0;

	for (size_t h = 0; h < c->nh; h++)
		if (host_wants(c, (unsigned int)h, main))
			c->order[m++] = (uint32_t)h;
	for (size_t o = 1; o < m; o++)	/* insertion by pairs so far: few distinct values */
		for (size_t x = o; x > 0 && c->out->host_pairs[c->order[x]] <
						    c->out->host_pairs[c->order[x - 1]]; x--) {
			uint32_t t = c->order[x];

			c->order[x] = c->order[x - 1];
			c->order[x - 1] = t;
		}
	for (size_t o = 0; o < m; o++) {
		unsigned int h = c->order[o], bg = 0;
		size_t best = SIZE_MAX, bx = 0, by = 0;
		int rc;

		if (c->busy[h])
			continue;
		for (uint32_t e = c->adj_start[h]; e < c->adj_start[h + 1]; e++) {
			size_t i = c->adj[e], x, y;
			const struct pair_route *pr = c->cand[i];
			unsigned int g;

			if (c->used[i] || c->busy[pr->a] || c->busy[pr->b])
				continue;
			if (!best_opt(c, i, true, &g, &x, &y))
				continue;
			if (best == SIZE_MAX || g > bg) {
				best = i;
				bg = g;
				bx = x;
				by = y;
			}
		}
		if (best == SIZE_MAX)
			continue;
		if ((rc = place(c, best, bx, by)) < 0)
			return rc;
		(*placed)++;
	}
	return 0;
}

/* Step 3: hosts of one leaf still free, paired with each other (new partners only). */
static int step_fill(struct cov *c, bool main, size_t *placed)
{
	for (unsigned int a = 0; a < c->nh; a++) {
		if (!host_wants(c, a, main))
			continue;
		for (unsigned int b = 0; b < c->nh && !c->busy[a]; b++) {
			int rc;

			if (b == a || c->busy[b] || c->r->hosts[b].leaf != c->r->hosts[a].leaf ||
			    had_partner(c, a, b))
				continue;
			c->out->cross[c->r->hosts[a].link] += 2;
			c->out->cross[c->r->hosts[b].link] += 2;
			c->fill_at[a] = c->fill_at[b] = c->out->s.n_pairs;
			if ((rc = out_push(c, a < b ? a : b, a < b ? b : a, STEER_COVER_FILL, 0, 0)) < 0)
				return rc;
			(*placed)++;
		}
	}
	return 0;
}

/* What a pair of the round was, to put it back. */
struct held {
	unsigned int a, b;
	uint32_t pick;
	size_t ab, ba;
};

/* Take pair @f of this round out (loads, crossings, hosts); the round's last pair takes its place. */
static struct held pair_remove(struct cov *c, size_t f)
{
	struct steer_cover *o = c->out;
	struct held h = { .a = o->s.pairs[f].a, .b = o->s.pairs[f].b, .pick = o->pick[f],
			  .ab = o->ab[f], .ba = o->ba[f] };
	size_t last = o->s.n_pairs - 1;

	if (h.pick == STEER_COVER_FILL) {
		o->cross[c->r->hosts[h.a].link] -= 2;
		o->cross[c->r->hosts[h.b].link] -= 2;
	} else {
		const struct pair_route *pr = c->cand[h.pick];

		path_drop(c, pr, &pr->ab[h.ab]);
		path_drop(c, pr, &pr->ba[h.ba]);
		c->used[h.pick] = false;
	}
	o->host_pairs[h.a]--;
	o->host_pairs[h.b]--;
	c->busy[h.a] = c->busy[h.b] = false;
	c->fill_at[h.a] = c->fill_at[h.b] = SIZE_MAX;
	if (f != last) {
		unsigned int u = o->s.pairs[last].a, v = o->s.pairs[last].b;

		o->s.pairs[f] = o->s.pairs[last];
		o->pick[f] = o->pick[last];
		o->ab[f] = o->ab[last];
		o->ba[f] = o->ba[last];
		c->at[u] = c->at[v] = f;
		if (o->pick[f] == STEER_COVER_FILL)
			c->fill_at[u] = c->fill_at[v] = f;
	}
	o->s.n_pairs--;
	return h;
}

static int filler_push(struct cov *c, unsigned int a, unsigned int b)
{
	c->out->cross[c->r->hosts[a].link] += 2;
	c->out->cross[c->r->hosts[b].link] += 2;
	c->fill_at[a] = c->fill_at[b] = c->out->s.n_pairs;
	return out_push(c, a < b ? a : b, a < b ? b : a, STEER_COVER_FILL, 0, 0);
}

static int held_put(struct cov *c, const struct held *h)
{
	const struct pair_route *pr;

	if (h->pick == STEER_COVER_FILL)
		return filler_push(c, h->a, h->b);
	pr = c->cand[h->pick];
	c->used[h->pick] = true;
	path_take(c, pr, &pr->ab[h->ab]);
	path_take(c, pr, &pr->ba[h->ba]);
	return out_push(c, h->a, h->b, h->pick, h->ab, h->ba);
}

/* A free host of @z's leaf, not @z, that wants a pair and never met @z, paired with it: 1, 0 none. */
static int fill_one(struct cov *c, unsigned int z, bool main)
{
	for (unsigned int w = 0; w < c->nh; w++)
		if (w != z && c->r->hosts[w].leaf == c->r->hosts[z].leaf && host_wants(c, w, main) &&
		    !had_partner(c, z, w)) {
			int rc = filler_push(c, z, w);

			return rc < 0 ? rc : 1;
		}
	return 0;
}

/*
 * An augmenting path from free host @x: a candidate partner y that fits,
 * free (done), or held by a pair (y, z) of the round, which is taken out
 * so that z, free now, pairs with a free host of its leaf or augments in
 * turn (@depth more steps).  1: @x is paired; 0: nothing changed.
 */
static int augment(struct cov *c, unsigned int x, unsigned int depth, bool main)
{
	for (uint32_t e = c->adj_start[x]; e < c->adj_start[x + 1]; e++) {
		size_t i = c->adj[e], ab, ba;
		const struct pair_route *pr = c->cand[i];
		unsigned int y = pr->a == x ? pr->b : pr->a, z, g;
		struct held h;
		int rc;

		if (c->used[i])
			continue;
		if (!c->busy[y]) {
			if (!best_opt(c, i, true, &g, &ab, &ba))
				continue;
			rc = place(c, i, ab, ba);
			return rc < 0 ? rc : 1;
		}
		if (!depth)
			continue;
		h = pair_remove(c, c->at[y]);
		z = h.a == y ? h.b : h.a;
		if (z != x && best_opt(c, i, true, &g, &ab, &ba)) {
			if ((rc = place(c, i, ab, ba)) < 0)
				return rc;
			rc = fill_one(c, z, main);
			if (rc == 0)
				rc = augment(c, z, depth - 1, main);
			if (rc != 0)
				return rc;
			pair_remove(c, c->at[x]);
		}
		if ((rc = held_put(c, &h)) < 0)
			return rc;
	}
	return 0;
}

/* Step 2b: each host still free tries an augmenting path (AUG_DEPTH steps). */
static int step_augment(struct cov *c, bool main, size_t *placed)
{
	for (unsigned int x = 0; x < c->nh; x++) {
		int rc;

		if (!host_wants(c, x, main))
			continue;
		if ((rc = augment(c, x, AUG_DEPTH, main)) < 0)
			return rc;
		*placed += (size_t)rc;
	}
	return 0;
}

/* A free host of @leaf other than @not that wants a pair and never met @z; UINT32_MAX: none. */
static unsigned int free_on_leaf(const struct cov *c, uint32_t leaf, unsigned int not,
				 unsigned int z, bool main)
{
	for (unsigned int w = 0; w < c->nh; w++)
		if (w != not && w != z && c->r->hosts[w].leaf == leaf && host_wants(c, w, main) &&
		    !had_partner(c, z, w))
			return w;
	return UINT32_MAX;
}

/*
 * Step 4: a host X left free (its leaf had an odd number free) takes a
 * candidate partner Y that a filler (Y, Z) holds, when Y's leaf has a
 * host W left free too: (Y, Z) becomes (Z, W), and X meets Y.
 */
static int step_parity(struct cov *c, bool main, size_t *placed)
{
	bool progress = true;

	while (progress) {
		progress = false;
		for (unsigned int x = 0; x < c->nh; x++) {
			if (!host_wants(c, x, main))
				continue;
			for (uint32_t e = c->adj_start[x]; e < c->adj_start[x + 1]; e++) {
				size_t i = c->adj[e], f, ab, ba;
				const struct pair_route *pr = c->cand[i];
				unsigned int y = pr->a == x ? pr->b : pr->a, z, w, g;
				struct sched_pair *sp;
				int rc;

				if (c->used[i] || !c->busy[y] || c->fill_at[y] == SIZE_MAX)
					continue;
				f = c->fill_at[y];
				sp = &c->out->s.pairs[f];
				z = sp->a == y ? sp->b : sp->a;
				w = free_on_leaf(c, c->r->hosts[y].leaf, x, z, main);
				if (w == UINT32_MAX || !best_opt(c, i, true, &g, &ab, &ba))
					continue;
				/* (Y, Z) -> (Z, W) */
				c->out->cross[c->r->hosts[y].link] -= 2;
				c->out->cross[c->r->hosts[w].link] += 2;
				c->out->host_pairs[y]--;
				c->partners[(size_t)z * c->max_rounds +
					    (c->out->host_pairs[z] - 1) % c->max_rounds] = w;
				c->partners[(size_t)w * c->max_rounds +
					    c->out->host_pairs[w]++ % c->max_rounds] = z;
				sp->a = z < w ? z : w;
				sp->b = z < w ? w : z;
				c->busy[w] = true;
				c->fill_at[y] = SIZE_MAX;
				c->fill_at[w] = f;
				c->at[w] = f;
				c->busy[y] = false;
				if ((rc = place(c, i, ab, ba)) < 0)
					return rc;
				(*placed)++;
				progress = true;
				break;
			}
		}
	}
	return 0;
}

/*
 * Step 5: hosts X (leaf L) and W (leaf M) still free, and a candidate
 * pair (P on L, Q on M) of this round: it is taken back and X meets P, W
 * meets Q (fillers).  Its links lose this round's crossings; the host
 * rounds stay whole.
 */
static int step_unpair(struct cov *c, bool main, size_t *placed)
{
	struct steer_cover *o = c->out;
	size_t nlv = c->r->n_leaves, first = o->s.round_start[o->s.n_rounds];
	uint32_t *left = malloc((nlv + 1) * sizeof(*left));

	if (!left)
		return -ENOMEM;
	for (size_t l = 0; l < nlv; l++)
		left[l] = UINT32_MAX;
	for (unsigned int h = 0; h < c->nh; h++)
		if (host_wants(c, h, main))
			left[c->r->hosts[h].leaf] = h;
	for (size_t f = first; f < o->s.n_pairs; f++) {
		unsigned int p = o->s.pairs[f].a, q = o->s.pairs[f].b, x, w;
		uint32_t lp = c->r->hosts[p].leaf, lq = c->r->hosts[q].leaf;
		const struct pair_route *pr;
		int rc;

		if (o->pick[f] == STEER_COVER_FILL || left[lp] == UINT32_MAX ||
		    left[lq] == UINT32_MAX || lp == lq)
			continue;
		x = left[lp];
		w = left[lq];
		if (x == p || w == q || had_partner(c, x, p) || had_partner(c, w, q))
			continue;
		pr = c->cand[o->pick[f]];
		path_drop(c, pr, &pr->ab[o->ab[f]]);
		path_drop(c, pr, &pr->ba[o->ba[f]]);
		c->used[o->pick[f]] = false;
		o->host_pairs[p]--;
		o->host_pairs[q]--;
		o->s.pairs[f] = (struct sched_pair){ .a = x < p ? x : p, .b = x < p ? p : x };
		o->pick[f] = STEER_COVER_FILL;
		o->ab[f] = o->ba[f] = 0;
		o->host_pairs[p]++;
		c->partners[(size_t)p * c->max_rounds + (o->host_pairs[p] - 1) % c->max_rounds] = x;
		c->partners[(size_t)x * c->max_rounds + o->host_pairs[x]++ % c->max_rounds] = p;
		c->busy[x] = true;
		c->fill_at[x] = c->fill_at[p] = f;
		c->at[x] = f;
		o->cross[c->r->hosts[x].link] += 2;
		o->cross[c->r->hosts[p].link] += 2;
		o->host_pairs[q]++;	/* out_push counts q again */
		o->host_pairs[q]--;
		c->busy[q] = false;
		c->fill_at[w] = c->fill_at[q] = o->s.n_pairs;
		o->cross[c->r->hosts[w].link] += 2;
		o->cross[c->r->hosts[q].link] += 2;
		if ((rc = out_push(c, w < q ? w : q, w < q ? q : w, STEER_COVER_FILL, 0, 0)) < 0) {
			free(left);
			return rc;
		}
		left[lp] = left[lq] = UINT32_MAX;
		(*placed)++;
	}
	free(left);
	return 0;
}

/*
 * Step 6, the repair (steer_cover.h 5.; after the K main rounds and after
 * each extra round): a local search over the rounds made, on the
 * deficit: per target link K less its crossings, per host the square of
 * K less its pairs (a host two pairs short needs two more rounds, one
 * short needs one), where positive.  A move is kept when the deficit
 * falls, else undone:
 *  - a candidate of a round onto another option there, or into another
 *    round where both its hosts are free;
 *  - an unused candidate into a round on its best option that fits
 *    there, the pairs that held its hosts in that round taken out; each
 *    host they leave free takes a free host of its leaf it never met, or
 *    a free candidate partner that fits (most gain);
 *  - in an extra round, an unused candidate on its option of most gain
 *    whether it fits or not, the candidate pairs on its full hops taken
 *    out and put back on another option, else their hosts rehomed;
 *  - a host short and free in a round rehomed there, or given a host of
 *    its leaf it never met whose pair moves to a round where both its
 *    hosts are free.
 */
#define REPAIR_PASSES 8
#define KICK_MAX 6
#define RP_NONE UINT32_MAX
#define LOG_ADD 0x80000000u

struct rpair {
	uint32_t a, b, pick;
	uint16_t ab, ba;
	uint16_t r;
	bool live;
};

struct rep {
	size_t nr;			/* rounds made */
	double *load;			/* nr x directed links */
	uint32_t *mate;			/* nr x hosts: pool index, RP_NONE */
	struct rpair *pool;		/* the pairs, live or taken out */
	size_t n_pool, cap_pool;
	uint32_t *log;			/* this move's steps: pool index, LOG_ADD: added */
	size_t n_log, cap_log;
	uint32_t *leaf_start, *leaf_hosts;	/* hosts per leaf */
	const bool *target;
	long deficit;
};

static long host_deficit(const struct cov *c, uint32_t pairs)
{
	long d = pairs < c->k ? (long)(c->k - pairs) : 0;

	return d * d;
}

static void rp_cross(struct cov *c, struct rep *p, uint32_t l, int d)
{
	uint32_t *x = &c->out->cross[l];
	long before = *x < c->k ? (long)(c->k - *x) : 0, after;

	*x = (uint32_t)((int)*x + d);
	after = *x < c->k ? (long)(c->k - *x) : 0;
	if (p->target[l])
		p->deficit += after - before;
}

static void rp_host(struct cov *c, struct rep *p, uint32_t h, int d)
{
	uint32_t *x = &c->out->host_pairs[h];
	long before = host_deficit(c, *x);

	*x = (uint32_t)((int)*x + d);
	p->deficit += host_deficit(c, *x) - before;
}

static double *rp_load(const struct cov *c, const struct rep *p, size_t r)
{
	return p->load + r * c->nl * 2;
}

/* Pool entry @i into (@d 1) or out of (@d -1) its round: loads, crossings, pairs, mates. */
static void rp_apply(struct cov *c, struct rep *p, uint32_t i, int d)
{
	struct rpair *e = &p->pool[i];
	double *load = rp_load(c, p, e->r);

	if (e->pick == STEER_COVER_FILL) {
		rp_cross(c, p, c->r->hosts[e->a].link, 2 * d);
		rp_cross(c, p, c->r->hosts[e->b].link, 2 * d);
	} else {
		const struct pair_route *pr = c->cand[e->pick];

		for (int w = 0; w < 2; w++) {
			const struct path *pa = w ? &pr->ba[e->ba] : &pr->ab[e->ab];

			for (size_t h = 0; h < pa->n_hops; h++) {
				load[dl_of(&pa->hops[h])] += d * demand(c, pr, pa->hops[h].link);
				rp_cross(c, p, pa->hops[h].link, d);
			}
		}
		c->used[e->pick] = d > 0;
	}
	rp_host(c, p, e->a, d);
	rp_host(c, p, e->b, d);
	p->mate[(size_t)e->r * c->nh + e->a] = p->mate[(size_t)e->r * c->nh + e->b] =
		d > 0 ? i : RP_NONE;
	e->live = d > 0;
}

static int rp_log(struct rep *p, uint32_t v)
{
	if (p->n_log == p->cap_log) {
		size_t cap = p->cap_log ? p->cap_log * 2 : 64;
		uint32_t *l = realloc(p->log, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		p->log = l;
		p->cap_log = cap;
	}
	p->log[p->n_log++] = v;
	return 0;
}

static int rp_add(struct cov *c, struct rep *p, size_t r, unsigned int a, unsigned int b,
		  uint32_t pick, size_t ab, size_t ba)
{
	if (p->n_pool == p->cap_pool) {
		size_t cap = p->cap_pool * 2;
		struct rpair *n = realloc(p->pool, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->pool = n;
		p->cap_pool = cap;
	}
	bool swap = pick == STEER_COVER_FILL && a > b;	/* candidates: as they come */

	p->pool[p->n_pool] = (struct rpair){ .a = swap ? b : a, .b = swap ? a : b, .pick = pick,
					     .ab = (uint16_t)ab, .ba = (uint16_t)ba,
					     .r = (uint16_t)r };
	rp_apply(c, p, (uint32_t)p->n_pool, 1);
	p->n_pool++;
	return rp_log(p, (uint32_t)(p->n_pool - 1) | LOG_ADD);
}

static int rp_remove(struct cov *c, struct rep *p, uint32_t i)
{
	rp_apply(c, p, i, -1);
	return rp_log(p, i);
}

/* Undo the steps logged since @mark, last first. */
static void rp_undo(struct cov *c, struct rep *p, size_t mark)
{
	while (p->n_log > mark) {
		uint32_t v = p->log[--p->n_log], i = v & ~LOG_ADD;

		rp_apply(c, p, i, v & LOG_ADD ? -1 : 1);
		if ((v & LOG_ADD) && i == p->n_pool - 1)
			p->n_pool--;
	}
}

/* Kept when the deficit fell below @d0, else undone back to @mark: 1 kept, 0 undone. */
static int rp_keep(struct cov *c, struct rep *p, size_t mark, long d0)
{
	if (p->deficit < d0)
		return 1;
	rp_undo(c, p, mark);
	return 0;
}

/* Did hosts @x and @w meet in some round? */
static bool rp_met(const struct cov *c, const struct rep *p, unsigned int x, unsigned int w)
{
	for (size_t r = 0; r < p->nr; r++) {
		uint32_t i = p->mate[r * c->nh + x];

		if (i != RP_NONE && (p->pool[i].a == w || p->pool[i].b == w))
			return true;
	}
	return false;
}

/*
 * Host @x, free in round @r: a free candidate partner that fits with
 * gain, else a free host of its leaf it never met, else a free candidate
 * partner that fits.
 */
static int rp_rehome(struct cov *c, struct rep *p, size_t r, unsigned int x)
{
	const uint32_t *mate = p->mate + r * c->nh;
	size_t best = SIZE_MAX, bx = 0, by = 0;
	unsigned int bg = 0;
	uint32_t leaf = c->r->hosts[x].leaf;

	c->load = rp_load(c, p, r);
	for (uint32_t e = c->adj_start[x]; e < c->adj_start[x + 1]; e++) {
		size_t i = c->adj[e], ab, ba;
		const struct pair_route *pr = c->cand[i];
		unsigned int y = pr->a == x ? pr->b : pr->a, g;

		if (c->used[i] || mate[y] != RP_NONE || rp_met(c, p, x, y) ||
		    !best_opt(c, i, true, &g, &ab, &ba))
			continue;
		if (best == SIZE_MAX || g > bg) {
			best = i;
			bg = g;
			bx = ab;
			by = ba;
		}
	}
	if (best == SIZE_MAX || !bg)
		for (uint32_t e = p->leaf_start[leaf]; e < p->leaf_start[leaf + 1]; e++) {
			unsigned int w = p->leaf_hosts[e];

			if (w != x && mate[w] == RP_NONE && !rp_met(c, p, x, w))
				return rp_add(c, p, r, x, w, STEER_COVER_FILL, 0, 0);
		}
	if (best != SIZE_MAX)
		return rp_add(c, p, r, c->cand[best]->a, c->cand[best]->b, (uint32_t)best, bx, by);
	return 0;
}

/* The other host of pool entry @q, which holds @h. */
static unsigned int rp_other(const struct rep *p, uint32_t q, unsigned int h)
{
	return p->pool[q].a == h ? p->pool[q].b : p->pool[q].a;
}

/* Unused candidate @i into round @r; its hosts' pairs there out, their partners rehomed. */
static int rp_insert(struct cov *c, struct rep *p, size_t i, size_t r)
{
	const struct pair_route *pr = c->cand[i];
	uint32_t *mate = p->mate + r * c->nh, pa = mate[pr->a], pb = mate[pr->b];
	unsigned int x = UINT32_MAX, y = UINT32_MAX, g;
	size_t mark = p->n_log, ab, ba;
	long d0 = p->deficit;
	int rc;

	if ((pa != RP_NONE && pa == pb) || rp_met(c, p, pr->a, pr->b))
		return 0;
	if (pa != RP_NONE) {
		x = rp_other(p, pa, pr->a);
		if ((rc = rp_remove(c, p, pa)) < 0)
			return rc;
	}
	if (pb != RP_NONE) {
		y = rp_other(p, pb, pr->b);
		if ((rc = rp_remove(c, p, pb)) < 0)
			return rc;
	}
	c->load = rp_load(c, p, r);
	if (best_opt(c, i, true, &g, &ab, &ba)) {
		if ((rc = rp_add(c, p, r, pr->a, pr->b, (uint32_t)i, ab, ba)) < 0 ||
		    (x != UINT32_MAX && (rc = rp_rehome(c, p, r, x)) < 0) ||
		    (y != UINT32_MAX && mate[y] == RP_NONE && (rc = rp_rehome(c, p, r, y)) < 0))
			return rc;
	}
	return rp_keep(c, p, mark, d0);
}

/* A live candidate pair of round @r other than @not whose paths load directed link @dl; RP_NONE. */
static uint32_t rp_holder(const struct cov *c, const struct rep *p, size_t r, uint32_t dl,
			  uint32_t not)
{
	const uint32_t *mate = p->mate + r * c->nh;

	for (unsigned int h = 0; h < c->nh; h++) {
		uint32_t i = mate[h];
		const struct rpair *e;
		const struct pair_route *pr;

		if (i == RP_NONE || i == not || p->pool[i].a != h ||
		    p->pool[i].pick == STEER_COVER_FILL)
			continue;
		e = &p->pool[i];
		pr = c->cand[e->pick];
		for (int w = 0; w < 2; w++) {
			const struct path *pa = w ? &pr->ba[e->ba] : &pr->ab[e->ab];

			for (size_t x = 0; x < pa->n_hops; x++)
				if (dl_of(&pa->hops[x]) == dl)
					return i;
		}
	}
	return RP_NONE;
}

/*
 * Unused candidate @i into round @r on its option of most gain, fitting or
 * not: its hosts' pairs there and the candidate pairs on its full hops
 * taken out (up to KICK_MAX); each of those back on another option that
 * fits, else its hosts rehomed.
 */
static int rp_kick(struct cov *c, struct rep *p, size_t i, size_t r)
{
	const struct pair_route *pr = c->cand[i];
	uint32_t *mate = p->mate + r * c->nh, out[KICK_MAX + 2], self;
	size_t mark = p->n_log, n_out = 0, ab, ba;
	long d0 = p->deficit;
	unsigned int g;
	int rc;

	if ((mate[pr->a] != RP_NONE && mate[pr->a] == mate[pr->b]) || rp_met(c, p, pr->a, pr->b))
		return 0;
	for (int s = 0; s < 2; s++) {
		uint32_t q = mate[s ? pr->b : pr->a];

		if (q != RP_NONE) {
			out[n_out++] = q;
			if ((rc = rp_remove(c, p, q)) < 0)
				return rc;
		}
	}
	c->load = rp_load(c, p, r);
	if (!best_opt(c, i, false, &g, &ab, &ba) || !g)
		goto undo;
	if ((rc = rp_add(c, p, r, pr->a, pr->b, (uint32_t)i, ab, ba)) < 0)
		return rc;
	self = (uint32_t)p->n_pool - 1;
	for (int w = 0; w < 2; w++) {
		const struct path *pa = w ? &pr->ba[ba] : &pr->ab[ab];

		for (size_t h = 0; h < pa->n_hops; h++) {
			uint32_t dl = dl_of(&pa->hops[h]);

			while (c->load[dl] > 1.0 + EPS) {
				uint32_t q = rp_holder(c, p, r, dl, self);

				if (q == RP_NONE || n_out == KICK_MAX + 2)
					goto undo;
				out[n_out++] = q;
				if ((rc = rp_remove(c, p, q)) < 0)
					return rc;
			}
		}
	}
	for (size_t x = 0; x < n_out; x++) {
		const struct rpair e = p->pool[out[x]];

		if (e.pick != STEER_COVER_FILL && mate[e.a] == RP_NONE && mate[e.b] == RP_NONE &&
		    !c->used[e.pick]) {
			c->load = rp_load(c, p, r);
			if (best_opt(c, e.pick, true, &g, &ab, &ba)) {
				if ((rc = rp_add(c, p, r, e.a, e.b, e.pick, ab, ba)) < 0)
					return rc;
				continue;
			}
		}
		if ((mate[e.a] == RP_NONE && (rc = rp_rehome(c, p, r, e.a)) < 0) ||
		    (mate[e.b] == RP_NONE && (rc = rp_rehome(c, p, r, e.b)) < 0))
			return rc;
	}
	return rp_keep(c, p, mark, d0);
undo:
	rp_undo(c, p, mark);
	return 0;
}

/* Candidate pair @e onto its best option in round @r2 (its own, or one with both hosts free). */
static int rp_move(struct cov *c, struct rep *p, uint32_t e, size_t r2)
{
	struct rpair q = p->pool[e];
	size_t mark = p->n_log, ab, ba;
	long d0 = p->deficit;
	unsigned int g;
	int rc;

	if (r2 != q.r && (p->mate[r2 * c->nh + q.a] != RP_NONE ||
			  p->mate[r2 * c->nh + q.b] != RP_NONE))
		return 0;
	if ((rc = rp_remove(c, p, e)) < 0)
		return rc;
	c->load = rp_load(c, p, r2);
	if (best_opt(c, q.pick, true, &g, &ab, &ba) && (r2 != q.r || ab != q.ab || ba != q.ba) &&
	    (rc = rp_add(c, p, r2, q.a, q.b, q.pick, ab, ba)) < 0)
		return rc;
	return rp_keep(c, p, mark, d0);
}

/*
 * Host @h, short and free in round @r: a host w of its leaf it never met,
 * whose pair there moves to a round where both its hosts are free, meets
 * @h in round @r.
 */
static int rp_room(struct cov *c, struct rep *p, size_t r, unsigned int h)
{
	uint32_t leaf = c->r->hosts[h].leaf;

	for (uint32_t f = p->leaf_start[leaf]; f < p->leaf_start[leaf + 1]; f++) {
		unsigned int w = p->leaf_hosts[f], g;
		uint32_t q = p->mate[r * c->nh + w];
		size_t mark = p->n_log, ab = 0, ba = 0;
		long d0 = p->deficit;
		struct rpair e;
		int rc;

		if (w == h || q == RP_NONE || rp_met(c, p, h, w))
			continue;
		e = p->pool[q];
		for (size_t r2 = 0; r2 < p->nr; r2++) {
			if (r2 == r || p->mate[r2 * c->nh + e.a] != RP_NONE ||
			    p->mate[r2 * c->nh + e.b] != RP_NONE)
				continue;
			if ((rc = rp_remove(c, p, q)) < 0)
				return rc;
			c->load = rp_load(c, p, r2);
			if (e.pick != STEER_COVER_FILL && !best_opt(c, e.pick, true, &g, &ab, &ba)) {
				rp_undo(c, p, mark);
				continue;
			}
			if ((rc = rp_add(c, p, r2, e.a, e.b, e.pick, ab, ba)) < 0 ||
			    (rc = rp_add(c, p, r, h, w, STEER_COVER_FILL, 0, 0)) < 0)
				return rc;
			if ((rc = rp_keep(c, p, mark, d0)) != 0)
				return rc;
		}
	}
	return 0;
}

/* Is host @h short and free in some round? */
static bool rp_short_free(const struct cov *c, const struct rep *p, unsigned int h)
{
	if (c->out->host_pairs[h] >= c->k)
		return false;
	for (size_t r = 0; r < p->nr; r++)
		if (p->mate[r * c->nh + h] == RP_NONE)
			return true;
	return false;
}

static int rp_pass(struct cov *c, struct rep *p, size_t *kept)
{
	size_t n = p->n_pool;
	int rc;

	for (uint32_t e = 0; e < n && p->deficit > 0; e++) {
		if (!p->pool[e].live || p->pool[e].pick == STEER_COVER_FILL)
			continue;
		rc = 0;
		for (size_t r = 0, r0 = p->pool[e].r; r < p->nr && !rc; r++)
			if ((rc = rp_move(c, p, e, (r0 + r) % p->nr)) < 0)
				return rc;
		*kept += (size_t)rc;
	}
	for (size_t i = 0; i < c->n && p->deficit > 0; i++) {
		const struct pair_route *pr = c->cand[i];
		unsigned int g;
		size_t ab, ba;

		if (!pr || c->used[i])
			continue;
		if (!rp_short_free(c, p, pr->a) && !rp_short_free(c, p, pr->b) &&
		    (!best_opt(c, i, false, &g, &ab, &ba) || !g))
			continue;
		for (size_t r = 0; r < p->nr && !c->used[i]; r++) {
			if ((rc = rp_insert(c, p, i, r)) < 0)
				return rc;
			*kept += (size_t)rc;
		}
		for (size_t r = c->k; r < p->nr && !c->used[i]; r++) {
			if ((rc = rp_kick(c, p, i, r)) < 0)
				return rc;
			*kept += (size_t)rc;
		}
	}
	for (size_t r = 0; r < p->nr; r++)
		for (unsigned int h = 0; h < c->nh && p->deficit > 0; h++) {
			size_t mark = p->n_log;
			long d0 = p->deficit;

			if (c->out->host_pairs[h] >= c->k || p->mate[r * c->nh + h] != RP_NONE)
				continue;
			if ((rc = rp_rehome(c, p, r, h)) < 0)
				return rc;
			if ((rc = rp_keep(c, p, mark, d0)) == 0)
				rc = rp_room(c, p, r, h);
			if (rc < 0)
				return rc;
			*kept += (size_t)rc;
		}
	return 0;
}

/* The rounds made (o->s) into the repair's pool, searched, and back into o->s. */
static int repair(struct cov *c, const bool *target)
{
	struct steer_cover *o = c->out;
	struct rep p = { .nr = o->s.n_rounds, .target = target };
	double *main_load = c->load;
	size_t nlv = c->r->n_leaves;
	int rc = 0;

	p.load = calloc(p.nr * c->nl * 2 + 1, sizeof(*p.load));
	p.mate = malloc((p.nr * c->nh + 1) * sizeof(*p.mate));
	p.cap_pool = o->s.n_pairs + 64;
	p.pool = malloc(p.cap_pool * sizeof(*p.pool));
	p.leaf_start = calloc(nlv + 2, sizeof(*p.leaf_start));
	p.leaf_hosts = malloc((c->nh + 1) * sizeof(*p.leaf_hosts));
	if (!p.load || !p.mate || !p.pool || !p.leaf_start || !p.leaf_hosts) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t x = 0; x < p.nr * c->nh; x++)
		p.mate[x] = RP_NONE;
	for (size_t h = 0; h < c->nh; h++)
		p.leaf_start[c->r->hosts[h].leaf + 1]++;
	for (size_t l = 0; l < nlv; l++)
		p.leaf_start[l + 1] += p.leaf_start[l];
	memcpy(c->order, p.leaf_start, nlv * sizeof(*c->order));	/* scratch: >= hosts */
	for (size_t h = 0; h < c->nh; h++)
		p.leaf_hosts[c->order[c->r->hosts[h].leaf]++] = (uint32_t)h;
	/* the pairs as they are (their crossings and host pairs counted already) */
	for (size_t r = 0; r < p.nr; r++)
		for (size_t f = o->s.round_start[r]; f < o->s.round_start[r + 1]; f++) {
			struct rpair *e = &p.pool[p.n_pool];

			*e = (struct rpair){ .a = o->s.pairs[f].a, .b = o->s.pairs[f].b,
					     .pick = o->pick[f], .ab = o->ab[f], .ba = o->ba[f],
					     .r = (uint16_t)r, .live = true };
			p.mate[r * c->nh + e->a] = p.mate[r * c->nh + e->b] = (uint32_t)p.n_pool++;
			if (e->pick != STEER_COVER_FILL) {
				const struct pair_route *pr = c->cand[e->pick];
				double *load = rp_load(c, &p, r);

				for (int w = 0; w < 2; w++) {
					const struct path *pa = w ? &pr->ba[e->ba] : &pr->ab[e->ab];

					for (size_t h = 0; h < pa->n_hops; h++)
						load[dl_of(&pa->hops[h])] +=
							demand(c, pr, pa->hops[h].link);
				}
			}
		}
	for (size_t l = 0; l < c->nl; l++)
		if (target[l] && o->cross[l] < c->k)
			p.deficit += c->k - o->cross[l];
	for (size_t h = 0; h < c->nh; h++)
		p.deficit += host_deficit(c, o->host_pairs[h]);
	for (size_t pass = 0; pass < REPAIR_PASSES && p.deficit > 0; pass++) {
		size_t kept = 0;

		if ((rc = rp_pass(c, &p, &kept)) < 0)
			goto out;
		p.n_log = 0;
		if (!kept)
			break;
	}
	/* back into o->s round by round, the partners recounted */
	o->s.n_pairs = 0;
	memset(o->host_pairs, 0, c->nh * sizeof(*o->host_pairs));
	for (size_t r = 0; r < p.nr; r++) {
		for (size_t i = 0; i < p.n_pool; i++) {
			const struct rpair *e = &p.pool[i];

			if (e->live && e->r == r &&
			    (rc = out_push(c, e->a, e->b, e->pick, e->ab, e->ba)) < 0)
				goto out;
		}
		o->s.round_start[r + 1] = o->s.n_pairs;
	}
	memset(c->busy, 0, c->nh * sizeof(*c->busy));
out:
	c->load = main_load;
	free(p.load);
	free(p.mate);
	free(p.pool);
	free(p.log);
	free(p.leaf_start);
	free(p.leaf_hosts);
	return rc;
}

/*
 * Step 7, a walk over the main rounds (steer_cover.h 6.; after the K main
 * rounds' repair, when something is short): the candidate pairs of the K
 * main rounds searched as a whole, the fillers left out and made again
 * after.  A state: per candidate its round (or none) and option; no host
 * twice in a round (kept).  Its cost: the load past capacity on each
 * directed hop of each round (ANN_W_OVER a test), each target link's
 * crossings short of K, each leaf and round with an odd number of hosts
 * not in a candidate pair (one of them would find no filler), and each
 * leaf with the same two hosts free in two rounds (they would meet
 * twice).  A move: a candidate path across a short link into a round
 * where that hop has room, a candidate at random onto another option,
 * out, or into a round, or, from a leaf and round that is odd, a chain of
 * up to 4 hosts in or out of pairs, each on to the leaf it left odd; a
 * candidate going into a round takes its best option there (ties at
 * random) and the pairs holding its hosts there out.  A move is kept when
 * the cost falls, or rises by d with chance exp(-d / T) (Metropolis),
 * the temperature T falling from ANN_T0 to ANN_T1 over the moves it has
 * (simulated annealing: at a fixed 0.6 the 1024-host fat tree of the
 * scale harness kept cost 23 after 12 M moves; 0.8 -> 0.4 over 8 M left
 * 2-6; over 16 M cost 0 in 1 run of 5, 0.8 -> 0.5 in 3 of 5), until the
 * cost is 0 or after ANN_ITER moves a host (ANN_MAX at most).  Then a
 * search for chains of up to ANN_CHAIN steps that lower the cost from
 * each odd leaf, and the candidates on a hop past capacity taken out.
 * The state replaces the rounds when its cost is below theirs; the
 * fillers then pair each leaf's free hosts with partners they had not
 * met, the rounds with fewest free first.
 * Deterministic: nrand48() from a fixed seed, one per walk; while
 * something is short after one, another (ANN_WALKS in all).
 */
#define ANN_W_OVER 4.0		/* cost of a test past a hop's capacity */
#define ANN_T0 0.8		/* the walk's first temperature: a move costing 1 more kept 29 % of the time */
#define ANN_T1 0.5		/* its last: 14 % (0.4: the parity seldom closed, cost 1-6 left) */
#define ANN_ITER 16000		/* moves per host */
#define ANN_MAX 48000000	/* moves at most (about 1-2 us each; 4096 hosts: 16 M left 4-14, 48 M 0-10) */
#define ANN_P_SHORT 30		/* % of moves: a path across a short link */
#define ANN_P_RAND 20		/* % of moves: a candidate at random; the rest: parity */
#define ANN_FILL_TRIES 4096
#define ANN_GAP_DIV 8		/* no walk when more than hosts / 8 crossings and hosts are short */
#define ANN_CHAIN 3
/*
 * Walks at most, each from where the last left the rounds, on a seed of
 * its own: whether one closes is the seed's luck more than the fabric's
 * (scale_sim 16 8 8 8 8 -k 3 -S, seeds 20 and 21, both short after the
 * first walk: with 3 other seeds each, 2 of 3 and 1 of 3 closed).
 */
#define ANN_WALKS 3

struct ann {
	size_t nr, nlv;
	int32_t *rr;			/* per candidate: its round, -1 none */
	uint16_t *ox, *oy;
	uint32_t *mate;			/* nr x hosts: candidate, RP_NONE */
	double *load;			/* nr x directed links */
	uint32_t *cross;		/* per link: crossings of the candidates taken */
	uint32_t *used;			/* nr x leaves: hosts in candidate pairs */
	uint32_t *leaf_n;		/* hosts per leaf */
	const bool *target;
	double cost, over, w_over;
	uint32_t *short_list, *short_at;	/* target links short of K; per link its place */
	size_t n_short;
	const uint32_t *leaf_start, *leaf_hosts;	/* hosts per leaf */
	uint8_t *fpen;			/* per leaf: rounds pairs with the same two hosts free */
	double *dem, dem_mbps;		/* per link: a test's demand at dem_mbps (the common rate) */
};

static double an_dem(const struct cov *c, const struct ann *a, const struct pair_route *pr,
		     uint32_t l)
{
	return pr->expected_mbps == a->dem_mbps ? a->dem[l] : demand(c, pr, l);
}

/*
 * Per link, the candidate paths that cross it (CSR), 4 bytes each (4096
 * hosts: 1.6 M of them): candidate << 9 | direction (1: b -> a) << 8 |
 * path; the walk runs only where every candidate and path fits.
 */
#define USE_X_MAX 256u
#define USE_I_MAX (1u << 23)
#define USE_PACK(i, w, x) ((uint32_t)(i) << 9 | (uint32_t)(w) << 8 | (uint32_t)(x))
#define USE_I(u) ((u) >> 9)
#define USE_W(u) ((u) >> 8 & 1)
#define USE_X(u) ((u) & 0xff)

static double over_of(double l)
{
	return l > 1.0 + EPS ? l - 1.0 : 0.0;
}

/*
 * Leaf @lf's pairs of rounds with the same two hosts free in both: they
 * would have met as fillers already (capped at 255).
 */
static int an_fpen(const struct cov *c, const struct ann *a, uint32_t lf)
{
	uint32_t two[8][2];
	size_t nt = 0;
	int p = 0;

	for (size_t r = 0; r < a->nr && nt < 8; r++) {
		size_t n = 0;

		if (a->leaf_n[lf] - a->used[r * a->nlv + lf] != 2)
			continue;
		for (uint32_t e = a->leaf_start[lf]; e < a->leaf_start[lf + 1] && n < 2; e++)
			if (a->mate[r * c->nh + a->leaf_hosts[e]] == RP_NONE)
				two[nt][n++] = a->leaf_hosts[e];
		for (size_t z = 0; z < nt; z++)
			p += two[z][0] == two[nt][0] && two[z][1] == two[nt][1];
		nt++;
	}
	return p > 255 ? 255 : p;
}

/* Candidate @i into round @r on option (@x, @y) (@d 1) or out of it (@d -1). */
static void an_apply(struct cov *c, struct ann *a, size_t i, size_t r, size_t x, size_t y, int d)
{
	const struct pair_route *pr = c->cand[i];
	double *load = a->load + r * c->nl * 2;
	bool two[2];

	for (int w = 0; w < 2; w++) {
		const struct path *pa = w ? &pr->ba[y] : &pr->ab[x];

		for (size_t h = 0; h < pa->n_hops; h++) {
			uint32_t l = pa->hops[h].link, dl = dl_of(&pa->hops[h]);
			double b = over_of(load[dl]);

			load[dl] += d * an_dem(c, a, pr, l);
			a->over += over_of(load[dl]) - b;
			a->cost += a->w_over * (over_of(load[dl]) - b);
			if (!c->access[l] && a->target[l]) {
				long s0 = a->cross[l] < c->k ? (long)(c->k - a->cross[l]) : 0, s1;

				a->cross[l] = (uint32_t)((int)a->cross[l] + d);
				s1 = a->cross[l] < c->k ? (long)(c->k - a->cross[l]) : 0;
				a->cost += (double)(s1 - s0);
				if (s0 && !s1) {	/* out of the short list */
					uint32_t m = a->short_list[--a->n_short];

					a->short_list[a->short_at[l]] = m;
					a->short_at[m] = a->short_at[l];
				} else if (!s0 && s1) {
					a->short_at[l] = (uint32_t)a->n_short;
					a->short_list[a->n_short++] = l;
				}
			}
		}
	}
	for (int s = 0; s < 2; s++) {
		unsigned int hh = s ? pr->b : pr->a;
		uint32_t lf = c->r->hosts[hh].leaf, *u = &a->used[r * a->nlv + lf];
		int p0 = (int)((a->leaf_n[lf] - *u) & 1);

		/* the leaf's fillers' penalty changes only where 2 of its hosts were or are free */
		two[s] = a->leaf_n[lf] - *u == 2;
		*u = (uint32_t)((int)*u + d);
		two[s] |= a->leaf_n[lf] - *u == 2;
		a->cost += (int)((a->leaf_n[lf] - *u) & 1) - p0;
		a->mate[r * c->nh + hh] = d > 0 ? (uint32_t)i : RP_NONE;
	}
	for (int s = 0; s < 2; s++) {
		uint32_t lf = c->r->hosts[s ? pr->b : pr->a].leaf;
		int p;

		if (!two[s])
			continue;
		p = an_fpen(c, a, lf);

		a->cost += p - a->fpen[lf];
		a->fpen[lf] = (uint8_t)p;
	}
	a->rr[i] = d > 0 ? (int32_t)r : -1;
	if (d > 0) {
		a->ox[i] = (uint16_t)x;
		a->oy[i] = (uint16_t)y;
	}
}

/* The path of @pr's direction @w whose cost in round @r would rise least (ties at random). */
static size_t an_best(const struct cov *c, const struct ann *a, const struct pair_route *pr,
		      size_t r, int w, unsigned short *xs)
{
	const double *load = a->load + r * c->nl * 2;
	size_t n = w ? pr->n_ba : pr->n_ab, best = 0, ties = 0;
	double bc = 0;

	for (size_t x = 0; x < n; x++) {
		const struct path *pa = w ? &pr->ba[x] : &pr->ab[x];
		double d = 0;

		for (size_t h = 0; h < pa->n_hops; h++) {
			uint32_t l = pa->hops[h].link, dl = dl_of(&pa->hops[h]);

			d += a->w_over * (over_of(load[dl] + an_dem(c, a, pr, l)) - over_of(load[dl]));
			if (!c->access[l] && a->target[l] && a->cross[l] < c->k)
				d -= 1;
		}
		if (x == 0 || d < bc - EPS) {
			best = x;
			bc = d;
			ties = 1;
		} else if (d < bc + EPS && (size_t)nrand48(xs) % ++ties == 0) {
			best = x;
		}
	}
	return best;
}

struct an_step {
	uint32_t i;
	int32_t r;
	uint16_t x, y;
	int d;
};

/* Undo @n steps, last first. */
static void an_undo(struct cov *c, struct ann *a, const struct an_step *st, size_t n)
{
	while (n--)
		an_apply(c, a, st[n].i, (size_t)st[n].r, st[n].x, st[n].y, -st[n].d);
}

static size_t an_out(struct cov *c, struct ann *a, uint32_t i, struct an_step *st, size_t n)
{
	st[n] = (struct an_step){ .i = i, .r = a->rr[i], .x = a->ox[i], .y = a->oy[i], .d = -1 };
	an_apply(c, a, i, (size_t)a->rr[i], a->ox[i], a->oy[i], -1);
	return n + 1;
}

/* The other host of candidate @q, which holds @h. */
static unsigned int rp_other_c(const struct cov *c, uint32_t q, unsigned int h)
{
	return c->cand[q]->a == h ? c->cand[q]->b : c->cand[q]->a;
}

/* Have @x and @y, of one leaf, been paired as fillers (@fp: rounds x hosts) in a round? */
static bool an_met(const struct cov *c, const struct ann *a, const uint32_t *fp, unsigned int x,
		   unsigned int y)
{
	for (size_t r = 0; r < a->nr; r++)
		if (fp[r * c->nh + x] == y)
			return true;
	return false;
}

/*
 * Fillers for the hosts @fr[0..n) of one leaf, free in round @r: a
 * matching of partners not met in another round, into @fp; false: none
 * found within *@budget steps.
 */
static bool an_fill(const struct cov *c, const struct ann *a, uint32_t *fp, size_t r,
		    unsigned int *fr, size_t n, size_t *budget)
{
	if (!n)
		return true;
	for (size_t j = 1; j < n && *budget; j++) {
		unsigned int x = fr[0], y = fr[j], t;

		if (an_met(c, a, fp, x, y))
			continue;
		(*budget)--;
		t = fr[1];
		fr[1] = fr[j];
		fr[j] = t;
		if (an_fill(c, a, fp, r, fr + 2, n - 2, budget)) {
			fp[r * c->nh + x] = y;
			fp[r * c->nh + y] = x;
			return true;
		}
		fr[j] = fr[1];
		fr[1] = t;
	}
	return false;
}

/*
 * The annealed state back into o->s: per round its candidates, then the
 * fillers, matched leaf by leaf, the rounds with fewest hosts free first
 * (a leaf with the same two hosts free in two rounds has no filler for
 * them in the second).
 */
static int an_rebuild(struct cov *c, struct ann *a, const uint32_t *leaf_start,
		      const uint32_t *leaf_hosts)
{
	struct steer_cover *o = c->out;
	unsigned int *fr = malloc((c->nh + 1) * sizeof(*fr));
	uint32_t *fp = malloc((a->nr * c->nh + 1) * sizeof(*fp));
	size_t *ord = malloc((a->nr + 1) * sizeof(*ord)), *cnt = calloc(a->nr + 1, sizeof(*cnt));
	int rc = 0;

	if (!fr || !fp || !ord || !cnt) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t x = 0; x < a->nr * c->nh; x++)
		fp[x] = RP_NONE;
	for (size_t lf = 0; lf < a->nlv; lf++) {
		for (size_t r = 0; r < a->nr; r++) {
			ord[r] = r;
			cnt[r] = a->leaf_n[lf] - a->used[r * a->nlv + lf];
			for (size_t z = r; z > 0 && cnt[ord[z]] < cnt[ord[z - 1]]; z--) {
				size_t t = ord[z];

				ord[z] = ord[z - 1];
				ord[z - 1] = t;
			}
		}
		for (size_t z = 0; z < a->nr; z++) {
			size_t r = ord[z], n = 0, budget = ANN_FILL_TRIES;

			for (uint32_t e = leaf_start[lf]; e < leaf_start[lf + 1]; e++)
				if (a->mate[r * c->nh + leaf_hosts[e]] == RP_NONE)
					fr[n++] = leaf_hosts[e];
			n -= n & 1;
			/* a pair left out when no matching of new partners exists */
			while (n >= 2 && !an_fill(c, a, fp, r, fr, n, &budget))
				n -= 2;
		}
	}
	o->s.n_pairs = 0;
	memset(o->host_pairs, 0, c->nh * sizeof(*o->host_pairs));
	memset(o->cross, 0, c->nl * sizeof(*o->cross));
	for (size_t r = 0; r < a->nr && rc == 0; r++) {
		for (size_t i = 0; i < c->n && rc == 0; i++) {
			const struct pair_route *pr = c->cand[i];

			if (a->rr[i] != (int32_t)r)
				continue;
			for (int w = 0; w < 2; w++) {
				const struct path *pa = w ? &pr->ba[a->oy[i]] : &pr->ab[a->ox[i]];

				for (size_t h = 0; h < pa->n_hops; h++)
					o->cross[pa->hops[h].link]++;
			}
			rc = out_push(c, pr->a, pr->b, (uint32_t)i, a->ox[i], a->oy[i]);
		}
		for (unsigned int h = 0; h < c->nh && rc == 0; h++)
			if (fp[r * c->nh + h] != RP_NONE && fp[r * c->nh + h] > h)
				rc = filler_push(c, h, fp[r * c->nh + h]);
		o->s.round_start[r + 1] = o->s.n_pairs;
		memset(c->busy, 0, c->nh * sizeof(*c->busy));
	}
	for (size_t i = 0; i < c->n; i++)
		c->used[i] = a->rr[i] >= 0;
out:
	free(fr);
	free(fp);
	free(ord);
	free(cnt);
	return rc;
}

/* Is leaf @lf odd in round @r (an odd number of its hosts free)? */
static bool an_odd(const struct ann *a, size_t r, size_t lf)
{
	return (a->leaf_n[lf] - a->used[r * a->nlv + lf]) & 1;
}

/*
 * Parity by search: from leaf @lf, odd in round @r, a chain of up to
 * @depth steps, each a host of the leaf out of its pair or into an unused
 * candidate (on its best option, the pair holding the partner there taken
 * out), on to the leaf the step left odd.  1: the cost fell below @goal,
 * kept; 0: all undone.
 */
static int an_chain(struct cov *c, struct ann *a, size_t r, size_t lf, unsigned int depth,
		    double goal, struct an_step *st, size_t n, unsigned short *xs)
{
	for (uint32_t e = a->leaf_start[lf]; e < a->leaf_start[lf + 1]; e++) {
		unsigned int h = a->leaf_hosts[e];
		uint32_t q = a->mate[r * c->nh + h];

		if (q != RP_NONE) {
			unsigned int g = rp_other_c(c, q, h);
			size_t m = an_out(c, a, q, st, n);

			if (a->cost < goal - EPS)
				return 1;
			if (depth > 1 && an_odd(a, r, c->r->hosts[g].leaf) &&
			    an_chain(c, a, r, c->r->hosts[g].leaf, depth - 1, goal, st, m, xs))
				return 1;
			an_undo(c, a, st + n, m - n);
			continue;
		}
		for (uint32_t j = c->adj_start[h]; j < c->adj_start[h + 1]; j++) {
			size_t i = c->adj[j], m = n, x, y, next = SIZE_MAX;
			const struct pair_route *pr = c->cand[i];
			unsigned int g = pr->a == h ? pr->b : pr->a;
			uint32_t q2;

			if (a->rr[i] >= 0)
				continue;
			if ((q2 = a->mate[r * c->nh + g]) != RP_NONE) {
				next = c->r->hosts[rp_other_c(c, q2, g)].leaf;
				m = an_out(c, a, q2, st, m);
			} else {
				next = c->r->hosts[g].leaf;
			}
			x = an_best(c, a, pr, r, 0, xs);
			y = an_best(c, a, pr, r, 1, xs);
			an_apply(c, a, i, r, x, y, 1);
			st[m++] = (struct an_step){ .i = (uint32_t)i, .r = (int32_t)r, .x = (uint16_t)x,
						    .y = (uint16_t)y, .d = 1 };
			if (a->cost < goal - EPS)
				return 1;
			if (depth > 1 && an_odd(a, r, next) &&
			    an_chain(c, a, r, next, depth - 1, goal, st, m, xs))
				return 1;
			an_undo(c, a, st + n, m - n);
		}
	}
	return 0;
}

/* Each odd leaf of each round: a chain that lowers the cost, while one is found. */
static void an_parity(struct cov *c, struct ann *a, unsigned short *xs)
{
	struct an_step st[4 * ANN_CHAIN + 4];
	bool more = true;

	for (size_t pass = 0; more && pass < 8; pass++) {
		more = false;
		for (size_t r = 0; r < a->nr; r++)
			for (size_t lf = 0; lf < a->nlv; lf++)
				if (an_odd(a, r, lf) && an_chain(c, a, r, lf, ANN_CHAIN, a->cost, st, 0, xs))
					more = true;
	}
}

static int anneal(struct cov *c, const bool *target, unsigned int walk)
{
	struct steer_cover *o = c->out;
	struct ann a = { .nr = o->s.n_rounds, .nlv = c->r->n_leaves, .target = target,
			 .w_over = ANN_W_OVER };
	unsigned short xs[3] = { 0x5eed, (unsigned short)(0x24 + walk), 0xc0f };
	struct an_step st[16];
	uint32_t *use = NULL;
	uint32_t *use_start = NULL, *leaf_start = NULL, *leaf_hosts = NULL;
	size_t iters = ANN_ITER * c->nh < ANN_MAX ? ANN_ITER * c->nh : ANN_MAX;
	long gap = 0;

	/* too far to close in the moves it has (4096 hosts on 4 candidates: 900-1,000) */
	for (size_t l = 0; l < c->nl; l++)
		if (target[l] && !c->access[l] && o->cross[l] < c->k)
			gap += c->k - o->cross[l];
	for (size_t h = 0; h < c->nh; h++)
		gap += o->host_pairs[h] < c->k;
	if (gap > (long)(c->nh / ANN_GAP_DIV) || c->n >= USE_I_MAX)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->cand[i] && (c->cand[i]->n_ab > USE_X_MAX || c->cand[i]->n_ba > USE_X_MAX))
			return 0;
	double cost0;
	int rc = 0;

	a.rr = malloc((c->n + 1) * sizeof(*a.rr));
	a.ox = calloc(c->n + 1, sizeof(*a.ox));
	a.oy = calloc(c->n + 1, sizeof(*a.oy));
	a.mate = malloc((a.nr * c->nh + 1) * sizeof(*a.mate));
	a.load = calloc(a.nr * c->nl * 2 + 1, sizeof(*a.load));
	a.cross = calloc(c->nl + 1, sizeof(*a.cross));
	a.used = calloc(a.nr * a.nlv + 1, sizeof(*a.used));
	a.leaf_n = calloc(a.nlv + 1, sizeof(*a.leaf_n));
	a.short_list = malloc((c->nl + 1) * sizeof(*a.short_list));
	a.short_at = malloc((c->nl + 1) * sizeof(*a.short_at));
	use_start = calloc(c->nl + 2, sizeof(*use_start));
	leaf_start = calloc(a.nlv + 2, sizeof(*leaf_start));
	leaf_hosts = calloc(c->nh + 1, sizeof(*leaf_hosts));
	a.fpen = calloc(a.nlv + 1, sizeof(*a.fpen));
	a.dem = malloc((c->nl + 1) * sizeof(*a.dem));
	a.leaf_start = leaf_start;
	a.leaf_hosts = leaf_hosts;
	if (!leaf_start || !leaf_hosts || !a.fpen || !a.dem ||
	    !a.rr || !a.ox || !a.oy || !a.mate || !a.load || !a.cross || !a.used || !a.leaf_n ||
	    !a.short_list || !a.short_at || !use_start) {
		rc = -ENOMEM;
		goto out;
	}
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < c->n; i++) {
			const struct pair_route *pr = c->cand[i];

			for (size_t x = 0; pr && x < pr->n_ab + pr->n_ba; x++) {
				bool w = x >= pr->n_ab;
				const struct path *pa = w ? &pr->ba[x - pr->n_ab] : &pr->ab[x];

				for (size_t h = 0; h < pa->n_hops; h++) {
					uint32_t l = pa->hops[h].link;

					if (c->access[l])
						continue;
					if (!pass)
						use_start[l + 2]++;
					else
						use[use_start[l + 1]++] =
							USE_PACK(i, w, w ? x - pr->n_ab : x);
				}
			}
		}
		if (pass)
			break;
		for (size_t l = 0; l < c->nl; l++)
			use_start[l + 2] += use_start[l + 1];
		if (!(use = malloc((use_start[c->nl + 1] + 1) * sizeof(*use)))) {
			rc = -ENOMEM;
			goto out;
		}
	}
	for (size_t i = 0; i < c->n; i++)
		a.rr[i] = -1;
	for (size_t x = 0; x < a.nr * c->nh; x++)
		a.mate[x] = RP_NONE;
	for (size_t i = 0; i < c->n; i++)
		if (c->cand[i]) {
			a.dem_mbps = c->cand[i]->expected_mbps;
			break;
		}
	for (size_t l = 0; l < c->nl; l++)
		a.dem[l] = 1.0 / sched_topo_cap(c->r, (uint32_t)l, a.dem_mbps);
	for (size_t h = 0; h < c->nh; h++)
		a.leaf_n[c->r->hosts[h].leaf]++;
	leaf_start[0] = 0;
	for (size_t lf = 0; lf < a.nlv; lf++)
		leaf_start[lf + 1] = leaf_start[lf] + a.leaf_n[lf];
	memcpy(c->order, leaf_start, a.nlv * sizeof(*c->order));	/* scratch: >= hosts */
	for (size_t h = 0; h < c->nh; h++)
		leaf_hosts[c->order[c->r->hosts[h].leaf]++] = (uint32_t)h;
	for (size_t l = 0; l < c->nl; l++)
		if (!c->access[l] && target[l]) {
			a.cost += c->k;
			a.short_at[l] = (uint32_t)a.n_short;
			a.short_list[a.n_short++] = (uint32_t)l;
		}
	for (size_t r = 0; r < a.nr; r++)
		for (size_t lf = 0; lf < a.nlv; lf++)
			a.cost += a.leaf_n[lf] & 1;
	for (size_t lf = 0; lf < a.nlv; lf++) {
		a.fpen[lf] = (uint8_t)an_fpen(c, &a, (uint32_t)lf);
		a.cost += a.fpen[lf];
	}
	for (size_t r = 0; r < a.nr; r++)
		for (size_t f = o->s.round_start[r]; f < o->s.round_start[r + 1]; f++)
			if (o->pick[f] != STEER_COVER_FILL)
				an_apply(c, &a, o->pick[f], r, o->ab[f], o->ba[f], 1);
	cost0 = a.cost;
	for (size_t it = 0; it < iters && a.cost > EPS; it++) {
		double before = a.cost, t = ANN_T0 + (ANN_T1 - ANN_T0) * (double)it / (double)iters;
		size_t i = (size_t)nrand48(xs) % c->n, n = 0, r, x, y;
		const struct pair_route *pr;
		long u = nrand48(xs) % 100, mv = nrand48(xs) % 6;

		if (u >= ANN_P_SHORT + ANN_P_RAND) {	/* a leaf and round with an odd number free: one of its hosts in or out */
			size_t lr = 0, tries = 0;

			do
				lr = (size_t)nrand48(xs) % (a.nr * a.nlv);
			while (!((a.leaf_n[lr % a.nlv] - a.used[lr]) & 1) && ++tries < 64);
			if (tries == 64)
				continue;
			r = lr / a.nlv;
			/* a chain: a host of the odd leaf in or out; the leaf it flips next, up to 4 steps */
			for (size_t step = 0, lf = lr % a.nlv; step < 4; step++) {
				unsigned int h = leaf_hosts[leaf_start[lf] + (size_t)nrand48(xs) %
							    (leaf_start[lf + 1] - leaf_start[lf])], g;
				uint32_t q = a.mate[r * c->nh + h], fl[3];
				size_t nf = 0;

				if (q != RP_NONE) {
					g = rp_other_c(c, q, h);
					n = an_out(c, &a, q, st, n);
					fl[nf++] = c->r->hosts[g].leaf;
				} else {
					if (c->adj_start[h] == c->adj_start[h + 1])
						break;
					i = c->adj[c->adj_start[h] + (size_t)nrand48(xs) %
						   (c->adj_start[h + 1] - c->adj_start[h])];
					if (a.rr[i] >= 0)
						break;
					pr = c->cand[i];
					g = pr->a == h ? pr->b : pr->a;
					if ((q = a.mate[r * c->nh + g]) != RP_NONE) {
						unsigned int k = rp_other_c(c, q, g);

						n = an_out(c, &a, q, st, n);
						fl[nf++] = c->r->hosts[k].leaf;
					}
					fl[nf++] = c->r->hosts[g].leaf;
					x = an_best(c, &a, pr, r, 0, xs);
					y = an_best(c, &a, pr, r, 1, xs);
					an_apply(c, &a, i, r, x, y, 1);
					st[n++] = (struct an_step){ .i = (uint32_t)i, .r = (int32_t)r,
								    .x = (uint16_t)x, .y = (uint16_t)y,
								    .d = 1 };
				}
				lf = SIZE_MAX;
				for (size_t z = 0; z < nf; z++)
					if ((a.leaf_n[fl[z]] - a.used[r * a.nlv + fl[z]]) & 1)
						lf = fl[z];
				if (lf == SIZE_MAX || a.cost < before - EPS)
					break;
			}
			goto judge;
		} else if (a.n_short && u < ANN_P_SHORT) {	/* a path across a short link, into a round */
			uint32_t l = a.short_list[(size_t)nrand48(xs) % a.n_short];
			uint32_t e;

			if (use_start[l] == use_start[l + 1])
				continue;
			e = use[use_start[l] + (size_t)nrand48(xs) % (use_start[l + 1] - use_start[l])];
			i = USE_I(e);
			pr = c->cand[i];
			r = (size_t)nrand48(xs) % a.nr;
			{	/* a round where the path's hop on that link has room, from a random one on */
				const struct path *pa = USE_W(e) ? &pr->ba[USE_X(e)] : &pr->ab[USE_X(e)];
				uint32_t dl = UINT32_MAX;

				for (size_t h = 0; h < pa->n_hops; h++)
					if (pa->hops[h].link == l)
						dl = dl_of(&pa->hops[h]);
				for (size_t z = 0; dl != UINT32_MAX && z < a.nr; z++) {
					size_t r2 = (r + z) % a.nr;

					if (a.load[r2 * c->nl * 2 + dl] + an_dem(c, &a, pr, l) <= 1.0 + EPS) {
						r = r2;
						break;
					}
				}
			}
			x = USE_W(e) ? SIZE_MAX : USE_X(e);
			y = !USE_W(e) ? SIZE_MAX : USE_X(e);
		} else {
			if (!(pr = c->cand[i]))
				continue;
			r = (size_t)nrand48(xs) % a.nr;
			x = nrand48(xs) & 1 ? SIZE_MAX : (size_t)nrand48(xs) % pr->n_ab;
			y = nrand48(xs) & 1 ? SIZE_MAX : (size_t)nrand48(xs) % pr->n_ba;
			if (a.rr[i] >= 0 && mv < 3) {	/* another option, in its round */
				r = (size_t)a.rr[i];
				if (mv == 0)
					x = a.ox[i];
				if (mv == 1)
					y = a.oy[i];
			} else if (a.rr[i] >= 0 && mv == 3) {	/* out */
				n = an_out(c, &a, (uint32_t)i, st, n);
				goto judge;
			}
		}
		/* into round r on (x, y), the pairs holding its hosts there out */
		if (a.rr[i] >= 0)
			n = an_out(c, &a, (uint32_t)i, st, n);
		for (int s = 0; s < 2; s++) {
			uint32_t q = a.mate[r * c->nh + (s ? pr->b : pr->a)];

			if (q != RP_NONE)
				n = an_out(c, &a, q, st, n);
		}
		if (x == SIZE_MAX)
			x = an_best(c, &a, pr, r, 0, xs);
		if (y == SIZE_MAX)
			y = an_best(c, &a, pr, r, 1, xs);
		an_apply(c, &a, i, r, x, y, 1);
		st[n++] = (struct an_step){ .i = (uint32_t)i, .r = (int32_t)r, .x = (uint16_t)x,
					    .y = (uint16_t)y, .d = 1 };
judge:
		if (a.cost > before + EPS &&
		    erand48(xs) >= exp(-(a.cost - before) / t))
			an_undo(c, &a, st, n);
	}
	an_parity(c, &a, xs);
	/* what still loads a hop past capacity out (the walk ends where it stands) */
	for (size_t i = 0; i < c->n && a.over > EPS; i++) {
		const struct pair_route *pr = c->cand[i];
		const double *load;
		bool full = false;

		if (a.rr[i] < 0)
			continue;
		load = a.load + (size_t)a.rr[i] * c->nl * 2;
		for (int w = 0; w < 2 && !full; w++) {
			const struct path *pa = w ? &pr->ba[a.oy[i]] : &pr->ab[a.ox[i]];

			for (size_t h = 0; h < pa->n_hops && !full; h++)
				full = load[dl_of(&pa->hops[h])] > 1.0 + EPS;
		}
		if (full)
			an_out(c, &a, (uint32_t)i, st, 0);
	}
	if (a.over < EPS && a.cost < cost0 - EPS)
		rc = an_rebuild(c, &a, leaf_start, leaf_hosts);
out:
	free(a.rr);
	free(a.ox);
	free(a.oy);
	free(a.mate);
	free(a.load);
	free(a.cross);
	free(a.used);
	free(a.leaf_n);
	free(a.short_list);
	free(a.short_at);
	free(use_start);
	free(use);
	free(leaf_start);
	free(leaf_hosts);
	free(a.fpen);
	free(a.dem);
	return rc;
}

static bool anything_short(const struct cov *c, const bool *target)
{
	for (size_t h = 0; h < c->nh; h++)
		if (c->out->host_pairs[h] < c->k)
			return true;
	for (size_t l = 0; l < c->nl; l++)
		if (target[l] && c->out->cross[l] < c->k)
			return true;
	return false;
}

static int round_end(struct cov *c)
{
	struct steer_cover *o = c->out;
	size_t *rs = realloc(o->s.round_start, (o->s.n_rounds + 2) * sizeof(*rs));

	if (!rs)
		return -ENOMEM;
	o->s.round_start = rs;
	rs[++o->s.n_rounds] = o->s.n_pairs;
	loads_clear(c);
	memset(c->busy, 0, c->nh * sizeof(*c->busy));
	for (size_t h = 0; h < c->nh; h++)
		c->fill_at[h] = SIZE_MAX;
	return 0;
}

static int check_in(const struct route *r, const struct steer_cover_req *req,
		    const struct pair_route *const *cand, size_t n, struct fab_err *err)
{
	if (!req->k || req->max_rounds < req->k || req->max_rounds > UINT16_MAX)
		return fab_err_input(err, -EINVAL, "steer cover: k %u, rounds %zu: k >= 1 and "
				     "k <= rounds <= 65535", req->k, req->max_rounds);
	if (!r->hosts || r->n_hosts < 2)
		return fab_err_input(err, -EINVAL, "steer cover: fewer than two placed hosts");
	for (size_t i = 0; i < n; i++) {
		const struct pair_route *p = cand[i];

		if (!p)
			continue;
		if (p->a == p->b || p->a >= r->n_hosts || p->b >= r->n_hosts || !p->n_ab || !p->n_ba ||
		    p->n_ab > UINT16_MAX || p->n_ba > UINT16_MAX)
			return fab_err_input(err, -EINVAL, "steer cover: candidate %zu (hosts %u, %u): "
					     "distinct hosts in range and a path each way", i, p->a,
					     p->b);
		for (size_t x = 0; x < p->n_ab + p->n_ba; x++) {
			const struct path *pa = x < p->n_ab ? &p->ab[x] : &p->ba[x - p->n_ab];

			if (!pa->n_hops)
				return fab_err_input(err, -EINVAL, "steer cover: candidate %zu: an "
						     "empty path", i);
			for (size_t h = 0; h < pa->n_hops; h++)
				if (pa->hops[h].link >= r->n_links)
					return fab_err_input(err, -EINVAL, "steer cover: candidate "
							     "%zu: link %u out of range", i,
							     pa->hops[h].link);
		}
	}
	return 0;
}

#define MEND_MAX 64		/* new pairs step 7 may add */
#define MEND_TRIES 32		/* new pairs traced per two hosts left free */
#define MEND_SIDE 16		/* hosts of a leaf that could take one */

/* Round @r's loads into c->load (c->touched), from the pairs it holds; c->busy its hosts. */
static void round_load(struct cov *c, size_t r)
{
	const struct steer_cover *o = c->out;

	for (size_t f = o->s.round_start[r]; f < o->s.round_start[r + 1]; f++) {
		c->busy[o->s.pairs[f].a] = c->busy[o->s.pairs[f].b] = true;
		if (o->pick[f] == STEER_COVER_FILL)
			continue;
		path_load(c, c->cand[o->pick[f]], &c->cand[o->pick[f]]->ab[o->ab[f]]);
		path_load(c, c->cand[o->pick[f]], &c->cand[o->pick[f]]->ba[o->ba[f]]);
	}
}

/* The last pair of the output into round @r (the rounds after it move up one). */
static void move_last_to(struct cov *c, size_t r)
{
	struct steer_cover *o = c->out;
	size_t at = o->s.round_start[r + 1], last = o->s.n_pairs - 1;
	struct sched_pair sp = o->s.pairs[last];
	uint32_t pk = o->pick[last];
	uint16_t x = o->ab[last], y = o->ba[last];

	memmove(&o->s.pairs[at + 1], &o->s.pairs[at], (last - at) * sizeof(*o->s.pairs));
	memmove(&o->pick[at + 1], &o->pick[at], (last - at) * sizeof(*o->pick));
	memmove(&o->ab[at + 1], &o->ab[at], (last - at) * sizeof(*o->ab));
	memmove(&o->ba[at + 1], &o->ba[at], (last - at) * sizeof(*o->ba));
	o->s.pairs[at] = sp;
	o->pick[at] = pk;
	o->ab[at] = x;
	o->ba[at] = y;
	for (size_t q = r + 1; q <= o->s.n_rounds; q++)
		o->s.round_start[q]++;
}

/* The filler of round @r holding @h: its place in the output, SIZE_MAX none. */
static size_t filler_of(const struct cov *c, size_t r, unsigned int h)
{
	const struct steer_cover *o = c->out;

	for (size_t f = o->s.round_start[r]; f < o->s.round_start[r + 1]; f++)
		if (o->pick[f] == STEER_COVER_FILL && (o->s.pairs[f].a == h || o->s.pairs[f].b == h))
			return f;
	return SIZE_MAX;
}

/*
 * Who on @x's leaf could take the new pair for @x in round @r: @x itself,
 * then each host in a filler whose other host never met @x (that one
 * then pairs with @x instead).  Into @v, at most @max; how many.
 */
static size_t mend_side(const struct cov *c, size_t r, unsigned int x, unsigned int *v, size_t max)
{
	const struct steer_cover *o = c->out;
	size_t n = 0;

	v[n++] = x;
	for (size_t f = o->s.round_start[r]; f < o->s.round_start[r + 1] && n < max; f++) {
		unsigned int a = o->s.pairs[f].a, b = o->s.pairs[f].b;

		if (o->pick[f] != STEER_COVER_FILL || c->r->hosts[a].leaf != c->r->hosts[x].leaf)
			continue;
		if (!had_partner(c, b, x))
			v[n++] = a;
		if (n < max && !had_partner(c, a, x))
			v[n++] = b;
	}
	return n;
}

/* Filler @f, which holds @u, to hold @x instead (@u is taken by a new pair). */
static void filler_swap(struct cov *c, size_t f, unsigned int u, unsigned int x)
{
	struct steer_cover *o = c->out;
	unsigned int w = o->s.pairs[f].a == u ? o->s.pairs[f].b : o->s.pairs[f].a;

	o->cross[c->r->hosts[u].link] -= 2;
	o->cross[c->r->hosts[x].link] += 2;
	o->host_pairs[u]--;
	o->host_pairs[x]++;
	o->s.pairs[f] = (struct sched_pair){ .a = x < w ? x : w, .b = x < w ? w : x };
	c->partners[(size_t)x * c->max_rounds + (o->host_pairs[x] - 1) % c->max_rounds] = w;
	c->partners[(size_t)w * c->max_rounds + (o->host_pairs[w] - 1) % c->max_rounds] = x;
}

/*
 * Free hosts @x and @y of round @r (on two leaves) paired through a new
 * pair the caller traces: the two themselves, or a host of either leaf
 * in a filler whose other host then pairs with the free one, the closest
 * to the two first; kept on the option of most gain that fits the round.
 * 1: placed, 0: none of MEND_TRIES fits (or the calls are spent), < 0 an
 * error.
 */
static int mend_pair(struct cov *c, size_t r, unsigned int x, unsigned int y)
{
	struct steer_cover *o = c->out;
	unsigned int xs[MEND_SIDE], ys[MEND_SIDE];
	size_t nx = mend_side(c, r, x, xs, MEND_SIDE), ny = mend_side(c, r, y, ys, MEND_SIDE), t = 0;

	for (size_t d = 0; d < nx + ny && t < MEND_TRIES; d++)
		for (size_t p = d < ny ? 0 : d - ny + 1; p <= d && p < nx && t < MEND_TRIES; p++) {
			unsigned int u = xs[p], v = ys[d - p], g;
			struct pair_route *pr = &o->extra[o->n_extra];
			size_t idx = c->n, ab, ba;
			long tag;

			if (had_partner(c, u, v))
				continue;
			if (o->mend_traced == STEER_COVER_MORE_MAX)
				return 0;
			t++;
			o->mend_traced++;
			memset(pr, 0, sizeof(*pr));
			tag = c->more(c->more_ctx, u < v ? u : v, u < v ? v : u, pr);
			c->cand[idx] = pr;
			if (tag < 0 || !pr->n_ab || !pr->n_ba || !best_opt(c, idx, true, &g, &ab, &ba)) {
				pair_route_fini(pr);
				if (tag < 0 && tag != -ENOENT)
					return (int)tag;
				continue;
			}
			if (u != x)
				filler_swap(c, filler_of(c, r, u), u, x);
			if (v != y)
				filler_swap(c, filler_of(c, r, v), v, y);
			o->extra_tag[o->n_extra++] = (uint32_t)tag;
			c->n++;
			if (place(c, idx, ab, ba) < 0)
				return -ENOMEM;
			move_last_to(c, r);
			c->busy[x] = c->busy[y] = true;
			return 1;
		}
	return 0;
}

/*
 * Step 7: per main round, each two hosts left free on two leaves (an odd
 * number free on each, no filler for the last) paired by mend_pair().
 */
static int mend(struct cov *c)
{
	struct steer_cover *o = c->out;
	unsigned int *fr;
	int rc = 0;

	/* many hosts free (the walk not run): new pairs would not close the rounds */
	for (size_t r = 0, nf = 0; r < o->s.n_rounds && r < c->k; r++)
		if ((nf += c->nh - 2 * (o->s.round_start[r + 1] - o->s.round_start[r])) > 2 * MEND_MAX)
			return 0;
	if (!(fr = malloc((c->nh + 1) * sizeof(*fr))))
		return -ENOMEM;
	for (size_t r = 0; rc >= 0 && r < o->s.n_rounds && r < c->k; r++) {
		size_t nf = 0;

		memset(c->busy, 0, c->nh * sizeof(*c->busy));
		round_load(c, r);
		for (size_t h = 0; h < c->nh; h++)
			if (!c->busy[h])
				fr[nf++] = (unsigned int)h;
		for (size_t i = 0; rc >= 0 && i < nf; i++)
			for (size_t j = i + 1; rc >= 0 && j < nf && !c->busy[fr[i]]; j++)
				if (o->n_extra < MEND_MAX && !c->busy[fr[j]] &&
				    c->r->hosts[fr[i]].leaf != c->r->hosts[fr[j]].leaf)
					rc = mend_pair(c, r, fr[i], fr[j]);
		loads_clear(c);
	}
	memset(c->busy, 0, c->nh * sizeof(*c->busy));
	free(fr);
	return rc < 0 ? rc : 0;
}

static int run(struct cov *c, bool *target)
{
	struct steer_cover *o = c->out;
	int rc = 0;

	for (size_t i = 0; i < c->n; i++) {
		const struct pair_route *p = c->cand[i];

		for (size_t x = 0; p && x < p->n_ab + p->n_ba; x++) {
			const struct path *pa = x < p->n_ab ? &p->ab[x] : &p->ba[x - p->n_ab];

			for (size_t h = 0; h < pa->n_hops; h++) {
				target[pa->hops[h].link] = true;
				c->supply[pa->hops[h].link]++;
			}
		}
		if (p) {
			c->adj_start[p->a + 1]++;
			c->adj_start[p->b + 1]++;
		}
	}
	for (size_t h = 0; h < c->nh; h++) {
		c->access[c->r->hosts[h].link] = target[c->r->hosts[h].link] = true;
		c->adj_start[h + 1] += c->adj_start[h];
	}
	{
		uint32_t *at = calloc(c->nh + 1, sizeof(*at));

		if (!at)
			return -ENOMEM;
		memcpy(at, c->adj_start, c->nh * sizeof(*at));
		for (size_t i = 0; i < c->n; i++)
			if (c->cand[i]) {
				c->adj[at[c->cand[i]->a]++] = (uint32_t)i;
				c->adj[at[c->cand[i]->b]++] = (uint32_t)i;
			}
		free(at);
	}
	o->s.round_start = calloc(1, sizeof(*o->s.round_start));
	if (!o->s.round_start)
		return -ENOMEM;
	for (size_t r = 0; r < c->max_rounds; r++) {
		bool main = r < c->k;
		size_t placed = 0;

		if (!main && !anything_short(c, target))
			break;
		/* an extra round serves the hosts still short first, then the links */
		if (!main && ((rc = step_hosts(c, main, &placed)) < 0 ||
			      (rc = step_fill(c, main, &placed)) < 0 ||
			      (rc = step_augment(c, main, &placed)) < 0))
			return rc;
		if ((rc = step_links(c, &placed)) < 0 || (rc = step_fill(c, main, &placed)) < 0 ||
		    (rc = step_hosts(c, main, &placed)) < 0 || (rc = step_augment(c, main, &placed)) < 0 ||
		    (rc = step_parity(c, main, &placed)) < 0 ||
		    (main && (rc = step_unpair(c, main, &placed)) < 0))
			return rc;
		if (!placed)
			break;
		if ((rc = round_end(c)) < 0)
			return rc;
		if (main)
			o->main_rounds++;
		if (r + 1 >= c->k && anything_short(c, target) && (rc = repair(c, target)) < 0)
			return rc;
		for (unsigned int w = 0; r + 1 == c->k && c->walk && w < ANN_WALKS &&
		     anything_short(c, target); w++)
			if ((rc = anneal(c, target, w)) < 0 ||
			    (anything_short(c, target) && (rc = repair(c, target)) < 0))
				return rc;
		if (r + 1 == c->k && c->more && anything_short(c, target) && (rc = mend(c)) < 0)
			return rc;
	}
	o->first_short_link = o->first_short_host = STEER_COVER_NONE;
	for (size_t l = 0; l < c->nl; l++) {
		o->links_target += target[l];
		o->links_unreached += !target[l];
		if (target[l] && o->cross[l] < c->k && !o->links_short++)
			o->first_short_link = (uint32_t)l;
	}
	for (size_t h = 0; h < c->nh; h++)
		if (o->host_pairs[h] < c->k && !o->hosts_short++)
			o->first_short_host = (uint32_t)h;
	return 0;
}

int steer_cover_pick(struct steer_cover *out, const struct route *r,
		     const struct steer_cover_req *req, const struct pair_route *const *cand,
		     size_t n, struct fab_err *err)
{
	struct steer_cover o = { 0 };
	struct cov c = { .r = r, .n = n, .k = req->k, .out = &o, .more = req->more,
			 .more_ctx = req->more_ctx, .max_rounds = req->max_rounds, .walk = req->walk };
	bool *target = NULL;
	int rc = check_in(r, req, cand, n, err);

	if (rc < 0)
		return rc;
	c.nl = r->n_links;
	c.nh = r->n_hosts;
	c.cand = calloc(n + MEND_MAX + 1, sizeof(*c.cand));
	if (c.cand)
		memcpy(c.cand, cand, n * sizeof(*cand));
	if (req->more) {
		o.extra = calloc(MEND_MAX, sizeof(*o.extra));
		o.extra_tag = calloc(MEND_MAX, sizeof(*o.extra_tag));
	}
	o.n_links = c.nl;
	o.n_hosts = c.nh;
	c.load = calloc(c.nl * 2 + 1, sizeof(*c.load));
	c.touched = calloc(c.nl * 2 + 1, sizeof(*c.touched));
	c.tmark = calloc(c.nl * 2 + 1, sizeof(*c.tmark));
	c.access = calloc(c.nl + 1, sizeof(*c.access));
	target = calloc(c.nl + 1, sizeof(*target));
	c.used = calloc(n + MEND_MAX + 1, sizeof(*c.used));
	c.busy = calloc(c.nh + 1, sizeof(*c.busy));
	c.adj_start = calloc(c.nh + 2, sizeof(*c.adj_start));
	c.adj = calloc(2 * n + 1, sizeof(*c.adj));
	c.partners = calloc(c.nh * c.max_rounds + 1, sizeof(*c.partners));
	c.order = calloc((n > c.nh ? n : c.nh) + MEND_MAX + 1, sizeof(*c.order));
	c.score = calloc(n + MEND_MAX + 1, sizeof(*c.score));
	c.supply = calloc(c.nl + 1, sizeof(*c.supply));
	c.fill_at = malloc((c.nh + 1) * sizeof(*c.fill_at));
	c.at = calloc(c.nh + 1, sizeof(*c.at));
	for (size_t h = 0; c.fill_at && h < c.nh; h++)
		c.fill_at[h] = SIZE_MAX;
	o.cross = calloc(c.nl + 1, sizeof(*o.cross));
	o.host_pairs = calloc(c.nh + 1, sizeof(*o.host_pairs));
	if (!c.cand || (req->more && (!o.extra || !o.extra_tag)) || !c.load || !c.touched || !c.tmark || !c.access || !target || !c.used || !c.busy || !c.adj_start ||
	    !c.adj || !c.partners || !c.order || !c.score || !c.fill_at || !c.at || !c.supply || !o.cross || !o.host_pairs)
		rc = -ENOMEM;
	if (rc == 0)
		rc = run(&c, target);
	free(c.cand);
	free(c.load);
	free(c.touched);
	free(c.tmark);
	free(c.access);
	free(target);
	free(c.used);
	free(c.busy);
	free(c.adj_start);
	free(c.adj);
	free(c.partners);
	free(c.order);
	free(c.score);
	free(c.fill_at);
	free(c.at);
	free(c.supply);
	if (rc < 0) {
		steer_cover_fini(&o);
		return fab_err_set(err, rc, "steer cover: out of memory");
	}
	*out = o;
	return 0;
}

void steer_cover_fini(struct steer_cover *c)
{
	if (!c)
		return;
	sched_fini(&c->s);
	free(c->pick);
	free(c->ab);
	free(c->ba);
	free(c->cross);
	free(c->host_pairs);
	for (size_t e = 0; e < c->n_extra; e++)
		pair_route_fini(&c->extra[e]);
	free(c->extra);
	free(c->extra_tag);
	memset(c, 0, sizeof(*c));
}
