/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Arrays whose size the compiler knows, and heap arrays grown one element at a time. */
#ifndef FAB_UTIL_ARRAY_H
#define FAB_UTIL_ARRAY_H

/* Elements in the array @a (an array, not a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#include <stddef.h>

/*
 * Grow the heap array *@arr (*@n elements of @size bytes) by one zeroed
 * element: that element (*@n one more, *@arr perhaps moved), or NULL
 * when out of memory (the array as it was).
 */
void *array_add(void **arr, size_t *n, size_t size);

/*
 * Make room in the heap array *@arr (capacity *@cap elements of @size
 * bytes) for @need elements, doubling the capacity (from 8) until they
 * fit: 0, or -ENOMEM (the array and *@cap as they were).
 */
int array_reserve(void **arr, size_t *cap, size_t need, size_t size);

/* qsort()/bsearch() order of uint64_t values, ascending. */
int array_cmp_u64(const void *x, const void *y);

#endif
