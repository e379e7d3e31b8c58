/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lossless chain of one RoCE port (docs/dcb.md "The lossless chain"):
 * the RoCE traffic's ToS gives its DSCP, the DSCP its priority (APP table
 * under DSCP trust, else the priority the application tags under PCP
 * trust), the priority its traffic class (ETS prio_tc) and its receive
 * buffer (prio2buffer, where the driver has one); the CNPs of DCQCN take
 * their own way.  Every link must agree: PFC on for that priority, the
 * class given bandwidth, the buffer lossless and big enough for the
 * cable, ECN on where DCQCN is expected, CNPs on a class of their own
 * that is not lossy, and the data-path address with a RoCE v2 GID.
 *
 * lossless_check() follows the chain and names the first broken link in
 * one finding ("DSCP 26 → prio 3 → TC 3 → buffer 0, but PFC is off on
 * priority 3").  Pure: no I/O; the caller fills struct lossless_in from
 * what it read (verify: the node and the profile's expectations; status:
 * the node alone).
 *
 * Ownership: struct lossless_in borrows everything it points at for the
 * call only; struct lossless_chain holds copies.
 */
#ifndef FAB_MODEL_LOSSLESS_H
#define FAB_MODEL_LOSSLESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/dcb.h"
#include "model/ecn.h"
#include "model/host_state.h"

struct lossless_in {
	const char *ifname;
	int tos;			/* ToS of the RoCE traffic, 0..255; -1 unknown */
	const struct fab_dcb *dcb;	/* NULL: DCB not read (see dcb_why) */
	const char *dcb_why;		/* why not; may be NULL */
	int pcp_prio;			/* PCP trust: the priority RoCE is tagged with; -1 unknown */
	bool lossless;			/* PFC expected on the RoCE priority */
	bool dcqcn;			/* ECN (DCQCN) expected on the RoCE priority */
	bool ecn_known[FAB_ECN_N_POINTS];
	uint8_t ecn[FAB_ECN_N_POINTS];	/* bit p: enabled on priority p */
	int cnp_dscp, cnp_prio;		/* the CNPs' DSCP and 802.1p priority; -1 unknown */
	unsigned int cable_m;		/* cable length for the headroom; 0 unknown */
	int64_t speed_mbps;		/* port speed; <= 0 unknown */
	unsigned int mtu;		/* netdev MTU; 0 unknown */
	const char *rdma_dev;		/* the RDMA port on this netdev; NULL or "": none */
	unsigned int rdma_port;
	const struct fab_gid *gids;	/* its GID table */
	size_t n_gids;
	const char (*addrs)[FAB_ADDRSTRLEN];	/* the netdev's IP addresses */
	size_t n_addrs;
	int gid_pin;			/* the GID index the profile pins; -1 none */
};

enum lossless_verdict {
	LOSSLESS_OK = 0,	/* every link followed and held */
	LOSSLESS_BROKEN,	/* a link is broken: brk, finding */
	LOSSLESS_UNKNOWN,	/* a link could not be read: why; nothing found broken */
};

enum lossless_break {
	LOSSLESS_BREAK_NONE = 0,
	LOSSLESS_BREAK_PFC_OFF,		/* no PFC on the RoCE priority */
	LOSSLESS_BREAK_TC_NO_BW,	/* the RoCE class is ETS with 0 % */
	LOSSLESS_BREAK_BUFFER_LOSSY,	/* its buffer also holds priorities without PFC */
	LOSSLESS_BREAK_BUFFER_SMALL,	/* its buffer is under the headroom the cable needs */
	LOSSLESS_BREAK_ECN_OFF,		/* DCQCN expected, ECN off */
	LOSSLESS_BREAK_CNP_SHARED,	/* CNPs ride the data's own class */
	LOSSLESS_BREAK_CNP_LOSSY,	/* CNPs ride a lossy ETS class (no PFC, not strict) */
	LOSSLESS_BREAK_NO_GID,		/* the address has no RoCE v2 GID */
	LOSSLESS_BREAK_GID_PIN,		/* its GID index is not the pinned one */
};

struct lossless_chain {
	char ifname[FAB_IFNAMSIZ];
	char rdma_dev[64];		/* "" when none */
	unsigned int rdma_port;
	enum lossless_verdict verdict;
	enum lossless_break brk;
	int tos, dscp, prio, tc, buffer;	/* -1: not known / not reached */
	char prio_by[8];		/* "app", "pcp", "default"; "" unknown */
	bool pfc;			/* PFC on prio (valid when prio >= 0 and DCB read) */
	bool lossless, dcqcn;		/* what was expected */
	uint32_t buffer_bytes;		/* size of the buffer; 0 unknown */
	uint32_t buffer_need;		/* lossless minimum for the cable; 0 not computed */
	int cnp_dscp, cnp_prio, cnp_tc;	/* -1 unknown */
	int gid_index;			/* RoCE v2 GID of addr; -1 none */
	char gid[40];
	char addr[FAB_ADDRSTRLEN];	/* the data-path address looked up; "" none */
	char path[160];			/* "DSCP 26 → prio 3 → TC 3 → buffer 0" */
	char finding[384];		/* the first broken link, "" when none */
	char why[256];			/* LOSSLESS_UNKNOWN: what could not be read */
};

/* Follow @in's chain into @out (overwritten). */
void lossless_check(const struct lossless_in *in, struct lossless_chain *out);

/*
 * Headroom (docs/dcb.md, "Headroom"): the XOFF threshold in bytes that a
 * lossless receive buffer needs for @cable_m metres at @speed_mbps
 * (taken as at least 40000) and @mtu bytes, the formula of Linux's mlx5
 * driver (en/port_buffer.c, calculate_xoff()):
 *   xoff = (301 + 2.16 * cable_m) * speed_Gbps + 2.72 * mtu,
 * and the smallest lossless buffer it accepts, xoff + mtu + one 128-byte
 * cell (update_xoff_threshold()).
 */
uint32_t lossless_xoff_bytes(unsigned int cable_m, int64_t speed_mbps, unsigned int mtu);
uint32_t lossless_buffer_min_bytes(unsigned int cable_m, int64_t speed_mbps, unsigned int mtu);

/* "ok", "broken", "unknown"; "pfc_off", "tc_no_bandwidth", ... ("" for NONE). */
const char *lossless_verdict_name(enum lossless_verdict v);
const char *lossless_break_name(enum lossless_break b);

#endif
