// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * LLDP through liblldpctl: the local system, its ports and the neighbors
 * lldpd heard on each, copied into a struct lldp_view.
 *
 * liblldpctl rules followed here (lldpd src/lib): every atom we get is
 * refcounted and released with lldpctl_atom_dec_ref(); strings returned
 * by lldpctl_atom_get_str() live in the atom (or the connection), so they
 * are copied before the atom goes.  Iterators are walked by hand rather
 * than with lldpctl_atom_foreach(), so an early exit cannot leak the
 * current value.  LLDPCTL_ERR_* codes are turned into -errno here.
 */
#include <errno.h>
#include <lldp-const.h>
#include <lldpctl.h>
#include <stdio.h>
#include <string.h>

#include "sys/sys_real.h"
#include "util/log.h"

struct lldp_conn {
	lldpctl_conn_t *conn;
	const char *socket;		/* for messages */
};

static void lldp_log_cb(int severity, const char *msg)
{
	fab_debug("liblldpctl: %s", msg);
}

static int lldp_errno(lldpctl_error_t e)
{
	switch (e) {
	case LLDPCTL_ERR_CANNOT_CONNECT:
		return -ECONNREFUSED;
	case LLDPCTL_ERR_NOMEM:
		return -ENOMEM;
	case LLDPCTL_ERR_NOT_EXIST:
		return -ENOENT;
	case LLDPCTL_ERR_EOF:
		return -ECONNRESET;
	case LLDPCTL_ERR_WOULDBLOCK:
		return -EAGAIN;
	default:
		return -EIO;
	}
}

static int lldp_fail(struct lldp_conn *c, struct fab_err *err, const char *what)
{
	lldpctl_error_t e = lldpctl_last_error(c->conn);

	if (e == LLDPCTL_ERR_CANNOT_CONNECT)
		return fab_err_set(err, -ECONNREFUSED, "lldp: %s: cannot connect to lldpd (is it running?)",
				   c->socket);
	return fab_err_set(err, lldp_errno(e), "lldp: %s: %s: %s", c->socket, what,
			   lldpctl_strerror(e));
}

/* Copy a string key of @atom; absent leaves "". */
static void copy_str(char *buf, size_t len, lldpctl_atom_t *atom, lldpctl_key_t key)
{
	const char *s = lldpctl_atom_get_str(atom, key);

	snprintf(buf, len, "%s", s ? s : "");
}

static unsigned int get_uint(lldpctl_atom_t *atom, lldpctl_key_t key)
{
	long v = lldpctl_atom_get_int(atom, key);

	return v > 0 ? (unsigned int)v : 0;
}

/*
 * The management addresses of chassis @ch into *@mgmt / *@n (an address
 * lldpd could not print, or not an IP address, is skipped); 0 or -ENOMEM.
 */
static int mgmt_read(lldpctl_atom_t *ch, char (**mgmt)[TOPO_ADDR_LEN], size_t *n)
{
	lldpctl_atom_t *list = lldpctl_atom_get(ch, lldpctl_k_chassis_mgmt);
	lldpctl_atom_iter_t *it;
	int rc = 0;

	if (!list)
		return 0;
	for (it = lldpctl_atom_iter(list); it; it = lldpctl_atom_iter_next(list, it)) {
		lldpctl_atom_t *m = lldpctl_atom_iter_value(list, it);
		const char *ip;

		if (!m)
			break;
		ip = lldpctl_atom_get_str(m, lldpctl_k_mgmt_ip);
		if (ip && lldp_mgmt_add(mgmt, n, ip) == -ENOMEM)
			rc = -ENOMEM;
		lldpctl_atom_dec_ref(m);
		if (rc < 0)
			break;
	}
	lldpctl_atom_dec_ref(list);
	return rc;
}

static int neighbor_read(struct lldp_port *lp, lldpctl_atom_t *nb)
{
	struct lldp_neighbor *n = lldp_port_neighbor_add(lp);
	lldpctl_atom_t *ch;
	int rc;

	if (!n)
		return -ENOMEM;
	copy_str(n->port_id, sizeof(n->port_id), nb, lldpctl_k_port_id);
	copy_str(n->port_descr, sizeof(n->port_descr), nb, lldpctl_k_port_descr);
	n->ttl_s = get_uint(nb, lldpctl_k_port_ttl);
	n->mfs = get_uint(nb, lldpctl_k_port_dot3_mfs);
	ch = lldpctl_atom_get(nb, lldpctl_k_port_chassis);
	if (ch) {
		copy_str(n->chassis_name, sizeof(n->chassis_name), ch, lldpctl_k_chassis_name);
		copy_str(n->chassis_id, sizeof(n->chassis_id), ch, lldpctl_k_chassis_id);
		n->cap_enabled = get_uint(ch, lldpctl_k_chassis_cap_enabled);
		rc = mgmt_read(ch, &n->mgmt, &n->n_mgmt);
		lldpctl_atom_dec_ref(ch);
		if (rc < 0)
			return rc;
	}
	fab_debug("lldp: %s: neighbor %s port %s ttl %u mfs %u", lp->name,
		  n->chassis_name, n->port_id, n->ttl_s, n->mfs);
	return 0;
}

/* One local interface: its port atom, then every neighbor on it. */
static int iface_read(struct lldp_conn *c, struct lldp_view *v, lldpctl_atom_t *iface,
		      const struct host_state *hs, struct fab_err *err)
{
	lldpctl_atom_t *port = NULL, *nbrs = NULL;
	lldpctl_atom_iter_t *it;
	const struct fab_link *link;
	struct lldp_port *lp;
	const char *name;
	int rc = 0;

	name = lldpctl_atom_get_str(iface, lldpctl_k_interface_name);
	if (!name)
		return 0;
	lp = lldp_view_port_add(v, name);
	if (!lp)
		return fab_err_set(err, -ENOMEM, "lldp: out of memory");
	link = host_state_link_by_name(hs, lp->name);
	if (link) {
		lp->mtu = link->mtu;
		snprintf(lp->operstate, sizeof(lp->operstate), "%s", link->operstate);
		lp->admin_up = link->admin_up;
		/* A rated speed: physical NICs (no kind) and bonds of them, never virtual devices. */
		if (link->speed_mbps > 0 && link->speed_mbps <= 100000000 &&
		    (!link->kind[0] || !strcmp(link->kind, "bond") || !strcmp(link->kind, "team")))
			lp->speed_mbps = (unsigned int)link->speed_mbps;
	}
	port = lldpctl_get_port(iface);
	if (!port) {
		rc = lldp_fail(c, err, lp->name);
		goto out;
	}
	nbrs = lldpctl_atom_get(port, lldpctl_k_port_neighbors);
	if (!nbrs)
		goto out;
	for (it = lldpctl_atom_iter(nbrs); it; it = lldpctl_atom_iter_next(nbrs, it)) {
		lldpctl_atom_t *nb = lldpctl_atom_iter_value(nbrs, it);

		if (!nb)
			break;
		rc = neighbor_read(lp, nb);
		lldpctl_atom_dec_ref(nb);
		if (rc < 0) {
			fab_err_set(err, rc, "lldp: out of memory");
			goto out;
		}
	}
out:
	lldpctl_atom_dec_ref(nbrs);
	lldpctl_atom_dec_ref(port);
	return rc;
}

int lldp_read_all(struct sys *sys, const char *socket, struct lldp_view *v, struct fab_err *err)
{
	struct lldp_conn c = { .socket = socket && *socket ? socket : lldpctl_get_default_transport() };
	lldpctl_atom_t *chassis = NULL, *ifaces = NULL;
	lldpctl_atom_iter_t *it;
	struct host_state hs;
	int rc;

	host_state_init(&hs);
	/* Local MTUs from rtnetlink, in the same namespace as this lldpd. */
	rc = nl_link_read_all(sys, &hs, err);
	if (rc < 0)
		goto out;
	lldpctl_log_callback(lldp_log_cb);
	c.conn = lldpctl_new_name(c.socket, NULL, NULL, NULL);
	if (!c.conn) {
		rc = fab_err_set(err, -ENOMEM, "lldp: %s: out of memory", c.socket);
		goto out;
	}
	chassis = lldpctl_get_local_chassis(c.conn);
	if (!chassis) {
		rc = lldp_fail(&c, err, "local chassis");
		goto out;
	}
	copy_str(v->name, sizeof(v->name), chassis, lldpctl_k_chassis_name);
	copy_str(v->chassis_id, sizeof(v->chassis_id), chassis, lldpctl_k_chassis_id);
	v->cap_enabled = get_uint(chassis, lldpctl_k_chassis_cap_enabled);
	if (mgmt_read(chassis, &v->mgmt, &v->n_mgmt) < 0) {
		rc = fab_err_set(err, -ENOMEM, "lldp: out of memory");
		goto out;
	}
	ifaces = lldpctl_get_interfaces(c.conn);
	if (!ifaces) {
		rc = lldp_fail(&c, err, "interfaces");
		goto out;
	}
	for (it = lldpctl_atom_iter(ifaces); it; it = lldpctl_atom_iter_next(ifaces, it)) {
		lldpctl_atom_t *iface = lldpctl_atom_iter_value(ifaces, it);

		if (!iface)
			break;
		rc = iface_read(&c, v, iface, &hs, err);
		lldpctl_atom_dec_ref(iface);
		if (rc < 0)
			goto out;
	}
	fab_info("lldp: %s: system %s, %zu ports", c.socket, v->name, v->n_ports);
	rc = 0;
out:
	lldpctl_atom_dec_ref(ifaces);
	lldpctl_atom_dec_ref(chassis);
	if (c.conn)
		lldpctl_release(c.conn);
	host_state_fini(&hs);
	return rc;
}
