// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DCQCN parameters in either mlx5 layout (model/dcqcn.h):
 *   vendor driver:  <root>/sys/class/net/IF/ecn/roce_np/cnp_dscp, roce_rp/rpg_ai_rate, ...
 *   inbox mlx5_ib:  <root>/sys/kernel/debug/mlx5/BDF/cc_params/np_cnp_dscp, rp_ai_rate, ...
 *                   (BDF: basename of the IF/device link; debugfs needs root)
 * The vendor layout wins when both are there.  Each file holds one decimal
 * number.  Tests use layout fixtures under --root.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/sys_real.h"

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool any_param(const char *dir, bool vendor)
{
	char path[768];

	for (int i = 0; i < DCQCN_N; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir,
			 vendor ? dcqcn_params[i].vendor : dcqcn_params[i].debugfs);
		if (is_file(path))
			return true;
	}
	return false;
}

/* The layout of @ifname's parameters and their directory in @dir; -ENODEV / -EOPNOTSUPP named. */
static int dcqcn_dir(struct sys *sys, const char *ifname, char *dir, size_t len,
		     enum dcqcn_layout *layout, struct fab_err *err)
{
	char path[512], link[512];
	struct stat st;
	ssize_t n;

	if (stat(sys_path(sys, path, sizeof(path), "/sys/class/net/%s", ifname), &st) < 0)
		return fab_err_set(err, -ENODEV, "dcqcn: %s: no such device", ifname);
	sys_path(sys, dir, len, "/sys/class/net/%s/ecn", ifname);
	if (any_param(dir, true)) {
		*layout = DCQCN_LAYOUT_VENDOR;
		return 0;
	}
	n = readlink(sys_path(sys, path, sizeof(path), "/sys/class/net/%s/device", ifname), link,
		     sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		sys_path(sys, dir, len, "/sys/kernel/debug/mlx5/%s/cc_params", basename(link));
		if (any_param(dir, false)) {
			*layout = DCQCN_LAYOUT_DEBUGFS;
			return 0;
		}
	}
	return fab_err_set(err, -EOPNOTSUPP,
			   "dcqcn: %s: no DCQCN parameters (no ecn/roce_np or roce_rp files in sysfs, no mlx5 cc_params in debugfs)",
			   ifname);
}

static const char *param_path(const char *dir, enum dcqcn_layout layout, int i, char *buf,
			      size_t len)
{
	snprintf(buf, len, "%s/%s", dir, layout == DCQCN_LAYOUT_VENDOR ? dcqcn_params[i].vendor
									 : dcqcn_params[i].debugfs);
	return buf;
}

int sysfs_dcqcn_read(struct sys *sys, const char *ifname, struct fab_dcqcn *d,
		     struct fab_err *err)
{
	char dir[512], path[768];
	int rc;

	memset(d, 0, sizeof(*d));
	rc = dcqcn_dir(sys, ifname, dir, sizeof(dir), &d->layout, err);
	if (rc < 0)
		return rc;
	for (int i = 0; i < DCQCN_N; i++) {
		uint64_t v;

		param_path(dir, d->layout, i, path, sizeof(path));
		if (!is_file(path))
			continue;	/* this driver version lacks it */
		rc = sys_read_u64(path, &v);
		if (rc < 0)
			return fab_err_set(err, rc, "dcqcn: %s: %s: %s", ifname, path, strerror(-rc));
		if (v > UINT32_MAX)
			return fab_err_set(err, -EINVAL, "dcqcn: %s: %s: unexpected value %llu",
					   ifname, path, (unsigned long long)v);
		d->have[i] = true;
		d->val[i] = (uint32_t)v;
	}
	return 0;
}

int sysfs_dcqcn_set(struct sys *sys, const char *ifname, enum dcqcn_param p, uint32_t val,
		    struct fab_err *err)
{
	char dir[512], path[768], text[16];
	enum dcqcn_layout layout;
	int rc;

	if ((unsigned int)p >= DCQCN_N)
		return fab_err_set(err, -EINVAL, "dcqcn: %s: bad parameter %d", ifname, (int)p);
	rc = dcqcn_dir(sys, ifname, dir, sizeof(dir), &layout, err);
	if (rc < 0)
		return rc;
	if (!is_file(param_path(dir, layout, p, path, sizeof(path))))
		return fab_err_set(err, -EOPNOTSUPP, "dcqcn: %s: %s not supported by driver (no %s)",
				   ifname, dcqcn_params[p].key, path);
	snprintf(text, sizeof(text), "%u\n", val);
	rc = sys_write_line(path, text);
	if (rc < 0)
		return fab_err_set(err, rc, "dcqcn: %s: %s: write %u to %s: %s", ifname,
				   dcqcn_params[p].key, val, path, strerror(-rc));
	return 0;
}
