// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ECN per priority in the mlx5 sysfs layout:
 *   <root>/sys/class/net/<if>/ecn/roce_np/enable/<prio>   (notification point)
 *   <root>/sys/class/net/<if>/ecn/roce_rp/enable/<prio>   (reaction point)
 * each file holding "0" or "1".  Tests use a layout fixture under --root.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/sys_real.h"

static const char *const point_dir[] = { "roce_np", "roce_rp" };

/* Check the device and the ecn/<point> directory; -ENODEV / -EOPNOTSUPP named. */
static int ecn_check(struct sys *sys, const char *ifname, enum fab_ecn_point point,
		     struct fab_err *err)
{
	char path[512];
	struct stat st;

	if ((unsigned int)point > FAB_ECN_RP)
		return fab_err_set(err, -EINVAL, "ecn: %s: bad ecn point %d", ifname, (int)point);
	if (stat(sys_path(sys, path, sizeof(path), "/sys/class/net/%s", ifname), &st) < 0)
		return fab_err_set(err, -ENODEV, "ecn: %s: no such device", ifname);
	if (stat(sys_path(sys, path, sizeof(path), "/sys/class/net/%s/ecn/%s/enable",
			  ifname, point_dir[point]), &st) < 0 || !S_ISDIR(st.st_mode))
		return fab_err_set(err, -EOPNOTSUPP,
				   "ecn: %s: %s not supported by driver (no %s)", ifname,
				   point_dir[point], path);
	return 0;
}

int sysfs_ecn_read(struct sys *sys, const char *ifname, enum fab_ecn_point point,
		   uint8_t *mask, struct fab_err *err)
{
	char path[512];
	uint8_t m = 0;
	int rc;

	rc = ecn_check(sys, ifname, point, err);
	if (rc < 0)
		return rc;
	for (unsigned int p = 0; p < FAB_DCB_NPRIO; p++) {
		uint64_t v;

		sys_path(sys, path, sizeof(path), "/sys/class/net/%s/ecn/%s/enable/%u",
			 ifname, point_dir[point], p);
		rc = sys_read_u64(path, &v);
		if (rc < 0)
			return fab_err_set(err, rc, "ecn: %s: %s: %s", ifname, path, strerror(-rc));
		if (v > 1)
			return fab_err_set(err, -EINVAL, "ecn: %s: %s: unexpected value %llu",
					   ifname, path, (unsigned long long)v);
		if (v)
			m |= (uint8_t)(1u << p);
	}
	*mask = m;
	return 0;
}

int sysfs_ecn_set(struct sys *sys, const char *ifname, enum fab_ecn_point point,
		  unsigned int prio, bool enable, struct fab_err *err)
{
	char path[512];
	int rc;

	if (prio >= FAB_DCB_NPRIO)
		return fab_err_set(err, -EINVAL, "ecn: %s: priority %u out of range 0-7",
				   ifname, prio);
	rc = ecn_check(sys, ifname, point, err);
	if (rc < 0)
		return rc;
	sys_path(sys, path, sizeof(path), "/sys/class/net/%s/ecn/%s/enable/%u",
		 ifname, point_dir[point], prio);
	rc = sys_write_line(path, enable ? "1\n" : "0\n");
	if (rc < 0)
		return fab_err_set(err, rc, "ecn: %s: write %s: %s", ifname, path, strerror(-rc));
	return 0;
}
