// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl confirm [--revert]: keep (or undo now) the changes of a
 * pending `apply --try`.  Both claim the pending state first
 * (sys_pending_claim: a rename(2)), so exactly one of confirm and the
 * reverter acts on it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node/apply.h"
#include "cmd/cmd.h"
#include "render/render.h"

/* The outcome, one line of text or a "fabricctl.confirm/1" document (-j). */
static void confirm_say(struct fab_ctx *ctx, const char *action, size_t n, const char *text)
{
	if (ctx->render.ops == &render_json_ops)
		render_json_emit(&ctx->render, json_pack("{s:s, s:s, s:I}", "schema",
				 "fabricctl.confirm/1", "action", action, "changes", (json_int_t)n));
	else
		printf("%s %zu change(s)%s\n", action, n, text);
}

/* Nothing pending: say whether the reverter ran (its log), not "may have". */
static int confirm_none(struct fab_ctx *ctx, bool revert)
{
	char pending[256], log[512];
	bool ran = sys_pending_log_read(ctx->sys, log, sizeof(log)) == 0;

	fab_err_set(&ctx->err, -ENOENT, "no try pending (%s absent): nothing to %s%s%s",
		    sys_pending_path(ctx->sys, pending, sizeof(pending)),
		    revert ? "revert" : "confirm",
		    ran ? "; the last automatic revert: " : "", ran ? log : "");
	if (ctx->render.ops == &render_json_ops)
		render_json_emit(&ctx->render, json_pack("{s:s, s:s, s:I, s:o}", "schema",
				 "fabricctl.confirm/1", "action", "none", "changes", (json_int_t)0,
				 "last_revert", json_text_or_null(ran ? log : NULL)));
	return FAB_EXIT_UNHEALTHY;
}

int cmd_confirm(struct fab_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "revert", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char claimed[320], who[32], *text = NULL;
	struct plan plan;
	long long deadline = 0;
	bool revert = false;
	size_t len = 0;
	int opt, pid = 0, rc = FAB_EXIT_OK, n;

	while ((opt = getopt_long(argc, argv, "rh", opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			revert = true;
			break;
		case 'h':
			cmd_usage(stdout, "confirm");
			return FAB_EXIT_OK;
		default:
			cmd_usage(stderr, "confirm");
			return FAB_EXIT_USAGE;
		}
	}
	if (optind != argc)
		return cmd_usage_error(ctx, "confirm", "no arguments expected");
	plan_init(&plan);
	snprintf(who, sizeof(who), "%s.%d", revert ? "reverting" : "confirmed", (int)getpid());
	n = sys_pending_claim(ctx->sys, who, claimed, sizeof(claimed), &text, &len, &ctx->err);
	if (n == -ENOENT) {
		rc = confirm_none(ctx, revert);
		goto out;
	}
	if (n < 0) {
		fab_err_prefix(&ctx->err, "confirm");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (plan_undo_from_json(claimed, text, len, &plan, &deadline, &pid, &ctx->err) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	sys_reverter_stop(ctx->sys, pid);
	if (revert) {
		for (size_t i = 0; i < plan.n_steps; i++)
			plan.steps[i].status = PLAN_STEP_DONE;
		if (apply_plan_undo(ctx->sys, &plan, &ctx->err) < 0) {
			rc = FAB_EXIT_SYSTEM;
			goto out_unlink;
		}
		confirm_say(ctx, "reverted", plan.n_steps, "");
	} else {
		confirm_say(ctx, "confirmed", plan.n_steps, "; automatic revert cancelled");
	}
out_unlink:
	sys_pending_drop(ctx->sys, claimed);
out:
	free(text);
	plan_fini(&plan);
	return rc;
}
