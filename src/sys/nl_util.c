// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libmnl request/ack helpers with extended-ack text (see nl_util.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <linux/netlink.h>

#include "sys/nl_util.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif

int nl_sock_open(struct nl_sock *s, int bus, struct fab_err *err)
{
	int one = 1;

	memset(s, 0, sizeof(*s));
	s->nl = mnl_socket_open(bus);
	if (!s->nl)
		return fab_err_set(err, -errno, "netlink: socket: %s", strerror(errno));
	if (mnl_socket_bind(s->nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		int rc = -errno;

		mnl_socket_close(s->nl);
		s->nl = NULL;
		return fab_err_set(err, rc, "netlink: bind: %s", strerror(-rc));
	}
	/* Both are best effort: old kernels ack without TLVs. */
	mnl_socket_setsockopt(s->nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(s->nl, NETLINK_CAP_ACK, &one, sizeof(one));
	s->portid = mnl_socket_get_portid(s->nl);
	s->seq = (unsigned int)time(NULL);
	return 0;
}

void nl_sock_close(struct nl_sock *s)
{
	if (s->nl)
		mnl_socket_close(s->nl);
	s->nl = NULL;
}

struct nlmsghdr *nl_msg_new(struct nl_sock *s, void *buf, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++s->seq;
	return nlh;
}

int nl_err_parse(const struct nlmsghdr *nlh, size_t len, int *error, char *msg, size_t msg_len)
{
	const struct nlmsgerr *e;
	const struct nlattr *a;
	size_t off, end;

	if (msg_len)
		msg[0] = '\0';
	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(*e) ||
	    nlh->nlmsg_len > len)
		return -EBADMSG;
	e = mnl_nlmsg_get_payload(nlh);
	/* The kernel sends a negative errno; anything else is garbage. */
	if (e->error > 0 || e->error < -4095)
		return -EBADMSG;
	*error = e->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	/* nlmsgerr, then the echoed request unless capped, then the TLVs. */
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < sizeof(e->msg))
			return -EBADMSG;
		off += e->msg.nlmsg_len - sizeof(e->msg);
	}
	off = MNL_ALIGN(off);
	end = nlh->nlmsg_len - NLMSG_HDRLEN;
	if (off > end)
		return -EBADMSG;
	a = (const struct nlattr *)((const char *)mnl_nlmsg_get_payload(nlh) + off);
	while (end - off >= sizeof(*a)) {
		if (a->nla_len < sizeof(*a) || a->nla_len > end - off)
			return -EBADMSG;
		if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0 && msg_len) {
			snprintf(msg, msg_len, "%s", mnl_attr_get_str(a));
		}
		off += MNL_ALIGN(a->nla_len);
		if (off > end)
			break;
		a = (const struct nlattr *)((const char *)mnl_nlmsg_get_payload(nlh) + off);
	}
	return 0;
}

struct nl_talk_ctx {
	mnl_cb_t cb;
	void *data;
	int error;		/* kernel's error from NLMSG_ERROR */
	char *extack;
	size_t extack_len;
};

static int nl_talk_data(const struct nlmsghdr *nlh, void *data)
{
	struct nl_talk_ctx *t = data;

	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

static int nl_talk_noop(const struct nlmsghdr *nlh, void *data)
{
	return MNL_CB_OK;
}

static int nl_talk_done(const struct nlmsghdr *nlh, void *data)
{
	return MNL_CB_STOP;
}

static int nl_talk_error(const struct nlmsghdr *nlh, void *data)
{
	struct nl_talk_ctx *t = data;
	int error = 0;
	char dummy[1];

	if (nl_err_parse(nlh, nlh->nlmsg_len, &error,
			 t->extack ? t->extack : dummy,
			 t->extack ? t->extack_len : sizeof(dummy)) < 0) {
		t->error = -EBADMSG;
		return MNL_CB_ERROR;
	}
	if (error == 0)
		return MNL_CB_STOP;	/* the ack */
	t->error = error;
	return MNL_CB_ERROR;
}

static mnl_cb_t nl_talk_ctl[NLMSG_MIN_TYPE] = {
	[NLMSG_NOOP] = nl_talk_noop,
	[NLMSG_ERROR] = nl_talk_error,
	[NLMSG_DONE] = nl_talk_done,
	[NLMSG_OVERRUN] = nl_talk_noop,
};

int nl_talk(struct nl_sock *s, struct nlmsghdr *nlh, mnl_cb_t cb, void *data,
	    char *extack, size_t extack_len)
{
	struct nl_talk_ctx t = { .cb = cb, .data = data, .extack = extack, .extack_len = extack_len };
	char buf[NL_BUF_SIZE] __attribute__((aligned(4)));
	unsigned int seq = nlh->nlmsg_seq;
	ssize_t n;
	int rc;

	if (extack && extack_len)
		extack[0] = '\0';
	if (mnl_socket_sendto(s->nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(s->nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		rc = mnl_cb_run2(buf, (size_t)n, seq, s->portid, nl_talk_data, &t,
				 nl_talk_ctl, NLMSG_MIN_TYPE);
		if (rc == MNL_CB_STOP)
			return 0;
		if (rc == MNL_CB_ERROR)
			return t.error ? t.error : (errno ? -errno : -EIO);
	}
}

const char *nl_strerror(int code, const char *extack, char *buf, size_t len)
{
	if (extack && extack[0])
		snprintf(buf, len, "%s (%s)", strerror(-code), extack);
	else
		snprintf(buf, len, "%s", strerror(-code));
	return buf;
}
