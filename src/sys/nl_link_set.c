// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Link setters over rtnetlink (libmnl): RTM_NEWLINK with NLM_F_ACK, the
 * kernel's extended ack (NLMSGERR_ATTR_MSG) appended to the message.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "sys/sys_real.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif

/*
 * Pull the extack message out of an NLMSG_ERROR reply into @msg ("" when
 * none).  Layout: nlmsgerr, then the echoed request (header only when
 * NLM_F_CAPPED), then TLVs when NLM_F_ACK_TLVS.
 */
static void nl_extack_msg(const struct nlmsghdr *nlh, char *msg, size_t len)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	size_t off;

	msg[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
		return;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	off = MNL_ALIGN(off);
	if (NLMSG_HDRLEN + off > nlh->nlmsg_len)
		return;
	mnl_attr_for_each(a, nlh, off) {
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0) {
			snprintf(msg, len, "%s", mnl_attr_get_str(a));
			return;
		}
	}
}

/*
 * Send @nlh (with NLM_F_ACK) and wait for the ack.  0 or -errno; on error
 * @ext holds the extended ack text ("" when the kernel gave none).
 */
static int nl_talk(struct mnl_socket *nl, struct nlmsghdr *nlh, char *ext, size_t extlen)
{
	char buf[8192];
	unsigned int portid = mnl_socket_get_portid(nl);
	uint32_t seq = nlh->nlmsg_seq;
	ssize_t n;

	ext[0] = '\0';
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *r;
		int remain;

		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		remain = (int)n;
		for (r = (const struct nlmsghdr *)buf; mnl_nlmsg_ok(r, remain);
		     r = mnl_nlmsg_next(r, &remain)) {
			const struct nlmsgerr *e;

			if (r->nlmsg_seq != seq || r->nlmsg_pid != portid)
				continue;
			if (r->nlmsg_type != NLMSG_ERROR)
				continue;
			if (r->nlmsg_len < NLMSG_HDRLEN + sizeof(*e))
				return -EBADMSG;
			e = mnl_nlmsg_get_payload(r);
			if (e->error)
				nl_extack_msg(r, ext, extlen);
			return e->error;
		}
	}
}

int nl_link_mtu_set(struct sys *sys, const char *ifname, unsigned int mtu, struct fab_err *err)
{
	char buf[1024], ext[512];
	struct mnl_socket *nl;
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	unsigned int ifindex;
	int one = 1, rc;

	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return fab_err_set(err, -ENODEV, "rtnetlink: %s: no such device", ifname);
	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return fab_err_set(err, -errno, "rtnetlink: socket: %s", strerror(errno));
	/* Best effort: older kernels just give no extended ack. */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		rc = fab_err_set(err, -errno, "rtnetlink: bind: %s", strerror(errno));
		goto out;
	}
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = (uint32_t)time(NULL);
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = (int)ifindex;
	mnl_attr_put_u32(nlh, IFLA_MTU, mtu);
	rc = nl_talk(nl, nlh, ext, sizeof(ext));
	if (rc < 0) {
		if (ext[0])
			fab_err_set(err, rc, "rtnetlink: %s: set mtu %u: %s (%s)", ifname, mtu,
				    strerror(-rc), ext);
		else
			fab_err_set(err, rc, "rtnetlink: %s: set mtu %u: %s", ifname, mtu,
				    strerror(-rc));
	}
out:
	mnl_socket_close(nl);
	return rc;
}
