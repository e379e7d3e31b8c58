// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: DCB netlink replies as the kernel would send them to
 * nl_dcb.c: a stream of netlink messages (RTM_GETDCB IEEE_GET replies,
 * RTM_SETDCB set/del replies, NLMSG_ERROR acks with extended-ack TLVs).
 * Seeds: tests/fuzz/corpus/dcb_reply (a real 6.1 kernel reply among them).
 *   build/fuzz/fuzz_dcb_reply -max_total_time=60 tests/fuzz/corpus/dcb_reply
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "sys/nl_dcb.h"
#include "sys/nl_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The kernel hands us 4-byte aligned buffers; so does recv(). */
	static char buf[NL_BUF_SIZE] __attribute__((aligned(8)));
	const struct nlmsghdr *nlh;
	size_t len;

	if (size > sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	len = size;
	nlh = (const struct nlmsghdr *)buf;
	/*
	 * Not mnl_nlmsg_ok(): libmnl 1.0.4 compares (int)nlmsg_len <= len, so
	 * a length >= 2^31 passes and mnl_nlmsg_next() jumps out of the buffer
	 * (found by this fuzzer).  The parsers take the remaining length and
	 * check nlmsg_len against it unsigned.
	 */
	while (len >= NLMSG_HDRLEN && nlh->nlmsg_len >= NLMSG_HDRLEN && nlh->nlmsg_len <= len) {
		size_t step = MNL_ALIGN(nlh->nlmsg_len);

		struct fab_dcb dcb;
		char msg[256];
		int error;

		switch (nlh->nlmsg_type) {
		case RTM_GETDCB:
			fab_dcb_init(&dcb);
			nl_dcb_reply_parse(nlh, len, &dcb);
			/* Each entry is an 8-byte attribute: no more than fit. */
			if (dcb.n_apps * 8 > len || dcb.n_trust > FAB_DCB_TRUST_MAX)
				abort();
			fab_dcb_fini(&dcb);
			break;
		case RTM_SETDCB:
			nl_dcb_set_reply_parse(nlh, len, &error);
			break;
		case NLMSG_ERROR:
			if (nl_err_parse(nlh, len, &error, msg, sizeof(msg)) == 0 &&
			    strlen(msg) >= sizeof(msg))
				abort();
			break;
		}
		if (step >= len)
			break;
		len -= step;
		nlh = (const struct nlmsghdr *)((const char *)nlh + step);
	}
	return 0;
}
