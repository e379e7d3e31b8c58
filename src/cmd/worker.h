/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fabricctl worker, between its two files: worker.c reads the requests,
 * answers the node's ops and owns the options; worker_session.c runs the
 * test sessions ("listen", "connect").  One worker per process, on its
 * stdin and stdout (docs/worker-protocol.md).
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

/* Answers to request @id on stdout: @result (taken; NULL: {}), a failure, an event. */
void worker_reply(struct worker *w, long long id, json_t *result);
void worker_fail(struct worker *w, long long id, const char *msg);
void worker_event(struct worker *w, long long id, const char *event, json_t *endpoint);

/*
 * The next request: 1 with @m filled, 0 at EOF, -ETIMEDOUT (@timeout_ms,
 * -1: none), or -EPROTO (with @err) for a line that is not a valid request.
 */
int worker_next(struct worker *w, int timeout_ms, struct proto_msg *m, struct fab_err *err);

/* The ops "listen" (the server end of a test) and "connect" (the client end). */
void worker_op_listen(struct worker *w, struct proto_msg *req);
void worker_op_connect(struct worker *w, struct proto_msg *req);

#endif
