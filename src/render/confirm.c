// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * confirm, written once (render/view.h): "fabricctl.confirm/1"
 * ({schema, action, changes}; with nothing pending also "last_revert")
 * or one line, "confirmed 2 change(s); automatic revert cancelled".
 * With nothing pending text says nothing here: the error on stderr does.
 */
#include "render/view.h"

static const char *action_name(enum confirm_action a)
{
	switch (a) {
	case CONFIRM_CONFIRMED:
		return "confirmed";
	case CONFIRM_REVERTED:
		return "reverted";
	default:
		return "none";
	}
}

int confirm_view(struct render *out, const struct confirm_report *r)
{
	const char *act = action_name(r->action);
	struct view v;

	view_begin(&v, out, "fabricctl.confirm/1");
	if (r->action == CONFIRM_NONE) {
		view_json(&v, "action", json_string(act));
		view_json(&v, "changes", json_integer((json_int_t)r->changes));
		view_json(&v, "last_revert", json_text_or_null(r->last_revert));
		return view_end(&v);
	}
	view_any(&v, "action", json_string(act), "%s", act);
	view_any(&v, "changes", json_integer((json_int_t)r->changes), " %zu change(s)", r->changes);
	view_text(&v, "%s\n", r->note ? r->note : "");
	return view_end(&v);
}
