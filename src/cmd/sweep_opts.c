// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The options of sweep and diagnose, two tables of the same groups
 * (cmd_opt.h, sweep_cmd.h): each command parses by its own, then makes its
 * own checks (cmd/sweep.c, cmd/diagnose.c), then the shared ones here.
 * Both know every option, so that each can say which of them is the
 * other's.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "cmd/cmd_opt.h"
#include "cmd/fleet_cmd.h"
#include "cmd/sweep_cmd.h"
#include "io/load.h"
#include "sweep/sweep_signal.h"
#include "transport/verbs_gid.h"

/* --serial, --pairs FILE, --new: each counted, two of them refused (sweep_opts_check()). */
static int opt_serial(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	struct sweep_args *a = args;

	a->req.mode = SWEEP_MODE_SERIAL;
	a->modes++;
	return 0;
}

static int opt_pairs(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	struct sweep_args *a = args;

	a->req.pairs_file = arg;
	a->req.mode = SWEEP_MODE_PAIRS;
	a->modes++;
	return 0;
}

static int opt_new(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	struct sweep_args *a = args;

	a->req.mode = SWEEP_MODE_BIPARTITE;
	a->modes++;
	return 0;
}

static int opt_topology(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	struct sweep_args *a = args;

	if (!*arg) {
		cmd_usage_error(ctx, cmd, "--topology: want lldp, ib or a plan file");
		return -EINVAL;
	}
	a->req.topology = arg;
	return 0;
}

/* --progress and --no-progress: the last one given wins. */
static int opt_progress(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	((struct sweep_args *)args)->req.progress = 1;
	return 0;
}

static int opt_no_progress(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	((struct sweep_args *)args)->req.progress = 0;
	return 0;
}

/* A group of rows over struct sweep_args itself, its .syn OR-ed into theirs (cmd_opt.h). */
#define SWEEP_GROUP(rows, syn) { CMD_OPT_GROUP, NULL, 0, NULL, 0, 0, 0, syn, NULL, rows }

#define A struct sweep_args
#define H CMD_SYN_HIDE

/* Which pairs: --serial | --pairs FILE | --new, --coverage K, --all-pairs. */
static const struct cmd_opt mode_rows[] = {
	CMD_CALL("serial", 0, NULL, opt_serial, 0),
	CMD_CALL("pairs", 0, "FILE", opt_pairs, CMD_SYN_OR),
	CMD_CALL("new", 0, NULL, opt_new, CMD_SYN_OR),
	CMD_WHOLE("coverage", 0, "K", A, req.coverage_k, 1, SWEEP_COVERAGE_MAX_K, H),
	CMD_FLAG("all-pairs", 0, A, req.all_pairs, H),
	CMD_FLAG("cross-rail", 0, A, req.cross_rail, H),
	CMD_WHOLE("per-host", 0, "N", A, req.per_host, 1, 1024, H),
	{ 0 },
};

/*
 * What is measured and how it is judged.  --lat-max-us, --lat-floor-us
 * and --min-pct are taken as given (-1: not given) and put into the
 * request by sweep_opts_parse().
 */
static const struct cmd_opt num_rows[] = {
	CMD_NUMBER("duration", 0, "SECONDS", A, req.duration_s, 0, 3600, 0),
	CMD_WHOLE("lat-iters", 0, "N", A, req.lat_iters, 0, 10000000, 0),
	CMD_NUMBER("lat-time", 0, "SECONDS", A, req.lat_time_s, 0, 3600, H),
	CMD_WHOLE("msg-size", 0, "BYTES", A, req.msg_bytes, 1, 65536, 0),
	CMD_WHOLE("streams", 0, "N", A, req.streams, 1, 64, 0),
	CMD_WHOLE("interval-ms", 0, "MS", A, req.interval_ms, 10, 60000, H),
	CMD_NUMBER("slow-pct", 0, "PCT", A, req.cfg.slow_pct, 0, 100, 0),
	CMD_NUMBER("bw-min-mbps", 0, "N", A, req.cfg.bw_min_mbps, 0, 1e9, 0),
	CMD_NUMBER("mad-k", 0, "K", A, req.cfg.mad_k, 0, 100, H),
	CMD_NUMBER("lat-factor", 0, "F", A, req.cfg.lat_factor, 1, 1000, H),
	CMD_NUMBER("lat-max-us", 0, "US", A, lat_max_us, 0, 1e9, H),
	CMD_NUMBER("lat-floor-us", 0, "US", A, lat_floor_us, 0, 1e9, H),
	CMD_NUMBER("min-pct", 0, "PCT", A, min_pct, 0, 100, H),
	CMD_NUMBER("timeout", 0, "SECONDS", A, req.timeout_s, 0.1, 3600, H),
	CMD_WHOLE("verbs-bw-bytes", 0, "BYTES", A, req.verbs.bw_bytes, 1, VERBS_EP_MAX_REGION, H),
	CMD_WHOLE("verbs-tx-depth", 0, "N", A, req.verbs.tx_depth, 1, 8192, H),
	CMD_WHOLE("verbs-cq-mod", 0, "N", A, req.verbs.cq_mod, 1, 8192, H),
	CMD_WHOLE("verbs-spin-us", 0, "US", A, req.verbs.spin_us, 0, 60000000, H),
	{ 0 },
};

/* sweep's files beside stdout, and --dry-run. */
static const struct cmd_opt file_rows[] = {
	CMD_STRING("prom", 0, "FILE", A, prom, 0),
	CMD_STRING("csv", 0, "FILE", A, csv, 0),
	CMD_STRING("html", 0, "FILE", A, html, 0),
	CMD_STRING("baseline", 0, "OLD.json", A, req.baseline, 0),
	CMD_NUMBER("regress-pct", 0, "P", A, req.regress_pct, 0, 100, CMD_SYN_IN),
	CMD_FLAG("dry-run", 0, A, req.dry_run, H),
	{ 0 },
};

/* What no synopsis shows: the fleet's, the fabric's, how it runs. */
static const struct cmd_opt more_rows[] = {
	{ CMD_OPT_GROUP, NULL, 0, NULL, offsetof(A, req.fo), 0, 0, 0, NULL, fleet_cmd_more_opts },
	CMD_STRING("lldp-socket", 0, "PATH", A, req.lldp_socket, H),
	CMD_STRING("ib-ca", 0, "CA", A, req.ib.ca, H),
	CMD_WHOLE("ib-port", 0, "PORT", A, ib_port, 1, 254, H),
	CMD_FLAG("no-retest", 0, A, req.retest, H | CMD_OPT_OFF),
	CMD_FLAG("steer", 0, A, req.steer, H),
	CMD_CALL("progress", 0, NULL, opt_progress, H),
	CMD_CALL("no-progress", 0, NULL, opt_no_progress, H),
	{ 0 },
};

static const struct cmd_opt sweep_rows[] = {
	FLEET_CMD_HOSTS(A, req.hosts, CMD_SYN_REQ),
	CMD_JSON,
	FLEET_CMD_LAUNCHER(A, req.fo.launcher, 0),
	CMD_STRING("transport", 0, "tcp|verbs", A, req.transport, 0),
	SWEEP_GROUP(mode_rows, 0),
	SWEEP_GROUP(num_rows, 0),
	SWEEP_GROUP(file_rows, 0),
	CMD_TEXT("[OPTION...]", 0),
	SWEEP_GROUP(more_rows, 0),
	CMD_FLAG("no-legs", 0, A, req.legs, H | CMD_OPT_OFF),
	CMD_CALL("topology", 0, "lldp|ib|PLAN", opt_topology, H),
	CMD_STRING("from", 0, "SWEEP.json", A, req.from, H),
	CMD_STRING("policy", 0, "FILE", A, policy, H),
	{ 0 },
};
const struct cmd_opts cmd_sweep_opts = { "sweep", sweep_rows };

/* Two forms: --from SWEEP.json, or --hosts ... A B; sweep's own rows hidden (cmd/diagnose.c). */
static const struct cmd_opt diagnose_rows[] = {
	CMD_STRING("from", 0, "SWEEP.json", A, req.from, CMD_SYN_REQ | CMD_SYN_FORM(1)),
	CMD_TEXT("--hosts FILE --topology lldp|ib|PLAN", CMD_SYN_FORM(2)),
	CMD_CALL("topology", 0, "lldp|ib|PLAN", opt_topology, CMD_SYN_FORM(1)),
	FLEET_CMD_HOSTS(A, req.hosts, CMD_SYN_FORM(1)),
	FLEET_CMD_LAUNCHER(A, req.fo.launcher, CMD_SYN_FORM(2)),
	CMD_STRING("policy", 0, "FILE", A, policy, 0),
	CMD_JSON,
	CMD_TEXT("A B", CMD_SYN_FORM(2)),
	SWEEP_GROUP(more_rows, 0),
	CMD_STRING("transport", 0, "tcp|verbs", A, req.transport, H),
	SWEEP_GROUP(mode_rows, H),
	SWEEP_GROUP(num_rows, H),
	SWEEP_GROUP(file_rows, H),
	CMD_FLAG("no-legs", 0, A, req.legs, H | CMD_OPT_OFF),
	{ 0 },
};
const struct cmd_opts cmd_diagnose_opts = { "diagnose", diagnose_rows };

#undef A
#undef H

void sweep_args_default(struct sweep_args *a, const char *cmd)
{
	*a = (struct sweep_args){ .cmd = cmd, .lat_max_us = -1, .lat_floor_us = -1, .min_pct = -1 };
	sweep_req_default(&a->req);
	/* diagnose A B: A-B's legs only (sweep_req.target); accept sets its own */
	a->req.legs = strcmp(cmd, "sweep") == 0 || strcmp(cmd, "diagnose") == 0;
}

/* What the rows hold as given into the request. */
static void opts_finish(struct sweep_args *a)
{
	struct sweep_req *r = &a->req;

	if (a->lat_max_us >= 0)
		r->cfg.lat_max_ns = a->lat_max_us * 1000;
	if (a->lat_floor_us >= 0)
		r->cfg.lat_floor_ns = a->lat_floor_us * 1000;
	if (a->min_pct >= 0) {
		r->cfg.min_pct = a->min_pct;
		r->cfg.min_pct_fleet = true;	/* also the slowest interval against the fleet */
	}
	r->ib.ca_port = (int)a->ib_port;
}

int sweep_opts_parse(struct fab_ctx *ctx, const struct cmd_opts *t, int argc, char **argv,
		     struct sweep_args *a)
{
	int rc = cmd_opts_parse(ctx, t, argc, argv, a);

	if (rc < 0)
		opts_finish(a);
	return rc;
}

int sweep_opts_check(struct fab_ctx *ctx, struct sweep_args *a)
{
	struct sweep_req *r = &a->req;

	if (a->modes > 1)
		return cmd_usage_error(ctx, a->cmd, "--serial, --pairs and --new exclude each other");
	if (r->coverage_k && (r->all_pairs || r->mode == SWEEP_MODE_SERIAL ||
			      r->mode == SWEEP_MODE_PAIRS))
		return cmd_usage_error(ctx, a->cmd, "--coverage chooses the pairs: not with --all-pairs, "
				       "--serial or --pairs");
	if (r->coverage_k && !r->topology)
		return cmd_usage_error(ctx, a->cmd, "--coverage needs --topology (pairs are chosen by the "
				       "links they cross)");
	if (r->coverage_k)
		r->mode = r->mode == SWEEP_MODE_BIPARTITE ? SWEEP_MODE_COVERAGE_NEW : SWEEP_MODE_COVERAGE;
	if ((r->lldp_socket || r->ib.ca || r->ib.ca_port) && !r->topology)
		return cmd_usage_error(ctx, a->cmd, "--lldp-socket, --ib-ca and --ib-port go with --topology");
	if (r->duration_s == 0 && r->lat_iters == 0)
		return cmd_usage_error(ctx, a->cmd, "nothing to measure: --duration 0 and --lat-iters 0");
	return -1;
}

int sweep_transport_check(struct fab_ctx *ctx, const char *transport)
{
	if (transport_find(transport))
		return -1;
	return cmd_usage_error(ctx, "sweep", "--transport %s: not built in (have: tcp%s)", transport,
			       transport_find("verbs") ? ", verbs" : "");
}

int sweep_args_run(struct fab_ctx *ctx, struct sweep_args *a, struct sweep_outcome *out)
{
	struct sweep_req *r = &a->req;
	int rc;

	if (counter_policy_load(a->policy, &a->pol, &ctx->err) < 0)
		return fab_err_exit(&ctx->err);
	if (!r->from && !r->measure && (rc = sweep_transport_check(ctx, r->transport)) >= 0)
		return rc;
	r->sys = ctx->sys;
	r->policy = &a->pol;
	r->checks = (struct sweep_checks){ .before_workers = sweep_out_check,
					   .scheduled = sweep_out_check_pairs, .ctx = a };
	rc = sweep_run(r, out, &ctx->err);
	if (rc == -EINTR && sweep_signal_exit())
		return sweep_signal_exit();	/* stopped before any round: 128 + the signal */
	if (rc < 0)
		return fab_err_exit(&ctx->err);
	return -1;
}
