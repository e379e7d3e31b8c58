// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl accept --hosts FILE [--profile P] [--plan PLAN] [--topology SRC]
 *                  [--policy POLICY] [--keep-going] [--counter-window S] [--no-workers]
 *
 * Pre-expansion verification (docs/accept.md): the nodes labelled `new` in
 * the hosts file against the running fabric, in stages, fail-closed, one
 * verdict.  A front end: the options into a request, accept's run
 * (sweep/accept_run.h: reach, configuration, cabling, counters, traffic
 * through the sweep engine, counters again), the report rendered.
 *
 * Exit: 0 ACCEPT, 1 REJECT, 2 bad input, 3 system error.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "cmd/fleet_cmd.h"
#include "cmd/sweep_cmd.h"
#include "render/accept.h"
#include "sweep/accept_run.h"
#include "util/log.h"

#define R struct accept_req

/* accept's own rows: its ranges are not sweep's. */
static const struct cmd_opt accept_rows[] = {
	FLEET_CMD_HOSTS(R, hosts, CMD_SYN_REQ),
	CMD_JSON,
	FLEET_CMD_LAUNCHER(R, fo.launcher, 0),
	CMD_GROUP(R, fo, fleet_cmd_more_opts),
	CMD_STRING("profile", 0, "PROFILE", R, profile, 0),
	CMD_STRING("plan", 0, "PLAN", R, plan, 0),
	CMD_STRING("topology", 0, "lldp|ib|PLAN", R, topology, 0),
	CMD_STRING("policy", 0, "POLICY", R, policy, 0),
	CMD_FLAG("keep-going", 0, R, keep_going, 0),
	CMD_WHOLE("coverage", 0, "K", R, coverage_k, 1, 64, 0),
	CMD_NUMBER("duration", 0, "SECONDS", R, duration_s, 0.1, 3600, 0),
	CMD_WHOLE("lat-iters", 0, "N", R, lat_iters, 1, 10000000, 0),
	CMD_STRING("transport", 0, "tcp|verbs", R, transport, 0),
	CMD_STRING("lldp-socket", 0, "PATH", R, lldp_socket, 0),
	CMD_NUMBER("counter-window", 0, "SECONDS", R, counter_window_s, 0, 86400, 0),
	CMD_FLAG("no-workers", 0, R, no_workers, 0),
	{ 0 },
};

#undef R

const struct cmd_opts cmd_accept_opts = { "accept", accept_rows };

static int accept_parse(struct fab_ctx *ctx, int argc, char **argv, struct accept_req *o)
{
	int rc = cmd_opts_parse(ctx, &cmd_accept_opts, argc, argv, o);

	if (rc >= 0)
		return rc;
	if (optind < argc)
		return cmd_usage_error(ctx, "accept", "unexpected argument '%s'", argv[optind]);
	if (!o->hosts)
		return cmd_usage_error(ctx, "accept", "--hosts FILE is required");
	if (o->no_workers && (!o->topology || strcmp(o->topology, "ib") != 0))
		return cmd_usage_error(ctx, "accept", "--no-workers goes with --topology ib "
				       "(LLDP and traffic need the workers)");
	return -1;	/* go on */
}

/*
 * The traffic stage's sweep is refused as `fabricctl sweep` would refuse
 * it: a transport not built in is its usage error (exit 2), said here.
 */
static int accept_sweep_check(void *ctx, const struct sweep_req *req)
{
	return sweep_transport_check(ctx, req->transport);
}

static int accept_render(struct fab_ctx *ctx, const struct accept_req *o,
			 const struct accept_outcome *out)
{
	struct accept_meta m = { .hosts = o->hosts, .profile = o->profile, .plan = o->plan,
				 .topology = out->topology, .policy = o->policy,
				 .pct_expected = out->pct_expected, .keep_going = o->keep_going };

	return ctx->render.ops->accept ? ctx->render.ops->accept(&ctx->render, &out->rep, &m)
				       : -EOPNOTSUPP;
}

int cmd_accept(struct fab_ctx *ctx, int argc, char **argv)
{
	struct accept_req o = { .fo = FLEET_OPTS_DEFAULT };
	struct accept_outcome out;
	int rc;

	rc = accept_parse(ctx, argc, argv, &o);
	if (rc >= 0)
		return rc;
	o.sys = ctx->sys;
	o.fo.verbose = fab_log_level;
	o.progress = isatty(STDERR_FILENO);
	o.fo.progress = o.progress;	/* "N of M nodes answered" in the stages that ask the fleet */
	o.sweep_check = accept_sweep_check;
	o.hook_ctx = ctx;
	if (accept_run(&o, &out, &ctx->err) < 0)
		return fab_err_exit(&ctx->err);
	rc = accept_render(ctx, &o, &out);
	if (rc < 0) {
		fab_err_set(&ctx->err, rc, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	} else {
		rc = out.rep.accept ? FAB_EXIT_OK : FAB_EXIT_UNHEALTHY;
	}
	accept_outcome_fini(&out);
	return rc;
}
