// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The worker's ends of the protocol: requests read from stdin, answers
 * written to stdout; the session children's lines relayed to stdout and
 * the controller's messages for their sessions routed down to them.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/worker.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/log.h"

/* How long the children have, once stdin closed, to end (then SIGKILL). */
#define WORKER_KIDS_END_MS 10000

static void worker_send(struct worker *w, json_t *msg)
{
	size_t len;
	char *line = proto_format(msg, &len);

	if (!line || file_write_all(STDOUT_FILENO, line, len) < 0)
		w->quit = true;		/* nobody listens any more */
	free(line);
}

void worker_reply(struct worker *w, long long id, json_t *result)
{
	worker_send(w, json_pack("{s:I, s:b, s:o}", "id", (json_int_t)id, "ok", 1,
				 "result", result ? result : json_object()));
}

void worker_fail(struct worker *w, long long id, const char *msg)
{
	worker_send(w, json_pack("{s:I, s:b, s:s}", "id", (json_int_t)id, "ok", 0, "error", msg));
}

void worker_event(struct worker *w, long long id, const char *event, json_t *endpoint)
{
	json_t *m = json_pack("{s:I, s:s}", "id", (json_int_t)id, "event", event);

	if (m && endpoint)
		json_object_set(m, "endpoint", endpoint);
	worker_send(w, m);
}

/* ---- session children ---- */

int worker_kid_add(struct worker *w, pid_t pid, long long id, int ctl_fd, int out_fd)
{
	struct worker_kid *k;

	if (w->n_kids == WORKER_SESSIONS_MAX)
		return -EBUSY;
	k = &w->kids[w->n_kids++];
	*k = (struct worker_kid){ .pid = pid, .id = id, .ctl_fd = ctl_fd, .out_fd = out_fd };
	proto_reader_init(&k->rd);
	return 0;
}

static void kid_close(struct worker_kid *k)
{
	if (k->ctl_fd >= 0)
		close(k->ctl_fd);
	if (k->out_fd >= 0)
		close(k->out_fd);
	k->ctl_fd = k->out_fd = -1;
	proto_reader_fini(&k->rd);
}

void worker_kids_forget(struct worker *w)
{
	for (size_t i = 0; i < w->n_kids; i++)
		kid_close(&w->kids[i]);
	w->n_kids = 0;
}

/* Every complete line of child @k to stdout, whole; its session's final answer noted. */
static void kid_relay(struct worker *w, struct worker_kid *k)
{
	char *line;
	size_t len;

	while (proto_reader_line(&k->rd, &line, &len) == 1) {
		struct proto_msg m;
		struct fab_err err;

		fab_err_init(&err);
		if (proto_parse(line, len, &m, &err) == 0) {
			k->answered |= m.kind == PROTO_REPLY && m.id == k->id;
			proto_msg_fini(&m);
		}
		line[len] = '\n';	/* proto_reader_line's NUL: the line goes out with its newline */
		if (file_write_all(STDOUT_FILENO, line, len + 1) < 0)
			w->quit = true;
		free(line);
	}
}

/* Child @i has closed its stdout: reaped, its session failed if it never answered, removed. */
static void kid_reap(struct worker *w, size_t i)
{
	struct worker_kid *k = &w->kids[i];
	char msg[160];
	int st = 0;

	kid_relay(w, k);
	while (waitpid(k->pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!k->answered) {
		if (WIFSIGNALED(st))
			snprintf(msg, sizeof(msg), "session ended without an answer (killed by signal %d)",
				 WTERMSIG(st));
		else
			snprintf(msg, sizeof(msg), "session ended without an answer (exit status %d)",
				 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		worker_fail(w, k->id, msg);
	}
	kid_close(k);
	w->kids[i] = w->kids[--w->n_kids];
}

/* Child @i's stdout is readable: its lines relayed, the child reaped at EOF. */
static void kid_read(struct worker *w, size_t i)
{
	struct worker_kid *k = &w->kids[i];
	int rc = proto_reader_fill(&k->rd, k->out_fd);

	kid_relay(w, k);
	if (k->rd.eof || (rc < 0 && rc != -EAGAIN && rc != -EMSGSIZE))
		kid_reap(w, i);
}

/* Request @m (its line @line) is a session step of a child's: sent down to it (true). */
static bool kid_route(struct worker *w, const struct proto_msg *m, char *line, size_t len)
{
	if (strcmp(m->op, "peer") != 0 && strcmp(m->op, "go") != 0 && strcmp(m->op, "abort") != 0)
		return false;
	for (size_t i = 0; i < w->n_kids; i++) {
		struct worker_kid *k = &w->kids[i];

		if (k->id != m->id || k->ctl_fd < 0)
			continue;
		line[len] = '\n';
		if (file_write_all(k->ctl_fd, line, len + 1) < 0)
			fab_debug("worker: session %lld: its process has gone (%s)", k->id, strerror(errno));
		return true;
	}
	return false;
}

/* Wait up to @timeout_ms (-1: no limit) on stdin (@in) and the children's stdout. */
static int wait_input(struct worker *w, bool in, int timeout_ms)
{
	struct pollfd pfd[WORKER_SESSIONS_MAX + 1];
	size_t n = w->n_kids;
	int rc;

	pfd[0] = (struct pollfd){ .fd = in ? STDIN_FILENO : -1, .events = POLLIN };
	for (size_t i = 0; i < n; i++)
		pfd[i + 1] = (struct pollfd){ .fd = w->kids[i].out_fd, .events = POLLIN };
	rc = poll(pfd, n + 1, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -errno;
	for (size_t i = n; i-- > 0;)	/* from the last: a reaped child takes the last's place */
		if (pfd[i + 1].revents)
			kid_read(w, i);
	return pfd[0].revents ? 1 : 0;
}

void worker_kids_end(struct worker *w)
{
	uint64_t until = clock_mono_ms() + WORKER_KIDS_END_MS;

	for (size_t i = 0; i < w->n_kids; i++) {
		close(w->kids[i].ctl_fd);	/* EOF: their transports' cancel */
		w->kids[i].ctl_fd = -1;
	}
	while (w->n_kids) {
		uint64_t now = clock_mono_ms();
		bool killed = until == UINT64_MAX;

		if (!killed && now >= until) {
			for (size_t i = 0; i < w->n_kids; i++)
				kill(w->kids[i].pid, SIGKILL);
			until = UINT64_MAX;
			killed = true;
		}
		if (wait_input(w, false, killed ? -1 : (int)(until - now)) < 0)
			break;
	}
}

/* Milliseconds since @t0. */
static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The next line of stdin parsed: 1 (a request for @w itself), 0 (none, or routed to a child). */
static int next_line(struct worker *w, struct proto_msg *m, struct fab_err *err)
{
	char *line;
	size_t len;
	int rc = proto_reader_line(&w->rd, &line, &len);

	if (rc <= 0)
		return rc;
	rc = proto_parse(line, len, m, err);
	if (rc < 0) {
		free(line);
		return -EPROTO;
	}
	if (m->kind != PROTO_REQUEST) {
		free(line);
		proto_msg_fini(m);
		return fab_err_set(err, -EPROTO, "protocol: the controller sent a reply");
	}
	if (w->n_kids && kid_route(w, m, line, len)) {
		proto_msg_fini(m);
		rc = 2;		/* routed: read on */
	} else {
		rc = 1;
	}
	free(line);
	return rc;
}

int worker_next(struct worker *w, int timeout_ms, struct proto_msg *m, struct fab_err *err)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int rc = next_line(w, m, err);
		long el;

		if (rc == 2)
			continue;
		if (rc != 0)
			return rc;
		if (w->rd.eof) {
			worker_kids_end(w);
			return 0;
		}
		el = elapsed_ms(&t0);
		if (timeout_ms >= 0 && el >= timeout_ms)
			return -ETIMEDOUT;
		rc = wait_input(w, true, timeout_ms >= 0 ? (int)(timeout_ms - el) : -1);
		if (rc < 0)
			return rc;
		if (rc > 0) {
			rc = proto_reader_fill(&w->rd, STDIN_FILENO);
			if (rc == -EMSGSIZE)
				return fab_err_set(err, -EPROTO, "protocol: line too long");
			if (rc < 0 && rc != -EAGAIN)
				return rc;
		}
	}
}
