// SPDX-License-Identifier: GPL-2.0-or-later
/* accept's run (accept_run.h): its inputs, the stages in order, the verdict. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/load.h"
#include "sweep/accept_impl.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/log.h"

#define ACCEPT_POLICY_MAX (1u << 20)

/* ---- input, all read and checked before any node is contacted ---- */

static int load_policy(struct accept_state *s, struct fab_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	accept_policy_default(&s->pol);
	if (!s->o.policy)
		return 0;
	rc = file_read_all(s->o.policy, ACCEPT_POLICY_MAX, &buf, &len, err);
	if (rc == 0)
		rc = accept_policy_parse(&s->pol, buf, len, s->o.policy, err);
	free(buf);
	return rc;
}

static int load_inputs(struct accept_state *s, struct fab_err *err)
{
	int rc = load_policy(s, err);

	if (rc < 0)
		return rc;
	if (s->o.coverage_k)
		s->pol.coverage_k = s->o.coverage_k;
	rc = hosts_load(&s->all, s->o.hosts, err);
	if (rc < 0)
		return rc;
	if (hosts_split_role(&s->all, &s->ends, &s->fabric) < 0)
		return fab_err_set(err, -ENOMEM, "accept: out of memory");
	s->new_names = calloc(s->all.n ? s->all.n : 1, sizeof(*s->new_names));
	if (!s->new_names)
		return fab_err_set(err, -ENOMEM, "accept: out of memory");
	for (size_t i = 0; i < s->all.n; i++)
		if (s->all.hosts[i].is_new)
			s->new_names[s->n_new_names++] = hosts_node(&s->all.hosts[i]);
	for (size_t i = 0; i < s->ends.n; i++) {
		if (!s->ends.hosts[i].is_new)
			continue;
		struct fab_host *h = array_add((void **)&s->new_ends.hosts, &s->new_ends.n, sizeof(*h));

		if (!h)
			return fab_err_set(err, -ENOMEM, "accept: out of memory");
		*h = s->ends.hosts[i];
	}
	s->rep.n_new = s->new_ends.n;
	s->rep.n_existing = s->ends.n - s->new_ends.n;
	s->rep.n_switches_new = s->n_new_names - s->new_ends.n;
	s->rep.coverage_k = s->pol.coverage_k;
	if (!s->new_ends.n)
		return fab_err_input(err, -EINVAL, "%s: no end point is labelled new (docs/hosts.md)",
				     s->o.hosts);
	if (s->o.profile) {
		rc = profile_load_params(s->o.profile, &s->profile_params, err);
		if (rc == 0)
			rc = profile_load(s->o.profile, &s->profile, err);
		if (rc < 0)
			return rc;
	}
	if (s->o.plan) {
		rc = plan_load(s->o.plan, &s->plan, &s->rails, err);
		if (rc < 0)
			return rc;
	}
	if (!s->o.topology)
		s->o.topology = s->o.plan ? s->o.plan : "lldp";
	return 0;
}

/* ---- driving the stages ---- */

typedef int (*stage_fn)(struct sweep_ctx *ctx, struct accept_state *s);

/*
 * On a terminal (stderr a tty, as the fleet's and the sweep's progress
 * lines): each stage as it begins, then how it ended and how long it took,
 * so a run of tens of seconds is never silent.  Nothing when redirected.
 */
static void stage_say(const struct accept_state *s, enum accept_stage st, bool begin, double secs)
{
	if (!s->progress)
		return;
	if (begin)
		fprintf(stderr, "accept: stage %d of %d, %s: running\n", st + 1, ACCEPT_ST_N,
			accept_stage_name(st));
	else if (secs < 0)	/* not run */
		fprintf(stderr, "accept: stage %d of %d, %s: %s\n", st + 1, ACCEPT_ST_N,
			accept_stage_name(st), accept_status_name(s->rep.st[st].status));
	else
		fprintf(stderr, "accept: stage %d of %d, %s: %s (%.1f s)\n", st + 1, ACCEPT_ST_N,
			accept_stage_name(st), accept_status_name(s->rep.st[st].status), secs);
	fflush(stderr);
}

static int stage_run(struct sweep_ctx *ctx, struct accept_state *s, enum accept_stage st,
		     stage_fn fn)
{
	struct accept_report *r = &s->rep;
	int blocker = accept_stage_blocker(r, st);
	double t0 = (double)clock_mono_ns() / 1e9;
	int rc;

	if (!s->pol.stage_on[st]) {
		accept_stage_set(r, st, ACCEPT_SKIPPED, "turned off by the policy");
		stage_say(s, st, false, -1);
		return 0;
	}
	if (blocker >= 0 && !s->o.keep_going) {
		accept_stage_set(r, st, ACCEPT_BLOCKED, "not run: stage %d (%s) did not pass",
				 blocker + 1, accept_stage_name(blocker));
		stage_say(s, st, false, -1);
		return 0;
	}
	fab_info("accept: stage %d: %s", st + 1, accept_stage_name(st));
	stage_say(s, st, true, 0);
	rc = fn(ctx, s);
	r->st[st].secs = (double)clock_mono_ns() / 1e9 - t0;
	if (rc >= 0)
		stage_say(s, st, false, r->st[st].secs);
	return rc;
}

static void accept_state_fini(struct accept_state *s)
{
	if (s->f.w)
		fleet_fini(&s->f);
	accept_report_fini(&s->rep);
	hosts_fini(&s->all);
	hosts_fini(&s->ends);
	hosts_fini(&s->fabric);
	free(s->new_ends.hosts);
	free(s->new_names);
	free(s->dp_kind);
	profile_free(s->profile);
	json_decref(s->profile_params);
	topo_free(s->plan);
	topo_free(s->found);
	topo_free(s->tplan);
	topo_free(s->ib);
	topo_free(s->cnt0);
	counter_snap_fini(&s->nic0);
	optics_hosts_fini(&s->optics0);
	topo_rails_fini(&s->rails);
	topo_rails_fini(&s->trails);
}

static const struct {
	enum accept_stage st;
	stage_fn fn;
} accept_stages[] = {
	{ ACCEPT_ST_REACH, accept_stage_reach },
	{ ACCEPT_ST_CONFIG, accept_stage_config },
	{ ACCEPT_ST_CABLING, accept_stage_cabling },
	{ ACCEPT_ST_COUNTERS_BASE, accept_stage_counters_base },
	{ ACCEPT_ST_TRAFFIC, accept_stage_traffic },
	{ ACCEPT_ST_COUNTERS_AFTER, accept_stage_counters_after },
};

/* The inputs, then every stage in order: 0, or -errno with ctx->err set. */
static int accept_stages_run(struct sweep_ctx *ctx, struct accept_state *s)
{
	int rc = load_inputs(s, &ctx->err);

	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(accept_stages); i++)
		if (stage_run(ctx, s, accept_stages[i].st, accept_stages[i].fn) < 0)
			rc = ctx->err.code ? ctx->err.code : -EIO;
	return rc;
}

int accept_run(const struct accept_req *req, struct accept_outcome *out, struct fab_err *err)
{
	struct accept_state *s = calloc(1, sizeof(*s));
	struct sweep_ctx ctx = { .sys = req->sys };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!s)
		return fab_err_set(err, -ENOMEM, "accept: out of memory");
	fab_err_init(&ctx.err);
	s->o = *req;
	s->progress = req->progress;
	accept_report_init(&s->rep);
	hosts_init(&s->all);
	hosts_init(&s->ends);
	hosts_init(&s->fabric);
	hosts_init(&s->new_ends);
	topo_rails_init(&s->rails);
	topo_rails_init(&s->trails);
	rc = accept_stages_run(&ctx, s);
	if (rc == 0) {
		accept_verdict(&s->rep);
		out->rep = s->rep;
		out->topology = s->o.topology;
		out->pct_expected = s->pol.pct_expected;
		accept_report_init(&s->rep);	/* moved out */
	}
	*err = ctx.err;
	accept_state_fini(s);
	free(s);
	return rc;
}

void accept_outcome_fini(struct accept_outcome *out)
{
	accept_report_fini(&out->rep);
	memset(out, 0, sizeof(*out));
}
