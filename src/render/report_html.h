/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML report (docs/report.md): one self-contained page -- inline CSS,
 * JavaScript and SVG/canvas, no network, no external fonts -- drawn from
 * any mix of fabricctl JSON documents: a sweep (fabricctl.sweep/1 or /2),
 * a discover document (fabricctl.discover/1), a diagnose and an accept
 * document (fabricctl.diagnose/N, fabricctl.accept/N).
 *
 * The C side reads the documents (jansson), orders hosts by leaf, maps
 * paths onto the fabric's links, and writes the page: tables as HTML,
 * the heatmaps' figures as packed columns inside one
 * <script type="application/json"> block that the page's script draws
 * (SVG with one element per ordered pair for small fleets, canvas for
 * large ones).  Every string that came from a document is escaped for
 * HTML, and the data block escapes '<', '>' and '&' as \u003c etc.
 *
 * Ownership: struct report holds one new reference to each document added
 * (report_fini() drops them); @hosts and the names are borrowed and must
 * outlive the report.
 */
#ifndef FAB_RENDER_REPORT_HTML_H
#define FAB_RENDER_REPORT_HTML_H

#include <jansson.h>
#include <stdio.h>

#include "util/err.h"

struct fab_hosts;

enum report_kind {
	REPORT_SWEEP,
	REPORT_DISCOVER,
	REPORT_DIAGNOSE,
	REPORT_ACCEPT,
	REPORT_BASELINE,	/* an earlier sweep (report --baseline): the change heatmap */
	REPORT_KINDS,
};

struct report {
	json_t *doc[REPORT_KINDS];		/* NULL: not given */
	const char *name[REPORT_KINDS];	/* file name (or "sweep") for messages */
	const struct fab_hosts *hosts;	/* optional: leaf= / rack= labels; MAY BE NULL */
	/* Change map: a fall beyond it is marked; < 0 (report_init()): the sweep's, else 10. */
	double regress_pct;
};

void report_init(struct report *r);
void report_fini(struct report *r);

/*
 * Add @doc (a new reference is taken) read from @name.  A document whose
 * "schema" is not one of the above, or a second document of a kind
 * already added, is bad input naming @name (-EINVAL).
 */
int report_add(struct report *r, const char *name, json_t *doc, struct fab_err *err);

/*
 * Add @doc (a new reference is taken), an earlier sweep read from @name,
 * as the baseline: the page gets a third heatmap, each direction's change
 * against the same pair there.  Without one, the figures a sweep run with
 * --baseline carries (pairs[].baseline) are used.  Not a sweep document,
 * or a second baseline: bad input naming @name.
 */
int report_add_baseline(struct report *r, const char *name, json_t *doc, struct fab_err *err);

/* Write the page to @f (at least one document added); 0 or -errno. */
int report_html_write(const struct report *r, FILE *f, struct fab_err *err);

/*
 * Write the page to @path atomically (PATH.tmp.PID in the same directory,
 * fsync, rename), or to stdout when @path is "-".  For `report -o` and
 * `sweep --html`.
 */
int report_html_save(const struct report *r, const char *path, struct fab_err *err);

/*
 * Exit verdict the inputs carry: 1 when a pair is not ok or a problem/finding is listed
 * (a discover document's failing cable included, as discover's own exit), else 0.
 */
int report_verdict(const struct report *r);

/* HTML-escape @s (& < > " ') to @f; NULL writes nothing. */
void report_html_esc(FILE *f, const char *s);

/*
 * A sweep of hosts of several fabric ports (pairs with a_host/a_rail):
 * a "Rails" section, each host's median bandwidth per rail, a host whose
 * rails disagree (one below the sweep's slow_pct of its best, or one not
 * measured) marked.  Nothing for a sweep without rails (report_rails.c).
 */
void report_rails_table(FILE *f, const json_t *sweep);

/*
 * The same sweep cut into one view a rail, for the page's rail selector:
 * into *@views a new array (ascending rail) of {rail, nodes, pairs, reference, config},
 * each a sweep document over hosts (an end point's "host", named once):
 * the hosts with an end point on that rail or one without a rail, and the
 * pairs on that rail (both ends on it, or one end without a rail), "a"
 * and "b" their hosts; "reference" and "config" the sweep's.  *@views
 * NULL when no node has a rail.  *@cross: the pairs whose ends are on two
 * different rails (--cross-rail), in no view.  0 or -ENOMEM (*@views
 * NULL).  report_rails.c.
 */
int report_rail_views(const json_t *sweep, json_t **views, size_t *cross);

/*
 * A --steer sweep: an "ECMP members" section, each link between two
 * switches a steered test took (its traced path), its tests, how many of
 * pairs not ok, their median share of the expected rate and those pairs
 * by name and direction, the worst member first; above it the pairs on
 * whole ECMP sets by reason.  Nothing for a sweep without steered pairs
 * (report_members.c).
 */
void report_members_table(FILE *f, const json_t *sweep);

/*
 * A sweep's (or a diagnose document's) dual-homed legs: a "Dual-homed
 * legs" section, one table per bonded pair, each member's port,
 * bandwidth, tx bytes, switch port and verdict, a leg not ok marked
 * (class "legbad") with its finding.  Nothing when @doc has no top-level
 * "legs" (report_legs.c).
 */
void report_legs_table(FILE *f, const json_t *doc);

/*
 * Serialise @doc compactly with '<', '>' and '&' written as \u003c,
 * \u003e, \u0026, safe inside a <script> element; a new string (free()),
 * NULL on ENOMEM.
 */
char *report_json_for_script(const json_t *doc);

/*
 * The cable table (render/report_html_cables.c): a diagnose document's
 * "cables" (the suspects' hosts' cable ends, docs/optics.md), one row per
 * cable end with its verdict and worst figure; nothing when @cables is
 * null or has no host.  @name: the document's file, for the heading.
 */
void report_html_cables(FILE *f, const json_t *cables, const char *name);

/*
 * A discover document's "cables" (discover --lldp --hosts: every host's
 * cable ends, docs/optics.md "discover"): one row per end (node,
 * interface, peer, module type/vendor/PN/SN, verdict, worst figure,
 * hint) and one per host-to-host cable's both-ends verdict, the cables
 * worst first by their health; nothing when @cables is absent or has no
 * end.  @name: the document's file, for the heading.
 */
void report_html_discover_cables(FILE *f, const json_t *cables, const char *name);

#endif
