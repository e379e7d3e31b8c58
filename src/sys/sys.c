// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/sys.h"
#include "sys/sys_real.h"

void sys_free(struct sys *sys)
{
	if (!sys)
		return;
	if (sys->ops && sys->ops->free)
		sys->ops->free(sys);
	free(sys);
}

/* The PCIe view into hs->pcie (replacing one read before). */
static int host_state_pcie_read(struct sys *sys, struct host_state *hs, struct fab_err *err)
{
	struct pcie_view *v = pcie_view_new();
	int rc;

	if (!v)
		return fab_err_set(err, -ENOMEM, "pcie: out of memory");
	rc = sys->ops->pcie_read(sys, v, err);
	if (rc < 0) {
		pcie_view_free(v);
		return rc;
	}
	pcie_view_free(hs->pcie);
	hs->pcie = v;
	return 0;
}

int sys_host_state_read(struct sys *sys, struct host_state *hs, unsigned int flags,
			struct fab_err *err)
{
	int rc;

	if (!sys->ops->links_read || !sys->ops->rdma_read)
		return fab_err_set(err, -EOPNOTSUPP, "%s: cannot read host state", sys->ops->name);
	if (gethostname(hs->hostname, sizeof(hs->hostname) - 1) < 0)
		hs->hostname[0] = '\0';
	rc = sys->ops->links_read(sys, hs, err);
	if (rc < 0)
		return rc;
	rc = sys->ops->rdma_read(sys, hs, flags, err);
	if (rc < 0)
		return rc;
	if ((flags & SYS_READ_PCIE) && sys->ops->pcie_read) {
		rc = host_state_pcie_read(sys, hs, err);
		if (rc < 0)
			return rc;
	}
	host_state_resolve_masters(hs);
	host_state_sort(hs);
	return 0;
}

const char *sys_path(const struct sys *sys, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(buf, len, "%s", sys ? sys->root : "");
	if (n < 0 || (size_t)n >= len)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return buf;
}

int sys_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		rc = -errno;
		goto out;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
out:
	close(fd);
	return rc;
}

int sys_read_u64(const char *path, uint64_t *val)
{
	char buf[64], *end;
	unsigned long long v;
	int rc;

	rc = sys_read_line(path, buf, sizeof(buf));
	if (rc < 0)
		return rc;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	*val = v;
	return 0;
}

int sys_write_line(const char *path, const char *text)
{
	size_t len = strlen(text);
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		rc = errno ? -errno : -EIO;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* ---- the sys_*() wrappers: a missing slot is -EOPNOTSUPP with a message ---- */

static int no_slot(const struct sys *sys, const char *what, const char *obj,
		   struct fab_err *err)
{
	if (obj)
		return fab_err_set(err, -EOPNOTSUPP, "%s: %s: not supported by %s", what, obj,
				   sys->ops->name);
	return fab_err_set(err, -EOPNOTSUPP, "%s: not supported by %s", what, sys->ops->name);
}

int sys_link_mtu_set(struct sys *sys, const char *ifname, unsigned int mtu, struct fab_err *err)
{
	if (!sys->ops->link_mtu_set)
		return no_slot(sys, "mtu", ifname, err);
	return sys->ops->link_mtu_set(sys, ifname, mtu, err);
}

int sys_dcb_read(struct sys *sys, const char *ifname, struct fab_dcb *dcb, struct fab_err *err)
{
	if (!sys->ops->dcb_read)
		return no_slot(sys, "dcb", ifname, err);
	return sys->ops->dcb_read(sys, ifname, dcb, err);
}

int sys_dcb_pfc_set(struct sys *sys, const char *ifname, const struct fab_dcb_pfc *pfc,
		    struct fab_err *err)
{
	if (!sys->ops->dcb_pfc_set)
		return no_slot(sys, "dcb", ifname, err);
	return sys->ops->dcb_pfc_set(sys, ifname, pfc, err);
}

int sys_dcb_ets_set(struct sys *sys, const char *ifname, const struct fab_dcb_ets *ets,
		    struct fab_err *err)
{
	if (!sys->ops->dcb_ets_set)
		return no_slot(sys, "dcb", ifname, err);
	return sys->ops->dcb_ets_set(sys, ifname, ets, err);
}

int sys_dcb_app_add(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
		    size_t n, struct fab_err *err)
{
	if (!sys->ops->dcb_app_add)
		return no_slot(sys, "dcb", ifname, err);
	return sys->ops->dcb_app_add(sys, ifname, apps, n, err);
}

int sys_dcb_app_del(struct sys *sys, const char *ifname, const struct fab_dcb_app *apps,
		    size_t n, struct fab_err *err)
{
	if (!sys->ops->dcb_app_del)
		return no_slot(sys, "dcb", ifname, err);
	return sys->ops->dcb_app_del(sys, ifname, apps, n, err);
}

int sys_dcb_trust_set(struct sys *sys, const char *ifname, const uint8_t *sel, size_t n,
		      struct fab_err *err)
{
	if (!sys->ops->dcb_trust_set)
		return no_slot(sys, "dcb", ifname, err);
	return sys->ops->dcb_trust_set(sys, ifname, sel, n, err);
}

int sys_bond_read(struct sys *sys, const char *name, struct fab_bond *bond, struct fab_err *err)
{
	if (!sys->ops->bond_read)
		return no_slot(sys, "bond", name, err);
	return sys->ops->bond_read(sys, name, bond, err);
}

int sys_bond_create(struct sys *sys, const struct fab_bond *want, struct fab_err *err)
{
	if (!sys->ops->bond_create)
		return no_slot(sys, "bond", want->name, err);
	return sys->ops->bond_create(sys, want, err);
}

int sys_bond_delete(struct sys *sys, const char *name, struct fab_err *err)
{
	if (!sys->ops->bond_delete)
		return no_slot(sys, "bond", name, err);
	return sys->ops->bond_delete(sys, name, err);
}

int sys_bond_set(struct sys *sys, const struct fab_bond *want, struct fab_err *err)
{
	if (!sys->ops->bond_set)
		return no_slot(sys, "bond", want->name, err);
	return sys->ops->bond_set(sys, want, err);
}

int sys_bond_enslave(struct sys *sys, const char *bond, const char *member, struct fab_err *err)
{
	if (!sys->ops->bond_enslave)
		return no_slot(sys, "bond", bond, err);
	return sys->ops->bond_enslave(sys, bond, member, err);
}

int sys_bond_release(struct sys *sys, const char *member, struct fab_err *err)
{
	if (!sys->ops->bond_release)
		return no_slot(sys, "bond", member, err);
	return sys->ops->bond_release(sys, member, err);
}

int sys_ecn_read(struct sys *sys, const char *ifname, enum fab_ecn_point point, uint8_t *mask,
		 struct fab_err *err)
{
	if (!sys->ops->ecn_read)
		return no_slot(sys, "ecn", ifname, err);
	return sys->ops->ecn_read(sys, ifname, point, mask, err);
}

int sys_ecn_set(struct sys *sys, const char *ifname, enum fab_ecn_point point, unsigned int prio,
		bool enable, struct fab_err *err)
{
	if (!sys->ops->ecn_set)
		return no_slot(sys, "ecn", ifname, err);
	return sys->ops->ecn_set(sys, ifname, point, prio, enable, err);
}

int sys_roce_tos_read(struct sys *sys, const char *dev, unsigned int port, unsigned int *tos,
		      struct fab_err *err)
{
	if (!sys->ops->roce_tos_read)
		return no_slot(sys, "roce_tos", dev, err);
	return sys->ops->roce_tos_read(sys, dev, port, tos, err);
}

int sys_roce_tos_set(struct sys *sys, const char *dev, unsigned int port, unsigned int tos,
		     struct fab_err *err)
{
	if (!sys->ops->roce_tos_set)
		return no_slot(sys, "roce_tos", dev, err);
	return sys->ops->roce_tos_set(sys, dev, port, tos, err);
}

int sys_lldp_read(struct sys *sys, const char *socket, struct lldp_view *view,
		  struct fab_err *err)
{
	if (!sys->ops->lldp_read)
		return no_slot(sys, "lldp", NULL, err);
	return sys->ops->lldp_read(sys, socket, view, err);
}

int sys_nic_counters_read(struct sys *sys, const struct nic_counters_req *req,
			  struct nic_counters *out, struct fab_err *err)
{
	if (!sys->ops->nic_counters_read)
		return no_slot(sys, "counters", req->ifname, err);
	return sys->ops->nic_counters_read(sys, req, out, err);
}

int sys_module_page_read(struct sys *sys, const char *ifname, const struct module_page_req *req,
			 uint8_t *buf, struct fab_err *err)
{
	if (!sys->ops->module_page_read)
		return no_slot(sys, "module", ifname, err);
	return sys->ops->module_page_read(sys, ifname, req, buf, err);
}

int sys_link_phy_read(struct sys *sys, const char *ifname, struct optics_link *l,
		      struct fab_err *err)
{
	if (!sys->ops->link_phy_read)
		return no_slot(sys, "link", ifname, err);
	return sys->ops->link_phy_read(sys, ifname, l, err);
}

int sys_pcie_read(struct sys *sys, struct pcie_view *v, struct fab_err *err)
{
	if (!sys->ops->pcie_read)
		return no_slot(sys, "pcie", NULL, err);
	return sys->ops->pcie_read(sys, v, err);
}

int sys_subnet_read(struct sys *sys, const struct subnet_opts *o, struct topo *t,
		    struct fab_err *err)
{
	if (!sys->ops->subnet_read)
		return no_slot(sys, "subnet", NULL, err);
	return sys->ops->subnet_read(sys, o, t, err);
}

int sys_subnet_vl_read(struct sys *sys, const struct subnet_opts *o, const struct topo *t,
		       struct ib_vl_data *vd, struct fab_err *err)
{
	if (!sys->ops->subnet_vl_read)
		return no_slot(sys, "subnet sl2vl", NULL, err);
	return sys->ops->subnet_vl_read(sys, o, t, vd, err);
}

int sys_pending_lock(struct sys *sys, int *lock, struct fab_err *err)
{
	if (!sys->ops->pending_lock)
		return no_slot(sys, "apply", "lock", err);
	return sys->ops->pending_lock(sys, lock, err);
}

void sys_pending_unlock(struct sys *sys, int lock)
{
	if (sys->ops->pending_unlock)
		sys->ops->pending_unlock(sys, lock);
}

const char *sys_pending_path(struct sys *sys, char *buf, size_t len)
{
	if (!sys->ops->pending_path) {
		snprintf(buf, len, "(no pending state in %s)", sys->ops->name);
		return buf;
	}
	return sys->ops->pending_path(sys, buf, len);
}

/* Reading where nothing can be pending finds nothing pending. */
int sys_pending_read(struct sys *sys, char **text, size_t *len, struct fab_err *err)
{
	if (!sys->ops->pending_read)
		return -ENOENT;
	return sys->ops->pending_read(sys, text, len, err);
}

int sys_pending_write(struct sys *sys, const char *text, struct fab_err *err)
{
	if (!sys->ops->pending_write)
		return no_slot(sys, "apply", "pending state", err);
	return sys->ops->pending_write(sys, text, err);
}

void sys_pending_drop(struct sys *sys, const char *path)
{
	if (sys->ops->pending_drop)
		sys->ops->pending_drop(sys, path);
}

void sys_pending_log(struct sys *sys, const char *line)
{
	if (sys->ops->pending_log)
		sys->ops->pending_log(sys, line);
}

int sys_pending_log_read(struct sys *sys, char *buf, size_t len)
{
	if (!sys->ops->pending_log_read)
		return -ENOENT;
	return sys->ops->pending_log_read(sys, buf, len);
}

int sys_reverter_spawn(struct sys *sys, long long deadline,
		       void (*fn)(struct sys *sys, long long deadline), int *pid,
		       struct fab_err *err)
{
	if (!sys->ops->reverter_spawn)
		return no_slot(sys, "apply", "reverter", err);
	return sys->ops->reverter_spawn(sys, deadline, fn, pid, err);
}

void sys_reverter_stop(struct sys *sys, int pid, unsigned long long start)
{
	if (sys->ops->reverter_stop)
		sys->ops->reverter_stop(sys, pid, start);
}

/* Without the slot: start 0, "unknown" (a reverter is then never signalled). */
int sys_proc_start(struct sys *sys, int pid, unsigned long long *start)
{
	*start = 0;
	if (!sys->ops->proc_start)
		return -ENOSYS;
	return sys->ops->proc_start(sys, pid, start);
}
