/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Channel dependency graph of a routing, and its cycles (credit loops).
 * Pure: no I/O, no graph of ours is read; channels are numbers.
 *
 * A channel is one direction of one link on one virtual lane.  A route
 * that arrives by channel c1 and leaves by c2 makes c2 a dependency of
 * c1: a packet holding c1's buffer waits for credits on c2.  A cycle of
 * such dependencies is a credit loop (Dally and Seitz, "Deadlock-free
 * message routing in multiprocessor interconnection networks", 1987):
 * under load every buffer on it can wait on the next for ever, and the
 * fabric stalls with no link at fault.  A routing is deadlock-free on a
 * lane when the graph of that lane is acyclic.
 *
 * Use: ib_cdg_new(n), ib_cdg_add() or ib_cdg_add_route() any number of
 * times (an edge added twice is kept once), then ib_cdg_cycles().
 *
 * Ownership: struct ib_cdg owns its edges; the cycles handed out are
 * owned by the caller (ib_cdg_cycles_free()).
 */
#ifndef FAB_MODEL_IB_CDG_H
#define FAB_MODEL_IB_CDG_H

#include <stddef.h>
#include <stdint.h>

struct ib_cdg;

/* A graph of @n_channels channels (0 .. n_channels - 1), no edge; NULL on ENOMEM. */
struct ib_cdg *ib_cdg_new(uint32_t n_channels);
void ib_cdg_free(struct ib_cdg *g);

/* The dependency @from -> @to (once, however often added); -EINVAL out of range, -ENOMEM. */
int ib_cdg_add(struct ib_cdg *g, uint32_t from, uint32_t to);
/* Every consecutive pair of the @n channels of one route, in order; as ib_cdg_add(). */
int ib_cdg_add_route(struct ib_cdg *g, const uint32_t *ch, size_t n);

/* Distinct dependencies added so far. */
size_t ib_cdg_n_edges(const struct ib_cdg *g);

/* A credit loop: its channels in order, each a dependency of the one before, the last's on the first. */
struct ib_cdg_cycle {
	uint32_t *ch;		/* owned */
	size_t n;
	size_t scc_size;	/* channels in the strongly connected component holding it */
};

/*
 * The credit loops: one cycle for every strongly connected component that
 * has one (a component of two or more channels, or one with a dependency
 * on itself), the shortest cycle through its lowest-numbered channel,
 * components in order of that channel; at most @max of them in *@out
 * (owned by the caller, NULL when none), *@n_out of them, and in
 * *@n_loops how many components have one (may exceed @max).  The graph
 * is unchanged and can be added to and asked again.  0 or -ENOMEM
 * (nothing handed out).
 */
int ib_cdg_cycles(const struct ib_cdg *g, size_t max, struct ib_cdg_cycle **out, size_t *n_out,
		  size_t *n_loops);
void ib_cdg_cycles_free(struct ib_cdg_cycle *c, size_t n);

#endif
