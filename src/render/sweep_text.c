// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep, text: a summary line, the bandwidth matrix (row sends to column,
 * Gb/s; '*' slow, 'X' failed), the latency matrix (median round trip, us),
 * the pairs that are not ok, and the suspects, most suspect first.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/sweep_judge.h"
#include "render/render_impl.h"

static const struct sweep_pair *pair_of(const struct sweep_report *r, size_t a, size_t b)
{
	for (size_t i = 0; i < r->n_pairs; i++)
		if ((r->pairs[i].a == a && r->pairs[i].b == b) ||
		    (r->pairs[i].a == b && r->pairs[i].b == a))
			return &r->pairs[i];
	return NULL;
}

static const char *mark(const struct render *out, const struct sweep_pair *p)
{
	if (p->status == SWEEP_OK)
		return out->color ? "\033[0m " : " ";
	return out->color ? "*\033[0m" : "*";
}

static void cell(FILE *f, const struct render *out, const struct sweep_pair *p,
		 double v, bool have, int w)
{
	char buf[32];

	if (!p) {
		fprintf(f, " %*s ", w, "-");
		return;
	}
	if (p->status == SWEEP_FAILED || !have) {
		fprintf(f, " %s%*s%s", out->color && p->status == SWEEP_FAILED ? "\033[31m" : "",
			w, p->status == SWEEP_FAILED ? "X" : "-",
			out->color && p->status == SWEEP_FAILED ? "\033[0m " : " ");
		return;
	}
	snprintf(buf, sizeof(buf), "%.*f", v < 10 ? 2 : 1, v);
	fprintf(f, " %s%*s%s", out->color && p->status == SWEEP_SLOW ? "\033[31m" : "", w, buf,
		mark(out, p));
}

static void matrix(FILE *f, const struct render *out, const struct sweep_report *r,
		   const char *title, bool lat, int w, int nw)
{
	size_t n = r->hosts->n;

	/* Columns are numbered like the rows: names may be long. */
	fprintf(f, "%s\n%-*s", title, nw + 5, "");
	for (size_t b = 0; b < n; b++)
		fprintf(f, " %*zu ", w, b + 1);
	fputc('\n', f);
	for (size_t a = 0; a < n; a++) {
		fprintf(f, "%3zu  %-*.*s", a + 1, nw, nw, r->hosts->hosts[a].name);
		for (size_t b = 0; b < n; b++) {
			const struct sweep_pair *p = a == b ? NULL : pair_of(r, a, b);

			if (a == b) {
				fprintf(f, " %*s ", w, ".");
			} else if (lat) {
				cell(f, out, p, p ? p->lat_ns.p50 / 1000 : 0, p && p->have_lat, w);
			} else {
				const struct sweep_bw *bw = p && p->a == a ? &p->ab : p ? &p->ba : NULL;

				cell(f, out, p, bw ? bw->avg_mbps / 1000 : 0, bw && bw->measured, w);
			}
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

int sweep_text(struct render *out, const struct sweep_report *r)
{
	FILE *f = out->f;
	size_t ok = 0, slow = 0, failed = 0;
	int w = 7, nw = 4;

	for (size_t i = 0; i < r->n_pairs; i++) {
		ok += r->pairs[i].status == SWEEP_OK;
		slow += r->pairs[i].status == SWEEP_SLOW;
		failed += r->pairs[i].status == SWEEP_FAILED;
	}
	for (size_t i = 0; i < r->hosts->n; i++) {
		int len = (int)strlen(r->hosts->hosts[i].name);

		if (len > nw)
			nw = len;
	}
	if (nw > 32)
		nw = 32;
	fprintf(f, "sweep: %zu nodes, %zu pairs in %zu rounds (%s, %s, %s): %zu ok, %zu slow, %zu failed\n",
		r->hosts->n, r->n_pairs, r->n_rounds, r->transport, r->launcher, r->mode,
		ok, slow, failed);
	if (r->interrupted)
		fprintf(f, "interrupted: %zu of %zu rounds finished, only their pairs are shown\n",
			r->rounds_done, r->n_rounds);
	if (!isnan(r->ref.bw_median_mbps))
		fprintf(f, "fleet median %.2f Gb/s (MAD %.2f)", r->ref.bw_median_mbps / 1000,
			r->ref.bw_mad_mbps / 1000);
	if (!isnan(r->ref.lat_median_ns))
		fprintf(f, "%slatency median %.1f us", isnan(r->ref.bw_median_mbps) ? "" : ", ",
			r->ref.lat_median_ns / 1000);
	fprintf(f, "%swall %.1f s\n\n", isnan(r->ref.bw_median_mbps) && isnan(r->ref.lat_median_ns)
		? "" : ", ", r->wall_s);
	if (r->duration_ms)
		matrix(f, out, r, "bandwidth Gb/s (row sends to column; * slow, X failed)", false, w, nw);
	if (r->lat_iters)
		matrix(f, out, r, "latency us (median round trip; * slow, X failed)", true, w, nw);
	if (slow + failed) {
		fprintf(f, "pairs not ok:\n");
		for (size_t i = 0; i < r->n_pairs; i++) {
			const struct sweep_pair *p = &r->pairs[i];

			if (p->status == SWEEP_OK)
				continue;
			fprintf(f, "  %-*s %-*s %-6s %s%s\n", nw, r->hosts->hosts[p->a].name, nw,
				r->hosts->hosts[p->b].name, sweep_status_name(p->status), p->reason,
				p->retested ? " (confirmed by retest)" : "");
		}
		fputc('\n', f);
	}
	if (r->n_suspects) {
		fprintf(f, "suspects:\n");
		for (size_t i = 0; i < r->n_suspects; i++) {
			const struct sweep_suspect *s = &r->suspects[i];

			if (s->is_node)
				fprintf(f, "  %zu. node %s (score %.2f): %s\n", i + 1,
					r->hosts->hosts[s->node].name, s->score, s->evidence);
			else
				fprintf(f, "  %zu. link %s - %s (score %.2f): %s\n", i + 1,
					r->hosts->hosts[s->a].name, r->hosts->hosts[s->b].name,
					s->score, s->evidence);
		}
	} else {
		fprintf(f, "suspects: none\n");
	}
	return fflush(f) == EOF ? -EIO : 0;
}
