// SPDX-License-Identifier: GPL-2.0-or-later
/* status, verify, apply --hosts: run, merge, render, one exit rule; see fleet_cmd.h. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/fleet_cmd.h"
#include "io/load.h"
#include "model/profile.h"
#include "util/array.h"

#define FLEET_PROFILE_MAX (256 * 1024)	/* escaped at most 2x: fits one protocol line */

/* What differs between the three: one row each. */
struct fleet_cmd {
	const char *op;			/* worker op */
	const char *schema;		/* of fleet_run_op()'s document */
	int timeout_ms;
	bool profile;			/* sends the profile */
	/*
	 * The command's document from @run (borrowed): a new reference, NULL
	 * on ENOMEM; counts the failed and unhealthy nodes.  NULL: @run is it.
	 */
	json_t *(*merge)(const json_t *run, const char *profile, bool dry_run,
			 size_t *n_failed, size_t *n_unhealthy);
	size_t render_slot;		/* offsetof(struct render_ops, ...) */
	const char *failed_what;	/* the error with exit 3: "N of M nodes <failed_what>" */
};

/* The merges of fleet_op.h, as one signature. */
static json_t *verify_merge(const json_t *run, const char *profile, bool dry_run,
			    size_t *n_failed, size_t *n_drifted)
{
	return fleet_verify_merge(run, profile, n_failed, n_drifted);
}

static json_t *apply_merge(const json_t *run, const char *profile, bool dry_run,
			   size_t *n_failed, size_t *n_unhealthy)
{
	*n_unhealthy = 0;
	return fleet_apply_merge(run, profile, dry_run, n_failed);
}

static const struct fleet_cmd fleet_cmds[] = {
	{ "status", "fabricctl.fleet-status/1", 30000, false, NULL,
	  offsetof(struct render_ops, status_fleet), "could not be read" },
	{ "verify", "fabricctl.fleet-verify/1", 60000, true, verify_merge,
	  offsetof(struct render_ops, verify_fleet), "could not be verified" },
	{ "apply", "fabricctl.fleet-apply/1", 120000, true, apply_merge,
	  offsetof(struct render_ops, apply_fleet), "failed" },
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
	if (!c->profile)
		return 0;
	if (apply_fleet_params(profile, params, err) < 0)
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
	int (*render)(struct render *r, const json_t *doc);
	struct fleet_opts o = *fo;
	struct fab_hosts hosts;
	json_t *params = NULL, *run = NULL, *doc = NULL;
	size_t failed = 0, unhealthy = 0;
	int rc;

	if (!c) {
		fab_err_set(&ctx->err, -EINVAL, "%s: no such fleet op", op);
		return FAB_EXIT_SYSTEM;
	}
	memcpy(&render, (const char *)ctx->render.ops + c->render_slot, sizeof(render));
	o.progress = isatty(STDERR_FILENO);	/* "N of M nodes answered", as the sweep's line */
	hosts_init(&hosts);
	if (fleet_cmd_params(c, profile, dry_run, &params, &ctx->err) < 0 ||
	    hosts_load(&hosts, hosts_path, &ctx->err) < 0 ||
	    fleet_run_op(&hosts, &o, c->op, params, c->schema,
			 fo->timeout_ms > 0 ? fo->timeout_ms : c->timeout_ms, &run, &failed,
			 &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	doc = c->merge ? c->merge(run, profile, dry_run, &failed, &unhealthy) : json_incref(run);
	if (!doc) {
		fab_err_set(&ctx->err, -ENOMEM, "%s: out of memory", c->op);
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (strcmp(c->op, "verify") == 0 &&
	    verify_fleet_homing(ctx, &hosts, fo, profile, doc, &unhealthy) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rc = failed ? FAB_EXIT_SYSTEM : unhealthy ? FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
	if (render(&ctx->render, doc) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	} else if (failed) {
		fab_err_set(&ctx->err, -EHOSTUNREACH, "%zu of %zu node%s %s", failed, hosts.n,
			    hosts.n == 1 ? "" : "s", c->failed_what);
	}
out:
	json_decref(doc);
	json_decref(run);
	json_decref(params);
	hosts_fini(&hosts);
	return rc;
}

const struct cmd_opt fleet_cmd_more_opts[] = {
	CMD_STRING("ssh-config", 0, "FILE", struct fleet_opts, ssh_config, CMD_SYN_HIDE),
	CMD_STRING("worker-cmd", 0, "CMD", struct fleet_opts, worker_cmd, CMD_SYN_HIDE),
	CMD_STRING("listen", 0, "ADDR[:PORT]", struct fleet_opts, listen, CMD_SYN_HIDE),
	{ 0 },
};

int apply_fleet_params(const char *path, json_t **params, struct fab_err *err)
{
	char *text = NULL;
	json_t *t = NULL;
	size_t len = 0;
	int rc;

	/* Read and validated (bad input: file:line:column) before any node is contacted. */
	rc = profile_load_text(path, &text, &len, NULL, err);
	if (rc < 0)
		return rc;
	if (len > FLEET_PROFILE_MAX) {
		rc = fab_err_input(err, -EFBIG, "%s: larger than %d bytes, too large to send to the nodes",
				   path, FLEET_PROFILE_MAX);
		goto out;
	}
	t = json_stringn(text, len);
	if (!t) {
		rc = fab_err_input(err, -EINVAL, "%s: not valid UTF-8 text", path);
		goto out;
	}
	*params = json_pack("{s:o, s:s}", "profile", t, "profile_name", path);
	t = NULL;
	rc = *params ? 0 : fab_err_set(err, -ENOMEM, "apply: out of memory");
out:
	json_decref(t);
	free(text);
	return rc;
}
