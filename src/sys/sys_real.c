// SPDX-License-Identifier: GPL-2.0-or-later
/* The real struct sys_ops: ties the per-object adapters together. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sys/sys_real.h"

static const struct sys_ops sys_real_ops = {
	.name = "sys",
	.links_read = nl_link_read_all,
	.rdma_read = rdma_port_read_all,
};

int sys_real_new(struct sys **out, const char *root, struct fab_err *err)
{
	struct sys *sys = calloc(1, sizeof(*sys));

	if (!sys)
		return fab_err_set(err, -ENOMEM, "sys: out of memory");
	sys->ops = &sys_real_ops;
	snprintf(sys->root, sizeof(sys->root), "%s", root ? root : "");
	*out = sys;
	return 0;
}
