// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The streamed JSON reader of --baseline (io/json_scan.c) on arbitrary
 * bytes, against jansson: a document jansson takes as an object (duplicate
 * keys refused) is taken by the scanner too, with the same top-level
 * members and, for "pairs", the same number of elements; whatever the
 * scanner takes with every value kept whole, jansson takes too.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/json_scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	size_t members, elements;
};

static int count(void *ctx, const char *key, ssize_t i, json_t *v, struct fab_err *err)
{
	struct seen *s = ctx;

	(void)key;
	(void)v;
	(void)err;
	s->members += i <= 0;	/* a member, or the first element of "pairs" */
	s->elements += i >= 0;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	struct seen whole = { 0 }, small = { 0 };
	struct fab_err err;
	json_error_t je;
	json_t *doc;
	int rc_whole, rc_small;

	if (fd < 0) {
		fd = memfd_create("fuzz_json_scan", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	fab_err_init(&err);
	rc_whole = json_doc_scan(path, 1u << 20, "pairs", SIZE_MAX, count, &whole, &err);
	fab_err_init(&err);
	rc_small = json_doc_scan(path, 1u << 20, "pairs", 8, count, &small, &err);
	doc = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &je);
	if (doc && json_is_object(doc)) {
		json_t *pairs = json_object_get(doc, "pairs");
		size_t want = json_object_size(doc);
		int escaped = memchr(data, '\\', size) != NULL;	/* "p\u0061irs" is "pairs" to jansson only */

		if (memchr(data, '\0', size)) {	/* jansson stops at a NUL byte; the scanner refuses it */
			json_decref(doc);
			return 0;
		}
		if (rc_small != 0 || rc_whole != 0)
			abort();
		if (!escaped && (whole.members != want || small.members != want))
			abort();
		if (!escaped && json_is_array(pairs) && whole.elements != json_array_size(pairs))
			abort();
	}
	if (rc_whole == 0 && !doc)
		abort();
	json_decref(doc);
	return 0;
}
