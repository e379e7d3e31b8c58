// SPDX-License-Identifier: GPL-2.0-or-later
/* Placeholder until the RDMA reader lands (being written now). */
#include "sys/sys_real.h"

int rdma_port_read_all(struct sys *sys, struct host_state *hs, struct fab_err *err)
{
	return 0;
}
