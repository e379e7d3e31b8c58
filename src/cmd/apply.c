// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl apply [--dry-run] [--try SECONDS] PROFILE: load the profile
 * (bad input: exit 2, nothing touched), apply it on this node
 * (node/apply.c: apply_node()), render the plan and its outcome.
 * --hosts FILE: the same on every node through the worker.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "cmd/fleet_cmd.h"
#include "util/log.h"
#include "util/str.h"
#include "io/load.h"
#include "node/apply.h"

int cmd_apply(struct fab_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "try", required_argument, NULL, 't' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		FLEET_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct fleet_opts fo = FLEET_OPTS_DEFAULT;
	const char *hosts = NULL;
	struct apply_report rep = { .failed = -1 };
	struct profile *p = NULL;
	struct plan plan;
	uint64_t try_s = 0, timeout_s = 0;
	bool dry = false;
	int opt, rc = FAB_EXIT_OK;

	while ((opt = getopt_long(argc, argv, "nt:jh", opts, NULL)) != -1) {
		if (fleet_opt_take(&fo, &hosts, opt, optarg))
			continue;
		switch (opt) {
		case 'n':
			dry = true;
			break;
		case 't':
			if (parse_uint(optarg, 10, &try_s) < 0 || try_s < 1 || try_s > 86400)
				return cmd_usage_error(ctx, "apply", "--try: '%s' is not 1-86400 seconds",
						       optarg);
			break;
		case 'T':
			if (parse_uint(optarg, 10, &timeout_s) < 0 || timeout_s < 1 || timeout_s > 86400)
				return cmd_usage_error(ctx, "apply",
						       "--timeout: '%s' is not 1-86400 seconds", optarg);
			fo.timeout_ms = (int)timeout_s * 1000;
			break;
		case 'j':
			render_select(&ctx->render, "json");
			break;
		default:
			return cmd_opt_other(ctx, "apply", opt);
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error(ctx, "apply", "expected one PROFILE");
	if (dry && try_s)
		return cmd_usage_error(ctx, "apply", "--dry-run and --try exclude each other");
	/*
	 * --try on many nodes would need a fleet-wide confirm: each node's
	 * reverter runs on its own clock, and the node an admin most needs
	 * the safety net for (cut off by the change) is exactly the one
	 * `confirm` cannot reach, leaving the fleet split.  Refused.
	 */
	if (hosts && try_s)
		return cmd_usage_error(ctx, "apply",
				       "--try cannot be used with --hosts (no fleet-wide confirm: see fabricctl-apply(8))");
	if (timeout_s && !hosts)
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
	if (hosts)
		return fleet_cmd_run(ctx, "apply", hosts, &fo, argv[optind], dry);

	plan_init(&plan);
	if (profile_load(argv[optind], &p, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (apply_node(ctx->sys, p, argv[optind], dry, (unsigned int)try_s, &plan, &rep,
		       &ctx->err) < 0)
		rc = FAB_EXIT_SYSTEM;
	if (rep.recovered)
		fab_warn("apply: an interrupted apply had left its journal: undid its %zu step(s) first",
			 rep.recovered_steps);
	if (rep.orphan[0])
		fab_warn("apply: %s", rep.orphan);
	if (rep.signo)
		rc = 128 + rep.signo;	/* as the shell reports a signal: 130, 143, 129 */
	if (!rep.plan)
		goto out;	/* failed before there was a plan: nothing to show */
	if (ctx->render.ops->apply(&ctx->render, &rep) < 0 && rc == FAB_EXIT_OK) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	}
	/* A dry run predicts the real apply's exit status: 3 when it would fail. */
	if (rc == FAB_EXIT_OK && dry && (rep.dry_refused[0] || plan_n_fails(&plan))) {
		if (rep.dry_refused[0])
			fab_err_set(&ctx->err, -EBUSY, "dry run: a real apply would be refused now");
		else
			fab_err_set(&ctx->err, -EOPNOTSUPP, "dry run: %zu step(s) certain to fail",
				    plan_n_fails(&plan));
		rc = FAB_EXIT_SYSTEM;
	}
out:
	plan_fini(&plan);
	profile_free(p);
	return rc;
}
