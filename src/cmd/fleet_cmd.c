// SPDX-License-Identifier: GPL-2.0-or-later
/* status, verify, apply --hosts: run, merge, render, one exit rule; see fleet_cmd.h. */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/fleet_cmd.h"
#include "fleet/fleet_lldp.h"
#include "io/load.h"
#include "model/accept.h"
#include "model/profile.h"
#include "util/array.h"
#include "util/log.h"

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
	if (profile_load_params(profile, params, err) < 0)
		return -EINVAL;
	if (strcmp(c->op, "apply") == 0 &&
	    json_object_set_new(*params, "dry_run", json_boolean(dry_run)) < 0)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", c->op);
	return 0;
}

/* ---- verify --hosts: dual-homing of the profile's bonds (fleet_cmd.h) ---- */

static bool node_drifted(const json_t *drift, const char *node)
{
	const json_t *d;
	size_t i;

	json_array_foreach(drift, i, d)
		if (json_is_string(json_object_get(d, "node")) &&
		    strcmp(json_string_value(json_object_get(d, "node")), node) == 0)
			return true;
	return false;
}

/* One drift entry when @host's bond @b is not dual-homed in @t. */
static int homing_drift(const struct topo *t, const struct fab_bond *b, const char *host,
			json_t *doc, size_t *n_unhealthy)
{
	json_t *drift = json_object_get(doc, "drift"), *sum = json_object_get(doc, "summary"), *e;
	const char *members[16], *sw;
	char legs[256], found[400];
	size_t n = 0, linked;
	enum accept_homing h;

	for (size_t m = 0; m < b->n_members && n < 16; m++)
		members[n++] = b->members[m].name;
	h = accept_homing(t, host, members, n, legs, sizeof(legs), &sw, &linked);
	if (h != ACCEPT_HOMING_ONE_LEG && h != ACCEPT_HOMING_ONE_SWITCH)
		return 0;
	if (h == ACCEPT_HOMING_ONE_SWITCH)
		snprintf(found, sizeof(found), "one switch, %s (%s)", sw, legs);
	else
		snprintf(found, sizeof(found), "one linked member (%s)", legs);
	if (!node_drifted(drift, host)) {
		(*n_unhealthy)++;
		json_object_set_new(sum, "drifted",
				    json_integer(json_integer_value(json_object_get(sum, "drifted")) + 1));
		json_object_set_new(sum, "ok",
				    json_integer(json_integer_value(json_object_get(sum, "ok")) - 1));
	}
	e = json_pack("{s:s, s:s, s:s, s:s, s:s}", "node", host, "interface", b->name,
		      "field", "dual-homing", "wanted", "members on two switches", "found", found);
	if (!e || json_array_append_new(drift, e) < 0)
		return -ENOMEM;
	json_object_set_new(sum, "n_drift", json_integer((json_int_t)json_array_size(drift)));
	json_object_set_new(doc, "ok", json_false());
	return 0;
}

/*
 * verify --hosts, after the merge: for every bond of @profile with two or
 * more members, each end point of @hosts whose members' LLDP neighbours
 * (read through a fleet started on @hosts) are on fewer than two switches
 * gets a drift entry {node, interface: the bond, field "dual-homing",
 * wanted, found: the legs} in @doc, counted in *@n_unhealthy when the node
 * had no drift yet.  LLDP that cannot be read is a warning: dual-homing is
 * then not judged.  0 or -ENOMEM.
 */
static int verify_fleet_homing(struct fab_ctx *ctx, const struct fab_hosts *hosts,
			       const struct fleet_opts *fo, const char *profile, json_t *doc,
			       size_t *n_unhealthy)
{
	struct profile *p = NULL;
	struct fleet f = { .n = 0 };
	struct topo *t = NULL;
	bool bonds = false;
	int rc = 0;

	if (profile_load(profile, &p, &ctx->err) < 0) {	/* validated before: not expected */
		fab_err_init(&ctx->err);
		return 0;
	}
	for (size_t b = 0; b < p->n_bonds; b++)
		bonds |= p->bonds[b].want.n_members >= 2;
	if (!bonds)
		goto out;
	t = topo_new();
	if (!t) {
		rc = -ENOMEM;
		goto out;
	}
	if (fleet_start(&f, hosts, fo, &ctx->err) < 0 ||
	    fleet_lldp_collect(&f, hosts, NULL, fo->hello_timeout_ms, t, &ctx->err) < 0) {
		fab_warn("verify: dual-homing of the profile's bonds not judged: %s", ctx->err.msg);
		fab_err_init(&ctx->err);
		goto out;
	}
	topo_sort(t);
	for (size_t i = 0; i < hosts->n && rc == 0; i++) {
		if (!hosts_is_endpoint(&hosts->hosts[i]))
			continue;
		for (size_t b = 0; b < p->n_bonds && rc == 0; b++)
			rc = homing_drift(t, &p->bonds[b].want, hosts->hosts[i].name, doc, n_unhealthy);
	}
out:
	if (f.w)
		fleet_fini(&f);
	topo_free(t);
	profile_free(p);
	return rc < 0 ? fab_err_set(&ctx->err, rc, "verify: out of memory") : 0;
}

/* ---- the run ---- */

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

int fleet_cmd_parse(struct fab_ctx *ctx, const char *cmd, int argc, char **argv,
		    struct fleet_opts *fo, const char **hosts)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		FLEET_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (fleet_opt_take(fo, hosts, opt, optarg))
			continue;
		if (opt != 'j')
			return cmd_opt_other(ctx, cmd, opt);
		render_select(&ctx->render, "json");
	}
	return -1;
}
