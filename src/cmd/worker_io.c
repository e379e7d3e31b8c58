// SPDX-License-Identifier: GPL-2.0-or-later
/* The worker's ends of the protocol: requests read from stdin, answers written to stdout. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cmd/worker.h"
#include "util/file.h"

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

/*
 * The next request: 1 with @m filled, 0 at EOF, -ETIMEDOUT, or -EPROTO
 * (with @err) for a line that is not a valid request.
 */
int worker_next(struct worker *w, int timeout_ms, struct proto_msg *m, struct fab_err *err)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		char *line;
		size_t len;
		int rc = proto_reader_line(&w->rd, &line, &len);

		if (rc < 0)
			return rc;
		if (rc == 1) {
			rc = proto_parse(line, len, m, err);
			free(line);
			if (rc < 0)
				return -EPROTO;
			if (m->kind != PROTO_REQUEST) {
				proto_msg_fini(m);
				return fab_err_set(err, -EPROTO, "protocol: the controller sent a reply");
			}
			return 1;
		}
		if (w->rd.eof)
			return 0;
		if (timeout_ms >= 0) {
			struct timespec t;
			long el;

			clock_gettime(CLOCK_MONOTONIC, &t);
			el = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
			if (el >= timeout_ms)
				return -ETIMEDOUT;
			rc = poll(&pfd, 1, (int)(timeout_ms - el));
		} else {
			rc = poll(&pfd, 1, -1);
		}
		if (rc < 0 && errno != EINTR)
			return -errno;
		if (rc > 0) {
			rc = proto_reader_fill(&w->rd, STDIN_FILENO);
			if (rc == -EMSGSIZE)
				return fab_err_set(err, -EPROTO, "protocol: line too long");
			if (rc < 0 && rc != -EAGAIN)
				return rc;
		}
	}
}
