// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl verify [-j] PROFILE: every field of the profile checked
 * against the live node; drift listed as object, field, wanted, found.
 * Exit 0 when there is none, 1 when there is any, 2 bad profile, 3 when
 * the node cannot be read.  Changes nothing.
 */
#include <errno.h>
#include <getopt.h>

#include "cmd/apply.h"
#include "cmd/cmd.h"

int cmd_verify(struct fab_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct profile *p = NULL;
	struct host_state hs;
	struct node_state ns;
	struct plan plan;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			ctx->json = true;
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
	ctx->out.ops = ctx->json ? &out_json_ops : &out_text_ops;

	host_state_init(&hs);
	node_state_init(&ns, &hs);
	plan_init(&plan);
	if (profile_load(argv[optind], &p, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (apply_node_read(ctx->sys, p, &hs, &ns, &ctx->err) < 0 ||
	    plan_diff(p, &ns, &plan, &ctx->err) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rc = plan.n_drift ? FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
	if (ctx->out.ops->verify(&ctx->out, argv[optind], hs.hostname, &plan) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	}
out:
	plan_fini(&plan);
	node_state_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
	return rc;
}
