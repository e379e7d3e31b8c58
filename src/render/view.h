/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A view written once for text and JSON.  Each call writes one value and
 * says both what it is in the document (a member @key, a jansson value)
 * and how it reads in text (a printf format and its arguments); the
 * renderer the command was given (render_ops.kind) decides which of the
 * two is written.  As iproute2's print_*(PRINT_ANY | PRINT_JSON |
 * PRINT_FP, key, fmt, value), with these differences:
 *
 *   - the state is the caller's struct view, on its stack, not the
 *     process's (no global writer);
 *   - the value is a jansson value (json_integer(n), json_string(s),
 *     json_text_or_null(s)) and the text its own format with its own
 *     arguments, so the compiler checks every format against its
 *     arguments (iproute2 passes one value to a format it cannot check);
 *   - the document is built with jansson and written by
 *     render_json_emit(), byte for byte what json_pack() of the same
 *     members gives, as every other document here.
 *
 *	struct view v;
 *
 *	view_begin(&v, out, "fabricctl.confirm/1");
 *	view_any(&v, "action", json_string(act), "%s", act);
 *	view_any(&v, "changes", json_integer(n), " %zu change(s)", n);
 *	view_text(&v, "%s\n", note);
 *	return view_end(&v);
 *
 * writes {"schema":"fabricctl.confirm/1","action":"confirmed","changes":2}
 * or "confirmed 2 change(s); automatic revert cancelled".
 *
 * Members go into the innermost open object (or array: @key NULL);
 * view_obj()/view_arr() open one under @key, view_close() closes it; text
 * writes nothing for them.  Text from outside (names, messages) goes
 * through view_txt() for the text side, as render_txt().  A failure
 * (ENOMEM, a value jansson refused, a failed write) is kept and returned
 * by view_end(), which then writes no document: calls need no checks.
 */
#ifndef FAB_RENDER_VIEW_H
#define FAB_RENDER_VIEW_H

#include <jansson.h>
#include <stdbool.h>

#include "render/render_impl.h"

#define VIEW_DEPTH 8

struct view {
	struct render *out;
	bool json, text;		/* what out->ops writes; neither: nothing (RENDER_OTHER) */
	json_t *open[VIEW_DEPTH];	/* JSON: the document, then the objects and arrays in it */
	unsigned int depth;
	int err;
	struct render_txt tb;
};

/*
 * Start a view on @out, a document with "schema": @schema (NULL: none)
 * in JSON.  -EOPNOTSUPP when @out writes neither text nor JSON.
 */
int view_begin(struct view *v, struct render *out, const char *schema);
/* Write it: the document and a newline (JSON) or a flush (text); 0 or the first error. */
int view_end(struct view *v);

/* Member @key = @j (stolen) in JSON; @fmt in text. */
__attribute__((format(printf, 4, 5)))
void view_any(struct view *v, const char *key, json_t *j, const char *fmt, ...);
/* Member @key = @j (stolen) in JSON only. */
void view_json(struct view *v, const char *key, json_t *j);
/* @fmt in text only. */
__attribute__((format(printf, 2, 3)))
void view_text(struct view *v, const char *fmt, ...);
/* @s for the text side: render_txt() in text (control characters as \xNN), @s in JSON. */
const char *view_txt(struct view *v, const char *s);

/* JSON: open an object or array as member @key (NULL: an item of the open array); close it. */
void view_obj(struct view *v, const char *key);
void view_arr(struct view *v, const char *key);
void view_close(struct view *v);

#endif
