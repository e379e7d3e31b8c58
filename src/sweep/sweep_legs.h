/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dual-homed legs (issue 25 item 3, docs/sweep.md "Dual-homed legs"):
 * after the rounds, for every measured pair with a bonded end, each
 * bonded sender's legs are found and measured, one flow per member:
 *
 *  1. every worker is asked for its data-path interface ("bond" op); a
 *     sweep without a bond stops here, its outputs as before;
 *  2. per direction whose sender is a bond with a port-hashing policy
 *     (model/bond_legs.h bond_legs_port_hashed()): trial flows of
 *     SWEEP_LEGS_TRIAL_MS from distinct source ports, one at a time, to
 *     one receiver port, the sender's members' tx_bytes read before and
 *     after each; bond_legs_find() keeps a port per member (the trials
 *     stop when every member whose link is up has one, at most
 *     SWEEP_LEGS_MAX_TRIALS);
 *  3. one flow per member on its port, the legs one after another (each
 *     leg's figure its own: the receiving bond's members, and both hosts'
 *     CPUs, are not shared between two legs' flows), each of the sweep's
 *     duration; a leg under slow_pct % of the bond's fastest leg (or
 *     dead) makes every leg measured again, up to SWEEP_LEGS_RETESTS
 *     more passes in alternating order, every leg keeping its best flow
 *     (bond_legs_keep_best()), judged against the best of them (the
 *     retest, unless --no-retest); bond_legs_judge_dir().
 *
 * Other policies (active-backup, balance-rr, layer2, layer2+3 ...) say
 * why no leg can be chosen, and the pair is measured as the rounds did.
 *
 * Transports: tcp (each flow one connection from its source port) and
 * verbs over RoCE v2 (each flow one RC QP whose GRH flow label sets its
 * UDP source port, RDMA writes to UDP 4791): the bond's layer3+4 hash
 * sees the port either way.  Trials no member's counter saw (an RDMA
 * device sending past the netdev: a hardware RoCE LAG) stop after two
 * and say so; no leg is judged then.
 *
 * Ownership: struct sweep_legs owns its pairs; the report borrows them.
 */
#ifndef FAB_SWEEP_SWEEP_LEGS_H
#define FAB_SWEEP_SWEEP_LEGS_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet/fleet.h"
#include "fleet/sweep.h"
#include "model/bond_legs.h"
#include "model/sweep_judge.h"
#include "sweep/sweep_ctx.h"

#define SWEEP_LEGS_DPORT	29099	/* the receiver's port of every trial and leg flow */
/* a -> b trials leave from SPORT_BASE + k, b -> a from SPORT_BASE + MAX_TRIALS + k */
#define SWEEP_LEGS_SPORT_BASE	29100
/*
 * verbs (RoCE v2): the same scheme from ROCE_SPORT_BASE, each port the
 * UDP source port of the sending QP (its GRH flow label,
 * verbs_sport_flow_label()), always to UDP 4791; within 0xc000-0xffff,
 * where the kernel derives the port from the label.
 */
#define SWEEP_LEGS_ROCE_SPORT_BASE	0xd000u
#define SWEEP_LEGS_ROCE_DPORT	4791	/* ROCE_V2_UDP_DPORT */
#define SWEEP_LEGS_MAX_TRIALS	16
#define SWEEP_LEGS_TRIAL_MS	300
#define SWEEP_LEGS_RETESTS	2	/* passes after the first while a leg looks slow or dead */

struct sweep_legs {
	struct bond_legs_pair *pairs;	/* owned */
	size_t n, cap;
	size_t n_bad;
	struct bond_legs_unanswered *unans;	/* owned: hosts whose worker did not answer */
	size_t n_unans, cap_unans;
};

/* Trial @k's source port, direction @fwd (a -> b), over RoCE v2 when @roce (verbs), else tcp. */
unsigned int sweep_legs_sport(bool roce, bool fwd, unsigned int k);
/* The receiver's port of every trial and leg flow: SWEEP_LEGS_DPORT, or 4791 over RoCE v2. */
unsigned int sweep_legs_dport(bool roce);

void sweep_legs_init(struct sweep_legs *l);
void sweep_legs_fini(struct sweep_legs *l);

/* The fabric the sweep placed its hosts on, for the legs' switch ports; all NULL/false: none. */
struct sweep_legs_fabric {
	const struct topo *t;
	const uint32_t *host_link;	/* per host: its access link in t->links */
	bool lldp;			/* the topology is the workers' LLDP */
};

/*
 * Which legs a run measures (the callers' boundary: sweep, diagnose A B,
 * accept's stage 5).  All zero: every bonded sender of every measured pair
 * (sweep).  @pair: only the pairs between these two names (either order;
 * an end point's name or its host's: diagnose A B).  @new_only: only the
 * bonds of hosts marked new in the hosts file; @once: each sender's legs
 * towards one peer only, its first measured pair (accept: every leg of a
 * new host, measured once).
 */
struct sweep_legs_sel {
	const char *pair[2];
	bool new_only;
	bool once;
	double slow_pct;	/* > 0: a leg under this % of its bond's fastest is slow (else the sweep's) */
};

/*
 * The legs of @r's measured pairs over the fleet @f through @m (the
 * sweep's options @so: its duration, timeouts, token), into @l and the
 * report (r->legs, n_legs, n_legs_bad); each member's switch port from
 * @fab (bond_leg_neighbour()); only those @sel picks (NULL: all).  Nothing when every worker
 * answered and none's interface is a bond.  A direction whose bond cannot be read says why
 * and the sweep goes on; so does a host whose worker did not answer the
 * "bond" request (r->legs_unanswered: each such end of a measured pair
 * the selection takes, once, with the worker's reason).  0, -EINTR (a
 * signal), -ENOMEM (ctx->err set).
 */
int sweep_legs_run(struct sweep_ctx *ctx, struct sweep_legs *l, struct fleet *f,
		   const struct sweep_measure *m, const struct sweep_opts *so, bool retest,
		   const struct sweep_legs_fabric *fab, const struct sweep_legs_sel *sel,
		   struct sweep_report *r);

#endif
