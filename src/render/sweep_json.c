// SPDX-License-Identifier: GPL-2.0-or-later
/* sweep, JSON: "fabricctl.sweep/1" (docs/sweep.md). */
#include <errno.h>
#include <math.h>

#include "model/sweep_judge.h"
#include "render/render_impl.h"

static json_t *num_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

/* A direction's bandwidth, or null when it was not measured. */
static json_t *bw_to_json(const struct sweep_bw *bw)
{
	if (!bw->measured)
		return json_null();
	return json_pack("{s:f, s:f, s:I, s:f, s:i}",
			 "avg_mbps", bw->avg_mbps, "min_mbps", bw->min_mbps,
			 "bytes", (json_int_t)bw->bytes, "secs", bw->secs,
			 "intervals", (int)bw->intervals);
}

/* Round-trip latency quantiles, or null when the pair has none. */
static json_t *lat_to_json(const struct stats_summary *s, bool have)
{
	if (!have)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:I}",
			 "min", s->min, "p50", s->p50, "p99", s->p99, "p999", s->p999,
			 "max", s->max, "mean", s->mean, "samples", (json_int_t)s->n);
}

static json_t *pair_to_json(const struct sweep_report *r, const struct sweep_pair *p)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:i, s:f, s:b, s:b, s:o, s:o, s:o, s:o, s:o}",
			 "a", r->hosts->hosts[p->a].name,
			 "b", r->hosts->hosts[p->b].name,
			 "status", sweep_status_name(p->status),
			 "reason", p->status == SWEEP_OK ? json_null() : json_string(p->reason),
			 "round", (int)p->round,
			 "test_s", p->test_s,
			 "retested", p->retested,
			 "first_slow", p->first_slow,
			 "lat_ns", lat_to_json(&p->lat_ns, p->have_lat),
			 "bw_ab", bw_to_json(&p->ab),
			 "bw_ba", bw_to_json(&p->ba),
			 "bw_mbps", num_or_null(sweep_pair_bw(p)),
			 "pct_rated", p->pct_rated >= 0 ? json_real(p->pct_rated) : json_null());
}

static json_t *suspect_to_json(const struct sweep_report *r, const struct sweep_suspect *s)
{
	const struct fab_host *h = r->hosts->hosts;

	return json_pack("{s:o, s:o, s:f, s:{s:i, s:i, s:i, s:i, s:o, s:o, s:s}}",
			 "node", s->is_node ? json_string(h[s->node].name) : json_null(),
			 "link", s->is_node ? json_null()
					    : json_pack("[ss]", h[s->a].name, h[s->b].name),
			 "score", s->score,
			 "evidence",
			 "pairs", (int)s->pairs,
			 "bad_pairs", (int)s->bad_pairs,
			 "slow_pairs", (int)s->slow_pairs,
			 "failed_pairs", (int)s->failed_pairs,
			 "median_bw_mbps", num_or_null(s->median_bw_mbps),
			 "fleet_median_bw_mbps", num_or_null(r->ref.bw_median_mbps),
			 "text", s->evidence);
}

json_t *sweep_to_json(const struct sweep_report *r)
{
	json_t *nodes = json_array(), *pairs = json_array(), *sus = json_array();
	size_t ok = 0, slow = 0, failed = 0;

	for (size_t i = 0; i < r->hosts->n; i++) {
		const struct fab_host *h = &r->hosts->hosts[i];

		json_array_append_new(nodes, json_pack("{s:s, s:s, s:o, s:o}",
			"name", h->name, "address", h->addr,
			"rdma", *h->rdma ? json_string(h->rdma) : json_null(),
			"rate_gbps", h->rate_gbps > 0 ? json_real(h->rate_gbps) : json_null()));
	}
	for (size_t i = 0; i < r->n_pairs; i++) {
		json_array_append_new(pairs, pair_to_json(r, &r->pairs[i]));
		ok += r->pairs[i].status == SWEEP_OK;
		slow += r->pairs[i].status == SWEEP_SLOW;
		failed += r->pairs[i].status == SWEEP_FAILED;
	}
	for (size_t i = 0; i < r->n_suspects; i++)
		json_array_append_new(sus, suspect_to_json(r, &r->suspects[i]));
	return json_pack("{s:s, s:s, s:s, s:s, s:I, s:f, s:b, s:o, s:i, s:i,"
			 " s:{s:i, s:i, s:i, s:i, s:i, s:f, s:f, s:b, s:o, s:f, s:f, s:o},"
			 " s:{s:o, s:o, s:o, s:o},"
			 " s:{s:i, s:i, s:i, s:i}, s:o, s:o}",
			 "schema", "fabricctl.sweep/1",
			 "transport", r->transport,
			 "launcher", r->launcher,
			 "mode", r->mode,
			 "started_unix", (json_int_t)r->started_unix,
			 "wall_s", r->wall_s,
			 "interrupted", r->interrupted,
			 "nodes", nodes,
			 "rounds", (int)r->n_rounds,
			 "rounds_done", (int)(r->interrupted ? r->rounds_done : r->n_rounds),
			 "config",
			 "duration_ms", (int)r->duration_ms,
			 "lat_iters", (int)r->lat_iters,
			 "lat_ms", (int)r->lat_ms,
			 "msg_bytes", (int)r->msg_bytes,
			 "streams", (int)r->streams,
			 "slow_pct", r->cfg.slow_pct,
			 "min_pct", r->cfg.min_pct,
			 "min_pct_fleet", r->cfg.min_pct_fleet,
			 "bw_min_mbps", r->cfg.bw_min_mbps > 0 ? json_real(r->cfg.bw_min_mbps) : json_null(),
			 "mad_k", r->cfg.mad_k,
			 "lat_factor", r->cfg.lat_factor,
			 "lat_max_ns", r->cfg.lat_max_ns > 0 ? json_real(r->cfg.lat_max_ns) : json_null(),
			 "reference",
			 "bw_median_mbps", num_or_null(r->ref.bw_median_mbps),
			 "bw_mad_mbps", num_or_null(r->ref.bw_mad_mbps),
			 "lat_median_ns", num_or_null(r->ref.lat_median_ns),
			 "lat_mad_ns", num_or_null(r->ref.lat_mad_ns),
			 "summary",
			 "pairs", (int)r->n_pairs, "ok", (int)ok, "slow", (int)slow, "failed", (int)failed,
			 "pairs", pairs,
			 "suspects", sus);
}

int sweep_json(struct render *out, const struct sweep_report *r)
{
	return render_json_emit(out, sweep_to_json(r));
}
