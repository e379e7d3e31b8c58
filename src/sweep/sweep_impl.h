/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to src/sweep/: what one run holds (struct sweep_state, owned
 * by struct sweep_outcome) and the parts sweep_run() calls.  Nothing above
 * src/sweep/ includes this.
 *
 *   sweep.c          sweep_run(): prepare (hosts, topology, workers,
 *                    schedule), measure, conclude (judge, retest,
 *                    baseline, suspects, counters), the report
 *   sweep_sched.c    the pairs asked for and the rounds made of them
 *   sweep_retest.c   the slow pairs measured again
 *   sweep_from.c     diagnose --from: a saved sweep localised again
 */
#ifndef FAB_SWEEP_SWEEP_IMPL_H
#define FAB_SWEEP_SWEEP_IMPL_H

#include <stdbool.h>

#include "fleet/fleet.h"
#include "io/sweep_doc.h"
#include "model/counter_eval.h"
#include "model/schedule.h"
#include "sweep/sweep.h"
#include "sweep/sweep_baseline.h"
#include "sweep/sweep_ctx.h"
#include "sweep/sweep_legs.h"
#include "sweep/sweep_locate.h"
#include "sweep/sweep_optics.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_topo.h"

struct sweep_state {
	struct sweep_ctx ctx;
	struct sweep_req req;		/* the request, as the run refines it (mode, coverage K) */
	struct fab_hosts hs, fabric;	/* the end points; the switches' lines (lldp) */
	struct sweep_topo topo;
	struct sweep_topo *st;		/* &topo with a topology, else NULL */
	struct sweep_locate sl;
	struct sweep_results sr;	/* measured: the pair store */
	struct sweep_baseline base;
	struct counter_report crep;
	struct sweep_optics optics;	/* req.optics: the suspects' cable ends (sweep_optics.h) */
	struct sweep_legs legs;		/* req.legs: the bonded ends' legs (sweep_legs.h) */
	struct sched s;
	struct sched_src src;
	struct fleet f;
	bool *not_started;		/* per host, NULL when every worker started */
	bool signals;			/* handlers installed: restored by sweep_outcome_fini() */
	/* diagnose --from */
	struct sweep_doc doc;
	struct counter_snap before, after;
};

/*
 * The rounds to measure, as a source (@src): explicit (in @s) for every
 * mode but all pairs of a large Ethernet fabric and all pairs without a
 * topology, which are generated round by round (sweep_sched.c).
 */
int sweep_schedule_build(struct sweep_ctx *ctx, const struct sweep_req *req,
			 const struct fab_hosts *hs, struct sweep_topo *st, struct sched *s,
			 struct sched_src *src);

/*
 * Re-test the pairs that look slow, one at a time when few, each after a
 * control pair; see sweep_retest.c.
 */
int sweep_retest(struct sweep_ctx *ctx, const struct sweep_measure *m, struct sweep_opts *so,
		 struct sweep_report *r, struct sweep_results *sr, struct sweep_topo *st,
		 enum sweep_retest_pass pass);

/*
 * diagnose --from: the saved document req->from loaded into @out->report
 * (io/sweep_doc.h), routed (its saved routes, or req->topology), localised
 * and, with --topology ib, its counters compared with the live subnet's.
 * @state is sweep_run()'s, initialised.  0 or -errno (state->ctx.err set).
 */
int sweep_from_run(struct sweep_state *state, struct sweep_outcome *out);

#endif
