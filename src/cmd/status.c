// SPDX-License-Identifier: GPL-2.0-or-later
/* fabricctl status: this node's network and RDMA ports. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "cmd/fleet_cmd.h"
#include "node/apply.h"
#include "node/node.h"
#include "util/log.h"

static const struct cmd_opt status_rows[] = {
	CMD_JSON,
	CMD_TEXT("[DEVICE...]", CMD_SYN_FORM(1)),
	FLEET_CMD_HOSTS(struct fleet_cmd_args, hosts, CMD_SYN_REQ | CMD_SYN_FORM(2)),
	FLEET_CMD_LAUNCHER(struct fleet_cmd_args, fo.launcher, CMD_SYN_IN | CMD_SYN_FORM(2)),
	CMD_GROUP(struct fleet_cmd_args, fo, fleet_cmd_more_opts),
	{ 0 },
};

const struct cmd_opts cmd_status_opts = { "status", status_rows };

int cmd_status(struct fab_ctx *ctx, int argc, char **argv)
{
	struct fleet_cmd_args a = FLEET_CMD_ARGS_DEFAULT;
	struct host_state hs;
	char note[1024];
	int rc = cmd_opts_parse(ctx, &cmd_status_opts, argc, argv, &a);

	if (rc >= 0)
		return rc;
	/*
	 * --hosts FILE: every node's status through the fleet layer, merged
	 * into one table or one "fabricctl.fleet-status/1" document.  Exit 3
	 * when a node could not be read (fleet_cmd.h).
	 */
	if (a.hosts) {
		if (optind < argc)
			return cmd_usage_error(ctx, "status", "--hosts takes no DEVICE names");
		return fleet_cmd_run(ctx, "status", a.hosts, &a.fo, NULL, false);
	}

	rc = FAB_EXIT_OK;
	/* A try nobody will revert is said first (node/apply.h). */
	if (apply_pending_note(ctx->sys, note, sizeof(note)))
		fab_warn("status: %s", note);
	host_state_init(&hs);
	if (node_status_read(ctx->sys, &hs, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (optind < argc) {
		int bad = host_state_keep_named(&hs, argv + optind, (size_t)(argc - optind));

		if (bad >= 0) {
			fab_err_set(&ctx->err, -ENODEV, "%s: no such network or RDMA device",
				    argv[optind + bad]);
			rc = FAB_EXIT_SYSTEM;
			goto out;
		}
	}
	if (ctx->render.ops->status(&ctx->render, &hs) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	}
out:
	host_state_fini(&hs);
	return rc;
}
