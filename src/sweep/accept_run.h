/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pre-expansion verification (docs/accept.md), built on the sweep: the
 * nodes labelled `new` in the hosts file against the running fabric, in
 * stages, fail-closed, one verdict.  `fabricctl accept` is its front end.
 *
 *   1 reach          fleet_start() on every node of the hosts file; the new
 *                    end points' fabric ports through their workers
 *                    (fleet_ports_read: status + the data-path interface),
 *                    judged by accept_ports_judge()
 *   2 configuration  the worker's verify op on the new end points only
 *                    (fleet_run_op + fleet_verify_merge); nothing is applied
 *   3 cabling        the LLDP graph through the reach stage's workers
 *                    (fleet_lldp_collect), health, plan diff, MTU, rails,
 *                    restricted to the new nodes; dual-homing of the
 *                    profile's bonds.  --topology ib: the subnet walk from
 *                    this node (sys_subnet_read), health and plan diff
 *   4, 6 counters    IB: PMA counters of the new nodes' ports and their
 *                    peers, walked before and after; Ethernet / RoCE: the
 *                    new hosts' own counters through their workers; the
 *                    deltas judged by counter_eval() under the policy's table
 *   5 traffic        sweep_run() (sweep/sweep.h) with --topology and the
 *                    pairs of accept_pairs_cover() (model/coverage.h) in its
 *                    request; findings from its report; the policy's
 *                    latency p99 bound
 *
 * --no-workers (IB only): stages 1, 2 and 5 are skipped, saying so (the
 * subnet walk of stage 3 judges the new nodes' IB ports).
 *
 * Ownership: struct accept_outcome owns its report (accept_outcome_fini());
 * the request's strings are borrowed and must outlive the outcome.
 */
#ifndef FAB_SWEEP_ACCEPT_RUN_H
#define FAB_SWEEP_ACCEPT_RUN_H

#include <stdbool.h>

#include "fleet/fleet.h"
#include "model/accept.h"
#include "sweep/sweep.h"
#include "sys/sys.h"
#include "util/err.h"

struct accept_req {
	struct sys *sys;		/* borrowed: the IB subnet walks */
	const char *hosts, *profile, *plan, *topology, *policy, *lldp_socket, *transport;
	struct fleet_opts fo;
	bool keep_going;
	bool no_workers;		/* --no-workers: IB-only, read from this node only */
	double counter_window_s;	/* --counter-window: wait between the counter reads */
	double duration_s;		/* the traffic stage's; 0: the sweep's default */
	unsigned int lat_iters;		/* the same; 0: the sweep's default */
	unsigned int coverage_k;	/* --coverage, 0: the policy's */
	bool progress;			/* say each stage on stderr (a terminal) */
	/*
	 * Before the traffic stage's sweep: the front end's own checks of its
	 * request, as `fabricctl sweep` makes them (the transport built in):
	 * -1 to run it, else the exit status that sweep would have had (the
	 * stage then fails, naming it).  NULL: none.
	 */
	int (*sweep_check)(void *ctx, const struct sweep_req *req);
	void *hook_ctx;
};

struct accept_outcome {
	struct accept_report rep;	/* the stages, findings and verdict (accept_verdict() done) */
	const char *topology;		/* the --topology used: as given, else the plan's, else "lldp" */
	unsigned int pct_expected;	/* the policy's */
};

/*
 * Read and check every input (policy, hosts file, profile, plan) before
 * any node is contacted, run the stages, give the verdict.  0 with @out
 * filled, or -errno with @err set (bad input: kind FAB_ERR_INPUT).  @err
 * also carries what the stages left in it on success.
 */
int accept_run(const struct accept_req *req, struct accept_outcome *out, struct fab_err *err);
void accept_outcome_fini(struct accept_outcome *out);

#endif
