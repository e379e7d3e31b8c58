// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: rtnetlink RTM_NEWLINK messages (GETLINK answers and
 * dump entries) through nl_bond_link_parse (src/sys/nl_bond.c).
 * Seeds: tests/fuzz/corpus/bond_link (real 6.1 answers for a bond and a member).
 *   build/fuzz/fuzz_bond_link -max_total_time=60 tests/fuzz/corpus/bond_link
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "sys/nl_bond.h"
#include "sys/nl_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[NL_BUF_SIZE] __attribute__((aligned(8)));
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)buf;
	size_t len = size;

	if (size > sizeof(buf))
		return 0;
	memcpy(buf, data, size);
	/* A dump: several messages back to back (see fuzz_dcb_reply.c on mnl_nlmsg_ok). */
	while (len >= NLMSG_HDRLEN && nlh->nlmsg_len >= NLMSG_HDRLEN && nlh->nlmsg_len <= len) {
		size_t step = MNL_ALIGN(nlh->nlmsg_len);
		struct nl_bond_link l;

		if (nl_bond_link_parse(nlh, len, &l) == 0 &&
		    (memchr(l.name, '\0', sizeof(l.name)) == NULL ||
		     memchr(l.kind, '\0', sizeof(l.kind)) == NULL ||
		     memchr(l.slave_kind, '\0', sizeof(l.slave_kind)) == NULL))
			abort();	/* strings must stay terminated */
		if (step >= len)
			break;
		len -= step;
		nlh = (const struct nlmsghdr *)((const char *)nlh + step);
	}
	return 0;
}
