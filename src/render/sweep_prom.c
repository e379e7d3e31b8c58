// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep, Prometheus text exposition format, for node_exporter's textfile
 * collector.  Formatted in memory, then written by file_write_atomic()
 * (a temporary file beside FILE, fsync'd, renamed over it), so the
 * collector never reads half a file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/sweep_judge.h"
#include "render/render_impl.h"
#include "util/file.h"

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
}

/* Gauge @name for each measured direction of every pair: its slowest interval (@min) or average. */
static void prom_bw_gauge(FILE *f, const struct sweep_report *r, const char *name,
			  const char *help, bool min)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct sweep_pair *p = &r->pairs[i];

		for (int d = 0; d < 2; d++) {
			const struct sweep_bw *bw = d ? &p->ba : &p->ab;

			if (!bw->measured)
				continue;
			fputs(name, f);
			pair_labels(f, r, p->a, p->b);
			fprintf(f, ",dir=\"%s\"} %.3f\n", d ? "ba" : "ab",
				min ? bw->min_mbps : bw->avg_mbps);
		}
	}
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

static void prom_body(FILE *f, const struct sweep_report *r)
{
	static const char *q[] = { "0", "0.5", "0.99", "0.999", "1" };
	size_t count[4] = { 0 };

	fprintf(f, "# HELP fabricctl_sweep_pair_status Pair status: 0 ok, 1 slow, 2 failed, 3 regressed.\n"
		   "# TYPE fabricctl_sweep_pair_status gauge\n");
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct sweep_pair *p = &r->pairs[i];
		int v = prom_status(p->status);

		fputs("fabricctl_sweep_pair_status", f);
		pair_labels(f, r, p->a, p->b);
		fprintf(f, "} %d\n", v);
		if (v >= 0)
			count[v]++;
	}
	prom_bw_gauge(f, r, "fabricctl_sweep_pair_bandwidth_mbps",
		      "Average bandwidth from a to b (dir ab) or b to a (ba).", false);
	prom_bw_gauge(f, r, "fabricctl_sweep_pair_bandwidth_min_mbps",
		      "Slowest interval's bandwidth.", true);
	fprintf(f, "# HELP fabricctl_sweep_pair_expected_mbps What the pair should reach: the lowest "
		   "rated speed on its path (expected=\"rated\") or its path class's reference "
		   "(expected=\"class\").\n# TYPE fabricctl_sweep_pair_expected_mbps gauge\n");
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct sweep_pair *p = &r->pairs[i];

		if (p->expect_src == SWEEP_EXPECT_NONE || !(p->expected_mbps > 0))
			continue;
		fputs("fabricctl_sweep_pair_expected_mbps", f);
		pair_labels(f, r, p->a, p->b);
		fprintf(f, ",expected=\"%s\"} %.3f\n",
			p->expect_src == SWEEP_EXPECT_RATED ? "rated" : "class", p->expected_mbps);
	}
	fprintf(f, "# HELP fabricctl_sweep_pair_latency_ns Round-trip time quantiles.\n"
		   "# TYPE fabricctl_sweep_pair_latency_ns gauge\n");
	for (size_t i = 0; i < r->n_pairs; i++) {
		const struct sweep_pair *p = &r->pairs[i];
		double v[] = { p->lat_ns.min, p->lat_ns.p50, p->lat_ns.p99, p->lat_ns.p999,
			       p->lat_ns.max };

		if (!p->have_lat)
			continue;
		for (size_t k = 0; k < 5; k++) {
			fputs("fabricctl_sweep_pair_latency_ns", f);
			pair_labels(f, r, p->a, p->b);
			fprintf(f, ",quantile=\"%s\"} %.0f\n", q[k], v[k]);
		}
	}
	fprintf(f, "# HELP fabricctl_sweep_pairs Pairs by status.\n"
		   "# TYPE fabricctl_sweep_pairs gauge\n"
		   "fabricctl_sweep_pairs{status=\"ok\"} %zu\n"
		   "fabricctl_sweep_pairs{status=\"slow\"} %zu\n"
		   "fabricctl_sweep_pairs{status=\"failed\"} %zu\n"
		   "fabricctl_sweep_pairs{status=\"regressed\"} %zu\n",
		   count[0], count[1], count[2], count[3]);
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
	fprintf(f, "# HELP fabricctl_sweep_fleet_bandwidth_median_mbps Median pair bandwidth.\n"
		   "# TYPE fabricctl_sweep_fleet_bandwidth_median_mbps gauge\n"
		   "fabricctl_sweep_fleet_bandwidth_median_mbps %.3f\n",
		   isnan(r->ref.bw_median_mbps) ? 0 : r->ref.bw_median_mbps);
	fprintf(f, "# HELP fabricctl_sweep_interrupted 1 when a signal stopped the sweep: only the finished rounds' pairs are here.\n"
		   "# TYPE fabricctl_sweep_interrupted gauge\n"
		   "fabricctl_sweep_interrupted %d\n", r->interrupted);
	fprintf(f, "# HELP fabricctl_sweep_duration_seconds Wall time of the sweep.\n"
		   "# TYPE fabricctl_sweep_duration_seconds gauge\n"
		   "fabricctl_sweep_duration_seconds %.3f\n"
		   "# HELP fabricctl_sweep_last_run_timestamp_seconds When the sweep started.\n"
		   "# TYPE fabricctl_sweep_last_run_timestamp_seconds gauge\n"
		   "fabricctl_sweep_last_run_timestamp_seconds %lld\n",
		   r->wall_s, (long long)r->started_unix);
}

static int prom_sweep(struct render *out, const struct sweep_report *r)
{
	prom_body(out->f, r);
	return ferror(out->f) ? -EIO : 0;
}

const struct render_ops render_prom_ops = {
	.name = "prometheus",
	.sweep = prom_sweep,
};

int sweep_prom_write(const struct sweep_report *r, const char *path)
{
	struct fab_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (!f)
		return -errno;
	rc = render_prom_ops.sweep(&(struct render){ .ops = &render_prom_ops, .f = f }, r);
	if (fclose(f) == EOF && rc == 0)
		rc = -ENOMEM;
	fab_err_init(&err);
	if (rc == 0)
		rc = file_write_atomic(path, buf, len, 0644, &err);
	free(buf);
	return rc;
}
