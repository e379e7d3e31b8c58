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
#include "cmd/fleet_cmd.h"
#include "fleet/fleet.h"
#include "model/profile.h"
#include "node/node.h"
#include "util/log.h"

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
	struct changeset cs;
	int rc = cmd_opts_parse(ctx, &cmd_verify_opts, argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (optind != argc - 1)
		return cmd_usage_error(ctx, "verify", "expected one PROFILE");
	if (a.hosts)
		return fleet_cmd_run(ctx, "verify", a.hosts, &a.fo, argv[optind], false);

	host_state_init(&hs);
	node_config_init(&ns, &hs);
	changeset_init(&cs);
	if (profile_load(argv[optind], &p, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (node_verify(ctx->sys, p, &hs, &ns, &cs, &ctx->err) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rc = cs.n_drift ? FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
	if (ctx->render.ops->verify(&ctx->render, argv[optind], hs.hostname, &cs) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	}
out:
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
	return rc;
}
