// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The node-wide facts of the PCIe view (sys/pcie.c reads the devices):
 *
 *   <root>/sys/devices/system/node/nodeN[/cpulist]             NUMA nodes
 *   <root>/sys/devices/system/cpu/cpuK/topology/physical_package_id   a node's socket
 *   <root>/sys/module/{nvidia_peermem,nv_peer_mem,ib_peer_mem,amdp2p}  peer memory
 *   <root>/proc/sys/kernel/osrelease, <root>/sys/module/{amdgpu,nvidia},
 *   <root>/proc/driver/nvidia/version ("Open Kernel Module")    dma-buf
 *   ETHTOOL_GSSET_INFO / GSTRINGS (ETH_SS_PRIV_FLAGS) / GPFLAGS  firmware LLDP
 *     (with a root set: <root>/ethtool-priv-flags/IF, the text of
 *     `ethtool --show-priv-flags IF`, when there is one)
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/pcie.h"
#include "sys/sys_real.h"
#include "util/str.h"

#define PRIV_FLAGS_TEXT_MAX 8192

unsigned int pcie_host_numa_nodes(struct sys *sys)
{
	char path[512];
	struct dirent *de;
	unsigned int n = 0;
	DIR *dir;

	dir = opendir(sys_path(sys, path, sizeof(path), "/sys/devices/system/node"));
	if (!dir)
		return 0;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, "node", 4) && isdigit((unsigned char)de->d_name[4]))
			n++;
	closedir(dir);
	return n;
}

int pcie_host_socket(struct sys *sys, int node)
{
	char path[512], buf[256];
	unsigned int cpu;
	uint64_t pkg;

	if (node < 0)
		return -1;
	sys_path(sys, path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (sys_read_line(path, buf, sizeof(buf)) < 0 || str_scan(buf, "%u", &cpu) != 1) {
		/* One node and no node directory: the first CPU's socket. */
		if (node != 0)
			return -1;
		cpu = 0;
	}
	sys_path(sys, path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%u/topology/physical_package_id", cpu);
	if (sys_read_u64(path, &pkg) < 0 || pkg > 4095)
		return -1;
	return (int)pkg;
}

static bool module_loaded(struct sys *sys, const char *name)
{
	char path[512];
	struct stat st;

	return stat(sys_path(sys, path, sizeof(path), "/sys/module/%s", name), &st) == 0;
}

static bool nvidia_open(struct sys *sys)
{
	char path[512], buf[512];

	if (!module_loaded(sys, "nvidia"))
		return false;
	sys_path(sys, path, sizeof(path), "/proc/driver/nvidia/version");
	return sys_read_line(path, buf, sizeof(buf)) == 0 && strstr(buf, "Open Kernel Module");
}

void pcie_host_gpudirect(struct sys *sys, struct pcie_gpudirect *gd)
{
	static const char *const peer[] = { "nvidia_peermem", "nv_peer_mem", "ib_peer_mem",
					    "amdp2p", NULL };
	char path[512], rel[128];

	memset(gd, 0, sizeof(*gd));
	for (int i = 0; peer[i] && !gd->peer_mem[0]; i++)
		if (module_loaded(sys, peer[i]))
			str_fmt(gd->peer_mem, sizeof(gd->peer_mem), "%s", peer[i]);
	sys_path(sys, path, sizeof(path), "/proc/sys/kernel/osrelease");
	if (sys_read_line(path, rel, sizeof(rel)) < 0 || !pcie_kernel_at_least(rel, 5, 12))
		return;
	if (module_loaded(sys, "amdgpu"))
		str_fmt(gd->dma_buf_via, sizeof(gd->dma_buf_via), "amdgpu");
	else if (nvidia_open(sys))
		str_fmt(gd->dma_buf_via, sizeof(gd->dma_buf_via), "nvidia-open");
	gd->dma_buf = gd->dma_buf_via[0] != '\0';
}

/* ETHTOOL_GPFLAGS: every private flag of @ifname through pcie_fw_lldp_flag(). */
static void priv_flags_ioctl(const char *ifname, struct pcie_dev *d)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} sset = { .hdr = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ULL << ETH_SS_PRIV_FLAGS } };
	struct ethtool_gstrings *strs = NULL;
	struct ethtool_value val = { .cmd = ETHTOOL_GPFLAGS };
	struct ifreq ifr;
	uint32_t n;
	int fd;

	if (strlen(ifname) >= sizeof(ifr.ifr_name))
		return;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname) + 1);
	ifr.ifr_data = (void *)&sset;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0 || !(sset.hdr.sset_mask & (1ULL << ETH_SS_PRIV_FLAGS)))
		goto out;
	n = sset.len < 32 ? sset.len : 32;	/* GPFLAGS is one 32-bit word */
	strs = calloc(1, sizeof(*strs) + (size_t)n * ETH_GSTRING_LEN);
	if (!n || !strs)
		goto out;
	strs->cmd = ETHTOOL_GSTRINGS;
	strs->string_set = ETH_SS_PRIV_FLAGS;
	strs->len = n;
	ifr.ifr_data = (void *)strs;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		goto out;
	ifr.ifr_data = (void *)&val;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		goto out;
	for (uint32_t i = 0; i < n && i < strs->len; i++) {
		char name[ETH_GSTRING_LEN + 1];

		memcpy(name, strs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		pcie_fw_lldp_flag(d, name, val.data & (1u << i));
	}
out:
	free(strs);
	close(fd);
}

/* A fixture's captured `ethtool --show-priv-flags IF`. */
static void priv_flags_text(struct sys *sys, const char *ifname, struct pcie_dev *d)
{
	char path[512], *buf;
	ssize_t k;
	size_t len = 0;
	int fd;

	fd = open(sys_path(sys, path, sizeof(path), "/ethtool-priv-flags/%s", ifname),
		  O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	buf = malloc(PRIV_FLAGS_TEXT_MAX);
	while (buf && len < PRIV_FLAGS_TEXT_MAX &&
	       ((k = read(fd, buf + len, PRIV_FLAGS_TEXT_MAX - len)) > 0 || (k < 0 && errno == EINTR)))
		len += k > 0 ? (size_t)k : 0;
	close(fd);
	if (buf)
		pcie_fw_lldp_parse(d, buf, len);
	free(buf);
}

void pcie_host_fw_lldp(struct sys *sys, struct pcie_dev *d)
{
	for (size_t i = 0; i < d->n_netdevs && d->fw_lldp == PCIE_FW_LLDP_UNKNOWN; i++) {
		if (sys->root[0])
			priv_flags_text(sys, d->netdevs[i], d);
		else
			priv_flags_ioctl(d->netdevs[i], d);
	}
}
