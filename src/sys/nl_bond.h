/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure half of nl_bond.c: one rtnetlink RTM_NEWLINK
 * message (a reply to RTM_GETLINK or a dump entry) reduced to what bonding
 * cares about, without a socket, for unit tests (a real kernel reply in
 * tests/golden/bond-*.hex) and the fuzzer.
 */
#ifndef FAB_SYS_NL_BOND_H
#define FAB_SYS_NL_BOND_H

#include <stddef.h>

#include <linux/netlink.h>

struct nl_bond_link {
	char name[16];			/* IFNAMSIZ; no <net/if.h> here, it clashes with <linux/if.h> */
	int ifindex;
	unsigned int flags;		/* IFF_* */
	int master;			/* IFLA_MASTER, 0 none */
	char kind[16];			/* IFLA_INFO_KIND ("bond", "veth", "" for hardware) */
	char slave_kind[16];		/* IFLA_INFO_SLAVE_KIND ("bond" for a member) */
	/* bond (IFLA_INFO_DATA IFLA_BOND_*), -1 when absent */
	int mode, miimon_ms, lacp_rate, xmit_hash_policy, min_links, active_slave;
	/* member (IFLA_INFO_SLAVE_DATA IFLA_BOND_SLAVE_*), -1 when absent */
	int slave_state, mii_status, ad_aggregator_id;
};

/* Parse @nlh (at most @len bytes) into @l.  0, or -EBADMSG when it is not a
 * well-formed RTM_NEWLINK; attributes that fail validation are left out. */
int nl_bond_link_parse(const struct nlmsghdr *nlh, size_t len, struct nl_bond_link *l);

#endif
