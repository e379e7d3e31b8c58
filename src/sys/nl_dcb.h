/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pure halves of nl_dcb.c: DCB netlink messages built
 * into a caller's buffer and replies parsed into struct fab_dcb, with no
 * socket, so unit tests compare the bytes with what iproute2's dcb(8)
 * sends and the fuzzer feeds the parser arbitrary replies.
 *
 * Every message is RTM_GETDCB/RTM_SETDCB with NLM_F_REQUEST | NLM_F_ACK,
 * struct dcbmsg { AF_UNSPEC, cmd }, DCB_ATTR_IFNAME (NUL-terminated) and,
 * for set/del, one DCB_ATTR_IEEE nest, exactly as iproute2 lays it out.
 * Builders return the message in @buf (NL_BUF_SIZE bytes) or NULL when
 * @ifname is too long or @n too big.
 */
#ifndef FAB_SYS_NL_DCB_H
#define FAB_SYS_NL_DCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/netlink.h>

#include "model/dcb.h"

/* Kernel >= 6.3 attributes, defined here for older headers (numbers are uapi). */
#define NL_DCB_ATTR_APP_TRUST_TABLE	11	/* DCB_ATTR_DCB_APP_TRUST_TABLE in enum ieee_attrs */
#define NL_DCB_ATTR_DCB_APP		2	/* DCB_ATTR_DCB_APP in enum ieee_attrs_app (PCP) */

/* At most this many APP entries in one request. */
#define NL_DCB_APP_MAX 1024

struct nlmsghdr *nl_dcb_msg_get(void *buf, uint32_t seq, const char *ifname);
/* DCB_CMD_IEEE_SET with DCB_ATTR_IEEE_PFC carrying all of @pfc (struct ieee_pfc). */
struct nlmsghdr *nl_dcb_msg_pfc_set(void *buf, uint32_t seq, const char *ifname,
				    const struct fab_dcb_pfc *pfc);
/* DCB_CMD_IEEE_SET with DCB_ATTR_IEEE_ETS carrying all of @ets (struct ieee_ets). */
struct nlmsghdr *nl_dcb_msg_ets_set(void *buf, uint32_t seq, const char *ifname,
				    const struct fab_dcb_ets *ets);
/* DCB_CMD_IEEE_SET with DCB_ATTR_IEEE_MAXRATE (struct ieee_maxrate, kbit/s per TC, 0 = unlimited). */
struct nlmsghdr *nl_dcb_msg_maxrate_set(void *buf, uint32_t seq, const char *ifname,
					const uint64_t *tc_maxrate_kbps);
/* DCB_CMD_IEEE_SET with DCB_ATTR_DCB_BUFFER (struct dcbnl_buffer) carrying all of @b. */
struct nlmsghdr *nl_dcb_msg_buffer_set(void *buf, uint32_t seq, const char *ifname,
				       const struct fab_dcb_buffer *b);
/* DCB_CMD_IEEE_SET (@del false) or DCB_CMD_IEEE_DEL with a DCB_ATTR_IEEE_APP_TABLE. */
struct nlmsghdr *nl_dcb_msg_app(void *buf, uint32_t seq, const char *ifname, bool del,
				const struct fab_dcb_app *apps, size_t n);
/* DCB_CMD_IEEE_SET with a DCB_ATTR_DCB_APP_TRUST_TABLE (kernel >= 6.3). */
struct nlmsghdr *nl_dcb_msg_trust_set(void *buf, uint32_t seq, const char *ifname,
				      const uint8_t *sel, size_t n);

/*
 * Parse one DCB_CMD_IEEE_GET reply of @len bytes into @dcb: every part the
 * kernel answered is copied and marked supported; apps are appended.
 * 0, -EBADMSG (not such a reply, or malformed) or -ENOMEM.
 */
int nl_dcb_reply_parse(const struct nlmsghdr *nlh, size_t len, struct fab_dcb *dcb);

/*
 * A DCB_CMD_IEEE_SET/_DEL reply: the kernel acks those with 0 and puts the
 * driver's error, truncated to u8, in DCB_ATTR_IEEE.  *@error gets it back
 * as -errno (0: success).  0 or -EBADMSG.
 */
int nl_dcb_set_reply_parse(const struct nlmsghdr *nlh, size_t len, int *error);

#endif
