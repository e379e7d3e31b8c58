// SPDX-License-Identifier: GPL-2.0-or-later
/* apply, text: one line per step with its outcome, then the verdict. */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "model/changeset.h"
#include "util/str.h"
#include "render/render_impl.h"

static const char *status_word(enum change_step_status s, bool dry)
{
	switch (s) {
	case CHANGE_STEP_DONE: return "done";
	case CHANGE_STEP_FAILED: return "FAILED";
	case CHANGE_STEP_UNDONE: return "undone";
	case CHANGE_STEP_UNDO_FAILED: return "UNDO-FAILED";
	default: return dry ? "would" : "not-run";
	}
}

/* Drift apply cannot change: say so instead of a bare "nothing to do". */
static void verify_only_note(FILE *f, const struct changeset *cs)
{
	size_t n = changeset_n_verify_only(cs);

	if (!n)
		return;
	fprintf(f, "%zu verify-only field%s (apply does not set %s; 'fabricctl verify' reports %s):\n",
		n, n == 1 ? "" : "s", n == 1 ? "it" : "them", n == 1 ? "it" : "them");
	for (size_t i = 0; i < cs->n_drift; i++) {
		const struct drift *d = &cs->drift[i];

		if (d->verify_only)
			fprintf(f, "      %-16s %-16s %s, want %s\n", d->object, d->field, d->found,
				d->wanted);
	}
}

/* Dry run: what a real apply would meet. */
static void dry_verdict(FILE *f, const struct apply_report *rep)
{
	size_t n = changeset_n_fails(rep->cs);

	if (!rep->dry_run)
		return;
	if (rep->dry_refused[0])
		fprintf(f, "dry run: a real apply would be refused now: %s\n", rep->dry_refused);
	if (n)
		fprintf(f, "dry run: %zu step%s certain to fail (marked WOULD-FAIL); a real apply "
			"would stop there and roll back\n", n, n == 1 ? " is" : "s are");
}

int apply_text(struct render *out, const struct apply_report *rep)
{
	const struct changeset *cs = rep->cs;
	FILE *f = out->f;

	if (!cs->n_steps) {
		fprintf(f, "apply %s: nothing to do\n", rep->profile);
		verify_only_note(f, cs);
		dry_verdict(f, rep);
		return fflush(f) == EOF ? -EIO : 0;
	}
	fprintf(f, "apply %s%s: %zu change%s\n", rep->profile, rep->dry_run ? " (dry run)" : "",
		cs->n_steps, cs->n_steps == 1 ? "" : "s");
	for (size_t i = 0; i < cs->n_steps; i++) {
		const struct change_step *s = &cs->steps[i];
		bool fails = rep->dry_run && s->fails[0];

		fprintf(f, "  %2zu %-11s %-16s %-16s %s -> %s\n", i + 1,
			fails ? "WOULD-FAIL" : status_word(s->status, rep->dry_run), s->object,
			s->field, s->from, s->to);
		if (fails)
			fprintf(f, "     %s\n", s->fails);
	}
	verify_only_note(f, cs);
	dry_verdict(f, rep);
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
