// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The options of sweep and diagnose, one table (sweep_cmd.h): each
 * command runs the loop, then its own checks (cmd/sweep.c, cmd/diagnose.c),
 * then the shared ones here.  Both know every option, so that each can
 * say which of them is the other's.
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <string.h>

#include "cmd/sweep_cmd.h"
#include "io/load.h"
#include "sweep/sweep_signal.h"
#include "transport/verbs_gid.h"

enum {
	OPT_TRANSPORT = 256,
	OPT_SERIAL, OPT_PAIRS, OPT_NEW, OPT_COVERAGE, OPT_ALL_PAIRS, OPT_PROM, OPT_NO_RETEST,
	OPT_PROGRESS, OPT_NO_PROGRESS,
	OPT_TOPOLOGY, OPT_LLDP_SOCKET, OPT_DRY_RUN, OPT_IB_CA, OPT_IB_PORT, OPT_FROM, OPT_POLICY,
	OPT_CSV, OPT_BASELINE, OPT_HTML,
	OPT_NUM,		/* OPT_NUM + i: num_opts[i] */
};

/*
 * The numeric options: name, range, whether a whole number, where the
 * value goes in struct sweep_args (a double, or an unsigned int when
 * whole), and a scale applied after the range check.
 */
struct num_opt {
	const char *name;
	double min, max;
	bool whole;
	size_t off;
	double scale;
};

#define NUM_AT(field) offsetof(struct sweep_args, req.field)
#define NUM_D(name, min, max, field) { name, min, max, false, NUM_AT(field), 1 }
#define NUM_U(name, min, max, field) { name, min, max, true, NUM_AT(field), 1 }

static const struct num_opt num_opts[] = {
	NUM_D("duration", 0, 3600, duration_s),
	NUM_U("lat-iters", 0, 10000000, lat_iters),
	NUM_D("lat-time", 0, 3600, lat_time_s),
	NUM_U("msg-size", 1, 65536, msg_bytes),
	NUM_U("streams", 1, 64, streams),
	NUM_U("interval-ms", 10, 60000, interval_ms),
	NUM_D("slow-pct", 0, 100, cfg.slow_pct),
	NUM_D("bw-min-mbps", 0, 1e9, cfg.bw_min_mbps),
	NUM_D("mad-k", 0, 100, cfg.mad_k),
	NUM_D("lat-factor", 1, 1000, cfg.lat_factor),
	{ "lat-max-us", 0, 1e9, false, NUM_AT(cfg.lat_max_ns), 1000 },
	{ "lat-floor-us", 0, 1e9, false, NUM_AT(cfg.lat_floor_ns), 1000 },
	NUM_D("min-pct", 0, 100, cfg.min_pct),
	NUM_D("regress-pct", 0, 100, regress_pct),
	NUM_D("timeout", 0.1, 3600, timeout_s),
	NUM_U("verbs-bw-bytes", 1, VERBS_EP_MAX_REGION, verbs.bw_bytes),
	NUM_U("verbs-tx-depth", 1, 8192, verbs.tx_depth),
	NUM_U("verbs-cq-mod", 1, 8192, verbs.cq_mod),
	NUM_U("verbs-spin-us", 0, 60000000, verbs.spin_us),
};

#define N_NUM_OPTS (sizeof(num_opts) / sizeof(num_opts[0]))

static const struct option fixed_opts[] = {
	FLEET_LONG_OPTIONS,
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "serial", no_argument, NULL, OPT_SERIAL },
	{ "pairs", required_argument, NULL, OPT_PAIRS },
	{ "new", no_argument, NULL, OPT_NEW },
	{ "coverage", required_argument, NULL, OPT_COVERAGE },
	{ "all-pairs", no_argument, NULL, OPT_ALL_PAIRS },
	{ "prom", required_argument, NULL, OPT_PROM },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "no-retest", no_argument, NULL, OPT_NO_RETEST },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	{ "topology", required_argument, NULL, OPT_TOPOLOGY },
	{ "lldp-socket", required_argument, NULL, OPT_LLDP_SOCKET },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "ib-ca", required_argument, NULL, OPT_IB_CA },
	{ "ib-port", required_argument, NULL, OPT_IB_PORT },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
};

#define N_FIXED_OPTS (sizeof(fixed_opts) / sizeof(fixed_opts[0]))

void sweep_args_default(struct sweep_args *a, const char *cmd)
{
	*a = (struct sweep_args){ .cmd = cmd };
	sweep_req_default(&a->req);
}

static int num_opt_take(struct fab_ctx *ctx, const struct num_opt *n, const char *s,
			struct sweep_args *a)
{
	char *field = (char *)a + n->off;
	unsigned int u;
	double v;

	if (n->whole) {
		if (cmd_opt_whole(ctx, a->cmd, n->name, s, (unsigned int)n->min, (unsigned int)n->max, &u) < 0)
			return -EINVAL;
		memcpy(field, &u, sizeof(u));
		return 0;
	}
	if (cmd_opt_num(ctx, a->cmd, n->name, s, n->min, n->max, &v) < 0)
		return -EINVAL;
	v *= n->scale;
	memcpy(field, &v, sizeof(v));
	return 0;
}

/* Which pairs: --serial, --pairs FILE, --new, --coverage K, --all-pairs. */
static int mode_take(struct fab_ctx *ctx, int opt, const char *arg, struct sweep_args *a)
{
	struct sweep_req *r = &a->req;

	switch (opt) {
	case OPT_SERIAL:
		r->mode = SWEEP_MODE_SERIAL;
		a->modes++;
		return 0;
	case OPT_PAIRS:
		r->pairs_file = arg;
		r->mode = SWEEP_MODE_PAIRS;
		a->modes++;
		return 0;
	case OPT_NEW:
		r->mode = SWEEP_MODE_BIPARTITE;
		a->modes++;
		return 0;
	case OPT_COVERAGE:
		return cmd_opt_whole(ctx, a->cmd, "coverage", arg, 1, SWEEP_COVERAGE_MAX_K,
				     &r->coverage_k) < 0 ? -EINVAL : 0;
	case OPT_ALL_PAIRS:
		r->all_pairs = true;
		return 0;
	}
	return 1;
}

/* The files beside the sweep: --prom, --csv, --html, --baseline, --from, --policy. */
static int file_take(int opt, const char *arg, struct sweep_args *a)
{
	switch (opt) {
	case OPT_PROM:
		a->prom = arg;
		return 0;
	case OPT_CSV:
		a->csv = arg;
		return 0;
	case OPT_BASELINE:
		a->req.baseline = arg;
		return 0;
	case OPT_HTML:
		a->html = arg;
		return 0;
	case OPT_FROM:
		a->req.from = arg;
		return 0;
	case OPT_POLICY:
		a->policy = arg;
		return 0;
	}
	return 1;
}

/* The fabric: --topology, --lldp-socket, --ib-ca, --ib-port. */
static int fabric_take(struct fab_ctx *ctx, int opt, const char *arg, struct sweep_args *a)
{
	struct sweep_req *r = &a->req;
	unsigned int port;

	switch (opt) {
	case OPT_TOPOLOGY:
		if (!*arg) {
			cmd_usage_error(ctx, a->cmd, "--topology: want lldp, ib or a plan file");
			return -EINVAL;
		}
		r->topology = arg;
		return 0;
	case OPT_LLDP_SOCKET:
		r->lldp_socket = arg;
		return 0;
	case OPT_IB_CA:
		r->ib.ca = arg;
		return 0;
	case OPT_IB_PORT:
		if (cmd_opt_whole(ctx, a->cmd, "ib-port", arg, 1, 254, &port) < 0)
			return -EINVAL;
		r->ib.ca_port = (int)port;
		return 0;
	}
	return 1;
}

/* How it runs: --transport, --no-retest, --progress, --no-progress, --dry-run, -j. */
static int run_take(struct fab_ctx *ctx, int opt, const char *arg, struct sweep_args *a)
{
	struct sweep_req *r = &a->req;

	switch (opt) {
	case OPT_TRANSPORT:
		r->transport = arg;
		return 0;
	case OPT_NO_RETEST:
		r->retest = false;
		return 0;
	case OPT_PROGRESS:
		r->progress = 1;
		return 0;
	case OPT_NO_PROGRESS:
		r->progress = 0;
		return 0;
	case OPT_DRY_RUN:
		r->dry_run = true;
		return 0;
	case 'j':
		render_select(&ctx->render, "json");
		return 0;
	}
	return 1;
}

/* One option: 0 taken, -EINVAL (usage error reported), 1 not one of the table's. */
static int opt_take(struct fab_ctx *ctx, int opt, const char *arg, struct sweep_args *a)
{
	int rc;

	if (fleet_opt_take(&a->req.fo, &a->req.hosts, opt, arg))
		return 0;
	if (opt >= OPT_NUM && opt < OPT_NUM + (int)N_NUM_OPTS) {
		if (num_opt_take(ctx, &num_opts[opt - OPT_NUM], arg, a) < 0)
			return -EINVAL;
		/* --min-pct also judges the slowest interval against the fleet. */
		if (strcmp(num_opts[opt - OPT_NUM].name, "min-pct") == 0)
			a->req.cfg.min_pct_fleet = true;
		return 0;
	}
	if ((rc = mode_take(ctx, opt, arg, a)) <= 0 || (rc = file_take(opt, arg, a)) <= 0 ||
	    (rc = fabric_take(ctx, opt, arg, a)) <= 0)
		return rc;
	return run_take(ctx, opt, arg, a);
}

int sweep_opts_parse(struct fab_ctx *ctx, int argc, char **argv, struct sweep_args *a)
{
	struct option opts[N_FIXED_OPTS + N_NUM_OPTS + 1];
	int opt, rc;

	memcpy(opts, fixed_opts, sizeof(fixed_opts));
	for (size_t i = 0; i < N_NUM_OPTS; i++)
		opts[N_FIXED_OPTS + i] = (struct option){ num_opts[i].name, required_argument, NULL,
							  OPT_NUM + (int)i };
	opts[N_FIXED_OPTS + N_NUM_OPTS] = (struct option){ 0 };
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		rc = opt_take(ctx, opt, optarg, a);
		if (rc < 0)
			return FAB_EXIT_USAGE;
		if (rc > 0)
			return cmd_opt_other(ctx, a->cmd, opt);
	}
	return -1;
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
