// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Topology-aware sweep rounds (sched_topo.h): the streamed checker (no host
 * twice in a round, no link over capacity, every requested pair once) and
 * sched_topo_check() over a whole schedule.
 */
#include <errno.h>
#include <stdlib.h>

#include "model/sched_topo_impl.h"

/* ---- checker ---- */

struct chk_item {
	uint32_t la, lb;	/* la < lb; la == lb: not cross-leaf */
	double e;
	unsigned int a, b;
};

struct sched_topo_checker {
	struct route *r;
	size_t n_hosts;
	uint8_t *want;		/* n x n bits: requested, then cleared when seen */
	uint8_t *seen;
	size_t n_want, n_seen, round;
	bool *busy;
	double *used;
	uint32_t *touched;
	size_t n_touched;
	struct chk_item *items;
};

void sched_topo_checker_free(struct sched_topo_checker *c)
{
	if (!c)
		return;
	free(c->want);
	free(c->seen);
	free(c->busy);
	free(c->used);
	free(c->touched);
	free(c->items);
	free(c);
}

static size_t bit_of(const struct sched_topo_checker *c, unsigned int a, unsigned int b)
{
	return a < b ? (size_t)a * c->n_hosts + b : (size_t)b * c->n_hosts + a;
}

static bool bit_get(const uint8_t *v, size_t i)
{
	return v[i / 8] >> (i % 8) & 1;
}

static void bit_set(uint8_t *v, size_t i)
{
	v[i / 8] |= (uint8_t)(1u << (i % 8));
}

int sched_topo_checker_new(struct sched_topo_checker **out, struct route *r,
			   const struct sched_pair *want, size_t n_want)
{
	struct sched_topo_checker *c = calloc(1, sizeof(*c));
	size_t n = r->n_hosts, bytes = n * n / 8 + 1;

	if (!c)
		return -ENOMEM;
	c->r = r;
	c->n_hosts = n;
	c->want = calloc(bytes, 1);
	c->seen = calloc(bytes, 1);
	c->busy = calloc(n + 1, sizeof(*c->busy));
	c->used = calloc(r->n_links + 1, sizeof(*c->used));
	c->touched = calloc(r->n_links + 1, sizeof(*c->touched));
	c->items = calloc(n / 2 + 1, sizeof(*c->items));
	if (!c->want || !c->seen || !c->busy || !c->used || !c->touched || !c->items) {
		sched_topo_checker_free(c);
		return -ENOMEM;
	}
	if (!want) {
		for (unsigned int a = 0; a < n; a++)
			for (unsigned int b = a + 1; b < n; b++)
				bit_set(c->want, bit_of(c, a, b));
		c->n_want = n * (n - (n > 0)) / 2;
	} else {
		for (size_t i = 0; i < n_want; i++) {
			if (want[i].a >= n || want[i].b >= n || want[i].a == want[i].b ||
			    bit_get(c->want, bit_of(c, want[i].a, want[i].b))) {
				sched_topo_checker_free(c);
				return -EINVAL;
			}
			bit_set(c->want, bit_of(c, want[i].a, want[i].b));
		}
		c->n_want = n_want;
	}
	*out = c;
	return 0;
}

static int chk_cmp(const void *x, const void *y)
{
	const struct chk_item *a = x, *b = y;

	if (a->la != b->la)
		return a->la < b->la ? -1 : 1;
	if (a->lb != b->lb)
		return a->lb < b->lb ? -1 : 1;
	return a->e < b->e ? -1 : a->e > b->e;
}

static void chk_use(struct sched_topo_checker *c, uint32_t link, double d)
{
	if (c->used[link] == 0)
		c->touched[c->n_touched++] = link;
	c->used[link] += d;
}

int sched_topo_checker_round(struct sched_topo_checker *c, const struct sched_pair *pairs,
			     size_t n, struct fab_err *err)
{
	struct route *r = c->r;
	int rc = -EINVAL;

	c->round++;
	if (n > c->n_hosts / 2)
		return fab_err_set(err, -EINVAL, "round %zu: %zu pairs for %zu hosts", c->round, n, c->n_hosts);
	for (size_t i = 0; i < n; i++) {
		unsigned int a = pairs[i].a, b = pairs[i].b;

		if (a >= c->n_hosts || b >= c->n_hosts || a == b) {
			fab_err_set(err, -EINVAL, "round %zu: bad pair (%u, %u)", c->round, a, b);
			goto out;
		}
		if (c->busy[a] || c->busy[b]) {
			fab_err_set(err, -EINVAL, "round %zu: host %u in two pairs", c->round, c->busy[a] ? a : b);
			goto out;
		}
		c->busy[a] = c->busy[b] = true;
		if (!bit_get(c->want, bit_of(c, a, b)) || bit_get(c->seen, bit_of(c, a, b))) {
			fab_err_set(err, -EINVAL, "round %zu: pair (%u, %u) %s", c->round, a, b,
				    bit_get(c->want, bit_of(c, a, b)) ? "scheduled twice" : "not requested");
			goto out;
		}
		bit_set(c->seen, bit_of(c, a, b));
		c->n_seen++;
		c->items[i] = (struct chk_item){ .a = a, .b = b };
		if (cross_leaf(r, a, b)) {
			c->items[i].la = r->hosts[a].leaf < r->hosts[b].leaf ? r->hosts[a].leaf : r->hosts[b].leaf;
			c->items[i].lb = r->hosts[a].leaf < r->hosts[b].leaf ? r->hosts[b].leaf : r->hosts[a].leaf;
		}
	}
	/* Expected rates need the leaf pair's lowest rate: fill them per group. */
	qsort(c->items, n, sizeof(*c->items), chk_cmp);
	for (size_t i = 0; i < n;) {
		const struct route_load *it = NULL;
		struct route_info info = { 0 };
		size_t j = i, m = 0;

		if (c->items[i].la != c->items[i].lb) {
			rc = route_leaf_loads(r, c->items[i].la, c->items[i].lb, &it, &m, &info);
			if (rc < 0) {
				fab_err_set(err, rc, "round %zu: no path for pair (%u, %u)", c->round,
					    c->items[i].a, c->items[i].b);
				goto out;
			}
		}
		for (; j < n && c->items[j].la == c->items[i].la && c->items[j].lb == c->items[i].lb; j++) {
			struct chk_item *p = &c->items[j];

			p->e = pair_expected(r, p->a, p->b, info.min_mbps);
			chk_use(c, r->hosts[p->a].link, 1 / sched_topo_cap(r, r->hosts[p->a].link, p->e));
			if (r->hosts[p->b].link != r->hosts[p->a].link)
				chk_use(c, r->hosts[p->b].link, 1 / sched_topo_cap(r, r->hosts[p->b].link, p->e));
		}
		/* Per distinct expected rate within the leaf pair: count x demand. */
		qsort(c->items + i, j - i, sizeof(*c->items), chk_cmp);
		for (size_t k = i; k < j;) {
			size_t q = k;

			while (q < j && c->items[q].e == c->items[k].e)
				q++;
			for (size_t t = 0; t < m; t++)
				chk_use(c, it[t].link, (double)(q - k) * it[t].share /
						       sched_topo_cap(r, it[t].link, c->items[k].e));
			k = q;
		}
		i = j;
	}
	rc = 0;
	for (size_t i = 0; i < c->n_touched && rc == 0; i++)
		if (c->used[c->touched[i]] > 1 + 1e-6) {
			const struct topo_link *l = r->topo->links[c->touched[i]];

			rc = fab_err_set(err, -EINVAL, "round %zu: link %s:%s - %s:%s over capacity (%.3f)",
					 c->round, l->a->node->name, l->a->name, l->b->node->name, l->b->name,
					 c->used[c->touched[i]]);
		}
out:
	for (size_t i = 0; i < c->n_touched; i++)
		c->used[c->touched[i]] = 0;
	c->n_touched = 0;
	for (size_t i = 0; i < n; i++)
		if (pairs[i].a < c->n_hosts && pairs[i].b < c->n_hosts)
			c->busy[pairs[i].a] = c->busy[pairs[i].b] = false;
	return rc;
}

int sched_topo_checker_finish(struct sched_topo_checker *c, struct fab_err *err)
{
	if (c->n_seen != c->n_want)
		return fab_err_set(err, -EINVAL, "%zu of %zu requested pairs scheduled", c->n_seen, c->n_want);
	return 0;
}

int sched_topo_check(const struct sched *s, struct route *r, const struct sched_pair *want,
		     size_t n_want, struct fab_err *err)
{
	struct sched_topo_checker *c;
	int rc = sched_topo_checker_new(&c, r, want, n_want);

	if (rc < 0)
		return fab_err_set(err, rc, "check: requested pairs");
	for (size_t i = 0; i < s->n_rounds && rc == 0; i++)
		rc = sched_topo_checker_round(c, s->pairs + s->round_start[i], sched_round_size(s, i), err);
	if (rc == 0)
		rc = sched_topo_checker_finish(c, err);
	sched_topo_checker_free(c);
	return rc;
}
