/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A simulated ECMP hash, switch by switch (issue 24: the scale harness,
 * the steered packer's benches and tests; docs/scale.md "Steered").
 *
 * Every switch hashes a flow's 5-tuple (both addresses, here the hosts'
 * indices; protocol; both ports) with its own seed and takes, among its
 * equal-cost next hops towards the destination's leaf (the neighbouring
 * switches one step nearer, each cable its own member), the one the hash
 * picks.  So a flow's path is a deterministic function of its 5-tuple
 * and the fabric's seed, decided hop by hop by switches that know nothing
 * of each other, as on a routed leaf-spine or fat tree; the two directions
 * of a pair are hashed apart (other switches, other tuples).  A TTL-limited
 * probe of the flow is answered by the switch it reaches: hop i of the
 * path is the i-th switch, the last the destination.
 *
 * Ownership: struct ecmp_sim borrows @r (placed, route_place()) and owns
 * its tables (one byte per leaf and node: the distance to the leaf).
 */
#ifndef FAB_MODEL_ECMP_SIM_H
#define FAB_MODEL_ECMP_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "model/path.h"
#include "model/route.h"

struct ecmp_sim;

struct ecmp_flow {
	unsigned int src, dst;		/* host indices (r->hosts) */
	uint16_t sport, dport;
	uint8_t proto;			/* 6 tcp, 17 udp */
};

/* 0, -ENOMEM, -EINVAL (@r not placed). */
int ecmp_sim_new(struct ecmp_sim **out, const struct route *r, uint64_t seed);
void ecmp_sim_free(struct ecmp_sim *s);

/*
 * The path @f takes, host to host: hops[0] src's access link, then one
 * hop per switch, the last dst's access link.  *@n its hops.  -E2BIG over
 * @room, -ENETUNREACH when no switch path joins the two leaves, -EINVAL
 * src == dst or out of range.
 */
int ecmp_sim_path(const struct ecmp_sim *s, const struct ecmp_flow *f, struct path_hop *hops,
		  size_t room, size_t *n);

/* Node index (route's, = topo's) the link's a end is. */
uint32_t ecmp_sim_link_a(const struct ecmp_sim *s, uint32_t link);

#endif
