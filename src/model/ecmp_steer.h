/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * From traced members to the paths the scheduler and the localiser use
 * (docs/paths.md, "Steering"): a member a map learned (model/ecmp_map.h:
 * the transit nodes between two leaves, by name) is one of the pair's
 * enumerated equal-cost paths (model/route.h: route_pair()); a source
 * port is an option of the steered rounds (model/sched_topo.h: its a -> b
 * path and its b -> a path); the option a test ran with is that test's
 * traced route, one path each way, for the localiser (model/localize.h)
 * and the report.  Pure C, no I/O.
 *
 * A member names nodes, not cables: where two leaves are joined through
 * one transit node by parallel cables, several paths have the same nodes
 * and the member cannot pick one (-EEXIST): the caller counts that pair
 * whole.
 *
 * Ownership: everything borrowed for the call; ecmp_steer_route() fills a
 * caller's struct pair_route that pair_route_fini() frees.
 */
#ifndef FAB_MODEL_ECMP_STEER_H
#define FAB_MODEL_ECMP_STEER_H

#include <stddef.h>
#include <stdint.h>

#include "model/ecmp_map.h"
#include "model/path.h"
#include "model/sched_topo.h"
#include "model/topo.h"

/*
 * Index of the path of @paths[0..n) (one direction of a pair's route over
 * @t) whose nodes strictly between its first and its last switch are
 * @mb's, in order.  -ENOENT: none; -EEXIST: more than one (parallel
 * cables); -EINVAL: a path of fewer than two hops.
 */
int ecmp_steer_path(const struct topo *t, const struct path *paths, size_t n,
		    const struct ecmp_member *mb);

/*
 * The option of source port @sport: @ab (the member a -> b) and @ba (b ->
 * a) found among @pr's paths.  0, or ecmp_steer_path()'s error for the
 * first direction that has none (the caller counts the pair whole).
 */
int ecmp_steer_opt(const struct topo *t, const struct pair_route *pr, uint16_t sport,
		   const struct ecmp_member *ab, const struct ecmp_member *ba,
		   struct sched_steer_opt *out);

/*
 * The route a test steered onto @o took: @pr's a, b, expected rate and
 * class, one path each way (share 1); @o NULL (counted whole): a copy of
 * every path.  0, -EINVAL (an index @pr does not have), -ENOMEM.
 */
int ecmp_steer_route(const struct pair_route *pr, const struct sched_steer_opt *o,
		     struct pair_route *out);

#endif
