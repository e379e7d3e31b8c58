/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `fabricctl worker`'s protocol lines (fleet/proto.h,
 * docs/worker-protocol.md): requests read from stdin, answers and events
 * written to stdout, one JSON line each.  cmd/worker.c serves the ops.
 */
#ifndef FAB_CMD_WORKER_IO_H
#define FAB_CMD_WORKER_IO_H

#include <jansson.h>
#include <stdbool.h>

#include "cmd/cmd.h"
#include "fleet/proto.h"

struct worker {
	struct fab_ctx *ctx;
	struct proto_reader rd;
	bool quit;		/* stdin closed, the controller said bye, or nobody reads stdout */
};

/* @msg (stolen) as one line; a write that fails sets w->quit. */
void worker_send(struct worker *w, json_t *msg);
/* {id, ok: true, result} (@result stolen, NULL: {}); {id, ok: false, error: @msg}. */
void worker_reply(struct worker *w, long long id, json_t *result);
void worker_fail(struct worker *w, long long id, const char *msg);
/* Reply @result, or, when it is NULL, fail with @msg. */
void worker_answer(struct worker *w, long long id, json_t *result, const char *msg);
/* {id, event, endpoint} (@endpoint borrowed, may be NULL). */
void worker_event(struct worker *w, long long id, const char *event, json_t *endpoint);

/*
 * The next request: 1 with @m filled, 0 at EOF, -ETIMEDOUT (@timeout_ms;
 * < 0 waits forever), or -EPROTO (with @err) for a line that is not a
 * valid request.
 */
int worker_next(struct worker *w, int timeout_ms, struct proto_msg *m, struct fab_err *err);

#endif
