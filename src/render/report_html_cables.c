// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The report's cable table (docs/report.md): the cable ends a diagnose
 * document carries ("cables": the suspects' hosts, read before and after
 * its sweep, docs/optics.md), one row each: node, interface, module,
 * verdict, the worst figure (the first finding at the verdict's level,
 * with its limit) and what to do first; and a discover document's
 * ("cables": every host's cable ends on the LLDP graph), one row per end
 * with its peer, and one per host-to-host cable for what both ends tell,
 * worst first.  Nothing when the document has none.  Every string from
 * the document is escaped.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "render/report_html.h"

static const char *str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static void td(FILE *f, const char *s)
{
	fputs("<td>", f);
	report_html_esc(f, s && *s ? s : "-");
	fputs("</td>", f);
}

/* The first finding at @v's level (optics_verdict_worst()), NULL when none. */
static const json_t *worst(const json_t *v)
{
	const char *h = str(v, "health");
	const json_t *x;
	size_t i;

	json_array_foreach(json_object_get(v, "findings"), i, x)
		if (h && str(x, "level") && strcmp(str(x, "level"), h) == 0)
			return x;
	return NULL;
}

static void figure(FILE *f, const json_t *w)
{
	const json_t *val = json_object_get(w, "value"), *lim = json_object_get(w, "limit");
	const char *unit = str(w, "unit");

	fputs("<td>", f);
	if (json_is_number(val)) {
		fprintf(f, "<b>%.4g", json_number_value(val));
		report_html_esc(f, unit ? " " : "");
		report_html_esc(f, unit);
		fputs("</b>", f);
		if (json_is_number(lim)) {
			fprintf(f, " (limit %.4g", json_number_value(lim));
			report_html_esc(f, unit ? " " : "");
			report_html_esc(f, unit);
			fputc(')', f);
		}
		fputs(": ", f);
	}
	report_html_esc(f, w ? str(w, "text") : "-");
	fputs("</td>", f);
}

/* The verdict @v's cells: its health, its worst figure, its hint; and the row's end. */
static void verdict_cells(FILE *f, const json_t *v)
{
	const json_t *w = worst(v);
	const char *h = str(v, "health");

	fprintf(f, "<td><span class=\"%s\">", !h ? "" : !strcmp(h, "failing") ? "tag bad" :
		!strcmp(h, "marginal") ? "tag slow" : !strcmp(h, "healthy") ? "good" : "");
	report_html_esc(f, h ? h : "-");
	fputs("</span></td>", f);
	figure(f, w);
	td(f, w ? str(w, "hint") : NULL);
	fputs("</tr>\n", f);
}

/* One row: @node, @iface, @module (text), the verdict @v, its worst figure, its hint. */
static void port_row(FILE *f, const char *node, const char *iface, const char *module,
		     const json_t *v)
{
	fputs("<tr>", f);
	td(f, node);
	td(f, iface);
	td(f, module);
	verdict_cells(f, v);
}

/* A host's port: its module and verdict. */
static void module_row(FILE *f, const char *node, const json_t *p)
{
	const json_t *m = json_object_get(p, "module");
	char mod[200];

	snprintf(mod, sizeof(mod), "%s %s %s", str(m, "type") ? str(m, "type") : "",
		 str(m, "vendor") ? str(m, "vendor") : "", str(m, "pn") ? str(m, "pn") : "");
	port_row(f, node, str(p, "ifname"), json_is_object(m) ? mod : str(p, "module_error"),
		 json_object_get(p, "verdict"));
}

/* A host not read, or without a port that has a module interface: one line. */
static void host_line(FILE *f, const json_t *h)
{
	bool read = json_is_true(json_object_get(h, "read"));

	fputs("<tr>", f);
	td(f, str(h, "node"));
	fputs("<td colspan=\"5\">", f);
	report_html_esc(f, read ? "no port with a module interface" : str(h, "note") ? str(h, "note")
									  : "not read");
	fputs("</td></tr>\n", f);
}

/* An InfiniBand end: its PMA counters over the window. */
static void ib_row(FILE *f, const json_t *e)
{
	char port[32];

	snprintf(port, sizeof(port), "port %lld",
		 (long long)json_integer_value(json_object_get(e, "port")));
	port_row(f, str(e, "node"), port, "InfiniBand PMA counters",
		 json_object_get(e, "verdict"));
}

void report_html_cables(FILE *f, const json_t *cables, const char *name)
{
	const json_t *hosts = json_object_get(cables, "hosts"), *h, *p;
	const json_t *ib = json_object_get(cables, "ib_ports");
	const json_t *win = json_object_get(cables, "window_s");
	size_t i, k;

	if (!json_array_size(hosts) && !json_array_size(ib))
		return;
	if (!json_is_number(win))
		win = json_object_get(cables, "ib_window_s");
	fputs("<section id=\"cables\"><h2>Cables of the suspects <small>", f);
	report_html_esc(f, name);
	if (json_is_number(win))
		fprintf(f, " &middot; judged over %.1f s", json_number_value(win));
	fputs("</small></h2>\n<table class=\"t\" id=\"cable-table\"><thead><tr><th>node</th>"
	      "<th>interface</th><th>module</th><th>verdict</th><th>worst figure</th>"
	      "<th>first do</th></tr></thead><tbody>\n", f);
	json_array_foreach(hosts, i, h) {
		const json_t *ports = json_object_get(h, "ports");

		if (!json_is_true(json_object_get(h, "read")) || !json_array_size(ports)) {
			host_line(f, h);
			continue;
		}
		json_array_foreach(ports, k, p)
			module_row(f, str(h, "node"), p);
	}
	json_array_foreach(ib, i, p)
		ib_row(f, p);
	fputs("</tbody></table></section>\n", f);
}

/* ---- discover's cables ---- */

/* "TYPE VENDOR PN sn SN" of a discover end's module. */
static void module_cell(FILE *f, const json_t *m)
{
	static const char *const keys[] = { "type", "vendor", "pn", "sn" };
	bool any = false;

	fputs("<td>", f);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!str(m, keys[i]))
			continue;
		fputs(any ? " " : "", f);
		fputs(i == 3 ? "sn " : "", f);
		report_html_esc(f, str(m, keys[i]));
		any = true;
	}
	fputs(any ? "</td>" : "-</td>", f);
}

/* "NODE PORT" of an end's peer (port a name or a number), "-" when null. */
static void peer_cell(FILE *f, const json_t *peer)
{
	const json_t *port = json_object_get(peer, "port");

	fputs("<td>", f);
	report_html_esc(f, str(peer, "node") ? str(peer, "node") : "-");
	if (json_is_string(port)) {
		fputc(' ', f);
		report_html_esc(f, json_string_value(port));
	} else if (json_is_integer(port)) {
		fprintf(f, " %lld", (long long)json_integer_value(port));
	}
	fputs("</td>", f);
}

static void end_row(FILE *f, const json_t *e)
{
	fputs("<tr>", f);
	td(f, str(e, "node"));
	td(f, str(e, "ifname"));
	peer_cell(f, json_object_get(e, "peer"));
	module_cell(f, json_object_get(e, "module"));
	verdict_cells(f, json_object_get(e, "verdict"));
}

/* What only both ends of host-to-host cable @c tell: "A IF &harr; B IF", both ends. */
static void both_row(FILE *f, const json_t *c)
{
	const json_t *a = json_array_get(json_object_get(c, "ends"), 0);
	const json_t *b = json_array_get(json_object_get(c, "ends"), 1);

	fputs("<tr class=\"both\"><td colspan=\"3\">", f);
	report_html_esc(f, str(a, "node"));
	fputc(' ', f);
	report_html_esc(f, str(a, "ifname"));
	fputs(" &harr; ", f);
	report_html_esc(f, str(b, "node"));
	fputc(' ', f);
	report_html_esc(f, str(b, "ifname"));
	fputs("</td><td>both ends</td>", f);
	verdict_cells(f, json_object_get(c, "both_ends"));
}

/* Worst first: failing, marginal, unknown, then the rest (as topo_optics_rank()). */
static int health_rank(const char *h)
{
	static const char *const order[] = { "failing", "marginal", "unknown" };

	for (int i = 0; h && i < 3; i++)
		if (strcmp(h, order[i]) == 0)
			return i;
	return 3;
}

void report_html_discover_cables(FILE *f, const json_t *cables, const char *name)
{
	size_t n_ends = 0, i, k;
	const json_t *c, *e;

	json_array_foreach(cables, i, c)
		n_ends += json_array_size(json_object_get(c, "ends"));
	if (!n_ends)
		return;
	fputs("<section id=\"discover-cables\"><h2>Cables <small>", f);
	report_html_esc(f, name);
	fprintf(f, " &middot; %zu cable end%s, one reading</small></h2>\n"
		"<table class=\"t\" id=\"discover-cable-table\"><thead><tr><th>node</th>"
		"<th>interface</th><th>peer</th><th>module</th><th>verdict</th>"
		"<th>evidence</th><th>first do</th></tr></thead><tbody>\n", n_ends,
		n_ends == 1 ? "" : "s");
	for (int rank = 0; rank <= 3; rank++)
		json_array_foreach(cables, i, c) {
			if (health_rank(str(c, "health")) != rank)
				continue;
			json_array_foreach(json_object_get(c, "ends"), k, e)
				end_row(f, e);
			if (json_is_object(json_object_get(c, "both_ends")))
				both_row(f, c);
		}
	fputs("</tbody></table></section>\n", f);
}
