// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The HTML report's dual-homed legs (report_html.h): for a sweep (or a
 * diagnose document) whose pairs carry "legs" (docs/sweep.md "Dual-homed
 * legs"), one table per bonded pair: each sending bond's members, the
 * port that put a flow on each, its bandwidth, the member's own tx bytes,
 * its switch port and its verdict; a leg not ok (slow, dead, unused) is
 * marked and its finding written beside it.  Nothing without legs.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "render/report_html.h"

static const char *s_or(const json_t *o, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : dflt;
}

/* An integer cell's text, or a dash when @v is none; then the next cell opens. */
static void int_cell(FILE *f, const json_t *v)
{
	if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else
		fputs("&ndash;", f);
	fputs("</td><td>", f);
}

/* One member's row of direction @d (sent by d.node to @to). */
static void leg_row(FILE *f, const json_t *d, const char *to, const json_t *l)
{
	const json_t *bw = json_object_get(l, "bw_mbps"), *sport = json_object_get(l, "sport");
	const json_t *tx = json_object_get(l, "tx_bytes");
	const char *verdict = s_or(l, "verdict", "?");
	bool fault = json_is_true(json_object_get(l, "fault"));

	fprintf(f, "<tr%s><td>", fault ? " class=\"legbad\"" : "");
	report_html_esc(f, s_or(d, "node", "?"));
	fputs(" &rarr; ", f);
	report_html_esc(f, to);
	fputs("</td><td>", f);
	report_html_esc(f, s_or(d, "bond", "?"));
	fputs("</td><td>", f);
	report_html_esc(f, s_or(l, "member", "?"));
	fputs("</td><td>", f);
	int_cell(f, sport);
	if (json_is_number(bw))
		fprintf(f, "%.1f Mb/s", json_number_value(bw));
	else
		fputs("&ndash;", f);
	fputs("</td><td>", f);
	int_cell(f, tx);
	if (json_string_value(json_object_get(l, "switch"))) {
		report_html_esc(f, s_or(l, "switch", ""));
		fputc(' ', f);
		report_html_esc(f, s_or(l, "switch_port", ""));
	} else {
		fputs("&ndash;", f);
	}
	fprintf(f, "</td><td><span class=\"tag%s\">", fault ? !strcmp(verdict, "slow") ? " slow"
								    : " failed" : "");
	report_html_esc(f, verdict);
	fputs("</span></td><td>", f);
	report_html_esc(f, s_or(l, "finding", ""));
	fputs("</td></tr>\n", f);
}

/* Direction @d's rows, and its "why" (a member without a port) as a row of its own. */
static void dir_rows(FILE *f, const json_t *d, const char *to)
{
	const json_t *l;
	size_t i;

	if (!json_is_object(d))
		return;
	json_array_foreach(json_object_get(d, "legs"), i, l)
		leg_row(f, d, to, l);
	if (json_string_value(json_object_get(d, "why"))) {
		fputs("<tr><td colspan=\"9\"><small>", f);
		report_html_esc(f, s_or(d, "node", "?"));
		fputs(" ", f);
		report_html_esc(f, s_or(d, "bond", "?"));
		fputs(" (", f);
		report_html_esc(f, s_or(d, "mode", "?"));
		fputs(", ", f);
		report_html_esc(f, s_or(d, "xmit_hash_policy", "?"));
		fputs("): ", f);
		report_html_esc(f, s_or(d, "why", ""));
		fputs("</small></td></tr>\n", f);
	}
}

void report_legs_table(FILE *f, const json_t *doc)
{
	const json_t *legs = json_object_get(doc, "legs"), *p;
	long long bad = json_integer_value(json_object_get(legs, "bad"));
	size_t i;

	if (!json_is_object(legs))
		return;
	fprintf(f, "<section id=\"legs\"><h2>Dual-homed legs <small>one flow per bond member, "
		"one after another: %lld not ok</small></h2>\n", bad);
	json_array_foreach(json_object_get(doc, "pairs"), i, p) {
		const json_t *pl = json_object_get(p, "legs");
		const char *a = s_or(p, "a", "?"), *b = s_or(p, "b", "?");

		if (!json_is_object(pl))
			continue;
		fputs("<h3>", f);
		report_html_esc(f, a);
		fputs(" &harr; ", f);
		report_html_esc(f, b);
		fputs("</h3>\n<table class=\"t legs\"><thead><tr><th>direction</th><th>bond</th>"
		      "<th>member</th><th>source port</th><th>bandwidth</th><th>member tx bytes</th>"
		      "<th>switch port</th><th>verdict</th><th>finding</th></tr></thead><tbody>\n", f);
		dir_rows(f, json_object_get(pl, "ab"), b);
		dir_rows(f, json_object_get(pl, "ba"), a);
		fputs("</tbody></table>\n", f);
	}
	fputs("</section>\n", f);
}
