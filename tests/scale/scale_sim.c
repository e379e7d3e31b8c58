// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scale harness (tests/bench/scale.sh, docs/scale.md): a coverage sweep of
 * a simulated fabric, in one process, through the real model code.
 *
 *   scale_sim PODS LEAVES_PER_POD HOSTS_PER_LEAF AGGS CORES_PER_AGG [-k K] [-s SEED]
 *
 *  1. fabric: topo_gen_fat_tree() (every link 100 Gb/s), hosts h1..hN,
 *     route_new/route_place/route_rates;
 *  2. faults: 5 distinct links drawn with SEED: one spine uplink (an
 *     aggregation switch's cable to a spine), one host access link, three
 *     of any kind; each carries 20 % of its rated rate;
 *  3. pairs: coverage_pick() (model/coverage.h), K crossings per link;
 *  4. rounds: sched_topo_pairs() (model/sched_topo.h), timed;
 *  5. measurement, round by round: each pair's rate is the lowest simulated
 *     rate of the links it crosses (route_pair_loads: both access links and
 *     every link of its ECMP set), less up to 3 % seeded noise; rounds are
 *     link-safe, so nothing is divided between pairs;
 *  6. verdicts: sweep_ref_compute() and sweep_pair_judge_expected() against
 *     the rated expectation of route_pair_info() (model/sweep_judge.h);
 *  7. suspects: loc_localize() (model/localize.h) over every pair.  The
 *     routes it reads are the pairs' ECMP loads, one path per share value,
 *     shared by every pair of one leaf pair; the access links come from
 *     host_link (the localiser adds them to every pair itself); routes are
 *     symmetric, so ba is left empty (the localiser takes the larger share
 *     of either direction); equal hop lists are stored once (a pod's
 *     spine uplinks appear in every leaf pair leaving the pod).  Same
 *     crossings and weights as the enumerated paths, without 256 paths x
 *     6 hops per pair.
 *
 * Prints one line of key=value figures, then one line per fault: where it
 * stands among the suspects (named: a top-5 suspect that is that link
 * alone; grouped: in a top-5 group of links traffic cannot tell apart).
 * Peak RSS is the process's (getrusage), so run one size per process.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "model/coverage.h"
#include "model/localize.h"
#include "model/sched_topo.h"
#include "model/sweep_judge.h"
#include "model/topo_gen.h"

#define N_FAULTS 5
#define FAULT_RATE 0.2
#define TOP 5

struct sim {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	unsigned int k;
	uint64_t seed;
	uint32_t faults[N_FAULTS];
	double *rate;			/* per link: simulated Mb/s */
	struct coverage cov;
	struct sched sc;
	struct sched_topo_bound bound;
	struct sweep_pair *res;		/* per scheduled pair */
	struct pair_route *routes;	/* per scheduled pair, paths shared per leaf pair */
	struct path **shared;		/* owned path arrays, one per leaf pair met */
	size_t *shared_n;		/* their lengths */
	size_t n_shared;
	struct hop_slot *pool;		/* interned hop lists (owned) */
	size_t pool_cap, pool_n;
};

struct hop_slot {
	uint64_t hash;
	size_t n;
	struct path_hop *hops;		/* NULL: empty slot */
};

/* CPU seconds of this process: on a shared machine wall time includes waiting for a core. */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double peak_rss_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

static int die(const char *what, int rc, const struct fab_err *err)
{
	fprintf(stderr, "scale_sim: %s: %s\n", what, err && err->msg[0] ? err->msg : strerror(-rc));
	return 3;
}

static int fabric_up(struct sim *s, const struct topo_gen_3l *g, struct fab_err *err)
{
	size_t n = (size_t)g->pods * g->leaves_per_pod * g->hosts_per_leaf, len = 0;
	char *text = malloc(n * 40 + 1);
	int rc;

	if (!text)
		return -ENOMEM;
	if ((rc = topo_gen_fat_tree(&s->t, g)) < 0) {
		free(text);
		return rc;
	}
	for (size_t i = 1; i <= n; i++)
		len += (size_t)sprintf(text + len, "h%zu 10.%zu.%zu.%zu\n", i, i / 65536, i / 256 % 256,
				       i % 256);
	hosts_init(&s->hs);
	rc = hosts_parse(&s->hs, text, len, "generated", err);
	free(text);
	if (rc < 0 || (rc = route_new(&s->r, s->t)) < 0 || (rc = route_place(s->r, &s->hs, err)) < 0)
		return rc;
	route_rates(s->r, &s->hs, NULL, NULL);
	return 0;
}

static bool is_spine_uplink(const struct topo_link *l)
{
	const char *a = l->a->node->name, *b = l->b->node->name;

	return (!strncmp(a, "agg", 3) && !strncmp(b, "spine", 5)) ||
	       (!strncmp(b, "agg", 3) && !strncmp(a, "spine", 5));
}

static bool is_access(const struct topo_link *l)
{
	return l->a->node->type == TOPO_NODE_HOST || l->b->node->type == TOPO_NODE_HOST;
}

/* Fault i: 0 a spine uplink, 1 an access link, others any link; all distinct. */
static int faults_pick(struct sim *s)
{
	size_t nl = s->t->n_links;

	s->rate = malloc(nl * sizeof(*s->rate));
	if (!s->rate)
		return -ENOMEM;
	for (size_t l = 0; l < nl; l++)
		s->rate[l] = s->r->link_mbps[l];
	for (int i = 0; i < N_FAULTS; i++) {
		for (;;) {
			uint32_t l = rnd(&s->seed) % (uint32_t)nl;
			bool dup = false;

			for (int j = 0; j < i; j++)
				dup |= s->faults[j] == l;
			if (dup || (i == 0 && !is_spine_uplink(s->t->links[l])) ||
			    (i == 1 && !is_access(s->t->links[l])))
				continue;
			s->faults[i] = l;
			s->rate[l] *= FAULT_RATE;
			break;
		}
	}
	return 0;
}

/* The lowest simulated rate over the pair's links, with seeded noise. */
static int measure(struct sim *s, unsigned int a, unsigned int b, unsigned int round,
		   struct sweep_pair *p)
{
	const struct route_load *items;
	struct route_info info;
	double low = INFINITY, got, expected;
	unsigned int klass;
	size_t n;
	int rc;

	if ((rc = route_pair_loads(s->r, a, b, &items, &n, &info)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++)
		low = fmin(low, s->rate[items[i].link]);
	if ((rc = route_pair_info(s->r, a, b, &info, &expected, &klass)) < 0)
		return rc;
	got = low * (1.0 - 0.03 * (double)(rnd(&s->seed) % 1000) / 1000.0);
	memset(p, 0, sizeof(*p));
	p->a = a;
	p->b = b;
	p->round = round;
	p->status = SWEEP_OK;
	p->ab = (struct sweep_bw){ .measured = true, .avg_mbps = got, .min_mbps = got * 0.99,
				   .bytes = (uint64_t)(got * 1e6 / 8), .secs = 1, .intervals = 10 };
	p->ba = p->ab;
	p->expected_mbps = expected;
	p->expect_src = SWEEP_EXPECT_RATED;
	p->klass = klass;
	p->pct_rated = -1;
	p->test_s = 1;
	return 0;
}

static int sweep_run(struct sim *s)
{
	struct sweep_cfg cfg;
	struct sweep_ref ref;
	int rc;

	s->res = calloc(s->sc.n_pairs ? s->sc.n_pairs : 1, sizeof(*s->res));
	if (!s->res)
		return -ENOMEM;
	for (size_t rd = 0; rd < s->sc.n_rounds; rd++)
		for (size_t i = s->sc.round_start[rd]; i < s->sc.round_start[rd + 1]; i++)
			if ((rc = measure(s, s->sc.pairs[i].a, s->sc.pairs[i].b, (unsigned int)rd + 1,
					  &s->res[i])) < 0)
				return rc;
	sweep_cfg_default(&cfg);
	sweep_ref_compute(s->res, s->sc.n_pairs, &ref);
	for (size_t i = 0; i < s->sc.n_pairs; i++)
		sweep_pair_judge_expected(&s->res[i], s->res[i].expected_mbps, s->res[i].expect_src, &ref,
					  &cfg);
	return 0;
}

/* ---- routes for the localiser, one path set per leaf pair ---- */

static int share_cmp(const void *x, const void *y)
{
	const struct route_load *a = x, *b = y;

	if (a->share != b->share)
		return a->share < b->share ? -1 : 1;
	return a->link < b->link ? -1 : a->link > b->link;
}

/* The stored copy of hop list @v[0..n) (links), added when new; NULL on ENOMEM. */
static struct path_hop *hops_intern(struct sim *s, const struct route_load *v, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	size_t i;

	for (size_t j = 0; j < n; j++)
		h = (h ^ v[j].link) * 1099511628211ull;
	for (i = (size_t)h & (s->pool_cap - 1);; i = (i + 1) & (s->pool_cap - 1)) {
		struct hop_slot *e = &s->pool[i];
		bool same = e->hops && e->hash == h && e->n == n;

		for (size_t j = 0; same && j < n; j++)
			same = e->hops[j].link == v[j].link;
		if (same)
			return e->hops;
		if (!e->hops)
			break;
	}
	if (2 * ++s->pool_n > s->pool_cap)	/* sized for a few share values per leaf pair */
		return NULL;
	s->pool[i].hops = malloc((n ? n : 1) * sizeof(*s->pool[i].hops));
	if (!s->pool[i].hops)
		return NULL;
	for (size_t j = 0; j < n; j++)
		s->pool[i].hops[j] = (struct path_hop){ v[j].link, true };
	s->pool[i].hash = h;
	s->pool[i].n = n;
	return s->pool[i].hops;
}

/* One path per share value over the leaf pair's links; *n_out paths. */
static int leaf_paths(struct sim *s, uint32_t la, uint32_t lb, struct path **out, size_t *n_out)
{
	const struct route_load *items;
	struct route_info info;
	struct route_load *v;
	struct path *p;
	size_t n, np = 0;
	int rc;

	if ((rc = route_leaf_loads(s->r, la, lb, &items, &n, &info)) < 0)
		return rc;
	v = malloc((n ? n : 1) * sizeof(*v));
	p = calloc(n ? n : 1, sizeof(*p));
	if (!v || !p) {
		free(v);
		free(p);
		return -ENOMEM;
	}
	memcpy(v, items, n * sizeof(*v));
	qsort(v, n, sizeof(*v), share_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && v[j].share == v[i].share)
			j++;
		p[np].hops = hops_intern(s, v + i, j - i);
		if (!p[np].hops) {
			free(v);
			free(p);
			return -ENOMEM;
		}
		p[np].n_hops = j - i;
		p[np++].share = v[i].share;
		i = j;
	}
	free(v);
	*out = p;
	*n_out = np;
	return 0;
}

struct lp_slot {
	uint64_t key;			/* (la << 32 | lb) + 1, 0 empty */
	uint32_t idx;
	uint32_t n;
};

static int routes_build(struct sim *s)
{
	size_t np = s->sc.n_pairs, cap = 16;
	struct lp_slot *tab;
	int rc = 0;

	while (cap < 2 * np + 2)
		cap *= 2;
	s->pool_cap = 4 * cap;		/* a few share values per leaf pair */
	s->pool = calloc(s->pool_cap, sizeof(*s->pool));
	tab = calloc(cap, sizeof(*tab));
	s->routes = calloc(np ? np : 1, sizeof(*s->routes));
	s->shared = calloc(np ? np : 1, sizeof(*s->shared));
	s->shared_n = calloc(np ? np : 1, sizeof(*s->shared_n));
	if (!tab || !s->routes || !s->shared || !s->shared_n || !s->pool) {
		free(tab);
		return -ENOMEM;
	}
	for (size_t i = 0; i < np && rc == 0; i++) {
		const struct sweep_pair *p = &s->res[i];
		uint32_t la = s->r->hosts[p->a].leaf, lb = s->r->hosts[p->b].leaf;
		struct pair_route *pr = &s->routes[i];

		*pr = (struct pair_route){ .a = p->a, .b = p->b, .expected_mbps = p->expected_mbps,
					   .klass = p->klass };
		if (la == lb)
			continue;
		if (la > lb) {
			uint32_t t = la;

			la = lb;
			lb = t;
		}
		uint64_t key = ((uint64_t)la << 32 | lb) + 1;
		size_t h = (size_t)(key * 0x9e3779b97f4a7c15ull) & (cap - 1);

		while (tab[h].key && tab[h].key != key)
			h = (h + 1) & (cap - 1);
		if (!tab[h].key) {
			size_t n;

			rc = leaf_paths(s, la, lb, &s->shared[s->n_shared], &n);
			if (rc < 0)
				break;
			s->shared_n[s->n_shared] = n;
			tab[h] = (struct lp_slot){ key, (uint32_t)s->n_shared++, (uint32_t)n };
		}
		pr->ab = s->shared[tab[h].idx];
		pr->n_ab = tab[h].n;
	}
	free(tab);
	return rc;
}

static void routes_free(struct sim *s)
{
	for (size_t i = 0; i < s->n_shared; i++)
		free(s->shared[i]);
	for (size_t i = 0; i < s->pool_cap; i++)
		free(s->pool[i].hops);
	free(s->pool);
	free(s->shared);
	free(s->shared_n);
	free(s->routes);
}

/* ---- localisation ---- */

static enum loc_verdict verdict_of(const struct sweep_pair *p)
{
	return p->status == SWEEP_OK ? LOC_OK : p->status == SWEEP_SLOW ? LOC_SLOW : LOC_FAILED;
}

/* Rank (0-based) of the suspect holding @link, its kind and size; -1 when none. */
static int suspect_of(const struct loc_result *res, uint32_t link, enum loc_kind *kind, size_t *size)
{
	for (size_t i = 0; i < res->n_suspects; i++)
		for (size_t m = 0; m < res->suspects[i].n_members; m++)
			if (res->suspects[i].members[m].link == link) {
				*kind = res->suspects[i].kind;
				*size = res->suspects[i].n_members;
				return (int)i;
			}
	return -1;
}

static int localise(struct sim *s, struct loc_result *res, struct fab_err *err)
{
	size_t nh = s->r->n_hosts, np = s->sc.n_pairs;
	struct loc_pair *lp = calloc(np ? np : 1, sizeof(*lp));
	uint32_t *host_link = calloc(nh, sizeof(*host_link));
	const char **names = calloc(nh, sizeof(*names));
	struct loc_input in;
	int rc = -ENOMEM;

	if (!lp || !host_link || !names)
		goto out;
	for (size_t h = 0; h < nh; h++) {
		host_link[h] = s->r->hosts[h].link;
		names[h] = s->hs.hosts[h].name;
	}
	for (size_t i = 0; i < np; i++)
		lp[i] = (struct loc_pair){ .route = &s->routes[i], .verdict = verdict_of(&s->res[i]),
					   .pct_expected = s->res[i].pct_rated };
	in = (struct loc_input){ .topo = s->t, .host_link = host_link, .host_names = names,
				 .n_hosts = nh, .pairs = lp, .n_pairs = np };
	rc = loc_localize(&in, NULL, res, err);
	if (rc == 0) {
		for (size_t i = 0; i < res->n_suspects && i < TOP + 2; i++) {
			char text[200];

			loc_member_text(&in, &res->suspects[i].members[0], text, sizeof(text));
			printf("suspect %zu: %s of %zu, score %.2f, %u/%u bad pairs cross: %s%s\n", i + 1,
			       loc_kind_name(res->suspects[i].kind), res->suspects[i].n_members,
			       res->suspects[i].score, res->suspects[i].ev.cross_bad,
			       res->suspects[i].ev.cross_n, text,
			       res->suspects[i].n_members > 1 ? ", ..." : "");
		}
	}
out:
	free(lp);
	free(host_link);
	free(names);
	return rc;
}

/* ---- coverage check, independent of the picker's counters ---- */

static int cross_check(struct sim *s, uint32_t *min_cross, unsigned int *min_host)
{
	size_t nl = s->t->n_links, nh = s->r->n_hosts;
	uint32_t *c = calloc(nl, sizeof(*c));
	unsigned int *hp = calloc(nh, sizeof(*hp));
	int rc = 0;

	if (!c || !hp) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s->sc.n_pairs; i++) {
		const struct route_load *items;
		struct route_info info;
		size_t n;

		if ((rc = route_pair_loads(s->r, s->sc.pairs[i].a, s->sc.pairs[i].b, &items, &n,
					   &info)) < 0)
			goto out;
		for (size_t j = 0; j < n; j++)
			c[items[j].link]++;
		hp[s->sc.pairs[i].a]++;
		hp[s->sc.pairs[i].b]++;
	}
	*min_cross = UINT32_MAX;
	*min_host = UINT32_MAX;
	for (size_t l = 0; l < nl; l++)
		*min_cross = c[l] < *min_cross ? c[l] : *min_cross;
	for (size_t h = 0; h < nh; h++)
		*min_host = hp[h] < *min_host ? hp[h] : *min_host;
out:
	free(c);
	free(hp);
	return rc;
}

static void faults_report(struct sim *s, const struct loc_result *res, int *named, int *grouped)
{
	*named = *grouped = 0;
	for (int i = 0; i < N_FAULTS; i++) {
		const struct topo_link *l = s->t->links[s->faults[i]];
		enum loc_kind kind = LOC_KIND_LINK;
		size_t size = 0;
		int rank = suspect_of(res, s->faults[i], &kind, &size);
		bool top = rank >= 0 && rank < TOP;

		if (top && kind != LOC_KIND_GROUP)
			(*named)++;
		else if (top)
			(*grouped)++;
		printf("fault %d: %s %s <-> %s %s (%s): %s", i + 1, l->a->node->name, l->a->name,
		       l->b->node->name, l->b->name,
		       i == 0 ? "spine uplink" : is_access(l) ? "access link" : "link",
		       rank < 0 ? "not a suspect" : top ? "top-5 suspect" : "suspect below the top 5");
		if (rank >= 0)
			printf(" #%d, %s of %zu", rank + 1, loc_kind_name(kind), size);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	struct topo_gen_3l g = { .host_mbps = 100000, .leaf_mbps = 100000, .core_mbps = 100000 };
	struct sim s = { .k = 3, .seed = 15 };
	struct loc_result res = { 0 };
	struct fab_err err;
	double t0, t_cov, t_sched, t_meas, t_loc, m_cov, m_sched, m_meas;
	uint32_t min_cross;
	unsigned int min_host;
	int named, grouped, rc;
	size_t n;

	if (argc < 6) {
		fprintf(stderr, "usage: scale_sim PODS LEAVES HOSTS AGGS CORES [-k K] [-s SEED]\n");
		return 2;
	}
	g.pods = (unsigned int)atoi(argv[1]);
	g.leaves_per_pod = (unsigned int)atoi(argv[2]);
	g.hosts_per_leaf = (unsigned int)atoi(argv[3]);
	g.aggs_per_pod = (unsigned int)atoi(argv[4]);
	g.cores_per_agg = (unsigned int)atoi(argv[5]);
	for (int i = 6; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-k"))
			s.k = (unsigned int)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-s"))
			s.seed = strtoull(argv[i + 1], NULL, 0) * 2 + 1;
	}
	fab_err_init(&err);
	if ((rc = fabric_up(&s, &g, &err)) < 0)
		return die("fabric", rc, &err);
	if ((rc = faults_pick(&s)) < 0)
		return die("faults", rc, NULL);
	n = s.r->n_hosts;

	t0 = now_s();
	struct coverage_req req = { .k = s.k };

	if ((rc = coverage_pick(&s.cov, s.r, &req, &err)) < 0)
		return die("coverage", rc, &err);
	t_cov = now_s() - t0;
	m_cov = peak_rss_mb();
	t0 = now_s();
	if ((rc = sched_topo_pairs(&s.sc, &s.bound, s.r, s.cov.pairs, s.cov.n_pairs, &err)) < 0)
		return die("schedule", rc, &err);
	t_sched = now_s() - t0;
	m_sched = peak_rss_mb();
	t0 = now_s();
	if ((rc = sweep_run(&s)) < 0)
		return die("measure", rc, NULL);
	t_meas = now_s() - t0;
	m_meas = peak_rss_mb();
	if ((rc = cross_check(&s, &min_cross, &min_host)) < 0)
		return die("check", rc, NULL);
	t0 = now_s();
	if ((rc = routes_build(&s)) < 0 || (rc = localise(&s, &res, &err)) < 0)
		return die("localise", rc, &err);
	t_loc = now_s() - t0;
	faults_report(&s, &res, &named, &grouped);

	size_t slow = 0;

	for (size_t i = 0; i < s.sc.n_pairs; i++)
		slow += s.res[i].status != SWEEP_OK;
	printf("hosts=%zu links=%zu k=%u pairs=%zu all_pairs=%zu pairs_ratio=%.5f phase1=%zu "
	       "rounds=%zu bound=%zu cover_cpu_s=%.3f sched_cpu_s=%.3f sched_ms_per_round=%.3f "
	       "measure_cpu_s=%.3f localise_cpu_s=%.3f min_cross=%u min_host_pairs=%u links_short=%zu "
	       "hosts_short=%zu bad_pairs=%zu suspects=%zu faults_named=%d faults_grouped=%d "
	       "peak_rss_mb=%.1f (after cover %.1f, schedule %.1f, measure %.1f)\n",
	       n, s.t->n_links, s.k, s.cov.n_pairs, n * (n - 1) / 2,
	       (double)s.cov.n_pairs / (double)(n * (n - 1) / 2), s.cov.n_phase1, s.sc.n_rounds,
	       s.bound.bound, t_cov, t_sched, 1000.0 * t_sched / (double)(s.sc.n_rounds ? s.sc.n_rounds : 1),
	       t_meas, t_loc, min_cross, min_host, s.cov.links_short, s.cov.hosts_short, slow,
	       res.n_suspects, named, grouped, peak_rss_mb(), m_cov, m_sched, m_meas);
	loc_result_fini(&res);
	routes_free(&s);
	free(s.res);
	sched_fini(&s.sc);
	coverage_fini(&s.cov);
	free(s.rate);
	route_free(s.r);
	hosts_fini(&s.hs);
	topo_free(s.t);
	return 0;
}
