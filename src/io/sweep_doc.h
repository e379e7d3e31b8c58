/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A saved sweep document ("fabricctl.sweep/N", sweep -j; docs/sweep.md)
 * read back into the sweep's own report (diagnose --from): its hosts, its
 * pairs with their verdicts into a pair store, what it recorded of its
 * run, its counter snapshot, and, when asked, its graph with every pair's
 * saved routes.  Errors name the file and the element ("F: pairs[3]:
 * 'x' is not a host of the sweep"); bad input is kind FAB_ERR_INPUT.
 *
 * Ownership: struct sweep_doc owns everything it holds (sweep_doc_fini()),
 * the JSON tree is not kept; the report filled by sweep_doc_load()
 * borrows the hosts, the store and the strings from it.
 */
#ifndef FAB_IO_SWEEP_DOC_H
#define FAB_IO_SWEEP_DOC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/bond_legs.h"
#include "model/hosts.h"
#include "model/localize.h"
#include "model/route.h"
#include "model/sweep_judge.h"
#include "model/topo.h"
#include "util/err.h"

/* A saved document larger than this is refused (bad input). */
#define SWEEP_DOC_MAX_BYTES (256u << 20)

/*
 * One entry of the document's "counters" (the port counters read with the
 * graph, InfiniBand): its port as the document names it, to be found on a
 * live graph (sweep_doc_counter_port()).  Entries without a counter name
 * or an integer value are not kept.
 */
struct sweep_doc_counter {
	char *node;		/* "" when the document gives none */
	uint64_t guid;		/* 0 when none */
	unsigned int num;	/* the port's number; 0 when it is named */
	char *port;		/* the port's name; NULL when numbered */
	char *name;		/* the counter */
	uint64_t value;
};

struct sweep_doc {
	struct fab_hosts hosts;		/* the hosts file's end points, else the document's nodes[] */
	struct fab_hosts fabric;	/* the hosts file's switches (--topology lldp); empty without one */
	struct pair_store *store;	/* the saved pairs, in their order */
	unsigned int (*ab)[2];		/* each pair's host indices, by store index */
	char *transport, *launcher, *mode;	/* "-" when the document does not say */
	char *topo_source;		/* topology.source; NULL when none */
	/* With @topology asked and the document holding one: */
	struct topo *topo;
	struct pair_route *routes;	/* one per pair, as saved */
	size_t n_routes;
	uint32_t *host_link, *host_leaf;	/* per host, UINT32_MAX unknown */
	struct loc_probe_obs *confirm;	/* localisation.confirming[] (--steer), on the saved graph */
	size_t n_confirm;
	struct sweep_doc_counter *counters;
	size_t n_counters;
	bool have_counters;		/* "counters" is an array */
	/* pairs[].legs (docs/sweep.md "Dual-homed legs"): the report borrows them */
	struct bond_legs_pair *legs;
	size_t n_legs;
	char **legs_why;		/* the directions' "why" strings */
	size_t n_legs_why;
	struct bond_legs_unanswered *legs_unans;	/* legs.not_measured[]: the report borrows it */
	size_t n_legs_unans;
};

void sweep_doc_init(struct sweep_doc *d);
void sweep_doc_fini(struct sweep_doc *d);

/*
 * Load @path into @d and @r: the hosts (from @hosts_path when given, its
 * switches' lines into d->fabric; else the document's nodes), the pairs
 * into a new store (r->store, n_pairs and the counts by status: a pair
 * whose status is none of ok, slow, failed, regressed is planned, not
 * evidence), transport, launcher and mode, the rounds, rounds done,
 * interruption, wall time and start (rounds 0 and wall NAN when the
 * document does not say: a re-analysis must not pass for a sweep of 0
 * rounds in 0 s), the counter entries, and with @topology the graph and
 * the routes (d->topo NULL when the document has no "topology": the
 * caller says what that means).  0 or -errno (@err set).
 */
int sweep_doc_load(struct sweep_doc *d, const char *path, const char *hosts_path, bool topology,
		   struct sweep_report *r, struct fab_err *err);

/*
 * The saved pairs' "legs" (each pair's two directions, as the sweep
 * judged them) into d->legs and the report (r->legs, n_legs, n_legs_bad);
 * after the pairs are read (d->ab).  Nothing when no pair has legs.  Bad
 * input names the element ("F: pairs[0].legs.ab.legs[1]: ...").
 * sweep_doc_legs.c; called by sweep_doc_load().
 */
int sweep_doc_legs(struct sweep_doc *d, const char *fname, json_t *pairs, struct sweep_report *r,
		   struct fab_err *err);
/*
 * The document's legs.not_measured[] (hosts whose worker did not answer
 * the "bond" request: {node, note}) into d->legs_unans and the report
 * (r->legs_unanswered, n_legs_unanswered), each note's reason as the
 * sweep had it, so the outputs say them as the sweep did.  Nothing when
 * "legs" or its "not_measured" is absent or null (a sweep older than it).
 * Bad input names the element ("F: legs.not_measured[0]: 'x' is not a
 * host of the sweep").  sweep_doc_legs.c; called by sweep_doc_load().
 */
int sweep_doc_legs_unmeasured(struct sweep_doc *d, const char *fname, json_t *legs,
			      struct sweep_report *r, struct fab_err *err);

/* The port of @t that counter entry @c names; NULL when @t has none. */
struct topo_port *sweep_doc_counter_port(struct topo *t, const struct sweep_doc_counter *c);

#endif
