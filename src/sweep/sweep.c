// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sweep's door (sweep.h): pairwise latency and bandwidth between the
 * nodes of a hosts file.  Loads the hosts, builds the schedule
 * (sweep_sched.c), starts the workers (fleet/), runs the rounds
 * (fleet/sweep.c), judges the pairs against the fleet (model/stats.c),
 * re-tests the slow ones (sweep_retest.c), names suspects and hands the
 * report back; the commands render it.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "fleet/fleet_dial.h"
#include "fleet/fleet_op.h"
#include "fleet/sweep.h"
#include "io/load.h"
#include "io/pair_store.h"
#include "model/schedule.h"
#include "model/sweep_judge.h"
#include "sweep/sweep_impl.h"
#include "sweep/sweep_signal.h"
#include "sweep/sweep_steer.h"
#include "util/log.h"
#include "util/str.h"

const char *sweep_mode_name(enum sweep_mode m)
{
	switch (m) {
	case SWEEP_MODE_ALL_PAIRS:
		return "all-pairs";
	case SWEEP_MODE_SERIAL:
		return "serial";
	case SWEEP_MODE_PAIRS:
		return "pairs";
	case SWEEP_MODE_BIPARTITE:
		return "bipartite";
	case SWEEP_MODE_COVERAGE:
		return "coverage";
	case SWEEP_MODE_COVERAGE_NEW:
		return "coverage-new";
	}
	return "all-pairs";
}

void sweep_req_default(struct sweep_req *req)
{
	*req = (struct sweep_req){
		.fo = FLEET_OPTS_DEFAULT,
		.transport = "tcp", .mode = SWEEP_MODE_ALL_PAIRS, .duration_s = 1, .timeout_s = 10,
		.lat_iters = 2000, .msg_bytes = 64, .streams = 1, .interval_ms = 100,
		.verbs = TP_VERBS_TUNING_DEFAULT,
		.retest = true, .progress = -1, .regress_pct = 10,
	};
	sweep_cfg_default(&req->cfg);
	req->cfg.lat_floor_ns = -1;	/* the transport's (sweep_cfg_transport) */
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
	v->steer = sweep_steer_view(st->steer);
}

/*
 * Fewer than two workers up: nothing can be measured, and every pair
 * "failed" would read as a fabric fault (a node suspect per host, exit 1)
 * where the launcher is what failed.  A launch failure instead: exit 3,
 * naming the launcher and the first worker's error.
 */
static int launch_check(struct sweep_ctx *ctx, const struct sweep_req *req, const struct fleet *f)
{
	const struct fleet_worker *first = NULL;
	size_t live = 0;

	for (size_t i = 0; i < f->n; i++)	/* workers: a host of several ports has one */
		live += !f->w[i].alias && !f->w[i].dead;
	if (live >= 2)
		return 0;
	for (size_t i = 0; i < f->n && !first; i++)
		if (f->w[i].dead)
			first = &f->w[i];
	return fab_err_set(&ctx->err, -ENOTCONN,
			   "launch failed: %zu of %zu workers started with launcher '%s'%s%s%s%s%s; "
			   "nothing was measured", live, f->n_procs, req->fo.launcher,
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

/* The hosts file's end points into @hs, its switches' lines into @fabric. */
static int hosts_read(struct sweep_ctx *ctx, const struct sweep_req *req, struct fab_hosts *hs,
		      struct fab_hosts *fabric)
{
	struct fab_hosts all;
	int rc;

	hosts_init(&all);
	rc = hosts_load(&all, req->hosts, &ctx->err);
	if (rc == 0 && hosts_split_role(&all, hs, fabric) < 0)
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	hosts_fini(&all);
	if (rc < 0)
		return rc;
	if (hs->n < 2)
		return fab_err_input(&ctx->err, -EINVAL, "%s: a sweep needs at least two hosts", req->hosts);
	return 0;
}

/*
 * The workers, when they are needed (not for a dry run on a plan or the
 * IB subnet, nor when something else measures); what can be checked is
 * checked before any of them starts.
 */
static int workers_start(struct sweep_state *w)
{
	struct sweep_ctx *ctx = &w->ctx;
	const struct sweep_req *req = &w->req;
	const struct sweep_checks *c = &req->checks;
	int rc;

	if (req->dry_run && !(w->st && w->st->kind == SWEEP_TOPO_LLDP))
		return 0;
	if ((c->before_workers && c->before_workers(c->ctx, &ctx->err) < 0) ||
	    (!req->measure && (fleet_launcher_check(&req->fo, &w->hs, &ctx->err) < 0 ||
			       (w->fabric.n && fleet_launcher_check(&req->fo, &w->fabric, &ctx->err) < 0))))
		return -EINVAL;
	if (!req->measure && ((rc = fleet_start(&w->f, &w->hs, &req->fo, &ctx->err)) < 0 ||
			      (rc = launch_check(ctx, req, &w->f)) < 0))
		return rc;
	return 0;
}

/*
 * With a topology and many hosts, all pairs become a coverage sweep unless
 * --all-pairs; with rails, hosts are nodes and the coverage is a rail's
 * (coverage_pick_rails()), so not with --cross-rail (every NIC pair asked for).
 */
static void coverage_auto(struct sweep_req *req, const struct sweep_topo *st,
			  const struct fab_hosts *hs)
{
	bool rails = hosts_have_rails(hs);
	size_t n_hosts = hs->n, n_pairs = n_hosts * (n_hosts - 1) / 2;

	if (rails)
		n_pairs = hosts_rail_pairs_count(hs, &n_hosts);
	if (!st || req->all_pairs || req->coverage_k || req->mode != SWEEP_MODE_ALL_PAIRS ||
	    n_hosts <= SWEEP_COVERAGE_AUTO_HOSTS)
		return;
	if (rails && req->cross_rail) {
		fab_info("sweep: %zu hosts (more than %d): --cross-rail measures every pair of NICs "
			 "(a coverage sweep chooses rail pairs)", n_hosts, SWEEP_COVERAGE_AUTO_HOSTS);
		return;
	}
	req->coverage_k = SWEEP_COVERAGE_AUTO_K;
	req->mode = SWEEP_MODE_COVERAGE;
	if (rails)
		fab_info("sweep: %zu hosts (more than %d) of %zu fabric ports: coverage sweep a rail, "
			 "every link crossed by and every port in at least %d pairs of its rail; "
			 "--all-pairs for all %zu rail pairs", n_hosts, SWEEP_COVERAGE_AUTO_HOSTS, hs->n,
			 SWEEP_COVERAGE_AUTO_K, n_pairs);
	else
		fab_info("sweep: %zu hosts (more than %d): coverage sweep, every link crossed by and "
			 "every host in at least %d pairs; --all-pairs for all %zu", n_hosts,
			 SWEEP_COVERAGE_AUTO_HOSTS, SWEEP_COVERAGE_AUTO_K, n_pairs);
}

/*
 * Hosts, topology, fleet, schedule: everything before the first round.
 * The fleet starts only when it is needed (workers_start()).
 */
static int sweep_prepare(struct sweep_state *w)
{
	struct sweep_ctx *ctx = &w->ctx;
	struct sweep_req *req = &w->req;
	struct sweep_topo *st = w->st;
	int rc;

	if ((rc = hosts_read(ctx, req, &w->hs, &w->fabric)) < 0)
		return rc;
	if (req->measure && st && st->kind == SWEEP_TOPO_LLDP)
		return fab_err_input(&ctx->err, -EINVAL, "sweep: --topology lldp needs the workers");
	if (st && (rc = sweep_topo_load(ctx, st, &req->ib)) < 0)
		return rc;
	if ((rc = workers_start(w)) < 0)
		return rc;
	if (st && st->kind == SWEEP_TOPO_LLDP &&
	    (rc = sweep_topo_load_lldp(ctx, st, &w->f, &w->hs, &w->fabric, &req->fo,
				       req->lldp_socket)) < 0)
		return rc;
	if (st) {
		rc = sweep_topo_place(ctx, st, &w->hs);
		if (rc < 0)
			return rc;
		if (req->on_fabric)
			req->on_fabric(req->hook_ctx, st);
	}
	if (st && req->optics && !req->dry_run && !req->measure &&
	    (rc = sweep_optics_before(ctx, &w->optics, &w->f)) < 0)
		return rc;
	if (st && !req->dry_run && !req->measure &&
	    (rc = sweep_topo_counters_before(ctx, st, &w->f)) < 0)
		return rc;
	coverage_auto(req, st, &w->hs);
	if (st)
		st->cov_k = req->coverage_k;
	rc = sweep_schedule_build(ctx, req, &w->hs, st, &w->s, &w->src);
	if (rc == 0 && st && req->steer && req->dry_run)
		rc = sweep_steer_dry(ctx, st, req->transport, req->streams, &w->s, &w->src);
	else if (rc == 0 && st && req->steer && (!req->measure || req->measure->trace)) {
		st->sim = req->measure;
		rc = sweep_steer_run(ctx, st, &w->f, req->transport, req->streams, &w->s, &w->src);
	}
	if (rc < 0)
		return rc;
	/* A large sweep's results go to $TMPDIR: can they, before hours of rounds? */
	if ((rc = pair_store_check(w->src.n_pairs, &ctx->err)) < 0)
		return rc;
	if (req->checks.scheduled &&
	    (rc = req->checks.scheduled(req->checks.ctx, w->src.n_pairs, &ctx->err)) < 0)
		return rc;
	if (st && st->have_bound)
		fab_info("topology: %zu rounds for %zu pairs; lower bound %zu (node %zu, link %zu, cut %zu)",
			 w->src.n_rounds, w->src.n_pairs, st->bound.bound, st->bound.node, st->bound.link,
			 st->bound.cut);
	return 0;
}

static void plan_fill(struct sweep_opts *so, const struct sweep_req *a)
{
	so->transport = a->transport;
	so->spec.lat_iters = a->lat_iters;
	so->spec.lat_ms = (unsigned int)(a->lat_time_s * 1000 + 0.5);
	so->spec.msg_bytes = a->msg_bytes;
	so->spec.duration_ms = (unsigned int)(a->duration_s * 1000 + 0.5);
	so->spec.interval_ms = a->interval_ms;
	so->spec.streams = a->streams;
	so->spec.verbs = a->verbs;
	so->spec.bw_fwd = so->spec.bw_rev = so->spec.duration_ms > 0;
	/* Both directions, the latency loop at >= 10 us a round trip, and slack. */
	so->spec.timeout_ms = 2 * so->spec.duration_ms +
			      (so->spec.lat_ms ? so->spec.lat_ms : a->lat_iters / 50) +
			      (unsigned int)(a->timeout_s * 1000);
	so->step_timeout_ms = (int)(a->timeout_s * 1000);
	so->progress = a->progress < 0 ? isatty(STDERR_FILENO) : a->progress;
	so->label = "sweep";
}

static void report_fill(struct sweep_report *r, const struct sweep_req *a,
			const struct sweep_opts *so, const struct fab_hosts *hs,
			const struct sched_src *src)
{
	r->hosts = hs;
	r->rails = hosts_have_rails(hs);
	r->transport = a->transport;
	r->launcher = a->measure ? "simulated" : a->fo.launcher;
	r->mode = sweep_mode_name(a->mode);
	r->cfg = a->cfg;
	sweep_cfg_transport(&r->cfg, r->transport);
	r->duration_ms = so->spec.duration_ms;
	r->lat_iters = a->lat_iters;
	r->lat_ms = so->spec.lat_ms;
	r->streams = a->streams;
	r->msg_bytes = a->msg_bytes;
	r->n_rounds = src->n_rounds;
	r->started_unix = (int64_t)time(NULL);
	r->dry_run = a->dry_run;
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

/* Without a topology: node (and link) suspects by count, two passes over the store. */
static int suspects_by_count(struct sweep_report *r, struct sweep_results *sr, struct fab_err *err)
{
	struct sweep_suspects_acc acc;
	size_t n = pair_store_count(sr->store);
	struct sweep_pair p;
	int rc;

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
	return rc;
}

/* --steer, verbs: each pair's recorded UDP source ports against its planned ones. */
static int steer_sports(struct sweep_state *w, struct sweep_report *r)
{
	struct sweep_pair p;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < r->n_pairs; i++)
		if ((rc = pair_store_get(r->store, i, &p, &w->ctx.err)) == 0)
			sweep_steer_sports(w->st, p.a, p.b, p.sport_ab, p.sport_ba);
	return rc;
}

/*
 * --steer: the steered pairs not ok traced again on their last tuples
 * (sweep_steer_recheck()), before the localiser reads their routes; for
 * verbs, first the pairs whose QPs sent from other ports than planned.
 */
static int steer_recheck(struct sweep_state *w, struct sweep_report *r)
{
	struct sweep_ctx *ctx = &w->ctx;
	unsigned int (*ab)[2];
	struct sweep_pair p;
	size_t n = 0;
	int rc = 0;

	if (!w->st || !w->st->steer || r->interrupted || (w->req.measure && !w->req.measure->trace))
		return 0;
	if (strcmp(w->req.transport, "verbs") == 0 && (rc = steer_sports(w, r)) < 0)
		return rc;
	if (!(r->n_slow + r->n_failed))
		return 0;
	ab = calloc(r->n_slow + r->n_failed, sizeof(*ab));
	if (!ab)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; rc == 0 && i < r->n_pairs && n < r->n_slow + r->n_failed; i++) {
		if ((rc = pair_store_get(r->store, i, &p, &ctx->err)) < 0)
			break;
		if (p.status == SWEEP_SLOW || p.status == SWEEP_FAILED) {
			ab[n][0] = p.a;
			ab[n++][1] = p.b;
		}
	}
	if (rc == 0)
		rc = sweep_steer_recheck(ctx, w->st, &w->f, (const unsigned int (*)[2])ab, n);
	free(ab);
	return rc;
}

/* Everything after the rounds: verdicts, retests, baseline, links named. */
static int sweep_conclude(struct sweep_state *w, struct sweep_report *r,
			  const struct sweep_measure *m, struct sweep_opts *so)
{
	struct sweep_ctx *ctx = &w->ctx;
	const struct sweep_req *a = &w->req;
	struct sweep_results *sr = &w->sr;
	struct sweep_topo *st = w->st;
	struct sweep_locate *sl = &w->sl;
	struct fab_err *err = &ctx->err;
	int rc;

	if ((rc = sweep_results_judge(sr, r, err)) < 0 ||
	    /* --baseline: judged after the fleet, again after the retest re-judged its pairs */
	    (rc = sweep_baseline_apply(&w->base, a->regress_pct, r, err)) < 0 ||
	    (a->retest && !r->interrupted &&
	     (rc = sweep_retest(ctx, m, so, r, sr, st, SWEEP_RETEST_SLOW)) < 0) ||
	    /* again: the retested pairs' regressions, for the confirming pass */
	    (a->retest && !r->interrupted &&
	     (rc = sweep_baseline_apply(&w->base, a->regress_pct, r, err)) < 0) ||
	    (a->retest && !r->interrupted &&
	     (rc = sweep_retest(ctx, m, so, r, sr, st, SWEEP_RETEST_CONFIRM)) < 0) ||
	    (a->retest && !r->interrupted &&
	     (rc = sweep_retest(ctx, m, so, r, sr, st, SWEEP_RETEST_LATENCY)) < 0) ||
	    (rc = sweep_baseline_apply(&w->base, a->regress_pct, r, err)) < 0 ||
	    (rc = sweep_results_count(sr, r, err)) < 0 ||
	    (rc = steer_recheck(w, r)) < 0)
		return rc;
	if (st && !r->interrupted) {	/* name the links, probing groups over the same workers */
		struct sweep_locate_env env = { .ctx = ctx, .st = st, .r = r, .m = m, .so = so,
						.sr = sr, .skip_host = r->not_started };

		if ((rc = sweep_locate_run(sl, &env)) < 0 ||
		    (!a->measure && (rc = sweep_topo_counters(ctx, st, &a->ib, a->policy, &w->crep)) < 0))
			return rc;
		if ((rc = loc_apply_counters(&sl->in, &sl->res, &w->crep)) < 0)
			return fab_err_set(err, rc, "sweep: counters: %s", strerror(-rc));
		if ((rc = sweep_optics_suspects(ctx, &w->optics, &w->f, st, &sl->res)) < 0)
			return rc;
		r->cables = w->optics.have_now ? &w->optics.now : NULL;
		/* The renderers read the suspects, not the evidence behind them. */
		loc_acc_free(sl->in.acc);
		sl->in.acc = NULL;
		/* Probes may have re-judged nothing in the store; counts stand. */
	}
	/* With a topology the suspects are links (r->fabric.loc), never hosts by count. */
	if (!st)
		rc = suspects_by_count(r, sr, err);
	return rc;
}

/* What a step that failed returns: its -errno (ctx->err), never 0. */
static int sweep_failed(const struct sweep_ctx *ctx)
{
	return ctx->err.code < 0 ? ctx->err.code : -EIO;
}

/* Why the link of port @nic is not carrying traffic into @buf ("" when it is up). */
static void port_state(const struct host_state *hs, const char *nic, char *buf, size_t len)
{
	const struct fab_link *l = host_state_link_by_name(hs, nic);

	buf[0] = '\0';
	if (!l)
		str_fmt(buf, len, "%s: no such interface on the node", nic);
	else if (!l->admin_up || (strcmp(l->operstate, "up") && strcmp(l->operstate, "unknown")))
		str_fmt(buf, len, "%s down (%soperstate %s)", nic, l->admin_up ? "" : "admin down, ",
			l->operstate);
}

/*
 * Hosts of several fabric ports: each port's link as its node reports it
 * before the rounds.  A port not up is said now, and its failed pairs give
 * that first (sweep_results.h port_down).  Not for a dry run or without
 * workers; a node that does not answer stays unknown.
 */
static int ports_down_read(struct sweep_state *w)
{
	struct fleet_ports *p;
	char (*down)[80];
	int rc;

	if (w->req.dry_run || w->req.measure || !w->f.n || !hosts_have_rails(&w->hs))
		return 0;
	p = calloc(w->f.n, sizeof(*p));
	down = calloc(w->hs.n, sizeof(*down));
	if (!p || !down) {
		free(p);
		free(down);
		return fab_err_set(&w->ctx.err, -ENOMEM, "sweep: out of memory");
	}
	rc = fleet_ports_read(&w->f, (int)(w->req.timeout_s * 1000), p, &w->ctx.err);
	for (size_t i = 0; rc == 0 && i < w->f.n && i < w->hs.n; i++) {
		const struct fab_host *h = &w->hs.hosts[i];

		if (!p[i].got || !h->nic[0])
			continue;
		port_state(&p[i].hs, h->nic, down[i], sizeof(down[i]));
		if (down[i][0])
			fab_warn("sweep: %s: %s: its pairs will fail", h->name, down[i]);
	}
	fleet_ports_fini(p, w->f.n);
	free(p);
	if (rc < 0) {
		free(down);
		return rc;
	}
	w->sr.port_down = down;
	return 0;
}

/* Before the first round: the measurement's options and the report's head. */
static int sweep_ready(struct sweep_state *w, struct sweep_report *r, struct sweep_opts *so)
{
	struct sweep_ctx *ctx = &w->ctx;

	plan_fill(so, &w->req);
	if (w->st && w->st->steer) {	/* --steer: each test on its traced ports */
		so->pair_spec = sweep_steer_pair_spec;
		so->pair_spec_ctx = w->st;
	}
	if (getrandom(so->token, sizeof(so->token), 0) != (ssize_t)sizeof(so->token)) {
		fab_err_set(&ctx->err, -errno, "sweep: getrandom: %s", strerror(errno));
		return sweep_failed(ctx);
	}
	report_fill(r, &w->req, so, &w->hs, &w->src);
	r->store = w->sr.store;
	fleet_dial_report(&w->f, &r->launch);
	if (workers_not_started(&w->f, &w->not_started, &r->n_not_started) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	r->not_started = w->not_started;
	if (r->n_not_started)
		fab_warn("sweep: %zu of %zu workers did not start (launcher %s): their pairs fail "
			 "unmeasured, not as fabric faults", r->n_not_started, w->f.n, r->launcher);
	return 0;
}

/* The rounds (or, for a dry run, the plan of them) into the store. */
static int sweep_rounds(struct sweep_state *w, struct sweep_report *r,
			const struct sweep_measure *m, struct sweep_opts *so)
{
	struct sweep_ctx *ctx = &w->ctx;
	int rc;

	if (w->req.dry_run)
		return sweep_results_plan(&w->sr, &w->src, &ctx->err);
	if (!w->req.measure && strcmp(w->req.transport, "verbs") == 0 &&
	    fleet_rdma_check(&w->f, so->step_timeout_ms, &ctx->err) < 0)
		return -EIO;
	rc = m->run(m->ctx, &w->src, so, sweep_results_round, &w->sr, &r->rounds_done, &ctx->err);
	r->n_rounds = w->src.n_rounds > r->rounds_done ? w->src.n_rounds : r->rounds_done;
	return rc;
}

/* The bonded ends' legs, after every verdict of the rounds (sweep_legs.h). */
static int legs_run(struct sweep_state *w, struct sweep_report *r, const struct sweep_measure *m,
		    const struct sweep_opts *so)
{
	struct sweep_legs_fabric fab = { 0 };
	struct sweep_legs_sel sel = { .pair = { w->req.target[0], w->req.target[1] },
				      .new_only = w->req.legs_new_once,
				      .once = w->req.legs_new_once,
				      .slow_pct = w->req.legs_slow_pct };

	if (!w->req.legs || w->req.measure || r->interrupted)
		return 0;
	if (w->st) {
		fab.t = w->st->t;
		fab.host_link = w->st->host_link;
		fab.lldp = w->st->kind == SWEEP_TOPO_LLDP;
	}
	return sweep_legs_run(&w->ctx, &w->legs, &w->f, m, so, w->req.retest, &fab, &sel, r);
}

/* A measuring run (not --from): 0 with @out's report, or -errno (ctx.err set; -EINTR: a signal). */
static int sweep_measure_run(struct sweep_state *w, struct sweep_outcome *out)
{
	struct sweep_ctx *ctx = &w->ctx;
	struct sweep_report *r = &out->report;
	struct sweep_opts so = { 0 };
	struct sweep_measure fm;
	const struct sweep_measure *m = w->req.measure;
	struct timespec t0, t1;
	int rc;

	w->req.fo.verbose = fab_log_level;
	if (w->req.baseline && sweep_baseline_load(&w->base, w->req.baseline, &ctx->err) < 0)
		return sweep_failed(ctx);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Caught before the first worker starts: the fleet's start watches the flag too. */
	so.stop = w->req.fo.stop = sweep_signal_install();
	w->signals = true;
	if (sweep_prepare(w) < 0 ||
	    sweep_results_init(&w->sr, &w->hs, w->st, w->src.n_pairs, &ctx->err) < 0)
		/* A signal while the workers started: no round ran; 128 + the signal. */
		return sweep_signal_exit() ? -EINTR : sweep_failed(ctx);
	if (!m) {
		sweep_measure_fleet(&fm, &w->f);
		m = &fm;
	}
	if (ports_down_read(w) < 0)
		return sweep_failed(ctx);
	if ((rc = sweep_ready(w, r, &so)) < 0)
		return rc;
	rc = sweep_rounds(w, r, m, &so);
	r->n_pairs = pair_store_count(w->sr.store);
	if (rc < 0 && rc != -EINTR && (w->req.dry_run || !r->n_pairs))
		return rc;
	if (rc == -EINTR)
		sweep_report_cut(r, r->rounds_done);
	else if (rc < 0)
		out->stop_rc = sweep_report_stopped(r, &ctx->err);
	if (!w->req.dry_run) {
		rc = sweep_conclude(w, r, m, &so);
		if (rc < 0) {
			if (!ctx->err.msg[0])
				fab_err_set(&ctx->err, rc, "sweep: %s", strerror(-rc));
			return rc;
		}
		rc = legs_run(w, r, m, &so);
		if (rc == -EINTR)	/* a signal during the legs: the measured reported */
			r->interrupted = true;
		else if (rc < 0)
			return rc;
	} else {
		sweep_ref_compute(NULL, 0, &r->ref);
	}
	fleet_fini(&w->f);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (w->st) {
		fabric_view(r, w->st);
		r->fabric.loc = w->req.dry_run ? NULL : &w->sl.res;
		r->fabric.loc_in = &w->sl.in;
		r->fabric.probes_run = w->sl.probes_run;
		r->fabric.confirm = w->sl.confirm;
		r->fabric.n_confirm = w->sl.n_confirm;
	}
	return 0;
}

static void sweep_state_init(struct sweep_state *w, const struct sweep_req *req)
{
	w->req = *req;
	if (w->req.target[0])
		w->req.mode = SWEEP_MODE_PAIRS;
	sweep_locate_init(&w->sl);
	sweep_optics_init(&w->optics);
	sweep_legs_init(&w->legs);
	hosts_init(&w->hs);
	hosts_init(&w->fabric);
	sched_init(&w->s);
	counter_snap_init(&w->before);
	counter_snap_init(&w->after);
	sweep_doc_init(&w->doc);
	if (req->topology && !req->from) {
		sweep_topo_init(&w->topo, req->topology);
		w->st = &w->topo;
	}
	w->ctx.sys = req->sys;
	fab_err_init(&w->ctx.err);
}

static void sweep_state_free(struct sweep_state *w)
{
	if (!w)
		return;
	fleet_fini(&w->f);
	if (w->signals)
		sweep_signal_restore();
	sched_src_fini(&w->src);
	sched_fini(&w->s);
	sweep_locate_fini(&w->sl);
	sweep_results_fini(&w->sr);
	sweep_baseline_fini(&w->base);
	counter_report_fini(&w->crep);
	sweep_optics_fini(&w->optics);
	sweep_legs_fini(&w->legs);
	if (w->st)
		sweep_topo_fini(w->st);
	counter_snap_fini(&w->before);
	counter_snap_fini(&w->after);
	sweep_doc_fini(&w->doc);
	hosts_fini(&w->fabric);
	hosts_fini(&w->hs);
	free(w->not_started);
	free(w);
}

int sweep_run(const struct sweep_req *req, struct sweep_outcome *out, struct fab_err *err)
{
	struct sweep_state *w = calloc(1, sizeof(*w));
	int rc;

	memset(out, 0, sizeof(*out));
	if (!w)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	sweep_state_init(w, req);
	rc = req->from ? sweep_from_run(w, out) : sweep_measure_run(w, out);
	*err = w->ctx.err;
	if (rc < 0) {
		sweep_report_fini(&out->report);
		sweep_state_free(w);
		memset(out, 0, sizeof(*out));
		return rc;
	}
	out->state = w;
	return 0;
}

void sweep_outcome_fini(struct sweep_outcome *out)
{
	sweep_state_free(out->state);
	sweep_report_fini(&out->report);
	memset(out, 0, sizeof(*out));
}
