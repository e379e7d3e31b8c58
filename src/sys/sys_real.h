/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to src/sys/: the pieces the real sys_ops is made of. */
#ifndef FAB_SYS_SYS_REAL_H
#define FAB_SYS_SYS_REAL_H

#include "sys/sys.h"

/* nl_link.c: rtnetlink link dump (libmnl) plus sysfs/ethtool extras. */
int nl_link_read_all(struct sys *sys, struct host_state *hs, struct fab_err *err);

/* rdma_port.c: RDMA devices and ports (libibumad, libibmad, libibverbs, sysfs). */
int rdma_port_read_all(struct sys *sys, struct host_state *hs, struct fab_err *err);

#endif
