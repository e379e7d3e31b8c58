/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Topology-aware sweep rounds.  Pure C, no I/O.
 *
 * Rule.  Within one round no host is in two pairs, and no link carries
 * more concurrent tests than it can carry at the pairs' expected rate.
 * A pair holds every link of its paths, in both directions, for its whole
 * test (a bandwidth test measures a -> b, then b -> a).  An ECMP pair
 * loads each link of its path set with its share (route.h: 1/k per path,
 * summed per link), so a link's load is a sum of shares.  A link's
 * capacity for a pair of expected rate e is
 *     cap(L, e) = max(1, floor(rate(L) / e))  flows, or 1 when either rate is unknown,
 * and the pair's demand on L is share / cap(L, e); the demands of one round
 * on one link add up to at most 1.  With uniform rates this is "at most
 * cap flows per link".  Failure mode: real ECMP hashes whole flows, not
 * shares; two tests the model spreads over two spines may hash onto one.
 * Run the tests with streams >= paths (the hash then evens them out) or
 * expect some contention on ECMP fabrics.
 *
 * Every requested pair is scheduled exactly once.  Two forms:
 *  - explicit: struct sched (model/schedule.h) from sched_topo_pairs()
 *    (a pair list, --pairs FILE), sched_topo_bipartite() (--new) and
 *    sched_topo_all() (all pairs, up to SCHED_TOPO_EXPLICIT_MAX hosts:
 *    the streamed schedule below, or the packer's when it does better and
 *    its effort is small).
 *    The greedy packer: each round orders the pairs left by criticality
 *    (the most a pair's hosts, links or leaf cuts still have to carry, in
 *    rounds) and takes each one that still fits.  Pairs of one leaf pair
 *    at one expected rate (a class) share one demand vector, over units:
 *    links whose demands are equal in every class (a leaf's ECMP uplinks,
 *    a pod's spine links) carry equal loads, so one counter stands for
 *    each (exact: the decisions are those of a link-by-link check).
 *    Set-up O(leaf pairs x path links) (route_leaf_loads() once per leaf
 *    pair); per attempt O(rounds x (pairs + classes x units + keys log
 *    keys) + pairs taken x units), keys the distinct criticalities of a
 *    round (few: the pairs are ordered by a counting sort).
 *  - streamed: struct sched_topo_gen yields all pairs of any number of
 *    hosts one round at a time, in O(hosts + leaves^2/8 + links) memory
 *    (4096 hosts: 8.4 M pairs, never stored).  Leaves meet by the circle
 *    method; a leaf pair's hosts meet as a Latin rectangle (host p of the
 *    smaller leaf meets host p + s of the larger in sub-round s), c at a
 *    time, c the most the links allow when every leaf pair of the leaf
 *    round runs c tests at once (leaf pairs that do not fit together run
 *    one after the other); hosts a leaf pair leaves idle (c < hosts, or a
 *    leaf with a bye) take their own leaf's pairs, in circle order.  A
 *    full-bisection tree with equal leaves gets n - 1 rounds.  With an odd
 *    number of leaves (one has a bye each leaf round, its uplinks idle) it
 *    also tries halves of leaves as the groups that meet and keeps the
 *    fewer rounds (counted by a dry run at creation).  Needs every host
 *    attached to a switch; -EOPNOTSUPP otherwise.
 *
 * Lower bound (struct sched_topo_bound), the most of
 *  - node:  the most pairs any host is in; and ceil(pairs / floor(h / 2)),
 *           h the hosts in any pair (all pairs: n - 1, n when n is odd);
 *  - link:  per link, ceil(sum of the demands of all pairs on it);
 *  - cut:   leaf i's uplinks (its links to other switches) carry at most
 *           C_i = min(hosts on i, sum over its uplinks of cap(L, e_min))
 *           tests that leave leaf i (every such test's shares over them
 *           sum to 1; e_min is the lowest known expected rate, so C_i is
 *           never underestimated).  Per leaf: ceil(X_i / C_i), X_i the
 *           pairs leaving it.  Two constrained links at once: a cross-leaf
 *           pair uses the cut of both its leaves, so a round holds at most
 *           floor(sum_i C_i / 2) of them: ceil(X / floor(sum C_i / 2)).
 *           (k leaves with one 1-flow uplink each: floor(k/2) per round.)
 * The bound holds for any schedule that follows the rule above; a schedule
 * that orients directions (a -> b and c -> d sharing a link at once in
 * opposite directions) could beat it and is not what we build.
 *
 * Ownership: struct sched as in schedule.h; sched_topo_gen_free() frees a
 * generator.  @r is borrowed, placed and rated (route.h) and is used (its
 * caches change) by these calls: one thread at a time.
 */
#ifndef FAB_MODEL_SCHED_TOPO_H
#define FAB_MODEL_SCHED_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/route.h"
#include "model/schedule.h"
#include "util/err.h"

/*
 * The greedy packer's effort, in pairs x rounds (rounds estimated by the
 * bound), or in demand items visited (a pair's units, above) /
 * SCHED_TOPO_ITEMS_PER_PAIR when that is more: it tries up to
 * SCHED_TOPO_ATTEMPTS orders within SCHED_TOPO_GREEDY_WORK (at least one),
 * stops early when a schedule meets the lower bound, and sched_topo_all()
 * only tries it when one attempt fits (about 0.1 s).
 */
#define SCHED_TOPO_GREEDY_WORK 4000000.0
#define SCHED_TOPO_ITEMS_PER_PAIR 1.0
#define SCHED_TOPO_ATTEMPTS 12
/* sched_topo_all() refuses more hosts (use the generator): n(n-1)/2 pairs stored. */
#define SCHED_TOPO_EXPLICIT_MAX 1024

struct sched_topo_bound {
	size_t node, link, cut;	/* the three bounds above */
	uint32_t link_at;	/* the link giving `link`, ROUTE_NONE when none */
	size_t bound;		/* the most of them */
};

/* Capacity of @link in flows at @expected_mbps (0 unknown): cap(L, e). */
double sched_topo_cap(const struct route *r, uint32_t link, double expected_mbps);

int sched_topo_pairs(struct sched *s, struct sched_topo_bound *b, struct route *r,
		     const struct sched_pair *pairs, size_t n_pairs, struct fab_err *err);
/*
 * The same packer over pairs that come with their own routes (InfiniBand:
 * model/route_ib.c, from the forwarding tables): a pair's items are the
 * links of its paths, per link the larger of its a -> b and b -> a shares;
 * its expected rate is routes[i].expected_mbps.  @r supplies placement
 * (leaves, for the cut bound) and link rates.  The route's link indices
 * must be r->topo's.  The checker below sums ECMP loads and does not know
 * these routes: check routed schedules against the routes themselves.
 */
int sched_topo_routed(struct sched *s, struct sched_topo_bound *b, struct route *r,
		      const struct pair_route *routes, size_t n_routes, struct fab_err *err);
int sched_topo_bipartite(struct sched *s, struct sched_topo_bound *b, struct route *r,
			 const bool *is_new, struct fab_err *err);
/* All pairs of r->n_hosts; -E2BIG over SCHED_TOPO_EXPLICIT_MAX hosts. */
int sched_topo_all(struct sched *s, struct sched_topo_bound *b, struct route *r,
		   struct fab_err *err);

struct sched_topo_gen;

/* A generator of all pairs of r->n_hosts; computes the bound (O(leaf pairs x path links)). */
int sched_topo_gen_new(struct sched_topo_gen **out, struct route *r, struct fab_err *err);
void sched_topo_gen_free(struct sched_topo_gen *g);
const struct sched_topo_bound *sched_topo_gen_bound(const struct sched_topo_gen *g);

/*
 * The node bound of a pair list from its hosts' degrees (@deg[h]: pairs
 * of host h, @n_hosts of them; @n_pairs pairs): the most pairs of one
 * host, or ceil(pairs / floor(hosts with a pair / 2)), the larger.
 */
size_t sched_node_bound(const size_t *deg, size_t n_hosts, size_t n_pairs);
/*
 * The next round into @pairs (room for r->n_hosts / 2), its size in *n.
 * 1 when a round was produced, 0 when all pairs are done, -errno.
 */
int sched_topo_gen_next(struct sched_topo_gen *g, struct sched_pair *pairs, size_t *n);
/* Start again from round 0 (e.g. after counting the rounds). */
void sched_topo_gen_reset(struct sched_topo_gen *g);
/* Rounds the generator yields, by a dry run from the start (then reset). */
int sched_topo_gen_count(struct sched_topo_gen *g, size_t *n_rounds);

/*
 * Checker, streamed: feed every round, then finish.  Verifies that no host
 * is in two pairs of a round, that no link's demands in a round exceed 1,
 * and that the pairs are exactly the requested ones, each once (@want NULL:
 * all pairs of r->n_hosts).  -EINVAL with the round and link or pair in
 * @err.  Link loads are summed per (leaf pair, expected rate) group, so a
 * check costs O(pairs + groups x path links).
 */
struct sched_topo_checker;
int sched_topo_checker_new(struct sched_topo_checker **out, struct route *r,
			   const struct sched_pair *want, size_t n_want);
int sched_topo_checker_round(struct sched_topo_checker *c, const struct sched_pair *pairs,
			     size_t n, struct fab_err *err);
int sched_topo_checker_finish(struct sched_topo_checker *c, struct fab_err *err);
void sched_topo_checker_free(struct sched_topo_checker *c);
/* The same over a whole struct sched. */
int sched_topo_check(const struct sched *s, struct route *r, const struct sched_pair *want,
		     size_t n_want, struct fab_err *err);

/*
 * Steered rounds: every ECMP member of a pair known (traced, docs/paths.md)
 * and chosen per test by its source port.
 *
 * Rule.  A pair comes with its paths (@route: every equal-cost path, both
 * directions, as route_pair() enumerates them) and its options, one per
 * source port the caller can give its test: the a -> b path and the b -> a
 * path that port's flow takes (indices into route->ab[] and route->ba[]).
 * A pair without options (its leaf pair fell back: not traced, or paths
 * that change) holds every path of its set, whole, as today.  A test holds
 * each hop of its chosen paths in that hop's direction (cables are full
 * duplex; a -> b and b -> a are hashed apart, by other switches); a
 * directed hop's demand is 1 / cap(L, e), e the pair's expected rate, and
 * the demands of one round on one directed hop add up to at most 1.  No
 * host is in two pairs of a round.
 *
 * Packing: @base (rounds of the same pairs from the spread model, r's
 * ecmp_whole false: sched_topo_all() or sched_topo_pairs()) gives the
 * rounds' pairs; each round's pairs are steered one at a time (those with
 * the fewest options first), each onto the option whose fullest hop
 * stays lowest, among those that fit; a pair no option of which fits
 * waits for the extra rounds at the end, packed greedily the same way
 * (a pair that fits no option is placed by moving one pair already placed
 * to another of its options, one swap deep).  Up to SCHED_STEER_DIRECT_MAX
 * pairs (a lab, a pod), every pair is also packed directly, the pairs of
 * the hosts with the most pairs left first, in SCHED_STEER_ATTEMPTS
 * orders, and the fewest rounds kept.  Cost O(pairs x options x hops)
 * per round a pair waits, plus the swaps.
 *
 * Out: @s (its own pairs, a <-> b as in @p), choice[i] the option given
 * to p[i] (SCHED_STEER_WHOLE for a pair without options) and in @st what
 * was counted.  -EINVAL with @err when @base's pairs are not exactly @p's,
 * or an option names a path the route does not have; -ENOMEM.
 */
#define SCHED_STEER_WHOLE UINT32_MAX
#define SCHED_STEER_DIRECT_MAX 8192
#define SCHED_STEER_ATTEMPTS 16

struct sched_steer_opt {
	uint16_t sport;		/* the source port that takes these paths (for the caller) */
	uint16_t ab, ba;	/* index into route->ab[] and route->ba[] */
};

struct sched_steer_pair {
	const struct pair_route *route;	/* borrowed: a, b, expected_mbps and every path */
	const struct sched_steer_opt *opts;	/* borrowed; NULL and 0: the whole set */
	size_t n_opts;
};

struct sched_steer_stats {
	size_t base_rounds;	/* rounds of @base */
	size_t extra_rounds;	/* rounds added for the pairs that did not fit */
	size_t moved;		/* pairs moved to those */
	size_t wait_most;	/* streamed: the most pairs of one host that waited (extra rounds' floor) */
	size_t steered, whole;	/* pairs with options / counted whole */
	size_t node_bound;	/* the most pairs of one host, or ceil(pairs / floor(h / 2)) */
	bool direct;		/* the rounds kept were packed directly, not from @base */
};

int sched_topo_steer(struct sched *s, uint32_t *choice, struct sched_steer_stats *st,
		     struct route *r, const struct sched *base, const struct sched_steer_pair *p,
		     size_t n, struct fab_err *err);

/*
 * Steered rounds, streamed (issue 24: all pairs of thousands of hosts,
 * where sched_topo_steer()'s every pair's every path does not fit).  The
 * same rule as sched_topo_steer(), but nothing is stored per pair: each
 * pair's alternatives come from @gen as its round is packed (a traced map,
 * a simulated hash: model/ecmp_sim.h) and are dropped with the round.
 *
 * Alternatives are per direction: the a -> b paths and the b -> a paths
 * the pair's test can be given (a port per path, the caller's business),
 * each a list of directed hops (link * 2 + 1 when crossed against the
 * link's a -> b).  A test takes one a -> b and one b -> a alternative
 * (every combination must be one the caller can give: any traced a -> b
 * port with any traced b -> a port); chosen a -> b first, then b -> a with
 * the a -> b load in place, so hops the two share are counted twice, as
 * they are carried.  A pair with no alternative (@whole: its map fell
 * back) holds every hop gen gives it (every path), as whole sets do.
 *
 * Packing: the rounds of @base (streamed, e.g. sched_topo_gen with
 * ecmp_whole false; its pairs are the pairs) are steered one at a time,
 * the pairs whose two hosts have the most pairs waiting first (so that
 * the waits spread: the extra rounds are at least the most pairs one host
 * has waiting), then fewest combinations, each pair onto the a -> b then b -> a
 * alternative whose fullest hop stays lowest among those that fit, else
 * by moving a pair of the round that blocks one of its alternatives to
 * another of its own, and that pair's blocker in turn (an augmenting
 * path up to SCHED_STEER_SWAP_DEPTH pairs long, SCHED_STEER_SWAPS moves
 * tried); a pair that fits nowhere waits (its two
 * hosts only are kept) for the extra rounds after the last base round,
 * packed greedily, busiest hosts first; there its alternatives are asked
 * @wide (the caller may give more: more traced ports) and its choice
 * carries SCHED_STEER_WIDE.  Memory: one round's alternatives and the
 * waiting pairs.
 */
#define SCHED_STEER_ALTS 16		/* alternatives per direction */
#define SCHED_STEER_SWAPS 256		/* pairs moved, at most, to place one */
#define SCHED_STEER_SWAP_DEPTH 3
#define SCHED_STEER_BLOCKERS 16

struct sched_steer_alts {
	double expected_mbps;		/* the pair's: each hop's demand is 1 / cap(L, e) */
	bool whole;			/* no alternative: every hop held (gen puts them in a -> b) */
	bool wide;			/* in: the pair waited; gen may give more alternatives */
	unsigned int n[2];		/* alternatives a -> b [0], b -> a [1] */
	uint32_t span[2][SCHED_STEER_ALTS][2];	/* alternative k of direction d: dl[start .. end) */
	uint32_t *dl;			/* owned by the stream */
	size_t n_dl, cap_dl;
};

/* Open the next alternative of direction @dir (0 a -> b, 1 b -> a): -E2BIG over SCHED_STEER_ALTS. */
int sched_steer_alt_open(struct sched_steer_alts *al, int dir);
/* Add a hop to the alternative opened last (of @dir); -ENOMEM. */
int sched_steer_alt_hop(struct sched_steer_alts *al, int dir, uint32_t link, bool fwd);

struct sched_steer_gen {
	/* Fill @out (zeroed but its buffer) with pair a <-> b's alternatives; 0 or -errno. */
	int (*alts)(void *ctx, unsigned int a, unsigned int b, struct sched_steer_alts *out);
	void *ctx;
};

/* The choice of a steered pair: a -> b alternative << 16 | b -> a; SCHED_STEER_WHOLE: none. */
#define SCHED_STEER_CHOICE(ab, ba) ((uint32_t)(ab) << 16 | (uint32_t)(ba))
/* Set in a choice when its alternatives were asked @wide (the pair had waited). */
#define SCHED_STEER_WIDE 0x8000u
#define SCHED_STEER_AB(c) ((c) >> 16)
#define SCHED_STEER_BA(c) ((c) & 0x7fffu)

struct sched_steer_stream;

/* @r placed (link rates known), @base and @gen borrowed until the stream is freed. */
int sched_steer_stream_new(struct sched_steer_stream **out, struct route *r, struct sched_src *base,
			   const struct sched_steer_gen *gen);
/*
 * The next round into @pairs and @choice (room for r->n_hosts / 2 each),
 * its size in *@n: 1 a round, 0 no more, -errno (-EINVAL: a base round
 * with a host twice, an alternative with no hop; the gen's errors).
 */
int sched_steer_stream_next(struct sched_steer_stream *s, struct sched_pair *pairs,
			    uint32_t *choice, size_t *n);
/* What was counted so far (node_bound once every round was drawn). */
void sched_steer_stream_stats(const struct sched_steer_stream *s, struct sched_steer_stats *st);
void sched_steer_stream_free(struct sched_steer_stream *s);

/*
 * Options as if every combination of members could be steered to (the
 * dry run plans so): route->n_ab x route->n_ba options into @opts (room
 * for that many), sport 0; their number.
 */
size_t sched_steer_opts_all(const struct pair_route *route, struct sched_steer_opt *opts,
			    size_t room);

#endif
