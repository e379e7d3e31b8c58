// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Coverage per rail (model/coverage_rails.h): the picker over each rail's
 * end points, on a route of their own; the rails' pairs merged.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/coverage_rails.h"

/* One chosen pair: its end points in @hs, its rank in its rail's list, its rail's order. */
struct rail_pick {
	struct sched_pair p;
	size_t rank, rail;
	bool dup;
};

struct rails_merge {
	struct rail_pick *picks;
	size_t n, cap;
	struct coverage sum;	/* counts only */
};

static int int_cmp(const void *x, const void *y)
{
	int a = *(const int *)x, b = *(const int *)y;

	return (a > b) - (a < b);
}

/* The distinct known rails of @hs, ascending, into a new array; NULL on ENOMEM. */
static int *rails_list(const struct fab_hosts *hs, size_t *n)
{
	int *rl = malloc((hs->n ? hs->n : 1) * sizeof(*rl));
	size_t k = 0, u = 0;

	if (!rl)
		return NULL;
	for (size_t i = 0; i < hs->n; i++)
		if (hs->hosts[i].rail >= 0)
			rl[k++] = hs->hosts[i].rail;
	qsort(rl, k, sizeof(*rl), int_cmp);
	for (size_t i = 0; i < k; i++)
		if (!u || rl[u - 1] != rl[i])
			rl[u++] = rl[i];
	*n = u;
	return rl;
}

/*
 * Rail @rail's end points (its own and those of no known rail), ascending,
 * into @idx; their count.  *@any: one of them is in @subset (or no subset).
 */
static size_t rail_members(const struct fab_hosts *hs, int rail, const bool *subset,
			   uint32_t *idx, bool *any)
{
	size_t n = 0;

	*any = !subset;
	for (size_t i = 0; i < hs->n; i++) {
		if (hs->hosts[i].rail != rail && hs->hosts[i].rail >= 0)
			continue;
		idx[n++] = (uint32_t)i;
		*any |= subset && subset[i];
	}
	return n;
}

/* The picker over end points @idx[0..@n) of @hs alone, placed on @r's graph. */
static int rail_pick(struct coverage *c, const struct route *r, const struct fab_hosts *hs,
		     const uint32_t *idx, size_t n, const struct coverage_req *req,
		     struct fab_err *err)
{
	struct fab_hosts sub = { .hosts = calloc(n, sizeof(*sub.hosts)), .n = n };
	bool *subset = req->subset ? calloc(n, sizeof(*subset)) : NULL;
	struct coverage_req sr = *req;
	struct route *rr = NULL;
	int rc = -ENOMEM;

	if (!sub.hosts || (req->subset && !subset) || route_new(&rr, r->topo) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		sub.hosts[i] = hs->hosts[idx[i]];
		if (subset)
			subset[i] = req->subset[idx[i]];
	}
	sr.subset = subset;
	rr->ecmp_whole = r->ecmp_whole;
	rr->max_paths = r->max_paths;
	rc = route_place(rr, &sub, err);
	if (rc == 0)
		rc = coverage_pick(c, rr, &sr, err);
out:
	route_free(rr);
	free(sub.hosts);
	free(subset);
	if (rc == -ENOMEM && !err->msg[0])
		fab_err_set(err, rc, "coverage: out of memory");
	return rc;
}

/* Rail @rail (its order)'s pairs @c, end points @idx, into @m. */
static int merge_rail(struct rails_merge *m, const struct coverage *c, const uint32_t *idx,
		      size_t rail)
{
	struct coverage *s = &m->sum;

	if (m->n + c->n_pairs > m->cap) {
		size_t cap = 2 * (m->n + c->n_pairs);
		struct rail_pick *t = realloc(m->picks, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		m->picks = t;
		m->cap = cap;
	}
	for (size_t i = 0; i < c->n_pairs; i++)	/* idx ascending: a < b holds */
		m->picks[m->n++] = (struct rail_pick){ { idx[c->pairs[i].a], idx[c->pairs[i].b] },
						       i, rail, false };
	s->links_target += c->links_target;
	s->links_short += c->links_short;
	s->links_unreachable += c->links_unreachable;
	s->hosts_target += c->hosts_target;
	s->hosts_short += c->hosts_short;
	if (s->first_short_link == COVERAGE_NONE)
		s->first_short_link = c->first_short_link;
	if (s->first_short_host == COVERAGE_NONE && c->first_short_host != COVERAGE_NONE)
		s->first_short_host = idx[c->first_short_host];
	return 0;
}

static int by_pair(const void *x, const void *y)
{
	const struct rail_pick *a = x, *b = y;

	if (a->p.a != b->p.a)
		return (a->p.a > b->p.a) - (a->p.a < b->p.a);
	if (a->p.b != b->p.b)
		return (a->p.b > b->p.b) - (a->p.b < b->p.b);
	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (a->rail > b->rail) - (a->rail < b->rail);
}

static int by_rank(const void *x, const void *y)
{
	const struct rail_pick *a = x, *b = y;

	if (a->rank != b->rank)
		return (a->rank > b->rank) - (a->rank < b->rank);
	return (a->rail > b->rail) - (a->rail < b->rail);
}

/* The merged pairs, a pair twice once, rank then rail, into @out->pairs. */
static int pairs_out(struct rails_merge *m, struct coverage *out)
{
	size_t k = 0;

	qsort(m->picks, m->n, sizeof(*m->picks), by_pair);
	for (size_t i = 1; i < m->n; i++)
		m->picks[i].dup = m->picks[i].p.a == m->picks[i - 1].p.a &&
				  m->picks[i].p.b == m->picks[i - 1].p.b;
	qsort(m->picks, m->n, sizeof(*m->picks), by_rank);
	out->pairs = calloc(m->n ? m->n : 1, sizeof(*out->pairs));
	if (!out->pairs)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++)
		if (!m->picks[i].dup)
			out->pairs[k++] = m->picks[i].p;
	out->n_pairs = k;
	return 0;
}

/* link_cross and host_pairs over @out's pairs, on @r. */
static int recount(struct coverage *out, struct route *r, size_t n_hosts)
{
	out->n_links = r->topo->n_links;
	out->n_hosts = n_hosts;
	out->link_cross = calloc(out->n_links ? out->n_links : 1, sizeof(*out->link_cross));
	out->host_pairs = calloc(n_hosts ? n_hosts : 1, sizeof(*out->host_pairs));
	if (!out->link_cross || !out->host_pairs)
		return -ENOMEM;
	for (size_t i = 0; i < out->n_pairs; i++) {
		const struct route_load *items;
		struct route_info info;
		size_t ni;
		int rc;

		out->host_pairs[out->pairs[i].a]++;
		out->host_pairs[out->pairs[i].b]++;
		rc = route_pair_loads(r, out->pairs[i].a, out->pairs[i].b, &items, &ni, &info);
		if (rc == -ENOMEM)
			return rc;
		for (size_t j = 0; rc == 0 && j < ni; j++)
			out->link_cross[items[j].link]++;
	}
	return 0;
}

/*
 * With @req->want_link, a wanted link is unreachable when no rail's pairs
 * can cross it, not once a rail that cannot: the count of wanted links no
 * rail made a target (@reached), for the rails' sum of theirs.
 */
static void unreachable_once(struct coverage *sum, const struct route *r,
			     const struct coverage_req *req, const uint8_t *reached)
{
	sum->links_unreachable = 0;
	for (size_t l = 0; l < r->topo->n_links; l++)
		sum->links_unreachable += req->want_link[l] && !reached[l];
}

/* Every rail's pairs into @m; *@picked: the rails the picker ran on. */
static int rails_pick_all(struct rails_merge *m, struct route *r, const struct fab_hosts *hs,
			  const struct coverage_req *req, size_t *picked, struct fab_err *err)
{
	uint32_t *idx = malloc((hs->n ? hs->n : 1) * sizeof(*idx));
	uint8_t *reached = req->want_link ? calloc(r->topo->n_links + 1, 1) : NULL;
	struct coverage_req rr = *req;
	size_t n_rails = 0;
	int *rl = rails_list(hs, &n_rails);
	int rc = idx && rl && (reached || !req->want_link) ? 0 : -ENOMEM;

	for (size_t i = 0; rc == 0 && i < n_rails; i++) {
		struct coverage c = { 0 };
		bool any;
		size_t n = rail_members(hs, rl[i], req->subset, idx, &any);

		if (n < 2 || !any)
			continue;
		rr.reached = reached;
		rc = rail_pick(&c, r, hs, idx, n, &rr, err);
		if (rc == 0)
			rc = merge_rail(m, &c, idx, i);
		coverage_fini(&c);
		(*picked)++;
	}
	if (rc == 0 && reached)
		unreachable_once(&m->sum, r, req, reached);
	free(reached);
	free(idx);
	free(rl);
	if (rc == -ENOMEM && !err->msg[0])
		fab_err_set(err, rc, "coverage: out of memory");
	return rc;
}

int coverage_pick_rails(struct coverage *out, struct route *r, const struct fab_hosts *hs,
			const struct coverage_req *req, struct fab_err *err)
{
	struct rails_merge m = { .sum = { .first_short_link = COVERAGE_NONE,
					  .first_short_host = COVERAGE_NONE } };
	size_t picked = 0;
	int rc;

	if (!req || req->k == 0)
		return fab_err_input(err, -EINVAL, "coverage: K must be at least 1");
	rc = rails_pick_all(&m, r, hs, req, &picked, err);
	if (rc == 0 && !picked)
		rc = fab_err_input(err, -EINVAL, "coverage: no rail has %s",
				   req->subset ? "a new end point and another"
					       : "end points of two hosts");
	if (rc == 0) {
		rc = pairs_out(&m, &m.sum);
	}
	if (rc == 0)
		rc = recount(&m.sum, r, hs->n);
	free(m.picks);
	if (rc < 0) {
		coverage_fini(&m.sum);
		if (rc == -ENOMEM && !err->msg[0])
			fab_err_set(err, rc, "coverage: out of memory");
		return rc;
	}
	*out = m.sum;
	return 0;
}
