// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Network devices over rtnetlink (libmnl): one RTM_GETLINK dump gives
 * name, index, MTU, oper/admin state, master and link kind; the ethtool
 * ioctl adds driver and speed, which rtnetlink does not carry; one
 * RTM_GETADDR dump the IP addresses (the RoCE chain looks up their GIDs).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>

#include "sys/nl_util.h"
#include "sys/sys_real.h"
#include "util/array.h"

/* RFC 2863 operational states, IF_OPER_* of <linux/if.h> (which clashes with <net/if.h>). */
static const char *const operstates[] = {
	"unknown", "notpresent", "down", "lowerlayerdown", "testing", "dormant", "up",
};



struct link_dump {
	struct host_state *hs;
	int rc;
};

static void link_kind_parse(const struct nlattr *linkinfo, struct fab_link *l)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, linkinfo) {
		if (mnl_attr_get_type(a) == IFLA_INFO_KIND &&
		    mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
			snprintf(l->kind, sizeof(l->kind), "%s", mnl_attr_get_str(a));
	}
}

static void link_addr_format(const struct nlattr *a, struct fab_link *l)
{
	const unsigned char *p = mnl_attr_get_payload(a);
	uint16_t len = mnl_attr_get_payload_len(a);
	size_t off = 0;

	l->address[0] = '\0';
	for (uint16_t i = 0; i < len && off + 3 < sizeof(l->address); i++)
		off += (size_t)snprintf(l->address + off, sizeof(l->address) - off,
					"%s%02x", i ? ":" : "", p[i]);
}

static int link_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct link_dump *d = data;
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *a;
	struct fab_link *l;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	l = host_state_link_add(d->hs);
	if (!l) {
		d->rc = -ENOMEM;
		return MNL_CB_ERROR;
	}
	l->ifindex = ifm->ifi_index;
	l->admin_up = !!(ifm->ifi_flags & IFF_UP);
	snprintf(l->operstate, sizeof(l->operstate), "unknown");
	mnl_attr_for_each(a, nlh, sizeof(*ifm)) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_IFNAME:
			if (mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
				snprintf(l->name, sizeof(l->name), "%s", mnl_attr_get_str(a));
			break;
		case IFLA_MTU:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				l->mtu = mnl_attr_get_u32(a);
			break;
		case IFLA_OPERSTATE:
			if (mnl_attr_validate(a, MNL_TYPE_U8) == 0) {
				uint8_t s = mnl_attr_get_u8(a);

				if (s < ARRAY_SIZE(operstates) && operstates[s])
					snprintf(l->operstate, sizeof(l->operstate), "%s", operstates[s]);
			}
			break;
		case IFLA_MASTER:
			if (mnl_attr_validate(a, MNL_TYPE_U32) == 0)
				l->master_ifindex = (int)mnl_attr_get_u32(a);
			break;
		case IFLA_LINKINFO:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
				link_kind_parse(a, l);
			break;
		case IFLA_ADDRESS:
			link_addr_format(a, l);
			break;
		}
	}
	return MNL_CB_OK;
}

/* Driver and speed through the ethtool ioctl; both stay unknown on failure. */
static void link_ethtool(int fd, struct fab_link *l)
{
	struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_cmd ecmd = { .cmd = ETHTOOL_GSET };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", l->name);
	ifr.ifr_data = (void *)&drv;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
		snprintf(l->driver, sizeof(l->driver), "%s", drv.driver);
	ifr.ifr_data = (void *)&ecmd;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0) {
		/* Not ethtool_cmd_speed(): its u16 << 16 overflows int for SPEED_UNKNOWN. */
		uint32_t speed = ((uint32_t)ecmd.speed_hi << 16) | ecmd.speed;

		if (speed != 0 && speed != (uint32_t)SPEED_UNKNOWN)
			l->speed_mbps = speed;
	}
}

/* One RTM_NEWADDR: IFA_LOCAL (IPv4, the address itself on a point-to-point link) else IFA_ADDRESS. */
static int addr_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct ifaddrmsg *ifa = mnl_nlmsg_get_payload(nlh);
	const void *local = NULL, *addr = NULL;
	struct host_state *hs = data;
	struct fab_link *l;
	const struct nlattr *a;
	size_t want = ifa->ifa_family == AF_INET ? 4 : 16;

	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return MNL_CB_OK;
	l = host_state_link_by_index(hs, (int)ifa->ifa_index);
	if (!l || l->n_addrs == FAB_LINK_MAX_ADDRS)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(*ifa)) {
		if (mnl_attr_get_payload_len(a) != want)
			continue;
		if (mnl_attr_get_type(a) == IFA_LOCAL)
			local = mnl_attr_get_payload(a);
		else if (mnl_attr_get_type(a) == IFA_ADDRESS)
			addr = mnl_attr_get_payload(a);
	}
	if (local)
		addr = local;
	if (addr && inet_ntop(ifa->ifa_family, addr, l->addrs[l->n_addrs], FAB_ADDRSTRLEN))
		l->n_addrs++;
	return MNL_CB_OK;
}

/* The IP addresses of every link in @hs; a failure leaves them empty (they are evidence only). */
static void addr_read_all(struct host_state *hs)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct fab_err e;
	struct nl_sock s;
	struct nlmsghdr *nlh;
	struct ifaddrmsg *ifa;

	fab_err_init(&e);
	if (nl_sock_open(&s, NETLINK_ROUTE, &e) < 0)
		return;
	nlh = nl_msg_new(&s, buf, RTM_GETADDR, NLM_F_DUMP);
	ifa = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifa));
	ifa->ifa_family = AF_UNSPEC;
	nl_talk(&s, nlh, addr_dump_cb, hs, NULL, 0);
	nl_sock_close(&s);
}

int nl_link_read_all(struct sys *sys, struct host_state *hs, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	char extack[256], reason[400];
	struct link_dump d = { .hs = hs };
	struct nl_sock s;
	struct nlmsghdr *nlh;
	struct rtgenmsg *rt;
	size_t first = hs->n_links;
	int rc, fd;

	if (nl_sock_open(&s, NETLINK_ROUTE, err) < 0) {
		fab_err_prefix(err, "rtnetlink");
		return err->code;
	}
	nlh = nl_msg_new(&s, buf, RTM_GETLINK, NLM_F_DUMP);
	rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	rt->rtgen_family = AF_UNSPEC;
	rc = nl_talk(&s, nlh, link_dump_cb, &d, extack, sizeof(extack));
	nl_sock_close(&s);
	if (d.rc < 0)
		rc = d.rc;
	if (rc < 0)
		return fab_err_set(err, rc, "rtnetlink: link dump: %s",
				   nl_strerror(rc, extack, reason, sizeof(reason)));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		for (size_t i = first; i < hs->n_links; i++)
			link_ethtool(fd, &hs->links[i]);
		close(fd);
	}
	addr_read_all(hs);
	return 0;
}
