// SPDX-License-Identifier: GPL-2.0-or-later
/* Workers' stderr: relayed per line with the node's name, the last line kept.  See fleet_stderr.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fleet/fleet_stderr.h"

/* Trailing blanks and CRs dropped; bytes outside printable ASCII become '?'. */
static void sanitise(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			s[i] = '?';
}

/* One line of @w's stderr (NUL-terminated in place): relay it, keep it. */
static void line_out(struct fleet_worker *w, char *line)
{
	sanitise(line);
	if (!*line)
		return;
	fprintf(stderr, "%s: %s\n", w->host->name, line);
	snprintf(w->err_last, sizeof(w->err_last), "%.*s", (int)sizeof(w->err_last) - 1, line);
}

void fleet_stderr_drain(struct fleet_worker *w)
{
	for (;;) {
		size_t room = sizeof(w->err_buf) - 1 - w->err_len;
		ssize_t n;
		char *nl;

		if (w->err_fd < 0)
			return;
		n = read(w->err_fd, w->err_buf + w->err_len, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || (n < 0 && errno != EAGAIN)) {
			/* Closed: nothing more to poll for (a worker may close stderr and live on). */
			fleet_stderr_flush(w);
			close(w->err_fd);
			w->err_fd = -1;
		}
		if (n <= 0)
			return;
		w->err_len += (size_t)n;
		w->err_buf[w->err_len] = '\0';
		while ((nl = memchr(w->err_buf, '\n', w->err_len))) {
			size_t used = (size_t)(nl - w->err_buf) + 1;

			*nl = '\0';
			line_out(w, w->err_buf);
			memmove(w->err_buf, w->err_buf + used, w->err_len - used);
			w->err_len -= used;
			w->err_buf[w->err_len] = '\0';
		}
		/* A line longer than the buffer goes out in pieces. */
		if (w->err_len == sizeof(w->err_buf) - 1)
			fleet_stderr_flush(w);
	}
}

void fleet_stderr_flush(struct fleet_worker *w)
{
	if (!w->err_len)
		return;
	w->err_buf[w->err_len] = '\0';
	line_out(w, w->err_buf);
	w->err_len = 0;
}

void fleet_stderr_reason(const struct fleet_worker *w, const char *launcher, const char *how,
			 char *buf, size_t len)
{
	if (*w->err_last)
		snprintf(buf, len, "launcher %.60s: %s: %s", launcher ? launcher : "?", how,
			 w->err_last);
	else
		snprintf(buf, len, "launcher %.60s: %s", launcher ? launcher : "?", how);
}
