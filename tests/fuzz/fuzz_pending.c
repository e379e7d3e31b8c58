// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the pending-state parser of `apply --try`
 * (changeset_undo_from_json), which the reverter and `confirm` read back from
 * <rundir>/pending.json.  Anything must parse or fail cleanly.
 */
#include <stdint.h>
#include <stdlib.h>

#include "model/changeset.h"
#include "util/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct changeset cs;
	struct fab_err err;
	struct change_pending pp;
	int rc;

	changeset_init(&cs);
	fab_err_init(&err);
	rc = changeset_undo_from_json("fuzz.json", (const char *)data, size, &cs, &pp, &err);
	if (rc == 0) {
		char buf[200];

		for (size_t i = 0; i < cs.n_steps; i++)
			if (cs.steps[i].has_undo)
				(void)change_action_str(&cs.steps[i].undo, buf, sizeof(buf));
	}
	changeset_fini(&cs);
	return 0;
}
