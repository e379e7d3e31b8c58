// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl apply [--dry-run] [--try SECONDS] PROFILE: load the profile
 * (bad input: exit 2, nothing touched), apply it on this node
 * (node/apply.c: apply_node()), render the change set and its outcome.
 * --hosts FILE: the same on every node through the worker.
 */
#include <errno.h>
#include <getopt.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "cmd/fleet_cmd.h"
#include "util/log.h"
#include "io/load.h"
#include "node/apply.h"

struct apply_args {
	struct fleet_cmd_args fl;
	bool dry_run;
	unsigned int try_s;		/* --try SECONDS; 0: none */
	unsigned int timeout_s;		/* --hosts: each node's time; 0: the default */
};

static const struct cmd_opt apply_rows[] = {
	CMD_JSON,
	CMD_FLAG("dry-run", 'n', struct apply_args, dry_run, 0),
	CMD_WHOLE("try", 't', "SECONDS", struct apply_args, try_s, 1, 86400, 0),
	FLEET_CMD_HOSTS(struct apply_args, fl.hosts, CMD_SYN_OR),
	FLEET_CMD_LAUNCHER(struct apply_args, fl.fo.launcher, CMD_SYN_IN),
	CMD_WHOLE("timeout", 0, "SECONDS", struct apply_args, timeout_s, 1, 86400, CMD_SYN_IN),
	CMD_GROUP(struct apply_args, fl.fo, fleet_cmd_more_opts),
	CMD_TEXT("PROFILE", 0),
	{ 0 },
};

const struct cmd_opts cmd_apply_opts = { "apply", apply_rows };

int cmd_apply(struct fab_ctx *ctx, int argc, char **argv)
{
	struct apply_args a = { .fl = FLEET_CMD_ARGS_DEFAULT };
	struct apply_report rep = { .failed = -1 };
	struct profile *p = NULL;
	struct changeset cs;
	int rc = cmd_opts_parse(ctx, &cmd_apply_opts, argc, argv, &a);

	if (rc >= 0)
		return rc;
	rc = FAB_EXIT_OK;
	if (optind != argc - 1)
		return cmd_usage_error(ctx, "apply", "expected one PROFILE");
	if (a.dry_run && a.try_s)
		return cmd_usage_error(ctx, "apply", "--dry-run and --try exclude each other");
	/*
	 * --try on many nodes would need a fleet-wide confirm: each node's
	 * reverter runs on its own clock, and the node an admin most needs
	 * the safety net for (cut off by the change) is exactly the one
	 * `confirm` cannot reach, leaving the fleet split.  Refused.
	 */
	if (a.fl.hosts && a.try_s)
		return cmd_usage_error(ctx, "apply",
				       "--try cannot be used with --hosts (no fleet-wide confirm: see fabricctl-apply(8))");
	if (a.timeout_s && !a.fl.hosts)
		return cmd_usage_error(ctx, "apply", "--timeout is for --hosts (how long each node may take)");
	/*
	 * --hosts FILE [--dry-run]: the profile is validated here, its text
	 * goes to every node's worker (op "apply": apply_node() on each node,
	 * with that node's lock and rollback), the answers are merged into one
	 * report or one "fabricctl.fleet-apply/1" document.  Exit 3 when any
	 * node failed (did not answer, or its apply failed and was rolled
	 * back).  Nodes are independent: one node's failure does not undo the
	 * others.
	 */
	if (a.fl.hosts) {
		a.fl.fo.timeout_ms = (int)a.timeout_s * 1000;
		return fleet_cmd_run(ctx, "apply", a.fl.hosts, &a.fl.fo, argv[optind], a.dry_run);
	}

	changeset_init(&cs);
	if (profile_load(argv[optind], &p, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (apply_node(ctx->sys, p, argv[optind], a.dry_run, a.try_s, &cs, &rep, &ctx->err) < 0)
		rc = FAB_EXIT_SYSTEM;
	if (rep.recovered)
		fab_warn("apply: an interrupted apply had left its journal: undid its %zu step(s) first",
			 rep.recovered_steps);
	if (rep.orphan[0])
		fab_warn("apply: %s", rep.orphan);
	if (rep.signo)
		rc = 128 + rep.signo;	/* as the shell reports a signal: 130, 143, 129 */
	if (!rep.cs)
		goto out;	/* failed before there was a change set: nothing to show */
	if (ctx->render.ops->apply(&ctx->render, &rep) < 0 && rc == FAB_EXIT_OK) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	}
	/* A dry run predicts the real apply's exit status: 3 when it would fail. */
	if (rc == FAB_EXIT_OK && a.dry_run && (rep.dry_refused[0] || changeset_n_fails(&cs))) {
		if (rep.dry_refused[0])
			fab_err_set(&ctx->err, -EBUSY, "dry run: a real apply would be refused now");
		else
			fab_err_set(&ctx->err, -EOPNOTSUPP, "dry run: %zu step(s) certain to fail",
				    changeset_n_fails(&cs));
		rc = FAB_EXIT_SYSTEM;
	}
out:
	changeset_fini(&cs);
	profile_free(p);
	return rc;
}
