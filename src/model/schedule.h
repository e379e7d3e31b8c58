/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Sweep schedules: which node pairs are measured in which round, so that
 * no node is in two pairs of one round.  Pure C, no I/O.
 *
 *  - sched_circle(): every pair of n nodes in n-1 rounds of n/2 pairs
 *    (circle method; with n odd one node sits out each round, n rounds).
 *  - sched_serial(): every pair, one pair per round.
 *  - sched_bipartite(): every new x old pair (pre-expansion check) in
 *    max(#new, #old) rounds.
 *  - sched_from_pairs(): given pairs packed greedily into rounds.
 *  - sched_one_per_round(): given pairs, one per round, in order.
 *
 * Ownership: struct sched owns its arrays; sched_fini() frees them.
 * Round r holds pairs[round_start[r] .. round_start[r + 1]).
 */
#ifndef FAB_MODEL_SCHEDULE_H
#define FAB_MODEL_SCHEDULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sched_pair {
	unsigned int a, b;	/* node indices, a != b */
};

/* The key of the unordered pair a-b (b-a has the same): lower index << 32 | higher. */
uint64_t sched_pair_key(unsigned int a, unsigned int b);

struct sched {
	struct sched_pair *pairs;
	size_t n_pairs;
	size_t *round_start;	/* n_rounds + 1 entries */
	size_t n_rounds;
};

void sched_init(struct sched *s);
void sched_fini(struct sched *s);

int sched_circle(struct sched *s, size_t n);
int sched_serial(struct sched *s, size_t n);
int sched_bipartite(struct sched *s, const bool *is_new, size_t n);
int sched_from_pairs(struct sched *s, const struct sched_pair *pairs, size_t n_pairs, size_t n);
int sched_one_per_round(struct sched *s, const struct sched_pair *pairs, size_t n_pairs);

/*
 * Split every round of @s so that at most @limit of its pairs touch one
 * group (@group[node] < @n_groups: the host an end point is a port of),
 * a pair counting once for each of its two groups.  Pairs keep their
 * order; each round splits greedily (first fit) into as few as that
 * makes.  0, or -ENOMEM with @s unchanged.
 */
int sched_group_limit(struct sched *s, const unsigned int *group, size_t n_groups,
		      unsigned int limit);

/* Number of pairs in round @r. */
size_t sched_round_size(const struct sched *s, size_t r);

/*
 * A schedule read one round at a time, so that the rounds of thousands of
 * hosts (8.4 M pairs at 4096) need never be stored: an explicit struct
 * sched (borrowed, it must outlive the source), the circle method
 * generated round by round (the same rounds as sched_circle(), O(1)
 * memory), or any generator (model/sched_topo.h's) behind @next.
 *
 * n_rounds and n_pairs are the totals the source will yield, known up
 * front (0 rounds when a generator cannot tell without running: the
 * caller then counts); max_round bounds one round's pairs.  next() writes
 * the next round into @buf (room for max_round pairs) and returns 1, 0
 * when all rounds are done, or -errno.  free() may be NULL.
 */
struct sched_src {
	size_t n_rounds, n_pairs, max_round;
	int (*next)(struct sched_src *src, struct sched_pair *buf, size_t *n);
	void (*free)(struct sched_src *src);
	void *impl;
	size_t r;			/* rounds yielded so far */
	size_t n;			/* circle: hosts */
	const struct sched *s;		/* explicit: the schedule */
};

void sched_src_explicit(struct sched_src *src, const struct sched *s);
void sched_src_circle(struct sched_src *src, size_t n);
/* Release what a generator holds; safe on any source, and twice. */
void sched_src_fini(struct sched_src *src);

/*
 * 0 when every pair has a != b, both < n, no node appears twice in one
 * round and no pair twice in the schedule; -EINVAL otherwise.
 */
int sched_check(const struct sched *s, size_t n);

#endif
