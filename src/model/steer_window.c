// SPDX-License-Identifier: GPL-2.0-or-later
/* Steered rounds, window by window (steer_window.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/steer_window.h"

/* A pair's map while its window is packed, or while it waits; key 0: empty. */
struct went {
	uint64_t key;		/* sched_pair_key() + 1 */
	unsigned int a;		/* the pair's a as learned (its a -> b side) */
	struct steer_win_map m;
};

struct steer_window {
	struct route *r;
	struct sched_src *base;
	struct steer_win_ops ops;
	unsigned int ports;
	size_t flows_max, win_rounds;
	struct sched_src wsrc;		/* the packer's base: the window's rounds */
	struct sched_steer_stream *ss;
	struct sched_pair *wbuf;	/* the window's rounds */
	size_t *wstart;			/* win_rounds + 1 */
	size_t w_rounds, w_at;
	bool base_done;
	struct went *tab;		/* open addressing, linear probing */
	size_t cap, used;
	struct sched_pair *lp;		/* learn()'s pairs */
	struct steer_win_map *lm;	/* and maps */
	size_t *hflows;			/* per host, this window */
	struct steer_win_stats st;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ x >> 33;
}

static struct went *ent_find(const struct steer_window *w, unsigned int a, unsigned int b)
{
	uint64_t k = sched_pair_key(a, b) + 1;

	for (size_t i = hash64(k) & (w->cap - 1);; i = (i + 1) & (w->cap - 1)) {
		if (w->tab[i].key == k)
			return &w->tab[i];
		if (!w->tab[i].key)
			return NULL;
	}
}

static int tab_grow(struct steer_window *w);

static int ent_put(struct steer_window *w, unsigned int a, unsigned int b,
		   const struct steer_win_map *m)
{
	uint64_t k = sched_pair_key(a, b) + 1;
	size_t i;
	int rc;

	if ((w->used + 1) * 2 > w->cap && (rc = tab_grow(w)) < 0)
		return rc;
	for (i = hash64(k) & (w->cap - 1); w->tab[i].key && w->tab[i].key != k;
	     i = (i + 1) & (w->cap - 1))
		;
	w->used += !w->tab[i].key;
	w->tab[i] = (struct went){ .key = k, .a = a, .m = *m };
	if (w->used > w->st.maps_most)
		w->st.maps_most = w->used;
	return 0;
}

static int tab_grow(struct steer_window *w)
{
	size_t cap = w->cap * 2, old = w->cap;
	struct went *t = calloc(cap, sizeof(*t)), *o = w->tab;

	if (!t)
		return -ENOMEM;
	w->tab = t;
	w->cap = cap;
	w->used = 0;
	for (size_t i = 0; i < old; i++)
		if (o[i].key) {
			uint64_t k = o[i].key;
			size_t j = hash64(k) & (cap - 1);

			while (t[j].key)
				j = (j + 1) & (cap - 1);
			t[j] = o[i];
			w->used++;
		}
	free(o);
	return 0;
}

/* Remove @e (backward shift: the entries after it stay findable). */
static void ent_del(struct steer_window *w, struct went *e)
{
	size_t i = (size_t)(e - w->tab), j = i;

	w->tab[i].key = 0;
	w->used--;
	for (;;) {
		size_t home;

		j = (j + 1) & (w->cap - 1);
		if (!w->tab[j].key)
			return;
		home = hash64(w->tab[j].key) & (w->cap - 1);
		/* the entry at j may move to i when its home is not in (i, j] */
		if ((i < j && (home <= i || home > j)) || (i > j && home <= i && home > j)) {
			w->tab[i] = w->tab[j];
			w->tab[j].key = 0;
			i = j;
		}
	}
}

/* The distinct paths of one direction's traced ports, in port order; their number. */
static unsigned int dir_paths(const int16_t *of, unsigned int ports, uint16_t *out)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < ports; k++) {
		bool seen = false;

		if (of[k] < 0)
			continue;
		for (unsigned int i = 0; i < n && !seen; i++)
			seen = out[i] == (uint16_t)of[k];
		if (!seen)
			out[n++] = (uint16_t)of[k];
	}
	return n;
}

static bool cross(const struct steer_window *w, unsigned int a, unsigned int b)
{
	return w->r->hosts[a].leaf != w->r->hosts[b].leaf;
}

/* The map of a <-> b as seen from a (a -> b first); false: none, or it falls back. */
static bool map_of(const struct steer_window *w, unsigned int a, unsigned int b,
		   struct steer_win_map *m, uint8_t *fb)
{
	const struct went *e = ent_find(w, a, b);

	*fb = 0;
	if (!e)
		return false;
	*m = e->m;
	if (e->a != a) {
		memcpy(m->ab_of, e->m.ba_of, sizeof(m->ab_of));
		memcpy(m->ba_of, e->m.ab_of, sizeof(m->ba_of));
	}
	*fb = m->fb;
	return !m->fb;
}

/* Path @i of the pair's direction @dir (route_pair_nth(): nothing enumerated) into @out's @into. */
static int alt_path(struct steer_window *w, unsigned int a, unsigned int b, int dir, size_t i,
		    struct sched_steer_alts *out, int into)
{
	struct path p;
	int rc = route_pair_nth(w->r, a, b, dir, i, &p);

	for (size_t h = 0; rc == 0 && h < p.n_hops; h++)
		rc = sched_steer_alt_hop(out, into, p.hops[h].link, p.hops[h].fwd);
	return rc;
}

/* The packer's generator: the distinct paths the pair's traced ports take, or every path. */
static int win_alts(void *ctx, unsigned int a, unsigned int b, struct sched_steer_alts *out)
{
	struct steer_window *w = ctx;
	struct steer_win_map m;
	uint16_t pab[STEER_WIN_PORTS], pba[STEER_WIN_PORTS];
	unsigned int nab = 0, nba = 0, klass;
	struct route_info info;
	double n_paths;
	uint8_t fb;
	int rc = 0;

	if ((rc = route_pair_info(w->r, a, b, &info, &out->expected_mbps, &klass)) < 0)
		return rc;
	n_paths = info.n_paths;
	if (map_of(w, a, b, &m, &fb)) {
		nab = dir_paths(m.ab_of, w->ports, pab);
		nba = dir_paths(m.ba_of, w->ports, pba);
	} else if (!fb && cross(w, a, b) && !ent_find(w, a, b)) {
		return -ENOENT;		/* a cross-leaf pair no window learned */
	}
	for (unsigned int i = 0; i < nab && i < nba && rc == 0; i++)
		if (pab[i] >= n_paths)
			rc = -EINVAL;
	for (unsigned int i = 0; i < nba && nab && rc == 0; i++)
		if (pba[i] >= n_paths)
			rc = -EINVAL;
	if (rc < 0)
		return rc;
	if (nab && nba) {
		for (unsigned int i = 0; rc == 0 && i < nab; i++)
			if ((rc = sched_steer_alt_open(out, 0)) == 0)
				rc = alt_path(w, a, b, 0, pab[i], out, 0);
		for (unsigned int i = 0; rc == 0 && i < nba; i++)
			if ((rc = sched_steer_alt_open(out, 1)) == 0)
				rc = alt_path(w, a, b, 1, pba[i], out, 1);
		return rc;
	}
	/* whole: every hop of every path, in one a -> b alternative */
	out->whole = true;
	rc = sched_steer_alt_open(out, 0);
	for (int dir = 0; dir < 2; dir++)
		for (size_t x = 0; rc == 0 && x < n_paths; x++)
			rc = alt_path(w, a, b, dir, x, out, 0);
	return rc;
}

/* The next window: up to win_rounds base rounds, their cross-leaf pairs learned. */
static int window_fill(struct steer_window *w)
{
	size_t room = w->base->max_round, np = 0, n;
	int rc = 0;

	w->w_rounds = w->w_at = 0;
	w->wstart[0] = 0;
	while (!w->base_done && w->w_rounds < w->win_rounds) {
		rc = w->base->next(w->base, w->wbuf + w->wstart[w->w_rounds], &n);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			w->base_done = true;
			break;
		}
		if (n > room)
			return -EINVAL;
		w->wstart[w->w_rounds + 1] = w->wstart[w->w_rounds] + n;
		w->w_rounds++;
	}
	memset(w->hflows, 0, w->r->n_hosts * sizeof(*w->hflows));
	for (size_t i = 0; i < w->wstart[w->w_rounds]; i++) {
		const struct sched_pair *p = &w->wbuf[i];

		if (p->a >= w->r->n_hosts || p->b >= w->r->n_hosts || p->a == p->b)
			return -EINVAL;
		if (!cross(w, p->a, p->b))
			continue;
		w->hflows[p->a] += w->ports;
		w->hflows[p->b] += w->ports;
		if (w->hflows[p->a] > w->flows_max || w->hflows[p->b] > w->flows_max)
			return -EINVAL;		/* a host twice in a base round */
		w->lp[np++] = *p;
	}
	if (!np)
		return 0;
	memset(w->lm, 0, np * sizeof(*w->lm));
	for (size_t h = 0; h < w->r->n_hosts; h++)
		if (w->hflows[h] > w->st.most_host_flows)
			w->st.most_host_flows = w->hflows[h];
	w->st.windows++;
	if (np > w->st.most_pairs)
		w->st.most_pairs = np;
	if ((rc = w->ops.learn(w->ops.ctx, w->lp, np, w->lm)) < 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < np; i++)
		rc = ent_put(w, w->lp[i].a, w->lp[i].b, &w->lm[i]);
	return rc;
}

/* The packer's base: the window's rounds, the next window learned when they are spent. */
static int win_pull(struct sched_src *src, struct sched_pair *buf, size_t *n)
{
	struct steer_window *w = src->impl;
	int rc;

	*n = 0;
	if (w->w_at == w->w_rounds) {
		if (w->base_done)
			return 0;
		if ((rc = window_fill(w)) < 0)
			return rc;
		if (!w->w_rounds)
			return 0;
	}
	*n = w->wstart[w->w_at + 1] - w->wstart[w->w_at];
	memcpy(buf, w->wbuf + w->wstart[w->w_at], *n * sizeof(*buf));
	w->w_at++;
	return 1;
}

void steer_window_free(struct steer_window *w)
{
	if (!w)
		return;
	sched_steer_stream_free(w->ss);
	free(w->wbuf);
	free(w->wstart);
	free(w->tab);
	free(w->lp);
	free(w->lm);
	free(w->hflows);
	free(w);
}

int steer_window_new(struct steer_window **out, struct route *r, struct sched_src *base,
		     unsigned int ports, size_t flows_max, const struct steer_win_ops *ops)
{
	struct steer_window *w;
	struct sched_steer_gen gen;
	size_t win, room;
	int rc;

	if (!ports || ports > STEER_WIN_PORTS || flows_max < ports || !ops->learn || !base->next)
		return -EINVAL;
	if (!(w = calloc(1, sizeof(*w))))
		return -ENOMEM;
	win = flows_max / ports;
	room = base->max_round ? base->max_round : r->n_hosts / 2 + 1;
	*w = (struct steer_window){ .r = r, .base = base, .ops = *ops, .ports = ports,
				    .flows_max = flows_max, .win_rounds = win, .cap = 1024 };
	w->wsrc = (struct sched_src){ .next = win_pull, .impl = w, .n_rounds = base->n_rounds,
				      .n_pairs = base->n_pairs, .max_round = room };
	w->wbuf = calloc(win * room + 1, sizeof(*w->wbuf));
	w->wstart = calloc(win + 2, sizeof(*w->wstart));
	w->lp = calloc(win * room + 1, sizeof(*w->lp));
	w->lm = calloc(win * room + 1, sizeof(*w->lm));
	w->hflows = calloc(r->n_hosts + 1, sizeof(*w->hflows));
	w->tab = calloc(w->cap, sizeof(*w->tab));
	gen = (struct sched_steer_gen){ .alts = win_alts, .ctx = w };
	rc = !w->wbuf || !w->wstart || !w->lp || !w->lm || !w->hflows || !w->tab ? -ENOMEM
	     : sched_steer_stream_new(&w->ss, r, &w->wsrc, &gen);
	if (rc < 0) {
		steer_window_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

/* Pair @p's pick from its choice @c (its map then dropped). */
static void pick_make(struct steer_window *w, const struct sched_pair *p, uint32_t c,
		      struct steer_win_pick *pk)
{
	struct went *e = ent_find(w, p->a, p->b);
	struct steer_win_map m;
	uint16_t pab[STEER_WIN_PORTS], pba[STEER_WIN_PORTS];
	unsigned int nab, nba, xa = SCHED_STEER_AB(c), xb = SCHED_STEER_BA(c);
	uint8_t fb;

	*pk = (struct steer_win_pick){ 0 };
	if (c == SCHED_STEER_WHOLE || !map_of(w, p->a, p->b, &m, &fb)) {
		pk->fb = c == SCHED_STEER_WHOLE && e ? (e->m.fb ? e->m.fb : w->ops.no_fit)
						      : cross(w, p->a, p->b) ? w->ops.no_fit : 0;
		w->st.whole += cross(w, p->a, p->b);
	} else {
		nab = dir_paths(m.ab_of, w->ports, pab);
		nba = dir_paths(m.ba_of, w->ports, pba);
		if (xa < nab && xb < nba) {
			pk->steered = true;
			pk->ab = pab[xa];
			pk->ba = pba[xb];
			for (unsigned int k = 0; k < w->ports; k++) {
				pk->ab_ports |= (uint8_t)((m.ab_of[k] == (int16_t)pk->ab) << k);
				pk->ba_ports |= (uint8_t)((m.ba_of[k] == (int16_t)pk->ba) << k);
			}
			w->st.steered++;
		} else {
			pk->fb = w->ops.no_fit;
			w->st.whole++;
		}
	}
	if (e)
		ent_del(w, e);
}

int steer_window_next(struct steer_window *w, struct sched_pair *pairs, uint32_t *choice,
		      struct steer_win_pick *pick, size_t *n)
{
	int rc = sched_steer_stream_next(w->ss, pairs, choice, n);

	for (size_t i = 0; rc > 0 && i < *n; i++)
		pick_make(w, &pairs[i], choice[i], &pick[i]);
	return rc;
}

void steer_window_stats(const struct steer_window *w, struct steer_win_stats *st)
{
	*st = w->st;
	sched_steer_stream_stats(w->ss, &st->packer);
}
