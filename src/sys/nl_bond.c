// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Bonding over rtnetlink (libmnl), the way iproute2's `ip link` drives
 * the bonding driver: RTM_NEWLINK with IFLA_LINKINFO { IFLA_INFO_KIND
 * "bond", IFLA_INFO_DATA { IFLA_BOND_* } } to create and configure,
 * IFLA_MASTER on the member to enslave/release, RTM_DELLINK to delete;
 * read back from RTM_GETLINK including each member's
 * IFLA_INFO_SLAVE_DATA (MII status, active/backup, 802.3ad aggregator).
 * Every request carries NLM_F_ACK; the kernel's extended ack (bonding
 * fills it generously) ends up in the message.
 *
 * Policy beyond the kernel's:
 *  - bond_set sends only the options that differ from what is there
 *    (the driver refuses e.g. lacp_rate outside 802.3ad even when equal),
 *    and puts the old values back if the request fails half way;
 *  - enslave refuses a device that already has another master (the
 *    kernel would silently move it from that bond) with -EBUSY;
 *  - delete refuses a device that is not a bond.
 */
#include <errno.h>
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/if_bonding.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "sys/nl_bond.h"
#include "sys/nl_util.h"
#include "sys/sys_real.h"
#include "util/array.h"

static void bond_link_init(struct nl_bond_link *l)
{
	memset(l, 0, sizeof(*l));
	l->mode = l->miimon_ms = l->lacp_rate = l->xmit_hash_policy = l->min_links = -1;
	l->active_slave = l->slave_state = l->mii_status = l->ad_aggregator_id = -1;
}

/* @a as an int of netlink @type (U8, U16, or U32 up to INT32_MAX); -1 when it is not one. */
static int attr_int(const struct nlattr *a, enum mnl_attr_data_type type)
{
	if (mnl_attr_validate(a, type) < 0)
		return -1;
	if (type == MNL_TYPE_U8)
		return mnl_attr_get_u8(a);
	if (type == MNL_TYPE_U16)
		return mnl_attr_get_u16(a);
	return mnl_attr_get_u32(a) <= INT32_MAX ? (int)mnl_attr_get_u32(a) : -1;
}

/* One nested attribute that nl_bond_link keeps: its type, netlink type, int field. */
struct bond_attr {
	uint16_t type;
	enum mnl_attr_data_type nl_type;
	size_t off;
};

#define BOND_ATTR(type, nl_type, field) { type, nl_type, offsetof(struct nl_bond_link, field) }

/* A bond's IFLA_INFO_DATA. */
static const struct bond_attr bond_data_attrs[] = {
	BOND_ATTR(IFLA_BOND_MODE, MNL_TYPE_U8, mode),
	BOND_ATTR(IFLA_BOND_MIIMON, MNL_TYPE_U32, miimon_ms),
	BOND_ATTR(IFLA_BOND_AD_LACP_RATE, MNL_TYPE_U8, lacp_rate),
	BOND_ATTR(IFLA_BOND_XMIT_HASH_POLICY, MNL_TYPE_U8, xmit_hash_policy),
	BOND_ATTR(IFLA_BOND_MIN_LINKS, MNL_TYPE_U32, min_links),
	BOND_ATTR(IFLA_BOND_ACTIVE_SLAVE, MNL_TYPE_U32, active_slave),
};

/* A member's IFLA_INFO_SLAVE_DATA. */
static const struct bond_attr bond_slave_attrs[] = {
	BOND_ATTR(IFLA_BOND_SLAVE_STATE, MNL_TYPE_U8, slave_state),
	BOND_ATTR(IFLA_BOND_SLAVE_MII_STATUS, MNL_TYPE_U8, mii_status),
	BOND_ATTR(IFLA_BOND_SLAVE_AD_AGGREGATOR_ID, MNL_TYPE_U16, ad_aggregator_id),
};

/* The attributes of @data that @t (@n entries) names into @l; others are passed over. */
static void bond_attrs_parse(const struct nlattr *data, const struct bond_attr *t, size_t n,
			     struct nl_bond_link *l)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, data)
		for (size_t i = 0; i < n; i++)
			if (mnl_attr_get_type(a) == t[i].type)
				*(int *)((char *)l + t[i].off) = attr_int(a, t[i].nl_type);
}

static void bond_linkinfo_parse(const struct nlattr *info, struct nl_bond_link *l)
{
	const struct nlattr *a, *data = NULL, *sdata = NULL;

	mnl_attr_for_each_nested(a, info) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_INFO_KIND:
			if (mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
				snprintf(l->kind, sizeof(l->kind), "%.*s",
					 (int)mnl_attr_get_payload_len(a), mnl_attr_get_str(a));
			break;
		case IFLA_INFO_SLAVE_KIND:
			if (mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
				snprintf(l->slave_kind, sizeof(l->slave_kind), "%.*s",
					 (int)mnl_attr_get_payload_len(a), mnl_attr_get_str(a));
			break;
		case IFLA_INFO_DATA:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
				data = a;
			break;
		case IFLA_INFO_SLAVE_DATA:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
				sdata = a;
			break;
		}
	}
	/* The data's meaning depends on the kind, which may come after it. */
	if (data && strcmp(l->kind, "bond") == 0)
		bond_attrs_parse(data, bond_data_attrs, ARRAY_SIZE(bond_data_attrs), l);
	if (sdata && strcmp(l->slave_kind, "bond") == 0)
		bond_attrs_parse(sdata, bond_slave_attrs, ARRAY_SIZE(bond_slave_attrs), l);
}

int nl_bond_link_parse(const struct nlmsghdr *nlh, size_t len, struct nl_bond_link *l)
{
	const struct ifinfomsg *ifm;
	const struct nlattr *a;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len ||
	    nlh->nlmsg_type != RTM_NEWLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifm))
		return -EBADMSG;
	ifm = mnl_nlmsg_get_payload(nlh);
	bond_link_init(l);
	l->ifindex = ifm->ifi_index;
	l->flags = ifm->ifi_flags;
	mnl_attr_for_each(a, nlh, sizeof(*ifm)) {
		switch (mnl_attr_get_type(a)) {
		case IFLA_IFNAME:
			if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
				snprintf(l->name, sizeof(l->name), "%s", mnl_attr_get_str(a));
			break;
		case IFLA_MASTER:
			l->master = attr_int(a, MNL_TYPE_U32) < 0 ? 0 : attr_int(a, MNL_TYPE_U32);
			break;
		case IFLA_LINKINFO:
			if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
				bond_linkinfo_parse(a, l);
			break;
		}
	}
	return 0;
}

/* --- requests ------------------------------------------------------------ */

static int name_check(const char *what, const char *name, struct fab_err *err)
{
	if (!name || !name[0] || strlen(name) >= IFNAMSIZ)
		return fab_err_input(err, -EINVAL, "bond: '%s': invalid %s name",
				     name ? name : "", what);
	return 0;
}

/* Send one request; errors become "bond: OBJ: OP: reason (extack)". */
static int bond_talk(struct nlmsghdr *nlh, mnl_cb_t cb, void *data, const char *obj,
		     const char *op, struct fab_err *err)
{
	char extack[256], reason[400];
	struct nl_sock s;
	int rc;

	if (nl_sock_open(&s, NETLINK_ROUTE, err) < 0) {
		fab_err_prefix(err, "bond: %s", obj);
		return err->code;
	}
	nlh->nlmsg_seq = ++s.seq;
	rc = nl_talk(&s, nlh, cb, data, extack, sizeof(extack));
	nl_sock_close(&s);
	if (rc == -ENODEV)
		return fab_err_set(err, rc, "bond: %s: no such device%s%s%s", obj,
				   extack[0] ? " (" : "", extack, extack[0] ? ")" : "");
	if (rc == -EOPNOTSUPP && strcmp(op, "create") == 0)
		return fab_err_set(err, rc, "bond: %s: create: %s (bonding module not loaded?)",
				   obj, nl_strerror(rc, extack, reason, sizeof(reason)));
	if (rc < 0)
		return fab_err_set(err, rc, "bond: %s: %s: %s", obj, op,
				   nl_strerror(rc, extack, reason, sizeof(reason)));
	return 0;
}

static struct nlmsghdr *link_msg(void *buf, uint16_t type, uint16_t flags, const char *name)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	if (name)
		mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	return nlh;
}

struct link_get {
	struct nl_bond_link *l;
	bool got;
};

static int link_get_cb(const struct nlmsghdr *nlh, void *data)
{
	struct link_get *g = data;

	if (nlh->nlmsg_type != RTM_NEWLINK)
		return MNL_CB_OK;
	if (nl_bond_link_parse(nlh, nlh->nlmsg_len, g->l) == 0)
		g->got = true;
	return MNL_CB_OK;
}

/* RTM_GETLINK of one device by name: -ENODEV "bond: NAME: no such device". */
static int link_get(const char *name, struct nl_bond_link *l, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct link_get g = { .l = l };
	int rc;

	rc = bond_talk(link_msg(buf, RTM_GETLINK, 0, name), link_get_cb, &g, name, "read", err);
	if (rc < 0)
		return rc;
	if (!g.got)
		return fab_err_set(err, -ENODEV, "bond: %s: no such device", name);
	return 0;
}

/* name_check() of @name (a @what), then link_get(). */
static int link_get_named(const char *what, const char *name, struct nl_bond_link *l,
			  struct fab_err *err)
{
	int rc = name_check(what, name, err);

	return rc < 0 ? rc : link_get(name, l, err);
}

struct member_dump {
	struct fab_bond *bond;
	int rc;
};

static int member_dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct member_dump *d = data;
	struct fab_bond_member *m;
	struct nl_bond_link l;

	if (nl_bond_link_parse(nlh, nlh->nlmsg_len, &l) < 0 || l.master != d->bond->ifindex || !l.name[0])
		return MNL_CB_OK;
	m = fab_bond_member_add(d->bond, l.name);
	if (!m) {
		d->rc = -ENOMEM;
		return MNL_CB_ERROR;
	}
	m->ifindex = l.ifindex;
	m->link_up = l.mii_status == BOND_LINK_UP && (l.flags & IFF_UP);
	m->active = l.slave_state == BOND_STATE_ACTIVE;
	m->ad_aggregator_id = d->bond->mode == FAB_BOND_MODE_8023AD ? l.ad_aggregator_id : -1;
	return MNL_CB_OK;
}

/* @l's name and bond options (mode, miimon, lacp_rate, xmit_hash_policy, min_links) into @b. */
static void bond_opts_from_link(struct fab_bond *b, const struct nl_bond_link *l)
{
	snprintf(b->name, sizeof(b->name), "%s", l->name);
	b->mode = l->mode;
	b->miimon_ms = l->miimon_ms;
	b->lacp_rate = l->lacp_rate;
	b->xmit_hash_policy = l->xmit_hash_policy;
	b->min_links = l->min_links;
}

int nl_bond_read(struct sys *sys, const char *name, struct fab_bond *bond, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct member_dump d = { .bond = bond };
	struct nl_bond_link l;
	struct nlmsghdr *nlh;
	struct rtgenmsg *rt;
	int rc;

	rc = link_get_named("bond", name, &l, err);
	if (rc < 0)
		return rc;
	if (strcmp(l.kind, "bond") != 0)
		return fab_err_set(err, -EINVAL, "bond: %s: not a bond (kind '%s')", name,
				   l.kind[0] ? l.kind : "none");
	bond_opts_from_link(bond, &l);
	bond->ifindex = l.ifindex;
	bond->active_member[0] = '\0';

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	rt = mnl_nlmsg_put_extra_header(nlh, sizeof(*rt));
	rt->rtgen_family = AF_UNSPEC;
	rc = bond_talk(nlh, member_dump_cb, &d, name, "read members", err);
	if (rc < 0 || d.rc < 0) {
		if (d.rc < 0)
			rc = fab_err_set(err, d.rc, "bond: %s: out of memory", name);
		return rc;
	}
	for (size_t i = 0; i < bond->n_members; i++)
		if (bond->members[i].ifindex == l.active_slave)
			snprintf(bond->active_member, sizeof(bond->active_member), "%s",
				 bond->members[i].name);
	return 0;
}

/* IFLA_LINKINFO { kind bond, data { every option of @want not -1 and != @cur's } }. */
static void bond_opts_put(struct nlmsghdr *nlh, const struct fab_bond *want,
			  const struct nl_bond_link *cur, bool mode)
{
	struct nlattr *info, *data;

	info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);
	mnl_attr_put_strz(nlh, IFLA_INFO_KIND, "bond");
	data = mnl_attr_nest_start(nlh, IFLA_INFO_DATA);
	/* Mode first: the other options' validity depends on it. */
	if (mode && want->mode >= 0 && (!cur || cur->mode != want->mode))
		mnl_attr_put_u8(nlh, IFLA_BOND_MODE, (uint8_t)want->mode);
	if (want->miimon_ms >= 0 && (!cur || cur->miimon_ms != want->miimon_ms))
		mnl_attr_put_u32(nlh, IFLA_BOND_MIIMON, (uint32_t)want->miimon_ms);
	if (want->lacp_rate >= 0 && (!cur || cur->lacp_rate != want->lacp_rate))
		mnl_attr_put_u8(nlh, IFLA_BOND_AD_LACP_RATE, (uint8_t)want->lacp_rate);
	if (want->xmit_hash_policy >= 0 &&
	    (!cur || cur->xmit_hash_policy != want->xmit_hash_policy))
		mnl_attr_put_u8(nlh, IFLA_BOND_XMIT_HASH_POLICY, (uint8_t)want->xmit_hash_policy);
	if (want->min_links >= 0 && (!cur || cur->min_links != want->min_links))
		mnl_attr_put_u32(nlh, IFLA_BOND_MIN_LINKS, (uint32_t)want->min_links);
	mnl_attr_nest_end(nlh, data);
	mnl_attr_nest_end(nlh, info);
}

int nl_bond_create(struct sys *sys, const struct fab_bond *want, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	int rc;

	rc = name_check("bond", want->name, err);
	if (rc < 0)
		return rc;
	nlh = link_msg(buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, want->name);
	ifm = mnl_nlmsg_get_payload(nlh);
	ifm->ifi_flags = IFF_UP;
	ifm->ifi_change = IFF_UP;
	bond_opts_put(nlh, want, NULL, true);
	return bond_talk(nlh, NULL, NULL, want->name, "create", err);
}

int nl_bond_delete(struct sys *sys, const char *name, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct nl_bond_link l;
	int rc;

	rc = link_get_named("bond", name, &l, err);
	if (rc < 0)
		return rc;
	if (strcmp(l.kind, "bond") != 0)
		return fab_err_set(err, -EINVAL, "bond: %s: not a bond, not deleting it", name);
	return bond_talk(link_msg(buf, RTM_DELLINK, 0, name), NULL, NULL, name, "delete", err);
}

/* Bring @name up or down (ifi_change IFF_UP). */
static int link_updown(const char *name, bool up, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, name);
	struct ifinfomsg *ifm = mnl_nlmsg_get_payload(nlh);

	ifm->ifi_flags = up ? IFF_UP : 0;
	ifm->ifi_change = IFF_UP;
	return bond_talk(nlh, NULL, NULL, name, up ? "set up" : "set down", err);
}

/*
 * Bring @name back up after a change that took it down: @rc, the change's
 * outcome, or this step's error when the change went through.
 */
static int link_up_again(const char *name, int rc, struct fab_err *err)
{
	struct fab_err uerr;

	fab_err_init(&uerr);
	if (link_updown(name, true, &uerr) < 0 && rc == 0) {
		*err = uerr;
		rc = uerr.code;
	}
	return rc;
}

int nl_bond_set(struct sys *sys, const struct fab_bond *want, struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct fab_bond cur;
	struct nl_bond_link l, old;
	struct fab_err uerr;
	bool mode_change, was_up, members;
	int rc;

	fab_bond_init(&cur);
	rc = nl_bond_read(sys, want->name, &cur, err);
	if (rc < 0)
		goto out;
	rc = link_get(want->name, &l, err);
	if (rc < 0)
		goto out;
	members = cur.n_members > 0;
	was_up = l.flags & IFF_UP;
	mode_change = want->mode >= 0 && want->mode != l.mode;
	if (mode_change && members) {
		rc = fab_err_set(err, -EBUSY,
				 "bond: %s: mode %s -> %s needs the bond without members (it has %zu)",
				 want->name, fab_bond_mode_name(l.mode) ? fab_bond_mode_name(l.mode) : "?",
				 fab_bond_mode_name(want->mode) ? fab_bond_mode_name(want->mode) : "?",
				 cur.n_members);
		goto out;
	}
	if (mode_change && was_up) {
		rc = link_updown(want->name, false, err);
		if (rc < 0)
			goto out;
	}
	bond_opts_put(link_msg(buf, RTM_NEWLINK, 0, want->name), want, &l, true);
	rc = bond_talk((struct nlmsghdr *)buf, NULL, NULL, want->name, "set options", err);
	if (rc < 0) {
		/* Put back whatever went through before the driver refused. */
		struct fab_bond back;

		fab_err_init(&uerr);
		if (link_get(want->name, &old, &uerr) == 0) {
			fab_bond_init(&back);
			bond_opts_from_link(&back, &l);
			bond_opts_put(link_msg(buf, RTM_NEWLINK, 0, want->name), &back, &old, true);
			bond_talk((struct nlmsghdr *)buf, NULL, NULL, want->name, "undo", &uerr);
		}
	}
	if (mode_change && was_up)
		rc = link_up_again(want->name, rc, err);
out:
	fab_bond_fini(&cur);
	return rc;
}

/* The name of the device with @ifindex, "" when gone. */
static void link_name(int ifindex, char *name, size_t len)
{
	if (!if_indextoname((unsigned int)ifindex, name))
		snprintf(name, len, "#%d", ifindex);
}

static int link_set_master(const char *member, int master, const char *obj, const char *op,
			   struct fab_err *err)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct nlmsghdr *nlh = link_msg(buf, RTM_NEWLINK, 0, member);

	mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)master);
	return bond_talk(nlh, NULL, NULL, obj, op, err);
}

int nl_bond_enslave(struct sys *sys, const char *bond, const char *member, struct fab_err *err)
{
	struct nl_bond_link b, m;
	char other[IFNAMSIZ + 8], obj[2 * IFNAMSIZ + 8];
	bool was_up;
	int rc;

	rc = name_check("bond", bond, err);
	if (rc == 0)
		rc = name_check("member", member, err);
	if (rc < 0)
		return rc;
	rc = link_get(bond, &b, err);
	if (rc < 0)
		return rc;
	if (strcmp(b.kind, "bond") != 0)
		return fab_err_set(err, -EINVAL, "bond: %s: not a bond", bond);
	snprintf(obj, sizeof(obj), "%s: %s", bond, member);
	rc = link_get(member, &m, err);
	if (rc < 0) {
		if (rc == -ENODEV)
			return fab_err_set(err, rc, "bond: %s: enslave %s: no such device", bond,
					   member);
		return rc;
	}
	if (m.master == b.ifindex)
		return 0;
	if (m.master) {
		link_name(m.master, other, sizeof(other));
		return fab_err_set(err, -EBUSY, "bond: %s: enslave %s: already enslaved to %s",
				   bond, member, other);
	}
	was_up = m.flags & IFF_UP;
	if (was_up) {
		rc = link_updown(member, false, err);
		if (rc < 0)
			return rc;
	}
	rc = link_set_master(member, b.ifindex, obj, "enslave", err);
	/* Up again in both cases: on success the bond wants it up, on failure it was. */
	return rc == 0 || was_up ? link_up_again(member, rc, err) : rc;
}

int nl_bond_release(struct sys *sys, const char *member, struct fab_err *err)
{
	struct nl_bond_link m;
	int rc;

	rc = link_get_named("member", member, &m, err);
	if (rc < 0)
		return rc;
	if (!m.master)
		return 0;
	return link_set_master(member, 0, member, "release", err);
}
