// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTML report's rails table (report_html.h): for a sweep of hosts of
 * several fabric ports (pairs with "a_host", "a_rail" ...), each host's
 * median bandwidth on each rail, and the hosts whose rails disagree: a
 * rail below the sweep's slow threshold (config.slow_pct, default 80 %)
 * of the host's best rail, or a rail with no pair measured.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "render/report_html.h"

/* One end of a pair: its host, its rail, the pair's bandwidth (NAN: not measured). */
struct rail_fig {
	const char *host;
	long long rail;
	double mbps;
};

static int fig_cmp(const void *x, const void *y)
{
	const struct rail_fig *a = x, *b = y;
	int c = strcmp(a->host, b->host);

	if (c)
		return c;
	if (a->rail != b->rail)
		return (a->rail > b->rail) - (a->rail < b->rail);
	if (isnan(a->mbps) || isnan(b->mbps))	/* not measured: last */
		return !!isnan(a->mbps) - !!isnan(b->mbps);
	return (a->mbps > b->mbps) - (a->mbps < b->mbps);
}

/* Both ends of every pair with a rail into a new array (*@n), sorted; NULL: none or ENOMEM. */
static struct rail_fig *rail_figs(const json_t *pairs, size_t *n)
{
	struct rail_fig *v = calloc(2 * json_array_size(pairs) + 1, sizeof(*v));
	const json_t *p;
	size_t i;

	*n = 0;
	json_array_foreach(pairs, i, p) {
		const json_t *bw = json_object_get(p, "bw_mbps");
		double mbps = json_is_number(bw) ? json_number_value(bw) : NAN;

		for (int e = 0; v && e < 2; e++) {
			const json_t *h = json_object_get(p, e ? "b_host" : "a_host");
			const json_t *r = json_object_get(p, e ? "b_rail" : "a_rail");

			if (json_is_string(h) && json_is_integer(r))
				v[(*n)++] = (struct rail_fig){ json_string_value(h),
							       json_integer_value(r), mbps };
		}
	}
	if (v && !*n) {
		free(v);
		return NULL;
	}
	if (v)
		qsort(v, *n, sizeof(*v), fig_cmp);
	return v;
}

/* The median of the measured figures of v[lo..hi) (sorted, NAN last), NAN when none. */
static double median(const struct rail_fig *v, size_t lo, size_t hi)
{
	size_t m = lo;

	while (m < hi && !isnan(v[m].mbps))
		m++;
	if (m == lo)
		return NAN;
	return (m - lo) % 2 ? v[lo + (m - lo) / 2].mbps
			    : (v[lo + (m - lo) / 2 - 1].mbps + v[lo + (m - lo) / 2].mbps) / 2;
}

/* One host's row from v[lo..hi) (its figures, by rail). */
static void host_row(FILE *f, const struct rail_fig *v, size_t lo, size_t hi, double slow_pct)
{
	double best = 0, worst = INFINITY;
	bool unmeasured = false;

	fputs("<tr><td>", f);
	report_html_esc(f, v[lo].host);
	fputs("</td><td>", f);
	for (size_t i = lo, j; i < hi; i = j) {
		double m;

		for (j = i; j < hi && v[j].rail == v[i].rail; j++)
			;
		m = median(v, i, j);
		unmeasured |= isnan(m);
		if (!isnan(m)) {
			best = m > best ? m : best;
			worst = m < worst ? m : worst;
		}
		if (isnan(m))
			fprintf(f, "%srail %lld: &ndash;", i > lo ? ", " : "", v[i].rail);
		else
			fprintf(f, "%srail %lld: %.2f Gb/s", i > lo ? ", " : "", v[i].rail, m / 1000);
	}
	fputs("</td><td>", f);
	if (unmeasured || (best > 0 && worst < best * slow_pct / 100))
		fputs("<span class=\"tag slow\">rails disagree</span>", f);
	else
		fputs("ok", f);
	fputs("</td></tr>\n", f);
}

void report_rails_table(FILE *f, const json_t *sweep)
{
	const json_t *pct = json_object_get(json_object_get(sweep, "config"), "slow_pct");
	double slow_pct = json_is_number(pct) ? json_number_value(pct) : 80;
	size_t n;
	struct rail_fig *v = rail_figs(json_object_get(sweep, "pairs"), &n);

	if (!v)
		return;
	fputs("<section id=\"rails\"><h2>Rails <small>each host's median bandwidth per rail"
	      "</small></h2>\n<table class=\"t\"><thead><tr><th>host</th><th>rails</th><th></th>"
	      "</tr></thead><tbody>\n", f);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && strcmp(v[j].host, v[i].host) == 0; j++)
			;
		host_row(f, v, i, j, slow_pct);
	}
	fputs("</tbody></table></section>\n", f);
	free(v);
}

/* ------------------------------------------------------------------ one heatmap per rail */

#define RAIL_MAX 1024	/* rails are 0..1023 (docs/hosts.md) */

static long long node_rail(const json_t *o, const char *key)
{
	const json_t *r = json_object_get(o, key);

	return json_is_integer(r) && json_integer_value(r) >= 0 && json_integer_value(r) < RAIL_MAX
	       ? json_integer_value(r) : -1;
}

/* A pair's rail: its ends' when they agree, the one end's that has one; -1 none, -2 two rails. */
static long long pair_rail(const json_t *p)
{
	long long a = node_rail(p, "a_rail"), b = node_rail(p, "b_rail");

	if (a >= 0 && b >= 0)
		return a == b ? a : -2;
	return a >= 0 ? a : b;
}

/* Host @name into rail view @v: its end point node's leaf, labels and rate (from @node), once. */
static void view_host(json_t *v, const char *name, const json_t *node)
{
	json_t *set = json_object_get(v, "nodes"), *o;

	if (json_object_get(set, name))
		return;
	o = json_pack("{s:s}", "name", name);
	if (!o)
		return;
	if (json_is_string(json_object_get(node, "leaf")))
		json_object_set(o, "leaf", json_object_get(node, "leaf"));
	if (json_is_object(json_object_get(node, "labels")))
		json_object_set(o, "labels", json_object_get(node, "labels"));
	if (json_is_number(json_object_get(node, "rate_gbps")))
		json_object_set(o, "rate_gbps", json_object_get(node, "rate_gbps"));
	json_object_set_new(set, name, o);
}

/* Rail @rail's view: its hosts (an end point on the rail, or one without a rail) and pairs. */
static json_t *rail_view(const json_t *sweep, long long rail)
{
	json_t *v = json_pack("{s:I, s:{}, s:[]}", "rail", (json_int_t)rail, "nodes", "pairs");
	json_t *pairs = json_object_get(v, "pairs"), *arr = json_array(), *p, *q;
	const char *k;
	size_t i;

	if (!v || !arr)
		goto fail;
	json_array_foreach(json_object_get(sweep, "nodes"), i, p) {
		const char *host = json_string_value(json_object_get(p, "host"));
		long long r = node_rail(p, "rail");

		if (host && (r == rail || r < 0))
			view_host(v, host, p);
	}
	json_array_foreach(json_object_get(sweep, "pairs"), i, p) {
		const char *a = json_string_value(json_object_get(p, "a_host"));
		const char *b = json_string_value(json_object_get(p, "b_host"));

		if (!a || !b || !strcmp(a, b) || pair_rail(p) != rail || !(q = json_copy(p)))
			continue;
		view_host(v, a, NULL);
		view_host(v, b, NULL);
		json_object_set_new(q, "a", json_string(a));
		json_object_set_new(q, "b", json_string(b));
		json_array_append_new(pairs, q);
	}
	json_object_foreach(json_object_get(v, "nodes"), k, p)
		json_array_append(arr, p);
	json_object_set_new(v, "nodes", arr);
	json_object_set(v, "reference", json_object_get(sweep, "reference"));
	json_object_set(v, "config", json_object_get(sweep, "config"));
	return v;
fail:
	json_decref(v);
	json_decref(arr);
	return NULL;
}

int report_rail_views(const json_t *sweep, json_t **views, size_t *cross)
{
	bool *seen = calloc(RAIL_MAX, sizeof(*seen));
	const json_t *p;
	json_t *v;
	size_t i;
	int rc = 0;

	*views = NULL;
	*cross = 0;
	if (!seen)
		return -ENOMEM;
	json_array_foreach(json_object_get(sweep, "nodes"), i, p)
		if (json_is_string(json_object_get(p, "host")) && node_rail(p, "rail") >= 0)
			seen[node_rail(p, "rail")] = true;
	json_array_foreach(json_object_get(sweep, "pairs"), i, p)
		*cross += pair_rail(p) == -2;
	for (long long r = 0; r < RAIL_MAX && !rc; r++) {
		if (!seen[r])
			continue;
		if (!*views && !(*views = json_array()))
			rc = -ENOMEM;
		else if (!(v = rail_view(sweep, r)) || json_array_append_new(*views, v))
			rc = -ENOMEM;
	}
	free(seen);
	if (rc) {
		json_decref(*views);
		*views = NULL;
	}
	return rc;
}
