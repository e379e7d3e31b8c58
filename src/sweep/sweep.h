/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sweep as a library with one door: a request in, a report out.
 *
 *   struct sweep_req req;
 *   struct sweep_outcome out;
 *
 *   sweep_req_default(&req);
 *   req.sys = sys;
 *   req.hosts = "hosts";
 *   req.topology = "lldp";
 *   req.policy = &policy;
 *   if (sweep_run(&req, &out, &err) == 0) {
 *           render out.report ...
 *           sweep_outcome_fini(&out);
 *   }
 *
 * sweep_run() loads the hosts file, reads the topology (--topology: plan,
 * subnet walk, or every worker's lldpd), places the hosts on it, starts
 * the workers, makes the rounds (model/schedule.h, model/sched_topo.h),
 * measures them (fleet/sweep.h), judges every pair (model/sweep_judge.h),
 * re-tests the slow ones, compares with a baseline, names the suspects
 * (links with a topology, probing groups of links the pairs cannot tell
 * apart; hosts by count without one) and reads the counters again.  With
 * req->from it measures nothing: the saved document is loaded
 * (io/sweep_doc.h) and localised again (diagnose --from).  Renderers read
 * out.report (model/sweep_judge.h struct sweep_report): the commands
 * sweep, diagnose and accept are front ends over this door.
 *
 * Signals: a measuring run catches SIGINT, SIGTERM and SIGHUP from before
 * the first worker starts (sweep/sweep_signal.h) until
 * sweep_outcome_fini(), so a signal while the caller writes the report
 * does not cut it; a run it stopped is reported, marked interrupted.
 *
 * Ownership: struct sweep_outcome owns everything its report borrows
 * (hosts, pair store, graph, routes, suspects); sweep_outcome_fini()
 * frees it.  The request's strings are borrowed and must outlive the
 * outcome (the report points at some of them).
 */
#ifndef FAB_SWEEP_SWEEP_H
#define FAB_SWEEP_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet/fleet.h"
#include "fleet/sweep.h"
#include "model/counter_eval.h"
#include "model/schedule.h"
#include "model/sweep_judge.h"
#include "sys/sys.h"
#include "transport/transport.h"
#include "util/err.h"

/* Which pairs a sweep measures. */
enum sweep_mode {
	SWEEP_MODE_ALL_PAIRS,		/* every pair (the default) */
	SWEEP_MODE_SERIAL,		/* every pair, one at a time (--serial) */
	SWEEP_MODE_PAIRS,		/* the pairs asked for: req->pairs_file or req->pairs */
	SWEEP_MODE_BIPARTITE,		/* every new host with every other (--new) */
	SWEEP_MODE_COVERAGE,		/* every link and host in >= K pairs (--coverage K) */
	SWEEP_MODE_COVERAGE_NEW,	/* the same among the pairs touching a new host */
};

/* The mode as documents and text name it: "all-pairs", "serial", "pairs", ... */
const char *sweep_mode_name(enum sweep_mode m);

/*
 * Coverage sweeps (model/coverage.h): K at most MAX_K; with a topology and
 * more than AUTO_HOSTS hosts, an all-pairs request becomes coverage with K
 * = AUTO_K unless req->all_pairs.
 */
#define SWEEP_COVERAGE_MAX_K 64
#define SWEEP_COVERAGE_AUTO_HOSTS 256
#define SWEEP_COVERAGE_AUTO_K 3

struct sweep_topo;

/*
 * What the caller checks itself at two points of a run (the files it will
 * write, sweep's --prom, --csv and --html); NULL: nothing.  0, or -errno
 * with @err set: the run stops there with that error.
 */
struct sweep_checks {
	/* Hosts and topology read, before any worker starts (not for a dry run without lldp). */
	int (*before_workers)(void *ctx, struct fab_err *err);
	/* The schedule made: @n_pairs are to be measured. */
	int (*scheduled)(void *ctx, size_t n_pairs, struct fab_err *err);
	void *ctx;
};

struct sweep_req {
	struct sys *sys;			/* borrowed: the IB subnet walk */
	const char *hosts;			/* the hosts file */
	enum sweep_mode mode;
	/*
	 * SWEEP_MODE_PAIRS: the pairs file (--pairs FILE), or else @pairs:
	 * host indices into the hosts file's end points, in the order
	 * hosts_split_role() leaves them (accept).
	 */
	const char *pairs_file;
	const struct sched_pair *pairs;
	size_t n_pairs;
	/* diagnose A B: A-B and the pairs that share parts of its path (mode pairs, a topology). */
	const char *target[2];
	unsigned int coverage_k;		/* coverage modes: K */
	/*
	 * Hosts of several fabric ports (model/hosts.h): end points are
	 * paired on the same rail, and on every rail with @cross_rail (not
	 * in the coverage modes: those choose per rail, NIC i to NIC i); at
	 * most @per_host tests a round touch one node (0: no limit).
	 */
	bool cross_rail;
	unsigned int per_host;
	bool all_pairs;				/* never coverage by default */
	const char *topology;			/* "lldp", "ib", a plan path; NULL: none */
	const char *lldp_socket;		/* --lldp-socket */
	struct subnet_opts ib;			/* --ib-ca, --ib-port */
	const char *baseline;			/* --baseline OLD.json; NULL: none */
	double regress_pct;			/* --regress-pct (10) */
	bool dry_run;				/* plan the rounds, measure nothing */
	bool steer;				/* --steer: trace, steer tests onto ECMP members (sweep_steer.h) */
	bool legs;				/* bonded ends' legs (sweep_legs.h); sweep: on */
	/*
	 * With @legs: only the bonds of hosts marked new, each towards one
	 * peer (accept's stage 5).  diagnose A B (@target) measures only
	 * A-B's legs.  (struct sweep_legs_sel.)
	 */
	bool legs_new_once;
	double legs_slow_pct;			/* > 0: legs judged at this %, not cfg.slow_pct */
	struct fleet_opts fo;			/* launcher ...; fo.stop is the run's own */
	const char *transport;			/* "tcp" or "verbs" (built in: transport_find()) */
	struct sweep_cfg cfg;			/* judging; lat_floor_ns < 0: the transport's */
	double duration_s, timeout_s, lat_time_s;
	unsigned int lat_iters, msg_bytes, streams, interval_ms;
	struct tp_verbs_tuning verbs;
	bool retest;				/* re-test the slow pairs (true) */
	int progress;				/* "round N of M" on stderr: 1, 0, -1 when a tty */
	const struct counter_policy *policy;	/* counter thresholds; borrowed, not NULL */
	const char *from;			/* re-analyse this saved sweep document (diagnose --from) */
	bool optics;				/* the suspects' hosts' cable ends as evidence (diagnose) */
	struct sweep_checks checks;
	/*
	 * Test seams (tests/scale): what measures the rounds (NULL: the
	 * workers of the hosts file; else no worker starts and the topology
	 * must be a plan); the CPU seconds spent making the rounds (NULL: not
	 * wanted); the sweep's own graph once the hosts are placed on it.
	 */
	const struct sweep_measure *measure;
	double *sched_cpu_s;
	void (*on_fabric)(void *ctx, struct sweep_topo *st);
	void *hook_ctx;
};

/* The defaults of `fabricctl sweep` (all pairs, tcp, 1 s, 2000 round trips ...). */
void sweep_req_default(struct sweep_req *req);

struct sweep_state;

struct sweep_outcome {
	struct sweep_report report;	/* what the renderers read; borrows from state */
	/*
	 * The rounds stopped on an error after some pairs were stored: its
	 * -errno (report.stop_error says it, report.interrupted is set); 0 when
	 * nothing stopped them.
	 */
	int stop_rc;
	struct sweep_state *state;	/* owned */
};

/*
 * Run @req into @out.  0 with out->report complete (also when a signal or
 * an error stopped the rounds: report.interrupted, stop_rc); -EINTR when a
 * signal stopped the run before any round (the exit status is then
 * sweep_signal_exit()); else -errno with @err set (bad input: kind
 * FAB_ERR_INPUT).  @err also carries what the run left in it on success,
 * as the command prints it.  On failure *@out is empty (nothing to fini,
 * sweep_outcome_fini() harmless).
 */
int sweep_run(const struct sweep_req *req, struct sweep_outcome *out, struct fab_err *err);

/* Free what @out owns, restore the signal handlers; @out may be empty. */
void sweep_outcome_fini(struct sweep_outcome *out);

#endif
