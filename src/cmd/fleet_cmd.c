// SPDX-License-Identifier: GPL-2.0-or-later
/* status, verify, apply --hosts: run, check, render, one exit rule; see fleet_cmd.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/fleet_cmd.h"
#include "io/load.h"
#include "model/profile.h"
#include "util/array.h"


/* One --hosts run: its inputs, the answers, and what the op's check made of them. */
struct fleet_job {
	const struct fab_hosts *hosts;
	const struct fleet_opts *fo;
	const char *profile;
	bool dry_run;
	struct fleet_run run;
	struct fleet_verify v;
	struct fleet_apply a;
	size_t unhealthy;		/* nodes that answered unhealthy (verify: drift) */
};

/* What differs between the three: one row each. */
struct fleet_cmd {
	const char *op;			/* worker op */
	int timeout_ms;
	bool profile;			/* sends the profile */
	/* Check the answers in j->run (0, or -errno with ctx->err set), then render them. */
	int (*check)(struct fab_ctx *ctx, struct fleet_job *j);
	int (*render)(struct fab_ctx *ctx, const struct fleet_job *j);
	const char *failed_what;	/* the error with exit 3: "N of M nodes <failed_what>" */
};

static int status_check(struct fab_ctx *ctx, struct fleet_job *j)
{
	return 0;
}

static int status_render(struct fab_ctx *ctx, const struct fleet_job *j)
{
	const struct render_ops *r = ctx->render.ops;

	return r->status_fleet ? r->status_fleet(&ctx->render, &j->run) : -EOPNOTSUPP;
}

static int verify_check(struct fab_ctx *ctx, struct fleet_job *j)
{
	if (fleet_verify_check(&j->run, j->profile, &j->v) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "verify: out of memory");
	if (verify_fleet_homing(ctx, j->hosts, j->fo, j->profile, &j->v) < 0)
		return -ENOMEM;
	j->unhealthy = j->v.n_drifted;
	return 0;
}

static int verify_render(struct fab_ctx *ctx, const struct fleet_job *j)
{
	const struct render_ops *r = ctx->render.ops;

	return r->verify_fleet ? r->verify_fleet(&ctx->render, &j->v) : -EOPNOTSUPP;
}

static int apply_check(struct fab_ctx *ctx, struct fleet_job *j)
{
	if (fleet_apply_check(&j->run, j->profile, j->dry_run, &j->a) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "apply: out of memory");
	return 0;
}

static int apply_render(struct fab_ctx *ctx, const struct fleet_job *j)
{
	const struct render_ops *r = ctx->render.ops;

	return r->apply_fleet ? r->apply_fleet(&ctx->render, &j->a) : -EOPNOTSUPP;
}

static const struct fleet_cmd fleet_cmds[] = {
	{ "status", 30000, false, status_check, status_render, "could not be read" },
	{ "verify", 60000, true, verify_check, verify_render, "could not be verified" },
	{ "apply", 120000, true, apply_check, apply_render, "failed" },
};

static const struct fleet_cmd *fleet_cmd_find(const char *op)
{
	for (size_t i = 0; i < ARRAY_SIZE(fleet_cmds); i++)
		if (strcmp(fleet_cmds[i].op, op) == 0)
			return &fleet_cmds[i];
	return NULL;
}

/* Bad input first, before any node is contacted: the profile, then the hosts file. */
static int fleet_cmd_params(const struct fleet_cmd *c, const char *profile, bool dry_run,
			    json_t **params, struct fab_err *err)
{
	/* status: the modules too (docs/worker-protocol.md), grouped by render/optics_fleet.c */
	if (strcmp(c->op, "status") == 0 && !(*params = json_pack("{s:b}", "optics", 1)))
		return fab_err_set(err, -ENOMEM, "%s: out of memory", c->op);
	if (!c->profile)
		return 0;
	if (profile_load_params(profile, params, err) < 0)
		return -EINVAL;
	if (strcmp(c->op, "apply") == 0 &&
	    json_object_set_new(*params, "dry_run", json_boolean(dry_run)) < 0)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", c->op);
	return 0;
}

int fleet_cmd_run(struct fab_ctx *ctx, const char *op, const char *hosts_path,
		  const struct fleet_opts *fo, const char *profile, bool dry_run)
{
	const struct fleet_cmd *c = fleet_cmd_find(op);
	struct fleet_opts o = *fo;
	struct fab_hosts hosts, ports;
	struct fleet_job j = { .hosts = &hosts, .fo = fo, .profile = profile, .dry_run = dry_run };
	json_t *params = NULL;
	int rc;

	if (!c) {
		fab_err_set(&ctx->err, -EINVAL, "%s: no such fleet op", op);
		return FAB_EXIT_SYSTEM;
	}
	o.progress = isatty(STDERR_FILENO);	/* "N of M nodes answered", as the sweep's line */
	hosts_init(&hosts);
	hosts_init(&ports);
	fleet_run_init(&j.run, c->op);
	j.run.ports = &ports;
	if (fleet_cmd_params(c, profile, dry_run, &params, &ctx->err) < 0 ||
	    hosts_load_split(&hosts, &ports, hosts_path, &ctx->err) < 0 ||
	    fleet_op_run(&hosts, &o, c->op, params,
			 fo->timeout_ms > 0 ? fo->timeout_ms : c->timeout_ms, &j.run,
			 &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (c->check(ctx, &j) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rc = j.run.n_failed ? FAB_EXIT_SYSTEM : j.unhealthy ? FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
	if (c->render(ctx, &j) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	} else if (j.run.n_failed) {
		fab_err_set(&ctx->err, -EHOSTUNREACH, "%zu of %zu node%s %s", j.run.n_failed,
			    hosts.n, hosts.n == 1 ? "" : "s", c->failed_what);
	}
out:
	fleet_apply_fini(&j.a);
	fleet_verify_fini(&j.v);
	fleet_run_fini(&j.run);
	json_decref(params);
	hosts_fini(&hosts);
	hosts_fini(&ports);
	return rc;
}

const struct cmd_opt fleet_cmd_more_opts[] = {
	CMD_STRING("ssh-config", 0, "FILE", struct fleet_opts, ssh_config, CMD_SYN_HIDE),
	CMD_STRING("worker-cmd", 0, "CMD", struct fleet_opts, worker_cmd, CMD_SYN_HIDE),
	CMD_STRING("listen", 0, "ADDR[:PORT]", struct fleet_opts, listen, CMD_SYN_HIDE),
	{ 0 },
};
