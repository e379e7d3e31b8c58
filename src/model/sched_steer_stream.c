// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Steered rounds, streamed (sched_topo.h "Steered rounds, streamed"): each
 * round's pairs get their alternatives from the caller's generator as the
 * round is packed; nothing per pair outlives its round but a waiting
 * pair's two hosts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/sched_topo_impl.h"

#define SCHED_STEER_RESORT_MIN 65536

struct shop {
	uint32_t dl;		/* link * 2 + against */
	double d;		/* 1 / cap(L, e) */
};

/* A pair of the round being packed. */
struct rpair {
	unsigned int a, b;
	bool whole, wide;
	unsigned int n[2];
	uint32_t span[2][SCHED_STEER_ALTS][2];	/* into the round's hops */
	int cur[2];		/* placed: its alternatives; -1 none */
	uint32_t key;
	uint32_t w;		/* pairs its two hosts have waiting */
};

/* Rounds recorded (planned mode). */
struct srec {
	struct sched_pair *pairs;
	uint32_t *choice;
	size_t *starts;		/* n_rounds + 1 */
	size_t n_rounds, n, cap, cap_rounds;
};

struct sched_steer_stream {
	struct route *r;
	struct sched_src *base;
	struct sched_steer_gen gen;
	struct sched_steer_alts al;	/* the generator's scratch */
	struct rpair *rp;		/* this round's pairs */
	size_t n_rp, cap_rp;
	uint32_t *placed;		/* indices into rp, in placing order */
	size_t n_placed;
	struct shop *hops;		/* this round's alternatives' hops */
	size_t n_hops, cap_hops;
	double *load;			/* per directed link, this round */
	uint32_t *touched;
	size_t n_touched;
	uint8_t *tmark;
	uint32_t *stamp, gen_stamp;	/* per directed link: seen in the alternative being read */
	uint32_t *owner;		/* per directed link: rp index + 1 of its last pair */
	size_t moves;			/* pairs moved for the pair being placed */
	bool *busy;			/* per host, this round */
	struct sched_pair *buf;		/* a base round */
	uint32_t *order;
	struct sched_pair *wait;	/* pairs that fitted nowhere in their round */
	size_t n_wait, cap_wait;
	uint32_t *deg;			/* per host: pairs emitted */
	uint32_t *wdeg;			/* per host: pairs waiting */
	bool base_done;
	size_t rounds, base_rounds, moved, steered, whole, pairs;
	uint32_t wait_most;		/* the most pairs of one host waiting after the base rounds */
	uint32_t salt;			/* this attempt's tie-break */
	size_t sorted_at;		/* waiting pairs when last sorted (many: not every round) */
	/* few pairs: every round planned first, several attempts, the fewest kept */
	bool planned;
	struct srec best, cur, base_rec;	/* base_rec: the base's rounds (choice unused) */
	size_t replay;			/* base rounds replayed from base_rec; SIZE_MAX: from base */
	size_t emitted;
};

int sched_steer_alt_open(struct sched_steer_alts *al, int dir)
{
	if (al->n[dir] >= SCHED_STEER_ALTS)
		return -E2BIG;
	al->span[dir][al->n[dir]][0] = al->span[dir][al->n[dir]][1] = (uint32_t)al->n_dl;
	al->n[dir]++;
	return 0;
}

int sched_steer_alt_hop(struct sched_steer_alts *al, int dir, uint32_t link, bool fwd)
{
	if (!al->n[dir])
		return -EINVAL;
	if (al->n_dl == al->cap_dl) {
		size_t cap = al->cap_dl ? al->cap_dl * 2 : 256;
		uint32_t *p = realloc(al->dl, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		al->dl = p;
		al->cap_dl = cap;
	}
	al->dl[al->n_dl++] = link * 2 + !fwd;
	al->span[dir][al->n[dir] - 1][1] = (uint32_t)al->n_dl;
	return 0;
}

static void srec_fini(struct srec *r)
{
	free(r->pairs);
	free(r->choice);
	free(r->starts);
	memset(r, 0, sizeof(*r));
}

void sched_steer_stream_free(struct sched_steer_stream *s)
{
	if (!s)
		return;
	srec_fini(&s->best);
	srec_fini(&s->base_rec);
	srec_fini(&s->cur);
	free(s->al.dl);
	free(s->rp);
	free(s->placed);
	free(s->hops);
	free(s->load);
	free(s->touched);
	free(s->tmark);
	free(s->owner);
	free(s->stamp);
	free(s->busy);
	free(s->buf);
	free(s->order);
	free(s->wait);
	free(s->deg);
	free(s->wdeg);
	free(s);
}

int sched_steer_stream_new(struct sched_steer_stream **out, struct route *r, struct sched_src *base,
			   const struct sched_steer_gen *gen)
{
	struct sched_steer_stream *s = calloc(1, sizeof(*s));
	size_t dls = r->n_links * 2 + 1, room = r->n_hosts / 2 + 1;

	if (!s)
		return -ENOMEM;
	s->r = r;
	s->base = base;
	s->gen = *gen;
	s->cap_rp = room > base->max_round ? room : base->max_round + 1;
	s->rp = calloc(s->cap_rp, sizeof(*s->rp));
	s->placed = calloc(s->cap_rp, sizeof(*s->placed));
	s->load = calloc(dls, sizeof(*s->load));
	s->touched = calloc(dls, sizeof(*s->touched));
	s->tmark = calloc(dls, sizeof(*s->tmark));
	s->owner = calloc(dls, sizeof(*s->owner));
	s->stamp = calloc(dls, sizeof(*s->stamp));
	s->busy = calloc(r->n_hosts + 1, sizeof(*s->busy));
	s->buf = calloc(s->cap_rp, sizeof(*s->buf));
	s->order = calloc(s->cap_rp, sizeof(*s->order));
	s->deg = calloc(r->n_hosts + 1, sizeof(*s->deg));
	s->wdeg = calloc(r->n_hosts + 1, sizeof(*s->wdeg));
	if (!s->rp || !s->placed || !s->load || !s->touched || !s->tmark || !s->owner || !s->stamp ||
	    !s->busy || !s->buf ||
	    !s->order || !s->deg || !s->wdeg) {
		sched_steer_stream_free(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

static int hop_push(struct sched_steer_stream *s, uint32_t dl, double e)
{
	if (dl / 2 >= s->r->n_links)
		return -EINVAL;
	if (s->n_hops == s->cap_hops) {
		size_t cap = s->cap_hops ? s->cap_hops * 2 : 4096;
		struct shop *h = realloc(s->hops, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		s->hops = h;
		s->cap_hops = cap;
	}
	s->hops[s->n_hops++] = (struct shop){ .dl = dl, .d = 1.0 / sched_topo_cap(s->r, dl / 2, e) };
	return 0;
}

/* An alternative's hops, each directed link once (a whole set lists a link per path). */
static int alt_push(struct sched_steer_stream *s, const struct sched_steer_alts *al,
		    const uint32_t *span)
{
	int rc = 0;

	s->gen_stamp++;
	for (uint32_t h = span[0]; rc == 0 && h < span[1]; h++) {
		uint32_t dl = al->dl[h];

		if (dl / 2 >= s->r->n_links)
			return -EINVAL;
		if (s->stamp[dl] == s->gen_stamp)
			continue;
		s->stamp[dl] = s->gen_stamp;
		rc = hop_push(s, dl, al->expected_mbps);
	}
	return rc;
}

/* Pair a <-> b's alternatives from the generator into rp[n_rp] (pushed). */
static int pair_load(struct sched_steer_stream *s, unsigned int a, unsigned int b, bool wide)
{
	struct sched_steer_alts *al = &s->al;
	struct rpair *p = &s->rp[s->n_rp];
	int rc;

	if (a >= s->r->n_hosts || b >= s->r->n_hosts || a == b || s->n_rp >= s->cap_rp)
		return -EINVAL;
	al->n_dl = 0;
	al->n[0] = al->n[1] = 0;
	al->whole = false;
	al->wide = wide;
	al->expected_mbps = 0;
	if ((rc = s->gen.alts(s->gen.ctx, a, b, al)) < 0)
		return rc;
	if (!al->n[0] || (!al->whole && !al->n[1]))
		return -EINVAL;
	*p = (struct rpair){ .a = a, .b = b, .whole = al->whole, .wide = wide, .cur = { -1, -1 } };
	p->n[0] = al->n[0];
	p->n[1] = al->whole ? 0 : al->n[1];
	for (int d = 0; d < 2; d++)
		for (unsigned int k = 0; k < p->n[d]; k++) {
			p->span[d][k][0] = (uint32_t)s->n_hops;
			if ((rc = alt_push(s, al, al->span[d][k])) < 0)
				return rc;
			p->span[d][k][1] = (uint32_t)s->n_hops;
		}
	s->n_rp++;
	return 0;
}

static double alt_peak(const struct sched_steer_stream *s, const uint32_t *span)
{
	double peak = 0;

	for (uint32_t h = span[0]; h < span[1]; h++) {
		double v = s->load[s->hops[h].dl] + s->hops[h].d;

		peak = v > peak ? v : peak;
	}
	return peak;
}

static void alt_load(struct sched_steer_stream *s, const uint32_t *span, double sign,
		     const struct rpair *who)
{
	for (uint32_t h = span[0]; h < span[1]; h++) {
		uint32_t dl = s->hops[h].dl;

		if (!s->tmark[dl]) {
			s->tmark[dl] = 1;
			s->touched[s->n_touched++] = dl;
		}
		s->load[dl] += sign * s->hops[h].d;
		if (sign > 0)
			s->owner[dl] = (uint32_t)(who - s->rp) + 1;
	}
}

/* Direction @d's fitting alternative of @p with the lowest peak, not in @tried; -1 none. */
static int alt_best(const struct sched_steer_stream *s, const struct rpair *p, int d,
		    uint32_t tried)
{
	double best = 2;
	int at = -1;

	for (unsigned int k = 0; k < p->n[d]; k++) {
		double v;

		if (tried >> k & 1)
			continue;
		v = alt_peak(s, p->span[d][k]);
		if (v <= 1 + EPS && v < best - EPS) {
			best = v;
			at = (int)k;
		}
	}
	return at;
}

/* @p onto its best fitting alternatives (a -> b first): 1 placed, 0 not. */
static int try_place(struct sched_steer_stream *s, struct rpair *p)
{
	uint32_t tried = 0;
	int ab, ba;

	while ((ab = alt_best(s, p, 0, tried)) >= 0) {
		alt_load(s, p->span[0][ab], 1, p);
		ba = p->whole ? 0 : alt_best(s, p, 1, 0);
		if (ba >= 0) {
			if (!p->whole)
				alt_load(s, p->span[1][ba], 1, p);
			p->cur[0] = ab;
			p->cur[1] = p->whole ? -1 : ba;
			return 1;
		}
		alt_load(s, p->span[0][ab], -1, p);
		tried |= 1u << ab;
	}
	return 0;
}

static void unload(struct sched_steer_stream *s, const struct rpair *p, int ab, int ba)
{
	alt_load(s, p->span[0][ab], -1, p);
	if (ba >= 0)
		alt_load(s, p->span[1][ba], -1, p);
}

static void reload(struct sched_steer_stream *s, struct rpair *p, int ab, int ba)
{
	alt_load(s, p->span[0][ab], 1, p);
	if (ba >= 0)
		alt_load(s, p->span[1][ba], 1, p);
	p->cur[0] = ab;
	p->cur[1] = ba;
}

/* Does placed pair @q hold directed link @dl? */
static bool holds(const struct sched_steer_stream *s, const struct rpair *q, uint32_t dl)
{
	for (int d = 0; d < 2; d++) {
		if (q->cur[d] < 0)
			continue;
		for (uint32_t h = q->span[d][q->cur[d]][0]; h < q->span[d][q->cur[d]][1]; h++)
			if (s->hops[h].dl == dl)
				return true;
	}
	return false;
}

/* Placed pairs holding a hop that one of @p's alternatives would overfill: up to @room. */
static size_t blockers(const struct sched_steer_stream *s, const struct rpair *p, uint32_t *out,
		       size_t room)
{
	size_t n = 0;

	for (int d = 0; d < 2; d++)
		for (unsigned int k = 0; k < p->n[d]; k++)
			for (uint32_t h = p->span[d][k][0]; h < p->span[d][k][1] && n < room; h++) {
				uint32_t dl = s->hops[h].dl, q = s->owner[dl];
				bool dup = false;

				if (!q || s->load[dl] + s->hops[h].d <= 1 + EPS || &s->rp[q - 1] == p ||
				    s->rp[q - 1].cur[0] < 0 || !holds(s, &s->rp[q - 1], dl))
					continue;
				for (size_t i = 0; i < n && !dup; i++)
					dup = out[i] == q - 1;
				if (!dup)
					out[n++] = q - 1;
			}
	return n;
}

/*
 * No alternative of @p fits: move a placed pair that blocks one of them
 * to another of its alternatives, that pair's own blocker too when
 * @depth > 1 (an augmenting path, SCHED_STEER_SWAP_DEPTH long).  1 when
 * @p is placed; else every load as it was and @p not placed.
 */
static int try_move(struct sched_steer_stream *s, struct rpair *p, int depth)
{
	uint32_t cand[SCHED_STEER_BLOCKERS];
	size_t n = blockers(s, p, cand, SCHED_STEER_BLOCKERS);

	for (size_t i = 0; i < n; i++) {
		struct rpair *q = &s->rp[cand[i]];
		int ab = q->cur[0], ba = q->cur[1];

		if (q->whole || q->n[0] * q->n[1] < 2 || s->moves++ > SCHED_STEER_SWAPS)
			continue;
		unload(s, q, ab, ba);
		q->cur[0] = q->cur[1] = -1;
		if (try_place(s, p)) {
			if (try_place(s, q) || (depth > 1 && try_move(s, q, depth - 1)))
				return 1;
			unload(s, p, p->cur[0], p->cur[1]);
			p->cur[0] = p->cur[1] = -1;
		}
		reload(s, q, ab, ba);
	}
	return 0;
}

static int place(struct sched_steer_stream *s, size_t i)
{
	struct rpair *p = &s->rp[i];

	s->moves = 0;
	if (!try_place(s, p) && !try_move(s, p, SCHED_STEER_SWAP_DEPTH))
		return 0;
	s->placed[s->n_placed++] = (uint32_t)i;
	s->busy[p->a] = s->busy[p->b] = true;
	return 1;
}

static uint32_t mix(uint32_t i, uint32_t rd)
{
	uint32_t h = i * 2654435761u ^ (rd + 1) * 40503u;

	h ^= h >> 15;
	h *= 2246822519u;
	return h ^ h >> 13;
}

static unsigned int combos(const struct rpair *p)
{
	return p->whole ? 1 : p->n[0] * p->n[1];
}

static int order_cmp(const void *x, const void *y, void *arg)
{
	const struct rpair *rp = arg, *a = &rp[*(const uint32_t *)x], *b = &rp[*(const uint32_t *)y];

	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	if (combos(a) != combos(b))
		return combos(a) < combos(b) ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

static int wait_push(struct sched_steer_stream *s, unsigned int a, unsigned int b)
{
	if (s->n_wait == s->cap_wait) {
		size_t cap = s->cap_wait ? s->cap_wait * 2 : 1024;
		struct sched_pair *w = realloc(s->wait, cap * sizeof(*w));

		if (!w)
			return -ENOMEM;
		s->wait = w;
		s->cap_wait = cap;
	}
	s->wait[s->n_wait++] = (struct sched_pair){ .a = a, .b = b };
	s->wdeg[a]++;
	s->wdeg[b]++;
	return 0;
}

/* The placed pairs out, the round's state cleared. */
static void round_emit(struct sched_steer_stream *s, struct sched_pair *pairs, uint32_t *choice,
		       size_t *n)
{
	for (size_t k = 0; k < s->n_placed; k++) {
		const struct rpair *p = &s->rp[s->placed[k]];

		pairs[k] = (struct sched_pair){ .a = p->a, .b = p->b };
		choice[k] = p->whole ? SCHED_STEER_WHOLE : SCHED_STEER_CHOICE(p->cur[0], p->cur[1]) |
							   (p->wide ? SCHED_STEER_WIDE : 0);
		*(p->whole ? &s->whole : &s->steered) += 1;
		s->deg[p->a]++;
		s->deg[p->b]++;
		s->busy[p->a] = s->busy[p->b] = false;
	}
	*n = s->n_placed;
	s->pairs += s->n_placed;
	for (size_t k = 0; k < s->n_touched; k++) {
		s->load[s->touched[k]] = 0;
		s->tmark[s->touched[k]] = 0;
		s->owner[s->touched[k]] = 0;
	}
	s->n_touched = 0;
	s->n_placed = s->n_rp = s->n_hops = 0;
	s->rounds++;
}

/* One base round steered; its pairs that fit nowhere wait. */
static int base_round(struct sched_steer_stream *s, size_t k)
{
	int rc = 0;

	for (size_t i = 0; i < k; i++) {
		if (s->busy[s->buf[i].a] || s->busy[s->buf[i].b])
			return -EINVAL;
		s->busy[s->buf[i].a] = s->busy[s->buf[i].b] = true;
	}
	for (size_t i = 0; i < k; i++)
		s->busy[s->buf[i].a] = s->busy[s->buf[i].b] = false;
	for (size_t i = 0; rc == 0 && i < k; i++) {
		rc = pair_load(s, s->buf[i].a, s->buf[i].b, false);
		s->rp[i].w = s->wdeg[s->buf[i].a] + s->wdeg[s->buf[i].b];
		s->rp[i].key = mix(s->buf[i].a * 65599u ^ s->buf[i].b,
				   (uint32_t)s->rounds + s->salt * 7919u);
		s->order[i] = (uint32_t)i;
	}
	if (rc < 0)
		return rc;
	qsort_r(s->order, k, sizeof(*s->order), order_cmp, s->rp);
	for (size_t i = 0; rc == 0 && i < k; i++)
		if (!place(s, s->order[i]))
			rc = wait_push(s, s->rp[s->order[i]].a, s->rp[s->order[i]].b);
	s->moved += k - s->n_placed;
	return rc;
}

static int wait_cmp(const void *x, const void *y, void *arg)
{
	const struct sched_steer_stream *s = arg;
	const struct sched_pair *a = x, *b = y;
	uint32_t da = s->wdeg[a->a] + s->wdeg[a->b], db = s->wdeg[b->a] + s->wdeg[b->b];
	uint32_t ma = mix(a->a * 65599u ^ a->b, (uint32_t)s->rounds + s->salt * 7919u);
	uint32_t mb = mix(b->a * 65599u ^ b->b, (uint32_t)s->rounds + s->salt * 7919u);

	if (da != db)
		return da > db ? -1 : 1;
	if (ma != mb)
		return ma < mb ? -1 : 1;
	return a->a != b->a ? (a->a < b->a ? -1 : 1) : (a->b < b->b ? -1 : a->b > b->b);
}

/* One extra round from the waiting pairs, busiest hosts first. */
static int extra_round(struct sched_steer_stream *s)
{
	size_t kept = 0, room = s->r->n_hosts / 2;
	int rc = 0;

	/* Many waiting (all pairs of thousands of hosts): sorted again once 1/8 of them went. */
	if (s->n_wait <= SCHED_STEER_RESORT_MIN || s->n_wait * 8 < s->sorted_at * 7 ||
	    s->n_wait > s->sorted_at) {
		qsort_r(s->wait, s->n_wait, sizeof(*s->wait), wait_cmp, s);
		s->sorted_at = s->n_wait;
	}
	for (size_t i = 0; i < s->n_wait; i++) {
		struct sched_pair w = s->wait[i];
		size_t hops = s->n_hops;

		if (rc < 0 || s->n_placed >= room || s->busy[w.a] || s->busy[w.b]) {
			s->wait[kept++] = w;
			continue;
		}
		rc = pair_load(s, w.a, w.b, true);
		if (rc == 0 && place(s, s->n_rp - 1)) {
			s->wdeg[w.a]--;
			s->wdeg[w.b]--;
			continue;
		}
		if (rc == 0 && !s->n_placed)
			rc = -EINVAL;	/* fits no empty round: a hop it holds twice over its cap */
		s->n_rp--;	/* not placed: its alternatives go */
		s->n_hops = hops;
		s->wait[kept++] = w;
	}
	s->n_wait = kept;
	return rc;
}

static int srec_grow(struct srec *r, size_t room);

/* Few enough pairs to plan every round first, in several attempts. */
static bool plans(const struct sched_steer_stream *s)
{
	return s->base->n_pairs && s->base->n_pairs <= SCHED_STEER_DIRECT_MAX * 4;
}

/* The base's next round into s->buf (recorded while planning, or replayed). */
static int base_pull(struct sched_steer_stream *s, size_t *k)
{
	struct srec *b = &s->base_rec;
	int rc;

	if (s->replay != SIZE_MAX) {
		if (s->replay >= b->n_rounds)
			return 0;
		*k = b->starts[s->replay + 1] - b->starts[s->replay];
		memcpy(s->buf, b->pairs + b->starts[s->replay], *k * sizeof(*s->buf));
		s->replay++;
		return 1;
	}
	rc = s->base->next(s->base, s->buf, k);
	if (rc <= 0 || s->planned || !plans(s))
		return rc;
	if (srec_grow(b, *k) < 0)
		return -ENOMEM;
	memcpy(b->pairs + b->n, s->buf, *k * sizeof(*s->buf));
	b->starts[b->n_rounds] = b->n;
	b->n += *k;
	b->starts[++b->n_rounds] = b->n;
	return rc;
}

/* The next round from the base, then from the waiting pairs: 1, 0 none left, -errno. */
static int round_next(struct sched_steer_stream *s, struct sched_pair *pairs, uint32_t *choice,
		      size_t *n)
{
	size_t k = 0;
	int rc;

	*n = 0;
	while (!s->base_done) {
		rc = base_pull(s, &k);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			s->base_done = true;
			s->wait_most = 0;
			for (size_t h = 0; h < s->r->n_hosts; h++)
				s->wait_most = s->wdeg[h] > s->wait_most ? s->wdeg[h] : s->wait_most;
			break;
		}
		s->base_rounds++;
		if ((rc = base_round(s, k)) < 0)
			return rc;
		if (s->n_placed) {
			round_emit(s, pairs, choice, n);
			return 1;
		}
		s->n_rp = s->n_hops = 0;
	}
	if (!s->n_wait)
		return 0;
	if ((rc = extra_round(s)) < 0)
		return rc;
	round_emit(s, pairs, choice, n);
	return 1;
}

/* Room for one more round of up to @room pairs in @r. */
static int srec_grow(struct srec *r, size_t room)
{
	if (r->n + room > r->cap) {
		size_t cap = (r->n + room) * 2;
		struct sched_pair *p = realloc(r->pairs, cap * sizeof(*p));
		uint32_t *c = p ? realloc(r->choice, cap * sizeof(*c)) : NULL;

		if (p)
			r->pairs = p;
		if (!p || !c)
			return -ENOMEM;
		r->choice = c;
		r->cap = cap;
	}
	if (r->n_rounds + 2 > r->cap_rounds) {
		size_t cap = (r->n_rounds + 2) * 2;
		size_t *st = realloc(r->starts, cap * sizeof(*st));

		if (!st)
			return -ENOMEM;
		r->starts = st;
		r->cap_rounds = cap;
	}
	return 0;
}

/* Every round of one attempt into s->cur. */
static int attempt(struct sched_steer_stream *s)
{
	size_t room = s->cap_rp, n;
	int rc;

	s->cur.n = s->cur.n_rounds = 0;
	memset(s->deg, 0, (s->r->n_hosts + 1) * sizeof(*s->deg));
	s->steered = s->whole = s->pairs = s->rounds = 0;
	for (;;) {
		if ((rc = srec_grow(&s->cur, room)) < 0)
			return rc;
		s->cur.starts[s->cur.n_rounds] = s->cur.n;
		rc = round_next(s, s->cur.pairs + s->cur.n, s->cur.choice + s->cur.n, &n);
		if (rc <= 0)
			return rc;
		s->cur.n += n;
		s->cur.starts[++s->cur.n_rounds] = s->cur.n;
	}
}

/*
 * Few pairs: the base's packing, then SCHED_STEER_ATTEMPTS direct ones
 * (every pair waiting, busiest hosts first, each its own tie-break); the
 * fewest rounds kept, the counts made again over them.
 */
static size_t rec_bound(struct sched_steer_stream *s, const struct srec *r)
{
	struct sched_steer_stats st;

	memset(s->deg, 0, (s->r->n_hosts + 1) * sizeof(*s->deg));
	for (size_t i = 0; i < r->n; i++) {
		s->deg[r->pairs[i].a]++;
		s->deg[r->pairs[i].b]++;
	}
	s->pairs = r->n;
	sched_steer_stream_stats(s, &st);
	return st.node_bound;
}

static void rec_swap(struct srec *a, struct srec *b)
{
	struct srec t = *a;

	*a = *b;
	*b = t;
}

/*
 * Few pairs: the base's packing, then SCHED_STEER_ATTEMPTS more, odd ones
 * the base's rounds again in another order, even ones direct (every pair
 * waiting, busiest hosts first), each its own tie-break; the fewest rounds
 * kept (early at the node bound), the counts made again over them.
 */
static int plan(struct sched_steer_stream *s)
{
	size_t base_rounds, moved, bound;
	uint32_t wait_most;
	int rc;

	s->replay = SIZE_MAX;
	rc = attempt(s);
	base_rounds = s->base_rounds;
	moved = s->moved;
	wait_most = s->wait_most;
	s->planned = true;
	rec_swap(&s->best, &s->cur);
	bound = rec_bound(s, &s->best);
	for (uint32_t a = 1; rc == 0 && a <= SCHED_STEER_ATTEMPTS && s->best.n_rounds > bound; a++) {
		s->n_wait = 0;
		s->sorted_at = 0;
		memset(s->wdeg, 0, (s->r->n_hosts + 1) * sizeof(*s->wdeg));
		s->salt = a;
		s->base_done = !(a & 1);
		s->replay = 0;
		for (size_t i = 0; rc == 0 && !(a & 1) && i < s->best.n; i++)
			rc = wait_push(s, s->best.pairs[i].a, s->best.pairs[i].b);
		if (rc == 0)
			rc = attempt(s);
		if (rc == 0 && s->cur.n_rounds < s->best.n_rounds)
			rec_swap(&s->best, &s->cur);
	}
	s->base_rounds = base_rounds;
	s->moved = moved;
	s->wait_most = wait_most;
	rec_bound(s, &s->best);
	s->steered = s->whole = 0;
	for (size_t i = 0; rc == 0 && i < s->best.n; i++)
		*(s->best.choice[i] == SCHED_STEER_WHOLE ? &s->whole : &s->steered) += 1;
	s->rounds = s->best.n_rounds;
	return rc;
}

int sched_steer_stream_next(struct sched_steer_stream *s, struct sched_pair *pairs,
			    uint32_t *choice, size_t *n)
{
	const struct srec *b = &s->best;
	size_t r = s->emitted;
	int rc;

	if (!s->planned && plans(s) &&
	    (rc = plan(s)) < 0)
		return rc;
	if (!s->planned) {
		s->replay = SIZE_MAX;
		return round_next(s, pairs, choice, n);
	}
	*n = 0;
	if (r >= b->n_rounds)
		return 0;
	*n = b->starts[r + 1] - b->starts[r];
	memcpy(pairs, b->pairs + b->starts[r], *n * sizeof(*pairs));
	memcpy(choice, b->choice + b->starts[r], *n * sizeof(*choice));
	s->emitted++;
	return 1;
}

void sched_steer_stream_stats(const struct sched_steer_stream *s, struct sched_steer_stats *st)
{
	size_t most = 0, hosts = 0, per;

	memset(st, 0, sizeof(*st));
	st->base_rounds = s->base_rounds;
	st->extra_rounds = s->rounds > s->base_rounds ? s->rounds - s->base_rounds : 0;
	st->moved = s->moved;
	st->wait_most = s->wait_most;
	st->steered = s->steered;
	st->whole = s->whole;
	for (size_t h = 0; h < s->r->n_hosts; h++) {
		most = s->deg[h] > most ? s->deg[h] : most;
		hosts += s->deg[h] > 0;
	}
	per = hosts / 2 ? hosts / 2 : 1;
	per = (s->pairs + per - 1) / per;
	st->node_bound = per > most ? per : most;
}
