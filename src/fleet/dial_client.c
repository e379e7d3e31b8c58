// SPDX-License-Identifier: GPL-2.0-or-later
/* Dial-back launch, worker side: `fabricctl worker --connect ADDR:PORT` (fleet_dial.h). */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fleet/fleet_dial.h"
#include "fleet/proto.h"
#include "util/clock.h"
#include "util/log.h"

/* How long the controller may take to answer a join. */
#define DIAL_ANSWER_MS 30000
/* Between tries of a join: doubled from the first up to the most, +-25% jitter. */
#define DIAL_RETRY_FIRST_MS 100
#define DIAL_RETRY_MAX_MS 2000

/* "HOST:PORT" or "[V6]:PORT" into @host and @port. */
static int target_parse(const char *t, char *host, size_t hl, char *port, size_t pl,
			struct fab_err *err)
{
	const char *colon = strrchr(t, ':');
	const char *h = t;
	size_t len;

	if (!colon || !colon[1] || strlen(colon + 1) >= pl)
		goto bad;
	len = (size_t)(colon - t);
	if (t[0] == '[') {
		if (len < 2 || t[len - 1] != ']')
			goto bad;
		h = t + 1;
		len -= 2;
	}
	if (!len || len >= hl)
		goto bad;
	memcpy(host, h, len);
	host[len] = '\0';
	strcpy(port, colon + 1);
	return 0;
bad:
	return fab_err_input(err, -EINVAL, "--connect '%s': want ADDR:PORT ([ADDR]:PORT for IPv6)", t);
}

/* The token: from @file (0600, owned by us) or $FABRICCTL_TOKEN, which is then unset. */
static int token_get(const char *file, char *hex, struct fab_err *err)
{
	const char *env = getenv(FLEET_DIAL_TOKEN_ENV);
	char buf[2 * TP_TOKEN_LEN + 8];
	uint8_t tok[TP_TOKEN_LEN];
	struct stat st;
	ssize_t n;
	int fd;

	if (!file) {
		if (!env || tp_token_parse(env, tok, false) < 0)
			return fab_err_input(err, -EINVAL,
					     "--connect: no token: want %s (%d hex digits) or --token-file",
					     FLEET_DIAL_TOKEN_ENV, 2 * TP_TOKEN_LEN);
		tp_token_hex(tok, hex);
		explicit_bzero(tok, sizeof(tok));
		unsetenv(FLEET_DIAL_TOKEN_ENV);	/* not for what this worker starts */
		return 0;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fab_err_input(err, -errno, "--token-file %s: %s", file, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		close(fd);
		return fab_err_input(err, -EPERM,
				     "--token-file %s: not a regular file readable by its owner only (want mode 0600)",
				     file);
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return fab_err_input(err, -errno, "--token-file %s: %s", file, strerror(errno));
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (tp_token_parse(buf, tok, false) < 0)
		return fab_err_input(err, -EINVAL, "--token-file %s: want %d hex digits", file,
				     2 * TP_TOKEN_LEN);
	tp_token_hex(tok, hex);
	explicit_bzero(tok, sizeof(tok));
	return 0;
}

/* Numeric @source into @ss for bind(); -EINVAL when it is not numeric. */
static int source_parse(const char *source, struct sockaddr_storage *ss, socklen_t *sl)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICHOST };
	struct addrinfo *ai = NULL;

	if (getaddrinfo(source, "0", &hints, &ai) != 0)
		return -EINVAL;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*sl = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* A connected socket to @target (from @source when set), or -errno with @err set. */
static int dial(const char *target, const char *source, struct fab_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage src;
	socklen_t src_len = 0;
	char host[256], port[8];
	int fd = -1, e = EAFNOSUPPORT, rc, one = 1;

	rc = target_parse(target, host, sizeof(host), port, sizeof(port), err);
	if (rc < 0)
		return rc;
	if (source && source_parse(source, &src, &src_len) < 0)
		return fab_err_input(err, -EINVAL, "--source '%s': not a numeric address", source);
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc != 0)
		return fab_err_set(err, -EHOSTUNREACH, "--connect %s: %s", target,
				   gai_strerror(rc));
	for (struct addrinfo *a = ai; a; a = a->ai_next) {
		if (source && a->ai_family != src.ss_family)
			continue;
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd >= 0 && (!source || bind(fd, (struct sockaddr *)&src, src_len) == 0) &&
		    connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		e = errno;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0 && source)
		return fab_err_set(err, -e, "--connect %s from %s: %s", target, source, strerror(e));
	if (fd < 0)
		return fab_err_set(err, -e, "--connect %s: %s", target, strerror(e));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/*
 * The controller's answer, read a byte at a time: nothing after its
 * newline may be taken from the socket (the next line is the hello,
 * read by the worker's own reader).
 */
static int answer_read(int fd, const char *target, int timeout_ms, bool *retry,
		       struct fab_err *err)
{
	char line[1024], clean[300];
	struct proto_msg m;
	size_t len = 0;
	int rc;

	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		rc = poll(&pfd, 1, timeout_ms);
		if (rc == 0)
			return fab_err_set(err, -ETIMEDOUT, "--connect %s: no answer to the join within %d ms",
					   target, timeout_ms);
		if (rc < 0 && errno == EINTR)
			continue;
		n = rc < 0 ? -1 : read(fd, line + len, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fab_err_set(err, -ECONNRESET, "--connect %s: the controller closed the connection while joining",
					   target);
		if (line[len] == '\n')
			break;
		if (++len == sizeof(line))
			return fab_err_set(err, -EPROTO, "--connect %s: answer too long", target);
	}
	rc = proto_parse(line, len, &m, err);
	if (rc < 0) {
		snprintf(clean, sizeof(clean), "%.*s", (int)sizeof(clean) - 1, err->msg);
		return fab_err_set(err, -EPROTO, "--connect %s: %s", target, clean);
	}
	if (m.kind != PROTO_REPLY || m.id != 0) {
		proto_msg_fini(&m);
		return fab_err_set(err, -EPROTO, "--connect %s: not an answer to the join", target);
	}
	if (!m.ok) {
		/* "retry": true: turned away for now (a crowd waiting), not refused for good. */
		*retry = json_is_true(json_object_get(m.doc, "retry"));
		proto_str_clean(m.error, strlen(m.error), clean, sizeof(clean));
		rc = fab_err_set(err, *retry ? -EAGAIN : -EACCES, "--connect %s: %s", target, clean);
	}
	proto_msg_fini(&m);
	return rc;
}

/* Worth another try: the controller is not (yet) answering, or asked for one. */
static bool join_retryable(int rc)
{
	switch (-rc) {
	case EAGAIN: case ECONNREFUSED: case ECONNRESET: case ETIMEDOUT: case EPIPE:
	case ENETUNREACH: case EHOSTUNREACH: case ECONNABORTED:
		return true;
	default:
		return false;
	}
}

/* One try: connect, send @line, read the answer; the connected socket or -errno. */
static int join_once(const char *target, const char *source, const char *line, size_t len,
		     int timeout_ms, struct fab_err *err)
{
	bool retry = false;
	int fd = dial(target, source, err), rc;

	if (fd < 0)
		return fd;
	rc = send(fd, line, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -errno;
	if (rc < 0)
		rc = fab_err_set(err, rc, "--connect %s: %s", target, strerror(-rc));
	if (rc == 0)
		rc = answer_read(fd, target, timeout_ms, &retry, err);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	return fd;
}

int fleet_dial_connect(const char *target, const char *name, const char *source,
		       const char *token_file, struct fab_err *err)
{
	char hex[2 * TP_TOKEN_LEN + 1], host[256] = "";
	uint64_t deadline = clock_mono_ms() + FLEET_DIAL_JOIN_MS;
	unsigned int wait_ms = DIAL_RETRY_FIRST_MS, tries = 0;
	size_t len;
	json_t *join;
	char *line;
	int fd, rc;

	rc = token_get(token_file, hex, err);
	if (rc < 0)
		return rc;
	if (!name)
		name = getenv(FLEET_DIAL_NODE_ENV);
	if (!name || !*name) {
		gethostname(host, sizeof(host) - 1);
		name = host;
	}
	join = json_pack("{s:i, s:s, s:s, s:s}", "id", 0, "op", "join", "host", name, "token", hex);
	explicit_bzero(hex, sizeof(hex));
	line = proto_format(join, &len);
	if (!line)
		return fab_err_set(err, -ENOMEM, "out of memory");
	/* Until joined, refused for good, or the controller's join window is over. */
	for (;;) {
		uint64_t now = clock_mono_ms();
		int left = now < deadline ? (int)(deadline - now) : 0;
		unsigned int pause_ms;
		uint16_t r = 0;
		struct timespec ts;

		tries++;
		fd = join_once(target, source, line, len, left < DIAL_ANSWER_MS ? left : DIAL_ANSWER_MS,
			       err);
		if (fd >= 0 || !join_retryable(fd))
			break;
		now = clock_mono_ms();
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) < 0)
			r = (uint16_t)getpid();
		pause_ms = wait_ms * 3 / 4 + r % (wait_ms / 2 + 1);	/* wait_ms +- 25% */
		if (now + pause_ms >= deadline)
			break;
		ts.tv_sec = (time_t)(pause_ms / 1000);
		ts.tv_nsec = (long)(pause_ms % 1000) * 1000000;
		fab_info("worker: join try %u: %s; again in %u ms", tries, err->msg, pause_ms);
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		wait_ms = wait_ms * 2 > DIAL_RETRY_MAX_MS ? DIAL_RETRY_MAX_MS : wait_ms * 2;
		fab_err_init(err);
	}
	explicit_bzero(line, len);
	free(line);
	if (fd < 0 && tries > 1) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg);
		return fab_err_set(err, fd, "%.900s (after %u tries)", why, tries);
	}
	if (fd < 0)
		return fd;
	/* From here on the connection is the worker's stdin and stdout. */
	rc = 0;
	if (dup2(fd, STDIN_FILENO) < 0 || dup2(fd, STDOUT_FILENO) < 0)
		rc = fab_err_set(err, -errno, "dup2: %s", strerror(errno));
	close(fd);
	if (rc == 0)
		fab_info("worker: joined %s as %s%s%s", target, name, source ? " from " : "",
			 source ? source : "");
	return rc;
}
