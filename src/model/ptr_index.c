// SPDX-License-Identifier: GPL-2.0-or-later
/* Pointer -> index lookups (ptr_index.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/ptr_index.h"

int ptr_index_init(struct ptr_index *ix, size_t n)
{
	ix->v = calloc(n ? n : 1, sizeof(*ix->v));
	ix->n = n;
	return ix->v ? 0 : -ENOMEM;
}

void ptr_index_fini(struct ptr_index *ix)
{
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}

void ptr_index_set(struct ptr_index *ix, size_t i, const void *p)
{
	ix->v[i] = (struct ptr_index_ent){ (uintptr_t)p, i };
}

static int ent_cmp(const void *x, const void *y)
{
	uintptr_t a = ((const struct ptr_index_ent *)x)->p, b = ((const struct ptr_index_ent *)y)->p;

	return a < b ? -1 : a > b;
}

void ptr_index_sort(struct ptr_index *ix)
{
	qsort(ix->v, ix->n, sizeof(*ix->v), ent_cmp);
}

size_t ptr_index_find(const struct ptr_index *ix, const void *p)
{
	struct ptr_index_ent key = { (uintptr_t)p, 0 };
	const struct ptr_index_ent *hit;

	if (!p)
		return SIZE_MAX;
	hit = bsearch(&key, ix->v, ix->n, sizeof(*ix->v), ent_cmp);
	return hit ? hit->i : SIZE_MAX;
}
