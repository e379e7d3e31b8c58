// SPDX-License-Identifier: GPL-2.0-or-later
/* The sweep renderers' view of the pairs: one pass over the store, a pair's route. */
#include <errno.h>

#include "io/pair_store.h"
#include "model/path.h"
#include "render/render_impl.h"

int sweep_pairs_each(const struct sweep_report *r, sweep_pair_fn fn, void *ctx)
{
	struct sweep_pair p;
	struct fab_err err;

	fab_err_init(&err);
	for (size_t i = 0; i < r->n_pairs; i++) {
		int rc = pair_store_get(r->store, i, &p, &err);

		if (rc == 0)
			rc = fn(ctx, i, &p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

const struct pair_route *sweep_pair_route(const struct sweep_report *r, size_t i,
					  const struct sweep_pair *p, struct pair_route *tmp)
{
	const struct sweep_fabric_view *v = &r->fabric;

	if (!v->topo || r->n_pairs > SWEEP_PATHS_MAX_PAIRS)
		return NULL;
	if (v->routes)
		return &v->routes[i];
	if (!v->route || v->route(v->route_ctx, p->a, p->b, tmp) < 0)
		return NULL;
	return tmp;
}
