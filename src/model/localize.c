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
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/str.h"
#include "model/localize.h"
#include "model/ptr_index.h"
#include "model/schedule.h"
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

void loc_probes_fini(struct loc_probes *p)
{
	for (size_t i = 0; i < p->n; i++)
		pair_route_fini(&p->routes[i]);
	free(p->routes);
	free(p->masks);
	memset(p, 0, sizeof(*p));
}

static bool is_bad(enum loc_verdict v)
{
	return v == LOC_SLOW || v == LOC_FAILED;
}

/* One candidate crossed by one pair. */
struct cross {
	uint32_t cand;
	double w;
};

static int cross_cmp(const void *x, const void *y)
{
	const struct cross *a = x, *b = y;

	return a->cand < b->cand ? -1 : a->cand > b->cand;
}

/* A bad pair as the accumulator keeps it: the candidates it crosses (owned). */
struct loc_bad {
	unsigned int a, b;
	enum loc_verdict verdict;
	double pct;
	uint32_t *cand;
	size_t n;
};

/* Hosts up to this many: the measured pairs are a bitmap (4096 hosts: 1 MiB), else a key list. */
#define LOC_SEEN_BITMAP_HOSTS 8192

struct loc_acc {
	const struct topo *topo;
	const uint32_t *host_link;
	size_t n_hosts, n_cand;
	unsigned int *cb, *cn, *cf;	/* per candidate: bad, measured, failed crossing (all pairs) */
	double *g;			/* per candidate: weight of ok pairs crossing */
	struct loc_bad *bad;		/* the bad pairs kept: all, or a uniform sample of LOC_BAD_MAX */
	size_t n_bad;			/* kept */
	size_t n_bad_total;		/* offered to the sample (all, or the residual pass's) */
	size_t n_bad_all;		/* every bad pair added */
	uint8_t *explained;		/* residual pass: per candidate, a suspect's member */
	struct stats_reservoir res;
	struct cross *scratch;
	size_t cap_scratch;
	unsigned int n_measured;
	uint64_t *seen;			/* bitmap of measured pairs, or NULL: keys */
	uint64_t *keys;
	size_t n_keys, cap_keys;
	bool keys_sorted;
};

/* Candidate index of host @h: its access link, else its virtual candidate. */
static uint32_t acc_host_cand(const struct loc_acc *acc, unsigned int h)
{
	uint32_t l = acc->host_link ? acc->host_link[h] : LOC_NO_LINK;

	return l != LOC_NO_LINK ? l : (uint32_t)(acc->topo->n_links + h);
}

static size_t route_hops(const struct pair_route *r)
{
	size_t n = 0;

	for (size_t i = 0; r && i < r->n_ab; i++)
		n += r->ab[i].n_hops;
	for (size_t i = 0; r && i < r->n_ba; i++)
		n += r->ba[i].n_hops;
	return n;
}

/* Direction @dir's weights into @v (entries tagged by dir in w sign); returns count. */
static size_t dir_add(const struct path *p, size_t n, struct cross *v, size_t k, uint32_t n_links)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += p[i].share;
	for (size_t i = 0; i < n; i++) {
		double s = sum > 0 ? p[i].share : 1.0 / (double)n;

		for (size_t h = 0; h < p[i].n_hops; h++)
			if (p[i].hops[h].link < n_links)
				v[k++] = (struct cross){ p[i].hops[h].link, s };
	}
	return k;
}

/* Merge entries of one direction [from, to) by candidate, summing shares; returns new end. */
static size_t merge_sum(struct cross *v, size_t from, size_t to)
{
	size_t o = from;

	qsort(v + from, to - from, sizeof(*v), cross_cmp);
	for (size_t i = from; i < to; i++) {
		if (o > from && v[o - 1].cand == v[i].cand)
			v[o - 1].w += v[i].w;
		else
			v[o++] = v[i];
	}
	return o;
}

/* Add both hosts' candidates (weight 1), sort, merge by the larger weight, cap at 1. */
static size_t crossings_close(const struct loc_acc *acc, unsigned int a, unsigned int b,
			      struct cross *v, size_t k)
{
	size_t o = 0;

	v[k++] = (struct cross){ acc_host_cand(acc, a), 1.0 };
	v[k++] = (struct cross){ acc_host_cand(acc, b), 1.0 };
	qsort(v, k, sizeof(*v), cross_cmp);
	for (size_t i = 0; i < k; i++) {
		double w = v[i].w > 1.0 ? 1.0 : v[i].w;

		if (o && v[o - 1].cand == v[i].cand) {
			if (w > v[o - 1].w)
				v[o - 1].w = w;
		} else {
			v[o] = v[i];
			v[o++].w = w;
		}
	}
	return o;
}

/*
 * The candidates pair a-b crosses on route @r (NULL: none), with weights,
 * into @v (room for route_hops(r) + 2 entries); returns how many.  Weight:
 * the larger of the two directions' shares, at most 1; access links and
 * virtual hosts 1.
 */
static size_t pair_crossings(const struct loc_acc *acc, unsigned int a, unsigned int b,
			     const struct pair_route *r, struct cross *v)
{
	uint32_t nl = (uint32_t)acc->topo->n_links;
	size_t k = 0, mid;

	if (r) {
		k = dir_add(r->ab, r->n_ab, v, 0, nl);
		k = merge_sum(v, 0, k);
		mid = k;
		k = dir_add(r->ba, r->n_ba, v, k, nl);
		k = merge_sum(v, mid, k);
	}
	return crossings_close(acc, a, b, v, k);
}

/*
 * The same from (link, share) items, each link once (one direction's
 * loads; routes are symmetric), without sorting: a fat tree's pair has
 * hundreds, and an all-pairs sweep millions of pairs.
 */
static size_t load_crossings(const struct loc_acc *acc, unsigned int a, unsigned int b,
			     const struct route_load *items, size_t n, struct cross *v)
{
	uint32_t host[2] = { acc_host_cand(acc, a), acc_host_cand(acc, b) };
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (items[i].link >= acc->topo->n_links)
			continue;
		v[k++] = (struct cross){ items[i].link, items[i].share > 1.0 ? 1.0 : items[i].share };
		for (int e = 0; e < 2; e++)
			if (host[e] == items[i].link) {
				v[k - 1].w = 1.0;
				host[e] = UINT32_MAX;
			}
	}
	for (int e = 0; e < 2; e++)
		if (host[e] != UINT32_MAX && (e == 0 || host[1] != host[0]))
			v[k++] = (struct cross){ host[e], 1.0 };
	return k;
}

/* Bit of pair a-b (a != b) in the triangle of n hosts. */
static size_t pair_bit(size_t n, unsigned int a, unsigned int b)
{
	size_t lo = a < b ? a : b, hi = a < b ? b : a;

	return lo * (2 * n - lo - 1) / 2 + (hi - lo - 1);
}

int loc_acc_new(struct loc_acc **out, const struct loc_input *in)
{
	struct loc_acc *acc = calloc(1, sizeof(*acc));
	size_t nb = in->n_hosts * (in->n_hosts ? in->n_hosts - 1 : 0) / 2;

	if (!acc)
		return -ENOMEM;
	acc->topo = in->topo;
	acc->host_link = in->host_link;
	acc->n_hosts = in->n_hosts;
	acc->n_cand = in->topo->n_links + in->n_hosts;
	acc->cb = calloc(acc->n_cand ? acc->n_cand : 1, sizeof(*acc->cb));
	acc->cn = calloc(acc->n_cand ? acc->n_cand : 1, sizeof(*acc->cn));
	acc->cf = calloc(acc->n_cand ? acc->n_cand : 1, sizeof(*acc->cf));
	acc->g = calloc(acc->n_cand ? acc->n_cand : 1, sizeof(*acc->g));
	acc->bad = calloc(LOC_BAD_MAX, sizeof(*acc->bad));
	stats_reservoir_init(&acc->res, LOC_BAD_MAX, 0xbad0bad0ull);
	if (in->n_hosts <= LOC_SEEN_BITMAP_HOSTS)
		acc->seen = calloc((nb + 63) / 64 + 1, sizeof(*acc->seen));
	if (!acc->cb || !acc->cn || !acc->cf || !acc->g || !acc->bad ||
	    (in->n_hosts <= LOC_SEEN_BITMAP_HOSTS && !acc->seen)) {
		loc_acc_free(acc);
		return -ENOMEM;
	}
	*out = acc;
	return 0;
}

void loc_acc_free(struct loc_acc *acc)
{
	if (!acc)
		return;
	free(acc->cb);
	free(acc->cn);
	free(acc->cf);
	free(acc->g);
	for (size_t i = 0; acc->bad && i < acc->n_bad; i++)
		free(acc->bad[i].cand);
	free(acc->bad);
	free(acc->scratch);
	free(acc->seen);
	free(acc->keys);
	free(acc->explained);
	free(acc);
}

static int acc_seen_add(struct loc_acc *acc, unsigned int a, unsigned int b)
{
	if (acc->seen) {
		size_t bit = pair_bit(acc->n_hosts, a, b);

		acc->seen[bit / 64] |= 1ull << (bit % 64);
		return 0;
	}
	if (array_reserve((void **)&acc->keys, &acc->cap_keys, acc->n_keys + 1, sizeof(*acc->keys)) < 0)
		return -ENOMEM;
	acc->keys[acc->n_keys++] = sched_pair_key(a, b);
	acc->keys_sorted = false;
	return 0;
}

/* Was pair a-b measured (any verdict but unknown)? */
static bool acc_seen(struct loc_acc *acc, unsigned int a, unsigned int b)
{
	uint64_t key;

	if (acc->seen) {
		size_t bit = pair_bit(acc->n_hosts, a, b);

		return acc->seen[bit / 64] & (1ull << (bit % 64));
	}
	if (!acc->keys_sorted) {
		qsort(acc->keys, acc->n_keys, sizeof(*acc->keys), array_cmp_u64);
		acc->keys_sorted = true;
	}
	key = sched_pair_key(a, b);
	return bsearch(&key, acc->keys, acc->n_keys, sizeof(key), array_cmp_u64) != NULL;
}

/* Count one measured pair's @n crossings in acc->scratch; keep them when it is bad. */
/* Keep bad pair a-b's @n crossings (acc->scratch) in the sample, or not. */
static int acc_sample(struct loc_acc *acc, unsigned int a, unsigned int b, size_t n,
		      enum loc_verdict v, double pct)
{
	size_t k;
	uint32_t *cand;

	acc->n_bad_total++;
	k = stats_reservoir_slot(&acc->res);
	if (k == SIZE_MAX)
		return 0;
	cand = malloc((n ? n : 1) * sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (size_t j = 0; j < n; j++)
		cand[j] = acc->scratch[j].cand;
	if (k < acc->n_bad)
		free(acc->bad[k].cand);
	else
		acc->n_bad = k + 1;
	acc->bad[k] = (struct loc_bad){ a, b, v, pct, cand, n };
	return 0;
}

static int acc_count(struct loc_acc *acc, unsigned int a, unsigned int b, size_t n,
		     enum loc_verdict v, double pct)
{
	bool bad = is_bad(v);

	if (acc->explained) {	/* residual pass: the bad pairs no suspect explains, nothing else */
		for (size_t j = 0; bad && j < n; j++)
			bad = !acc->explained[acc->scratch[j].cand];
		return bad ? acc_sample(acc, a, b, n, v, pct) : 0;
	}
	acc->n_measured++;
	if (acc_seen_add(acc, a, b) < 0)
		return -ENOMEM;
	for (size_t j = 0; j < n; j++) {
		uint32_t c = acc->scratch[j].cand;

		acc->cn[c]++;
		if (bad) {
			acc->cb[c]++;
			acc->cf[c] += v == LOC_FAILED;
		} else {
			acc->g[c] += acc->scratch[j].w;
		}
	}
	if (!bad)
		return 0;
	acc->n_bad_all++;
	return acc_sample(acc, a, b, n, v, pct);
}

bool loc_acc_sampled(const struct loc_acc *acc)
{
	return acc->n_bad_total > acc->n_bad;
}

int loc_acc_residual(struct loc_acc *acc, const struct loc_result *r)
{
	if (!acc->explained) {
		acc->explained = calloc(acc->n_cand ? acc->n_cand : 1, 1);
		if (!acc->explained)
			return -ENOMEM;
	}
	for (size_t i = 0; i < r->n_suspects; i++)
		for (size_t m = 0; m < r->suspects[i].n_members; m++) {
			const struct loc_member *mb = &r->suspects[i].members[m];
			uint32_t c = mb->link != LOC_NO_LINK ? mb->link
				   : mb->host >= 0 ? (uint32_t)(acc->topo->n_links + (size_t)mb->host)
						   : UINT32_MAX;

			if (c < acc->n_cand)
				acc->explained[c] = 1;
		}
	for (size_t i = 0; i < acc->n_bad; i++)
		free(acc->bad[i].cand);
	acc->n_bad = acc->n_bad_total = 0;
	stats_reservoir_init(&acc->res, LOC_BAD_MAX, 0xbad1bad1ull + acc->res.rng);
	return 0;
}

static bool acc_hosts_ok(const struct loc_acc *acc, unsigned int a, unsigned int b)
{
	return a < acc->n_hosts && b < acc->n_hosts && a != b;
}

int loc_acc_add(struct loc_acc *acc, unsigned int a, unsigned int b, const struct pair_route *route,
		enum loc_verdict v, double pct_expected)
{
	size_t n;

	if (!acc_hosts_ok(acc, a, b))
		return -EINVAL;
	if (v == LOC_UNKNOWN)
		return 0;
	if (array_reserve((void **)&acc->scratch, &acc->cap_scratch, route_hops(route) + 2,
		 sizeof(*acc->scratch)) < 0)
		return -ENOMEM;
	n = pair_crossings(acc, a, b, route, acc->scratch);
	return acc_count(acc, a, b, n, v, pct_expected);
}

int loc_acc_add_loads(struct loc_acc *acc, unsigned int a, unsigned int b,
		      const struct route_load *items, size_t n_items, enum loc_verdict v,
		      double pct_expected)
{
	size_t n;

	if (!acc_hosts_ok(acc, a, b))
		return -EINVAL;
	if (v == LOC_UNKNOWN)
		return 0;
	if (array_reserve((void **)&acc->scratch, &acc->cap_scratch, n_items + 2, sizeof(*acc->scratch)) < 0)
		return -ENOMEM;
	n = load_crossings(acc, a, b, items, n_items, acc->scratch);
	return acc_count(acc, a, b, n, v, pct_expected);
}

static int check_input(const struct loc_input *in, struct fab_err *err)
{
	if (!in->topo)
		return fab_err_input(err, -EINVAL, "localize: no topology");
	for (size_t h = 0; in->host_link && h < in->n_hosts; h++)
		if (in->host_link[h] != LOC_NO_LINK && in->host_link[h] >= in->topo->n_links)
			return fab_err_input(err, -EINVAL, "localize: host %zu: access link %u out of range",
					     h, in->host_link[h]);
	for (size_t i = 0; !in->acc && i < in->n_pairs; i++) {
		const struct pair_route *r = in->pairs[i].route;

		if (!r || r->a >= in->n_hosts || r->b >= in->n_hosts || r->a == r->b)
			return fab_err_input(err, -EINVAL, "localize: pair %zu: bad host index", i);
	}
	return 0;
}

/*
 * The accumulator of @in: its own, or (*@own, freed by the caller) one
 * built from in->pairs.
 */
static int acc_of(const struct loc_input *in, struct loc_acc **acc, struct loc_acc **own,
		  struct fab_err *err)
{
	int rc = check_input(in, err);

	*own = NULL;
	if (rc)
		return rc;
	if (in->acc) {
		*acc = in->acc;
		return 0;
	}
	if (loc_acc_new(own, in) < 0)
		return fab_err_set(err, -ENOMEM, "localize: out of memory");
	for (size_t i = 0; i < in->n_pairs; i++) {
		const struct loc_pair *p = &in->pairs[i];

		if (loc_acc_add(*own, p->route->a, p->route->b, p->route, p->verdict,
				p->pct_expected) < 0) {
			loc_acc_free(*own);
			*own = NULL;
			return fab_err_set(err, -ENOMEM, "localize: out of memory");
		}
	}
	*acc = *own;
	return 0;
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

static int suspect_cmp(const void *x, const void *y)
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

/* ---- text ---- */


static const char *host_name(const struct loc_input *in, int h, char *buf, size_t len)
{
	if (in->host_names && in->host_names[h])
		return in->host_names[h];
	str_fmt(buf, len, "host %d", h);
	return buf;
}

void loc_member_text(const struct loc_input *in, const struct loc_member *m, char *buf, size_t len)
{
	char a[256], b[256], hn[32];

	if (m->link == LOC_NO_LINK) {
		str_fmt(buf, len, "node %s", m->host >= 0 ? host_name(in, m->host, hn, sizeof(hn)) : "?");
		return;
	}
	const struct topo_link *l = in->topo->links[m->link];

	if (m->host >= 0) {
		/* The switch end is the one that is not the host's node. */
		const struct topo_port *sw = l->a->node->type == TOPO_NODE_SWITCH ? l->a : l->b;
		const struct topo_port *hp = sw == l->a ? l->b : l->a;

		topo_port_text(sw, a, sizeof(a));
		str_fmt(buf, len, "node %s (its link to %s)",
			 in->host_names && in->host_names[m->host] ? in->host_names[m->host]
								   : hp->node->name, a);
		return;
	}
	topo_port_text(l->a, a, sizeof(a));
	topo_port_text(l->b, b, sizeof(b));
	str_fmt(buf, len, "%s <-> %s", a, b);
}

/* True when @r crosses member @m (its link, or its host for a host member). */
static bool member_crossed(const struct loc_input *in, const struct loc_member *m,
			   const struct pair_route *r)
{
	if (m->host >= 0 && (r->a == (unsigned int)m->host || r->b == (unsigned int)m->host))
		return true;
	return m->link != LOC_NO_LINK && pair_route_uses_link(r, m->link);
}

/* ---- probes ---- */

/* The host end's node of host @h's access link; NULL when unknown. */
static const struct topo_node *host_node(const struct loc_input *in, size_t h)
{
	uint32_t l = in->host_link ? in->host_link[h] : LOC_NO_LINK;

	if (l == LOC_NO_LINK)
		return NULL;
	const struct topo_link *link = in->topo->links[l];

	return link->a->node->type == TOPO_NODE_SWITCH ? link->b->node : link->a->node;
}

struct host_rank {
	size_t h;
	size_t dist;
};

static int host_rank_cmp(const void *x, const void *y)
{
	const struct host_rank *a = x, *b = y;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return a->h < b->h ? -1 : a->h > b->h;
}

/* Hosts ordered by graph distance to the members' links, nearest first. */
static int hosts_by_distance(const struct loc_input *in, const struct loc_suspect *s,
			     struct host_rank *order)
{
	const struct topo *t = in->topo;
	size_t nn = t->n_nodes, head = 0, tail = 0;
	struct ptr_index ix = { 0 };
	size_t *dist = malloc((nn ? nn : 1) * sizeof(*dist));
	size_t *queue = malloc((nn ? nn : 1) * sizeof(*queue));
	int rc = ptr_index_init(&ix, nn);

	if (rc || !dist || !queue) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nn; i++) {
		ptr_index_set(&ix, i, t->nodes[i]);
		dist[i] = SIZE_MAX;
	}
	ptr_index_sort(&ix);
	for (size_t m = 0; m < s->n_members; m++) {
		const struct topo_link *l;

		if (s->members[m].link == LOC_NO_LINK)
			continue;
		l = t->links[s->members[m].link];
		for (int e = 0; e < 2; e++) {
			size_t i = ptr_index_find(&ix, (e ? l->b : l->a)->node);

			if (i != SIZE_MAX && dist[i] == SIZE_MAX) {
				dist[i] = 0;
				queue[tail++] = i;
			}
		}
	}
	while (head < tail) {
		size_t i = queue[head++];
		const struct topo_node *n = t->nodes[i];

		for (size_t p = 0; p < n->n_ports; p++) {
			size_t j;

			if (!n->ports[p]->peer)
				continue;
			j = ptr_index_find(&ix, n->ports[p]->peer->node);
			if (j != SIZE_MAX && dist[j] == SIZE_MAX) {
				dist[j] = dist[i] + 1;
				queue[tail++] = j;
			}
		}
	}
	for (size_t h = 0; h < in->n_hosts; h++) {
		const struct topo_node *n = host_node(in, h);
		size_t i = n ? ptr_index_find(&ix, n) : SIZE_MAX;

		order[h] = (struct host_rank){ h, i != SIZE_MAX ? dist[i] : SIZE_MAX };
		for (size_t m = 0; m < s->n_members; m++)
			if (s->members[m].host == (int)h)
				order[h].dist = 0;
	}
	qsort(order, in->n_hosts, sizeof(*order), host_rank_cmp);
	rc = 0;
out:
	ptr_index_fini(&ix);
	free(dist);
	free(queue);
	return rc;
}

/* Bit m set when @r crosses member m. */
static uint32_t route_mask(const struct loc_input *in, const struct loc_suspect *s, size_t nm,
			   const struct pair_route *r)
{
	uint32_t mask = 0;

	for (size_t m = 0; m < nm; m++)
		if (member_crossed(in, &s->members[m], r))
			mask |= 1u << m;
	return mask;
}

/* True when @mask splits some class of @cls (members m < nm). */
static bool mask_splits(const uint32_t *cls, size_t nm, uint32_t mask)
{
	for (size_t i = 0; i < nm; i++)
		for (size_t j = i + 1; j < nm; j++)
			if (cls[i] == cls[j] && !!(mask & (1u << i)) != !!(mask & (1u << j)))
				return true;
	return false;
}

static bool all_split(const uint32_t *cls, size_t nm)
{
	for (size_t i = 0; i < nm; i++)
		for (size_t j = i + 1; j < nm; j++)
			if (cls[i] == cls[j])
				return false;
	return true;
}

static void refine(uint32_t *cls, size_t nm, uint32_t mask, uint32_t *next_id)
{
	uint32_t fresh[32];
	bool done[32] = { false };

	for (size_t m = 0; m < nm; m++) {
		if (!(mask & (1u << m)))
			continue;
		size_t first = m;

		for (size_t k = 0; k < m; k++)
			if ((mask & (1u << k)) && cls[k] == cls[m] && done[k]) {
				first = k;
				break;
			}
		fresh[m] = first == m ? (*next_id)++ : fresh[first];
		done[m] = true;
	}
	for (size_t m = 0; m < nm; m++)
		if (mask & (1u << m))
			cls[m] = fresh[m];
}

int loc_probes_pick(const struct loc_input *in, struct loc_suspect *s,
		    const struct loc_probe_req *req, loc_route_fn route, void *ctx,
		    struct loc_probes *out, struct fab_err *err)
{
	size_t nm = s->n_members > 32 ? 32 : s->n_members;
	size_t max_probes = req && req->max_probes ? req->max_probes : 8;
	size_t max_routes = req && req->max_routes ? req->max_routes : 20000, routed = 0;
	const bool *avoid = req ? req->avoid : NULL;
	struct host_rank *order = malloc((in->n_hosts ? in->n_hosts : 1) * sizeof(*order));
	struct loc_probes p = { 0 };
	uint32_t cls[32] = { 0 }, next_id = 1;
	struct loc_acc *acc = NULL, *own = NULL;
	int rc = acc_of(in, &acc, &own, err);
	bool budget = false;

	if (rc) {
		free(order);
		return rc;
	}
	rc = -ENOMEM;
	p.routes = calloc(max_probes, sizeof(*p.routes));
	p.masks = calloc(max_probes, sizeof(*p.masks));
	if (!order || !p.routes || !p.masks)
		goto out;
	rc = hosts_by_distance(in, s, order);
	if (rc)
		goto out;
	for (size_t k = 1; k < in->n_hosts && !all_split(cls, nm) && p.n < max_probes && !budget; k++) {
		for (size_t j = 0; j < k && p.n < max_probes; j++) {
			unsigned int a = (unsigned int)order[j].h, b = (unsigned int)order[k].h;
			struct pair_route r = { 0 };
			uint32_t mask;

			if ((avoid && (avoid[a] || avoid[b])) || acc_seen(acc, a, b))
				continue;
			if (routed == max_routes) {
				budget = true;
				break;
			}
			routed++;
			rc = route(ctx, a < b ? a : b, a < b ? b : a, &r);
			if (rc == -ENOENT)
				continue;
			if (rc) {
				fab_err_set(err, rc, "localize: routing probe pair %u-%u", a, b);
				pair_route_fini(&r);
				goto out;
			}
			mask = route_mask(in, s, nm, &r);
			if (!mask_splits(cls, nm, mask)) {
				pair_route_fini(&r);
				continue;
			}
			/* Refine: in each class, the members this pair crosses get a fresh id. */
			refine(cls, nm, mask, &next_id);
			p.routes[p.n] = r;
			p.masks[p.n++] = mask;
			if (all_split(cls, nm))
				break;
		}
	}
	p.exhausted = !budget && p.n < max_probes;
	p.unsplittable = !all_split(cls, nm);
	if (p.unsplittable) {
		if (p.exhausted)
			str_fmt(p.note, sizeof(p.note), "traffic cannot tell these apart; see counters");
		else if (budget)
			str_fmt(p.note, sizeof(p.note),
				 "no pair among %zu routed tells these apart; see counters", routed);
		else
			str_fmt(p.note, sizeof(p.note),
				 "probe limit %zu reached before every member was told apart", max_probes);
		s->unsplittable = p.exhausted;
		str_fmt(s->note, sizeof(s->note), "%s", p.note);
	}
	*out = p;
	memset(&p, 0, sizeof(p));
	rc = 0;
out:
	if (rc == -ENOMEM)
		fab_err_set(err, rc, "localize: out of memory");
	loc_probes_fini(&p);
	free(order);
	loc_acc_free(own);
	return rc;
}

int loc_group_narrow(const struct loc_input *in, struct loc_suspect *s,
		     const struct loc_probes *probes, const enum loc_verdict *verdicts)
{
	size_t nm = s->n_members > 32 ? 32 : s->n_members;
	unsigned int agree[32] = { 0 }, known = 0, best = 0;

	for (size_t i = 0; i < probes->n; i++) {
		if (verdicts[i] == LOC_UNKNOWN)
			continue;
		known++;
		s->ev.probes_run++;
		s->ev.probes_bad += is_bad(verdicts[i]);
		for (size_t m = 0; m < nm; m++)
			agree[m] += !!(probes->masks[i] & (1u << m)) == is_bad(verdicts[i]);
	}
	if (!known)
		return 0;
	for (size_t m = 0; m < nm; m++)
		if (agree[m] > best)
			best = agree[m];
	if (best < known) {
		str_fmt(s->note, sizeof(s->note),
			 "%u probes contradict every member (an intermittent fault?); group kept", known);
		return 0;
	}
	size_t o = 0;

	for (size_t m = 0; m < nm; m++)
		if (agree[m] == best)
			s->members[o++] = s->members[m];
	for (size_t m = nm; m < s->n_members; m++)	/* beyond 32: not probed, kept */
		s->members[o++] = s->members[m];
	s->n_members = o;
	if (o == 1) {
		s->kind = s->members[0].host >= 0 ? LOC_KIND_NODE : LOC_KIND_LINK;
		s->unsplittable = false;
		str_fmt(s->note, sizeof(s->note), "narrowed by %u probes", known);
	} else {
		str_fmt(s->note, sizeof(s->note), "one of %zu links after %u probes%s", o, known,
			 s->unsplittable ? "; traffic cannot tell these apart; see counters" : "");
	}
	return 0;
}

/* ---- counters ---- */

static bool port_read(const struct counter_report *rep, const struct topo_port *port)
{
	for (size_t i = 0; i < rep->n_ports; i++)
		if (rep->ports[i].port == port && rep->ports[i].compared)
			return true;
	return false;
}

/* The accumulator candidate of member @m: its link, else its host's virtual candidate. */
static uint32_t member_cand(const struct loc_acc *acc, const struct loc_member *m)
{
	if (m->link != LOC_NO_LINK)
		return m->link;
	return m->host >= 0 ? (uint32_t)(acc->topo->n_links + (size_t)m->host) : UINT32_MAX;
}

/* on[l]: some bad pair crossing member 0 of @s crosses link l.  -ENOMEM. */
static int bad_paths_links(const struct loc_acc *acc, const struct loc_suspect *s, bool **out)
{
	uint32_t c0 = member_cand(acc, &s->members[0]);
	bool *on = calloc(acc->topo->n_links ? acc->topo->n_links : 1, sizeof(*on));

	if (!on)
		return -ENOMEM;
	for (size_t i = 0; i < acc->n_bad; i++) {
		const struct loc_bad *p = &acc->bad[i];
		bool crossed = s->members[0].host >= 0 && (p->a == (unsigned int)s->members[0].host ||
							   p->b == (unsigned int)s->members[0].host);

		for (size_t j = 0; !crossed && j < p->n; j++)
			crossed = p->cand[j] == c0;
		if (!crossed)
			continue;
		for (size_t j = 0; j < p->n; j++)
			if (p->cand[j] < acc->topo->n_links)
				on[p->cand[j]] = true;
	}
	*out = on;
	return 0;
}

static int member_cmp(const void *x, const void *y)
{
	const struct loc_member *a = x, *b = y;

	if (a->counter_score != b->counter_score)
		return a->counter_score > b->counter_score ? -1 : 1;
	return a->link < b->link ? -1 : a->link > b->link;
}

static int suspect_counters(const struct loc_input *in, const struct loc_acc *acc,
			    struct loc_suspect *s, const struct counter_report *rep)
{
	bool all_read = true, elsewhere = false;
	size_t n = 0;

	for (size_t m = 0; m < s->n_members; m++) {
		struct loc_member *mb = &s->members[m];

		mb->counter_score = 0;
		if (mb->link == LOC_NO_LINK) {
			all_read = false;
			continue;
		}
		const struct topo_link *l = in->topo->links[mb->link];

		if (!port_read(rep, l->a) || !port_read(rep, l->b))
			all_read = false;
		for (size_t f = 0; f < rep->n_findings; f++)
			if (rep->findings[f].link == mb->link)
				n++;
	}
	free(s->counters);
	s->counters = calloc(n ? n : 1, sizeof(*s->counters));
	s->n_counters = 0;
	s->ev.counters_error = s->ev.counters_warn = 0;
	if (!s->counters)
		return -ENOMEM;
	s->score = s->traffic_score;
	for (size_t m = 0; m < s->n_members; m++) {
		struct loc_member *mb = &s->members[m];

		for (size_t f = 0; f < rep->n_findings && mb->link != LOC_NO_LINK; f++) {
			const struct counter_finding *cf = &rep->findings[f];

			if (cf->link != mb->link)
				continue;
			s->counters[s->n_counters++] = *cf;
			if (cf->sev == COUNTER_SEV_ERROR) {
				s->ev.counters_error++;
				mb->counter_score += 1.0;
				s->score += (1.0 - s->score) * 0.5;
			} else if (cf->sev == COUNTER_SEV_WARN) {
				s->ev.counters_warn++;
				mb->counter_score += 0.5;
				s->score += (1.0 - s->score) * 0.25;
			}
		}
	}
	if (!s->ev.counters_error && !s->ev.counters_warn && all_read) {
		bool *on;

		if (bad_paths_links(acc, s, &on))
			return -ENOMEM;
		for (size_t f = 0; f < rep->n_findings && !elsewhere; f++) {
			const struct counter_finding *cf = &rep->findings[f];

			if (cf->sev != COUNTER_SEV_INFO && cf->link != COUNTER_NO_LINK && on[cf->link])
				elsewhere = true;
		}
		free(on);
		if (elsewhere) {
			s->score *= 0.8;
			str_fmt(s->note, sizeof(s->note),
				 "counters clean here, errors elsewhere on the same paths");
		}
	}
	if (s->n_members > 1) {
		qsort(s->members, s->n_members, sizeof(*s->members), member_cmp);
		s->tie_by_counters = s->members[0].counter_score > s->members[1].counter_score;
		if (s->tie_by_counters) {
			char t[256];

			loc_member_text(in, &s->members[0], t, sizeof(t));
			str_fmt(s->note, sizeof(s->note), "%s; counters favour %.200s",
				 s->unsplittable ? "traffic cannot tell these apart" : "one of these", t);
		}
	}
	return 0;
}

int loc_apply_counters(const struct loc_input *in, struct loc_result *r,
		       const struct counter_report *rep)
{
	struct loc_acc *acc, *own;
	int rc = acc_of(in, &acc, &own, NULL);

	for (size_t i = 0; rc == 0 && i < r->n_suspects; i++)
		rc = suspect_counters(in, acc, &r->suspects[i], rep);
	loc_acc_free(own);
	if (rc)
		return rc;
	qsort(r->suspects, r->n_suspects, sizeof(*r->suspects), suspect_cmp);
	return 0;
}
