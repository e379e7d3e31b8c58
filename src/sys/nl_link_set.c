// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Link setters over rtnetlink (libmnl): RTM_NEWLINK with NLM_F_ACK; the
 * kernel's extended ack (NLMSGERR_ATTR_MSG) is appended to the message.
 * The request/ack exchange and the extack parsing are nl_util.c's,
 * unit-tested and fuzzed there.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <linux/rtnetlink.h>

#include "sys/nl_util.h"
#include "sys/sys_real.h"

int nl_link_mtu_set(struct sys *sys, const char *ifname, unsigned int mtu, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4))), ext[512];
	struct nl_sock s;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	unsigned int ifindex;
	int rc;

	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return fab_err_set(err, -ENODEV, "rtnetlink: %s: no such device", ifname);
	rc = nl_sock_open(&s, NETLINK_ROUTE, err);
	if (rc < 0)
		return rc;
	nlh = nl_msg_new(&s, buf, RTM_NEWLINK, 0);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = (int)ifindex;
	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	rc = nl_talk(&s, nlh, NULL, NULL, ext, sizeof(ext));
	if (rc < 0) {
		if (ext[0])
			fab_err_set(err, rc, "rtnetlink: %s: set mtu %u: %s (%s)", ifname, mtu,
				    strerror(-rc), ext);
		else
			fab_err_set(err, rc, "rtnetlink: %s: set mtu %u: %s", ifname, mtu,
				    strerror(-rc));
	}
	nl_sock_close(&s);
	return rc;
}
