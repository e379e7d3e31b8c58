// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl verify [-j] PROFILE: every field of the profile checked
 * against the live node; drift listed as object, field, wanted, found.
 * Exit 0 when there is none, 1 when there is any, 2 bad profile, 3 when
 * the node cannot be read.  Changes nothing.
 *
 * --hosts FILE: the profile is validated here, then its text goes to
 * every node's worker (op "verify", the same code path below on each
 * node); the answers are merged into one table or one
 * "fabricctl.fleet-verify/1" document.  Exit 1 when any node drifts, 3
 * when any node could not be verified (worker failed, unreachable, or an
 * answer that is not a verify document): an incomplete answer is not a
 * clean bill of health, and it wins over drift.
 */
#include <errno.h>
#include <getopt.h>

#include "io/load.h"
#include "cmd/cmd.h"
#include "cmd/fleet_cmd.h"
#include "node/node.h"

static int verify_fleet(struct fab_ctx *ctx, const char *hosts_path, const struct fleet_opts *fo,
			const char *path)
{
	return fleet_cmd_run(ctx, "verify", hosts_path, fo, path, false);
}

int cmd_verify(struct fab_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		FLEET_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct fleet_opts fo = FLEET_OPTS_DEFAULT;
	const char *hosts = NULL;
	struct profile *p = NULL;
	struct host_state hs;
	struct node_config ns;
	struct plan plan;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (fleet_opt_take(&fo, &hosts, opt, optarg))
			continue;
		switch (opt) {
		case 'j':
			render_select(&ctx->render, "json");
			break;
		case 'h':
			cmd_usage(stdout, "verify");
			return FAB_EXIT_OK;
		default:
			cmd_usage(stderr, "verify");
			return FAB_EXIT_USAGE;
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error(ctx, "verify", "expected one PROFILE");
	if (hosts)
		return verify_fleet(ctx, hosts, &fo, argv[optind]);

	host_state_init(&hs);
	node_config_init(&ns, &hs);
	plan_init(&plan);
	if (profile_load(argv[optind], &p, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (node_verify(ctx->sys, p, &hs, &ns, &plan, &ctx->err) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rc = plan.n_drift ? FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
	if (ctx->render.ops->verify(&ctx->render, argv[optind], hs.hostname, &plan) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	}
out:
	plan_fini(&plan);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
	return rc;
}
