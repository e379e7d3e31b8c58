// SPDX-License-Identifier: GPL-2.0-or-later
/* A node's LLDP view from its lldpd; see node.h. */
#include <errno.h>

#include "node/node.h"

int node_lldp_read(struct sys *sys, const char *socket, struct lldp_view *v, struct fab_err *err)
{
	return sys_lldp_read(sys, socket, v, err);
}
