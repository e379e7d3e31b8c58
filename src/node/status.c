// SPDX-License-Identifier: GPL-2.0-or-later
/* What status reads on a node; see node.h. */
#include "node/node.h"

int node_status_read(struct sys *sys, struct host_state *hs, struct fab_err *err)
{
	return sys_host_state_read(sys, hs, SYS_READ_COUNTERS | SYS_READ_PCIE, err);
}
