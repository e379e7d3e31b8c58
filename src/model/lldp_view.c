// SPDX-License-Identifier: GPL-2.0-or-later
/* One node's LLDP view: storage, JSON form, merge into a struct topo. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/lldp_view.h"
#include "model/node_addr.h"
#include "util/array.h"
#include "util/str.h"

#define LLDP_VIEW_MAX_ELEMS 4096

void lldp_view_init(struct lldp_view *v)
{
	memset(v, 0, sizeof(*v));
}

void lldp_view_fini(struct lldp_view *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n_ports; i++) {
		for (size_t j = 0; j < v->ports[i].n_neighbors; j++)
			free(v->ports[i].neighbors[j].mgmt);
		free(v->ports[i].neighbors);
	}
	free(v->ports);
	free(v->mgmt);
	memset(v, 0, sizeof(*v));
}

struct lldp_port *lldp_view_port_add(struct lldp_view *v, const char *name)
{
	struct lldp_port *p = array_add((void **)&v->ports, &v->n_ports, sizeof(*p));

	if (!p)
		return NULL;
	str_fmt(p->name, sizeof(p->name), "%s", name ? name : "");
	return p;
}

struct lldp_neighbor *lldp_port_neighbor_add(struct lldp_port *p)
{
	return array_add((void **)&p->neighbors, &p->n_neighbors, sizeof(struct lldp_neighbor));
}

int lldp_mgmt_add(char (**mgmt)[TOPO_ADDR_LEN], size_t *n, const char *addr)
{
	char norm[TOPO_ADDR_LEN], *slot;

	if (node_addr_norm(addr, norm) < 0)
		return -EINVAL;
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*mgmt)[i], norm) == 0)
			return 0;
	slot = array_add((void **)mgmt, n, sizeof(**mgmt));
	if (!slot)
		return -ENOMEM;
	memcpy(slot, norm, sizeof(norm));
	return 0;
}

enum topo_node_type lldp_cap_node_type(unsigned int cap_enabled)
{
	return cap_enabled & (LLDP_VIEW_CAP_BRIDGE | LLDP_VIEW_CAP_ROUTER) ?
	       TOPO_NODE_SWITCH : TOPO_NODE_HOST;
}

/* ---- JSON ---------------------------------------------------------------- */

static const struct {
	unsigned int bit;
	const char *name;
} cap_names[] = {
	{ 0x01, "other" }, { 0x02, "repeater" }, { 0x04, "bridge" }, { 0x08, "wlan" },
	{ 0x10, "router" }, { 0x20, "telephone" }, { 0x40, "docsis" }, { 0x80, "station" },
};

static json_t *caps_to_json(unsigned int caps)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < ARRAY_SIZE(cap_names); i++)
		if (caps & cap_names[i].bit)
			json_array_append_new(a, json_string(cap_names[i].name));
	return a;
}

static json_t *mgmt_to_json(char (*mgmt)[TOPO_ADDR_LEN], size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_string(mgmt[i]));
	return a;
}

static json_t *uint_or_null(unsigned int v)
{
	return v ? json_integer(v) : json_null();
}

json_t *lldp_view_to_json(const struct lldp_view *v)
{
	json_t *ports = json_array(), *doc;

	if (!ports)
		return NULL;
	for (size_t i = 0; i < v->n_ports; i++) {
		const struct lldp_port *p = &v->ports[i];
		json_t *nbrs = json_array();

		for (size_t j = 0; nbrs && j < p->n_neighbors; j++) {
			const struct lldp_neighbor *n = &p->neighbors[j];

			json_array_append_new(nbrs, json_pack("{s:s, s:s, s:s, s:s, s:I, s:o, s:o, s:o}",
				"chassis_name", n->chassis_name,
				"chassis_id", n->chassis_id,
				"port_id", n->port_id,
				"port_descr", n->port_descr,
				"ttl_s", (json_int_t)n->ttl_s,
				"mfs", uint_or_null(n->mfs),
				"capabilities", caps_to_json(n->cap_enabled),
				"mgmt_addresses", mgmt_to_json(n->mgmt, n->n_mgmt)));
		}
		json_array_append_new(ports, json_pack("{s:s, s:o, s:o, s:b, s:o, s:o}",
			"name", p->name,
			"mtu", uint_or_null(p->mtu),
			"operstate", p->operstate[0] ? json_string(p->operstate) : json_null(),
			"admin_up", p->admin_up,
			"speed_mbps", uint_or_null(p->speed_mbps),
			"neighbors", nbrs ? nbrs : json_null()));
	}
	doc = json_pack("{s:s, s:s, s:o, s:o, s:o}",
			"name", v->name,
			"chassis_id", v->chassis_id,
			"capabilities", caps_to_json(v->cap_enabled),
			"mgmt_addresses", mgmt_to_json(v->mgmt, v->n_mgmt),
			"ports", ports);
	return doc;
}

/* Copy string member @key of @obj into @buf; absent or null leaves "". */
static int get_str(const json_t *obj, const char *key, char *buf, size_t len,
		   const char *where, struct fab_err *err)
{
	const json_t *j = json_object_get(obj, key);

	buf[0] = '\0';
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_string(j))
		return fab_err_input(err, -EINVAL, "lldp view: %s.%s: not a string", where, key);
	if (json_string_length(j) >= len || strlen(json_string_value(j)) != json_string_length(j))
		return fab_err_input(err, -EINVAL, "lldp view: %s.%s: string too long or has NUL",
				     where, key);
	memcpy(buf, json_string_value(j), json_string_length(j) + 1);
	return 0;
}

/* Non-negative integer up to @max; absent or null is 0. */
static int get_uint(const json_t *obj, const char *key, unsigned int max, unsigned int *val,
		    const char *where, struct fab_err *err)
{
	const json_t *j = json_object_get(obj, key);

	*val = 0;
	if (!j || json_is_null(j))
		return 0;
	if (!json_is_integer(j) || json_integer_value(j) < 0 ||
	    json_integer_value(j) > (json_int_t)max)
		return fab_err_input(err, -EINVAL, "lldp view: %s.%s: not an integer in 0..%u",
				     where, key, max);
	*val = (unsigned int)json_integer_value(j);
	return 0;
}

static int get_caps(const json_t *obj, unsigned int *caps, const char *where,
		    struct fab_err *err)
{
	const json_t *a = json_object_get(obj, "capabilities"), *e;
	size_t i;

	*caps = 0;
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return fab_err_input(err, -EINVAL, "lldp view: %s.capabilities: not an array", where);
	json_array_foreach(a, i, e) {
		if (!json_is_string(e))
			return fab_err_input(err, -EINVAL,
					     "lldp view: %s.capabilities[%zu]: not a string", where, i);
		for (size_t k = 0; k < ARRAY_SIZE(cap_names); k++)
			if (strcmp(json_string_value(e), cap_names[k].name) == 0)
				*caps |= cap_names[k].bit;
	}
	return 0;
}

/* "mgmt_addresses": absent or null is none; at most LLDP_VIEW_MAX_ELEMS addresses. */
static int get_mgmt(const json_t *obj, char (**mgmt)[TOPO_ADDR_LEN], size_t *n,
		    const char *where, struct fab_err *err)
{
	const json_t *a = json_object_get(obj, "mgmt_addresses"), *e;
	size_t i;
	int rc;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a) || json_array_size(a) > LLDP_VIEW_MAX_ELEMS)
		return fab_err_input(err, -EINVAL, "lldp view: %s.mgmt_addresses: not an array of at most %u",
				     where, LLDP_VIEW_MAX_ELEMS);
	json_array_foreach(a, i, e) {
		if (!json_is_string(e))
			return fab_err_input(err, -EINVAL,
					     "lldp view: %s.mgmt_addresses[%zu]: not a string", where, i);
		rc = lldp_mgmt_add(mgmt, n, json_string_value(e));
		if (rc == -ENOMEM)
			return fab_err_set(err, rc, "lldp view: out of memory");
		if (rc < 0)
			return fab_err_input(err, rc, "lldp view: %s.mgmt_addresses[%zu]: not an IP address",
					     where, i);
	}
	return 0;
}

static int neighbor_from_json(struct lldp_port *p, const json_t *j, const char *where,
			      struct fab_err *err)
{
	struct lldp_neighbor *n;

	if (!json_is_object(j))
		return fab_err_input(err, -EINVAL, "lldp view: %s: not an object", where);
	n = lldp_port_neighbor_add(p);
	if (!n)
		return fab_err_set(err, -ENOMEM, "lldp view: out of memory");
	if (get_str(j, "chassis_name", n->chassis_name, sizeof(n->chassis_name), where, err) < 0 ||
	    get_str(j, "chassis_id", n->chassis_id, sizeof(n->chassis_id), where, err) < 0 ||
	    get_str(j, "port_id", n->port_id, sizeof(n->port_id), where, err) < 0 ||
	    get_str(j, "port_descr", n->port_descr, sizeof(n->port_descr), where, err) < 0 ||
	    get_uint(j, "ttl_s", 65535, &n->ttl_s, where, err) < 0 ||
	    get_uint(j, "mfs", 65535, &n->mfs, where, err) < 0 ||
	    get_caps(j, &n->cap_enabled, where, err) < 0 ||
	    get_mgmt(j, &n->mgmt, &n->n_mgmt, where, err) < 0)
		return err ? err->code : -EINVAL;
	return 0;
}

static int port_from_json(struct lldp_view *v, const json_t *j, size_t idx, struct fab_err *err)
{
	char where[48], nwhere[80], name[64];
	const json_t *nbrs, *e, *admin;
	struct lldp_port *p;
	size_t i;

	str_fmt(where, sizeof(where), "ports[%zu]", idx);
	if (!json_is_object(j))
		return fab_err_input(err, -EINVAL, "lldp view: %s: not an object", where);
	if (get_str(j, "name", name, sizeof(name), where, err) < 0)
		return err ? err->code : -EINVAL;
	if (!name[0])
		return fab_err_input(err, -EINVAL, "lldp view: %s.name: missing", where);
	p = lldp_view_port_add(v, name);
	if (!p)
		return fab_err_set(err, -ENOMEM, "lldp view: out of memory");
	if (get_uint(j, "mtu", 1u << 20, &p->mtu, where, err) < 0 ||
	    get_str(j, "operstate", p->operstate, sizeof(p->operstate), where, err) < 0 ||
	    get_uint(j, "speed_mbps", 100000000, &p->speed_mbps, where, err) < 0)
		return err ? err->code : -EINVAL;
	admin = json_object_get(j, "admin_up");
	if (admin && !json_is_boolean(admin))
		return fab_err_input(err, -EINVAL, "lldp view: %s.admin_up: not a boolean", where);
	p->admin_up = admin && json_is_true(admin);
	nbrs = json_object_get(j, "neighbors");
	if (!nbrs || json_is_null(nbrs))
		return 0;
	if (!json_is_array(nbrs))
		return fab_err_input(err, -EINVAL, "lldp view: %s.neighbors: not an array", where);
	if (json_array_size(nbrs) > LLDP_VIEW_MAX_ELEMS)
		return fab_err_input(err, -EINVAL, "lldp view: %s.neighbors: too many", where);
	json_array_foreach(nbrs, i, e) {
		str_fmt(nwhere, sizeof(nwhere), "%s.neighbors[%zu]", where, i);
		if (neighbor_from_json(p, e, nwhere, err) < 0)
			return err ? err->code : -EINVAL;
	}
	return 0;
}

int lldp_view_from_json(struct lldp_view *v, const json_t *doc, struct fab_err *err)
{
	const json_t *ports, *e;
	size_t i;

	if (!json_is_object(doc))
		return fab_err_input(err, -EINVAL, "lldp view: not an object");
	if (get_str(doc, "name", v->name, sizeof(v->name), "view", err) < 0 ||
	    get_str(doc, "chassis_id", v->chassis_id, sizeof(v->chassis_id), "view", err) < 0 ||
	    get_caps(doc, &v->cap_enabled, "view", err) < 0 ||
	    get_mgmt(doc, &v->mgmt, &v->n_mgmt, "view", err) < 0)
		return err ? err->code : -EINVAL;
	ports = json_object_get(doc, "ports");
	if (!json_is_array(ports))
		return fab_err_input(err, -EINVAL, "lldp view: ports: missing or not an array");
	if (json_array_size(ports) > LLDP_VIEW_MAX_ELEMS)
		return fab_err_input(err, -EINVAL, "lldp view: ports: too many");
	json_array_foreach(ports, i, e)
		if (port_from_json(v, e, i, err) < 0)
			return err ? err->code : -EINVAL;
	return 0;
}

/* ---- merge ----------------------------------------------------------------- */

/*
 * The management addresses @mgmt become @n's addresses, but for loopback
 * and link-local ones (they name no node: node_addr_local()); 0 or -ENOMEM.
 */
static int merge_addrs(struct topo_node *n, char (*mgmt)[TOPO_ADDR_LEN], size_t n_mgmt)
{
	for (size_t i = 0; i < n_mgmt; i++)
		if (!node_addr_local(mgmt[i]) && topo_node_addr_add(n, mgmt[i]) == -ENOMEM)
			return -ENOMEM;
	return 0;
}

/* Find @name, else add it; a node first seen as a neighbor is upgraded to a
 * switch when its own view says so. */
static struct topo_node *merge_node(struct topo *t, const char *name, enum topo_node_type type,
				    const char *chassis_id)
{
	struct topo_node *n = topo_node_by_name(t, name);

	if (!n)
		n = topo_node_add(t, type, name, 0);
	if (!n)
		return NULL;
	if (type == TOPO_NODE_SWITCH)
		n->type = TOPO_NODE_SWITCH;
	if (!n->chassis_id[0] && chassis_id)
		str_fmt(n->chassis_id, sizeof(n->chassis_id), "%s", chassis_id);
	n->src |= TOPO_SRC_LLDP;
	return n;
}

/* netlink state -> IB-style port state, so health checks and the diff read it. */
static void port_state(struct topo_port *p, const struct lldp_port *lp)
{
	p->facts |= TOPO_F_STATE;
	if (strcmp(lp->operstate, "up") == 0 || strcmp(lp->operstate, "unknown") == 0) {
		p->state = TOPO_PORT_ACTIVE;
		p->phys_state = TOPO_PHYS_LINKUP;
	} else if (!lp->admin_up) {
		p->state = TOPO_PORT_DOWN;
		p->phys_state = TOPO_PHYS_DISABLED;
	} else {
		p->state = TOPO_PORT_DOWN;
		p->phys_state = TOPO_PHYS_POLLING;	/* up, but no carrier */
	}
}

int lldp_view_merge(struct topo *t, const struct lldp_view *v, unsigned int *conflicts)
{
	struct topo_node *self;

	if (!v->name[0])
		return 0;		/* lldpd without a system name: nothing to anchor */
	self = merge_node(t, v->name, lldp_cap_node_type(v->cap_enabled), v->chassis_id);
	if (!self || merge_addrs(self, v->mgmt, v->n_mgmt) < 0)
		return -ENOMEM;
	t->src |= TOPO_SRC_LLDP;
	for (size_t i = 0; i < v->n_ports; i++) {
		const struct lldp_port *lp = &v->ports[i];
		struct topo_port *p = topo_port_get(self, 0, lp->name);

		if (!p)
			return -ENOMEM;
		p->src |= TOPO_SRC_LLDP;
		if (lp->mtu) {
			p->mtu = lp->mtu;
			p->facts |= TOPO_F_MTU;
		}
		if (lp->operstate[0])
			port_state(p, lp);
		/*
		 * lp->speed_mbps goes to eth_mbps, not lane_mbps: the discover
		 * renderers name lane rates as IB speeds (10000 Mb/s would print
		 * as QDR).  The node reports only real devices' speeds.
		 */
		p->eth_mbps = lp->speed_mbps;
		for (size_t j = 0; j < lp->n_neighbors; j++) {
			const struct lldp_neighbor *ln = &lp->neighbors[j];
			const char *nname = ln->chassis_name[0] ? ln->chassis_name : ln->chassis_id;
			struct topo_node *peer;
			struct topo_port *pp;
			int rc;

			if (!nname[0] || !ln->port_id[0])
				continue;
			peer = merge_node(t, nname, lldp_cap_node_type(ln->cap_enabled),
					  ln->chassis_id);
			if (!peer || merge_addrs(peer, ln->mgmt, ln->n_mgmt) < 0)
				return -ENOMEM;
			pp = topo_port_get(peer, 0, ln->port_id);
			if (!pp)
				return -ENOMEM;
			pp->src |= TOPO_SRC_LLDP;
			if (ln->mfs)
				pp->mtu_max = ln->mfs;
			rc = topo_link_add(t, p, pp, TOPO_SRC_LLDP);
			if (rc == -ENOMEM)
				return rc;
			if (rc < 0 && conflicts)
				(*conflicts)++;
		}
	}
	return 0;
}
