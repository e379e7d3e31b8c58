// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hosts-file and pairs-file parsers on arbitrary bytes.  The input is
 * split at the first "\n%%\n": before it a hosts file, after it a pairs
 * file for those hosts.  Checks that whatever parses is well-formed.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model/hosts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *sep = memmem(buf, size, "\n%%\n", 4);
	size_t hlen = sep ? (size_t)(sep - buf) : size;
	struct fab_pairs_list pl;
	struct fab_hosts hs;
	struct fab_err err;

	hosts_init(&hs);
	fab_err_init(&err);
	if (hosts_parse(&hs, buf, hlen, "fuzz", &err) == 0) {
		assert(hs.n > 0);
		for (size_t i = 0; i < hs.n; i++) {
			assert(hosts_name_valid(hs.hosts[i].name));
			assert(hosts_find(&hs, hs.hosts[i].name) == (int)i);
			assert(hs.hosts[i].n_labels <= FAB_HOST_LABELS_MAX);
		}
		if (sep) {
			if (hosts_pairs_parse(&pl, &hs, sep + 4, size - hlen - 4, "pairs", &err) == 0)
				for (size_t i = 0; i < pl.n; i++)
					assert(pl.pairs[i][0] < hs.n && pl.pairs[i][1] < hs.n &&
					       pl.pairs[i][0] != pl.pairs[i][1]);
			hosts_pairs_fini(&pl);
		}
	} else {
		assert(err.code < 0 && err.msg[0]);
	}
	hosts_fini(&hs);
	return 0;
}
