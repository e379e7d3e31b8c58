// SPDX-License-Identifier: GPL-2.0-or-later
/* The sweep verdict: fleet reference, pair judgement, suspects; see sweep_judge.h. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"
#include "util/str.h"
#include "model/sweep_judge.h"

void sweep_cfg_default(struct sweep_cfg *cfg)
{
	cfg->slow_pct = 80;
	cfg->min_pct = 40;
	cfg->min_pct_fleet = false;
	cfg->bw_min_mbps = 0;
	cfg->mad_k = 3;
	cfg->lat_factor = 3;
	cfg->lat_floor_ns = 0;
	cfg->lat_max_ns = 0;
}

void sweep_cfg_transport(struct sweep_cfg *cfg, const char *transport)
{
	if (cfg->lat_floor_ns >= 0)
		return;
	cfg->lat_floor_ns = transport && strcmp(transport, "verbs") == 0 ? SWEEP_LAT_FLOOR_VERBS_NS
									 : SWEEP_LAT_FLOOR_TCP_NS;
}

const char *sweep_status_name(enum sweep_status s)
{
	switch (s) {
	case SWEEP_OK:
		return "ok";
	case SWEEP_SLOW:
		return "slow";
	case SWEEP_FAILED:
		return "failed";
	case SWEEP_PLANNED:
		return "planned";
	case SWEEP_REGRESSED:
		return "regressed";
	}
	return "failed";
}

/* The slower of a figure's values @ab and @ba over @p's measured directions; NaN when none. */
static double pair_slower(const struct sweep_pair *p, double ab, double ba)
{
	if (p->ab.measured && p->ba.measured)
		return fmin(ab, ba);
	if (p->ab.measured)
		return ab;
	if (p->ba.measured)
		return ba;
	return NAN;
}

double sweep_pair_bw(const struct sweep_pair *p)
{
	return pair_slower(p, p->ab.avg_mbps, p->ba.avg_mbps);
}

static double pair_bw_min_interval(const struct sweep_pair *p)
{
	return pair_slower(p, p->ab.min_mbps, p->ba.min_mbps);
}

static double dir_dip(const struct sweep_bw *d)
{
	if (!d->measured || d->intervals < 2 || !(d->avg_mbps > 0))
		return NAN;
	return d->min_mbps / d->avg_mbps;
}

double sweep_pair_dip(const struct sweep_pair *p)
{
	double ab = dir_dip(&p->ab), ba = dir_dip(&p->ba);

	if (isnan(ab))
		return ba;
	return isnan(ba) ? ab : fmin(ab, ba);
}

static void dip_ref_of(struct sweep_dip_ref *d, double *v, size_t n)
{
	d->n = n;
	d->median = n ? stats_median(v, n) : NAN;
	d->mad = n ? stats_mad(v, n, d->median) : NAN;
}

void sweep_ref_dips(struct sweep_ref *ref, const double *dip, const unsigned int *klass, size_t n)
{
	double *v = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;

	memset(&ref->dip, 0, sizeof(ref->dip));
	memset(ref->dip_class, 0, sizeof(ref->dip_class));
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isnan(dip[i]))
			v[k++] = dip[i];
	dip_ref_of(&ref->dip, v, k);
	for (unsigned int c = 0; klass && c < SWEEP_DIP_CLASSES; c++) {
		k = 0;
		for (size_t i = 0; i < n; i++)
			if (klass[i] == c && !isnan(dip[i]))
				v[k++] = dip[i];
		dip_ref_of(&ref->dip_class[c], v, k);
	}
	free(v);
}

void sweep_ref_from(const double *bw, size_t nb, const double *lat, size_t nl,
		    struct sweep_ref *ref)
{
	double *lbw = calloc(nb ? nb : 1, sizeof(*lbw));

	memset(ref, 0, sizeof(*ref));
	ref->dip.median = ref->dip.mad = NAN;
	ref->bw_median_mbps = ref->bw_mad_mbps = NAN;
	ref->bw_log_median = ref->bw_log_mad = NAN;
	ref->lat_median_ns = ref->lat_mad_ns = NAN;
	if (!lbw)
		return;
	ref->n = nb > nl ? nb : nl;
	if (nb) {
		ref->bw_median_mbps = stats_median(bw, nb);
		ref->bw_mad_mbps = stats_mad(bw, nb, ref->bw_median_mbps);
		for (size_t i = 0; i < nb; i++)
			lbw[i] = log(bw[i] > 1e-3 ? bw[i] : 1e-3);
		ref->bw_log_median = stats_median(lbw, nb);
		ref->bw_log_mad = stats_mad(lbw, nb, ref->bw_log_median);
	}
	if (nl) {
		ref->lat_median_ns = stats_median(lat, nl);
		ref->lat_mad_ns = stats_mad(lat, nl, ref->lat_median_ns);
	}
	free(lbw);
}

void sweep_ref_compute(const struct sweep_pair *pairs, size_t n, struct sweep_ref *ref)
{
	double *bw = calloc(n ? n : 1, sizeof(*bw)), *lat = calloc(n ? n : 1, sizeof(*lat));
	double *dip = calloc(n ? n : 1, sizeof(*dip));
	unsigned int *klass = calloc(n ? n : 1, sizeof(*klass));
	size_t nb = 0, nl = 0, nd = 0;

	for (size_t i = 0; bw && lat && dip && klass && i < n; i++) {
		if (pairs[i].status == SWEEP_FAILED)
			continue;
		if (!isnan(sweep_pair_bw(&pairs[i])))
			bw[nb++] = sweep_pair_bw(&pairs[i]);
		if (pairs[i].have_lat)
			lat[nl++] = pairs[i].lat_ns.p50;
		klass[nd] = pairs[i].klass;
		dip[nd++] = sweep_pair_dip(&pairs[i]);
	}
	sweep_ref_from(bw, nb, lat, nl, ref);
	if (dip && klass)
		sweep_ref_dips(ref, dip, klass, nd);
	free(bw);
	free(lat);
	free(dip);
	free(klass);
}

/*
 * Is @p's dip an outlier among its class's (the fleet's when the class is
 * small)?  @med_pct: set to the reference's median dip in %, NAN when there
 * is no reference (then every dip counts: the rated rule alone).
 */
static bool dip_outlier(const struct sweep_pair *p, const struct sweep_ref *ref,
			const struct sweep_cfg *cfg, double *med_pct)
{
	const struct sweep_dip_ref *d = &ref->dip;
	double dip = sweep_pair_dip(p), thr;

	if (p->klass < SWEEP_DIP_CLASSES && ref->dip_class[p->klass].n >= SWEEP_DIP_MIN_PAIRS)
		d = &ref->dip_class[p->klass];
	*med_pct = NAN;
	if (d->n < SWEEP_DIP_MIN_PAIRS || isnan(dip))
		return true;
	*med_pct = 100 * d->median;
	thr = fmin(d->median / 2, d->median - cfg->mad_k * STATS_MAD_SIGMA * d->mad);
	return dip < thr;
}

/*
 * @fleet_mbps: NAN to judge a pair without a rated rate against the
 * fleet median; else the figure that stands in for it (a same-window
 * control, named by @what), the MAD floor moved with it.
 */
static void judge(struct sweep_pair *p, double rated_mbps, const char *what, double fleet_mbps,
		  const struct sweep_ref *ref, const struct sweep_cfg *cfg)
{
	double bw = sweep_pair_bw(p), bwmin = pair_bw_min_interval(p);
	double lsigma = ref->bw_log_mad * STATS_MAD_SIGMA, dip_med;

	p->pct_rated = -1;
	p->slow_lat = false;
	p->near_ref = false;
	if (p->status == SWEEP_FAILED)
		return;
	p->status = SWEEP_OK;
	p->reason[0] = '\0';
	if (!isnan(bw) && rated_mbps > 0) {
		p->pct_rated = 100 * bw / rated_mbps;
		if (p->pct_rated < cfg->slow_pct) {
			str_fmt(p->reason, sizeof(p->reason),
				 "bandwidth %.0f Mb/s is %.1f%% of the %s %.0f Mb/s (threshold %.0f%%)",
				 bw, p->pct_rated, what, rated_mbps, cfg->slow_pct);
			goto slow;
		}
		if (bwmin < rated_mbps * cfg->min_pct / 100 && dip_outlier(p, ref, cfg, &dip_med)) {
			if (isnan(dip_med))
				str_fmt(p->reason, sizeof(p->reason),
					 "unstable: slowest interval %.0f Mb/s is below %.0f%% of the %s "
					 "%.0f Mb/s", bwmin, cfg->min_pct, what, rated_mbps);
			else
				str_fmt(p->reason, sizeof(p->reason),
					 "unstable: slowest interval %.0f Mb/s is below %.0f%% of the %s "
					 "%.0f Mb/s and %.0f%% of its average (similar pairs: median %.0f%%)",
					 bwmin, cfg->min_pct, what, rated_mbps, 100 * sweep_pair_dip(p),
					 dip_med);
			goto slow;
		}
	} else if (!isnan(bw) && !isnan(ref->bw_median_mbps) && ref->n >= 3) {
		bool own = isnan(fleet_mbps);
		double med = own ? ref->bw_median_mbps : fleet_mbps;
		double lmed = own ? ref->bw_log_median : log(fleet_mbps);
		double floor_mbps = exp(lmed - cfg->mad_k * lsigma);

		if (bw < med * cfg->slow_pct / 100 && bw < floor_mbps) {
			str_fmt(p->reason, sizeof(p->reason),
				 "bandwidth %.0f Mb/s is %.1f%% of the %s %.0f Mb/s (MAD %.0f)",
				 bw, 100 * bw / med, own ? "fleet median" : what, med, ref->bw_mad_mbps);
			goto slow;
		}
		if (cfg->min_pct_fleet && bwmin < med * cfg->min_pct / 100 && bwmin < floor_mbps &&
		    dip_outlier(p, ref, cfg, &dip_med)) {
			str_fmt(p->reason, sizeof(p->reason),
				 "unstable: slowest interval %.0f Mb/s is %.1f%% of the fleet median %.0f Mb/s",
				 bwmin, 100 * bwmin / med, med);
			goto slow;
		}
	}
	if (!isnan(bw) && cfg->bw_min_mbps > 0 && bw < cfg->bw_min_mbps) {
		str_fmt(p->reason, sizeof(p->reason), "bandwidth %.0f Mb/s is below the floor %.0f Mb/s",
			 bw, cfg->bw_min_mbps);
		goto slow;
	}
	if (p->have_lat && cfg->lat_max_ns > 0 && p->lat_ns.p50 > cfg->lat_max_ns) {
		str_fmt(p->reason, sizeof(p->reason), "median latency %.0f ns is above the ceiling %.0f ns",
			 p->lat_ns.p50, cfg->lat_max_ns);
		goto slow;
	}
	/* Latency spreads by factors under load: a fleet of a few pairs is no reference. */
	if (p->have_lat && !isnan(ref->lat_median_ns) && ref->n >= SWEEP_LAT_MIN_PAIRS &&
	    p->lat_ns.p50 > ref->lat_median_ns * cfg->lat_factor &&
	    p->lat_ns.p50 > ref->lat_median_ns + cfg->mad_k * STATS_MAD_SIGMA * ref->lat_mad_ns &&
	    p->lat_ns.p50 > ref->lat_median_ns + cfg->lat_floor_ns) {
		str_fmt(p->reason, sizeof(p->reason),
			 "median latency %.0f ns is %.1fx the fleet median %.0f ns",
			 p->lat_ns.p50, p->lat_ns.p50 / ref->lat_median_ns, ref->lat_median_ns);
		p->slow_lat = true;
		goto slow;
	}
	return;
slow:
	p->status = SWEEP_SLOW;
}

void sweep_pair_judge(struct sweep_pair *p, double rated_mbps, const struct sweep_ref *ref,
		      const struct sweep_cfg *cfg)
{
	judge(p, rated_mbps, "rated", NAN, ref, cfg);
}

void sweep_pair_judge_expected(struct sweep_pair *p, double expected_mbps, enum sweep_expect src,
			       const struct sweep_ref *ref, const struct sweep_cfg *cfg)
{
	if (src == SWEEP_EXPECT_NONE || !(expected_mbps > 0)) {
		judge(p, 0, "rated", NAN, ref, cfg);
		return;
	}
	judge(p, expected_mbps, src == SWEEP_EXPECT_RATED ? "expected (rated path)"
			      : src == SWEEP_EXPECT_NODES ? "nodes' median"
			      : "path-class reference", NAN, ref, cfg);
}

void sweep_pair_judge_control(struct sweep_pair *p, double control_mbps, const char *control,
			      const struct sweep_ref *ref, const struct sweep_cfg *cfg)
{
	bool fleet = p->expect_src == SWEEP_EXPECT_NONE || !(p->expected_mbps > 0);
	double exp_mbps = fleet ? sweep_ref_fleet_mbps(ref) : p->expected_mbps, eff;
	size_t len;

	if (!(exp_mbps > 0) || !(control_mbps > 0) || control_mbps >= exp_mbps) {
		sweep_pair_judge_expected(p, p->expected_mbps, p->expect_src, ref, cfg);
		return;
	}
	eff = fmax(control_mbps, exp_mbps * SWEEP_CONTROL_FLOOR_PCT / 100);
	if (fleet) {
		judge(p, 0, "same-window control", eff, ref, cfg);
	} else {
		judge(p, eff, "same-window control", NAN, ref, cfg);
		if (p->pct_rated >= 0)	/* still a share of the expected rate, as for every pair */
			p->pct_rated = 100 * sweep_pair_bw(p) / exp_mbps;
	}
	if (p->status != SWEEP_SLOW || !strstr(p->reason, "same-window control"))
		return;
	p->near_ref = !p->slow_lat && sweep_pair_bw(p) >= eff * SWEEP_CONTROL_FLOOR_PCT / 100;
	len = strnlen(p->reason, sizeof(p->reason));
	str_fmt(p->reason + len, sizeof(p->reason) - len, " (control %s measured %.0f Mb/s%s; %s %.0f Mb/s)",
		control, control_mbps, eff > control_mbps ? ", below the floor" : "",
		fleet ? "fleet median" :
		p->expect_src == SWEEP_EXPECT_RATED ? "rated" :
		p->expect_src == SWEEP_EXPECT_NODES ? "nodes' median" : "class reference", exp_mbps);
}

double sweep_ref_fleet_mbps(const struct sweep_ref *ref)
{
	return ref->n >= 3 && ref->bw_median_mbps > 0 ? ref->bw_median_mbps : NAN;
}

bool sweep_pair_marginal(const struct sweep_pair *p, const struct sweep_ref *ref)
{
	double bw = sweep_pair_bw(p), base = p->expected_mbps;

	/* regressed, but still at half its baseline or more: as a slow pair at half its rate */
	if (p->status == SWEEP_REGRESSED)
		return !p->slow_lat && !isnan(p->change_pct) &&
		       p->change_pct >= (double)SWEEP_CONTROL_FLOOR_PCT - 100;
	if (p->status != SWEEP_SLOW || p->slow_lat || isnan(bw))
		return false;
	if (p->near_ref)
		return true;
	if (p->expect_src == SWEEP_EXPECT_NONE || !(base > 0))
		base = ref->bw_median_mbps;
	return base > 0 && bw >= base * SWEEP_CONTROL_FLOOR_PCT / 100;
}

bool sweep_pair_dirs_split(const struct sweep_pair *p, double slow_pct, bool slow[2])
{
	const struct sweep_bw *d[2] = { &p->ab, &p->ba };
	double bar = p->expected_mbps * (slow_pct > 0 ? slow_pct : 80) / 100;

	if ((p->status != SWEEP_SLOW && p->status != SWEEP_REGRESSED) || p->slow_lat ||
	    !(p->expected_mbps > 0) || !d[0]->measured || !d[1]->measured)
		return false;
	for (int i = 0; i < 2; i++)
		slow[i] = !(d[i]->avg_mbps >= bar);
	return slow[0] != slow[1];
}

static int cmp_suspect(const void *x, const void *y)
{
	const struct sweep_suspect *a = x, *b = y;

	if (a->score != b->score)
		return a->score < b->score ? 1 : -1;
	if (a->is_node != b->is_node)
		return a->is_node ? -1 : 1;
	if (a->bad_pairs != b->bad_pairs)
		return a->bad_pairs < b->bad_pairs ? 1 : -1;
	return a->is_node ? (int)a->node - (int)b->node : (int)a->a - (int)b->a;
}

void sweep_suspects_acc_fini(struct sweep_suspects_acc *acc)
{
	free(acc->slow);
	free(acc->failed);
	free(acc->total);
	free(acc->suspect);
	for (size_t v = 0; acc->bw && v < acc->n; v++)
		free(acc->bw[v]);
	free(acc->bw);
	free(acc->bw_cap);
	free(acc->res);
	free(acc->s);
	memset(acc, 0, sizeof(*acc));
}

int sweep_suspects_begin(struct sweep_suspects_acc *acc, size_t n)
{
	memset(acc, 0, sizeof(*acc));
	acc->n = n;
	acc->slow = calloc(n ? n : 1, sizeof(*acc->slow));
	acc->failed = calloc(n ? n : 1, sizeof(*acc->failed));
	acc->total = calloc(n ? n : 1, sizeof(*acc->total));
	acc->suspect = calloc(n ? n : 1, sizeof(*acc->suspect));
	acc->bw = calloc(n ? n : 1, sizeof(*acc->bw));	/* each grown as its pairs come */
	acc->bw_cap = calloc(n ? n : 1, sizeof(*acc->bw_cap));
	acc->res = calloc(n ? n : 1, sizeof(*acc->res));
	if (!acc->slow || !acc->failed || !acc->total || !acc->suspect || !acc->bw ||
	    !acc->bw_cap || !acc->res) {
		sweep_suspects_acc_fini(acc);
		return -ENOMEM;
	}
	for (size_t v = 0; v < n; v++)
		stats_reservoir_init(&acc->res[v], SWEEP_NODE_SAMPLE, v + 1);
	return 0;
}

static void node_bw_offer(struct sweep_suspects_acc *acc, unsigned int v, double bw)
{
	size_t k = stats_reservoir_slot(&acc->res[v]);

	if (k == SIZE_MAX)
		return;
	if (array_reserve((void **)&acc->bw[v], &acc->bw_cap[v], k + 1, sizeof(*acc->bw[v])) < 0)
		acc->nomem = true;
	else
		acc->bw[v][k] = bw;
}

void sweep_suspects_count(struct sweep_suspects_acc *acc, const struct sweep_pair *p)
{
	double bw = sweep_pair_bw(p);

	acc->total[p->a]++;
	acc->total[p->b]++;
	if (p->status == SWEEP_SLOW || p->status == SWEEP_REGRESSED) {
		acc->slow[p->a]++;
		acc->slow[p->b]++;
	} else if (p->status == SWEEP_FAILED) {
		acc->failed[p->a]++;
		acc->failed[p->b]++;
	}
	if (!isnan(bw)) {
		node_bw_offer(acc, p->a, bw);
		node_bw_offer(acc, p->b, bw);
	}
}

static struct sweep_suspect *suspect_new(struct sweep_suspects_acc *acc)
{
	if (array_reserve((void **)&acc->s, &acc->cap, acc->ns + 1, sizeof(*acc->s)) < 0)
		return NULL;
	memset(&acc->s[acc->ns], 0, sizeof(acc->s[acc->ns]));
	return &acc->s[acc->ns++];
}

int sweep_suspects_nodes(struct sweep_suspects_acc *acc, const struct sweep_ref *ref)
{
	if (acc->nomem)
		return -ENOMEM;
	for (size_t v = 0; v < acc->n; v++) {
		unsigned int bad = acc->slow[v] + acc->failed[v];
		struct sweep_suspect *x;

		if (bad < 2 || 2 * bad <= acc->total[v])
			continue;
		acc->suspect[v] = true;
		x = suspect_new(acc);
		if (!x)
			return -ENOMEM;
		x->is_node = true;
		x->node = (unsigned int)v;
		x->bad_pairs = bad;
		x->slow_pairs = acc->slow[v];
		x->failed_pairs = acc->failed[v];
		x->pairs = acc->total[v];
		x->score = (double)bad / acc->total[v];
		x->median_bw_mbps = acc->bw[v] ? stats_median(acc->bw[v],
							       stats_reservoir_len(&acc->res[v])) : NAN;
		if (acc->failed[v] > acc->slow[v])
			str_fmt(x->evidence, sizeof(x->evidence), "%u of %u pairs failed, %u slow",
				 acc->failed[v], acc->total[v], acc->slow[v]);
		else
			str_fmt(x->evidence, sizeof(x->evidence),
				 "%u of %u pairs slow, %u failed; node median %.0f Mb/s vs fleet %.0f Mb/s",
				 acc->slow[v], acc->total[v], acc->failed[v], x->median_bw_mbps,
				 ref->bw_median_mbps);
	}
	return 0;
}

int sweep_suspects_link(struct sweep_suspects_acc *acc, const struct sweep_pair *p)
{
	struct sweep_suspect *x;

	if (p->status == SWEEP_OK || p->status == SWEEP_PLANNED || acc->suspect[p->a] ||
	    acc->suspect[p->b])
		return 0;
	if (acc->ns >= acc->n + SWEEP_LINK_SUSPECTS_MAX) {
		acc->left_out++;
		return 0;
	}
	x = suspect_new(acc);
	if (!x)
		return -ENOMEM;
	x->a = p->a;
	x->b = p->b;
	x->pairs = 1;
	x->bad_pairs = 1;
	x->slow_pairs = p->status == SWEEP_SLOW || p->status == SWEEP_REGRESSED;
	x->failed_pairs = p->status == SWEEP_FAILED;
	/* A link alone is weaker evidence than a node with several bad pairs. */
	x->score = 0.5;
	x->median_bw_mbps = sweep_pair_bw(p);
	str_fmt(x->evidence, sizeof(x->evidence), "%s", p->reason);
	return 0;
}

void sweep_suspects_end(struct sweep_suspects_acc *acc, struct sweep_report *r)
{
	if (acc->ns)
		qsort(acc->s, acc->ns, sizeof(*acc->s), cmp_suspect);
	free(r->suspects);
	r->suspects = acc->s;
	r->n_suspects = acc->ns;
	r->suspects_left_out = acc->left_out;
	acc->s = NULL;
	acc->ns = acc->cap = acc->left_out = 0;
}

int sweep_suspects(struct sweep_report *r, const struct sweep_pair *pairs, size_t n)
{
	struct sweep_suspects_acc acc;
	int rc = sweep_suspects_begin(&acc, r->hosts->n);

	for (size_t i = 0; rc == 0 && i < n; i++)
		sweep_suspects_count(&acc, &pairs[i]);
	if (rc == 0)
		rc = sweep_suspects_nodes(&acc, &r->ref);
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = sweep_suspects_link(&acc, &pairs[i]);
	if (rc == 0)
		sweep_suspects_end(&acc, r);
	sweep_suspects_acc_fini(&acc);
	return rc;
}

void sweep_report_fini(struct sweep_report *r)
{
	free(r->suspects);
	r->suspects = NULL;
	r->n_suspects = 0;
}

void sweep_pair_judge_base(struct sweep_pair *p, double regress_pct)
{
	const struct sweep_bw *now[2] = { &p->ab, &p->ba };
	double base[2] = { p->base_ab_mbps, p->base_ba_mbps };
	int worst = -1;

	p->change_pct = NAN;
	if (p->status == SWEEP_REGRESSED) {
		p->status = SWEEP_OK;
		p->reason[0] = '\0';
	}
	if (!p->have_base)
		return;
	for (int d = 0; d < 2; d++) {
		double c;

		if (!now[d]->measured || isnan(base[d]) || !(base[d] > 0))
			continue;
		c = 100 * (now[d]->avg_mbps - base[d]) / base[d];
		if (!isfinite(c))	/* a tiny (denormal) old figure: a rise past a double's range */
			c = copysign(DBL_MAX, c);
		if (worst < 0 || c < p->change_pct) {
			p->change_pct = c;
			worst = d;
		}
	}
	if (worst < 0 || p->status != SWEEP_OK || !(p->change_pct < -regress_pct))
		return;
	p->status = SWEEP_REGRESSED;
	str_fmt(p->reason, sizeof(p->reason),
		"bandwidth %s %.0f Mb/s is %.1f%% below the baseline's %.0f Mb/s (threshold %.0f%%)",
		worst ? "b->a" : "a->b", now[worst]->avg_mbps, -p->change_pct, base[worst], regress_pct);
}
