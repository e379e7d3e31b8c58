// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover, JSON ("fabricctl.discover/1", docs/discover.md).  Built with
 * jansson; the same keys on every node, link end and problem whatever
 * the source knew (unknown facts are null).
 */
#include <inttypes.h>

#include "model/topo.h"
#include "out/out_impl.h"

static json_t *json_str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *sources_to_json(unsigned int src)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ TOPO_SRC_SMP, "smp" }, { TOPO_SRC_CACHE, "cache" }, { TOPO_SRC_LLDP, "lldp" },
		{ TOPO_SRC_PLAN, "plan" }, { TOPO_SRC_PROFILE, "profile" }, { TOPO_SRC_LOCAL, "local" },
	};
	json_t *a = json_array();

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (src & names[i].bit)
			json_array_append_new(a, json_string(names[i].name));
	return a;
}

static json_t *uint_or_null(bool known, unsigned int v)
{
	return known && v ? json_integer(v) : json_null();
}

static json_t *counters_to_json(const struct topo_port *p)
{
	json_t *o;

	if (!(p->facts & TOPO_F_COUNTERS))
		return json_null();
	o = json_object();
	for (int c = 0; c < TOPO_CNT_MAX; c++)
		json_object_set_new(o, topo_counter_name(c), json_integer((json_int_t)p->counters[c]));
	return o;
}

static json_t *end_to_json(const struct topo_end *e)
{
	return json_pack("{s:o, s:o, s:o, s:o}",
			 "node", json_str_or_null(e->node),
			 "guid", e->guid ? json_guid(e->guid) : json_null(),
			 "port", *e->port_name ? json_null() : json_integer(e->port),
			 "port_name", json_str_or_null(e->port_name));
}

static json_t *link_end_to_json(const struct topo_port *p)
{
	const char *sp = topo_speed_name(p->lane_mbps);
	bool st = p->facts & TOPO_F_STATE;

	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "node", json_string(p->node->name),
			 "guid", p->node->guid ? json_guid(p->node->guid) : json_null(),
			 "port", *p->name ? json_null() : json_integer(p->num),
			 "port_name", json_str_or_null(p->name),
			 "port_guid", p->guid ? json_guid(p->guid) : json_null(),
			 "lid", uint_or_null(p->facts & TOPO_F_LID, p->lid),
			 "state", st ? json_string(topo_port_state_name(p->state)) : json_null(),
			 "phys_state", st ? json_string(topo_phys_state_name(p->phys_state)) : json_null(),
			 "width_x", uint_or_null(p->facts & TOPO_F_WIDTH, p->width_x),
			 "speed", (p->facts & TOPO_F_SPEED) && sp ? json_string(sp) : json_null(),
			 "mtu", uint_or_null(p->facts & TOPO_F_MTU, p->mtu),
			 "counters", counters_to_json(p));
}

json_t *discover_to_json(const struct topo *t)
{
	json_t *nodes = json_array(), *links = json_array(), *problems = json_array();
	size_t n_sw = 0, n_ca = 0, n_host = 0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *n = t->nodes[i];
		size_t linked = 0;

		for (size_t j = 0; j < n->n_ports; j++)
			linked += n->ports[j]->peer != NULL;
		n_sw += n->type == TOPO_NODE_SWITCH;
		n_ca += n->type == TOPO_NODE_CA;
		n_host += n->type == TOPO_NODE_HOST;
		json_array_append_new(nodes, json_pack("{s:s, s:s, s:o, s:o, s:o, s:I, s:o}",
			"name", n->name,
			"type", topo_node_type_name(n->type),
			"guid", n->guid ? json_guid(n->guid) : json_null(),
			"chassis_id", json_str_or_null(n->chassis_id),
			"ports", n->n_ports_max ? json_integer(n->n_ports_max) : json_null(),
			"linked_ports", (json_int_t)linked,
			"sources", sources_to_json(n->src)));
	}
	for (size_t i = 0; i < t->n_links; i++) {
		const struct topo_link *l = t->links[i];

		json_array_append_new(links, json_pack("{s:o, s:o, s:s, s:o}",
			"a", link_end_to_json(l->a),
			"b", link_end_to_json(l->b),
			"status", topo_link_status_name(l->status),
			"sources", sources_to_json(l->src)));
	}
	for (size_t i = 0; i < t->n_problems; i++) {
		const struct topo_problem *p = &t->problems[i];
		json_t *ports = json_array();

		if (p->has_a)
			json_array_append_new(ports, end_to_json(&p->a));
		if (p->has_b)
			json_array_append_new(ports, end_to_json(&p->b));
		json_array_append_new(problems, json_pack("{s:s, s:o, s:o, s:s}",
			"kind", topo_problem_kind_name(p->kind),
			"ports", ports,
			"expected", p->has_expected ? end_to_json(&p->expected) : json_null(),
			"detail", p->detail));
	}
	return json_pack("{s:s, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}, s:o, s:o, s:o}",
			 "schema", "fabricctl.discover/1",
			 "sources", sources_to_json(t->src),
			 "summary",
			 "nodes", (json_int_t)t->n_nodes,
			 "switches", (json_int_t)n_sw,
			 "cas", (json_int_t)n_ca,
			 "hosts", (json_int_t)n_host,
			 "links", (json_int_t)t->n_links,
			 "problems", (json_int_t)t->n_problems,
			 "nodes", nodes,
			 "links", links,
			 "problems", problems);
}

int discover_json(struct fab_out *out, const struct topo *t)
{
	return out_json_emit(out, discover_to_json(t));
}
