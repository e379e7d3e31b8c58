// SPDX-License-Identifier: GPL-2.0-or-later
/* Coverage on ECMP members: pairs, members and rounds together (steer_cover.h). */
#include <errno.h>
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
	const struct pair_route *const *cand;
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

static void path_take(struct cov *c, const struct pair_route *pr, const struct path *pa)
{
	for (size_t h = 0; h < pa->n_hops; h++) {
		uint32_t dl = dl_of(&pa->hops[h]);

		if (!c->tmark[dl]) {
			c->tmark[dl] = true;
			c->touched[c->n_touched++] = dl;
		}
		c->load[dl] += demand(c, pr, pa->hops[h].link);
		c->out->cross[pa->hops[h].link]++;
	}
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
	for (size_t t = 0; t < c->n_touched; t++) {
		c->load[c->touched[t]] = 0;
		c->tmark[c->touched[t]] = false;
	}
	c->n_touched = 0;
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
	struct cov c = { .r = r, .cand = cand, .n = n, .k = req->k, .out = &o,
			 .max_rounds = req->max_rounds };
	bool *target = NULL;
	int rc = check_in(r, req, cand, n, err);

	if (rc < 0)
		return rc;
	c.nl = r->n_links;
	c.nh = r->n_hosts;
	o.n_links = c.nl;
	o.n_hosts = c.nh;
	c.load = calloc(c.nl * 2 + 1, sizeof(*c.load));
	c.touched = calloc(c.nl * 2 + 1, sizeof(*c.touched));
	c.tmark = calloc(c.nl * 2 + 1, sizeof(*c.tmark));
	c.access = calloc(c.nl + 1, sizeof(*c.access));
	target = calloc(c.nl + 1, sizeof(*target));
	c.used = calloc(n + 1, sizeof(*c.used));
	c.busy = calloc(c.nh + 1, sizeof(*c.busy));
	c.adj_start = calloc(c.nh + 2, sizeof(*c.adj_start));
	c.adj = calloc(2 * n + 1, sizeof(*c.adj));
	c.partners = calloc(c.nh * c.max_rounds + 1, sizeof(*c.partners));
	c.order = calloc((n > c.nh ? n : c.nh) + 1, sizeof(*c.order));
	c.score = calloc(n + 1, sizeof(*c.score));
	c.supply = calloc(c.nl + 1, sizeof(*c.supply));
	c.fill_at = malloc((c.nh + 1) * sizeof(*c.fill_at));
	c.at = calloc(c.nh + 1, sizeof(*c.at));
	for (size_t h = 0; c.fill_at && h < c.nh; h++)
		c.fill_at[h] = SIZE_MAX;
	o.cross = calloc(c.nl + 1, sizeof(*o.cross));
	o.host_pairs = calloc(c.nh + 1, sizeof(*o.host_pairs));
	if (!c.load || !c.touched || !c.tmark || !c.access || !target || !c.used || !c.busy || !c.adj_start ||
	    !c.adj || !c.partners || !c.order || !c.score || !c.fill_at || !c.at || !c.supply || !o.cross || !o.host_pairs)
		rc = -ENOMEM;
	if (rc == 0)
		rc = run(&c, target);
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
	memset(c, 0, sizeof(*c));
}
