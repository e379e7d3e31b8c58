// SPDX-License-Identifier: GPL-2.0-or-later
/* fabricctl status: this node's network and RDMA ports, and its pluggable modules. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "cmd/fleet_cmd.h"
#include "node/apply.h"
#include "node/node.h"
#include "node/optics.h"
#include "render/optics.h"
#include "util/file.h"
#include "util/log.h"

struct status_args {
	struct fleet_cmd_args f;
	bool optics;		/* --optics: the modules in detail, exit 1 on a failing one */
	double window_s;	/* --window SEC: read the links twice (0: once) */
	const char *prom;	/* --prom FILE: Prometheus text of the modules ("-": stdout) */
};

static const struct cmd_opt status_rows[] = {
	CMD_JSON,
	CMD_FLAG("optics", 0, struct status_args, optics, CMD_SYN_FORM(1)),
	CMD_NUMBER("window", 0, "SEC", struct status_args, window_s, 0.1, 3600, CMD_SYN_FORM(1)),
	CMD_STRING("prom", 0, "FILE", struct status_args, prom, CMD_SYN_FORM(1)),
	CMD_TEXT("[DEVICE...]", CMD_SYN_FORM(1)),
	FLEET_CMD_HOSTS(struct status_args, f.hosts, CMD_SYN_REQ | CMD_SYN_FORM(2)),
	FLEET_CMD_LAUNCHER(struct status_args, f.fo.launcher, CMD_SYN_IN | CMD_SYN_FORM(2)),
	CMD_GROUP(struct status_args, f.fo, fleet_cmd_more_opts),
	{ 0 },
};

const struct cmd_opts cmd_status_opts = { "status", status_rows };

/* --prom FILE: the modules' gauges, written atomically (the textfile collector's rule). */
static int write_prom(struct fab_ctx *ctx, const struct host_state *hs, const char *path)
{
	struct render r = { .ops = &render_prom_ops, .f = stdout };
	struct file_atomic w;
	int rc;

	if (!strcmp(path, "-"))
		return render_prom_ops.status(&r, hs) < 0 ?
			fab_err_set(&ctx->err, -EIO, "writing output failed") : 0;
	rc = file_atomic_open(&w, path, 0644, &ctx->err);
	if (rc < 0)
		return rc;
	r.f = w.f;
	return file_atomic_finish(&w, render_prom_ops.status(&r, hs), &ctx->err);
}

static int render_status(struct fab_ctx *ctx, const struct host_state *hs,
			 const struct status_args *a)
{
	if (a->optics && ctx->render.ops == &render_text_ops) {
		optics_text_detail(ctx->render.f, hs->optics);
		return fflush(ctx->render.f) == EOF ? -EIO : 0;
	}
	return ctx->render.ops->status(&ctx->render, hs);
}

/* This node's ports, the named ones only, then their modules (one failing to read is shown). */
static int read_node(struct fab_ctx *ctx, struct host_state *hs, const struct status_args *a,
		     int argc, char **argv)
{
	struct node_optics_opts oo = { .window_s = a->window_s };

	if (node_status_read(ctx->sys, hs, &ctx->err) < 0)
		return fab_err_exit(&ctx->err);
	if (optind < argc) {
		int bad = host_state_keep_named(hs, argv + optind, (size_t)(argc - optind));

		if (bad >= 0) {
			fab_err_set(&ctx->err, -ENODEV, "%s: no such network or RDMA device",
				    argv[optind + bad]);
			return FAB_EXIT_SYSTEM;
		}
	}
	if (node_optics_read(ctx->sys, hs, &oo, &ctx->err) < 0)
		return fab_err_exit(&ctx->err);
	return FAB_EXIT_OK;
}

int cmd_status(struct fab_ctx *ctx, int argc, char **argv)
{
	struct status_args a = { .f = FLEET_CMD_ARGS_DEFAULT };
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
	if (a.f.hosts) {
		if (optind < argc)
			return cmd_usage_error(ctx, "status", "--hosts takes no DEVICE names");
		if (a.optics || a.prom || a.window_s > 0)
			return cmd_usage_error(ctx, "status", "--optics, --prom and --window are "
					       "for this node, not --hosts");
		return fleet_cmd_run(ctx, "status", a.f.hosts, &a.f.fo, NULL, false);
	}

	/* A try nobody will revert is said first (node/apply.h). */
	if (apply_pending_note(ctx->sys, note, sizeof(note)))
		fab_warn("status: %s", note);
	host_state_init(&hs);
	rc = read_node(ctx, &hs, &a, argc, argv);
	if (rc != FAB_EXIT_OK)
		goto out;
	if (a.prom && write_prom(ctx, &hs, a.prom) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (a.prom && !strcmp(a.prom, "-"))
		goto out;
	if (render_status(ctx, &hs, &a) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	} else if (a.optics && optics_set_worst(hs.optics) == OPTICS_FAILING) {
		rc = FAB_EXIT_UNHEALTHY;
	}
out:
	host_state_fini(&hs);
	return rc;
}
