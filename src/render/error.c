// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * "fabricctl.error/1", written once (render/view.h): a command that
 * failed before it had its own document still answers -j with JSON on
 * stdout, {schema, command, error, kind: "input"|"system", exit}; in text
 * it writes nothing here (main() prints the message on stderr, as it
 * does with -j too).
 */
#include "render/view.h"
#include "util/err.h"

int error_view(struct render *out, const char *cmd, const struct fab_err *err)
{
	struct view v;

	view_begin(&v, out, "fabricctl.error/1");
	view_json(&v, "command", json_string(cmd));
	view_json(&v, "error", json_string(err->msg));
	view_json(&v, "kind", json_string(err->kind == FAB_ERR_INPUT ? "input" : "system"));
	view_json(&v, "exit", json_integer(fab_err_exit(err)));
	return view_end(&v);
}
