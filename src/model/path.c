// SPDX-License-Identifier: GPL-2.0-or-later
/* Paths through a struct topo (path.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/path.h"

int path_dup(struct path *dst, const struct path *src)
{
	dst->hops = malloc((src->n_hops + 1) * sizeof(*dst->hops));
	if (!dst->hops)
		return -ENOMEM;
	memcpy(dst->hops, src->hops, src->n_hops * sizeof(*dst->hops));
	dst->n_hops = src->n_hops;
	dst->share = src->share;
	return 0;
}

void path_fini(struct path *p)
{
	free(p->hops);
	memset(p, 0, sizeof(*p));
}

static void paths_free(struct path *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		path_fini(&v[i]);
	free(v);
}

void pair_route_fini(struct pair_route *r)
{
	paths_free(r->ab, r->n_ab);
	paths_free(r->ba, r->n_ba);
	memset(r, 0, sizeof(*r));
}

static bool paths_use(const struct path *v, size_t n, uint32_t link)
{
	for (size_t i = 0; i < n; i++)
		for (size_t h = 0; h < v[i].n_hops; h++)
			if (v[i].hops[h].link == link)
				return true;
	return false;
}

bool pair_route_uses_link(const struct pair_route *r, uint32_t link)
{
	return paths_use(r->ab, r->n_ab, link) || paths_use(r->ba, r->n_ba, link);
}
