// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scale harness (tests/bench/scale.sh, docs/scale.md): the sweep engine
 * `fabricctl sweep` runs, over a simulated fabric, in one process.  Only
 * the measurement is simulated; everything around it is the sweep's own
 * code (sweep_run(): the hosts file and the plan parsed, hosts placed, the
 * coverage picker or the all-pairs generator, link-safe rounds, the pair
 * store, reference, judge, retest, localiser; then the JSON written).
 *
 *   scale_sim PODS LEAVES_PER_POD HOSTS_PER_LEAF AGGS CORES_PER_AGG
 *             [-k K | -a] [-s SEED] [-o FILE.json] [-S [-F]]
 *
 *  1. fabric: topo_gen_fat_tree() (every link 100 Gb/s), written as a YAML
 *     plan, and a hosts file h1..hN, in a temporary directory; the
 *     generated graph is freed: the simulation works on the sweep's own
 *     (sweep_req.on_fabric, once the sweep has placed the hosts), so the
 *     process holds one graph, as fabricctl does;
 *  2. faults: 5 distinct links drawn with SEED: one spine uplink (an
 *     aggregation switch's cable to a spine), one host access link, three
 *     of any kind; each carries 20 % of its rated rate;
 *  3. sweep_run() with --topology PLAN and --coverage K (default 3) or
 *     --all-pairs (-a), JSON to FILE (default /dev/null), and a simulated
 *     measurement (struct sweep_measure): each pair's rate is the lowest
 *     simulated rate of the links it crosses (route_pair_loads: both
 *     access links and every link of its ECMP set), less up to 3 % seeded
 *     noise; the retest and the probes measure the same way;
 *  4. what the sweep measured is counted independently of the picker: the
 *     least any link was crossed and the fewest pairs any host was in;
 *  5. the report (sweep_run()'s outcome): suspects, and where each fault
 *     stands among them (named: a top-5 suspect that is that link alone;
 *     grouped: in a top-5 group of links traffic cannot tell apart).
 *
 * -S (issue 24, docs/scale.md "Steered"): `sweep --steer`.  Every switch
 * has an address in the plan and hashes each flow's 5-tuple with its own
 * seed (model/ecmp_sim.h); the sweep's traces (struct sweep_measure.trace)
 * are answered hop by hop by the switches of the flow's hashed path, and
 * each direction of a test is measured on the path its tuple takes (the
 * ports the sweep gave it, o->pair_spec; free ports when not steered).
 * Crossings are then counted per path taken, not per ECMP set.  -F: the
 * first host's worker answers no trace (its pairs fall back: a coverage
 * sweep then keeps the picker's pairs, docs/paths.md "Coverage on members").
 * The steered ports' base is the seed's (FABRICCTL_STEER_PORT_SEED, unless
 * set): one seed, one sweep, run after run.
 * SCALE_VERBOSE=1 in the environment: the sweep's -v lines on stderr.
 *
 * Prints one line per suspect and fault, then one line of key=value
 * figures.  Times are process CPU (a shared machine's wall time includes
 * waiting for a core); scheduling is the schedule's construction plus
 * every round drawn from it.  Peak RSS is the process's (getrusage), also
 * as it stood when the hosts were placed, after the rounds and at the
 * report: run one size per process.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "model/counter_eval.h"
#include "model/ecmp_sim.h"
#include "model/flow_trace.h"
#include "sweep/sweep.h"
#include "sweep/sweep_topo.h"
#include "io/pair_store.h"
#include "model/localize.h"
#include "model/plan_yaml.h"
#include "model/route.h"
#include "model/topo_gen.h"
#include "render/render.h"
#include "util/file.h"
#include "util/log.h"
#include "util/str.h"

#define N_FAULTS 5
#define FAULT_RATE 0.2
#define TOP 5

struct sim {
	bool steer;			/* -S: sweep --steer over a simulated per-switch hash */
	bool silent;			/* -F: the first host's worker answers no trace */
	struct ecmp_sim *es;		/* the switches' hash (model/ecmp_sim.h) */
	const struct fab_hosts *hosts;
	size_t traced_flows;
	const struct topo *t;		/* the sweep's graph and routes (on_fabric) */
	struct route *r;
	size_t n_hosts;
	uint64_t seed;
	uint32_t faults[N_FAULTS];
	double *rate;			/* per link: simulated Mb/s */
	bool main_done;			/* the sweep's own rounds are over (then retests, probes) */
	double sched_cpu_s;		/* drawing the main rounds */
	size_t rounds, pairs;
	uint32_t *cross;		/* per link: main-sweep pairs crossing it */
	unsigned int *host_pairs;
	/* from the report */
	size_t n_links, n_pairs, n_rounds, bound, bad_pairs, n_suspects, cov_short_links, cov_short_hosts;
	size_t steered, fallback, rounds_whole;
	int named, grouped;
	bool on_file;
	double rss_fabric, rss_rounds, rss_report;	/* peak RSS when placed, after the rounds, at the report */
};

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

/* -S: every switch an address of 172.16/12 in the plan (a traced hop is named by it). */
static int switch_addrs(struct topo *t)
{
	unsigned int j = 0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		char a[TOPO_ADDR_LEN];
		int rc;

		if (t->nodes[i]->type == TOPO_NODE_HOST)
			continue;
		snprintf(a, sizeof(a), "172.%u.%u.%u", 16 + j / 65536, j / 256 % 256, j % 256);
		j++;
		if ((rc = topo_node_addr_add(t->nodes[i], a)) < 0)
			return rc;
	}
	return 0;
}

/* The fabric's plan and hosts files under @dir. */
static int fabric_write(struct sim *s, const struct topo_gen_3l *g, const char *dir,
			struct fab_err *err)
{
	size_t n = (size_t)g->pods * g->leaves_per_pod * g->hosts_per_leaf, len = 0;
	char *text = malloc(n * 40 + 1), path[4200];
	struct topo *t = NULL;
	struct strbuf sb;
	int rc;

	if (!text)
		return -ENOMEM;
	for (size_t i = 1; i <= n; i++)	/* spread over 10/8 as a real fleet is */
		len += (size_t)sprintf(text + len, "h%zu 10.%zu.%zu.%zu\n", i, i / 65536, i / 256 % 256,
				       i % 256);
	snprintf(path, sizeof(path), "%s/hosts", dir);
	rc = file_write_atomic(path, text, len, 0600, err);
	free(text);
	if (rc < 0 || (rc = topo_gen_fat_tree(&t, g)) < 0)
		return rc;
	if (s->steer && (rc = switch_addrs(t)) < 0) {
		topo_free(t);
		return rc;
	}
	strbuf_init(&sb);
	rc = plan_yaml_format(t, &sb);
	snprintf(path, sizeof(path), "%s/plan.yaml", dir);
	if (rc == 0)
		rc = file_write_atomic(path, sb.buf, sb.len, 0600, err);
	strbuf_fini(&sb);
	topo_free(t);
	s->n_hosts = n;
	return rc;
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
	s->cross = calloc(nl, sizeof(*s->cross));
	s->host_pairs = calloc(s->n_hosts, sizeof(*s->host_pairs));
	if (!s->rate || !s->cross || !s->host_pairs)
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

/* The host an address of the hosts file is (h<i> is 10.<i / 65536>.<i / 256 % 256>.<i % 256>). */
static long host_of(const struct sim *s, const char *addr)
{
	uint8_t v[4];
	size_t i;

	/* inet_pton(), not sscanf(): called for every traced flow */
	if (inet_pton(AF_INET, addr, v) != 1 || v[0] != 10)
		return -1;
	i = (size_t)v[1] * 65536 + v[2] * 256u + v[3];
	if (!i || i > s->n_hosts || strcmp(s->hosts->hosts[i - 1].addr, addr))
		return -1;
	return (long)i - 1;
}

/* The node hop @h arrives at. */
static const struct topo_node *hop_end(const struct sim *s, const struct path_hop *h)
{
	const struct topo_link *l = s->t->links[h->link];

	return h->fwd ? l->b->node : l->a->node;
}

/* One flow's trace: TTL i answered by the i-th switch of its hashed path, the last by dst. */
static int trace_one(struct sim *s, struct flow_trace *tr)
{
	long a = host_of(s, tr->flow.src), b = host_of(s, tr->flow.dst);
	struct ecmp_flow f = { .proto = (uint8_t)tr->flow.proto, .sport = tr->flow.sport,
			       .dport = tr->flow.dport };
	struct path_hop h[32];
	size_t n;
	int rc;

	if (a < 0 || b < 0)
		return 0;	/* nobody answers: the map falls back */
	f.src = (unsigned int)a;
	f.dst = (unsigned int)b;
	if ((rc = ecmp_sim_path(s->es, &f, h, 32, &n)) < 0)
		return rc == -ENOMEM ? rc : 0;
	tr->hops = calloc(n, sizeof(*tr->hops));
	if (!tr->hops)
		return -ENOMEM;
	tr->n_hops = n;
	for (size_t i = 0; i < n; i++) {
		struct flow_hop *fh = &tr->hops[i];
		const struct topo_node *node = hop_end(s, &h[i]);
		const char *from = i + 1 < n ? node->n_addrs ? node->addrs[0] : "" : tr->flow.dst;

		fh->ttl = (unsigned int)i + 1;
		fh->tries = 1;
		fh->rtt_us = 5 + (uint32_t)i;
		fh->answer = i + 1 < n ? HOP_TIME_EXCEEDED : HOP_TCP_SYNACK;
		/* a copy, not snprintf(): millions of traces at 4096 hosts (hops zeroed) */
		memcpy(fh->addr, from, strnlen(from, sizeof(fh->addr) - 1));
	}
	tr->reached = true;
	tr->reached_ttl = (unsigned int)n;
	return 0;
}

/* struct sweep_measure's trace: every host's flows, answered by the simulated switches. */
static int sim_trace(void *ctx, struct flow_trace *const *tr, const size_t *n, bool *got,
		     struct fab_err *err)
{
	struct sim *s = ctx;

	for (size_t h = 0; h < s->n_hosts; h++) {
		got[h] = !(s->silent && h == 0);
		for (size_t k = 0; got[h] && k < n[h]; k++) {
			if (trace_one(s, &tr[h][k]) < 0)
				return fab_err_set(err, -ENOMEM, "sim: out of memory");
			s->traced_flows++;
		}
	}
	return 0;
}

/* The lowest simulated rate on the path flow @f takes (crossings counted in the main sweep). */
static int path_rate(struct sim *s, const struct ecmp_flow *f, double *rate)
{
	struct path_hop h[32];
	size_t n;
	int rc = ecmp_sim_path(s->es, f, h, 32, &n);

	*rate = INFINITY;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		*rate = fmin(*rate, s->rate[h[i].link]);
		if (!s->main_done)
			s->cross[h[i].link]++;
	}
	return rc;
}

/*
 * -S: each direction at the lowest rate of the path its tuple takes: the
 * ports the sweep gave the test (steered), else free ones.
 */
static int measure_steered(struct sim *s, const struct sweep_opts *o, struct sweep_pair *p)
{
	struct tp_spec spec = { 0 };
	struct ecmp_flow ab = { .src = p->a, .dst = p->b, .proto = 6 }, ba = ab;
	double rab, rba;
	int rc;

	if (o->pair_spec)
		o->pair_spec(o->pair_spec_ctx, p->a, p->b, &spec);
	if (!spec.sport_fwd) {	/* the kernel's ports */
		spec.port = 5201;
		spec.sport_fwd = 32768 + rnd(&s->seed) % 28000;
		spec.sport_rev = 32768 + rnd(&s->seed) % 28000;
	}
	ab.sport = (uint16_t)spec.sport_fwd;
	ab.dport = (uint16_t)spec.port;
	ba = (struct ecmp_flow){ .src = p->b, .dst = p->a, .proto = 6, .sport = (uint16_t)spec.port,
				 .dport = (uint16_t)spec.sport_rev };
	if ((rc = path_rate(s, &ab, &rab)) < 0 || (rc = path_rate(s, &ba, &rba)) < 0)
		return rc;
	rab *= 1.0 - 0.03 * (double)(rnd(&s->seed) % 1000) / 1000.0;
	rba *= 1.0 - 0.03 * (double)(rnd(&s->seed) % 1000) / 1000.0;
	p->ab = (struct sweep_bw){ .measured = true, .avg_mbps = rab, .min_mbps = rab * 0.99,
				   .bytes = (uint64_t)(rab * 1e6 / 8), .secs = 1, .intervals = 10 };
	p->ba = (struct sweep_bw){ .measured = true, .avg_mbps = rba, .min_mbps = rba * 0.99,
				   .bytes = (uint64_t)(rba * 1e6 / 8), .secs = 1, .intervals = 10 };
	return 0;
}

/* The lowest simulated rate over the pair's links, with seeded noise. */
static int measure_pair(struct sim *s, const struct sweep_opts *o, struct sweep_pair *p)
{
	const struct route_load *items;
	struct route_info info;
	double low = INFINITY, got;
	size_t n;
	int rc;

	if (s->steer) {
		if ((rc = measure_steered(s, o, p)) < 0)
			return rc;
		if (!s->main_done) {
			s->host_pairs[p->a]++;
			s->host_pairs[p->b]++;
			s->pairs++;
		}
		goto figures;
	}
	if ((rc = route_pair_loads(s->r, p->a, p->b, &items, &n, &info)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		low = fmin(low, s->rate[items[i].link]);
		if (!s->main_done)
			s->cross[items[i].link]++;
	}
	if (!s->main_done) {
		s->host_pairs[p->a]++;
		s->host_pairs[p->b]++;
		s->pairs++;
	}
	got = low * (1.0 - 0.03 * (double)(rnd(&s->seed) % 1000) / 1000.0);
	p->ab = (struct sweep_bw){ .measured = true, .avg_mbps = got, .min_mbps = got * 0.99,
				   .bytes = (uint64_t)(got * 1e6 / 8), .secs = 1, .intervals = 10 };
	p->ba = p->ab;
figures:
	p->status = SWEEP_OK;
	p->have_lat = true;
	p->lat_ns = (struct stats_summary){ .n = 100, .min = 2000, .p50 = 2500, .p99 = 3000,
					    .p999 = 3200, .max = 3500, .mean = 2550 };
	p->test_s = 2;
	return 0;
}

/* struct sweep_measure's run: the rounds of @src, each handed to @sink. */
static int sim_run(void *ctx, struct sched_src *src, const struct sweep_opts *o, sweep_sink_fn sink,
		   void *sink_ctx, size_t *rounds_done, struct fab_err *err)
{
	struct sim *s = ctx;
	struct sched_pair *sp = calloc(src->max_round ? src->max_round : 1, sizeof(*sp));
	struct sweep_pair *out = calloc(src->max_round ? src->max_round : 1, sizeof(*out));
	size_t n, r = 0;
	int rc = 0;

	*rounds_done = 0;
	if (!sp || !out) {
		rc = fab_err_set(err, -ENOMEM, "sim: out of memory");
		goto done;
	}
	for (;;) {
		double t0 = now_s();

		rc = src->next(src, sp, &n);
		if (!s->main_done)
			s->sched_cpu_s += now_s() - t0;
		if (rc <= 0)
			break;
		for (size_t k = 0; k < n; k++) {
			memset(&out[k], 0, sizeof(out[k]));
			out[k].a = sp[k].a;
			out[k].b = sp[k].b;
			out[k].round = (unsigned int)r + 1;
			out[k].pct_rated = -1;
			if ((rc = measure_pair(s, o, &out[k])) < 0) {
				fab_err_set(err, rc, "sim: route %u-%u", sp[k].a, sp[k].b);
				goto done;
			}
		}
		if ((rc = sink(sink_ctx, r + 1, out, n, err)) < 0)
			goto done;
		*rounds_done = ++r;
	}
	if (!s->main_done) {
		s->rounds = r;
		s->rss_rounds = peak_rss_mb();
	}
	s->main_done = true;
done:
	free(sp);
	free(out);
	return rc < 0 ? rc : 0;
}

/* sweep_req.on_fabric: the sweep's graph, placed; the faults go on it. */
static void on_fabric(void *ctx, struct sweep_topo *st)
{
	struct sim *s = ctx;

	s->rss_fabric = peak_rss_mb();
	s->t = st->t;
	s->r = st->r;
	s->hosts = st->hosts;
	if (faults_pick(s) < 0 || (s->steer && ecmp_sim_new(&s->es, st->r, s->seed) < 0)) {
		fprintf(stderr, "scale_sim: faults: out of memory\n");
		exit(3);
	}
}

/* Rank (0-based) of the suspect holding link @link, its kind and size; -1 when none. */
static int suspect_of(const struct sweep_report *rep, uint32_t link, enum loc_kind *kind,
		      size_t *size)
{
	const struct loc_result *res = rep->fabric.loc;

	for (size_t i = 0; res && i < res->n_suspects; i++)
		for (size_t m = 0; m < res->suspects[i].n_members; m++) {
			if (res->suspects[i].members[m].link == link) {
				*kind = res->suspects[i].kind;
				*size = res->suspects[i].n_members;
				return (int)i;
			}
		}
	return -1;
}

/* What the sweep concluded (its outcome's report). */
static void on_report(struct sim *s, const struct sweep_report *rep)
{
	const struct loc_result *res = rep->fabric.loc;
	const struct sweep_fabric_view *v = &rep->fabric;

	s->n_links = s->t->n_links;
	s->n_pairs = rep->n_pairs;
	s->n_rounds = rep->n_rounds;
	s->bound = v->bound;
	s->bad_pairs = rep->n_slow + rep->n_failed + rep->n_regressed;
	s->n_suspects = res ? res->n_suspects : 0;
	s->cov_short_links = v->cov_links_short;
	s->cov_short_hosts = v->cov_hosts_short;
	s->on_file = pair_store_on_file(rep->store);
	if (v->steer && !v->steer->whole) {
		s->steered = v->steer->steered;
		s->fallback = v->steer->fallback;
		s->rounds_whole = v->steer->rounds_whole;
	}
	s->rss_report = peak_rss_mb();
	for (size_t i = 0; res && i < res->n_suspects && i < TOP + 2; i++) {
		char text[200];

		loc_member_text(rep->fabric.loc_in, &res->suspects[i].members[0], text, sizeof(text));
		printf("suspect %zu: %s of %zu, score %.2f, %u/%u bad pairs cross: %s%s\n", i + 1,
		       loc_kind_name(res->suspects[i].kind), res->suspects[i].n_members,
		       res->suspects[i].score, res->suspects[i].ev.cross_bad, res->suspects[i].ev.cross_n,
		       text, res->suspects[i].n_members > 1 ? ", ..." : "");
	}
	for (int i = 0; i < N_FAULTS; i++) {
		const struct topo_link *l = s->t->links[s->faults[i]];
		enum loc_kind kind = LOC_KIND_LINK;
		size_t size = 0;
		int rank = suspect_of(rep, s->faults[i], &kind, &size);
		bool top = rank >= 0 && rank < TOP;

		if (top && kind != LOC_KIND_GROUP)
			s->named++;
		else if (top)
			s->grouped++;
		printf("fault %d: %s %s <-> %s %s (%s): %s", i + 1, l->a->node->name, l->a->name,
		       l->b->node->name, l->b->name,
		       i == 0 ? "spine uplink" : is_access(l) ? "access link" : "link",
		       rank < 0 ? "not a suspect" : top ? "top-5 suspect" : "suspect below the top 5");
		if (rank >= 0)
			printf(" #%d, %s of %zu", rank + 1, loc_kind_name(kind), size);
		printf("\n");
	}
}

static void tmp_remove(const char *dir)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/hosts", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/plan.yaml", dir);
	unlink(path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	struct topo_gen_3l g = { .host_mbps = 100000, .leaf_mbps = 100000, .core_mbps = 100000 };
	struct sim s = { .seed = 15 };
	struct sweep_measure m = { .run = sim_run, .ctx = &s };
	struct render rd = { 0 };
	struct counter_policy pol;
	struct sweep_outcome o;
	struct sweep_req req;
	struct fab_err err;
	const char *out = "/dev/null", *tmp = getenv("TMPDIR");
	char dir[4096], hosts[4200], plan[4200];
	unsigned int k = 3;
	bool all = false;
	double t0, t_total, sched = 0;
	uint32_t min_cross = UINT32_MAX;
	size_t short_cross = 0, zero_cross = 0;
	unsigned int min_host = UINT_MAX;
	size_t n;
	int rc;

	if (argc < 6) {
		fprintf(stderr, "usage: scale_sim PODS LEAVES HOSTS AGGS CORES [-k K | -a] [-s SEED] "
				"[-o FILE.json] [-S [-F]]\n");
		return 2;
	}
	g.pods = (unsigned int)atoi(argv[1]);
	g.leaves_per_pod = (unsigned int)atoi(argv[2]);
	g.hosts_per_leaf = (unsigned int)atoi(argv[3]);
	g.aggs_per_pod = (unsigned int)atoi(argv[4]);
	g.cores_per_agg = (unsigned int)atoi(argv[5]);
	for (int i = 6; i < argc; i++) {
		if (!strcmp(argv[i], "-a"))
			all = true;
		else if (!strcmp(argv[i], "-k") && i + 1 < argc)
			k = (unsigned int)atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			s.seed = strtoull(argv[++i], NULL, 0) * 2 + 1;
		else if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strcmp(argv[i], "-S"))
			s.steer = true;
		else if (!strcmp(argv[i], "-F"))
			s.silent = true;
	}
	if (getenv("SCALE_VERBOSE"))
		fab_log_level = atoi(getenv("SCALE_VERBOSE"));
	fab_err_init(&err);
	snprintf(dir, sizeof(dir), "%s/scale_sim.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return die("mkdtemp", -errno, NULL);
	if ((rc = fabric_write(&s, &g, dir, &err)) < 0) {
		tmp_remove(dir);
		return die("fabric", rc, &err);
	}
	n = s.n_hosts;
	snprintf(hosts, sizeof(hosts), "%s/hosts", dir);
	snprintf(plan, sizeof(plan), "%s/plan.yaml", dir);

	sweep_req_default(&req);
	counter_policy_default(&pol);
	req.policy = &pol;
	req.hosts = hosts;
	req.topology = plan;
	req.measure = &m;
	req.progress = 0;
	if (all) {
		req.all_pairs = true;
	} else {
		req.coverage_k = k;
		req.mode = SWEEP_MODE_COVERAGE;
	}
	req.sched_cpu_s = &sched;
	if (s.steer) {
		char port_seed[32];

		m.trace = sim_trace;
		req.steer = true;
		/* the same seed, the same sweep: the steered ports' base too (else random) */
		snprintf(port_seed, sizeof(port_seed), "%llu", (unsigned long long)(s.seed & 0xffffffffu));
		setenv("FABRICCTL_STEER_PORT_SEED", port_seed, 0);
	}
	req.on_fabric = on_fabric;
	req.hook_ctx = &s;
	rd.f = fopen(out, "w");
	if (!rd.f) {
		tmp_remove(dir);
		return die(out, -errno, NULL);
	}
	render_select(&rd, "json");
	t0 = now_s();
	rc = sweep_run(&req, &o, &err);
	if (rc == 0) {
		on_report(&s, &o.report);
		rc = rd.ops->sweep(&rd, &o.report) < 0 ? -EIO : 0;
		sweep_outcome_fini(&o);
	}
	t_total = now_s() - t0;
	if (fclose(rd.f) == EOF && rc == 0)
		rc = -EIO;
	tmp_remove(dir);
	if (rc < 0)
		return die("sweep", rc, &err);
	for (size_t l = 0; s.cross && l < s.n_links; l++) {
		min_cross = s.cross[l] < min_cross ? s.cross[l] : min_cross;
		short_cross += s.cross[l] < (all ? 1 : k);
		zero_cross += !s.cross[l];
	}
	for (size_t h = 0; s.host_pairs && h < n; h++)
		min_host = s.host_pairs[h] < min_host ? s.host_pairs[h] : min_host;
	sched += s.sched_cpu_s;
	printf("hosts=%zu links=%zu mode=%s k=%u pairs=%zu all_pairs=%zu pairs_ratio=%.5f rounds=%zu "
	       "bound=%zu sched_cpu_s=%.3f sched_ms_per_round=%.3f sweep_cpu_s=%.3f min_cross=%u "
	       "links_crossed_short=%zu links_uncrossed=%zu min_host_pairs=%u links_short=%zu hosts_short=%zu "
	       "bad_pairs=%zu suspects=%zu faults_named=%d faults_grouped=%d store_on_file=%d "
	       "steer=%d steered=%zu fallback=%zu rounds_whole=%zu traced_flows=%zu "
	       "peak_rss_mb=%.1f (placed %.1f, rounds %.1f, report %.1f)\n",
	       n, s.n_links, all ? "all-pairs" : "coverage", all ? 0 : k, s.n_pairs,
	       n * (n - 1) / 2, (double)s.n_pairs / (double)(n * (n - 1) / 2), s.n_rounds, s.bound,
	       sched, 1000.0 * sched / (double)(s.n_rounds ? s.n_rounds : 1), t_total, min_cross,
	       short_cross, zero_cross, min_host, s.cov_short_links, s.cov_short_hosts, s.bad_pairs, s.n_suspects,
	       s.named,
	       s.grouped, s.on_file, s.steer, s.steered, s.fallback, s.rounds_whole, s.traced_flows,
	       peak_rss_mb(), s.rss_fabric, s.rss_rounds, s.rss_report);
	free(s.rate);
	free(s.cross);
	free(s.host_pairs);
	ecmp_sim_free(s.es);
	return 0;
}
