/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * struct sys_ops: the only way the layers above read or change the node.
 * The real implementation lives in src/sys/ (netlink via libmnl, sysfs,
 * libibumad/libibmad, liblldpctl); unit tests swap in a recording one.
 *
 * Every operation returns 0 or -errno and fills @err on failure; no
 * library-specific code (verbs' positive errno, umad, LLDPCTL_ERR_*)
 * escapes this layer.  Operations a given sys does not implement are
 * NULL; callers use the sys_*() wrappers below, which turn a NULL slot
 * into -EOPNOTSUPP with a message.
 */
#ifndef FAB_SYS_SYS_H
#define FAB_SYS_SYS_H

#include <stdbool.h>
#include <stdint.h>

#include "model/bond.h"
#include "model/dcb.h"
#include "model/ecn.h"
#include "model/host_state.h"
#include "model/lldp_view.h"
#include "model/module.h"
#include "model/nic_counters.h"
#include "model/optics.h"
#include "model/pcie.h"
#include "model/topo.h"
#include "util/err.h"

struct ib_vl_data;

struct sys;

/* What sys_host_state_read() reads beyond links and RDMA ports. */
enum sys_read_flags {
	/*
	 * Port error/data counters: PMA queries (three MADs an InfiniBand
	 * port) and every sysfs counter file.  Only `status` shows them;
	 * apply and verify do not ask for them.
	 */
	SYS_READ_COUNTERS = 1 << 0,
	/*
	 * The NICs and GPUs as PCIe sees them into host_state.pcie (struct
	 * pcie_view, model/pcie.h) through the pcie_read slot: `status`, and
	 * verify when a profile has `nics:` items.  A sys without the slot
	 * leaves host_state.pcie NULL.
	 */
	SYS_READ_PCIE = 1 << 1,
};

#define PMA_WINDOW_DEFAULT 64	/* subnet_opts.max_pmas when 0 */
#define PMA_WINDOW_MAX 128

/* What subnet_read walks and how. */
struct subnet_opts {
	const char *ca;			/* CA name (-C); NULL: the first IB CA */
	int ca_port;			/* CA port (-P); 0: the first active one */
	const char *load_cache;		/* read this ibnetdiscover --cache file instead */
	unsigned int max_smps;		/* SMPs in flight; 0: library default (2) */
	unsigned int timeout_ms;	/* per MAD; 0: library default */
	unsigned int retries;		/* per MAD; 0: library default */
	bool counters;			/* read PMA PortCounters(Extended) */
	/*
	 * PMA queries in flight through our own umad port (sys/pma.h);
	 * 0: 64.  pma_serial: one at a time through libibmad's pma_query_via
	 * instead (the fallback, also taken when the umad port or the PerfMgt
	 * agent cannot be had, and for nodes whose PMA redirects).
	 */
	unsigned int max_pmas;
	bool pma_serial;
	/*
	 * Read every switch's unicast linear forwarding table into
	 * topo_node.lft (LinearFDBTop from the walk's SwitchInfo, then one
	 * LinearForwardingTable SMP per 64 LIDs, max_smps in flight, by the
	 * directed route of the walk).  Live walks only: an ibnetdiscover
	 * cache holds no forwarding tables, so lft with load_cache is -EINVAL.
	 */
	bool lft;
	/*
	 * Read SMInfo from every port whose PortInfo CapabilityMask has IsSM
	 * (sys/sminfo.c) into topo.sms, and set topo.sms_read.  Live walks
	 * only; ignored with load_cache.
	 */
	bool sminfo;
};

/* Which interface's counters nic_counters_read() reads. */
struct nic_counters_req {
	const char *ifname;	/* the interface; NULL or "": the one holding @addr */
	const char *addr;	/* numeric IPv4/IPv6 data-path address, or NULL */
	const char *rdma;	/* an RDMA device to read as well (hosts file rdma=), or NULL */
	unsigned int rdma_port;	/* its port; 0: every port of @rdma */
};

struct sys_ops {
	const char *name;
	/* Append every network device of the node to @hs. */
	int (*links_read)(struct sys *sys, struct host_state *hs, struct fab_err *err);
	/* Append every RDMA device and port of the node to @hs. */
	int (*rdma_read)(struct sys *sys, struct host_state *hs, unsigned int flags,
			 struct fab_err *err);

	/*
	 * Configuration slots (apply, verify).  Common contract:
	 * - @ifname is a netdev name, @dev an RDMA device name, @port 1-based.
	 * - Setters change exactly one thing and nothing else; on failure the
	 *   object is unchanged and @err names object and field, with the
	 *   kernel's extended-ack text appended when there is one:
	 *   "rtnetlink: veth0: set mtu 9000: Invalid argument (mtu greater than device maximum)".
	 * - A device lacking the capability returns -EOPNOTSUPP and a message
	 *   naming device and capability, e.g. "dcb: veth0: pfc not supported
	 *   by driver", "ecn: veth0: no roce_np in sysfs (not an mlx5 port?)".
	 *   Readers do the same for a capability that is asked for explicitly;
	 *   dcb_read instead marks each unanswered part !supported and returns
	 *   0, unless the device has no DCB at all (-EOPNOTSUPP, "dcb: veth0:
	 *   dcb not supported by driver").
	 * - A missing object is -ENODEV ("rtnetlink: eth9: no such device").
	 */
	/* rtnetlink RTM_NEWLINK IFLA_MTU with NLM_F_ACK (src/sys/nl_link_set.c). */
	int (*link_mtu_set)(struct sys *sys, const char *ifname, unsigned int mtu,
			    struct fab_err *err);
	/* DCB netlink (src/sys/nl_dcb.c): fill @dcb (fab_dcb_init'ed by the caller). */
	int (*dcb_read)(struct sys *sys, const char *ifname, struct fab_dcb *dcb,
			struct fab_err *err);
	/* DCB_CMD_IEEE_SET DCB_ATTR_IEEE_PFC: pfc_en, mbc, delay_bits are written. */
	int (*dcb_pfc_set)(struct sys *sys, const char *ifname, const struct fab_dcb_pfc *pfc,
			   struct fab_err *err);
	/* DCB_CMD_IEEE_SET DCB_ATTR_IEEE_ETS: willing, tc_tx_bw_pct, tc_tsa, prio_tc. */
	int (*dcb_ets_set)(struct sys *sys, const char *ifname, const struct fab_dcb_ets *ets,
			   struct fab_err *err);
	/* DCB_CMD_IEEE_SET / _DEL DCB_ATTR_IEEE_APP_TABLE: add or remove @n entries. */
	int (*dcb_app_add)(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
			   size_t n, struct fab_err *err);
	int (*dcb_app_del)(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
			   size_t n, struct fab_err *err);
	/* DCB_ATTR_DCB_APP_TRUST_TABLE: trust @sel (FAB_DCB_APP_SEL_*), first = highest. */
	int (*dcb_trust_set)(struct sys *sys, const char *ifname, const uint8_t *sel, size_t n,
			     struct fab_err *err);
	/* Bonding over rtnetlink (src/sys/nl_bond.c).  bond_read: -ENODEV when
	 * @name does not exist, -EINVAL ("bond: eth0: not a bond") when it is not one. */
	int (*bond_read)(struct sys *sys, const char *name, struct fab_bond *bond,
			 struct fab_err *err);
	/* Create @want->name with every option of @want that is not -1; members ignored. */
	int (*bond_create)(struct sys *sys, const struct fab_bond *want, struct fab_err *err);
	int (*bond_delete)(struct sys *sys, const char *name, struct fab_err *err);
	/* Change every option of @want that is not -1 on an existing bond (mode
	 * only while it has no members and is down: -EBUSY otherwise). */
	int (*bond_set)(struct sys *sys, const struct fab_bond *want, struct fab_err *err);
	/* IFLA_MASTER: set link @member down, enslave to @bond, set it up again. */
	int (*bond_enslave)(struct sys *sys, const char *bond, const char *member,
			    struct fab_err *err);
	int (*bond_release)(struct sys *sys, const char *member, struct fab_err *err);
	/* ECN per priority, mlx5 sysfs layout <root>/sys/class/net/<if>/ecn/
	 * roce_np|roce_rp/enable/<prio> (src/sys/sysfs_ecn.c).  @mask: bit p = enabled. */
	int (*ecn_read)(struct sys *sys, const char *ifname, enum fab_ecn_point point,
			uint8_t *mask, struct fab_err *err);
	int (*ecn_set)(struct sys *sys, const char *ifname, enum fab_ecn_point point,
		       unsigned int prio, bool enable, struct fab_err *err);
	/* rdma_cm configfs <root>/sys/kernel/config/rdma_cm/<dev>/ports/<port>/
	 * default_roce_tos (src/sys/roce_tos.c); the device directory is created
	 * for the access and removed after, as rdma_cm expects. */
	int (*roce_tos_read)(struct sys *sys, const char *dev, unsigned int port,
			     unsigned int *tos, struct fab_err *err);
	int (*roce_tos_set)(struct sys *sys, const char *dev, unsigned int port,
			    unsigned int tos, struct fab_err *err);
	/* LLDP (src/sys/lldp.c): fill @view (lldp_view_init'ed) from the lldpd
	 * listening on @socket (NULL: the system one) through liblldpctl, plus
	 * each local port's MTU from rtnetlink.  -ECONNREFUSED naming the socket
	 * when no lldpd answers there. */
	int (*lldp_read)(struct sys *sys, const char *socket, struct lldp_view *view,
			 struct fab_err *err);
	/* InfiniBand subnet (src/sys/subnet.c): walk it with SMPs through
	 * libibnetdisc (or load an ibnetdiscover --cache file), then read PMA
	 * PortCounters of every linked port, into @t (empty).  See struct
	 * subnet_opts.  -ENODEV when no IB port answers, naming the CA. */
	int (*subnet_read)(struct sys *sys, const struct subnet_opts *o, struct topo *t,
			   struct fab_err *err);
	/*
	 * Virtual lanes of the subnet @t was walked from (src/sys/sl2vl.c;
	 * model/ib_vl.h): every switch's SL2VL tables towards its
	 * switch-cabled ports, by LID, into @vd (zeroed), and the SL of every
	 * CA pair's path from the subnet administrator (PathRecord); no SA
	 * answering is not an error (vd->sl_note says so).  Live subnets only.
	 * -ENODEV when no MAD port opens, -ENOMEM.
	 */
	int (*subnet_vl_read)(struct sys *sys, const struct subnet_opts *o, const struct topo *t,
			      struct ib_vl_data *vd, struct fab_err *err);
	/*
	 * Ethernet / RoCE counters by name (src/sys/nic_counters.c) into @out
	 * (nic_counters_init'ed): <root>/sys/class/net/IF/statistics/ and
	 * carrier_changes; `ethtool -S` through ETHTOOL_GSTATS (with a root
	 * set: the captured text in <root>/ethtool-S/IF when there is one);
	 * and hw_counters/ and counters/ of every RDMA port whose first GID's
	 * netdev is IF, plus @req->rdma.  -ENODEV naming the interface or
	 * address when there is none.  Unreadable counters are skipped.
	 */
	int (*nic_counters_read)(struct sys *sys, const struct nic_counters_req *req,
				 struct nic_counters *out, struct fab_err *err);
	/*
	 * Pluggable modules and the link under them (issue 26; src/sys/
	 * module_eeprom.c, link_phy.c, over ethtool netlink).
	 * module_page_read: one 128-byte half page of the module in @ifname
	 * into @buf: ETHTOOL_MSG_MODULE_EEPROM_GET (Linux 5.13+; the kernel
	 * itself falls back to a driver's old get_module_eeprom), else the
	 * ETHTOOL_GMODULEEEPROM ioctl for the pages its flat image holds.
	 * -EOPNOTSUPP naming the interface when it has no module interface
	 * (virtual devices), -ENODEV when no module is plugged (the kernel's
	 * answer), other -errno with the kernel's extended ack.
	 */
	int (*module_page_read)(struct sys *sys, const char *ifname,
				const struct module_page_req *req, uint8_t *buf,
				struct fab_err *err);
	/*
	 * link_phy_read: @ifname's link into @l (optics_link_init'ed): speed
	 * and lanes (ETHTOOL_MSG_LINKMODES_GET), link state and link-down
	 * events (ETHTOOL_MSG_LINKSTATE_GET with stats), FEC mode and
	 * statistics (ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS; the
	 * ETHTOOL_GFECPARAM ioctl for the mode where netlink is missing),
	 * carrier_changes and carrier_down_count from sysfs, and the
	 * CLOCK_MONOTONIC time of the reading.  What the driver does not give
	 * stays !ok; -ENODEV when there is no such interface.
	 */
	int (*link_phy_read)(struct sys *sys, const char *ifname, struct optics_link *l,
			     struct fab_err *err);
	/*
	 * Inside the node (src/sys/pcie.c, pcie_host.c): every NIC (a PCI
	 * function with a netdev or RDMA device) and GPU with its link,
	 * bridges and their ACS, NUMA node, socket and IOMMU mode; GPUDirect
	 * readiness; the firmware LLDP agent where a driver flag shows it,
	 * into @v (pcie_view_new'ed, empty).  Under a root the same layout is
	 * read from the tree (tests/fixtures/pcie-dgx).  What cannot be read
	 * stays unknown; only running out of memory fails.
	 */
	int (*pcie_read)(struct sys *sys, struct pcie_view *v, struct fab_err *err);

	/*
	 * The pending state of `apply --try` (src/sys/pending.c): a run
	 * directory ($FABRICCTL_RUNDIR or /run/fabricctl) with the node's
	 * apply lock, the pending-state file (the undo list, its deadline and
	 * the reverter's pid as changeset_undo_to_json() writes them), the
	 * reverter's log, and the detached reverter process.  A run
	 * directory that is a symlink, owned by another user, writable by
	 * group or others, or whose name is too long is refused (system
	 * error naming it); no name is ever cut short.
	 */
	/* Take the node's apply lock, exclusive and without waiting: -EBUSY
	 * ("apply: another apply is running on this node (PATH)") when held.
	 * *@lock goes to pending_unlock(). */
	int (*pending_lock)(struct sys *sys, int *lock, struct fab_err *err);
	void (*pending_unlock)(struct sys *sys, int lock);
	/* Where the pending state lives, for messages and reports, into @buf. */
	const char *(*pending_path)(struct sys *sys, char *buf, size_t len);
	/* The pending text (caller frees; NUL-terminated); -ENOENT, no
	 * message, when no try is pending. */
	int (*pending_read)(struct sys *sys, char **text, size_t *len, struct fab_err *err);
	/* Record @text as the pending state, atomically, readable by root only. */
	int (*pending_write)(struct sys *sys, const char *text, struct fab_err *err);
	/* Forget the pending state at @path (pending_path()) once it has been
	 * acted on, under the apply lock. */
	void (*pending_drop)(struct sys *sys, const char *path);
	/* Append @line to the reverter's log (best effort, never through a
	 * symlink). */
	void (*pending_log)(struct sys *sys, const char *line);
	/* The reverter's last log line into @buf (newline dropped); -ENOENT when none. */
	int (*pending_log_read)(struct sys *sys, char *buf, size_t len);
	/* Start a detached process (no tty, no inherited descriptors, immune
	 * to the admin's hangup) that sleeps until @deadline (Unix seconds),
	 * calls @fn(@sys, @deadline) and exits; its pid in *@pid. */
	int (*reverter_spawn)(struct sys *sys, long long deadline,
			      void (*fn)(struct sys *sys, long long deadline), int *pid,
			      struct fab_err *err);
	/* Stop reverter @pid early, only if it is still the process that
	 * started at @start (/proc/PID/stat field 22; 0: unknown, then it is
	 * left alone) and runs this program: a reused pid is never hit. */
	void (*reverter_stop)(struct sys *sys, int pid, unsigned long long start);
	/* Process @pid's start time (/proc/PID/stat field 22, clock ticks
	 * since boot) into *@start; @pid 0: this process.  -errno, no message,
	 * when there is no such process. */
	int (*proc_start)(struct sys *sys, int pid, unsigned long long *start);
	void (*free)(struct sys *sys);
};

struct sys {
	const struct sys_ops *ops;
	/*
	 * Root prefix for sysfs and configfs paths ("" for the real /).  Tests
	 * point it at a directory tree with the same layout (a layout fixture).
	 */
	char root[256];
	void *priv;		/* owned by the implementation */
};

/* The real node.  @root may be NULL or "" for "/". */
int sys_real_new(struct sys **out, const char *root, struct fab_err *err);
void sys_free(struct sys *sys);

/* Read links and RDMA devices into @hs (initialised by the caller), sorted. */
int sys_host_state_read(struct sys *sys, struct host_state *hs, unsigned int flags,
			struct fab_err *err);

/*
 * The wrappers every caller uses instead of the slots: the same
 * arguments and contract as the slot of the same name in struct sys_ops;
 * a slot this sys lacks is -EOPNOTSUPP with "WHAT: OBJECT: not supported
 * by SYSNAME" ("dcb: eth0: not supported by rec").
 */
int sys_link_mtu_set(struct sys *sys, const char *ifname, unsigned int mtu, struct fab_err *err);
int sys_dcb_read(struct sys *sys, const char *ifname, struct fab_dcb *dcb, struct fab_err *err);
int sys_dcb_pfc_set(struct sys *sys, const char *ifname, const struct fab_dcb_pfc *pfc,
		    struct fab_err *err);
int sys_dcb_ets_set(struct sys *sys, const char *ifname, const struct fab_dcb_ets *ets,
		    struct fab_err *err);
int sys_dcb_app_add(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
		    size_t n, struct fab_err *err);
int sys_dcb_app_del(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
		    size_t n, struct fab_err *err);
int sys_dcb_trust_set(struct sys *sys, const char *ifname, const uint8_t *sel, size_t n,
		      struct fab_err *err);
int sys_bond_read(struct sys *sys, const char *name, struct fab_bond *bond, struct fab_err *err);
int sys_bond_create(struct sys *sys, const struct fab_bond *want, struct fab_err *err);
int sys_bond_delete(struct sys *sys, const char *name, struct fab_err *err);
int sys_bond_set(struct sys *sys, const struct fab_bond *want, struct fab_err *err);
int sys_bond_enslave(struct sys *sys, const char *bond, const char *member, struct fab_err *err);
int sys_bond_release(struct sys *sys, const char *member, struct fab_err *err);
int sys_ecn_read(struct sys *sys, const char *ifname, enum fab_ecn_point point, uint8_t *mask,
		 struct fab_err *err);
int sys_ecn_set(struct sys *sys, const char *ifname, enum fab_ecn_point point, unsigned int prio,
		bool enable, struct fab_err *err);
int sys_roce_tos_read(struct sys *sys, const char *dev, unsigned int port, unsigned int *tos,
		      struct fab_err *err);
int sys_roce_tos_set(struct sys *sys, const char *dev, unsigned int port, unsigned int tos,
		     struct fab_err *err);
int sys_lldp_read(struct sys *sys, const char *socket, struct lldp_view *view,
		  struct fab_err *err);
int sys_subnet_read(struct sys *sys, const struct subnet_opts *o, struct topo *t,
		    struct fab_err *err);
int sys_subnet_vl_read(struct sys *sys, const struct subnet_opts *o, const struct topo *t,
		       struct ib_vl_data *vd, struct fab_err *err);
int sys_nic_counters_read(struct sys *sys, const struct nic_counters_req *req,
			  struct nic_counters *out, struct fab_err *err);
int sys_module_page_read(struct sys *sys, const char *ifname, const struct module_page_req *req,
			 uint8_t *buf, struct fab_err *err);
int sys_link_phy_read(struct sys *sys, const char *ifname, struct optics_link *l,
		      struct fab_err *err);
int sys_pcie_read(struct sys *sys, struct pcie_view *v, struct fab_err *err);
int sys_pending_lock(struct sys *sys, int *lock, struct fab_err *err);
void sys_pending_unlock(struct sys *sys, int lock);
const char *sys_pending_path(struct sys *sys, char *buf, size_t len);
int sys_pending_read(struct sys *sys, char **text, size_t *len, struct fab_err *err);
int sys_pending_write(struct sys *sys, const char *text, struct fab_err *err);
void sys_pending_drop(struct sys *sys, const char *path);
void sys_pending_log(struct sys *sys, const char *line);
int sys_pending_log_read(struct sys *sys, char *buf, size_t len);
int sys_reverter_spawn(struct sys *sys, long long deadline,
		       void (*fn)(struct sys *sys, long long deadline), int *pid,
		       struct fab_err *err);
void sys_reverter_stop(struct sys *sys, int pid, unsigned long long start);
int sys_proc_start(struct sys *sys, int pid, unsigned long long *start);

/* Build "<root><path>" into @buf. */
const char *sys_path(const struct sys *sys, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Small sysfs helpers: read a file's first line (trailing newline removed). */
int sys_read_line(const char *path, char *buf, size_t len);
int sys_read_u64(const char *path, uint64_t *val);
/* Write @text to an existing sysfs/configfs file in one write(); 0 or -errno. */
int sys_write_line(const char *path, const char *text);

#endif
