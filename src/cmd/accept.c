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
#include "cmd/sweep_cmd.h"
#include "render/accept.h"
#include "sweep/accept_run.h"
#include "util/log.h"

static int accept_parse(struct fab_ctx *ctx, int argc, char **argv, struct accept_req *o)
{
	enum { OPT_PROFILE = 256, OPT_PLAN, OPT_TOPOLOGY, OPT_POLICY, OPT_KEEP_GOING,
	       OPT_COVERAGE, OPT_DURATION, OPT_LAT_ITERS, OPT_LLDP_SOCKET, OPT_TRANSPORT,
	       OPT_NO_WORKERS, OPT_COUNTER_WINDOW };
	static const struct option opts[] = {
		FLEET_LONG_OPTIONS,
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "plan", required_argument, NULL, OPT_PLAN },
		{ "topology", required_argument, NULL, OPT_TOPOLOGY },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "keep-going", no_argument, NULL, OPT_KEEP_GOING },
		{ "coverage", required_argument, NULL, OPT_COVERAGE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "lat-iters", required_argument, NULL, OPT_LAT_ITERS },
		{ "lldp-socket", required_argument, NULL, OPT_LLDP_SOCKET },
		{ "transport", required_argument, NULL, OPT_TRANSPORT },
		{ "no-workers", no_argument, NULL, OPT_NO_WORKERS },
		{ "counter-window", required_argument, NULL, OPT_COUNTER_WINDOW },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (fleet_opt_take(&o->fo, &o->hosts, opt, optarg))
			continue;
		switch (opt) {
		case OPT_PROFILE:
			o->profile = optarg;
			break;
		case OPT_PLAN:
			o->plan = optarg;
			break;
		case OPT_TOPOLOGY:
			o->topology = optarg;
			break;
		case OPT_POLICY:
			o->policy = optarg;
			break;
		case OPT_KEEP_GOING:
			o->keep_going = true;
			break;
		case OPT_COVERAGE:
			if (cmd_opt_whole(ctx, "accept", "coverage", optarg, 1, 64, &o->coverage_k) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_DURATION:
			if (cmd_opt_num(ctx, "accept", "duration", optarg, 0.1, 3600, &o->duration_s) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_LAT_ITERS:
			if (cmd_opt_whole(ctx, "accept", "lat-iters", optarg, 1, 10000000, &o->lat_iters) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_LLDP_SOCKET:
			o->lldp_socket = optarg;
			break;
		case OPT_TRANSPORT:
			o->transport = optarg;
			break;
		case OPT_NO_WORKERS:
			o->no_workers = true;
			break;
		case OPT_COUNTER_WINDOW:
			if (cmd_opt_num(ctx, "accept", "counter-window", optarg, 0, 86400,
					&o->counter_window_s) < 0)
				return FAB_EXIT_USAGE;
			break;
		case 'j':
			render_select(&ctx->render, "json");
			break;
		default:
			return cmd_opt_other(ctx, "accept", opt);
		}
	}
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
