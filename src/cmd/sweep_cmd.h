/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sweep's front end, shared by `fabricctl sweep` and `fabricctl
 * diagnose A B` (which is a topology-aware sweep of the pairs that share
 * parts of A-B's path, rendered as a diagnosis): the options, their
 * parsing and the run from hosts file to rendered report.
 */
#ifndef FAB_CMD_SWEEP_CMD_H
#define FAB_CMD_SWEEP_CMD_H

#include <jansson.h>
#include <stdbool.h>

#include "cmd/cmd.h"
#include "fleet/fleet.h"
#include "fleet/sweep.h"
#include "model/sweep_judge.h"
#include "sweep/sweep_baseline.h"
#include "sys/sys.h"
#include "transport/transport.h"

struct sweep_topo;

struct sweep_args {
	const char *cmd;			/* "sweep" or "diagnose": messages, what is allowed */
	const char *hosts, *pairs, *prom;
	const char *csv, *html;			/* --csv FILE, --html FILE (cmd/sweep_out.c) */
	const char *baseline;			/* --baseline OLD.json */
	double regress_pct;			/* --regress-pct P (10) */
	const char *topology, *lldp_socket;	/* --topology lldp|ib|PLAN, --lldp-socket */
	struct subnet_opts ib;			/* --ib-ca, --ib-port */
	bool dry_run;
	struct fleet_opts fo;
	const char *transport;
	const char *mode;
	struct sweep_cfg cfg;
	double duration_s, timeout_s, lat_time_s;
	unsigned int lat_iters, msg_bytes, streams, interval_ms;
	struct tp_verbs_tuning verbs;
	bool retest;
	int progress;				/* -1 auto */
	unsigned int coverage_k;		/* --coverage K (mode "coverage"), 0: not asked */
	bool all_pairs;				/* --all-pairs: never coverage by default */
	/* diagnose only */
	const char *from;			/* --from SWEEP.json */
	const char *policy;			/* --policy FILE: counter thresholds */
	const char *target[2];			/* A B: the slow pair named by the operator */
	unsigned int n_target;
	/*
	 * What measures the rounds; NULL: the workers of the hosts file
	 * (started by the sweep).  tests/scale sets a simulation: then no
	 * worker starts, and --topology must be a plan.
	 */
	const struct sweep_measure *measure;
	/* After the sweep (NULL: not wanted): CPU seconds spent making the rounds. */
	double *sched_cpu_s;
	/*
	 * For a simulated measurement (tests/scale), NULL otherwise: called
	 * with the sweep's own graph once the hosts are placed on it, and
	 * with the finished report before it is rendered.
	 */
	void (*on_fabric)(void *ctx, struct sweep_topo *st);
	void (*on_report)(void *ctx, const struct sweep_report *r);
	void *hook_ctx;
};

/*
 * Coverage sweeps (model/coverage.h): --coverage K, at most MAX_K; with a
 * topology and more than AUTO_HOSTS hosts, K = AUTO_K is the default
 * (--all-pairs for every pair).
 */
#define SWEEP_COVERAGE_MAX_K 64
#define SWEEP_COVERAGE_AUTO_HOSTS 256
#define SWEEP_COVERAGE_AUTO_K 3

/* Defaults for @cmd ("sweep" or "diagnose"). */
void sweep_args_default(struct sweep_args *a, const char *cmd);

/* Options into @a: 0, 1 (--help printed), -EINVAL (usage error reported). */
int sweep_parse(struct fab_ctx *ctx, int argc, char **argv, struct sweep_args *a);

/* @cmd's defaults, then its options: -1 to go on, or the exit code (--help, a usage error). */
int sweep_args_parse(struct fab_ctx *ctx, int argc, char **argv, const char *cmd,
		     struct sweep_args *a);

/* Run and render; the command's exit status. */
int sweep_main(struct fab_ctx *ctx, struct sweep_args *a);

/* --html: the report page holds at most this many pairs (1024 hosts, all pairs). */
#define SWEEP_HTML_MAX_PAIRS 523776

/*
 * The extra outputs (cmd/sweep_out.c): the --csv and --html files
 * checked writable before anything runs, written after the sweep.
 */
int sweep_out_check(const struct sweep_args *a, struct fab_err *err);

/*
 * What became of each output of a finished sweep: each is attempted
 * whatever became of the others; a failure is said at once on stderr
 * ("sweep: --prom PATH not written: PATH: write: No space left on
 * device") and listed.
 */
struct sweep_fates {
	size_t n, n_failed;
	int first_rc;			/* the first failure's -errno */
	char failed[1024];		/* "--prom PATH (No space left on device), ..." */
	char written[1024];		/* "--csv PATH, stdout" */
};

/* Record output @what (@path: NULL for stdout): @rc 0 written, or -errno and @why. */
void sweep_fates_add(struct sweep_fates *f, const char *what, const char *path, int rc,
		     const char *why);
/* --prom, --csv, --html: each written (atomically) and recorded in @f. */
void sweep_out_write(const struct sweep_args *a, const struct sweep_report *r,
		     struct sweep_fates *f);
/*
 * 0 when every output was written and nothing stopped the sweep
 * (@cause_rc 0); else -errno (@cause_rc, or the first failed output's)
 * with one line in @err: "CAUSE; N of M outputs not written: --prom
 * PATH (REASON); written: --csv PATH, stdout".
 */
int sweep_fates_result(const struct sweep_fates *f, int cause_rc, const char *cause,
		       struct fab_err *err);

struct sweep_topo;
struct sched_pair;

/*
 * diagnose A B (cmd/diagnose.c): the pairs to measure, A-B first, and the
 * rendering of the result as a diagnosis; the exit status.
 */
int diagnose_pick_pairs(struct fab_ctx *ctx, struct sweep_topo *st, const struct fab_hosts *hs,
			const char *const target[2], struct sched_pair **want, size_t *n_want);
int diagnose_render(struct fab_ctx *ctx, const struct sweep_report *r, const struct sweep_args *a);

#endif
