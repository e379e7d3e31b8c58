/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sweep's results from the first round to the verdict, without ever
 * holding every pair in memory: each finished round's pairs get their
 * expected rate and go to the pair store (io/pair_store.h); a uniform
 * sample of their figures (at most SWEEP_REF_SAMPLE pairs: all of them
 * while they fit) gives the fleet reference and the path classes' ones;
 * then passes over the store judge every pair, list the ones to re-test,
 * compare with a baseline and count the verdicts.  Memory: the sample and
 * the hosts, whatever the number of pairs.
 *
 * Ownership: struct sweep_results owns the store and the sample (_fini);
 * the hosts and the topology are borrowed and must outlive it.
 */
#ifndef FAB_SWEEP_SWEEP_RESULTS_H
#define FAB_SWEEP_SWEEP_RESULTS_H

#include <stddef.h>

#include "io/pair_store.h"
#include "model/pathref.h"
#include "model/schedule.h"
#include "model/stats.h"
#include "model/sweep_judge.h"
#include "sweep/sweep_topo.h"

/*
 * The reference sample: 131,072 pairs (6 MB); a median from it is within
 * a few tenths of a per cent (in rank) of the median of all pairs.  Path
 * classes (sweeps with a topology but no rated speeds) take the sample's
 * first SWEEP_CLASS_SAMPLE slots, with their links.
 */
#define SWEEP_REF_SAMPLE 131072
#define SWEEP_CLASS_SAMPLE 8192

struct sweep_sample {
	unsigned int a, b, klass;
	bool failed, expect_none;
	double bw_mbps;			/* NAN: none */
	double lat_ns;			/* NAN: none */
	double dip;			/* sweep_pair_dip(), NAN: none */
};

struct sweep_results {
	struct pair_store *store;
	const struct fab_hosts *hosts;
	struct sweep_topo *st;		/* NULL without --topology */
	struct sweep_sample *sample;
	struct stats_reservoir res;
	struct pathref classes;		/* the path classes' references (empty without) */
	bool have_classes;
	/*
	 * Hosts of several fabric ports: per end point, why its port is down
	 * as its node said before the rounds ("eth1 down (operstate down)"),
	 * "" when up or not known; NULL when not read.  Owned.  A failed
	 * pair of such a port gives that as its reason first.
	 */
	char (*port_down)[80];
};

/* For about @expected pairs (the schedule's). */
int sweep_results_init(struct sweep_results *sr, const struct fab_hosts *hs, struct sweep_topo *st,
		       size_t expected, struct fab_err *err);
void sweep_results_fini(struct sweep_results *sr);

/*
 * The sweep engine's sink (fleet/sweep.h sweep_sink_fn, @ctx the results):
 * each pair's expected rate and class, then into the store and the sample.
 */
int sweep_results_round(void *ctx, size_t round, struct sweep_pair *pairs, size_t n,
			struct fab_err *err);

/* --dry-run: every pair of @src, planned (not measured), with its expected rate. */
int sweep_results_plan(struct sweep_results *sr, struct sched_src *src, struct fab_err *err);

/*
 * The verdict of every pair in the store: the fleet reference from the
 * sample (r->ref), the path classes' references where no rate is known,
 * then each pair judged (sweep_pair_judge_expected) and counted (r->n_ok
 * ...).  0 or -errno (@err set).
 */
int sweep_results_judge(struct sweep_results *sr, struct sweep_report *r, struct fab_err *err);

/* Count the verdicts again into r->n_ok, n_slow, n_failed, n_regressed. */
int sweep_results_count(struct sweep_results *sr, struct sweep_report *r, struct fab_err *err);

/*
 * The three passes of the retest, in the order sweep_conclude() runs them
 * (sweep/sweep_retest.c).  CONFIRM takes the pairs a retest found slow
 * but not by much (sweep_pair_marginal()): one more window, and the
 * better of the two retests stands.
 */
enum sweep_retest_pass {
	SWEEP_RETEST_SLOW,	/* every pair that looks slow or regressed */
	SWEEP_RETEST_CONFIRM,	/* those still slow by a margin, once more */
	SWEEP_RETEST_LATENCY,	/* the pairs slow by latency only, one at a time */
};

/*
 * The pairs to re-test in pass @pass (slow or regressed; by latency only;
 * still slow by a margin after the first retest, against @ref), as store indices into a new array (*@idx, *@n; free() it); *@n_total
 * how many qualified.  More than SWEEP_RETEST_MAX (a fault that touches
 * most pairs): a uniform sample of that many, in store order (the others
 * keep their first figures, not marked retested).
 */
#define SWEEP_RETEST_MAX 4096
/* Up to this many pairs are re-tested one at a time (sweep/sweep_retest.c). */
#define SWEEP_RETEST_ALONE_MAX 32

int sweep_results_retest_list(struct sweep_results *sr, enum sweep_retest_pass pass,
			      const struct sweep_ref *ref, size_t **idx, size_t *n,
			      size_t *n_total, struct fab_err *err);

/*
 * A control for each of the @n suspects @sus (store figures): an ok pair,
 * not re-tested, with the same path class, expected rate and source,
 * sharing no host with the suspect where one does (else one sharing a
 * host: a small fleet, three hosts; it was ok, so the host it shares was
 * healthy in the rounds, and it runs before the suspect, not beside
 * it), its bandwidth nearest the expected
 * rate (the most typical healthy pair); for a suspect without one, nearest
 * the fleet median of @ref (sweep_ref_fleet_mbps()).  ctl[k].a == ctl[k].b:
 * none (no fleet median either, or no pair qualifies).  One pass over the
 * store.  0 or -errno (@err set).
 */
struct sweep_control {
	unsigned int a, b;
	double bw_mbps;		/* its first figure */
};

int sweep_results_controls(struct sweep_results *sr, const struct sweep_pair *sus, size_t n,
			   const struct sweep_ref *ref, struct sweep_control *ctl, struct fab_err *err);

/* The path class reference of @klass, NAN when none. */
double sweep_results_class_ref(const struct sweep_results *sr, unsigned int klass);

#endif
