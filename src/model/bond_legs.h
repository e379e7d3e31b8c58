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
 * (measured behind tbf, tests/vm/one-vm/70-bond-legs.sh); compared with
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
	size_t n_unseen;	/* of those, trials no member's counter saw (bond_legs_trial_unseen()) */
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
 * True when the members' tx_bytes together grew by less than
 * BOND_LEGS_QUIET_PCT % of trial @t's bytes: the flow left the host
 * past the bond's netdev counters.  A hardware RoCE LAG (mlx5) does
 * that: its RDMA device sends on the port of each QP's tx affinity,
 * and the netdev's counters see none of it (docs/verbs.md "Bonds").
 */
bool bond_legs_trial_unseen(const struct bond_leg_trial *t, size_t n_members);

/*
 * The rule: @out gets one leg per member of @b (at most
 * FAB_BOND_MAX_MEMBERS), each with the source port of the first of the
 * @n @trials it clearly carried.  0, or -EINVAL when @b has no members or
 * too many, or a trial sent nothing.  A member without a trial is not an
 * error: out->why says why (the policy, every trial unseen by the
 * counters, or "no trial landed").
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

/*
 * A host's data-path interface as the worker op "bond" reads it
 * (docs/worker-protocol.md): whether it is a bond, its mode and policy,
 * and each member's link and tx_bytes at the reading.  Two readings
 * around a trial flow give its bond_leg_trial.tx_delta.
 */
struct bond_snap_member {
	char name[16];
	bool link_up;
	uint64_t tx_bytes;
};

struct bond_snap {
	char ifname[16];
	bool is_bond;
	int mode, policy;	/* FAB_BOND_*; -1 unknown */
	struct bond_snap_member m[FAB_BOND_MAX_MEMBERS];
	size_t n_members;
};

/*
 * Each member's tx_bytes growth from @before to @after into @delta
 * (n_members of them; a counter that went back counts 0).  -EINVAL when
 * the two readings are not of the same bond's members in the same order.
 */
int bond_snap_delta(const struct bond_snap *before, const struct bond_snap *after,
		    uint64_t *delta);

/* bond_legs_find() over a reading's members, mode and policy. */
int bond_legs_find_snap(const struct bond_snap *s, const struct bond_leg_trial *trials, size_t n,
			struct bond_legs *out);

/*
 * One sending host's legs towards a peer, as a sweep measured them
 * (sweep/sweep_legs.c): for each member its port, its flow's figures and
 * its verdict; the finding when it is not ok.
 */
struct bond_leg_result {
	char member[16];
	bool link_up;
	unsigned int sport;	/* 0: no trial landed on it */
	bool failed;		/* its flow did not run */
	double mbps;		/* the receiver's average; 0 when none */
	uint64_t bytes;		/* the receiver's count */
	uint64_t tx_delta;	/* the member's tx_bytes growth over its flow */
	enum bond_leg_verdict verdict;
	char sw_node[64], sw_port[64];	/* its LLDP neighbour; "" unknown */
	char finding[256];	/* "" when ok */
	bool fault;		/* the finding is a fault (bond_legs_judge_dir()) */
};

struct bond_legs_dir {
	bool run;		/* the sender is a bond: trials ran, or why says why not */
	char node[64];		/* the sending host */
	char bond[16];
	int mode, policy;
	unsigned int dport;	/* the receiver's port every trial and leg flow went to */
	size_t n_trials, n_unclear;
	const char *why;	/* static: why some member has no port; NULL */
	bool unread;		/* its counters could not be read: no leg judged a fault */
	double ref_mbps;	/* the fastest leg: what the others are judged against */
	/* the pair's rated rate (expected_from "rated": rate_gbps=, a plan's
	   speeds; one flow's, so one member's): every leg is judged against it too; 0 none */
	double rated_mbps;
	struct bond_leg_result legs[FAB_BOND_MAX_MEMBERS];
	size_t n_legs;
	size_t n_bad;		/* legs whose finding is a fault (bond_legs_judge_dir()) */
};

/*
 * Member @ifname's neighbour by the topology @t: the host is the end of
 * link @host_link (an index into t->links, its access link) that is not a
 * switch, its port called @ifname, that port's peer: its node and port
 * names into @sw and @port.  false (both "") when any of it is unknown.
 */
struct topo;
bool bond_leg_neighbour(const struct topo *t, uint32_t host_link, const char *ifname, char *sw,
			size_t sw_len, char *port, size_t port_len);

/* A pair of the sweep's store (@index) and its two directions' legs: ab sent by a, ba by b. */
struct bond_legs_pair {
	size_t index;
	unsigned int a, b;
	struct bond_legs_dir ab, ba;
};

/*
 * A host whose worker did not answer the "bond" request (an older worker:
 * "unknown op", a timeout), an end of a measured pair whose legs a sweep
 * would have measured: its legs are not measured, and why
 * (sweep/sweep_legs.c).
 */
struct bond_legs_unanswered {
	unsigned int host;	/* index into the sweep's hosts */
	char why[160];		/* the worker's error, "no answer within N ms" */
};

/* What the outputs say of such a host: this, then its why (JSON legs.not_measured[].note). */
#define BOND_LEGS_UNANSWERED_NOTE "legs not measured: worker did not answer the bond request: "

/*
 * Judge @d's measured legs: each against the fastest leg of the bond
 * (@slow_pct % of it), and against d->rated_mbps when that is set (the
 * higher of the two is the leg's reference: a bond whose legs are all
 * equally slow is slow against its rating, and the finding says "of N
 * Mbit/s rated"; without a rating, only the pair's judgement against the
 * fleet sees it), a flow that failed or moved no bytes dead, a member without a port
 * untested, with its finding (bond_leg_finding()'s words; the LLDP
 * neighbour when known, "no LLDP neighbour" when @lldp and none, nothing
 * when LLDP was not read).  When the policy hashes ports (and d->unread is
 * not set), an untested member is a fault (16 trials missing a member is a
 * member the bond does not use: out of the aggregator), and dead when its
 * link is down; otherwise untested is no fault (the policy says why).
 * d->ref_mbps, d->n_bad.
 */
void bond_legs_judge_dir(struct bond_legs_dir *d, double slow_pct, bool lldp);

/*
 * A retest's pass @pass of the same legs as @d (same members, same
 * ports) folded into @d: each leg with a port keeps the better of its two
 * flows (one that ran over one that failed, then the higher rate), with
 * that flow's bytes and tx_delta.  Judge @d again afterwards.
 */
void bond_legs_keep_best(struct bond_legs_dir *d, const struct bond_legs_dir *pass);

#endif
