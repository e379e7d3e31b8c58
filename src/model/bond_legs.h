/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dual-homed legs (issue 25 item 3): which source port puts a flow on
 * which member of a bond, learned, never assumed.  The caller sends short
 * trial flows from distinct source ports, one at a time, and records for
 * each the bytes the peer received and every member's tx_bytes growth over it;
 * bond_legs_find() keeps, for each member, the first trial that member
 * clearly carried (its counter grew by about the flow's bytes and no
 * other member's did), and says why a member got none.  A trial's
 * bytes are what the peer received (acknowledged), not what the sender
 * wrote: a sender's last write returns with the flow's tail still queued,
 * and on a slow leg that tail is a third or more of a 1 MiB trial
 * (measured behind tbf, tests/vm/own-vm/70-bond-legs.sh); compared with
 * the bytes written, exactly the slow leg would never be found.
 * Pure C, no I/O.
 *
 * Which policies can spread one address pair over the legs at all
 * (bond_legs_port_hashed()): the kernel's xmit_hash_policy layer3+4 and
 * encap3+4 hash the L4 ports, in modes balance-xor, 802.3ad and
 * balance-tlb; layer2, layer2+3, encap2+3 and vlan+srcmac hash no port,
 * so between two hosts every flow takes one leg; active-backup sends
 * everything on the active member; balance-rr and broadcast spread each
 * flow's packets (no leg per flow).  The trials still run for those (the
 * counters, not the policy, say where flows went); the policy only words
 * why a member got none.
 *
 * Ownership: everything is caller-owned plain data; "why" strings are
 * static.
 */
#ifndef FAB_MODEL_BOND_LEGS_H
#define FAB_MODEL_BOND_LEGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/bond.h"

/* A member carried a trial when its tx_bytes grew by at least this % of the bytes sent ... */
#define BOND_LEGS_CARRIED_PCT	90
/* ... and every other member's grew by less than this % of them (LLDP, ARP, LACPDUs). */
#define BOND_LEGS_QUIET_PCT	10

struct bond_leg_trial {
	unsigned int sport;				/* the trial flow's source port */
	uint64_t sent_bytes;				/* payload bytes the peer received (> 0) */
	uint64_t tx_delta[FAB_BOND_MAX_MEMBERS];	/* member i's tx_bytes growth */
};

struct bond_leg {
	char member[16];
	unsigned int sport;	/* 0: no trial landed on this member */
	int trial;		/* index of the trial that found it, -1 */
};

struct bond_legs {
	struct bond_leg legs[FAB_BOND_MAX_MEMBERS];	/* the bond's members, in its order */
	size_t n_legs;
	size_t n_found;		/* members with a port */
	size_t n_unclear;	/* trials no single member clearly carried */
	/* static, NULL when every member got a flow: why some did not */
	const char *why;
};

/* True when @mode / @policy (FAB_BOND_*) hash the source port, so a port can pick a leg. */
bool bond_legs_port_hashed(int mode, int policy);

/*
 * The member (index into tx_delta, < @n_members) that clearly carried
 * trial @t, or -1: none grew by BOND_LEGS_CARRIED_PCT % of sent_bytes,
 * or another grew by BOND_LEGS_QUIET_PCT % or more (the flow was split, or
 * other traffic hid it).
 */
int bond_legs_trial_member(const struct bond_leg_trial *t, size_t n_members);

/*
 * The rule: @out gets one leg per member of @b (at most
 * FAB_BOND_MAX_MEMBERS), each with the source port of the first of the
 * @n @trials it clearly carried.  0, or -EINVAL when @b has no members or
 * too many, or a trial sent nothing.  A member without a trial is not an
 * error: out->why says why (the policy, or "no trial landed").
 */
int bond_legs_find(const struct fab_bond *b, const struct bond_leg_trial *trials, size_t n,
		   struct bond_legs *out);

enum bond_leg_verdict {
	BOND_LEG_OK,
	BOND_LEG_SLOW,		/* under slow_pct % of the expected rate */
	BOND_LEG_DEAD,		/* no bytes, or the flow failed */
	BOND_LEG_UNTESTED,	/* no port put a flow on it */
};

/*
 * One leg's measured rate against @expected_mbps (the member's link
 * speed, or the pair's expected rate; <= 0: unknown, only DEAD is
 * judged).  @failed: its flow did not run.
 */
enum bond_leg_verdict bond_leg_judge(bool tested, bool failed, double mbps, double expected_mbps,
				     double slow_pct);
const char *bond_leg_verdict_name(enum bond_leg_verdict v);

/*
 * The finding for a leg not ok, as an operator reads it, into @buf:
 * "slow leg: NODE MEMBER (switch SWITCH port PORT): 3 of 20 Mbit/s",
 * "dead leg: NODE MEMBER (...): no bytes", "untested leg: NODE MEMBER
 * (...): WHY".  @sw_node / @sw_port: the member's LLDP neighbour (NULL or
 * "": "no LLDP neighbour"); @why: bond_legs.why for an untested leg.
 * Returns snprintf's count (truncated when >= @len).
 */
int bond_leg_finding(char *buf, size_t len, enum bond_leg_verdict v, const char *node,
		     const char *member, const char *sw_node, const char *sw_port, double mbps,
		     double expected_mbps, const char *why);

#endif
