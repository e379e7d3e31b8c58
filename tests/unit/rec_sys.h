/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A recording struct sys_ops for unit tests of the apply executor: every
 * setter appends "op obj args" to a log and succeeds, except the call
 * numbered fail_at (1-based; 0 = never), which fails with fail_rc and a
 * message.  Readers are not provided (tests fill struct node_config by hand).
 */
#ifndef FAB_TESTS_REC_SYS_H
#define FAB_TESTS_REC_SYS_H

#include "sys/sys.h"

struct rec_sys {
	struct sys sys;		/* first: tests pass &rec.sys */
	char log[64][96];
	int n;
	int fail_at;
	int fail_rc;
};

void rec_sys_init(struct rec_sys *r);

#endif
