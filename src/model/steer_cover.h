/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Coverage on ECMP members (issue 24, docs/paths.md "Coverage on
 * members"): the pairs, their members and their rounds chosen together,
 * round by round, so that every link is crossed at least K times by the
 * paths the steered tests take (one member each way), every host is in at
 * least K pairs, and each round loads no directed hop past its capacity
 * and holds no host twice.  Pure C, no I/O.
 *
 * In: candidate pairs (cross-leaf host pairs whose members were traced),
 * each with its paths per direction (@route: the a -> b paths and the
 * b -> a paths traced ports take; any a -> b path with any b -> a path is
 * an option).  The picker chooses among them; the rest are not tested.
 * Hosts of one leaf may also be paired with each other ("fillers": their
 * path is the two access links, no ECMP), which load no uplink.
 *
 * Crossings are counted per link, one per hop of each path taken (a test
 * crosses a link twice when its two directions both use it), as the scale
 * harness counts them.  Targets: every host's access link, and every link
 * some candidate path holds (a link none does is "unreached").
 *
 * Method, per round (rounds 0 .. K-1 are the main rounds):
 *  1. links: the candidates whose hosts are free, in the order of their
 *     best gain (hops on links still crossed fewer than K times), each
 *     placed on the option with the most gain among those that fit (ties:
 *     the least crossed links), when that gain is > 0;
 *  2. fillers: the hosts of a leaf still free are paired with each other
 *     (partners they had not had yet);
 *  3. hosts: each host still free (fewest pairs first) takes the candidate
 *     partner, free too, whose fitting option gains most; else an
 *     augmenting path (AUG_DEPTH 3): a candidate partner that fits, held
 *     by a pair of the round whose other host then takes a free host of
 *     its leaf or a partner in turn; else a partner held by a filler
 *     whose leaf has a host free (the filler pairs that one instead);
 *  4. in main rounds, a candidate pair between two leaves that each have
 *     a host free is taken back, and its hosts pair with those (fillers).
 * A main round leaves a host free only when nothing fits; after the K
 * main rounds, extra rounds (up to @max_rounds) place pairs only for hosts
 * still short (steps 3, 2, first) and links still short (step 1).
 *  5. repair, after the K main rounds and after each extra round: a local
 *     search over the rounds made on the deficit (per target link K less
 *     its crossings, per host the square of K less its pairs; a host two
 *     short needs two more rounds).  A move is kept when the deficit
 *     falls: a candidate pair onto another option, or into a round where
 *     both its hosts are free; an unused candidate into a round, the
 *     pairs holding its hosts there taken out and their other hosts
 *     rehomed (a free host of their leaf never met, or a candidate
 *     partner that fits); in extra rounds also on an option that does not
 *     fit, the candidate pairs on its full hops moved to another option
 *     or taken out; a host short and free in a round paired there, or
 *     given a host of its leaf whose pair moves to a round where both its
 *     hosts are free.  Up to REPAIR_PASSES passes.
 *  6. with @walk, a walk after the K main rounds' repair when something
 *     is still short (steer_cover.c "Step 7"): the main rounds' pairs
 *     as one state (per candidate its round or none, and its option),
 *     costed by the load past capacity, the link crossings short of K,
 *     the leaves and rounds with an odd number of hosts free (no filler
 *     for one) and the leaves with the same two hosts free in two rounds;
 *     moves kept by the Metropolis rule, the temperature falling from
 *     ANN_T0 to ANN_T1 (up to ANN_ITER moves a host, ANN_MAX in all),
 *     fillers made again after;
 *     it replaces the rounds when its cost is lower, and the repair runs
 *     again; while something is still short, another walk from there on
 *     a seed of its own (ANN_WALKS, 3, in all).
 *  7. with @more, after the main rounds' walks and repair, when hosts are
 *     still free in them (at most 2 x MEND_MAX host-rounds: a leaf with
 *     an odd number free, whose last has no filler; the walk's residue
 *     at 4096 hosts): per main round, two hosts free on two leaves paired
 *     through a new pair the caller traces (@more), the two themselves or
 *     a host of either leaf in a filler (its filler partner then pairs
 *     with the free one, a partner it never met), up to MEND_TRIES new
 *     pairs per two hosts, kept on its option of most gain that fits the
 *     round (STEER_COVER_MORE_MAX calls, MEND_MAX pairs kept at most).  A
 *     cross-pod pair fits a round 60 % full on few of its 8 ports (about
 *     4 % of pairs), so trying the fillers' hosts is what closes it.
 *  The extra rounds take what is left.
 *
 * Cost: O(rounds x candidates x options x hops) plus a sort per round; a
 * repair pass O(rounds x candidates x options x hops) too (an extra
 * round's move on a full hop also scans the hosts); the walk up to
 * min(ANN_ITER x hosts, ANN_MAX) moves of O(options x hops) each (about
 * 1-2 us: seconds of CPU at 512 hosts, 15-75 s at 1024 with the
 * walks it takes, 50-80 s at 4096), up to ANN_WALKS times; step 7 a
 * trace by the caller per new pair (tens at 4096 hosts).
 * Memory: per link, directed link and host counters; the output; the
 * repair and the walk: per round the directed links' loads and the
 * hosts' pairs; the walk also per link the candidate paths that cross it
 * (4 bytes each: 6.3 MB at 4096 hosts with 6 candidates a host).
 *
 * Ownership: struct steer_cover owns its arrays (steer_cover_fini()); the
 * candidates and @r are borrowed for the call.
 */
#ifndef FAB_MODEL_STEER_COVER_H
#define FAB_MODEL_STEER_COVER_H

#include <stddef.h>
#include <stdint.h>

#include "model/path.h"
#include "model/route.h"
#include "model/schedule.h"
#include "util/err.h"

#define STEER_COVER_FILL UINT32_MAX	/* pick[]: a same-leaf filler, not a candidate */
#define STEER_COVER_NONE UINT32_MAX
#define STEER_COVER_MORE_MAX 128	/* step 7: new pairs traced at most */

struct steer_cover_req {
	unsigned int k;			/* >= 1 */
	size_t max_rounds;		/* >= k: the main rounds and the extra ones */
	bool walk;			/* step 6 (seconds of CPU; docs/paths.md 3b) */
	/*
	 * Step 7 (NULL: none): trace a new pair @a < @b (hosts of two
	 * leaves) and put the paths its ports take into @out (the picker
	 * then owns them; n_ab or n_ba 0: no option).  Returns the caller's
	 * tag for the pair (>= 0, kept in extra_tag[] when the pair is
	 * chosen), -ENOENT (not traced: the picker goes on), or another
	 * negative errno (the pick fails with it).  Called at most
	 * STEER_COVER_MORE_MAX times.
	 */
	long (*more)(void *ctx, unsigned int a, unsigned int b, struct pair_route *out);
	void *more_ctx;
};

struct steer_cover {
	struct sched s;			/* the rounds: pairs a < b as the candidates give them */
	uint32_t *pick;			/* per s.pairs[i]: candidate index, or STEER_COVER_FILL */
	uint16_t *ab, *ba;		/* per s.pairs[i]: the path taken each way (candidates) */
	uint32_t *cross;		/* n_links: crossings per link */
	uint32_t *host_pairs;		/* n_hosts */
	size_t n_links, n_hosts;
	size_t links_target, links_short, links_unreached;
	size_t hosts_short;
	size_t main_rounds;		/* rounds 0 .. k-1 that were made (<= k) */
	uint32_t first_short_link, first_short_host;	/* STEER_COVER_NONE: none */
	struct pair_route *extra;	/* pick[] n + e (n: the candidates): step 7's new pairs */
	uint32_t *extra_tag;		/* per extra: the tag req->more gave */
	size_t n_extra;
	size_t mend_traced;		/* calls of req->more */
};

/*
 * Choose from @cand[0..n) (NULL route: not usable) over @r (placed and
 * rated: capacities as sched_topo_cap()).  0, -EINVAL (k 0, max_rounds <
 * k, a candidate with a == b, a host out of range, or one of its paths
 * empty; fab_err_input), -ENOMEM.
 */
int steer_cover_pick(struct steer_cover *out, const struct route *r,
		     const struct steer_cover_req *req, const struct pair_route *const *cand,
		     size_t n, struct fab_err *err);
void steer_cover_fini(struct steer_cover *c);

#endif
