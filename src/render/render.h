/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output backends behind one vtable, chosen once by main() (-j selects
 * JSON).  Renderers read the model and write to out->f (stdout); they
 * never touch the system.  Diagnostics go to stderr, never here.
 *
 * JSON renderers build the document with jansson; every document carries
 * "schema": "fabricctl.<cmd>/1" and keeps the same keys whether a feature
 * is supported or not.  The *_to_json() builders are exported so the fleet
 * layer can merge per-node documents.
 */
#ifndef FAB_OUT_OUT_H
#define FAB_OUT_OUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "model/host_state.h"

struct fab_out;
struct topo;
struct apply_report;
struct plan;
struct sweep_report;

struct out_ops {
	const char *name;
	/* One node's status. */
	int (*status)(struct fab_out *out, const struct host_state *hs);
	/* A fabric graph with its problems (discover; render/discover_*.c). */
	int (*discover)(struct fab_out *out, const struct topo *t);
	/* Pairwise sweep (render/sweep_*.c). */
	int (*sweep)(struct fab_out *out, const struct sweep_report *r);
	/* status --hosts: "fabricctl.fleet-status/1" document (render/sweep_fleet.c). */
	int (*status_fleet)(struct fab_out *out, const json_t *doc);
	/* apply's plan and outcome (render/apply_*.c). */
	int (*apply)(struct fab_out *out, const struct apply_report *rep);
	/* verify's drift list (render/verify_*.c). */
	int (*verify)(struct fab_out *out, const char *profile, const char *hostname,
		      const struct plan *plan);
	/* verify --hosts / apply --hosts: "fabricctl.fleet-verify/1", "fabricctl.fleet-apply/1"
	 * (render/verify_fleet.c, render/apply_fleet.c). */
	int (*verify_fleet)(struct fab_out *out, const json_t *doc);
	int (*apply_fleet)(struct fab_out *out, const json_t *doc);
};

struct fab_out {
	const struct out_ops *ops;
	FILE *f;
	bool pretty;		/* JSON: indent */
	bool color;		/* text: mark unhealthy items with color (tty only) */
};

extern const struct out_ops out_text_ops;
extern const struct out_ops out_json_ops;
extern const struct out_ops out_dot_ops;		/* discover --format dot */
extern const struct out_ops out_ibnet_ops;	/* discover --format ibnetdiscover */

/* Write @doc (stolen) to out->f followed by a newline; 0 or -errno. */
int out_json_emit(struct fab_out *out, json_t *doc);

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
json_t *sweep_to_json(const struct sweep_report *r);	/* "fabricctl.sweep/1" */
/* "fabricctl.verify/1" and "fabricctl.apply/1" (the worker's verify/apply answers); NULL: ENOMEM. */
json_t *verify_to_json(const char *profile, const char *hostname, const struct plan *plan);
json_t *apply_to_json(const struct apply_report *rep);
/* Prometheus text format of a sweep, written to @path atomically (tmp + rename). */
int sweep_prom_write(const struct sweep_report *r, const char *path);

#endif
