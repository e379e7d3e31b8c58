// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTML report's ECMP member table (report_html.h): for a --steer
 * sweep, each link between two switches that a steered test took (the
 * path marked "traced" in pairs[].routes, docs/paths.md), with the tests
 * through it, how many of them were of pairs not ok, their median share
 * of the expected rate and the pairs not ok by name.  A member whose tests
 * are slow while the other members of its set carry healthy tests is the
 * one to pull; the table puts such rows first (the largest share of
 * tests not ok, then the most).  The pairs that fell back
 * to whole ECMP sets are counted by reason above the table.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/stats.h"
#include "render/report_html.h"

/* One test direction through one member link. */
struct hop_fig {
	char *link;		/* "node port\tnode port", the two ends in order */
	const json_t *pair;
	const char *dir;	/* "ab" or "ba" */
	bool bad;
	double pct;		/* the pair's pct_expected, NAN when none */
};

/* "node port" of a hop end (port a name or a number); NULL on ENOMEM. */
static char *end_name(const json_t *e)
{
	const json_t *node = json_object_get(e, "node"), *port = json_object_get(e, "port");
	char *s = NULL;
	int n;

	if (json_is_string(port))
		n = asprintf(&s, "%s %s", json_string_value(node) ? json_string_value(node) : "?",
			     json_string_value(port));
	else if (json_is_integer(port))
		n = asprintf(&s, "%s %lld", json_string_value(node) ? json_string_value(node) : "?",
			     (long long)json_integer_value(port));
	else
		n = asprintf(&s, "%s", json_string_value(node) ? json_string_value(node) : "?");
	return n < 0 ? NULL : s;
}

/* The link of @hop, its two ends in a fixed order (either direction gives the same). */
static char *hop_link(const json_t *hop)
{
	char *a = end_name(json_object_get(hop, "from")), *b = end_name(json_object_get(hop, "to"));
	char *s = NULL;

	if (a && b && asprintf(&s, "%s\t%s", strcmp(a, b) < 0 ? a : b, strcmp(a, b) < 0 ? b : a) < 0)
		s = NULL;
	free(a);
	free(b);
	return s;
}

static int fig_cmp(const void *x, const void *y)
{
	const struct hop_fig *a = x, *b = y;
	int c = strcmp(a->link, b->link);

	if (c)
		return c;
	return (b->bad > a->bad) - (b->bad < a->bad);	/* pairs not ok first within a link */
}

/* The member hops (not the first and last: the hosts' cables) of each steered test. */
static struct hop_fig *member_figs(const json_t *pairs, size_t *n)
{
	size_t cap = 0, i;
	struct hop_fig *v = NULL;
	const json_t *p;

	*n = 0;
	json_array_foreach(pairs, i, p) {
		const json_t *routes = json_object_get(p, "routes"), *pct = json_object_get(p, "pct_expected");
		const char *st = json_string_value(json_object_get(p, "status"));

		if (!json_is_true(json_object_get(json_object_get(p, "steer"), "steered")))
			continue;
		for (int d = 0; d < 2; d++) {
			const json_t *paths = json_object_get(routes, d ? "ba" : "ab"), *path, *hops;
			size_t k, h;

			json_array_foreach(paths, k, path) {
				if (!json_is_true(json_object_get(path, "traced")))
					continue;
				hops = json_object_get(path, "hops");
				for (h = 1; h + 1 < json_array_size(hops); h++) {
					if (*n == cap) {
						struct hop_fig *nv = realloc(v, (cap = cap ? 2 * cap : 64) * sizeof(*v));

						if (!nv)
							goto fail;
						v = nv;
					}
					v[*n] = (struct hop_fig){ hop_link(json_array_get(hops, h)), p,
								  d ? "ba" : "ab", st && strcmp(st, "ok"),
								  json_is_number(pct) ? json_number_value(pct) : NAN };
					if (!v[*n].link)
						goto fail;
					(*n)++;
				}
			}
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), fig_cmp);
	return v;
fail:
	for (size_t k = 0; k < *n; k++)
		free(v[k].link);
	free(v);
	*n = 0;
	return NULL;
}

/* One member link: v[lo..hi). */
struct member {
	size_t lo, hi, bad;
	double pct;	/* median pct_expected of its tests, NAN when none */
};

static int member_cmp(const void *x, const void *y)
{
	const struct member *a = x, *b = y;
	double fa = (double)a->bad / (double)(a->hi - a->lo), fb = (double)b->bad / (double)(b->hi - b->lo);

	if (fa != fb)
		return fa < fb ? 1 : -1;
	if (a->bad != b->bad)	/* the same share: more tests not ok first */
		return a->bad < b->bad ? 1 : -1;
	return (a->lo > b->lo) - (a->lo < b->lo);
}

#define MEMBER_NAMED_MAX 6	/* pairs not ok named per member; the rest counted */

static void member_row(FILE *f, const struct hop_fig *v, const struct member *m)
{
	const char *tab = strchr(v[m->lo].link, '\t');
	char *first = strndup(v[m->lo].link, (size_t)(tab - v[m->lo].link));
	size_t named = 0;

	fputs("<tr><td>", f);
	report_html_esc(f, first ? first : "?");
	free(first);
	fputs("</td><td>", f);
	report_html_esc(f, tab + 1);
	fprintf(f, "</td><td class=\"num\">%zu</td><td class=\"num\">%zu</td><td class=\"num\">", m->hi - m->lo,
		m->bad);
	if (isnan(m->pct))
		fputs("&ndash;", f);
	else
		fprintf(f, "%.0f%%", m->pct);
	fputs("</td><td>", f);
	for (size_t i = m->lo; i < m->hi && v[i].bad; i++) {
		const json_t *p = v[i].pair;
		bool ab = strcmp(v[i].dir, "ab") == 0;

		if (named == MEMBER_NAMED_MAX) {
			fprintf(f, " +%zu more", m->bad - named);
			break;
		}
		fputs(named ? ", " : "<span class=\"tag slow\">", f);
		report_html_esc(f, json_string_value(json_object_get(p, ab ? "a" : "b")));
		fputs(" &rarr; ", f);
		report_html_esc(f, json_string_value(json_object_get(p, ab ? "b" : "a")));
		named++;
	}
	fputs(named ? "</span>" : (m->hi > m->lo ? "all ok" : ""), f);
	fputs("</td></tr>\n", f);
}

/* The fallback line: how many cross-leaf pairs ran on whole ECMP sets, by reason. */
static void fallback_line(FILE *f, const json_t *pairs)
{
	const char *why[16];
	size_t cnt[16], n_why = 0, steered = 0, fell = 0, i;
	const json_t *p;

	json_array_foreach(pairs, i, p) {
		const json_t *s = json_object_get(p, "steer");
		const char *fb = json_string_value(json_object_get(s, "fallback"));
		size_t k;

		if (json_is_true(json_object_get(s, "steered")))
			steered++;
		if (!fb)
			continue;
		fell++;
		for (k = 0; k < n_why && strcmp(why[k], fb); k++)
			;
		if (k == n_why && n_why < 16) {
			why[n_why] = fb;
			cnt[n_why++] = 0;
		}
		if (k < n_why)
			cnt[k]++;
	}
	fprintf(f, "<p>%zu pairs steered onto traced members, %zu on whole ECMP sets", steered, fell);
	for (size_t k = 0; k < n_why; k++) {
		fputs(k ? ", " : " (", f);
		report_html_esc(f, why[k]);
		fprintf(f, " %zu", cnt[k]);
	}
	fputs(n_why ? ")" : "", f);
	fputs(".</p>\n", f);
}

void report_members_table(FILE *f, const json_t *sweep)
{
	const json_t *pairs = json_object_get(sweep, "pairs");
	struct member *ms = NULL;
	struct hop_fig *v;
	double *pct = NULL;
	size_t n, nm = 0;

	v = member_figs(pairs, &n);
	if (!v)
		return;
	ms = calloc(n, sizeof(*ms));
	pct = calloc(n, sizeof(*pct));
	if (!ms || !pct)
		goto out;
	for (size_t i = 0, j; i < n; i = j) {
		size_t np = 0, bad = 0;

		for (j = i; j < n && strcmp(v[j].link, v[i].link) == 0; j++) {
			bad += v[j].bad;
			if (!isnan(v[j].pct))
				pct[np++] = v[j].pct;
		}
		stats_sort(pct, np);
		ms[nm++] = (struct member){ i, j, bad, stats_median_sorted(pct, np) };
	}
	qsort(ms, nm, sizeof(*ms), member_cmp);
	fputs("<section id=\"members\"><h2>ECMP members <small>the links between switches each steered "
	      "test took (--steer), worst first</small></h2>\n", f);
	fallback_line(f, pairs);
	fputs("<table class=\"t\"><thead><tr><th>end</th><th>end</th><th>tests</th><th>not ok</th>"
	      "<th>median % of expected</th><th>pairs not ok (direction the test took)</th></tr></thead>"
	      "<tbody>\n", f);
	for (size_t k = 0; k < nm; k++)
		member_row(f, v, &ms[k]);
	fputs("</tbody></table></section>\n", f);
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].link);
	free(v);
	free(ms);
	free(pct);
}
