/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fabricctl worker, in three files that call one way: worker.c (the
 * options, the request loop, the node's ops) calls worker_session.c (the
 * test sessions, "listen" and "connect"), and both call worker_io.c
 * (requests in on stdin, answers out on stdout).  One worker per process
 * (docs/worker-protocol.md); each test session runs in a child process of
 * its own (worker_session.c forks it, worker_io.c relays it), so a host's
 * worker serves a session for each of its ports at once.
 */
#ifndef FAB_CMD_WORKER_H
#define FAB_CMD_WORKER_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "cmd/cmd.h"
#include "fleet/proto.h"

/*
 * A test session served by a child process of the worker's (fork): the
 * controller's messages for it go down @ctl_fd (its stdin), its answers
 * come up @out_fd (its stdout) and are relayed whole, line by line.
 */
struct worker_kid {
	pid_t pid;
	long long id;			/* the session's id (its listen or connect) */
	int ctl_fd, out_fd;
	struct proto_reader rd;
	bool answered;			/* its final answer relayed */
};

/* Sessions served at once (hello's "sessions"): a host's every port, and then some. */
#define WORKER_SESSIONS_MAX 64

struct worker {
	struct fab_ctx *ctx;
	struct proto_reader rd;
	bool quit;
	struct worker_kid kids[WORKER_SESSIONS_MAX];
	size_t n_kids;
};

/* worker_io.c: answers to request @id on stdout: @result (taken; NULL: {}), a failure, an event. */
void worker_reply(struct worker *w, long long id, json_t *result);
void worker_fail(struct worker *w, long long id, const char *msg);
void worker_event(struct worker *w, long long id, const char *event, json_t *endpoint);

/*
 * The next request: 1 with @m filled, 0 at EOF, -ETIMEDOUT (@timeout_ms,
 * -1: none), or -EPROTO (with @err) for a line that is not a valid request.
 * Meanwhile the session children's lines are relayed, the controller's
 * "peer", "go" and "abort" for a child's session go down to it, and a
 * child that ended is reaped (failed for its session if it never
 * answered).  At EOF the children are told (their stdin closes) and
 * awaited: worker_kids_end().
 */
int worker_next(struct worker *w, int timeout_ms, struct proto_msg *m, struct fab_err *err);

/* Session child @pid of session @id, its stdin @ctl_fd and stdout @out_fd, into @w; -EBUSY when full. */
int worker_kid_add(struct worker *w, pid_t pid, long long id, int ctl_fd, int out_fd);

/* In a new child: the parent's other children are none of its business (their fds closed). */
void worker_kids_forget(struct worker *w);

/* Tell every child the controller has gone (stdin closed), relay what they say, reap them. */
void worker_kids_end(struct worker *w);

/* worker_session.c: the ops "listen" (a test's server end) and "connect" (its client end). */
void worker_op_listen(struct worker *w, struct proto_msg *req);
void worker_op_connect(struct worker *w, struct proto_msg *req);

#endif
