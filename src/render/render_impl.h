/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to src/render/: per-command renderer functions that the
 * vtables (render.c) point at.  Each command keeps its renderers in its
 * own files (render/<cmd>_text.c, render/<cmd>_json.c, or one
 * render/<cmd>.c for a view written once: render/view.h) and adds its
 * slot to struct render_ops, its declarations here, and one line to each
 * vtable.
 */
#ifndef FAB_RENDER_RENDER_IMPL_H
#define FAB_RENDER_RENDER_IMPL_H

#include "model/sweep_judge.h"
#include "render/render.h"

/*
 * Text renderers and foreign text.  Every string that came from outside
 * (a file, a saved document, a change set, a node, the kernel: names, modes,
 * reasons, evidence) goes through render_txt() before a text renderer
 * writes it: the string itself when it holds no control character, else
 * its util/str.c str_clean() copy with each one shown as \xNN (as worker
 * strings are), so no escape sequence reaches a terminal.  The copy lives
 * in one of @tb's RENDER_TXT_SLOTS slots, reused in turn: a statement may
 * use that many results at once.  A renderer keeps its struct render_txt
 * on its own stack (no process-wide state); the text's own colours are
 * the renderer's, written beside it, never through it.
 */
#define RENDER_TXT_SLOTS 8
#define RENDER_TXT_MAX 2048	/* a cleaned copy is cut to this, at a character's boundary */
struct render_txt {
	char slot[RENDER_TXT_SLOTS][RENDER_TXT_MAX];
	unsigned int next;
};
const char *render_txt(struct render_txt *tb, const char *s);

/* status: render/status_text.c, render/status_json.c. */
int status_text(struct render *out, const struct host_state *hs);
int status_json(struct render *out, const struct host_state *hs);
/* status --prom: the modules and links (render/optics_prom.c). */
int status_prom(struct render *out, const struct host_state *hs);
/* status, the PCIe part: render/status_pcie_text.c, render/status_pcie_json.c. */
struct pcie_view;
void status_pcie_text(FILE *f, struct render_txt *tx, const struct pcie_view *v);
json_t *status_pcie_json(const struct pcie_view *v);
/* status --hosts, the PCIe groups: render/status_pcie_fleet.c. */
void status_pcie_fleet_json(json_t *doc);
void status_pcie_fleet_text(FILE *f, const json_t *doc);

/* discover: render/discover_text.c, render/discover_json.c. */
int discover_text(struct render *out, const struct topo *t);
int discover_json(struct render *out, const struct topo *t);

/*
 * The sweep renderers read the pairs from the report's store, in order
 * (render/sweep_pairs.c): sweep_pairs_each() calls @fn with each (index,
 * pair: a copy, valid for the call) and stops at the first error it or
 * the store returns.  sweep_pair_route() is pair @i's route (@p the pair)
 * for listing its path: the report's routes[i], or one made on demand
 * into @tmp (pair_route_fini() it after); NULL without a topology or
 * over SWEEP_PATHS_MAX_PAIRS pairs (docs/sweep.md: paths are not listed
 * per pair in larger sweeps).
 */
struct pair_route;
typedef int (*sweep_pair_fn)(void *ctx, size_t i, const struct sweep_pair *p);
int sweep_pairs_each(const struct sweep_report *r, sweep_pair_fn fn, void *ctx);
const struct pair_route *sweep_pair_route(const struct sweep_report *r, size_t i,
					  const struct sweep_pair *p, struct pair_route *tmp);

/*
 * A sweep's dual-homed legs (render/sweep_legs.c): pair @i's "legs" into
 * its object @o (nothing when it has none), the document's top-level
 * "legs", the text's section (nothing without legs).
 */
void sweep_legs_pair_json(const struct sweep_report *r, size_t i, json_t *o);
/* The legs of store pair @i (borrowed), or NULL. */
const struct bond_legs_pair *sweep_legs_of_pair(const struct sweep_report *r, size_t i);

json_t *sweep_legs_doc_json(const struct sweep_report *r);
int sweep_legs_text(FILE *f, struct render_txt *tx, const struct sweep_report *r);

/* sweep: render/sweep_text.c, render/sweep_json.c. */
int sweep_text(struct render *out, const struct sweep_report *r);
int sweep_json(struct render *out, const struct sweep_report *r);
/* diagnose: render/diagnose.c. */
int diagnose_text(struct render *out, const struct sweep_report *r, const struct diagnose_meta *m);
int diagnose_json(struct render *out, const struct sweep_report *r, const struct diagnose_meta *m);
/*
 * CSV (render/csv.c): one RFC 4180 field of @s (NULL or "": empty), quoted when it must be;
 * text starting with =, +, -, @, tab or CR written as "'TEXT" (no formula).
 */
int sweep_csv(struct render *out, const struct sweep_report *r);
void csv_field(FILE *f, const char *s);
/* apply, verify: render/apply_{text,json}.c, render/verify_{text,json}.c. */
int apply_text(struct render *out, const struct apply_report *rep);
int apply_json(struct render *out, const struct apply_report *rep);
int verify_text(struct render *out, const char *profile, const char *hostname,
		const struct changeset *cs);
int verify_json(struct render *out, const char *profile, const char *hostname,
		const struct changeset *cs);
/*
 * status, verify and apply --hosts from fleet/'s structs: text in
 * render/status_fleet.c, render/verify_fleet.c, render/apply_fleet.c; the
 * documents and what the tables share in render/fleet_doc.c: @s or "-"
 * (NULL or ""), a JSON string or "-", the NODE column's width, a "NODE
 * FAILED: error" line per failed node.
 */
int status_fleet_text(struct render *out, const struct fleet_run *run);
int verify_fleet_text(struct render *out, const struct fleet_verify *v);
int apply_fleet_text(struct render *out, const struct fleet_apply *a);
int status_fleet_json(struct render *out, const struct fleet_run *run);
int verify_fleet_json(struct render *out, const struct fleet_verify *v);
int apply_fleet_json(struct render *out, const struct fleet_apply *a);
const char *fleet_dash(const char *s);
const char *fleet_doc_str(const json_t *j);
int fleet_node_width(const struct fleet_run *run);
json_t *fleet_ports_json(const struct fleet_run *run);	/* status --hosts: each fabric port */
void fleet_failed_print(struct render *out, const struct fleet_run *run);

/* One RoCE port's lossless chain in one line (render/chain_text.c): verify, status. */
struct lossless_chain;
const char *chain_text(const struct lossless_chain *c, char *buf, size_t len);
/*
 * verify --hosts: the nodes grouped by chain (render/verify_fleet_chain.c):
 * the fleet document's "chain_groups" (NULL: ENOMEM) and its text.
 */
struct fleet_run;
json_t *verify_fleet_chain_groups(const struct fleet_run *run);
/* status --hosts: each node's RoCE ports' chains, a line each (render/status_chain_fleet.c). */
void status_fleet_chains_text(FILE *f, int w, const struct fleet_run *run);
void verify_fleet_chains_text(FILE *f, const json_t *groups);
/* The same as a JSON object (render/verify_json.c; docs/json-verify.md "chains"); NULL: ENOMEM. */
json_t *chain_to_json(const struct lossless_chain *c);

/* Written once for text and JSON (render/view.h): confirm, the error document. */
int confirm_view(struct render *out, const struct confirm_report *r);
int error_view(struct render *out, const char *cmd, const struct fab_err *err);

#endif
