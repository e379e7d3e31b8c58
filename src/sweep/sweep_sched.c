// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rounds a sweep measures (sweep_impl.h): the pairs asked for (all of
 * them, --pairs FILE or the request's own, --new, diagnose A B's) and the
 * schedule made from them, link-safe with a topology.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/load.h"
#include "sweep/sweep_impl.h"
#include "util/file.h"
#include "util/log.h"

/* A --pairs file larger than this is refused (bad input). */
#define PAIRS_FILE_MAX_BYTES (64u << 20)

#define DIAGNOSE_NEIGHBOURS 2	/* leaf neighbours of A (and of B) paired with the other end */
#define DIAGNOSE_OUTSIDERS 3	/* hosts on other leaves paired with both sides (controls) */

/* ------------------------------------------------------------ diagnose A B */

/* End point @i may be paired with both @a and @b (other hosts, their rail). */
static bool pairable(const struct fab_hosts *hs, unsigned int i, unsigned int a, unsigned int b)
{
	return hosts_ports_pair(&hs->hosts[i], &hs->hosts[a], false) &&
	       hosts_ports_pair(&hs->hosts[i], &hs->hosts[b], false);
}

static size_t leafmates(const struct sweep_topo *st, const struct fab_hosts *hs, unsigned int h,
			unsigned int skip, unsigned int *out, size_t max)
{
	size_t n = 0;

	for (unsigned int i = 0; i < hs->n && n < max; i++)
		if (i != h && i != skip && st->host_leaf[i] == st->host_leaf[h] &&
		    pairable(hs, i, h, skip))
			out[n++] = i;
	return n;
}

static void want_add(struct sched_pair *w, size_t *n, unsigned int a, unsigned int b)
{
	if (a == b)	/* A and B on one leaf share their neighbours */
		return;
	for (size_t i = 0; i < *n; i++)
		if ((w[i].a == a && w[i].b == b) || (w[i].a == b && w[i].b == a))
			return;
	w[(*n)++] = (struct sched_pair){ .a = a, .b = b };
}

/*
 * Up to @max hosts on leaves other than A's and B's: one per leaf first,
 * then more from the same leaves.
 */
static size_t outsiders(const struct sweep_topo *st, const struct fab_hosts *hs, unsigned int a,
			unsigned int b, unsigned int *out, size_t max)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (unsigned int i = 0; i < hs->n && n < max; i++) {
			bool seen = false, taken = false;

			if (st->host_leaf[i] == st->host_leaf[a] ||
			    st->host_leaf[i] == st->host_leaf[b] || !pairable(hs, i, a, b))
				continue;
			for (size_t k = 0; k < n; k++) {
				seen |= st->host_leaf[out[k]] == st->host_leaf[i];
				taken |= out[k] == i;
			}
			if (!taken && (pass || !seen))
				out[n++] = i;
		}
	return n;
}

/*
 * A-B first; then A with up to two of B's leaf neighbours and B with up to
 * two of A's (the two uplinks and the far access links apart), one
 * neighbour pair (the path without either end), and each end with a leaf
 * neighbour (its own access link without the uplinks).  Then control
 * pairs to up to three hosts on other leaves, from both sides, so that
 * each side's uplink is avoided by at least four pairs of the same class:
 * the class reference (no rated speed known) must not be made of the very
 * pairs under suspicion (model/pathref.h keeps at least 3 and 20 %).  At
 * most 16 pairs.
 */
static void diagnose_pick_one(struct sweep_topo *st, const struct fab_hosts *hs, int ia, int ib,
			      struct sched_pair *w, size_t *np)
{
	unsigned int ma[DIAGNOSE_NEIGHBOURS], mb[DIAGNOSE_NEIGHBOURS], x[DIAGNOSE_OUTSIDERS];
	size_t na, nb, nx, n = *np;

	na = leafmates(st, hs, (unsigned int)ia, (unsigned int)ib, ma, DIAGNOSE_NEIGHBOURS);
	nb = leafmates(st, hs, (unsigned int)ib, (unsigned int)ia, mb, DIAGNOSE_NEIGHBOURS);
	want_add(w, &n, (unsigned int)ia, (unsigned int)ib);
	for (size_t k = 0; k < nb; k++)
		want_add(w, &n, (unsigned int)ia, mb[k]);
	for (size_t k = 0; k < na; k++)
		want_add(w, &n, ma[k], (unsigned int)ib);
	if (na && nb)
		want_add(w, &n, ma[0], mb[0] != ma[0] || nb < 2 ? mb[0] : mb[1]);
	if (na)
		want_add(w, &n, (unsigned int)ia, ma[0]);
	if (nb)
		want_add(w, &n, (unsigned int)ib, mb[0]);
	nx = outsiders(st, hs, (unsigned int)ia, (unsigned int)ib, x, DIAGNOSE_OUTSIDERS);
	for (size_t k = 0; k < nx; k++) {
		want_add(w, &n, (unsigned int)ib, x[k]);
		want_add(w, &n, (unsigned int)ia, x[k]);
	}
	if (nx && nb)
		want_add(w, &n, mb[0], x[0]);
	if (nx && na)
		want_add(w, &n, ma[0], x[0]);
	fab_info("diagnose: measuring %s-%s and %zu pair%s sharing parts of its path",
		 hs->hosts[ia].name, hs->hosts[ib].name, n - *np - 1, n - *np == 2 ? "" : "s");
	*np = n;
}

/*
 * diagnose A B: each a HOST:NIC end point, or a HOST whose ports are
 * taken on every rail both have (a HOST with a HOST:NIC: the HOST's port
 * on that NIC's rail).  The end-point pairs into @ia, @ib (room for
 * FAB_HOST_RAIL_MAX + 1); their count, 0 when none.
 */
static size_t diagnose_targets(const struct fab_hosts *hs, const char *const target[2], int *ia,
			       int *ib)
{
	int ea = hosts_find(hs, target[0]), eb = hosts_find(hs, target[1]);
	size_t k = 0;

	if (ea >= 0 && eb >= 0) {
		ia[0] = ea;
		ib[0] = eb;
		return ea != eb;
	}
	for (size_t a = 0; a < hs->n; a++)
		for (size_t b = 0; b < hs->n && k <= FAB_HOST_RAIL_MAX; b++) {
			const struct fab_host *x = &hs->hosts[a], *y = &hs->hosts[b];

			if ((ea >= 0 ? (size_t)ea != a : strcmp(hosts_node(x), target[0]) != 0) ||
			    (eb >= 0 ? (size_t)eb != b : strcmp(hosts_node(y), target[1]) != 0) ||
			    !hosts_ports_pair(x, y, false) || (x->rail >= 0 && x->rail != y->rail))
				continue;
			ia[k] = (int)a;
			ib[k++] = (int)b;
		}
	return k;
}

static int diagnose_pick_pairs(struct sweep_ctx *ctx, struct sweep_topo *st,
			       const struct fab_hosts *hs, const char *const target[2],
			       struct sched_pair **want, size_t *n_want)
{
	int ia[FAB_HOST_RAIL_MAX + 2], ib[FAB_HOST_RAIL_MAX + 2];
	size_t k = diagnose_targets(hs, target, ia, ib), n = 0;
	struct sched_pair *w;

	if (!k) {
		bool fa = hosts_find(hs, target[0]) >= 0 || hosts_find_node(hs, target[0]) >= 0;
		bool fb = hosts_find(hs, target[1]) >= 0 || hosts_find_node(hs, target[1]) >= 0;

		return fab_err_input(&ctx->err, -EINVAL, "diagnose: %s%s", !fa ? target[0] : !fb ? target[1] : target[0],
				     !fa || !fb ? " is not an end point of the hosts file"
				     : strcmp(target[0], target[1]) == 0 ? ": A and B are the same host"
				     : ": A and B have no rail in common (name the ends HOST:NIC)");
	}
	w = calloc(24 * k, sizeof(*w));
	if (!w)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	for (size_t i = 0; i < k; i++)
		diagnose_pick_one(st, hs, ia[i], ib[i], w, &n);
	*want = w;
	*n_want = n;
	return 0;
}

/* ------------------------------------------------------------ rails */

/*
 * Hosts of several ports: the end-point pairs of every node pair (same
 * rail; every rail with --cross-rail; new x rest with --new) into @want,
 * in the order hosts_port_pairs() gives.
 */
static int rails_requested(struct sweep_ctx *ctx, const struct sweep_req *req,
			   const struct fab_hosts *hs, struct sched_pair **want, size_t *n_want)
{
	bool bip = req->mode == SWEEP_MODE_BIPARTITE;

	if (hosts_port_pairs(hs, req->cross_rail, bip, want, n_want) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	if (*n_want)
		return 0;
	free(*want);
	*want = NULL;
	return fab_err_input(&ctx->err, -EINVAL, "%s: no two end points to pair: %s", req->hosts,
			     bip ? "want new and other hosts on one rail" : "want two hosts on one rail");
}

static bool coverage_mode(const struct sweep_req *req)
{
	return req->mode == SWEEP_MODE_COVERAGE || req->mode == SWEEP_MODE_COVERAGE_NEW;
}

/*
 * Which modes pair end points by rail (all but diagnose's and --pairs):
 * all pairs, --new and --serial from the rail pairs, --coverage K from
 * the picker a rail (rail-aligned, so not with --cross-rail).
 */
static int rails_mode(struct sweep_ctx *ctx, const struct sweep_req *req, bool *rails)
{
	*rails = false;
	if (req->target[0] || req->mode == SWEEP_MODE_PAIRS)
		return 0;
	if (coverage_mode(req) && req->cross_rail)
		return fab_err_input(&ctx->err, -EINVAL, "%s: --coverage chooses pairs on each "
				     "rail (NIC i to NIC i): not with --cross-rail", req->hosts);
	*rails = true;
	return 0;
}

/* --per-host N: the rounds split so that at most N tests touch one node. */
static int per_host_limit(struct sweep_ctx *ctx, const struct sweep_req *req,
			  const unsigned int *node, size_t n_nodes, struct sched *s,
			  struct sched_src *src)
{
	size_t before = s->n_rounds;

	if (!req->per_host || !node || !s->n_pairs)
		return 0;
	if (sched_group_limit(s, node, n_nodes, req->per_host) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	sched_src_explicit(src, s);
	if (s->n_rounds != before)
		fab_info("sweep: --per-host %u: %zu rounds (%zu without the limit)", req->per_host,
			 s->n_rounds, before);
	return 0;
}

/* ------------------------------------------------------------ the rounds */

/* The pairs @req->pairs into a new array @want. */
static int pairs_given(const struct sweep_req *req, struct sched_pair **want, size_t *n_want,
		       struct fab_err *err)
{
	struct sched_pair *sp = calloc(req->n_pairs ? req->n_pairs : 1, sizeof(*sp));

	if (!sp)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	memcpy(sp, req->pairs, req->n_pairs * sizeof(*sp));
	*want = sp;
	*n_want = req->n_pairs;
	return 0;
}

/*
 * What --pairs FILE (or the request's pairs) or --new asks for: @want
 * (pairs) or @is_new (bipartite).
 */
static int requested(const struct sweep_req *req, const struct fab_hosts *hs,
		     struct sched_pair **want, size_t *n_want, bool **is_new, struct fab_err *err)
{
	int rc = 0;

	if (req->mode == SWEEP_MODE_BIPARTITE || req->mode == SWEEP_MODE_COVERAGE_NEW) {
		bool *nw = calloc(hs->n ? hs->n : 1, sizeof(*nw));
		size_t k = 0;

		if (!nw)
			return fab_err_set(err, -ENOMEM, "sweep: out of memory");
		for (size_t i = 0; i < hs->n; i++)
			k += nw[i] = hs->hosts[i].is_new;
		if (k == 0 || k == hs->n) {
			free(nw);
			return fab_err_input(err, -EINVAL, "%s: --new needs some hosts labelled new and some not",
					     req->hosts);
		}
		*is_new = nw;
	} else if (req->mode == SWEEP_MODE_PAIRS && !req->pairs_file) {
		rc = pairs_given(req, want, n_want, err);
	} else if (req->mode == SWEEP_MODE_PAIRS) {
		struct fab_pairs_list pl = { 0 };
		struct sched_pair *sp = NULL;
		size_t len;
		char *buf;

		rc = file_read_all(req->pairs_file, PAIRS_FILE_MAX_BYTES, &buf, &len, err);
		if (rc < 0)
			return rc;
		rc = hosts_pairs_parse(&pl, hs, buf, len, req->pairs_file, err);
		free(buf);
		if (rc == 0 && !(sp = calloc(pl.n ? pl.n : 1, sizeof(*sp))))
			rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		for (size_t i = 0; rc == 0 && i < pl.n; i++) {
			sp[i].a = pl.pairs[i][0];
			sp[i].b = pl.pairs[i][1];
		}
		if (rc == 0) {
			*want = sp;
			*n_want = pl.n;
		}
		hosts_pairs_fini(&pl);
	}
	return rc;
}

/* Process CPU seconds (the schedule's cost, for the scale harness). */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The rounds to measure, as a source (@src): explicit (in @s) for every
 * mode but all pairs of a large Ethernet fabric, which is generated round
 * by round and never stored (sweep_topo_schedule_src), and all pairs
 * without a topology (the circle method, generated the same way).
 */
/* The pairs to measure: diagnose's, the rails', or what the mode asks for. */
static int pairs_wanted(struct sweep_ctx *ctx, const struct sweep_req *req,
			const struct fab_hosts *hs, struct sweep_topo *st, const unsigned int *node,
			struct sched_pair **want, size_t *n_want, bool **is_new)
{
	if (req->target[0])	/* diagnose A B: the pairs sharing parts of A-B's path */
		return diagnose_pick_pairs(ctx, st, hs, req->target, want, n_want);
	if (node && !coverage_mode(req))
		return rails_requested(ctx, req, hs, want, n_want);
	return requested(req, hs, want, n_want, is_new, &ctx->err);
}

/*
 * The rounds to measure, as a source (@src): explicit (in @s) for every
 * mode but all pairs of a large Ethernet fabric, which is generated round
 * by round and never stored (sweep_topo_schedule_src), and all pairs
 * without a topology (the circle method, generated the same way).  Hosts
 * of several ports: their rail pairs, as if given (--pairs), one a round
 * with --serial; --coverage K: the picker's a rail (sweep_topo.c), packed
 * together; --per-host N over both.
 */
int sweep_schedule_build(struct sweep_ctx *ctx, const struct sweep_req *req,
			 const struct fab_hosts *hs, struct sweep_topo *st, struct sched *s,
			 struct sched_src *src)
{
	struct sched_pair *want = NULL;
	unsigned int *node = NULL;
	bool *is_new = NULL, rails = false;
	size_t n_want = 0, n_nodes = 0;
	double t0 = cpu_s();
	int rc;

	if (hosts_have_rails(hs) && (rc = rails_mode(ctx, req, &rails)) < 0)
		return rc;
	if (rails && !(node = hosts_node_ids(hs, &n_nodes)))
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	rc = pairs_wanted(ctx, req, hs, st, node, &want, &n_want, &is_new);
	if (rc < 0) {
		free(node);
		return rc;
	}
	if (rails && req->mode == SWEEP_MODE_SERIAL) {
		rc = sched_one_per_round(s, want, n_want);
	} else if (st) {
		rc = sweep_topo_schedule_src(ctx, st, rails && !coverage_mode(req) ? SWEEP_MODE_PAIRS
					     : req->mode, want, n_want, is_new, s, src);
	} else if (req->mode == SWEEP_MODE_SERIAL) {
		rc = sched_serial(s, hs->n);
	} else if (is_new) {
		rc = sched_bipartite(s, is_new, hs->n);
	} else if (want) {
		rc = sched_from_pairs(s, want, n_want, hs->n);
	} else {
		sched_src_circle(src, hs->n);
		rc = 1;
	}
	if (rc == 0 && (!st || (rails && req->mode == SWEEP_MODE_SERIAL)))
		sched_src_explicit(src, s);
	rc = rc > 0 ? 0 : rc;
	if (rc == 0)
		rc = per_host_limit(ctx, req, node, n_nodes, s, src);
	free(want);
	free(is_new);
	free(node);
	if (rc < 0 && !ctx->err.msg[0])
		fab_err_set(&ctx->err, rc, "sweep: schedule: %s", strerror(-rc));
	if (rc == 0 && s->n_pairs && sched_check(s, hs->n) < 0)
		return fab_err_set(&ctx->err, -EINVAL, "sweep: internal error: bad schedule");
	if (req->sched_cpu_s)
		*req->sched_cpu_s = cpu_s() - t0;
	return rc;
}
