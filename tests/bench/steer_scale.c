// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Steered rounds at scale, streamed (tests/bench/schedule.sh; sched_topo.h
 * "Steered rounds, streamed"; docs/scale.md):
 *   steer_scale 2l LEAVES HOSTS_PER_LEAF SPINES HOST_MBPS UPLINK_MBPS [-a | -k K | -m K] [-p P]
 *               [-w W] [-s SEED]
 *   steer_scale 3l PODS LEAVES HOSTS AGGS CORES [-a | -k K | -m K] [-p P] [-w W] [-s SEED]
 * (3l: every link 100 Gb/s).  All pairs (-a, the default) from the
 * streamed generator, or the coverage picker's pairs (-k K), the base
 * rounds spread over the paths (ecmp_whole false); each pair's
 * alternatives are the paths P traced ports take each way (default 8;
 * W for a pair that waited for the extra rounds: its ports traced again,
 * more of them; default 2 P, at most 16), a simulated per-switch hash
 * (model/ecmp_sim.h, seed SEED) picking every switch's member.  Every
 * steered round is checked against the paths its choices take (hops
 * over capacity, hosts twice, pairs twice or missing: counted, printed),
 * and the whole-set rounds of the same pairs counted beside.  -m K:
 * coverage on members instead (cover_bench(); -W: with steer_cover's walk
 * and 6 candidates a host up to 2,048 hosts).  One line of key=value
 * figures; times are process CPU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "model/coverage.h"
#include "model/ecmp_sim.h"
#include "model/sched_topo.h"
#include "model/steer_cover.h"
#include "model/topo_gen.h"
#include "util/clock.h"

#define HOPS_MAX 32
#define PORT_A 20000		/* a -> b flows leave from PORT_A + k to PORT_L */
#define PORT_B 20016		/* b -> a flows from PORT_L to PORT_B + k */
#define PORT_L 20032

struct bench {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	struct ecmp_sim *es;
	unsigned int ports, wide;	/* traced ports per direction; for pairs that waited */
	double *load;		/* the checker's, per directed link */
	uint32_t *touched;
	size_t n_touched;
	bool *busy;
	uint8_t *seen;		/* all pairs: a bit per pair */
	size_t over, twice, pairs;
};

static double peak_rss_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_maxrss / 1024.0;
}

static bool path_eq(const struct path_hop *x, size_t nx, const struct path_hop *y, size_t ny)
{
	if (nx != ny)
		return false;
	for (size_t i = 0; i < nx; i++)
		if (x[i].link != y[i].link || x[i].fwd != y[i].fwd)
			return false;
	return true;
}

/* The distinct paths of @ports flows of one direction, as alternatives. */
static int dir_alts(struct bench *b, unsigned int a, unsigned int bb, int dir,
		    struct sched_steer_alts *out)
{
	struct path_hop seen[SCHED_STEER_ALTS][HOPS_MAX];
	size_t n_seen[SCHED_STEER_ALTS], ns = 0;
	int rc;

	for (unsigned int k = 0; k < (out->wide ? b->wide : b->ports); k++) {
		struct ecmp_flow f = dir == 0 ? (struct ecmp_flow){ .src = a, .dst = bb, .proto = 6,
			.sport = (uint16_t)(PORT_A + k), .dport = PORT_L }
					      : (struct ecmp_flow){ .src = bb, .dst = a, .proto = 6,
			.sport = PORT_L, .dport = (uint16_t)(PORT_B + k) };
		bool dup = false;

		if ((rc = ecmp_sim_path(b->es, &f, seen[ns], HOPS_MAX, &n_seen[ns])) < 0)
			return rc;
		for (size_t i = 0; i < ns && !dup; i++)
			dup = path_eq(seen[i], n_seen[i], seen[ns], n_seen[ns]);
		if (dup)
			continue;
		if ((rc = sched_steer_alt_open(out, dir)) < 0)
			return rc;
		for (size_t h = 0; h < n_seen[ns]; h++)
			if ((rc = sched_steer_alt_hop(out, dir, seen[ns][h].link, seen[ns][h].fwd)) < 0)
				return rc;
		ns++;
	}
	return 0;
}

static int gen_alts(void *ctx, unsigned int a, unsigned int bb, struct sched_steer_alts *out)
{
	struct bench *b = ctx;
	struct route_info info;
	unsigned int klass;
	int rc = route_pair_info(b->r, a, bb, &info, &out->expected_mbps, &klass);

	if (rc == 0)
		rc = dir_alts(b, a, bb, 0, out);
	if (rc == 0)
		rc = dir_alts(b, a, bb, 1, out);
	return rc;
}

/* One steered round against the paths its choices take. */
static int check_round(struct bench *b, struct sched_steer_alts *al, const struct sched_pair *p,
		       const uint32_t *choice, size_t n)
{
	int rc;

	for (size_t i = 0; i < n; i++) {
		unsigned int lo = p[i].a < p[i].b ? p[i].a : p[i].b, hi = p[i].a ^ p[i].b ^ lo;
		size_t bit = (size_t)lo * b->r->n_hosts + hi;

		if (b->busy[p[i].a] || b->busy[p[i].b])
			b->twice++;
		b->busy[p[i].a] = b->busy[p[i].b] = true;
		if (b->seen[bit / 8] >> (bit % 8) & 1)
			b->twice++;
		b->seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
		b->pairs++;
		al->n_dl = 0;
		al->n[0] = al->n[1] = 0;
		al->wide = choice[i] != SCHED_STEER_WHOLE && choice[i] & SCHED_STEER_WIDE;
		if ((rc = gen_alts(b, p[i].a, p[i].b, al)) < 0)
			return rc;
		for (int d = 0; d < 2; d++) {
			unsigned int k = d ? SCHED_STEER_BA(choice[i]) : SCHED_STEER_AB(choice[i]);

			for (uint32_t h = al->span[d][k][0]; h < al->span[d][k][1]; h++) {
				uint32_t dl = al->dl[h];

				if (b->load[dl] == 0)
					b->touched[b->n_touched++] = dl;
				b->load[dl] += 1.0 / sched_topo_cap(b->r, dl / 2, al->expected_mbps);
			}
		}
	}
	for (size_t k = 0; k < b->n_touched; k++) {
		b->over += b->load[b->touched[k]] > 1 + 1e-9;
		b->load[b->touched[k]] = 0;
	}
	b->n_touched = 0;
	for (size_t i = 0; i < n; i++)
		b->busy[p[i].a] = b->busy[p[i].b] = false;
	return 0;
}

static int place(struct bench *b, bool three, char **argv)
{
	size_t nh, len = 0;
	char *text;
	struct fab_err err;
	int rc;

	if (three) {
		struct topo_gen_3l g = { .pods = (unsigned int)atoi(argv[0]),
			.leaves_per_pod = (unsigned int)atoi(argv[1]),
			.hosts_per_leaf = (unsigned int)atoi(argv[2]),
			.aggs_per_pod = (unsigned int)atoi(argv[3]),
			.cores_per_agg = (unsigned int)atoi(argv[4]),
			.host_mbps = 100000, .leaf_mbps = 100000, .core_mbps = 100000 };

		nh = (size_t)g.pods * g.leaves_per_pod * g.hosts_per_leaf;
		rc = topo_gen_fat_tree(&b->t, &g);
	} else {
		struct topo_gen_2l g = { .leaves = (unsigned int)atoi(argv[0]),
			.hosts_per_leaf = (unsigned int)atoi(argv[1]),
			.spines = (unsigned int)atoi(argv[2]),
			.host_mbps = (unsigned int)atoi(argv[3]),
			.uplink_mbps = (unsigned int)atoi(argv[4]) };

		nh = (size_t)g.leaves * g.hosts_per_leaf;
		rc = topo_gen_leaf_spine(&b->t, &g);
	}
	text = malloc(nh * 40 + 1);
	if (rc < 0 || !text)
		return -ENOMEM;
	for (size_t i = 1; i <= nh; i++)
		len += (size_t)sprintf(text + len, "h%zu 10.%zu.%zu.%zu\n", i, i / 65536, i / 256 % 256,
				       i % 256);
	fab_err_init(&err);
	hosts_init(&b->hs);
	rc = hosts_parse(&b->hs, text, len, "generated", &err);
	free(text);
	if (rc < 0 || route_new(&b->r, b->t) < 0 || route_place(b->r, &b->hs, &err) < 0) {
		fprintf(stderr, "steer_scale: %s\n", err.msg);
		return -EINVAL;
	}
	route_rates(b->r, &b->hs, NULL, NULL);
	return 0;
}

static int gen_next(struct sched_src *src, struct sched_pair *buf, size_t *n)
{
	return sched_topo_gen_next(src->impl, buf, n);
}

/* The base rounds: the streamed generator (all pairs) or the coverage pairs packed. */
static int base_make(struct bench *b, unsigned int k, struct sched *s, struct sched_src *src,
		     struct sched_topo_gen **gen, size_t *whole, size_t *n_pairs)
{
	struct sched_topo_bound bd;
	struct coverage cov;
	struct sched ws;
	struct fab_err err;
	int rc;

	fab_err_init(&err);
	if (!k) {
		b->r->ecmp_whole = true;
		rc = sched_topo_gen_new(gen, b->r, &err);
		if (rc == 0)
			rc = sched_topo_gen_count(*gen, whole);
		sched_topo_gen_free(*gen);
		*gen = NULL;
		b->r->ecmp_whole = false;
		if (rc == 0)
			rc = sched_topo_gen_new(gen, b->r, &err);
		if (rc == 0)
			*src = (struct sched_src){ .next = gen_next, .impl = *gen,
						   .max_round = b->r->n_hosts / 2,
						   .n_pairs = b->r->n_hosts * (b->r->n_hosts - 1) / 2 };
		*n_pairs = b->r->n_hosts * (b->r->n_hosts - 1) / 2;
		return rc;
	}
	rc = coverage_pick(&cov, b->r, &(struct coverage_req){ .k = k }, &err);
	if (rc < 0)
		return rc;
	b->r->ecmp_whole = true;
	rc = sched_topo_pairs(&ws, &bd, b->r, cov.pairs, cov.n_pairs, &err);
	*whole = ws.n_rounds;
	sched_fini(&ws);
	b->r->ecmp_whole = false;
	if (rc == 0)
		rc = sched_topo_pairs(s, &bd, b->r, cov.pairs, cov.n_pairs, &err);
	*n_pairs = cov.n_pairs;
	coverage_fini(&cov);
	if (rc == 0)
		sched_src_explicit(src, s);
	return rc;
}

static int steer_all(struct bench *b, struct sched_src *src, struct sched_steer_stats *st,
		     size_t *rounds)
{
	struct sched_steer_gen gen = { .alts = gen_alts, .ctx = b };
	struct sched_steer_stream *ss = NULL;
	struct sched_steer_alts al = { 0 };
	size_t room = b->r->n_hosts / 2 + 1, n;
	struct sched_pair *pairs = calloc(room, sizeof(*pairs));
	uint32_t *choice = calloc(room, sizeof(*choice));
	int rc = pairs && choice ? sched_steer_stream_new(&ss, b->r, src, &gen) : -ENOMEM;

	*rounds = 0;
	while (rc == 0 && (rc = sched_steer_stream_next(ss, pairs, choice, &n)) > 0) {
		(*rounds)++;
		rc = check_round(b, &al, pairs, choice, n);
	}
	if (rc == 0)
		sched_steer_stream_stats(ss, st);
	sched_steer_stream_free(ss);
	free(al.dl);
	free(pairs);
	free(choice);
	return rc;
}

/* Pair @a < @bb traced on b->ports ports each way: the distinct paths, into @pr. */
static int pair_trace(struct bench *b, unsigned int a, unsigned int bb, struct pair_route *pr)
{
	struct route_info info;
	unsigned int klass;
	int rc;

	pr->a = a;
	pr->b = bb;
	if ((rc = route_pair_info(b->r, a, bb, &info, &pr->expected_mbps, &klass)) < 0)
		return rc;
	for (int d = 0; d < 2; d++)
		for (unsigned int p = 0; p < b->ports; p++) {
			struct ecmp_flow f = d == 0 ? (struct ecmp_flow){ .src = a, .dst = bb, .proto = 6,
				.sport = (uint16_t)(PORT_A + p), .dport = PORT_L } : (struct ecmp_flow){
				.src = bb, .dst = a, .proto = 6, .sport = PORT_L, .dport = (uint16_t)(PORT_B + p) };
			struct path_hop h[HOPS_MAX];
			struct path **ps = d ? &pr->ba : &pr->ab;
			size_t *np = d ? &pr->n_ba : &pr->n_ab, nhp;
			bool dup = false;

			if ((rc = ecmp_sim_path(b->es, &f, h, HOPS_MAX, &nhp)) < 0)
				return rc;
			for (size_t i = 0; i < *np && !dup; i++)
				dup = path_eq((*ps)[i].hops, (*ps)[i].n_hops, h, nhp);
			if (dup)
				continue;
			*ps = realloc(*ps, (*np + 1) * sizeof(**ps));
			if (!*ps || !((*ps)[*np].hops = malloc(nhp * sizeof(*h))))
				return -ENOMEM;
			memcpy((*ps)[*np].hops, h, nhp * sizeof(*h));
			(*ps)[*np].n_hops = nhp;
			(*ps)[*np].share = 1;
			(*np)++;
		}
	return 0;
}

/* steer_cover's step 7: a new pair traced on the ports of a candidate, as the sweep does */
static long more_paths(void *ctx, unsigned int a, unsigned int bb, struct pair_route *pr)
{
	int rc = pair_trace(ctx, a, bb, pr);

	return rc < 0 ? rc : 0;
}

/*
 * -m K: coverage on members (model/steer_cover.h), its candidates as
 * `sweep --steer` makes them (4 partners per host on other leaves, at
 * offsets of about 1/3 and 2/3 of the host list; with -W 6, at quarters),
 * each with the paths its ports take each way (pair_trace(), also the
 * picker's new pairs of step 7).  Checked apart from the picker: per round no
 * directed hop over capacity and no host twice, no pair twice; every
 * link's crossings (a hop of a path taken: one) and every host's pairs.
 */
static int cover_bench(struct bench *b, unsigned int k, bool walk, size_t *pairs, size_t *rounds,
		       size_t *links_short, size_t *hosts_short, size_t *n_cand, size_t *mend)
{
	size_t nh = b->r->n_hosts, nl = b->r->n_links, m = 0;
	size_t no = walk ? 3 : 2;	/* offsets: as sweep_steer.c's cover_cands() */
	struct pair_route *cand = calloc(nh * no + 1, sizeof(*cand));
	const struct pair_route **cp = calloc(nh * no + 1, sizeof(*cp));
	uint32_t *cross = calloc(nl + 1, sizeof(*cross)), *hp = calloc(nh + 1, sizeof(*hp));
	struct steer_cover c;
	struct fab_err err;
	int rc = 0;

	if (!cand || !cp || !cross || !hp)
		return -ENOMEM;
	for (size_t o = 0; o < no; o++)
		for (size_t a = 0; a < nh; a++) {
			size_t bb = (a + nh * (o + 1) / (no + 1) + o + 1) % nh;
			struct pair_route *pr = &cand[m];

			if (a == bb || b->r->hosts[a].leaf == b->r->hosts[bb].leaf)
				continue;
			if ((rc = pair_trace(b, (unsigned int)(a < bb ? a : bb),
					      (unsigned int)(a < bb ? bb : a), pr)) < 0)
				return rc;
			cp[m] = pr;
			m++;
		}
	fab_err_init(&err);
	rc = steer_cover_pick(&c, b->r, &(struct steer_cover_req){ .k = k, .max_rounds = k + 3,
								   .walk = walk, .more = more_paths, .more_ctx = b },
			      cp, m, &err);
	if (rc < 0) {
		fprintf(stderr, "steer_scale: %s\n", err.msg);
		return rc;
	}
	for (size_t r = 0; r < c.s.n_rounds; r++) {
		for (size_t i = c.s.round_start[r]; i < c.s.round_start[r + 1]; i++) {
			unsigned int a = c.s.pairs[i].a, bb = c.s.pairs[i].b;
			uint64_t bit = (uint64_t)(a < bb ? a : bb) * nh + (a < bb ? bb : a);
			const struct pair_route *pr;

			b->twice += b->busy[a] || b->busy[bb] || (b->seen[bit / 8] >> (bit % 8) & 1);
			b->busy[a] = b->busy[bb] = true;
			b->seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
			hp[a]++;
			hp[bb]++;
			b->pairs++;
			if (c.pick[i] == STEER_COVER_FILL) {	/* one leaf: the two access links */
				b->twice += b->r->hosts[a].leaf != b->r->hosts[bb].leaf;
				cross[b->r->hosts[a].link] += 2;
				cross[b->r->hosts[bb].link] += 2;
				continue;
			}
			pr = c.pick[i] < m ? &cand[c.pick[i]] : &c.extra[c.pick[i] - m];
			for (int d = 0; d < 2; d++) {
				const struct path *pa = d ? &pr->ba[c.ba[i]] : &pr->ab[c.ab[i]];

				for (size_t h = 0; h < pa->n_hops; h++) {
					uint32_t dl = pa->hops[h].link * 2 + !pa->hops[h].fwd;

					if (b->load[dl] == 0)
						b->touched[b->n_touched++] = dl;
					b->load[dl] += 1.0 / sched_topo_cap(b->r, pa->hops[h].link,
									    pr->expected_mbps);
					cross[pa->hops[h].link]++;
				}
			}
		}
		for (size_t t = 0; t < b->n_touched; t++) {
			b->over += b->load[b->touched[t]] > 1 + 1e-9;
			b->load[b->touched[t]] = 0;
		}
		b->n_touched = 0;
		memset(b->busy, 0, nh * sizeof(*b->busy));
	}
	*links_short = *hosts_short = 0;
	for (size_t l = 0; l < nl; l++)
		*links_short += cross[l] < k;
	for (size_t h = 0; h < nh; h++)
		*hosts_short += hp[h] < k;
	*pairs = c.s.n_pairs;
	*rounds = c.s.n_rounds;
	*n_cand = m;
	mend[0] = c.mend_traced;
	mend[1] = c.n_extra;
	steer_cover_fini(&c);
	for (size_t i = 0; i < m; i++)
		pair_route_fini(&cand[i]);
	free(cand);
	free(cp);
	free(cross);
	free(hp);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = { .ports = 8 };
	struct sched_topo_gen *gen = NULL;
	struct sched_steer_stats st;
	struct sched s = { 0 };
	struct sched_src src = { 0 };
	unsigned int k = 0, members = 0, nargs;
	bool walk = false;
	uint64_t seed = 24;
	bool three;
	size_t whole = 0, n_pairs = 0, rounds = 0, nh;
	double t0, t_steer;
	int rc;

	if (argc < 2 || (strcmp(argv[1], "2l") && strcmp(argv[1], "3l")))
		goto usage;
	three = !strcmp(argv[1], "3l");
	nargs = 5;
	if ((unsigned int)argc < 2 + nargs)
		goto usage;
	for (int i = 2 + (int)nargs; i < argc; i++) {
		if (!strcmp(argv[i], "-a"))
			k = 0;
		else if (!strcmp(argv[i], "-k") && i + 1 < argc)
			k = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "-m") && i + 1 < argc)
			members = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "-W"))
			walk = true;
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			b.ports = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "-w") && i + 1 < argc)
			b.wide = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else
			goto usage;
	}
	if (!b.wide)
		b.wide = b.ports * 2 < SCHED_STEER_ALTS ? b.ports * 2 : SCHED_STEER_ALTS;
	if (!b.ports || b.ports > SCHED_STEER_ALTS || b.wide < b.ports || b.wide > SCHED_STEER_ALTS ||
	    place(&b, three, argv + 2) < 0 || ecmp_sim_new(&b.es, b.r, seed) < 0)
		return 3;
	nh = b.r->n_hosts;
	b.load = calloc(b.r->n_links * 2 + 1, sizeof(*b.load));
	b.touched = calloc(b.r->n_links * 2 + 1, sizeof(*b.touched));
	b.busy = calloc(nh + 1, sizeof(*b.busy));
	b.seen = calloc(nh * nh / 8 + 1, 1);
	if (!b.load || !b.touched || !b.busy || !b.seen)
		return 3;
	if (members) {
		size_t pairs, rounds_m, ls, hs, nc, mend[2];

		if ((rc = base_make(&b, members, &s, &src, &gen, &whole, &n_pairs)) < 0)
			return 3;
		t0 = clock_cpu_ms();
		rc = cover_bench(&b, members, walk, &pairs, &rounds_m, &ls, &hs, &nc, mend);
		t_steer = (clock_cpu_ms() - t0) / 1000;
		if (rc < 0) {
			fprintf(stderr, "steer_scale: coverage on members: %s\n", strerror(-rc));
			return 3;
		}
		printf("hosts=%zu mode=members k=%u candidates=%zu pairs=%zu ports=%u rounds=%zu "
		       "ratio=%.3f whole_set=%zu links=%zu links_short=%zu hosts_short=%zu "
		       "checked_pairs=%zu over=%zu twice=%zu new_traced=%zu new_taken=%zu "
		       "steer_cpu_s=%.3f peak_rss_mb=%.1f\n",
		       nh, members, nc, pairs, b.ports, rounds_m, (double)rounds_m / members, whole,
		       b.r->n_links, ls, hs, b.pairs, b.over, b.twice, mend[0], mend[1], t_steer,
		       peak_rss_mb());
		return 0;
	}
	if ((rc = base_make(&b, k, &s, &src, &gen, &whole, &n_pairs)) < 0) {
		fprintf(stderr, "steer_scale: base rounds: %s\n", strerror(-rc));
		return 3;
	}
	t0 = clock_cpu_ms();
	rc = steer_all(&b, &src, &st, &rounds);
	t_steer = (clock_cpu_ms() - t0) / 1000;
	if (rc < 0) {
		fprintf(stderr, "steer_scale: steered rounds: %s\n", strerror(-rc));
		return 3;
	}
	printf("hosts=%zu mode=%s pairs=%zu ports=%u node_bound=%zu rounds=%zu ratio=%.3f "
	       "whole_set=%zu ratio_whole=%.3f base_rounds=%zu extra_rounds=%zu waited=%zu "
	       "wait_most=%zu wide_ports=%u checked_pairs=%zu over=%zu twice=%zu missing=%zu "
	       "steer_cpu_s=%.3f peak_rss_mb=%.1f\n",
	       nh, k ? "coverage" : "all-pairs", n_pairs, b.ports, st.node_bound, rounds,
	       (double)rounds / (double)(st.node_bound ? st.node_bound : 1), whole,
	       (double)whole / (double)(st.node_bound ? st.node_bound : 1), st.base_rounds,
	       st.extra_rounds, st.moved, st.wait_most, b.wide, b.pairs, b.over, b.twice,
	       n_pairs - b.pairs, t_steer, peak_rss_mb());
	sched_topo_gen_free(gen);
	sched_fini(&s);
	ecmp_sim_free(b.es);
	route_free(b.r);
	hosts_fini(&b.hs);
	topo_free(b.t);
	free(b.load);
	free(b.touched);
	free(b.busy);
	free(b.seen);
	return 0;
usage:
	fprintf(stderr, "usage: steer_scale 2l LEAVES HOSTS SPINES HOST_MBPS UPLINK_MBPS | "
			"3l PODS LEAVES HOSTS AGGS CORES [-a | -k K | -m K [-W]] [-p PORTS] [-w PORTS] [-s SEED]\n");
	return 2;
}
