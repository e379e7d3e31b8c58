/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The ethtool generic netlink family (Linux 5.6+) through libmnl, for
 * src/sys/module_eeprom.c and link_phy.c: the family is resolved by name
 * once per socket, requests carry the device by name and the
 * ETHTOOL_FLAG_* the caller asks for.
 *
 *	struct ethnl e;
 *	if (ethnl_open(&e, err) < 0) return err->code;	(-EOPNOTSUPP: no family)
 *	nlh = ethnl_msg(&e, buf, ETHTOOL_MSG_FEC_GET, ETHTOOL_A_FEC_HEADER,
 *			"eth0", ETHTOOL_FLAG_STATS);
 *	rc = nl_talk(&e.s, nlh, reply_cb, data, extack, sizeof(extack));
 *	ethnl_close(&e);
 *
 * Ownership: struct ethnl is embedded by the caller (_open/_close).
 */
#ifndef FAB_SYS_ETHTOOL_NL_H
#define FAB_SYS_ETHTOOL_NL_H

#include <stdint.h>

#include "sys/nl_util.h"

struct ethnl {
	struct nl_sock s;
	uint16_t family;
};

/* Open a generic netlink socket and resolve "ethtool": -EOPNOTSUPP when the kernel lacks it. */
int ethnl_open(struct ethnl *e, struct fab_err *err);
void ethnl_close(struct ethnl *e);

/* Start request @cmd in @buf (NL_BUF_SIZE) for @ifname, its header nest @hdr_attr. */
struct nlmsghdr *ethnl_msg(struct ethnl *e, void *buf, uint8_t cmd, uint16_t hdr_attr,
			   const char *ifname, uint32_t flags);

/* The attributes of an ethtool reply (after the genl header) into @tb[0..@max]; 0 or -EBADMSG. */
int ethnl_attrs(const struct nlmsghdr *nlh, const struct nlattr **tb, unsigned int max);
/* The same for the attributes nested in @nest. */
int ethnl_nested(const struct nlattr *nest, const struct nlattr **tb, unsigned int max);

#endif
