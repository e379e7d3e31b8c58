// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl sweep: pairwise latency and bandwidth between the nodes of a
 * hosts file.  Loads the hosts, builds the schedule (model/schedule.c),
 * starts the workers (fleet/), runs the rounds (fleet/sweep.c), judges
 * the pairs against the fleet (model/stats.c), re-tests the slow ones,
 * names suspects and renders (render/sweep_*.c, render/sweep_prom.c).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/sweep_cmd.h"
#include "sweep/sweep_locate.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_signal.h"
#include "sweep/sweep_topo.h"
#include "fleet/fleet_dial.h"
#include "fleet/fleet_op.h"
#include "fleet/sweep.h"
#include "io/load.h"
#include "io/pair_store.h"
#include "model/schedule.h"
#include "model/sweep_judge.h"
#include "sys/sys.h"
#include "transport/verbs_gid.h"
#include "util/file.h"
#include "util/log.h"

/* A --pairs file larger than this is refused (bad input). */
#define PAIRS_FILE_MAX_BYTES (64u << 20)

enum {
	OPT_TRANSPORT = 256,
	OPT_SERIAL, OPT_PAIRS, OPT_NEW, OPT_COVERAGE, OPT_ALL_PAIRS, OPT_PROM, OPT_NO_RETEST, OPT_PROGRESS, OPT_NO_PROGRESS,
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

#define NUM_D(name, min, max, field) { name, min, max, false, offsetof(struct sweep_args, field), 1 }
#define NUM_U(name, min, max, field) { name, min, max, true, offsetof(struct sweep_args, field), 1 }

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
	{ "lat-max-us", 0, 1e9, false, offsetof(struct sweep_args, cfg.lat_max_ns), 1000 },
	{ "lat-floor-us", 0, 1e9, false, offsetof(struct sweep_args, cfg.lat_floor_ns), 1000 },
	NUM_D("min-pct", 0, 100, cfg.min_pct),
	NUM_D("regress-pct", 0, 100, regress_pct),
	NUM_D("timeout", 0.1, 3600, timeout_s),
	NUM_U("verbs-bw-bytes", 1, VERBS_EP_MAX_REGION, verbs.bw_bytes),
	NUM_U("verbs-tx-depth", 1, 8192, verbs.tx_depth),
	NUM_U("verbs-cq-mod", 1, 8192, verbs.cq_mod),
	NUM_U("verbs-spin-us", 0, 60000000, verbs.spin_us),
};

#define N_NUM_OPTS (sizeof(num_opts) / sizeof(num_opts[0]))

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

int sweep_parse(struct fab_ctx *ctx, int argc, char **argv, struct sweep_args *a)
{
	static const struct option fixed[] = {
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
	struct option opts[sizeof(fixed) / sizeof(fixed[0]) + N_NUM_OPTS + 1];
	size_t n_fixed = sizeof(fixed) / sizeof(fixed[0]);
	int opt, modes = 0;

	memcpy(opts, fixed, sizeof(fixed));
	for (size_t i = 0; i < N_NUM_OPTS; i++)
		opts[n_fixed + i] = (struct option){ num_opts[i].name, required_argument, NULL,
						     OPT_NUM + (int)i };
	opts[n_fixed + N_NUM_OPTS] = (struct option){ 0 };
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (fleet_opt_take(&a->fo, &a->hosts, opt, optarg))
			continue;
		if (opt >= OPT_NUM && opt < OPT_NUM + (int)N_NUM_OPTS) {
			if (num_opt_take(ctx, &num_opts[opt - OPT_NUM], optarg, a) < 0)
				return -EINVAL;
			/* --min-pct also judges the slowest interval against the fleet. */
			if (strcmp(num_opts[opt - OPT_NUM].name, "min-pct") == 0)
				a->cfg.min_pct_fleet = true;
			continue;
		}
		switch (opt) {
		case OPT_TRANSPORT:
			a->transport = optarg;
			break;
		case OPT_SERIAL:
			a->mode = "serial";
			modes++;
			break;
		case OPT_PAIRS:
			a->pairs = optarg;
			a->mode = "pairs";
			modes++;
			break;
		case OPT_NEW:
			a->mode = "bipartite";
			modes++;
			break;
		case OPT_COVERAGE:
			if (cmd_opt_whole(ctx, a->cmd, "coverage", optarg, 1, SWEEP_COVERAGE_MAX_K,
				       &a->coverage_k) < 0)
				return -EINVAL;
			break;
		case OPT_ALL_PAIRS:
			a->all_pairs = true;
			break;
		case OPT_PROM:
			a->prom = optarg;
			break;
		case OPT_CSV:
			a->csv = optarg;
			break;
		case OPT_BASELINE:
			a->baseline = optarg;
			break;
		case OPT_HTML:
			a->html = optarg;
			break;
		case OPT_NO_RETEST:
			a->retest = false;
			break;
		case OPT_PROGRESS:
			a->progress = 1;
			break;
		case OPT_NO_PROGRESS:
			a->progress = 0;
			break;
		case OPT_TOPOLOGY:
			if (!*optarg) {
				cmd_usage_error(ctx, a->cmd, "--topology: want lldp, ib or a plan file");
				return -EINVAL;
			}
			a->topology = optarg;
			break;
		case OPT_LLDP_SOCKET:
			a->lldp_socket = optarg;
			break;
		case OPT_DRY_RUN:
			a->dry_run = true;
			break;
		case OPT_IB_CA:
			a->ib.ca = optarg;
			break;
		case OPT_FROM:
			a->from = optarg;
			break;
		case OPT_POLICY:
			a->policy = optarg;
			break;
		case OPT_IB_PORT: {
			unsigned int port;

			if (cmd_opt_whole(ctx, a->cmd, "ib-port", optarg, 1, 254, &port) < 0)
				return -EINVAL;
			a->ib.ca_port = (int)port;
			break;
		}
		case 'j':
			render_select(&ctx->render, "json");
			break;
		default:
			return cmd_opt_other(ctx, a->cmd, opt) == FAB_EXIT_OK ? 1 : -EINVAL;
		}
	}
	if (strcmp(a->cmd, "diagnose") == 0) {
		while (optind < argc && a->n_target < 2)
			a->target[a->n_target++] = argv[optind++];
		if (optind < argc) {
			cmd_usage_error(ctx, a->cmd, "unexpected argument '%s'", argv[optind]);
			return -EINVAL;
		}
		if (a->from && a->n_target) {
			cmd_usage_error(ctx, a->cmd, "--from re-analyses a saved sweep: no A B with it");
			return -EINVAL;
		}
		if (!a->from && (a->n_target != 2 || !a->hosts || !a->topology)) {
			cmd_usage_error(ctx, a->cmd, "want --from SWEEP.json, or --hosts FILE --topology "
					"SOURCE A B (the slow pair)");
			return -EINVAL;
		}
		if (modes || a->coverage_k || a->all_pairs) {
			cmd_usage_error(ctx, a->cmd, "--serial, --pairs, --new, --coverage and "
					"--all-pairs are sweep's");
			return -EINVAL;
		}
		if (a->dry_run || a->prom || a->csv || a->html || a->baseline) {
			cmd_usage_error(ctx, a->cmd, "--dry-run, --prom, --csv, --html and --baseline are sweep's");
			return -EINVAL;
		}
	} else if (a->from) {
		cmd_usage_error(ctx, "sweep", "--from is diagnose's (fabricctl diagnose --from)");
		return -EINVAL;
	} else if (optind < argc) {
		cmd_usage_error(ctx, "sweep", "unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	} else if (!a->hosts) {
		cmd_usage_error(ctx, "sweep", "--hosts FILE is required");
		return -EINVAL;
	}
	if (modes > 1) {
		cmd_usage_error(ctx, a->cmd, "--serial, --pairs and --new exclude each other");
		return -EINVAL;
	}
	if (a->coverage_k && (a->all_pairs || strcmp(a->mode, "serial") == 0 ||
			      strcmp(a->mode, "pairs") == 0)) {
		cmd_usage_error(ctx, a->cmd, "--coverage chooses the pairs: not with --all-pairs, "
				"--serial or --pairs");
		return -EINVAL;
	}
	if (a->coverage_k && !a->topology) {
		cmd_usage_error(ctx, a->cmd, "--coverage needs --topology (pairs are chosen by the "
				"links they cross)");
		return -EINVAL;
	}
	if (a->coverage_k)
		a->mode = strcmp(a->mode, "bipartite") == 0 ? "coverage-new" : "coverage";
	if ((a->lldp_socket || a->ib.ca || a->ib.ca_port) && !a->topology) {
		cmd_usage_error(ctx, a->cmd, "--lldp-socket, --ib-ca and --ib-port go with --topology");
		return -EINVAL;
	}
	if (a->duration_s == 0 && a->lat_iters == 0) {
		cmd_usage_error(ctx, a->cmd, "nothing to measure: --duration 0 and --lat-iters 0");
		return -EINVAL;
	}
	return 0;
}

/* What --pairs FILE or --new asks for: @want (pairs) or @is_new (bipartite). */
static int requested(const struct sweep_args *a, const struct fab_hosts *hs,
		     struct sched_pair **want, size_t *n_want, bool **is_new, struct fab_err *err)
{
	int rc = 0;

	if (strcmp(a->mode, "bipartite") == 0 || strcmp(a->mode, "coverage-new") == 0) {
		bool *nw = calloc(hs->n ? hs->n : 1, sizeof(*nw));
		size_t k = 0;

		if (!nw)
			return fab_err_set(err, -ENOMEM, "sweep: out of memory");
		for (size_t i = 0; i < hs->n; i++)
			k += nw[i] = hs->hosts[i].is_new;
		if (k == 0 || k == hs->n) {
			free(nw);
			return fab_err_input(err, -EINVAL, "%s: --new needs some hosts labelled new and some not",
					     a->hosts);
		}
		*is_new = nw;
	} else if (strcmp(a->mode, "pairs") == 0) {
		struct fab_pairs_list pl = { 0 };
		struct sched_pair *sp = NULL;
		size_t len;
		char *buf;

		rc = file_read_all(a->pairs, PAIRS_FILE_MAX_BYTES, &buf, &len, err);
		if (rc < 0)
			return rc;
		rc = hosts_pairs_parse(&pl, hs, buf, len, a->pairs, err);
		free(buf);
		if (rc == 0 && !(sp = calloc(pl.n ? pl.n : 1, sizeof(*sp))))
			rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		for (size_t i = 0; rc == 0 && i < pl.n; i++) {
			sp[i].a = pl.pairs[i][0];
			sp[i].b = pl.pairs[i][1];
		}
		if (rc == 0) {
			*want = sp;
			*n_want = pl.n;
		}
		hosts_pairs_fini(&pl);
	}
	return rc;
}

/* Process CPU seconds (the schedule's cost, for the scale harness). */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The rounds to measure, as a source (@src): explicit (in @s) for every
 * mode but all pairs of a large Ethernet fabric, which is generated round
 * by round and never stored (sweep_topo_schedule_src), and all pairs
 * without a topology (the circle method, generated the same way).
 */
static int build_schedule(struct fab_ctx *ctx, const struct sweep_args *a,
			  const struct fab_hosts *hs, struct sweep_topo *st, struct sched *s,
			  struct sched_src *src)
{
	struct sched_pair *want = NULL;
	bool *is_new = NULL;
	size_t n_want = 0;
	double t0 = cpu_s();
	int rc;

	if (a->n_target == 2)	/* diagnose A B: the pairs sharing parts of A-B's path */
		rc = diagnose_pick_pairs(ctx, st, hs, a->target, &want, &n_want);
	else
		rc = requested(a, hs, &want, &n_want, &is_new, &ctx->err);
	if (rc < 0)
		return rc;
	if (st) {
		rc = sweep_topo_schedule_src(ctx, st, a->mode, want, n_want, is_new, s, src);
	} else if (strcmp(a->mode, "serial") == 0) {
		rc = sched_serial(s, hs->n);
	} else if (is_new) {
		rc = sched_bipartite(s, is_new, hs->n);
	} else if (want) {
		rc = sched_from_pairs(s, want, n_want, hs->n);
	} else {
		sched_src_circle(src, hs->n);
		rc = 1;
	}
	if (rc == 0 && !st)
		sched_src_explicit(src, s);
	rc = rc > 0 ? 0 : rc;
	free(want);
	free(is_new);
	if (rc < 0 && !ctx->err.msg[0])
		fab_err_set(&ctx->err, rc, "sweep: schedule: %s", strerror(-rc));
	if (rc == 0 && s->n_pairs && sched_check(s, hs->n) < 0)
		return fab_err_set(&ctx->err, -EINVAL, "sweep: internal error: bad schedule");
	if (a->sched_cpu_s)
		*a->sched_cpu_s = cpu_s() - t0;
	return rc;
}

struct keyed {
	uint64_t key;
	size_t idx;
};

static int keyed_cmp(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	return a->key < b->key ? -1 : a->key > b->key;
}

/*
 * Re-test the pairs that look slow, keep the new figures, judge them
 * again: a pair stays slow only when the retest finds it slow too.  One
 * pair at a time, nothing else on the fabric or the hosts, when there are
 * at most SWEEP_RETEST_ALONE_MAX of them (a test that shared a link, a
 * CPU or a switch buffer with its round measured its neighbours too; see
 * docs/sweep.md), else in link-safe rounds.  @alone: the pairs slow by
 * latency only, always one at a time (a latency loop that shared a link or
 * a CPU with another pair's bandwidth test measured that test's queue).
 */
static int sweep_retest(struct fab_ctx *ctx, const struct sweep_measure *m, struct sweep_opts *so,
			struct sweep_report *r, struct sweep_results *sr, struct sweep_topo *st,
			bool alone)
{
	struct fab_err *err = &ctx->err;
	struct sched_pair *sp = NULL;
	struct sweep_pair *again = NULL, p;
	struct keyed *ix = NULL;
	size_t *idx = NULL, n = 0, total = 0, done, upto;
	struct sched s;
	int rc;

	sched_init(&s);
	rc = sweep_results_retest_list(sr, alone, &idx, &n, &total, err);
	if (rc < 0 || !n)
		goto out;
	if (n < total)
		fab_warn("sweep: %zu pairs look slow%s; re-testing a uniform sample of %zu (the others "
			 "keep their first figures)", total, alone ? " by latency" : "", n);
	sp = calloc(n, sizeof(*sp));
	ix = calloc(n, sizeof(*ix));
	if (!sp || !ix) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		if ((rc = pair_store_get(sr->store, idx[k], &p, err)) < 0)
			goto out;
		sp[k] = (struct sched_pair){ .a = p.a, .b = p.b };
		ix[k] = (struct keyed){ sched_pair_key(p.a, p.b), idx[k] };
	}
	qsort(ix, n, sizeof(*ix), keyed_cmp);
	fab_info("re-testing %zu slow pair%s%s", n, n == 1 ? "" : "s",
		 alone ? " by latency, one at a time" : n <= SWEEP_RETEST_ALONE_MAX ? ", one at a time" : "");
	if (alone || n <= SWEEP_RETEST_ALONE_MAX) {
		rc = sched_one_per_round(&s, sp, n);
	} else if (st) {	/* the retest's rounds follow the same link rule */
		struct sched_topo_bound keep = st->bound;

		rc = sweep_topo_schedule(ctx, st, "pairs", sp, n, NULL, &s);
		st->bound = keep;
	} else {
		rc = sched_from_pairs(&s, sp, n, r->hosts->n);
	}
	if (rc < 0) {
		fab_err_set(err, rc, "sweep: retest schedule: %s", strerror(-rc));
		goto out;
	}
	again = calloc(s.n_pairs ? s.n_pairs : 1, sizeof(*again));
	if (!again) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	so->label = "retest";
	rc = sweep_measure_sched(m, &s, so, again, &done, err);
	if (rc == -EINTR)	/* keep the first figures of the pairs not re-tested */
		r->interrupted = true;
	else if (rc < 0)
		goto out;
	rc = 0;
	upto = done < s.n_rounds ? s.round_start[done] : s.n_pairs;
	for (size_t k = 0; k < upto && rc == 0; k++) {
		struct keyed key = { sched_pair_key(again[k].a, again[k].b), 0 };
		const struct keyed *e = bsearch(&key, ix, n, sizeof(*ix), keyed_cmp);
		struct sweep_pair keep;

		if (!e)
			continue;
		if ((rc = pair_store_get(sr->store, e->idx, &p, err)) < 0)
			break;
		keep = p;
		if (again[k].status == SWEEP_FAILED) {
			/* Keep the first figures: they are still evidence. */
			p.retested = true;
			p.first_slow = true;
			snprintf(p.reason + strnlen(p.reason, sizeof(p.reason) - 40), 40,
				 " (retest failed)");
		} else {
			p = again[k];
			p.round = keep.round;
			p.expected_mbps = keep.expected_mbps;
			p.expect_src = keep.expect_src;
			p.klass = keep.klass;
			p.retested = true;
			p.first_slow = true;
			sweep_pair_judge_expected(&p, p.expected_mbps, p.expect_src, &r->ref, &r->cfg);
		}
		rc = pair_store_put(sr->store, e->idx, &p, err);
	}
out:
	sched_fini(&s);
	free(again);
	free(sp);
	free(ix);
	free(idx);
	return rc;
}

/*
 * A pair's route for the renderers: listed when it has at most
 * SWEEP_PATHS_MAX_LISTED paths (a 3-level fat tree has 256 between pods:
 * hundreds of links each, in every pair's entry); else none (-E2BIG).
 */
static int view_route(void *ctx, unsigned int a, unsigned int b, struct pair_route *out)
{
	struct sweep_topo *st = ctx;
	unsigned int keep = st->r->max_paths;
	struct fab_err err;
	int rc;

	fab_err_init(&err);
	if (st->rib)
		return sweep_topo_route(st, a, b, out, &err);
	st->r->max_paths = SWEEP_PATHS_MAX_LISTED;
	rc = route_pair(st->r, a, b, out, &err);
	st->r->max_paths = keep;
	return rc;
}

/* Hand the topology to the report (renderers) and the bound to the text. */
static void fabric_view(struct sweep_report *r, struct sweep_topo *st)
{
	struct sweep_fabric_view *v = &r->fabric;

	v->source = st->kind == SWEEP_TOPO_PLAN ? st->spec : sweep_topo_kind_name(st->kind);
	v->topo = st->t;
	v->route = view_route;	/* the sweep keeps no pair's route: made on demand */
	v->route_ctx = st;
	v->host_link = st->host_link;
	v->host_leaf = st->host_leaf;
	v->have_bound = st->have_bound;
	v->bound = st->bound.bound;
	v->bound_node = st->bound.node;
	v->bound_link = st->bound.link;
	v->bound_cut = st->bound.cut;
	v->cov_k = st->cov.pairs ? st->cov_k : 0;
	v->cov_links_target = st->cov.links_target;
	v->cov_links_short = st->cov.links_short;
	v->cov_links_unreachable = st->cov.links_unreachable;
	v->cov_hosts_short = st->cov.hosts_short;
}

/*
 * Fewer than two workers up: nothing can be measured, and every pair
 * "failed" would read as a fabric fault (a node suspect per host, exit 1)
 * where the launcher is what failed.  A launch failure instead: exit 3,
 * naming the launcher and the first worker's error.
 */
static int launch_check(struct fab_ctx *ctx, const struct sweep_args *a, const struct fleet *f)
{
	size_t live = fleet_live(f);
	const struct fleet_worker *first = NULL;

	if (live >= 2)
		return 0;
	for (size_t i = 0; i < f->n && !first; i++)
		if (f->w[i].dead)
			first = &f->w[i];
	return fab_err_set(&ctx->err, -ENOTCONN,
			   "launch failed: %zu of %zu workers started with launcher '%s'%s%s%s%s%s; "
			   "nothing was measured", live, f->n, a->fo.launcher,
			   first ? " (first error: worker " : "", first ? first->host->name : "",
			   first ? ": " : "", first ? first->reason : "", first ? ")" : "");
}

/*
 * Per host, whether its worker never started (dead without a hello): a
 * new array (NULL with *@n 0 when every worker started), or -ENOMEM.
 */
static int workers_not_started(const struct fleet *f, bool **out, size_t *n)
{
	bool *ns;

	*out = NULL;
	*n = 0;
	for (size_t i = 0; i < f->n; i++)
		*n += f->w[i].dead && !f->w[i].hello;
	if (!*n)
		return 0;
	ns = calloc(f->n, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++)
		ns[i] = f->w[i].dead && !f->w[i].hello;
	*out = ns;
	return 0;
}

/*
 * Hosts, topology, fleet, schedule: everything before the first round.
 * The fleet starts only when it is needed (not for a dry run on a plan or
 * the IB subnet, nor when something else measures).
 */
static int sweep_prepare(struct fab_ctx *ctx, struct sweep_args *a, struct fab_hosts *hs,
			 struct fab_hosts *fabric, struct sweep_topo *st, struct fleet *f,
			 struct sched *s, struct sched_src *src)
{
	struct fab_hosts all;
	int rc;

	hosts_init(&all);
	rc = hosts_load(&all, a->hosts, &ctx->err);
	if (rc == 0 && hosts_split_role(&all, hs, fabric) < 0)
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	hosts_fini(&all);
	if (rc < 0)
		return rc;
	if (hs->n < 2)
		return fab_err_input(&ctx->err, -EINVAL, "%s: a sweep needs at least two hosts", a->hosts);
	if (a->measure && st && st->kind == SWEEP_TOPO_LLDP)
		return fab_err_input(&ctx->err, -EINVAL, "sweep: --topology lldp needs the workers");
	if (st) {
		rc = sweep_topo_load(ctx, st, &a->ib);
		if (rc < 0)
			return rc;
	}
	if (!a->dry_run || (st && st->kind == SWEEP_TOPO_LLDP)) {
		/* What can be checked is checked before any worker starts. */
		if ((a->prom && file_check_writable(a->prom, &ctx->err) < 0) ||
		    sweep_out_check(a, &ctx->err) < 0 ||
		    (!a->measure && (fleet_launcher_check(&a->fo, hs, &ctx->err) < 0 ||
				     (fabric->n && fleet_launcher_check(&a->fo, fabric, &ctx->err) < 0))))
			return -EINVAL;
		if (!a->measure && ((rc = fleet_start(f, hs, &a->fo, &ctx->err)) < 0 ||
				    (rc = launch_check(ctx, a, f)) < 0))
			return rc;
	}
	if (st && st->kind == SWEEP_TOPO_LLDP) {
		rc = sweep_topo_load_lldp(ctx, st, f, hs, fabric, &a->fo, a->lldp_socket);
		if (rc < 0)
			return rc;
	}
	if (st) {
		rc = sweep_topo_place(ctx, st, hs);
		if (rc < 0)
			return rc;
		if (a->on_fabric)
			a->on_fabric(a->hook_ctx, st);
	}
	if (st && !a->dry_run && !a->measure && (rc = sweep_topo_counters_before(ctx, st, f)) < 0)
		return rc;
	if (st && !a->all_pairs && !a->coverage_k && strcmp(a->mode, "all-pairs") == 0 &&
	    hs->n > SWEEP_COVERAGE_AUTO_HOSTS) {
		a->coverage_k = SWEEP_COVERAGE_AUTO_K;
		a->mode = "coverage";
		fab_info("sweep: %zu hosts (more than %d): coverage sweep, every link crossed by and "
			 "every host in at least %d pairs; --all-pairs for all %zu", hs->n,
			 SWEEP_COVERAGE_AUTO_HOSTS, SWEEP_COVERAGE_AUTO_K, hs->n * (hs->n - 1) / 2);
	}
	if (st)
		st->cov_k = a->coverage_k;
	rc = build_schedule(ctx, a, hs, st, s, src);
	if (rc < 0)
		return rc;
	/* A large sweep's results go to $TMPDIR: can they, before hours of rounds? */
	if ((rc = pair_store_check(src->n_pairs, &ctx->err)) < 0)
		return rc;
	if (a->html && src->n_pairs > SWEEP_HTML_MAX_PAIRS)
		return fab_err_input(&ctx->err, -E2BIG, "sweep: --html %s: %zu pairs; the report page "
				     "holds at most %d (1024 hosts, all pairs): a coverage sweep "
				     "(--coverage K) or -j and --csv FILE", a->html, src->n_pairs,
				     SWEEP_HTML_MAX_PAIRS);
	if (st && st->have_bound)
		fab_info("topology: %zu rounds for %zu pairs; lower bound %zu (node %zu, link %zu, cut %zu)",
			 src->n_rounds, src->n_pairs, st->bound.bound, st->bound.node, st->bound.link,
			 st->bound.cut);
	return 0;
}

static void plan_fill(struct sweep_opts *so, const struct sweep_args *a)
{
	so->transport = a->transport;
	so->plan.lat_iters = a->lat_iters;
	so->plan.lat_ms = (unsigned int)(a->lat_time_s * 1000 + 0.5);
	so->plan.msg_bytes = a->msg_bytes;
	so->plan.duration_ms = (unsigned int)(a->duration_s * 1000 + 0.5);
	so->plan.interval_ms = a->interval_ms;
	so->plan.streams = a->streams;
	so->plan.verbs = a->verbs;
	so->plan.bw_fwd = so->plan.bw_rev = so->plan.duration_ms > 0;
	/* Both directions, the latency loop at >= 10 us a round trip, and slack. */
	so->plan.timeout_ms = 2 * so->plan.duration_ms +
			      (so->plan.lat_ms ? so->plan.lat_ms : a->lat_iters / 50) +
			      (unsigned int)(a->timeout_s * 1000);
	so->step_timeout_ms = (int)(a->timeout_s * 1000);
	so->progress = a->progress < 0 ? isatty(STDERR_FILENO) : a->progress;
	so->label = "sweep";
}

static void report_fill(struct sweep_report *r, const struct sweep_args *a,
			const struct sweep_opts *so, const struct fab_hosts *hs,
			const struct sched_src *src)
{
	r->hosts = hs;
	r->transport = a->transport;
	r->launcher = a->measure ? "simulated" : a->fo.launcher;
	r->mode = a->mode;
	r->cfg = a->cfg;
	sweep_cfg_transport(&r->cfg, r->transport);
	r->duration_ms = so->plan.duration_ms;
	r->lat_iters = a->lat_iters;
	r->lat_ms = so->plan.lat_ms;
	r->streams = a->streams;
	r->msg_bytes = a->msg_bytes;
	r->n_rounds = src->n_rounds;
	r->started_unix = (int64_t)time(NULL);
	r->dry_run = a->dry_run;
}

void sweep_args_default(struct sweep_args *a, const char *cmd)
{
	*a = (struct sweep_args){
		.cmd = cmd,
		.fo = FLEET_OPTS_DEFAULT,
		.transport = "tcp", .mode = "all-pairs", .duration_s = 1, .timeout_s = 10,
		.lat_iters = 2000, .msg_bytes = 64, .streams = 1, .interval_ms = 100,
		.verbs = TP_VERBS_TUNING_DEFAULT,
		.retest = true, .progress = -1, .regress_pct = 10,
	};
	sweep_cfg_default(&a->cfg);
	a->cfg.lat_floor_ns = -1;	/* the transport's (sweep_cfg_transport) */
}

int sweep_args_parse(struct fab_ctx *ctx, int argc, char **argv, const char *cmd,
		     struct sweep_args *a)
{
	int rc;

	sweep_args_default(a, cmd);
	rc = sweep_parse(ctx, argc, argv, a);
	if (rc)
		return rc > 0 ? FAB_EXIT_OK : FAB_EXIT_USAGE;
	return -1;	/* go on */
}

int cmd_sweep(struct fab_ctx *ctx, int argc, char **argv)
{
	struct sweep_args a;
	int rc = sweep_args_parse(ctx, argc, argv, "sweep", &a);

	return rc >= 0 ? rc : sweep_main(ctx, &a);
}

/*
 * The rounds stopped on an error (a full $TMPDIR under the pair store,
 * ...) after some pairs were stored: nothing measured is thrown away.
 * The report is marked interrupted and carries the error, the pairs the
 * store holds are judged and written to every output; the sweep then
 * exits 3 with that error.  Its code; @err is cleared for what follows.
 */
static int sweep_report_stopped(struct sweep_report *r, struct fab_err *err)
{
	int code = err->code ? err->code : -EIO;

	r->interrupted = true;
	snprintf(r->stop_error, sizeof(r->stop_error), "%.511s", err->msg[0] ? err->msg : strerror(-code));
	fab_warn("sweep: stopped after %zu of %zu rounds by an error (%s): reporting the %zu pair%s "
		 "measured before it, marked interrupted", r->rounds_done, r->n_rounds, r->stop_error,
		 r->n_pairs, r->n_pairs == 1 ? "" : "s");
	fab_err_init(err);
	return code;
}

/*
 * Without a topology a host whose worker never started is a node suspect
 * by count (every pair of it failed): say why, not "N of N pairs failed".
 */
static void not_started_evidence(struct sweep_report *r)
{
	for (size_t i = 0; r->not_started && i < r->n_suspects; i++) {
		struct sweep_suspect *s = &r->suspects[i];

		if (s->is_node && r->not_started[s->node])
			snprintf(s->evidence, sizeof(s->evidence),
				 "worker did not start (launcher %s): %u pairs not measured", r->launcher,
				 s->pairs);
	}
}

/* Everything after the rounds: verdicts, retests, baseline, links named. */
static int sweep_conclude(struct fab_ctx *ctx, struct sweep_args *a, struct sweep_report *r,
			  struct sweep_results *sr, struct sweep_topo *st,
			  const struct sweep_measure *m, struct sweep_opts *so,
			  struct sweep_baseline *base, struct sweep_locate *sl,
			  const struct counter_policy *pol, struct counter_report *crep)
{
	struct fab_err *err = &ctx->err;
	int rc;

	if ((rc = sweep_results_judge(sr, r, err)) < 0 ||
	    /* --baseline: judged after the fleet, again after the retest re-judged its pairs */
	    (rc = sweep_baseline_apply(base, a->regress_pct, r, err)) < 0 ||
	    (a->retest && !r->interrupted && (rc = sweep_retest(ctx, m, so, r, sr, st, false)) < 0) ||
	    (a->retest && !r->interrupted && (rc = sweep_retest(ctx, m, so, r, sr, st, true)) < 0) ||
	    (rc = sweep_baseline_apply(base, a->regress_pct, r, err)) < 0 ||
	    (rc = sweep_results_count(sr, r, err)) < 0)
		return rc;
	if (st && !r->interrupted) {	/* name the links, probing groups over the same workers */
		struct sweep_locate_env env = { .ctx = ctx, .st = st, .r = r, .m = m, .so = so,
						.sr = sr, .skip_host = r->not_started };

		if ((rc = sweep_locate_run(sl, &env)) < 0 ||
		    (!a->measure && (rc = sweep_topo_counters(ctx, st, &a->ib, pol, crep)) < 0))
			return rc;
		if ((rc = loc_apply_counters(&sl->in, &sl->res, crep)) < 0)
			return fab_err_set(err, rc, "sweep: counters: %s", strerror(-rc));
		/* The renderers read the suspects, not the evidence behind them. */
		loc_acc_free(sl->in.acc);
		sl->in.acc = NULL;
		/* Probes may have re-judged nothing in the store; counts stand. */
	}
	/* With a topology the suspects are links (r->fabric.loc), never hosts by count. */
	if (!st) {
		struct sweep_suspects_acc acc;
		size_t n = pair_store_count(sr->store);
		struct sweep_pair p;

		rc = sweep_suspects_begin(&acc, r->hosts->n);
		for (size_t i = 0; rc == 0 && i < n; i++)
			if ((rc = pair_store_get(sr->store, i, &p, err)) == 0)
				sweep_suspects_count(&acc, &p);
		if (rc == 0)
			rc = sweep_suspects_nodes(&acc, &r->ref);
		for (size_t i = 0; rc == 0 && i < n; i++)
			if ((rc = pair_store_get(sr->store, i, &p, err)) == 0)
				rc = sweep_suspects_link(&acc, &p);
		if (rc == 0) {
			sweep_suspects_end(&acc, r);
			not_started_evidence(r);
		}
		sweep_suspects_acc_fini(&acc);
		if (rc == -ENOMEM)
			fab_err_set(err, rc, "sweep: out of memory");
	}
	return rc;
}

int sweep_main(struct fab_ctx *ctx, struct sweep_args *ap)
{
	struct sweep_args a = *ap;
	struct sweep_report r = { 0 };
	struct sweep_opts so = { 0 };
	struct fab_hosts hs, fabric;
	struct sweep_topo topo, *st = NULL;
	struct sweep_locate sl;
	struct sweep_baseline base = { 0 };
	struct sweep_results sr = { 0 };
	struct sweep_measure fm;
	const struct sweep_measure *m = a.measure;
	struct counter_policy pol;
	struct counter_report crep = { 0 };
	struct fleet f = { 0 };
	struct sched s;
	struct sched_src src = { 0 };
	struct timespec t0, t1;
	struct sweep_fates fates = { 0 };
	bool *not_started = NULL;
	int rc, stop_rc = 0;

	if (a.n_target == 2)
		a.mode = "pairs";
	if (counter_policy_load(a.policy, &pol, &ctx->err) < 0)
		return fab_err_exit(&ctx->err);
	sweep_locate_init(&sl);
	hosts_init(&hs);
	hosts_init(&fabric);
	sched_init(&s);
	if (a.topology) {
		sweep_topo_init(&topo, a.topology);
		st = &topo;
	}
	if (!a.measure && !transport_find(a.transport)) {
		rc = cmd_usage_error(ctx, "sweep", "--transport %s: not built in (have: tcp%s)",
				     a.transport, transport_find("verbs") ? ", verbs" : "");
		goto out;
	}
	a.fo.verbose = fab_log_level;
	if (a.baseline && sweep_baseline_load(&base, a.baseline, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Caught before the first worker starts: the fleet's start watches the flag too. */
	so.stop = a.fo.stop = sweep_signal_install();
	if (sweep_prepare(ctx, &a, &hs, &fabric, st, &f, &s, &src) < 0 ||
	    sweep_results_init(&sr, &hs, st, src.n_pairs, &ctx->err) < 0) {
		/* A signal while the workers started: no round ran; 128 + the signal. */
		rc = sweep_signal_exit() ? sweep_signal_exit() : fab_err_exit(&ctx->err);
		goto out;
	}
	if (!m) {
		sweep_measure_fleet(&fm, &f);
		m = &fm;
	}
	plan_fill(&so, &a);
	if (getrandom(so.token, sizeof(so.token), 0) != (ssize_t)sizeof(so.token)) {
		fab_err_set(&ctx->err, -errno, "sweep: getrandom: %s", strerror(errno));
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	report_fill(&r, &a, &so, &hs, &src);
	r.store = sr.store;
	fleet_dial_report(&f, &r.launch);
	if (workers_not_started(&f, &not_started, &r.n_not_started) < 0) {
		fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	r.not_started = not_started;
	if (r.n_not_started)
		fab_warn("sweep: %zu of %zu workers did not start (launcher %s): their pairs fail "
			 "unmeasured, not as fabric faults", r.n_not_started, f.n, r.launcher);
	rc = 0;
	if (a.dry_run) {
		rc = sweep_results_plan(&sr, &src, &ctx->err);
	} else if (!a.measure && strcmp(a.transport, "verbs") == 0 &&
		   fleet_rdma_check(&f, so.step_timeout_ms, &ctx->err) < 0) {
		rc = -EIO;
	} else {
		rc = m->run(m->ctx, &src, &so, sweep_results_round, &sr, &r.rounds_done, &ctx->err);
		r.n_rounds = src.n_rounds > r.rounds_done ? src.n_rounds : r.rounds_done;
	}
	r.n_pairs = pair_store_count(sr.store);
	if (rc < 0 && rc != -EINTR && (a.dry_run || !r.n_pairs)) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (rc == -EINTR)
		sweep_report_cut(&r, r.rounds_done);
	else if (rc < 0)
		stop_rc = sweep_report_stopped(&r, &ctx->err);
	if (!a.dry_run) {
		rc = sweep_conclude(ctx, &a, &r, &sr, st, m, &so, &base, &sl, &pol, &crep);
		if (rc < 0) {
			if (!ctx->err.msg[0])
				fab_err_set(&ctx->err, rc, "sweep: %s", strerror(-rc));
			rc = fab_err_exit(&ctx->err);
			goto out;
		}
	} else {
		sweep_ref_compute(NULL, 0, &r.ref);
	}
	fleet_fini(&f);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r.wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (st) {
		fabric_view(&r, st);
		r.fabric.loc = a.dry_run ? NULL : &sl.res;
		r.fabric.loc_in = &sl.in;
		r.fabric.probes_run = sl.probes_run;
	}
	if (a.on_report)
		a.on_report(a.hook_ctx, &r);
	rc = r.n_slow + r.n_failed + r.n_regressed ? FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
	/* Every output is attempted, whatever became of the others (sweep_cmd.h). */
	if (!a.dry_run)
		sweep_out_write(&a, &r, &fates);
	if (a.n_target == 2) {
		rc = diagnose_render(ctx, &r, &a);
	} else {
		int orc;

		errno = 0;
		orc = ctx->render.ops->sweep(&ctx->render, &r);
		if (orc < 0 && errno)
			orc = -errno;	/* the stream's own cause (ENOSPC ...), not a generic EIO */
		sweep_fates_add(&fates, "stdout", NULL, orc, strerror(-orc));
		if (r.interrupted && !stop_rc)
			rc = sweep_signal_exit();
	}
	if (sweep_fates_result(&fates, stop_rc, r.stop_error, &ctx->err) < 0)
		rc = FAB_EXIT_SYSTEM;
out:
	fleet_fini(&f);
	sweep_signal_restore();
	sweep_report_fini(&r);
	sched_src_fini(&src);
	sched_fini(&s);
	sweep_locate_fini(&sl);
	sweep_results_fini(&sr);
	sweep_baseline_fini(&base);
	counter_report_fini(&crep);
	if (st)
		sweep_topo_fini(st);
	hosts_fini(&fabric);
	hosts_fini(&hs);
	free(not_started);
	return rc;
}
