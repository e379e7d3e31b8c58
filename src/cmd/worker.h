/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fabricctl worker, in three files that call one way: worker.c (the
 * options, the request loop, the node's ops) calls worker_session.c (the
 * test sessions, "listen" and "connect"), and both call worker_io.c
 * (requests in on stdin, answers out on stdout).  One worker per process
 * (docs/worker-protocol.md).
 */
#ifndef FAB_CMD_WORKER_H
#define FAB_CMD_WORKER_H

#include <jansson.h>
#include <stdbool.h>

#include "cmd/cmd.h"
#include "fleet/proto.h"

struct worker {
	struct fab_ctx *ctx;
	struct proto_reader rd;
	bool quit;
};

/* worker_io.c: answers to request @id on stdout: @result (taken; NULL: {}), a failure, an event. */
void worker_reply(struct worker *w, long long id, json_t *result);
void worker_fail(struct worker *w, long long id, const char *msg);
void worker_event(struct worker *w, long long id, const char *event, json_t *endpoint);

/*
 * The next request: 1 with @m filled, 0 at EOF, -ETIMEDOUT (@timeout_ms,
 * -1: none), or -EPROTO (with @err) for a line that is not a valid request.
 */
int worker_next(struct worker *w, int timeout_ms, struct proto_msg *m, struct fab_err *err);

/* worker_session.c: the ops "listen" (a test's server end) and "connect" (its client end). */
void worker_op_listen(struct worker *w, struct proto_msg *req);
void worker_op_connect(struct worker *w, struct proto_msg *req);

#endif
