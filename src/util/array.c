// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

void *array_add(void **arr, size_t *n, size_t size)
{
	char *p = reallocarray(*arr, *n + 1, size);

	if (!p)
		return NULL;
	*arr = p;
	p += *n * size;
	memset(p, 0, size);
	(*n)++;
	return p;
}

int array_reserve(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	p = reallocarray(*arr, c, size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

int array_cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}
