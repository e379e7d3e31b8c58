// SPDX-License-Identifier: GPL-2.0-or-later
/* Sample statistics; see stats.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/stats.h"

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

void stats_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_double);
}

double stats_percentile_sorted(const double *v, size_t n, double q)
{
	double rank;
	size_t i;

	if (n == 0)
		return NAN;
	if (!(q > 0))
		return v[0];
	if (q >= 1)
		return v[n - 1];
	rank = ceil(q * (double)n - 1e-9);
	i = rank < 1 ? 0 : (size_t)rank - 1;
	return v[i < n ? i : n - 1];
}

double stats_median_sorted(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of the @n values in @c, a scratch copy this frees (NULL: none or no memory, NaN). */
static double median_free(double *c, size_t n)
{
	double m;

	if (!c)
		return NAN;
	stats_sort(c, n);
	m = stats_median_sorted(c, n);
	free(c);
	return m;
}

double stats_median(const double *v, size_t n)
{
	double *c = malloc(n * sizeof(*c));

	if (c && n)
		memcpy(c, v, n * sizeof(*c));
	return median_free(c, n);
}

double stats_mad(const double *v, size_t n, double median)
{
	double *d = malloc(n * sizeof(*d));

	for (size_t i = 0; d && i < n; i++)
		d[i] = fabs(v[i] - median);
	return median_free(d, n);
}

int stats_summarize(double *v, size_t n, struct stats_summary *s)
{
	double sum = 0;

	if (n == 0)
		return -EINVAL;
	stats_sort(v, n);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->p50 = stats_median_sorted(v, n);
	s->p99 = stats_percentile_sorted(v, n, 0.99);
	s->p999 = stats_percentile_sorted(v, n, 0.999);
	s->mean = sum / (double)n;
	return 0;
}

void stats_reservoir_init(struct stats_reservoir *r, size_t cap, uint64_t seed)
{
	r->cap = cap;
	r->seen = 0;
	r->rng = seed;
}

/* splitmix64 */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

size_t stats_reservoir_slot(struct stats_reservoir *r)
{
	uint64_t i = r->seen++, j;

	if (i < r->cap)
		return (size_t)i;
	/* j uniform in [0, i] */
	j = (uint64_t)(((unsigned __int128)rng_next(&r->rng) * (i + 1)) >> 64);
	return j < r->cap ? (size_t)j : SIZE_MAX;
}

size_t stats_reservoir_len(const struct stats_reservoir *r)
{
	return r->seen < r->cap ? (size_t)r->seen : r->cap;
}
