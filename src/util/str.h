/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Text to and from memory: bounded formatting into a caller's buffer, a
 * growing string buffer, and numbers read from text.  This header pulls in no stdio, so the model
 * (which formats messages and documents but does no I/O) can use it.
 *
 * Ownership: struct strbuf owns buf; strbuf_fini() frees it, or
 * strbuf_take() hands it to the caller.
 */
#ifndef FAB_UTIL_STR_H
#define FAB_UTIL_STR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* snprintf(3) and vsnprintf(3), under names that do not need <stdio.h>. */
int str_fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int str_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/*
 * Text from outside (a file, a document, a node) on its way to a
 * terminal: str_clean() writes @s (@len bytes) with every control
 * character (C0 including newline and tab, DEL, and C1 in UTF-8) shown as
 * "\xNN", so no escape sequence reaches the terminal; NUL-terminated,
 * truncated to @out_len at a character's boundary; returns the full
 * cleaned length (@out may be NULL to measure).  str_is_clean(): @s holds
 * no such character (str_clean() would copy it unchanged).
 */
size_t str_clean(const char *s, size_t len, char *out, size_t out_len);
bool str_is_clean(const char *s, size_t len);

/*
 * A whole unsigned number: @base 10, 16, or 0 (C prefixes: 0x hex, 0
 * octal).  It must start with a digit (no sign, no blank) and end at the
 * NUL; overflow is an error.  0 or -EINVAL; *@val set only on success.
 */
int parse_uint(const char *s, int base, uint64_t *val);

/*
 * Unix seconds @t as local time, "2026-12-02 01:23:45 UTC" (ISO 8601 date
 * and time, then the zone's abbreviation) into @buf; returns @buf.
 */
#define STR_TIME_LEN 40
char *str_time(char *buf, size_t len, long long t);

/* sscanf(3). */
int str_scan(const char *s, const char *fmt, ...)
	__attribute__((format(scanf, 2, 3)));

struct strbuf {
	char *buf;		/* NUL-terminated once anything was added; NULL before */
	size_t len;
	size_t cap;
	bool failed;		/* an allocation failed: the text is incomplete */
};

void strbuf_init(struct strbuf *sb);
void strbuf_fini(struct strbuf *sb);
/* Append; on allocation failure set sb->failed and drop the text. */
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addc(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * The text (caller frees; "" when nothing was added) and its length, or
 * NULL when an append failed; @sb is empty afterwards either way.
 */
char *strbuf_take(struct strbuf *sb, size_t *len);

#endif
