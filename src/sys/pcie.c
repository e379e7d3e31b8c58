// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The node's NICs and GPUs as PCIe sees them (model/pcie.h), from sysfs:
 *
 *   <root>/sys/class/net/IF, <root>/sys/class/infiniband/DEV   the NICs: each
 *       resolved (realpath) into /sys/devices/pciDDDD:BB/<bridge BDF>.../<BDF>/...
 *   <root>/sys/bus/pci/devices/BDF/class                     the GPUs
 *   DEV/{vendor,device,class,numa_node,driver,physfn,iommu_group/type}
 *   DEV/{current,max}_link_{speed,width}                     each end of each link
 *   DEV/config                                               PCIe port type, ACS (root only
 *                                                            sees past the first 64 bytes)
 *
 * The bridges of a device are the BDF components of its sysfs path above
 * it, root port first.  Node, socket and GPUDirect facts: sys/pcie_host.c.
 * A tree under --root (a layout fixture) is read the same way; its
 * symlinks must be relative so that they resolve inside it.  Nothing
 * here fails for a missing file: what cannot be read stays unknown.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/pcie.h"
#include "model/pcie_topo.h"
#include "sys/sys_real.h"
#include "util/log.h"
#include "util/str.h"

#define PCIE_MAX_DEPTH 16	/* bridges above a device */

/* Where a sysfs device path leads: its host bridge, its bridges and itself. */
struct pcie_place {
	char dir[PATH_MAX];	/* the device's directory (root prefix included) */
	char host[PCIE_BDF_LEN];
	char bdf[PCIE_MAX_DEPTH + 1][PCIE_BDF_LEN];	/* bridges, then the device */
	size_t end[PCIE_MAX_DEPTH + 1];	/* dir cut here is each one's directory */
	size_t n;
};

struct pcie_rd {
	struct sys *sys;
	struct pcie_view *v;
	char root[PATH_MAX];	/* realpath of sys->root, "" for / */
};

/*
 * @real: a resolved path under @rd->root.  Find "pciDDDD:BB" and the BDF
 * components after it; 0, or -ENOENT when it leads to no PCI function.
 */
static int place_parse(const struct pcie_rd *rd, const char *real, struct pcie_place *pl)
{
	const char *rel = real + strlen(rd->root), *p = rel, *host = NULL;
	size_t dirlen = 0;

	memset(pl, 0, sizeof(*pl));
	while (*p) {
		const char *e = p + strcspn(p + 1, "/") + 1;
		char comp[64];

		str_fmt(comp, sizeof(comp), "%.*s", (int)(e - p - 1), p + 1);
		if (!host && !strncmp(comp, "pci", 3) && strlen(comp) == 10 && comp[7] == ':') {
			host = p;
			str_fmt(pl->host, sizeof(pl->host), "%s", comp);
		} else if (host && pcie_is_bdf(comp) && pl->n <= PCIE_MAX_DEPTH) {
			dirlen = (size_t)(e - rel);
			pl->end[pl->n] = strlen(rd->root) + dirlen;
			str_fmt(pl->bdf[pl->n++], sizeof(pl->bdf[0]), "%s", comp);
		} else if (host) {
			break;
		}
		p = e;
	}
	if (!pl->n)
		return -ENOENT;
	str_fmt(pl->dir, sizeof(pl->dir), "%s%.*s", rd->root, (int)dirlen, rel);
	return 0;
}

/* Resolve @path and place it; -ENOENT when it is no PCI function. */
static int place_of(const struct pcie_rd *rd, const char *path, struct pcie_place *pl)
{
	char real[PATH_MAX];

	if (!realpath(path, real) || strncmp(real, rd->root, strlen(rd->root)))
		return -ENOENT;
	return place_parse(rd, real, pl);
}

static void read_str(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];

	str_fmt(path, sizeof(path), "%s/%s", dir, name);
	if (sys_read_line(path, buf, len) < 0)
		buf[0] = '\0';
}

static uint64_t read_num(const char *dir, const char *name, uint64_t dflt)
{
	char path[PATH_MAX];
	uint64_t v;

	str_fmt(path, sizeof(path), "%s/%s", dir, name);
	return sys_read_u64(path, &v) < 0 ? dflt : v;
}

static void read_link(const char *dir, struct pcie_link *l)
{
	char buf[64];

	read_str(dir, "current_link_speed", buf, sizeof(buf));
	l->speed_mts = pcie_speed_parse(buf);
	read_str(dir, "max_link_speed", buf, sizeof(buf));
	l->max_speed_mts = pcie_speed_parse(buf);
	l->width = (unsigned int)read_num(dir, "current_link_width", 0);
	l->max_width = (unsigned int)read_num(dir, "max_link_width", 0);
	if (l->width > 32)
		l->width = 0;	/* 255: no link */
	if (l->max_width > 32)
		l->max_width = 0;
}

/* Config space (as much as sysfs gives us: 64 bytes without root) -> port type, ACS. */
static void read_config(struct pcie_rd *rd, const char *dir, enum pcie_port_type *type,
			struct pcie_acs *acs)
{
	uint8_t cfg[4096];
	char path[PATH_MAX];
	size_t len = 0;
	ssize_t k;
	int fd;

	str_fmt(path, sizeof(path), "%s/config", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		while (len < sizeof(cfg) &&
		       ((k = pread(fd, cfg + len, sizeof(cfg) - len, (off_t)len)) > 0 ||
			(k < 0 && errno == EINTR)))
			len += k > 0 ? (size_t)k : 0;
		close(fd);
	}
	pcie_config_parse(cfg, len, type, acs);
	if (len > 64)
		rd->v->config_read = true;	/* past what anyone may read: root */
}

static void read_driver(const char *dir, char *buf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	buf[0] = '\0';
	str_fmt(path, sizeof(path), "%s/driver", dir);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	str_fmt(buf, len, "%s", strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
}

static void read_iommu(const char *dir, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct stat st;

	str_fmt(path, sizeof(path), "%s/iommu_group", dir);
	if (lstat(path, &st) < 0) {
		str_fmt(buf, len, "off");
		return;
	}
	read_str(dir, "iommu_group/type", buf, len);
	if (!buf[0])
		str_fmt(buf, len, "on");	/* a kernel before group types (5.11) */
}

static int read_bridges(struct pcie_rd *rd, const struct pcie_place *pl, struct pcie_dev *d)
{
	char dir[PATH_MAX];

	for (size_t i = 0; i + 1 < pl->n; i++) {
		struct pcie_bridge *b = pcie_dev_bridge_add(d);

		if (!b)
			return -ENOMEM;
		str_fmt(b->bdf, sizeof(b->bdf), "%s", pl->bdf[i]);
		str_fmt(dir, sizeof(dir), "%.*s", (int)pl->end[i], pl->dir);
		read_link(dir, &b->link);
		read_config(rd, dir, &b->type, &b->acs);
	}
	return 0;
}

/* Everything about the function at @pl into @d. */
static int dev_read(struct pcie_rd *rd, const struct pcie_place *pl, struct pcie_dev *d)
{
	str_fmt(d->bdf, sizeof(d->bdf), "%s", pl->bdf[pl->n - 1]);
	str_fmt(d->host_bridge, sizeof(d->host_bridge), "%s", pl->host);
	d->vendor = (uint16_t)read_num(pl->dir, "vendor", 0);
	d->device = (uint16_t)read_num(pl->dir, "device", 0);
	d->class_code = (uint32_t)read_num(pl->dir, "class", 0);
	read_driver(pl->dir, d->driver, sizeof(d->driver));
	d->numa_node = (int)(int64_t)read_num(pl->dir, "numa_node", (uint64_t)-1);
	if (d->numa_node < -1 || d->numa_node > 4095)
		d->numa_node = -1;
	read_iommu(pl->dir, d->iommu, sizeof(d->iommu));
	read_link(pl->dir, &d->link);
	/* Not the device's own config space: reading it wakes a runtime-suspended GPU. */
	if (read_bridges(rd, pl, d) < 0)
		return -ENOMEM;
	if (!d->link.width && !d->link.speed_mts && d->n_bridges) {
		/* A conventional PCI function: the link it sits on is its port's. */
		d->link = d->bridges[d->n_bridges - 1].link;
		d->link_from_port = true;
	}
	d->socket = pcie_host_socket(rd->sys, pcie_numa(rd->v, d));
	return 0;
}

static bool is_vf(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	str_fmt(path, sizeof(path), "%s/physfn", dir);
	return lstat(path, &st) == 0;
}

/* One entry of /sys/class/@cls: its PCI function becomes (or joins) a NIC. */
static int nic_entry(struct pcie_rd *rd, const char *cls, const char *name)
{
	char path[PATH_MAX];
	struct pcie_place pl;
	struct pcie_dev *d;

	sys_path(rd->sys, path, sizeof(path), "/sys/class/%s/%s", cls, name);
	if (place_of(rd, path, &pl) < 0 || is_vf(pl.dir))
		return 0;
	d = pcie_view_nic_by_bdf(rd->v, pl.bdf[pl.n - 1]);
	if (!d) {
		d = pcie_view_nic_add(rd->v);
		if (!d || dev_read(rd, &pl, d) < 0)
			return -ENOMEM;
	}
	pcie_dev_name_add(d, name, !strcmp(cls, "infiniband"));
	return 0;
}

static int nics_read(struct pcie_rd *rd, const char *cls)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	dir = opendir(sys_path(rd->sys, path, sizeof(path), "/sys/class/%s", cls));
	if (!dir)
		return 0;
	while (rc == 0 && (de = readdir(dir)))
		if (de->d_name[0] != '.')
			rc = nic_entry(rd, cls, de->d_name);
	closedir(dir);
	return rc;
}

static int gpu_entry(struct pcie_rd *rd, const char *bdf)
{
	char path[PATH_MAX];
	struct pcie_place pl;
	struct pcie_dev *d;
	uint32_t cls;

	sys_path(rd->sys, path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	cls = (uint32_t)read_num(path, "class", 0);
	if (!pcie_class_is_gpu(cls, (uint16_t)read_num(path, "vendor", 0)))
		return 0;
	if (place_of(rd, path, &pl) < 0 || is_vf(pl.dir))
		return 0;
	d = pcie_view_gpu_add(rd->v);
	if (!d || dev_read(rd, &pl, d) < 0)
		return -ENOMEM;
	return 0;
}

static int gpus_read(struct pcie_rd *rd)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	dir = opendir(sys_path(rd->sys, path, sizeof(path), "/sys/bus/pci/devices"));
	if (!dir)
		return 0;
	while (rc == 0 && (de = readdir(dir)))
		if (pcie_is_bdf(de->d_name))
			rc = gpu_entry(rd, de->d_name);
	closedir(dir);
	return rc;
}

int pcie_read_all(struct sys *sys, struct pcie_view *v, struct fab_err *err)
{
	struct pcie_rd rd = { .sys = sys, .v = v };
	int rc;

	if (sys->root[0] && !realpath(sys->root, rd.root))
		return fab_err_set(err, -errno, "pcie: %s: %s", sys->root, strerror(errno));
	v->numa_nodes = pcie_host_numa_nodes(sys);
	rc = nics_read(&rd, "net");
	if (rc == 0)
		rc = nics_read(&rd, "infiniband");
	if (rc == 0)
		rc = gpus_read(&rd);
	if (rc < 0)
		return fab_err_set(err, rc, "pcie: out of memory");
	pcie_view_sort(v);
	pcie_host_gpudirect(sys, &v->gd);
	for (size_t i = 0; i < v->n_nics; i++)
		pcie_host_fw_lldp(sys, &v->nics[i]);
	fab_debug("pcie: %zu nics, %zu gpus, %u numa nodes, config %s", v->n_nics, v->n_gpus,
		  v->numa_nodes, v->config_read ? "read" : "not readable");
	return 0;
}
