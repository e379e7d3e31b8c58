// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: a worker's "lldp" reply (src/model/lldp_view.c), the
 * JSON a remote node sends the controller, then the merge into a graph.
 *   make fuzz && build/fuzz/fuzz_lldp_view -max_total_time=60 tests/fuzz/corpus/lldp_view
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "model/lldp_view.h"
#include "model/topo_lldp_checks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);
	struct lldp_view v, v2;
	struct fab_err err;
	struct topo *t;
	json_t *back;

	if (!doc)
		return 0;
	lldp_view_init(&v);
	lldp_view_init(&v2);
	fab_err_init(&err);
	t = topo_new();
	if (t && lldp_view_from_json(&v, doc, &err) == 0) {
		/* Twice: the second merge must find everything the first added. */
		if (lldp_view_merge(t, &v, NULL) < 0 || lldp_view_merge(t, &v, NULL) < 0)
			goto out;
		(void)topo_mtu_check(t, NULL);
		topo_sort(t);
		back = lldp_view_to_json(&v);
		if (back) {
			fab_err_init(&err);
			if (lldp_view_from_json(&v2, back, &err) < 0 || v2.n_ports != v.n_ports)
				abort();	/* our own output must read back */
			json_decref(back);
		}
	}
out:
	lldp_view_fini(&v);
	lldp_view_fini(&v2);
	topo_free(t);
	json_decref(doc);
	return 0;
}
