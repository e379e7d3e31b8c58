/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A JSON document read as a stream, for inputs that may be far larger
 * than what is taken from them (sweep --baseline: a 100 MB sweep
 * document of which only the pairs' names and averages are compared).
 * The whole text is checked as JSON (RFC 8259: strings with their
 * escapes and UTF-8, numbers, literals, nesting at most 2048 deep), but
 * never held whole, and no tree is built for it: the top-level object's
 * members are handed to @fn one at a time, and the elements of its array
 * member @each one at a time, each as a jansson value of its own (at most
 * @value_max bytes of text; a larger value is checked and skipped: @fn
 * gets NULL).  Memory is one value's, not the document's.
 *
 * @fn(ctx, key, i, v, err): @i the element's index in @each, or -1 for a
 * member (@each too, when it is not an array or is empty); @v borrowed for the call (NULL: skipped as too large); 0 to go
 * on, or -errno with @err set to stop.  Duplicate top-level keys are
 * refused, as json_doc_load() does.
 *
 * Errors: not JSON: "PATH:LINE:COL: message" (bad input); larger than
 * @max bytes: "PATH: larger than N bytes"; a read error or no memory:
 * "PATH: <cause>" (ENOMEM: "out of memory").
 */
#ifndef FAB_IO_JSON_SCAN_H
#define FAB_IO_JSON_SCAN_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "util/err.h"

typedef int (*json_scan_fn)(void *ctx, const char *key, ssize_t i, json_t *v, struct fab_err *err);

int json_doc_scan(const char *path, size_t max, const char *each, size_t value_max,
		  json_scan_fn fn, void *ctx, struct fab_err *err);

#endif
