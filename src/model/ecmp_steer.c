// SPDX-License-Identifier: GPL-2.0-or-later
/* Traced members to paths, options and traced routes (ecmp_steer.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/ecmp_steer.h"

/* The node hop @h of a path arrives at. */
static const struct topo_node *hop_to(const struct topo *t, const struct path_hop *h)
{
	const struct topo_link *l = t->links[h->link];

	return h->fwd ? l->b->node : l->a->node;
}

/* Do @p's nodes between its first and last switch (hops 1 .. n - 3 arrive there) read @mb? */
static int path_is(const struct topo *t, const struct path *p, const struct ecmp_member *mb)
{
	if (p->n_hops < 2)
		return -EINVAL;
	if (p->n_hops - 2 != mb->n_nodes + 1)
		return 0;
	for (size_t i = 0; i < mb->n_nodes; i++) {
		if (p->hops[1 + i].link >= t->n_links)
			return -EINVAL;
		if (strcmp(hop_to(t, &p->hops[1 + i])->name, mb->nodes[i]))
			return 0;
	}
	return 1;
}

int ecmp_steer_path(const struct topo *t, const struct path *paths, size_t n,
		    const struct ecmp_member *mb)
{
	int found = -ENOENT;

	for (size_t i = 0; i < n; i++) {
		int rc = path_is(t, &paths[i], mb);

		if (rc < 0)
			return rc;
		if (rc && found >= 0)
			return -EEXIST;
		if (rc)
			found = (int)i;
	}
	return found;
}

int ecmp_steer_opt(const struct topo *t, const struct pair_route *pr, uint16_t sport,
		   const struct ecmp_member *ab, const struct ecmp_member *ba,
		   struct sched_steer_opt *out)
{
	int i = ecmp_steer_path(t, pr->ab, pr->n_ab, ab), j;

	if (i < 0)
		return i;
	j = ecmp_steer_path(t, pr->ba, pr->n_ba, ba);
	if (j < 0)
		return j;
	*out = (struct sched_steer_opt){ .sport = sport, .ab = (uint16_t)i, .ba = (uint16_t)j };
	return 0;
}

static int paths_copy(const struct path *src, size_t n, struct path **dst, size_t *n_dst)
{
	*dst = calloc(n ? n : 1, sizeof(**dst));
	if (!*dst)
		return -ENOMEM;
	*n_dst = n;
	for (size_t i = 0; i < n; i++) {
		(*dst)[i].hops = calloc(src[i].n_hops ? src[i].n_hops : 1, sizeof(*src[i].hops));
		if (!(*dst)[i].hops)
			return -ENOMEM;
		memcpy((*dst)[i].hops, src[i].hops, src[i].n_hops * sizeof(*src[i].hops));
		(*dst)[i].n_hops = src[i].n_hops;
		(*dst)[i].share = n == 1 ? 1.0 : src[i].share;
	}
	return 0;
}

int ecmp_steer_route(const struct pair_route *pr, const struct sched_steer_opt *o,
		     struct pair_route *out)
{
	struct pair_route r = { .a = pr->a, .b = pr->b, .expected_mbps = pr->expected_mbps,
				.klass = pr->klass };
	int rc;

	if (o && (o->ab >= pr->n_ab || o->ba >= pr->n_ba))
		return -EINVAL;
	rc = o ? paths_copy(&pr->ab[o->ab], 1, &r.ab, &r.n_ab) : paths_copy(pr->ab, pr->n_ab, &r.ab, &r.n_ab);
	if (rc == 0)
		rc = o ? paths_copy(&pr->ba[o->ba], 1, &r.ba, &r.n_ba)
		       : paths_copy(pr->ba, pr->n_ba, &r.ba, &r.n_ba);
	if (rc < 0) {
		pair_route_fini(&r);
		return rc;
	}
	*out = r;
	return 0;
}
