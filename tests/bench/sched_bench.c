// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Schedule all pairs of a generated 3-level fat tree (tests/bench/schedule.sh).
 *   sched_bench PODS LEAVES_PER_POD HOSTS_PER_LEAF AGGS CORES_PER_AGG [UPLINK_MBPS] [--check]
 * Prints one line of key=value figures: the schedule's time (routing, host
 * placement, bound and every round generated; CPU per round: all of it over
 * the rounds), peak RSS, rounds, bound and their ratio; --check then
 * verifies every round (not timed).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "model/sched_topo.h"
#include "model/topo_gen.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds of this process (user + system). */
static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static long peak_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
	struct topo_gen_3l g = { 0 };
	struct sched_topo_gen *gen = NULL;
	struct sched_topo_checker *chk = NULL;
	struct sched_pair *buf = NULL;
	struct fab_hosts hs;
	struct route *r = NULL;
	struct topo *t = NULL;
	struct fab_err err;
	size_t n_hosts, rounds = 0, pairs = 0, n, len = 0;
	const struct sched_topo_bound *b;
	bool check = argc > 7 && strcmp(argv[7], "--check") == 0;
	double t0, c0, t_gen, t_sched, c_sched, t_route, t_bound;
	char *text;
	int rc;

	if (argc < 6) {
		fprintf(stderr, "usage: sched_bench PODS LEAVES HOSTS AGGS CORES [UPLINK_MBPS] [--check]\n");
		return 2;
	}
	g.pods = (unsigned int)atoi(argv[1]);
	g.leaves_per_pod = (unsigned int)atoi(argv[2]);
	g.hosts_per_leaf = (unsigned int)atoi(argv[3]);
	g.aggs_per_pod = (unsigned int)atoi(argv[4]);
	g.cores_per_agg = (unsigned int)atoi(argv[5]);
	g.host_mbps = 100000;
	g.leaf_mbps = g.core_mbps = argc > 6 ? (unsigned int)atoi(argv[6]) : 100000;
	fab_err_init(&err);
	t0 = now_s();
	if ((rc = topo_gen_fat_tree(&t, &g)) < 0) {
		fprintf(stderr, "sched_bench: topo_gen_fat_tree: %s\n", strerror(-rc));
		return 3;
	}
	n_hosts = (size_t)g.pods * g.leaves_per_pod * g.hosts_per_leaf;
	text = malloc(n_hosts * 40 + 1);
	if (!text)
		return 3;
	for (size_t i = 1; i <= n_hosts; i++)
		len += (size_t)sprintf(text + len, "h%zu 10.%zu.%zu.%zu\n", i, i / 65536, i / 256 % 256, i % 256);
	hosts_init(&hs);
	if (hosts_parse(&hs, text, len, "generated", &err) < 0) {
		fprintf(stderr, "sched_bench: %s\n", err.msg);
		return 3;
	}
	free(text);
	t_gen = now_s() - t0;

	t0 = now_s();
	c0 = cpu_s();
	if ((rc = route_new(&r, t)) < 0 || (rc = route_place(r, &hs, &err)) < 0) {
		fprintf(stderr, "sched_bench: route: %s\n", err.msg[0] ? err.msg : strerror(-rc));
		return 3;
	}
	route_rates(r, &hs, NULL, NULL);
	t_route = now_s() - t0;
	if (sched_topo_gen_new(&gen, r, &err) < 0) {
		fprintf(stderr, "sched_bench: %s\n", err.msg);
		return 3;
	}
	t_bound = now_s() - t0 - t_route;
	buf = calloc(n_hosts / 2 + 1, sizeof(*buf));
	if (!buf)
		return 3;
	while ((rc = sched_topo_gen_next(gen, buf, &n)) == 1) {
		rounds++;
		pairs += n;
	}
	t_sched = now_s() - t0;
	c_sched = cpu_s() - c0;
	if (rc < 0) {
		fprintf(stderr, "sched_bench: round %zu: %s\n", rounds + 1, strerror(-rc));
		return 3;
	}
	b = sched_topo_gen_bound(gen);
	printf("hosts=%zu links=%zu pairs=%zu rounds=%zu bound=%zu node=%zu link=%zu cut=%zu ratio=%.3f "
	       "gen_s=%.3f sched_s=%.3f sched_cpu_s=%.3f sched_ms_per_round=%.4f (route %.3f bound %.3f rounds %.3f) "
	       "peak_rss_mb=%.1f\n",
	       n_hosts, t->n_links, pairs, rounds, b->bound, b->node, b->link, b->cut,
	       (double)rounds / (double)(b->bound ? b->bound : 1), t_gen, t_sched, c_sched,
	       1000.0 * c_sched / (double)(rounds ? rounds : 1), t_route, t_bound,
	       t_sched - t_route - t_bound, peak_rss_kb() / 1024.0);
	if (check) {
		sched_topo_gen_reset(gen);
		if (sched_topo_checker_new(&chk, r, NULL, 0) < 0)
			return 3;
		while ((rc = sched_topo_gen_next(gen, buf, &n)) == 1)
			if (sched_topo_checker_round(chk, buf, n, &err) < 0) {
				fprintf(stderr, "sched_bench: check: %s\n", err.msg);
				return 1;
			}
		if (rc < 0 || sched_topo_checker_finish(chk, &err) < 0) {
			fprintf(stderr, "sched_bench: check: %s\n", err.msg);
			return 1;
		}
		printf("check=ok\n");
		sched_topo_checker_free(chk);
	}
	free(buf);
	sched_topo_gen_free(gen);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
	return 0;
}
