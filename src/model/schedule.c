// SPDX-License-Identifier: GPL-2.0-or-later
/* Sweep schedules (circle method and friends); see schedule.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/schedule.h"

uint64_t sched_pair_key(unsigned int a, unsigned int b)
{
	return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

void sched_init(struct sched *s)
{
	memset(s, 0, sizeof(*s));
}

void sched_fini(struct sched *s)
{
	free(s->pairs);
	free(s->round_start);
	sched_init(s);
}

size_t sched_round_size(const struct sched *s, size_t r)
{
	return r < s->n_rounds ? s->round_start[r + 1] - s->round_start[r] : 0;
}

static int sched_alloc(struct sched *s, size_t max_pairs, size_t max_rounds)
{
	sched_init(s);
	s->pairs = calloc(max_pairs ? max_pairs : 1, sizeof(*s->pairs));
	s->round_start = calloc(max_rounds + 1, sizeof(*s->round_start));
	if (!s->pairs || !s->round_start) {
		sched_fini(s);
		return -ENOMEM;
	}
	return 0;
}

static void sched_add(struct sched *s, unsigned int a, unsigned int b)
{
	s->pairs[s->n_pairs].a = a < b ? a : b;
	s->pairs[s->n_pairs].b = a < b ? b : a;
	s->n_pairs++;
}

static void sched_end_round(struct sched *s)
{
	if (s->n_pairs == s->round_start[s->n_rounds])
		return;		/* no empty rounds */
	s->n_rounds++;
	s->round_start[s->n_rounds] = s->n_pairs;
}

/*
 * Round @r of the circle method over @n nodes into @out; returns its size.
 * With n odd a phantom node m-1 is added; whoever meets it has a bye.
 * Node m-1 stays fixed; the others sit on a circle and turn one step per
 * round.  In round r, position i (0..m-2) holds node (i + r) mod (m-1);
 * the fixed node meets position 0, and position i meets position m-1-i.
 */
static size_t circle_round(size_t n, size_t r, struct sched_pair *out)
{
	size_t m = n % 2 ? n + 1 : n, k = 0;

	for (size_t i = 0; i < m / 2; i++) {
		size_t x = i == 0 ? m - 1 : (i + r) % (m - 1);
		size_t y = (m - 1 - i + r) % (m - 1);

		if (i == 0)
			y = r % (m - 1);
		if (x >= n || y >= n)
			continue;	/* bye */
		out[k].a = (unsigned int)(x < y ? x : y);
		out[k].b = (unsigned int)(x < y ? y : x);
		k++;
	}
	return k;
}

int sched_circle(struct sched *s, size_t n)
{
	size_t m = n % 2 ? n + 1 : n;
	int rc;

	if (n > UINT32_MAX / 2)
		return -E2BIG;
	rc = sched_alloc(s, n * (n - (n > 0)) / 2, m ? m - 1 : 0);
	if (rc < 0 || n < 2)
		return rc;
	for (size_t r = 0; r < m - 1; r++) {
		s->n_pairs += circle_round(n, r, s->pairs + s->n_pairs);
		sched_end_round(s);
	}
	return 0;
}

static int src_explicit_next(struct sched_src *src, struct sched_pair *buf, size_t *n)
{
	const struct sched *s = src->s;

	if (src->r >= s->n_rounds)
		return 0;
	*n = sched_round_size(s, src->r);
	memcpy(buf, s->pairs + s->round_start[src->r], *n * sizeof(*buf));
	src->r++;
	return 1;
}

void sched_src_explicit(struct sched_src *src, const struct sched *s)
{
	memset(src, 0, sizeof(*src));
	src->s = s;
	src->n_rounds = s->n_rounds;
	src->n_pairs = s->n_pairs;
	for (size_t r = 0; r < s->n_rounds; r++)
		if (sched_round_size(s, r) > src->max_round)
			src->max_round = sched_round_size(s, r);
	src->next = src_explicit_next;
}

static int src_circle_next(struct sched_src *src, struct sched_pair *buf, size_t *n)
{
	if (src->r >= src->n_rounds)
		return 0;
	*n = circle_round(src->n, src->r++, buf);
	return 1;
}

void sched_src_circle(struct sched_src *src, size_t n)
{
	size_t m = n % 2 ? n + 1 : n;

	memset(src, 0, sizeof(*src));
	src->n = n;
	src->n_rounds = n >= 2 ? m - 1 : 0;
	src->n_pairs = n >= 2 ? n * (n - 1) / 2 : 0;
	src->max_round = n / 2;
	src->next = src_circle_next;
}

void sched_src_fini(struct sched_src *src)
{
	if (src->free)
		src->free(src);
	src->free = NULL;
	src->impl = NULL;
}

int sched_serial(struct sched *s, size_t n)
{
	int rc;

	if (n > UINT32_MAX / 2)
		return -E2BIG;
	rc = sched_alloc(s, n * (n - (n > 0)) / 2, n * (n - (n > 0)) / 2);
	if (rc < 0)
		return rc;
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n; b++) {
			sched_add(s, (unsigned int)a, (unsigned int)b);
			sched_end_round(s);
		}
	return 0;
}

int sched_one_per_round(struct sched *s, const struct sched_pair *pairs, size_t n_pairs)
{
	int rc = sched_alloc(s, n_pairs, n_pairs);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < n_pairs; i++) {
		sched_add(s, pairs[i].a, pairs[i].b);
		sched_end_round(s);
	}
	return 0;
}

int sched_bipartite(struct sched *s, const bool *is_new, size_t n)
{
	size_t *nw = calloc(n ? n : 1, sizeof(*nw)), *old = calloc(n ? n : 1, sizeof(*old));
	size_t k = 0, m = 0, *small, *big, ns, nb;
	int rc = -ENOMEM;

	if (!nw || !old)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (is_new[i])
			nw[k++] = i;
		else
			old[m++] = i;
	}
	small = k <= m ? nw : old;
	big = k <= m ? old : nw;
	ns = k <= m ? k : m;
	nb = k <= m ? m : k;
	rc = sched_alloc(s, k * m, nb);
	if (rc < 0 || ns == 0)
		goto out;
	/* Round r: small[i] meets big[(i + r) mod nb]; distinct i give distinct partners. */
	for (size_t r = 0; r < nb; r++) {
		for (size_t i = 0; i < ns; i++)
			sched_add(s, (unsigned int)small[i], (unsigned int)big[(i + r) % nb]);
		sched_end_round(s);
	}
out:
	free(nw);
	free(old);
	return rc;
}

int sched_from_pairs(struct sched *s, const struct sched_pair *pairs, size_t n_pairs, size_t n)
{
	bool *done = calloc(n_pairs ? n_pairs : 1, sizeof(*done));
	bool *busy = calloc(n ? n : 1, sizeof(*busy));
	size_t left = n_pairs;
	int rc = -ENOMEM;

	if (!done || !busy)
		goto out;
	rc = sched_alloc(s, n_pairs, n_pairs);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < n_pairs; i++)
		if (pairs[i].a >= n || pairs[i].b >= n || pairs[i].a == pairs[i].b) {
			sched_fini(s);
			rc = -EINVAL;
			goto out;
		}
	/* Greedy: each round takes, in order, every pair whose nodes are both free. */
	while (left) {
		memset(busy, 0, n * sizeof(*busy));
		for (size_t i = 0; i < n_pairs; i++) {
			if (done[i] || busy[pairs[i].a] || busy[pairs[i].b])
				continue;
			busy[pairs[i].a] = busy[pairs[i].b] = true;
			done[i] = true;
			sched_add(s, pairs[i].a, pairs[i].b);
			left--;
		}
		sched_end_round(s);
	}
	rc = 0;
out:
	free(done);
	free(busy);
	return rc;
}

int sched_check(const struct sched *s, size_t n)
{
	bool *busy = calloc(n ? n : 1, sizeof(*busy));
	bool *seen = calloc(n ? n * n : 1, sizeof(*seen));
	int rc = -EINVAL;

	if (!busy || !seen) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < s->n_rounds; r++) {
		memset(busy, 0, n * sizeof(*busy));
		for (size_t i = s->round_start[r]; i < s->round_start[r + 1]; i++) {
			const struct sched_pair *p = &s->pairs[i];

			if (p->a >= n || p->b >= n || p->a == p->b || busy[p->a] || busy[p->b] ||
			    seen[(size_t)p->a * n + p->b])
				goto out;
			busy[p->a] = busy[p->b] = true;
			seen[(size_t)p->a * n + p->b] = seen[(size_t)p->b * n + p->a] = true;
		}
	}
	rc = s->round_start[s->n_rounds] == s->n_pairs ? 0 : -EINVAL;
out:
	free(busy);
	free(seen);
	return rc;
}

/* Round @r's pairs not yet @done into @t's next rounds, each under the limit. */
static void group_split_round(const struct sched *s, size_t r, struct sched *t, bool *done,
			      unsigned int *count, const unsigned int *group, size_t n_groups,
			      unsigned int limit)
{
	size_t lo = s->round_start[r], hi = s->round_start[r + 1], left = hi - lo;

	while (left) {
		memset(count, 0, n_groups * sizeof(*count));
		for (size_t i = lo; i < hi; i++) {
			unsigned int ga = group[s->pairs[i].a], gb = group[s->pairs[i].b];

			if (done[i - lo] || count[ga] >= limit || count[gb] >= limit)
				continue;
			count[ga]++;
			count[gb]++;
			done[i - lo] = true;
			t->pairs[t->n_pairs++] = s->pairs[i];
			left--;
		}
		sched_end_round(t);
	}
}

int sched_group_limit(struct sched *s, const unsigned int *group, size_t n_groups,
		      unsigned int limit)
{
	unsigned int *count = calloc(n_groups ? n_groups : 1, sizeof(*count));
	bool *done = NULL;
	size_t biggest = 0;
	struct sched t;
	int rc = -ENOMEM;

	for (size_t r = 0; r < s->n_rounds; r++)
		if (sched_round_size(s, r) > biggest)
			biggest = sched_round_size(s, r);
	done = calloc(biggest ? biggest : 1, sizeof(*done));
	if (!count || !done || sched_alloc(&t, s->n_pairs, s->n_pairs) < 0)
		goto out;
	for (size_t r = 0; r < s->n_rounds; r++) {
		memset(done, 0, biggest * sizeof(*done));
		group_split_round(s, r, &t, done, count, group, n_groups, limit ? limit : 1);
	}
	sched_fini(s);
	*s = t;
	rc = 0;
out:
	free(count);
	free(done);
	return rc;
}
