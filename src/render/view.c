// SPDX-License-Identifier: GPL-2.0-or-later
/* Views written once for text and JSON; see view.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "render/view.h"

int view_begin(struct view *v, struct render *out, const char *schema)
{
	v->out = out;
	v->json = out->ops && out->ops->kind == RENDER_JSON;
	v->text = out->ops && out->ops->kind == RENDER_TEXT;
	v->depth = 0;
	v->err = 0;
	v->tb.next = 0;
	if (!out->ops || out->ops->kind == RENDER_OTHER)
		return v->err = -EOPNOTSUPP;
	if (!v->json)
		return 0;
	v->open[0] = json_object();
	if (!v->open[0])
		return v->err = -ENOMEM;
	v->depth = 1;
	if (schema)
		view_json(v, "schema", json_string(schema));
	return v->err;
}

int view_end(struct view *v)
{
	if (v->text)
		return fflush(v->out->f) == EOF && !v->err ? -EIO : v->err;
	if (!v->depth)
		return v->err;
	if (v->err) {
		json_decref(v->open[0]);
		return v->err;
	}
	return render_json_emit(v->out, v->open[0]);
}

/* @j (stolen) into the open object as @key, or onto the open array. */
static void put(struct view *v, const char *key, json_t *j)
{
	json_t *in = v->depth ? v->open[v->depth - 1] : NULL;
	int rc;

	if (!j || !in) {
		json_decref(j);
		if (!v->err)
			v->err = -ENOMEM;
		return;
	}
	rc = key ? json_object_set_new(in, key, j) : json_array_append_new(in, j);
	if (rc < 0 && !v->err)
		v->err = -ENOMEM;
}

void view_json(struct view *v, const char *key, json_t *j)
{
	if (v->json && !v->err)
		put(v, key, j);
	else
		json_decref(j);
}

static void text_vput(struct view *v, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
static void text_vput(struct view *v, const char *fmt, va_list ap)
{
	if (vfprintf(v->out->f, fmt, ap) < 0 && !v->err)
		v->err = -EIO;
}

void view_any(struct view *v, const char *key, json_t *j, const char *fmt, ...)
{
	va_list ap;

	if (v->json) {
		view_json(v, key, j);
		return;
	}
	json_decref(j);
	if (!v->text)
		return;
	va_start(ap, fmt);
	text_vput(v, fmt, ap);
	va_end(ap);
}

void view_text(struct view *v, const char *fmt, ...)
{
	va_list ap;

	if (!v->text)
		return;
	va_start(ap, fmt);
	text_vput(v, fmt, ap);
	va_end(ap);
}

const char *view_txt(struct view *v, const char *s)
{
	return v->text ? render_txt(&v->tb, s) : s;
}

/* @j (stolen: NULL is ENOMEM) into the open container, and open itself. */
static void open_one(struct view *v, const char *key, json_t *j)
{
	if (v->err || !j || v->depth == VIEW_DEPTH) {
		if (!v->err)
			v->err = j ? -E2BIG : -ENOMEM;
		json_decref(j);
		return;
	}
	put(v, key, json_incref(j));
	if (!v->err)
		v->open[v->depth++] = j;
	json_decref(j);		/* the container holds it */
}

void view_obj(struct view *v, const char *key)
{
	if (v->json)
		open_one(v, key, json_object());
}

void view_arr(struct view *v, const char *key)
{
	if (v->json)
		open_one(v, key, json_array());
}

void view_close(struct view *v)
{
	if (v->json && v->depth > 1)
		v->open[--v->depth] = NULL;
}
