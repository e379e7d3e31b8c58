/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a node looks like: its network devices and RDMA devices/ports, as
 * read by src/sys/ (the inventory status shows; the configuration a
 * profile governs is struct node_config in model/changeset.h).  Pure data, no I/O.
 *
 * Ownership: a struct host_state owns its arrays and everything in them;
 * host_state_fini() frees all.  The *_add() helpers return a borrowed
 * pointer to a new zeroed element (valid until the next _add on the same
 * array) or NULL when out of memory.
 */
#ifndef FAB_MODEL_HOST_STATE_H
#define FAB_MODEL_HOST_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAB_IFNAMSIZ 16
#define FAB_LINK_MAX_ADDRS 8	/* IP addresses kept per link (the first ones) */
#define FAB_ADDRSTRLEN 48	/* INET6_ADDRSTRLEN and a little */

struct pcie_view;

struct fab_link {
	char name[FAB_IFNAMSIZ];
	int ifindex;
	char kind[16];		/* rtnetlink IFLA_INFO_KIND: veth, bond, bridge; "" for hardware */
	char operstate[16];	/* up, down, lowerlayerdown, dormant, unknown, ... */
	bool admin_up;
	unsigned int mtu;
	int64_t speed_mbps;	/* -1 when unknown */
	char driver[32];	/* "" when unknown */
	int master_ifindex;	/* 0 when none */
	char master[FAB_IFNAMSIZ];
	char address[24];	/* link-layer address, aa:bb:... */
	/* IP addresses (numeric, no prefix length), IPv4 first then IPv6 in
	 * kernel order; the RoCE chain looks for their RoCE v2 GIDs. */
	char addrs[FAB_LINK_MAX_ADDRS][FAB_ADDRSTRLEN];
	size_t n_addrs;
};

struct fab_gid {
	unsigned int index;
	char gid[40];		/* canonical IPv6 notation */
	char type[16];		/* "IB", "RoCE v1", "RoCE v2" */
	char netdev[FAB_IFNAMSIZ];	/* "" when none */
};

struct fab_counter {
	char name[48];
	uint64_t value;
};

struct lossless_chain;

struct fab_rdma_port {
	unsigned int port;
	char link_layer[16];	/* "InfiniBand", "Ethernet" */
	char state[16];		/* DOWN, INIT, ARMED, ACTIVE */
	char phys_state[24];	/* SLEEP, POLLING, DISABLED, LINK_UP, ... */
	unsigned int width_x;	/* 1, 2, 4, 8, 12; 0 when unknown */
	char speed[8];		/* SDR ... NDR, XDR; "" when unknown */
	double rate_gbps;	/* 0 when unknown */
	unsigned int active_mtu;	/* 256..4096; 0 when unknown */
	unsigned int lid, sm_lid;	/* InfiniBand only */
	uint64_t port_guid;
	char netdev[FAB_IFNAMSIZ];	/* Ethernet: the netdev under the port */
	struct fab_gid *gids;
	size_t n_gids;
	bool counters_supported;
	struct fab_counter *counters;
	size_t n_counters;
	/* status: the lossless chain of a RoCE port's netdev (model/lossless.h),
	 * owned; NULL when not read (InfiniBand, no netdev, a worker's answer) */
	struct lossless_chain *chain;
};

struct fab_rdma_dev {
	char name[64];
	char node_type[16];	/* CA, switch, router, RNIC */
	uint64_t node_guid;
	char fw_ver[64];
	struct fab_rdma_port *ports;
	size_t n_ports;
};

struct optics_set;

struct host_state {
	char hostname[64];
	struct fab_link *links;
	size_t n_links;
	struct fab_rdma_dev *rdma;
	size_t n_rdma;
	/* The pluggable modules and their verdicts (model/optics.h, node/optics.c);
	 * NULL when they were not read.  Owned: host_state_fini() frees it. */
	struct optics_set *optics;
	struct pcie_view *pcie;	/* owned; NULL when not read (model/pcie.h) */
};

void host_state_init(struct host_state *hs);
void host_state_fini(struct host_state *hs);

struct fab_link *host_state_link_add(struct host_state *hs);
struct fab_rdma_dev *host_state_rdma_add(struct host_state *hs);
struct fab_rdma_port *rdma_dev_port_add(struct fab_rdma_dev *dev);
struct fab_gid *rdma_port_gid_add(struct fab_rdma_port *port);
struct fab_counter *rdma_port_counter_add(struct fab_rdma_port *port,
					  const char *name, uint64_t value);

/* Borrowed lookups; NULL when absent. */
struct fab_link *host_state_link_by_name(const struct host_state *hs, const char *name);
struct fab_link *host_state_link_by_index(const struct host_state *hs, int ifindex);
struct fab_rdma_dev *host_state_rdma_by_name(const struct host_state *hs, const char *name);

/*
 * Keep only the links and RDMA devices named in @names (exact names), in
 * their order; dropped devices are freed.  Returns the index of the first
 * name that matches neither a link nor an RDMA device (nothing is dropped
 * then), or -1 when every name matched.
 */
int host_state_keep_named(struct host_state *hs, char *const *names, size_t n);

/* Fill each link's master name from master_ifindex. */
void host_state_resolve_masters(struct host_state *hs);

/* Sort links by ifindex, RDMA devices by name, ports by number, GIDs by index. */
void host_state_sort(struct host_state *hs);

/*
 * IB width/speed helpers.  Speed names follow ibstat (SDR ... XDR);
 * nominal per-lane rate in Gb/s as ibstat reports it (4X EDR = 100).
 */
double ib_speed_lane_gbps(const char *speed);
/* "4X", "1X" ... -> 4, 1; 0 when not a width. */
unsigned int ib_width_parse(const char *s);

#endif
