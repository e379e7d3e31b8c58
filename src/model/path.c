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

int pair_route_dup(struct pair_route *dst, const struct pair_route *src)
{
	*dst = (struct pair_route){ .a = src->a, .b = src->b, .expected_mbps = src->expected_mbps,
				    .klass = src->klass };
	dst->ab = calloc(src->n_ab + 1, sizeof(*dst->ab));
	dst->ba = calloc(src->n_ba + 1, sizeof(*dst->ba));
	if (!dst->ab || !dst->ba)
		return -ENOMEM;
	for (; dst->n_ab < src->n_ab; dst->n_ab++)
		if (path_dup(&dst->ab[dst->n_ab], &src->ab[dst->n_ab]) < 0)
			return -ENOMEM;
	for (; dst->n_ba < src->n_ba; dst->n_ba++)
		if (path_dup(&dst->ba[dst->n_ba], &src->ba[dst->n_ba]) < 0)
			return -ENOMEM;
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
