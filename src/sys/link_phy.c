// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The link under a module (contract: struct sys_ops link_phy_read): speed
 * and lanes, link state and link-down events, FEC mode and statistics over
 * ethtool netlink; carrier_changes and carrier_down_count from sysfs.
 * Each part is optional: what the kernel or the driver lacks stays !ok.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/sockios.h>

#include "sys/ethtool_nl.h"
#include "sys/link_phy.h"
#include "sys/sys_real.h"
#include "util/log.h"

/* Newer than the 6.1 headers this builds against. */
#define LP_LINKSTATE_EXT_DOWN_CNT 7	/* ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT, u32 (6.6+) */
#define LP_FEC_STAT_HIST 5		/* ETHTOOL_A_FEC_STAT_HIST, nest (6.16+) */
#define LP_FEC_HIST_BIN_LOW 2
#define LP_FEC_HIST_BIN_HIGH 3
#define LP_FEC_HIST_BIN_VAL 4
#define LP_FEC_HIST_MAX 5

static enum optics_fec fec_of_link_mode(uint32_t bit)
{
	switch (bit) {
	case ETHTOOL_LINK_MODE_FEC_NONE_BIT:
		return OPTICS_FEC_NONE;
	case ETHTOOL_LINK_MODE_FEC_RS_BIT:
		return OPTICS_FEC_RS;
	case ETHTOOL_LINK_MODE_FEC_BASER_BIT:
		return OPTICS_FEC_BASER;
	case ETHTOOL_LINK_MODE_FEC_LLRS_BIT:
		return OPTICS_FEC_LLRS;
	default:
		return OPTICS_FEC_UNKNOWN;
	}
}

/* A u64 array [total, lane 0, lane 1, ...]; an empty one is "not given". */
static int fec_stat(const struct nlattr *a, struct optics_fec_stat *s)
{
	uint16_t len = mnl_attr_get_payload_len(a);
	const char *p = mnl_attr_get_payload(a);

	memset(s, 0, sizeof(*s));
	if (len % 8)
		return -EBADMSG;
	if (!len)
		return 0;
	s->ok = true;
	memcpy(&s->total, p, 8);
	for (size_t i = 1; i < len / 8u && s->n_lanes < OPTICS_FEC_LANES; i++)
		memcpy(&s->lane[s->n_lanes++], p + 8 * i, 8);
	return 0;
}

static int fec_hist_bin(const struct nlattr *nest, struct optics_link *l)
{
	const struct nlattr *tb[LP_FEC_HIST_MAX + 1];
	struct optics_fec_bin *b;

	if (ethnl_nested(nest, tb, LP_FEC_HIST_MAX) < 0)
		return -EBADMSG;
	if (!tb[LP_FEC_HIST_BIN_LOW] || !tb[LP_FEC_HIST_BIN_HIGH] || !tb[LP_FEC_HIST_BIN_VAL] ||
	    mnl_attr_validate(tb[LP_FEC_HIST_BIN_LOW], MNL_TYPE_U32) < 0 ||
	    mnl_attr_validate(tb[LP_FEC_HIST_BIN_HIGH], MNL_TYPE_U32) < 0 ||
	    mnl_attr_get_payload_len(tb[LP_FEC_HIST_BIN_VAL]) != 8)
		return -EBADMSG;
	if (l->n_hist >= OPTICS_FEC_HIST_MAX)
		return 0;
	b = &l->hist[l->n_hist++];
	b->low = mnl_attr_get_u32(tb[LP_FEC_HIST_BIN_LOW]);
	b->high = mnl_attr_get_u32(tb[LP_FEC_HIST_BIN_HIGH]);
	memcpy(&b->count, mnl_attr_get_payload(tb[LP_FEC_HIST_BIN_VAL]), 8);
	return 0;
}

static int fec_stats(const struct nlattr *nest, struct optics_link *l)
{
	const struct nlattr *a;
	int rc = 0;

	if (mnl_attr_validate(nest, MNL_TYPE_NESTED) < 0)
		return -EBADMSG;
	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case ETHTOOL_A_FEC_STAT_CORRECTED:
			rc = fec_stat(a, &l->corrected_blocks);
			break;
		case ETHTOOL_A_FEC_STAT_UNCORR:
			rc = fec_stat(a, &l->uncorrectable_blocks);
			break;
		case ETHTOOL_A_FEC_STAT_CORR_BITS:
			rc = fec_stat(a, &l->corrected_bits);
			break;
		case LP_FEC_STAT_HIST:
			rc = fec_hist_bin(a, l);
			break;
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

int link_phy_parse_fec(const struct nlmsghdr *nlh, struct optics_link *l)
{
	const struct nlattr *tb[ETHTOOL_A_FEC_MAX + 1];
	const struct nlattr *a;

	if (ethnl_attrs(nlh, tb, ETHTOOL_A_FEC_MAX) < 0)
		return -EBADMSG;
	l->fec_ok = true;
	a = tb[ETHTOOL_A_FEC_ACTIVE];
	if (a && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		l->fec = fec_of_link_mode(mnl_attr_get_u32(a));
	a = tb[ETHTOOL_A_FEC_AUTO];
	if (a && mnl_attr_validate(a, MNL_TYPE_U8) == 0)
		l->fec_auto = mnl_attr_get_u8(a);
	if (tb[ETHTOOL_A_FEC_STATS])
		return fec_stats(tb[ETHTOOL_A_FEC_STATS], l);
	return 0;
}

int link_phy_parse_linkstate(const struct nlmsghdr *nlh, struct optics_link *l)
{
	const struct nlattr *tb[LP_LINKSTATE_EXT_DOWN_CNT + 1];
	const struct nlattr *a;

	if (ethnl_attrs(nlh, tb, LP_LINKSTATE_EXT_DOWN_CNT) < 0)
		return -EBADMSG;
	a = tb[ETHTOOL_A_LINKSTATE_LINK];
	if (a && mnl_attr_validate(a, MNL_TYPE_U8) == 0) {
		l->link_ok = true;
		l->link_up = mnl_attr_get_u8(a);
	}
	a = tb[LP_LINKSTATE_EXT_DOWN_CNT];
	if (a && mnl_attr_validate(a, MNL_TYPE_U32) == 0) {
		l->down_events_ok = true;
		l->down_events = mnl_attr_get_u32(a);
	}
	return 0;
}

int link_phy_parse_linkmodes(const struct nlmsghdr *nlh, struct optics_link *l)
{
	const struct nlattr *tb[ETHTOOL_A_LINKMODES_MAX + 1];
	const struct nlattr *a;

	if (ethnl_attrs(nlh, tb, ETHTOOL_A_LINKMODES_MAX) < 0)
		return -EBADMSG;
	a = tb[ETHTOOL_A_LINKMODES_SPEED];
	if (a && mnl_attr_validate(a, MNL_TYPE_U32) == 0 && mnl_attr_get_u32(a) != 0 &&
	    mnl_attr_get_u32(a) != (uint32_t)SPEED_UNKNOWN)
		l->speed_mbps = mnl_attr_get_u32(a);
	a = tb[ETHTOOL_A_LINKMODES_LANES];
	if (a && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
		l->lanes = mnl_attr_get_u32(a);
	return 0;
}

struct reply {
	int (*parse)(const struct nlmsghdr *nlh, struct optics_link *l);
	struct optics_link *l;
	int rc;
};

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct reply *r = data;

	if (r->parse(nlh, r->l) < 0)
		r->rc = -EBADMSG;
	return MNL_CB_OK;
}

/* One ethtool GET for @ifname; its reply parsed into @l.  -errno, debug-logged. */
static int get(struct ethnl *e, const char *ifname, uint8_t cmd, uint16_t hdr, uint32_t flags,
	       int (*parse)(const struct nlmsghdr *, struct optics_link *), struct optics_link *l)
{
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	struct reply r = { parse, l, 0 };
	char extack[256], reason[400];
	int rc;

	rc = nl_talk(&e->s, ethnl_msg(e, buf, cmd, hdr, ifname, flags), reply_cb, &r, extack,
		     sizeof(extack));
	if (rc == 0)
		rc = r.rc;
	if (rc < 0)
		fab_debug("link: %s: ethtool netlink command %u: %s", ifname, cmd,
			  nl_strerror(rc, extack, reason, sizeof(reason)));
	return rc;
}

/* FEC mode through ETHTOOL_GFECPARAM where netlink has none. */
static void fec_ioctl(const char *ifname, struct optics_link *l)
{
	struct ethtool_fecparam fp = { .cmd = ETHTOOL_GFECPARAM };
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&fp;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0) {
		l->fec_ok = true;
		if (fp.active_fec & ETHTOOL_FEC_RS)
			l->fec = OPTICS_FEC_RS;
		else if (fp.active_fec & ETHTOOL_FEC_BASER)
			l->fec = OPTICS_FEC_BASER;
		else if (fp.active_fec & ETHTOOL_FEC_LLRS)
			l->fec = OPTICS_FEC_LLRS;
		else if (fp.active_fec & ETHTOOL_FEC_OFF)
			l->fec = OPTICS_FEC_NONE;
	}
	close(fd);
}

static void carrier(struct sys *sys, const char *ifname, struct optics_link *l)
{
	char path[512];

	sys_path(sys, path, sizeof(path), "/sys/class/net/%s/carrier_changes", ifname);
	l->carrier_changes_ok = sys_read_u64(path, &l->carrier_changes) == 0;
	sys_path(sys, path, sizeof(path), "/sys/class/net/%s/carrier_down_count", ifname);
	l->carrier_down_ok = sys_read_u64(path, &l->carrier_down) == 0;
}

int link_phy_read(struct sys *sys, const char *ifname, struct optics_link *l, struct fab_err *err)
{
	struct fab_err e_err;
	struct timespec ts;
	struct ethnl e;
	int rc;

	if (!sys->root[0] && !if_nametoindex(ifname))
		return fab_err_set(err, -ENODEV, "link: %s: no such device", ifname);
	fab_err_init(&e_err);
	if (!sys->root[0] && ethnl_open(&e, &e_err) == 0) {
		get(&e, ifname, ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_A_LINKMODES_HEADER, 0,
		    link_phy_parse_linkmodes, l);
		/* Link-down events need the stats flag, which kernels before 6.6 refuse here. */
		if (get(&e, ifname, ETHTOOL_MSG_LINKSTATE_GET, ETHTOOL_A_LINKSTATE_HEADER,
			ETHTOOL_FLAG_STATS, link_phy_parse_linkstate, l) < 0)
			get(&e, ifname, ETHTOOL_MSG_LINKSTATE_GET, ETHTOOL_A_LINKSTATE_HEADER, 0,
			    link_phy_parse_linkstate, l);
		rc = get(&e, ifname, ETHTOOL_MSG_FEC_GET, ETHTOOL_A_FEC_HEADER, ETHTOOL_FLAG_STATS,
			 link_phy_parse_fec, l);
		if (rc < 0)
			l->fec_ok = false;
		if (rc == -EOPNOTSUPP)
			fec_ioctl(ifname, l);	/* FEC_GET is 5.14+; the ioctl is older */
		ethnl_close(&e);
	} else if (!sys->root[0]) {
		fab_debug("link: %s: %s", ifname, e_err.msg);
		fec_ioctl(ifname, l);
	}
	carrier(sys, ifname, l);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	l->t_s = (double)ts.tv_sec + ts.tv_nsec / 1e9;
	return 0;
}
