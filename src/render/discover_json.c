// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover, JSON ("fabricctl.discover/1", docs/discover.md).  Built with
 * jansson; the same keys on every node, link end and problem whatever
 * the source knew (unknown facts are null).
 *
 * discover_to_json() builds the whole document; discover_json() writes the
 * same bytes as render_json_emit(discover_to_json()) but one node, link and
 * problem at a time.  A 1665-node, 3888-link fabric is some 10^5 json_t;
 * building them all, dumping, freeing them all, and the heap consolidating
 * what they left when the topology was freed next took ~75 ms (and 26 MB),
 * against ~25 ms (and 10 MB) item by item, while the SMP walk itself costs
 * ~110 ms of CPU.  tests/unit/test_discover_json.c holds both to the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/topo.h"
#include "render/json_stream.h"
#include "render/render_impl.h"
#include "util/array.h"

/*
 * json_guid() without snprintf: "0x%016" PRIx64, four of them per link, was
 * a tenth of the rendering time of a large fabric.
 */
static json_t *guid_json(uint64_t guid)
{
	static const char hex[] = "0123456789abcdef";
	char buf[19];

	buf[0] = '0';
	buf[1] = 'x';
	for (int i = 0; i < 16; i++)
		buf[2 + i] = hex[(guid >> (60 - 4 * i)) & 0xf];
	buf[18] = '\0';
	return json_stringn_nocheck(buf, 18);
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

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
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
			 "node", json_text_or_null(e->node),
			 "guid", e->guid ? guid_json(e->guid) : json_null(),
			 "port", *e->port_name ? json_null() : json_integer(e->port),
			 "port_name", json_text_or_null(e->port_name));
}

/*
 * An object from @n members (values stolen), in order; NULL when any value
 * is NULL (out of memory).  json_pack() with literal keys, without parsing
 * a format and checking the keys' UTF-8 for each of the 10^4 link ends.
 */
struct json_member {
	const char *key;
	json_t *v;
};

static json_t *object_of(const struct json_member *m, size_t n)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	for (size_t i = 0; i < n; i++) {
		if (ok && m[i].v)
			ok = json_object_set_new_nocheck(o, m[i].key, m[i].v) == 0;
		else
			json_decref(m[i].v);
		ok = ok && m[i].v;
	}
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *link_end_to_json(const struct topo_port *p)
{
	const char *sp = topo_speed_name(p->lane_mbps);
	bool st = p->facts & TOPO_F_STATE;
	const struct json_member m[] = {
		{ "node", json_text(p->node->name) },
		{ "guid", p->node->guid ? guid_json(p->node->guid) : json_null() },
		{ "port", *p->name ? json_null() : json_integer(p->num) },
		{ "port_name", json_text_or_null(p->name) },
		{ "port_guid", p->guid ? guid_json(p->guid) : json_null() },
		{ "lid", uint_or_null(p->facts & TOPO_F_LID, p->lid) },
		{ "state", st ? json_string(topo_port_state_name(p->state)) : json_null() },
		{ "phys_state", st ? json_string(topo_phys_state_name(p->phys_state)) : json_null() },
		{ "width_x", uint_or_null(p->facts & TOPO_F_WIDTH, p->width_x) },
		{ "speed", (p->facts & TOPO_F_SPEED) && sp ? json_string(sp) : json_null() },
		{ "mtu", uint_or_null(p->facts & TOPO_F_MTU, p->mtu) },
		{ "counters", counters_to_json(p) },
	};

	return object_of(m, ARRAY_SIZE(m));
}

static json_t *node_to_json(const struct topo_node *n)
{
	size_t linked = 0;

	for (size_t j = 0; j < n->n_ports; j++)
		linked += n->ports[j]->peer != NULL;
	return json_pack("{s:o, s:s, s:o, s:o, s:o, s:I, s:o}",
			 "name", json_text(n->name),
			 "type", topo_node_type_name(n->type),
			 "guid", n->guid ? guid_json(n->guid) : json_null(),
			 "chassis_id", json_text_or_null(n->chassis_id),
			 "ports", n->n_ports_max ? json_integer(n->n_ports_max) : json_null(),
			 "linked_ports", (json_int_t)linked,
			 "sources", sources_to_json(n->src));
}

static json_t *link_to_json(const struct topo_link *l)
{
	return json_pack("{s:o, s:o, s:s, s:o}",
			 "a", link_end_to_json(l->a),
			 "b", link_end_to_json(l->b),
			 "status", topo_link_status_name(l->status),
			 "sources", sources_to_json(l->src));
}

static json_t *problem_to_json(const struct topo_problem *p)
{
	json_t *ports = json_array();

	if (p->has_a)
		json_array_append_new(ports, end_to_json(&p->a));
	if (p->has_b)
		json_array_append_new(ports, end_to_json(&p->b));
	return json_pack("{s:s, s:o, s:o, s:o}",
			 "kind", topo_problem_kind_name(p->kind),
			 "ports", ports,
			 "expected", p->has_expected ? end_to_json(&p->expected) : json_null(),
			 "detail", json_text(p->detail));
}

/* The document's first members: "schema", "sources", "summary". */
static json_t *head_to_json(const struct topo *t)
{
	size_t n_sw = 0, n_ca = 0, n_host = 0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		n_sw += t->nodes[i]->type == TOPO_NODE_SWITCH;
		n_ca += t->nodes[i]->type == TOPO_NODE_CA;
		n_host += t->nodes[i]->type == TOPO_NODE_HOST;
	}
	return json_pack("{s:s, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I}}",
			 "schema", "fabricctl.discover/1",
			 "sources", sources_to_json(t->src),
			 "summary",
			 "nodes", (json_int_t)t->n_nodes,
			 "switches", (json_int_t)n_sw,
			 "cas", (json_int_t)n_ca,
			 "hosts", (json_int_t)n_host,
			 "links", (json_int_t)t->n_links,
			 "problems", (json_int_t)t->n_problems);
}

/* The document's last members, arrays of one element per item. */
enum discover_list { DISCOVER_NODES, DISCOVER_LINKS, DISCOVER_PROBLEMS, DISCOVER_LIST_MAX };

static const char *const list_keys[DISCOVER_LIST_MAX] = { "nodes", "links", "problems" };

static size_t list_len(const struct topo *t, enum discover_list which)
{
	return which == DISCOVER_NODES ? t->n_nodes : which == DISCOVER_LINKS ? t->n_links :
	       t->n_problems;
}

static json_t *list_item(const struct topo *t, enum discover_list which, size_t i)
{
	return which == DISCOVER_NODES ? node_to_json(t->nodes[i]) :
	       which == DISCOVER_LINKS ? link_to_json(t->links[i]) :
	       problem_to_json(&t->problems[i]);
}

json_t *discover_to_json(const struct topo *t)
{
	json_t *doc = head_to_json(t);

	for (int w = 0; doc && w < DISCOVER_LIST_MAX; w++) {
		json_t *a = json_array();

		/* An item that cannot be built (a name that is not UTF-8) is left out. */
		for (size_t i = 0; a && i < list_len(t, w); i++)
			json_array_append_new(a, list_item(t, w, i));
		if (json_object_set_new(doc, list_keys[w], a) < 0) {
			json_decref(doc);
			doc = NULL;
		}
	}
	return doc;
}

/* Streamed (render/json_stream.h): the lists item by item, never the whole document. */
int discover_json(struct render *out, const struct topo *t)
{
	struct jstream *js = jstream_new(out->f, out->pretty);
	json_t *head = head_to_json(t);
	const char *key;
	json_t *v;
	int rc = -1;

	if (!js || !head)
		goto out;
	if (jstream_raw(js, "{", 1) < 0 || jstream_indent(js, 1, false) < 0)
		goto out;
	json_object_foreach(head, key, v) {
		if (jstream_key(js, key) < 0 || jstream_value(js, json_incref(v), 1) < 0 ||
		    jstream_raw(js, ",", 1) < 0 || jstream_indent(js, 1, true) < 0)
			goto out;
	}
	for (int w = 0; w < DISCOVER_LIST_MAX; w++) {
		size_t n = list_len(t, w), done = 0;

		if (jstream_key(js, list_keys[w]) < 0 || jstream_array_begin(js) < 0)
			goto out;
		for (size_t i = 0; i < n; i++) {
			json_t *item = list_item(t, w, i);

			if (!item)
				continue;	/* left out, as discover_to_json() does */
			if (jstream_array_item(js, item, 1, done) < 0)
				goto out;
			done++;
		}
		if (jstream_array_end(js, 1, done) < 0)
			goto out;
		if (w + 1 < DISCOVER_LIST_MAX &&
		    (jstream_raw(js, ",", 1) < 0 || jstream_indent(js, 1, true) < 0))
			goto out;
	}
	if (jstream_indent(js, 0, false) < 0 || jstream_raw(js, "}\n", 2) < 0)
		goto out;
	rc = 0;
out:
	json_decref(head);
	if (jstream_free(js) < 0)
		rc = -1;
	if (fflush(out->f) == EOF)
		rc = -1;
	return rc < 0 ? -EIO : 0;
}
