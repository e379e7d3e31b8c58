// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the controller's reader of a worker's "optics" answer
 * (model/optics_wire.c): one port as JSON, its pages decoded, its link
 * read; what it accepts is judged (findings and lanes within bounds).
 * Seeds: tests/fuzz/corpus/optics_wire.
 *   build/fuzz/fuzz_optics_wire -max_total_time=60 tests/fuzz/corpus/optics_wire
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model/optics_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct optics_port p;
	struct optics_policy pol;
	struct fab_err err;
	json_t *j = json_loadb((const char *)data, size, 0, NULL);

	if (!j)
		return 0;
	fab_err_init(&err);
	memset(&p, 0, sizeof(p));
	module_init(&p.mod);
	if (optics_wire_from_json(j, &p, &err) == 0) {
		optics_policy_default(&pol);
		optics_verdict(p.module_rc == 0 ? &p.mod : NULL, NULL, &p.link, &pol, &p.verdict);
		if (p.verdict.n > OPTICS_FINDINGS_MAX || p.mod.n_lanes > MODULE_LANES_MAX)
			abort();
	}
	json_decref(j);
	return 0;
}
