/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep --steer: every cross-leaf test on an ECMP member it was traced to
 * take (docs/paths.md "Steering").  Before the first round the workers
 * trace a few ports of each pair's test both ways (tcp, or RoCE v2's
 * UDP; a -> b from a, b -> a from b), the controller names the hops
 * after the topology and learns one member map per host pair, gives
 * each pair the ports whose members fit, packs the rounds on exact
 * per-member loads (sched_topo_steer()), and each test then runs on its ports
 * (sweep_steer_pair_spec()); the localiser reads the route each test
 * took (sweep_steer_route()).  A pair whose map falls back (a router
 * silent, an address no node holds, paths that change) keeps today's
 * whole-set rule, and the sweep says so per pair with the map's reason.
 *
 * Ownership: struct sweep_steer owns its pairs and their routes;
 * sweep_steer_free() frees it (NULL-safe).  It borrows the topology
 * (struct sweep_topo) it was made for.
 */
#ifndef FAB_SWEEP_SWEEP_STEER_H
#define FAB_SWEEP_SWEEP_STEER_H

#include <stddef.h>

#include "fleet/fleet.h"
#include "model/path.h"
#include "model/steer_tuple.h"
#include "model/schedule.h"
#include "sweep/sweep_ctx.h"
#include "transport/transport.h"

/*
 * Ports (model/steer_tuple.h): per sweep a random base, tcp below the
 * kernel's ephemeral range, RoCE v2 in 0xc000..0xffff (the ports a GRH
 * flow label can give).  tcp: both phases end with the client's reset
 * (transport/tcp.c TCP_HDR_RESETS), so no tuple stays in TIME_WAIT and
 * every run of a pair (a retest, a turn as another's control) keeps its
 * member; the a -> b port turns over the member's traced ports run by
 * run.  RoCE v2: every run on the member's first traced ports.  A pair
 * whose member has no traced port runs on free ports, and its path is no
 * longer known.
 */
#define SWEEP_STEER_PORTS STEER_PORTS	/* ports traced per pair and direction */
#define SWEEP_STEER_TIMEOUT_MS 180000	/* all the traces, every worker at once */

struct sweep_topo;
struct sweep_steer;

/*
 * Trace, learn, steer the explicit schedule @s (replaced by the steered
 * one, @src pointed at it again): tcp tests by their TCP tuples, verbs
 * tests (RoCE v2) by their UDP tuples to 4791.  Nothing to steer
 * (InfiniBand, no cross-leaf pair, another transport, tcp with more than
 * one stream, a streamed schedule): a line saying why, 0, @s untouched.  -errno with
 * ctx->err on ENOMEM or a failed poll; workers that fail to trace only
 * put their pairs back on the whole-set rule.
 */
int sweep_steer_run(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
		    const char *transport, unsigned int streams, struct sched *s,
		    struct sched_src *src);

/*
 * --dry-run: the rounds @s as if every cross-leaf test could be steered
 * onto any member (each pair's options: every a -> b path with every
 * b -> a path), a line giving them beside the whole-set rounds (what a
 * sweep whose paths cannot be learned runs).  Nothing is traced.  Same
 * skips and errors as sweep_steer_run().
 */
int sweep_steer_dry(struct sweep_ctx *ctx, struct sweep_topo *st, const char *transport,
		    unsigned int streams, struct sched *s, struct sched_src *src);

/* For struct sweep_opts.pair_spec: @ctx the struct sweep_topo steered; a and b host indices. */
void sweep_steer_pair_spec(void *ctx, size_t a, size_t b, struct tp_spec *spec);

/*
 * After the retests: the steered pairs among @ab (@n host index pairs;
 * the sweep passes those not ok) traced again on the tuples of their
 * last tests, both ways.  A pair whose tuples no longer take the members
 * planned (the switches re-hashed: a link went down and came back, a hash
 * seed changed) has a path no longer known: the whole-set rule for the
 * localiser, fallback "moved", a warning naming the members it takes now.
 * A trace that does not answer, or a worker that does not, keeps the plan
 * (said with -v).  0, or -errno with ctx->err (ENOMEM, a failed poll).
 */
int sweep_steer_recheck(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
			const unsigned int (*ab)[2], size_t n);

/*
 * verbs (RoCE v2): the UDP source ports pair (@a, @b)'s last test
 * recorded (pairs[].udp_sport; 0: none) against the ports planned.  A
 * QP that sent from another port (a device that ignores the GRH flow
 * label) took a path not known: the whole-set rule, fallback "moved", a
 * warning naming both ports.  Nothing for tcp, a pair not steered, or 0.
 */
void sweep_steer_sports(struct sweep_topo *st, unsigned int a, unsigned int b, uint16_t got_ab,
			uint16_t got_ba);
/*
 * Confirming probes (docs/paths.md "Confirming suspects"): for each link
 * of @links (@n <= 64: the localiser's unexonerated links), a steered
 * pair of this sweep on one of its traced options whose two paths cross
 * that link and no other of @links (its hosts' access links included),
 * neither host in @avoid (NULL: none).  One probe a pair; a link no
 * option isolates gets none.  Into *@out (*@n_out; free with
 * sweep_steer_probes_free()).  Nothing (0, none) when @sv is NULL, dry, or
 * steers in windows (all pairs: each host is in every round already).
 * 0 or -ENOMEM.
 */
struct sweep_steer_probe {
	unsigned int a, b;
	uint32_t link;			/* the link of @links it crosses alone */
	uint16_t sport_fwd, sport_rev;	/* the traced ports of its two paths */
	struct pair_route route;	/* owned: one path each way */
};
int sweep_steer_probes(const struct sweep_topo *st, const uint32_t *links, size_t n,
		       const bool *avoid, struct sweep_steer_probe **out, size_t *n_out);
void sweep_steer_probes_free(struct sweep_steer_probe *p, size_t n);
/* While set (@p borrowed; NULL, 0 clears), sweep_steer_pair_spec() gives @p's pairs their ports. */
void sweep_steer_probes_use(struct sweep_steer *sv, const struct sweep_steer_probe *p, size_t n);

/* The route a steered pair's test took (one path each way), or NULL: not steered. */
const struct pair_route *sweep_steer_route(const struct sweep_steer *sv, unsigned int a,
					   unsigned int b);

/*
 * For the report (struct sweep_fabric_view.steer): how the rounds were
 * counted, the pairs steered and fallen back (counted now: a retest may
 * have lost its member), and each pair's facts; NULL when @sv is.  Valid
 * while @sv lives.
 */
struct sweep_steer_view;
const struct sweep_steer_view *sweep_steer_view(struct sweep_steer *sv);

void sweep_steer_free(struct sweep_steer *sv);

#endif
