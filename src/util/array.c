// SPDX-License-Identifier: GPL-2.0-or-later
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
