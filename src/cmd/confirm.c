// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl confirm [--revert]: keep (or undo now) the changes of a
 * pending `apply --try`.  Both claim the pending-state file by rename(2)
 * first, so exactly one of confirm and the reverter acts on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "node/apply.h"
#include "cmd/cmd.h"

/*
 * Stop the reverter @pid early, only if it runs the same program as we do
 * (/proc/PID/exe; a rebuilt binary shows " (deleted)", compared without).
 */
static void reverter_stop(int pid)
{
	char path[64], exe[PATH_MAX], self[PATH_MAX];
	ssize_t n, m;

	if (pid <= 1)
		return;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	m = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || m <= 0)
		return;
	exe[n] = self[m] = '\0';
	exe[strcspn(exe, " ")] = self[strcspn(self, " ")] = '\0';
	if (!strcmp(exe, self))
		kill(pid, SIGTERM);
}

int cmd_confirm(struct fab_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "revert", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char pending[256], claimed[300], *text = NULL;
	struct plan plan;
	long long deadline = 0;
	bool revert = false;
	size_t len = 0;
	int opt, pid = 0, rc = FAB_EXIT_OK, fd;
	ssize_t n;

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
	apply_pending_path(pending, sizeof(pending));
	snprintf(claimed, sizeof(claimed), "%s.%s.%d", pending, revert ? "reverting" : "confirmed",
		 (int)getpid());
	if (rename(pending, claimed) < 0) {
		if (errno == ENOENT)
			fab_err_set(&ctx->err, -ENOENT,
				    "no try pending (%s absent): nothing to %s; it may have been reverted at its deadline",
				    pending, revert ? "revert" : "confirm");
		else
			fab_err_set(&ctx->err, -errno, "confirm: rename %s: %s", pending,
				    strerror(errno));
		rc = errno == ENOENT ? FAB_EXIT_UNHEALTHY : FAB_EXIT_SYSTEM;
		goto out;
	}
	text = malloc(1 << 20);
	if (!text) {
		fab_err_set(&ctx->err, -ENOMEM, "confirm: out of memory");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	fd = open(claimed, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, text, (1 << 20) - 1);
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		fab_err_set(&ctx->err, -errno, "confirm: %s: %s", claimed, strerror(errno));
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	len = (size_t)n;
	text[len] = '\0';
	if (plan_undo_from_json(claimed, text, len, &plan, &deadline, &pid, &ctx->err) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	reverter_stop(pid);
	if (revert) {
		for (size_t i = 0; i < plan.n_steps; i++)
			plan.steps[i].status = PLAN_STEP_DONE;
		if (apply_plan_undo(ctx->sys, &plan, &ctx->err) < 0) {
			rc = FAB_EXIT_SYSTEM;
			goto out_unlink;
		}
		printf("reverted %zu change(s)\n", plan.n_steps);
	} else {
		printf("confirmed %zu change(s); automatic revert cancelled\n", plan.n_steps);
	}
out_unlink:
	unlink(claimed);
out:
	free(text);
	plan_fini(&plan);
	return rc;
}
