// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RoCE default ToS through the rdma_cm configfs:
 *   mkdir <root>/sys/kernel/config/rdma_cm/<dev>
 *   <root>/sys/kernel/config/rdma_cm/<dev>/ports/<port>/default_roce_tos
 *   rmdir <root>/sys/kernel/config/rdma_cm/<dev>
 * The kernel keeps the value after rmdir (it lives in the cma device);
 * the directory only exists to reach it.  A directory that already existed
 * (another tool holds it) is left in place.  In a layout fixture under
 * --root, mkdir/rmdir of a plain directory behave the same way, so the
 * fixture must pre-create ports/<port>/default_roce_tos (it cannot
 * imitate configfs populating them).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sys_real.h"

/* mkdir the device dir if needed; *made tells whether we must rmdir it. */
static int tos_open_dev(struct sys *sys, const char *dev, bool *made, struct fab_err *err)
{
	char path[512];
	struct stat st;

	*made = false;
	if (stat(sys_path(sys, path, sizeof(path), "/sys/kernel/config/rdma_cm"), &st) < 0)
		return fab_err_set(err, -EOPNOTSUPP,
				   "roce_tos: %s: rdma_cm configfs not available (%s: %s)",
				   dev, path, strerror(errno));
	sys_path(sys, path, sizeof(path), "/sys/kernel/config/rdma_cm/%s", dev);
	if (mkdir(path, 0755) == 0) {
		*made = true;
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	if (errno == ENODEV || errno == ENOENT)
		return fab_err_set(err, -ENODEV, "roce_tos: %s: no such rdma device", dev);
	return fab_err_set(err, -errno, "roce_tos: %s: mkdir %s: %s", dev, path, strerror(errno));
}

static void tos_close_dev(struct sys *sys, const char *dev, bool made)
{
	char path[512];

	if (made)
		rmdir(sys_path(sys, path, sizeof(path), "/sys/kernel/config/rdma_cm/%s", dev));
}

int roce_tos_read(struct sys *sys, const char *dev, unsigned int port, unsigned int *tos,
		struct fab_err *err)
{
	char path[512];
	uint64_t v;
	bool made;
	int rc;

	rc = tos_open_dev(sys, dev, &made, err);
	if (rc < 0)
		return rc;
	sys_path(sys, path, sizeof(path),
		 "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos", dev, port);
	rc = sys_read_u64(path, &v);
	if (rc == -ENOENT)
		rc = fab_err_set(err, -EOPNOTSUPP, "roce_tos: %s/%u: no default_roce_tos (%s)",
				 dev, port, path);
	else if (rc < 0)
		fab_err_set(err, rc, "roce_tos: %s/%u: %s: %s", dev, port, path, strerror(-rc));
	else if (v > 255)
		rc = fab_err_set(err, -EINVAL, "roce_tos: %s/%u: unexpected value %llu", dev, port,
				 (unsigned long long)v);
	else
		*tos = (unsigned int)v;
	tos_close_dev(sys, dev, made);
	return rc;
}

int roce_tos_set(struct sys *sys, const char *dev, unsigned int port, unsigned int tos,
	       struct fab_err *err)
{
	char path[512], val[8];
	bool made;
	int rc;

	if (tos > 255)
		return fab_err_set(err, -EINVAL, "roce_tos: %s/%u: tos %u out of range 0-255",
				   dev, port, tos);
	rc = tos_open_dev(sys, dev, &made, err);
	if (rc < 0)
		return rc;
	sys_path(sys, path, sizeof(path),
		 "/sys/kernel/config/rdma_cm/%s/ports/%u/default_roce_tos", dev, port);
	snprintf(val, sizeof(val), "%u\n", tos);
	rc = sys_write_line(path, val);
	if (rc == -ENOENT)
		rc = fab_err_set(err, -EOPNOTSUPP, "roce_tos: %s/%u: %s: %s", dev, port, path,
				 strerror(ENOENT));
	else if (rc < 0)
		rc = fab_err_set(err, rc, "roce_tos: %s/%u: write %s: %s", dev, port, path,
				 strerror(-rc));
	tos_close_dev(sys, dev, made);
	return rc;
}
