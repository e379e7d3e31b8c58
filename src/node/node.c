// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a node reads for status, verify, discover --lldp and a sweep's
 * counters (node.h).  Each is one definition that the local command and
 * the worker's op both call, so a node answers the same to `fabricctl
 * status` run on it and to `status --hosts` run from elsewhere: which
 * sys_*() reads, with which flags (status reads the counters, verify
 * does not), is decided here once.  Verify is apply's read and diff
 * (node_diff(), which apply_node() calls) plus the lossless chains.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/apply.h"
#include "node/node.h"
#include "util/log.h"

static void chain_read(struct sys *sys, struct node_iface *ni);

/* The chain of RoCE port @pt of @d, from its netdev's ToS, DCB and ECN; left NULL on ENOMEM. */
static void port_chain_read(struct sys *sys, struct host_state *hs, const struct fab_rdma_dev *d,
			    struct fab_rdma_port *pt)
{
	const struct fab_link *l = host_state_link_by_name(hs, pt->netdev);
	struct node_config nc;
	struct node_iface *ni;
	struct fab_err e;
	int rc;

	if (!l)
		return;
	node_config_init(&nc, hs);
	ni = node_config_iface_add(&nc, l->name);
	pt->chain = ni ? malloc(sizeof(*pt->chain)) : NULL;
	if (!pt->chain)
		goto out;
	snprintf(ni->rdma_dev, sizeof(ni->rdma_dev), "%s", d->name);
	ni->rdma_port = pt->port;
	fab_err_init(&e);
	rc = sys_roce_tos_read(sys, d->name, pt->port, &ni->tos, &e);
	ni->tos_rc = rc < 0 ? rc : 0;
	chain_read(sys, ni);
	changeset_port_chain(hs, l, ni, pt->chain);
out:
	node_config_fini(&nc);
}

int node_status_read(struct sys *sys, struct host_state *hs, struct fab_err *err)
{
	int rc = sys_host_state_read(sys, hs, SYS_READ_COUNTERS | SYS_READ_PCIE, err);

	for (size_t i = 0; rc == 0 && i < hs->n_rdma; i++)
		for (size_t k = 0; k < hs->rdma[i].n_ports; k++) {
			struct fab_rdma_port *pt = &hs->rdma[i].ports[k];

			if (!strcmp(pt->link_layer, "Ethernet") && pt->netdev[0])
				port_chain_read(sys, hs, &hs->rdma[i], pt);
		}
	return rc;
}

int node_diff(struct sys *sys, const struct profile *p, struct host_state *hs,
	      struct node_config *nc, struct changeset *cs, struct fab_err *err)
{
	int rc = apply_node_read(sys, p, hs, nc, err);

	return rc < 0 ? rc : changeset_diff(p, nc, cs, err);
}

static void read_rc(int *rc_out, char *msg, size_t len, int rc, const struct fab_err *e)
{
	*rc_out = rc;
	snprintf(msg, len, "%.250s", rc < 0 ? e->msg : "");
}

/* What the chain needs that the profile's own fields did not read: DCB and ECN. */
static void chain_read(struct sys *sys, struct node_iface *ni)
{
	struct fab_err e;
	int rc;

	if (ni->dcb_rc > 0) {
		fab_err_init(&e);
		rc = sys_dcb_read(sys, ni->name, &ni->dcb, &e);
		read_rc(&ni->dcb_rc, ni->dcb_msg, sizeof(ni->dcb_msg), rc, &e);
	}
	if (ni->dcqcn_rc > 0) {	/* the CNPs' marking */
		fab_err_init(&e);
		rc = sys_dcqcn_read(sys, ni->name, &ni->dcqcn, &e);
		read_rc(&ni->dcqcn_rc, ni->dcqcn_msg, sizeof(ni->dcqcn_msg), rc, &e);
	}
	for (enum fab_ecn_point pt = FAB_ECN_NP; pt <= FAB_ECN_RP; pt++) {
		if (ni->ecn_rc[pt] <= 0)
			continue;
		fab_err_init(&e);
		rc = sys_ecn_read(sys, ni->name, pt, &ni->ecn[pt], &e);
		read_rc(&ni->ecn_rc[pt], ni->ecn_msg[pt], sizeof(ni->ecn_msg[pt]), rc, &e);
	}
}

int node_verify(struct sys *sys, const struct profile *p, struct host_state *hs,
		struct node_config *nc, struct changeset *cs, struct fab_err *err)
{
	int rc = node_diff(sys, p, hs, nc, cs, err);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < hs->n_links; i++) {
		struct node_iface *ni;

		if (!changeset_chain_wanted(p, &hs->links[i]))
			continue;
		ni = node_config_iface(nc, hs->links[i].name);
		if (ni)	/* roce.tos made apply_node_read() add it */
			chain_read(sys, ni);
	}
	rc = changeset_chains(p, nc, cs);
	return rc < 0 ? fab_err_set(err, rc, "verify: out of memory") : 0;
}

int node_lldp_read(struct sys *sys, const char *socket, struct lldp_view *v, struct fab_err *err)
{
	return sys_lldp_read(sys, socket, v, err);
}

int node_counters_read(struct sys *sys, const struct nic_counters_req *req,
		       struct nic_counters *out, struct fab_err *err)
{
	int rc = sys_nic_counters_read(sys, req, out, err);

	if (rc == 0)
		fab_debug("counters: %s: %zu counters, %zu RDMA port%s", out->ifname, out->n,
			  out->n_rdma, out->n_rdma == 1 ? "" : "s");
	return rc;
}
