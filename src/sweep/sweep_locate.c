// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Link suspects for a topology-aware sweep (sweep_locate.h): localise the
 * bad pairs on the graph (model/localize.h), run probe pairs that split
 * any group of links the sweep's pairs could not tell apart, and narrow
 * the group with their verdicts.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/pair_store.h"
#include "sweep/sweep_locate.h"
#include "sweep/sweep_results.h"
#include "sweep/sweep_steer.h"
#include "util/log.h"

static enum loc_verdict verdict_of(const struct sweep_pair *p)
{
	switch (p->status) {
	case SWEEP_OK:
		return LOC_OK;
	case SWEEP_SLOW:
	case SWEEP_REGRESSED:	/* sweep --baseline: below its old figures */
		return LOC_SLOW;
	case SWEEP_FAILED:
		return LOC_FAILED;
	case SWEEP_PLANNED:
		break;
	}
	return LOC_UNKNOWN;
}

static int route_cb(void *arg, unsigned int a, unsigned int b, struct pair_route *out)
{
	struct sweep_topo *st = arg;
	struct fab_err err;
	int rc;

	/* Ports a sweep would not pair (one host's, other rails) are no probe either. */
	if (st->hosts && !hosts_ports_pair(&st->hosts->hosts[a], &st->hosts->hosts[b], false))
		return -ENOENT;
	fab_err_init(&err);
	rc = sweep_topo_route(st, a, b, out, &err);
	return rc == -ENETUNREACH || rc == -EHOSTUNREACH ? -ENOENT : rc;
}

void sweep_locate_init(struct sweep_locate *sl)
{
	memset(sl, 0, sizeof(*sl));
}

void sweep_locate_fini(struct sweep_locate *sl)
{
	loc_result_fini(&sl->res);
	loc_acc_free(sl->in.acc);
	loc_probe_obs_free(sl->confirm, sl->n_confirm);
	free(sl->names);
	memset(sl, 0, sizeof(*sl));
}

/* A probe's expected rate: its path's rated speed, else the class reference the sweep used. */
static void probe_expect(const struct sweep_results *sr, const struct pair_route *pr,
			 struct sweep_pair *p)
{
	double c = sr ? sweep_results_class_ref(sr, pr->klass) : NAN;

	p->klass = pr->klass;
	p->expected_mbps = pr->expected_mbps;
	p->expect_src = pr->expected_mbps > 0 ? SWEEP_EXPECT_RATED : SWEEP_EXPECT_NONE;
	if (p->expect_src == SWEEP_EXPECT_NONE && !isnan(c)) {
		p->expected_mbps = c;
		p->expect_src = SWEEP_EXPECT_CLASS;
	}
}

/*
 * Measure the probe pairs @want[0 .. n) in link-safe rounds, labelled
 * "probe", with @pb's ports while they run (NULL: the pairs' own): each
 * into @got[i] (status SWEEP_PLANNED when it was not measured).  0, -EINTR (interrupted), -errno with ctx->err.
 */
static int probes_measure(const struct sweep_locate_env *env, const struct sched_pair *want,
			  size_t n, const struct sweep_steer_probe *pb, struct sweep_pair *got)
{
	struct sweep_pair *m = calloc(n ? n : 1, sizeof(*m));
	struct sched_topo_bound keep = env->st->bound;
	struct sched sc;
	size_t done = 0;
	int rc;

	sched_init(&sc);
	if (!m)
		return fab_err_set(&env->ctx->err, -ENOMEM, "sweep: out of memory");
	rc = sweep_topo_schedule(env->ctx, env->st, SWEEP_MODE_PAIRS, want, n, NULL, &sc);
	env->st->bound = keep;
	if (rc == 0) {
		env->so->label = "probe";
		sweep_steer_probes_use(env->st->steer, pb, pb ? n : 0);
		rc = sweep_measure_sched(env->m, &sc, env->so, m, &done, &env->ctx->err);
		sweep_steer_probes_use(env->st->steer, NULL, 0);
	}
	for (size_t i = 0; i < n; i++)
		got[i].status = SWEEP_PLANNED;
	for (size_t k = 0; rc == 0 && k < sc.n_pairs; k++)
		for (size_t i = 0; i < n; i++)
			if (m[k].a == want[i].a && m[k].b == want[i].b)
				got[i] = m[k];
	sched_fini(&sc);
	free(m);
	return rc;
}

/* Probe @p measured on @route: judged against its expected rate; its verdict. */
static enum loc_verdict probe_judge(const struct sweep_locate_env *env,
				    const struct pair_route *route, struct sweep_pair *p)
{
	if (p->status == SWEEP_PLANNED)
		return LOC_UNKNOWN;
	probe_expect(env->sr, route, p);
	sweep_pair_judge_expected(p, p->expected_mbps, p->expect_src, &env->r->ref, &env->r->cfg);
	return verdict_of(p);
}

/* Measure @pr's pairs (in link-safe rounds) and fold their verdicts into @s. */
static int probe_group(struct sweep_locate *sl, const struct sweep_locate_env *env,
		       struct loc_suspect *s, const struct loc_probes *pr)
{
	struct sched_pair *want = calloc(pr->n, sizeof(*want));
	enum loc_verdict *v = calloc(pr->n, sizeof(*v));
	struct sweep_pair *got = calloc(pr->n, sizeof(*got));
	int rc;

	if (!want || !v || !got) {
		rc = fab_err_set(&env->ctx->err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (size_t i = 0; i < pr->n; i++)
		want[i] = (struct sched_pair){ .a = pr->routes[i].a, .b = pr->routes[i].b };
	rc = probes_measure(env, want, pr->n, NULL, got);
	if (rc == -EINTR) {	/* interrupted: the group stays as the sweep left it */
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < pr->n; i++) {
		v[i] = probe_judge(env, &pr->routes[i], &got[i]);
		if (v[i] == LOC_UNKNOWN)
			continue;
		sl->probes_run++;
		fab_info("probe %s %s: %s%s%s", env->r->hosts->hosts[want[i].a].name,
			 env->r->hosts->hosts[want[i].b].name, sweep_status_name(got[i].status),
			 got[i].reason[0] ? ": " : "", got[i].reason);
	}
	rc = loc_group_narrow(&sl->in, s, pr, v);
	if (rc < 0)
		fab_err_set(&env->ctx->err, rc, "sweep: probes: %s", strerror(-rc));
out:
	free(want);
	free(v);
	free(got);
	return rc;
}

/*
 * A slow pair with one direction slow and the other not (each direction
 * hashed onto its own ECMP member): each direction its own observation
 * (into @d, returned); NULL when the pair is one observation.
 */
static const struct loc_dirs *pair_dirs(const struct sweep_pair *p, double slow_pct, struct loc_dirs *d)
{
	const struct sweep_bw *bw[2] = { &p->ab, &p->ba };
	bool slow[2];

	if (!sweep_pair_dirs_split(p, slow_pct, slow))
		return NULL;
	for (int i = 0; i < 2; i++) {
		d->v[i] = slow[i] ? LOC_SLOW : LOC_OK;
		d->pct[i] = 100 * bw[i]->avg_mbps / p->expected_mbps;
	}
	return d;
}

/*
 * Every measured pair of the store into the localiser's accumulator
 * (@bad_only: the residual pass, which reads only bad pairs).
 */
static int acc_fill(struct sweep_locate *sl, const struct sweep_locate_env *env, bool bad_only)
{
	const struct sweep_report *r = env->r;
	struct sweep_topo *st = env->st;
	struct fab_err *err = &env->ctx->err;
	struct sweep_pair p;
	int rc;

	if (!sl->in.acc && loc_acc_new(&sl->in.acc, &sl->in) < 0)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct loc_dirs *dirs;
		struct loc_dirs d;
		enum loc_verdict v;

		if ((rc = pair_store_get(r->store, i, &p, err)) < 0)
			return rc;
		v = verdict_of(&p);
		if (v == LOC_UNKNOWN || (bad_only && v == LOC_OK))
			continue;
		/* A host whose worker never started measured nothing: no evidence on any link. */
		if (env->skip_host && (env->skip_host[p.a] || env->skip_host[p.b]))
			continue;
		dirs = pair_dirs(&p, r->cfg.slow_pct, &d);
		if (st->routes && i < st->n_routes)
			rc = (dirs ? loc_acc_add_dirs(sl->in.acc, p.a, p.b, &st->routes[i], dirs)
				   : loc_acc_add(sl->in.acc, p.a, p.b, &st->routes[i], v, p.pct_rated)) < 0
			     ? fab_err_set(err, -ENOMEM, "sweep: out of memory") : 0;
		else
			rc = sweep_topo_loc_add(st, sl->in.acc, p.a, p.b, v, p.pct_rated, dirs, err);
		if (rc < 0)
			return rc;
	}
	/* diagnose --from: the sweep's confirming probes, as it measured them */
	for (size_t i = 0; i < env->n_saved; i++) {
		const struct loc_probe_obs *o = &env->saved[i];

		if (bad_only && o->d.v[0] == LOC_OK && o->d.v[1] == LOC_OK)
			continue;
		if (loc_acc_add_dirs(sl->in.acc, o->a, o->b, &o->route, &o->d) == -ENOMEM)
			return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	}
	return 0;
}

/*
 * Confirming probes of a steered sweep (docs/paths.md "Confirming
 * suspects"): each link the measured pairs cannot clear (every pair
 * crossing it bad: the suspects, and links that only shared their bad
 * pairs) gets a test on a traced path that crosses it and none of the
 * others; the verdicts join the evidence and the links are localised
 * again.  A fault hidden behind another (all its pairs crossed the
 * first) is then named, and an innocent link that only shared a fault's
 * pairs is cleared.  Up to CONFIRM_PASSES passes, each on the links not
 * probed yet.
 */
#define CONFIRM_MAX 64
#define CONFIRM_PASSES 2

/* Probe @pb measured @d: into the evidence, and kept for the JSON (sl->confirm). */
static int confirm_keep(struct sweep_locate *sl, const struct sweep_steer_probe *pb,
			const struct loc_dirs *d)
{
	struct loc_probe_obs *o = realloc(sl->confirm, (sl->n_confirm + 1) * sizeof(*o));

	if (!o)
		return -ENOMEM;
	sl->confirm = o;
	o = &sl->confirm[sl->n_confirm];
	*o = (struct loc_probe_obs){ .a = pb->a, .b = pb->b, .link = pb->link, .d = *d };
	if (pair_route_dup(&o->route, &pb->route) < 0) {
		pair_route_fini(&o->route);
		return -ENOMEM;
	}
	sl->n_confirm++;
	return loc_acc_add_dirs(sl->in.acc, o->a, o->b, &o->route, &o->d);
}

static int confirm_measure(struct sweep_locate *sl, const struct sweep_locate_env *env,
			   const struct sweep_steer_probe *pb, size_t n, enum loc_verdict *v)
{
	struct sched_pair *want = calloc(n, sizeof(*want));
	struct sweep_pair *got = calloc(n, sizeof(*got));
	struct fab_err *err = &env->ctx->err;
	int rc;

	if (!want || !got) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		want[i] = (struct sched_pair){ .a = pb[i].a, .b = pb[i].b };
	rc = probes_measure(env, want, n, pb, got);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		struct loc_dirs d;
		char ln[300];

		v[i] = probe_judge(env, &pb[i].route, &got[i]);
		if (v[i] == LOC_UNKNOWN)
			continue;
		sl->probes_run++;
		if (!pair_dirs(&got[i], env->r->cfg.slow_pct, &d))	/* one observation */
			d = (struct loc_dirs){ { v[i], v[i] }, { got[i].pct_rated, got[i].pct_rated } };
		if ((rc = confirm_keep(sl, &pb[i], &d)) < 0) {
			fab_err_set(err, rc, "sweep: out of memory");
			break;
		}
		sweep_topo_link_text(env->st->t, pb[i].link, ln, sizeof(ln));
		fab_info("confirm %s %s (crosses %s alone): %s%s%s",
			 env->r->hosts->hosts[pb[i].a].name, env->r->hosts->hosts[pb[i].b].name,
			 ln, sweep_status_name(got[i].status),
			 got[i].reason[0] ? ": " : "", got[i].reason);
	}
out:
	free(want);
	free(got);
	return rc;
}

/* Each suspect's members' confirming probes as its evidence (ev.probes_run, probes_bad). */
static void confirm_mark(struct loc_result *res, const uint32_t *link, const enum loc_verdict *v,
			 size_t n)
{
	for (size_t i = 0; i < res->n_suspects; i++) {
		struct loc_suspect *s = &res->suspects[i];

		for (size_t m = 0; m < s->n_members; m++)
			for (size_t j = 0; j < n; j++) {
				if (link[j] == LOC_NO_LINK || s->members[m].link != link[j] ||
				    v[j] == LOC_UNKNOWN)
					continue;
				s->ev.probes_run++;
				s->ev.probes_bad += v[j] != LOC_OK;
			}
	}
}

/* The worse of a probe's two directions: its verdict as a pair. */
static enum loc_verdict probe_verdict(const struct loc_dirs *d)
{
	if (d->v[0] == LOC_FAILED || d->v[1] == LOC_FAILED)
		return LOC_FAILED;
	if (d->v[0] == LOC_SLOW || d->v[1] == LOC_SLOW)
		return LOC_SLOW;
	return d->v[0] == LOC_OK || d->v[1] == LOC_OK ? LOC_OK : LOC_UNKNOWN;
}

static int confirm_steered(struct sweep_locate *sl, const struct sweep_locate_env *env)
{
	uint32_t t[CONFIRM_MAX], probed[CONFIRM_MAX * CONFIRM_PASSES];
	enum loc_verdict pv[CONFIRM_MAX * CONFIRM_PASSES];
	size_t n_probed = 0;
	int rc = 0;

	if (!env->m || !env->st->steer || !sl->res.n_suspects || loc_acc_sampled(sl->in.acc))
		return 0;
	for (int pass = 0; pass < CONFIRM_PASSES && rc == 0; pass++) {
		size_t nt = loc_acc_unexonerated(sl->in.acc, &sl->res, t, CONFIRM_MAX), k = 0;
		struct sweep_steer_probe *pb = NULL;
		enum loc_verdict v[CONFIRM_MAX] = { 0 };
		size_t np = 0;

		/* the links probed already are cleared or confirmed: the others */
		for (size_t i = 0; i < nt; i++) {
			bool seen = false;

			for (size_t j = 0; j < n_probed && !seen; j++)
				seen = probed[j] == t[i];
			if (!seen)
				t[k++] = t[i];
		}
		if (!k)
			break;
		/* each probe is judged against the rest of @t: every unexonerated link is avoided */
		rc = sweep_steer_probes(env->st, t, k, env->skip_host, &pb, &np);
		if (rc < 0)
			return fab_err_set(&env->ctx->err, rc, "sweep: out of memory");
		if (!np) {
			sweep_steer_probes_free(pb, np);
			break;
		}
		fab_info("confirming: %zu of %zu links no measured pair clears, each probed on a "
			 "traced path that crosses it and none of the others", np, k);
		rc = confirm_measure(sl, env, pb, np, v);
		for (size_t i = 0; i < np && n_probed < CONFIRM_MAX * CONFIRM_PASSES; i++) {
			pv[n_probed] = v[i];
			probed[n_probed++] = pb[i].link;
		}
		sweep_steer_probes_free(pb, np);
		if (rc == -EINTR)
			return 0;
		if (rc == 0) {
			loc_result_fini(&sl->res);
			rc = loc_localize(&sl->in, NULL, &sl->res, &env->ctx->err);
		}
	}
	if (rc == 0)
		confirm_mark(&sl->res, probed, pv, n_probed);
	return rc;
}

int sweep_locate_run(struct sweep_locate *sl, const struct sweep_locate_env *env)
{
	const struct sweep_report *r = env->r;
	struct sweep_topo *st = env->st;
	int rc;

	sl->names = calloc(r->hosts->n ? r->hosts->n : 1, sizeof(*sl->names));
	if (!sl->names)
		return fab_err_set(&env->ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < r->hosts->n; i++)
		sl->names[i] = r->hosts->hosts[i].name;
	sl->in = (struct loc_input){ .topo = st->t, .host_link = st->host_link,
		.host_names = sl->names, .n_hosts = r->hosts->n };
	rc = acc_fill(sl, env, false);
	if (rc == 0)
		rc = loc_localize(&sl->in, NULL, &sl->res, &env->ctx->err);
	/*
	 * More bad pairs than the localiser keeps: what its sample missed is
	 * looked for again among the bad pairs that no suspect explains.
	 */
	for (int pass = 0; rc == 0 && pass < SWEEP_LOCATE_RESIDUAL_PASSES &&
			   loc_acc_sampled(sl->in.acc); pass++) {
		fab_info("localise: %u bad pairs, a sample of them localised: looking again among "
			 "those no suspect of %zu explains", sl->res.n_bad, sl->res.n_suspects);
		if (loc_acc_residual(sl->in.acc, &sl->res) < 0)
			return fab_err_set(&env->ctx->err, -ENOMEM, "sweep: out of memory");
		rc = acc_fill(sl, env, true);
		if (rc == 0)
			rc = loc_localize_more(&sl->in, NULL, &sl->res, &env->ctx->err);
	}
	if (rc == 0)
		rc = confirm_steered(sl, env);
	if (rc == 0 && env->n_saved) {	/* diagnose --from: the saved probes as the suspects' evidence */
		uint32_t *link = calloc(env->n_saved, sizeof(*link));
		enum loc_verdict *v = calloc(env->n_saved, sizeof(*v));

		for (size_t i = 0; link && v && i < env->n_saved; i++) {
			link[i] = env->saved[i].link;
			v[i] = probe_verdict(&env->saved[i].d);
		}
		if (link && v)
			confirm_mark(&sl->res, link, v, env->n_saved);
		free(link);
		free(v);
		if (!link || !v)
			rc = fab_err_set(&env->ctx->err, -ENOMEM, "sweep: out of memory");
	}
	if (rc < 0)
		return rc;
	for (size_t i = 0; env->m && i < sl->res.n_suspects; i++) {
		struct loc_suspect *s = &sl->res.suspects[i];
		struct loc_probe_req req = { .max_probes = env->max_probes, .avoid = env->skip_host };
		struct loc_probes pr = { 0 };

		if (s->kind != LOC_KIND_GROUP)
			continue;
		rc = loc_probes_pick(&sl->in, s, &req, route_cb, st, &pr, &env->ctx->err);
		if (rc == 0 && pr.n) {
			fab_info("probing %zu pair%s to split a group of %zu links", pr.n,
				 pr.n == 1 ? "" : "s", s->n_members);
			rc = probe_group(sl, env, s, &pr);
		}
		loc_probes_fini(&pr);
		if (rc < 0)
			return rc;
	}
	return 0;
}
