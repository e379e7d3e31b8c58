// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Steered rounds against whole ECMP sets on a generated 2-level leaf-spine
 * (tests/bench/schedule.sh; sched_topo.h "Steered rounds").
 *   steer_bench LEAVES HOSTS_PER_LEAF SPINES HOST_MBPS UPLINK_MBPS PORTS
 * All pairs.  Prints one line of key=value figures: the node bound (n - 1,
 * n when n is odd), the rounds counting every ECMP set whole (today's rule
 * where paths are not known), steered as if every member could be chosen
 * (what --dry-run plans), and steered over PORTS traced source ports per
 * pair whose members a stand-in hash picks each way (what a sweep that
 * traced PORTS ports per pair gets).  That no member is over capacity in
 * any steered round is tests/unit/test_sched_topo_steer.c's property.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/sched_topo.h"
#include "model/topo_gen.h"

#define OPT_ROOM 64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned int hash_member(unsigned int a, unsigned int b, unsigned int port, unsigned int k,
				unsigned int seed)
{
	uint32_t h = 2166136261u ^ seed;
	unsigned int v[3] = { a, b, port };

	for (size_t i = 0; i < 3; i++) {
		h ^= v[i];
		h *= 16777619u;
		h ^= h >> 13;
	}
	return h % k;
}

static int place(struct topo **t, struct fab_hosts *hs, struct route **r, const struct topo_gen_2l *g)
{
	size_t nh = (size_t)g->leaves * g->hosts_per_leaf, len = 0;
	char *text = malloc(nh * 40 + 1);
	struct fab_err err;

	fab_err_init(&err);
	if (!text || topo_gen_leaf_spine(t, g) < 0)
		return -ENOMEM;
	for (size_t i = 1; i <= nh; i++)
		len += (size_t)sprintf(text + len, "h%zu 10.%zu.%zu.%zu\n", i, i / 65536, i / 256 % 256,
				       i % 256);
	hosts_init(hs);
	if (hosts_parse(hs, text, len, "generated", &err) < 0 || route_new(r, *t) < 0 ||
	    route_place(*r, hs, &err) < 0) {
		fprintf(stderr, "steer_bench: %s\n", err.msg);
		free(text);
		return -EINVAL;
	}
	free(text);
	route_rates(*r, hs, NULL, NULL);
	return 0;
}

/* Options per pair: every member each way (@ports 0) or @ports hashed source ports. */
static void opts_fill(struct sched_steer_pair *sp, struct sched_steer_opt *opts, size_t n,
		      unsigned int ports)
{
	for (size_t i = 0; i < n; i++) {
		const struct pair_route *pr = sp[i].route;
		struct sched_steer_opt *o = &opts[i * OPT_ROOM];

		sp[i].opts = o;
		if (!ports) {
			sp[i].n_opts = sched_steer_opts_all(pr, o, OPT_ROOM);
			continue;
		}
		sp[i].n_opts = 0;
		for (unsigned int p = 0; p < ports && p < OPT_ROOM; p++)
			o[sp[i].n_opts++] = (struct sched_steer_opt){
				.sport = (uint16_t)(49152 + p),
				.ab = (uint16_t)hash_member(pr->a, pr->b, p, (unsigned int)pr->n_ab, 1),
				.ba = (uint16_t)hash_member(pr->b, pr->a, p, (unsigned int)pr->n_ba, 8),
			};
	}
}

static int steer_rounds(struct route *r, const struct sched *base, struct sched_steer_pair *sp,
			size_t n, size_t *rounds, struct sched_steer_stats *st)
{
	uint32_t *choice = calloc(n + 1, sizeof(*choice));
	struct fab_err err;
	struct sched s;
	int rc;

	fab_err_init(&err);
	if (!choice)
		return -ENOMEM;
	rc = sched_topo_steer(&s, choice, st, r, base, sp, n, &err);
	if (rc < 0)
		fprintf(stderr, "steer_bench: %s\n", err.msg);
	else
		*rounds = s.n_rounds;
	sched_fini(&s);
	free(choice);
	return rc;
}

int main(int argc, char **argv)
{
	struct topo_gen_2l g = { 0 };
	struct fab_hosts hs;
	struct route *r = NULL;
	struct topo *t = NULL;
	struct sched base, whole;
	struct sched_topo_bound b;
	struct sched_steer_stats st_all, st_p;
	struct fab_err err;
	struct pair_route *routes;
	struct sched_steer_pair *sp;
	struct sched_steer_opt *opts;
	size_t nh, n, k = 0, r_all = 0, r_p = 0;
	unsigned int ports;
	double t0, t_all, t_p;

	if (argc < 7) {
		fprintf(stderr, "usage: steer_bench LEAVES HOSTS SPINES HOST_MBPS UPLINK_MBPS PORTS\n");
		return 2;
	}
	g.leaves = (unsigned int)atoi(argv[1]);
	g.hosts_per_leaf = (unsigned int)atoi(argv[2]);
	g.spines = (unsigned int)atoi(argv[3]);
	g.host_mbps = (unsigned int)atoi(argv[4]);
	g.uplink_mbps = (unsigned int)atoi(argv[5]);
	ports = (unsigned int)atoi(argv[6]);
	if (place(&t, &hs, &r, &g) < 0)
		return 3;
	nh = r->n_hosts;
	n = nh * (nh - 1) / 2;
	routes = calloc(n + 1, sizeof(*routes));
	sp = calloc(n + 1, sizeof(*sp));
	opts = calloc(n * OPT_ROOM + 1, sizeof(*opts));
	if (!routes || !sp || !opts)
		return 3;
	fab_err_init(&err);
	for (unsigned int a = 0; a < nh; a++)
		for (unsigned int bb = a + 1; bb < nh; bb++, k++) {
			if (route_pair(r, a, bb, &routes[k], &err) < 0) {
				fprintf(stderr, "steer_bench: %s\n", err.msg);
				return 3;
			}
			sp[k].route = &routes[k];
		}
	r->ecmp_whole = true;
	if (sched_topo_all(&whole, &b, r, &err) < 0)
		return 3;
	r->ecmp_whole = false;
	if (sched_topo_all(&base, &b, r, &err) < 0)
		return 3;
	t0 = now_s();
	opts_fill(sp, opts, n, 0);
	if (steer_rounds(r, &base, sp, n, &r_all, &st_all) < 0)
		return 1;
	t_all = now_s() - t0;
	t0 = now_s();
	opts_fill(sp, opts, n, ports);
	if (steer_rounds(r, &base, sp, n, &r_p, &st_p) < 0)
		return 1;
	t_p = now_s() - t0;
	printf("hosts=%zu pairs=%zu node_bound=%zu whole_set=%zu steered_all=%zu steered_ports=%zu "
	       "ports=%u moved=%zu ratio_all=%.3f ratio_ports=%.3f ratio_whole=%.3f steer_s=%.3f,%.3f\n",
	       nh, n, st_all.node_bound, whole.n_rounds, r_all, r_p, ports, st_p.moved,
	       (double)r_all / (double)st_all.node_bound, (double)r_p / (double)st_all.node_bound,
	       (double)whole.n_rounds / (double)st_all.node_bound, t_all, t_p);
	for (size_t i = 0; i < n; i++)
		pair_route_fini(&routes[i]);
	free(routes);
	free(sp);
	free(opts);
	sched_fini(&base);
	sched_fini(&whole);
	route_free(r);
	hosts_fini(&hs);
	topo_free(t);
	return 0;
}
