/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pointer -> index lookups over an array of borrowed pointers (a graph's
 * links or nodes), sorted once and searched in O(log n).  Pure, no I/O.
 *
 *   struct ptr_index ix;
 *   ptr_index_init(&ix, n)  (-ENOMEM), ptr_index_set(&ix, i, ptr) for each i,
 *   ptr_index_sort(&ix), then ptr_index_find(&ix, ptr) -> i or SIZE_MAX.
 *
 * Ownership: the index owns its array, not the pointers; ptr_index_fini()
 * frees it (safe twice).
 */
#ifndef FAB_MODEL_PTR_INDEX_H
#define FAB_MODEL_PTR_INDEX_H

#include <stddef.h>
#include <stdint.h>

struct ptr_index_ent {
	uintptr_t p;
	size_t i;
};

struct ptr_index {
	struct ptr_index_ent *v;	/* owned */
	size_t n;
};

int ptr_index_init(struct ptr_index *ix, size_t n);
void ptr_index_fini(struct ptr_index *ix);
void ptr_index_set(struct ptr_index *ix, size_t i, const void *p);
void ptr_index_sort(struct ptr_index *ix);
/* Index stored for @p; SIZE_MAX when absent or NULL. */
size_t ptr_index_find(const struct ptr_index *ix, const void *p);

#endif
