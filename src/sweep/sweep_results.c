// SPDX-License-Identifier: GPL-2.0-or-later
/* A sweep's results in a store, judged in passes; see sweep_results.h. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/sweep_nodes.h"
#include "sweep/sweep_results.h"
#include "util/log.h"
#include "util/str.h"

int sweep_results_init(struct sweep_results *sr, const struct fab_hosts *hs, struct sweep_topo *st,
		       size_t expected, struct fab_err *err)
{
	memset(sr, 0, sizeof(*sr));
	sr->hosts = hs;
	sr->st = st;
	stats_reservoir_init(&sr->res, SWEEP_REF_SAMPLE, 0x5eed5eedull);
	sr->sample = calloc(SWEEP_REF_SAMPLE, sizeof(*sr->sample));
	if (!sr->sample)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	return pair_store_new(&sr->store, expected, err);
}

void sweep_results_fini(struct sweep_results *sr)
{
	pair_store_free(sr->store);
	free(sr->sample);
	free(sr->port_down);
	pathref_fini(&sr->classes);
	memset(sr, 0, sizeof(*sr));
}

static double rated_mbps(const struct fab_hosts *hs, const struct sweep_pair *p)
{
	double ra = hs->hosts[p->a].rate_gbps, rb = hs->hosts[p->b].rate_gbps;

	if (ra <= 0 || rb <= 0)
		return 0;
	return 1000 * (ra < rb ? ra : rb);
}

/* Expected rate of a pair: its path's lowest rate (topology), else the hosts' rate_gbps. */
static int expect(struct sweep_results *sr, struct sweep_pair *p, struct fab_err *err)
{
	if (sr->st) {
		int rc = sweep_topo_pair_expect(sr->st, p->a, p->b, &p->expected_mbps, &p->klass, err);

		if (rc < 0)
			return rc;
	} else {
		p->expected_mbps = rated_mbps(sr->hosts, p);
	}
	p->expect_src = p->expected_mbps > 0 ? SWEEP_EXPECT_RATED : SWEEP_EXPECT_NONE;
	return 0;
}

static void sample_offer(struct sweep_results *sr, const struct sweep_pair *p)
{
	size_t k = stats_reservoir_slot(&sr->res);
	struct sweep_sample *x;

	if (k == SIZE_MAX)
		return;
	x = &sr->sample[k];
	x->a = p->a;
	x->b = p->b;
	x->klass = p->klass;
	x->failed = p->status == SWEEP_FAILED;
	x->expect_none = p->expect_src == SWEEP_EXPECT_NONE;
	x->bw_mbps = sweep_pair_bw(p);
	x->lat_ns = p->have_lat ? p->lat_ns.p50 : NAN;
	x->dip = sweep_pair_dip(p);
}

/* A failed pair of a port that was down: "h2:eth1: eth1 down (...); " before its reason. */
static void port_down_reason(const struct sweep_results *sr, struct sweep_pair *p)
{
	char was[sizeof(p->reason)];
	unsigned int e;

	if (!sr->port_down || p->status != SWEEP_FAILED)
		return;
	e = sr->port_down[p->a][0] ? p->a : p->b;
	if (!sr->port_down[e][0])
		return;
	memcpy(was, p->reason, sizeof(was));
	str_fmt(p->reason, sizeof(p->reason), "%s: %s; %s", sr->hosts->hosts[e].name,
		sr->port_down[e], was);
}

int sweep_results_round(void *ctx, size_t round, struct sweep_pair *pairs, size_t n,
			struct fab_err *err)
{
	struct sweep_results *sr = ctx;

	for (size_t i = 0; i < n; i++) {
		int rc;

		port_down_reason(sr, &pairs[i]);
		rc = expect(sr, &pairs[i], err);

		if (rc == 0)
			rc = pair_store_append(sr->store, &pairs[i], err);
		if (rc < 0)
			return rc;
		sample_offer(sr, &pairs[i]);
	}
	return 0;
}

int sweep_results_plan(struct sweep_results *sr, struct sched_src *src, struct fab_err *err)
{
	struct sched_pair *buf = calloc(src->max_round ? src->max_round : 1, sizeof(*buf));
	struct sweep_pair p;
	size_t n;
	int rc;

	if (!buf)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	for (unsigned int r = 1; (rc = src->next(src, buf, &n)) == 1; r++)
		for (size_t i = 0; i < n; i++) {
			memset(&p, 0, sizeof(p));
			p.a = buf[i].a;
			p.b = buf[i].b;
			p.round = r;
			p.status = SWEEP_PLANNED;
			p.pct_rated = -1;
			rc = expect(sr, &p, err);
			if (rc == 0)
				rc = pair_store_append(sr->store, &p, err);
			if (rc < 0)
				goto out;
		}
	if (rc < 0 && !err->code)	/* a source that said why keeps its message */
		fab_err_set(err, rc, "sweep: schedule: %s", strerror(-rc));
out:
	free(buf);
	return rc < 0 ? rc : 0;
}

/* The fleet reference from the sample. */
static int reference(struct sweep_results *sr, struct sweep_ref *ref, struct fab_err *err)
{
	size_t n = stats_reservoir_len(&sr->res), nb = 0, nl = 0, nd = 0;
	double *bw = calloc(n ? n : 1, sizeof(*bw)), *lat = calloc(n ? n : 1, sizeof(*lat));
	double *dip = calloc(n ? n : 1, sizeof(*dip));
	unsigned int *klass = calloc(n ? n : 1, sizeof(*klass));
	int rc = 0;

	if (!bw || !lat || !dip || !klass) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sweep_sample *x = &sr->sample[i];

		if (x->failed)
			continue;
		if (!isnan(x->bw_mbps))
			bw[nb++] = x->bw_mbps;
		if (!isnan(x->lat_ns))
			lat[nl++] = x->lat_ns;
		klass[nd] = x->klass;
		dip[nd++] = x->dip;
	}
	sweep_ref_from(bw, nb, lat, nl, ref);
	sweep_ref_dips(ref, dip, klass, nd);
out:
	free(bw);
	free(lat);
	free(dip);
	free(klass);
	return rc;
}

/*
 * Pairs whose path has no rated link: their path class's reference
 * (model/pathref.h), which stays at the healthy level when most of the
 * class crosses one bad link; from the sample's first SWEEP_CLASS_SAMPLE
 * pairs (each slot of a reservoir is a uniform draw).
 */
static int class_refs(struct sweep_results *sr, struct fab_err *err)
{
	size_t n = stats_reservoir_len(&sr->res), k = 0;
	struct pathref_pair *pp;
	uint32_t **links;
	bool need = false;
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		need |= sr->sample[i].expect_none;
	if (!sr->st || !need)
		return 0;
	if (n > SWEEP_CLASS_SAMPLE)
		n = SWEEP_CLASS_SAMPLE;
	pp = calloc(n ? n : 1, sizeof(*pp));
	links = calloc(n ? n : 1, sizeof(*links));
	if (!pp || !links) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (; k < n && rc == 0; k++) {
		const struct sweep_sample *x = &sr->sample[k];

		pp[k].klass = x->klass;
		pp[k].bw_mbps = x->failed ? NAN : x->bw_mbps;
		rc = sweep_topo_pair_links(sr->st, x->a, x->b, &links[k], &pp[k].n_links, err);
		pp[k].links = links[k];
	}
	if (rc == 0 && (rc = pathref_compute(&sr->classes, pp, n, sr->st->t->n_links)) < 0)
		fab_err_set(err, rc, "sweep: path classes: %s", strerror(-rc));
	if (rc == 0)
		sr->have_classes = true;
	for (size_t i = 0; rc == 0 && i < sr->classes.n_classes; i++) {
		char name[160];

		if (sr->classes.classes[i].blind_link == PATHREF_NO_LINK)
			continue;
		sweep_topo_link_text(sr->st->t, sr->classes.classes[i].blind_link, name, sizeof(name));
		fab_warn("sweep: too few %u-hop pairs avoid %s to judge it by the others: without a "
			 "rated speed (rate_gbps=, a plan's speed_mbps) a fault there may not be seen",
			 sr->classes.classes[i].klass, name);
	}
out:
	for (size_t i = 0; links && i < k; i++)
		free(links[i]);
	free(links);
	free(pp);
	return rc;
}

double sweep_results_class_ref(const struct sweep_results *sr, unsigned int klass)
{
	const struct pathref_class *c = sr->have_classes ? pathref_class(&sr->classes, klass) : NULL;

	return c ? c->ref_mbps : NAN;
}

static void count(struct sweep_report *r, const struct sweep_pair *p)
{
	r->n_ok += p->status == SWEEP_OK;
	r->n_slow += p->status == SWEEP_SLOW;
	r->n_failed += p->status == SWEEP_FAILED;
	r->n_regressed += p->status == SWEEP_REGRESSED;
}

/* @p's expected figure from its path class when it has none (no rated link). */
static void class_expect(const struct sweep_results *sr, struct sweep_pair *p)
{
	double c;

	if (p->expect_src != SWEEP_EXPECT_NONE)
		return;
	c = sweep_results_class_ref(sr, p->klass);
	if (!isnan(c)) {
		p->expected_mbps = c;
		p->expect_src = SWEEP_EXPECT_CLASS;
	}
}

/* The node rule's first pass (model/sweep_nodes.h): every node's median, the slow nodes. */
static int nodes_judge(struct sweep_results *sr, const struct sweep_report *r,
		       struct sweep_nodes *sn, struct fab_err *err)
{
	size_t n = pair_store_count(sr->store);
	struct sweep_pair p;
	int rc;

	if (sweep_nodes_begin(sn, sr->hosts->n) < 0)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < n; i++) {
		if ((rc = pair_store_get(sr->store, i, &p, err)) < 0)
			return rc;
		class_expect(sr, &p);
		sweep_nodes_add(sn, &p);
	}
	if (sweep_nodes_judge(sn, &r->cfg) < 0)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	for (size_t v = 0; v < sn->n; v++)
		if (sn->slow[v])
			fab_info("sweep: %s: median %.0f Mb/s over its pairs, below the nodes' %.0f "
				 "(outlier floor at most %.0f): its pairs judged against the nodes' median",
				 sr->hosts->hosts[v].name, sn->median[v], sn->ref_mbps, sn->floor_mbps);
	return 0;
}

int sweep_results_judge(struct sweep_results *sr, struct sweep_report *r, struct fab_err *err)
{
	size_t n = pair_store_count(sr->store);
	struct sweep_nodes sn;
	struct sweep_pair p;
	int rc;

	if ((rc = reference(sr, &r->ref, err)) < 0 || (rc = class_refs(sr, err)) < 0)
		return rc;
	if ((rc = nodes_judge(sr, r, &sn, err)) < 0)
		goto out;
	r->n_ok = r->n_slow = r->n_failed = r->n_regressed = 0;
	for (size_t i = 0; i < n; i++) {
		double e;

		if ((rc = pair_store_get(sr->store, i, &p, err)) < 0)
			goto out;
		class_expect(sr, &p);
		if (!isnan(e = sweep_nodes_expect(&sn, &p))) {
			p.expected_mbps = e;
			p.expect_src = SWEEP_EXPECT_NODES;
		}
		sweep_pair_judge_expected(&p, p.expected_mbps, p.expect_src, &r->ref, &r->cfg);
		count(r, &p);
		if ((rc = pair_store_put(sr->store, i, &p, err)) < 0)
			goto out;
	}
out:
	sweep_nodes_fini(&sn);
	return rc;
}

int sweep_results_count(struct sweep_results *sr, struct sweep_report *r, struct fab_err *err)
{
	size_t n = pair_store_count(sr->store);
	struct sweep_pair p;
	int rc;

	r->n_ok = r->n_slow = r->n_failed = r->n_regressed = 0;
	for (size_t i = 0; i < n; i++) {
		if ((rc = pair_store_get(sr->store, i, &p, err)) < 0)
			return rc;
		count(r, &p);
	}
	return 0;
}

static int idx_cmp(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	return a < b ? -1 : a > b;
}

/* Does @p belong in retest pass @pass? */
static bool retest_wants(const struct sweep_pair *p, enum sweep_retest_pass pass,
			 const struct sweep_ref *ref)
{
	switch (pass) {
	case SWEEP_RETEST_SLOW:
		return p->status == SWEEP_SLOW || p->status == SWEEP_REGRESSED;
	case SWEEP_RETEST_CONFIRM:
		return p->retested && sweep_pair_marginal(p, ref);
	case SWEEP_RETEST_LATENCY:
		return p->status == SWEEP_SLOW && p->slow_lat;
	}
	return false;
}

int sweep_results_retest_list(struct sweep_results *sr, enum sweep_retest_pass pass,
			      const struct sweep_ref *ref, size_t **idx, size_t *n_out,
			      size_t *n_total, struct fab_err *err)
{
	size_t n = pair_store_count(sr->store);
	size_t *v = calloc(SWEEP_RETEST_MAX, sizeof(*v));
	struct stats_reservoir res;
	struct sweep_pair p;
	int rc;

	if (!v)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	stats_reservoir_init(&res, SWEEP_RETEST_MAX, 0x7e57ull);
	for (size_t i = 0; i < n; i++) {
		size_t k;

		if ((rc = pair_store_get(sr->store, i, &p, err)) < 0) {
			free(v);
			return rc;
		}
		if (!retest_wants(&p, pass, ref))
			continue;
		k = stats_reservoir_slot(&res);
		if (k != SIZE_MAX)
			v[k] = i;
	}
	*n_total = (size_t)res.seen;
	*n_out = stats_reservoir_len(&res);
	qsort(v, *n_out, sizeof(*v), idx_cmp);
	*idx = v;
	return 0;
}

static bool control_fits(const struct sweep_pair *s, const struct sweep_pair *c)
{
	return c->status == SWEEP_OK && !c->retested && c->klass == s->klass &&
	       c->expect_src == s->expect_src && c->expected_mbps == s->expected_mbps &&
	       !(c->a == s->a && c->b == s->b) && !(c->a == s->b && c->b == s->a);
}

static bool control_shares(const struct sweep_pair *s, const struct sweep_pair *c)
{
	return c->a == s->a || c->a == s->b || c->b == s->a || c->b == s->b;
}

int sweep_results_controls(struct sweep_results *sr, const struct sweep_pair *sus, size_t n,
			   const struct sweep_ref *ref, struct sweep_control *ctl, struct fab_err *err)
{
	double fleet = sweep_ref_fleet_mbps(ref);
	size_t total = pair_store_count(sr->store);
	bool *shares = calloc(n ? n : 1, sizeof(*shares));
	struct sweep_pair p;
	int rc = 0;

	if (!shares)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	for (size_t k = 0; k < n; k++)
		ctl[k] = (struct sweep_control){ 0, 0, NAN };
	for (size_t i = 0; i < total; i++) {
		double bw;

		if ((rc = pair_store_get(sr->store, i, &p, err)) < 0)
			break;
		bw = sweep_pair_bw(&p);
		if (isnan(bw))
			continue;
		for (size_t k = 0; k < n; k++) {
			const struct sweep_pair *s = &sus[k];
			bool has = s->expect_src != SWEEP_EXPECT_NONE && s->expected_mbps > 0;
			bool sh = control_shares(s, &p), none = ctl[k].a == ctl[k].b;
			double want = has ? s->expected_mbps : fleet;

			if (!(want > 0) || !control_fits(s, &p))
				continue;
			if (none || (shares[k] && !sh) ||
			    (shares[k] == sh && fabs(bw - want) < fabs(ctl[k].bw_mbps - want))) {
				ctl[k] = (struct sweep_control){ p.a, p.b, bw };
				shares[k] = sh;
			}
		}
	}
	free(shares);
	return rc < 0 ? rc : 0;
}
