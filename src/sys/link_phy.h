/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The parsers of src/sys/link_phy.c's ethtool netlink replies, pure (they
 * read a message and fill struct optics_link; unit-tested and fuzzed).
 * Each returns 0, or -EBADMSG for a reply it cannot read.
 */
#ifndef FAB_SYS_LINK_PHY_H
#define FAB_SYS_LINK_PHY_H

#include <linux/netlink.h>

#include "model/optics.h"

/* ETHTOOL_MSG_FEC_GET_REPLY: active mode, auto, statistics and histogram. */
int link_phy_parse_fec(const struct nlmsghdr *nlh, struct optics_link *l);
/* ETHTOOL_MSG_LINKSTATE_GET_REPLY: link and ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT. */
int link_phy_parse_linkstate(const struct nlmsghdr *nlh, struct optics_link *l);
/* ETHTOOL_MSG_LINKMODES_GET_REPLY: speed and lanes. */
int link_phy_parse_linkmodes(const struct nlmsghdr *nlh, struct optics_link *l);

#endif
