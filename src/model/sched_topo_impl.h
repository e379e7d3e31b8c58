/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to the topology-aware scheduler (sched_topo.h), whose parts are
 *   sched_topo_bound.c   cap(L, e) and the lower bound's accumulator
 *   sched_topo_demand.c  the greedy packer's set-up: demand classes over units
 *   sched_topo_pack.c    the greedy packer's rounds and attempts; its entry points
 *   sched_topo_gen.c     the streamed all-pairs generator, and sched_topo_all()
 *   sched_topo_check.c   the streamed checker
 * Here: what more than one part uses.  Nothing outside src/model/sched_topo_*.c
 * includes this.
 */
#ifndef FAB_MODEL_SCHED_TOPO_IMPL_H
#define FAB_MODEL_SCHED_TOPO_IMPL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/sched_topo.h"

#define EPS 1e-9

static inline double min_known(double cur, double v)
{
	return v > 0 && (cur <= 0 || v < cur) ? v : cur;
}

/* cap(L, e) over a run of links, computed once per rate: the links of a path set mostly share one. */
struct cap_memo {
	double rate, e, cap;
};

static inline double cap_of(struct cap_memo *m, const struct route *r, uint32_t link, double e)
{
	if (m->rate != r->link_mbps[link] || m->e != e) {
		m->rate = r->link_mbps[link];
		m->e = e;
		m->cap = sched_topo_cap(r, link, e);
	}
	return m->cap;
}

/* Expected rate of a pair from its leaf pair's lowest known rate and its access links. */
static inline double pair_expected(const struct route *r, unsigned int a, unsigned int b,
				   double lp_min)
{
	return min_known(min_known(lp_min, r->link_mbps[r->hosts[a].link]),
			 r->link_mbps[r->hosts[b].link]);
}

static inline bool cross_leaf(const struct route *r, unsigned int a, unsigned int b)
{
	return r->hosts[a].leaf != r->hosts[b].leaf && r->hosts[a].link != r->hosts[b].link;
}

static inline size_t ceil_sz(double v)
{
	return v <= EPS ? 0 : (size_t)ceil(v - EPS);
}

/* ---- bounds (sched_topo_bound.c) ---- */

struct bound_acc {
	struct route *r;
	double *load;		/* per link, lower bound of the demands */
	double *x;		/* per leaf: pairs leaving it */
	double *emin;		/* per leaf: lowest known expected rate of those, 0 none */
	double x_total;
};

int bacc_init(struct bound_acc *ba, struct route *r);
void bacc_fini(struct bound_acc *ba);
/* @count pairs between leaves la and lb whose expected rates are at least @e_lo (0 unknown). */
void bacc_add(struct bound_acc *ba, uint32_t la, uint32_t lb, const struct route_load *items,
	      size_t n, double e_lo, double count);
/* Capacity of leaf @l's uplink cut in tests: min(hosts, sum of cap(L, emin)). */
double leaf_cut(const struct route *r, uint32_t l, double emin, size_t hosts);
void bacc_finish(struct bound_acc *ba, const size_t *leaf_hosts, struct sched_topo_bound *b);
/* Hosts per leaf (r->n_leaves + 1 entries, the caller frees); NULL: out of memory. */
size_t *leaf_host_counts(const struct route *r);

/* ---- the greedy packer (sched_topo_demand.c, sched_topo_pack.c) ---- */

struct gpair {
	uint32_t a, b;
	uint32_t cls;		/* demand class, ROUTE_NONE: none (hosts on one leaf) */
	bool cross;		/* its hosts are on different leaves */
	double e;		/* expected Mb/s, 0 unknown */
};

struct gdem {
	uint32_t unit;
	double d;		/* demand on each link of the unit */
};

/* A distinct key of a round: how many pairs have it, where they start in the round's order. */
struct kdist {
	double key;
	uint32_t count, off;
};

/* A slot of the round's table of distinct keys (by their bits). */
struct kslot {
	uint64_t bits;
	uint32_t dist, stamp;
};

struct greedy {
	struct route *r;
	struct gpair *p;
	size_t n;
	size_t n_cls;
	size_t *cls_off;	/* n_cls + 1 into dem */
	struct gdem *dem;
	double *cls_crit;	/* per class: the most its units still have to carry */
	uint32_t *cls_fail;	/* per class: 1 + the round in which it stopped fitting */
	uint32_t *unit;		/* per link: its unit */
	size_t n_units;
	double *rem, *used;	/* per unit, in capacity units */
	double *rem_x, *cut;	/* per leaf */
	size_t *deg;		/* per host */
	uint32_t *touched;
	size_t n_touched;
	uint32_t *left;		/* pairs not yet scheduled, by rank */
	uint32_t *ord;		/* this round's order of them */
	bool *taken;		/* per pair, this attempt */
	struct kdist *kd;	/* a round's distinct keys */
	uint32_t *kd_of;	/* per position in left: its key in kd */
	uint32_t *kd_ord;	/* kd by key, highest first */
	struct kslot *ktab;	/* bits -> kd (n_ktab slots, a power of 2, at most half full) */
	size_t n_ktab;
	uint32_t kstamp;
	uint32_t *rank;		/* tie-break: a pair's place in this attempt's order */
	bool *busy;		/* per host, this round */
	double *rem0, *rem_x0;	/* state before the first attempt */
	size_t *deg0;
	unsigned int mode;	/* key variant of this attempt */
};

void greedy_fini(struct greedy *g);
/*
 * @g for @pairs (@routes: their own routes, NULL: ECMP over @r): classes,
 * units, each class's demands, and the lower bound into @b.  0 or -errno
 * with @err; greedy_fini() @g either way.
 */
int greedy_setup(struct greedy *g, struct route *r, const struct sched_pair *pairs, size_t n,
		 const struct pair_route *routes, struct sched_topo_bound *b, struct fab_err *err);
/* The packer's effort for @n_pairs pairs under bound @b (sched_topo.h: SCHED_TOPO_GREEDY_WORK). */
double greedy_work(size_t n_pairs, const struct sched_topo_bound *b);

#endif
