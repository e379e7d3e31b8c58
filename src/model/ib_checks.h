/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * InfiniBand subnet sanity, in the manner of ibdiagnet and ibdmchk, on a
 * struct topo that a live subnet walk filled (forwarding tables, LIDs,
 * LMC, MasterSMLID, IsSM, SMInfo answers).  Pure: no I/O.
 *
 * Families (discover --checks):
 *   routes        every CA port reaches every other CA port's LIDs through
 *                 the switches' linear forwarding tables; each pair that
 *                 does not is named with the switch and LFT entry where its
 *                 route breaks (no table, no entry, a port without a cable
 *                 or not active, a loop, a CA that does not hold the LID)
 *   credit-loops  the channel dependency graph of those routes and its
 *                 cycles, each reported with the links that form it; on one
 *                 VL first (ib_routes_check()), and, when that graph has a
 *                 cycle and the subnet's SL2VL tables and path SLs were read,
 *                 again per VL (ib_credit_vl_check(), model/ib_vl.h): a
 *                 graph without a cycle on one VL has none on any
 *   balance       routes per link per direction over every CA pair, per
 *                 tier (ca>sw1, sw1>sw2, sw2>sw1, ...: switch levels are hops
 *                 from the nearest CA); a tier whose links carry more than
 *                 IB_BALANCE_FACTOR times its median, or less than the
 *                 median over it, is a problem
 *   ids           duplicate GUIDs (a GUID on two nodes or two CA ports),
 *                 duplicate LIDs (LMC ranges counted), zero LIDs on active
 *                 ports, base LIDs not aligned to their LMC
 *   sm            the subnet managers from SMInfo (every port with IsSM):
 *                 exactly one master, the others standby or not active, no
 *                 standby that outranks the master, every port's
 *                 MasterSMLID naming the master
 * Findings become topo problems (TOPO_PROB_UNREACHABLE ...); the figures
 * behind them stay in struct ib_checks for the renderers.
 *
 * Ownership: ib_checks_run() hands t->ib_checks to @t (topo_free() frees
 * it); every topo pointer in it is borrowed from @t, and valid as long as
 * @t (elements never move; topo_sort() only reorders arrays of pointers).
 */
#ifndef FAB_MODEL_IB_CHECKS_H
#define FAB_MODEL_IB_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/topo.h"

enum ib_check_family {
	IB_CHECK_ROUTES = 1u << 0,
	IB_CHECK_CREDIT = 1u << 1,
	IB_CHECK_BALANCE = 1u << 2,
	IB_CHECK_IDS = 1u << 3,
	IB_CHECK_SM = 1u << 4,
	IB_CHECK_ALL = (1u << 5) - 1,
	/* Families that need the switches' forwarding tables. */
	IB_CHECK_NEED_LFT = IB_CHECK_ROUTES | IB_CHECK_CREDIT | IB_CHECK_BALANCE,
};

/* "routes", "credit-loops", "balance", "ids", "sm"; NULL for anything else. */
const char *ib_check_name(unsigned int family);
/*
 * "all", "none", or a comma list of family names, each optionally
 * preceded by '-' to remove it ("all,-balance"), applied left to right
 * to *@families.  -EINVAL naming the bad item in @bad.
 */
int ib_checks_parse(const char *spec, unsigned int *families, char *bad, size_t bad_len);

/* Why a route stops. */
enum ib_break {
	IB_BREAK_NO_LFT = 0,	/* the switch's forwarding table was not read */
	IB_BREAK_NO_ENTRY,	/* no entry for the LID (past LinearFDBTop, or none) */
	IB_BREAK_NO_LINK,	/* the entry's port has no cable */
	IB_BREAK_DOWN,		/* the entry's port, or the port it leads to, is not active */
	IB_BREAK_WRONG_END,	/* the entry leads to a CA port that does not hold the LID */
	IB_BREAK_SELF,		/* the entry is port 0 (the switch), which does not hold the LID */
	IB_BREAK_LOOP,		/* the entry leads back into a switch the route entered before */
	IB_BREAK_MAX,
};

/* "no-table", "no-entry", "no-link", "down", "wrong-end", "self", "loop". */
const char *ib_break_name(enum ib_break why);

/* One ordered CA pair whose route does not reach. */
struct ib_unreachable {
	const struct topo_port *src, *dst;	/* CA ports */
	unsigned int dlid;			/* the LID routed to (dst's base LID + offset) */
	const struct topo_node *sw;		/* the switch where it breaks */
	unsigned int port;			/* sw's LFT entry for dlid; TOPO_LFT_NONE: none */
	const struct topo_port *to;		/* the port that entry's cable enters; NULL: none */
	enum ib_break why;
};

#define IB_UNREACH_LIST_MAX 10000	/* unreachable pairs listed one by one */
#define IB_LOOPS_LIST_MAX 16		/* credit loops listed */
#define IB_BALANCE_FACTOR 2		/* balance: a link past median * F or median / F */
#define IB_OUTLIERS_LIST_MAX 64		/* balance: outlying links listed per tier */

struct ib_routes_report {
	bool ran;
	const char *skipped;		/* why it could not run (static text); NULL when it ran */
	size_t n_cas;			/* CA ports taking part: linked, active, with a LID */
	size_t n_lids;			/* destination LIDs (2^LMC per CA port) */
	size_t n_pairs, n_unreachable;	/* ordered (CA port, destination LID) pairs */
	struct ib_unreachable *unreach;	/* owned: the first IB_UNREACH_LIST_MAX, in routing order */
	size_t n_listed;
};

/* One direction of a link: leaves by @from, enters @from->peer. */
struct ib_channel_load {
	const struct topo_port *from;
	uint32_t routes;
};

struct ib_tier {
	unsigned int from_level, to_level;	/* 0 CAs, 1 switches next to a CA, 2 ... */
	char name[16];				/* "ca>sw1", "sw1>sw2", "sw2>sw1", "sw1>ca" */
	size_t n_links;				/* channels of the tier (links, one direction) */
	uint32_t min, median, max;		/* routes per channel; median: the lower middle */
	struct ib_channel_load *outliers;	/* owned: past the factor, busiest first */
	size_t n_outliers, n_listed;
};

struct ib_balance_report {
	bool ran;
	const char *skipped;
	struct ib_tier *tiers;		/* owned, by from_level then to_level */
	size_t n_tiers;
};

struct ib_loop {
	const struct topo_port **ch;	/* owned array: the channels in order, as leaving ports */
	uint8_t *vl;			/* owned: each channel's VL; NULL when analysed on one VL */
	size_t n;
	size_t component;		/* channels in the strongly connected component holding it */
};

/* One virtual lane of a per-VL analysis. */
struct ib_vl_figures {
	unsigned int vl;
	size_t n_channels;		/* switch-to-switch channels some route takes on this VL */
	size_t n_deps;			/* dependencies between two of them */
	size_t n_loops;			/* cycles all on this VL (components) */
};

struct ib_credit_report {
	bool ran;
	const char *skipped;
	unsigned int vls;		/* virtual lanes analysed: 1 (not per VL), else those used */
	size_t n_channels, n_deps;	/* switch-to-switch channels, dependencies between them */
	size_t n_loops;			/* components with a cycle */
	struct ib_loop *loops;		/* owned: the first IB_LOOPS_LIST_MAX */
	size_t n_listed;
	/* per VL (ib_credit_vl_check()); by_vl false: the fields below are zero */
	bool by_vl;
	size_t n_tables;		/* SL2VL tables (input port, output port) read */
	char path_sls[128];		/* "sa" (PathRecord of every pair), or why SL 0 was assumed */
	size_t n_cross_deps;		/* dependencies from one VL to another */
	size_t n_unmapped;		/* route hops with no table read: put on VL 0 */
	size_t n_dropped;		/* routes a table sends to VL 15 (dropped) */
	size_t n_cross_loops;		/* cycles over more than one VL */
	struct ib_vl_figures *per_vl;	/* owned: the VLs used, in order */
	size_t n_per_vl;
};

struct ib_ids_report {
	bool ran;
	size_t n_lids;			/* LIDs in use (LMC ranges counted) */
	unsigned int lmc_min, lmc_max;	/* over CA ports with a LID */
	size_t n_dup_guids, n_dup_lids, n_zero_lids, n_unaligned;
};

struct ib_sm_report {
	bool ran;
	const char *skipped;
	size_t n_masters, n_standby, n_silent;	/* silent: IsSM, no SMInfo answer */
	const struct topo_sm *master;	/* borrowed from t->sms; NULL when not exactly one */
	size_t n_ports_other_sm;	/* active ports whose MasterSMLID is not the master's LID */
	bool agree;			/* one master, no standby outranks it, every port names it */
};

struct ib_checks {
	unsigned int families;		/* asked for */
	struct ib_routes_report routes;
	struct ib_credit_report credit;
	struct ib_balance_report balance;
	struct ib_ids_report ids;
	struct ib_sm_report sm;
};

/*
 * Run @families on @t (topo_sort() first), append the findings to
 * t->problems and hand the figures to t->ib_checks (replacing any).
 * -ENOMEM (t->ib_checks then NULL, problems maybe partly added).
 */
int ib_checks_run(struct topo *t, unsigned int families);
void ib_checks_free(struct ib_checks *c);

/*
 * The families one by one (ib_checks_run() calls them in this order).
 * ib_routes_check() fills routes, and when asked credit and balance
 * (they come from the same walk of the tables); loads[] gets, when not
 * NULL, the routes per channel (2 per link: [2i] leaves links[i]->a,
 * [2i + 1] leaves links[i]->b).
 */
int ib_routes_check(struct topo *t, struct ib_checks *c, uint32_t *loads);
int ib_balance_check(struct topo *t, struct ib_checks *c, const uint32_t *loads);
int ib_ids_check(struct topo *t, struct ib_checks *c);
int ib_sm_check(struct topo *t, struct ib_checks *c);

struct ib_vl_data;
/*
 * The credit loops again, per virtual lane (ib_vl.h): every CA pair's
 * route through the LFTs, each hop on the VL the switch's SL2VL table
 * gives the path's SL for its input and output port; a channel is then
 * one direction of a switch-to-switch link on one VL, and a dependency
 * joins the lanes a route holds on consecutive hops.  Replaces
 * c->credit and t's credit-loop problems.  Worth it only when the one-VL
 * graph has a cycle (c->credit.n_loops).  O(pairs x hops).  -ENOMEM.
 */
int ib_credit_vl_check(struct topo *t, struct ib_checks *c, const struct ib_vl_data *vd);
/* Free the credit report's arrays and zero it (ib_checks_free() does it too). */
void ib_credit_report_fini(struct ib_credit_report *cr);

#endif
