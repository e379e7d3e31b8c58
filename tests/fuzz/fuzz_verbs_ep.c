// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the verbs endpoint a peer publishes through the
 * controller (src/transport/verbs_gid.c verbs_ep_from_json), from bytes
 * parsed as JSON the way the worker protocol does.  A parse that succeeds
 * must round-trip through verbs_ep_to_json unchanged.
 *   make fuzz && build/fuzz/fuzz_verbs_ep -max_total_time=60 tests/fuzz/corpus/verbs_ep
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "transport/verbs_gid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verbs_ep ep, back;
	struct fab_err err;
	json_t *j = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);

	if (!j)
		return 0;
	fab_err_init(&err);
	if (verbs_ep_from_json(j, &ep, &err) == 0) {
		json_t *again = verbs_ep_to_json(&ep);

		if (!again || verbs_ep_from_json(again, &back, &err) != 0 ||
		    back.qpn != ep.qpn || back.psn != ep.psn || back.rkey != ep.rkey ||
		    back.addr != ep.addr || back.lid != ep.lid || back.mtu_bytes != ep.mtu_bytes ||
		    back.lat_bytes != ep.lat_bytes || back.bw_bytes != ep.bw_bytes ||
		    back.gid_index != ep.gid_index || memcmp(back.gid, ep.gid, 16) != 0 ||
		    !tp_token_equal(back.token, ep.token))
			abort();
		json_decref(again);
	} else if (!err.msg[0]) {
		abort();	/* a refusal always says why */
	}
	json_decref(j);
	return 0;
}
