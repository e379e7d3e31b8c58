// SPDX-License-Identifier: GPL-2.0-or-later
/* sweep, JSON: "fabricctl.sweep/2" (docs/sweep.md). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/localize.h"
#include "model/path.h"
#include "model/sweep_judge.h"
#include "model/topo.h"
#include "io/pair_store.h"
#include "render/json_stream.h"
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

/* {node, port}: the port's name (Ethernet) or number (IB). */
static json_t *end_to_json(const struct topo_port *p)
{
	return json_pack("{s:s, s:o}", "node", p->node->name,
			 "port", p->name[0] ? json_string(p->name) : json_integer(p->num));
}

static json_t *link_to_json(const struct topo *t, uint32_t link)
{
	const struct topo_link *l = t->links[link];

	return json_pack("{s:o, s:o}", "a", end_to_json(l->a), "b", end_to_json(l->b));
}

/* One direction's paths: [{share, hops: [{from: end, to: end}]}]. */
static json_t *paths_to_json(const struct topo *t, const struct path *ps, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *hops = json_array();

		for (size_t h = 0; h < ps[i].n_hops; h++) {
			const struct topo_link *l = t->links[ps[i].hops[h].link];
			bool fwd = ps[i].hops[h].fwd;

			json_array_append_new(hops, json_pack("{s:o, s:o}",
				"from", end_to_json(fwd ? l->a : l->b), "to", end_to_json(fwd ? l->b : l->a)));
		}
		json_array_append_new(arr, json_pack("{s:f, s:o}", "share", ps[i].share, "hops", hops));
	}
	return arr;
}

/* Every link any path of the pair crosses, once, in order of first use. */
static json_t *path_links_to_json(const struct topo *t, const struct pair_route *pr)
{
	unsigned char *seen = calloc(t->n_links ? t->n_links : 1, 1);
	json_t *arr = json_array();

	for (int d = 0; seen && d < 2; d++) {
		const struct path *ps = d ? pr->ba : pr->ab;
		size_t n = d ? pr->n_ba : pr->n_ab;

		for (size_t i = 0; i < n; i++)
			for (size_t h = 0; h < ps[i].n_hops; h++) {
				uint32_t l = ps[i].hops[h].link;

				if (l < t->n_links && !seen[l]) {
					seen[l] = 1;
					json_array_append_new(arr, link_to_json(t, l));
				}
			}
	}
	free(seen);
	return arr;
}

static bool path_same(const struct path *x, const struct path *y)
{
	if (x->n_hops != y->n_hops)
		return false;
	for (size_t h = 0; h < x->n_hops; h++)
		if (x->hops[h].link != y->hops[h].link || x->hops[h].fwd != y->hops[h].fwd)
			return false;
	return true;
}

/* --steer: "traced": true on the listed path (of @arr, from @ps) the test took. */
static void traced_mark(json_t *arr, const struct path *ps, size_t n, const struct path *took)
{
	for (size_t i = 0; took && arr && i < n; i++)
		if (path_same(&ps[i], took))
			json_object_set_new(json_array_get(arr, i), "traced", json_true());
}

/* --steer: the pair's "steer" object and its traced members in "routes". */
static void pair_steer_fields(const struct sweep_report *r, const struct sweep_pair *p,
			      const struct pair_route *pr, json_t *o)
{
	const struct sweep_steer_view *v = r->fabric.steer;
	json_t *routes = json_object_get(o, "routes");
	struct sweep_steer_fact f;

	if (!v || !v->fact)
		return;
	v->fact(v->ctx, p->a, p->b, &f);
	if (pr && json_is_object(routes) && f.steered) {
		traced_mark(json_object_get(routes, "ab"), pr->ab, pr->n_ab, f.ab);
		traced_mark(json_object_get(routes, "ba"), pr->ba, pr->n_ba, f.ba);
	}
	json_object_set_new(o, "steer", json_pack("{s:b, s:b, s:o}", "traced", f.traced,
			    "steered", f.steered,
			    "fallback", f.fallback ? json_string(f.fallback) : json_null()));
}

static const char *verdict_word(enum loc_verdict v)
{
	return v == LOC_OK ? "ok" : v == LOC_SLOW ? "slow" : v == LOC_FAILED ? "failed" : "unknown";
}

/*
 * --steer's confirming probes (docs/paths.md "Confirming suspects"): the
 * pair, the link it crossed alone, each direction's verdict and share of
 * the expected rate, its route; diagnose --from reads them back.
 */
static json_t *confirming_json(const struct sweep_report *r)
{
	const struct topo *t = r->fabric.topo;
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < r->fabric.n_confirm; i++) {
		const struct loc_probe_obs *o = &r->fabric.confirm[i];
		json_t *dirs = json_object();

		for (int d = 0; d < 2; d++)
			json_object_set_new(dirs, d ? "ba" : "ab", json_pack("{s:s, s:o}",
				"status", verdict_word(o->d.v[d]),
				"pct_expected", o->d.pct[d] >= 0 ? json_real(o->d.pct[d]) : json_null()));
		json_array_append_new(arr, json_pack("{s:s, s:s, s:o, s:o, s:{s:o, s:o}}",
			"a", r->hosts->hosts[o->a].name, "b", r->hosts->hosts[o->b].name,
			"crosses", o->link < t->n_links ? link_to_json(t, o->link) : json_null(),
			"dirs", dirs, "routes",
			"ab", paths_to_json(t, o->route.ab, o->route.n_ab),
			"ba", paths_to_json(t, o->route.ba, o->route.n_ba)));
	}
	return arr;
}

static const char *expect_name(enum sweep_expect e)
{
	return e == SWEEP_EXPECT_RATED ? "rated" : e == SWEEP_EXPECT_CLASS ? "class" :
	       e == SWEEP_EXPECT_NODES ? "nodes" : NULL;
}

/* sweep/2's per-pair fields: expected rate, class, path and routes. */
static void pair_topo_fields(const struct sweep_report *r, size_t i, const struct sweep_pair *p,
			     json_t *o)
{
	struct pair_route tmp = { 0 };
	const struct pair_route *pr = sweep_pair_route(r, i, p, &tmp);
	const struct topo *t = r->fabric.topo;
	const char *from = expect_name(p->expect_src);

	json_object_set_new(o, "expected_mbps",
			    p->expected_mbps > 0 ? json_real(p->expected_mbps) : json_null());
	json_object_set_new(o, "expected_from", from ? json_string(from) : json_null());
	json_object_set_new(o, "pct_expected",
			    p->pct_rated >= 0 ? json_real(p->pct_rated) : json_null());
	json_object_set_new(o, "class", p->klass ? json_integer(p->klass) : json_null());
	if (!pr || !t) {
		json_object_set_new(o, "path", json_null());
		json_object_set_new(o, "routes", json_null());
		pair_steer_fields(r, p, NULL, o);
		pair_route_fini(&tmp);
		return;
	}
	json_object_set_new(o, "path", pr->n_ab ? path_links_to_json(t, pr) : json_null());
	json_object_set_new(o, "routes", pr->n_ab ? json_pack("{s:o, s:o}",
			    "ab", paths_to_json(t, pr->ab, pr->n_ab),
			    "ba", paths_to_json(t, pr->ba, pr->n_ba)) : json_null());
	pair_steer_fields(r, p, pr, o);
	pair_route_fini(&tmp);
}

static json_t *topo_node_json(const struct topo *t, size_t i)
{
	return json_pack("{s:s, s:s}", "name", t->nodes[i]->name,
			 "type", topo_node_type_name(t->nodes[i]->type));
}

static json_t *topo_link_json(const struct topo *t, size_t i)
{
	json_t *l = link_to_json(t, (uint32_t)i);

	json_object_set_new(l, "status", json_string(topo_link_status_name(t->links[i]->status)));
	return l;
}

/* "topology": {source, nodes, links}; the lists empty when @fill is false (streamed). */
static json_t *topology_to_json(const struct sweep_report *r, bool fill)
{
	const struct topo *t = r->fabric.topo;
	json_t *nodes, *links;

	if (!r->fabric.source || !t)
		return json_null();
	nodes = json_array();
	links = json_array();
	for (size_t i = 0; fill && i < t->n_nodes; i++)
		json_array_append_new(nodes, topo_node_json(t, i));
	for (size_t i = 0; fill && i < t->n_links; i++)
		json_array_append_new(links, topo_link_json(t, i));
	return json_pack("{s:s, s:o, s:o}", "source", r->fabric.source, "nodes", nodes,
			 "links", links);
}

/*
 * The port counters read with the graph (InfiniBand PMA, before the first
 * round): diagnose --from compares them with the live fabric.  null when
 * none were read.
 */
static json_t *counters_to_json(const struct topo *t)
{
	json_t *arr = json_array();
	bool any = false;

	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t k = 0; k < t->nodes[i]->n_ports; k++) {
			const struct topo_port *p = t->nodes[i]->ports[k];

			if (!(p->facts & TOPO_F_COUNTERS))
				continue;
			any = true;
			for (int c = 0; c < TOPO_CNT_MAX; c++)
				json_array_append_new(arr, json_pack("{s:s, s:o, s:o, s:s, s:I}",
					"node", p->node->name, "guid", json_guid(p->node->guid),
					"port", p->name[0] ? json_string(p->name) : json_integer(p->num),
					"name", topo_counter_name(c), "value", (json_int_t)p->counters[c]));
		}
	if (!any) {
		json_decref(arr);
		return json_null();
	}
	return arr;
}

/* --steer: how the rounds were counted, beside the whole-set count; the skip's reason. */
static void schedule_steer(const struct sweep_report *r, json_t *o)
{
	const struct sweep_steer_view *sv = r->fabric.steer;

	if (!sv || !o)
		return;
	json_object_set_new(o, "counted", json_string(sv->whole ? "whole-set" : "steered"));
	json_object_set_new(o, "rounds_whole", sv->whole ? json_null()
			    : json_integer((json_int_t)sv->rounds_whole));
	json_object_set_new(o, "trace_window", sv->windows ? json_integer(sv->windows) : json_null());
	if (sv->skipped)
		json_object_set_new(o, "steer_skipped", json_string(sv->skipped));
}

/* The schedule without --steer's keys. */
static json_t *schedule_json(const struct sweep_report *r)
{
	const struct sweep_fabric_view *v = &r->fabric;

	return json_pack("{s:i, s:o, s:o, s:o}", "rounds", (int)r->n_rounds,
			 "bound", v->have_bound ? json_pack("{s:I, s:I, s:I, s:I}",
				"bound", (json_int_t)v->bound, "node", (json_int_t)v->bound_node,
				"link", (json_int_t)v->bound_link, "cut", (json_int_t)v->bound_cut)
			 : json_null(),
			 "coverage", v->cov_k ? json_pack("{s:i, s:I, s:I, s:I, s:I, s:I}",
				"k", (int)v->cov_k, "pairs", (json_int_t)r->n_pairs,
				"links_target", (json_int_t)v->cov_links_target,
				"links_short", (json_int_t)v->cov_links_short,
				"links_unreachable", (json_int_t)v->cov_links_unreachable,
				"hosts_short", (json_int_t)v->cov_hosts_short)
			 : json_null(),
			 "round_pairs", json_array());
}

/* Rounds and the lower bound the scheduler proved; round_pairs empty (filled by the caller). */
static json_t *schedule_to_json(const struct sweep_report *r)
{
	json_t *o = schedule_json(r);

	schedule_steer(r, o);
	return o;
}

/* A pair in round_pairs: [a, b]. */
static json_t *round_pair_json(const struct sweep_report *r, const struct sweep_pair *p)
{
	return json_pack("[ss]", r->hosts->hosts[p->a].name, r->hosts->hosts[p->b].name);
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

/* sweep --baseline: the pair's old figures and the change, or null. */
static json_t *pair_base_json(const struct sweep_pair *p)
{
	if (!p->have_base)
		return json_null();
	return json_pack("{s:o, s:o, s:o}",
			 "bw_ab_mbps", num_or_null(p->base_ab_mbps),
			 "bw_ba_mbps", num_or_null(p->base_ba_mbps),
			 "change_pct", num_or_null(p->change_pct));
}

static json_t *baseline_to_json(const struct sweep_report *r, size_t regressed)
{
	if (!r->baseline.file)
		return json_null();
	return json_pack("{s:s, s:f, s:o, s:I, s:I}",
			 "file", r->baseline.file,
			 "regress_pct", r->baseline.regress_pct,
			 "started_unix", r->baseline.started_unix
					 ? json_integer((json_int_t)r->baseline.started_unix) : json_null(),
			 "compared", (json_int_t)r->baseline.compared,
			 "regressed", (json_int_t)regressed);
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

/*
 * A member's link, or null for a host whose access link is unknown; a
 * host's access link has the host's end as "a".
 */
static json_t *member_link_json(const struct topo *t, const struct loc_member *m)
{
	const struct topo_link *l;

	if (m->link >= t->n_links)
		return json_null();
	l = t->links[m->link];
	if (m->host >= 0 && l->b->node->type != TOPO_NODE_SWITCH && l->a->node->type == TOPO_NODE_SWITCH)
		return json_pack("{s:o, s:o}", "a", end_to_json(l->b), "b", end_to_json(l->a));
	return link_to_json(t, m->link);
}

/* One link suspect (model/localize.h) as docs/diagnose.md describes it. */
static json_t *loc_suspect_to_json(const struct sweep_report *r, const struct loc_suspect *s)
{
	const struct topo *t = r->fabric.topo;
	const struct loc_evidence *e = &s->ev;
	json_t *links = json_array(), *counters = json_array(), *o;
	char text[512];

	for (size_t i = 0; i < s->n_members; i++)
		json_array_append_new(links, member_link_json(t, &s->members[i]));
	for (size_t i = 0; i < s->n_counters; i++) {
		const struct counter_finding *c = &s->counters[i];

		json_array_append_new(counters, json_pack("{s:o, s:s, s:I, s:I, s:s}",
			"port", end_to_json(c->port), "counter", c->name, "delta", (json_int_t)c->delta,
			"threshold", (json_int_t)c->threshold, "severity", counter_sev_name(c->sev)));
	}
	loc_member_text(r->fabric.loc_in, &s->members[0], text, sizeof(text));
	o = json_pack("{s:s, s:o, s:o, s:f, s:f, s:{s:i, s:i, s:i, s:i, s:i, s:o, s:i, s:i, s:o},"
		      " s:s, s:o}",
		"kind", loc_kind_name(s->kind),
		"node", s->kind == LOC_KIND_NODE && s->members[0].host >= 0
			? json_string(r->hosts->hosts[s->members[0].host].name) : json_null(),
		"link", s->kind != LOC_KIND_GROUP ? member_link_json(t, &s->members[0]) : json_null(),
		"score", s->score,
		"traffic_score", s->traffic_score,
		"evidence",
		"cross_bad", (int)e->cross_bad, "cross_n", (int)e->cross_n,
		"other_bad", (int)e->other_bad, "other_n", (int)e->other_n,
		"cross_failed", (int)e->cross_failed,
		"cross_pct_median", e->cross_pct_median >= 0 ? json_real(e->cross_pct_median) : json_null(),
		"probes_run", (int)e->probes_run, "probes_bad", (int)e->probes_bad,
		"counters", counters,
		"text", text,
		"note", json_text_or_null(s->note));
	json_object_set_new(o, "links", s->kind == LOC_KIND_GROUP ? links : json_null());
	if (s->kind != LOC_KIND_GROUP)
		json_decref(links);
	json_object_set_new(o, "unsplittable", json_boolean(s->unsplittable));
	return o;
}

/* An end point's host, NIC and rail into @o as "<end>_host", "<end>_nic", "<end>_rail". */
static void end_port_fields(json_t *o, const char *end, const struct fab_host *h)
{
	char key[16];

	snprintf(key, sizeof(key), "%s_host", end);
	json_object_set_new(o, key, json_string(hosts_node(h)));
	snprintf(key, sizeof(key), "%s_nic", end);
	json_object_set_new(o, key, h->nic[0] ? json_string(h->nic) : json_null());
	snprintf(key, sizeof(key), "%s_rail", end);
	json_object_set_new(o, key, h->rail >= 0 ? json_integer(h->rail) : json_null());
}

/* verbs on RoCE v2: each direction's UDP source port (null: unknown); absent otherwise. */
static void pair_sport_fields(const struct sweep_pair *p, json_t *o)
{
	if (!p->sport_ab && !p->sport_ba)
		return;
	json_object_set_new(o, "udp_sport", json_pack("{s:o, s:o}",
			    "ab", p->sport_ab ? json_integer(p->sport_ab) : json_null(),
			    "ba", p->sport_ba ? json_integer(p->sport_ba) : json_null()));
}

/* A pair as "pairs" lists it; with rails, both ends' host, NIC and rail. */
static json_t *pair_item_json(const struct sweep_report *r, size_t i, const struct sweep_pair *p)
{
	json_t *o = pair_to_json(r, p);

	if (!o)
		return NULL;
	pair_sport_fields(p, o);
	if (r->rails) {
		end_port_fields(o, "a", &r->hosts->hosts[p->a]);
		end_port_fields(o, "b", &r->hosts->hosts[p->b]);
	}
	pair_topo_fields(r, i, p, o);
	json_object_set_new(o, "baseline", pair_base_json(p));
	sweep_legs_pair_json(r, i, o);
	return o;
}

/*
 * The document without its pairs: "pairs" and "schedule.round_pairs" are
 * empty arrays (the counts come from r->n_ok ...).
 */
static json_t *sweep_doc_head(const struct sweep_report *r, bool fill_topology)
{
	json_t *nodes = json_array(), *sus = json_array();
	json_t *doc_extra = json_object(), *doc;

	for (size_t i = 0; i < r->hosts->n; i++) {
		const struct fab_host *h = &r->hosts->hosts[i];

		const struct sweep_fabric_view *v = &r->fabric;
		const char *leaf = v->topo && v->host_leaf && v->host_leaf[i] < v->topo->n_nodes
				   ? v->topo->nodes[v->host_leaf[i]]->name : h->leaf[0] ? h->leaf : NULL;

		json_t *node = json_pack("{s:s, s:s, s:o, s:o, s:o}",
			"name", h->name, "address", h->addr,
			"rdma", *h->rdma ? json_string(h->rdma) : json_null(),
			"rate_gbps", h->rate_gbps > 0 ? json_real(h->rate_gbps) : json_null(),
			"leaf", leaf ? json_string(leaf) : json_null());

		if (node && r->rails) {
			json_object_set_new(node, "host", json_string(hosts_node(h)));
			json_object_set_new(node, "nic", h->nic[0] ? json_string(h->nic) : json_null());
			json_object_set_new(node, "rail", h->rail >= 0 ? json_integer(h->rail) : json_null());
		}
		json_array_append_new(nodes, node);
	}
	for (size_t i = 0; i < r->n_suspects; i++)
		json_array_append_new(sus, suspect_to_json(r, &r->suspects[i]));
	for (size_t i = 0; r->fabric.loc && i < r->fabric.loc->n_suspects; i++)
		json_array_append_new(sus, loc_suspect_to_json(r, &r->fabric.loc->suspects[i]));
	json_object_set_new(doc_extra, "baseline", baseline_to_json(r, r->n_regressed));
	if (r->fabric.topo)
		json_object_set_new(doc_extra, "counters", counters_to_json(r->fabric.topo));
	if (r->launch.dial)
		json_object_set_new(doc_extra, "launch", json_pack("{s:s, s:i, s:{s:i, s:i, s:i, s:i, s:i, s:i}}",
			"mode", "collective", "joined", (int)r->launch.n.joined, "refused",
			"wrong_token", (int)r->launch.n.wrong_token,
			"unknown_host", (int)r->launch.n.unknown_host,
			"wrong_source", (int)r->launch.n.wrong_source,
			"duplicate", (int)r->launch.n.duplicate,
			"not_join", (int)r->launch.n.not_join, "idle", (int)r->launch.n.idle));
	if (r->fabric.loc) {
		json_t *loc = json_pack("{s:i, s:i, s:i, s:i}",
			"bad_pairs", (int)r->fabric.loc->n_bad,
			"unexplained", (int)r->fabric.loc->n_unexplained,
			"measured", (int)r->fabric.loc->n_measured,
			"probes_run", (int)r->fabric.probes_run);

		if (loc && r->fabric.topo && (r->fabric.steer || r->fabric.n_confirm))
			json_object_set_new(loc, "confirming", confirming_json(r));
		json_object_set_new(doc_extra, "localisation", loc);
	}
	json_object_set_new(doc_extra, "suspects_left_out", json_integer((json_int_t)r->suspects_left_out));
	if (r->legs || r->legs_unanswered)
		json_object_set_new(doc_extra, "legs", sweep_legs_doc_json(r));
	doc = json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:i, s:i,"
			 " s:{s:i, s:i, s:i, s:i, s:i, s:f, s:f, s:b, s:o, s:f, s:f, s:f, s:o},"
			 " s:{s:o, s:o, s:o, s:o, s:o},"
			 " s:{s:I, s:I, s:I, s:I, s:I}, s:o, s:o}",
			 "schema", "fabricctl.sweep/2",
			 "transport", r->transport,
			 "launcher", r->launcher,
			 "mode", r->mode,
			 "started_unix", (json_int_t)r->started_unix,
			 "wall_s", isnan(r->wall_s) ? json_null() : json_real(r->wall_s),	/* NAN: unknown */
			 "dry_run", r->dry_run,
			 "interrupted", r->interrupted,
			 "error", json_text_or_null(r->stop_error),
			 "topology", topology_to_json(r, fill_topology),
			 "schedule", schedule_to_json(r),
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
			 "lat_floor_ns", r->cfg.lat_floor_ns > 0 ? r->cfg.lat_floor_ns : 0.0,
			 "lat_max_ns", r->cfg.lat_max_ns > 0 ? json_real(r->cfg.lat_max_ns) : json_null(),
			 "reference",
			 "bw_median_mbps", num_or_null(r->ref.bw_median_mbps),
			 "bw_mad_mbps", num_or_null(r->ref.bw_mad_mbps),
			 "lat_median_ns", num_or_null(r->ref.lat_median_ns),
			 "lat_mad_ns", num_or_null(r->ref.lat_mad_ns),
			 "dip_median_pct", num_or_null(100 * r->ref.dip.median),
			 "summary",
			 "pairs", (json_int_t)r->n_pairs, "ok", (json_int_t)r->n_ok,
			 "slow", (json_int_t)r->n_slow, "failed", (json_int_t)r->n_failed,
			 "regressed", (json_int_t)r->n_regressed,
			 "pairs", json_array(),
			 "suspects", sus);
	if (doc)
		json_object_update(doc, doc_extra);
	json_decref(doc_extra);
	return doc;
}

struct doc_fill {
	const struct sweep_report *r;
	json_t *pairs, *rounds;
};

static int doc_fill_pair(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct doc_fill *c = ctx;

	if (p->round >= 1 && p->round <= json_array_size(c->rounds))
		json_array_append_new(json_array_get(c->rounds, p->round - 1),
				      round_pair_json(c->r, p));
	return json_array_append_new(c->pairs, pair_item_json(c->r, i, p));
}

json_t *sweep_to_json(const struct sweep_report *r)
{
	json_t *doc = sweep_doc_head(r, true);
	struct doc_fill c = { .r = r };

	if (!doc)
		return NULL;
	c.pairs = json_object_get(doc, "pairs");
	c.rounds = json_object_get(json_object_get(doc, "schedule"), "round_pairs");
	for (size_t k = 0; k < r->n_rounds; k++)
		json_array_append_new(c.rounds, json_array());
	if (sweep_pairs_each(r, doc_fill_pair, &c) < 0) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* ---- streamed: the document as sweep_to_json() builds it, pairs one at a time ---- */

struct stream_ctx {
	const struct sweep_report *r;
	struct jstream *js;
	unsigned int depth;	/* of the array being written */
	size_t n;		/* items written */
};

static int stream_pair(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct stream_ctx *c = ctx;

	return jstream_array_item(c->js, pair_item_json(c->r, i, p), c->depth, c->n++);
}

/* round_pairs: one array per round, its pairs as they follow each other in the store. */
static int stream_rounds(struct jstream *js, const struct sweep_report *r, unsigned int depth)
{
	struct sweep_pair p;
	struct fab_err err;
	size_t next = 0;
	bool have = false;

	fab_err_init(&err);
	if (jstream_array_begin(js) < 0)
		return -1;
	for (size_t k = 1; k <= r->n_rounds; k++) {
		size_t n = 0;

		if ((k > 1 && jstream_raw(js, ",", 1) < 0) || jstream_indent(js, depth + 1, k > 1) < 0 ||
		    jstream_array_begin(js) < 0)
			return -1;
		for (;;) {
			if (!have) {
				if (next >= r->n_pairs)
					break;
				if (pair_store_get(r->store, next++, &p, &err) < 0)
					return -1;
				have = true;
			}
			if (p.round > k)
				break;
			have = false;
			if (p.round == k &&
			    jstream_array_item(js, round_pair_json(r, &p), depth + 1, n++) < 0)
				return -1;
		}
		if (jstream_array_end(js, depth + 1, n) < 0)
			return -1;
	}
	return jstream_array_end(js, depth, r->n_rounds);
}

static int stream_schedule_member(struct jstream *js, const char *key, json_t *value,
				  unsigned int depth, void *ctx)
{
	const struct stream_ctx *c = ctx;

	if (strcmp(key, "round_pairs") != 0)
		return 0;
	return stream_rounds(js, c->r, depth) < 0 ? -1 : 1;
}

/* topology.nodes and topology.links, item by item. */
static int stream_topology_member(struct jstream *js, const char *key, json_t *value,
				  unsigned int depth, void *ctx)
{
	const struct topo *t = ((const struct stream_ctx *)ctx)->r->fabric.topo;
	bool nodes = !strcmp(key, "nodes");
	size_t n;

	if (!nodes && strcmp(key, "links") != 0)
		return 0;
	n = nodes ? t->n_nodes : t->n_links;
	if (jstream_array_begin(js) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (jstream_array_item(js, nodes ? topo_node_json(t, i) : topo_link_json(t, i), depth,
				       i) < 0)
			return -1;
	return jstream_array_end(js, depth, n) < 0 ? -1 : 1;
}

static int stream_member(struct jstream *js, const char *key, json_t *value, unsigned int depth,
			 void *ctx)
{
	struct stream_ctx *c = ctx;

	if (!strcmp(key, "topology") && json_is_object(value))
		return jstream_object(js, value, depth, stream_topology_member, c) < 0 ? -1 : 1;
	if (!strcmp(key, "schedule"))
		return jstream_object(js, value, depth, stream_schedule_member, c) < 0 ? -1 : 1;
	if (strcmp(key, "pairs") != 0)
		return 0;
	c->depth = depth;
	c->n = 0;
	if (jstream_array_begin(js) < 0 || sweep_pairs_each(c->r, stream_pair, c) < 0 ||
	    jstream_array_end(js, depth, c->n) < 0)
		return -1;
	return 1;
}

int sweep_json(struct render *out, const struct sweep_report *r)
{
	struct stream_ctx c = { .r = r, .js = jstream_new(out->f, out->pretty) };
	json_t *head = sweep_doc_head(r, false);
	int rc = -1;

	if (c.js && head && jstream_object(c.js, head, 0, stream_member, &c) == 0 &&
	    jstream_raw(c.js, "\n", 1) == 0)
		rc = 0;
	json_decref(head);
	if (jstream_free(c.js) < 0)
		rc = -1;
	if (fflush(out->f) == EOF)
		rc = -1;
	return rc < 0 ? -EIO : 0;
}
