/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A recording struct sys_ops for unit tests of the apply executor: every
 * setter appends "op obj args" to a log and succeeds, except the call
 * numbered fail_at (1-based; 0 = never), which fails with fail_rc and a
 * message.  links_read reports the links named in links[] (hardware,
 * up, with MTU link_mtu[i]); rdma_read none; the other readers are not
 * provided (tests fill struct node_config by hand).
 *
 * The pending state of `apply --try` lives in memory: pending (NULL when
 * none); lock and unlock, write, drop, log, spawn and stop are logged like
 * setters ("lock", "unlock 7", "pending-write", "drop PATH", "log TEXT",
 * "spawn", "stop PID").  reverter_spawn starts
 * nothing: it keeps the function and the deadline, so a test can make the
 * deadline pass by calling reverter_fn(&r->sys, deadline) itself.
 */
#ifndef FAB_TESTS_REC_SYS_H
#define FAB_TESTS_REC_SYS_H

#include <stdbool.h>

#include "sys/sys.h"

struct rec_sys {
	struct sys sys;		/* first: tests pass &rec.sys */
	char log[64][96];
	int n;
	int fail_at;
	int fail_rc;
	const char *links[4];
	unsigned int link_mtu[4];
	bool locked;			/* someone else holds the apply lock */
	char *pending;			/* malloc'ed; NULL: no try pending */
	void (*reverter_fn)(struct sys *sys, long long deadline);
	long long deadline;
	char revert_log[256];		/* the reverter's last log line; "" none */
};

/* Frees what the pending state holds. */
void rec_sys_fini(struct rec_sys *r);

void rec_sys_init(struct rec_sys *r);

#endif
