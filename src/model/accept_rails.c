// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * accept's traffic pairs on hosts of several fabric ports (model/accept.h,
 * accept_pairs_cover_rails()): the coverage picker a rail, then the new x
 * new pairs of each rail when they fit.  Pure C, no I/O.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/accept.h"
#include "model/coverage.h"
#include "model/coverage_rails.h"
#include "model/hosts.h"

/* The new end points of @hs, their indices into a new array; NULL on ENOMEM. */
static uint32_t *new_ports(const struct fab_hosts *hs, const bool *new_host, size_t *nn)
{
	uint32_t *idx = malloc((hs->n ? hs->n : 1) * sizeof(*idx));

	*nn = 0;
	for (size_t i = 0; idx && i < hs->n; i++)
		if (new_host[i])
			idx[(*nn)++] = (uint32_t)i;
	return idx;
}

static int pair_cmp(const void *x, const void *y)
{
	const struct sched_pair *a = x, *b = y;

	if (a->a != b->a)
		return (a->a > b->a) - (a->a < b->a);
	return (a->b > b->b) - (a->b < b->b);
}

/* Same-rail pairs among end points @idx[0..@nn) (as hosts_rail_pairs_count()), O(nn). */
static size_t rail_pairs_among(const struct fab_hosts *hs, const uint32_t *idx, size_t nn)
{
	size_t on_rail[FAB_HOST_RAIL_MAX + 1] = { 0 }, none = 0, known = 0, pairs = 0;

	for (size_t i = 0; i < nn; i++) {
		int rail = hs->hosts[idx[i]].rail;

		if (rail < 0 || rail > FAB_HOST_RAIL_MAX) {
			none++;
			continue;
		}
		pairs += on_rail[rail]++;
		known++;
	}
	return pairs + none * known + none * (none ? none - 1 : 0) / 2;
}

/* @c's pairs plus the new x new pairs of one rail it lacks, @idx the new end points. */
static int add_new_pairs(struct coverage *c, const struct fab_hosts *hs, const uint32_t *idx,
			 size_t nn, size_t cand)
{
	size_t n0 = c->n_pairs;
	struct sched_pair *p = realloc(c->pairs, (n0 + cand + 1) * sizeof(*p));
	struct sched_pair *have = malloc((n0 + 1) * sizeof(*have));

	if (p)
		c->pairs = p;
	if (!p || !have) {
		free(have);
		return -ENOMEM;
	}
	memcpy(have, c->pairs, n0 * sizeof(*have));
	qsort(have, n0, sizeof(*have), pair_cmp);
	for (size_t x = 0; x < nn; x++)
		for (size_t y = x + 1; y < nn; y++) {
			struct sched_pair q = { .a = idx[x], .b = idx[y] };

			if (!hosts_ports_pair(&hs->hosts[q.a], &hs->hosts[q.b], false) ||
			    bsearch(&q, have, n0, sizeof(*have), pair_cmp))
				continue;
			c->pairs[c->n_pairs++] = q;
			c->host_pairs[q.a]++;
			c->host_pairs[q.b]++;
		}
	free(have);
	return 0;
}

/*
 * Every new x new pair of one rail @c lacks, when all of them fit (at
 * most @k x hs->n: a new rack among many is tested all against all on
 * every rail, as accept_pairs_cover() does across hosts).
 */
static int rail_new_pairs(struct coverage *c, const struct fab_hosts *hs, const bool *new_host,
			  unsigned int k)
{
	size_t nn, cand;
	uint32_t *idx = new_ports(hs, new_host, &nn);
	int rc = 0;

	if (!idx)
		return -ENOMEM;
	cand = rail_pairs_among(hs, idx, nn);
	if (cand && cand <= (size_t)k * hs->n)
		rc = add_new_pairs(c, hs, idx, nn, cand);
	free(idx);
	return rc;
}

int accept_pairs_cover_rails(struct route *r, const struct fab_hosts *hs, const bool *new_host,
			     const char *const *new_names, size_t n_new, unsigned int k,
			     struct coverage *out, struct fab_err *err)
{
	bool *want = calloc(r->topo->n_links ? r->topo->n_links : 1, sizeof(*want));
	struct coverage_req req = { .k = k, .subset = new_host, .want_link = want };
	int rc;

	if (!want)
		return fab_err_set(err, -ENOMEM, "accept: out of memory");
	rc = accept_want_links(r, new_host, new_names, n_new, want);
	if (rc < 0)
		rc = fab_err_set(err, rc, "accept: out of memory");
	else
		rc = coverage_pick_rails(out, r, hs, &req, err);
	free(want);
	if (rc == 0 && rail_new_pairs(out, hs, new_host, k) < 0) {
		coverage_fini(out);
		rc = fab_err_set(err, -ENOMEM, "accept: out of memory");
	}
	return rc;
}
