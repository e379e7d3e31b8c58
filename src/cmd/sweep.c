// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl sweep: pairwise latency and bandwidth between the nodes of a
 * hosts file.  A front end: the options (cmd/sweep_opts.c) into a request,
 * the sweep engine (sweep/sweep.h) runs it, then every output is written
 * (stdout through the renderer, --prom, --csv, --html: cmd/sweep_out.c).
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/sweep_cmd.h"
#include "sweep/sweep.h"
#include "sweep/sweep_signal.h"

/* sweep's options: -1 to go on, or the exit status (--help, a usage error). */
static int sweep_parse(struct fab_ctx *ctx, int argc, char **argv, struct sweep_args *a)
{
	int rc;

	sweep_args_default(a, "sweep");
	rc = sweep_opts_parse(ctx, &cmd_sweep_opts, argc, argv, a);
	if (rc >= 0)
		return rc;
	if (a->req.from)
		return cmd_usage_error(ctx, "sweep", "--from is diagnose's (fabricctl diagnose --from)");
	if (optind < argc)
		return cmd_usage_error(ctx, "sweep", "unexpected argument '%s'", argv[optind]);
	if (!a->req.hosts)
		return cmd_usage_error(ctx, "sweep", "--hosts FILE is required");
	return sweep_opts_check(ctx, a);
}

/* The report to stdout, what became of it recorded in @f. */
static void sweep_render(struct fab_ctx *ctx, const struct sweep_report *r, struct sweep_fates *f)
{
	int orc;

	errno = 0;
	orc = ctx->render.ops->sweep(&ctx->render, r);
	if (orc < 0 && errno)
		orc = -errno;	/* the stream's own cause (ENOSPC ...), not a generic EIO */
	sweep_fates_add(f, "stdout", NULL, orc, strerror(-orc));
}

int cmd_sweep(struct fab_ctx *ctx, int argc, char **argv)
{
	struct sweep_fates fates = { 0 };
	struct sweep_outcome out;
	const struct sweep_report *r = &out.report;
	struct sweep_args a;
	int rc = sweep_parse(ctx, argc, argv, &a);

	if (rc >= 0)
		return rc;
	rc = sweep_args_run(ctx, &a, &out);
	if (rc >= 0)
		return rc;
	rc = r->n_slow + r->n_failed + r->n_regressed + r->n_legs_bad ? FAB_EXIT_UNHEALTHY
								       : FAB_EXIT_OK;
	/* Every output is attempted, whatever became of the others (sweep_cmd.h). */
	if (!a.req.dry_run)
		sweep_out_write(&a, r, &fates);
	sweep_render(ctx, r, &fates);
	if (r->interrupted && !out.stop_rc)
		rc = sweep_signal_exit();
	if (sweep_fates_result(&fates, out.stop_rc, r->stop_error, &ctx->err) < 0)
		rc = FAB_EXIT_SYSTEM;
	sweep_outcome_fini(&out);
	return rc;
}
