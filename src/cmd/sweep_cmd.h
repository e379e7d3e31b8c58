/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What `fabricctl sweep` and `fabricctl diagnose` share in front of the
 * sweep engine (sweep/sweep.h): their options (two tables of the same rows, cmd/sweep_opts.c;
 * each command checks its own after the loop: cmd/sweep.c, cmd/diagnose.c),
 * the run (policy, transport, sweep_run()), and sweep's extra outputs and
 * what became of each (cmd/sweep_out.c).
 */
#ifndef FAB_CMD_SWEEP_CMD_H
#define FAB_CMD_SWEEP_CMD_H

#include <stdbool.h>

#include "cmd/cmd.h"
#include "model/counter_eval.h"
#include "model/sweep_judge.h"
#include "sweep/sweep.h"

struct sweep_args {
	const char *cmd;			/* "sweep" or "diagnose": messages */
	struct sweep_req req;			/* what the engine is asked */
	const char *prom, *csv, *html;		/* --prom, --csv, --html FILE (cmd/sweep_out.c) */
	const char *policy;			/* --policy FILE: counter thresholds */
	struct counter_policy pol;		/* ... as loaded; req.policy points here */
	unsigned int modes;			/* --serial, --pairs, --new: how many given */
	double lat_max_us, lat_floor_us;	/* --lat-max-us, --lat-floor-us; -1: not given */
	double min_pct;				/* --min-pct; -1: not given */
	unsigned int ib_port;			/* --ib-port; 0: not given */
	const char *target[2];			/* diagnose A B: the slow pair named by the operator */
	unsigned int n_target;
};

/* @cmd's defaults (sweep/sweep.h sweep_req_default()). */
void sweep_args_default(struct sweep_args *a, const char *cmd);

/*
 * The options of table @t (cmd_sweep_opts or cmd_diagnose_opts, cmd.h)
 * into @a (cmd/sweep_opts.c): -1 when
 * the loop ended (arguments from optind), else @cmd's exit code (--help
 * printed, a usage error reported).
 */
int sweep_opts_parse(struct fab_ctx *ctx, const struct cmd_opts *t, int argc, char **argv,
		     struct sweep_args *a);

/*
 * After each command's own checks, the rules both share (modes that
 * exclude each other, --coverage, options that go with --topology,
 * something to measure): -1 to go on, or FAB_EXIT_USAGE.
 */
int sweep_opts_check(struct fab_ctx *ctx, struct sweep_args *a);

/* -1 when @transport is built in; else sweep's usage error said, FAB_EXIT_USAGE. */
int sweep_transport_check(struct fab_ctx *ctx, const char *transport);

/*
 * The counter policy, the transport (built in), then sweep_run(): -1 with
 * @out to render (sweep_outcome_fini() it), or the exit status.
 */
int sweep_args_run(struct fab_ctx *ctx, struct sweep_args *a, struct sweep_outcome *out);

/* --html: the report page holds at most this many pairs (1024 hosts, all pairs). */
#define SWEEP_HTML_MAX_PAIRS 523776

/*
 * The engine's checks for sweep's outputs (struct sweep_checks, @ctx the
 * args): --prom, --csv and --html writable before any worker starts;
 * --html within SWEEP_HTML_MAX_PAIRS once the pairs are known.
 */
int sweep_out_check(void *ctx, struct fab_err *err);
int sweep_out_check_pairs(void *ctx, size_t n_pairs, struct fab_err *err);

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

#endif
