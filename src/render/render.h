/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Renderers behind one vtable (struct render_ops), picked by name with
 * render_select(): main() picks text or JSON once from -j (a subcommand's
 * own -j and discover's --format go through the same call).  Renderers
 * read the model and write to render->f (stdout); they never touch the
 * system.  Diagnostics go to stderr, never here.
 *
 * JSON renderers build the document with jansson; every document carries
 * "schema": "fabricctl.<cmd>/1" and keeps the same keys whether a feature
 * is supported or not.  The public schema is built here from the model,
 * never by the worker protocol's encoder (fleet/proto.c).  The
 * *_to_json() builders are exported so the fleet layer can merge per-node
 * documents.
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
struct plan;
struct sweep_report;

struct render_ops {
	const char *name;
	/* One node's status. */
	int (*status)(struct render *out, const struct host_state *hs);
	/* A fabric graph with its problems (discover; render/discover_*.c). */
	int (*discover)(struct render *out, const struct topo *t);
	/* Pairwise sweep (render/sweep_*.c). */
	int (*sweep)(struct render *out, const struct sweep_report *r);
	/* status --hosts: "fabricctl.fleet-status/1" document (render/sweep_fleet.c). */
	int (*status_fleet)(struct render *out, const json_t *doc);
	/* apply's plan and outcome (render/apply_*.c). */
	int (*apply)(struct render *out, const struct apply_report *rep);
	/* verify's drift list (render/verify_*.c). */
	int (*verify)(struct render *out, const char *profile, const char *hostname,
		      const struct plan *plan);
	/* verify --hosts / apply --hosts: "fabricctl.fleet-verify/1", "fabricctl.fleet-apply/1"
	 * (render/verify_fleet.c, render/apply_fleet.c). */
	int (*verify_fleet)(struct render *out, const json_t *doc);
	int (*apply_fleet)(struct render *out, const json_t *doc);
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
/* A "fabricctl.error/1" document for @err (cmd: the subcommand's name); 0 or -errno. */
struct fab_err;
int render_json_error(struct render *out, const char *cmd, const struct fab_err *err);

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
json_t *verify_to_json(const char *profile, const char *hostname, const struct plan *plan);
json_t *apply_to_json(const struct apply_report *rep);
/* A sweep through render_prom_ops, written to @path atomically (tmp + rename); 0 or -errno (@err set). */
int sweep_prom_write(const struct sweep_report *r, const char *path, struct fab_err *err);
/* sweep --csv: one row per pair (render/csv.c), written to @path atomically; 0 or -errno (@err set). */
int sweep_csv_write(const struct sweep_report *r, const char *path, struct fab_err *err);

#endif
