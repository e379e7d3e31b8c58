// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The PFC storm prevention timeout, an ethtool tunable
 * (ETHTOOL_PFC_PREVENTION_TOUT, u16 msecs: 0 off, 0xffff the driver's
 * automatic value), through the ETHTOOL_GTUNABLE / ETHTOOL_STUNABLE ioctl
 * as `ethtool --get-tunable IF pfc-prevention-tout` (ethtool netlink has
 * no tunables).  mlx5 accepts 0, auto and 80..8000 ms.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sys/sys_real.h"

struct pfc_tunable {
	struct ethtool_tunable t;
	uint16_t val;
};

/* One GTUNABLE (@set false) or STUNABLE of @tun on @ifname; 0 or -errno. */
static int tunable_ioctl(const char *ifname, unsigned int cmd, struct pfc_tunable *tun)
{
	struct ifreq ifr;
	int fd, rc = 0;

	tun->t.cmd = cmd;
	tun->t.id = ETHTOOL_PFC_PREVENTION_TOUT;
	tun->t.type_id = ETHTOOL_TUNABLE_U16;
	tun->t.len = sizeof(tun->val);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)tun;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

static int tunable_err(const char *ifname, const char *op, int rc, struct fab_err *err)
{
	if (rc == -EOPNOTSUPP)
		return fab_err_set(err, rc, "pfc-storm: %s: pfc storm prevention not supported by driver",
				   ifname);
	if (rc == -ENODEV)
		return fab_err_set(err, rc, "pfc-storm: %s: no such device", ifname);
	return fab_err_set(err, rc, "pfc-storm: %s: %s pfc-prevention-tout: %s", ifname, op,
			   strerror(-rc));
}

int ethtool_pfc_storm_read(struct sys *sys, const char *ifname, unsigned int *ms,
			   struct fab_err *err)
{
	struct pfc_tunable tun = { .val = 0 };
	int rc;

	if (strlen(ifname) >= IFNAMSIZ)
		return fab_err_input(err, -EINVAL, "pfc-storm: '%s': invalid interface name", ifname);
	rc = tunable_ioctl(ifname, ETHTOOL_GTUNABLE, &tun);
	if (rc < 0)
		return tunable_err(ifname, "get", rc, err);
	*ms = tun.val;
	return 0;
}

int ethtool_pfc_storm_set(struct sys *sys, const char *ifname, unsigned int ms,
			  struct fab_err *err)
{
	struct pfc_tunable tun = { .val = (uint16_t)ms };
	int rc;

	if (strlen(ifname) >= IFNAMSIZ || ms > 0xffff)
		return fab_err_input(err, -EINVAL, "pfc-storm: %s: bad timeout %u", ifname, ms);
	rc = tunable_ioctl(ifname, ETHTOOL_STUNABLE, &tun);
	if (rc < 0)
		return tunable_err(ifname, "set", rc, err);
	return 0;
}
