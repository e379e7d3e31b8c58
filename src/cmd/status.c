// SPDX-License-Identifier: GPL-2.0-or-later
/* fabricctl status: this node's network and RDMA ports. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/fleet_cmd.h"
#include "node/node.h"

/*
 * status --hosts FILE: every node's status through the fleet layer, merged
 * into one table or one "fabricctl.fleet-status/1" document.  Exit 3 when
 * a node could not be read (fleet_cmd.h).
 */
static int status_fleet(struct fab_ctx *ctx, const char *path, const struct fleet_opts *fo)
{
	return fleet_cmd_run(ctx, "status", path, fo, NULL, false);
}

int cmd_status(struct fab_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		FLEET_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct fleet_opts fo = FLEET_OPTS_DEFAULT;
	const char *hosts = NULL;
	struct host_state hs;
	int opt, rc = FAB_EXIT_OK;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (fleet_opt_take(&fo, &hosts, opt, optarg))
			continue;
		switch (opt) {
		case 'j':
			render_select(&ctx->render, "json");
			break;
		default:
			return cmd_opt_other(ctx, "status", opt);
		}
	}
	if (hosts) {
		if (optind < argc)
			return cmd_usage_error(ctx, "status", "--hosts takes no DEVICE names");
		return status_fleet(ctx, hosts, &fo);
	}

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
