// SPDX-License-Identifier: GPL-2.0-or-later
/* The ethtool generic netlink family through libmnl (see ethtool_nl.h). */
#include <errno.h>
#include <string.h>

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "sys/ethtool_nl.h"

struct attr_tb {
	const struct nlattr **tb;
	unsigned int max;
};

static int attr_cb(const struct nlattr *a, void *data)
{
	struct attr_tb *t = data;
	unsigned int type = mnl_attr_get_type(a);

	if (type <= t->max)
		t->tb[type] = a;
	return MNL_CB_OK;
}

int ethnl_attrs(const struct nlmsghdr *nlh, const struct nlattr **tb, unsigned int max)
{
	struct attr_tb t = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (nlh->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
		return -EBADMSG;
	return mnl_attr_parse(nlh, GENL_HDRLEN, attr_cb, &t) == MNL_CB_OK ? 0 : -EBADMSG;
}

int ethnl_nested(const struct nlattr *nest, const struct nlattr **tb, unsigned int max)
{
	struct attr_tb t = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	if (mnl_attr_validate(nest, MNL_TYPE_NESTED) < 0)
		return -EBADMSG;
	return mnl_attr_parse_nested(nest, attr_cb, &t) == MNL_CB_OK ? 0 : -EBADMSG;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	const struct nlattr *a;
	uint16_t *id = data;

	if (ethnl_attrs(nlh, tb, CTRL_ATTR_MAX) < 0)
		return MNL_CB_OK;
	a = tb[CTRL_ATTR_FAMILY_ID];
	if (a && mnl_attr_validate(a, MNL_TYPE_U16) == 0)
		*id = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

int ethnl_open(struct ethnl *e, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	uint16_t id = 0;
	int rc;

	memset(e, 0, sizeof(*e));
	if (nl_sock_open(&e->s, NETLINK_GENERIC, err) < 0)
		return err->code;
	nlh = nl_msg_new(&e->s, buf, GENL_ID_CTRL, 0);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
	rc = nl_talk(&e->s, nlh, family_cb, &id, NULL, 0);
	if (rc == 0 && !id)
		rc = -ENOENT;
	if (rc < 0) {
		nl_sock_close(&e->s);
		return fab_err_set(err, rc == -ENOENT ? -EOPNOTSUPP : rc,
				   "ethtool netlink: no \"%s\" family: %s", ETHTOOL_GENL_NAME,
				   strerror(-rc));
	}
	e->family = id;
	return 0;
}

void ethnl_close(struct ethnl *e)
{
	nl_sock_close(&e->s);
}

struct nlmsghdr *ethnl_msg(struct ethnl *e, void *buf, uint8_t cmd, uint16_t hdr_attr,
			   const char *ifname, uint32_t flags)
{
	struct nlmsghdr *nlh = nl_msg_new(&e->s, buf, e->family, 0);
	struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	struct nlattr *hdr;

	g->cmd = cmd;
	g->version = ETHTOOL_GENL_VERSION;
	hdr = mnl_attr_nest_start(nlh, hdr_attr);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	if (flags)
		mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, flags);
	mnl_attr_nest_end(nlh, hdr);
	return nlh;
}
