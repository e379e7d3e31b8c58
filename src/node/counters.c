// SPDX-License-Identifier: GPL-2.0-or-later
/* What the "counters" worker op reads on a node; see node.h. */
#include "node/node.h"
#include "util/log.h"

int node_counters_read(struct sys *sys, const struct nic_counters_req *req,
		       struct nic_counters *out, struct fab_err *err)
{
	int rc = sys_nic_counters_read(sys, req, out, err);

	if (rc == 0)
		fab_debug("counters: %s: %zu counters, %zu RDMA port%s", out->ifname, out->n,
			  out->n_rdma, out->n_rdma == 1 ? "" : "s");
	return rc;
}
