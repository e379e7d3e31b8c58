// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ethernet / RoCE counters of one interface by name (struct sys_ops
 * nic_counters_read, model/nic_counters.h):
 *
 *   <root>/sys/class/net/IF/statistics/NAME          netdev statistics
 *   <root>/sys/class/net/IF/carrier_changes          link flaps
 *   ETHTOOL_GSSET_INFO / GSTRINGS / GSTATS           `ethtool -S IF`
 *   <root>/sys/class/infiniband/DEV/ports/N/hw_counters/NAME, counters/NAME
 *       for every port whose GID 0 netdev (gid_attrs/ndevs/0) is IF
 *
 * With a root (--root, a layout fixture) the NIC statistics are not asked
 * of the kernel: <root>/ethtool-S/IF, when present, holds the text
 * `ethtool -S IF` printed on the real machine (a fixture's capture).
 * Nothing is invented: a file or string set the driver lacks is skipped.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "sys/sys_real.h"
#include "util/log.h"
#include "util/str.h"

#define NC_NET "/sys/class/net"
#define NC_IB "/sys/class/infiniband"
#define NC_ETHTOOL_TEXT_MAX (1 << 20)

/* The interface holding numeric address @addr, into @ifname. */
static int nc_ifname_of(const char *addr, char *ifname, size_t len, struct fab_err *err)
{
	unsigned char want[16], have[16];
	struct ifaddrs *ifa, *i;
	int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
	int rc = -ENODEV;

	if (inet_pton(family, addr, want) != 1)
		return fab_err_input(err, -EINVAL, "counters: '%s': not a numeric address", addr);
	if (getifaddrs(&ifa) < 0)
		return fab_err_set(err, -errno, "counters: getifaddrs: %s", strerror(errno));
	for (i = ifa; i && rc; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != family)
			continue;
		if (family == AF_INET)
			memcpy(have, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
		else
			memcpy(have, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
		if (memcmp(want, have, family == AF_INET ? 4 : 16) == 0) {
			snprintf(ifname, len, "%s", i->ifa_name);
			rc = 0;
		}
	}
	freeifaddrs(ifa);
	if (rc)
		return fab_err_set(err, rc, "counters: no interface has address %s", addr);
	return 0;
}

/* Every readable number file of directory @dir as @src samples. */
static int nc_dir(struct nic_counters *c, enum nic_src src, unsigned int rdma,
		  const char *dir, struct fab_err *err)
{
	struct dirent **names = NULL;
	char path[1024];
	int n, rc = 0;

	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return 0;	/* the driver has none */
	for (int i = 0; i < n; i++) {
		uint64_t v;

		if (rc == 0 && c->n < NIC_SAMPLES_MAX && names[i]->d_name[0] != '.' && strcmp(names[i]->d_name, "lifespan") &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) < sizeof(path) &&
		    sys_read_u64(path, &v) == 0) {
			rc = nic_counters_add(c, src, rdma, names[i]->d_name, v);
			if (rc == -E2BIG)	/* full: the counters read so far */
				fab_debug("counters: %s: more than %d counters, %s/%s and after left out",
					  c->ifname, NIC_SAMPLES_MAX, dir, names[i]->d_name);
			else if (rc)
				rc = fab_err_set(err, rc, "counters: out of memory");
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* ETHTOOL_GSTATS: the names (GSTRINGS, ETH_SS_STATS) and values of `ethtool -S`. */
static int nc_ethtool_ioctl(struct nic_counters *c, struct fab_err *err)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} sset = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_STATS } };
	struct ethtool_gstrings *strs = NULL;
	struct ethtool_stats *st = NULL;
	struct ifreq ifr;
	uint32_t n;
	int fd, rc = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	if (strlen(c->ifname) >= sizeof(ifr.ifr_name))
		goto out;
	memcpy(ifr.ifr_name, c->ifname, strlen(c->ifname) + 1);
	ifr.ifr_data = (void *)&sset;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0 || !(sset.hdr.sset_mask & (1ULL << ETH_SS_STATS)) ||
	    !sset.len) {
		fab_debug("counters: %s: no ethtool statistics (%s)", c->ifname, strerror(errno));
		goto out;
	}
	/* The first half of the room (mlx5 lists port counters before per-ring ones). */
	n = sset.len;
	if (n > NIC_SAMPLES_MAX / 2)
		n = NIC_SAMPLES_MAX / 2;
	strs = calloc(1, sizeof(*strs) + (size_t)n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)n * sizeof(uint64_t));
	if (!strs || !st) {
		rc = fab_err_set(err, -ENOMEM, "counters: out of memory");
		goto out;
	}
	strs->cmd = ETHTOOL_GSTRINGS;
	strs->string_set = ETH_SS_STATS;
	strs->len = n;
	ifr.ifr_data = (void *)strs;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		goto out;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	ifr.ifr_data = (void *)st;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		goto out;
	/* The driver may have fewer now (a queue went away): the smaller count. */
	if (strs->len < n)
		n = strs->len;
	if (st->n_stats < n)
		n = st->n_stats;
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		char name[ETH_GSTRING_LEN + 1];

		memcpy(name, strs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		if (!name[0])
			continue;
		rc = nic_counters_add(c, NIC_SRC_ETHTOOL, 0, name, st->data[i]);
		if (rc == -E2BIG)
			rc = 0;		/* full: what was read */
		if (rc)
			rc = fab_err_set(err, rc, "counters: out of memory");
	}
out:
	free(strs);
	free(st);
	close(fd);
	return rc;
}

/* A fixture's captured `ethtool -S IF` (regular file or FIFO). */
static int nc_ethtool_text(struct sys *sys, struct nic_counters *c, struct fab_err *err)
{
	char path[1024], *buf;
	size_t len = 0;
	ssize_t k;
	int fd, rc;

	fd = open(sys_path(sys, path, sizeof(path), "/ethtool-S/%s", c->ifname),
		  O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	buf = malloc(NC_ETHTOOL_TEXT_MAX);
	if (!buf) {
		close(fd);
		return fab_err_set(err, -ENOMEM, "counters: out of memory");
	}
	while (len < NC_ETHTOOL_TEXT_MAX &&
	       ((k = read(fd, buf + len, NC_ETHTOOL_TEXT_MAX - len)) > 0 || (k < 0 && errno == EINTR)))
		if (k > 0)
			len += (size_t)k;
	close(fd);
	rc = nic_counters_parse_ethtool(c, buf, len);
	free(buf);
	if (rc == -ENOMEM)
		return fab_err_set(err, rc, "counters: out of memory");
	return 0;	/* -E2BIG: full, what was read */
}

static int nc_rdma_port(struct sys *sys, struct nic_counters *c, const char *dev,
			unsigned int port, struct fab_err *err)
{
	char dir[1024];
	int k, rc;

	for (size_t i = 0; i < c->n_rdma; i++)
		if (strcmp(c->rdma[i].dev, dev) == 0 && c->rdma[i].port == port)
			return 0;
	k = nic_counters_add_rdma(c, dev, port);
	if (k < 0)
		return 0;	/* more ports on one interface than kept: the first ones */
	rc = nc_dir(c, NIC_SRC_HW, (unsigned int)k,
		    sys_path(sys, dir, sizeof(dir), NC_IB "/%s/ports/%u/hw_counters", dev, port), err);
	if (rc == 0)
		rc = nc_dir(c, NIC_SRC_IB, (unsigned int)k,
			    sys_path(sys, dir, sizeof(dir), NC_IB "/%s/ports/%u/counters", dev, port),
			    err);
	return rc;
}

/* Every port of @dev (@only 0), or port @only; those on c->ifname unless @any. */
static int nc_rdma_dev(struct sys *sys, struct nic_counters *c, const char *dev, unsigned int only,
		       bool any, struct fab_err *err)
{
	struct dirent **ports = NULL;
	char dir[1024], path[1024], ndev[64];
	int n, rc = 0;

	n = scandir(sys_path(sys, dir, sizeof(dir), NC_IB "/%s/ports", dev), &ports, NULL,
		    alphasort);
	for (int i = 0; i < n; i++) {
		uint64_t port;

		if (rc == 0 && parse_uint(ports[i]->d_name, 10, &port) == 0 && port <= 255 &&
		    (!only || port == only) &&
		    (any || (sys_read_line(sys_path(sys, path, sizeof(path),
						    NC_IB "/%s/ports/%u/gid_attrs/ndevs/0", dev,
						    (unsigned int)port), ndev, sizeof(ndev)) == 0 &&
			     strcmp(ndev, c->ifname) == 0)))
			rc = nc_rdma_port(sys, c, dev, (unsigned int)port, err);
		free(ports[i]);
	}
	free(ports);
	return rc;
}

int nic_counters_read_all(struct sys *sys, const struct nic_counters_req *req,
			  struct nic_counters *out, struct fab_err *err)
{
	struct dirent **devs = NULL;
	char path[1024], dir[1024];
	uint64_t v;
	int n, rc;

	if (req->ifname && req->ifname[0]) {
		snprintf(out->ifname, sizeof(out->ifname), "%s", req->ifname);
	} else if (req->addr && req->addr[0]) {
		rc = nc_ifname_of(req->addr, out->ifname, sizeof(out->ifname), err);
		if (rc < 0)
			return rc;
	} else {
		return fab_err_input(err, -EINVAL, "counters: no interface and no address given");
	}
	if (strchr(out->ifname, '/') || !strcmp(out->ifname, ".") || !strcmp(out->ifname, ".."))
		return fab_err_input(err, -EINVAL, "counters: '%s': not an interface name", out->ifname);
	if (access(sys_path(sys, path, sizeof(path), NC_NET "/%s", out->ifname), F_OK) < 0)
		return fab_err_set(err, -ENODEV, "counters: %s: no such interface (%s)", out->ifname,
				   path);
	rc = nc_dir(out, NIC_SRC_STATS, 0, sys_path(sys, dir, sizeof(dir), NC_NET "/%s/statistics",
						     out->ifname), err);
	if (rc == 0 && sys_read_u64(sys_path(sys, path, sizeof(path), NC_NET "/%s/carrier_changes",
					     out->ifname), &v) == 0)
		rc = nic_counters_add(out, NIC_SRC_STATS, 0, "carrier_changes", v);
	if (rc == 0)
		rc = sys->root[0] ? nc_ethtool_text(sys, out, err) : nc_ethtool_ioctl(out, err);
	if (rc < 0)
		return rc;
	if (req->rdma && req->rdma[0]) {
		rc = nc_rdma_dev(sys, out, req->rdma, req->rdma_port, true, err);
		if (rc < 0)
			return rc;
	}
	n = scandir(sys_path(sys, path, sizeof(path), NC_IB), &devs, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (rc == 0 && devs[i]->d_name[0] != '.')
			rc = nc_rdma_dev(sys, out, devs[i]->d_name, 0, false, err);
		free(devs[i]);
	}
	free(devs);
	return rc;
}
