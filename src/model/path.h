/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Paths through a struct topo: the common language of routing
 * (model/route.c for Ethernet ECMP and host placement, model/route_ib.c for
 * InfiniBand LFT routes), the topology-aware scheduler (model/sched_topo.h)
 * and link localisation (model/localize.h).  Pure data, no I/O.
 *
 * A link is named by its index in topo->links[]; indices are stable for the
 * life of the graph once topo_sort() has run (callers sort before routing).
 * A hop is one direction of one link: fwd means from link->a to link->b.
 *
 * A pair's traffic a -> b may spread over several paths (Ethernet ECMP:
 * every equal-cost shortest path, each with share 1/k); InfiniBand has one
 * path per direction, and the route b -> a may differ from the reverse of
 * a -> b, so both directions are kept.
 *
 * Ownership: struct path owns its hops; struct pair_route owns its paths;
 * path_fini() / pair_route_fini() free what they own and leave the object
 * zeroed (safe to call twice).
 */
#ifndef FAB_MODEL_PATH_H
#define FAB_MODEL_PATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct path_hop {
	uint32_t link : 31;	/* index into topo->links[] (fewer than 2^31) */
	uint32_t fwd : 1;	/* 1: link->a -> link->b */
};

struct path {
	struct path_hop *hops;	/* owned, in order from source to destination */
	size_t n_hops;
	double share;		/* fraction of the pair's traffic on this path (0..1] */
};

/* The routes of one host pair, both directions. */
struct pair_route {
	unsigned int a, b;	/* host indices (struct fab_hosts) */
	struct path *ab;	/* owned: a -> b, n_ab >= 1 when routed */
	size_t n_ab;
	struct path *ba;	/* owned: b -> a */
	size_t n_ba;
	double expected_mbps;	/* lowest rated speed along the paths; 0 when unknown */
	unsigned int klass;	/* path class: links on the shortest a -> b path (1 = same switch, hosts on one leaf: 2) */
};

/* @dst a copy of @src with its own hops (share kept); -ENOMEM. */
int path_dup(struct path *dst, const struct path *src);
/* @dst a copy of @src with its own paths; -ENOMEM (@dst then holds a part: pair_route_fini()). */
int pair_route_dup(struct pair_route *dst, const struct pair_route *src);
void path_fini(struct path *p);
void pair_route_fini(struct pair_route *r);

/* True when any path of @r (either direction) uses @link. */
bool pair_route_uses_link(const struct pair_route *r, uint32_t link);

#endif
