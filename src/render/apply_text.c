// SPDX-License-Identifier: GPL-2.0-or-later
/* apply, text: one line per step with its outcome, then the verdict. */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "model/plan.h"
#include "util/str.h"
#include "render/render_impl.h"

static const char *status_word(enum plan_step_status s, bool dry)
{
	switch (s) {
	case PLAN_STEP_DONE: return "done";
	case PLAN_STEP_FAILED: return "FAILED";
	case PLAN_STEP_UNDONE: return "undone";
	case PLAN_STEP_UNDO_FAILED: return "UNDO-FAILED";
	default: return dry ? "would" : "not-run";
	}
}

int apply_text(struct render *out, const struct apply_report *rep)
{
	const struct plan *plan = rep->plan;
	FILE *f = out->f;

	if (!plan->n_steps) {
		fprintf(f, "apply %s: nothing to do\n", rep->profile);
		return fflush(f) == EOF ? -EIO : 0;
	}
	fprintf(f, "apply %s%s: %zu change%s\n", rep->profile, rep->dry_run ? " (dry run)" : "",
		plan->n_steps, plan->n_steps == 1 ? "" : "s");
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct plan_step *s = &plan->steps[i];

		fprintf(f, "  %2zu %-11s %-16s %-16s %s -> %s\n", i + 1,
			status_word(s->status, rep->dry_run), s->object, s->field, s->from, s->to);
	}
	if (rep->failed >= 0) {
		fprintf(f, "error: %s\n", rep->error);
		if (rep->rolled_back)
			fprintf(f, "rolled back: every step done was undone, the node is as before\n");
		else
			fprintf(f, "ROLLBACK INCOMPLETE: %s\n", rep->rollback_error);
	} else if (rep->try_deadline_s) {
		long long left = rep->try_deadline_s - (long long)time(NULL);

		char when[STR_TIME_LEN];

		fprintf(f, "try: these changes are reverted in %llds, at %s, unless 'fabricctl confirm' runs (pending state %s)\n",
			left < 0 ? 0 : left, str_time(when, sizeof(when), rep->try_deadline_s),
			rep->pending_path);
	}
	return fflush(f) == EOF ? -EIO : 0;
}
