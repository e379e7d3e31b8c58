/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared libmnl helpers for src/sys/ (nl_dcb.c, nl_bond.c and nl_link_set.c
 * use them): one request, its
 * replies and the kernel's ack, with the extended ack (NLMSGERR_ATTR_MSG)
 * turned into text.
 *
 *	struct nl_sock s;
 *	if (nl_sock_open(&s, NETLINK_ROUTE, err) < 0) return err->code;
 *	nlh = nl_msg_new(&s, buf, RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
 *	... add attributes ...
 *	rc = nl_talk(&s, nlh, reply_cb, data, extack, sizeof(extack));
 *	nl_sock_close(&s);
 *
 * Ownership: struct nl_sock is embedded by the caller (_open/_close);
 * reply messages handed to callbacks are borrowed and valid only during
 * the callback.
 */
#ifndef FAB_SYS_NL_UTIL_H
#define FAB_SYS_NL_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

#include "util/err.h"

/* A request buffer big enough for any message we send and any reply we read. */
#define NL_BUF_SIZE 32768

struct nl_sock {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
};

/* Open and bind a netlink socket of @bus with extended and capped acks. */
int nl_sock_open(struct nl_sock *s, int bus, struct fab_err *err);
void nl_sock_close(struct nl_sock *s);

/*
 * Start a request of @type in @buf (NL_BUF_SIZE bytes): flags are
 * NLM_F_REQUEST | NLM_F_ACK | @flags, the sequence number is the socket's
 * next one.
 */
struct nlmsghdr *nl_msg_new(struct nl_sock *s, void *buf, uint16_t type, uint16_t flags);

/*
 * Send @nlh, hand every reply message to @cb (may be NULL) and wait for
 * the kernel's ack.  Returns 0, or -errno: the kernel's error, or a socket
 * error.  @extack (may be NULL) gets the extended-ack text, "" when none.
 */
int nl_talk(struct nl_sock *s, struct nlmsghdr *nlh, mnl_cb_t cb, void *data,
	    char *extack, size_t extack_len);

/*
 * Parse one NLMSG_ERROR message of @len bytes (pure; unit-tested and
 * fuzzed): *@error gets the kernel's error (0 for an ack, else -errno),
 * @msg the NLMSGERR_ATTR_MSG text or "".  -EBADMSG when malformed.
 */
int nl_err_parse(const struct nlmsghdr *nlh, size_t len, int *error, char *msg, size_t msg_len);

/*
 * Format "<strerror(-code)>" or "<strerror(-code)> (<extack>)" into @buf,
 * for messages such as "dcb: eth0: set pfc: Invalid argument (...)".
 */
const char *nl_strerror(int code, const char *extack, char *buf, size_t len);

#endif
