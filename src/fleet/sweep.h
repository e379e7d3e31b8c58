/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sweep engine: run a schedule's rounds over a started fleet.  Each pair
 * (a, b) of a round is a session: b listens, a connects, the controller
 * relays the endpoints both ways (transport.h), then a runs the spec and
 * returns every figure.  All pairs of a round run at once; the engine
 * waits on every worker with one poll, with a deadline per step.  A
 * worker that dies, hangs or sends garbage fails the pairs it is in (the
 * reason names it) and the sweep goes on without it.
 *
 * Ownership: the caller owns @out (s->n_pairs elements).
 */
#ifndef FAB_FLEET_SWEEP_H
#define FAB_FLEET_SWEEP_H

#include <signal.h>
#include <stdbool.h>

#include "fleet/fleet.h"
#include "model/flow_trace.h"
#include "model/schedule.h"
#include "model/sweep_judge.h"
#include "transport/transport.h"

struct sweep_opts {
	const char *transport;
	struct tp_spec spec;		/* timeout_ms: bound on one pair's test */
	int step_timeout_ms;		/* bound on each handshake step */
	uint8_t token[TP_TOKEN_LEN];
	bool progress;			/* live line on stderr */
	const char *label;		/* progress prefix ("sweep", "retest") */
	/*
	 * Set (non-zero) by a signal handler to stop the sweep; NULL for
	 * none.  The handler must be installed without SA_RESTART so that
	 * the engine's poll wakes with EINTR; it is also polled at least
	 * every STOP_POLL_MS.
	 */
	const volatile sig_atomic_t *stop;
	/*
	 * A steered test's ports (docs/paths.md "Steering"): called once per
	 * pair as its round starts, with its workers (a connects, b listens)
	 * and a copy of spec to set port / sport_fwd / sport_rev in; NULL:
	 * every pair runs spec as it is.
	 */
	void (*pair_spec)(void *ctx, size_t a, size_t b, struct tp_spec *spec);
	void *pair_spec_ctx;
};

/*
 * Each finished round's pairs, in the round's order: round is 1-based,
 * @pairs (borrowed for the call) have status SWEEP_OK (not judged yet) or
 * SWEEP_FAILED with a reason, and the figures.  0, or -errno with @err
 * set: the sweep stops with that error.
 */
typedef int (*sweep_sink_fn)(void *ctx, size_t round, struct sweep_pair *pairs, size_t n,
			     struct fab_err *err);

/*
 * Measure the rounds of @src, one at a time, every pair of a round at
 * once; each round's pairs go to @sink when the round is over.  Memory
 * follows the largest round, not the schedule.  *@rounds_done gets the
 * number of rounds finished and handed to the sink.
 *
 * When *o->stop is set, the round under way is abandoned (its open
 * sessions are sent "abort"; the caller's fleet_fini() stops the
 * workers), its pairs are not handed on, and -EINTR is returned without
 * touching @err.  A failing @src->next() may have said why in @err (the
 * caller's: sweep --steer's traces in windows): that message is kept, the
 * first error's; otherwise @err gets "sweep: schedule: ERRNO".
 */
int sweep_run_src(struct fleet *f, struct sched_src *src, const struct sweep_opts *o,
		  sweep_sink_fn sink, void *sink_ctx, size_t *rounds_done, struct fab_err *err);

/*
 * Whatever measures a sweep's rounds: the fleet's workers
 * (sweep_measure_fleet(): sweep_run_src() over a started fleet), or a
 * simulation (tests/scale: each pair's rate from the path model), so that
 * everything around the measurement is the same code.
 */
struct sweep_measure {
	int (*run)(void *ctx, struct sched_src *src, const struct sweep_opts *o, sweep_sink_fn sink,
		   void *sink_ctx, size_t *rounds_done, struct fab_err *err);
	/*
	 * sweep --steer's traces (fleet_trace_run()'s contract: host i
	 * traces tr[i][0 .. n[i]), got[i] when it answered); NULL: a
	 * simulation without traces (--steer is then not run).
	 */
	int (*trace)(void *ctx, struct flow_trace *const *tr, const size_t *n, bool *got,
		     struct fab_err *err);
	void *ctx;
};

void sweep_measure_fleet(struct sweep_measure *m, struct fleet *f);

/*
 * An explicit schedule into @out through @m: out[k] is pair s->pairs[k]
 * with its round.  Stopped (-EINTR): the pairs out[0 ..
 * s->round_start[*rounds_done]) are complete, the others not measured.
 */
int sweep_measure_sched(const struct sweep_measure *m, const struct sched *s,
			const struct sweep_opts *o, struct sweep_pair *out, size_t *rounds_done,
			struct fab_err *err);

#endif
