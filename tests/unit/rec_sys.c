// SPDX-License-Identifier: GPL-2.0-or-later
/* Included by the tests that use it (tests/unit/ has no library of its own). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rec_sys.h"

static int rec(struct sys *sys, struct fab_err *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rec(struct sys *sys, struct fab_err *err, const char *fmt, ...)
{
	struct rec_sys *r = (struct rec_sys *)sys;
	va_list ap;

	if (r->n == 64)
		return fab_err_set(err, -ENOSPC, "rec: log full");
	va_start(ap, fmt);
	vsnprintf(r->log[r->n], sizeof(r->log[r->n]), fmt, ap);
	va_end(ap);
	r->n++;
	if (r->n == r->fail_at)
		return fab_err_set(err, r->fail_rc, "rec: %s: failed as told", r->log[r->n - 1]);
	return 0;
}

static int rec_mtu(struct sys *s, const char *ifname, unsigned int mtu, struct fab_err *err)
{
	return rec(s, err, "mtu %s %u", ifname, mtu);
}

static int rec_pfc(struct sys *s, const char *ifname, const struct fab_dcb_pfc *pfc,
		   struct fab_err *err)
{
	return rec(s, err, "pfc %s 0x%02x", ifname, pfc->pfc_en);
}

static int rec_ets(struct sys *s, const char *ifname, const struct fab_dcb_ets *ets,
		   struct fab_err *err)
{
	return rec(s, err, "ets %s tc3=%u bw3=%u", ifname, ets->prio_tc[3], ets->tc_tx_bw_pct[3]);
}

static int rec_maxrate(struct sys *s, const char *ifname, const uint64_t *kbps,
		       struct fab_err *err)
{
	return rec(s, err, "maxrate %s tc3=%llu", ifname, (unsigned long long)kbps[3]);
}

static int rec_buffer(struct sys *s, const char *ifname, const struct fab_dcb_buffer *b,
		      struct fab_err *err)
{
	return rec(s, err, "buffer %s p3=%u b1=%u", ifname, b->prio2buffer[3], b->buffer_size[1]);
}

static int rec_dcqcn(struct sys *s, const char *ifname, enum dcqcn_param p, uint32_t val,
		     struct fab_err *err)
{
	return rec(s, err, "dcqcn %s %s=%u", ifname, dcqcn_params[p].key, val);
}

static int rec_app_add(struct sys *s, const char *ifname, const struct fab_dcb_app *a, size_t n,
		       struct fab_err *err)
{
	return rec(s, err, "app-add %s %u:%u>%u", ifname, a->selector, a->protocol, a->priority);
}

static int rec_app_del(struct sys *s, const char *ifname, const struct fab_dcb_app *a, size_t n,
		       struct fab_err *err)
{
	return rec(s, err, "app-del %s %u:%u>%u", ifname, a->selector, a->protocol, a->priority);
}

static int rec_trust(struct sys *s, const char *ifname, const uint8_t *sel, size_t n,
		     struct fab_err *err)
{
	return rec(s, err, "trust %s n=%zu first=%u", ifname, n, n ? sel[0] : 0);
}

static int rec_bond_create(struct sys *s, const struct fab_bond *b, struct fab_err *err)
{
	return rec(s, err, "bond-create %s mode=%d", b->name, b->mode);
}

static int rec_bond_delete(struct sys *s, const char *name, struct fab_err *err)
{
	return rec(s, err, "bond-delete %s", name);
}

static int rec_bond_set(struct sys *s, const struct fab_bond *b, struct fab_err *err)
{
	return rec(s, err, "bond-set %s miimon=%d", b->name, b->miimon_ms);
}

static int rec_enslave(struct sys *s, const char *bond, const char *m, struct fab_err *err)
{
	return rec(s, err, "enslave %s %s", bond, m);
}

static int rec_release(struct sys *s, const char *m, struct fab_err *err)
{
	return rec(s, err, "release %s", m);
}

static int rec_ecn(struct sys *s, const char *ifname, enum fab_ecn_point pt, unsigned int prio,
		   bool on, struct fab_err *err)
{
	return rec(s, err, "ecn %s %s %u %s", ifname, pt == FAB_ECN_NP ? "np" : "rp", prio,
		   on ? "on" : "off");
}

static int rec_tos(struct sys *s, const char *dev, unsigned int port, unsigned int tos,
		   struct fab_err *err)
{
	return rec(s, err, "tos %s/%u %u", dev, port, tos);
}

static int rec_links(struct sys *s, struct host_state *hs, struct fab_err *err)
{
	struct rec_sys *r = (struct rec_sys *)s;

	for (size_t i = 0; i < 4 && r->links[i]; i++) {
		struct fab_link *l = host_state_link_add(hs);

		if (!l)
			return fab_err_set(err, -ENOMEM, "rec: out of memory");
		snprintf(l->name, sizeof(l->name), "%s", r->links[i]);
		snprintf(l->operstate, sizeof(l->operstate), "up");
		l->admin_up = true;
		l->mtu = r->link_mtu[i];
		l->speed_mbps = -1;
		l->ifindex = (int)i + 2;
	}
	return 0;
}

static int rec_rdma(struct sys *s, struct host_state *hs, unsigned int flags,
		    struct fab_err *err)
{
	return 0;
}

static int rec_lock(struct sys *s, int *lock, struct fab_err *err)
{
	if (((struct rec_sys *)s)->locked)
		return fab_err_set(err, -EBUSY, "apply: another apply is running on this node (rec)");
	*lock = 7;
	return rec(s, err, "lock");
}

static void rec_unlock(struct sys *s, int lock)
{
	rec(s, NULL, "unlock %d", lock);
}

static const char *rec_pending_path(struct sys *s, char *buf, size_t len)
{
	snprintf(buf, len, "rec:pending");
	return buf;
}

static int rec_pending_read(struct sys *s, char **text, size_t *len, struct fab_err *err)
{
	struct rec_sys *r = (struct rec_sys *)s;

	if (!r->pending)
		return -ENOENT;
	*text = strdup(r->pending);
	*len = strlen(r->pending);
	return *text ? 0 : fab_err_set(err, -ENOMEM, "rec: out of memory");
}

static int rec_pending_write(struct sys *s, const char *text, struct fab_err *err)
{
	struct rec_sys *r = (struct rec_sys *)s;
	int rc = rec(s, err, "pending-write");

	if (rc < 0)
		return rc;
	free(r->pending);
	r->pending = strdup(text);
	return r->pending ? 0 : fab_err_set(err, -ENOMEM, "rec: out of memory");
}

static void rec_drop(struct sys *s, const char *path)
{
	struct rec_sys *r = (struct rec_sys *)s;

	rec(s, NULL, "drop %s", path);
	free(r->pending);
	r->pending = NULL;
}

static void rec_log_line(struct sys *s, const char *line)
{
	struct rec_sys *r = (struct rec_sys *)s;

	snprintf(r->revert_log, sizeof(r->revert_log), "%s", line);
	rec(s, NULL, "log %.80s", line);
}

static int rec_log_read(struct sys *s, char *buf, size_t len)
{
	struct rec_sys *r = (struct rec_sys *)s;

	if (!r->revert_log[0])
		return -ENOENT;
	snprintf(buf, len, "%s", r->revert_log);
	return 0;
}

static int rec_spawn(struct sys *s, long long deadline, void (*fn)(struct sys *, long long),
		     int *pid, struct fab_err *err)
{
	struct rec_sys *r = (struct rec_sys *)s;

	r->reverter_fn = fn;
	r->deadline = deadline;
	*pid = (int)getpid();	/* the reverter_fn the test calls runs in this process */
	return rec(s, err, "spawn");
}

static void rec_stop(struct sys *s, int pid, unsigned long long start)
{
	rec(s, NULL, "stop %d", pid);
}

static const struct sys_ops rec_ops = {
	.name = "rec",
	.links_read = rec_links,
	.rdma_read = rec_rdma,
	.pending_lock = rec_lock,
	.pending_unlock = rec_unlock,
	.pending_path = rec_pending_path,
	.pending_read = rec_pending_read,
	.pending_write = rec_pending_write,
	.pending_drop = rec_drop,
	.pending_log = rec_log_line,
	.pending_log_read = rec_log_read,
	.reverter_spawn = rec_spawn,
	.reverter_stop = rec_stop,
	.link_mtu_set = rec_mtu,
	.dcb_pfc_set = rec_pfc,
	.dcb_ets_set = rec_ets,
	.dcb_maxrate_set = rec_maxrate,
	.dcb_buffer_set = rec_buffer,
	.dcqcn_set = rec_dcqcn,
	.dcb_app_add = rec_app_add,
	.dcb_app_del = rec_app_del,
	.dcb_trust_set = rec_trust,
	.bond_create = rec_bond_create,
	.bond_delete = rec_bond_delete,
	.bond_set = rec_bond_set,
	.bond_enslave = rec_enslave,
	.bond_release = rec_release,
	.ecn_set = rec_ecn,
	.roce_tos_set = rec_tos,
};

void rec_sys_init(struct rec_sys *r)
{
	memset(r, 0, sizeof(*r));
	r->sys.ops = &rec_ops;
	r->fail_rc = -EOPNOTSUPP;
}

void rec_sys_fini(struct rec_sys *r)
{
	free(r->pending);
	r->pending = NULL;
}
