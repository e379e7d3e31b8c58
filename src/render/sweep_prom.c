// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep, Prometheus text exposition format, for node_exporter's textfile
 * collector.  Written as it is made into a temporary file beside FILE
 * (util/file.h file_atomic_open: a large sweep's series do not fit in
 * memory), fsync'd and renamed over it, so the collector never reads
 * half a file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/bond_legs.h"
#include "model/localize.h"
#include "model/sweep_judge.h"
#include "model/topo.h"
#include "render/render_impl.h"
#include "util/file.h"

/*
 * Sample values.  A per-pair sample whose figure is not finite is left
 * out (the pair then has no sample in that family, as an unmeasured
 * one); a fleet-wide gauge is written in the exposition format's own
 * spelling ("NaN", "+Inf", "-Inf"), never printf's "inf" or "nan".
 * Magnitudes of 1e15 and more are written in exponent form, so a ratio
 * over a denormal baseline is not a 300-digit number.
 */
static bool sample_finite(double v)
{
	return isfinite(v);
}

static void value(FILE *f, int prec, double v)
{
	if (isnan(v))
		fputs("NaN", f);
	else if (isinf(v))
		fputs(v > 0 ? "+Inf" : "-Inf", f);
	else if (fabs(v) >= 1e15)
		fprintf(f, "%.*e", prec, v);
	else
		fprintf(f, "%.*f", prec, v);
}

/* Label values: escape backslash, double quote and newline. */
static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

static void pair_labels(FILE *f, const struct sweep_report *r, unsigned int a, unsigned int b)
{
	fputs("{a=\"", f);
	label(f, r->hosts->hosts[a].name);
	fputs("\",b=\"", f);
	label(f, r->hosts->hosts[b].name);
	fputc('"', f);
	if (!r->rails)
		return;
	/* Hosts of several ports: each end's host and NIC, to sum or pick by. */
	fputs(",a_host=\"", f);
	label(f, hosts_node(&r->hosts->hosts[a]));
	fputs("\",a_nic=\"", f);
	label(f, r->hosts->hosts[a].nic);
	fputs("\",b_host=\"", f);
	label(f, hosts_node(&r->hosts->hosts[b]));
	fputs("\",b_nic=\"", f);
	label(f, r->hosts->hosts[b].nic);
	fputc('"', f);
}

/* A pass over the pairs, each written by a family's function. */
struct fam {
	FILE *f;
	const struct sweep_report *r;
	const char *name;
	bool min;
	size_t count[4];
};

/* One measured direction of a pair: its slowest interval (min) or average. */
static int bw_series(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct fam *c = ctx;

	for (int d = 0; d < 2; d++) {
		const struct sweep_bw *bw = d ? &p->ba : &p->ab;

		double v = c->min ? bw->min_mbps : bw->avg_mbps;

		if (!bw->measured || !sample_finite(v))
			continue;
		fputs(c->name, c->f);
		pair_labels(c->f, c->r, p->a, p->b);
		fprintf(c->f, ",dir=\"%s\"} ", d ? "ba" : "ab");
		value(c->f, 3, v);
		fputc('\n', c->f);
	}
	return ferror(c->f) ? -EIO : 0;
}

/* Gauge @name for each measured direction of every pair. */
static int prom_bw_gauge(FILE *f, const struct sweep_report *r, const char *name,
			 const char *help, bool min)
{
	struct fam c = { .f = f, .r = r, .name = name, .min = min };

	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	return sweep_pairs_each(r, bw_series, &c);
}

/* fabricctl_sweep_pair_status's value: 0 ok, 1 slow, 2 failed, 3 regressed; -1 planned. */
static int prom_status(enum sweep_status s)
{
	switch (s) {
	case SWEEP_OK:
		return 0;
	case SWEEP_SLOW:
		return 1;
	case SWEEP_FAILED:
		return 2;
	case SWEEP_REGRESSED:
		return 3;
	case SWEEP_PLANNED:
		break;
	}
	return -1;
}

/* A link end's labels: P_node="NODE",P_port="PORT" (a port is its name or number). */
static void end_labels(FILE *f, const char *pfx, const struct topo_port *p)
{
	fprintf(f, "%s_node=\"", pfx);
	label(f, p->node->name);
	fprintf(f, "\",%s_port=\"", pfx);
	if (p->name[0])
		label(f, p->name);
	else
		fprintf(f, "%u", p->num);
	fputc('"', f);
}

/*
 * fabricctl_sweep_link_suspect_score: one series per link that a suspect
 * of the localisation (--topology) names -- the link, a node's access
 * link, each member of a group -- with the highest score naming it and
 * that suspect's kind, so no two series share their labels.
 */
static void prom_link_suspects(FILE *f, const struct sweep_report *r)
{
	const struct loc_result *loc = r->fabric.loc;
	const struct topo *t = r->fabric.topo;
	double *best;
	int *kind;

	fprintf(f, "# HELP fabricctl_sweep_link_suspect_score Links the sweep suspects (--topology), "
		   "0..1; kind: link, node (a host's access link) or group (one of links traffic "
		   "cannot tell apart).\n# TYPE fabricctl_sweep_link_suspect_score gauge\n");
	if (!loc || !t || !t->n_links)
		return;
	best = calloc(t->n_links, sizeof(*best));
	kind = calloc(t->n_links, sizeof(*kind));
	for (size_t i = 0; best && kind && i < t->n_links; i++)
		best[i] = -1;
	for (size_t i = 0; best && kind && i < loc->n_suspects; i++) {
		const struct loc_suspect *su = &loc->suspects[i];

		for (size_t m = 0; m < su->n_members; m++) {
			uint32_t l = su->members[m].link;

			if (l < t->n_links && su->score > best[l]) {
				const struct topo_link *tl = t->links[l];

				best[l] = su->score;
				/* low bits the kind; 8: a host's access link, its host end first (as in the JSON) */
				kind[l] = (int)su->kind | (su->members[m].host >= 0 &&
					  tl->a->node->type == TOPO_NODE_SWITCH &&
					  tl->b->node->type != TOPO_NODE_SWITCH ? 8 : 0);
			}
		}
	}
	for (size_t l = 0; best && kind && l < t->n_links; l++) {
		const struct topo_link *tl = t->links[l];
		bool swap = kind[l] & 8;

		if (best[l] < 0)
			continue;
		fputs("fabricctl_sweep_link_suspect_score{", f);
		end_labels(f, "a", swap ? tl->b : tl->a);
		fputc(',', f);
		end_labels(f, "b", swap ? tl->a : tl->b);
		fprintf(f, ",kind=\"%s\"} %.3f\n", loc_kind_name((enum loc_kind)(kind[l] & 7)), best[l]);
	}
	free(best);
	free(kind);
}

static int expected_ratio(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct fam *c = ctx;

	if (p->pct_rated < 0 || !sample_finite(p->pct_rated))
		return 0;
	fputs("fabricctl_sweep_pair_bandwidth_expected_ratio", c->f);
	pair_labels(c->f, c->r, p->a, p->b);
	fputs("} ", c->f);
	value(c->f, 5, p->pct_rated / 100);
	fputc('\n', c->f);
	return ferror(c->f) ? -EIO : 0;
}

static int baseline_ratio(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct fam *c = ctx;

	if (!p->have_base || !sample_finite(p->change_pct))
		return 0;
	fputs("fabricctl_sweep_pair_bandwidth_baseline_ratio", c->f);
	pair_labels(c->f, c->r, p->a, p->b);
	fputs("} ", c->f);
	value(c->f, 5, 1 + p->change_pct / 100);
	fputc('\n', c->f);
	return ferror(c->f) ? -EIO : 0;
}

/* Per pair: bandwidth over the expected rate, and over the baseline's (--baseline), as ratios. */
static int prom_pair_ratios(FILE *f, const struct sweep_report *r)
{
	struct fam c = { .f = f, .r = r };

	fprintf(f, "# HELP fabricctl_sweep_pair_bandwidth_expected_ratio The slower direction's "
		   "bandwidth over the pair's expected rate (1 = as expected; pct_expected / 100).\n"
		   "# TYPE fabricctl_sweep_pair_bandwidth_expected_ratio gauge\n");
	if (sweep_pairs_each(r, expected_ratio, &c) < 0)
		return -EIO;
	fprintf(f, "# HELP fabricctl_sweep_pair_bandwidth_baseline_ratio The worse direction's "
		   "bandwidth over the same direction in the --baseline sweep (1 = unchanged).\n"
		   "# TYPE fabricctl_sweep_pair_bandwidth_baseline_ratio gauge\n");
	return sweep_pairs_each(r, baseline_ratio, &c);
}

static int status_series(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct fam *c = ctx;
	int v = prom_status(p->status);

	fputs("fabricctl_sweep_pair_status", c->f);
	pair_labels(c->f, c->r, p->a, p->b);
	fprintf(c->f, "} %d\n", v);
	if (v >= 0)
		c->count[v]++;
	return ferror(c->f) ? -EIO : 0;
}

static int expected_series(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct fam *c = ctx;

	if (p->expect_src == SWEEP_EXPECT_NONE || !(p->expected_mbps > 0) || !sample_finite(p->expected_mbps))
		return 0;
	fputs("fabricctl_sweep_pair_expected_mbps", c->f);
	pair_labels(c->f, c->r, p->a, p->b);
	fprintf(c->f, ",expected=\"%s\"} ",
		p->expect_src == SWEEP_EXPECT_RATED ? "rated" :
		p->expect_src == SWEEP_EXPECT_NODES ? "nodes" : "class");
	value(c->f, 3, p->expected_mbps);
	fputc('\n', c->f);
	return ferror(c->f) ? -EIO : 0;
}

static int latency_series(void *ctx, size_t i, const struct sweep_pair *p)
{
	static const char *q[] = { "0", "0.5", "0.99", "0.999", "1" };
	struct fam *c = ctx;
	double v[] = { p->lat_ns.min, p->lat_ns.p50, p->lat_ns.p99, p->lat_ns.p999, p->lat_ns.max };

	if (!p->have_lat)
		return 0;
	for (size_t k = 0; k < 5; k++) {
		if (!sample_finite(v[k]))
			continue;
		fputs("fabricctl_sweep_pair_latency_ns", c->f);
		pair_labels(c->f, c->r, p->a, p->b);
		fprintf(c->f, ",quantile=\"%s\"} ", q[k]);
		value(c->f, 0, v[k]);
		fputc('\n', c->f);
	}
	return ferror(c->f) ? -EIO : 0;
}

/* One leg's labels: the pair, the direction, the sending node, its bond and the member. */
static void leg_labels(FILE *f, const struct sweep_report *r, const struct bond_legs_pair *lp,
		       bool ba, const struct bond_legs_dir *d, const struct bond_leg_result *l)
{
	pair_labels(f, r, lp->a, lp->b);
	fprintf(f, ",dir=\"%s\",node=\"", ba ? "ba" : "ab");
	label(f, d->node);
	fputs("\",bond=\"", f);
	label(f, d->bond);
	fputs("\",member=\"", f);
	label(f, l->member);
	fputs("\"}", f);
}

/*
 * Dual-homed legs (sweep/sweep_legs.h), only when some pair has them:
 * each measured leg's bandwidth, each judged leg's ok (1) or fault (0;
 * a member untested by a policy that hashes no port has no sample), and
 * the count of legs not ok.
 */
static int prom_legs(FILE *f, const struct sweep_report *r)
{
	if (!r->legs)
		return 0;
	fputs("# HELP fabricctl_sweep_leg_bandwidth_mbps A bond member's own flow (dual-homed legs), "
	      "at the receiver.\n# TYPE fabricctl_sweep_leg_bandwidth_mbps gauge\n", f);
	for (size_t i = 0; i < r->n_legs; i++)
		for (int k = 0; k < 2; k++) {
			const struct bond_legs_dir *d = k ? &r->legs[i].ba : &r->legs[i].ab;

			for (size_t j = 0; d->run && j < d->n_legs; j++) {
				const struct bond_leg_result *l = &d->legs[j];

				if (!l->sport || l->failed || !sample_finite(l->mbps))
					continue;
				fputs("fabricctl_sweep_leg_bandwidth_mbps", f);
				leg_labels(f, r, &r->legs[i], k, d, l);
				fputc(' ', f);
				value(f, 3, l->mbps);
				fputc('\n', f);
			}
		}
	fputs("# HELP fabricctl_sweep_leg_ok 1 when a bond member's leg is ok, 0 when slow, dead or "
	      "unused (its finding in the JSON).\n# TYPE fabricctl_sweep_leg_ok gauge\n", f);
	for (size_t i = 0; i < r->n_legs; i++)
		for (int k = 0; k < 2; k++) {
			const struct bond_legs_dir *d = k ? &r->legs[i].ba : &r->legs[i].ab;

			for (size_t j = 0; d->run && j < d->n_legs; j++) {
				const struct bond_leg_result *l = &d->legs[j];

				if (l->verdict != BOND_LEG_OK && !l->fault)
					continue;
				fputs("fabricctl_sweep_leg_ok", f);
				leg_labels(f, r, &r->legs[i], k, d, l);
				fprintf(f, " %d\n", !l->fault);
			}
		}
	fprintf(f, "# HELP fabricctl_sweep_legs_not_ok Bond members' legs not ok (slow, dead or unused).\n"
		   "# TYPE fabricctl_sweep_legs_not_ok gauge\nfabricctl_sweep_legs_not_ok %zu\n",
		r->n_legs_bad);
	return ferror(f) ? -EIO : 0;
}

static int prom_body(FILE *f, const struct sweep_report *r)
{
	struct fam c = { .f = f, .r = r };

	fprintf(f, "# HELP fabricctl_sweep_pair_status Pair status: 0 ok, 1 slow, 2 failed, 3 regressed.\n"
		   "# TYPE fabricctl_sweep_pair_status gauge\n");
	if (sweep_pairs_each(r, status_series, &c) < 0 ||
	    prom_bw_gauge(f, r, "fabricctl_sweep_pair_bandwidth_mbps",
			  "Average bandwidth from a to b (dir ab) or b to a (ba).", false) < 0 ||
	    prom_bw_gauge(f, r, "fabricctl_sweep_pair_bandwidth_min_mbps",
			  "Slowest interval's bandwidth.", true) < 0)
		return -EIO;
	fprintf(f, "# HELP fabricctl_sweep_pair_expected_mbps What the pair should reach: the lowest "
		   "rated speed on its path (expected=\"rated\") or its path class's reference "
		   "(expected=\"class\").\n# TYPE fabricctl_sweep_pair_expected_mbps gauge\n");
	if (sweep_pairs_each(r, expected_series, &c) < 0 || prom_pair_ratios(f, r) < 0)
		return -EIO;
	fprintf(f, "# HELP fabricctl_sweep_pair_latency_ns Round-trip time quantiles.\n"
		   "# TYPE fabricctl_sweep_pair_latency_ns gauge\n");
	if (sweep_pairs_each(r, latency_series, &c) < 0 || prom_legs(f, r) < 0)
		return -EIO;
	fprintf(f, "# HELP fabricctl_sweep_pairs Pairs by status.\n"
		   "# TYPE fabricctl_sweep_pairs gauge\n"
		   "fabricctl_sweep_pairs{status=\"ok\"} %zu\n"
		   "fabricctl_sweep_pairs{status=\"slow\"} %zu\n"
		   "fabricctl_sweep_pairs{status=\"failed\"} %zu\n"
		   "fabricctl_sweep_pairs{status=\"regressed\"} %zu\n",
		   c.count[0], c.count[1], c.count[2], c.count[3]);
	fprintf(f, "# HELP fabricctl_sweep_suspect_score Suspected nodes and links (0..1).\n"
		   "# TYPE fabricctl_sweep_suspect_score gauge\n");
	for (size_t i = 0; i < r->n_suspects; i++) {
		const struct sweep_suspect *s = &r->suspects[i];

		if (s->is_node) {
			fputs("fabricctl_sweep_suspect_score{kind=\"node\",node=\"", f);
			label(f, r->hosts->hosts[s->node].name);
			fputs("\"}", f);
		} else {
			fputs("fabricctl_sweep_suspect_score{kind=\"link\"", f);
			pair_labels(f, r, s->a, s->b);
			fputc('}', f);
		}
		fprintf(f, " %.3f\n", s->score);
	}
	prom_link_suspects(f, r);
	fprintf(f, "# HELP fabricctl_sweep_fleet_bandwidth_median_mbps Median pair bandwidth.\n"
		   "# TYPE fabricctl_sweep_fleet_bandwidth_median_mbps gauge\n"
		   "fabricctl_sweep_fleet_bandwidth_median_mbps %.3f\n",
		   isnan(r->ref.bw_median_mbps) ? 0 : r->ref.bw_median_mbps);
	fprintf(f, "# HELP fabricctl_sweep_interrupted 1 when a signal or an error stopped the sweep: only the pairs measured before it are here.\n"
		   "# TYPE fabricctl_sweep_interrupted gauge\n"
		   "fabricctl_sweep_interrupted %d\n", r->interrupted);
	fprintf(f, "# HELP fabricctl_sweep_duration_seconds Wall time of the sweep.\n"
		   "# TYPE fabricctl_sweep_duration_seconds gauge\n"
		   "fabricctl_sweep_duration_seconds %.3f\n"
		   "# HELP fabricctl_sweep_last_run_timestamp_seconds When the sweep started.\n"
		   "# TYPE fabricctl_sweep_last_run_timestamp_seconds gauge\n"
		   "fabricctl_sweep_last_run_timestamp_seconds %lld\n",
		   r->wall_s, (long long)r->started_unix);
	return ferror(f) ? -EIO : 0;
}

static int prom_sweep(struct render *out, const struct sweep_report *r)
{
	return prom_body(out->f, r);
}

const struct render_ops render_prom_ops = {
	.name = "prometheus",
	.status = status_prom,	/* render/optics_prom.c: the modules (status --prom) */
	.sweep = prom_sweep,
};

int sweep_prom_write(const struct sweep_report *r, const char *path, struct fab_err *err)
{
	struct file_atomic w;
	int rc = file_atomic_open(&w, path, 0644, err);

	if (rc < 0)
		return rc;
	rc = render_prom_ops.sweep(&(struct render){ .ops = &render_prom_ops, .f = w.f }, r);
	return file_atomic_finish(&w, rc, err);
}
