// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl confirm [--revert]: keep (or undo now) the changes of a
 * pending `apply --try`.  Under the node's apply lock (as apply and the
 * reverter): so an undo never overlaps an apply, and exactly one of
 * confirm and the reverter acts on a pending try.  The pending state is
 * read and checked before anything acts on it; a damaged one is left
 * where it is (the reverter stays armed, new applies stay refused) and
 * confirm says so.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node/apply.h"
#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "render/render.h"
#include "util/log.h"
#include "util/str.h"

/* The outcome through the renderer: one line of text or a "fabricctl.confirm/1" document (-j). */
static void confirm_say(struct fab_ctx *ctx, enum confirm_action action, size_t n,
			const char *note, const char *last_revert)
{
	struct confirm_report r = { .action = action, .changes = n, .note = note,
				    .last_revert = last_revert };

	if (ctx->render.ops->confirm)
		ctx->render.ops->confirm(&ctx->render, &r);
}

/* Nothing pending: say whether the reverter ran (its log), not "may have". */
static int confirm_none(struct fab_ctx *ctx, bool revert)
{
	char pending[PATH_MAX], log[512];
	bool ran = sys_pending_log_read(ctx->sys, log, sizeof(log)) == 0;

	fab_err_set(&ctx->err, -ENOENT, "no try pending (%s absent): nothing to %s%s%s",
		    sys_pending_path(ctx->sys, pending, sizeof(pending)),
		    revert ? "revert" : "confirm",
		    ran ? "; the last automatic revert: " : "", ran ? log : "");
	confirm_say(ctx, CONFIRM_NONE, 0, "", ran ? log : NULL);
	return FAB_EXIT_UNHEALTHY;
}

/*
 * The try's reverter is dead (apply.h apply_reverter_dead).  Past its
 * deadline: reverted now whatever was asked, as the reverter would have
 * done, and logged; the exit status (0 for --revert; 1 for a confirm
 * that came too late, 3 when the undo failed).  Before it: logged and
 * said, -1: confirm goes on as asked.
 */
static int confirm_orphan(struct fab_ctx *ctx, struct changeset *cs, const struct change_pending *pp,
			  const char *pending, bool revert)
{
	char line[600], when[STR_TIME_LEN], note[200];

	str_time(when, sizeof(when), pp->deadline);
	if (!apply_try_overdue(pp)) {
		snprintf(line, sizeof(line), "deadline %s: the reverter (pid %d) was found dead by confirm%s (pid %d): %s",
			 when, pp->pid, revert ? " --revert" : "", (int)getpid(),
			 revert ? "reverted by confirm" : "kept by confirm");
		sys_pending_log(ctx->sys, line);
		fab_warn("confirm: the try's reverter (pid %d) was not running: nothing would have "
			 "reverted it at %s", pp->pid, when);
		return -1;
	}
	if (apply_revert_orphan(ctx->sys, cs, pp, pending, revert ? "confirm --revert" : "confirm",
				&ctx->err) < 0)
		return FAB_EXIT_SYSTEM;
	snprintf(note, sizeof(note), " (the automatic revert due at %s: its reverter, pid %d, had died)",
		 when, pp->pid);
	confirm_say(ctx, CONFIRM_REVERTED, cs->n_steps, note, NULL);
	if (revert)
		return FAB_EXIT_OK;
	fab_err_set(&ctx->err, -ETIME,
		    "too late to confirm: the try was due at %s and its reverter (pid %d) had died, so it was reverted now as the reverter would have done; apply the profile again to keep the change",
		    when, pp->pid);
	return FAB_EXIT_UNHEALTHY;
}

struct confirm_args {
	bool revert;
};

/* How long confirm waits for the apply lock (a reverter undoing, an apply ending). */
#define CONFIRM_LOCK_WAIT_MS 3000

static const struct cmd_opt confirm_rows[] = {
	CMD_FLAG("revert", 'r', struct confirm_args, revert, 0),
	{ 0 },
};

const struct cmd_opts cmd_confirm_opts = { "confirm", confirm_rows };

int cmd_confirm(struct fab_ctx *ctx, int argc, char **argv)
{
	char pending[PATH_MAX], *text = NULL;
	struct change_pending pp = { 0 };
	struct confirm_args a = { .revert = false };
	struct changeset cs;
	bool revert;
	size_t len = 0;
	int rc, n, lock = -1;

	rc = cmd_opts_parse(ctx, &cmd_confirm_opts, argc, argv, &a);
	if (rc >= 0)
		return rc;
	rc = FAB_EXIT_OK;
	revert = a.revert;
	if (optind != argc)
		return cmd_usage_error(ctx, "confirm", "no arguments expected");
	changeset_init(&cs);
	sys_pending_path(ctx->sys, pending, sizeof(pending));
	/* A reverter holds the lock only while it undoes: wait a little for it. */
	if (apply_lock_wait(ctx->sys, &lock, CONFIRM_LOCK_WAIT_MS, &ctx->err) < 0) {
		fab_err_prefix(&ctx->err, "confirm");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	n = sys_pending_read(ctx->sys, &text, &len, &ctx->err);
	if (n == -ENOENT) {
		rc = confirm_none(ctx, revert);
		goto out;
	}
	if (n < 0) {
		fab_err_prefix(&ctx->err, "confirm");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (changeset_undo_from_json(pending, text, len, &cs, &pp, &ctx->err) < 0) {
		/* Damaged: neither drop it nor stop the reverter; leave it for the admin. */
		char why[400];

		snprintf(why, sizeof(why), "%.399s", ctx->err.msg);
		fab_err_set(&ctx->err, -EINVAL,
			    "the pending state is damaged (%s); nothing %s: the automatic revert stays armed and new applies stay refused (inspect %s; removing it by hand gives up the revert, the changes then stay)",
			    why, revert ? "reverted" : "confirmed", pending);
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (pp.applying && !revert) {
		fab_err_set(&ctx->err, -EBUSY,
			    "%s is the journal of an interrupted apply (pid %d, %zu step(s) begun), not a try: nothing to confirm; 'fabricctl confirm --revert' (or the next apply) restores the state before it",
			    pending, pp.owner, cs.n_steps);
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (apply_reverter_dead(ctx->sys, &pp)) {
		rc = confirm_orphan(ctx, &cs, &pp, pending, revert);
		if (rc >= 0)
			goto out;	/* past its deadline: reverted, as its reverter would have */
		rc = FAB_EXIT_OK;
	}
	sys_reverter_stop(ctx->sys, pp.pid, pp.pid_start);
	if (revert) {
		for (size_t i = 0; i < cs.n_steps; i++)
			cs.steps[i].status = CHANGE_STEP_DONE;
		if (apply_changeset_undo(ctx->sys, &cs, &ctx->err) < 0) {
			rc = FAB_EXIT_SYSTEM;
			goto out_unlink;
		}
		confirm_say(ctx, CONFIRM_REVERTED, cs.n_steps,
			    pp.applying ? " of an interrupted apply" : "", NULL);
	} else {
		confirm_say(ctx, CONFIRM_CONFIRMED, cs.n_steps, "; automatic revert cancelled",
			    NULL);
	}
out_unlink:
	sys_pending_drop(ctx->sys, pending);
out:
	if (lock >= 0)
		sys_pending_unlock(ctx->sys, lock);
	free(text);
	changeset_fini(&cs);
	return rc;
}
