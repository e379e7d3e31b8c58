// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The Paris-style tracer: raw IPv4 and IPv6 probes that keep each flow's
 * 5-tuple, answers read on a raw ICMP or ICMPv6 socket (and a raw TCP
 * socket for the destination's RST or SYN-ACK), every answer matched to
 * its probe by the number carried in the IP ID (ICMP quotes it), the
 * IPv6 UDP probe's payload (ICMPv6 quotes it) or the TCP sequence number
 * (a RST or SYN-ACK acknowledges it).  One set of sockets per family the
 * flows use.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/icmp.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "transport/trace.h"
#include "transport/trace_pkt.h"
#include "util/clock.h"
#include "util/log.h"

#define RING 65536u		/* probes kept for matching: the IP ID's range */

/*
 * One TTL of one flow.  A try that times out "counts" only when no flow to
 * the same destination got its first answer at this TTL during the try's
 * round (from half a retry interval before it left until it timed out:
 * the flows' tries of one round leave a little apart): a router's rate
 * limit lets the answers through one by one, and the flows still waiting
 * must not give up while others get theirs.  Such rounds are bounded: one
 * per flow of the group.
 */
struct ttl_state {
	unsigned int sent;	/* probes sent */
	unsigned int settled;	/* of them, timed out and judged */
	unsigned int counted;	/* of those, the ones that count towards tries */
	uint64_t round_ns;	/* the last one's round began then: half a retry before it */
	uint64_t sent_ns;	/* the last one left then */
	uint64_t next_ns;	/* ... and times out then */
};

struct fstate {
	struct trace_tuple tu;
	size_t group;			/* the first flow to the same destination */
	size_t group_size;		/* flows to that destination (on the first) */
	unsigned int limit;		/* probe TTLs 1..limit for now */
	unsigned int reached_ttl;	/* the destination answered this TTL; 0 not yet */
	/* on the group's first flow: when the group last got a first answer at each TTL */
	uint64_t answered_ns[FLOW_TRACE_MAX_TTL + 1];
	struct ttl_state ttl[FLOW_TRACE_MAX_TTL + 1];
	struct flow_hop hop[FLOW_TRACE_MAX_TTL + 1];
};

struct slot {
	uint32_t k;		/* the probe's number */
	uint32_t flow;
	unsigned int ttl;	/* 0: never used */
	uint64_t sent_ns;
};

struct tracer {
	const struct trace_opts *o;
	struct flow_trace *tr;
	size_t n;
	struct fstate *fs;
	struct slot *slots;		/* RING of them, by probe number mod RING */
	uint32_t n_sent;
	int snd[2], icmp[2], tcp[2];	/* [0] IPv4, [1] IPv6; -1: not open */
	uint16_t id_base;
	uint32_t seq_base;
	uint64_t last_send_ns;
};

/* ---- addresses: IPv4 in the first 4 of a tuple's 16 bytes, IPv6 in all 16 ------- */

union sockaddr_in46 {
	struct sockaddr sa;
	struct sockaddr_in in;
	struct sockaddr_in6 in6;
};

static int af_of(bool v6)
{
	return v6 ? AF_INET6 : AF_INET;
}

static size_t alen_of(bool v6)
{
	return v6 ? 16 : 4;
}

/* @u: address @addr (the family's bytes), port @port; its length. */
static socklen_t sa_set(union sockaddr_in46 *u, bool v6, const uint8_t *addr, uint16_t port)
{
	memset(u, 0, sizeof(*u));
	if (v6) {
		u->in6.sin6_family = AF_INET6;
		u->in6.sin6_port = htons(port);
		memcpy(&u->in6.sin6_addr, addr, 16);
		return sizeof(u->in6);
	}
	u->in.sin_family = AF_INET;
	u->in.sin_port = htons(port);
	memcpy(&u->in.sin_addr, addr, 4);
	return sizeof(u->in);
}

/* ---- setup ---------------------------------------------------------------------- */

static int raw_socket(int family, int proto, const char *what, struct fab_err *err)
{
	int fd = socket(family, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, proto);

	if (fd < 0 && (errno == EPERM || errno == EACCES))
		return fab_err_set(err, -EPERM, "trace: %s raw socket: %s (root or CAP_NET_RAW needed)",
				   what, strerror(errno));
	if (fd < 0)
		return fab_err_set(err, -errno, "trace: %s raw socket: %s", what, strerror(errno));
	return fd;
}

/* Only time exceeded and destination unreachable reach the ICMP socket. */
static int icmp_filter_set(int fd, struct fab_err *err)
{
	struct icmp_filter f = { .data = ~((1u << ICMP_DEST_UNREACH) | (1u << ICMP_TIME_EXCEEDED)) };

	if (setsockopt(fd, SOL_RAW, ICMP_FILTER, &f, sizeof(f)) < 0)
		return fab_err_set(err, -errno, "trace: ICMP_FILTER: %s", strerror(errno));
	return 0;
}

/*
 * Only TCP segments with RST, or SYN and ACK, reach a raw TCP socket: the
 * flags at 13 bytes into the segment, which an IPv4 socket's filter sees
 * after the IPv4 header (X its length) and an IPv6 one's at its start.
 */
static int tcp_filter_set(int fd, bool v6, struct fab_err *err)
{
	static struct sock_filter code[] = {
		{ BPF_LDX | BPF_B | BPF_MSH, 0, 0, 0 },		/* IPv4: X = the IP header's length */
		{ BPF_LD | BPF_B | BPF_IND, 0, 0, 13 },		/* A = TCP flags (IPv6 starts here, X 0) */
		{ BPF_JMP | BPF_JSET | BPF_K, 2, 0, 0x04 },	/* RST: keep */
		{ BPF_ALU | BPF_AND | BPF_K, 0, 0, 0x12 },
		{ BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0x12 },	/* SYN+ACK: keep */
		{ BPF_RET | BPF_K, 0, 0, 0xffff },
		{ BPF_RET | BPF_K, 0, 0, 0 },
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]) - v6, .filter = code + v6 };
	int one = 1;

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		return fab_err_set(err, -errno, "trace: SO_ATTACH_FILTER: %s", strerror(errno));
	/* IPv6: no header comes with the segment, its destination does */
	if (v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) < 0)
		return fab_err_set(err, -errno, "trace: IPV6_RECVPKTINFO: %s", strerror(errno));
	return 0;
}

/* Only ICMPv6 time exceeded and destination unreachable reach the ICMPv6 socket. */
static int icmp6_filter_set(int fd, struct fab_err *err)
{
	struct icmp6_filter f;

	ICMP6_FILTER_SETBLOCKALL(&f);
	ICMP6_FILTER_SETPASS(ICMP6_DST_UNREACH, &f);
	ICMP6_FILTER_SETPASS(ICMP6_TIME_EXCEEDED, &f);
	if (setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f)) < 0)
		return fab_err_set(err, -errno, "trace: ICMP6_FILTER: %s", strerror(errno));
	return 0;
}

/* Some flow of family @v6 (and with @tcp, a TCP one). */
static bool any_flow(const struct tracer *t, bool v6, bool tcp)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->fs[i].tu.v6 == v6 && (!tcp || t->fs[i].tu.proto == IPPROTO_TCP))
			return true;
	return false;
}

static int sockets_open(struct tracer *t, struct fab_err *err)
{
	for (int v6 = 0; v6 <= 1; v6++) {
		int fam = af_of(v6);

		if (!any_flow(t, v6, false))
			continue;
		/* IPPROTO_RAW: the header is ours (IPv6 too: the kernel sets IPV6_HDRINCL). */
		t->snd[v6] = raw_socket(fam, IPPROTO_RAW, "send", err);
		if (t->snd[v6] < 0)
			return err->code;
		t->icmp[v6] = raw_socket(fam, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP, v6 ? "ICMPv6" : "ICMP", err);
		if (t->icmp[v6] < 0 ||
		    (v6 ? icmp6_filter_set(t->icmp[v6], err) : icmp_filter_set(t->icmp[v6], err)) < 0)
			return err->code;
		if (!any_flow(t, v6, true))
			continue;
		t->tcp[v6] = raw_socket(fam, IPPROTO_TCP, "TCP", err);
		if (t->tcp[v6] < 0 ||
		    tcp_filter_set(t->tcp[v6], v6, err) < 0)
			return err->code;
	}
	return 0;
}

static void sockets_close(struct tracer *t)
{
	for (int v6 = 0; v6 <= 1; v6++) {
		if (t->snd[v6] >= 0)
			close(t->snd[v6]);
		if (t->icmp[v6] >= 0)
			close(t->icmp[v6]);
		if (t->tcp[v6] >= 0)
			close(t->tcp[v6]);
	}
}

/* The source address the route to @dst picks (a UDP socket's connect sends nothing). */
static int route_src(bool v6, const uint8_t *dst, uint8_t *src, struct fab_err *err)
{
	union sockaddr_in46 u;
	socklen_t len = sa_set(&u, v6, dst, 9);
	char buf[INET6_ADDRSTRLEN];
	int fd = socket(af_of(v6), SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return fab_err_set(err, -errno, "trace: socket: %s", strerror(errno));
	if (connect(fd, &u.sa, len) < 0 || getsockname(fd, &u.sa, &len) < 0)
		rc = fab_err_set(err, -errno, "trace: %s: no route: %s",
				 inet_ntop(af_of(v6), dst, buf, sizeof(buf)), strerror(errno));
	else
		memcpy(src, v6 ? (const void *)&u.in6.sin6_addr : (const void *)&u.in.sin_addr,
		       alen_of(v6));
	close(fd);
	return rc;
}

static int flow_prepare(struct tracer *t, size_t i, struct fab_err *err)
{
	struct flow *f = &t->tr[i].flow;
	struct fstate *fs = &t->fs[i];
	bool v6 = strchr(f->dst, ':') != NULL;

	fs->tu.v6 = v6;
	if (inet_pton(af_of(v6), f->dst, fs->tu.dst) != 1)
		return fab_err_input(err, -EINVAL, "trace: '%s' is not an IP address", f->dst);
	if (v6 && IN6_IS_ADDR_LINKLOCAL((struct in6_addr *)fs->tu.dst))
		return fab_err_input(err, -EINVAL, "trace: %s: a link-local address names no path "
				     "through the fabric", f->dst);
	if (f->src[0] && inet_pton(af_of(v6), f->src, fs->tu.src) != 1)
		return fab_err_input(err, -EINVAL, "trace: source '%s' is not an %s address", f->src,
				     v6 ? "IPv6" : "IPv4");
	if (!f->src[0]) {
		if (route_src(v6, fs->tu.dst, fs->tu.src, err) < 0)
			return err->code;
		inet_ntop(af_of(v6), fs->tu.src, f->src, sizeof(f->src));
	}
	fs->tu.proto = f->proto == FLOW_TCP ? IPPROTO_TCP : IPPROTO_UDP;
	fs->tu.sport = f->sport;
	fs->tu.dport = f->dport;
	fs->tu.label = f->label & 0xfffff;
	fs->limit = t->o->window < t->o->max_ttl ? t->o->window : t->o->max_ttl;
	fs->group = i;
	for (size_t j = 0; j < i; j++)
		if (t->fs[j].tu.v6 == v6 && !memcmp(t->fs[j].tu.dst, fs->tu.dst, alen_of(v6))) {
			fs->group = t->fs[j].group;
			break;
		}
	t->fs[fs->group].group_size++;
	return 0;
}

/* ---- sending -------------------------------------------------------------------- */

static unsigned int flow_last_ttl(const struct fstate *fs)
{
	return fs->reached_ttl ? fs->reached_ttl : fs->limit;
}

/* TTL @h of @fs may send no more: tries that counted, or tries + one per flow of its group sent. */
static bool ttl_exhausted(const struct tracer *t, const struct fstate *fs, unsigned int h)
{
	const struct ttl_state *ts = &fs->ttl[h];

	return ts->counted >= t->o->tries ||
	       ts->sent >= t->o->tries + t->fs[fs->group].group_size;
}

/* Judge the tries of TTL @h that have timed out by @now (see struct ttl_state). */
static void ttl_settle(const struct tracer *t, struct fstate *fs, unsigned int h, uint64_t now)
{
	struct ttl_state *ts = &fs->ttl[h];

	if (ts->settled == ts->sent || ts->next_ns > now || fs->hop[h].answer != HOP_NONE)
		return;
	if (t->fs[fs->group].answered_ns[h] <= ts->round_ns)
		ts->counted++;
	ts->settled = ts->sent;
}

/* TTL @h of @fs gave up: no answer, every try sent, timed out and judged. */
static bool ttl_silent(const struct tracer *t, const struct fstate *fs, unsigned int h)
{
	const struct ttl_state *ts = &fs->ttl[h];

	return fs->hop[h].answer == HOP_NONE && ts->sent && ts->settled == ts->sent &&
	       ttl_exhausted(t, fs, h);
}

static void all_settle(struct tracer *t, uint64_t now)
{
	for (size_t i = 0; i < t->n; i++)
		for (unsigned int h = 1; h <= flow_last_ttl(&t->fs[i]); h++)
			ttl_settle(t, &t->fs[i], h, now);
}

/* The first (TTL, then flow) probe that is due at @now: true and *@fi, *@ttl set. */
static bool probe_due(const struct tracer *t, uint64_t now, size_t *fi, unsigned int *ttl)
{
	for (unsigned int h = 1; h <= t->o->max_ttl; h++)
		for (size_t i = 0; i < t->n; i++) {
			const struct fstate *fs = &t->fs[i];
			const struct ttl_state *ts = &fs->ttl[h];

			if (h > flow_last_ttl(fs) || fs->hop[h].answer != HOP_NONE ||
			    ts->settled != ts->sent || ts->next_ns > now || ttl_exhausted(t, fs, h))
				continue;
			*fi = i;
			*ttl = h;
			return true;
		}
	return false;
}

/* @mh's control: one message of @len bytes (its buffer holds CMSG_SPACE(@len)). */
static void cmsg_put(struct msghdr *mh, int level, int type, const void *data, size_t len)
{
	struct cmsghdr *cm;

	mh->msg_controllen = CMSG_SPACE(len);
	cm = CMSG_FIRSTHDR(mh);
	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cm), data, len);
}

/*
 * Send probe @pkt to its flow's destination, routed as a packet from its
 * source would be: the raw socket's route lookup does not read the
 * header's source, so without IP_PKTINFO (IPV6_PKTINFO) a host that routes
 * by source (policy rules per rail, a NIC per table) would send the probe
 * out of another port than the flow's.  A source that is not this host's
 * (EINVAL) goes by the destination alone.
 */
static ssize_t probe_sendmsg(int fd, uint8_t *pkt, size_t len, const struct trace_tuple *tu)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	} c = { 0 };
	union sockaddr_in46 to;
	socklen_t tolen = sa_set(&to, tu->v6, tu->dst, 0);
	struct iovec iov = { .iov_base = pkt, .iov_len = len };
	struct msghdr mh = { .msg_name = &to, .msg_namelen = tolen, .msg_iov = &iov,
			     .msg_iovlen = 1, .msg_control = c.buf };
	ssize_t n;

	if (tu->v6) {
		struct in6_pktinfo pi = { 0 };

		memcpy(&pi.ipi6_addr, tu->src, 16);
		cmsg_put(&mh, IPPROTO_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
	} else {
		struct in_pktinfo pi = { 0 };

		memcpy(&pi.ipi_spec_dst, tu->src, 4);
		cmsg_put(&mh, IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi));
	}
	n = sendmsg(fd, &mh, 0);
	if (n < 0 && errno == EINVAL)
		n = sendto(fd, pkt, len, 0, &to.sa, tolen);
	return n;
}

static int probe_send(struct tracer *t, size_t fi, unsigned int ttl, uint64_t now,
		      struct fab_err *err)
{
	struct fstate *fs = &t->fs[fi];
	struct ttl_state *ts = &fs->ttl[ttl];
	uint8_t pkt[TRACE_PKT_MAX];
	uint64_t retry_ns = (uint64_t)t->o->retry_ms * 1000000u;
	uint32_t k = t->n_sent++;
	char dst[INET6_ADDRSTRLEN];
	size_t len;

	len = trace_pkt_build(pkt, &fs->tu, (uint8_t)ttl, (uint16_t)(t->id_base + k), t->seq_base + k);
	t->slots[k % RING] = (struct slot){ .k = k, .flow = (uint32_t)fi, .ttl = ttl, .sent_ns = now };
	ts->sent++;
	ts->round_ns = now - (now > retry_ns / 2 ? retry_ns / 2 : now);
	ts->sent_ns = now;
	ts->next_ns = now + retry_ns;
	t->last_send_ns = now;
	if (probe_sendmsg(t->snd[fs->tu.v6], pkt, len, &fs->tu) >= 0)
		return 0;
	if (errno == EAGAIN || errno == ENOBUFS || errno == EINTR)
		return 0;		/* lost like a dropped probe: tried again later */
	return fab_err_set(err, -errno, "trace: send to %s: %s",
			   inet_ntop(af_of(fs->tu.v6), fs->tu.dst, dst, sizeof(dst)),
			   strerror(errno));
}

/* ---- answers -------------------------------------------------------------------- */

/* The probe @a answers: its slot, or NULL when it is none of ours. */
static const struct slot *answer_slot(const struct tracer *t, const struct trace_answer *a)
{
	const struct slot *s;
	uint32_t k;

	if (trace_pkt_probe(a, t->id_base, t->seq_base, &k) < 0)
		return NULL;
	s = &t->slots[k % RING];
	if (!s->ttl || (a->has_seq ? s->k != k : (uint16_t)s->k != (uint16_t)k) ||
	    !trace_tuple_eq(&t->fs[s->flow].tu, &a->probe))
		return NULL;
	return s;
}

/* Record an answer at hop @h: true when it is the hop's first. */
static bool hop_record(struct flow_hop *h, const struct trace_answer *a, const char *from,
		       uint64_t rtt_ns)
{
	if (h->answer == HOP_NONE) {
		h->answer = a->kind;
		h->code = a->code;
		memcpy(h->addr, from, sizeof(h->addr));
		h->rtt_us = (uint32_t)(rtt_ns / 1000u);
		return true;
	}
	if (strcmp(h->addr, from) != 0 && !h->other[0])
		memcpy(h->other, from, sizeof(h->other));
	return false;
}

/*
 * TTL @ttl answered as a router on the way, or gave up silent: probe one
 * TTL further (not a window further: every probe past the destination
 * reaches it, and the destination's ICMP rate limit is shared by all the
 * flows to it).  A silent TTL extends only while fewer than window TTLs in
 * a row have been silent.
 */
static void limit_extend(const struct tracer *t, struct fstate *fs, unsigned int ttl)
{
	if (ttl + 1 > fs->limit && ttl + 1 <= t->o->max_ttl && !fs->reached_ttl)
		fs->limit = ttl + 1;
}

/* The run of silent TTLs ending at @ttl, in @fs. */
static unsigned int silent_run(const struct tracer *t, const struct fstate *fs, unsigned int ttl)
{
	unsigned int n = 0;

	for (unsigned int h = ttl; h >= 1 && ttl_silent(t, fs, h); h--)
		n++;
	return n;
}

/* TTLs that gave up silent at the flow's limit let it go on, up to window in a row. */
static void silent_extend(struct tracer *t)
{
	for (size_t i = 0; i < t->n; i++) {
		struct fstate *fs = &t->fs[i];
		unsigned int run = silent_run(t, fs, fs->limit);

		if (run && run < t->o->window)
			limit_extend(t, fs, fs->limit);
	}
}

static void answer_apply(struct tracer *t, const struct trace_answer *a, uint64_t now)
{
	const struct slot *s = answer_slot(t, a);
	struct fstate *fs;
	char from[TOPO_ADDR_LEN];
	unsigned int ttl;
	bool dest;

	if (!s)
		return;
	fs = &t->fs[s->flow];
	ttl = s->ttl;
	if (fs->reached_ttl && ttl > fs->reached_ttl)
		return;			/* past the destination: nothing to learn */
	inet_ntop(af_of(fs->tu.v6), a->from, from, sizeof(from));
	if (hop_record(&fs->hop[ttl], a, from, now - s->sent_ns))
		t->fs[fs->group].answered_ns[ttl] = now;
	dest = a->kind == HOP_TCP_RST || a->kind == HOP_TCP_SYNACK ||
	       (a->kind == HOP_UNREACHABLE && !memcmp(a->from, fs->tu.dst, alen_of(fs->tu.v6)));
	if (dest && (!fs->reached_ttl || ttl < fs->reached_ttl))
		fs->reached_ttl = ttl;
	else if (a->kind == HOP_UNREACHABLE && ttl < fs->limit)
		fs->limit = ttl;	/* a router that cannot forward: nothing lies past it */
	if (a->kind == HOP_TIME_EXCEEDED)
		limit_extend(t, fs, ttl);
	fab_debug("trace: %u -> %u ttl %u: %s from %s", fs->tu.sport, fs->tu.dport, ttl,
		  hop_answer_name(a->kind), from);
}

static void answers_read(struct tracer *t, int fd)
{
	uint8_t buf[2048];
	struct trace_answer a;
	ssize_t len;

	while ((len = recv(fd, buf, sizeof(buf), 0)) > 0)
		if (trace_pkt_parse(buf, (size_t)len, &a) == 0)
			answer_apply(t, &a, clock_mono_ns());
}

/* An IPv6 raw socket of @proto: no IPv6 header; the source from recvmsg, TCP's destination from IPV6_PKTINFO. */
static void answers_read6(struct tracer *t, int fd, int proto)
{
	uint8_t buf[2048], to[16];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
	} c;
	struct sockaddr_in6 from;
	struct trace_answer a;
	ssize_t len;

	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov,
				     .msg_iovlen = 1, .msg_control = c.buf,
				     .msg_controllen = sizeof(c.buf) };
		bool have_to = proto != IPPROTO_TCP;

		if ((len = recvmsg(fd, &mh, 0)) <= 0)
			return;
		memset(to, 0, sizeof(to));
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO) {
				struct in6_pktinfo pi;

				memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
				memcpy(to, &pi.ipi6_addr, 16);
				have_to = true;
			}
		if (have_to && mh.msg_namelen >= sizeof(from) &&
		    trace_pkt_parse6(buf, (size_t)len, proto, (const uint8_t *)&from.sin6_addr, to, &a) == 0)
			answer_apply(t, &a, clock_mono_ns());
	}
}

/* ---- the loop ------------------------------------------------------------------- */

/* Every flow has its answers, or gave up on the TTLs without one. */
static bool all_done(const struct tracer *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct fstate *fs = &t->fs[i];

		for (unsigned int h = 1; h <= flow_last_ttl(fs); h++)
			if (fs->hop[h].answer == HOP_NONE && !ttl_silent(t, fs, h))
				return false;
	}
	return true;
}

/* When something is due next: a try, or a try timing out. */
static uint64_t wake_ns(const struct tracer *t, uint64_t now)
{
	uint64_t wake = now + 1000000000u;

	for (size_t i = 0; i < t->n; i++) {
		const struct fstate *fs = &t->fs[i];

		for (unsigned int h = 1; h <= flow_last_ttl(fs); h++)
			if (fs->hop[h].answer == HOP_NONE && !ttl_silent(t, fs, h) &&
			    fs->ttl[h].next_ns < wake)
				wake = fs->ttl[h].next_ns;
	}
	if (wake < t->last_send_ns + t->o->gap_us * 1000ull)
		wake = t->last_send_ns + t->o->gap_us * 1000ull;
	return wake > now ? wake : now;
}

/* Wait for answers until @until; 0, or -ECANCELED. */
static int answers_wait(struct tracer *t, int cancel_fd, uint64_t now, uint64_t until)
{
	struct pollfd p[5] = {
		{ .fd = t->icmp[0], .events = POLLIN },
		{ .fd = t->tcp[0], .events = POLLIN },
		{ .fd = t->icmp[1], .events = POLLIN },
		{ .fd = t->tcp[1], .events = POLLIN },
		{ .fd = cancel_fd, .events = POLLIN },
	};
	struct timespec ts = { .tv_sec = (time_t)((until - now) / 1000000000u),
			       .tv_nsec = (long)((until - now) % 1000000000u) };

	if (ppoll(p, 5, &ts, NULL) < 0 && errno != EINTR)
		return 0;
	if (cancel_fd >= 0 && p[4].revents)
		return -ECANCELED;
	if (t->icmp[0] >= 0 && (p[0].revents & POLLIN))
		answers_read(t, t->icmp[0]);
	if (t->tcp[0] >= 0 && (p[1].revents & POLLIN))
		answers_read(t, t->tcp[0]);
	if (t->icmp[1] >= 0 && (p[2].revents & POLLIN))
		answers_read6(t, t->icmp[1], IPPROTO_ICMPV6);
	if (t->tcp[1] >= 0 && (p[3].revents & POLLIN))
		answers_read6(t, t->tcp[1], IPPROTO_TCP);
	return 0;
}

static int tracer_loop(struct tracer *t, int cancel_fd, struct fab_err *err)
{
	uint64_t now, gap_ns = t->o->gap_us * 1000ull;
	unsigned int ttl;
	size_t fi;

	for (;;) {
		now = clock_mono_ns();
		all_settle(t, now);
		silent_extend(t);
		if (all_done(t))
			return 0;
		if (now >= t->last_send_ns + gap_ns && probe_due(t, now, &fi, &ttl)) {
			if (probe_send(t, fi, ttl, now, err) < 0)
				return err->code;
			continue;
		}
		if (answers_wait(t, cancel_fd, now, wake_ns(t, now)) < 0)
			return fab_err_set(err, -ECANCELED, "trace: cancelled");
	}
}

/* ---- results -------------------------------------------------------------------- */

static int results_fill(struct tracer *t, struct fab_err *err)
{
	for (size_t i = 0; i < t->n; i++) {
		struct fstate *fs = &t->fs[i];
		struct flow_trace *tr = &t->tr[i];
		unsigned int last = flow_last_ttl(fs);

		tr->hops = calloc(last, sizeof(*tr->hops));
		if (!tr->hops)
			return fab_err_set(err, -ENOMEM, "trace: out of memory");
		for (unsigned int h = 1; h <= last; h++) {
			tr->hops[h - 1] = fs->hop[h];
			tr->hops[h - 1].ttl = h;
			tr->hops[h - 1].tries = fs->ttl[h].sent;
		}
		tr->n_hops = last;
		tr->reached = fs->reached_ttl != 0;
		tr->reached_ttl = fs->reached_ttl;
	}
	return 0;
}

static int opts_check(const struct trace_opts *o, size_t n, struct fab_err *err)
{
	if (!o->max_ttl || o->max_ttl > FLOW_TRACE_MAX_TTL || !o->window || !o->tries)
		return fab_err_input(err, -EINVAL, "trace: max TTL 1..%u, window and tries at least 1",
				     FLOW_TRACE_MAX_TTL);
	if (n > TRACE_MAX_FLOWS)
		return fab_err_input(err, -E2BIG, "trace: %zu flows, at most %u at once", n,
				     TRACE_MAX_FLOWS);
	return 0;
}

int trace_run(struct flow_trace *tr, size_t n, const struct trace_opts *o, int cancel_fd,
	      struct fab_err *err)
{
	struct tracer t = { .o = o, .tr = tr, .n = n, .snd = { -1, -1 }, .icmp = { -1, -1 },
			    .tcp = { -1, -1 } };
	uint64_t seed = clock_mono_ns() ^ ((uint64_t)getpid() << 20);
	int rc;

	if (!n)
		return 0;
	if (opts_check(o, n, err) < 0)
		return err->code;
	t.fs = calloc(n, sizeof(*t.fs));
	t.slots = calloc(RING, sizeof(*t.slots));
	if (!t.fs || !t.slots) {
		rc = fab_err_set(err, -ENOMEM, "trace: out of memory");
		goto out;
	}
	/* Probe numbers start at a run's own base: two tracers on one host tell theirs apart. */
	t.id_base = (uint16_t)seed;
	t.seq_base = (uint32_t)(seed >> 16);
	for (size_t i = 0; i < n; i++) {
		struct flow f = tr[i].flow;

		flow_trace_fini(&tr[i]);
		tr[i].flow = f;
	}
	rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = flow_prepare(&t, i, err);
	if (rc == 0)
		rc = sockets_open(&t, err);
	if (rc == 0)
		rc = tracer_loop(&t, cancel_fd, err);
	if (rc == 0)
		rc = results_fill(&t, err);
	if (rc < 0)
		for (size_t i = 0; i < n; i++) {
			free(tr[i].hops);
			tr[i].hops = NULL;
			tr[i].n_hops = 0;
		}
out:
	sockets_close(&t);
	free(t.slots);
	free(t.fs);
	return rc;
}
