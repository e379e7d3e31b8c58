// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * accept's stage 5, traffic (accept_run.h): the pairs that cross every new
 * link (accept_pairs_cover()), measured by the sweep (sweep_run(), the
 * pairs in its request), and the findings read from its report; a new
 * host's bond has each of its legs measured (sweep_legs.h, towards one
 * peer), a leg not ok a FAB-TRAFFIC-LEG finding, legs not measured a
 * FAB-TRAFFIC-LEG-UNREAD one (model/accept_legs.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/load.h"
#include "io/pair_store.h"
#include "model/coverage.h"
#include "model/accept_legs.h"
#include "model/bond_legs.h"
#include "model/localize.h"
#include "model/route.h"
#include "sweep/accept_impl.h"
#include "sweep/sweep.h"
#include "sweep/sweep_signal.h"

/*
 * The pairs for the sweep (accept_pairs_cover; on hosts of several fabric
 * ports accept_pairs_cover_rails, the picker a rail), host indices into
 * the hosts file's end points, into *@cov.  A graph the new hosts cannot
 * be placed on is a finding, not an error (*@done false).
 */
static int choose_pairs(struct sweep_ctx *ctx, struct accept_state *s, struct coverage *cov,
			bool *done)
{
	const char *why = NULL;
	struct topo *t;
	struct route *r = NULL;
	bool *is_new = NULL;
	int rc;

	*done = false;
	t = accept_traffic_graph(ctx, s, &why);
	if (!t) {
		rc = accept_finding_add(&s->rep, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_FAILED, "", "",
					"no pairs chosen: %s", why ? why : "no graph");
		fab_err_init(&ctx->err);
		return rc < 0 ? fab_err_set(&ctx->err, rc, "accept: out of memory") : 0;
	}
	topo_sort(t);
	is_new = calloc(s->ends.n ? s->ends.n : 1, sizeof(*is_new));
	if (!is_new || route_new(&r, t) < 0) {
		rc = fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
		goto out;
	}
	for (size_t i = 0; i < s->ends.n; i++)
		is_new[i] = s->ends.hosts[i].is_new;
	rc = route_place(r, &s->ends, &ctx->err);
	if (rc == 0) {
		route_rates(r, &s->ends, NULL, NULL);
		r->ecmp_whole = true;	/* as the sweep routes them */
		rc = hosts_have_rails(&s->ends)
		     ? accept_pairs_cover_rails(r, &s->ends, is_new, s->new_names, s->n_new_names,
						s->pol.coverage_k, cov, &ctx->err)
		     : accept_pairs_cover(r, is_new, s->new_names, s->n_new_names,
					  s->pol.coverage_k, cov, &ctx->err);
	}
	if (rc < 0 && ctx->err.kind == FAB_ERR_INPUT) {	/* a host not on the graph, too few hosts */
		rc = accept_finding_add(&s->rep, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_FAILED, "", "",
					"no pairs chosen (--topology %s): %s", s->o.topology,
					ctx->err.msg);
		fab_err_init(&ctx->err);
		if (rc < 0)
			rc = fab_err_set(&ctx->err, rc, "accept: out of memory");
		goto out;
	}
	if (rc < 0)
		goto out;
	s->rep.n_pairs_chosen = cov->n_pairs;
	s->rep.links_target = cov->links_target;
	s->rep.links_short = cov->links_short + cov->links_unreachable;
	s->rep.links_off_rails = hosts_have_rails(&s->ends) ? cov->links_unreachable : 0;
	*done = true;
out:
	route_free(r);
	free(is_new);
	return rc;
}

/* "A <-> B" for a pair of the report. */
static void pair_text(const struct sweep_report *r, const struct sweep_pair *p, char *buf,
		      size_t len)
{
	snprintf(buf, len, "%s <-> %s", r->hosts->hosts[p->a].name, r->hosts->hosts[p->b].name);
}

/*
 * A link end, "NODE PORT", cut to @len as it always was here; a numbered
 * (InfiniBand) port reads "?" (the finding named the port as the sweep's
 * JSON did, where an IB port is a number).
 */
static const char *end_text(const struct topo_port *p, char *buf, size_t len)
{
	return snprintf(buf, len, "%s %s", p->node->name, p->name[0] ? p->name : "?") < 0 ? "" : buf;
}

/* A suspect member's link, its host's end first for an access link; "? ? <-> ? ?" when none. */
static void member_text(const struct topo *t, const struct loc_member *m, char *buf, size_t len)
{
	const struct topo_link *l;
	const struct topo_port *a, *b;
	char ta[120], tb[120];

	if (m->link >= t->n_links) {
		snprintf(buf, len, "? ? <-> ? ?");
		return;
	}
	l = t->links[m->link];
	a = l->a;
	b = l->b;
	if (m->host >= 0 && l->b->node->type != TOPO_NODE_SWITCH && l->a->node->type == TOPO_NODE_SWITCH) {
		a = l->b;
		b = l->a;
	}
	snprintf(buf, len, "%s <-> %s", end_text(a, ta, sizeof(ta)), end_text(b, tb, sizeof(tb)));
}

/* Pairs whose round-trip p99 is above the policy's bound (@bound_us, 0 off). */
static int latency_findings(struct accept_report *ar, const struct sweep_report *r,
			    unsigned int bound_us, size_t *n_lat, struct fab_err *err)
{
	struct sweep_pair p;
	char link[256];
	int rc;

	*n_lat = 0;
	for (size_t i = 0; bound_us && i < r->n_pairs; i++) {
		if ((rc = pair_store_get(r->store, i, &p, err)) < 0)
			return rc;
		if (!p.have_lat || p.lat_ns.p99 <= bound_us * 1000.0)
			continue;
		(*n_lat)++;
		pair_text(r, &p, link, sizeof(link));
		rc = accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_LATENCY, "", link,
					"round-trip p99 %.1f us above the policy's %u us (p50 %.1f us, "
					"%lld samples)", p.lat_ns.p99 / 1000.0, bound_us,
					p.lat_ns.p50 / 1000.0, (long long)p.lat_ns.n);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Failed pairs are findings; the others not ok are counted in *@n_slow. */
static int failed_findings(struct accept_report *ar, const struct sweep_report *r, size_t *n_slow,
			   size_t *n_failed, struct fab_err *err)
{
	struct sweep_pair p;
	char link[256];
	int rc;

	*n_slow = *n_failed = 0;
	for (size_t i = 0; i < r->n_pairs; i++) {
		if ((rc = pair_store_get(r->store, i, &p, err)) < 0)
			return rc;
		if (p.status == SWEEP_OK)
			continue;
		if (p.status != SWEEP_FAILED) {
			(*n_slow)++;
			continue;
		}
		(*n_failed)++;
		pair_text(r, &p, link, sizeof(link));
		rc = accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_FAILED, "", link,
					"pair could not be measured: no figures");
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Each link suspect of the sweep (model/localize.h) as findings. */
static int suspect_findings(struct accept_report *ar, const struct sweep_report *r,
			    const struct loc_suspect *sp)
{
	const struct loc_evidence *e = &sp->ev;
	const struct topo *t = r->fabric.topo;
	char evs[200], link[256];
	int rc = 0;

	snprintf(evs, sizeof(evs), "%lld of %lld pairs crossing it slow, median %.0f %% of expected",
		 (long long)(int)e->cross_bad, (long long)(int)e->cross_n,
		 e->cross_pct_median >= 0 ? e->cross_pct_median : 0.0);
	if (sp->kind == LOC_KIND_NODE)
		return accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_SLOW_NODE,
					  sp->members[0].host >= 0
					  ? r->hosts->hosts[sp->members[0].host].name : "?",
					  "", "slow node: %s", evs);
	if (sp->kind != LOC_KIND_GROUP) {
		member_text(t, &sp->members[0], link, sizeof(link));
		return accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_SLOW_LINK, "", link,
					  "slow link: %s", evs);
	}
	for (size_t j = 0; j < sp->n_members && rc == 0; j++) {
		member_text(t, &sp->members[j], link, sizeof(link));
		rc = accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_SLOW_LINK, "", link,
					"one of a group traffic cannot split: %s", evs);
	}
	return rc;
}

/*
 * The sweep's findings: failed pairs, its link suspects, and, when no
 * suspect explains them, each slow pair.  (The sweep always ran with a
 * topology: its suspects are links, never hosts by count.)
 */
static int traffic_findings(struct accept_report *ar, const struct sweep_report *r,
			    size_t *n_slow, size_t *n_failed, struct fab_err *err)
{
	size_t suspects = r->fabric.loc ? r->fabric.loc->n_suspects : 0;
	struct sweep_pair p;
	char link[256];
	int rc;

	rc = failed_findings(ar, r, n_slow, n_failed, err);
	for (size_t i = 0; rc == 0 && i < suspects; i++)
		rc = suspect_findings(ar, r, &r->fabric.loc->suspects[i]);
	/* Slow pairs no suspect explains are findings of their own. */
	for (size_t i = 0; rc == 0 && !suspects && i < r->n_pairs; i++) {
		if ((rc = pair_store_get(r->store, i, &p, err)) < 0 || p.status != SWEEP_SLOW)
			continue;
		pair_text(r, &p, link, sizeof(link));
		rc = accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_SLOW_PAIR, "", link,
					"%.0f Mb/s, %.0f %% of the expected %.0f Mb/s",
					isnan(sweep_pair_bw(&p)) ? 0.0 : sweep_pair_bw(&p),
					p.pct_rated >= 0 ? p.pct_rated : 0.0,
					p.expected_mbps > 0 ? p.expected_mbps : 0.0);
	}
	return rc;
}

/*
 * Each leg of a new host's bond that is not ok (sweep_legs.h: measured
 * towards one peer) as a finding naming the node and the member, and the
 * member's switch port when the topology gives it.
 */
static int leg_findings(struct accept_report *ar, const struct sweep_report *r, size_t *n_legs,
			size_t *n_bad)
{
	int rc = 0;

	*n_legs = *n_bad = 0;
	for (size_t i = 0; rc == 0 && i < r->n_legs; i++)
		for (int k = 0; rc == 0 && k < 2; k++) {
			const struct bond_legs_dir *d = k ? &r->legs[i].ba : &r->legs[i].ab;

			for (size_t j = 0; rc == 0 && d->run && j < d->n_legs; j++) {
				const struct bond_leg_result *l = &d->legs[j];
				char link[200];

				(*n_legs)++;
				if (!l->fault)
					continue;
				(*n_bad)++;
				if (l->sw_node[0])
					snprintf(link, sizeof(link), "%s <-> %s %s", l->member,
						 l->sw_node, l->sw_port);
				else
					snprintf(link, sizeof(link), "%s", l->member);
				rc = accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_LEG, d->node,
							link, "%s", l->finding);
			}
		}
	return rc;
}

/*
 * The new hosts' legs the sweep did not measure (model/accept_legs.h), each
 * host's data path as stage 1 read it (s->dp_kind, by name: the sweep
 * loaded the hosts file again).  0 or -ENOMEM.
 */
static int leg_gaps(const struct accept_state *s, struct accept_report *ar,
		    const struct sweep_report *r, size_t *n_gaps, size_t *n_plain)
{
	unsigned char *dp = calloc(r->hosts && r->hosts->n ? r->hosts->n : 1, sizeof(*dp));
	int rc;

	if (!dp)
		return -ENOMEM;
	for (size_t h = 0; s->dp_kind && r->hosts && h < r->hosts->n; h++)
		for (size_t k = 0; k < s->all.n; k++)
			if (strcmp(s->all.hosts[k].name, r->hosts->hosts[h].name) == 0) {
				dp[h] = s->dp_kind[k];
				break;
			}
	rc = accept_legs_gaps(ar, r, dp, n_gaps, n_plain);
	free(dp);
	return rc;
}

/* The sweep's request: the chosen pairs over --topology, the policy's threshold. */
static void traffic_req(const struct accept_state *s, const struct coverage *cov,
			const struct counter_policy *pol, struct sweep_ctx *ctx, struct sweep_req *req)
{
	sweep_req_default(req);
	req->sys = ctx->sys;
	req->hosts = s->o.hosts;
	req->mode = SWEEP_MODE_PAIRS;
	req->pairs = cov->pairs;
	req->n_pairs = cov->n_pairs;
	req->topology = s->o.topology;
	req->lldp_socket = s->o.lldp_socket;
	req->fo = s->o.fo;
	req->progress = s->progress;	/* the sweep's "round N of M" line */
	req->cfg.slow_pct = s->pol.pct_expected;
	req->policy = pol;
	req->legs = true;		/* every leg of a new host's bond, once */
	req->legs_new_once = true;
	req->legs_slow_pct = s->pol.leg_pct;
	if (s->o.transport)
		req->transport = s->o.transport;
	if (s->o.duration_s > 0)
		req->duration_s = s->o.duration_s;
	if (s->o.lat_iters)
		req->lat_iters = s->o.lat_iters;
}

/*
 * The sweep over @req: 0 with @out (sweep_outcome_fini() it) and *@exit
 * the status `fabricctl sweep -j` would have had; else *@exit only, the
 * reason in @err when there is one.  (The sweep's counter policy is the
 * default one: the policy's thresholds are stages 4 and 6's.)
 */
static int traffic_sweep(struct accept_state *s, const struct sweep_req *req,
			 struct sweep_outcome *out, int *exit, struct fab_err *err)
{
	const struct sweep_report *r = &out->report;
	int rc;

	*exit = s->o.sweep_check ? s->o.sweep_check(s->o.hook_ctx, req) : -1;
	if (*exit >= 0)
		return -EINVAL;
	rc = sweep_run(req, out, err);
	if (rc < 0) {
		*exit = rc == -EINTR && sweep_signal_exit() ? sweep_signal_exit() : fab_err_exit(err);
		return rc;
	}
	*exit = r->n_slow + r->n_failed + r->n_regressed + r->n_legs_bad ? FAB_EXIT_UNHEALTHY
									  : FAB_EXIT_OK;
	if (r->interrupted && !out->stop_rc)
		*exit = sweep_signal_exit();
	if (out->stop_rc) {	/* as the sweep says it: its report went to its stdout */
		fab_err_set(err, out->stop_rc, "%s; written: stdout", r->stop_error);
		*exit = FAB_EXIT_SYSTEM;
	}
	return 0;
}

/* Stage 5's note on its pairs: how many, of how many, and the links they cross. */
static void pairs_note(const struct accept_state *s, char *buf, size_t len)
{
	const struct accept_report *r = &s->rep;
	size_t n_nodes;

	if (!hosts_have_rails(&s->ends)) {
		snprintf(buf, len, "%zu pairs measured (new x new, new x existing; all pairs would be "
			 "%zu), every one of %zu new links and new-leaf uplinks crossed by >= %u "
			 "(%zu short)", r->n_pairs, s->ends.n * (s->ends.n - 1) / 2, r->links_target,
			 r->coverage_k, r->links_short);
		return;
	}
	snprintf(buf, len, "%zu pairs measured (each new port with ports of its rail; all rail pairs "
		 "would be %zu), every one of %zu new links and new-leaf uplinks of a rail crossed "
		 "by >= %u of its pairs (%zu short, %zu of them crossed by no rail pair)", r->n_pairs,
		 hosts_rail_pairs_count(&s->ends, &n_nodes), r->links_target, r->coverage_k,
		 r->links_short, r->links_off_rails);
}

/* Stage 5's verdict from the sweep's report. */
static int traffic_judge(struct sweep_ctx *ctx, struct accept_state *s,
			 const struct sweep_report *sr)
{
	struct accept_report *r = &s->rep;
	size_t n_slow = 0, n_failed = 0, n_lat = 0, n_legs = 0, n_legs_bad = 0, n_gaps = 0;
	size_t n_plain = 0;
	char what[512], legs[200] = "";
	int rc;

	r->n_pairs = sr->n_pairs;
	rc = traffic_findings(r, sr, &n_slow, &n_failed, &ctx->err);
	if (rc == 0)
		rc = latency_findings(r, sr, s->pol.lat_p99_us, &n_lat, &ctx->err);
	if (rc == 0)
		rc = leg_findings(r, sr, &n_legs, &n_legs_bad);
	if (rc == 0)
		rc = leg_gaps(s, r, sr, &n_gaps, &n_plain);
	if (rc == -ENOMEM)
		return fab_err_set(&ctx->err, rc, "accept: out of memory");
	if (rc < 0)
		return rc;
	pairs_note(s, what, sizeof(what));
	if (n_legs || n_gaps)
		snprintf(legs, sizeof(legs), "; %zu legs of new bonds measured, %zu not ok", n_legs,
			 n_legs_bad);
	if (n_gaps)
		snprintf(legs + strlen(legs), sizeof(legs) - strlen(legs),
			 ", legs of %zu new host%s not measured", n_gaps, n_gaps == 1 ? "" : "s");
	if (n_plain)
		snprintf(legs + strlen(legs), sizeof(legs) - strlen(legs),
			 "; %zu new host%s did not answer the bond request (no bond by stage 1)",
			 n_plain, n_plain == 1 ? "" : "s");
	accept_stage_set(r, ACCEPT_ST_TRAFFIC,
			 accept_stage_findings(r, ACCEPT_ST_TRAFFIC) ? ACCEPT_FAILED : ACCEPT_PASSED,
			 "%s, over --topology %s: %zu slow (< %u %% of expected), %zu failed, "
			 "%zu over the latency p99 bound%s%s", what, s->o.topology, n_slow,
			 s->pol.pct_expected, n_failed, n_lat,
			 s->pol.lat_p99_us ? "" : " (none set)", legs);
	return 0;
}

int accept_stage_traffic(struct sweep_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	struct coverage cov = { 0 };
	struct counter_policy pol;
	struct sweep_outcome out;
	struct sweep_req req;
	struct fab_err serr;
	int rc, sweep_rc = 0;
	bool chosen;

	if (s->o.no_workers) {
		accept_stage_set(r, ACCEPT_ST_TRAFFIC, ACCEPT_SKIPPED,
				 "--no-workers: no worker to run traffic on");
		return 0;
	}
	rc = choose_pairs(ctx, s, &cov, &chosen);
	/* The sweep starts workers of its own: the stages' fleet is done. */
	if (s->f.w)
		fleet_fini(&s->f);
	if (rc < 0)
		goto out;
	if (!chosen) {
		accept_stage_set(r, ACCEPT_ST_TRAFFIC, ACCEPT_FAILED, "no traffic pairs could be chosen");
		goto out;
	}
	fab_err_init(&serr);
	rc = counter_policy_load(NULL, &pol, &serr);
	traffic_req(s, &cov, &pol, ctx, &req);
	if (rc == 0)
		rc = traffic_sweep(s, &req, &out, &sweep_rc, &serr);
	else
		sweep_rc = fab_err_exit(&serr);
	if (serr.code)
		ctx->err = serr;	/* kept for the stage's note */
	if (rc < 0 || (sweep_rc != FAB_EXIT_OK && sweep_rc != FAB_EXIT_UNHEALTHY)) {
		if (rc == 0)
			sweep_outcome_fini(&out);
		rc = accept_finding_add(r, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_FAILED, "", "",
					"the sweep failed (exit %d): %s", sweep_rc,
					ctx->err.code ? ctx->err.msg : "no report");
		fab_err_init(&ctx->err);
		accept_stage_set(r, ACCEPT_ST_TRAFFIC, ACCEPT_FAILED, "the sweep did not complete");
		goto out;
	}
	fab_err_init(&ctx->err);
	rc = traffic_judge(ctx, s, &out.report);
	sweep_outcome_fini(&out);
out:
	coverage_fini(&cov);
	return rc;
}
