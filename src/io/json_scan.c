// SPDX-License-Identifier: GPL-2.0-or-later
/* A JSON document as a stream of top-level members and array elements; see json_scan.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/json_scan.h"
#include "util/str.h"

#define SCAN_CHUNK (64u << 10)
#define SCAN_DEPTH_MAX 2048	/* jansson's JSON_PARSER_MAX_DEPTH */
#define SCAN_KEYS_MAX 256	/* top-level members remembered for the duplicate check */

struct scan {
	const char *path;
	int fd;
	size_t max, total;	/* bytes allowed, bytes read */
	unsigned char buf[SCAN_CHUNK];
	size_t pos, len;
	bool eof;
	unsigned int line, col;	/* of the next byte, 1-based */
	struct strbuf cap;	/* the value being taken, when capturing */
	bool capturing;
	size_t cap_max;
	bool cap_over;		/* the value outgrew cap_max: checked, not kept */
	struct fab_err *err;
};

static int scan_bad(struct scan *s, const char *what)
{
	return fab_err_input(s->err, -EINVAL, "%s:%u:%u: %s", s->path, s->line, s->col, what);
}

/* The next byte (not consumed), -1 at the end, or -errno (err set). */
static int peek(struct scan *s)
{
	if (s->pos < s->len)
		return s->buf[s->pos];
	if (s->eof)
		return -1;
	for (;;) {
		ssize_t n = read(s->fd, s->buf, sizeof(s->buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return fab_err_input(s->err, -errno, "%s: %s", s->path, strerror(errno));
		s->pos = 0;
		s->len = (size_t)n;
		s->total += (size_t)n;
		if (s->total > s->max)
			return fab_err_input(s->err, -EFBIG, "%s: larger than %zu bytes", s->path, s->max);
		if (n == 0) {
			s->eof = true;
			return -1;
		}
		return s->buf[0];
	}
}

/* Consume the byte peek() returned, keeping it when capturing. */
static int take(struct scan *s)
{
	unsigned char c = s->buf[s->pos++];

	if (c == '\n') {
		s->line++;
		s->col = 1;
	} else {
		s->col++;
	}
	if (s->capturing && !s->cap_over) {
		if (s->cap.len >= s->cap_max) {
			s->cap_over = true;
			strbuf_fini(&s->cap);
		} else {
			strbuf_addc(&s->cap, (char)c);
			if (s->cap.failed)
				return fab_err_set(s->err, -ENOMEM, "%s: out of memory", s->path);
		}
	}
	return c;
}

/* The next byte, consumed; -1 at the end (an error there: @what). */
static int next(struct scan *s, const char *what)
{
	int c = peek(s);

	if (c == -1)
		return scan_bad(s, what);
	return c < 0 ? c : take(s);
}

static int skip_ws(struct scan *s)
{
	int c;

	while ((c = peek(s)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		take(s);
	return c < -1 ? c : 0;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * A string after its opening quote: escapes, no control characters, valid
 * UTF-8.  @out (may be NULL) gets its text as written, escapes undecoded.
 */
static int scan_string(struct scan *s, struct strbuf *out)
{
	for (;;) {
		int c = next(s, "unterminated string");

		if (c < 0)
			return c;
		if (c == '"')
			break;
		if (c < 0x20)
			return scan_bad(s, "control character in a string");
		if (c == '\\') {
			if (out)
				strbuf_addc(out, '\\');
			c = next(s, "unterminated string");
			if (c < 0)
				return c;
			if (c == 'u') {
				if (out)
					strbuf_addc(out, 'u');
				for (int k = 0; k < 4; k++) {
					int h = next(s, "unterminated string");

					if (h < 0)
						return h;
					if (hexval(h) < 0)
						return scan_bad(s, "bad \\u escape");
					if (out && k < 3)
						strbuf_addc(out, (char)h);
					c = h;
				}
			} else if (!c || !strchr("\"\\/bfnrt", c)) {
				return scan_bad(s, "bad escape in a string");
			}
		} else if (c >= 0x80) {
			int more = c >= 0xf0 && c <= 0xf4 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c <= 0xdf ? 1 : -1;

			if (more < 0 || c > 0xf4)
				return scan_bad(s, "invalid UTF-8 in a string");
			if (out)
				strbuf_addc(out, (char)c);
			for (int k = 0; k < more; k++) {
				int d = next(s, "unterminated string");

				if (d < 0)
					return d;
				if ((d & 0xc0) != 0x80)
					return scan_bad(s, "invalid UTF-8 in a string");
				if (out)
					strbuf_addc(out, (char)d);
			}
			continue;
		}
		if (out)
			strbuf_addc(out, (char)c);
	}
	if (out && out->failed)
		return fab_err_set(s->err, -ENOMEM, "%s: out of memory", s->path);
	return 0;
}

static int digits(struct scan *s)
{
	int c, n = 0;

	while ((c = peek(s)) >= '0' && c <= '9') {
		take(s);
		n++;
	}
	return c < -1 ? c : n;
}

static int scan_number(struct scan *s)
{
	int c = peek(s), n;

	if (c == '-')
		take(s);
	if (peek(s) == '0') {
		take(s);
	} else if ((n = digits(s)) <= 0) {
		return n < 0 ? n : scan_bad(s, "bad number");
	}
	if (peek(s) == '.') {
		take(s);
		if ((n = digits(s)) <= 0)
			return n < 0 ? n : scan_bad(s, "bad number");
	}
	c = peek(s);
	if (c == 'e' || c == 'E') {
		take(s);
		c = peek(s);
		if (c == '+' || c == '-')
			take(s);
		if ((n = digits(s)) <= 0)
			return n < 0 ? n : scan_bad(s, "bad number");
	}
	return 0;
}

static int scan_literal(struct scan *s, const char *lit)
{
	for (; *lit; lit++) {
		int c = next(s, "unexpected end of input");

		if (c < 0)
			return c;
		if (c != *lit)
			return scan_bad(s, "invalid token");
	}
	return 0;
}

/*
 * One value, nested containers by a stack of their kinds (no recursion:
 * a hostile depth costs nothing but the check).
 */
static int scan_value(struct scan *s)
{
	char stack[SCAN_DEPTH_MAX];
	int depth = 0, c, rc;
	bool want_value = true;

	for (;;) {
		if ((rc = skip_ws(s)) < 0)
			return rc;
		if (want_value) {
			c = peek(s);
			if (c == -1)
				return scan_bad(s, "unexpected end of input");
			if (c < 0)
				return c;
			if (c == '{' || c == '[') {
				if (depth == SCAN_DEPTH_MAX)
					return scan_bad(s, "too big nesting depth");
				stack[depth++] = (char)take(s);
				if ((rc = skip_ws(s)) < 0)
					return rc;
				if (peek(s) == (c == '{' ? '}' : ']')) {
					take(s);
					depth--;
					want_value = false;
					if (!depth)
						return 0;
					continue;
				}
				if (c == '{') {
					if (next(s, "unexpected end of input") != '"')
						return scan_bad(s, "string or '}' expected");
					if ((rc = scan_string(s, NULL)) < 0 || (rc = skip_ws(s)) < 0)
						return rc;
					if (next(s, "unexpected end of input") != ':')
						return scan_bad(s, "':' expected");
				}
				continue;
			}
			if (c == '"') {
				take(s);
				rc = scan_string(s, NULL);
			} else if (c == '-' || (c >= '0' && c <= '9')) {
				rc = scan_number(s);
			} else if (c == 't') {
				rc = scan_literal(s, "true");
			} else if (c == 'f') {
				rc = scan_literal(s, "false");
			} else if (c == 'n') {
				rc = scan_literal(s, "null");
			} else {
				return scan_bad(s, "invalid token");
			}
			if (rc < 0)
				return rc;
			if (!depth)
				return 0;
			want_value = false;
			continue;
		}
		c = next(s, "unexpected end of input");
		if (c < 0)
			return c;
		if (c == ',') {
			want_value = true;
			if (stack[depth - 1] == '{') {
				if ((rc = skip_ws(s)) < 0)
					return rc;
				if (next(s, "unexpected end of input") != '"')
					return scan_bad(s, "string expected");
				if ((rc = scan_string(s, NULL)) < 0 || (rc = skip_ws(s)) < 0)
					return rc;
				if (next(s, "unexpected end of input") != ':')
					return scan_bad(s, "':' expected");
			}
		} else if (c == (stack[depth - 1] == '{' ? '}' : ']')) {
			if (!--depth)
				return 0;
		} else {
			return scan_bad(s, stack[depth - 1] == '{' ? "',' or '}' expected"
							   : "',' or ']' expected");
		}
	}
}

/* One value taken whole (at most s->cap_max bytes) and parsed; *@v NULL when it was larger. */
static int take_value(struct scan *s, json_t **v)
{
	unsigned int line = s->line, col = s->col;
	json_error_t je;
	int rc;

	*v = NULL;
	strbuf_init(&s->cap);
	s->capturing = true;
	s->cap_over = false;
	rc = scan_value(s);
	s->capturing = false;
	if (rc == 0 && s->cap.failed)
		rc = fab_err_set(s->err, -ENOMEM, "%s: out of memory", s->path);
	if (rc == 0 && !s->cap_over) {
		*v = json_loadb(s->cap.buf ? s->cap.buf : "", s->cap.len, JSON_REJECT_DUPLICATES |
				JSON_DECODE_ANY, &je);
		if (!*v)
			rc = fab_err_input(s->err, -EINVAL, "%s:%u:%u: %s", s->path,
					   line + (unsigned int)je.line - 1,
					   je.line == 1 ? col + (unsigned int)je.column - 1 : (unsigned int)je.column,
					   je.text);
	}
	strbuf_fini(&s->cap);
	return rc;
}

static int scan_doc(struct scan *s, const char *each, json_scan_fn fn, void *ctx)
{
	char **keys = calloc(SCAN_KEYS_MAX, sizeof(*keys));	/* as written, escapes undecoded */
	size_t n_keys = 0;
	int rc, c;

	if (!keys)
		return fab_err_set(s->err, -ENOMEM, "%s: out of memory", s->path);
	if ((rc = skip_ws(s)) < 0)
		goto out;
	if (peek(s) != '{') {
		rc = peek(s) < -1 ? peek(s) : scan_bad(s, "'{' expected: not a JSON object");
		goto out;
	}
	take(s);
	if ((rc = skip_ws(s)) < 0)
		goto out;
	if (peek(s) == '}') {
		take(s);
		goto end;
	}
	for (;;) {
		struct strbuf kb;
		char *key;
		json_t *v;

		if ((rc = skip_ws(s)) < 0)
			goto out;
		if (next(s, "unexpected end of input") != '"') {
			rc = scan_bad(s, "string expected");
			goto out;
		}
		strbuf_init(&kb);
		strbuf_addc(&kb, '\0');	/* "" has a buffer too */
		kb.len = 0;
		rc = scan_string(s, &kb);
		key = kb.buf;
		if (rc < 0 || (rc = skip_ws(s)) < 0) {
			free(key);
			goto out;
		}
		for (size_t k = 0; k < n_keys; k++)
			if (!strcmp(keys[k], key)) {
				free(key);
				rc = scan_bad(s, "duplicate object key");
				goto out;
			}
		if (n_keys < SCAN_KEYS_MAX) {
			keys[n_keys++] = key;
		} else {
			rc = scan_bad(s, "more than 256 members at the top");
			free(key);
			goto out;
		}
		if (next(s, "unexpected end of input") != ':') {
			rc = scan_bad(s, "':' expected");
			goto out;
		}
		if ((rc = skip_ws(s)) < 0)
			goto out;
		if (each && !strcmp(key, each) && peek(s) == '[') {
			ssize_t i = 0;

			take(s);
			if ((rc = skip_ws(s)) < 0)
				goto out;
			if (peek(s) == ']') {	/* no element: the member itself, an empty array */
				take(s);
				v = json_array();
				if (!v) {
					rc = fab_err_set(s->err, -ENOMEM, "%s: out of memory", s->path);
					goto out;
				}
				rc = fn(ctx, key, -1, v, s->err);
				json_decref(v);
				if (rc < 0)
					goto out;
			} else {
				for (;;) {
					if ((rc = take_value(s, &v)) < 0)
						goto out;
					rc = fn(ctx, key, i++, v, s->err);
					json_decref(v);
					if (rc < 0 || (rc = skip_ws(s)) < 0)
						goto out;
					c = next(s, "unexpected end of input");
					if (c == ']')
						break;
					if (c != ',') {
						rc = c < 0 ? c : scan_bad(s, "',' or ']' expected");
						goto out;
					}
					if ((rc = skip_ws(s)) < 0)
						goto out;
				}
			}
		} else {
			if ((rc = take_value(s, &v)) < 0)
				goto out;
			rc = fn(ctx, key, -1, v, s->err);
			json_decref(v);
			if (rc < 0)
				goto out;
		}
		if ((rc = skip_ws(s)) < 0)
			goto out;
		c = next(s, "unexpected end of input");
		if (c == '}')
			break;
		if (c != ',') {
			rc = c < 0 ? c : scan_bad(s, "',' or '}' expected");
			goto out;
		}
	}
end:
	if ((rc = skip_ws(s)) < 0)
		goto out;
	rc = peek(s) == -1 ? 0 : peek(s) < -1 ? peek(s) : scan_bad(s, "end of file expected");
out:
	for (size_t k = 0; k < n_keys; k++)
		free(keys[k]);
	free(keys);
	return rc;
}

int json_doc_scan(const char *path, size_t max, const char *each, size_t value_max,
		  json_scan_fn fn, void *ctx, struct fab_err *err)
{
	struct scan *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", path);
	s->path = path;
	s->max = max;
	s->line = s->col = 1;
	s->cap_max = value_max;
	s->err = err;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		rc = fab_err_input(err, -errno, "%s: %s", path, strerror(errno));
		free(s);
		return rc;
	}
	rc = scan_doc(s, each, fn, ctx);
	close(s->fd);
	strbuf_fini(&s->cap);
	free(s);
	return rc;
}
