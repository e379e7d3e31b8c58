// SPDX-License-Identifier: GPL-2.0-or-later
/* trace as the "fabricctl.trace/1" document (docs/paths.md). */
#include <string.h>

#include "render/render.h"
#include "render/trace.h"

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_text(s) : json_null();
}

static json_t *hop_to_json(const struct flow_hop *h)
{
	bool ans = h->answer != HOP_NONE;

	return json_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o}",
			 "ttl", (json_int_t)h->ttl,
			 "addr", str_or_null(h->addr),
			 "node", str_or_null(h->node),
			 "answer", ans ? json_string(hop_answer_name(h->answer)) : json_null(),
			 "code", h->answer == HOP_UNREACHABLE ? json_integer(h->code) : json_null(),
			 "rtt_ms", ans ? json_real(h->rtt_us / 1000.0) : json_null(),
			 "tries", (json_int_t)h->tries,
			 "other_addr", str_or_null(h->other),
			 "other_node", str_or_null(h->other_node));
}

static json_t *flow_to_json(const struct flow_trace *t, unsigned int repeat)
{
	json_t *hops = json_array();

	for (size_t i = 0; hops && i < t->n_hops; i++)
		json_array_append_new(hops, hop_to_json(&t->hops[i]));
	return json_pack("{s:I, s:I, s:b, s:o, s:o}",
			 "sport", (json_int_t)t->flow.sport,
			 "repeat", (json_int_t)repeat,
			 "reached", t->reached,
			 "reached_ttl", t->reached ? json_integer(t->reached_ttl) : json_null(),
			 "hops", hops ? hops : json_null());
}

static json_t *member_to_json(const struct ecmp_side *s, size_t idx)
{
	const struct ecmp_member *mb = &s->members[idx];
	json_t *nodes = json_array(), *ports = json_array();

	for (size_t i = 0; nodes && i < mb->n_nodes; i++)
		json_array_append_new(nodes, json_text(mb->nodes[i]));
	for (size_t i = 0; ports && i < s->n_ports; i++)
		if (s->ports[i].member == (int)idx)
			json_array_append_new(ports, json_integer(s->ports[i].sport));
	return json_pack("{s:o, s:o}", "nodes", nodes ? nodes : json_null(),
			 "ports", ports ? ports : json_null());
}

static json_t *side_to_json(const struct ecmp_side *s)
{
	json_t *members = json_array(), *ports = json_array();

	for (size_t i = 0; members && i < s->n_members; i++)
		json_array_append_new(members, member_to_json(s, i));
	for (size_t i = 0; ports && i < s->n_ports; i++)
		json_array_append_new(ports, json_pack("{s:I, s:o, s:I}",
			"sport", (json_int_t)s->ports[i].sport,
			"member", s->ports[i].member >= 0 ? json_integer(s->ports[i].member) : json_null(),
			"traces", (json_int_t)s->ports[i].traces));
	return json_pack("{s:o, s:o}", "members", members ? members : json_null(),
			 "ports", ports ? ports : json_null());
}

static json_t *map_to_json(const struct ecmp_map *m)
{
	bool ok = m->reason == ECMP_OK;

	return json_pack("{s:o, s:o, s:b, s:s, s:o, s:o, s:o, s:o}",
			 "src_leaf", str_or_null(m->leaf[0]),
			 "dst_leaf", str_or_null(m->leaf[1]),
			 "by_address", m->by_addr,
			 "state", ok ? "traced" : "fallback",
			 "reason", ok ? json_null() : json_string(ecmp_reason_name(m->reason)),
			 "detail", ok ? json_null() : json_text(m->detail),
			 "ab", side_to_json(&m->side[ECMP_AB]),
			 "ba", side_to_json(&m->side[ECMP_BA]));
}

json_t *trace_to_json(const struct trace_report *r)
{
	const struct flow *f = r->n_traces ? &r->traces[0].flow : NULL;
	json_t *flows = json_array();

	if (!f || !flows) {
		json_decref(flows);
		return NULL;
	}
	for (size_t i = 0; i < r->n_traces; i++)
		json_array_append_new(flows, flow_to_json(&r->traces[i],
							  (unsigned int)(i / r->n_ports) + 1));
	return json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:o, s:o}",
			 "schema", "fabricctl.trace/1",
			 "proto", flow_proto_name(f->proto),
			 "src", f->src,
			 "dst", f->dst,
			 "dport", (json_int_t)f->dport,
			 "flow_label", strchr(f->dst, ':') ? json_integer(f->label) : json_null(),
			 "plan", str_or_null(r->plan),
			 "flows", flows,
			 "map", map_to_json(r->map));
}

int trace_json(struct render *out, const struct trace_report *r)
{
	return render_json_emit(out, trace_to_json(r));
}
