// SPDX-License-Identifier: GPL-2.0-or-later
/* A node checked against a profile; see node.h. */
#include "node/apply.h"
#include "node/node.h"

int node_verify(struct sys *sys, const struct profile *p, struct host_state *hs,
		struct node_config *nc, struct plan *plan, struct fab_err *err)
{
	int rc = apply_node_read(sys, p, hs, nc, err);

	return rc < 0 ? rc : plan_diff(p, nc, plan, err);
}
