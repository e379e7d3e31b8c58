/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Renderers behind one vtable (struct render_ops), picked by name with
 * render_select(): main() picks text or JSON once from -j (a subcommand's
 * own -j and discover's --format go through the same call).  Every
 * command's output goes through this table: a command calls its slot and
 * never asks which renderer it has.  Renderers read the model and write
 * to render->f (stdout); they never touch the system.  Diagnostics go to
 * stderr, never here.
 *
 * A view whose text and JSON carry the same values is written once, for
 * both, with render/view.h (one call per value names its JSON member and
 * its text format; confirm, error); a view whose two forms differ in
 * shape (a table against a document) has a renderer per format.
 *
 * JSON renderers build the document with jansson; every document carries
 * "schema": "fabricctl.<cmd>/1" and keeps the same keys whether a feature
 * is supported or not.  The public schema is built here from the model,
 * never by the worker protocol's encoder (fleet/proto.c), nor by fleet/:
 * fleet/fleet_op.h hands over structs, the fleet documents are written
 * here (render/fleet_doc.c).  The *_to_json() builders are exported for
 * the worker (its answers are a node's own documents) and for tests.
 */
#ifndef FAB_RENDER_RENDER_H
#define FAB_RENDER_RENDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/host_state.h"

struct render;
struct topo;
struct apply_report;
struct changeset;
struct sweep_report;
struct trace_report;		/* render/trace.h */
struct accept_report;
struct accept_meta;		/* render/accept.h */
struct fab_err;
struct fleet_run;		/* fleet/fleet_op.h */
struct fleet_verify;
struct fleet_apply;

/* What a renderer writes, for the views written once (render/view.h). */
enum render_kind {
	RENDER_OTHER,		/* a format of its own (DOT, CSV...): no views written once */
	RENDER_TEXT,
	RENDER_JSON,
};

/* confirm's outcome (cmd/confirm.c): "fabricctl.confirm/1", or one line of text. */
enum confirm_action {
	CONFIRM_NONE,		/* nothing pending: JSON only (the error on stderr says it) */
	CONFIRM_CONFIRMED,
	CONFIRM_REVERTED,
};
struct confirm_report {
	enum confirm_action action;
	size_t changes;
	const char *note;	/* text: what follows "N change(s)"; "" for nothing */
	const char *last_revert;	/* CONFIRM_NONE: the last automatic revert's log, or NULL */
};

/*
 * What diagnose ran on (cmd/diagnose.c): a saved sweep (@from, then @a and
 * @b NULL) or the slow pair @a-@b measured now.
 */
struct diagnose_meta {
	const char *from;
	const char *a, *b;
};

/*
 * One slot per view.  A slot a renderer lacks is NULL: the command says
 * "writing output failed" (discover --format dot has no status, say).
 */
struct render_ops {
	const char *name;
	enum render_kind kind;
	/* One node's status. */
	int (*status)(struct render *out, const struct host_state *hs);
	/* A fabric graph with its problems (discover; render/discover_*.c). */
	int (*discover)(struct render *out, const struct topo *t);
	/* Pairwise sweep (render/sweep_*.c). */
	int (*sweep)(struct render *out, const struct sweep_report *r);
	/* status --hosts: "fabricctl.fleet-status/1" (render/status_fleet.c, fleet_doc.c). */
	int (*status_fleet)(struct render *out, const struct fleet_run *run);
	/* apply's change set and outcome (render/apply_*.c). */
	int (*apply)(struct render *out, const struct apply_report *rep);
	/* verify's drift list (render/verify_*.c). */
	int (*verify)(struct render *out, const char *profile, const char *hostname,
		      const struct changeset *cs);
	/* verify --hosts / apply --hosts: "fabricctl.fleet-verify/1", "fabricctl.fleet-apply/1"
	 * (render/verify_fleet.c, render/apply_fleet.c, render/fleet_doc.c). */
	int (*verify_fleet)(struct render *out, const struct fleet_verify *v);
	int (*apply_fleet)(struct render *out, const struct fleet_apply *a);
	/* confirm (render/confirm.c, written once). */
	int (*confirm)(struct render *out, const struct confirm_report *r);
	/*
	 * A command that failed before it had its own document: with -j a
	 * "fabricctl.error/1" document on stdout; in text nothing (the
	 * message is on stderr).  render/error.c, written once.
	 */
	int (*error)(struct render *out, const char *cmd, const struct fab_err *err);
	/* accept's checklist or "fabricctl.accept/1" (render/accept_{text,json}.c). */
	int (*accept)(struct render *out, const struct accept_report *r,
		      const struct accept_meta *m);
	/* diagnose: the sweep's view under diagnose's header (render/diagnose.c). */
	int (*diagnose)(struct render *out, const struct sweep_report *r,
			const struct diagnose_meta *m);
	/* fabricctl trace: the hops of each flow and the port -> member map (render/trace_*.c). */
	int (*trace)(struct render *out, const struct trace_report *r);
};

struct render {
	const struct render_ops *ops;
	FILE *f;
	bool pretty;		/* JSON: indent */
	bool color;		/* text: mark unhealthy items with color (tty only) */
};

extern const struct render_ops render_text_ops;
extern const struct render_ops render_json_ops;
extern const struct render_ops render_dot_ops;		/* discover --format dot */
extern const struct render_ops render_ibnet_ops;	/* discover --format ibnetdiscover */
extern const struct render_ops render_prom_ops;		/* sweep --prom: Prometheus text format */
extern const struct render_ops render_csv_ops;		/* discover --csv, sweep --csv (render/csv.c) */

/* The renderer called @name ("text", "json", "dot", "ibnetdiscover"), or NULL. */
const struct render_ops *render_find(const char *name);
/*
 * Point @r at the renderer called @name ("text", "json", "dot",
 * "ibnetdiscover"); JSON turns colour off.  0, or -EINVAL for an unknown name.
 */
int render_select(struct render *r, const char *name);

/* Write @doc (stolen) to out->f followed by a newline; 0 or -errno. */
int render_json_emit(struct render *out, json_t *doc);

/* Model -> JSON builders (new references). */
json_t *status_to_json(const struct host_state *hs);
json_t *discover_to_json(const struct topo *t);	/* "fabricctl.discover/1" */
json_t *json_guid(uint64_t guid);	/* "0x%016" PRIx64 string */
/*
 * A JSON string for text that came off the wire (SMP NodeDescription, LLDP
 * system names): such text need not be UTF-8, and jansson refuses what is
 * not.  Invalid text is kept with every non-ASCII byte replaced by '?', so
 * the object it names is never dropped from a document.
 */
json_t *json_text(const char *s);
/* json_text(), or null for NULL or "" (unknown): keys never depend on the data. */
json_t *json_text_or_null(const char *s);
json_t *sweep_to_json(const struct sweep_report *r);	/* "fabricctl.sweep/2" */
/* "fabricctl.verify/1" and "fabricctl.apply/1" (the worker's verify/apply answers); NULL: ENOMEM. */
json_t *verify_to_json(const char *profile, const char *hostname, const struct changeset *cs);
json_t *apply_to_json(const struct apply_report *rep);
/*
 * The fleet documents from fleet/'s structs (render/fleet_doc.c); NULL:
 * ENOMEM.  Each node is {"node", "address", "ok", "error", <op>: its own
 * document or null}.
 */
json_t *fleet_status_to_json(const struct fleet_run *run);	/* "fabricctl.fleet-status/1" */
json_t *fleet_verify_to_json(const struct fleet_verify *v);	/* "fabricctl.fleet-verify/1" */
json_t *fleet_apply_to_json(const struct fleet_apply *a);	/* "fabricctl.fleet-apply/1" */
/* A sweep through render_prom_ops, written to @path atomically (tmp + rename); 0 or -errno (@err set). */
int sweep_prom_write(const struct sweep_report *r, const char *path, struct fab_err *err);
/* sweep --csv: one row per pair (render/csv.c), written to @path atomically; 0 or -errno (@err set). */
int sweep_csv_write(const struct sweep_report *r, const char *path, struct fab_err *err);

#endif
