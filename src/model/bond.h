/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A Linux bonding device and its members, as rtnetlink (IFLA_INFO_DATA
 * IFLA_BOND_*, IFLA_INFO_SLAVE_DATA IFLA_BOND_SLAVE_*) describes it.
 * Pure data, no I/O; src/sys/nl_bond.c fills it, the plan
 * diffs against it, the profile loader produces the wanted one.
 *
 * Numeric values are the kernel's (BOND_MODE_*, BOND_XMIT_POLICY_*,
 * lacp_rate 0 slow / 1 fast), so sys/ passes them through unchanged.
 * -1 in any int field means "unknown" when read, "don't care" in a profile.
 *
 * Ownership: struct fab_bond owns its members array; fab_bond_init()
 * zeroes (and sets the -1 defaults), fab_bond_fini() frees (NULL-safe).
 */
#ifndef FAB_MODEL_BOND_H
#define FAB_MODEL_BOND_H

#include <stdbool.h>
#include <stddef.h>

/* BOND_MODE_* of <linux/if_bonding.h> */
#define FAB_BOND_MODE_BALANCE_RR	0
#define FAB_BOND_MODE_ACTIVE_BACKUP	1
#define FAB_BOND_MODE_BALANCE_XOR	2
#define FAB_BOND_MODE_BROADCAST		3
#define FAB_BOND_MODE_8023AD		4
#define FAB_BOND_MODE_BALANCE_TLB	5
#define FAB_BOND_MODE_BALANCE_ALB	6

/* BOND_XMIT_POLICY_* */
#define FAB_BOND_XMIT_LAYER2		0
#define FAB_BOND_XMIT_LAYER34		1
#define FAB_BOND_XMIT_LAYER23		2
#define FAB_BOND_XMIT_ENCAP23		3
#define FAB_BOND_XMIT_ENCAP34		4
#define FAB_BOND_XMIT_VLAN_SRCMAC	5

#define FAB_BOND_LACP_SLOW	0
#define FAB_BOND_LACP_FAST	1

#define FAB_BOND_MAX_MEMBERS	16

struct fab_bond_member {
	char name[16];
	int ifindex;		/* 0 when unknown (profile) */
	bool link_up;		/* IFLA_BOND_SLAVE_MII_STATUS == up */
	bool active;		/* IFLA_BOND_SLAVE_STATE == active */
	int ad_aggregator_id;	/* IFLA_BOND_SLAVE_AD_AGGREGATOR_ID; -1 when unknown / not 802.3ad */
};

struct fab_bond {
	char name[16];
	int ifindex;			/* 0 when it does not exist (yet) */
	int mode;			/* FAB_BOND_MODE_*, -1 unknown / don't care */
	int miimon_ms;			/* MII link monitoring interval, ms; -1 */
	int lacp_rate;			/* FAB_BOND_LACP_*; -1 */
	int xmit_hash_policy;		/* FAB_BOND_XMIT_*; -1 */
	int min_links;			/* 802.3ad minimum active links; -1 */
	char active_member[16];		/* active-backup: current active member, "" none */
	struct fab_bond_member *members;	/* owned */
	size_t n_members;
};

void fab_bond_init(struct fab_bond *b);
void fab_bond_fini(struct fab_bond *b);
/* Append a member named @name (zeroed, aggregator -1); borrowed pointer or NULL on ENOMEM. */
struct fab_bond_member *fab_bond_member_add(struct fab_bond *b, const char *name);
/* Borrowed pointer or NULL. */
struct fab_bond_member *fab_bond_member_find(const struct fab_bond *b, const char *name);

/* Kernel option names ("802.3ad", "layer3+4", "fast"); NULL when unknown. */
const char *fab_bond_mode_name(int mode);
const char *fab_bond_xmit_name(int policy);
const char *fab_bond_lacp_name(int rate);
/* Inverses; -1 when unknown.  Modes also accept the kernel's numbers as text. */
int fab_bond_mode_parse(const char *s);
int fab_bond_xmit_parse(const char *s);
int fab_bond_lacp_parse(const char *s);

#endif
