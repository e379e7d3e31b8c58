/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * struct topo: one graph for both fabrics (InfiniBand subnets walked with
 * SMPs, Ethernet/RoCE seen through LLDP, and cabling plans read from a
 * file).  Pure data, no I/O.
 *
 * Shape
 *   topo ─owns─▶ nodes[]  (struct topo_node *, switch | ca | host | router)
 *        node ─owns─▶ ports[] (struct topo_port *, IB port number or a name)
 *        node ─owns─▶ lft[]   (IB switch: output port per LID, when read)
 *   topo ─owns─▶ links[]  (struct topo_link *, one per cable, two ports)
 *   topo ─owns─▶ problems[] (struct topo_problem, found by health checks
 *                            and by topo_diff(); they copy what they name)
 *
 * Ownership: one owner frees all.  topo_free() frees every node, port,
 * link and problem.  Every pointer handed out (topo_node_add(),
 * topo_port_add(), lookups, port->node, port->peer, link->a/b) is borrowed
 * and stays valid until topo_free(): elements are allocated one by one and
 * never move, so adding more does not invalidate earlier pointers.
 *
 * Provenance: every node, port and link carries `src`, a bitmask of
 * enum topo_src saying which sources reported it (SMP walk, ibnetdiscover
 * cache, LLDP, a plan file, a profile).  A source that confirms an object
 * another source created ORs its bit in; `facts` on a port says which
 * port attributes are known (TOPO_F_*), so renderers print "-" / null for
 * the rest and the diff only compares what both sides know.
 *
 * How a source adds to the graph (e.g. LLDP in src/sys/lldp.c):
 *   1. node = topo_node_find(t, name)  (or topo_node_by_guid() for IB),
 *      else node = topo_node_add(t, TOPO_NODE_HOST or _SWITCH, name, 0);
 *      set node->chassis_id, node->src |= TOPO_SRC_LLDP.
 *   2. port = topo_port_get(node, 0, "eth0") finds or adds a port by name
 *      (Ethernet: num 0, name = ifname / LLDP port id) or by number (IB:
 *      num 1..N, name ""); fill state/width/speed/mtu and set the
 *      matching TOPO_F_* bits in port->facts; port->src |= TOPO_SRC_LLDP.
 *   3. topo_link_add(t, port_a, port_b, TOPO_SRC_LLDP) connects two ports;
 *      adding the same pair again only ORs the source in; a port already
 *      linked elsewhere gets -EEXIST (a cabling conflict, not a crash).
 * Then topo_health_check() appends degraded/down/errors problems and
 * topo_diff() (topo_diff.h) compares against an expected struct topo
 * (the plan: the same struct, filled by a plan parser with TOPO_SRC_PLAN).
 *
 * Units are in the names: lane_mbps is the per-lane signalling rate
 * (IB: SDR 2500 ... NDR 106250; Ethernet: the whole link speed with
 * width_x = 1), mtu is in bytes.
 */
#ifndef FAB_MODEL_TOPO_H
#define FAB_MODEL_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum topo_src {
	TOPO_SRC_SMP = 1u << 0,		/* live subnet walk (SMPs, PMA) */
	TOPO_SRC_CACHE = 1u << 1,	/* ibnetdiscover --cache file (--load-cache) */
	TOPO_SRC_LLDP = 1u << 2,	/* lldpd neighbour tables */
	TOPO_SRC_PLAN = 1u << 3,	/* a cabling plan file (--expect) */
	TOPO_SRC_PROFILE = 1u << 4,	/* a fabricctl profile */
	TOPO_SRC_LOCAL = 1u << 5,	/* this node's own netlink/sysfs view */
	TOPO_SRC_IMPLIED = 1u << 6,	/* node: a plan names it only in links (its type inferred) */
};

enum topo_node_type {
	TOPO_NODE_SWITCH = 0,
	TOPO_NODE_CA,			/* an IB channel adapter (HCA port set) */
	TOPO_NODE_HOST,			/* an Ethernet host (LLDP system) */
	TOPO_NODE_ROUTER,
};

enum topo_port_state {
	TOPO_PORT_UNKNOWN = 0,
	TOPO_PORT_DOWN,
	TOPO_PORT_INIT,
	TOPO_PORT_ARMED,
	TOPO_PORT_ACTIVE,
};

enum topo_phys_state {
	TOPO_PHYS_UNKNOWN = 0,
	TOPO_PHYS_SLEEP,
	TOPO_PHYS_POLLING,
	TOPO_PHYS_DISABLED,
	TOPO_PHYS_TRAINING,
	TOPO_PHYS_LINKUP,
	TOPO_PHYS_ERROR_RECOVERY,
	TOPO_PHYS_TEST,
};

/* Bits of topo_port.facts: which attributes a source filled in. */
enum topo_fact {
	TOPO_F_STATE = 1u << 0,		/* state, phys_state */
	TOPO_F_WIDTH = 1u << 1,		/* width_x, width_max_x */
	TOPO_F_SPEED = 1u << 2,		/* lane_mbps, lane_max_mbps */
	TOPO_F_MTU = 1u << 3,		/* mtu (and mtu_max) */
	TOPO_F_COUNTERS = 1u << 4,	/* counters */
	TOPO_F_LID = 1u << 5,
};

/* PMA PortCounters(Extended); the error ones are checked by thresholds. */
enum topo_counter {
	TOPO_CNT_SYMBOL_ERR = 0,
	TOPO_CNT_LINK_RECOVERS,
	TOPO_CNT_LINK_DOWNED,
	TOPO_CNT_RCV_ERR,
	TOPO_CNT_RCV_REMOTE_PHYS_ERR,
	TOPO_CNT_RCV_SWITCH_RELAY_ERR,
	TOPO_CNT_XMT_DISCARDS,
	TOPO_CNT_XMT_CONSTRAINT_ERR,
	TOPO_CNT_RCV_CONSTRAINT_ERR,
	TOPO_CNT_LINK_INTEGRITY_ERR,
	TOPO_CNT_EXCESS_BUF_OVERRUN,
	TOPO_CNT_VL15_DROPPED,
	TOPO_CNT_XMT_WAIT,
	TOPO_CNT_XMT_DATA,		/* extended, in 4-byte words */
	TOPO_CNT_RCV_DATA,
	TOPO_CNT_XMT_PKTS,
	TOPO_CNT_RCV_PKTS,
	TOPO_CNT_MAX,
	TOPO_CNT_N_ERR = TOPO_CNT_XMT_WAIT,	/* counters [0, N_ERR) are error counters */
};

/* JSON/CLI name of a counter ("symbol_errors", ...); NULL when out of range. */
const char *topo_counter_name(enum topo_counter c);
/* Reverse, any case; status's sysfs names (symbol_error: the rules' sysfs column) too; -1 none. */
int topo_counter_parse(const char *name);
/* Every name topo_counter_parse() knows, ", "-separated, into @buf; returns @buf. */
char *topo_counter_list(char *buf, size_t len);

struct topo_node;
struct topo_link;

#define TOPO_ADDR_LEN 46	/* an IPv4 or IPv6 address as text, NUL included (INET6_ADDRSTRLEN) */

struct topo_port {
	struct topo_node *node;		/* borrowed: the owner */
	unsigned int num;		/* IB port number (0 = switch port 0); 0 for named ports */
	char name[64];			/* Ethernet ifname / LLDP port id; "" for IB */
	uint64_t guid;			/* IB port GUID; 0 when none */
	unsigned int lid;		/* IB base LID (switches: port 0's) */
	unsigned int facts;		/* TOPO_F_* */
	unsigned int src;		/* TOPO_SRC_* */
	enum topo_port_state state;
	enum topo_phys_state phys_state;
	unsigned int width_x;		/* active lanes 1, 2, 4, 8, 12; 0 unknown */
	unsigned int width_max_x;	/* widest enabled width; 0 unknown */
	unsigned int lane_mbps;		/* active per-lane rate; 0 unknown */
	unsigned int lane_max_mbps;	/* fastest enabled per-lane rate; 0 unknown */
	unsigned int mtu;		/* bytes; 0 unknown */
	/*
	 * Ethernet: the speed the node itself reports for this interface
	 * (ethtool, through the worker's LLDP view), physical NICs and bonds
	 * only; 0 unknown or virtual (veth, bridge, tun, dummy... claim a
	 * speed they do not have).  Kept apart from lane_mbps, which the
	 * renderers name as IB speeds.
	 */
	unsigned int eth_mbps;
	unsigned int mtu_max;		/* bytes (IB MTUCap, LLDP MFS); 0 unknown */
	/*
	 * IB PortInfo, with TOPO_F_LID (switches: port 0's, on every port):
	 * the port holds LIDs lid .. lid + 2^lmc - 1; sm_lid is its
	 * MasterSMLID (0 none); is_sm its CapabilityMask.IsSM (a subnet
	 * manager runs behind it).
	 */
	unsigned int lmc;
	unsigned int sm_lid;
	bool is_sm;
	uint64_t counters[TOPO_CNT_MAX];
	struct topo_port *peer;		/* borrowed: the other end, NULL when unlinked */
	struct topo_link *link;		/* borrowed */
};

struct topo_node {
	enum topo_node_type type;
	char name[128];			/* IB NodeDescription; LLDP system name */
	uint64_t guid;			/* IB node GUID; 0 when none */
	uint64_t sysimg_guid;		/* IB SystemImageGUID; 0 when none */
	char chassis_id[64];		/* LLDP chassis id ("" for IB) */
	uint32_t vendor_id, device_id;	/* IB NodeInfo VendorID/DeviceID; 0 unknown */
	unsigned int n_ports_max;	/* IB NumPorts; 0 unknown */
	unsigned int src;		/* TOPO_SRC_* */
	struct topo_port **ports;	/* owned, sorted by num then name after topo_sort() */
	size_t n_ports;
	/*
	 * Owned: the block topo_node_reserve_ports() made, n_reserved ports,
	 * the first n_reserved_used of them handed out (and in ports[]).
	 */
	struct topo_port *reserved;
	size_t n_reserved, n_reserved_used;
	/*
	 * IB switches only, and only when the live subnet walk was asked to
	 * read them (subnet_opts.lft; a cache file has no forwarding tables):
	 * the unicast linear forwarding table, lft[lid] = output port for
	 * destination LID lid, for lid 0..lft_top (SwitchInfo LinearFDBTop);
	 * TOPO_LFT_NONE where the switch has no valid port for that LID.
	 * Port 0 is the switch itself.  NULL (and lft_top 0) when not read.
	 */
	uint8_t *lft;			/* owned, lft_top + 1 entries */
	unsigned int lft_top;
	/*
	 * The node's IP addresses, as text in the form inet_ntop(3) writes
	 * ("10.77.255.1", "fd00::1"): listed by a plan (addresses:), or
	 * advertised as LLDP management addresses.  A traced hop is named by
	 * the node holding its answering address (model/node_addr.h,
	 * docs/paths.md).  Owned; NULL when none.  Add through
	 * topo_node_addr_add() only.
	 */
	char (*addrs)[TOPO_ADDR_LEN];
	size_t n_addrs;
};

#define TOPO_LFT_NONE 0xffu	/* lft[] entry: no route to this LID */

enum topo_link_status {
	TOPO_LINK_OK = 0,
	TOPO_LINK_MTU,			/* its ends' MTUs differ (or differ from the plan's) */
	TOPO_LINK_DEGRADED,		/* below its enabled (or expected) width/speed */
	TOPO_LINK_DOWN,			/* down or polling */
	TOPO_LINK_ERRORS,		/* error counters over thresholds */
	/* Cabling against a plan (topo_diff(), topo_rail_check()): the cable must move. */
	TOPO_LINK_UNEXPECTED,		/* not in the plan */
	TOPO_LINK_RAIL,			/* a NIC's cable reaches a leaf of another rail */
	TOPO_LINK_MISWIRED,		/* the plan puts an end of it elsewhere */
};

struct topo_link {
	struct topo_port *a, *b;	/* borrowed; after topo_sort(): a sorts first */
	unsigned int src;		/* TOPO_SRC_* */
	enum topo_link_status status;	/* worst found by topo_health_check(), topo_diff(),
					 * topo_rail_check(): the highest value */
};

/* One end of a link as a problem names it: a copy, independent of any graph. */
struct topo_end {
	char node[128];			/* node name ("" unknown) */
	uint64_t guid;			/* node GUID, 0 unknown */
	unsigned int port;		/* port number (0 for named ports) */
	char port_name[64];		/* port name ("" for IB) */
};

enum topo_problem_kind {
	TOPO_PROB_MISSING = 0,		/* in the plan, not found */
	TOPO_PROB_UNEXPECTED,		/* found, not in the plan */
	TOPO_PROB_MISWIRED,		/* a's cable lands on b, the plan says on expected */
	TOPO_PROB_DEGRADED,		/* below enabled / expected width or speed */
	TOPO_PROB_DOWN,			/* a port down or polling (peer known from the plan) */
	TOPO_PROB_ERRORS,		/* counter over threshold */
	TOPO_PROB_MTU_MISMATCH,		/* the two ends disagree on MTU */
	TOPO_PROB_RAIL,			/* NIC i reaches a leaf of another rail */
	/* InfiniBand subnet sanity (model/ib_checks.h, discover --checks). */
	TOPO_PROB_UNREACHABLE,		/* a CA pair's route breaks at a switch's LFT entry */
	TOPO_PROB_CREDIT_LOOP,		/* a cycle in the routes' channel dependency graph */
	TOPO_PROB_BALANCE,		/* a tier's links carry very unequal route counts */
	TOPO_PROB_DUP_GUID,		/* a GUID on two nodes or ports */
	TOPO_PROB_DUP_LID,		/* a LID held by two ports */
	TOPO_PROB_LID,			/* an active port without a LID, or a base LID off its LMC */
	TOPO_PROB_SM,			/* no master SM, several, or SMs and ports disagree */
	TOPO_PROB_KIND_MAX,
};

struct topo_problem {
	enum topo_problem_kind kind;
	bool has_a, has_b, has_expected;
	struct topo_end a;		/* the port concerned */
	struct topo_end b;		/* its actual peer */
	struct topo_end expected;	/* miswired/missing: where it should go */
	char detail[320];		/* human text: "width 1x, enabled 4x", "symbol_errors 57 > 10" */
};

/*
 * "missing", "unexpected", "miswired", "degraded", "down", "errors", "mtu-mismatch", "rail",
 * "unreachable", "credit-loop", "route-balance", "duplicate-guid", "duplicate-lid", "lid", "sm".
 */
const char *topo_problem_kind_name(enum topo_problem_kind kind);

/* SMState of SMInfo (IBA 14.2.5.13): 0 not active, 1 discovering, 2 standby, 3 master. */
enum topo_sm_state {
	TOPO_SM_NOT_ACTIVE = 0,
	TOPO_SM_DISCOVERING,
	TOPO_SM_STANDBY,
	TOPO_SM_MASTER,
};

/* One subnet manager: the SMInfo a port with IsSM answered (or did not). */
struct topo_sm {
	struct topo_port *port;		/* borrowed: the port asked */
	bool answered;			/* false: the rest is unknown */
	uint64_t guid;			/* SMInfo GUID (the SM's port GUID) */
	unsigned int priority;		/* 0..15 */
	enum topo_sm_state state;
	uint32_t act_count;		/* ActCount: moves while a master works */
};

/*
 * IB: what answers behind a switch port whose link is up but that the
 * walk left without a cable (a directed-route NodeInfo read after it,
 * sys/subnet.c).  libibnetdisc does not add a node or port whose GUID it
 * has met already, so two nodes sharing a node GUID show here: the second
 * one, seen from the port it is cabled to (model/ib_ident.c compares).
 */
struct topo_unwalked {
	const struct topo_port *at;	/* the switch port (borrowed) */
	bool answered;			/* NodeInfo came back; else the fields below are 0 */
	enum topo_node_type type;
	uint64_t node_guid, port_guid;
	unsigned int port;		/* the far end's LocalPortNum */
	char desc[65];			/* its NodeDescription ("" when not read) */
};

struct ib_checks;
struct topo_optics;

struct topo {
	struct topo_node **nodes;	/* owned */
	size_t n_nodes;
	struct topo_link **links;	/* owned */
	size_t n_links;
	struct topo_problem *problems;	/* owned */
	size_t n_problems;
	unsigned int src;		/* union of the sources that filled it */
	/*
	 * Owned, topo.c's: every node hashed by name and (GUID != 0) by GUID,
	 * so lookups cost the same at 100k nodes as at 10 and loading a graph
	 * is linear.  Kept by topo_node_add(), topo_node_set_name() and
	 * topo_node_set_guid(): change a node's name or GUID only through them.
	 */
	struct topo_node **ix_name, **ix_guid;
	size_t ix_cap;			/* slots in each: a power of two, 0 before the first node */
	/*
	 * IB, a live walk asked for them (subnet_opts.sminfo): the SMInfo of
	 * every port with IsSM, in walk order (ib_sm_check() sorts them, the
	 * master first).  Owned.  sms_read: they were asked for (n_sms 0 then
	 * means no port runs an SM).
	 */
	struct topo_sm *sms;
	size_t n_sms;
	bool sms_read;
	/* IB, a live walk: the linked-up switch ports it left without a cable.  Owned. */
	struct topo_unwalked *unwalked;
	size_t n_unwalked;
	/* Owned (model/ib_checks.h): the figures of discover --checks; NULL when none ran. */
	struct ib_checks *ib_checks;
	void (*ib_checks_free)(struct ib_checks *);	/* set with it (topo.c calls no check) */
	/* Owned (model/topo_optics.h): the hosts' cable ends, discover --lldp --hosts; NULL none. */
	struct topo_optics *optics;
	void (*optics_free)(struct topo_optics *);	/* set with it */
};

struct topo *topo_new(void);
void topo_free(struct topo *t);

/*
 * Add a node; returns a borrowed pointer or NULL on ENOMEM.  @name is
 * copied (truncated to fit); @guid 0 means none.  No duplicate check:
 * look up first.
 */
struct topo_node *topo_node_add(struct topo *t, enum topo_node_type type,
				const char *name, uint64_t guid);

/*
 * A node's new name (copied, truncated to fit) or GUID, its lookups kept
 * in step; 0, or -ENOMEM (the node then keeps its old name or GUID).
 */
int topo_node_set_name(struct topo *t, struct topo_node *n, const char *name);
int topo_node_set_guid(struct topo *t, struct topo_node *n, uint64_t guid);

/*
 * Add IP address @addr (IPv4 or IPv6 text, any form inet_pton(3) reads) to
 * @n, kept in inet_ntop(3)'s form; an address @n has already is not added
 * twice.  0, -EINVAL when @addr is not an address, -ENOMEM.
 */
int topo_node_addr_add(struct topo_node *n, const char *addr);

/*
 * Borrowed lookups, NULL when absent; O(1) (hashed).  Names compare
 * exactly; of nodes sharing a name or GUID, the first added is found.
 */
struct topo_node *topo_node_by_guid(const struct topo *t, uint64_t guid);
struct topo_node *topo_node_by_name(const struct topo *t, const char *name);
/* By GUID when @guid != 0, else by name. */
struct topo_node *topo_node_find(const struct topo *t, const char *name, uint64_t guid);

/* Port @num (when @name is NULL or "") or the port called @name; NULL when absent. */
struct topo_port *topo_port_find(const struct topo_node *n, unsigned int num, const char *name);
/*
 * The node / port of @t that @n / @p (of another graph: a plan and a
 * discovered fabric) stands for: the node with the same GUID when @n has
 * one that @t knows, else the one with the same name unless both have
 * GUIDs (then another node); the port by number (IB) or name.  Borrowed,
 * NULL when none.  topo_diff() and the tier check match plans this way.
 */
struct topo_node *topo_node_match(const struct topo *t, const struct topo_node *n);
struct topo_port *topo_port_match(const struct topo *t, const struct topo_port *p);
/* Same, adding it when absent (NULL only on ENOMEM). */
struct topo_port *topo_port_get(struct topo_node *n, unsigned int num, const char *name);
/* Add port @num / @name without looking for it first: the caller knows it is new.  NULL on ENOMEM. */
struct topo_port *topo_port_add(struct topo_node *n, unsigned int num, const char *name);
/*
 * Room for the next @count ports added to @n in one allocation instead of
 * one each (the subnet walk knows every node's port count).  0, -ENOMEM,
 * or -EEXIST when @n has reserved before.
 */
int topo_node_reserve_ports(struct topo_node *n, size_t count);

/*
 * Connect @a and @b (ports of this graph) with a cable reported by @src.
 * 0 on success or when the same link exists already (@src is ORed in);
 * -EEXIST when either port is linked to a different port; -EINVAL for a
 * self-link; -ENOMEM.
 */
int topo_link_add(struct topo *t, struct topo_port *a, struct topo_port *b, unsigned int src);

/* Append a problem (copied); -ENOMEM. */
int topo_problem_add(struct topo *t, const struct topo_problem *p);
/* Fill @e from @port (NULL port -> all empty). */
void topo_end_from_port(struct topo_end *e, const struct topo_port *port);

/* "leaf1 swp49" (a named port) or "leaf-001 port 5" (IB), into @buf (truncated). */
void topo_port_text(const struct topo_port *p, char *buf, size_t len);

/*
 * Sort nodes (switches first, then by name, then GUID), each node's ports
 * by number then name, links by their first end, problems by kind then
 * first end; orient every link so a sorts before b.  Renderers assume it.
 */
void topo_sort(struct topo *t);

/*
 * Health thresholds: a counter strictly greater than max[c] is a problem.
 * The limit column of the counter rules (model/counter_rules.h,
 * docs/counters.md) laid out by PMA counter, for the check below.
 */
struct topo_thresholds {
	uint64_t max[TOPO_CNT_MAX];	/* UINT64_MAX (COUNTER_OFF) = not checked */
};

struct counter_policy;
/* The limits of @pol's entries, each by the alias that is its topo_counter_name(). */
void topo_thresholds_from(struct topo_thresholds *th, const struct counter_policy *pol);
/* The same from the built-in table (@pol NULL). */
void topo_thresholds_default(struct topo_thresholds *th);
/* "symbol_errors=10,link_downed=0": set some; -EINVAL naming the bad item in @bad. */
int topo_thresholds_parse(struct topo_thresholds *th, const char *spec, char *bad, size_t bad_len);

/*
 * Per link: down/polling ends (DOWN), active width below width_max_x or
 * lane rate below lane_max_mbps, or below the width/speed a strict
 * majority of the links of its tier run at (DEGRADED; the tier rule, see
 * docs/discover.md), counters over thresholds (ERRORS); sets
 * link->status to the worst and appends one problem per finding.  A link
 * below its tier is reported whether or not its ends are known to
 * support the tier's value; the detail names the ends that are not
 * ("h0005 port 1 not known to support 4x").  IB links are held to their
 * tier by width and lane rate, Ethernet links by eth_mbps against the
 * tier's links on the same leaf.  Unlinked
 * ports are not checked (only a plan knows a cable belongs there;
 * topo_diff() reports those).  -ENOMEM.
 */
int topo_health_check(struct topo *t, const struct topo_thresholds *th);
/*
 * The same with a cabling plan (may be NULL): a cable for which @plan
 * states a width (speed) is not held to its tier's width (speed): the
 * plan's value wins, and topo_diff() compares the cable with it.  A plan
 * that states no widths or speeds (an ibnetdiscover file without them)
 * changes nothing.  -ENOMEM.
 */
int topo_health_check_plan(struct topo *t, const struct topo_thresholds *th,
			   const struct topo *plan);

/*
 * The majority rule of the tier check, on its own: distinct values (a
 * width in lanes, a lane rate in Mb/s) and how often each was seen.  A
 * value is "what most run at" only when a strict majority of the counted
 * values are it.  Also used by accept's reach stage on the hosts' RDMA
 * ports (model/accept.h).  Zero-initialise; no ownership.
 */
#define TOPO_TALLY_MAX 16
struct topo_tally_value {
	unsigned int val, n;
};
struct topo_tally {
	struct topo_tally_value v[TOPO_TALLY_MAX];	/* distinct values, first seen first */
	unsigned int n_vals;
	unsigned int n;					/* values counted */
};
/* Count @v (0, unknown, is not counted; past TOPO_TALLY_MAX distinct values only n grows). */
void topo_tally_add(struct topo_tally *t, unsigned int v);
/* The value a strict majority of the counted ones are, or NULL. */
const struct topo_tally_value *topo_tally_majority(const struct topo_tally *t);

/* Helpers shared by sources and renderers. */
const char *topo_node_type_name(enum topo_node_type type);	/* switch, ca, host, router */
/* The node type named @name (one of topo_node_type_name()'s), or -1. */
int topo_node_type_parse(const char *name);
const char *topo_port_state_name(enum topo_port_state s);	/* down, init, armed, active, unknown */
/* not-active, discovering, standby, master; "unknown" out of range. */
const char *topo_sm_state_name(enum topo_sm_state s);
const char *topo_phys_state_name(enum topo_phys_state s);	/* polling, linkup, ... */
/* ok, mtu-mismatch, degraded, down, errors, unexpected, rail, miswired */
const char *topo_link_status_name(enum topo_link_status s);
/* IB speed name ("SDR" ... "NDR", "FDR10") <-> per-lane Mb/s; NULL / 0 when unknown. */
const char *topo_speed_name(unsigned int lane_mbps);
unsigned int topo_speed_parse(const char *name);

#endif
