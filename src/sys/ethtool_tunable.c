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

/*
 * The ioctl's buffer: struct ethtool_tunable and its u16 value right after
 * it (its flexible data[]); a byte array, as a struct holding a struct
 * with a flexible member is a GNU extension.
 */
#define PFC_TUNABLE_LEN (sizeof(struct ethtool_tunable) + sizeof(uint16_t))

/*
 * One GTUNABLE or STUNABLE (@cmd) of the PFC storm timeout on @ifname,
 * *@val in and out; 0 or -errno.
 */
static int tunable_ioctl(const char *ifname, unsigned int cmd, uint16_t *val)
{
	_Alignas(struct ethtool_tunable) unsigned char buf[PFC_TUNABLE_LEN];
	struct ethtool_tunable t = {
		.cmd = cmd, .id = ETHTOOL_PFC_PREVENTION_TOUT, .type_id = ETHTOOL_TUNABLE_U16,
		.len = sizeof(*val),
	};
	struct ifreq ifr;
	int fd, rc = 0;

	memcpy(buf, &t, sizeof(t));
	memcpy(buf + sizeof(t), val, sizeof(*val));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)buf;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		rc = -errno;
	close(fd);
	if (rc == 0)
		memcpy(val, buf + sizeof(t), sizeof(*val));
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
	uint16_t val = 0;
	int rc;

	if (strlen(ifname) >= IFNAMSIZ)
		return fab_err_input(err, -EINVAL, "pfc-storm: '%s': invalid interface name", ifname);
	rc = tunable_ioctl(ifname, ETHTOOL_GTUNABLE, &val);
	if (rc < 0)
		return tunable_err(ifname, "get", rc, err);
	*ms = val;
	return 0;
}

int ethtool_pfc_storm_set(struct sys *sys, const char *ifname, unsigned int ms,
			  struct fab_err *err)
{
	uint16_t val = (uint16_t)ms;
	int rc;

	if (strlen(ifname) >= IFNAMSIZ || ms > 0xffff)
		return fab_err_input(err, -EINVAL, "pfc-storm: %s: bad timeout %u", ifname, ms);
	rc = tunable_ioctl(ifname, ETHTOOL_STUNABLE, &val);
	if (rc < 0)
		return tunable_err(ifname, "set", rc, err);
	return 0;
}
