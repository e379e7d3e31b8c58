/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Streamed JSON output, byte for byte what jansson's dumper writes for
 * the whole document (render_json_emit: JSON_INDENT(2) when pretty, else
 * JSON_COMPACT, JSON_PRESERVE_ORDER), for documents too large to build in
 * memory (discover of a large subnet, a sweep's pairs).  jansson
 * serializes every value and key; this writes only the punctuation
 * between them, as jansson's dump.c does: "[" / "{", an indent before
 * each item, "," between items, the outer indent before the closing
 * bracket.  An item dumped on its own at depth 0 equals the item dumped
 * at depth d once each newline is followed by d more indents (strings
 * never hold a raw newline).
 *
 * Ownership: jstream_new() returns a stream over the caller's FILE;
 * jstream_free() flushes and frees it (not the FILE).
 */
#ifndef FAB_RENDER_JSON_STREAM_H
#define FAB_RENDER_JSON_STREAM_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct jstream;

struct jstream *jstream_new(FILE *f, bool pretty);
/* Flush and free; 0, or -1 when a write failed (now or before). */
int jstream_free(struct jstream *js);

int jstream_raw(struct jstream *js, const char *s, size_t n);
/* jansson's dump_indent(): newline and indent to @depth, else a space where one is due. */
int jstream_indent(struct jstream *js, unsigned int depth, bool space);
/* @v (stolen; NULL: out of memory, -1) dumped as if at @depth. */
int jstream_value(struct jstream *js, json_t *v, unsigned int depth);
/* "key": (with the separator jansson uses). */
int jstream_key(struct jstream *js, const char *key);

/*
 * Arrays item by item at @depth (the array's own depth): begin, then
 * each item (stolen) with its index, then end with the number written.
 */
int jstream_array_begin(struct jstream *js);
int jstream_array_item(struct jstream *js, json_t *v, unsigned int depth, size_t index);
int jstream_array_end(struct jstream *js, unsigned int depth, size_t n);

/*
 * Object @obj (borrowed) at @depth, member by member; a member for which
 * @fn (may be NULL) returns 1 has had its value written by @fn (at depth
 * + 1, e.g. a streamed array), 0 is dumped as it is, < 0 stops.
 */
typedef int (*jstream_member_fn)(struct jstream *js, const char *key, json_t *value,
				 unsigned int depth, void *ctx);
int jstream_object(struct jstream *js, json_t *obj, unsigned int depth, jstream_member_fn fn,
		   void *ctx);

#endif
