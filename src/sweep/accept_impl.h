/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to accept's run (sweep/accept_run.h): what one run holds and
 * the stages.
 *
 *   accept_run.c       inputs, driving the stages, the verdict
 *   accept_stages.c    1 reach, 2 configuration, 3 cabling
 *   accept_counters.c  4 and 6: counters before and after the traffic
 *   accept_optics.c    4 and 6: the new hosts' cable ends, with the counters
 *   accept_traffic.c   5 traffic: the pairs, the sweep, its findings
 *   accept_graph.c     what several stages read: the IB walk, the traffic
 *                      graph, a stage that could not read what it judges
 */
#ifndef FAB_SWEEP_ACCEPT_IMPL_H
#define FAB_SWEEP_ACCEPT_IMPL_H

#include <jansson.h>
#include <stdbool.h>

#include "fleet/fleet.h"
#include "model/accept.h"
#include "model/counter_eval.h"
#include "model/optics.h"
#include "model/profile.h"
#include "model/topo.h"
#include "model/topo_lldp_checks.h"
#include "sweep/accept_run.h"
#include "sweep/sweep_ctx.h"

/* Everything one run holds; freed when accept_run() returns (the report moves out). */
struct accept_state {
	struct accept_req o;
	struct accept_policy pol;
	struct accept_report rep;
	struct fab_hosts all, ends, fabric, new_ends;
	const char **new_names;		/* borrowed from all */
	size_t n_new_names;
	struct profile *profile;
	json_t *profile_params;
	struct topo *plan, *found, *tplan;	/* tplan: --topology PLAN for the pairs */
	struct topo *ib;			/* the IB subnet walk of the cabling stage */
	struct topo *cnt0;			/* IB: the counters baseline walk (stage 4) */
	struct topo *nic_graph;			/* Ethernet: the graph nic0's ports are of (borrowed) */
	struct counter_snap nic0;		/* Ethernet: the new hosts' counters before (stage 4) */
	struct optics_hosts optics0;		/* the new hosts' cable ends at stage 4 (accept_optics.c) */
	bool optics_read;
	struct topo_rails rails, trails;
	struct fleet f;
	unsigned char *dp_kind;			/* per all.hosts: enum accept_dp_kind, stage 1; NULL */
	bool progress;				/* stderr is a terminal: say each stage */
};

/* One stage: 0 (its verdict set in s->rep), or -errno with ctx->err set (the run stops). */
int accept_stage_reach(struct sweep_ctx *ctx, struct accept_state *s);
int accept_stage_config(struct sweep_ctx *ctx, struct accept_state *s);
int accept_stage_cabling(struct sweep_ctx *ctx, struct accept_state *s);
int accept_stage_counters_base(struct sweep_ctx *ctx, struct accept_state *s);
int accept_stage_traffic(struct sweep_ctx *ctx, struct accept_state *s);
int accept_stage_counters_after(struct sweep_ctx *ctx, struct accept_state *s);

/*
 * The new hosts' cable ends (accept_optics.c), read through the workers
 * at the end of stage 4 (one reading) and of stage 6 (the window since):
 * findings at that stage, which they fail.  0 or -errno (ctx->err set).
 */
int accept_optics_base(struct sweep_ctx *ctx, struct accept_state *s);
int accept_optics_after(struct sweep_ctx *ctx, struct accept_state *s);

/* The IB subnet walk from this node, with PMA counters, into a new *@out. */
int accept_ib_walk(struct sweep_ctx *ctx, struct topo **out, bool lft);

/*
 * Stage @st could not read what it judges (why: ctx->err): a finding of
 * @code with that reason, and the stage failed, not proven (@note).
 * 0 or -ENOMEM.
 */
int accept_stage_unread(struct sweep_ctx *ctx, struct accept_report *r, enum accept_stage st,
			enum accept_code code, const char *note);

/*
 * The graph the sweep will route the pairs on (its --topology): the LLDP
 * graph of the cabling stage, the IB graph of the cabling or counters
 * stage, or the plan.  NULL with *@why set when there is none.
 */
struct topo *accept_traffic_graph(struct sweep_ctx *ctx, struct accept_state *s, const char **why);

#endif
