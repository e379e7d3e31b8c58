// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Link localisation (localize.h).
 *
 * Candidates are the links of the graph plus one "virtual" candidate per
 * host whose access link is unknown.  Each measured pair crosses a set of
 * candidates with a weight (the largest share of its traffic, in either
 * direction, that uses the candidate).  A set S of suspects costs
 *   lambda * |S| + contra_weight * sum over S of (weight of ok pairs crossing it)
 *   + number of bad pairs S does not cover,
 * and the cheapest S is chosen (exactly for few candidates, greedily
 * otherwise).  Candidates covering the same bad pairs at the same cost are
 * one class and are reported together.  docs/diagnose.md has the rest.
 *
 * This file: the cover (loc_localize(), loc_localize_more()) and the
 * result it fills.  The accumulator it reads is localize_acc.c; probes
 * localize_probe.c; counters localize_counters.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"
#include "model/localize_impl.h"
#include "model/stats.h"

void loc_cfg_default(struct loc_cfg *cfg)
{
	cfg->lambda = 0.5;
	cfg->contra_weight = 1.0;
	cfg->exact_max = 16;
}

static const char *const kind_names[] = { "link", "node", "group" };

const char *loc_kind_name(enum loc_kind k)
{
	return (unsigned int)k < 3 ? kind_names[k] : NULL;
}

static void suspect_fini(struct loc_suspect *s)
{
	free(s->members);
	free(s->counters);
	memset(s, 0, sizeof(*s));
}

void loc_result_fini(struct loc_result *r)
{
	for (size_t i = 0; i < r->n_suspects; i++)
		suspect_fini(&r->suspects[i]);
	free(r->suspects);
	memset(r, 0, sizeof(*r));
}

/*
 * Working state of one loc_localize() call, over an accumulator.  The
 * cover works on the bad pairs kept (all of them, or a uniform sample
 * when there were more than LOC_BAD_MAX: their counts are cbs, and the ok
 * pairs' weight is scaled by the same fraction f, as if every pair had
 * been sampled at that rate); the evidence and scores use every pair.
 */
struct loc_work {
	const struct loc_input *in;
	struct loc_cfg cfg;
	const struct loc_acc *acc;	/* candidates, crossings of every pair, bad pairs kept */
	unsigned int *cbs;	/* per candidate: kept bad pairs crossing it */
	double f;		/* kept / seen bad pairs (1 when all were kept) */
	size_t *bstart;		/* n_cand + 1: kept bad pair ids crossing candidate c */
	uint32_t *bad;		/* kept bad pair ids (index into the accumulator's bad pairs) */
};

static void work_fini(struct loc_work *w)
{
	free(w->bstart);
	free(w->bad);
	free(w->cbs);
}

static int work_build(struct loc_work *w, const struct loc_acc *acc)
{
	size_t *fill;

	w->acc = acc;
	w->f = acc->n_bad_total ? (double)acc->n_bad / (double)acc->n_bad_total : 1.0;
	w->bstart = calloc(acc->n_cand + 1, sizeof(*w->bstart));
	w->cbs = calloc(w->acc->n_cand ? w->acc->n_cand : 1, sizeof(*w->cbs));
	if (!w->bstart || !w->cbs)
		return -ENOMEM;
	for (size_t b = 0; b < w->acc->n_bad; b++)
		for (size_t j = 0; j < acc->bad[b].n; j++)
			w->cbs[acc->bad[b].cand[j]]++;
	/* Kept bad pairs per candidate (CSR). */
	for (size_t c = 0; c < w->acc->n_cand; c++)
		w->bstart[c + 1] = w->bstart[c] + w->cbs[c];
	w->bad = malloc((w->bstart[w->acc->n_cand] ? w->bstart[w->acc->n_cand] : 1) * sizeof(*w->bad));
	fill = calloc(w->acc->n_cand ? w->acc->n_cand : 1, sizeof(*fill));
	if (!w->bad || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t b = 0; b < w->acc->n_bad; b++) {
		const struct loc_bad *p = &acc->bad[b];

		for (size_t j = 0; j < p->n; j++) {
			uint32_t c = p->cand[j];

			w->bad[w->bstart[c] + fill[c]++] = (uint32_t)b;
		}
	}
	free(fill);
	return 0;
}

/* What the cover charges for naming @c: lambda, and the ok pairs crossing it. */
static double cand_cost(const struct loc_work *w, uint32_t c)
{
	return w->cfg.lambda + w->cfg.contra_weight * w->acc->g[c] * w->f;
}

/* A class: candidates covering the same bad pairs at the same cost. */
struct cls {
	uint32_t *cand;		/* owned */
	size_t n;
	uint32_t first;		/* representative */
	double gain0;		/* cb - lambda - contra_weight * g */
};

struct ckey {
	uint32_t cand;
	unsigned int cb;
	int64_t gq;		/* g quantised to 1e-6 */
	uint64_t hash;
	const struct loc_work *w;
};

static int ckey_cmp(const void *x, const void *y)
{
	const struct ckey *a = x, *b = y;

	if (a->cb != b->cb)
		return a->cb > b->cb ? -1 : 1;
	if (a->gq != b->gq)
		return a->gq < b->gq ? -1 : 1;
	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	int m = memcmp(a->w->bad + a->w->bstart[a->cand], b->w->bad + b->w->bstart[b->cand],
		       a->cb * sizeof(uint32_t));

	if (m)
		return m;
	return a->cand < b->cand ? -1 : a->cand > b->cand;
}

static bool ckey_same(const struct ckey *a, const struct ckey *b)
{
	return a->cb == b->cb && a->gq == b->gq && a->hash == b->hash &&
	       memcmp(a->w->bad + a->w->bstart[a->cand], b->w->bad + b->w->bstart[b->cand],
		      a->cb * sizeof(uint32_t)) == 0;
}

static void classes_free(struct cls *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].cand);
	free(v);
}

/* Classes of candidates with positive standalone gain, best first. */
static int classes_build(const struct loc_work *w, struct cls **out, size_t *n_out)
{
	struct ckey *k = malloc((w->acc->n_cand ? w->acc->n_cand : 1) * sizeof(*k));
	struct cls *v = NULL;
	size_t n = 0, nk = 0;
	int rc = -ENOMEM;

	if (!k)
		return -ENOMEM;
	for (size_t c = 0; c < w->acc->n_cand; c++) {
		double gain = w->cbs[c] - cand_cost(w, (uint32_t)c);
		uint64_t h = 1469598103934665603ull;

		if (!w->cbs[c] || gain <= 0)
			continue;
		for (size_t j = w->bstart[c]; j < w->bstart[c + 1]; j++)
			h = (h ^ w->bad[j]) * 1099511628211ull;
		k[nk++] = (struct ckey){ (uint32_t)c, w->cbs[c], llround(w->acc->g[c] * 1e6), h, w };
	}
	qsort(k, nk, sizeof(*k), ckey_cmp);
	v = calloc(nk ? nk : 1, sizeof(*v));
	if (!v)
		goto out;
	for (size_t i = 0; i < nk;) {
		size_t j = i + 1;

		while (j < nk && ckey_same(&k[i], &k[j]))
			j++;
		v[n].cand = malloc((j - i) * sizeof(uint32_t));
		if (!v[n].cand)
			goto out;
		for (size_t m = i; m < j; m++)
			v[n].cand[m - i] = k[m].cand;
		v[n].n = j - i;
		v[n].first = k[i].cand;
		v[n].gain0 = w->cbs[k[i].cand] - cand_cost(w, k[i].cand);
		n++;
		i = j;
	}
	*out = v;
	*n_out = n;
	v = NULL;
	rc = 0;
out:
	if (v)
		classes_free(v, n + 1);
	free(k);
	return rc;
}

/* Bitset of bad pairs. */
static size_t words(size_t bits)
{
	return (bits + 63) / 64;
}

static void bits_set_class(const struct loc_work *w, const struct cls *c, uint64_t *b)
{
	for (size_t j = w->bstart[c->first]; j < w->bstart[c->first + 1]; j++)
		b[w->bad[j] / 64] |= 1ull << (w->bad[j] % 64);
}

static size_t bits_count(const uint64_t *b, size_t nw)
{
	size_t n = 0;

	for (size_t i = 0; i < nw; i++)
		n += (size_t)__builtin_popcountll(b[i]);
	return n;
}

static double class_fixed_cost(const struct loc_work *w, const struct cls *c)
{
	return cand_cost(w, c->first);
}

/* Greedy cover: marks chosen[i]; returns the cost. */
static double cover_greedy(const struct loc_work *w, const struct cls *v, size_t n, bool *chosen,
			   uint64_t *covered)
{
	size_t nw = words(w->acc->n_bad);
	double cost = (double)w->acc->n_bad;

	memset(covered, 0, nw * sizeof(*covered));
	for (;;) {
		double best = 0;
		size_t bi = n;

		for (size_t i = 0; i < n; i++) {
			size_t fresh = 0;

			if (chosen[i])
				continue;
			for (size_t j = w->bstart[v[i].first]; j < w->bstart[v[i].first + 1]; j++) {
				uint32_t b = w->bad[j];

				fresh += !(covered[b / 64] & (1ull << (b % 64)));
			}
			double gain = (double)fresh - class_fixed_cost(w, &v[i]);

			if (gain > best + 1e-12) {
				best = gain;
				bi = i;
			}
		}
		if (bi == n)
			break;
		chosen[bi] = true;
		bits_set_class(w, &v[bi], covered);
		cost -= best;
	}
	return cost;
}

struct exact {
	const struct loc_work *w;
	const struct cls *v;
	size_t n, nw;
	uint64_t *stack;	/* (n + 1) * nw */
	bool *cur, *best;
	double best_cost;
	size_t best_size, cur_size;
};

static void exact_dfs(struct exact *e, size_t i, double fixed)
{
	uint64_t *b = e->stack + i * e->nw;

	if (i == e->n) {
		double cost = fixed + (double)(e->w->acc->n_bad - bits_count(b, e->nw));

		if (cost < e->best_cost - 1e-9 ||
		    (cost < e->best_cost + 1e-9 && e->cur_size < e->best_size)) {
			e->best_cost = cost;
			e->best_size = e->cur_size;
			memcpy(e->best, e->cur, e->n * sizeof(bool));
		}
		return;
	}
	uint64_t *nb = b + e->nw;

	memcpy(nb, b, e->nw * sizeof(*b));
	e->cur[i] = false;
	exact_dfs(e, i + 1, fixed);
	memcpy(nb, b, e->nw * sizeof(*b));
	bits_set_class(e->w, &e->v[i], nb);
	e->cur[i] = true;
	e->cur_size++;
	exact_dfs(e, i + 1, fixed + class_fixed_cost(e->w, &e->v[i]));
	e->cur_size--;
	e->cur[i] = false;
}

/* Exact search; replaces @chosen when strictly cheaper (or as cheap with fewer suspects). */
static int cover_exact(const struct loc_work *w, const struct cls *v, size_t n, bool *chosen,
		       double greedy_cost)
{
	struct exact e = { w, v, n, words(w->acc->n_bad), NULL, NULL, NULL, greedy_cost, 0, 0 };
	int rc = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		e.best_size += chosen[i];
	e.stack = calloc((n + 1) * (e.nw ? e.nw : 1), sizeof(uint64_t));
	e.cur = calloc(n ? n : 1, sizeof(bool));
	e.best = calloc(n ? n : 1, sizeof(bool));
	if (!e.stack || !e.cur || !e.best)
		goto out;
	memcpy(e.best, chosen, n * sizeof(bool));
	exact_dfs(&e, 0, 0);
	memcpy(chosen, e.best, n * sizeof(bool));
	rc = 0;
out:
	free(e.stack);
	free(e.cur);
	free(e.best);
	return rc;
}

/* Host whose access link (or virtual candidate) is @c; -1 none. */
static int cand_host(const struct loc_input *in, uint32_t c)
{
	if (c >= in->topo->n_links)
		return (int)(c - in->topo->n_links);
	for (size_t h = 0; h < in->n_hosts; h++)
		if (in->host_link && in->host_link[h] == c)
			return (int)h;
	return -1;
}

/*
 * @c as a suspect; @alt (n_alt candidates) are the other classes' that
 * explain the bad pairs only @c explains as well, at no more cost
 * (alternatives()): members after @c's, the suspect a group.
 */
static int suspect_from_class(const struct loc_work *w, const struct cls *c, const uint32_t *alt,
			      size_t n_alt, struct loc_suspect *s)
{
	const struct loc_input *in = w->in;
	uint32_t f = c->first;
	double *pct = malloc((w->cbs[f] ? w->cbs[f] : 1) * sizeof(double));
	size_t npct = 0;

	memset(s, 0, sizeof(*s));
	s->members = calloc(c->n + n_alt, sizeof(*s->members));
	if (!s->members || !pct) {
		free(pct);
		return -ENOMEM;
	}
	s->n_members = c->n + n_alt;
	for (size_t i = 0; i < s->n_members; i++) {
		uint32_t cand = i < c->n ? c->cand[i] : alt[i - c->n];

		s->members[i].link = cand < in->topo->n_links ? cand : LOC_NO_LINK;
		s->members[i].host = cand_host(in, cand);
	}
	if (s->n_members > 1)
		s->kind = LOC_KIND_GROUP;
	else
		s->kind = s->members[0].host >= 0 ? LOC_KIND_NODE : LOC_KIND_LINK;
	s->ev.cross_bad = w->acc->cb[f];
	s->ev.cross_n = w->acc->cn[f];
	s->ev.cross_failed = w->acc->cf[f];
	s->ev.other_bad = (unsigned int)w->acc->n_bad_all - w->acc->cb[f];
	s->ev.other_n = w->acc->n_measured - w->acc->cn[f];
	for (size_t j = w->bstart[f]; j < w->bstart[f + 1]; j++) {
		const struct loc_bad *p = &w->acc->bad[w->bad[j]];

		if (p->verdict == LOC_SLOW && p->pct >= 0)
			pct[npct++] = p->pct;
	}
	s->ev.cross_pct_median = npct ? stats_median(pct, npct) : -1;
	free(pct);
	double cons = w->acc->cb[f] / (w->acc->cb[f] + w->acc->g[f]);

	s->traffic_score = cons * (1.0 - ldexp(1.0, -(int)(w->acc->cb[f] > 60 ? 60 : w->acc->cb[f])));
	s->score = s->traffic_score;
	if (s->kind == LOC_KIND_NODE && w->acc->cf[f] == w->acc->cn[f]) {
		s->all_failed = true;
		str_fmt(s->note, sizeof(s->note),
			 "every pair of this node failed: the node or its worker, not a path");
	} else if (s->kind == LOC_KIND_GROUP && n_alt) {
		str_fmt(s->note, sizeof(s->note),
			 "one of %zu links: they explain the same bad pairs as well as each other",
			 s->n_members);
	} else if (s->kind == LOC_KIND_GROUP) {
		str_fmt(s->note, sizeof(s->note),
			 "one of %zu links: the measured pairs cannot tell them apart", c->n);
	}
	return 0;
}

/*
 * Alternatives to chosen class @i: the candidates of every other class
 * whose bad pairs include each bad pair that only @i, of the chosen,
 * explains, at no more cost than @i.  (An access fault behind a faulty
 * uplink: the uplink explains the host's other pairs, and the one pair it
 * had with its leaf-mate is explained as well by either host's access
 * link; naming one would blame an innocent host by a tie.)  Into a new
 * array *@out (*@n; NULL, 0 when none).  -ENOMEM.
 */
static int alternatives(const struct loc_work *w, const struct cls *v, size_t nv,
			const bool *chosen, const unsigned int *n_cover, size_t i, unsigned int *mark,
			uint32_t **out, size_t *n)
{
	uint32_t f = v[i].first;
	size_t n_only = 0, k = 0;
	uint32_t *alt = NULL;

	*out = NULL;
	*n = 0;
	for (size_t j = w->bstart[f]; j < w->bstart[f + 1]; j++)
		if (n_cover[w->bad[j]] == 1) {
			mark[w->bad[j]] = (unsigned int)i + 1;
			n_only++;
		}
	if (!n_only)
		return 0;
	for (size_t c = 0; c < nv; c++) {
		size_t hit = 0;
		uint32_t g = v[c].first;

		if (c == i || chosen[c] || w->cbs[g] < n_only ||
		    class_fixed_cost(w, &v[c]) > class_fixed_cost(w, &v[i]) + 1e-9)
			continue;
		for (size_t j = w->bstart[g]; j < w->bstart[g + 1]; j++)
			hit += mark[w->bad[j]] == (unsigned int)i + 1;
		if (hit < n_only)
			continue;
		uint32_t *t = realloc(alt, (k + v[c].n) * sizeof(*t));

		if (!t) {
			free(alt);
			return -ENOMEM;
		}
		alt = t;
		memcpy(alt + k, v[c].cand, v[c].n * sizeof(*alt));
		k += v[c].n;
	}
	*out = alt;
	*n = k;
	return 0;
}

int suspect_cmp(const void *x, const void *y)
{
	const struct loc_suspect *a = x, *b = y;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	if (a->ev.cross_bad != b->ev.cross_bad)
		return a->ev.cross_bad > b->ev.cross_bad ? -1 : 1;
	return a->members[0].link < b->members[0].link ? -1 : a->members[0].link > b->members[0].link;
}

int loc_localize(const struct loc_input *in, const struct loc_cfg *cfg, struct loc_result *out,
		 struct fab_err *err)
{
	struct loc_work w = { .in = in };
	struct loc_result r = { 0 };
	struct loc_acc *acc, *own;
	struct cls *v = NULL;
	size_t nv = 0;
	bool *chosen = NULL;
	uint64_t *covered = NULL;
	unsigned int *n_cover = NULL, *mark = NULL;
	int rc = acc_of(in, &acc, &own, err);

	if (rc)
		return rc;
	if (cfg)
		w.cfg = *cfg;
	else
		loc_cfg_default(&w.cfg);
	rc = work_build(&w, acc);
	if (rc)
		goto out;
	r.n_bad = (unsigned int)acc->n_bad_all;
	r.n_measured = acc->n_measured;
	rc = classes_build(&w, &v, &nv);
	if (rc)
		goto out;
	rc = -ENOMEM;
	chosen = calloc(nv ? nv : 1, sizeof(*chosen));
	covered = calloc(words(acc->n_bad) ? words(acc->n_bad) : 1, sizeof(*covered));
	if (!chosen || !covered)
		goto out;
	double cost = cover_greedy(&w, v, nv, chosen, covered);

	if (nv <= w.cfg.exact_max) {
		rc = cover_exact(&w, v, nv, chosen, cost);
		if (rc)
			goto out;
		rc = -ENOMEM;
	}
	size_t n_chosen = 0;

	memset(covered, 0, words(acc->n_bad) * sizeof(*covered));
	for (size_t i = 0; i < nv; i++)
		if (chosen[i]) {
			n_chosen++;
			bits_set_class(&w, &v[i], covered);
		}
	/* Over a sample: its share of unexplained pairs, of all of them. */
	r.n_unexplained = (unsigned int)llround(
		(double)(acc->n_bad - bits_count(covered, words(acc->n_bad))) / (w.f > 0 ? w.f : 1));
	r.suspects = calloc(n_chosen ? n_chosen : 1, sizeof(*r.suspects));
	n_cover = calloc(acc->n_bad ? acc->n_bad : 1, sizeof(*n_cover));
	mark = calloc(acc->n_bad ? acc->n_bad : 1, sizeof(*mark));
	if (!r.suspects || !n_cover || !mark)
		goto out;
	for (size_t i = 0; i < nv; i++)
		for (size_t j = w.bstart[v[i].first]; chosen[i] && j < w.bstart[v[i].first + 1]; j++)
			n_cover[w.bad[j]]++;
	for (size_t i = 0; i < nv; i++) {
		uint32_t *alt;
		size_t n_alt;

		if (!chosen[i])
			continue;
		rc = alternatives(&w, v, nv, chosen, n_cover, i, mark, &alt, &n_alt);
		if (rc == 0)
			rc = suspect_from_class(&w, &v[i], alt, n_alt, &r.suspects[r.n_suspects]);
		free(alt);
		if (rc)
			goto out;
		r.n_suspects++;
	}
	qsort(r.suspects, r.n_suspects, sizeof(*r.suspects), suspect_cmp);
	*out = r;
	memset(&r, 0, sizeof(r));
	rc = 0;
out:
	if (rc == -ENOMEM)
		fab_err_set(err, rc, "localize: out of memory");
	loc_result_fini(&r);
	classes_free(v, nv);
	free(chosen);
	free(covered);
	free(n_cover);
	free(mark);
	work_fini(&w);
	loc_acc_free(own);
	return rc;
}

static bool member_in(const struct loc_result *r, const struct loc_member *m)
{
	for (size_t i = 0; i < r->n_suspects; i++)
		for (size_t k = 0; k < r->suspects[i].n_members; k++)
			if (r->suspects[i].members[k].link == m->link &&
			    r->suspects[i].members[k].host == m->host)
				return true;
	return false;
}

int loc_localize_more(const struct loc_input *in, const struct loc_cfg *cfg, struct loc_result *r,
		      struct fab_err *err)
{
	struct loc_result more = { 0 };
	struct loc_suspect *v;
	size_t n = 0;
	int rc = loc_localize(in, cfg, &more, err);

	if (rc)
		return rc;
	v = realloc(r->suspects, (r->n_suspects + more.n_suspects + 1) * sizeof(*v));
	if (!v) {
		loc_result_fini(&more);
		return fab_err_set(err, -ENOMEM, "localize: out of memory");
	}
	r->suspects = v;
	for (size_t i = 0; i < more.n_suspects; i++) {
		if (member_in(r, &more.suspects[i].members[0])) {
			suspect_fini(&more.suspects[i]);
			continue;
		}
		r->suspects[r->n_suspects + n++] = more.suspects[i];
	}
	r->n_suspects += n;
	r->n_unexplained = more.n_unexplained;
	free(more.suspects);
	qsort(r->suspects, r->n_suspects, sizeof(*r->suspects), suspect_cmp);
	return 0;
}
