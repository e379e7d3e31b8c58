// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * YAML cabling plans: parser (libyaml document API, so every node keeps
 * its line and column for messages) and writer (libyaml emitter).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "model/plan_yaml.h"
#include "model/yaml_walk.h"
#include "util/array.h"
#include "util/str.h"

#define PLAN_MAX_ITEMS 1000000u	/* nodes, links, nics: far above any fabric */

struct pctx {
	struct yaml_walk w;
	struct topo *t;
	struct topo_rails *rails;
	/* defaults: 0 = none */
	unsigned int mtu;
	unsigned int width_x;
	unsigned int lane_mbps;
};

static int enomem(struct pctx *c)
{
	return fab_err_set(c->w.err, -ENOMEM, "%s: out of memory", c->w.fname);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static int slot_set(void *arg, int key, yaml_node_t *k, yaml_node_t *v)
{
	((yaml_node_t **)arg)[key] = v;
	return 0;
}

/* Walk mapping @m (yw_map) and put each value in the slot of its key in @keys. */
static int map_slots(struct pctx *c, const yaml_node_t *m, const char *const *keys,
		     yaml_node_t **vals, const char *what)
{
	for (size_t i = 0; keys[i]; i++)
		vals[i] = NULL;
	return yw_map(&c->w, m, what, keys, slot_set, vals);
}

/* ---- defaults -------------------------------------------------------------- */

/* mtu / speed_mbps / width / speed, shared by defaults: and links:. */
struct link_attrs {
	unsigned int mtu, width_x, lane_mbps;
};

static int attrs_parse(struct pctx *c, yaml_node_t *mtu, yaml_node_t *speed_mbps,
		       yaml_node_t *width, yaml_node_t *speed, struct link_attrs *a)
{
	char name[16];
	unsigned int mbps = 0;

	if (mtu && yw_uint(&c->w, mtu, "mtu", 10, 68, 65535, &a->mtu) < 0)
		return -EINVAL;
	if (width && yw_uint(&c->w, width, "width", 10, 1, 32, &a->width_x) < 0)
		return -EINVAL;
	if (speed) {
		if (yw_str(&c->w, speed, "speed", name, sizeof(name)) < 0)
			return -EINVAL;
		a->lane_mbps = topo_speed_parse(name);
		if (!a->lane_mbps)
			return yw_err(&c->w, speed, "speed: unknown InfiniBand speed '%s' (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)",
				    name);
		if (speed_mbps)
			return yw_err(&c->w, speed_mbps, "speed_mbps: give either speed or speed_mbps");
	}
	if (speed_mbps) {
		if (yw_uint(&c->w, speed_mbps, "speed_mbps", 10, 1, 100000000, &mbps) < 0)
			return -EINVAL;
		if (!a->width_x)
			a->width_x = 1;
		a->lane_mbps = mbps / a->width_x;
	}
	return 0;
}

static int defaults_parse(struct pctx *c, yaml_node_t *m)
{
	static const char *const keys[] = { "mtu", "speed_mbps", "width", "speed", NULL };
	yaml_node_t *v[4];
	struct link_attrs a = { 0 };

	if (map_slots(c, m, keys, v, "defaults") < 0 ||
	    attrs_parse(c, v[0], v[1], v[2], v[3], &a) < 0)
		return -EINVAL;
	c->mtu = a.mtu;
	c->width_x = a.width_x;
	c->lane_mbps = a.lane_mbps;
	return 0;
}

/* ---- endpoints ------------------------------------------------------------- */

struct endpoint {
	char node[128];
	char port[64];
	unsigned int num;
};

/* "NODE:PORT" (split at the last ':'; an all-digit PORT is an IB port number). */
static int endpoint_from_str(struct pctx *c, yaml_node_t *n, struct endpoint *e, const char *what)
{
	char buf[200], *colon;

	if (yw_str(&c->w, n, what, buf, sizeof(buf)) < 0)
		return -EINVAL;
	colon = strrchr(buf, ':');
	if (!colon || colon == buf || !colon[1])
		return yw_err(&c->w, n, "%s: '%s' is not NODE:PORT", what, buf);
	*colon = '\0';
	if (strlen(buf) >= sizeof(e->node))
		return yw_err(&c->w, n, "%s: node name longer than %zu characters", what, sizeof(e->node) - 1);
	str_fmt(e->node, sizeof(e->node), "%s", buf);
	if (all_digits(colon + 1)) {
		uint64_t v;

		if (strlen(colon + 1) > 3 || (v = strtoull(colon + 1, NULL, 10)) > 255)
			return yw_err(&c->w, n, "%s: port number %s out of range 0..255", what, colon + 1);
		e->num = (unsigned int)v;
		return 0;
	}
	if (strlen(colon + 1) >= sizeof(e->port))
		return yw_err(&c->w, n, "%s: port name longer than %zu characters", what, sizeof(e->port) - 1);
	str_fmt(e->port, sizeof(e->port), "%s", colon + 1);
	return 0;
}

/* A port as written on its own: plain digits are a number, anything else a name. */
static int port_from_node(struct pctx *c, yaml_node_t *n, struct endpoint *e, const char *what)
{
	if (n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    n->data.scalar.length > 0 && isdigit(n->data.scalar.value[0]))
		return yw_uint(&c->w, n, what, 10, 0, 255, &e->num);
	return yw_str(&c->w, n, what, e->port, sizeof(e->port));
}

static int endpoint_parse(struct pctx *c, yaml_node_t *n, struct endpoint *e, const char *what)
{
	static const char *const keys[] = { "node", "port", NULL };
	yaml_node_t *v[2];

	memset(e, 0, sizeof(*e));
	if (n->type == YAML_SCALAR_NODE)
		return endpoint_from_str(c, n, e, what);
	if (map_slots(c, n, keys, v, what) < 0)
		return -EINVAL;
	if (!v[0] || !v[1])
		return yw_err(&c->w, n, "%s: needs node and port", what);
	if (yw_str(&c->w, v[0], "node", e->node, sizeof(e->node)) < 0)
		return -EINVAL;
	return port_from_node(c, v[1], e, "port");
}

/* ---- nodes ----------------------------------------------------------------- */

static int type_parse(struct pctx *c, yaml_node_t *n, enum topo_node_type *type)
{
	char buf[16];
	int t;

	if (yw_str(&c->w, n, "type", buf, sizeof(buf)) < 0)
		return -EINVAL;
	t = topo_node_type_parse(buf);
	if (t >= 0) {
		*type = (enum topo_node_type)t;
		return 0;
	}
	return yw_err(&c->w, n, "type: '%s' is not one of switch, ca, host, router", buf);
}

/*
 * Numbers in a plan are decimal, as in profiles (01500 is 1500, not
 * octal); only a GUID may be written in hex, with its 0x prefix.
 */
static int guid_base(const yaml_node_t *n)
{
	const char *s = n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";

	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

/* addresses: a list of IPv4/IPv6 addresses of the node (docs/paths.md). */
static int addrs_parse(struct pctx *c, yaml_node_t *seq, struct topo_node *node)
{
	char buf[64];
	size_t n;

	if (yw_seq_len(&c->w, seq, "addresses", PLAN_MAX_ITEMS, &n) < 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *item = yw_seq_item(&c->w, seq, i);
		int rc;

		if (!item || yw_str(&c->w, item, "addresses", buf, sizeof(buf)) < 0)
			return -EINVAL;
		rc = topo_node_addr_add(node, buf);
		if (rc == -ENOMEM)
			return enomem(c);
		if (rc < 0)
			return yw_err(&c->w, item, "addresses: '%s' is not an IPv4 or IPv6 address", buf);
	}
	return 0;
}

static int node_parse(struct pctx *c, yaml_node_t *m, size_t num)
{
	static const char *const keys[] = { "name", "type", "guid", "rail", "nics", "addresses", NULL };
	enum topo_node_type type = TOPO_NODE_HOST;
	yaml_node_t *v[6];
	struct topo_node *node;
	char name[128];
	uint64_t guid = 0;
	unsigned int rail = 0;
	size_t n_nics = 0;

	if (map_slots(c, m, keys, v, "node") < 0)
		return -EINVAL;
	if (!v[0])
		return yw_err(&c->w, m, "node: needs a name");
	if (yw_str(&c->w, v[0], "name", name, sizeof(name)) < 0)
		return -EINVAL;
	if (v[3])
		type = TOPO_NODE_SWITCH;	/* a rail belongs to a leaf */
	if (v[1] && type_parse(c, v[1], &type) < 0)
		return -EINVAL;
	if (v[2] && yw_u64(&c->w, v[2], "guid", guid_base(v[2]), 1, UINT64_MAX, &guid) < 0)
		return -EINVAL;
	if (v[3]) {
		if (type != TOPO_NODE_SWITCH)
			return yw_err(&c->w, v[3], "rail: only a switch (a leaf) serves a rail");
		if (yw_uint(&c->w, v[3], "rail", 10, 0, 1023, &rail) < 0)
			return -EINVAL;
	}
	if (v[4] && yw_seq_len(&c->w, v[4], "nics", PLAN_MAX_ITEMS, &n_nics) < 0)
		return -EINVAL;
	if (topo_node_by_name(c->t, name) || (guid && topo_node_by_guid(c->t, guid)))
		return yw_err(&c->w, v[0], "node '%s' declared twice", name);
	node = topo_node_add(c->t, type, name, guid);
	if (!node)
		return enomem(c);
	node->src |= TOPO_SRC_PLAN;
	if (v[3] && c->rails && topo_rails_leaf_add(c->rails, name, rail) < 0)
		return enomem(c);
	for (size_t i = 0; i < n_nics; i++) {
		yaml_node_t *item = yw_seq_item(&c->w, v[4], i);
		struct endpoint e = { .num = 0 };
		struct topo_port *p;

		if (!item || port_from_node(c, item, &e, "nics") < 0)
			return -EINVAL;
		p = topo_port_get(node, e.num, e.port);
		if (!p)
			return enomem(c);
		p->src |= TOPO_SRC_PLAN;
		if (c->rails && topo_rails_nic_add(c->rails, name, e.num, e.port, (unsigned int)i) < 0)
			return enomem(c);
	}
	if (v[5] && addrs_parse(c, v[5], node) < 0)
		return -EINVAL;
	c->t->src |= TOPO_SRC_PLAN;
	return 0;
}

/* ---- links ----------------------------------------------------------------- */

static struct topo_port *endpoint_port(struct pctx *c, const struct endpoint *e)
{
	struct topo_node *n = topo_node_by_name(c->t, e->node);
	struct topo_port *p;

	if (!n) {
		n = topo_node_add(c->t, e->num ? TOPO_NODE_CA : TOPO_NODE_HOST, e->node, 0);
		if (!n)
			return NULL;
		/* Not declared: a host (CA) by default; sweep may find it is a switch. */
		n->src |= TOPO_SRC_PLAN | TOPO_SRC_IMPLIED;
	}
	p = topo_port_get(n, e->num, e->port);
	if (p)
		p->src |= TOPO_SRC_PLAN;
	return p;
}

static void end_label(const struct topo_port *p, char *buf, size_t len)
{
	if (p->name[0])
		str_fmt(buf, len, "%s:%s", p->node->name, p->name);
	else
		str_fmt(buf, len, "%s:%u", p->node->name, p->num);
}

static void port_expect(struct topo_port *p, const struct link_attrs *a)
{
	if (a->mtu) {
		p->mtu = a->mtu;
		p->facts |= TOPO_F_MTU;
	}
	if (a->width_x) {
		p->width_x = a->width_x;
		p->facts |= TOPO_F_WIDTH;
	}
	if (a->lane_mbps) {
		p->lane_mbps = a->lane_mbps;
		p->facts |= TOPO_F_SPEED;
	}
}

static int link_parse(struct pctx *c, yaml_node_t *n, size_t idx)
{
	static const char *const keys[] = { "a", "b", "mtu", "speed_mbps", "width", "speed", NULL };
	struct link_attrs a = { .mtu = c->mtu, .width_x = c->width_x, .lane_mbps = c->lane_mbps };
	yaml_node_t *v[6], *na, *nb;
	struct endpoint ea, eb;
	struct topo_port *pa, *pb;
	char la[200], lb[200];
	int rc;

	if (n->type == YAML_SEQUENCE_NODE) {
		size_t len;

		if (yw_seq_len(&c->w, n, "link", PLAN_MAX_ITEMS, &len) < 0)
			return -EINVAL;
		if (len != 2)
			return yw_err(&c->w, n, "link: a list form link has exactly two ends, not %zu", len);
		na = yw_seq_item(&c->w, n, 0);
		nb = yw_seq_item(&c->w, n, 1);
		if (!na || !nb)
			return yw_err(&c->w, n, "link: broken list");
	} else {
		if (map_slots(c, n, keys, v, "link") < 0)
			return -EINVAL;
		if (!v[0] || !v[1])
			return yw_err(&c->w, n, "link: needs both ends a and b");
		na = v[0];
		nb = v[1];
		if (v[2] || v[3] || v[4] || v[5]) {
			struct link_attrs own = { 0 };

			if (attrs_parse(c, v[2], v[3], v[4], v[5], &own) < 0)
				return -EINVAL;
			if (own.mtu)
				a.mtu = own.mtu;
			if (own.width_x)
				a.width_x = own.width_x;
			if (own.lane_mbps)
				a.lane_mbps = own.lane_mbps;
		}
	}
	if (endpoint_parse(c, na, &ea, "a") < 0 || endpoint_parse(c, nb, &eb, "b") < 0)
		return -EINVAL;
	pa = endpoint_port(c, &ea);
	pb = endpoint_port(c, &eb);
	if (!pa || !pb)
		return enomem(c);
	end_label(pa, la, sizeof(la));
	if (pa == pb)
		return yw_err(&c->w, n, "link %zu: %s is cabled to itself", idx, la);
	rc = topo_link_add(c->t, pa, pb, TOPO_SRC_PLAN);
	if (rc == -ENOMEM)
		return enomem(c);
	if (rc < 0) {
		const struct topo_port *busy = pa->peer && pa->peer != pb ? pa : pb;

		end_label(busy, la, sizeof(la));
		end_label(busy->peer, lb, sizeof(lb));
		return yw_err(&c->w, n, "link %zu: %s is already cabled to %s", idx, la, lb);
	}
	port_expect(pa, &a);
	port_expect(pb, &a);
	return 0;
}

/* ---- document -------------------------------------------------------------- */

/* Each item of the plan's list @n (@what) through @parse, with its number from 1. */
static int plan_seq(struct pctx *c, yaml_node_t *n, const char *what,
		    int (*parse)(struct pctx *c, yaml_node_t *item, size_t num))
{
	size_t len;

	if (yw_seq_len(&c->w, n, what, PLAN_MAX_ITEMS, &len) < 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		yaml_node_t *item = yw_seq_item(&c->w, n, i);

		if (!item)
			return yw_err(&c->w, n, "%s: broken list", what);
		if (parse(c, item, i + 1) < 0)
			return -EINVAL;
	}
	return 0;
}

static int doc_parse(struct pctx *c, yaml_node_t *root)
{
	static const char *const keys[] = { "version", "defaults", "nodes", "links", NULL };
	yaml_node_t *v[4];
	unsigned int version;

	if (map_slots(c, root, keys, v, "plan") < 0)
		return -EINVAL;
	if (!v[0])
		return yw_err(&c->w, root, "plan: needs 'version: 1'");
	if (yw_uint(&c->w, v[0], "version", 10, 1, 1, &version) < 0)
		return -EINVAL;
	if (v[1] && defaults_parse(c, v[1]) < 0)
		return -EINVAL;
	if (v[2] && plan_seq(c, v[2], "nodes", node_parse) < 0)
		return c->w.err && c->w.err->code ? c->w.err->code : -EINVAL;
	if (v[3] && plan_seq(c, v[3], "links", link_parse) < 0)
		return c->w.err && c->w.err->code ? c->w.err->code : -EINVAL;
	c->t->src |= TOPO_SRC_PLAN;
	return 0;
}

static int parser_error(struct pctx *c, const yaml_parser_t *p)
{
	if (p->error == YAML_MEMORY_ERROR)
		return enomem(c);
	return fab_err_input(c->w.err, -EINVAL, "%s:%zu:%zu: %s%s%s", c->w.fname,
			     p->problem_mark.line + 1, p->problem_mark.column + 1,
			     p->problem ? p->problem : "invalid YAML",
			     p->context ? " " : "", p->context ? p->context : "");
}

int plan_yaml_parse(struct topo *t, struct topo_rails *rails, const char *buf, size_t len,
		    const char *fname, struct fab_err *err)
{
	struct pctx c = { .w = { .fname = fname ? fname : "<plan>", .err = err }, .t = t, .rails = rails };
	yaml_document_t doc, extra;
	yaml_parser_t parser;
	yaml_node_t *root;
	int rc;

	if (len > PLAN_YAML_MAX_BYTES)
		return fab_err_input(err, -EINVAL, "%s: plan larger than %u bytes", c.w.fname,
				     PLAN_YAML_MAX_BYTES);
	if (!yaml_parser_initialize(&parser))
		return enomem(&c);
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &doc)) {
		rc = parser_error(&c, &parser);
		yaml_parser_delete(&parser);
		return rc;
	}
	c.w.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		rc = fab_err_input(err, -EINVAL, "%s:1:1: empty plan (expected 'version: 1')", c.w.fname);
		goto out;
	}
	rc = doc_parse(&c, root);
	if (rc < 0)
		goto out;
	/* One document per file: a second one is most likely a mistake. */
	if (!yaml_parser_load(&parser, &extra)) {
		rc = parser_error(&c, &parser);
		goto out;
	}
	root = yaml_document_get_root_node(&extra);
	if (root)
		rc = fab_err_input(err, -EINVAL, "%s:%zu:%zu: a plan is one YAML document",
				   c.w.fname, extra.start_mark.line + 1, extra.start_mark.column + 1);
	yaml_document_delete(&extra);
out:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return rc;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

bool plan_yaml_named(const char *path)
{
	return has_suffix(path, ".yaml") || has_suffix(path, ".yml");
}

bool plan_yaml_sniff(const char *buf, size_t len)
{
	static const char *const starts[] = { "---", "version:", "defaults:", "nodes:", "links:" };
	size_t i = 0;

	while (i < len) {
		size_t e = i, l;

		while (e < len && buf[e] != '\n')
			e++;
		while (i < e && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r'))
			i++;
		if (i < e && buf[i] != '#') {
			l = e - i;
			for (size_t k = 0; k < ARRAY_SIZE(starts); k++)
				if (l >= strlen(starts[k]) && memcmp(buf + i, starts[k], strlen(starts[k])) == 0)
					return true;
			return false;
		}
		i = e + 1;
	}
	return false;
}

/* ---- writer ---------------------------------------------------------------- */

struct emit {
	yaml_emitter_t em;
	yaml_event_t ev;
	bool failed;
};

/*
 * Emit e->ev, just built by a yaml_*_event_initialize() that returned
 * @made.  Events are built only while nothing has failed: the emitter
 * frees each event it is given, and one never given would leak.
 */
static void emit_ev(struct emit *e, int made)
{
	if (!made || !yaml_emitter_emit(&e->em, &e->ev))
		e->failed = true;
}

static void emit_scalar(struct emit *e, const char *s, yaml_scalar_style_t style)
{
	if (!e->failed)
		emit_ev(e, yaml_scalar_event_initialize(&e->ev, NULL, NULL, (yaml_char_t *)(uintptr_t)s,
							(int)strlen(s), 1, 1, style));
}

static void emit_str(struct emit *e, const char *s)
{
	emit_scalar(e, s, YAML_ANY_SCALAR_STYLE);
}

static void emit_uint(struct emit *e, uint64_t v)
{
	char buf[24];

	str_fmt(buf, sizeof(buf), "%" PRIu64, v);
	emit_scalar(e, buf, YAML_PLAIN_SCALAR_STYLE);
}

static void emit_map_start(struct emit *e, bool flow)
{
	if (!e->failed)
		emit_ev(e, yaml_mapping_start_event_initialize(&e->ev, NULL, NULL, 1,
				flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE));
}

static void emit_map_end(struct emit *e)
{
	if (!e->failed)
		emit_ev(e, yaml_mapping_end_event_initialize(&e->ev));
}

static void emit_seq_start(struct emit *e)
{
	if (!e->failed)
		emit_ev(e, yaml_sequence_start_event_initialize(&e->ev, NULL, NULL, 1,
								YAML_BLOCK_SEQUENCE_STYLE));
}

static void emit_seq_end(struct emit *e)
{
	if (!e->failed)
		emit_ev(e, yaml_sequence_end_event_initialize(&e->ev));
}

static void emit_flow_seq_start(struct emit *e)
{
	if (!e->failed)
		emit_ev(e, yaml_sequence_start_event_initialize(&e->ev, NULL, NULL, 1,
								YAML_FLOW_SEQUENCE_STYLE));
}

/* addresses: [ ... ], when the node has any (an IPv6 address is quoted: it holds colons). */
static void emit_addrs(struct emit *e, const struct topo_node *n)
{
	if (!n->n_addrs)
		return;
	emit_str(e, "addresses");
	emit_flow_seq_start(e);
	for (size_t i = 0; i < n->n_addrs; i++)
		emit_scalar(e, n->addrs[i], strchr(n->addrs[i], ':') ?
			    YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE);
	emit_seq_end(e);
}

static bool node_linked(const struct topo_node *n)
{
	for (size_t i = 0; i < n->n_ports; i++)
		if (n->ports[i]->peer)
			return true;
	return false;
}

/* One end: "node:port" when that reads back the same, else {node, port}. */
static void emit_end(struct emit *e, const struct topo_port *p)
{
	char buf[200];

	if (!strchr(p->node->name, ':') && !strchr(p->name, ':') &&
	    (p->name[0] ? !all_digits(p->name) : true)) {
		if (p->name[0])
			str_fmt(buf, sizeof(buf), "%s:%s", p->node->name, p->name);
		else
			str_fmt(buf, sizeof(buf), "%s:%u", p->node->name, p->num);
		emit_str(e, buf);
		return;
	}
	emit_map_start(e, true);
	emit_str(e, "node");
	emit_str(e, p->node->name);
	emit_str(e, "port");
	if (p->name[0])
		emit_scalar(e, p->name, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	else
		emit_uint(e, p->num);
	emit_map_end(e);
}

static void emit_link(struct emit *e, const struct topo_link *l)
{
	const struct topo_port *a = l->a, *b = l->b;
	unsigned int mtu = 0;

	if (a->facts & TOPO_F_MTU && b->facts & TOPO_F_MTU) {
		if (a->mtu == b->mtu)
			mtu = a->mtu;
	} else if (a->facts & TOPO_F_MTU) {
		mtu = a->mtu;
	} else if (b->facts & TOPO_F_MTU) {
		mtu = b->mtu;
	}
	emit_map_start(e, false);
	emit_str(e, "a");
	emit_end(e, a);
	emit_str(e, "b");
	emit_end(e, b);
	if (mtu) {
		emit_str(e, "mtu");
		emit_uint(e, mtu);
	}
	if (a->facts & TOPO_F_WIDTH && a->width_x > 1) {
		emit_str(e, "width");
		emit_uint(e, a->width_x);
	}
	if (a->facts & TOPO_F_SPEED && a->lane_mbps) {
		const char *ib = a->name[0] ? NULL : topo_speed_name(a->lane_mbps);

		if (ib) {
			emit_str(e, "speed");
			emit_str(e, ib);
		} else {
			emit_str(e, "speed_mbps");
			emit_uint(e, (uint64_t)a->lane_mbps * (a->width_x ? a->width_x : 1));
		}
	}
	emit_map_end(e);
}

/* The rails to write (plan_yaml_format_rails), by node name: leaves by name, NICs by name, rail. */
struct emit_rails {
	const struct topo_rail_leaf **leaf;
	size_t n_leaves;
	const struct topo_rail_nic **nic;
	size_t n_nics;
};

static int leaf_cmp(const void *x, const void *y)
{
	return strcmp((*(const struct topo_rail_leaf *const *)x)->node,
		      (*(const struct topo_rail_leaf *const *)y)->node);
}

static int nic_cmp(const void *x, const void *y)
{
	const struct topo_rail_nic *a = *(const struct topo_rail_nic *const *)x;
	const struct topo_rail_nic *b = *(const struct topo_rail_nic *const *)y;
	int c = strcmp(a->node, b->node);

	return c ? c : (a->rail > b->rail) - (a->rail < b->rail);
}

static int emit_rails_init(struct emit_rails *er, const struct topo_rails *r)
{
	memset(er, 0, sizeof(*er));
	if (!r || (!r->n_leaves && !r->n_nics))
		return 0;
	er->leaf = calloc(r->n_leaves + 1, sizeof(*er->leaf));
	er->nic = calloc(r->n_nics + 1, sizeof(*er->nic));
	if (!er->leaf || !er->nic)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_leaves; i++)
		er->leaf[i] = &r->leaves[i];
	for (size_t i = 0; i < r->n_nics; i++)
		er->nic[i] = &r->nics[i];
	er->n_leaves = r->n_leaves;
	er->n_nics = r->n_nics;
	qsort(er->leaf, er->n_leaves, sizeof(*er->leaf), leaf_cmp);
	qsort(er->nic, er->n_nics, sizeof(*er->nic), nic_cmp);
	return 0;
}

static void emit_rails_fini(struct emit_rails *er)
{
	free(er->leaf);
	free(er->nic);
}

/* rail: N, when @n is a leaf of @er. */
static void emit_leaf_rail(struct emit *e, const struct emit_rails *er, const struct topo_node *n)
{
	struct topo_rail_leaf key;
	const struct topo_rail_leaf *kp = &key, *const *hit;

	if (!er->n_leaves || n->type != TOPO_NODE_SWITCH)
		return;
	str_fmt(key.node, sizeof(key.node), "%s", n->name);
	hit = bsearch(&kp, er->leaf, er->n_leaves, sizeof(*er->leaf), leaf_cmp);
	if (!hit)
		return;
	emit_str(e, "rail");
	emit_uint(e, (*hit)->rail);
}

/*
 * nics: [...], when @n has NICs in @er: its NICs of rails 0, 1, ... (the
 * list's index is the rail; a gap ends it).  A port named by digits is
 * quoted so that it reads back as a name.
 */
static void emit_nics(struct emit *e, const struct emit_rails *er, const struct topo_node *n)
{
	size_t lo = 0, hi = er->n_nics;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(er->nic[mid]->node, n->name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == er->n_nics || strcmp(er->nic[lo]->node, n->name) || er->nic[lo]->rail != 0)
		return;
	emit_str(e, "nics");
	emit_flow_seq_start(e);
	for (unsigned int r = 0; lo < er->n_nics && !strcmp(er->nic[lo]->node, n->name) &&
	     er->nic[lo]->rail == r; lo++, r++) {
		const struct topo_rail_nic *nic = er->nic[lo];

		if (!nic->port[0])
			emit_uint(e, nic->num);
		else
			emit_scalar(e, nic->port, all_digits(nic->port) ?
				    YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE);
	}
	emit_seq_end(e);
}

/* libyaml's output handler: append to the strbuf; 0 stops the emitter. */
static int emit_out(void *data, unsigned char *buf, size_t len)
{
	struct strbuf *sb = data;

	strbuf_add(sb, buf, len);
	return !sb->failed;
}

/* One node: name, type, its rail or NICs (from @er), GUID and addresses when it has them. */
static void emit_node(struct emit *e, const struct emit_rails *er, const struct topo_node *n)
{
	char guid[24];

	emit_map_start(e, true);
	emit_str(e, "name");
	emit_str(e, n->name);
	emit_str(e, "type");
	emit_str(e, topo_node_type_name(n->type));
	emit_leaf_rail(e, er, n);
	if (er->n_nics && n->type != TOPO_NODE_SWITCH)
		emit_nics(e, er, n);
	if (n->guid) {
		str_fmt(guid, sizeof(guid), "0x%016" PRIx64, n->guid);
		emit_str(e, "guid");
		emit_scalar(e, guid, YAML_PLAIN_SCALAR_STYLE);
	}
	emit_addrs(e, n);
	emit_map_end(e);
}

static int format_doc(struct emit *e, const struct emit_rails *er, const struct topo *t,
		      struct strbuf *sb)
{
	strbuf_addf(sb, "# fabricctl cabling plan (fabricctl-plan(5)), written by discover --save-plan\n");
	if (!yaml_emitter_initialize(&e->em))
		return -ENOMEM;
	yaml_emitter_set_output(&e->em, emit_out, sb);
	yaml_emitter_set_unicode(&e->em, 1);
	yaml_emitter_set_width(&e->em, -1);
	emit_ev(e, yaml_stream_start_event_initialize(&e->ev, YAML_UTF8_ENCODING));
	if (!e->failed)
		emit_ev(e, yaml_document_start_event_initialize(&e->ev, NULL, NULL, NULL, 1));
	emit_map_start(e, false);
	emit_str(e, "version");
	emit_uint(e, 1);
	emit_str(e, "nodes");
	emit_seq_start(e);
	for (size_t i = 0; i < t->n_nodes; i++)
		if (node_linked(t->nodes[i]))
			emit_node(e, er, t->nodes[i]);
	emit_seq_end(e);
	emit_str(e, "links");
	emit_seq_start(e);
	for (size_t i = 0; i < t->n_links; i++)
		emit_link(e, t->links[i]);
	emit_seq_end(e);
	emit_map_end(e);
	if (!e->failed)
		emit_ev(e, yaml_document_end_event_initialize(&e->ev, 1));
	if (!e->failed)
		emit_ev(e, yaml_stream_end_event_initialize(&e->ev));
	if (!e->failed && !yaml_emitter_flush(&e->em))
		e->failed = true;
	yaml_emitter_delete(&e->em);
	if (e->failed || sb->failed)
		return -ENOMEM;
	return 0;
}

int plan_yaml_format_rails(const struct topo *t, const struct topo_rails *rails, struct strbuf *sb)
{
	struct emit e = { .failed = false };
	struct emit_rails er;
	int rc;

	if (emit_rails_init(&er, rails) < 0) {
		emit_rails_fini(&er);
		return -ENOMEM;
	}
	rc = format_doc(&e, &er, t, sb);
	emit_rails_fini(&er);
	return rc;
}

int plan_yaml_format(const struct topo *t, struct strbuf *sb)
{
	return plan_yaml_format_rails(t, NULL, sb);
}
