// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the pending-state parser of `apply --try`
 * (plan_undo_from_json), which the reverter and `confirm` read back from
 * <rundir>/pending.json.  Anything must parse or fail cleanly.
 */
#include <stdint.h>
#include <stdlib.h>

#include "model/plan.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan plan;
	struct fab_err err;
	struct plan_pending pp;
	int rc;

	plan_init(&plan);
	fab_err_init(&err);
	rc = plan_undo_from_json("fuzz.json", (const char *)data, size, &plan, &pp, &err);
	if (rc == 0) {
		char buf[200];

		for (size_t i = 0; i < plan.n_steps; i++)
			if (plan.steps[i].has_undo)
				(void)plan_action_str(&plan.steps[i].undo, buf, sizeof(buf));
	}
	plan_fini(&plan);
	return 0;
}
