/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Internal to src/sys/: the pieces the real sys_ops is made of. */
#ifndef FAB_SYS_SYS_REAL_H
#define FAB_SYS_SYS_REAL_H

#include "sys/sys.h"

/* nl_link.c: rtnetlink link dump (libmnl) plus sysfs/ethtool extras. */
int nl_link_read_all(struct sys *sys, struct host_state *hs, struct fab_err *err);

/* rdma_port.c: RDMA devices and ports (libibumad, libibmad, libibverbs, sysfs). */
int rdma_port_read_all(struct sys *sys, struct host_state *hs, unsigned int flags,
		       struct fab_err *err);

/* nl_link_set.c: MTU over rtnetlink with NLM_F_ACK and extack text. */
int nl_link_mtu_set(struct sys *sys, const char *ifname, unsigned int mtu, struct fab_err *err);

/*
 * nl_dcb.c: DCB netlink via libmnl.  Contracts: see struct sys_ops.
 */
int nl_dcb_read(struct sys *sys, const char *ifname, struct fab_dcb *dcb, struct fab_err *err);
int nl_dcb_pfc_set(struct sys *sys, const char *ifname, const struct fab_dcb_pfc *pfc,
		   struct fab_err *err);
int nl_dcb_ets_set(struct sys *sys, const char *ifname, const struct fab_dcb_ets *ets,
		   struct fab_err *err);
int nl_dcb_app_add(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
		   size_t n, struct fab_err *err);
int nl_dcb_app_del(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
		   size_t n, struct fab_err *err);
int nl_dcb_trust_set(struct sys *sys, const char *ifname, const uint8_t *sel, size_t n,
		     struct fab_err *err);

/* nl_bond.c: bonding over rtnetlink via libmnl. */
int nl_bond_read(struct sys *sys, const char *name, struct fab_bond *bond, struct fab_err *err);
int nl_bond_create(struct sys *sys, const struct fab_bond *want, struct fab_err *err);
int nl_bond_delete(struct sys *sys, const char *name, struct fab_err *err);
int nl_bond_set(struct sys *sys, const struct fab_bond *want, struct fab_err *err);
int nl_bond_enslave(struct sys *sys, const char *bond, const char *member, struct fab_err *err);
int nl_bond_release(struct sys *sys, const char *member, struct fab_err *err);

/* sysfs_ecn.c: ECN per priority, mlx5 layout. */
int sysfs_ecn_read(struct sys *sys, const char *ifname, enum fab_ecn_point point,
		   uint8_t *mask, struct fab_err *err);
int sysfs_ecn_set(struct sys *sys, const char *ifname, enum fab_ecn_point point,
		  unsigned int prio, bool enable, struct fab_err *err);

/* roce_tos.c: RoCE default ToS through rdma_cm configfs. */
int roce_tos_read(struct sys *sys, const char *dev, unsigned int port, unsigned int *tos,
		struct fab_err *err);
int roce_tos_set(struct sys *sys, const char *dev, unsigned int port, unsigned int tos,
	       struct fab_err *err);

/* lldp.c: this node's LLDP view through liblldpctl.  Contract: see struct sys_ops. */
int lldp_read_all(struct sys *sys, const char *socket, struct lldp_view *view,
		  struct fab_err *err);

/* pending.c: the pending state of apply --try.  Contracts: see struct sys_ops. */
int pending_lock(struct sys *sys, int *lock, struct fab_err *err);
void pending_unlock(struct sys *sys, int lock);
const char *pending_path(struct sys *sys, char *buf, size_t len);
int pending_read(struct sys *sys, char **text, size_t *len, struct fab_err *err);
int pending_write(struct sys *sys, const char *text, struct fab_err *err);
void pending_drop(struct sys *sys, const char *path);
void pending_log(struct sys *sys, const char *line);
int pending_log_read(struct sys *sys, char *buf, size_t len);
int reverter_spawn(struct sys *sys, long long deadline, void (*fn)(struct sys *, long long),
		   int *pid, struct fab_err *err);
void reverter_stop(struct sys *sys, int pid, unsigned long long start);

/* proc.c: process identity.  Contract: see struct sys_ops. */
int proc_start(struct sys *sys, int pid, unsigned long long *start);

/* subnet.c: InfiniBand subnet walk (libibnetdisc) and PMA counters (libibmad). */
int subnet_read_all(struct sys *sys, const struct subnet_opts *o, struct topo *t,
		    struct fab_err *err);
/* sl2vl.c: SL2VL tables and path SLs.  Contract: see struct sys_ops. */
int subnet_vl_read(struct sys *sys, const struct subnet_opts *o, const struct topo *t,
		   struct ib_vl_data *vd, struct fab_err *err);

/* nic_counters.c: Ethernet / RoCE counters by name.  Contract: see struct sys_ops. */
int nic_counters_read_all(struct sys *sys, const struct nic_counters_req *req,
			  struct nic_counters *out, struct fab_err *err);

/* module_eeprom.c, link_phy.c: modules and links over ethtool netlink.  Contracts: see struct sys_ops. */
int module_page_read(struct sys *sys, const char *ifname, const struct module_page_req *req,
		     uint8_t *buf, struct fab_err *err);
int link_phy_read(struct sys *sys, const char *ifname, struct optics_link *l,
		  struct fab_err *err);
/* pcie.c: NICs and GPUs as PCIe sees them.  Contract: see struct sys_ops. */
int pcie_read_all(struct sys *sys, struct pcie_view *v, struct fab_err *err);
/* pcie_host.c: the node-wide facts pcie.c needs. */
unsigned int pcie_host_numa_nodes(struct sys *sys);
/* The socket (physical package) of NUMA node @node's first CPU; -1 unknown. */
int pcie_host_socket(struct sys *sys, int node);
void pcie_host_gpudirect(struct sys *sys, struct pcie_gpudirect *gd);
/* The firmware LLDP agent of @d from its netdevs' private flags. */
void pcie_host_fw_lldp(struct sys *sys, struct pcie_dev *d);

#endif
