/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Steered rounds for sweeps too large to trace before the first round
 * (issue 24; docs/paths.md "Steering in windows"): the streamed packer
 * (sched_topo.h "Steered rounds, streamed") fed by the member maps of the
 * pairs the next base rounds hold, learned window by window.
 *
 * The base rounds (@base: the spread model's, ecmp_whole false; all pairs
 * from sched_topo_gen, or a pair list packed) are drawn a window at a
 * time: as many rounds as keep every host's traces within @flows_max
 * (a host is in at most one pair a round and traces @ports flows a pair,
 * so flows_max / ports rounds).  The window's cross-leaf pairs go to the
 * caller's learn() in one call (the sweep: one trace request per worker,
 * each within TRACE_MAX_FLOWS), which says, per pair and traced port, the
 * a -> b and b -> a path (index into route_pair()'s enumeration, -1 not
 * known) or that the pair falls back (its fallback code, not 0).  The
 * packer then steers each pair on the distinct paths its ports take;
 * a pair that fell back, and a same-leaf pair, holds every path (whole).
 * A pair's map is dropped when its round is handed out: what is held is
 * the window's maps and those of the pairs waiting for the extra rounds
 * (they keep the ports traced in their window: nothing is traced again).
 *
 * Per pair handed out (struct steer_win_pick): its paths, the traced
 * ports (bit k: port k) that take them, or its fallback code.
 *
 * A pair's paths are asked of @r by index (route_pair_nth(): one path,
 * its leaf pair's searches kept, nothing enumerated), the whole set
 * path by path.
 *
 * Ownership: the window borrows @r, @base and @ops until freed; @r is
 * used by these calls (route_pair_nth(), the packer): one thread at a time.
 */
#ifndef FAB_MODEL_STEER_WINDOW_H
#define FAB_MODEL_STEER_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/route.h"
#include "model/sched_topo.h"
#include "model/schedule.h"

#define STEER_WIN_PORTS 8	/* traced ports per pair and direction, at most */
#define STEER_WIN_NONE (-1)	/* a port whose path is not known */

/* What learn() tells of one pair. */
struct steer_win_map {
	int16_t ab_of[STEER_WIN_PORTS];	/* per traced a -> b port: its path, STEER_WIN_NONE */
	int16_t ba_of[STEER_WIN_PORTS];	/* per traced b -> a port */
	uint8_t fb;			/* the caller's fallback code: 0 steerable */
};

/* One pair of a round handed out. */
struct steer_win_pick {
	bool steered;		/* on paths ab and ba; else whole (fb says why, 0 same leaf) */
	uint16_t ab, ba;	/* paths of route_pair()'s enumeration */
	uint8_t ab_ports, ba_ports;	/* traced ports (bit k) taking them */
	uint8_t fb;		/* learn()'s code; a cross-leaf pair steered nowhere: its own */
};

struct steer_win_ops {
	/*
	 * Learn the maps of @pairs[0 .. n) (cross-leaf, each host in at
	 * most flows_max / ports of them) into @out[0 .. n) (zeroed).
	 * 0 or -errno (then the sweep stops).
	 */
	int (*learn)(void *ctx, const struct sched_pair *pairs, size_t n,
		     struct steer_win_map *out);
	void *ctx;
	uint8_t no_fit;		/* the code of a pair the packer could not steer */
};

struct steer_win_stats {
	size_t windows;		/* learn() calls */
	size_t most_pairs;	/* the most pairs of one learn() call */
	size_t most_host_flows;	/* the most flows one host had in one call */
	size_t maps_most;	/* the most maps held at once */
	size_t steered, whole;	/* pairs handed out */
	struct sched_steer_stats packer;
};

struct steer_window;

/*
 * @ports traced ports per pair and direction (1..STEER_WIN_PORTS),
 * @flows_max flows a host may trace in one learn() call (>= @ports).
 * 0, -EINVAL, -ENOMEM.
 */
int steer_window_new(struct steer_window **out, struct route *r, struct sched_src *base,
		     unsigned int ports, size_t flows_max, const struct steer_win_ops *ops);
/*
 * The next steered round: its pairs, the packer's choices and the picks
 * (room for r->n_hosts / 2 each), its size in *@n.  1, 0 none left,
 * -errno (learn()'s, the packer's).
 */
int steer_window_next(struct steer_window *w, struct sched_pair *pairs, uint32_t *choice,
		      struct steer_win_pick *pick, size_t *n);
void steer_window_stats(const struct steer_window *w, struct steer_win_stats *st);
void steer_window_free(struct steer_window *w);

#endif
