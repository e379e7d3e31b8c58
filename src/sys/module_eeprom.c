// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One half page of a plugged module (contract: struct sys_ops
 * module_page_read): ETHTOOL_MSG_MODULE_EEPROM_GET over ethtool netlink,
 * else the ETHTOOL_GMODULEINFO / ETHTOOL_GMODULEEEPROM ioctl, whose flat
 * image holds A0h and A2h (SFF-8472, 512 bytes) or the lower page and
 * upper pages 00h-03h (SFF-8636, 640 bytes; 256: page 00h only).
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/sockios.h>

#include "sys/ethtool_nl.h"
#include "sys/sys_real.h"

struct page_reply {
	uint8_t *buf;
	int rc;		/* 0 once MODULE_PAGE_LEN bytes came back */
};

static int page_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[ETHTOOL_A_MODULE_EEPROM_MAX + 1];
	const struct nlattr *d;
	struct page_reply *r = data;

	if (ethnl_attrs(nlh, tb, ETHTOOL_A_MODULE_EEPROM_MAX) < 0)
		return MNL_CB_OK;
	d = tb[ETHTOOL_A_MODULE_EEPROM_DATA];
	if (!d)
		return MNL_CB_OK;
	if (mnl_attr_get_payload_len(d) != MODULE_PAGE_LEN) {
		r->rc = -EBADMSG;
		return MNL_CB_OK;
	}
	memcpy(r->buf, mnl_attr_get_payload(d), MODULE_PAGE_LEN);
	r->rc = 0;
	return MNL_CB_OK;
}

static void req_name(const struct module_page_req *req, char *buf, size_t len)
{
	snprintf(buf, len, "i2c 0x%02x bank %u page %02xh %s", req->i2c, req->bank, req->page,
		 req->upper ? "upper" : "lower");
}

static int page_netlink(const char *ifname, const struct module_page_req *req, uint8_t *buf,
			struct fab_err *err)
{
	char mbuf[NL_BUF_SIZE] __attribute__((aligned(4)));
	char extack[256], reason[400], what[64];
	struct page_reply r = { .buf = buf, .rc = -ENODATA };
	struct nlmsghdr *nlh;
	struct ethnl e;
	int rc;

	if (ethnl_open(&e, err) < 0)
		return err->code;
	nlh = ethnl_msg(&e, mbuf, ETHTOOL_MSG_MODULE_EEPROM_GET, ETHTOOL_A_MODULE_EEPROM_HEADER,
			ifname, 0);
	mnl_attr_put_u32(nlh, ETHTOOL_A_MODULE_EEPROM_OFFSET, req->upper ? MODULE_PAGE_LEN : 0);
	mnl_attr_put_u32(nlh, ETHTOOL_A_MODULE_EEPROM_LENGTH, MODULE_PAGE_LEN);
	mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_PAGE, req->page);
	mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_BANK, req->bank);
	mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, req->i2c);
	rc = nl_talk(&e.s, nlh, page_cb, &r, extack, sizeof(extack));
	ethnl_close(&e);
	if (rc == 0)
		rc = r.rc;
	if (rc < 0) {
		req_name(req, what, sizeof(what));
		return fab_err_set(err, rc, "module: %s: read %s: %s", ifname, what,
				   nl_strerror(rc, extack, reason, sizeof(reason)));
	}
	return 0;
}

/* Where @req lies in the ioctl's flat image of @type; -1 when it is not there. */
static long ioctl_offset(uint32_t type, const struct module_page_req *req)
{
	long half = req->upper ? MODULE_PAGE_LEN : 0;

	if (req->bank)
		return -1;
	if (type == ETH_MODULE_SFF_8472 && req->page == 0)
		return (req->i2c == MODULE_I2C_A2 ? 256 : 0) + half;
	if (req->i2c != MODULE_I2C_A0)
		return -1;
	if (req->page == 0)
		return half;
	if ((type == ETH_MODULE_SFF_8636 || type == ETH_MODULE_SFF_8436) && req->upper &&
	    req->page <= 3)
		return MODULE_PAGE_LEN + req->page * MODULE_PAGE_LEN;
	return -1;
}

static int ethtool_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static int page_ioctl_fd(int fd, const char *ifname, const struct module_page_req *req,
			 uint8_t *buf, struct fab_err *err)
{
	struct ethtool_modinfo mi = { .cmd = ETHTOOL_GMODULEINFO };
	struct ethtool_eeprom *ee;
	char what[64];
	long off;
	int rc;

	req_name(req, what, sizeof(what));
	rc = ethtool_ioctl(fd, ifname, &mi);
	if (rc < 0)
		return fab_err_set(err, rc, "module: %s: ETHTOOL_GMODULEINFO: %s", ifname,
				   strerror(-rc));
	off = ioctl_offset(mi.type, req);
	if (off < 0 || off + MODULE_PAGE_LEN > (long)mi.eeprom_len)
		return fab_err_set(err, -EOPNOTSUPP, "module: %s: %s: not in the ioctl's image "
				   "(type %u, %u bytes)", ifname, what, mi.type, mi.eeprom_len);
	ee = calloc(1, sizeof(*ee) + MODULE_PAGE_LEN);
	if (!ee)
		return fab_err_set(err, -ENOMEM, "module: out of memory");
	ee->cmd = ETHTOOL_GMODULEEEPROM;
	ee->offset = (uint32_t)off;
	ee->len = MODULE_PAGE_LEN;
	rc = ethtool_ioctl(fd, ifname, ee);
	if (rc == 0)
		memcpy(buf, ee->data, MODULE_PAGE_LEN);
	else
		fab_err_set(err, rc, "module: %s: ETHTOOL_GMODULEEEPROM %s: %s", ifname, what,
			    strerror(-rc));
	free(ee);
	return rc;
}

static int page_ioctl(const char *ifname, const struct module_page_req *req, uint8_t *buf,
		      struct fab_err *err)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return fab_err_set(err, -errno, "module: %s: socket: %s", ifname, strerror(errno));
	rc = page_ioctl_fd(fd, ifname, req, buf, err);
	close(fd);
	return rc;
}

int module_page_read(struct sys *sys, const char *ifname, const struct module_page_req *req,
		     uint8_t *buf, struct fab_err *err)
{
	struct fab_err nl_err;
	int rc;

	(void)sys;
	if (!if_nametoindex(ifname))
		return fab_err_set(err, -ENODEV, "module: %s: no such device", ifname);
	fab_err_init(&nl_err);
	rc = page_netlink(ifname, req, buf, &nl_err);
	if (rc != -EOPNOTSUPP) {
		if (rc < 0)
			*err = nl_err;
		return rc;
	}
	/* No ethtool netlink, or no such message (before 5.13): the old ioctl. */
	rc = page_ioctl(ifname, req, buf, err);
	if (rc == -EOPNOTSUPP && err)
		fab_err_set(err, -EOPNOTSUPP, "module: %s: no module interface (%s)", ifname,
			    nl_err.msg);
	return rc;
}
