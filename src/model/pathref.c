// SPDX-License-Identifier: GPL-2.0-or-later
/* Path-class references that survive a majority fault (pathref.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/pathref.h"
#include "model/stats.h"

static bool has_bw(const struct pathref_pair *p)
{
	return isfinite(p->bw_mbps) && p->bw_mbps > 0;
}

static bool crosses(const struct pathref_pair *p, uint32_t link)
{
	for (size_t i = 0; i < p->n_links; i++)
		if (p->links[i] == link)
			return true;
	return false;
}

struct suspect {
	uint32_t link;
	size_t below;		/* its pairs below the class median */
	double median;
};

static int suspect_cmp(const void *x, const void *y)
{
	const struct suspect *a = x, *b = y;

	if (a->below != b->below)
		return a->below > b->below ? -1 : 1;
	if (a->median != b->median)
		return a->median < b->median ? -1 : 1;
	return a->link < b->link ? -1 : a->link > b->link;
}

static size_t min_keep(size_t n)
{
	size_t k = (size_t)ceil(PATHREF_MIN_SHARE * (double)n - 1e-9);

	return k < PATHREF_MIN_PAIRS ? PATHREF_MIN_PAIRS : k;
}

/* Median of the class's pairs that cross neither @x nor @y; NAN when too few are left. */
static double median_without(const struct pathref_pair *const *v, size_t n, uint32_t x, uint32_t y,
			     double *buf, size_t *kept)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!crosses(v[i], x) && (y == PATHREF_NO_LINK || !crosses(v[i], y)))
			buf[k++] = v[i]->bw_mbps;
	*kept = k;
	if (k < min_keep(n))
		return NAN;
	stats_sort(buf, k);
	return stats_median_sorted(buf, k);
}

/* One class: @v its pairs with figures. */
static int class_ref(struct pathref_class *c, const struct pathref_pair *const *v, size_t n,
		     size_t n_links, uint32_t *count, uint32_t *stamp, double *buf)
{
	struct suspect *sus = NULL;
	size_t n_sus = 0, total = 0, *off = NULL;
	double *bws = NULL;
	int rc = -ENOMEM;

	c->n = n;
	c->excluded[0] = c->excluded[1] = PATHREF_NO_LINK;
	c->blind_link = PATHREF_NO_LINK;
	for (size_t i = 0; i < n; i++)
		buf[i] = v[i]->bw_mbps;
	stats_sort(buf, n);
	c->median_mbps = c->ref_mbps = stats_median_sorted(buf, n);
	c->n_ref = n;
	if (n < PATHREF_MIN_PAIRS) {	/* two figures are no reference */
		c->ref_mbps = NAN;
		c->n_ref = 0;
		return 0;
	}
	/* Pairs per link (each pair once per link), then each link's pairs' bandwidths. */
	for (size_t i = 0; i < n; i++)
		for (size_t h = 0; h < v[i]->n_links; h++) {
			uint32_t l = v[i]->links[h];

			if (l >= n_links)
				return -EINVAL;
			if (stamp[l] != i + 1) {
				stamp[l] = (uint32_t)(i + 1);
				count[l]++;
				total++;
			}
		}
	off = calloc(n_links + 1, sizeof(*off));
	bws = calloc(total + 1, sizeof(*bws));
	sus = calloc(n_links + 1, sizeof(*sus));
	if (!off || !bws || !sus)
		goto out;
	for (size_t l = 0; l < n_links; l++)
		off[l + 1] = off[l] + count[l];
	memset(stamp, 0, n_links * sizeof(*stamp));
	for (size_t l = 0; l < n_links; l++)
		count[l] = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t h = 0; h < v[i]->n_links; h++) {
			uint32_t l = v[i]->links[h];

			if (stamp[l] != i + 1) {
				stamp[l] = (uint32_t)(i + 1);
				bws[off[l] + count[l]++] = v[i]->bw_mbps;
			}
		}
	for (size_t l = 0; l < n_links; l++) {
		double med;
		size_t below = 0;

		if (!count[l])
			continue;
		if (n - count[l] < min_keep(n)) {
			if (c->blind_link == PATHREF_NO_LINK)
				c->blind_link = (uint32_t)l;
			continue;
		}
		stats_sort(bws + off[l], count[l]);
		med = stats_median_sorted(bws + off[l], count[l]);
		while (below < count[l] && bws[off[l] + below] < c->median_mbps)
			below++;
		if (med < c->median_mbps)
			sus[n_sus++] = (struct suspect){ (uint32_t)l, below, med };
	}
	qsort(sus, n_sus, sizeof(*sus), suspect_cmp);
	if (n_sus > PATHREF_SUSPECTS)
		n_sus = PATHREF_SUSPECTS;
	for (size_t i = 0; i < n_sus; i++)
		for (size_t j = i; j < n_sus && (j == i || j < PATHREF_SUSPECTS_2); j++) {
			uint32_t y = j == i ? PATHREF_NO_LINK : sus[j].link;
			size_t kept;
			double med = median_without(v, n, sus[i].link, y, buf, &kept);

			if (isfinite(med) && med > c->ref_mbps) {
				c->ref_mbps = med;
				c->excluded[0] = sus[i].link;
				c->excluded[1] = y;
				c->n_ref = kept;
			}
			if (i >= PATHREF_SUSPECTS_2)
				break;
		}
	rc = 0;
out:
	for (size_t l = 0; l < n_links; l++)
		count[l] = stamp[l] = 0;
	free(off);
	free(bws);
	free(sus);
	return rc;
}

static int pair_klass_cmp(const void *x, const void *y)
{
	const struct pathref_pair *a = *(const struct pathref_pair *const *)x;
	const struct pathref_pair *b = *(const struct pathref_pair *const *)y;

	return a->klass < b->klass ? -1 : a->klass > b->klass;
}

int pathref_compute(struct pathref *ref, const struct pathref_pair *pairs, size_t n, size_t n_links)
{
	const struct pathref_pair **v = calloc(n + 1, sizeof(*v));
	uint32_t *count = calloc(n_links + 1, sizeof(*count)), *stamp = calloc(n_links + 1, sizeof(*stamp));
	double *buf = calloc(n + 1, sizeof(*buf));
	size_t m = 0;
	int rc = -ENOMEM;

	memset(ref, 0, sizeof(*ref));
	if (!v || !count || !stamp || !buf)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (has_bw(&pairs[i]))
			v[m++] = &pairs[i];
	qsort(v, m, sizeof(*v), pair_klass_cmp);
	ref->classes = calloc(m + 1, sizeof(*ref->classes));
	if (!ref->classes)
		goto out;
	rc = 0;
	for (size_t i = 0; i < m && rc == 0;) {
		size_t j = i;
		struct pathref_class *c = &ref->classes[ref->n_classes++];

		while (j < m && v[j]->klass == v[i]->klass)
			j++;
		c->klass = v[i]->klass;
		rc = class_ref(c, v + i, j - i, n_links, count, stamp, buf);
		i = j;
	}
out:
	if (rc < 0)
		pathref_fini(ref);
	free(v);
	free(count);
	free(stamp);
	free(buf);
	return rc;
}

const struct pathref_class *pathref_class(const struct pathref *ref, unsigned int klass)
{
	for (size_t i = 0; i < ref->n_classes; i++)
		if (ref->classes[i].klass == klass)
			return &ref->classes[i];
	return NULL;
}

void pathref_fini(struct pathref *ref)
{
	free(ref->classes);
	memset(ref, 0, sizeof(*ref));
}

double pathref_cluster(const double *bw_mbps, size_t n)
{
	const double w = log(1 / 0.8);
	double *v = calloc(n + 1, sizeof(*v)), ref = NAN;
	size_t m = 0, need, lo = SIZE_MAX;

	if (!v)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(bw_mbps[i]) && bw_mbps[i] > 0)
			v[m++] = log(bw_mbps[i]);
	stats_sort(v, m);
	need = min_keep(m);
	if (m >= need) {
		/* The highest window start whose window holds enough pairs. */
		for (size_t i = m - need + 1, j = m; i-- > 0;) {
			while (j > i && v[j - 1] > v[i] + w)
				j--;
			if (j - i >= need) {
				lo = i;
				break;
			}
		}
	}
	if (lo == SIZE_MAX) {
		lo = 0;
	} else {
		double floor_v = v[lo] - w;

		while (lo > 0 && v[lo - 1] >= floor_v)
			lo--;
	}
	if (m)
		ref = exp(stats_median_sorted(v + lo, m - lo));
	free(v);
	return ref;
}
