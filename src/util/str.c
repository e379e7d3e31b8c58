// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/str.h"

int str_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

int str_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
{
	return vsnprintf(buf, len, fmt, ap);
}

/* Length of the control character at @s (C0, DEL, or C1 in UTF-8), 0 if none. */
static size_t ctl_len(const unsigned char *s, size_t left)
{
	if (*s < 0x20 || *s == 0x7f)
		return 1;
	if (left >= 2 && s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

size_t str_clean(const char *s, size_t len, char *out, size_t out_len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0, w = 0;	/* cleaned length, bytes written to @out */

	for (size_t i = 0; i < len;) {
		size_t c = ctl_len(u + i, len - i);
		char esc[16];
		size_t n = 0;

		if (!c) {
			esc[n++] = s[i++];
		} else {
			for (size_t k = 0; k < c; k++)
				n += (size_t)snprintf(esc + n, sizeof(esc) - n, "\\x%02x", u[i + k]);
			i += c;
		}
		if (out && w == o && o + n < out_len) {
			memcpy(out + o, esc, n);
			w += n;
		}
		o += n;
	}
	if (out && out_len)
		out[w] = '\0';
	return o;
}

bool str_is_clean(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (ctl_len((const unsigned char *)s + i, len - i))
			return false;
	return true;
}

int parse_uint(const char *s, int base, uint64_t *val)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return -EINVAL;
	*val = v;
	return 0;
}

int str_scan(const char *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsscanf(s, fmt, ap);
	va_end(ap);
	return n;
}

void strbuf_init(struct strbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

void strbuf_fini(struct strbuf *sb)
{
	free(sb->buf);
	strbuf_init(sb);
}

static bool strbuf_reserve(struct strbuf *sb, size_t more)
{
	size_t cap = sb->cap ? sb->cap : 256;
	char *nb;

	if (sb->failed)
		return false;
	if (sb->len + more + 1 <= sb->cap)
		return true;
	while (cap < sb->len + more + 1)
		cap *= 2;
	nb = realloc(sb->buf, cap);
	if (!nb) {
		sb->failed = true;
		return false;
	}
	sb->buf = nb;
	sb->cap = cap;
	return true;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (!strbuf_reserve(sb, len))
		return;
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addc(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		sb->failed = true;
		return;
	}
	if (!strbuf_reserve(sb, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}

char *strbuf_take(struct strbuf *sb, size_t *len)
{
	char *text = sb->buf;

	if (sb->failed) {
		strbuf_fini(sb);
		return NULL;
	}
	if (!text)
		text = strdup("");
	if (text && len)
		*len = sb->len;
	strbuf_init(sb);
	return text;
}

char *str_time(char *buf, size_t len, long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!localtime_r(&tt, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm))
		str_fmt(buf, len, "%lld", t);
	return buf;
}
