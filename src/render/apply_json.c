// SPDX-License-Identifier: GPL-2.0-or-later
/* apply, JSON: "fabricctl.apply/1" (docs/json-verify.md). */
#include <errno.h>

#include "model/changeset.h"
#include "render/render_impl.h"
#include "util/array.h"

static const char *status_name(enum change_step_status s)
{
	static const char *const n[] = { "planned", "done", "failed", "undone", "undo-failed" };

	return (unsigned int)s < ARRAY_SIZE(n) ? n[s] : "planned";
}

/* Drift no step can fix, as {object, field, wanted, found}. */
static json_t *verify_only_json(const struct changeset *cs)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < cs->n_drift; i++) {
		const struct drift *d = &cs->drift[i];

		if (d->verify_only &&
		    json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s}", "object", d->object,
						       "field", d->field, "wanted", d->wanted,
						       "found", d->found)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *apply_to_json(const struct apply_report *rep)
{
	const struct changeset *cs = rep->cs;
	json_t *steps = json_array();

	if (!steps)
		return NULL;
	for (size_t i = 0; i < cs->n_steps; i++) {
		const struct change_step *s = &cs->steps[i];
		json_t *j = json_pack("{s:I, s:s, s:s, s:s, s:s, s:s, s:b, s:o}",
				      "step", (json_int_t)(i + 1), "object", s->object,
				      "field", s->field, "from", s->from, "to", s->to,
				      "status", status_name(s->status), "undoable", s->has_undo,
				      "fails", json_text_or_null(s->fails));

		if (!j || json_array_append_new(steps, j) < 0) {
			json_decref(steps);
			return NULL;
		}
	}
	json_t *vo = verify_only_json(cs), *doc;

	if (!vo) {
		json_decref(steps);
		return NULL;
	}
	doc = json_pack("{s:s, s:s, s:b, s:b, s:I, s:o, s:o, s:o, s:b, s:o, s:o}",
			"schema", "fabricctl.apply/1", "profile", rep->profile,
			"dry_run", rep->dry_run, "ok", rep->failed < 0,
			"changes", (json_int_t)cs->n_steps, "steps", steps,
			"failed_step", rep->failed >= 0 ? json_integer(rep->failed + 1) : json_null(),
			"error", json_text_or_null(rep->error),
			"rolled_back", rep->failed >= 0 && rep->rolled_back,
			"rollback_error", json_text_or_null(rep->rollback_error),
			"try", rep->try_deadline_s
				? json_pack("{s:I, s:s}", "deadline", (json_int_t)rep->try_deadline_s,
					    "pending", rep->pending_path)
				: json_null());
	if (doc && (json_object_set_new(doc, "verify_only", vo) < 0 ||
		    json_object_set_new(doc, "dry_refused", json_text_or_null(rep->dry_refused)) < 0)) {
		json_decref(doc);
		return NULL;
	}
	if (!doc)
		json_decref(vo);
	return doc;
}

int apply_json(struct render *out, const struct apply_report *rep)
{
	json_t *doc = apply_to_json(rep);

	return doc ? render_json_emit(out, doc) : -ENOMEM;
}
