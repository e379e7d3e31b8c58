// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTML report (report_html.h, docs/report.md).  Three steps:
 *  1. the fabric graph: nodes and links from the sweep's "topology"
 *     (sweep/2) or a discover document, layered by distance from the hosts
 *     (hosts 0, leaves 1, spines 2, ...); without either, hosts and the
 *     leaves named by labels;
 *  2. the sweep: hosts ordered by group (their leaf) then name, every pair's
 *     figures packed into columns over the upper triangle of that order,
 *     paths mapped onto graph links, per-link crossing and bad counts;
 *  3. the page: header, cards and tables in HTML; figures, graph and
 *     suspects in the JSON data block the inline script draws.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/hosts.h"
#include "render/render.h"
#include "render/report_html.h"
#include "util/array.h"
#include "util/file.h"

#ifndef FAB_VERSION
#define FAB_VERSION "0.1"
#endif

/* Per-pair details (round, reason, path) for every pair up to this many pairs, else only pairs not ok. */
#define REPORT_DETAIL_ALL_MAX 20000
/* Rows of the "pairs not ok" table. */
#define REPORT_BAD_ROWS_MAX 500

extern const char report_html_css[];
extern const char report_html_js[];
extern const char report_html_rails_css[];
extern const char report_html_rails_js[];

/* Where in report_html_js the rails' part goes (report_html_assets.c). */
#define REPORT_JS_RAILS_AT \
	"/* ---------------------------------------------------------------- fabric graph */"

/* ------------------------------------------------------------------ helpers */

void report_init(struct report *r)
{
	memset(r, 0, sizeof(*r));
	r->regress_pct = -1;
}

void report_fini(struct report *r)
{
	for (int k = 0; k < REPORT_KINDS; k++)
		json_decref(r->doc[k]);
	memset(r, 0, sizeof(*r));
}

static const char *const kind_names[REPORT_KINDS] = { "sweep", "discover", "diagnose", "accept",
							"baseline" };

int report_add(struct report *r, const char *name, json_t *doc, struct fab_err *err)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	int kind = -1;

	if (!json_is_object(doc))
		return fab_err_input(err, -EINVAL, "%s: not a JSON object", name);
	if (!schema)
		return fab_err_input(err, -EINVAL, "%s: no \"schema\": not a fabricctl document", name);
	if (!strcmp(schema, "fabricctl.sweep/1") || !strcmp(schema, "fabricctl.sweep/2"))
		kind = REPORT_SWEEP;
	else if (!strcmp(schema, "fabricctl.discover/1"))
		kind = REPORT_DISCOVER;
	else if (!strncmp(schema, "fabricctl.diagnose/", 19))
		kind = REPORT_DIAGNOSE;
	else if (!strncmp(schema, "fabricctl.accept/", 17))
		kind = REPORT_ACCEPT;
	if (kind < 0)
		return fab_err_input(err, -EINVAL,
				     "%s: unknown schema '%s' (want fabricctl.sweep/1 or /2, "
				     "fabricctl.discover/1, fabricctl.diagnose/N, fabricctl.accept/N)",
				     name, schema);
	if (r->doc[kind])
		return fab_err_input(err, -EINVAL, "%s: a second %s document (the first is %s): "
				     "one of each kind per report", name, kind_names[kind],
				     r->name[kind]);
	r->doc[kind] = json_incref(doc);
	r->name[kind] = name;
	return 0;
}

int report_add_baseline(struct report *r, const char *name, json_t *doc, struct fab_err *err)
{
	const char *schema = json_string_value(json_object_get(doc, "schema"));

	if (!json_is_object(doc) || !schema ||
	    (strcmp(schema, "fabricctl.sweep/1") && strcmp(schema, "fabricctl.sweep/2")))
		return fab_err_input(err, -EINVAL, "%s: schema '%s': a baseline is a sweep document "
				     "(fabricctl.sweep/1 or /2)", name, schema ? schema : "(none)");
	if (!json_is_array(json_object_get(doc, "pairs")))
		return fab_err_input(err, -EINVAL, "%s: pairs: missing or not an array", name);
	if (r->doc[REPORT_BASELINE])
		return fab_err_input(err, -EINVAL, "%s: a second baseline (the first is %s)", name,
				     r->name[REPORT_BASELINE]);
	r->doc[REPORT_BASELINE] = json_incref(doc);
	r->name[REPORT_BASELINE] = name;
	return 0;
}

char *report_json_for_script(const json_t *doc)
{
	char *s = json_dumps(doc, JSON_COMPACT | JSON_ENCODE_ANY), *o;
	size_t n = 0, j = 0;

	if (!s)
		return NULL;
	for (const char *p = s; *p; p++)
		n += (*p == '<' || *p == '>' || *p == '&') ? 6 : 1;
	o = malloc(n + 1);
	if (!o) {
		free(s);
		return NULL;
	}
	for (const char *p = s; *p; p++) {
		if (*p == '<' || *p == '>' || *p == '&') {
			/* Only inside JSON strings can these appear: \u escapes are equal there. */
			j += (size_t)sprintf(o + j, "\\u%04x", (unsigned)*p);
		} else {
			o[j++] = *p;
		}
	}
	o[j] = '\0';
	free(s);
	return o;
}

static double jnum(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Natural order: digit runs compare as numbers (leaf2 < leaf10). */
static int natcmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *ea = a, *eb = b;
			size_t la, lb;
			int c;

			while (*a == '0' && isdigit((unsigned char)a[1]))
				a++;
			while (*b == '0' && isdigit((unsigned char)b[1]))
				b++;
			for (ea = a; isdigit((unsigned char)*ea); ea++)
				;
			for (eb = b; isdigit((unsigned char)*eb); eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			c = strncmp(a, b, la);
			if (c)
				return c;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

/* A name -> index table, sorted for bsearch. */
struct name_ix {
	const char *name;
	int ix;
};

static int name_ix_cmp(const void *x, const void *y)
{
	return strcmp(((const struct name_ix *)x)->name, ((const struct name_ix *)y)->name);
}

static int name_ix_find(const struct name_ix *t, size_t n, const char *name)
{
	struct name_ix key = { name, 0 }, *hit;

	if (!name || !n)
		return -1;
	hit = bsearch(&key, t, n, sizeof(*t), name_ix_cmp);
	return hit ? hit->ix : -1;
}

/* Little-endian packing and base64 of the figure columns. */
static char *base64(const uint8_t *b, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *o = malloc((n + 2) / 3 * 4 + 1), *p = o;

	if (!o)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)b[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)b[i + 1] << 8;
		if (i + 2 < n)
			v |= b[i + 2];
		*p++ = tab[(v >> 18) & 63];
		*p++ = tab[(v >> 12) & 63];
		*p++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*p++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*p = '\0';
	return o;
}

/*
 * A positive figure on a log scale in 16 bits: 0 unknown, 1 zero (or
 * negative), else 2 + round((log2(x) + 16) * 1000): 0.07 % steps from
 * 2^-16 to 2^49.  The page decodes with 2^((v - 2) / 1000 - 16).
 */
static uint16_t enc_log(double x)
{
	double v;

	if (isnan(x))
		return 0;
	if (x <= 0)
		return 1;
	v = 2 + round((log2(x) + 16) * 1000);
	return v < 2 ? 2 : v > 65535 ? 65535 : (uint16_t)v;
}

static json_t *json_b64(const void *b, size_t n)
{
	char *s = base64(b, n);
	json_t *j = s ? json_string(s) : NULL;

	free(s);
	return j ? j : json_null();
}

static void put16(uint8_t *b, size_t i, uint16_t v)
{
	b[2 * i] = (uint8_t)(v & 0xff);
	b[2 * i + 1] = (uint8_t)(v >> 8);
}

/* ------------------------------------------------------------------ graph */

struct gnode {
	const char *name;
	const char *type;	/* "switch", "ca", "host", ... or NULL */
	int layer;		/* 0 hosts, 1 leaves, 2 spines, ...; -1 unreached */
	int host;		/* display index of the sweep host it is, or -1 */
	bool suspect;
};

struct glink {
	int a, b;			/* gnode indices */
	json_t *ap, *bp;		/* ports (borrowed; NULL when unknown) */
	const char *status;		/* from the topology: "ok", "down", ... or NULL */
	unsigned int n, bad;		/* pairs whose path crosses it, of them not ok */
	bool suspect;
	char *key;			/* canonical "end|end" */
};

struct graph {
	struct gnode *nodes;
	size_t n_nodes;
	struct glink *links;
	size_t n_links;
	struct name_ix *by_name;	/* over nodes */
	struct glink **by_key;		/* over links, sorted by key */
	bool inferred;			/* from labels, not a topology */
	const char *source;
};

static void graph_fini(struct graph *g)
{
	for (size_t i = 0; i < g->n_links; i++)
		free(g->links[i].key);
	free(g->nodes);
	free(g->links);
	free(g->by_name);
	free(g->by_key);
	memset(g, 0, sizeof(*g));
}

static char *end_str(const char *node, const json_t *port)
{
	char *s = NULL;

	if (json_is_integer(port))
		(void)!asprintf(&s, "%s\x1f%lld", node, (long long)json_integer_value(port));
	else if (json_is_string(port))
		(void)!asprintf(&s, "%s\x1f%s", node, json_string_value(port));
	else
		(void)!asprintf(&s, "%s\x1f", node);
	return s;
}

/* "A|B" with the ends in strcmp order; NULL on ENOMEM. */
static char *link_key(const char *an, const json_t *ap, const char *bn, const json_t *bp)
{
	char *a = end_str(an, ap), *b = end_str(bn, bp), *k = NULL;

	if (a && b) {
		if (strcmp(a, b) > 0) {
			char *t = a;

			a = b;
			b = t;
		}
		(void)!asprintf(&k, "%s\x1e%s", a, b);
	}
	free(a);
	free(b);
	return k;
}

static int glink_key_cmp(const void *x, const void *y)
{
	return strcmp((*(struct glink *const *)x)->key, (*(struct glink *const *)y)->key);
}

static int graph_find_link(const struct graph *g, const json_t *l)
{
	const json_t *a = json_object_get(l, "a"), *b = json_object_get(l, "b");
	const char *an = jstr(a, "node"), *bn = jstr(b, "node");
	struct glink key = { 0 }, *kp = &key, **hit;
	int ix = -1;

	if (!an || !bn || !g->n_links)
		return -1;
	key.key = link_key(an, json_object_get(a, "port"), bn, json_object_get(b, "port"));
	if (!key.key)
		return -1;
	hit = bsearch(&kp, g->by_key, g->n_links, sizeof(*g->by_key), glink_key_cmp);
	if (hit)
		ix = (int)(*hit - g->links);
	free(key.key);
	return ix;
}

static int graph_add_node(struct graph *g, const char *name, const char *type)
{
	struct gnode *t = array_add((void **)&g->nodes, &g->n_nodes, sizeof(*t));

	if (!t)
		return -ENOMEM;
	*t = (struct gnode){ .name = name, .type = type, .layer = -1, .host = -1 };
	return (int)g->n_nodes - 1;
}

static int graph_add_link(struct graph *g, int a, int b, json_t *ap, json_t *bp, const char *status)
{
	struct glink *t = realloc(g->links, (g->n_links + 1) * sizeof(*t));

	if (!t)
		return -ENOMEM;
	g->links = t;
	t[g->n_links] = (struct glink){ .a = a, .b = b, .ap = ap, .bp = bp, .status = status };
	t[g->n_links].key = link_key(g->nodes[a].name, ap, g->nodes[b].name, bp);
	if (!t[g->n_links].key)
		return -ENOMEM;
	g->n_links++;
	return 0;
}

static int graph_index(struct graph *g)
{
	free(g->by_name);
	free(g->by_key);
	g->by_name = calloc(g->n_nodes + 1, sizeof(*g->by_name));
	g->by_key = calloc(g->n_links + 1, sizeof(*g->by_key));
	if (!g->by_name || !g->by_key)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_nodes; i++)
		g->by_name[i] = (struct name_ix){ g->nodes[i].name, (int)i };
	qsort(g->by_name, g->n_nodes, sizeof(*g->by_name), name_ix_cmp);
	for (size_t i = 0; i < g->n_links; i++)
		g->by_key[i] = &g->links[i];
	qsort(g->by_key, g->n_links, sizeof(*g->by_key), glink_key_cmp);
	return 0;
}

/*
 * The graph of a topology object ({nodes: [name | {name, type|kind}],
 * links: [{a: {node, port}, b: {node, port}, status?}]}).  Link ends that
 * name a node not listed add it.
 */
static int graph_from_topology(struct graph *g, const json_t *topo, struct fab_err *err)
{
	const json_t *nodes = json_object_get(topo, "nodes"), *links = json_object_get(topo, "links");
	const json_t *v;
	size_t i;
	int rc;

	json_array_foreach(nodes, i, v) {
		const char *name = json_is_string(v) ? json_string_value(v) : jstr(v, "name");
		const char *type = jstr(v, "type") ? jstr(v, "type") : jstr(v, "kind");

		if (name && (rc = graph_add_node(g, name, type)) < 0)
			return fab_err_set(err, rc, "report: out of memory");
	}
	if ((rc = graph_index(g)) < 0)
		return fab_err_set(err, rc, "report: out of memory");
	json_array_foreach(links, i, v) {
		json_t *a = json_object_get(v, "a"), *b = json_object_get(v, "b");
		const char *an = jstr(a, "node"), *bn = jstr(b, "node");
		int ai, bi;

		if (!an || !bn)
			continue;
		ai = name_ix_find(g->by_name, g->n_nodes, an);
		if (ai < 0 && (ai = graph_add_node(g, an, NULL)) >= 0)
			rc = graph_index(g);
		bi = name_ix_find(g->by_name, g->n_nodes, bn);
		if (bi < 0 && (bi = graph_add_node(g, bn, NULL)) >= 0)
			rc = graph_index(g);
		if (ai < 0 || bi < 0 || rc < 0)
			return fab_err_set(err, -ENOMEM, "report: out of memory");
		rc = graph_add_link(g, ai, bi, json_object_get(a, "port"), json_object_get(b, "port"),
				    jstr(v, "status"));
		if (rc < 0)
			return fab_err_set(err, rc, "report: out of memory");
	}
	if ((rc = graph_index(g)) < 0)
		return fab_err_set(err, rc, "report: out of memory");
	return 0;
}

static bool type_is_endpoint(const char *type)
{
	return type && (!strcmp(type, "ca") || !strcmp(type, "host"));
}

/* Layers by breadth-first distance from the end points (hosts, CAs). */
static int graph_layer(struct graph *g)
{
	int *queue = calloc(g->n_nodes + 1, sizeof(*queue));
	size_t head = 0, tail = 0;

	if (!queue)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (g->nodes[i].host >= 0 || type_is_endpoint(g->nodes[i].type)) {
			g->nodes[i].layer = 0;
			queue[tail++] = (int)i;
		}
	}
	while (head < tail) {
		int u = queue[head++];

		/* Links are few per node; a scan per node keeps this simple (1k nodes: fine). */
		for (size_t l = 0; l < g->n_links; l++) {
			int v = g->links[l].a == u ? g->links[l].b : g->links[l].b == u ? g->links[l].a : -1;

			if (v >= 0 && g->nodes[v].layer < 0) {
				g->nodes[v].layer = g->nodes[u].layer + 1;
				queue[tail++] = v;
			}
		}
	}
	for (size_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].layer < 0)
			g->nodes[i].layer = 1;
	free(queue);
	return 0;
}

/* ------------------------------------------------------------------ sweep view */

struct shost {
	const char *name;
	const char *group;	/* leaf / IB switch, "" when unknown */
	double rate_gbps;	/* NAN unknown */
	int gnode;		/* graph node, -1 */
	int access;		/* graph drawn from labels: its one link, else -1 */
	unsigned int bad, pairs;
};

struct sview {
	const json_t *doc;
	struct shost *h;	/* in display order */
	size_t n;
	struct name_ix *by_name;	/* name -> display index */
	bool rail_view;		/* a rail's hosts (report_rail_views()): graph not counted */
};

static int shost_cmp(const void *x, const void *y)
{
	const struct shost *a = x, *b = y;
	int c = natcmp(a->group, b->group);

	return c ? c : natcmp(a->name, b->name);
}

/* The leaf label of a host: the sweep node's own labels, then the hosts file. */
static const char *label_group(const struct report *r, const json_t *node, const char *name)
{
	const char *s = jstr(node, "leaf");

	if (!s)
		s = jstr(json_object_get(node, "labels"), "leaf");
	if (!s && r->hosts) {
		int i = hosts_find(r->hosts, name);

		if (i >= 0)
			s = r->hosts->hosts[i].leaf[0] ? r->hosts->hosts[i].leaf
			    : r->hosts->hosts[i].rack[0] ? r->hosts->hosts[i].rack : NULL;
	}
	if (!s)
		s = jstr(json_object_get(node, "labels"), "rack");
	return s ? s : "";
}

/* The graph node of sweep host @name: same name, "NAME DEV" (IB), or a node whose "host" is NAME. */
static int graph_host_node(const struct graph *g, const json_t *topo, const char *name)
{
	int ix = name_ix_find(g->by_name, g->n_nodes, name);
	size_t len = strlen(name), i;
	const json_t *v;

	if (ix >= 0)
		return ix;
	for (size_t k = 0; k < g->n_nodes; k++)
		if (!strncmp(g->nodes[k].name, name, len) && g->nodes[k].name[len] == ' ')
			return (int)k;
	json_array_foreach(json_object_get(topo, "nodes"), i, v) {
		const char *h = jstr(v, "host"), *n = jstr(v, "name");

		if (h && n && !strcmp(h, name))
			return name_ix_find(g->by_name, g->n_nodes, n);
	}
	return -1;
}

static int sview_build(struct sview *sv, const struct report *r, struct graph *g,
		       const json_t *topo, struct fab_err *err)
{
	const json_t *nodes = json_object_get(sv->doc, "nodes"), *v;
	size_t i;

	sv->n = json_array_size(nodes);
	sv->h = calloc(sv->n + 1, sizeof(*sv->h));
	sv->by_name = calloc(sv->n + 1, sizeof(*sv->by_name));
	if (!sv->h || !sv->by_name)
		return fab_err_set(err, -ENOMEM, "report: out of memory");
	json_array_foreach(nodes, i, v) {
		struct shost *h = &sv->h[i];

		h->name = jstr(v, "name");
		if (!h->name)
			return fab_err_input(err, -EINVAL, "%s: nodes[%zu]: no \"name\"",
					     r->name[REPORT_SWEEP], i);
		h->rate_gbps = jnum(v, "rate_gbps");
		h->access = -1;
		h->gnode = g->n_nodes ? graph_host_node(g, topo, h->name) : -1;
		/* Hosts known to the sweep are end points even when the topology gives no type. */
		if (h->gnode >= 0)
			g->nodes[h->gnode].host = (int)i;
	}
	if (g->n_nodes && graph_layer(g) < 0)
		return fab_err_set(err, -ENOMEM, "report: out of memory");
	json_array_foreach(nodes, i, v) {
		struct shost *h = &sv->h[i];

		h->group = NULL;
		if (h->gnode >= 0) {
			/* Its leaf: the first (in natural order) neighbour one layer up. */
			for (size_t l = 0; l < g->n_links; l++) {
				int o = g->links[l].a == h->gnode ? g->links[l].b
					: g->links[l].b == h->gnode ? g->links[l].a : -1;

				if (o >= 0 && g->nodes[o].layer == 1 &&
				    (!h->group || natcmp(g->nodes[o].name, h->group) < 0))
					h->group = g->nodes[o].name;
			}
		}
		if (!h->group)
			h->group = label_group(r, v, h->name);
	}
	qsort(sv->h, sv->n, sizeof(*sv->h), shost_cmp);
	for (i = 0; i < sv->n; i++) {
		sv->by_name[i] = (struct name_ix){ sv->h[i].name, (int)i };
		if (sv->h[i].gnode >= 0)
			g->nodes[sv->h[i].gnode].host = (int)i;
	}
	qsort(sv->by_name, sv->n, sizeof(*sv->by_name), name_ix_cmp);
	for (i = 1; i < sv->n; i++)
		if (!strcmp(sv->by_name[i - 1].name, sv->by_name[i].name))
			return fab_err_input(err, -EINVAL, "%s: node '%s' listed twice",
					     r->name[REPORT_SWEEP], sv->by_name[i].name);
	return 0;
}

static void sview_fini(struct sview *sv)
{
	free(sv->h);
	free(sv->by_name);
}

/* Upper-triangle index of display positions i < j. */
static size_t tri(size_t n, size_t i, size_t j)
{
	return i * n - i * (i + 1) / 2 + (j - i - 1);
}

static int status_code(const char *s)
{
	if (!s)
		return 0;
	if (!strcmp(s, "ok"))
		return 1;
	if (!strcmp(s, "slow"))
		return 2;
	if (!strcmp(s, "failed"))
		return 3;
	if (!strcmp(s, "regressed"))
		return 4;
	return 0;
}

/* Without a topology: hosts and the leaves their labels name, one link each. */
static int graph_from_groups(struct graph *g, struct sview *sv)
{
	int rc;

	for (size_t i = 0; i < sv->n; i++)
		if (!*sv->h[i].group)
			return 0;	/* some host has no leaf: no graph */
	for (size_t i = 0; i < sv->n; i++) {
		int hn, ln;

		if ((hn = graph_add_node(g, sv->h[i].name, "host")) < 0)
			return hn;
		g->nodes[hn].layer = 0;
		g->nodes[hn].host = (int)i;
		if ((rc = graph_index(g)) < 0)
			return rc;
		ln = name_ix_find(g->by_name, g->n_nodes, sv->h[i].group);
		if (ln < 0) {
			if ((ln = graph_add_node(g, sv->h[i].group, "switch")) < 0)
				return ln;
			g->nodes[ln].layer = 1;
			if ((rc = graph_index(g)) < 0)
				return rc;
		}
		if ((rc = graph_add_link(g, hn, ln, NULL, NULL, NULL)) < 0)
			return rc;
		sv->h[i].access = (int)g->n_links - 1;
	}
	g->inferred = true;
	g->source = "labels";
	return graph_index(g);
}

struct cols {
	uint8_t *st, *ij, *ji, *l50, *l99, *exp;
	uint8_t *bij, *bji;	/* the baseline's bandwidth i -> j, j -> i; NULL: no baseline */
	bool any_exp;
};

static void cols_fini(struct cols *c)
{
	free(c->bij);
	free(c->bji);
	free(c->st);
	free(c->ij);
	free(c->ji);
	free(c->l50);
	free(c->l99);
	free(c->exp);
}

/* Mark the graph links of suspect @s (link, group, or a node's access links). */
static void suspect_mark(struct graph *g, const struct sview *sv, const json_t *s, json_t *out_links)
{
	const char *node = jstr(s, "node");
	const json_t *link = json_object_get(s, "link"), *links = json_object_get(s, "links"), *v;
	size_t i;
	int ix;

	if (json_is_object(link) && (ix = graph_find_link(g, link)) >= 0) {
		g->links[ix].suspect = true;
		json_array_append_new(out_links, json_integer(ix));
	}
	json_array_foreach(links, i, v) {
		if ((ix = graph_find_link(g, v)) >= 0) {
			g->links[ix].suspect = true;
			json_array_append_new(out_links, json_integer(ix));
		}
	}
	if (node) {
		int gn = name_ix_find(g->by_name, g->n_nodes, node);
		int h = name_ix_find(sv->by_name, sv->n, node);

		if (gn < 0 && h >= 0)
			gn = sv->h[h].gnode;
		if (gn >= 0) {
			g->nodes[gn].suspect = true;
			/* A node suspect without a named link: its access links. */
			if (!json_is_object(link) && g->nodes[gn].layer == 0)
				for (size_t l = 0; l < g->n_links; l++)
					if (g->links[l].a == gn || g->links[l].b == gn) {
						g->links[l].suspect = true;
						json_array_append_new(out_links, json_integer((json_int_t)l));
					}
		}
	}
	/* sweep/1: "link": [nodeA, nodeB] names a pair of hosts. */
	json_array_foreach(json_is_array(link) ? link : NULL, i, v) {
		int gn = name_ix_find(g->by_name, g->n_nodes, json_string_value(v));

		if (gn >= 0)
			g->nodes[gn].suspect = true;
	}
}

/* ------------------------------------------------------------------ the data block */

static json_t *suspects_data(struct graph *g, const struct sview *sv, const json_t *sus,
			     const char *from)
{
	json_t *arr = json_array();
	const json_t *s;
	size_t i;

	json_array_foreach(sus, i, s) {
		json_t *links = json_array();

		suspect_mark(g, sv, s, links);
		json_array_append_new(arr, json_pack("{s:s, s:o}", "from", from, "links", links));
	}
	return arr;
}

static json_t *graph_data(const struct graph *g)
{
	json_t *nodes = json_array(), *links = json_array();

	for (size_t i = 0; i < g->n_nodes; i++)
		json_array_append_new(nodes, json_pack("[s, i, i, b, o]", g->nodes[i].name,
			g->nodes[i].layer, g->nodes[i].host, g->nodes[i].suspect,
			g->nodes[i].type ? json_string(g->nodes[i].type) : json_null()));
	for (size_t i = 0; i < g->n_links; i++) {
		const struct glink *l = &g->links[i];

		json_array_append_new(links, json_pack("[i, O?, i, O?, o, i, i, b]", l->a, l->ap, l->b,
			l->bp, l->status ? json_string(l->status) : json_null(), (int)l->n,
			(int)l->bad, l->suspect));
	}
	return json_pack("{s:o, s:o, s:b, s:o}", "nodes", nodes, "links", links,
			 "inferred", g->inferred,
			 "source", g->source ? json_string(g->source) : json_null());
}

/* Fill the columns and per-link counts from the pairs; details into @det. */
static int sweep_pairs(const struct report *r, struct sview *sv, struct graph *g, struct cols *c,
		       json_t *det, struct fab_err *err)
{
	const json_t *pairs = json_object_get(sv->doc, "pairs"), *p;
	size_t n = sv->n, m = n > 1 ? n * (n - 1) / 2 : 0, i;
	bool all = json_array_size(pairs) <= REPORT_DETAIL_ALL_MAX;

	c->st = calloc(m + 1, 1);
	c->ij = calloc(m + 1, 2);
	c->ji = calloc(m + 1, 2);
	c->l50 = calloc(m + 1, 2);
	c->l99 = calloc(m + 1, 2);
	c->exp = calloc(m + 1, 2);
	if (!c->st || !c->ij || !c->ji || !c->l50 || !c->l99 || !c->exp)
		return fab_err_set(err, -ENOMEM, "report: out of memory");
	json_array_foreach(pairs, i, p) {
		const char *an = jstr(p, "a"), *bn = jstr(p, "b");
		int a = name_ix_find(sv->by_name, n, an), b = name_ix_find(sv->by_name, n, bn);
		int st = status_code(jstr(p, "status"));
		const json_t *lat = json_object_get(p, "lat_ns"), *path = json_object_get(p, "path");
		double ab = jnum(json_object_get(p, "bw_ab"), "avg_mbps");
		double ba = jnum(json_object_get(p, "bw_ba"), "avg_mbps");
		double e = jnum(p, "expected_mbps");
		json_t *plinks = json_null(), *v;
		size_t k, x;

		if (a < 0 || b < 0)
			return fab_err_input(err, -EINVAL, "%s: pairs[%zu]: node '%s' is not in nodes[]",
					     r->name[REPORT_SWEEP], i,
					     a < 0 ? (an ? an : "(none)") : (bn ? bn : "(none)"));
		if (a == b)
			return fab_err_input(err, -EINVAL, "%s: pairs[%zu]: node '%s' paired with itself",
					     r->name[REPORT_SWEEP], i, an);
		if (a > b) {
			int t = a;
			double d = ab;

			a = b;
			b = t;
			ab = ba;
			ba = d;
		}
		k = tri(n, (size_t)a, (size_t)b);
		if (isnan(e) && !isnan(sv->h[a].rate_gbps) && !isnan(sv->h[b].rate_gbps))
			e = 1000 * fmin(sv->h[a].rate_gbps, sv->h[b].rate_gbps);
		c->any_exp |= !isnan(e);
		c->st[k] = (uint8_t)(st | (json_is_true(json_object_get(p, "retested")) ? 8 : 0) |
				     (json_is_true(json_object_get(p, "first_slow")) ? 16 : 0));
		put16(c->ij, k, enc_log(ab));
		put16(c->ji, k, enc_log(ba));
		put16(c->l50, k, enc_log(jnum(lat, "p50")));
		put16(c->l99, k, enc_log(jnum(lat, "p99")));
		put16(c->exp, k, enc_log(e));
		sv->h[a].pairs++;
		sv->h[b].pairs++;
		if (st >= 2) {
			sv->h[a].bad++;
			sv->h[b].bad++;
		}
		if (json_is_array(path)) {
			plinks = json_array();
			json_array_foreach(path, x, v) {
				int l = graph_find_link(g, v);

				json_array_append_new(plinks, json_integer(l));
				if (l >= 0 && !sv->rail_view) {
					g->links[l].n++;
					g->links[l].bad += st >= 2;
				}
			}
		} else if (g->inferred && !sv->rail_view) {
			/* Labels only: the two access links. */
			g->links[sv->h[a].access].n++;
			g->links[sv->h[a].access].bad += st >= 2;
			g->links[sv->h[b].access].n++;
			g->links[sv->h[b].access].bad += st >= 2;
		}
		if (all || st != 1) {
			json_t *reason = json_object_get(p, "reason");

			json_array_append_new(det, json_pack("[I, O?, O?, o, O?, O?]", (json_int_t)k,
				json_object_get(p, "round"), json_is_string(reason) ? reason : NULL,
				plinks, json_object_get(p, "pct_expected"),
				json_object_get(p, "test_s")));
		} else {
			json_decref(plinks);
		}
	}
	return 0;
}

/* The baseline's figure of pair @p into the columns (display order), when both hosts are shown. */
static void base_put(const struct sview *sv, struct cols *c, const char *an, const char *bn,
		     double ab, double ba)
{
	int a = name_ix_find(sv->by_name, sv->n, an), b = name_ix_find(sv->by_name, sv->n, bn);
	size_t k;

	if (a < 0 || b < 0 || a == b)
		return;
	k = tri(sv->n, (size_t)(a < b ? a : b), (size_t)(a < b ? b : a));
	put16(c->bij, k, enc_log(a < b ? ab : ba));
	put16(c->bji, k, enc_log(a < b ? ba : ab));
}

/*
 * The change heatmap's columns: from the baseline document (report
 * --baseline), else from the figures the sweep's pairs carry (sweep
 * --baseline); false when there is neither.
 */
static int base_cols(const struct report *r, const struct sview *sv, struct cols *c, bool *have)
{
	const json_t *base = r->doc[REPORT_BASELINE], *p;
	const json_t *pairs = json_object_get(base ? base : sv->doc, "pairs");
	size_t m = sv->n > 1 ? sv->n * (sv->n - 1) / 2 : 0, i;

	*have = !sv->rail_view && (base || json_is_object(json_object_get(sv->doc, "baseline")));
	if (!*have)
		return 0;
	c->bij = calloc(m + 1, 2);
	c->bji = calloc(m + 1, 2);
	if (!c->bij || !c->bji)
		return -ENOMEM;
	json_array_foreach(pairs, i, p) {
		const json_t *b = base ? p : json_object_get(p, "baseline");

		if (!json_is_object(b))
			continue;
		base_put(sv, c, jstr(p, "a"), jstr(p, "b"),
			 base ? jnum(json_object_get(p, "bw_ab"), "avg_mbps") : jnum(b, "bw_ab_mbps"),
			 base ? jnum(json_object_get(p, "bw_ba"), "avg_mbps") : jnum(b, "bw_ba_mbps"));
	}
	return 0;
}

/* The change map's threshold: report's own, else the sweep's --regress-pct, else 10. */
static double regress_pct(const struct report *r, const json_t *doc)
{
	double v = jnum(json_object_get(doc, "baseline"), "regress_pct");

	return r->regress_pct >= 0 ? r->regress_pct : !isnan(v) ? v : 10;
}

static json_t *sweep_data(const struct report *r, struct sview *sv, struct graph *g,
			  struct fab_err *err)
{
	const json_t *doc = sv->doc, *ref = json_object_get(doc, "reference");
	const json_t *cfg = json_object_get(doc, "config");
	size_t n = sv->n, m = n > 1 ? n * (n - 1) / 2 : 0;
	json_t *det = json_array(), *hosts = json_array(), *groups = json_array(), *out = NULL;
	struct cols c = { 0 };
	double bwref = jnum(ref, "bw_median_mbps");
	bool have_base;

	if (sweep_pairs(r, sv, g, &c, det, err) < 0)
		goto out;
	if (base_cols(r, sv, &c, &have_base) < 0) {
		fab_err_set(err, -ENOMEM, "report: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		json_array_append_new(hosts, json_pack("[s, i, i]", sv->h[i].name, (int)sv->h[i].pairs,
						       (int)sv->h[i].bad));
		if (!i || strcmp(sv->h[i].group, sv->h[i - 1].group))
			json_array_append_new(groups, json_pack("[s, I]", sv->h[i].group, (json_int_t)i));
	}
	out = json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:b,"
			" s:{s:o, s:o, s:o, s:o, s:o, s:o}, s:o, s:b}",
			"n", (json_int_t)n, "hosts", hosts, "groups", groups,
			"bw_ref_mbps", isnan(bwref) ? json_null() : json_real(bwref),
			"lat_ref_ns", json_is_number(json_object_get(ref, "lat_median_ns"))
				      ? json_incref(json_object_get(ref, "lat_median_ns")) : json_null(),
			"slow_pct", json_is_number(json_object_get(cfg, "slow_pct"))
				    ? json_incref(json_object_get(cfg, "slow_pct")) : json_real(80),
			"ref_kind", json_string(c.any_exp ? "expected" : "fleet"),
			"any_exp", c.any_exp,
			"cols",
			"st", json_b64(c.st, m), "ij", json_b64(c.ij, 2 * m), "ji", json_b64(c.ji, 2 * m),
			"l50", json_b64(c.l50, 2 * m), "l99", json_b64(c.l99, 2 * m),
			"exp", c.any_exp ? json_b64(c.exp, 2 * m) : json_null(),
			"det", det, "det_all", json_array_size(json_object_get(doc, "pairs")) <= REPORT_DETAIL_ALL_MAX);
	det = NULL;
	hosts = groups = NULL;
	if (out && have_base) {
		const char *bname = r->doc[REPORT_BASELINE] ? r->name[REPORT_BASELINE]
				    : jstr(json_object_get(doc, "baseline"), "file");

		json_object_set_new(json_object_get(out, "cols"), "bij", json_b64(c.bij, 2 * m));
		json_object_set_new(json_object_get(out, "cols"), "bji", json_b64(c.bji, 2 * m));
		json_object_set_new(out, "base", json_pack("{s:o, s:f}", "name", json_text_or_null(bname),
							   "regress_pct", regress_pct(r, doc)));
	} else if (out) {
		json_object_set_new(out, "base", json_null());
	}
out:
	json_decref(det);
	json_decref(hosts);
	json_decref(groups);
	cols_fini(&c);
	return out;
}

/*
 * A sweep of several fabric ports: the views report_rail_views() cut (one a
 * rail, host x host), and the pairs between two rails, in none of them.
 */
struct rails {
	json_t *views;	/* NULL: no rail */
	size_t cross;
};

/* Each rail's figures as the sweep's own (sweep_data()) into @data's "rails": [{rail, ...}]. */
static int rails_data(const struct report *r, struct graph *g, const struct rails *rv, json_t *data,
		      struct fab_err *err)
{
	json_t *out = json_array(), *v;
	struct graph none = { 0 };	/* a rail view's hosts are not the graph's nodes */
	size_t i;

	if (!out)
		return fab_err_set(err, -ENOMEM, "report: out of memory");
	json_object_set_new(data, "rails", out);
	json_array_foreach(rv->views, i, v) {
		struct sview sv = { .doc = v, .rail_view = true };
		json_t *d = NULL;
		int rc = sview_build(&sv, r, &none, NULL, err);

		if (!rc && !(d = sweep_data(r, &sv, g, err)))
			rc = err->code ? err->code : -ENOMEM;
		sview_fini(&sv);
		if (rc < 0)
			return rc;
		json_object_set(d, "rail", json_object_get(v, "rail"));
		json_array_append_new(out, d);
	}
	return 0;
}

/* ------------------------------------------------------------------ HTML */

/* @v in @small units (divided by @small_div), or in @big ones from @big_div up; "-" when unknown. */
static void fmt_figure(FILE *f, double v, double big_div, const char *big, double small_div,
		       const char *small)
{
	if (isnan(v))
		fputs("&ndash;", f);
	else if (v >= big_div)
		fprintf(f, "%.3g %s", v / big_div, big);
	else
		fprintf(f, "%.3g %s", v / small_div, small);
}

static void fmt_mbps(FILE *f, double mbps)
{
	fmt_figure(f, mbps, 1000, "Gb/s", 1, "Mb/s");
}

static void fmt_ns(FILE *f, double ns)
{
	fmt_figure(f, ns, 1e6, "ms", 1e3, "&micro;s");
}

static void card(FILE *f, const char *cls, const char *label, const char *value_html)
{
	fprintf(f, "<div class=\"card %s\"><div class=\"v\">%s</div><div class=\"l\">", cls, value_html);
	report_html_esc(f, label);
	fputs("</div></div>\n", f);
}

static void card_num(FILE *f, const char *cls, const char *label, long long v)
{
	char b[32];

	snprintf(b, sizeof(b), "%lld", v);
	card(f, cls, label, b);
}

/* A link end {node, port} as text. */
static void end_html(FILE *f, const json_t *e);

static bool ev_has(const json_t *ev, const char *k)
{
	return json_is_number(json_object_get(ev, k));
}

static long long ev_int(const json_t *ev, const char *k)
{
	return (long long)jnum(ev, k);
}

/* The next phrase of an evidence sentence: "; " between phrases. */
static void ev_sep(FILE *f, bool *first)
{
	fputs(*first ? "" : "; ", f);
	*first = false;
}

/*
 * A suspect's evidence in words (docs/diagnose.md and docs/sweep.md name
 * the keys): "15 of 15 pairs crossing it not ok (2 failed), the slow ones
 * at 48 % of expected (median); 0 of 13 other pairs not ok; counters:
 * leaf1 [3] symbol_errors +40 (threshold 10, error)".  A key this page
 * does not know is shown as its name in words and its value; empty lists,
 * zero probes and nulls say nothing.
 */
static void evidence_words(FILE *f, json_t *ev)
{
	static const char *const known[] = {
		"text", "cross_bad", "cross_n", "cross_failed", "cross_pct_median", "other_bad",
		"other_n", "probes_run", "probes_bad", "counters", "pairs", "bad_pairs",
		"slow_pairs", "failed_pairs", "median_bw_mbps", "fleet_median_bw_mbps",
	};
	const json_t *v, *c = json_object_get(ev, "counters");
	bool first = true;
	const char *k;
	size_t i;

	if (ev_has(ev, "cross_n")) {
		ev_sep(f, &first);
		fprintf(f, "%lld of %lld pairs crossing it not ok", ev_int(ev, "cross_bad"),
			ev_int(ev, "cross_n"));
		if (ev_int(ev, "cross_failed") > 0)
			fprintf(f, " (%lld failed)", ev_int(ev, "cross_failed"));
		if (ev_has(ev, "cross_pct_median") && jnum(ev, "cross_pct_median") >= 0)
			fprintf(f, ", the slow ones at %.0f %% of expected (median)",
				jnum(ev, "cross_pct_median"));
	}
	if (ev_has(ev, "other_n")) {
		ev_sep(f, &first);
		fprintf(f, "%lld of %lld other pairs not ok", ev_int(ev, "other_bad"),
			ev_int(ev, "other_n"));
	}
	if (ev_int(ev, "probes_run") > 0) {
		ev_sep(f, &first);
		fprintf(f, "%lld of %lld probe pairs not ok", ev_int(ev, "probes_bad"),
			ev_int(ev, "probes_run"));
	}
	if (ev_has(ev, "pairs")) {
		ev_sep(f, &first);
		fprintf(f, "%lld of %lld pairs with it not ok", ev_int(ev, "bad_pairs"),
			ev_int(ev, "pairs"));
		if (ev_has(ev, "slow_pairs") || ev_has(ev, "failed_pairs"))
			fprintf(f, " (%lld slow, %lld failed)", ev_int(ev, "slow_pairs"),
				ev_int(ev, "failed_pairs"));
	}
	if (ev_has(ev, "median_bw_mbps")) {
		ev_sep(f, &first);
		fputs("its median ", f);
		fmt_mbps(f, jnum(ev, "median_bw_mbps"));
		if (ev_has(ev, "fleet_median_bw_mbps")) {
			fputs(", the fleet's ", f);
			fmt_mbps(f, jnum(ev, "fleet_median_bw_mbps"));
		}
	}
	if (json_array_size(c)) {
		ev_sep(f, &first);
		fputs("counters:", f);
		json_array_foreach(c, i, v) {
			fputs(i ? ", " : " ", f);
			end_html(f, json_object_get(v, "port"));
			fputc(' ', f);
			report_html_esc(f, jstr(v, "counter") ? jstr(v, "counter") : "?");
			fprintf(f, " +%lld", (long long)jnum(v, "delta"));
			if (ev_has(v, "threshold"))
				fprintf(f, " (threshold %lld", (long long)jnum(v, "threshold"));
			if (jstr(v, "severity")) {
				fputs(ev_has(v, "threshold") ? ", " : " (", f);
				report_html_esc(f, jstr(v, "severity"));
			}
			if (ev_has(v, "threshold") || jstr(v, "severity"))
				fputc(')', f);
		}
	}
	json_object_foreach(ev, k, v) {
		bool skip = json_is_null(v) || (json_is_array(v) && !json_array_size(v));
		char *val, *name;

		for (i = 0; i < ARRAY_SIZE(known) && !skip; i++)
			skip = !strcmp(k, known[i]);
		if (skip)
			continue;
		val = json_is_string(v) ? strdup(json_string_value(v))
					: json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(4));
		name = strdup(k);
		for (char *q = name; q && *q; q++)
			if (*q == '_')
				*q = ' ';
		ev_sep(f, &first);
		report_html_esc(f, name ? name : k);
		fputc(' ', f);
		report_html_esc(f, val ? val : "?");
		free(name);
		free(val);
	}
}

static void end_html(FILE *f, const json_t *e)
{
	const json_t *port = json_object_get(e, "port");

	report_html_esc(f, jstr(e, "node") ? jstr(e, "node") : "?");
	if (json_is_integer(port))
		fprintf(f, " [%lld]", (long long)json_integer_value(port));
	else if (json_is_string(port)) {
		fputc(' ', f);
		report_html_esc(f, json_string_value(port));
	} else if (jstr(e, "port_name")) {
		fputc(' ', f);
		report_html_esc(f, jstr(e, "port_name"));
	}
}

static void suspect_what(FILE *f, const json_t *s)
{
	const json_t *link = json_object_get(s, "link"), *links = json_object_get(s, "links"), *v;
	const char *kind = jstr(s, "kind"), *node = jstr(s, "node");
	size_t i;

	if (!kind)
		kind = node ? "node" : "link";
	fprintf(f, "<td><span class=\"tag %s\">", !strcmp(kind, "node") ? "node" : "link");
	report_html_esc(f, kind);
	fputs("</span></td><td>", f);
	if (node) {
		report_html_esc(f, node);
		if (json_is_object(link))
			fputs(" (its link ", f);
	}
	if (json_is_object(link)) {
		end_html(f, json_object_get(link, "a"));
		fputs(" &harr; ", f);
		end_html(f, json_object_get(link, "b"));
		if (node)
			fputc(')', f);
	} else if (json_is_array(link)) {
		report_html_esc(f, json_string_value(json_array_get(link, 0)));
		fputs(" &harr; ", f);
		report_html_esc(f, json_string_value(json_array_get(link, 1)));
	}
	if (json_array_size(links))
		fputs("one of:", f);
	json_array_foreach(links, i, v) {
		fputs("<br>", f);
		end_html(f, json_object_get(v, "a"));
		fputs(" &harr; ", f);
		end_html(f, json_object_get(v, "b"));
	}
	fputs("</td>", f);
}

static void suspects_table(FILE *f, const json_t *sus, const char *from, size_t *row)
{
	const json_t *s;
	size_t i;

	json_array_foreach(sus, i, s) {
		json_t *ev = json_object_get(s, "evidence");
		double score = jnum(s, "score");

		fprintf(f, "<tr class=\"sus\" data-sus=\"%zu\"><td>%zu</td><td>%s</td>", *row, *row + 1, from);
		suspect_what(f, s);
		if (isnan(score))
			fputs("<td>&ndash;</td>", f);
		else
			fprintf(f, "<td><span class=\"bar\"><i style=\"width:%.0f%%\"></i></span> %.2f</td>",
				fmin(fmax(score, 0), 1) * 100, score);
		fputs("<td class=\"ev\">", f);
		if (jstr(ev, "text")) {
			report_html_esc(f, jstr(ev, "text"));
			fputs("<div class=\"kv\">", f);
			evidence_words(f, ev);
			fputs("</div>", f);
		} else if (json_is_object(ev)) {
			evidence_words(f, ev);
		} else if (json_is_string(ev)) {
			report_html_esc(f, json_string_value(ev));
		}
		fputs("</td></tr>\n", f);
		(*row)++;
	}
}

static void portref_html(FILE *f, const json_t *p)
{
	if (!json_is_object(p)) {
		fputs("&ndash;", f);
		return;
	}
	end_html(f, p);
}

/* ---- discover --checks: "ib_checks" (docs/discover.md) ---- */

static long long jint(const json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

/* Credit loops looked for per VL (by SL2VL): each lane's figures, and where the SLs came from. */
static void ib_vls_html(FILE *f, const json_t *cl)
{
	const json_t *v;
	size_t i;

	if (!json_is_true(json_object_get(cl, "by_vl")))
		return;
	fputs("; per VL by SL2VL, path SLs ", f);
	report_html_esc(f, jstr(cl, "path_sls") ? jstr(cl, "path_sls") : "?");
	json_array_foreach(json_object_get(cl, "per_vl"), i, v)
		fprintf(f, "%sVL %lld: %lld channels, %lld dependencies, %s%lld loops%s", i ? "; " : ": ",
			jint(v, "vl"), jint(v, "channels"), jint(v, "dependencies"),
			jint(v, "loops") ? "<b>" : "", jint(v, "loops"), jint(v, "loops") ? "</b>" : "");
	if (jint(cl, "cross_vl_loops"))
		fprintf(f, "; <b>%lld loops across VLs</b>", jint(cl, "cross_vl_loops"));
}

/* One row of the checks table: the family, then its summary or why it was skipped. */
static void ib_family_row(FILE *f, const char *family, const json_t *fam)
{
	fputs("<tr><td>", f);
	report_html_esc(f, family);
	fputs("</td><td>", f);
	if (jstr(fam, "skipped")) {
		fputs("skipped: ", f);
		report_html_esc(f, jstr(fam, "skipped"));
	} else if (!strcmp(family, "routes")) {
		fprintf(f, "%lld CA ports, %lld LIDs, %lld pairs, <b>%lld unreachable</b>",
			jint(fam, "ca_ports"), jint(fam, "lids"), jint(fam, "pairs"), jint(fam, "unreachable"));
	} else if (!strcmp(family, "credit loops")) {
		fprintf(f, "<b>%lld loops</b> (%lld VL, %lld switch channels, %lld dependencies)",
			jint(fam, "loops"), jint(fam, "vls"), jint(fam, "channels"), jint(fam, "dependencies"));
		ib_vls_html(f, fam);
	} else if (!strcmp(family, "ids")) {
		fprintf(f, "%lld LIDs, LMC %lld..%lld, %lld duplicate GUIDs, %lld duplicate LIDs, "
			"%lld zero LIDs, %lld unaligned", jint(fam, "lids"), jint(fam, "lmc_min"),
			jint(fam, "lmc_max"), jint(fam, "duplicate_guids"), jint(fam, "duplicate_lids"),
			jint(fam, "zero_lids"), jint(fam, "unaligned_lids"));
	} else if (!strcmp(family, "sm")) {
		fprintf(f, "%lld master, %lld standby, %lld silent, %s", jint(fam, "masters"),
			jint(fam, "standby"), jint(fam, "silent"),
			json_is_true(json_object_get(fam, "agree")) ? "in agreement" : "<b>not in agreement</b>");
	}
	fputs("</td></tr>\n", f);
}

static void ib_balance_html(FILE *f, const json_t *bal)
{
	const json_t *tr;
	size_t i;

	if (!json_array_size(json_object_get(bal, "tiers")))
		return;
	fprintf(f, "<h3>Routes per link, per tier</h3>\n<table class=\"t\"><thead><tr><th>tier</th>"
		"<th>links</th><th>min</th><th>median</th><th>max</th><th>over %lldx median</th>"
		"</tr></thead><tbody>\n", jint(bal, "factor"));
	json_array_foreach(json_object_get(bal, "tiers"), i, tr) {
		fputs("<tr><td>", f);
		report_html_esc(f, jstr(tr, "tier"));
		fprintf(f, "</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%lld</td><td>%s%lld%s</td></tr>\n",
			jint(tr, "links"), jint(tr, "min"), jint(tr, "median"), jint(tr, "max"),
			jint(tr, "outliers") ? "<span class=\"tag bad\">" : "", jint(tr, "outliers"),
			jint(tr, "outliers") ? "</span>" : "");
	}
	fputs("</tbody></table>\n", f);
}

static void ib_loops_html(FILE *f, const json_t *cl)
{
	const json_t *cy, *ch;
	size_t i, k;

	json_array_foreach(json_object_get(cl, "cycles"), i, cy) {
		fputs(i ? "<br>" : "<h3>Credit loops</h3>\n<p>", f);
		json_array_foreach(json_object_get(cy, "channels"), k, ch) {
			const json_t *vl = json_array_get(json_object_get(cy, "vls"), k);

			end_html(f, json_object_get(ch, "from"));
			if (json_is_integer(vl))
				fprintf(f, " (VL %lld)", (long long)json_integer_value(vl));
			fputs(" &rarr; ", f);
		}
		end_html(f, json_object_get(json_array_get(json_object_get(cy, "channels"), 0), "from"));
	}
	if (json_array_size(json_object_get(cl, "cycles")))
		fputs("</p>\n", f);
}

#define IB_HTML_PAIRS_MAX 100	/* unreachable pairs shown; the JSON has the rest */

static void ib_unreach_html(FILE *f, const json_t *rt)
{
	const json_t *u;
	size_t i;

	if (!json_array_size(json_object_get(rt, "unreachable_pairs")))
		return;
	fputs("<h3>Unreachable pairs</h3>\n<table class=\"t\"><thead><tr><th>from</th><th>to</th>"
	      "<th>lid</th><th>breaks at</th><th>lft entry</th><th>why</th></tr></thead><tbody>\n", f);
	json_array_foreach(json_object_get(rt, "unreachable_pairs"), i, u) {
		if (i == IB_HTML_PAIRS_MAX)
			break;
		fputs("<tr><td>", f);
		end_html(f, json_object_get(u, "src"));
		fputs("</td><td>", f);
		end_html(f, json_object_get(u, "dst"));
		fprintf(f, "</td><td>%lld</td><td>", jint(u, "dlid"));
		portref_html(f, json_object_get(u, "switch"));
		if (json_is_integer(json_object_get(u, "port")))
			fprintf(f, "</td><td>port %lld</td><td>", jint(u, "port"));
		else
			fputs("</td><td>none</td><td>", f);
		report_html_esc(f, jstr(u, "reason"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (jint(rt, "unreachable") > IB_HTML_PAIRS_MAX)
		fprintf(f, "<p>The first %d of %lld; the JSON lists up to 10000.</p>\n",
			IB_HTML_PAIRS_MAX, jint(rt, "unreachable"));
}

static void ib_sms_html(FILE *f, const json_t *sm)
{
	const json_t *m;
	size_t i;

	if (!json_array_size(json_object_get(sm, "sms")))
		return;
	fputs("<h3>Subnet managers</h3>\n<table class=\"t\"><thead><tr><th>port</th><th>lid</th>"
	      "<th>state</th><th>priority</th><th>guid</th><th>act count</th></tr></thead><tbody>\n", f);
	json_array_foreach(json_object_get(sm, "sms"), i, m) {
		const json_t *port = json_object_get(m, "port");

		fputs("<tr><td>", f);
		end_html(f, port);
		fprintf(f, "</td><td>%lld</td><td>", jint(port, "lid"));
		report_html_esc(f, jstr(m, "state") ? jstr(m, "state") : "no answer");
		fputs("</td><td>", f);
		if (json_is_integer(json_object_get(m, "priority")))
			fprintf(f, "%lld", jint(m, "priority"));
		fputs("</td><td>", f);
		report_html_esc(f, jstr(m, "sm_guid") ? jstr(m, "sm_guid") : "");
		fputs("</td><td>", f);
		if (json_is_integer(json_object_get(m, "act_count")))
			fprintf(f, "%lld", jint(m, "act_count"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

/* The figures behind the checks' problems: only when the document has "ib_checks". */
static void ib_checks_html(FILE *f, const json_t *c)
{
	static const struct {
		const char *key, *name;
	} fam[] = {
		{ "routes", "routes" }, { "credit_loops", "credit loops" }, { "balance", "balance" },
		{ "ids", "ids" }, { "sm", "sm" },
	};

	if (!json_is_object(c))
		return;
	fputs("<h3>InfiniBand subnet checks</h3>\n<table class=\"t\"><tbody>\n", f);
	for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
		const json_t *v = json_object_get(c, fam[i].key);

		if (json_is_object(v) && strcmp(fam[i].key, "balance"))
			ib_family_row(f, fam[i].name, v);
		else if (json_is_object(v) && jstr(v, "skipped"))
			ib_family_row(f, fam[i].name, v);
	}
	fputs("</tbody></table>\n", f);
	ib_balance_html(f, json_object_get(c, "balance"));
	ib_loops_html(f, json_object_get(c, "credit_loops"));
	ib_unreach_html(f, json_object_get(c, "routes"));
	ib_sms_html(f, json_object_get(c, "sm"));
}

static void discover_tables(FILE *f, const json_t *d, const char *name)
{
	const json_t *probs = json_object_get(d, "problems"), *p, *sum = json_object_get(d, "summary");
	size_t i;

	fputs("<section id=\"discover\"><h2>Discover problems <small>", f);
	report_html_esc(f, name);
	fprintf(f, " &middot; %lld nodes, %lld links</small></h2>\n",
		(long long)json_integer_value(json_object_get(sum, "nodes")),
		(long long)json_integer_value(json_object_get(sum, "links")));
	if (!json_array_size(probs)) {
		const json_t *src;
		bool planned = false;

		json_array_foreach(json_object_get(d, "sources"), i, src)
			planned |= json_is_string(src) && !strcmp(json_string_value(src), "plan");
		fputs(planned ? "<p class=\"good\">No problem: every link healthy and as planned.</p>\n"
			      : "<p class=\"good\">No problem: every link healthy. No plan given: the "
				"cabling was not checked (<code>discover --expect PLAN</code> checks it).</p>\n",
		      f);
	} else {
		fputs("<table class=\"t\"><thead><tr><th>kind</th><th>port</th><th>peer</th><th>expected</th>"
		      "<th>detail</th></tr></thead><tbody>\n", f);
		json_array_foreach(probs, i, p) {
			const json_t *ports = json_object_get(p, "ports");

			fputs("<tr><td><span class=\"tag bad\">", f);
			report_html_esc(f, jstr(p, "kind"));
			fputs("</span></td><td>", f);
			portref_html(f, json_array_get(ports, 0));
			fputs("</td><td>", f);
			portref_html(f, json_array_get(ports, 1));
			fputs("</td><td>", f);
			portref_html(f, json_object_get(p, "expected"));
			fputs("</td><td>", f);
			report_html_esc(f, jstr(p, "detail"));
			fputs("</td></tr>\n", f);
		}
		fputs("</tbody></table>\n", f);
	}
	ib_checks_html(f, json_object_get(d, "ib_checks"));
	fputs("</section>\n", f);
}

/* A table of an array of objects: the columns are the union of their keys, in first-seen order. */
static void generic_table(FILE *f, const json_t *arr)
{
	json_t *cols = json_array(), *o;
	const json_t *v;
	const char *k;
	size_t i, j;

	json_array_foreach(arr, i, o) {
		json_object_foreach(o, k, v) {
			bool have = false;

			json_array_foreach(cols, j, v)
				have |= !strcmp(json_string_value(v), k);
			if (!have)
				json_array_append_new(cols, json_string(k));
		}
	}
	fputs("<table class=\"t\"><thead><tr>", f);
	json_array_foreach(cols, j, v) {
		fputs("<th>", f);
		report_html_esc(f, json_string_value(v));
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
	json_array_foreach(arr, i, o) {
		fputs("<tr>", f);
		json_array_foreach(cols, j, v) {
			const json_t *c = json_object_get(o, json_string_value(v));
			char *s = json_is_string(c) ? strdup(json_string_value(c))
				  : c && !json_is_null(c) ? json_dumps(c, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

			fputs("<td>", f);
			report_html_esc(f, s);
			fputs("</td>", f);
			free(s);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	json_decref(cols);
}

static void accept_tables(FILE *f, const json_t *d, const char *name)
{
	const json_t *find = json_object_get(d, "findings");

	fputs("<section id=\"accept\"><h2>Acceptance findings <small>", f);
	report_html_esc(f, name);
	fputs("</small></h2>\n", f);
	if (jstr(d, "verdict")) {
		fputs("<p>verdict: <b>", f);
		report_html_esc(f, jstr(d, "verdict"));
		fputs("</b></p>\n", f);
	}
	if (json_array_size(find))
		generic_table(f, find);
	else
		fputs("<p class=\"good\">No finding.</p>\n", f);
	fputs("</section>\n", f);
}

static long long sweep_count(const json_t *sweep, const char *key)
{
	return (long long)json_integer_value(json_object_get(json_object_get(sweep, "summary"), key));
}

/* The legs not ok of a sweep or diagnose document (its top-level "legs"; 0 without). */
static long long legs_bad(const json_t *doc)
{
	return (long long)json_integer_value(json_object_get(json_object_get(doc, "legs"), "bad"));
}

/* A discover document's cable that is failing (discover's own exit 1, docs/optics.md). */
static bool cable_failing(const json_t *d)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(d, "cables"), i, c)
		if (json_is_string(json_object_get(c, "health")) &&
		    !strcmp(json_string_value(json_object_get(c, "health")), "failing"))
			return true;
	return false;
}

int report_verdict(const struct report *r)
{
	const json_t *s = r->doc[REPORT_SWEEP], *d = r->doc[REPORT_DISCOVER];
	const json_t *a = r->doc[REPORT_ACCEPT], *g = r->doc[REPORT_DIAGNOSE];

	if (s && (sweep_count(s, "slow") || sweep_count(s, "failed") || sweep_count(s, "regressed") ||
		  legs_bad(s)))
		return 1;
	if (g && legs_bad(g))
		return 1;
	if (d && (json_array_size(json_object_get(d, "problems")) || cable_failing(d)))
		return 1;
	if (a && json_array_size(json_object_get(a, "findings")))
		return 1;
	if (g && json_array_size(json_object_get(g, "suspects")))
		return 1;
	return 0;
}

static void header_html(FILE *f, const struct report *r)
{
	const json_t *s = r->doc[REPORT_SWEEP];
	int verdict = report_verdict(r);
	char when[64] = "";
	double t = jnum(s, "started_unix");

	if (!isnan(t)) {
		time_t tt = (time_t)t;
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&tt, &tm));
	}
	fputs("<header><div class=\"hl\"><h1>fabricctl report</h1><div class=\"meta\">", f);
	if (s) {
		fputs(*when ? when : "", f);
		fputs(" &middot; ", f);
		report_html_esc(f, jstr(s, "transport"));
		fputs(" &middot; ", f);
		report_html_esc(f, jstr(s, "launcher"));
		fputs(" &middot; ", f);
		report_html_esc(f, jstr(s, "mode"));
		fprintf(f, " &middot; %zu nodes &middot; ", json_array_size(json_object_get(s, "nodes")));
		{
			const json_t *rounds = json_object_get(s, "rounds");

			fprintf(f, "%zu rounds", json_is_array(rounds) ? json_array_size(rounds)
					       : (size_t)json_integer_value(rounds));
		}
		if (!isnan(jnum(s, "wall_s")))
			fprintf(f, " &middot; wall %.1f s", jnum(s, "wall_s"));
		if (json_is_object(json_object_get(s, "topology"))) {
			fputs(" &middot; topology ", f);
			report_html_esc(f, jstr(json_object_get(s, "topology"), "source"));
		}
	}
	fputs("</div></div>", f);
	fprintf(f, "<div id=\"verdict\" class=\"verdict %s\" data-exit=\"%d\"><b>exit %d</b> ",
		verdict ? "bad" : "good", verdict, verdict);
	if (s && verdict) {
		fprintf(f, "%lld slow, %lld failed", sweep_count(s, "slow"), sweep_count(s, "failed"));
		if (sweep_count(s, "regressed"))
			fprintf(f, ", %lld regressed", sweep_count(s, "regressed"));
		if (legs_bad(s))
			fprintf(f, ", %lld dual-homed leg%s not ok", legs_bad(s),
				legs_bad(s) == 1 ? "" : "s");
	} else if (s) {
		fputs("every pair ok", f);
	} else {
		fputs(verdict ? "problems found" : "nothing found", f);
	}
	fputs("</div></header>\n", f);
	if (s) {
		const json_t *ref = json_object_get(s, "reference");
		char b[128];
		FILE *mf;

		fputs("<section class=\"cards\">\n", f);
		card_num(f, "", "pairs", sweep_count(s, "pairs"));
		card_num(f, "ok", "ok", sweep_count(s, "ok"));
		card_num(f, sweep_count(s, "slow") ? "slow" : "", "slow", sweep_count(s, "slow"));
		card_num(f, sweep_count(s, "failed") ? "failed" : "", "failed", sweep_count(s, "failed"));
		if (sweep_count(s, "regressed") || json_is_object(json_object_get(s, "baseline")))
			card_num(f, sweep_count(s, "regressed") ? "slow" : "", "regressed",
				 sweep_count(s, "regressed"));
		mf = fmemopen(b, sizeof(b), "w");
		if (mf) {
			fmt_mbps(mf, jnum(ref, "bw_median_mbps"));
			if (!isnan(jnum(ref, "bw_mad_mbps"))) {
				fputs("<small> &plusmn; ", mf);
				fmt_mbps(mf, jnum(ref, "bw_mad_mbps"));
				fputs("</small>", mf);
			}
			fputc('\0', mf);
			fclose(mf);
			card(f, "", "fleet median bandwidth (MAD)", b);
		}
		mf = fmemopen(b, sizeof(b), "w");
		if (mf) {
			fmt_ns(mf, jnum(ref, "lat_median_ns"));
			fputc('\0', mf);
			fclose(mf);
			card(f, "", "median round trip", b);
		}
		fputs("</section>\n", f);
	}
}

static void bad_pairs_table(FILE *f, const json_t *s)
{
	const json_t *pairs = json_object_get(s, "pairs"), *p;
	size_t i, rows = 0, bad = 0;

	json_array_foreach(pairs, i, p)
		bad += status_code(jstr(p, "status")) >= 2;
	fputs("<section id=\"bad\"><h2>Pairs not ok</h2>\n", f);
	if (!bad) {
		fputs("<p class=\"good\">Every pair ok.</p></section>\n", f);
		return;
	}
	fputs("<table class=\"t\"><thead><tr><th>a</th><th>b</th><th>status</th><th>bandwidth</th>"
	      "<th>% expected</th><th>latency p50</th><th>reason</th></tr></thead><tbody>\n", f);
	json_array_foreach(pairs, i, p) {
		const char *st = jstr(p, "status");
		double pct = jnum(p, "pct_expected");

		if (status_code(st) < 2)
			continue;
		if (rows++ == REPORT_BAD_ROWS_MAX)
			break;
		if (isnan(pct))
			pct = jnum(p, "pct_rated");
		fputs("<tr><td>", f);
		report_html_esc(f, jstr(p, "a"));
		fputs("</td><td>", f);
		report_html_esc(f, jstr(p, "b"));
		fprintf(f, "</td><td><span class=\"tag %s\">", status_code(st) == 3 ? "failed" : "slow");
		report_html_esc(f, st);
		fputs("</span></td><td>", f);
		fmt_mbps(f, jnum(p, "bw_mbps"));
		fputs("</td><td>", f);
		if (isnan(pct))
			fputs("&ndash;", f);
		else
			fprintf(f, "%.1f %%", pct);
		fputs("</td><td>", f);
		fmt_ns(f, jnum(json_object_get(p, "lat_ns"), "p50"));
		fputs("</td><td>", f);
		report_html_esc(f, jstr(p, "reason"));
		fputs("</td></tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
	if (bad > REPORT_BAD_ROWS_MAX)
		fprintf(f, "<p>&hellip; and %zu more (see the sweep JSON).</p>\n", bad - REPORT_BAD_ROWS_MAX);
	fputs("</section>\n", f);
}

/*
 * A rail sweep's selector: every end point (the sweep's own maps), or one
 * rail's hosts; a rail's pairs not ok on its button.
 */
static void rail_selector_html(FILE *f, const struct rails *rv)
{
	const json_t *v;
	size_t i;

	fputs("<div class=\"railsel\" role=\"group\" aria-label=\"heatmaps of\">show "
	      "<button type=\"button\" class=\"rsel on\" data-view=\"all\" aria-pressed=\"true\">"
	      "every end point</button>", f);
	json_array_foreach(rv->views, i, v) {
		long long rail = (long long)json_integer_value(json_object_get(v, "rail"));
		const json_t *p;
		size_t k, bad = 0;

		json_array_foreach(json_object_get(v, "pairs"), k, p)
			bad += status_code(jstr(p, "status")) >= 2;
		fprintf(f, "<button type=\"button\" class=\"rsel\" data-view=\"%lld\" "
			"data-bad=\"%zu\" aria-pressed=\"false\">rail %lld", rail, bad, rail);
		if (bad)
			fprintf(f, " <span class=\"tag slow\">%zu not ok</span>", bad);
		fputs("</button>", f);
	}
	fputs("</div>\n<p class=\"railnote\">Every end point: the sweep's own maps, one row a "
	      "port (<code>host:nic</code>); rail <i>N</i>: that rail's hosts, host &times; host, "
	      "its pairs only.", f);
	if (rv->cross)
		fprintf(f, " %zu cross-rail pair%s (NIC <i>i</i> to NIC <i>j</i>, "
			"<code>--cross-rail</code>) %s in every end point's maps only.", rv->cross,
			rv->cross == 1 ? "" : "s", rv->cross == 1 ? "is" : "are");
	fputs("</p>\n", f);
}

/* One rail's maps, hidden until its button is pressed; the page's script draws them. */
static void rail_view_html(FILE *f, long long rail)
{
	fprintf(f, "<div class=\"hms\" id=\"rv-r%lld\" data-view=\"%lld\" hidden>"
		"<figure><figcaption>Bandwidth, rail %lld <span id=\"bwref-r%lld\"></span>"
		"</figcaption><div class=\"hm\" id=\"hm-bw-r%lld\"></div>"
		"<div class=\"legend\" id=\"lg-bw-r%lld\"></div></figure>\n",
		rail, rail, rail, rail, rail, rail);
	fprintf(f, "<figure><figcaption>Latency (round trip p50), rail %lld "
		"<span id=\"latref-r%lld\"></span></figcaption>"
		"<div class=\"hm\" id=\"hm-lat-r%lld\"></div>"
		"<div class=\"legend\" id=\"lg-lat-r%lld\"></div></figure></div>\n",
		rail, rail, rail, rail);
}

static void heatmaps_html(FILE *f, const struct report *r, const struct rails *rv)
{
	const json_t *s = r->doc[REPORT_SWEEP], *v;
	size_t i;

	fputs("<section id=\"heatmaps\"><h2>Pairs <small>row sends to column &middot; hover or "
	      "click a cell</small></h2>\n", f);
	if (rv->views)
		rail_selector_html(f, rv);
	fputs(rv->views ? "<div class=\"hms\" id=\"rv-all\" data-view=\"all\">"
			: "<div class=\"hms\">", f);
	fputs("<figure><figcaption>Bandwidth <span id=\"bwref\"></span></figcaption>"
	      "<div class=\"hm\" id=\"hm-bw\"></div><div class=\"legend\" id=\"lg-bw\"></div>"
	      "</figure>\n<figure><figcaption>Latency (round trip p50) <span id=\"latref\"></span>"
	      "</figcaption><div class=\"hm\" id=\"hm-lat\"></div>"
	      "<div class=\"legend\" id=\"lg-lat\"></div></figure>\n", f);
	if (r->doc[REPORT_BASELINE] || json_is_object(json_object_get(s, "baseline"))) {
		fputs("<figure><figcaption>Change vs baseline <span id=\"chgref\"></span>"
		      "</figcaption><div class=\"hm\" id=\"hm-chg\"></div>"
		      "<div class=\"legend\" id=\"lg-chg\"></div></figure>\n", f);
	}
	fputs("</div>\n", f);
	json_array_foreach(rv->views, i, v)
		rail_view_html(f, (long long)json_integer_value(json_object_get(v, "rail")));
	fputs("<div id=\"pin\" class=\"pin\" hidden></div></section>\n", f);
}

/*
 * The page's script; a rail sweep's part (report_html_rails_js) goes in
 * before the fabric graph's, inside the script's one function scope,
 * where it draws each rail with the heatmaps' own code.
 */
static void script_html(FILE *f, const struct rails *rv)
{
	const char *at = rv->views ? strstr(report_html_js, REPORT_JS_RAILS_AT) : NULL;

	if (!at) {
		fputs(report_html_js, f);
		return;
	}
	fwrite(report_html_js, 1, (size_t)(at - report_html_js), f);
	fputs(report_html_rails_js, f);
	fputs(at, f);
}

static int write_page(const struct report *r, FILE *f, json_t *data, struct graph *g,
		      const struct rails *rv, struct fab_err *err)
{
	const json_t *s = r->doc[REPORT_SWEEP], *diag = r->doc[REPORT_DIAGNOSE];
	char *blob, when[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t row = 0;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&now, &tm));
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
	      "<title>fabricctl report</title>\n<style>\n", f);
	fputs(report_html_css, f);
	if (rv->views)
		fputs(report_html_rails_css, f);
	fputs("</style></head>\n<body>\n<div id=\"jserr\" class=\"jserr\" hidden></div>\n", f);
	header_html(f, r);
	if (s)
		heatmaps_html(f, r, rv);
	if (g->n_nodes || json_array_size(json_object_get(s, "suspects")) ||
	    json_array_size(json_object_get(diag, "suspects"))) {
		fputs("<section id=\"fabric\"><h2>Fabric and suspects</h2><div class=\"fab\">\n"
		      "<div class=\"graph\"><div id=\"graph\"></div><div class=\"legend\" id=\"lg-graph\"></div></div>\n"
		      "<div class=\"sus\"><table class=\"t\" id=\"suspects\"><thead><tr><th>#</th><th>from</th>"
		      "<th>kind</th><th>what</th><th>score</th><th>evidence</th></tr></thead><tbody>\n", f);
		suspects_table(f, json_object_get(s, "suspects"), "sweep", &row);
		suspects_table(f, json_object_get(diag, "suspects"), "diagnose", &row);
		if (!row)
			fputs("<tr><td colspan=\"6\" class=\"good\">No suspect.</td></tr>\n", f);
		fputs("</tbody></table></div></div></section>\n", f);
	}
	if (s)
		report_rails_table(f, s);
	if (s)
		report_members_table(f, s);
	if (s)
		bad_pairs_table(f, s);
	report_legs_table(f, s ? s : diag);
	if (diag)
		report_html_cables(f, json_object_get(diag, "cables"), r->name[REPORT_DIAGNOSE]);
	if (r->doc[REPORT_DISCOVER])
		discover_tables(f, r->doc[REPORT_DISCOVER], r->name[REPORT_DISCOVER]);
	if (r->doc[REPORT_DISCOVER])
		report_html_discover_cables(f, json_object_get(r->doc[REPORT_DISCOVER], "cables"),
					    r->name[REPORT_DISCOVER]);
	if (r->doc[REPORT_ACCEPT])
		accept_tables(f, r->doc[REPORT_ACCEPT], r->name[REPORT_ACCEPT]);
	fputs("<footer>inputs:", f);
	for (int k = 0; k < REPORT_KINDS; k++) {
		if (!r->doc[k])
			continue;
		fputs(" <code>", f);
		report_html_esc(f, r->name[k]);
		fputs("</code> (", f);
		report_html_esc(f, jstr(r->doc[k], "schema"));
		fputc(')', f);
	}
	fprintf(f, " &middot; generated by fabricctl %s at %s</footer>\n", FAB_VERSION, when);
	blob = report_json_for_script(data);
	if (!blob)
		return fab_err_set(err, -ENOMEM, "report: out of memory");
	fputs("<script type=\"application/json\" id=\"fab-data\">", f);
	fputs(blob, f);
	free(blob);
	fputs("</script>\n<script>\n", f);
	script_html(f, rv);
	fputs("</script>\n</body></html>\n", f);
	return 0;
}

int report_html_write(const struct report *r, FILE *f, struct fab_err *err)
{
	const json_t *s = r->doc[REPORT_SWEEP], *topo = NULL;
	struct graph g = { 0 };
	struct sview sv = { .doc = s };
	struct rails rv = { 0 };
	json_t *data = json_object(), *sus = NULL;
	int rc = 0;

	if (!data)
		return fab_err_set(err, -ENOMEM, "report: out of memory");
	if (s && json_is_object(json_object_get(s, "topology"))) {
		topo = json_object_get(s, "topology");
		g.source = jstr(topo, "source") ? jstr(topo, "source") : "sweep";
	} else if (r->doc[REPORT_DISCOVER]) {
		topo = r->doc[REPORT_DISCOVER];
		g.source = "discover";
	}
	if (topo && (rc = graph_from_topology(&g, topo, err)) < 0)
		goto out;
	if (s && (rc = sview_build(&sv, r, &g, topo, err)) < 0)
		goto out;
	if (!s && g.n_nodes && (rc = graph_layer(&g)) < 0) {
		fab_err_set(err, rc, "report: out of memory");
		goto out;
	}
	if (s) {
		json_t *sd;

		if (!g.n_nodes && (rc = graph_from_groups(&g, &sv)) < 0) {
			fab_err_set(err, rc, "report: out of memory");
			goto out;
		}
		sd = sweep_data(r, &sv, &g, err);
		if (!sd) {
			rc = err->code ? err->code : -ENOMEM;
			goto out;
		}
		json_object_set_new(data, "sweep", sd);
		sus = suspects_data(&g, &sv, json_object_get(s, "suspects"), "sweep");
		if ((rc = report_rail_views(s, &rv.views, &rv.cross)) < 0) {
			fab_err_set(err, rc, "report: out of memory");
			goto out;
		}
		if (rv.views && (rc = rails_data(r, &g, &rv, data, err)) < 0)
			goto out;
	}
	if (r->doc[REPORT_DIAGNOSE]) {
		json_t *ds = suspects_data(&g, &sv, json_object_get(r->doc[REPORT_DIAGNOSE], "suspects"),
					   "diagnose");

		if (!sus)
			sus = json_array();
		json_array_extend(sus, ds);
		json_decref(ds);
	}
	json_object_set_new(data, "suspects", sus ? sus : json_array());
	sus = NULL;
	json_object_set_new(data, "graph", g.n_nodes ? graph_data(&g) : json_null());
	rc = write_page(r, f, data, &g, &rv, err);
	if (!rc && (fflush(f) == EOF || ferror(f)))
		rc = fab_err_set(err, -EIO, "report: write error");
out:
	json_decref(rv.views);
	json_decref(sus);
	json_decref(data);
	sview_fini(&sv);
	graph_fini(&g);
	return rc;
}

int report_html_save(const struct report *r, const char *path, struct fab_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!strcmp(path, "-"))
		return report_html_write(r, stdout, err);
	f = open_memstream(&buf, &len);
	if (!f)
		return fab_err_set(err, -errno, "report: %s", strerror(errno));
	rc = report_html_write(r, f, err);
	if (fclose(f) == EOF && !rc)
		rc = fab_err_set(err, -ENOMEM, "report: out of memory");
	if (!rc)
		rc = file_write_atomic(path, buf, len, 0644, err);
	free(buf);
	return rc;
}
