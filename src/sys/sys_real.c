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
	.link_mtu_set = nl_link_mtu_set,
	.dcb_read = nl_dcb_read,
	.dcb_pfc_set = nl_dcb_pfc_set,
	.dcb_ets_set = nl_dcb_ets_set,
	.dcb_app_add = nl_dcb_app_add,
	.dcb_app_del = nl_dcb_app_del,
	.dcb_trust_set = nl_dcb_trust_set,
	.bond_read = nl_bond_read,
	.bond_create = nl_bond_create,
	.bond_delete = nl_bond_delete,
	.bond_set = nl_bond_set,
	.bond_enslave = nl_bond_enslave,
	.bond_release = nl_bond_release,
	.ecn_read = sysfs_ecn_read,
	.ecn_set = sysfs_ecn_set,
	.roce_tos_read = roce_tos_read,
	.roce_tos_set = roce_tos_set,
	.lldp_read = lldp_read_all,
	.subnet_read = subnet_read_all,
	.subnet_vl_read = subnet_vl_read,
	.nic_counters_read = nic_counters_read_all,
	.module_page_read = module_page_read,
	.link_phy_read = link_phy_read,
	.pcie_read = pcie_read_all,
	.pending_lock = pending_lock,
	.pending_unlock = pending_unlock,
	.pending_path = pending_path,
	.pending_read = pending_read,
	.pending_write = pending_write,
	.pending_drop = pending_drop,
	.pending_log = pending_log,
	.pending_log_read = pending_log_read,
	.reverter_spawn = reverter_spawn,
	.reverter_stop = reverter_stop,
	.proc_start = proc_start,
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
