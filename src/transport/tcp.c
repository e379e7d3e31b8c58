// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * TCP transport: ping-pong latency and streaming bandwidth (one or more
 * streams) between two workers; see transport.h for the steps.
 *
 * Every data-path connection starts with a 24-byte header from the client:
 * "FAB1", kind (LAT, FWD: client sends, REV: server sends), a reserved
 * byte, the stream index (big endian) and the sweep's 16-byte token.  The
 * server reads the headers of every connection it has accepted at once
 * (up to TCP_PENDING_MAX, each with its own TCP_HDR_WAIT_MS), so an idle
 * or slow connection never holds up the real peer; it drops, and logs
 * why, any connection whose header is wrong, late or incomplete, and goes
 * on waiting for the real peer.  It never listens on a wildcard address.
 * After a FWD transfer the server, which
 * measured it, sends its figures back on stream 0 (five big-endian u64:
 * bytes, elapsed_ns, full intervals, bytes in the slowest full interval,
 * interval_ns).
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "model/hosts.h"
#include "transport/tp_util.h"
#include "transport/transport.h"
#include "util/clock.h"
#include "util/log.h"

#define TCP_MAGIC "FAB1"
#define TCP_HDR_LEN 24
/*
 * Bulk transfers send and receive up to this much per call.  1 MiB, not
 * the 128 KiB of iperf3's default: when the sender and the receiver run
 * on different CPUs (what the scheduler picks on an idle machine) the
 * sending CPU, which also carries the kernel's whole path to the peer,
 * is the limit, and every call costs it a syscall and a socket lock and
 * release (with the ACKs queued meanwhile); a bigger call is fewer of
 * both (tests/bench/tcp.sh).  It does not change the figures' intervals:
 * the receiver counts what each call returns, at most what has arrived.
 */
#define TCP_BUF_BYTES (1024 * 1024)
#define TCP_MAX_STREAMS 64
#define TCP_HDR_WAIT_MS 2000
#define TCP_PENDING_MAX 32	/* accepted connections whose header is awaited */
/*
 * Header byte 5, flags.  TCP_HDR_RESETS: the client (a steered one: its
 * source port is a traced port, docs/paths.md "Steering") ends this
 * stream with a reset once it has the figures, so the server waits for
 * that instead of closing first (at most TCP_RESET_WAIT_MS): then neither
 * end keeps the tuple in TIME_WAIT, and the port serves the next run.
 */
#define TCP_HDR_RESETS 0x01
#define TCP_RESET_WAIT_MS 2000

enum tcp_kind {
	TCP_LAT = 1,
	TCP_FWD = 2,
	TCP_REV = 3,
};

struct tp_session {
	bool server;
	struct tp_params p;
	char local_addr[48];
	int lfd;			/* server: listener */
	struct sockaddr_storage peer;	/* client: the server's endpoint */
	socklen_t peer_len;
	char peer_str[64];
	unsigned char *buf;		/* TCP_BUF_BYTES */
	int fds[TCP_MAX_STREAMS];	/* a bulk run's streams, closed after each run */
	bool resets[TCP_MAX_STREAMS];	/* server: the stream's client resets it (TCP_HDR_RESETS) */
};

static int addr_parse(const char *addr, unsigned int port, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return 0;
	}
	return -EINVAL;
}

static int set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK) < 0 ? -errno : 0;
}

/* Read exactly @len bytes from nonblocking or blocking @fd before @deadline_ns. */
static int read_full(int fd, void *buf, size_t len, int cancel_fd, uint64_t deadline_ns)
{
	size_t got = 0;
	int rc;

	while (got < len) {
		ssize_t n = recv(fd, (char *)buf + got, len - got, MSG_DONTWAIT);

		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		rc = tp_wait_fd(fd, POLLIN, cancel_fd, deadline_ns);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len, int cancel_fd, uint64_t deadline_ns)
{
	size_t put = 0;
	int rc;

	while (put < len) {
		ssize_t n = send(fd, (const char *)buf + put, len - put, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n > 0) {
			put += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		rc = tp_wait_fd(fd, POLLOUT, cancel_fd, deadline_ns);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void session_free(struct tp_session *s)
{
	if (!s)
		return;
	if (s->lfd >= 0)
		close(s->lfd);
	free(s->buf);
	free(s);
}

static int session_new(const struct tp_params *p, bool server, struct tp_session **out,
		       struct fab_err *err)
{
	struct tp_session *s = calloc(1, sizeof(*s));

	if (!s || !(s->buf = malloc(TCP_BUF_BYTES))) {
		free(s);
		return fab_err_set(err, -ENOMEM, "tcp: out of memory");
	}
	s->server = server;
	s->p = *p;
	snprintf(s->local_addr, sizeof(s->local_addr), "%s", p->local_addr ? p->local_addr : "");
	s->p.local_addr = s->local_addr;
	s->lfd = -1;
	if (s->p.spec.streams == 0)
		s->p.spec.streams = 1;
	if (s->p.spec.streams > TCP_MAX_STREAMS)
		s->p.spec.streams = TCP_MAX_STREAMS;
	if (s->p.spec.msg_bytes == 0)
		s->p.spec.msg_bytes = 1;
	if (s->p.spec.msg_bytes > TCP_BUF_BYTES)
		s->p.spec.msg_bytes = TCP_BUF_BYTES;
	if (s->p.spec.interval_ms == 0)
		s->p.spec.interval_ms = 100;
	*out = s;
	return 0;
}
/*
 * An IPv6 test socket sends flow label 0, not the label Linux draws from
 * the connection's random hash (net.ipv6.auto_flowlabels; drawn again
 * when a retransmission times out): the label is in the hash of switches
 * and routers that hash IPv6 on it (Linux: fib_multipath_hash_policy 0),
 * and the tracer's probes carry 0 (docs/paths.md "IPv6").
 */
static void flowlabel_pin(int fd, int family)
{
	int zero = 0;

	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_AUTOFLOWLABEL, &zero, sizeof(zero));
}


static int tcp_server_open(const struct tp_params *p, struct tp_session **out,
			   json_t **endpoint, struct fab_err *err)
{
	struct sockaddr_storage ss;
	struct tp_session *s;
	socklen_t len;
	unsigned int port;
	int rc;

	rc = session_new(p, true, &s, err);
	if (rc < 0)
		return rc;
	if (addr_parse(s->local_addr, 0, &ss, &len) < 0) {
		rc = fab_err_set(err, -EINVAL, "tcp: bad local address '%s'", s->local_addr);
		goto out;
	}
	/* Only this node's own data-path address, never every address. */
	if (hosts_addr_unusable(s->local_addr)) {
		rc = fab_err_set(err, -EINVAL, "tcp: will not listen on '%s': it is %s",
				 s->local_addr, hosts_addr_unusable(s->local_addr));
		goto out;
	}
	s->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->lfd < 0) {
		rc = fab_err_set(err, -errno, "tcp: socket: %s", strerror(errno));
		goto out;
	}
	flowlabel_pin(s->lfd, ss.ss_family);	/* the accepted connections inherit it */
	/* Bound to the pair's address on an ephemeral port (or the steered one), for this test only. */
	if (p->spec.port) {
		int one = 1;

		addr_parse(s->local_addr, p->spec.port, &ss, &len);
		setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	}
	if (bind(s->lfd, (struct sockaddr *)&ss, len) < 0) {
		rc = fab_err_set(err, -errno, "tcp: bind %s port %u: %s", s->local_addr, p->spec.port,
				 strerror(errno));
		goto out;
	}
	if (listen(s->lfd, TCP_MAX_STREAMS + 4) < 0) {
		rc = fab_err_set(err, -errno, "tcp: listen %s: %s", s->local_addr, strerror(errno));
		goto out;
	}
	len = sizeof(ss);
	if (getsockname(s->lfd, (struct sockaddr *)&ss, &len) < 0) {
		rc = fab_err_set(err, -errno, "tcp: getsockname: %s", strerror(errno));
		goto out;
	}
	port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					      : ((struct sockaddr_in6 *)&ss)->sin6_port);
	*endpoint = json_pack("{s:s, s:i}", "addr", s->local_addr, "port", (int)port);
	if (!*endpoint) {
		rc = fab_err_set(err, -ENOMEM, "tcp: out of memory");
		goto out;
	}
	*out = s;
	s = NULL;
	rc = 0;
out:
	session_free(s);
	return rc;
}

static int tcp_client_open(const struct tp_params *p, const json_t *peer,
			   struct tp_session **out, json_t **endpoint, struct fab_err *err)
{
	const char *addr = json_string_value(json_object_get(peer, "addr"));
	const json_t *jport = json_object_get(peer, "port");
	json_int_t port = json_integer_value(jport);
	struct tp_session *s;
	int rc;

	if (!addr || !json_is_integer(jport) || port <= 0 || port > 65535)
		return fab_err_set(err, -EINVAL, "tcp: peer endpoint needs addr and port");
	rc = session_new(p, false, &s, err);
	if (rc < 0)
		return rc;
	if (addr_parse(addr, (unsigned int)port, &s->peer, &s->peer_len) < 0) {
		session_free(s);
		return fab_err_set(err, -EINVAL, "tcp: bad peer address '%s'", addr);
	}
	snprintf(s->peer_str, sizeof(s->peer_str), "%s port %u", addr, (unsigned int)port);
	*endpoint = json_object();
	if (!*endpoint) {
		session_free(s);
		return fab_err_set(err, -ENOMEM, "tcp: out of memory");
	}
	*out = s;
	return 0;
}

/*
 * poll(2) @n streams in @pfd and, at pfd[@n], @cancel_fd (when >= 0) for
 * @left ms: 0 (interrupted: nothing ready), or an error (cancelled).
 */
static int streams_poll(struct pollfd *pfd, unsigned int n, int cancel_fd, int left,
			struct fab_err *err)
{
	int rc = poll(pfd, n + (cancel_fd >= 0), left);

	if (rc < 0 && errno == EINTR) {
		for (unsigned int i = 0; i <= n; i++)
			pfd[i].revents = 0;
		return 0;
	}
	if (rc < 0)
		return fab_err_set(err, -errno, "tcp: poll: %s", strerror(errno));
	if (cancel_fd >= 0 && pfd[n].revents)
		return fab_err_set(err, -ECANCELED, "tcp: cancelled");
	return 0;
}

/* Receive on @fds until every one reaches EOF. */
static int bw_receive(struct tp_session *s, int *fds, unsigned int n, int cancel_fd,
		      uint64_t deadline_ns, struct tp_meter *m, struct fab_err *err)
{
	struct pollfd pfd[TCP_MAX_STREAMS + 1];
	unsigned int open = n;
	int rc;

	for (unsigned int i = 0; i < n; i++) {
		pfd[i].fd = fds[i];
		pfd[i].events = POLLIN;
	}
	pfd[n].fd = cancel_fd;
	pfd[n].events = POLLIN;
	while (open) {
		int left = tp_ms_left(deadline_ns);

		if (!left)
			return fab_err_set(err, -ETIMEDOUT, "tcp: %s: transfer timed out",
					   s->server ? "receive" : s->peer_str);
		rc = streams_poll(pfd, n, cancel_fd, left, err);
		if (rc < 0)
			return rc;
		for (unsigned int i = 0; i < n; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			for (;;) {
				ssize_t got = recv(pfd[i].fd, s->buf, TCP_BUF_BYTES, MSG_DONTWAIT);

				if (got > 0) {
					uint64_t now = clock_mono_ns();

					if (!m->bytes)
						m->t0 = now;	/* timed from the first bytes */
					if (tp_meter_add(m, now, (uint64_t)got) < 0)
						return fab_err_set(err, -ENOMEM, "tcp: out of memory");
					continue;
				}
				if (got == 0) {
					pfd[i].fd = -1;
					open--;
				} else if (errno != EAGAIN && errno != EINTR) {
					return fab_err_set(err, -errno, "tcp: receive: %s", strerror(errno));
				}
				break;
			}
		}
	}
	return 0;
}

/* Send on every one of @fds for duration_ms, then shut the write side. */
static int bw_send(struct tp_session *s, int *fds, unsigned int n, int cancel_fd,
		   uint64_t deadline_ns, struct fab_err *err)
{
	struct pollfd pfd[TCP_MAX_STREAMS + 1];
	uint64_t end = clock_mono_ns() + (uint64_t)s->p.spec.duration_ms * 1000000ull;
	int rc;

	memset(s->buf, 0xa5, TCP_BUF_BYTES);
	for (unsigned int i = 0; i < n; i++) {
		pfd[i].fd = fds[i];
		pfd[i].events = POLLOUT;
	}
	pfd[n].fd = cancel_fd;
	pfd[n].events = POLLIN;
	/*
	 * One pass at least, whenever this thread first runs: a sender that
	 * starts after @end (a busy host's run queue, a short duration) still
	 * sends a buffer per stream, never an empty run the receiver would
	 * time at 0 bytes (tests/unit/test_tcp.c saw it under load).
	 */
	for (bool first = true;; first = false) {
		uint64_t now = clock_mono_ns();
		int left;

		if (now >= end && !first)
			break;
		if (now >= deadline_ns)
			return fab_err_set(err, -ETIMEDOUT, "tcp: send timed out");
		left = now >= end ? 0 : (int)((end - now) / 1000000) + 1;
		rc = streams_poll(pfd, n, cancel_fd, left, err);
		if (rc < 0)
			return rc;
		for (unsigned int i = 0; i < n; i++) {
			if (!pfd[i].revents)
				continue;
			if (pfd[i].revents & (POLLERR | POLLHUP))
				return fab_err_set(err, -ECONNRESET, "tcp: %s: connection lost",
						   s->server ? "client" : s->peer_str);
			for (;;) {
				ssize_t put = send(pfd[i].fd, s->buf, TCP_BUF_BYTES,
						   MSG_DONTWAIT | MSG_NOSIGNAL);

				if (put < 0 && errno != EAGAIN && errno != EINTR)
					return fab_err_set(err, -errno, "tcp: send: %s", strerror(errno));
				if (put < 0 || clock_mono_ns() >= end)
					break;
			}
		}
	}
	for (unsigned int i = 0; i < n; i++)
		shutdown(fds[i], SHUT_WR);
	return 0;
}

/* ---- server ---- */

static void close_all(int *fds, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

/* A connection accepted by the listener whose header is still awaited. */
struct tcp_pending {
	int fd;
	unsigned int got;
	uint64_t deadline_ns;
	uint8_t hdr[TCP_HDR_LEN];
};

static void pending_drop(struct tcp_pending *pend, unsigned int *npend, unsigned int i)
{
	close(pend[i].fd);
	pend[i] = pend[--*npend];
}

/*
 * Judge a complete header: the stream index it is for (>= 0), or -1 with
 * the reason it is refused in @why.
 */
static int header_check(const struct tp_session *s, const uint8_t *hdr, enum tcp_kind kind,
			const int *fds, unsigned int n, char *why, size_t whylen)
{
	unsigned int idx = (unsigned int)hdr[6] << 8 | hdr[7];

	if (memcmp(hdr, TCP_MAGIC, 4) != 0)
		snprintf(why, whylen, "not a fabricctl data-path header");
	else if (!tp_token_equal(hdr + 8, s->p.token))
		snprintf(why, whylen, "header without the sweep's token");
	else if (hdr[4] != kind)
		snprintf(why, whylen, "header for test kind %u, serving kind %u", hdr[4], kind);
	else if (idx >= n)
		snprintf(why, whylen, "stream index %u out of range (%u stream%s)", idx, n,
			 n == 1 ? "" : "s");
	else if (fds[idx] >= 0)
		snprintf(why, whylen, "stream index %u already connected", idx);
	else
		return (int)idx;
	return -1;
}

/* Accept every connection waiting on the listener into @pend. */
static int accept_pending(struct tp_session *s, struct tcp_pending *pend, unsigned int *npend,
			  struct fab_err *err)
{
	for (;;) {
		int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0) {
			if (errno == EAGAIN || errno == ECONNABORTED)
				return 0;
			if (errno == EINTR)
				continue;
			return fab_err_set(err, -errno, "tcp: accept: %s", strerror(errno));
		}
		if (*npend == TCP_PENDING_MAX) {
			/* Full: drop the oldest; the newest may be the peer. */
			unsigned int old = 0;

			for (unsigned int i = 1; i < *npend; i++)
				if (pend[i].deadline_ns < pend[old].deadline_ns)
					old = i;
			fab_info("tcp: %s: dropped a connection: %d others without a header yet",
				 s->local_addr, TCP_PENDING_MAX);
			pending_drop(pend, npend, old);
		}
		pend[*npend] = (struct tcp_pending){
			.fd = fd, .deadline_ns = clock_mono_ns() + TCP_HDR_WAIT_MS * 1000000ull };
		(*npend)++;
	}
}

/*
 * Read what pending connection @i has sent: 1 when its header is complete,
 * 0 when more is to come, -1 when it was dropped (closed or failed).
 */
static int pending_read(struct tp_session *s, struct tcp_pending *pend, unsigned int *npend,
			unsigned int i)
{
	struct tcp_pending *c = &pend[i];

	for (;;) {
		ssize_t got = recv(c->fd, c->hdr + c->got, TCP_HDR_LEN - c->got, MSG_DONTWAIT);

		if (got > 0) {
			c->got += (unsigned int)got;
			if (c->got == TCP_HDR_LEN)
				return 1;
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EAGAIN)
			return 0;
		fab_info("tcp: %s: dropped a connection: closed after %u of %d header bytes",
			 s->local_addr, c->got, TCP_HDR_LEN);
		pending_drop(pend, npend, i);
		return -1;
	}
}

/*
 * Accept until @n connections of @kind with our token have arrived.  Every
 * accepted connection is polled at once, each against its own header
 * deadline, so idle ones cost the real peer nothing.
 */
static int accept_peers(struct tp_session *s, enum tcp_kind kind, int *fds, unsigned int n,
			int cancel_fd, uint64_t deadline_ns, struct fab_err *err)
{
	struct tcp_pending pend[TCP_PENDING_MAX];
	struct pollfd pfd[TCP_PENDING_MAX + 2];
	unsigned int have = 0, npend = 0;
	int rc = 0;

	for (unsigned int i = 0; i < n; i++) {
		fds[i] = -1;
		s->resets[i] = false;
	}
	while (have < n) {
		uint64_t now = clock_mono_ns(), wake = deadline_ns;
		unsigned int np;
		int left;

		/* Drop the connections that sent no header in time. */
		for (unsigned int i = 0; i < npend;) {
			if (pend[i].deadline_ns <= now) {
				fab_info("tcp: %s: dropped a connection: no header within %d ms (%u of %d bytes)",
					 s->local_addr, TCP_HDR_WAIT_MS, pend[i].got, TCP_HDR_LEN);
				pending_drop(pend, &npend, i);
				continue;
			}
			if (pend[i].deadline_ns < wake)
				wake = pend[i].deadline_ns;
			i++;
		}
		if (now >= deadline_ns) {
			rc = fab_err_set(err, -ETIMEDOUT, "tcp: %s: no peer connected in time",
					 s->local_addr);
			goto out;
		}
		left = tp_ms_left(wake);
		pfd[0] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = cancel_fd, .events = POLLIN };
		for (unsigned int i = 0; i < npend; i++)
			pfd[2 + i] = (struct pollfd){ .fd = pend[i].fd, .events = POLLIN };
		np = npend;
		rc = poll(pfd, 2 + np, left ? left : 1);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0) {
			rc = fab_err_set(err, -errno, "tcp: poll: %s", strerror(errno));
			goto out;
		}
		if (cancel_fd >= 0 && pfd[1].revents) {
			rc = fab_err_set(err, -ECANCELED, "tcp: cancelled");
			goto out;
		}
		/* Headers first (from the last, as a drop moves the last into i). */
		for (unsigned int i = np; i-- > 0 && have < n;) {
			char why[96];
			int idx;

			if (!pfd[2 + i].revents || pending_read(s, pend, &npend, i) != 1)
				continue;
			idx = header_check(s, pend[i].hdr, kind, fds, n, why, sizeof(why));
			if (idx < 0) {
				fab_info("tcp: %s: dropped a connection: %s", s->local_addr, why);
				pending_drop(pend, &npend, i);
				continue;
			}
			fds[idx] = pend[i].fd;
			s->resets[idx] = pend[i].hdr[5] & TCP_HDR_RESETS;
			pend[i] = pend[--npend];
			have++;
		}
		if (have < n && pfd[0].revents) {
			rc = accept_pending(s, pend, &npend, err);
			if (rc < 0)
				goto out;
		}
	}
	rc = 0;
out:
	while (npend)
		pending_drop(pend, &npend, npend - 1);
	if (rc < 0)
		close_all(fds, n);
	return rc;
}

static int serve_lat(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		     struct fab_err *err)
{
	unsigned int len = s->p.spec.msg_bytes, iter = 0;
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	int fd, one = 1, rc;

	rc = accept_peers(s, TCP_LAT, &fd, 1, cancel_fd, deadline_ns, err);
	if (rc < 0)
		return rc;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/*
	 * Blocking echo (one recv and one send per round trip, like the
	 * reference tools); the short receive timeout lets it notice a
	 * cancel or the deadline while the client is quiet.
	 */
	set_nonblock(fd, false);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	for (;;) {
		size_t got = 0;

		while (got < len) {
			ssize_t n = recv(fd, s->buf + got, len - got, 0);

			if (n > 0) {
				got += (size_t)n;
				continue;
			}
			if (n == 0 && got == 0) {
				rc = 0;		/* the client is done */
				goto out;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN) {
				if (tp_cancelled(cancel_fd)) {
					rc = fab_err_set(err, -ECANCELED, "tcp: cancelled");
					goto out;
				}
				if (!tp_ms_left(deadline_ns)) {
					rc = fab_err_set(err, -ETIMEDOUT, "tcp: latency: client stalled");
					goto out;
				}
				continue;
			}
			rc = fab_err_set(err, -ECONNRESET, "tcp: latency: client went away");
			goto out;
		}
		if ((++iter & 1023) == 0 && tp_cancelled(cancel_fd)) {
			rc = fab_err_set(err, -ECANCELED, "tcp: cancelled");
			goto out;
		}
		if (send(fd, s->buf, len, MSG_NOSIGNAL) != (ssize_t)len) {
			rc = fab_err_set(err, -EIO, "tcp: latency: echo failed");
			goto out;
		}
	}
out:
	close(fd);
	return rc;
}

/* ---- client ---- */

/* The source port of stream @idx of @kind: steered (spec.sport_fwd / _rev + idx), or 0: any. */
static unsigned int client_sport(const struct tp_session *s, enum tcp_kind kind, unsigned int idx)
{
	unsigned int base = kind == TCP_FWD ? s->p.spec.sport_fwd
			  : kind == TCP_REV ? s->p.spec.sport_rev : 0;

	return base && base + idx <= 65535 ? base + idx : 0;
}

static int client_connect(struct tp_session *s, enum tcp_kind kind, unsigned int idx,
			  int cancel_fd, uint64_t deadline_ns, int *out, struct fab_err *err)
{
	struct sockaddr_storage local;
	socklen_t llen;
	uint8_t hdr[TCP_HDR_LEN] = { 0 };
	unsigned int sport = client_sport(s, kind, idx);
	int fd, rc, soerr = 0;
	socklen_t sl = sizeof(soerr);

	fd = socket(s->peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fab_err_set(err, -errno, "tcp: socket: %s", strerror(errno));
	flowlabel_pin(fd, s->peer.ss_family);
	if (sport && !*s->local_addr) {
		rc = fab_err_set(err, -EINVAL, "tcp: source port %u without a local address", sport);
		goto fail;
	}
	if (sport) {
		/*
		 * The port's earlier connections in TIME_WAIT (other tuples) do
		 * not block it.  Every connection closes here with a reset and
		 * leaves no TIME_WAIT, so its tuple can run again at once: b ->
		 * a, the server's FIN came first; a -> b, this side's FIN came
		 * first (shutdown after the data) and the server, told by
		 * TCP_HDR_RESETS, waits for the reset instead of sending its
		 * own FIN (docs/paths.md "Steering").
		 */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };
		int one = 1;

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	if (*s->local_addr && addr_parse(s->local_addr, sport, &local, &llen) == 0 &&
	    local.ss_family == s->peer.ss_family &&
	    bind(fd, (struct sockaddr *)&local, llen) < 0) {
		rc = fab_err_set(err, -errno, "tcp: bind %s port %u: %s", s->local_addr, sport,
				 strerror(errno));
		goto fail;
	}
	if (connect(fd, (struct sockaddr *)&s->peer, s->peer_len) < 0 && errno != EINPROGRESS) {
		rc = fab_err_set(err, -errno, "tcp: connect %s: %s", s->peer_str, strerror(errno));
		goto fail;
	}
	rc = tp_wait_fd(fd, POLLOUT, cancel_fd, deadline_ns);
	if (rc == 0 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr)
		rc = -soerr;
	if (rc < 0) {
		fab_err_set(err, rc, "tcp: connect %s: %s", s->peer_str, strerror(-rc));
		goto fail;
	}
	memcpy(hdr, TCP_MAGIC, 4);
	hdr[4] = (uint8_t)kind;
	if (sport && kind == TCP_FWD)
		hdr[5] = TCP_HDR_RESETS;	/* closed below with SO_LINGER 0, after the figures */
	hdr[6] = (uint8_t)(idx >> 8);
	hdr[7] = (uint8_t)idx;
	memcpy(hdr + 8, s->p.token, TP_TOKEN_LEN);
	rc = write_full(fd, hdr, sizeof(hdr), cancel_fd, deadline_ns);
	if (rc < 0) {
		fab_err_set(err, rc, "tcp: %s: %s", s->peer_str, strerror(-rc));
		goto fail;
	}
	*out = fd;
	return 0;
fail:
	close(fd);
	return rc;
}

/* @n connections of @kind into @fds, the client's accept_peers(); on failure close_all() cleans up. */
static int client_connect_all(struct tp_session *s, enum tcp_kind kind, int *fds, unsigned int n,
			      int cancel_fd, uint64_t deadline_ns, struct fab_err *err)
{
	int rc = 0;

	for (unsigned int i = 0; i < n; i++)
		fds[i] = -1;
	for (unsigned int i = 0; i < n && rc == 0; i++)
		rc = client_connect(s, kind, i, cancel_fd, deadline_ns, &fds[i], err);
	return rc;
}

static int client_lat(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		      struct tp_result *res, struct fab_err *err)
{
	unsigned int iters = s->p.spec.lat_iters, warm = iters / 10, len = s->p.spec.msg_bytes;
	double *lat = malloc(iters * sizeof(*lat));
	uint64_t t_start, t_warm_end = 0, t_end = 0;
	unsigned int done = 0;
	int fd = -1, one = 1, rc;
	struct timeval tv;
	int left;

	if (!lat)
		return fab_err_set(err, -ENOMEM, "tcp: out of memory");
	if (warm > 1000)
		warm = 1000;
	rc = client_connect(s, TCP_LAT, 0, cancel_fd, deadline_ns, &fd, err);
	if (rc < 0)
		goto out;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Blocking round trips, bounded by the deadline through socket timeouts. */
	set_nonblock(fd, false);
	left = tp_ms_left(deadline_ns);
	tv.tv_sec = left / 1000;
	tv.tv_usec = (left % 1000) * 1000;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	memset(s->buf, 0x5a, len);
	/*
	 * With a time bound (spec.lat_ms) the phase ends there whatever the
	 * count, so a pair's test time is fixed by its spec even when the
	 * host is busy: warm-up gets at most a tenth of it, and the samples
	 * are those taken in time (at least one).
	 */
	if (s->p.spec.lat_ms) {
		t_start = clock_mono_ns();
		t_warm_end = t_start + (uint64_t)s->p.spec.lat_ms * 100000ull;
		t_end = t_start + (uint64_t)s->p.spec.lat_ms * 1000000ull;
	}
	for (unsigned int i = 0; i < warm + iters; i++) {
		uint64_t t0 = clock_mono_ns();
		ssize_t n;

		if (t_end && i < warm && t0 >= t_warm_end)
			i = warm;	/* warm-up over its share of the time */
		if (t_end && i > warm && t0 >= t_end)
			break;

		if ((i & 1023) == 1023 && tp_cancelled(cancel_fd)) {
			rc = fab_err_set(err, -ECANCELED, "tcp: cancelled");
			goto out;
		}
		if (send(fd, s->buf, len, MSG_NOSIGNAL) != (ssize_t)len) {
			rc = fab_err_set(err, errno ? -errno : -EIO, "tcp: latency: %s: send failed",
					 s->peer_str);
			goto out;
		}
		n = recv(fd, s->buf, len, MSG_WAITALL);
		if (n != (ssize_t)len) {
			rc = n == 0 ? -ECONNRESET : n < 0 && errno == EAGAIN ? -ETIMEDOUT : -EIO;
			fab_err_set(err, rc, "tcp: latency: %s: %s", s->peer_str,
				    n == 0 ? "peer closed" : n < 0 && errno == EAGAIN ? "timed out"
										: "short read");
			goto out;
		}
		if (i >= warm)
			lat[done++] = (double)(clock_mono_ns() - t0);
	}
	res->have_lat = stats_summarize(lat, done, &res->lat_ns) == 0;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	free(lat);
	return rc;
}

/* Our end's streams of @kind into s->fds: accepted (server) or connected (client). */
static int streams_open(struct tp_session *s, enum tcp_kind kind, int cancel_fd,
			uint64_t deadline_ns, struct fab_err *err)
{
	unsigned int n = s->p.spec.streams;

	if (s->server)
		return accept_peers(s, kind, s->fds, n, cancel_fd, deadline_ns, err);
	return client_connect_all(s, kind, s->fds, n, cancel_fd, deadline_ns, err);
}

/*
 * The receiving end of a bulk run of @kind, at either side: the streams
 * opened into s->fds (bulk_close() closes them), everything received, the
 * meter's figures in @fig.
 */
static int bulk_receive(struct tp_session *s, enum tcp_kind kind, int cancel_fd,
			uint64_t deadline_ns, uint64_t fig[5], struct fab_err *err)
{
	unsigned int n = s->p.spec.streams;
	struct tp_meter m = { .interval_ns = (uint64_t)s->p.spec.interval_ms * 1000000ull };
	int rc;

	rc = streams_open(s, kind, cancel_fd, deadline_ns, err);
	if (rc == 0)
		rc = bw_receive(s, s->fds, n, cancel_fd, deadline_ns, &m, err);
	if (rc == 0)
		tp_meter_figures(&m, fig);
	tp_meter_fini(&m);
	return rc;
}

/* The sending end of a bulk run of @kind: the streams opened into s->fds, the run sent. */
static int bulk_send(struct tp_session *s, enum tcp_kind kind, int cancel_fd,
		     uint64_t deadline_ns, struct fab_err *err)
{
	int rc;

	rc = streams_open(s, kind, cancel_fd, deadline_ns, err);
	if (rc == 0)
		rc = bw_send(s, s->fds, s->p.spec.streams, cancel_fd, deadline_ns, err);
	return rc;
}

static int bulk_close(struct tp_session *s, int rc)
{
	close_all(s->fds, s->p.spec.streams);
	return rc;
}

/*
 * The streams whose client resets them (TCP_HDR_RESETS): wait until each
 * has (poll's POLLHUP or POLLERR; its EOF is already read), at most
 * TCP_RESET_WAIT_MS, so that this end does not close first.
 */
static void await_resets(struct tp_session *s, int cancel_fd, uint64_t deadline_ns)
{
	uint64_t until = clock_mono_ns() + (uint64_t)TCP_RESET_WAIT_MS * 1000000ull;

	if (until > deadline_ns)
		until = deadline_ns;
	for (unsigned int i = 0; i < s->p.spec.streams; i++) {
		while (s->fds[i] >= 0 && s->resets[i]) {
			struct pollfd pfd[2] = { { .fd = s->fds[i], .events = 0 },
						 { .fd = cancel_fd, .events = POLLIN } };
			int left = tp_ms_left(until), rc;

			if (!left)
				return;
			rc = poll(pfd, cancel_fd >= 0 ? 2 : 1, left);
			if (rc < 0 && errno == EINTR)
				continue;
			if (rc <= 0 || (cancel_fd >= 0 && pfd[1].revents))
				return;
			if (pfd[0].revents)
				break;
		}
	}
}

/* Forward bandwidth, the server receiving: its figures go back on the first stream. */
static int serve_fwd(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		     struct fab_err *err)
{
	uint64_t fig[5];
	int rc = bulk_receive(s, TCP_FWD, cancel_fd, deadline_ns, fig, err);

	if (rc == 0) {
		for (size_t i = 0; i < 5; i++)
			fig[i] = htobe64(fig[i]);
		rc = write_full(s->fds[0], fig, sizeof(fig), cancel_fd, deadline_ns);
		if (rc < 0)
			fab_err_set(err, rc, "tcp: sending figures: %s", strerror(-rc));
	}
	if (rc == 0)
		await_resets(s, cancel_fd, deadline_ns);
	return bulk_close(s, rc);
}

/* Reverse bandwidth, the server sending. */
static int serve_rev(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		     struct fab_err *err)
{
	int rc = bulk_send(s, TCP_REV, cancel_fd, deadline_ns, err);

	/* Wait for the client to close: it has then received everything. */
	for (unsigned int i = 0; rc == 0 && i < s->p.spec.streams; i++) {
		char c;

		rc = tp_wait_fd(s->fds[i], POLLIN, cancel_fd, deadline_ns);
		if (rc < 0)
			fab_err_set(err, rc, "tcp: waiting for the client to finish: %s", strerror(-rc));
		else
			(void)!recv(s->fds[i], &c, 1, MSG_DONTWAIT);
	}
	return bulk_close(s, rc);
}

/*
 * The listener is closed when the run ends, before the worker answers:
 * the controller starts the host's next test (a steered one on the same
 * port D) as soon as it has both answers, and a listener still open then
 * fails its bind with EADDRINUSE (SO_REUSEADDR lets a port in TIME_WAIT
 * or with connections be bound again, never one that listens).
 */
static int tcp_server_run(struct tp_session *s, int cancel_fd, struct fab_err *err)
{
	uint64_t deadline = clock_mono_ns() + (uint64_t)s->p.spec.timeout_ms * 1000000ull;
	int rc = 0;

	if (s->p.spec.lat_iters)
		rc = serve_lat(s, cancel_fd, deadline, err);
	if (rc == 0 && s->p.spec.bw_fwd && s->p.spec.duration_ms)
		rc = serve_fwd(s, cancel_fd, deadline, err);
	if (rc == 0 && s->p.spec.bw_rev && s->p.spec.duration_ms)
		rc = serve_rev(s, cancel_fd, deadline, err);
	if (s->lfd >= 0) {
		close(s->lfd);
		s->lfd = -1;
	}
	return rc;
}

/* Forward bandwidth, the client sending: the receiver's figures come back. */
static int client_fwd(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		      struct tp_result *res, struct fab_err *err)
{
	uint64_t fig[5];
	int rc = bulk_send(s, TCP_FWD, cancel_fd, deadline_ns, err);

	if (rc == 0) {
		rc = read_full(s->fds[0], fig, sizeof(fig), cancel_fd, deadline_ns);
		if (rc < 0)
			fab_err_set(err, rc, "tcp: %s: no figures from the receiver: %s", s->peer_str,
				    strerror(-rc));
	}
	if (rc == 0) {
		for (size_t i = 0; i < 5; i++)
			fig[i] = be64toh(fig[i]);
		tp_bw_from_figures(&res->fwd, fig);
	}
	return bulk_close(s, rc);
}

/* Reverse bandwidth, the client receiving. */
static int client_rev(struct tp_session *s, int cancel_fd, uint64_t deadline_ns,
		      struct tp_result *res, struct fab_err *err)
{
	uint64_t fig[5];
	int rc = bulk_receive(s, TCP_REV, cancel_fd, deadline_ns, fig, err);

	if (rc == 0)
		tp_bw_from_figures(&res->rev, fig);
	return bulk_close(s, rc);
}

static int tcp_client_run(struct tp_session *s, int cancel_fd, struct tp_result *res,
			  struct fab_err *err)
{
	uint64_t deadline = clock_mono_ns() + (uint64_t)s->p.spec.timeout_ms * 1000000ull;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	if (s->p.spec.lat_iters)
		rc = client_lat(s, cancel_fd, deadline, res, err);
	if (rc == 0 && s->p.spec.bw_fwd && s->p.spec.duration_ms)
		rc = client_fwd(s, cancel_fd, deadline, res, err);
	if (rc == 0 && s->p.spec.bw_rev && s->p.spec.duration_ms)
		rc = client_rev(s, cancel_fd, deadline, res, err);
	return rc;
}

const struct transport_ops transport_tcp_ops = {
	.name = "tcp",
	.server_open = tcp_server_open,
	.client_open = tcp_client_open,
	.server_peer = NULL,
	.server_run = tcp_server_run,
	.client_run = tcp_client_run,
	.close = session_free,
};
