/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the parts of one sweep share while it runs: the system they read
 * through (ctx->sys: the InfiniBand subnet walk) and the run's error
 * (ctx->err).  sweep_run() keeps one for its run and hands the error back
 * through its own @err; the members are named as struct fab_ctx's
 * (cmd/cmd.h), which the sweep's code took before it left cmd/.
 */
#ifndef FAB_SWEEP_SWEEP_CTX_H
#define FAB_SWEEP_SWEEP_CTX_H

#include "sys/sys.h"
#include "util/err.h"

struct sweep_ctx {
	struct sys *sys;	/* borrowed */
	struct fab_err err;
};

#endif
