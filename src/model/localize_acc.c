// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Link localisation (localize.h): the accumulator.  Each measured pair's
 * crossings (the candidates its route crosses, with weights) counted per
 * candidate, the bad pairs kept (all, or a uniform sample), the pairs
 * measured; and the accumulator of a loc_input (acc_of()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "model/localize_impl.h"
#include "model/schedule.h"
#include "model/stats.h"

static int cross_cmp(const void *x, const void *y)
{
	const struct cross *a = x, *b = y;

	return a->cand < b->cand ? -1 : a->cand > b->cand;
}

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
bool acc_seen(struct loc_acc *acc, unsigned int a, unsigned int b)
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

/* Count one measured pair's @n crossings in acc->scratch; keep them when it is bad. */
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

void loc_probe_obs_free(struct loc_probe_obs *o, size_t n)
{
	for (size_t i = 0; o && i < n; i++)
		pair_route_fini(&o[i].route);
	free(o);
}

struct unex_ctx {
	const struct loc_acc *acc;
};

static int unex_cmp(const void *x, const void *y, void *arg)
{
	const struct loc_acc *acc = ((const struct unex_ctx *)arg)->acc;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (acc->cb[a] != acc->cb[b])
		return acc->cb[a] > acc->cb[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

static bool all_bad(const struct loc_acc *acc, uint32_t c)
{
	return c < acc->topo->n_links && acc->cn[c] && acc->cb[c] == acc->cn[c];
}

static bool in_list(const uint32_t *v, size_t n, uint32_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

size_t loc_acc_unexonerated(const struct loc_acc *acc, const struct loc_result *r, uint32_t *out,
			    size_t max)
{
	struct unex_ctx ctx = { acc };
	size_t n = 0, first;

	for (size_t i = 0; r && i < r->n_suspects; i++)
		for (size_t m = 0; m < r->suspects[i].n_members && n < max; m++) {
			uint32_t l = r->suspects[i].members[m].link;

			if (l != LOC_NO_LINK && all_bad(acc, l) && !in_list(out, n, l))
				out[n++] = l;
		}
	first = n;
	for (uint32_t c = 0; c < acc->topo->n_links; c++) {
		if (!all_bad(acc, c) || in_list(out, first, c))
			continue;
		if (n < max) {
			out[n++] = c;
			continue;
		}
		/* full: keep the most crossed (the list's last is its least once sorted) */
		qsort_r(out + first, n - first, sizeof(*out), unex_cmp, &ctx);
		if (n > first && unex_cmp(&c, &out[n - 1], &ctx) < 0)
			out[n - 1] = c;
	}
	if (n > first)
		qsort_r(out + first, n - first, sizeof(*out), unex_cmp, &ctx);
	return n;
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

/* Unknown < ok < slow < failed. */
static int verdict_rank(enum loc_verdict v)
{
	return v == LOC_FAILED ? 3 : v == LOC_SLOW ? 2 : v == LOC_OK ? 1 : 0;
}

/* One direction's crossings (@dir 0: a -> b, 1: b -> a) into acc->scratch; returns how many. */
static size_t dir_crossings(const struct loc_acc *acc, unsigned int a, unsigned int b,
			    const struct pair_route *r, int dir)
{
	uint32_t nl = (uint32_t)acc->topo->n_links;
	size_t k = dir ? dir_add(r->ba, r->n_ba, acc->scratch, 0, nl) : dir_add(r->ab, r->n_ab, acc->scratch, 0, nl);

	return crossings_close(acc, a, b, acc->scratch, merge_sum(acc->scratch, 0, k));
}

int loc_acc_add_dirs(struct loc_acc *acc, unsigned int a, unsigned int b, const struct pair_route *route,
		     const struct loc_dirs *d)
{
	int worse = verdict_rank(d->v[1]) > verdict_rank(d->v[0]);
	struct cross *fine;
	size_t n_fine, n_worse, k = 0;
	int rc;

	if (!route || !route->n_ab || !route->n_ba || verdict_rank(d->v[0]) == verdict_rank(d->v[1]))
		return loc_acc_add(acc, a, b, route, d->v[worse], d->pct[worse]);	/* one observation */
	if (!acc_hosts_ok(acc, a, b))
		return -EINVAL;
	if (array_reserve((void **)&acc->scratch, &acc->cap_scratch, route_hops(route) + 2,
			  sizeof(*acc->scratch)) < 0)
		return -ENOMEM;
	/* the better direction first, kept aside; then the worse one counted */
	n_fine = dir_crossings(acc, a, b, route, !worse);
	fine = malloc((n_fine ? n_fine : 1) * sizeof(*fine));
	if (!fine)
		return -ENOMEM;
	memcpy(fine, acc->scratch, n_fine * sizeof(*fine));
	n_worse = dir_crossings(acc, a, b, route, worse);
	/*
	 * The better direction clears only what the worse did not cross: a
	 * link both took (the hosts' own, a single spine's) is the worse
	 * direction's evidence, as a pair's would be (both sorted by candidate).
	 */
	for (size_t i = 0, j = 0; i < n_fine; i++) {
		while (j < n_worse && acc->scratch[j].cand < fine[i].cand)
			j++;
		if (j == n_worse || acc->scratch[j].cand != fine[i].cand)
			fine[k++] = fine[i];
	}
	rc = acc_count(acc, a, b, n_worse, d->v[worse], d->pct[worse]);
	if (rc == 0 && k && d->v[!worse] != LOC_UNKNOWN) {
		memcpy(acc->scratch, fine, k * sizeof(*fine));
		rc = acc_count(acc, a, b, k, d->v[!worse], d->pct[!worse]);
	}
	free(fine);
	return rc;
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
int acc_of(const struct loc_input *in, struct loc_acc **acc, struct loc_acc **own,
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
