/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One worker op on every node of a hosts file, the answers merged into
 * one document: status, verify and apply --hosts (through
 * cmd/fleet_cmd.c), with the checks and merges of the verify and apply
 * answers; and the one hosts-file loader.
 *
 *   {"schema": @schema, "op": @op, "nodes": [{"node", "address", "ok",
 *    "error", @op: <the node's document or null>}], "summary": {"nodes",
 *    "ok", "failed"}}
 *
 * Ownership: *@doc is a new reference for the caller.
 */
#ifndef FAB_FLEET_FLEET_OP_H
#define FAB_FLEET_FLEET_OP_H

#include <jansson.h>
#include <stdbool.h>

#include "fleet/fleet.h"
#include "model/host_state.h"
#include "model/nic_counters.h"

/*
 * Start workers on @hosts, send {"op": @op} plus @params (borrowed, may
 * be NULL), merge.  *@n_failed gets the number of nodes without an answer.
 */
int fleet_run_op(const struct fab_hosts *hosts, const struct fleet_opts *o, const char *op,
		 const json_t *params, const char *schema, int timeout_ms, json_t **doc,
		 size_t *n_failed, struct fab_err *err);

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
 * verify --hosts: from fleet_run_op()'s "verify" document @run (borrowed),
 * a new "fabricctl.fleet-verify/1" document (docs/json-verify.md): every
 * answering node's "fabricctl.verify/1" is checked (a malformed one makes
 * the node failed, with the reason), and all drift is flattened into one
 * "drift" array whose entries carry "node".  *@n_failed, *@n_drifted get
 * the counts of nodes.  Pure (no I/O); NULL only on ENOMEM.
 */
json_t *fleet_verify_merge(const json_t *run, const char *profile, size_t *n_failed,
			   size_t *n_drifted);

/*
 * apply --hosts: the same for "apply" answers, giving
 * "fabricctl.fleet-apply/1": a node is failed when it did not answer,
 * answered with a malformed document, or its apply failed (its own
 * rollback ran; its document stays under "apply").  Every node's steps
 * are flattened into "changes" with "node".  Pure; NULL only on ENOMEM.
 */
json_t *fleet_apply_merge(const json_t *run, const char *profile, bool dry_run,
			  size_t *n_failed);

#endif
