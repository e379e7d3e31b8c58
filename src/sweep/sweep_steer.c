// SPDX-License-Identifier: GPL-2.0-or-later
/* sweep --steer: trace, learn, steer (sweep_steer.h). */
#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "fleet/fleet_trace.h"
#include "model/ecmp_map.h"
#include "model/hosts.h"
#include "model/ecmp_steer.h"
#include "model/node_addr.h"
#include "model/sched_topo.h"
#include "model/steer_cover.h"
#include "model/steer_tuple.h"
#include "model/steer_window.h"
#include "model/sweep_judge.h"
#include "sweep/sweep_steer.h"
#include "sweep/sweep_topo.h"
#include "transport/trace.h"
#include "transport/verbs_gid.h"
#include "util/log.h"
#include "util/str.h"

#define OPTS_MAX (STEER_PORTS * STEER_PORTS)
#define WHY_MAX 400			/* a reason not to steer, at most (bytes) */
#define PORT_SEED_ENV "FABRICCTL_STEER_PORT_SEED"	/* tests: the ports' base, not random */

struct steer_pair {
	unsigned int a, b;
	bool cross;			/* the hosts sit on different leaves */
	struct pair_route all;		/* every equal-cost path; empty when rix is set */
	struct route *rix;		/* in windows: paths by index (route_pair_nth/find), not all */
	/*
	 * Distinct (a -> b, b -> a) paths (sport: S) and each one's b -> a
	 * stream port S' (rev: in the same allocation, opts_alloc()).  A
	 * coverage candidate keeps only n_opts (opts NULL) until chosen
	 * (cover_trace(), cover_adopt(): 4096 hosts, 12,288 candidates).
	 */
	struct sched_steer_opt *opts;
	uint16_t *rev;
	size_t n_opts;
	char *why;			/* not steered: why (NULL same leaf); owned (why_set()) */
	const char *fb;			/* not steered: why, a word (NULL same leaf) */
	bool traced;			/* the map holds: its ports' members are known */
	uint32_t choice;		/* the option given, SCHED_STEER_WHOLE: none */
	int ab_of[STEER_PORTS];	/* per traced a -> b port: its path, -1 unknown */
	int ba_of[STEER_PORTS];	/* per traced b -> a port */
	unsigned int runs;		/* tests started (a retest: more than one) */
	unsigned int last_k, last_j;	/* the traced ports (a -> b, b -> a) of its last test */
	bool lost;			/* a retest ran on free ports: its path is not known */
	struct pair_route taken;	/* the route its test takes */
};

struct sweep_steer {
	struct steer_pair *p;
	size_t n;
	struct steer_tuple tu;		/* this sweep's ports and protocol (steer_tuple.h) */
	uint32_t *by_key;		/* pair indices sorted by sched_pair_key() */
	bool dry;			/* --dry-run: planned, nothing traced */
	struct sweep_steer_view view;	/* what the report tells (sweep_steer_view()) */
	struct steer_win_state *win;	/* steering in windows (below); NULL: every pair in p */
	const struct sweep_steer_probe *probe;	/* confirming probes being run (borrowed) */
	size_t n_probe;
};

/* Pair @p's reason not to steer, formatted (heap: most pairs have none). */
static void why_set(struct steer_pair *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void why_set(struct steer_pair *p, const char *fmt, ...)
{
	char buf[WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	str_vfmt(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(p->why);
	p->why = strdup(buf);	/* NULL (no memory): the reason's word, p->fb, is said instead */
}

/* @p's reason, else @dflt. */
static const char *why_of(const struct steer_pair *p, const char *dflt)
{
	return p->why ? p->why : dflt;
}

/* @p's options freed (n_opts left to the caller). */
static void opts_free(struct steer_pair *p)
{
	free(p->opts);
	p->opts = NULL;
	p->rev = NULL;
}

/* What pair @p holds freed: its routes, options and reason. */
static void pair_fini(struct steer_pair *p)
{
	pair_route_fini(&p->all);
	pair_route_fini(&p->taken);
	free(p->why);
	p->why = NULL;
	opts_free(p);
}

/* A scratch pair made @init again (its reason and options freed). */
static void pair_reset(struct steer_pair *p, struct steer_pair init)
{
	free(p->why);
	free(p->opts);
	*p = init;
}

/* Room for @n options in @p (its old ones freed; n_opts left to the caller); -ENOMEM. */
static int opts_alloc(struct steer_pair *p, size_t n)
{
	opts_free(p);
	p->opts = malloc((n ? n : 1) * (sizeof(*p->opts) + sizeof(*p->rev)));
	if (!p->opts)
		return -ENOMEM;
	p->rev = (uint16_t *)(p->opts + (n ? n : 1));
	return 0;
}

struct steer_win_state;
static void win_free(struct steer_win_state *ws);
static int win_choose(struct sweep_ctx *ctx, const struct sweep_topo *st, const struct sched *s,
		      const struct sched_src *src, unsigned int *rounds);
static int win_start(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
		     struct sweep_steer *sv, struct sched *s, struct sched_src *src,
		     unsigned int rounds);
static void win_pair_spec(struct sweep_steer *sv, size_t a, size_t b, struct tp_spec *spec);
static void win_sports(struct sweep_steer *sv, unsigned int a, unsigned int b, uint16_t got_ab,
		       uint16_t got_ba);
static int win_recheck(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
		       struct sweep_steer *sv, const unsigned int (*ab)[2], size_t n);
static const struct pair_route *win_route(const struct sweep_steer *sv, unsigned int a,
					  unsigned int b);
static void win_fact(const struct sweep_steer *sv, unsigned int a, unsigned int b,
		     struct sweep_steer_fact *out);
static void win_view(struct sweep_steer *sv, struct sweep_steer_view *v);

void sweep_steer_free(struct sweep_steer *sv)
{
	for (size_t i = 0; sv && i < sv->n; i++)
		pair_fini(&sv->p[i]);
	if (sv) {
		free(sv->p);
		free(sv->by_key);
		win_free(sv->win);
	}
	free(sv);
}

static uint16_t port_fwd(const struct sweep_steer *sv, unsigned int k)
{
	return steer_tuple_fwd(&sv->tu, k);
}

static uint16_t port_rev(const struct sweep_steer *sv, unsigned int k)
{
	return steer_tuple_rev(&sv->tu, k);
}

static uint16_t port_listen(const struct sweep_steer *sv)
{
	return steer_tuple_dport(&sv->tu);
}

/* The flows of pair @p's tuples @k (a -> b, into @fa) and @j (b -> a, into @fb), to trace. */
static void pair_flows(const struct sweep_steer *sv, const struct fab_hosts *hs,
		       const struct steer_pair *p, unsigned int k, unsigned int j, struct flow *fa,
		       struct flow *fb)
{
	const char *a = hs->hosts[p->a].addr, *b = hs->hosts[p->b].addr;

	steer_tuple_flow(&sv->tu, ECMP_AB, port_fwd(sv, k), a, b, fa);
	steer_tuple_flow(&sv->tu, ECMP_BA, port_rev(sv, j), a, b, fb);
	if (sv->tu.kind == STEER_ROCE) {
		/* IPv6: the QPs' flow labels are in the packets' headers (on mlx5; rxe sends 0) */
		fa->label = verbs_sport_flow_label(fa->sport);
		fb->label = verbs_sport_flow_label(fb->sport);
	}
}

static int key_cmp(const void *x, const void *y, void *arg)
{
	const struct steer_pair *p = arg;
	uint64_t a = sched_pair_key(p[*(const uint32_t *)x].a, p[*(const uint32_t *)x].b);
	uint64_t b = sched_pair_key(p[*(const uint32_t *)y].a, p[*(const uint32_t *)y].b);

	return a < b ? -1 : a > b;
}

static struct steer_pair *pair_find(const struct sweep_steer *sv, unsigned int a, unsigned int b)
{
	uint64_t k = sched_pair_key(a, b);
	size_t lo = 0, hi = sv ? sv->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct steer_pair *p = &sv->p[sv->by_key[mid]];
		uint64_t km = sched_pair_key(p->a, p->b);

		if (km == k)
			return p;
		if (km < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The workers trace, or a simulation does (the scale harness: sweep_topo.sim). */
static int steer_trace(const struct sweep_topo *st, struct fleet *f, struct flow_trace *const *tr,
		       const size_t *n, const struct trace_opts *o, int timeout_ms, bool *got,
		       struct fab_err *err)
{
	if (st->sim && st->sim->trace)
		return st->sim->trace(st->sim->ctx, tr, n, got, err);
	return fleet_trace_run(f, tr, n, o, timeout_ms, got, err);
}

/* The pairs of @s, routed (every path), in @s's order. */
static int pairs_make(struct sweep_ctx *ctx, struct sweep_topo *st, const struct sched *s,
		      struct sweep_steer *sv)
{
	const struct route *r = st->r;

	sv->p = calloc(s->n_pairs + 1, sizeof(*sv->p));
	sv->by_key = calloc(s->n_pairs + 1, sizeof(*sv->by_key));
	if (!sv->p || !sv->by_key)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < s->n_pairs; i++) {
		struct steer_pair *p = &sv->p[i];
		int rc;

		p->a = s->pairs[i].a;
		p->b = s->pairs[i].b;
		p->cross = r->hosts[p->a].leaf != r->hosts[p->b].leaf;
		p->choice = SCHED_STEER_WHOLE;
		rc = route_pair(st->r, p->a, p->b, &p->all, &ctx->err);
		if (rc < 0)
			return rc;
		sv->n = i + 1;
		sv->by_key[i] = (uint32_t)i;
	}
	qsort_r(sv->by_key, sv->n, sizeof(*sv->by_key), key_cmp, sv->p);
	return 0;
}

/*
 * Flows per host of pairs [@lo, @hi): a's a -> b flows (S_k -> D), b's
 * b -> a flows (D -> S'_k), in pair order.
 */
static int flows_make(struct sweep_ctx *ctx, const struct sweep_topo *st, struct sweep_steer *sv,
		      size_t lo, size_t hi, struct flow_trace **tr, size_t *n)
{
	const struct fab_hosts *hs = st->hosts;

	for (size_t i = lo; i < hi; i++)
		if (sv->p[i].cross) {
			n[sv->p[i].a] += STEER_PORTS;
			n[sv->p[i].b] += STEER_PORTS;
		}
	for (size_t h = 0; h < hs->n; h++) {
		tr[h] = calloc(n[h] + 1, sizeof(**tr));
		if (!tr[h])
			return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		if (n[h] > TRACE_MAX_FLOWS)
			return fab_err_input(&ctx->err, -E2BIG, "sweep --steer: host %s would trace %zu "
					     "flows, more than %u: steer fewer pairs (--pairs, --coverage)",
					     hs->hosts[h].name, n[h], TRACE_MAX_FLOWS);
		n[h] = 0;
	}
	for (size_t i = lo; i < hi; i++) {
		const struct steer_pair *p = &sv->p[i];

		for (unsigned int k = 0; p->cross && k < STEER_PORTS; k++) {
			struct flow *fa = &tr[p->a][n[p->a]++].flow, *fb = &tr[p->b][n[p->b]++].flow;

			pair_flows(sv, hs, p, k, k, fa, fb);
		}
	}
	return 0;
}

/* Traced a -> b ports whose path is @path: the runs (retests) an option's tests can have. */
static unsigned int ab_ports(const struct steer_pair *p, int path)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < STEER_PORTS; k++)
		n += p->ab_of[k] == path;
	return n;
}

/*
 * Options whose a -> b member more traced ports take first (the packer
 * keeps the first of options that load the round alike): a slow pair's
 * retests then stay on known paths longer.  Insertion sort, few options.
 */
static void opts_order(struct steer_pair *p)
{
	for (size_t i = 1; i < p->n_opts; i++)
		for (size_t x = i; x > 0 && ab_ports(p, p->opts[x].ab) > ab_ports(p, p->opts[x - 1].ab);
		     x--) {
			struct sched_steer_opt o = p->opts[x];
			uint16_t r = p->rev[x];

			p->opts[x] = p->opts[x - 1];
			p->rev[x] = p->rev[x - 1];
			p->opts[x - 1] = o;
			p->rev[x - 1] = r;
		}
}

/* The index of the path of @p's direction @dir that member @mb names; -errno (ecmp_steer_path()). */
static int member_path(const struct topo *t, const struct steer_pair *p, enum ecmp_dir dir,
		       const struct ecmp_member *mb)
{
	size_t i;
	int rc;

	if (!p->rix)
		return dir == ECMP_AB ? ecmp_steer_path(t, p->all.ab, p->all.n_ab, mb)
				      : ecmp_steer_path(t, p->all.ba, p->all.n_ba, mb);
	rc = route_pair_find(p->rix, p->a, p->b, dir == ECMP_BA, (const char *const *)mb->nodes,
			     mb->n_nodes, &i);
	return rc < 0 ? rc : i > INT16_MAX ? -E2BIG : (int)i;
}

/* @p's options from its traced ports' paths (ab_of[], ba_of[]): every distinct pair; -ENOMEM. */
static int opts_from_ports(const struct sweep_steer *sv, struct steer_pair *p)
{
	struct sched_steer_opt o[OPTS_MAX];
	uint16_t rev[OPTS_MAX];
	size_t n = 0;

	for (unsigned int k = 0; k < STEER_PORTS; k++)
		for (unsigned int j = 0; p->ab_of[k] >= 0 && j < STEER_PORTS; j++) {
			bool seen = false;

			if (p->ba_of[j] < 0)
				continue;
			for (size_t x = 0; x < n && !seen; x++)
				seen = o[x].ab == p->ab_of[k] && o[x].ba == p->ba_of[j];
			if (!seen && n < OPTS_MAX) {
				rev[n] = port_rev(sv, j);
				o[n++] = (struct sched_steer_opt){ .sport = port_fwd(sv, k),
								   .ab = (uint16_t)p->ab_of[k],
								   .ba = (uint16_t)p->ba_of[j] };
			}
		}
	p->n_opts = 0;
	if (n && opts_alloc(p, n) < 0)
		return -ENOMEM;
	if (n) {
		memcpy(p->opts, o, n * sizeof(*o));
		memcpy(p->rev, rev, n * sizeof(*rev));
	}
	p->n_opts = n;
	opts_order(p);
	return 0;
}

/* Each traced port's path (-1: none), then the options: every distinct pair of paths. */
static int opts_make(const struct sweep_steer *sv, const struct topo *t, struct steer_pair *p,
		     const struct ecmp_map *m)
{
	for (unsigned int k = 0; k < STEER_PORTS; k++) {
		int ab = ecmp_map_member(m, ECMP_AB, port_fwd(sv, k));
		int ba = ecmp_map_member(m, ECMP_BA, port_rev(sv, k));

		p->ab_of[k] = ab < 0 ? -1 : member_path(t, p, ECMP_AB, &m->side[ECMP_AB].members[ab]);
		p->ba_of[k] = ba < 0 ? -1 : member_path(t, p, ECMP_BA, &m->side[ECMP_BA].members[ba]);
	}
	if (opts_from_ports(sv, p) < 0)
		return -ENOMEM;
	if (!p->n_opts)
		p->fb = "off plan";
	if (!p->n_opts)
		why_set(p, "no traced port's members are paths of the "
			"topology (parallel cables, or members off the plan)");
	return 0;
}

/* Learn pair @p's map from its traces (@ta: from a, @tb: from b) and make its options. */
static int pair_learn(const struct sweep_steer *sv, const struct sweep_topo *st,
		      const struct node_addr_index *ix, struct steer_pair *p, struct flow_trace *ta,
		      struct flow_trace *tb)
{
	const struct topo *t = st->t;
	struct ecmp_map m;
	int rc = 0;

	ecmp_map_init(&m, t->nodes[st->r->hosts[p->a].attach]->name,
		      t->nodes[st->r->hosts[p->b].attach]->name, false);
	for (unsigned int k = 0; rc == 0 && k < STEER_PORTS; k++) {
		flow_trace_map(&ta[k], ix);
		flow_trace_map(&tb[k], ix);
		rc = ecmp_map_learn(&m, ECMP_AB, &ta[k]);
		if (rc == 0)
			rc = ecmp_map_learn_as(&m, ECMP_BA, &tb[k], port_rev(sv, k));
	}
	p->traced = rc == 0 && m.reason == ECMP_OK;
	if (rc == 0 && m.reason != ECMP_OK)
		p->fb = ecmp_reason_name(m.reason);
	if (rc == 0 && m.reason != ECMP_OK)
		why_set(p, "fallback %s: %s", ecmp_reason_name(m.reason), m.detail);
	else if (rc == 0)
		rc = opts_make(sv, t, p, &m);
	ecmp_map_fini(&m);
	return rc;
}

/*
 * The trace options.  RoCE v2: the far end never answers (its NIC, or
 * rxe, takes every UDP packet to 4791 and drops a probe without an ICMP
 * port unreachable), so probes past the last switch would only wait out
 * their tries, silent: stop at the longest path's last switch, the far
 * leaf, which is all the map needs (ecmp_map.h).
 */
static struct trace_opts trace_opts(const struct sweep_steer *sv)
{
	struct trace_opts o = TRACE_OPTS_DEFAULT;
	size_t last = 0;

	for (size_t i = 0; sv->tu.kind == STEER_ROCE && i < sv->n; i++) {
		const struct pair_route *r = &sv->p[i].all;

		for (size_t x = 0; sv->p[i].cross && x < r->n_ab; x++)
			last = r->ab[x].n_hops - 1 > last ? r->ab[x].n_hops - 1 : last;
		for (size_t x = 0; sv->p[i].cross && x < r->n_ba; x++)
			last = r->ba[x].n_hops - 1 > last ? r->ba[x].n_hops - 1 : last;
	}
	if (last >= 2 && last < o.max_ttl)
		o.max_ttl = (unsigned int)last;
	return o;
}

/* Trace the ports of the cross-leaf pairs of [@lo, @hi) through the workers; learn their options. */
static int trace_learn(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
		       struct sweep_steer *sv, size_t lo, size_t hi)
{
	size_t nh = st->hosts->n, *n = calloc(nh + 1, sizeof(*n)), *at = calloc(nh + 1, sizeof(*at));
	struct flow_trace **tr = calloc(nh + 1, sizeof(*tr));
	bool *got = calloc(nh + 1, sizeof(*got));
	struct trace_opts o = trace_opts(sv);
	struct node_addr_index ix = { 0 };
	int rc = 0;

	if (!n || !at || !tr || !got || node_addr_index_build(&ix, st->t) < 0)
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	if (rc == 0)
		rc = flows_make(ctx, st, sv, lo, hi, tr, n);
	if (rc == 0)
		rc = steer_trace(st, f, tr, n, &o, SWEEP_STEER_TIMEOUT_MS, got, &ctx->err);
	for (size_t i = lo; rc == 0 && i < hi; i++) {
		struct steer_pair *p = &sv->p[i];

		if (!p->cross)
			continue;
		if (!got[p->a] || !got[p->b])
			p->fb = "no answer";
		if (!got[p->a] || !got[p->b])
			why_set(p, "not traced: the worker of %s did not answer",
				st->hosts->hosts[got[p->a] ? p->b : p->a].name);
		else if (pair_learn(sv, st, &ix, p, &tr[p->a][at[p->a]], &tr[p->b][at[p->b]]) < 0)
			rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		at[p->a] += STEER_PORTS;
		at[p->b] += STEER_PORTS;
	}
	for (size_t h = 0; tr && h < nh; h++) {
		for (size_t k = 0; tr[h] && k < n[h]; k++)
			flow_trace_fini(&tr[h][k]);
		free(tr[h]);
	}
	node_addr_index_fini(&ix);
	free(tr);
	free(n);
	free(at);
	free(got);
	return rc;
}

/* The rounds on exact per-member loads, over the spread model's rounds of the same pairs. */
static int rounds_steer(struct sweep_ctx *ctx, struct sweep_topo *st, struct sweep_steer *sv,
			struct sched *s, struct sched_steer_stats *stats)
{
	struct sched_steer_pair *sp = calloc(sv->n + 1, sizeof(*sp));
	uint32_t *choice = calloc(sv->n + 1, sizeof(*choice));
	struct sched base, out;
	struct sched_topo_bound b;
	int rc;

	if (!sp || !choice) {
		free(sp);
		free(choice);
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	}
	for (size_t i = 0; i < sv->n; i++)
		sp[i] = (struct sched_steer_pair){ .route = &sv->p[i].all, .opts = sv->p[i].opts,
						   .n_opts = sv->p[i].n_opts };
	st->r->ecmp_whole = false;
	/* All pairs: the generator's rounds (n - 1 on a non-blocking tree), else the packer's. */
	if (s->n_pairs == st->r->n_hosts * (st->r->n_hosts - 1) / 2 &&
	    st->r->n_hosts <= SCHED_TOPO_EXPLICIT_MAX)
		rc = sched_topo_all(&base, &b, st->r, &ctx->err);
	else
		rc = sched_topo_pairs(&base, &b, st->r, s->pairs, s->n_pairs, &ctx->err);
	st->r->ecmp_whole = true;
	if (rc == 0)
		rc = sched_topo_steer(&out, choice, stats, st->r, &base, sp, sv->n, &ctx->err);
	if (rc == 0) {
		sched_fini(&base);
		sched_fini(s);
		*s = out;
		for (size_t i = 0; i < sv->n; i++)
			sv->p[i].choice = choice[i];
	}
	free(sp);
	free(choice);
	return rc;
}

/*
 * Coverage on members (docs/paths.md "Coverage on members"): the pairs
 * are not the picker's but chosen with their members, round by round
 * (model/steer_cover.h), among candidates traced for it: COVER_CANDS
 * partners per host (COVER_CANDS_WALK with the walk, on unless
 * COVER_WALK_ENV=0, up to COVER_BIG hosts; 6 leave a quarter as many
 * links short after the main rounds, docs/paths.md), on other leaves,
 * at fixed offsets through the host list (so a host's partners sit in
 * different parts of the fabric).  The candidates are traced COVER_CHUNK
 * pairs at a time, and each keeps only the paths its traced ports take
 * (not every equal-cost path), and no options until chosen (route_compact():
 * 4096 hosts, 12,288 candidates, 6.3 MB); the new pairs of the picker's
 * step 7 are traced one at a time into slots after them
 * (cover_more_trace()).  At 4096 hosts with 6 candidates the sweep peaks
 * at 57.8 MB (scale.sh's target 64; 73 MB before the options went, the
 * route's BFS cache was dropped while picking and the walk's index and
 * the path hops were packed in 4 bytes).
 */
#define COVER_CANDS 4
#define COVER_CANDS_WALK 6	/* with the walk, up to COVER_BIG hosts */
#define COVER_BIG 4096		/* past it 4 a host (memory, not measured past 4096) */
#define COVER_WALK_ENV "FABRICCTL_COVER_WALK"	/* 0: without steer_cover's walk (docs/paths.md 3b) */
#define COVER_CHUNK 64
#define COVER_EXTRA_ROUNDS 3

static bool cover_mode(const struct sweep_topo *st, const struct sched *s)
{
	return st->cov_k && st->cov.pairs && st->cov.n_pairs == s->n_pairs &&
	       st->cov.hosts_target == st->r->n_hosts && !hosts_have_rails(st->hosts);
}

static int u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* The candidate pairs' keys, sorted, distinct; their number in *@n. */
static int cover_cands(const struct route *r, bool walk, uint64_t **out, size_t *n)
{
	size_t nh = r->n_hosts, m = 0;
	size_t offs = (walk && nh <= COVER_BIG ? COVER_CANDS_WALK : COVER_CANDS) / 2;
	uint64_t *k = calloc(nh * offs + 1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (size_t c = 0; c < offs; c++) {
		size_t off = nh * (c + 1) / (offs + 1) + c + 1;

		/*
		 * From the offset on, the first host on another leaf: with the
		 * hosts listed leaf after leaf in turn (h1 leaf1, h2 leaf2, h3
		 * leaf3, h4 leaf1, ...) the offset alone can land on the host's
		 * own leaf every time (6 hosts, 3 leaves: offsets 3 and 6).
		 */
		for (size_t a = 0; a < nh; a++)
			for (size_t step = 0; step < nh; step++) {
				size_t b = (a + off + step) % nh;

				if (a != b && r->hosts[a].leaf != r->hosts[b].leaf) {
					k[m++] = sched_pair_key((unsigned int)a, (unsigned int)b);
					break;
				}
			}
	}
	qsort(k, m, sizeof(*k), u64_cmp);
	*n = 0;
	for (size_t i = 0; i < m; i++)
		if (!*n || k[*n - 1] != k[i])
			k[(*n)++] = k[i];
	*out = k;
	return 0;
}

/* @i in @list[0..*n) (added when new, up to STEER_PORTS); its place. */
static int slot_of(int *list, size_t *n, int i)
{
	for (size_t x = 0; x < *n; x++)
		if (list[x] == i)
			return (int)x;
	list[*n] = i;
	return (int)(*n)++;
}

/*
 * A coverage candidate: keep of @p's route only the paths its traced
 * ports take (ab_of[] and ba_of[] renumbered); a pair without options
 * keeps none.  Its options go (n_opts stays, to tell a candidate that
 * steers): the picker reads only the paths, and cover_adopt() makes them
 * again from ab_of[] and ba_of[] for the pairs chosen (4096 hosts: 12,288
 * candidates, 6.3 MB).
 */
static int route_compact(struct steer_pair *p)
{
	struct pair_route c = { .a = p->all.a, .b = p->all.b, .expected_mbps = p->all.expected_mbps,
				.klass = p->all.klass };
	int lab[STEER_PORTS], lba[STEER_PORTS], rab[STEER_PORTS], rba[STEER_PORTS];
	size_t nab = 0, nba = 0;

	opts_free(p);
	for (unsigned int k = 0; p->n_opts && k < STEER_PORTS; k++) {
		rab[k] = p->ab_of[k] < 0 ? -1 : slot_of(lab, &nab, p->ab_of[k]);
		rba[k] = p->ba_of[k] < 0 ? -1 : slot_of(lba, &nba, p->ba_of[k]);
	}
	if (p->n_opts) {
		c.ab = calloc(nab + 1, sizeof(*c.ab));
		c.ba = calloc(nba + 1, sizeof(*c.ba));
		if (!c.ab || !c.ba) {
			pair_route_fini(&c);
			return -ENOMEM;
		}
		for (size_t x = 0; x < nab; x++, c.n_ab++)
			if (path_dup(&c.ab[x], &p->all.ab[lab[x]]) < 0) {
				pair_route_fini(&c);
				return -ENOMEM;
			}
		for (size_t x = 0; x < nba; x++, c.n_ba++)
			if (path_dup(&c.ba[x], &p->all.ba[lba[x]]) < 0) {
				pair_route_fini(&c);
				return -ENOMEM;
			}
		memcpy(p->ab_of, rab, sizeof(rab));
		memcpy(p->ba_of, rba, sizeof(rba));
	}
	pair_route_fini(&p->all);
	p->all = c;
	return 0;
}

/* Route, trace and learn the candidates, COVER_CHUNK at a time; each keeps its options' paths. */
static int cover_trace(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
		       struct sweep_steer *sv)
{
	for (size_t lo = 0; lo < sv->n; lo += COVER_CHUNK) {
		size_t hi = lo + COVER_CHUNK < sv->n ? lo + COVER_CHUNK : sv->n;
		int rc;

		for (size_t i = lo; i < hi; i++)
			if ((rc = route_pair(st->r, sv->p[i].a, sv->p[i].b, &sv->p[i].all,
					     &ctx->err)) < 0)
				return rc;
		if ((rc = trace_learn(ctx, st, f, sv, lo, hi)) < 0)
			return rc;
		for (size_t i = lo; i < hi; i++)
			if (route_compact(&sv->p[i]) < 0)
				return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	}
	return 0;
}

/* What steer_cover's step 7 traces into: slots sv->p[at ..) past the candidates. */
struct cover_more {
	struct sweep_ctx *ctx;
	struct sweep_topo *st;
	struct fleet *f;
	struct sweep_steer *sv;
	size_t at, used;
};

/*
 * steer_cover's step 7 (model/steer_cover.h): a new pair, traced and
 * learnt as the candidates are (its STEER_PORTS ports each way), into the
 * next free slot; its options' paths into @out.  The tag: the slot.
 */
static long cover_more_trace(void *arg, unsigned int a, unsigned int b, struct pair_route *out)
{
	struct cover_more *m = arg;
	size_t i = m->at + m->used;
	struct steer_pair *p = &m->sv->p[i];
	int rc;

	if (m->used == STEER_COVER_MORE_MAX)
		return -ENOENT;
	*p = (struct steer_pair){ .a = a, .b = b, .cross = true, .choice = SCHED_STEER_WHOLE };
	m->used++;
	if (route_pair(m->st->r, a, b, &p->all, &m->ctx->err) < 0)
		return -ENOENT;
	if ((rc = trace_learn(m->ctx, m->st, m->f, m->sv, i, i + 1)) < 0)
		return rc;
	if (route_compact(p) < 0 || (p->n_opts && pair_route_dup(out, &p->all) < 0))
		return fab_err_set(&m->ctx->err, -ENOMEM, "sweep: out of memory");
	return p->n_opts ? (long)i : -ENOENT;
}

/* The option of @p whose paths are (@ab, @ba); SCHED_STEER_WHOLE: none. */
static uint32_t opt_find(const struct steer_pair *p, unsigned int ab, unsigned int ba)
{
	for (size_t o = 0; o < p->n_opts; o++)
		if (p->opts[o].ab == ab && p->opts[o].ba == ba)
			return (uint32_t)o;
	return SCHED_STEER_WHOLE;
}

/*
 * The chosen pairs into @sv: the candidates chosen kept in place (the
 * others dropped), each on its option, then the fillers, routed.  The
 * pairs are found by their key, in any order.
 */
static int cover_adopt(struct sweep_ctx *ctx, struct sweep_topo *st, struct sweep_steer *sv,
		       struct steer_cover *c, size_t n_cand)
{
	uint32_t *at = malloc((sv->n + 1) * sizeof(*at)), *key;
	size_t n = 0, fill = 0;
	struct steer_pair *np;
	int rc = 0;

	if (!at)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < sv->n; i++)
		at[i] = SCHED_STEER_WHOLE;
	for (size_t i = 0; i < c->s.n_pairs; i++) {
		if (c->pick[i] == STEER_COVER_FILL)
			fill++;
		else	/* a candidate, or a new pair of step 7 in the slot its tag names */
			at[c->pick[i] < n_cand ? c->pick[i] : c->extra_tag[c->pick[i] - n_cand]] =
				(uint32_t)i;
	}
	for (size_t i = 0; i < sv->n; i++) {
		if (at[i] == SCHED_STEER_WHOLE) {
			pair_fini(&sv->p[i]);
			continue;
		}
		if (n != i)
			sv->p[n] = sv->p[i];
		if (opts_from_ports(sv, &sv->p[n]) < 0) {
			for (size_t j = i + 1; j < sv->n; j++)	/* the rest not kept: freed here */
				pair_fini(&sv->p[j]);
			sv->n = n + 1;
			free(at);
			return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		}
		sv->p[n].choice = opt_find(&sv->p[n], c->ab[at[i]], c->ba[at[i]]);
		n++;
	}
	free(at);
	np = realloc(sv->p, (n + fill + 1) * sizeof(*np));
	key = realloc(sv->by_key, (n + fill + 1) * sizeof(*key));
	if (np)
		sv->p = np;
	if (key)
		sv->by_key = key;
	sv->n = n;
	if (!np || !key)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < c->s.n_pairs && rc == 0; i++) {
		struct steer_pair *p = &sv->p[sv->n];

		if (c->pick[i] != STEER_COVER_FILL)
			continue;
		*p = (struct steer_pair){ .a = c->s.pairs[i].a, .b = c->s.pairs[i].b,
					  .choice = SCHED_STEER_WHOLE };
		rc = route_pair(st->r, p->a, p->b, &p->all, &ctx->err);
		if (rc == 0)
			sv->n++;
	}
	for (size_t i = 0; i < sv->n; i++)
		sv->by_key[i] = (uint32_t)i;
	qsort_r(sv->by_key, sv->n, sizeof(*sv->by_key), key_cmp, sv->p);
	return rc;
}

/*
 * With candidates fallen back: do the steered ones cross every link the
 * coverage picker's pairs cross (whole sets) at least K times?  If not,
 * a link only fallen-back pairs reach would go untested.
 */
static bool cover_reaches(const struct sweep_topo *st, const struct steer_cover *c)
{
	for (size_t l = 0; st->cov.link_cross && l < st->cov.n_links && l < c->n_links; l++)
		if (st->cov.link_cross[l] && c->cross[l] < st->cov_k)
			return false;
	return true;
}

/*
 * Coverage K on members: candidates traced, pairs and rounds chosen
 * (steer_cover_pick()), into @sv and @s; candidates whose map fell back
 * are left out.  1: declined (the pairs chosen do not cross every link
 * the picker's pairs cross, or do not hold every host, K times: some
 * candidates fell back, or too few were found; the picker's pairs and
 * the whole-set rule for those not traced, as before); @sv is then empty.
 */
static int cover_run(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
		     struct sweep_steer *sv, struct sched *s, struct sched_steer_stats *stats)
{
	const char *walk_env = getenv(COVER_WALK_ENV);
	struct steer_cover_req req = { .k = st->cov_k,
				       .max_rounds = st->cov_k + COVER_EXTRA_ROUNDS,
				       .walk = !walk_env || strcmp(walk_env, "0") };
	const struct pair_route **cand = NULL;
	struct steer_cover c = { 0 };
	struct cover_more more;
	uint64_t *keys = NULL;
	size_t n = 0, fell = 0, first = 0, busiest = 0, traced;
	int rc = cover_cands(st->r, req.walk, &keys, &n);

	if (rc < 0 || !(sv->p = calloc(n + STEER_COVER_MORE_MAX + 1, sizeof(*sv->p))) ||
	    !(sv->by_key = calloc(n + STEER_COVER_MORE_MAX + 1, sizeof(*sv->by_key)))) {
		free(keys);
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		sv->p[i] = (struct steer_pair){ .a = (unsigned int)(keys[i] >> 32),
						.b = (unsigned int)keys[i], .cross = true,
						.choice = SCHED_STEER_WHOLE };
		sv->by_key[i] = (uint32_t)i;
	}
	free(keys);
	sv->n = traced = n;
	more = (struct cover_more){ .ctx = ctx, .st = st, .f = f, .sv = sv, .at = n };
	if ((rc = cover_trace(ctx, st, f, sv)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		if (!sv->p[i].n_opts && !fell++)
			first = i;
	/*
	 * The picker routes nothing, and its walk holds most (4096 hosts:
	 * 12,288 candidates' paths, 6 MB of walk index): the BFS cache (12.5
	 * MB there) goes, and the heap's free pages with it; routing makes it
	 * again after.
	 */
	route_cache_drop(st->r);
	malloc_trim(0);
	cand = calloc(n + 1, sizeof(*cand));
	if (!cand)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < n; i++)
		cand[i] = sv->p[i].n_opts ? &sv->p[i].all : NULL;
	req.more = cover_more_trace;
	req.more_ctx = &more;
	rc = steer_cover_pick(&c, st->r, &req, cand, n, &ctx->err);
	free(cand);
	sv->n = n + more.used;	/* the slots step 7 traced: adopted or dropped with the rest */
	if (rc == 0 && (!cover_reaches(st, &c) || c.hosts_short)) {
		if (fell)
			fab_warn("sweep --steer: coverage on members: %zu of %zu candidate pairs did "
				 "not steer (first: %s %s: %s) and the others do not reach every link "
				 "the coverage picker's pairs cross, or every host, %u times: the "
				 "picker's pairs instead, ECMP sets counted whole where not traced",
				 fell, n, st->hosts->hosts[sv->p[first].a].name,
				 st->hosts->hosts[sv->p[first].b].name,
				 why_of(&sv->p[first], "no option"), st->cov_k);
		else
			fab_warn("sweep --steer: coverage on members: the pairs chosen among %zu "
				 "candidates leave %zu links and %zu hosts short of %u: the picker's "
				 "pairs instead", n, c.links_short, c.hosts_short, st->cov_k);
		steer_cover_fini(&c);
		for (size_t i = 0; i < sv->n; i++)
			pair_fini(&sv->p[i]);
		free(sv->p);
		free(sv->by_key);
		sv->p = NULL;
		sv->by_key = NULL;
		sv->n = 0;
		return 1;
	}
	if (rc == 0 && fell)
		fab_warn("sweep --steer: coverage on members: %zu of %zu candidate pairs did not "
			 "steer (first: %s %s: %s); the pairs chosen among the others", fell, n,
			 st->hosts->hosts[sv->p[first].a].name, st->hosts->hosts[sv->p[first].b].name,
			 why_of(&sv->p[first], "no option"));
	if (rc == 0)
		rc = cover_adopt(ctx, st, sv, &c, n);
	if (rc < 0) {
		steer_cover_fini(&c);
		return rc;
	}
	for (size_t h = 0; h < c.n_hosts; h++)
		busiest = c.host_pairs[h] > busiest ? c.host_pairs[h] : busiest;
	*stats = (struct sched_steer_stats){ .base_rounds = c.main_rounds,
					     .extra_rounds = c.s.n_rounds - c.main_rounds,
					     .node_bound = busiest };
	if (st->r->n_hosts >= 2) {
		size_t per = st->r->n_hosts / 2, nb = (c.s.n_pairs + per - 1) / per;

		stats->node_bound = nb > busiest ? nb : busiest;
	}
	/* The report's coverage figures: crossings of the paths taken, not of whole sets. */
	st->cov.links_target = c.links_target;
	st->cov.links_short = c.links_short;
	st->cov.links_unreachable = c.links_unreached;
	st->cov.hosts_short = c.hosts_short;
	st->cov.first_short_link = c.first_short_link;
	st->cov.first_short_host = c.first_short_host;
	if (st->cov.link_cross && st->cov.n_links == c.n_links)
		memcpy(st->cov.link_cross, c.cross, c.n_links * sizeof(*c.cross));
	if (st->cov.host_pairs && st->cov.n_hosts == c.n_hosts)
		memcpy(st->cov.host_pairs, c.host_pairs, c.n_hosts * sizeof(*c.host_pairs));
	fab_info("steering, coverage %u on members: %zu candidate pairs traced, %zu chosen in %zu "
		 "rounds (%zu main, %zu extra); links crossed fewer than %u times by the paths "
		 "taken: %zu of %zu; hosts in fewer than %u pairs: %zu; new pairs traced for hosts "
		 "left free: %zu, taken: %zu", st->cov_k, traced,
		 c.s.n_pairs, c.s.n_rounds, c.main_rounds, c.s.n_rounds - c.main_rounds, st->cov_k,
		 c.links_short, c.links_target, st->cov_k, c.hosts_short, c.mend_traced, c.n_extra);
	sched_fini(s);
	*s = c.s;
	memset(&c.s, 0, sizeof(c.s));
	steer_cover_fini(&c);
	return 0;
}

/* The nodes @pa crosses between its two leaves, " > " between them, into @buf. */
static void member_text(const struct topo *t, const struct path *pa, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t h = 1; h + 2 < pa->n_hops && off < len; h++) {
		const struct topo_link *l = t->links[pa->hops[h].link];
		int w = str_fmt(buf + off, len - off, "%s%s", h > 1 ? " > " : "",
				(pa->hops[h].fwd ? l->b : l->a)->node->name);

		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (!buf[0])
		str_fmt(buf, len, "(direct)");
}

/* Each pair's route taken; a line per pair (steered: ports and members; else why). */
static int routes_say(struct sweep_ctx *ctx, const struct sweep_topo *st, struct sweep_steer *sv,
		      size_t *n_steered, size_t *n_whole)
{
	const struct fab_hosts *hs = st->hosts;

	*n_steered = *n_whole = 0;
	for (size_t i = 0; i < sv->n; i++) {
		struct steer_pair *p = &sv->p[i];
		const struct sched_steer_opt *o = p->choice == SCHED_STEER_WHOLE ? NULL
										 : &p->opts[p->choice];
		char la[300], lb[300];

		if (ecmp_steer_route(&p->all, o, &p->taken) < 0)
			return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		if (!p->cross)
			continue;
		if (!o) {
			(*n_whole)++;
			if (!p->fb)
				p->fb = "no fit";
			fab_warn("sweep --steer: %s %s: whole ECMP set: %s", hs->hosts[p->a].name,
				 hs->hosts[p->b].name, why_of(p, "no option fitted"));
			continue;
		}
		(*n_steered)++;
		member_text(st->t, &p->taken.ab[0], la, sizeof(la));
		member_text(st->t, &p->taken.ba[0], lb, sizeof(lb));
		if (sv->tu.kind == STEER_ROCE)	/* each way from its QP's port to 4791 */
			fab_info("steer %s %s: udp port %u -> %u via %s; back %u -> %u via %s",
				 hs->hosts[p->a].name, hs->hosts[p->b].name, o->sport,
				 port_listen(sv), la, p->rev[p->choice], port_listen(sv), lb);
		else
			fab_info("steer %s %s: port %u -> %u via %s; back %u -> %u via %s",
				 hs->hosts[p->a].name, hs->hosts[p->b].name, o->sport,
				 port_listen(sv), la, port_listen(sv), p->rev[p->choice], lb);
	}
	return 0;
}

/*
 * Why nothing is steered, or NULL: steering applies.  verbs over an
 * Ethernet topology is RoCE v2: the transport refuses a port without a
 * RoCE v2 GID for its address (verbs_gid_find()), so its tests are UDP.
 */
static const char *steer_skip(const struct sweep_topo *st, const char *transport,
			      unsigned int streams, const struct sched *s, const struct sched_src *src,
			      bool streamed_ok)
{
	bool verbs = strcmp(transport, "verbs") == 0;

	if (st->rib || !st->r)
		return "InfiniBand routes come from the forwarding tables: nothing to trace";
	if (strcmp(transport, "tcp") && !verbs)
		return "only tcp and verbs (RoCE v2) tests are steered";
	if (!verbs && streams != 1)
		return "only tests of one stream are steered (each stream is its own flow)";
	if (!src->n_pairs)
		return "no pairs";
	if (src->s != s && !streamed_ok)
		return "the rounds are streamed, not stored (use --coverage or --pairs)";
	return NULL;
}

/* Nothing steered: a line saying why; the report says the rounds count whole ECMP sets. */
static int steer_skipped(struct sweep_ctx *ctx, struct sweep_topo *st, const char *skip)
{
	struct sweep_steer *sv = calloc(1, sizeof(*sv));

	fab_warn("sweep --steer: %s; rounds count whole ECMP sets", skip);
	if (!sv)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	sv->view.whole = true;
	sv->view.skipped = skip;
	sweep_steer_free(st->steer);
	st->steer = sv;
	return 0;
}

int sweep_steer_run(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
		    const char *transport, unsigned int streams, struct sched *s,
		    struct sched_src *src)
{
	const char *skip = steer_skip(st, transport, streams, s, src, true);
	struct sched_steer_stats stats;
	struct sweep_steer *sv;
	size_t whole_rounds = s->n_rounds, n_steered = 0, n_whole = 0;
	unsigned int win_rounds = 0;
	uint32_t rnd;
	int rc, cover;

	if (skip)
		return steer_skipped(ctx, st, skip);
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	if (getenv(PORT_SEED_ENV))	/* the scale harness: one sweep per seed, again */
		rnd = (uint32_t)strtoul(getenv(PORT_SEED_ENV), NULL, 0);
	else if (getrandom(&rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		rnd = (uint32_t)getpid();
	steer_tuple_init(&sv->tu, strcmp(transport, "verbs") ? STEER_TCP : STEER_ROCE, rnd);
	/* cover: 0 the members' choice is made (its pairs, rounds and options), 1 declined */
	cover = src->s == s && cover_mode(st, s) ? cover_run(ctx, st, f, sv, s, &stats) : 1;
	rc = cover;
	if (rc == 1 && (rc = win_choose(ctx, st, s, src, &win_rounds)) == 1) {
		/* all pairs, or more than a host can trace at once: in windows, as the sweep goes */
		rc = win_start(ctx, st, f, sv, s, src, win_rounds);
		if (rc < 0) {
			sweep_steer_free(sv);
			return rc;
		}
		sweep_steer_free(st->steer);
		st->steer = sv;
		return 0;
	}
	if (rc == 0 && cover == 1) {	/* not the members' choice: the schedule's pairs, steered */
		rc = pairs_make(ctx, st, s, sv);
		if (rc == 0)
			rc = trace_learn(ctx, st, f, sv, 0, sv->n);
		if (rc == 0)
			rc = rounds_steer(ctx, st, sv, s, &stats);
	}
	if (rc == 0)
		rc = routes_say(ctx, st, sv, &n_steered, &n_whole);
	if (rc < 0) {
		sweep_steer_free(sv);
		return rc;
	}
	sched_src_explicit(src, s);
	/* The whole-set link and cut bounds do not hold for per-member loads: the node bound does. */
	st->bound = (struct sched_topo_bound){ .node = stats.node_bound, .bound = stats.node_bound,
					       .link_at = ROUTE_NONE };
	sweep_steer_free(st->steer);
	st->steer = sv;
	sv->view.rounds_whole = whole_rounds;
	fab_info("steering: %zu cross-leaf pairs, %zu steered, %zu on whole ECMP sets; %zu rounds "
		 "on per-member loads (whole sets: %zu; node bound %zu)%s", n_steered + n_whole,
		 n_steered, n_whole, s->n_rounds, whole_rounds, stats.node_bound,
		 sv->tu.kind == STEER_ROCE ? "; RoCE v2: UDP to 4791, ports set by flow label"
					   : "");
	return 0;
}

/* How many traced ports of @of have path @path (at least 1: a divisor). */
static unsigned int port_count(const int *of, int path)
{
	unsigned int n = 0;

	for (unsigned int k = 0; k < STEER_PORTS; k++)
		n += of[k] == path;
	return n ? n : 1;
}

/* The @nth traced port (from 0) whose path is @path in @of; -1: none. */
static int port_nth(const int *of, int path, unsigned int nth)
{
	for (unsigned int k = 0; k < STEER_PORTS; k++)
		if (of[k] == path && !nth--)
			return (int)k;
	return -1;
}

int sweep_steer_dry(struct sweep_ctx *ctx, struct sweep_topo *st, const char *transport,
		    unsigned int streams, struct sched *s, struct sched_src *src)
{
	const char *skip = steer_skip(st, transport, streams, s, src, false);
	struct sched_steer_stats stats;
	struct sweep_steer *sv;
	size_t whole_rounds = s->n_rounds;
	int rc;

	if (skip)
		return steer_skipped(ctx, st, skip);
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	sv->dry = true;
	rc = pairs_make(ctx, st, s, sv);
	for (size_t i = 0; rc == 0 && i < sv->n; i++)
		if (sv->p[i].cross && (rc = opts_alloc(&sv->p[i], OPTS_MAX)) == 0)
			sv->p[i].n_opts = sched_steer_opts_all(&sv->p[i].all, sv->p[i].opts, OPTS_MAX);
	if (rc == 0)
		rc = rounds_steer(ctx, st, sv, s, &stats);
	if (rc < 0) {
		sweep_steer_free(sv);
		return rc;
	}
	sweep_steer_free(st->steer);
	st->steer = sv;
	sv->view.rounds_whole = whole_rounds;
	sched_src_explicit(src, s);
	st->bound = (struct sched_topo_bound){ .node = stats.node_bound, .bound = stats.node_bound,
					       .link_at = ROUTE_NONE };
	fab_log(0, "sweep --steer --dry-run: %zu rounds as if every test could be steered onto any "
		"member (node bound %zu); %zu rounds where paths cannot be learned (whole ECMP sets)",
		s->n_rounds, stats.node_bound, whole_rounds);
	return 0;
}

void sweep_steer_pair_spec(void *ctx, size_t a, size_t b, struct tp_spec *spec)
{
	struct sweep_topo *st = ctx;
	struct sweep_steer *sv = st->steer;
	struct steer_pair *p = pair_find(sv, (unsigned int)a, (unsigned int)b);
	const struct sched_steer_opt *o;
	unsigned int run;
	int k, j;

	for (size_t i = 0; sv && i < sv->n_probe; i++)
		if (sv->probe[i].a == a && sv->probe[i].b == b) {
			if (sv->tu.kind == STEER_TCP)
				spec->port = port_listen(sv);
			spec->sport_fwd = sv->probe[i].sport_fwd;
			spec->sport_rev = sv->probe[i].sport_rev;
			return;
		}
	if (sv && sv->win) {
		win_pair_spec(sv, a, b, spec);
		return;
	}
	if (!p || p->choice == SCHED_STEER_WHOLE || p->a != a || p->b != b)
		return;
	o = &p->opts[p->choice];
	run = p->runs++;
	/*
	 * Both phases end with a reset (transport/tcp.c TCP_HDR_RESETS): no
	 * tuple stays in TIME_WAIT, a port serves every run.  The a -> b
	 * port still turns over the member's traced ports run by run: a
	 * server that gave up waiting for the reset (TCP_RESET_WAIT_MS) and
	 * closed first left its tuple in TIME_WAIT at a.  RoCE v2 holds no
	 * state on a port: every run on the first.
	 */
	k = port_nth(p->ab_of, o->ab, steer_tuple_turns(&sv->tu) ? run % port_count(p->ab_of, o->ab)
								  : 0);
	j = port_nth(p->ba_of, o->ba, 0);
	if (k < 0 || j < 0) {	/* every traced port of its members used: free ports */
		p->lost = true;
		p->fb = "no free traced port";
		fab_info("steer %s %s: run %u on free ports (no traced port of its members left)",
			 st->hosts->hosts[a].name, st->hosts->hosts[b].name, run + 1);
		return;
	}
	p->last_k = (unsigned int)k;
	p->last_j = (unsigned int)j;
	if (sv->tu.kind == STEER_TCP)	/* verbs: the ports become the QPs' flow labels */
		spec->port = port_listen(sv);
	spec->sport_fwd = port_fwd(sv, (unsigned int)k);
	spec->sport_rev = port_rev(sv, (unsigned int)j);
}

void sweep_steer_sports(struct sweep_topo *st, unsigned int a, unsigned int b, uint16_t got_ab,
			uint16_t got_ba)
{
	struct sweep_steer *sv = st ? st->steer : NULL;
	struct steer_pair *p = pair_find(sv, a, b);
	uint16_t want_ab, want_ba;
	unsigned int moved;

	if (sv && sv->win) {
		win_sports(sv, a, b, got_ab, got_ba);
		return;
	}
	if (!p || sv->dry || sv->tu.kind != STEER_ROCE || p->choice == SCHED_STEER_WHOLE ||
	    p->lost || !p->runs || p->a != a || p->b != b)
		return;
	want_ab = port_fwd(sv, p->last_k);
	want_ba = port_rev(sv, p->last_j);
	moved = steer_tuple_moved(want_ab, want_ba, got_ab, got_ba);
	if (!moved)
		return;
	p->lost = true;
	p->fb = "moved";
	fab_warn("sweep --steer: %s %s: its QPs recorded UDP ports %u (a -> b) and %u "
		 "(b -> a), not the ports planned %u and %u (a worker that does not steer by "
		 "flow label?): the path its test took is not known; whole ECMP set",
		 st->hosts->hosts[a].name, st->hosts->hosts[b].name, got_ab, got_ba, want_ab,
		 want_ba);
}

/* The path (of p->all) trace @t of @dir took, by port @sport; -1: not known (*@why the map's reason). */
static int traced_path(const struct topo *t, const struct steer_pair *p, struct ecmp_map *m,
		       enum ecmp_dir dir, uint16_t sport)
{
	int mb = ecmp_map_member(m, dir, sport);

	if (mb < 0)
		return -1;
	return member_path(t, p, dir, &m->side[dir].members[mb]);
}

/* Pair @p's last tuples traced again (@ta from a, @tb from b): still its planned members? */
static int recheck_pair(const struct sweep_steer *sv, const struct sweep_topo *st,
			const struct node_addr_index *ix, struct steer_pair *p, struct flow_trace *ta,
			struct flow_trace *tb)
{
	const struct topo *t = st->t;
	const struct sched_steer_opt *o = &p->opts[p->choice];
	const char *na = st->hosts->hosts[p->a].name, *nb = st->hosts->hosts[p->b].name;
	char la[300] = "a member not of the plan", lb[300] = "a member not of the plan";
	struct ecmp_map m;
	int rc, ab = -1, ba = -1;

	ecmp_map_init(&m, t->nodes[st->r->hosts[p->a].attach]->name,
		      t->nodes[st->r->hosts[p->b].attach]->name, false);
	flow_trace_map(ta, ix);
	flow_trace_map(tb, ix);
	rc = ecmp_map_learn(&m, ECMP_AB, ta);
	if (rc == 0)
		rc = ecmp_map_learn_as(&m, ECMP_BA, tb, port_rev(sv, p->last_j));
	if (rc == 0 && m.reason != ECMP_OK) {
		/* A trace that does not answer proves nothing either way: the plan stands. */
		fab_info("steer %s %s: re-trace after its tests: %s (%s); kept as planned", na, nb,
			 ecmp_reason_name(m.reason), m.detail);
	} else if (rc == 0) {
		ab = traced_path(t, p, &m, ECMP_AB, port_fwd(sv, p->last_k));
		ba = traced_path(t, p, &m, ECMP_BA, port_rev(sv, p->last_j));
		if (ab == o->ab && ba == o->ba) {
			fab_info("steer %s %s: re-traced after its tests: the members planned", na, nb);
		} else {
			struct path pa, pb;

			if (ab >= 0 && (!p->rix || route_pair_nth(p->rix, p->a, p->b, 0, (size_t)ab, &pa) == 0))
				member_text(t, p->rix ? &pa : &p->all.ab[ab], la, sizeof(la));
			if (ba >= 0 && (!p->rix || route_pair_nth(p->rix, p->a, p->b, 1, (size_t)ba, &pb) == 0))
				member_text(t, p->rix ? &pb : &p->all.ba[ba], lb, sizeof(lb));
			p->lost = true;
			p->fb = "moved";
			fab_warn("sweep --steer: %s %s: re-traced after its tests, its tuples now take "
				 "%s (a -> b) and %s (b -> a), not the members planned: the path its "
				 "test took is not known; whole ECMP set", na, nb, la, lb);
		}
	}
	ecmp_map_fini(&m);
	return rc;
}

int sweep_steer_recheck(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
			const unsigned int (*ab)[2], size_t n)
{
	struct sweep_steer *sv = st ? st->steer : NULL;
	size_t nh = st ? st->hosts->n : 0, np = 0, *cnt = NULL, *at = NULL;
	struct steer_pair **ps = NULL;
	struct flow_trace **tr = NULL;
	struct trace_opts o;
	struct node_addr_index ix = { 0 };
	bool *got = NULL;
	int rc = 0;

	if (!sv || sv->dry || !n)
		return 0;
	if (sv->win)
		return win_recheck(ctx, st, f, sv, ab, n);
	o = trace_opts(sv);
	ps = calloc(n, sizeof(*ps));
	cnt = calloc(nh + 1, sizeof(*cnt));
	at = calloc(nh + 1, sizeof(*at));
	tr = calloc(nh + 1, sizeof(*tr));
	got = calloc(nh + 1, sizeof(*got));
	if (!ps || !cnt || !at || !tr || !got) {
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct steer_pair *p = pair_find(sv, ab[i][0], ab[i][1]);

		if (!p || !p->cross || p->choice == SCHED_STEER_WHOLE || p->lost || !p->runs)
			continue;
		ps[np++] = p;
		cnt[p->a]++;
		cnt[p->b]++;
	}
	if (!np)
		goto out;
	for (size_t h = 0; h < nh; h++)
		if (!(tr[h] = calloc(cnt[h] + 1, sizeof(**tr)))) {
			rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
			goto out;
		}
	for (size_t k = 0; k < np; k++) {
		const struct steer_pair *p = ps[k];
		struct flow *fa = &tr[p->a][at[p->a]++].flow, *fb = &tr[p->b][at[p->b]++].flow;

		pair_flows(sv, st->hosts, p, p->last_k, p->last_j, fa, fb);
	}
	fab_info("sweep --steer: re-tracing the %zu steered pair%s not ok, the tuples of their last "
		 "tests", np, np == 1 ? "" : "s");
	if ((rc = steer_trace(st, f, tr, at, &o, SWEEP_STEER_TIMEOUT_MS, got, &ctx->err)) < 0)
		goto out;
	if (node_addr_index_build(&ix, st->t) < 0) {
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	memset(at, 0, (nh + 1) * sizeof(*at));
	for (size_t k = 0; rc == 0 && k < np; k++) {
		struct steer_pair *p = ps[k];
		struct flow_trace *ta = &tr[p->a][at[p->a]++], *tb = &tr[p->b][at[p->b]++];

		if (!got[p->a] || !got[p->b])
			fab_info("steer %s %s: not re-traced (a worker did not answer); kept as planned",
				 st->hosts->hosts[p->a].name, st->hosts->hosts[p->b].name);
		else if (recheck_pair(sv, st, &ix, p, ta, tb) < 0)
			rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	}
out:
	for (size_t h = 0; tr && h < nh; h++) {
		for (size_t k = 0; tr[h] && k < cnt[h]; k++)
			flow_trace_fini(&tr[h][k]);
		free(tr[h]);
	}
	node_addr_index_fini(&ix);
	free(tr);
	free(ps);
	free(cnt);
	free(at);
	free(got);
	return rc;
}

/* Bit (1 + index) of each link of the probe targets, 0: not one; OR of a path's. */
static uint64_t path_mask(const struct path *pa, const uint8_t *bit)
{
	uint64_t m = 0;

	for (size_t h = 0; h < pa->n_hops; h++)
		if (bit[pa->hops[h].link])
			m |= 1ull << (bit[pa->hops[h].link] - 1);
	return m;
}

/*
 * A traced port of @of with path @path, not @avoid when another is
 * there (tcp: the tuple of the pair's last run may still be in
 * TIME_WAIT at a); -1: none.
 */
static int probe_port(const int *of, int path, int avoid)
{
	int k = port_nth(of, path, 0);

	if (k == avoid && port_nth(of, path, 1) >= 0)
		k = port_nth(of, path, 1);
	return k;
}

static int probe_add(const struct sweep_steer *sv, const struct steer_pair *p,
		     const struct sched_steer_opt *o, uint32_t link, struct sweep_steer_probe *pb)
{
	int k = probe_port(p->ab_of, o->ab, p->runs ? (int)p->last_k : -1);
	int j = probe_port(p->ba_of, o->ba, -1);

	if (k < 0 || j < 0)
		return 1;
	*pb = (struct sweep_steer_probe){ .a = p->a, .b = p->b, .link = link,
		.sport_fwd = port_fwd(sv, (unsigned int)k), .sport_rev = port_rev(sv, (unsigned int)j) };
	if (ecmp_steer_route(&p->all, o, &pb->route) < 0)
		return -ENOMEM;
	return 0;
}

int sweep_steer_probes(const struct sweep_topo *st, const uint32_t *links, size_t n,
		       const bool *avoid, struct sweep_steer_probe **out, size_t *n_out)
{
	const struct sweep_steer *sv = st->steer;
	uint8_t *bit = NULL;
	bool *host_used = NULL;
	struct sweep_steer_probe *pb = NULL;
	uint64_t done = 0, all;
	size_t k = 0;
	int rc = 0;

	*out = NULL;
	*n_out = 0;
	if (!sv || sv->dry || sv->win || !n)
		return 0;
	n = n > 64 ? 64 : n;
	all = n == 64 ? UINT64_MAX : (1ull << n) - 1;
	bit = calloc(st->t->n_links + 1, 1);
	host_used = calloc(st->hosts->n + 1, sizeof(*host_used));
	pb = calloc(n, sizeof(*pb));
	if (!bit || !host_used || !pb) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (links[i] < st->t->n_links)
			bit[links[i]] = (uint8_t)(i + 1);
	/*
	 * Passes: options that cross their link both ways first (a fault of
	 * one direction, tc's on a port's egress, is then crossed the way it
	 * slows), then one way; in each, hosts not yet in a probe first
	 * (fewer rounds), then any.
	 */
	for (int pass = 0; pass < 4 && done != all; pass++)
		for (size_t i = 0; i < sv->n && done != all; i++) {
			const struct steer_pair *p = &sv->p[i];
			bool taken = false;

			if (!p->n_opts || (avoid && (avoid[p->a] || avoid[p->b])) ||
			    (!(pass & 1) && (host_used[p->a] || host_used[p->b])))
				continue;
			for (size_t x = 0; x < k && !taken; x++)
				taken = pb[x].a == p->a && pb[x].b == p->b;
			for (size_t o = 0; !taken && o < p->n_opts; o++) {
				uint64_t m = path_mask(&p->all.ab[p->opts[o].ab], bit) |
					     path_mask(&p->all.ba[p->opts[o].ba], bit);
				int r;

				/* one target alone, not yet given a probe; both ways in passes 0, 1 */
				if (!m || (m & (m - 1)) || (m & done) ||
				    (pass < 2 && !(path_mask(&p->all.ab[p->opts[o].ab], bit) &
						   path_mask(&p->all.ba[p->opts[o].ba], bit))))
					continue;
				r = probe_add(sv, p, &p->opts[o], links[__builtin_ctzll(m)], &pb[k]);
				if (r < 0) {
					rc = -ENOMEM;
					goto out;
				}
				if (r > 0)
					continue;
				done |= m;
				host_used[p->a] = host_used[p->b] = true;
				k++;
				taken = true;
			}
		}
	*out = pb;
	*n_out = k;
	pb = NULL;
out:
	sweep_steer_probes_free(pb, k);
	free(bit);
	free(host_used);
	return rc;
}

void sweep_steer_probes_free(struct sweep_steer_probe *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++)
		pair_route_fini(&p[i].route);
	free(p);
}

void sweep_steer_probes_use(struct sweep_steer *sv, const struct sweep_steer_probe *p, size_t n)
{
	if (!sv)
		return;
	sv->probe = p;
	sv->n_probe = p ? n : 0;
}

const struct pair_route *sweep_steer_route(const struct sweep_steer *sv, unsigned int a,
					   unsigned int b)
{
	const struct steer_pair *p = pair_find(sv, a, b);

	if (sv && sv->win)
		return win_route(sv, a, b);
	return p && !sv->dry && p->choice != SCHED_STEER_WHOLE && !p->lost ? &p->taken : NULL;
}

static void steer_fact(const void *ctx, unsigned int a, unsigned int b, struct sweep_steer_fact *out)
{
	const struct sweep_steer *sv = ctx;
	const struct steer_pair *p = pair_find(sv, a, b);
	const struct pair_route *taken;

	if (sv->win) {
		win_fact(sv, a, b, out);
		return;
	}
	taken = sweep_steer_route(sv, a, b);
	*out = (struct sweep_steer_fact){ 0 };
	if (!p) {
		out->fallback = sv->view.whole ? "skipped" : "not planned";
		return;
	}
	out->traced = p->traced;
	out->steered = taken && taken->n_ab && taken->n_ba;
	out->ab = out->steered ? &taken->ab[0] : NULL;
	out->ba = out->steered ? &taken->ba[0] : NULL;
	out->fallback = out->steered || !p->cross ? NULL : p->fb ? p->fb : "no fit";
}

/* Count @why among the view's fallbacks (the first SWEEP_STEER_WHY_MAX reasons by name). */
static void why_count(struct sweep_steer_view *v, const char *why)
{
	size_t i = 0;

	while (i < v->n_why && strcmp(v->by_why[i].why, why))
		i++;
	if (i == v->n_why && v->n_why < SWEEP_STEER_WHY_MAX)
		v->by_why[v->n_why++].why = why;
	if (i < v->n_why)
		v->by_why[i].n++;
}

const struct sweep_steer_view *sweep_steer_view(struct sweep_steer *sv)
{
	struct sweep_steer_view *v = sv ? &sv->view : NULL;

	if (!v)
		return NULL;
	v->fact = sv->dry ? NULL : steer_fact;
	v->ctx = sv;
	if (v->whole)
		return v;
	v->steered = v->fallback = v->n_why = 0;
	if (sv->win)
		win_view(sv, v);
	for (size_t i = 0; !sv->dry && i < sv->n; i++) {
		struct sweep_steer_fact f;

		if (!sv->p[i].cross)
			continue;
		steer_fact(sv, sv->p[i].a, sv->p[i].b, &f);
		if (f.steered) {
			v->steered++;
		} else {
			v->fallback++;
			why_count(v, f.fallback);
		}
	}
	return v;
}

/*
 * Steering in windows (docs/paths.md "Steering in windows";
 * model/steer_window.h): all pairs, or a pair list that would make a
 * host trace more than TRACE_MAX_FLOWS flows at once.  The base rounds
 * are drawn a window at a time, the window's pairs traced (each host
 * within TRACE_MAX_FLOWS flows a request, WIN_CHUNK pairs a request),
 * their maps learned and handed to the streamed packer, and the maps
 * dropped once their round is out.  What stays per pair is a slot: its
 * members, the traced ports taking them, its fallback.
 */
#define WIN_CHUNK 1024		/* pairs of one trace request (memory: their flows) */
#define WIN_WARN_MAX 20		/* fallbacks said one by one; the rest counted */
#define WIN_ENV "FABRICCTL_STEER_WINDOW"	/* tests: force windows of N base rounds */
#define WIN_FBS 24

enum { SLOT_SEEN = 1, SLOT_TRACED = 2, SLOT_STEERED = 4, SLOT_LOST = 8, SLOT_SWAP = 16 };

/*
 * 8 bytes a pair of the hosts (4096 hosts: 67 MB).  Of the b -> a ports
 * taking its member only the first is ever used (win_ports()), so the
 * slot keeps that one port, not its mask.
 */
struct win_slot {
	uint16_t ab, ba;		/* the members' paths (route_pair()'s indices, the round's order) */
	uint8_t ab_ports;		/* the traced a -> b ports (bit k) taking ab */
	uint8_t ba_k : 3;		/* the first traced b -> a port taking ba */
	uint8_t fb : 5;			/* fallback: index + 1 into fbs[] (WIN_FBS < 32) */
	uint8_t flags;
	uint8_t runs;			/* tests started, mod 256 */
};
_Static_assert(sizeof(struct win_slot) == 8, "the slot size docs/paths.md gives");
_Static_assert(WIN_FBS < 32 && STEER_PORTS <= 8, "fb and ba_k fit their bits");

struct steer_win_state {
	struct steer_window *w;
	struct sched_src base;		/* the spread model's rounds */
	struct sched_topo_gen *gen;	/* all pairs */
	struct sched sched;		/* a pair list's */
	struct win_slot *slot;		/* per pair of the hosts (triangular index) */
	size_t n_hosts;
	struct {
		const char *name;
		bool traced;
	} fbs[WIN_FBS];
	size_t n_fbs;
	struct sched_pair *rp;		/* the round being handed out */
	uint32_t *rch;
	struct steer_win_pick *rpk;
	size_t warned, unsaid;
	unsigned int win_rounds;
	size_t windows;			/* learn() calls so far */
	struct pair_route taken;	/* sweep_steer_route()'s, on demand */
	struct node_addr_index ix;
	struct sweep_ctx *ctx;
	struct sweep_topo *st;
	struct fleet *f;
};

static void win_free(struct steer_win_state *ws)
{
	if (!ws)
		return;
	steer_window_free(ws->w);
	sched_topo_gen_free(ws->gen);
	sched_fini(&ws->sched);
	free(ws->slot);
	free(ws->rp);
	free(ws->rch);
	free(ws->rpk);
	pair_route_fini(&ws->taken);
	node_addr_index_fini(&ws->ix);
	free(ws);
}

/* Pair (a, b)'s slot (either order); *@swap: asked in the other order than its round's. */
static struct win_slot *win_slot(const struct steer_win_state *ws, unsigned int a, unsigned int b,
				 bool *swap)
{
	size_t n = ws ? ws->n_hosts : 0, lo = a < b ? a : b, hi = a < b ? b : a;
	struct win_slot *s;

	*swap = false;
	if (!ws || a == b || hi >= n)
		return NULL;
	s = &ws->slot[lo * (2 * n - lo - 1) / 2 + (hi - lo - 1)];
	*swap = !!(s->flags & SLOT_SWAP) != (a > b);
	return s->flags & SLOT_SEEN ? s : NULL;
}

/* A fallback's code (1..WIN_FBS), its name kept. */
static uint8_t win_fb(struct steer_win_state *ws, const char *name, bool traced)
{
	size_t i = 0;

	while (i < ws->n_fbs && strcmp(ws->fbs[i].name, name))
		i++;
	if (i == ws->n_fbs && ws->n_fbs < WIN_FBS) {
		ws->fbs[i].name = name;
		ws->fbs[i].traced = traced;
		ws->n_fbs++;
	}
	return (uint8_t)(i < ws->n_fbs ? i + 1 : ws->n_fbs);
}

/* The @nth (from 0) port of mask @m; -1 none. */
static int mask_nth(unsigned int m, unsigned int nth)
{
	for (int k = 0; k < STEER_PORTS; k++)
		if (m >> k & 1 && !nth--)
			return k;
	return -1;
}

static unsigned int mask_count(unsigned int m)
{
	return (unsigned int)__builtin_popcount(m);
}

/* The a -> b port of run @run of a steered slot (turned over, tcp), and its b -> a port. */
static void win_ports(const struct sweep_steer *sv, const struct win_slot *s, unsigned int run,
		      int *k, int *j)
{
	unsigned int c = mask_count(s->ab_ports);

	*k = mask_nth(s->ab_ports, steer_tuple_turns(&sv->tu) && c ? run % c : 0);
	*j = s->flags & SLOT_STEERED ? (int)s->ba_k : -1;
}

/* trace_opts() for pairs [lo, hi) of @pairs (RoCE v2: up to the longest path's last switch). */
static int win_trace_opts(const struct sweep_steer *sv, const struct sched_pair *pairs, size_t lo,
			  size_t hi, struct trace_opts *o)
{
	struct steer_win_state *ws = sv->win;
	struct route_info info;
	size_t last = 0;
	int rc = 0;

	*o = (struct trace_opts)TRACE_OPTS_DEFAULT;
	for (size_t i = lo; sv->tu.kind == STEER_ROCE && rc == 0 && i < hi; i++) {
		double mbps;
		unsigned int klass;

		/* every path of a pair has info.hops links: no need to enumerate them */
		rc = route_pair_info(ws->st->r, pairs[i].a, pairs[i].b, &info, &mbps, &klass);
		if (rc < 0) {
			rc = fab_err_set(&ws->ctx->err, rc, "route: pair %u-%u", pairs[i].a, pairs[i].b);
			break;
		}
		last = info.hops - 1 > last ? info.hops - 1 : last;
	}
	if (last >= 2 && last < o->max_ttl)
		o->max_ttl = (unsigned int)last;
	return rc;
}

/* Trace pairs [lo, hi) of @pairs (one request), learn their maps into @out. */
static int win_learn_chunk(struct sweep_steer *sv, const struct sched_pair *pairs, size_t lo,
			   size_t hi, struct steer_win_map *out)
{
	struct steer_win_state *ws = sv->win;
	struct sweep_topo *st = ws->st;
	const struct fab_hosts *hs = st->hosts;
	size_t nh = hs->n, *n = calloc(nh + 1, sizeof(*n)), *at = calloc(nh + 1, sizeof(*at));
	struct flow_trace **tr = calloc(nh + 1, sizeof(*tr));
	bool *got = calloc(nh + 1, sizeof(*got));
	struct trace_opts o;
	struct steer_pair *p = calloc(1, sizeof(*p));
	int rc = win_trace_opts(sv, pairs, lo, hi, &o);

	if (rc == 0 && (!n || !at || !tr || !got || !p))
		rc = fab_err_set(&ws->ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = lo; rc == 0 && i < hi; i++) {
		n[pairs[i].a] += STEER_PORTS;
		n[pairs[i].b] += STEER_PORTS;
	}
	for (size_t h = 0; rc == 0 && h < nh; h++) {
		if (n[h] > TRACE_MAX_FLOWS)
			rc = fab_err_set(&ws->ctx->err, -E2BIG, "host %s would trace "
					 "%zu flows in one window", hs->hosts[h].name, n[h]);
		else if (!(tr[h] = calloc(n[h] + 1, sizeof(**tr))))
			rc = fab_err_set(&ws->ctx->err, -ENOMEM, "sweep: out of memory");
	}
	for (size_t i = lo; rc == 0 && i < hi; i++) {
		pair_reset(p, (struct steer_pair){ .a = pairs[i].a, .b = pairs[i].b });
		for (unsigned int k = 0; k < STEER_PORTS; k++)
			pair_flows(sv, hs, p, k, k, &tr[p->a][at[p->a]++].flow,
				   &tr[p->b][at[p->b]++].flow);
	}
	if (rc == 0 &&
	    (rc = steer_trace(st, ws->f, tr, at, &o, SWEEP_STEER_TIMEOUT_MS, got, &ws->ctx->err)) < 0) {
		if (!ws->ctx->err.code)
			fab_err_set(&ws->ctx->err, rc, "%s", strerror(-rc));
		fab_err_prefix(&ws->ctx->err, "the trace request of %zu pair%s (%s %s first)", hi - lo,
			       hi - lo == 1 ? "" : "s", hs->hosts[pairs[lo].a].name,
			       hs->hosts[pairs[lo].b].name);
	}
	memset(at, 0, (nh + 1) * sizeof(*at));
	for (size_t i = lo; rc == 0 && i < hi; i++) {
		struct steer_win_map *m = &out[i];

		pair_reset(p, (struct steer_pair){ .a = pairs[i].a, .b = pairs[i].b, .cross = true,
						   .choice = SCHED_STEER_WHOLE, .rix = st->r });
		if (!got[p->a] || !got[p->b]) {
			p->fb = "no answer";
			why_set(p, "not traced: the worker of %s did not answer",
				hs->hosts[got[p->a] ? p->b : p->a].name);
		} else if (pair_learn(sv, st, &ws->ix, p, &tr[p->a][at[p->a]], &tr[p->b][at[p->b]]) < 0) {
			rc = fab_err_set(&ws->ctx->err, -ENOMEM, "sweep: out of memory");
		}
		if (rc < 0)
			fab_err_prefix(&ws->ctx->err, "%s %s", hs->hosts[p->a].name,
				       hs->hosts[p->b].name);
		at[p->a] += STEER_PORTS;
		at[p->b] += STEER_PORTS;
		for (unsigned int k = 0; k < STEER_PORTS; k++) {
			m->ab_of[k] = (int16_t)(p->fb ? -1 : p->ab_of[k]);
			m->ba_of[k] = (int16_t)(p->fb ? -1 : p->ba_of[k]);
		}
		m->fb = p->fb ? win_fb(ws, p->fb, p->traced) : 0;
		if (p->fb && ws->warned++ < WIN_WARN_MAX)
			fab_warn("sweep --steer: %s %s: whole ECMP set: %s", hs->hosts[p->a].name,
				 hs->hosts[p->b].name, why_of(p, p->fb));
		else if (p->fb)
			ws->unsaid++;
	}
	for (size_t h = 0; tr && h < nh; h++) {
		for (size_t k = 0; tr[h] && k < n[h]; k++)
			flow_trace_fini(&tr[h][k]);
		free(tr[h]);
	}
	if (p)
		pair_reset(p, (struct steer_pair){ 0 });
	free(p);
	free(tr);
	free(n);
	free(at);
	free(got);
	return rc;
}

/*
 * steer_window's learn(): a window's cross-leaf pairs, WIN_CHUNK pairs a
 * trace request.  A failure stops the sweep: its message (ctx->err, kept
 * by win_round() and sweep_run_src()) says the window, the pairs of the
 * trace request or the pair, and the cause (naming the host where the
 * cause is one host's).
 */
static int win_learn(void *ctx, const struct sched_pair *pairs, size_t n, struct steer_win_map *out)
{
	struct sweep_steer *sv = ctx;
	struct steer_win_state *ws = sv->win;
	int rc = 0;

	ws->windows++;
	fab_info("sweep --steer: tracing %zu pairs of the next %u base rounds", n, ws->win_rounds);
	for (size_t lo = 0; rc == 0 && lo < n; lo += WIN_CHUNK)
		rc = win_learn_chunk(sv, pairs, lo, lo + WIN_CHUNK < n ? lo + WIN_CHUNK : n, out);
	if (rc < 0) {
		if (!ws->ctx->err.code)
			fab_err_set(&ws->ctx->err, rc, "%s", strerror(-rc));
		fab_err_prefix(&ws->ctx->err, "sweep --steer: window %zu (from base round %zu)",
			       ws->windows, (ws->windows - 1) * ws->win_rounds + 1);
	}
	return rc;
}

/* The base rounds of all pairs: the spread model's (ecmp_whole false while drawn). */
static int win_gen_next(struct sched_src *src, struct sched_pair *buf, size_t *n)
{
	struct sweep_steer *sv = src->impl;
	struct route *r = sv->win->st->r;
	bool whole = r->ecmp_whole;
	int rc;

	r->ecmp_whole = false;
	rc = sched_topo_gen_next(sv->win->gen, buf, n);
	r->ecmp_whole = whole;
	return rc;
}

static void win_say(const struct sweep_steer *sv, unsigned int a, unsigned int b,
		    const struct win_slot *s)
{
	const struct pair_route *taken = win_route(sv, a, b);
	const struct fab_hosts *hs = sv->win->st->hosts;
	char la[300], lb[300];
	int k, j;

	if (!taken || !taken->n_ab || !taken->n_ba)
		return;
	win_ports(sv, s, 0, &k, &j);
	member_text(sv->win->st->t, &taken->ab[0], la, sizeof(la));
	member_text(sv->win->st->t, &taken->ba[0], lb, sizeof(lb));
	if (sv->tu.kind == STEER_ROCE)
		fab_info("steer %s %s: udp port %u -> %u via %s; back %u -> %u via %s",
			 hs->hosts[a].name, hs->hosts[b].name, port_fwd(sv, (unsigned int)k),
			 port_listen(sv), la, port_rev(sv, (unsigned int)j), port_listen(sv), lb);
	else
		fab_info("steer %s %s: port %u -> %u via %s; back %u -> %u via %s",
			 hs->hosts[a].name, hs->hosts[b].name, port_fwd(sv, (unsigned int)k),
			 port_listen(sv), la, port_listen(sv), port_rev(sv, (unsigned int)j), lb);
}

/* The sweep's rounds: the next steered round, each pair's slot filled. */
static int win_round(struct sched_src *src, struct sched_pair *buf, size_t *n)
{
	struct sweep_steer *sv = src->impl;
	struct steer_win_state *ws = sv->win;
	int rc = steer_window_next(ws->w, buf, ws->rch, ws->rpk, n);

	if (rc < 0 && !ws->ctx->err.code)
		fab_err_set(&ws->ctx->err, rc, "sweep --steer: steered rounds: %s", strerror(-rc));
	for (size_t i = 0; rc > 0 && i < *n; i++) {
		const struct steer_win_pick *pk = &ws->rpk[i];
		unsigned int a = buf[i].a, b = buf[i].b;
		size_t lo = a < b ? a : b, hi = a < b ? b : a, nn = ws->n_hosts;
		struct win_slot *s = &ws->slot[lo * (2 * nn - lo - 1) / 2 + (hi - lo - 1)];

		*s = (struct win_slot){ .ab = pk->ab, .ba = pk->ba, .ab_ports = pk->ab_ports,
					.ba_k = (uint8_t)(pk->ba_ports ? __builtin_ctz(pk->ba_ports) & 7 : 0),
					.fb = (uint8_t)(pk->fb & 31),
					.flags = (uint8_t)(SLOT_SEEN | (a > b ? SLOT_SWAP : 0) |
							   (pk->steered ? SLOT_STEERED | SLOT_TRACED : 0)) };
		if (!pk->steered && pk->fb && pk->fb <= ws->n_fbs && ws->fbs[pk->fb - 1].traced)
			s->flags |= SLOT_TRACED;
		if (pk->steered && fab_log_level >= 1)	/* as routes_say() says it */
			win_say(sv, a, b, s);
	}
	if (rc > 0)
		src->r++;
	return rc;
}

/* Most pairs of one host, or ceil(pairs / floor(hosts / 2)): the node bound of @s's pairs. */
static size_t win_node_bound(const struct sched *s, const struct sched_src *src, size_t nh)
{
	size_t *deg, per;

	if (src->s != s || s->n_pairs == nh * (nh - 1) / 2)
		return nh % 2 ? nh : nh - 1;
	deg = calloc(nh + 1, sizeof(*deg));
	if (!deg)
		return 0;
	for (size_t i = 0; i < s->n_pairs; i++) {
		deg[s->pairs[i].a]++;
		deg[s->pairs[i].b]++;
	}
	per = sched_node_bound(deg, nh, s->n_pairs);
	free(deg);
	return per;
}

/*
 * Windows or not: 1 (*@rounds base rounds a window), 0 the explicit way
 * (every pair traced before the first round), -errno (a bad WIN_ENV).
 */
static int win_choose(struct sweep_ctx *ctx, const struct sweep_topo *st, const struct sched *s,
		      const struct sched_src *src, unsigned int *rounds)
{
	const char *env = getenv(WIN_ENV);
	unsigned int most = TRACE_MAX_FLOWS / STEER_PORTS;
	size_t *n;
	bool over = false;

	*rounds = most;
	if (env && *env) {
		char *end;
		unsigned long v = strtoul(env, &end, 10);

		if (*end || !v || v > most)
			return fab_err_input(&ctx->err, -EINVAL, "sweep --steer: %s=%s: not a number "
					     "of base rounds from 1 to %u", WIN_ENV, env, most);
		*rounds = (unsigned int)v;
		return 1;
	}
	if (src->s != s)
		return 1;
	if (!(n = calloc(st->r->n_hosts + 1, sizeof(*n))))
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < s->n_pairs && !over; i++)
		if (st->r->hosts[s->pairs[i].a].leaf != st->r->hosts[s->pairs[i].b].leaf)
			over = ++n[s->pairs[i].a] > most || ++n[s->pairs[i].b] > most;
	free(n);
	return over;
}

/* Steering in windows set up: @src then yields the steered rounds. */
static int win_start(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
		     struct sweep_steer *sv, struct sched *s, struct sched_src *src,
		     unsigned int rounds)
{
	struct steer_win_state *ws = calloc(1, sizeof(*ws));
	struct route *r = st->r;
	size_t nh = r->n_hosts, room = nh / 2 + 1, n_pairs = src->n_pairs, bound;
	bool all = n_pairs == nh * (nh - 1) / 2, whole = r->ecmp_whole;
	struct steer_win_ops ops = { .learn = win_learn, .ctx = sv };
	struct sched_topo_bound b;
	int rc = 0;

	if (!ws)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	sv->win = ws;
	*ws = (struct steer_win_state){ .n_hosts = nh, .win_rounds = rounds, .ctx = ctx, .st = st,
					.f = f };
	sched_init(&ws->sched);
	ws->slot = calloc(nh * (nh - 1) / 2 + 1, sizeof(*ws->slot));
	ws->rp = calloc(room, sizeof(*ws->rp));
	ws->rch = calloc(room, sizeof(*ws->rch));
	ws->rpk = calloc(room, sizeof(*ws->rpk));
	if (!ws->slot || !ws->rp || !ws->rch || !ws->rpk || node_addr_index_build(&ws->ix, st->t) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	ops.no_fit = win_fb(ws, "no fit", true);
	r->ecmp_whole = false;
	if (all)
		rc = sched_topo_gen_new(&ws->gen, r, &ctx->err);
	else
		rc = sched_topo_pairs(&ws->sched, &b, r, s->pairs, s->n_pairs, &ctx->err);
	r->ecmp_whole = whole;
	if (rc < 0)
		return rc;
	if (all)
		ws->base = (struct sched_src){ .next = win_gen_next, .impl = sv, .max_round = nh / 2,
					       .n_pairs = n_pairs };
	else
		sched_src_explicit(&ws->base, &ws->sched);
	rc = steer_window_new(&ws->w, r, &ws->base, STEER_PORTS,
			      (size_t)rounds * STEER_PORTS, &ops);
	if (rc < 0)
		return fab_err_set(&ctx->err, rc, "sweep --steer: %s", strerror(-rc));
	bound = win_node_bound(s, src, nh);
	sv->view.rounds_whole = src->n_rounds;
	sv->view.windows = rounds;
	sched_src_fini(src);
	*src = (struct sched_src){ .next = win_round, .impl = sv, .n_rounds = bound,
				   .n_pairs = n_pairs, .max_round = nh / 2 };
	st->bound = (struct sched_topo_bound){ .node = bound, .bound = bound,
					       .link_at = ROUTE_NONE };
	fab_info("sweep --steer: %zu pairs steered in windows: the pairs of %u base rounds traced "
		 "at a time (each host at most %u flows a trace request), rounds packed on their "
		 "members as the sweep goes (whole sets: %zu rounds; node bound %zu)", n_pairs,
		 rounds, rounds * STEER_PORTS, sv->view.rounds_whole, bound);
	return 0;
}

static void win_pair_spec(struct sweep_steer *sv, size_t a, size_t b, struct tp_spec *spec)
{
	bool swap;
	struct win_slot *s = win_slot(sv->win, (unsigned int)a, (unsigned int)b, &swap);
	int k, j;

	if (!s || swap || !(s->flags & SLOT_STEERED) || s->flags & SLOT_LOST)
		return;
	win_ports(sv, s, s->runs, &k, &j);
	s->runs++;
	if (k < 0 || j < 0)
		return;
	if (sv->tu.kind == STEER_TCP)
		spec->port = port_listen(sv);
	spec->sport_fwd = port_fwd(sv, (unsigned int)k);
	spec->sport_rev = port_rev(sv, (unsigned int)j);
}

/* A steered slot's last test's ports; false: not steered, not run, lost, asked reversed. */
static bool win_last(const struct sweep_steer *sv, const struct win_slot *s, bool swap, int *k,
		     int *j)
{
	if (!s || swap || !(s->flags & SLOT_STEERED) || s->flags & SLOT_LOST || !s->runs)
		return false;
	win_ports(sv, s, (unsigned int)s->runs - 1, k, j);
	return *k >= 0 && *j >= 0;
}

static void win_sports(struct sweep_steer *sv, unsigned int a, unsigned int b, uint16_t got_ab,
		       uint16_t got_ba)
{
	struct steer_win_state *ws = sv->win;
	bool swap;
	struct win_slot *s = win_slot(ws, a, b, &swap);
	uint16_t want_ab, want_ba;
	int k, j;

	if (sv->tu.kind != STEER_ROCE || !win_last(sv, s, swap, &k, &j))
		return;
	want_ab = port_fwd(sv, (unsigned int)k);
	want_ba = port_rev(sv, (unsigned int)j);
	if (!steer_tuple_moved(want_ab, want_ba, got_ab, got_ba))
		return;
	s->flags |= SLOT_LOST;
	s->fb = win_fb(ws, "moved", true);
	fab_warn("sweep --steer: %s %s: its QPs recorded UDP ports %u (a -> b) and %u "
		 "(b -> a), not the ports planned %u and %u (a worker that does not steer by "
		 "flow label?): the path its test took is not known; whole ECMP set",
		 ws->st->hosts->hosts[a].name, ws->st->hosts->hosts[b].name, got_ab, got_ba,
		 want_ab, want_ba);
}

/* The steered pairs not ok of @ab traced again, each host within TRACE_MAX_FLOWS a request. */
static int win_recheck(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
		       struct sweep_steer *sv, const unsigned int (*ab)[2], size_t n)
{
	struct steer_win_state *ws = sv->win;
	size_t nh = st->hosts->n, *cnt = calloc(nh + 1, sizeof(*cnt)), np = 0, done = 0;
	struct flow_trace **tr = calloc(nh + 1, sizeof(*tr));
	size_t *at = calloc(nh + 1, sizeof(*at));
	unsigned int (*ps)[2] = calloc(n + 1, sizeof(*ps));
	bool *got = calloc(nh + 1, sizeof(*got));
	struct steer_pair *p = calloc(1, sizeof(*p));
	struct trace_opts o = TRACE_OPTS_DEFAULT;
	int rc = 0;

	if (!cnt || !tr || !at || !ps || !got || !p)
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; rc == 0 && i < n; i++) {
		bool swap;
		const struct win_slot *s = win_slot(ws, ab[i][0], ab[i][1], &swap);
		int k, j;

		if (win_last(sv, s, swap, &k, &j)) {
			ps[np][0] = ab[i][0];
			ps[np++][1] = ab[i][1];
		}
	}
	if (rc == 0 && np)
		fab_info("sweep --steer: re-tracing the %zu steered pair%s not ok, the tuples of "
			 "their last tests", np, np == 1 ? "" : "s");
	for (size_t h = 0; rc == 0 && np && h < nh; h++)
		if (!(tr[h] = calloc(TRACE_MAX_FLOWS + 1, sizeof(**tr))))
			rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	while (rc == 0 && done < np) {
		size_t lo = done;

		memset(at, 0, (nh + 1) * sizeof(*at));
		/* a request: pairs in order while both hosts have room */
		for (; done < np && at[ps[done][0]] < TRACE_MAX_FLOWS &&
		       at[ps[done][1]] < TRACE_MAX_FLOWS; done++) {
			bool swap;
			struct win_slot *s = win_slot(ws, ps[done][0], ps[done][1], &swap);
			int k, j;

			win_last(sv, s, swap, &k, &j);
			pair_reset(p, (struct steer_pair){ .a = ps[done][0], .b = ps[done][1] });
			pair_flows(sv, st->hosts, p, (unsigned int)k, (unsigned int)j,
				   &tr[p->a][at[p->a]++].flow, &tr[p->b][at[p->b]++].flow);
		}
		rc = steer_trace(st, f, tr, at, &o, SWEEP_STEER_TIMEOUT_MS, got, &ctx->err);
		memset(at, 0, (nh + 1) * sizeof(*at));
		for (size_t i = lo; rc == 0 && i < done; i++) {
			bool swap;
			struct win_slot *s = win_slot(ws, ps[i][0], ps[i][1], &swap);
			struct flow_trace *ta = &tr[ps[i][0]][at[ps[i][0]]++];
			struct flow_trace *tb = &tr[ps[i][1]][at[ps[i][1]]++];
			int k, j;

			win_last(sv, s, swap, &k, &j);
			pair_reset(p, (struct steer_pair){ .a = ps[i][0], .b = ps[i][1], .cross = true,
							   .choice = 0, .n_opts = 1,
							   .last_k = (unsigned int)k,
							   .last_j = (unsigned int)j, .rix = st->r });
			if (opts_alloc(p, 1) < 0) {
				rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
				break;
			}
			p->rev[0] = 0;
			p->opts[0] = (struct sched_steer_opt){ .sport = port_fwd(sv, (unsigned int)k),
							       .ab = s->ab, .ba = s->ba };
			if (!got[p->a] || !got[p->b])
				fab_info("steer %s %s: not re-traced (a worker did not answer); kept "
					 "as planned", st->hosts->hosts[p->a].name,
					 st->hosts->hosts[p->b].name);
			else if (recheck_pair(sv, st, &ws->ix, p, ta, tb) < 0)
				rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
			if (rc == 0 && p->lost) {
				s->flags |= SLOT_LOST;
				s->fb = win_fb(ws, "moved", true);
			}
		}
		for (size_t h = 0; h < nh; h++)
			for (size_t k = 0; k < at[h]; k++)
				flow_trace_fini(&tr[h][k]);
		memset(at, 0, (nh + 1) * sizeof(*at));
	}
	for (size_t h = 0; tr && h < nh; h++)
		free(tr[h]);
	free(tr);
	free(cnt);
	free(at);
	free(ps);
	free(got);
	if (p)
		pair_reset(p, (struct steer_pair){ 0 });
	free(p);
	return rc;
}

/* The route a steered slot's test took (valid until the next call), or NULL. */
static const struct pair_route *win_route(const struct sweep_steer *sv, unsigned int a,
					  unsigned int b)
{
	struct steer_win_state *ws = sv->win;
	bool swap;
	const struct win_slot *s = win_slot(ws, a, b, &swap);
	unsigned int sa = swap ? b : a, sb = swap ? a : b;

	if (!s || !(s->flags & SLOT_STEERED) || s->flags & SLOT_LOST)
		return NULL;
	pair_route_fini(&ws->taken);
	/* the two paths alone (route_pair_pick): the pair's others are not enumerated */
	if (route_pair_pick(ws->st->r, sa, sb, s->ab, s->ba, &ws->taken) < 0)
		return NULL;
	if (swap) {
		struct path *x = ws->taken.ab;
		size_t nx = ws->taken.n_ab;

		ws->taken.ab = ws->taken.ba;
		ws->taken.n_ab = ws->taken.n_ba;
		ws->taken.ba = x;
		ws->taken.n_ba = nx;
		ws->taken.a = a;
		ws->taken.b = b;
	}
	return &ws->taken;
}

static void win_fact(const struct sweep_steer *sv, unsigned int a, unsigned int b,
		     struct sweep_steer_fact *out)
{
	const struct steer_win_state *ws = sv->win;
	bool swap, cross;
	const struct win_slot *s = win_slot(ws, a, b, &swap);
	const struct pair_route *taken;

	*out = (struct sweep_steer_fact){ 0 };
	if (!s) {
		out->fallback = "not planned";
		return;
	}
	cross = ws->st->r->hosts[a].leaf != ws->st->r->hosts[b].leaf;
	taken = win_route(sv, a, b);
	out->traced = !!(s->flags & SLOT_TRACED);
	out->steered = taken && taken->n_ab && taken->n_ba;
	out->ab = out->steered ? &taken->ab[0] : NULL;
	out->ba = out->steered ? &taken->ba[0] : NULL;
	out->fallback = out->steered || !cross ? NULL
			: s->fb && s->fb <= ws->n_fbs ? ws->fbs[s->fb - 1].name : "no fit";
}

/* The view's counts over the slots. */
static void win_view(struct sweep_steer *sv, struct sweep_steer_view *v)
{
	struct steer_win_state *ws = sv->win;
	size_t nh = ws->n_hosts;

	if (ws->unsaid) {
		fab_warn("sweep --steer: %zu more pairs on whole ECMP sets (the first %d said above)",
			 ws->unsaid, WIN_WARN_MAX);
		ws->unsaid = 0;
	}
	for (unsigned int a = 0; a < nh; a++)
		for (unsigned int b = a + 1; b < nh; b++) {
			const struct win_slot *s = &ws->slot[(size_t)a * (2 * nh - a - 1) / 2 +
							     (b - a - 1)];
			bool steered = (s->flags & SLOT_STEERED) && !(s->flags & SLOT_LOST);

			if (!(s->flags & SLOT_SEEN) ||
			    ws->st->r->hosts[a].leaf == ws->st->r->hosts[b].leaf)
				continue;
			if (steered) {
				v->steered++;
			} else {
				v->fallback++;
				why_count(v, s->fb && s->fb <= ws->n_fbs ? ws->fbs[s->fb - 1].name
									 : "no fit");
			}
		}
}
