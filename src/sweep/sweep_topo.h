/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fabric under `sweep --topology SOURCE` (and `diagnose`): acquire
 * the graph, place the hosts on it, rate its links, schedule rounds that
 * measure links rather than contention, and route every pair.
 *
 *   SOURCE     graph from                                  routes
 *   lldp       every worker's lldpd (and role= switch       ECMP (model/route.c)
 *              lines of the hosts file), merged
 *   ib         the subnet walk from this node, with every  the LFTs (model/route_ib.c)
 *              switch's linear forwarding table
 *   PATH       a cabling plan (YAML or ibnetdiscover)      ECMP
 *
 * Order of use: sweep_topo_load() (plan, ib; before the fleet starts),
 * sweep_topo_load_lldp() (lldp; over the started fleet), sweep_topo_place(),
 * then sweep_topo_schedule_src() (the sweep's rounds) and, one pair at a
 * time, sweep_topo_pair_expect()/_links()/loc_add(); diagnose --from
 * routes its saved pairs with sweep_topo_route_pairs().
 *
 * Ownership: struct sweep_topo owns the graph, the route indices, the
 * routes and the per-host arrays; sweep_topo_fini() frees them.  The hosts
 * are borrowed and must outlive it.
 */
#ifndef FAB_SWEEP_SWEEP_TOPO_H
#define FAB_SWEEP_SWEEP_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fleet/fleet.h"
#include "model/counter_eval.h"
#include "model/coverage.h"
#include "model/hosts.h"
#include "model/nic_counters.h"
#include "model/path.h"
#include "model/route.h"
#include "model/route_ib.h"
#include "model/sched_topo.h"
#include "model/schedule.h"
#include "model/topo.h"
#include "model/topo_lldp_checks.h"
#include "sweep/sweep.h"
#include "sweep/sweep_ctx.h"
#include "sys/sys.h"

enum sweep_topo_kind {
	SWEEP_TOPO_LLDP,
	SWEEP_TOPO_IB,
	SWEEP_TOPO_PLAN,
};

struct sweep_topo {
	const char *spec;		/* borrowed: "lldp", "ib" or a plan path */
	enum sweep_topo_kind kind;
	struct topo *t;
	struct topo_rails rails;
	struct route *r;		/* placement, rates, leaves; ECMP routes */
	struct route_ib *rib;		/* IB: routes from the forwarding tables */
	const struct fab_hosts *hosts;	/* borrowed, after sweep_topo_place() */
	const struct fab_hosts *switches;	/* lldp: the role= lines read (borrowed; NULL none) */
	uint32_t *host_link, *host_leaf;	/* per host: access link, leaf node index */
	struct pair_route *routes;	/* after sweep_topo_route_pairs(), one per pair */
	size_t n_routes;
	struct sched_topo_bound bound;
	bool have_bound;
	unsigned int cov_k;		/* mode coverage[-new]: K (set before sweep_topo_schedule) */
	struct coverage cov;		/* what the picker chose and how well it covers */
	/* Ethernet / RoCE hosts: the workers' counters before the first round. */
	struct fleet *fleet;		/* borrowed; set by sweep_topo_counters_before() */
	struct counter_snap nic_before;	/* the hosts' counters a rule knows, on their access ports */
	bool nic_read;			/* nic_before was taken */
	/* sweep --steer: each steered pair's ports and route taken (sweep_steer.h); NULL: none. */
	struct sweep_steer *steer;
	/* A simulation's traces (sweep_measure.trace, the scale harness); NULL: the workers'. */
	const struct sweep_measure *sim;
};

/* "lldp", "ib" or a plan path: which one (a path is anything else). */
void sweep_topo_init(struct sweep_topo *st, const char *spec);
void sweep_topo_fini(struct sweep_topo *st);

/* Plan and ib: read the graph now.  lldp: nothing (0). */
int sweep_topo_load(struct sweep_ctx *ctx, struct sweep_topo *st, const struct subnet_opts *ib);

/*
 * lldp: every worker of @f (started on @hosts) reads its lldpd; the
 * switches' lines of the hosts file (@switches, may be empty) are read
 * through a second fleet started with @fo.  @socket: --lldp-socket.
 */
int sweep_topo_load_lldp(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
			 const struct fab_hosts *hosts, const struct fab_hosts *switches,
			 const struct fleet_opts *fo, const char *socket);

/*
 * Sort the graph, place every host (a host not found: bad input), rate the
 * links.  A plan node named only under links: that no host sits on and
 * that has more than one cable is a switch (a spine the plan did not
 * declare).  Leaves that no chain of switches joins are an error naming
 * two of them and what is missing: with lldp, the switches whose lldpd was
 * not read (bad input, exit 2: add them to the hosts file); with a plan,
 * the nodes declared hosts that would join them (exit 2).
 */
int sweep_topo_place(struct sweep_ctx *ctx, struct sweep_topo *st, const struct fab_hosts *hosts);

/*
 * The rounds for @mode: @want (pairs) or @is_new (bipartite, coverage-new)
 * as sweep_schedule_build() has them.  Fills st->bound (not for serial).
 */
int sweep_topo_schedule(struct sweep_ctx *ctx, struct sweep_topo *st, enum sweep_mode mode,
			const struct sched_pair *want, size_t n_want, const bool *is_new,
			struct sched *s);

/*
 * The same as a round source for the sweep itself: all pairs of more than
 * SCHED_TOPO_EXPLICIT_MAX hosts (Ethernet) come from the streamed
 * generator, never stored (@s unused); anything else is @s, explicit.
 * sched_src_fini(@src) after use.
 */
int sweep_topo_schedule_src(struct sweep_ctx *ctx, struct sweep_topo *st, enum sweep_mode mode,
			    const struct sched_pair *want, size_t n_want, const bool *is_new,
			    struct sched *s, struct sched_src *src);

/* Route the @n pairs (host indices a, b) into st->routes[0..n). */
int sweep_topo_route_pairs(struct sweep_ctx *ctx, struct sweep_topo *st,
			   const unsigned int (*ab)[2], size_t n);

/* One pair's route (either kind); the caller frees it with pair_route_fini(). */
int sweep_topo_route(struct sweep_topo *st, unsigned int a, unsigned int b, struct pair_route *out,
		     struct fab_err *err);

/*
 * One pair at a time, for sweeps too large to keep every pair's route (no
 * per-pair state; ECMP graphs through route.h's cached leaf-pair loads,
 * InfiniBand through the LFT route):
 *  - sweep_topo_pair_expect(): the pair's expected Mb/s (its path's lowest
 *    rated link, 0 unknown) and path class;
 *  - sweep_topo_pair_links(): every link its paths cross, into a new array;
 *  - sweep_topo_loc_add(): its crossings, with their shares, and verdict
 *    into a localiser's accumulator (model/localize.h).
 * 0, or -errno with @err set (-ENETUNREACH: no path between the two).
 */
int sweep_topo_pair_expect(struct sweep_topo *st, unsigned int a, unsigned int b,
			   double *expected_mbps, unsigned int *klass, struct fab_err *err);
int sweep_topo_pair_links(struct sweep_topo *st, unsigned int a, unsigned int b, uint32_t **links,
			  size_t *n, struct fab_err *err);
struct loc_acc;
struct loc_dirs;
/*
 * A steered pair (sweep_steer.h) adds the route its test took, not its
 * whole ECMP set.  @dirs (NULL: none): a pair whose directions disagree,
 * each direction on its own paths (loc_acc_add_dirs(); not for a graph
 * routed by link loads, which are one set both ways).
 */
int sweep_topo_loc_add(struct sweep_topo *st, struct loc_acc *acc, unsigned int a, unsigned int b,
		       int verdict, double pct_expected, const struct loc_dirs *dirs, struct fab_err *err);

/*
 * Ethernet / RoCE (lldp and plan sources): every worker of @f reads its
 * host's counters (the "counters" op: netdev statistics, ethtool -S, RDMA
 * hw_counters) as the "before" of counter evidence; @f is kept for the
 * "after".  InfiniBand, or no fleet: nothing (0).  A node that cannot
 * read them is a warning; only ENOMEM fails.
 */
int sweep_topo_counters_before(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f);

/*
 * InfiniBand: read every port's PMA counters again and compare them with
 * the ones read with the graph (before the first round) under @pol.
 * Ethernet / RoCE: the workers' counters again, compared with those of
 * sweep_topo_counters_before(), each host's on the host end of its access
 * link.  Neither: nothing (0).  A failed read is a warning, not an error.
 */
int sweep_topo_counters(struct sweep_ctx *ctx, struct sweep_topo *st, const struct subnet_opts *ib,
			const struct counter_policy *pol, struct counter_report *out);

/* "leaf1 swp49 <-> spine1 swp1" (IB: "... port N"). */
void sweep_topo_link_text(const struct topo *t, uint32_t link, char *buf, size_t len);

/* "lldp", "ib", "plan". */
const char *sweep_topo_kind_name(enum sweep_topo_kind k);

#endif
