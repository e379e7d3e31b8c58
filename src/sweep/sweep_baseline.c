// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep --baseline OLD.json: the pairs of an earlier sweep document, read
 * and checked up front, matched to this sweep's pairs by host names (see
 * sweep_baseline.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_scan.h"
#include "io/load.h"
#include "io/pair_store.h"
#include "sweep/sweep_baseline.h"
#include "util/str.h"

/* A sweep of 1024 nodes with every figure is ~300 MB of pretty JSON; refuse more than 1 GiB. */
#define BASELINE_MAX_BYTES (1024UL * 1024 * 1024)

struct sweep_base_pair {
	unsigned int lo, hi;	/* host indices of this sweep, lo < hi */
	size_t ord;		/* index in the document: the first of a pair listed twice wins */
	double lo_hi, hi_lo;	/* the old average of each direction, NAN not measured */
};

/* One pair of the old document as read: its names (one allocation) and averages. */
struct sweep_base_raw {
	char *a, *b;		/* a owns the block; b points into it */
	double ab, ba;		/* NAN: not measured */
};

/* The largest pair element (routes listed) or top-level member taken whole. */
#define BASELINE_VALUE_MAX (16u << 20)

/* A direction's old average: NAN for null, else its "avg_mbps" (a number). */
static int base_bw(const char *path, size_t i, const char *key, json_t *pair, double *out,
		   struct fab_err *err)
{
	json_t *bw = json_object_get(pair, key), *avg;

	*out = NAN;
	if (!bw || json_is_null(bw))
		return 0;
	avg = json_object_get(bw, "avg_mbps");
	if (!json_is_object(bw) || !json_is_number(avg) || json_number_value(avg) < 0)
		return fab_err_input(err, -EINVAL, "%s: pairs[%zu].%s: want null or an object with "
				     "avg_mbps >= 0", path, i, key);
	*out = json_number_value(avg);
	return 0;
}

struct base_scan {
	struct sweep_baseline *b;
	const char *schema_bad;	/* the schema seen when it is not a sweep's; NULL fine */
	bool have_schema, have_pairs;
	char schema[64];
};

/* Each top-level member and each pair of the old document, as io/json_scan.c reads them. */
static int base_member(void *ctx, const char *key, ssize_t i, json_t *v, struct fab_err *err)
{
	struct base_scan *c = ctx;
	struct sweep_baseline *b = c->b;
	struct sweep_base_raw *r;
	const char *na, *nb;
	size_t la, lb;

	if (!strcmp(key, "schema")) {
		c->have_schema = true;
		str_fmt(c->schema, sizeof(c->schema), "%s", json_is_string(v) ? json_string_value(v)
			: "(none)");
		return 0;
	}
	if (!strcmp(key, "started_unix")) {
		b->started_unix = json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
		return 0;
	}
	if (strcmp(key, "pairs"))
		return 0;	/* not compared: checked as JSON, not kept */
	if (i < 0) {
		if (json_is_array(v) && !json_array_size(v)) {
			c->have_pairs = true;
			return 0;
		}
		return fab_err_input(err, -EINVAL, "%s: pairs: missing or not an array", b->path);
	}
	c->have_pairs = true;
	if (!v)
		return fab_err_input(err, -EFBIG, "%s: pairs[%zd]: larger than %u bytes", b->path, i,
				     BASELINE_VALUE_MAX);
	na = json_string_value(json_object_get(v, "a"));
	nb = json_string_value(json_object_get(v, "b"));
	if (!na || !nb)
		return fab_err_input(err, -EINVAL, "%s: pairs[%zd]: a and b must be host names",
				     b->path, i);
	if (b->n_raw == b->cap_raw) {
		size_t cap = b->cap_raw ? b->cap_raw * 2 : 1024;
		struct sweep_base_raw *t = realloc(b->raw, cap * sizeof(*t));

		if (!t)
			return fab_err_set(err, -ENOMEM, "%s: out of memory", b->path);
		b->raw = t;
		b->cap_raw = cap;
	}
	r = &b->raw[b->n_raw];
	if (base_bw(b->path, (size_t)i, "bw_ab", v, &r->ab, err) < 0 ||
	    base_bw(b->path, (size_t)i, "bw_ba", v, &r->ba, err) < 0)
		return -EINVAL;
	la = strlen(na);
	lb = strlen(nb);
	r->a = malloc(la + lb + 2);
	if (!r->a)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", b->path);
	memcpy(r->a, na, la + 1);
	r->b = r->a + la + 1;
	memcpy(r->b, nb, lb + 1);
	b->n_raw++;
	return 0;
}

int sweep_baseline_load(struct sweep_baseline *b, const char *path, struct fab_err *err)
{
	struct base_scan c = { .b = b };
	int rc;

	memset(b, 0, sizeof(*b));
	b->path = path;
	rc = json_doc_scan(path, BASELINE_MAX_BYTES, "pairs", BASELINE_VALUE_MAX, base_member, &c, err);
	if (rc < 0)
		return rc;
	if (!c.have_schema || (strcmp(c.schema, "fabricctl.sweep/1") && strcmp(c.schema, "fabricctl.sweep/2")))
		return fab_err_input(err, -EINVAL, "%s: schema '%s': want a sweep document "
				     "(fabricctl.sweep/1 or /2, sweep -j)", path,
				     c.have_schema ? c.schema : "(none)");
	if (!c.have_pairs)
		return fab_err_input(err, -EINVAL, "%s: pairs: missing or not an array", path);
	b->loaded = true;
	return 0;
}

void sweep_baseline_fini(struct sweep_baseline *b)
{
	for (size_t i = 0; i < b->n_raw; i++)
		free(b->raw[i].a);
	free(b->raw);
	free(b->pairs);
	memset(b, 0, sizeof(*b));
}

struct name_ix {
	const char *name;
	unsigned int ix;
};

static int name_ix_cmp(const void *x, const void *y)
{
	return strcmp(((const struct name_ix *)x)->name, ((const struct name_ix *)y)->name);
}

static int name_find(const struct name_ix *t, size_t n, const char *name)
{
	struct name_ix key = { name, 0 };
	const struct name_ix *hit = bsearch(&key, t, n, sizeof(*t), name_ix_cmp);

	return hit ? (int)hit->ix : -1;
}

static int base_pair_cmp(const void *x, const void *y)
{
	const struct sweep_base_pair *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

static int base_pair_ord_cmp(const void *x, const void *y)
{
	const struct sweep_base_pair *a = x, *b = y;
	int c = base_pair_cmp(x, y);

	return c ? c : a->ord < b->ord ? -1 : a->ord > b->ord;
}

/* The old pairs whose two hosts are in this sweep, by this sweep's host indices. */
static int baseline_resolve(struct sweep_baseline *b, const struct fab_hosts *hs)
{
	struct name_ix *names = calloc(hs->n ? hs->n : 1, sizeof(*names));
	size_t i;

	b->pairs = calloc(b->n_raw + 1, sizeof(*b->pairs));
	if (!names || !b->pairs) {
		free(names);
		return -ENOMEM;
	}
	for (i = 0; i < hs->n; i++)
		names[i] = (struct name_ix){ hs->hosts[i].name, (unsigned int)i };
	qsort(names, hs->n, sizeof(*names), name_ix_cmp);
	for (i = 0; i < b->n_raw; i++) {
		const struct sweep_base_raw *p = &b->raw[i];
		int a = name_find(names, hs->n, p->a);
		int c = name_find(names, hs->n, p->b);
		struct sweep_base_pair *e = &b->pairs[b->n];

		if (a < 0 || c < 0 || a == c)
			continue;	/* a host this sweep does not have */
		e->lo = (unsigned int)(a < c ? a : c);
		e->hi = (unsigned int)(a < c ? c : a);
		e->lo_hi = a < c ? p->ab : p->ba;
		e->hi_lo = a < c ? p->ba : p->ab;
		e->ord = i;
		b->n++;
	}
	free(names);
	qsort(b->pairs, b->n, sizeof(*b->pairs), base_pair_ord_cmp);
	if (b->n) {	/* drop the later copies of a pair */
		size_t w = 1;

		for (size_t k = 1; k < b->n; k++)
			if (base_pair_cmp(&b->pairs[k], &b->pairs[w - 1]))
				b->pairs[w++] = b->pairs[k];
		b->n = w;
	}
	b->resolved = true;
	return 0;
}

int sweep_baseline_apply(struct sweep_baseline *b, double regress_pct, struct sweep_report *r,
			 struct fab_err *err)
{
	size_t compared = 0;
	struct sweep_pair p;
	int rc;

	if (!b->loaded)
		return 0;
	if (!b->resolved && baseline_resolve(b, r->hosts) < 0)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < r->n_pairs; i++) {
		struct sweep_base_pair key;
		const struct sweep_base_pair *e;

		if ((rc = pair_store_get(r->store, i, &p, err)) < 0)
			return rc;
		key = (struct sweep_base_pair){ .lo = p.a < p.b ? p.a : p.b, .hi = p.a < p.b ? p.b : p.a };
		e = bsearch(&key, b->pairs, b->n, sizeof(*b->pairs), base_pair_cmp);
		p.have_base = e != NULL;
		p.base_ab_mbps = !e ? NAN : p.a == e->lo ? e->lo_hi : e->hi_lo;
		p.base_ba_mbps = !e ? NAN : p.a == e->lo ? e->hi_lo : e->lo_hi;
		sweep_pair_judge_base(&p, regress_pct);
		compared += !isnan(p.change_pct);
		if ((rc = pair_store_put(r->store, i, &p, err)) < 0)
			return rc;
	}
	r->baseline.file = b->path;
	r->baseline.regress_pct = regress_pct;
	r->baseline.started_unix = b->started_unix;
	r->baseline.compared = compared;
	return 0;
}
