// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl verify [-j] PROFILE: every field of the profile checked
 * against the live node; drift listed as object, field, wanted, found.
 * Exit 0 when there is none, 1 when there is any, 2 bad profile, 3 when
 * the node cannot be read.  Changes nothing.
 *
 * --hosts FILE: the profile is validated here, then its text goes to
 * every node's worker (op "verify", the same code path below on each
 * node); the answers are merged into one table or one
 * "fabricctl.fleet-verify/1" document.  Exit 1 when any node drifts, 3
 * when any node could not be verified (worker failed, unreachable, or an
 * answer that is not a verify document): an incomplete answer is not a
 * clean bill of health, and it wins over drift.  A profile with bonds is
 * also judged for dual-homing (verify_fleet_homing, fleet_cmd.h): the
 * LLDP neighbours of each bond's members must be on two switches.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "io/load.h"
#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "cmd/discover_lldp.h"
#include "cmd/fleet_cmd.h"
#include "fleet/fleet.h"
#include "model/accept.h"
#include "model/profile.h"
#include "node/node.h"
#include "util/log.h"

/* One drift entry when @host's bond @b is not dual-homed in @t. */
static int homing_drift(const struct topo *t, const struct fab_bond *b, const char *host,
			struct fleet_verify *v)
{
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
	if (!fleet_verify_drifted(v, host))
		v->n_drifted++;
	return fleet_verify_drift_add(v, host, b->name, "dual-homing", "members on two switches",
				      found);
}

int verify_fleet_homing(struct fab_ctx *ctx, const struct fab_hosts *hosts,
			const struct fleet_opts *fo, const char *profile,
			struct fleet_verify *v)
{
	struct discover_lldp_fleet fl = { .timeout_ms = fo->hello_timeout_ms };
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
	    discover_lldp_fleet_collect(ctx, &f, hosts, &fl, t) < 0) {
		fab_warn("verify: dual-homing of the profile's bonds not judged: %s", ctx->err.msg);
		fab_err_init(&ctx->err);
		goto out;
	}
	topo_sort(t);
	for (size_t i = 0; i < hosts->n && rc == 0; i++) {
		if (!hosts_is_endpoint(&hosts->hosts[i]))
			continue;
		for (size_t b = 0; b < p->n_bonds && rc == 0; b++)
			rc = homing_drift(t, &p->bonds[b].want, hosts->hosts[i].name, v);
	}
out:
	if (f.w)
		fleet_fini(&f);
	topo_free(t);
	profile_free(p);
	return rc < 0 ? fab_err_set(&ctx->err, rc, "verify: out of memory") : 0;
}

static const struct cmd_opt verify_rows[] = {
	CMD_JSON,
	FLEET_CMD_HOSTS(struct fleet_cmd_args, hosts, 0),
	FLEET_CMD_LAUNCHER(struct fleet_cmd_args, fo.launcher, CMD_SYN_IN),
	CMD_GROUP(struct fleet_cmd_args, fo, fleet_cmd_more_opts),
	CMD_TEXT("PROFILE", 0),
	{ 0 },
};

const struct cmd_opts cmd_verify_opts = { "verify", verify_rows };

int cmd_verify(struct fab_ctx *ctx, int argc, char **argv)
{
	struct fleet_cmd_args a = FLEET_CMD_ARGS_DEFAULT;
	struct profile *p = NULL;
	struct host_state hs;
	struct node_config ns;
	struct plan plan;
	int rc = cmd_opts_parse(ctx, &cmd_verify_opts, argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (optind != argc - 1)
		return cmd_usage_error(ctx, "verify", "expected one PROFILE");
	if (a.hosts)
		return fleet_cmd_run(ctx, "verify", a.hosts, &a.fo, argv[optind], false);

	host_state_init(&hs);
	node_config_init(&ns, &hs);
	plan_init(&plan);
	if (profile_load(argv[optind], &p, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (node_verify(ctx->sys, p, &hs, &ns, &plan, &ctx->err) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rc = plan.n_drift ? FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
	if (ctx->render.ops->verify(&ctx->render, argv[optind], hs.hostname, &plan) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	}
out:
	plan_fini(&plan);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
	return rc;
}
