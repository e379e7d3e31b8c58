// SPDX-License-Identifier: GPL-2.0-or-later
/* status, verify, apply --hosts: run, merge, render, one exit rule; see fleet_cmd.h. */
#include <errno.h>
#include <stdlib.h>

#include "cmd/fleet_cmd.h"
#include "model/profile.h"

#define FLEET_PROFILE_MAX (256 * 1024)	/* escaped at most 2x: fits one protocol line */

int fleet_cmd_run(struct fab_ctx *ctx, const char *hosts_path, const struct fleet_opts *fo,
		  const struct fleet_cmd *c)
{
	struct fab_hosts hosts;
	json_t *params = NULL, *run = NULL, *doc = NULL;
	size_t failed = 0, unhealthy = 0;
	int rc;

	hosts_init(&hosts);
	/* Bad input first, before any node is contacted. */
	if ((c->profile && apply_fleet_params(c->profile, &params, &ctx->err) < 0) ||
	    (c->dry_run >= 0 && json_object_set_new(params, "dry_run",
						    json_boolean(c->dry_run)) < 0) ||
	    fleet_hosts_load(&hosts, hosts_path, &ctx->err) < 0 ||
	    fleet_run_op(&hosts, fo, c->op, params, c->schema, c->timeout_ms, &run, &failed,
			 &ctx->err) < 0) {
		rc = ctx->err.code ? fab_err_exit(&ctx->err) : FAB_EXIT_SYSTEM;
		goto out;
	}
	doc = c->merge ? c->merge(run, c, &failed, &unhealthy) : json_incref(run);
	if (!doc) {
		fab_err_set(&ctx->err, -ENOMEM, "%s: out of memory", c->op);
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rc = failed ? FAB_EXIT_SYSTEM : unhealthy ? FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
	if (c->render(&ctx->render, doc) < 0) {
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

int apply_fleet_params(const char *path, json_t **params, struct fab_err *err)
{
	unsigned char *text = NULL;
	struct profile *p = NULL;
	json_t *t = NULL;
	size_t len = 0;
	int rc;

	rc = profile_read(path, &text, &len, err);
	if (rc < 0)
		return rc;
	rc = profile_parse(path, text, len, &p, err);
	if (rc < 0)
		goto out;
	if (len > FLEET_PROFILE_MAX) {
		rc = fab_err_input(err, -EFBIG, "%s: larger than %d bytes, too large to send to the nodes",
				   path, FLEET_PROFILE_MAX);
		goto out;
	}
	t = json_stringn((const char *)text, len);
	if (!t) {
		rc = fab_err_input(err, -EINVAL, "%s: not valid UTF-8 text", path);
		goto out;
	}
	*params = json_pack("{s:o, s:s}", "profile", t, "profile_name", path);
	t = NULL;
	rc = *params ? 0 : fab_err_set(err, -ENOMEM, "apply: out of memory");
out:
	json_decref(t);
	profile_free(p);
	free(text);
	return rc;
}
