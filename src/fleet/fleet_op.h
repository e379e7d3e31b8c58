/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One worker op on every node of a hosts file: status, verify and apply
 * --hosts (through cmd/fleet_cmd.c), with the checks and merges of the
 * verify and apply answers; and the fleet's up-front checks.  What comes
 * back is structs: the fleet documents ("fabricctl.fleet-status/1",
 * "fabricctl.fleet-verify/1", "fabricctl.fleet-apply/1") are written by
 * render/ from them (render/fleet_doc.c).
 *
 * Ownership: a struct fleet_run owns its answers, their documents and
 * errors (fleet_run_fini()); the node names borrow from the hosts (or
 * whatever fleet_run_add() was given), which must outlive it.  A struct
 * fleet_verify or fleet_apply owns its entries and borrows its run, which
 * must outlive it; their node names are borrowed (the run's, or what
 * fleet_verify_drift_add() was given).
 */
#ifndef FAB_FLEET_FLEET_OP_H
#define FAB_FLEET_FLEET_OP_H

#include <jansson.h>
#include <stdbool.h>

#include "fleet/fleet.h"
#include "model/host_state.h"
#include "model/nic_counters.h"

/* One node's answer to an op, in the hosts file's order. */
struct fleet_answer {
	const char *node, *addr;	/* borrowed */
	bool ok;			/* answered with a well-formed document that succeeded */
	/*
	 * The node's own document ("fabricctl.<op>/1", as its renderer wrote
	 * it, cleaned of control characters on arrival: proto_msg_clean()),
	 * or NULL: no answer, or an answer the check threw away.
	 */
	json_t *doc;
	char *error;			/* why not ok; NULL when there is nothing to say */
};

struct fleet_run {
	const char *op;			/* "status", "verify", "apply" */
	struct fleet_answer *nodes;
	size_t n;
	size_t n_failed;		/* nodes not ok */
	/*
	 * Hosts of several fabric ports: every line of the hosts file (a
	 * port each; borrowed), for status to list each port; NULL otherwise.
	 */
	const struct fab_hosts *ports;
};

void fleet_run_init(struct fleet_run *run, const char *op);
void fleet_run_fini(struct fleet_run *run);
/*
 * Add a node's answer: @doc stolen (NULL: none), @error copied (NULL:
 * none); ok is @doc != NULL, and a node without either gets "no answer".
 * 0 or -ENOMEM (@doc freed).
 */
int fleet_run_add(struct fleet_run *run, const char *node, const char *addr, json_t *doc,
		  const char *error);
/* Node @i fails: ok false, error "@why@what", its document dropped when @drop. */
int fleet_run_fail(struct fleet_run *run, size_t i, const char *why, const char *what,
		   bool drop);

/*
 * Start workers on @hosts, send each {"op": @op} plus @params (borrowed,
 * may be NULL), collect the answers into @run (fleet_run_fini() it, also
 * on failure).
 */
int fleet_op_run(const struct fab_hosts *hosts, const struct fleet_opts *o, const char *op,
		 const json_t *params, int timeout_ms, struct fleet_run *run,
		 struct fab_err *err);

/*
 * Before any worker starts: the launcher's program (the first word of
 * the launcher's command line, for the first host) must be found, in
 * PATH unless it has a '/'.  Otherwise bad input, once:
 * "launcher 'nosuch {host}': nosuch: not found in PATH (...)".
 */
int fleet_launcher_check(const struct fleet_opts *o, const struct fab_hosts *hosts,
			 struct fab_err *err);

/*
 * A verbs sweep's first check, after fleet_start(): every live worker is
 * asked for its status and must have the RDMA device its host names
 * (rdma=DEV[:PORT]) with that port.  Bad input, once, naming the nodes:
 * "--transport verbs: 4 of 4 nodes cannot run it: h1: no RDMA device; ...".
 */
int fleet_rdma_check(struct fleet *f, int timeout_ms, struct fab_err *err);

/*
 * fleet_rdma_check()'s verdict, pure: @status[i] is worker i's "status"
 * result (borrowed; NULL when it did not answer: not judged here), its
 * hello in f->w[i].hello.  0, or bad input listing up to four nodes.
 */
int fleet_rdma_judge(const struct fleet *f, json_t *const *status, struct fab_err *err);

/*
 * Every live worker's "counters" (docs/worker-protocol.md) for its host's
 * data-path address (the hosts file's ifname= label, when given, names the
 * interface instead; rdma=DEV[:PORT] adds that RDMA port): @out[i]
 * (nic_counters_init'ed, f->n of them) and @got[i] true for worker i.  A
 * node that fails or does not answer is a warning naming it, got false.
 * Fails only on ENOMEM or a poll failure.
 */
int fleet_counters_read(struct fleet *f, int timeout_ms, struct nic_counters *out, bool *got,
			struct fab_err *err);

/*
 * Every live worker's "optics" (docs/worker-protocol.md): its modules and
 * links, read raw on the node and decoded here (model/optics_wire.h) into
 * @out[i] (optics_set_init'ed, f->n of them), @got[i] true for worker i:
 * the interface the hosts file's ifname= label names, or every hardware
 * port with a module interface.  Verdicts are the caller's: two calls a
 * window apart give optics_verdict() its before and after.  A node that
 * fails, does not answer, or answers what cannot be read is a warning
 * naming it, got false.  Fails only on ENOMEM or a poll failure.
 */
struct optics_set;
int fleet_optics_read(struct fleet *f, int timeout_ms, struct optics_set *out, bool *got,
		      struct fab_err *err);

/*
 * accept's reach stage: every live worker's "status" (its links and RDMA
 * ports, decoded by proto_status_from_json()) and the name of its
 * data-path interface: the one the "counters" op reads for it (the hosts
 * file's ifname= label, else the interface holding the node's address;
 * one rule, fleet_counters_read()'s).  @out has f->n entries, initialised
 * here; fleet_ports_fini() frees them.  A node that does not answer, or
 * answers garbage, has got false and the reason in why (why_datapath for
 * the second op).  Fails only on ENOMEM or a poll failure.
 */
struct fleet_ports {
	struct host_state hs;		/* got: the node's links and RDMA ports */
	bool got;
	char datapath[64];		/* "" when not known (why_datapath says why) */
	char why[256];
	char why_datapath[256];
};
int fleet_ports_read(struct fleet *f, int timeout_ms, struct fleet_ports *out,
		     struct fab_err *err);
void fleet_ports_fini(struct fleet_ports *p, size_t n);

/*
 * verify --hosts: every answering node's "fabricctl.verify/1" in @run is
 * checked (a malformed one makes the node failed, with the reason, its
 * document dropped), and all drift is flattened into @v's drift, each
 * entry naming its node (docs/json-verify.md).  Pure (no I/O); 0 or
 * -ENOMEM.  @v borrows @run and @profile.
 */
struct fleet_drift {
	const char *node;		/* borrowed */
	char *interface, *field, *wanted, *found;
};
struct fleet_verify {
	const struct fleet_run *run;
	const char *profile;
	struct fleet_drift *drift;
	size_t n_drift;
	size_t n_drifted;		/* nodes with drift (n_failed: run->n_failed) */
};
int fleet_verify_check(struct fleet_run *run, const char *profile, struct fleet_verify *v);
/* One more drift entry (verify's dual-homing); 0 or -ENOMEM. */
int fleet_verify_drift_add(struct fleet_verify *v, const char *node, const char *interface,
			   const char *field, const char *wanted, const char *found);
/* Node @node has a drift entry. */
bool fleet_verify_drifted(const struct fleet_verify *v, const char *node);
void fleet_verify_fini(struct fleet_verify *v);

/*
 * apply --hosts: the same for "apply" answers: a node is failed when it
 * did not answer, answered with a malformed document, did a dry run when
 * asked to apply or the other way round (document dropped), or its apply
 * failed (its own rollback ran; its document stays, its error becomes the
 * node's).  Every node's steps are flattened into @a's changes with the
 * node's name.  Pure; 0 or -ENOMEM.
 */
struct fleet_change {
	const char *node;		/* borrowed */
	char *object, *field, *from, *to, *status;
	char *fails;			/* a dry run's step certain to fail: why; else NULL */
};
struct fleet_apply {
	const struct fleet_run *run;
	const char *profile;
	bool dry_run;
	struct fleet_change *changes;
	size_t n_changes;
	size_t n_changed;		/* nodes with changes (n_failed: run->n_failed) */
};
int fleet_apply_check(struct fleet_run *run, const char *profile, bool dry_run,
		      struct fleet_apply *a);
void fleet_apply_fini(struct fleet_apply *a);

#endif
