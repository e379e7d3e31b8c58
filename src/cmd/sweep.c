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
#include "cmd/sweep_signal.h"
#include "fleet/fleet_op.h"
#include "fleet/sweep.h"
#include "io/load.h"
#include "model/schedule.h"
#include "io/load.h"
#include "model/sweep_judge.h"
#include "transport/verbs_gid.h"
#include "util/file.h"
#include "util/log.h"

/* A --pairs file larger than this is refused (bad input). */
#define PAIRS_FILE_MAX_BYTES (64u << 20)

enum {
	OPT_TRANSPORT = 256,
	OPT_SERIAL, OPT_PAIRS, OPT_NEW, OPT_PROM, OPT_NO_RETEST, OPT_PROGRESS, OPT_NO_PROGRESS,
	OPT_NUM,		/* OPT_NUM + i: num_opts[i] */
};

struct sweep_args {
	const char *hosts, *pairs, *prom;
	struct fleet_opts fo;
	const char *transport;
	const char *mode;
	struct sweep_cfg cfg;
	double duration_s, timeout_s, lat_time_s;
	unsigned int lat_iters, msg_bytes, streams, interval_ms;
	struct tp_verbs_tuning verbs;
	bool retest;
	int progress;		/* -1 auto */
};

static int parse_num(struct fab_ctx *ctx, const char *opt, const char *s, double min, double max,
		     double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max) {
		cmd_usage_error(ctx, "sweep", "--%s %s: want a number from %g to %g", opt, s, min, max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_uint(struct fab_ctx *ctx, const char *opt, const char *s, unsigned int min,
		      unsigned int max, unsigned int *out)
{
	double v;

	if (parse_num(ctx, opt, s, min, max, &v) < 0)
		return -EINVAL;
	if (v != floor(v)) {
		cmd_usage_error(ctx, "sweep", "--%s %s: want a whole number", opt, s);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

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
	NUM_D("min-pct", 0, 100, cfg.min_pct),
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
		if (parse_uint(ctx, n->name, s, (unsigned int)n->min, (unsigned int)n->max, &u) < 0)
			return -EINVAL;
		memcpy(field, &u, sizeof(u));
		return 0;
	}
	if (parse_num(ctx, n->name, s, n->min, n->max, &v) < 0)
		return -EINVAL;
	v *= n->scale;
	memcpy(field, &v, sizeof(v));
	return 0;
}

static int sweep_parse(struct fab_ctx *ctx, int argc, char **argv, struct sweep_args *a)
{
	static const struct option fixed[] = {
		FLEET_LONG_OPTIONS,
		{ "transport", required_argument, NULL, OPT_TRANSPORT },
		{ "serial", no_argument, NULL, OPT_SERIAL },
		{ "pairs", required_argument, NULL, OPT_PAIRS },
		{ "new", no_argument, NULL, OPT_NEW },
		{ "prom", required_argument, NULL, OPT_PROM },
		{ "no-retest", no_argument, NULL, OPT_NO_RETEST },
		{ "progress", no_argument, NULL, OPT_PROGRESS },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
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
		case OPT_PROM:
			a->prom = optarg;
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
		case 'j':
			render_select(&ctx->render, "json");
			break;
		case 'h':
			cmd_usage(stdout, "sweep");
			return 1;
		default:
			cmd_usage(stderr, "sweep");
			return -EINVAL;
		}
	}
	if (optind < argc) {
		cmd_usage_error(ctx, "sweep", "unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	if (!a->hosts) {
		cmd_usage_error(ctx, "sweep", "--hosts FILE is required");
		return -EINVAL;
	}
	if (modes > 1) {
		cmd_usage_error(ctx, "sweep", "--serial, --pairs and --new exclude each other");
		return -EINVAL;
	}
	if (a->duration_s == 0 && a->lat_iters == 0) {
		cmd_usage_error(ctx, "sweep", "nothing to measure: --duration 0 and --lat-iters 0");
		return -EINVAL;
	}
	return 0;
}

static int build_schedule(const struct sweep_args *a, const struct fab_hosts *hs,
			  struct sched *s, struct fab_err *err)
{
	int rc;

	if (strcmp(a->mode, "serial") == 0)
		return sched_serial(s, hs->n);
	if (strcmp(a->mode, "bipartite") == 0) {
		bool *nw = calloc(hs->n, sizeof(*nw));
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
		rc = sched_bipartite(s, nw, hs->n);
		free(nw);
		return rc;
	}
	if (strcmp(a->mode, "pairs") == 0) {
		struct fab_pairs_list pl = { 0 };
		struct sched_pair *sp = NULL;
		size_t len;
		char *buf;

		rc = file_read_all(a->pairs, PAIRS_FILE_MAX_BYTES, &buf, &len, err);
		if (rc < 0)
			return rc;
		rc = hosts_pairs_parse(&pl, hs, buf, len, a->pairs, err);
		free(buf);
		if (rc == 0 && !(sp = calloc(pl.n, sizeof(*sp))))
			rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		for (size_t i = 0; rc == 0 && i < pl.n; i++) {
			sp[i].a = pl.pairs[i][0];
			sp[i].b = pl.pairs[i][1];
		}
		if (rc == 0)
			rc = sched_from_pairs(s, sp, pl.n, hs->n);
		free(sp);
		hosts_pairs_fini(&pl);
		return rc;
	}
	return sched_circle(s, hs->n);
}

static double rated_mbps(const struct fab_hosts *hs, const struct sweep_pair *p)
{
	double ra = hs->hosts[p->a].rate_gbps, rb = hs->hosts[p->b].rate_gbps;

	if (ra <= 0 || rb <= 0)
		return 0;
	return 1000 * (ra < rb ? ra : rb);
}

/* Re-test the pairs that look slow, keep the new figures, judge them again. */
static int sweep_retest(struct fleet *f, struct sweep_opts *so, struct sweep_report *r,
			struct fab_err *err)
{
	struct sched_pair *sp = calloc(r->n_pairs ? r->n_pairs : 1, sizeof(*sp));
	size_t *idx = calloc(r->n_pairs ? r->n_pairs : 1, sizeof(*idx));
	struct sweep_pair *again = NULL;
	struct sched s;
	size_t n = 0, done;
	int rc;

	sched_init(&s);
	if (!sp || !idx) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->n_pairs; i++)
		if (r->pairs[i].status == SWEEP_SLOW) {
			sp[n].a = r->pairs[i].a;
			sp[n].b = r->pairs[i].b;
			idx[n++] = i;
		}
	rc = 0;
	if (!n)
		goto out;
	fab_info("re-testing %zu slow pair%s", n, n == 1 ? "" : "s");
	rc = sched_from_pairs(&s, sp, n, r->hosts->n);
	if (rc < 0) {
		fab_err_set(err, rc, "sweep: retest schedule: %s", strerror(-rc));
		goto out;
	}
	again = calloc(s.n_pairs, sizeof(*again));
	if (!again) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	so->label = "retest";
	rc = sweep_run(f, &s, so, again, &done, err);
	if (rc == -EINTR)	/* keep the first figures of the pairs not re-tested */
		r->interrupted = true;
	else if (rc < 0)
		goto out;
	rc = 0;
	for (size_t k = 0; k < (done < s.n_rounds ? s.round_start[done] : s.n_pairs); k++) {
		for (size_t m = 0; m < n; m++) {
			struct sweep_pair *p = &r->pairs[idx[m]];
			unsigned int round = p->round;

			if (p->a != again[k].a || p->b != again[k].b)
				continue;
			if (again[k].status == SWEEP_FAILED) {
				/* Keep the first figures: they are still evidence. */
				p->retested = true;
				p->first_slow = true;
				snprintf(p->reason + strnlen(p->reason, sizeof(p->reason) - 40),
					 40, " (retest failed)");
				break;
			}
			*p = again[k];
			p->round = round;
			p->retested = true;
			p->first_slow = true;
			sweep_pair_judge(p, rated_mbps(r->hosts, p), &r->ref, &r->cfg);
			break;
		}
	}
out:
	sched_fini(&s);
	free(again);
	free(sp);
	free(idx);
	return rc;
}

int cmd_sweep(struct fab_ctx *ctx, int argc, char **argv)
{
	struct sweep_args a = {
		.fo = FLEET_OPTS_DEFAULT,
		.transport = "tcp", .mode = "all-pairs", .duration_s = 1, .timeout_s = 10,
		.lat_iters = 2000, .msg_bytes = 64, .streams = 1, .interval_ms = 100,
		.verbs = TP_VERBS_TUNING_DEFAULT,
		.retest = true, .progress = -1,
	};
	struct sweep_report r = { 0 };
	struct sweep_opts so = { 0 };
	struct fab_hosts hs;
	struct fleet f = { 0 };
	struct sched s;
	struct timespec t0, t1;
	int rc;

	sweep_cfg_default(&a.cfg);
	hosts_init(&hs);
	sched_init(&s);
	rc = sweep_parse(ctx, argc, argv, &a);
	if (rc)
		return rc > 0 ? FAB_EXIT_OK : FAB_EXIT_USAGE;
	if (!transport_find(a.transport)) {
		rc = cmd_usage_error(ctx, "sweep", "--transport %s: not built in (have: tcp%s)",
				     a.transport, transport_find("verbs") ? ", verbs" : "");
		goto out;
	}
	a.fo.verbose = fab_log_level;
	if (hosts_load(&hs, a.hosts, &ctx->err) < 0 ||
	    build_schedule(&a, &hs, &s, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (hs.n < 2) {
		fab_err_input(&ctx->err, -EINVAL, "%s: a sweep needs at least two hosts", a.hosts);
		rc = FAB_EXIT_USAGE;
		goto out;
	}
	/* What can be checked is checked before any worker starts. */
	if ((a.prom && file_check_writable(a.prom, &ctx->err) < 0) ||
	    fleet_launcher_check(&a.fo, &hs, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (sched_check(&s, hs.n) < 0) {
		fab_err_set(&ctx->err, -EINVAL, "sweep: internal error: bad schedule");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}

	so.transport = a.transport;
	so.plan.lat_iters = a.lat_iters;
	so.plan.lat_ms = (unsigned int)(a.lat_time_s * 1000 + 0.5);
	so.plan.msg_bytes = a.msg_bytes;
	so.plan.duration_ms = (unsigned int)(a.duration_s * 1000 + 0.5);
	so.plan.interval_ms = a.interval_ms;
	so.plan.streams = a.streams;
	so.plan.verbs = a.verbs;
	so.plan.bw_fwd = so.plan.bw_rev = so.plan.duration_ms > 0;
	/* Both directions, the latency loop at >= 10 us a round trip, and slack. */
	so.plan.timeout_ms = 2 * so.plan.duration_ms +
			     (so.plan.lat_ms ? so.plan.lat_ms : a.lat_iters / 50) +
			     (unsigned int)(a.timeout_s * 1000);
	so.step_timeout_ms = (int)(a.timeout_s * 1000);
	so.progress = a.progress < 0 ? isatty(STDERR_FILENO) : a.progress;
	so.label = "sweep";
	if (getrandom(so.token, sizeof(so.token), 0) != (ssize_t)sizeof(so.token)) {
		fab_err_set(&ctx->err, -errno, "sweep: getrandom: %s", strerror(errno));
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}

	r.hosts = &hs;
	r.transport = a.transport;
	r.launcher = a.fo.launcher;
	r.mode = a.mode;
	r.cfg = a.cfg;
	r.duration_ms = so.plan.duration_ms;
	r.lat_iters = a.lat_iters;
	r.lat_ms = so.plan.lat_ms;
	r.streams = a.streams;
	r.msg_bytes = a.msg_bytes;
	r.n_rounds = s.n_rounds;
	r.started_unix = (int64_t)time(NULL);
	r.n_pairs = s.n_pairs;
	r.pairs = calloc(s.n_pairs ? s.n_pairs : 1, sizeof(*r.pairs));
	if (!r.pairs) {
		fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	so.stop = sweep_signal_install();
	if (fleet_start(&f, &hs, &a.fo, &ctx->err) < 0 ||
	    (strcmp(a.transport, "verbs") == 0 &&
	     fleet_rdma_check(&f, so.step_timeout_ms, &ctx->err) < 0) ||
	    ((rc = sweep_run(&f, &s, &so, r.pairs, &r.rounds_done, &ctx->err)) < 0 && rc != -EINTR)) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	if (rc == -EINTR)
		sweep_report_cut(&r, &s, r.rounds_done);
	sweep_ref_compute(r.pairs, r.n_pairs, &r.ref);
	for (size_t i = 0; i < r.n_pairs; i++)
		sweep_pair_judge(&r.pairs[i], rated_mbps(&hs, &r.pairs[i]), &r.ref, &r.cfg);
	if (a.retest && !r.interrupted && sweep_retest(&f, &so, &r, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	fleet_fini(&f);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r.wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (sweep_suspects(&r) < 0) {
		fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rc = FAB_EXIT_OK;
	for (size_t i = 0; i < r.n_pairs; i++)
		if (r.pairs[i].status != SWEEP_OK)
			rc = FAB_EXIT_UNHEALTHY;
	if (a.prom) {
		int prc = sweep_prom_write(&r, a.prom);

		if (prc < 0) {
			fab_err_set(&ctx->err, prc, "%s: %s", a.prom, strerror(-prc));
			rc = FAB_EXIT_SYSTEM;
			goto out;
		}
	}
	if (ctx->render.ops->sweep(&ctx->render, &r) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
	} else if (r.interrupted) {
		rc = sweep_signal_exit();
	}
out:
	fleet_fini(&f);
	sweep_signal_restore();
	sweep_report_fini(&r);
	sched_fini(&s);
	hosts_fini(&hs);
	return rc;
}
