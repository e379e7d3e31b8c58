// SPDX-License-Identifier: GPL-2.0-or-later
/* fabricctl status: this node's network and RDMA ports, and its pluggable modules. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/fleet_cmd.h"
#include "node/apply.h"
#include "node/node.h"
#include "node/optics.h"
#include "render/optics.h"
#include "util/file.h"
#include "util/log.h"

enum { OPT_OPTICS = 0x100, OPT_WINDOW, OPT_PROM };

struct status_opts {
	bool optics;		/* --optics: the modules in detail, exit 1 on a failing one */
	const char *prom;	/* --prom FILE: Prometheus text of the modules ("-": stdout) */
	double window_s;	/* --window SEC */
};

/* -1 when status is to run (arguments from optind), otherwise its exit code. */
static int status_parse(struct fab_ctx *ctx, int argc, char **argv, struct fleet_opts *fo,
			const char **hosts, struct status_opts *so)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "optics", no_argument, NULL, OPT_OPTICS },
		{ "window", required_argument, NULL, OPT_WINDOW },
		{ "prom", required_argument, NULL, OPT_PROM },
		FLEET_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (fleet_opt_take(fo, hosts, opt, optarg))
			continue;
		switch (opt) {
		case 'j':
			render_select(&ctx->render, "json");
			break;
		case OPT_OPTICS:
			so->optics = true;
			break;
		case OPT_PROM:
			so->prom = optarg;
			break;
		case OPT_WINDOW:
			if (cmd_opt_num(ctx, "status", "window", optarg, 0.1, 3600,
					&so->window_s) < 0)
				return FAB_EXIT_USAGE;
			break;
		default:
			return cmd_opt_other(ctx, "status", opt);
		}
	}
	if (*hosts && (so->optics || so->prom || so->window_s > 0))
		return cmd_usage_error(ctx, "status", "--optics, --prom and --window are for this "
				       "node, not --hosts");
	return -1;
}

/* The modules, after the devices were picked: a module failing to read is shown, not fatal. */
static int read_optics(struct fab_ctx *ctx, struct host_state *hs, const struct status_opts *so)
{
	struct node_optics_opts oo = { .window_s = so->window_s };

	return node_optics_read(ctx->sys, hs, &oo, &ctx->err);
}

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
			 const struct status_opts *so)
{
	if (so->optics && ctx->render.ops == &render_text_ops) {
		optics_text_detail(ctx->render.f, hs->optics);
		return fflush(ctx->render.f) == EOF ? -EIO : 0;
	}
	return ctx->render.ops->status(&ctx->render, hs);
}

int cmd_status(struct fab_ctx *ctx, int argc, char **argv)
{
	struct fleet_opts fo = FLEET_OPTS_DEFAULT;
	struct status_opts so = { 0 };
	const char *hosts = NULL;
	struct host_state hs;
	char note[1024];
	int rc = status_parse(ctx, argc, argv, &fo, &hosts, &so);

	if (rc >= 0)
		return rc;
	/*
	 * --hosts FILE: every node's status through the fleet layer, merged
	 * into one table or one "fabricctl.fleet-status/1" document.  Exit 3
	 * when a node could not be read (fleet_cmd.h).
	 */
	if (hosts) {
		if (optind < argc)
			return cmd_usage_error(ctx, "status", "--hosts takes no DEVICE names");
		return fleet_cmd_run(ctx, "status", hosts, &fo, NULL, false);
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
	if (read_optics(ctx, &hs, &so) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (so.prom && write_prom(ctx, &hs, so.prom) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (so.prom && !strcmp(so.prom, "-"))
		goto out;
	if (render_status(ctx, &hs, &so) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	} else if (so.optics && optics_set_worst(hs.optics) == OPTICS_FAILING) {
		rc = FAB_EXIT_UNHEALTHY;
	}
out:
	host_state_fini(&hs);
	return rc;
}
