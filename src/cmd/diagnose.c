// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl diagnose: name the slow link.
 *
 *   diagnose --from SWEEP.json [--topology SOURCE]   re-analyse a saved sweep, no traffic
 *   diagnose --hosts F --topology SOURCE A B          measure A-B and the pairs that share
 *                                                     parts of its path, then localise
 *
 * A front end over the sweep engine (sweep/sweep.h): the options (its
 * table, of sweep's groups: cmd/sweep_opts.c) into a request,
 * sweep_run() (A B: the pairs it picks, measured; --from: the saved document, localised
 * again; both end in model/localize.h with counter deltas as evidence
 * where they can be read), then the report rendered as a diagnosis.
 * docs/diagnose.md.
 *
 * When A's or B's data-path interface is a bond, A-B's legs are measured
 * as the sweep measures them (sweep/sweep_legs.h); --from reads the
 * saved sweep's legs back.
 *
 * Exit: 0 nothing found, 1 a suspect named or a leg not ok, 2 bad input,
 * 3 system error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/sweep_cmd.h"
#include "model/localize.h"
#include "sweep/sweep.h"

/* The suspects and the legs decide the exit status: 1 when one is named, or a leg not ok. */
static int diag_exit(const struct sweep_report *r)
{
	return (r->fabric.loc && r->fabric.loc->n_suspects) || r->n_legs_bad ? FAB_EXIT_UNHEALTHY
									      : FAB_EXIT_OK;
}

static int diagnose_render(struct fab_ctx *ctx, const struct sweep_report *r,
			   const struct sweep_args *a)
{
	const char *from = a->req.from;
	struct diagnose_meta m = { .from = from, .a = from ? NULL : a->target[0],
				   .b = from ? NULL : a->target[1] };
	const struct render_ops *ops = ctx->render.ops;
	int rc = ops->diagnose ? ops->diagnose(&ctx->render, r, &m) : -EOPNOTSUPP;

	if (rc == -ENOMEM)
		fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	return rc < 0 ? FAB_EXIT_SYSTEM : diag_exit(r);
}

/* diagnose's options: -1 to go on, or the exit status (--help, a usage error). */
static int diagnose_parse(struct fab_ctx *ctx, int argc, char **argv, struct sweep_args *a)
{
	const struct sweep_req *r = &a->req;
	int rc;

	sweep_args_default(a, "diagnose");
	rc = sweep_opts_parse(ctx, &cmd_diagnose_opts, argc, argv, a);
	if (rc >= 0)
		return rc;
	while (optind < argc && a->n_target < 2)
		a->target[a->n_target++] = argv[optind++];
	if (optind < argc)
		return cmd_usage_error(ctx, a->cmd, "unexpected argument '%s'", argv[optind]);
	if (r->from && a->n_target)
		return cmd_usage_error(ctx, a->cmd, "--from re-analyses a saved sweep: no A B with it");
	if (!r->from && (a->n_target != 2 || !r->hosts || !r->topology))
		return cmd_usage_error(ctx, a->cmd, "want --from SWEEP.json, or --hosts FILE --topology "
				       "SOURCE A B (the slow pair)");
	if (a->modes || r->coverage_k || r->all_pairs)
		return cmd_usage_error(ctx, a->cmd, "--serial, --pairs, --new, --coverage and "
				       "--all-pairs are sweep's");
	if (r->dry_run || a->prom || a->csv || a->html || r->baseline)
		return cmd_usage_error(ctx, a->cmd, "--dry-run, --prom, --csv, --html and --baseline "
				       "are sweep's");
	if (a->n_target == 2) {
		a->req.target[0] = a->target[0];
		a->req.target[1] = a->target[1];
	}
	a->req.optics = true;	/* the suspects' cable ends as evidence */
	return sweep_opts_check(ctx, a);
}

int cmd_diagnose(struct fab_ctx *ctx, int argc, char **argv)
{
	struct sweep_fates fates = { 0 };
	struct sweep_outcome out;
	struct sweep_args a;
	int rc = diagnose_parse(ctx, argc, argv, &a);

	if (rc >= 0)
		return rc;
	rc = sweep_args_run(ctx, &a, &out);
	if (rc >= 0)
		return rc;
	rc = diagnose_render(ctx, &out.report, &a);
	/* Rounds an error stopped are said after the report (diagnose writes no other output). */
	if (sweep_fates_result(&fates, out.stop_rc, out.report.stop_error, &ctx->err) < 0)
		rc = FAB_EXIT_SYSTEM;
	sweep_outcome_fini(&out);
	return rc;
}
