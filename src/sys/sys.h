/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * struct sys_ops: the only way the layers above read or change the node.
 * The real implementation lives in src/sys/ (netlink via libmnl, sysfs,
 * libibumad/libibmad, liblldpctl); unit tests swap in a recording one.
 *
 * Every operation returns 0 or -errno and fills @err on failure; no
 * library-specific code (verbs' positive errno, umad, LLDPCTL_ERR_*)
 * escapes this layer.  Operations a given sys does not implement are
 * NULL; callers use the sys_*() wrappers below, which turn a NULL slot
 * into -EOPNOTSUPP with a message.
 */
#ifndef FAB_SYS_SYS_H
#define FAB_SYS_SYS_H

#include "model/host_state.h"
#include "util/err.h"

struct sys;

struct sys_ops {
	const char *name;
	/* Append every network device of the node to @hs. */
	int (*links_read)(struct sys *sys, struct host_state *hs, struct fab_err *err);
	/* Append every RDMA device and port of the node to @hs. */
	int (*rdma_read)(struct sys *sys, struct host_state *hs, struct fab_err *err);
	void (*free)(struct sys *sys);
};

struct sys {
	const struct sys_ops *ops;
	/*
	 * Root prefix for sysfs and configfs paths ("" for the real /).  Tests
	 * point it at a directory tree with the same layout (a layout fixture).
	 */
	char root[256];
	void *priv;		/* owned by the implementation */
};

/* The real node.  @root may be NULL or "" for "/". */
int sys_real_new(struct sys **out, const char *root, struct fab_err *err);
void sys_free(struct sys *sys);

/* Read links and RDMA devices into @hs (initialised by the caller), sorted. */
int sys_host_state_read(struct sys *sys, struct host_state *hs, struct fab_err *err);

/* Build "<root><path>" into @buf. */
const char *sys_path(const struct sys *sys, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Small sysfs helpers: read a file's first line (trailing newline removed). */
int sys_read_line(const char *path, char *buf, size_t len);
int sys_read_u64(const char *path, uint64_t *val);

#endif
