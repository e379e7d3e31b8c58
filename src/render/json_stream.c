// SPDX-License-Identifier: GPL-2.0-or-later
/* Streamed JSON, as jansson writes it; see json_stream.h. */
#include <stdlib.h>
#include <string.h>

#include "render/json_stream.h"

#define JSTREAM_INDENT 2		/* as render_json_emit() */
#define JSTREAM_BUF 65536

struct jstream {
	FILE *f;
	size_t flags;
	unsigned int extra;		/* spaces to add after each newline of a dumped value */
	bool failed;
	size_t len;
	char buf[JSTREAM_BUF];
};

struct jstream *jstream_new(FILE *f, bool pretty)
{
	struct jstream *js = malloc(sizeof(*js));

	if (!js)
		return NULL;
	js->f = f;
	js->flags = JSON_PRESERVE_ORDER | (pretty ? JSON_INDENT(JSTREAM_INDENT) : JSON_COMPACT);
	js->extra = 0;
	js->failed = false;
	js->len = 0;
	return js;
}

static int flush(struct jstream *js)
{
	if (js->len && fwrite(js->buf, 1, js->len, js->f) != js->len)
		js->failed = true;
	js->len = 0;
	return js->failed ? -1 : 0;
}

int jstream_free(struct jstream *js)
{
	int rc;

	if (!js)
		return -1;
	rc = flush(js);
	free(js);
	return rc;
}

int jstream_raw(struct jstream *js, const char *s, size_t n)
{
	if (js->len + n > sizeof(js->buf)) {
		if (flush(js) < 0)
			return -1;
		if (n > sizeof(js->buf))
			return fwrite(s, 1, n, js->f) == n ? 0 : (js->failed = true, -1);
	}
	memcpy(js->buf + js->len, s, n);
	js->len += n;
	return 0;
}

static int spaces(struct jstream *js, unsigned int n)
{
	static const char sp[] = "                                ";

	while (n > 0) {
		unsigned int k = n < sizeof(sp) - 1 ? n : (unsigned int)sizeof(sp) - 1;

		if (jstream_raw(js, sp, k) < 0)
			return -1;
		n -= k;
	}
	return 0;
}

/* json_dump_callback() sink: re-indents by js->extra spaces. */
static int dump_cb(const char *s, size_t n, void *data)
{
	struct jstream *js = data;
	const char *nl;

	while (js->extra && (nl = memchr(s, '\n', n))) {
		size_t k = (size_t)(nl - s) + 1;

		if (jstream_raw(js, s, k) < 0 || spaces(js, js->extra) < 0)
			return -1;
		s += k;
		n -= k;
	}
	return jstream_raw(js, s, n);
}

int jstream_indent(struct jstream *js, unsigned int depth, bool space)
{
	unsigned int width = (unsigned int)(js->flags & JSON_MAX_INDENT);

	if (width)
		return jstream_raw(js, "\n", 1) < 0 ? -1 : spaces(js, depth * width);
	return space && !(js->flags & JSON_COMPACT) ? jstream_raw(js, " ", 1) : 0;
}

int jstream_value(struct jstream *js, json_t *v, unsigned int depth)
{
	int rc;

	if (!v)
		return -1;
	js->extra = depth * (unsigned int)(js->flags & JSON_MAX_INDENT);
	rc = json_dump_callback(v, dump_cb, js, js->flags | JSON_ENCODE_ANY);
	js->extra = 0;
	json_decref(v);
	return rc;
}

int jstream_key(struct jstream *js, const char *key)
{
	if (jstream_value(js, json_string(key), 0) < 0)
		return -1;
	return js->flags & JSON_COMPACT ? jstream_raw(js, ":", 1) : jstream_raw(js, ": ", 2);
}

int jstream_array_begin(struct jstream *js)
{
	return jstream_raw(js, "[", 1);
}

int jstream_array_item(struct jstream *js, json_t *v, unsigned int depth, size_t index)
{
	if ((index && jstream_raw(js, ",", 1) < 0) || jstream_indent(js, depth + 1, index > 0) < 0) {
		json_decref(v);
		return -1;
	}
	return jstream_value(js, v, depth + 1);
}

int jstream_array_end(struct jstream *js, unsigned int depth, size_t n)
{
	if (n && jstream_indent(js, depth, false) < 0)
		return -1;
	return jstream_raw(js, "]", 1);
}

int jstream_object(struct jstream *js, json_t *obj, unsigned int depth, jstream_member_fn fn,
		   void *ctx)
{
	size_t n = json_object_size(obj), k = 0;
	const char *key;
	json_t *v;

	if (!n)
		return jstream_raw(js, "{}", 2);
	if (jstream_raw(js, "{", 1) < 0 || jstream_indent(js, depth + 1, false) < 0)
		return -1;
	json_object_foreach(obj, key, v) {
		int rc;

		if (jstream_key(js, key) < 0)
			return -1;
		rc = fn ? fn(js, key, v, depth + 1, ctx) : 0;
		if (rc < 0 || (rc == 0 && jstream_value(js, json_incref(v), depth + 1) < 0))
			return -1;
		if (++k < n ? jstream_raw(js, ",", 1) < 0 || jstream_indent(js, depth + 1, true) < 0
			    : jstream_indent(js, depth, false) < 0)
			return -1;
	}
	return jstream_raw(js, "}", 1);
}
