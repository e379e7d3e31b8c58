// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a node reads for status, verify, discover --lldp and a sweep's
 * counters (node.h).  Each is one definition that the local command and
 * the worker's op both call, so a node answers the same to `fabricctl
 * status` run on it and to `status --hosts` run from elsewhere: which
 * sys_*() reads, with which flags (status reads the counters, verify
 * does not), is decided here once.  Verify is apply's read and diff
 * (apply_node() calls node_verify() too).
 */
#include "node/apply.h"
#include "node/node.h"
#include "util/log.h"

int node_status_read(struct sys *sys, struct host_state *hs, struct fab_err *err)
{
	return sys_host_state_read(sys, hs, SYS_READ_COUNTERS | SYS_READ_PCIE, err);
}

int node_verify(struct sys *sys, const struct profile *p, struct host_state *hs,
		struct node_config *nc, struct changeset *cs, struct fab_err *err)
{
	int rc = apply_node_read(sys, p, hs, nc, err);

	return rc < 0 ? rc : changeset_diff(p, nc, cs, err);
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
