/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One node's LLDP view: what its lldpd knows about the local system, its
 * ports and the neighbors heard on each port.  Filled by src/sys/lldp.c
 * (liblldpctl) on the node itself, carried between fleet workers and the
 * controller as JSON (lldp_view_to_json / lldp_view_from_json, the
 * "lldp" worker op), and merged into a struct topo by lldp_view_merge().
 * Pure data, no I/O.
 *
 * Ownership: a struct lldp_view owns its ports and each port its
 * neighbors; lldp_view_fini() frees all.  The _add() helpers return a
 * borrowed pointer to a new zeroed element, valid until the next _add on
 * the same array, or NULL when out of memory.  Strings are copies (taken
 * out of lldpctl atoms before they are released) and always terminated.
 *
 * Port names: a neighbor's port is named by its LLDP port id.  lldpd
 * configured with `portidsubtype ifname` (the netns lab does) sends the
 * interface name, so the port a host sees on its switch and the port the
 * switch reports locally have the same name and merge into one.
 */
#ifndef FAB_MODEL_LLDP_VIEW_H
#define FAB_MODEL_LLDP_VIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/topo.h"
#include "util/err.h"

/* LLDP system capability bits (IEEE 802.1AB; same values as lldp-const.h). */
#define LLDP_VIEW_CAP_BRIDGE 0x04u
#define LLDP_VIEW_CAP_ROUTER 0x10u
#define LLDP_VIEW_CAP_STATION 0x80u

struct lldp_neighbor {
	char chassis_name[128];		/* LLDP system name; "" when not sent */
	char chassis_id[64];		/* as lldpcli prints it (MAC, name, ...) */
	char port_id[64];		/* LLDP port id (ifname with subtype ifname) */
	char port_descr[128];		/* "" when not sent */
	unsigned int ttl_s;		/* time to live the neighbor advertised */
	unsigned int mfs;		/* IEEE 802.3 Max Frame Size in bytes; 0 not sent */
	unsigned int cap_enabled;	/* LLDP_VIEW_CAP_* bits; 0 when not sent */
	char (*mgmt)[TOPO_ADDR_LEN];	/* owned: management addresses it advertises */
	size_t n_mgmt;
};

struct lldp_port {
	char name[64];			/* local interface name */
	unsigned int mtu;		/* local MTU in bytes (netlink); 0 unknown */
	char operstate[16];		/* netlink: up, down, lowerlayerdown, ...; "" unknown */
	bool admin_up;			/* netlink IFF_UP */
	unsigned int speed_mbps;	/* ethtool speed; 0 unknown */
	struct lldp_neighbor *neighbors;	/* owned */
	size_t n_neighbors;
};

struct lldp_view {
	char name[128];			/* local system name (lldpd's hostname) */
	char chassis_id[64];
	unsigned int cap_enabled;	/* LLDP_VIEW_CAP_* of the local system */
	struct lldp_port *ports;	/* owned, in lldpd's order */
	size_t n_ports;
	/*
	 * Owned: the management addresses the local system advertises
	 * (lldpd's default is its first IPv4 and first IPv6 address; with
	 * `configure system ip management pattern` it can be every interface
	 * address, which is what names a router's hops: docs/paths.md).
	 */
	char (*mgmt)[TOPO_ADDR_LEN];
	size_t n_mgmt;
};

void lldp_view_init(struct lldp_view *v);
void lldp_view_fini(struct lldp_view *v);

struct lldp_port *lldp_view_port_add(struct lldp_view *v, const char *name);
struct lldp_neighbor *lldp_port_neighbor_add(struct lldp_port *p);
/*
 * Append management address @addr (IPv4 or IPv6 text, kept in inet_ntop(3)'s
 * form) to *@mgmt / *@n (a view's or a neighbor's); one already there is not
 * added twice.  0, -EINVAL when @addr is not an address, -ENOMEM.
 */
int lldp_mgmt_add(char (**mgmt)[TOPO_ADDR_LEN], size_t *n, const char *addr);

/* "switch" for a system that enables bridge or router, else "host". */
enum topo_node_type lldp_cap_node_type(unsigned int cap_enabled);

/*
 * JSON form of a view (the worker's "lldp" reply, docs/discover-lldp.md):
 *   {"name", "chassis_id", "capabilities": [...], "mgmt_addresses": [...],
 *    "ports": [{"name", "mtu", "operstate", "admin_up", "speed_mbps",
 *    "neighbors": [{"chassis_name", "chassis_id", "port_id", "port_descr",
 *    "ttl_s", "mfs", "capabilities": [...], "mgmt_addresses": [...]}]}]}
 * mtu, operstate, speed_mbps and mfs are null when unknown.  New reference, NULL on ENOMEM.
 */
json_t *lldp_view_to_json(const struct lldp_view *v);

/*
 * Parse that form (from an untrusted worker) into @v (lldp_view_init'ed).
 * Unknown keys are ignored; a wrong type, an over-long string or more than
 * 4096 ports/neighbors is -EINVAL with @err naming the field.  On failure
 * @v may hold part of the data (the caller finis it).
 */
int lldp_view_from_json(struct lldp_view *v, const json_t *doc, struct fab_err *err);

/*
 * Merge one view into @t: the local system becomes a node (host or
 * switch by its capabilities), each local port a port with its MTU, state
 * (up: active/linkup; admin down: down/disabled; no carrier: down/polling)
 * where known, each
 * neighbor a node (found by name, else added) with a port named by its
 * port id carrying the MFS in mtu_max, linked to the local port with
 * TOPO_SRC_LLDP.  Merging the views of both ends of a cable finds the
 * same two ports and only ORs the source in.  A neighbor whose port is
 * already cabled elsewhere (two neighbors on one port, a stale entry) is
 * skipped and counted in *conflicts (may be NULL).  Local ports with no
 * neighbor are added too (they show up as unlinked ports, and the plan
 * diff can name them as the missing end).  The management addresses of
 * the local system and of each neighbor become its node's addresses
 * (topo_node.addrs), but for loopback and link-local ones.  0 or -ENOMEM.
 */
int lldp_view_merge(struct topo *t, const struct lldp_view *v, unsigned int *conflicts);

#endif
