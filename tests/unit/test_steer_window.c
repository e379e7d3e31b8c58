// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Steered rounds window by window (model/steer_window.h) over a simulated
 * per-switch hash (model/ecmp_sim.h) standing in for the workers' traces.
 * The properties, checked apart from the packer: every pair handed out
 * once; in every round no host twice and no directed hop over its
 * capacity, summed over the paths the picks name (a pair counted whole:
 * every path); every learn() call (a trace request) within the flows a
 * host may trace, each pair learned once; a pick's ports are those whose
 * traced path is the pick's; fallback pairs whole with their code.
 * Planned (few pairs) and streamed (more than 32,768 pairs) packing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/ecmp_sim.h"
#include "model/sched_topo.h"
#include "model/steer_window.h"
#include "model/topo_gen.h"
#include "sim_fab.h"

#define HOPS 32
#define FB_SILENT 3
#define FB_NO_FIT 7

struct fab {
	struct topo *t;
	struct fab_hosts hs;
	struct route *r;
	struct ecmp_sim *es;
	unsigned int ports;
	size_t flows_max;
	unsigned int fb_leaf;		/* pairs touching it fall back; UINT32_MAX none */
	bool *learned;			/* nh x nh */
	size_t calls, learned_n;
};

static void fab_place(struct fab *f, size_t nh)
{
	sim_fab_place(&f->hs, &f->r, f->t, nh);
	assert_int_equal(ecmp_sim_new(&f->es, f->r, 24), 0);
	f->learned = calloc(nh * nh, sizeof(*f->learned));
	assert_non_null(f->learned);
	f->fb_leaf = UINT32_MAX;
}

static void fab_down(struct fab *f)
{
	free(f->learned);
	sim_fab_free(&f->hs, f->r, f->t, f->es);
}

/* The index of the hash's path of port @k (direction @d) among @pr's paths; -1 none. */
static int port_path(struct fab *f, const struct pair_route *pr, unsigned int a, unsigned int b,
		     int d, unsigned int k)
{
	struct ecmp_flow fl = { .src = d ? b : a, .dst = d ? a : b, .proto = 6,
				.sport = (uint16_t)(d ? 20032 : 20000 + k),
				.dport = (uint16_t)(d ? 20016 + k : 20032) };
	const struct path *ps = d ? pr->ba : pr->ab;
	size_t np = d ? pr->n_ba : pr->n_ab, n;
	struct path_hop hops[HOPS];

	assert_int_equal(ecmp_sim_path(f->es, &fl, hops, HOPS, &n), 0);
	for (size_t x = 0; x < np; x++)
		if (sim_path_is(&ps[x], hops, n))
			return (int)x;
	return -1;
}

static int learn(void *ctx, const struct sched_pair *pairs, size_t n, struct steer_win_map *out)
{
	struct fab *f = ctx;
	size_t nh = f->r->n_hosts, *flows = calloc(nh, sizeof(*flows));
	struct fab_err err;

	assert_non_null(flows);
	f->calls++;
	for (size_t i = 0; i < n; i++) {
		unsigned int a = pairs[i].a, b = pairs[i].b;
		struct pair_route pr;

		assert_true(f->r->hosts[a].leaf != f->r->hosts[b].leaf);
		assert_false(f->learned[a * nh + b] || f->learned[b * nh + a]);
		f->learned[a * nh + b] = true;
		f->learned_n++;
		flows[a] += f->ports;
		flows[b] += f->ports;
		assert_true(flows[a] <= f->flows_max && flows[b] <= f->flows_max);
		if (f->r->hosts[a].leaf == f->fb_leaf || f->r->hosts[b].leaf == f->fb_leaf) {
			out[i].fb = FB_SILENT;
			continue;
		}
		assert_int_equal(route_pair(f->r, a, b, &pr, &err), 0);
		for (unsigned int k = 0; k < STEER_WIN_PORTS; k++) {
			out[i].ab_of[k] = (int16_t)(k < f->ports ? port_path(f, &pr, a, b, 0, k) : -1);
			out[i].ba_of[k] = (int16_t)(k < f->ports ? port_path(f, &pr, a, b, 1, k) : -1);
		}
		pair_route_fini(&pr);
	}
	free(flows);
	return 0;
}

static void load_path(struct fab *f, double *load, uint32_t *stamp, uint32_t tick,
		      const struct path *p, double e)
{
	for (size_t h = 0; h < p->n_hops; h++) {
		uint32_t dl = p->hops[h].link * 2 + !p->hops[h].fwd;

		if (stamp[dl] == tick)	/* a whole set: each directed link once */
			continue;
		stamp[dl] = tick;
		load[dl] += 1.0 / sched_topo_cap(f->r, dl / 2, e);
	}
}

/* Every round of the window over @base checked; the stats out. */
static size_t check_window(struct fab *f, struct sched_src *base, size_t n_pairs,
			   struct steer_win_stats *st)
{
	struct steer_win_ops ops = { .learn = learn, .ctx = f, .no_fit = FB_NO_FIT };
	struct steer_window *w = NULL;
	size_t nh = f->r->n_hosts, room = nh / 2 + 1, n, seen_n = 0, rounds = 0, cross = 0;
	size_t steered = 0, whole = 0;
	struct sched_pair *pairs = calloc(room, sizeof(*pairs));
	uint32_t *choice = calloc(room, sizeof(*choice));
	struct steer_win_pick *pick = calloc(room, sizeof(*pick));
	double *load = calloc(f->r->n_links * 2, sizeof(*load));
	uint32_t *stamp = calloc(f->r->n_links * 2, sizeof(*stamp)), tick = 0;
	bool *busy = calloc(nh, sizeof(*busy)), *seen = calloc(nh * nh, sizeof(*seen));
	struct fab_err err;
	int rc;

	assert_true(pairs && choice && pick && load && stamp && busy && seen);
	assert_int_equal(steer_window_new(&w, f->r, base, f->ports, f->flows_max, &ops), 0);
	while ((rc = steer_window_next(w, pairs, choice, pick, &n)) > 0) {
		rounds++;
		memset(load, 0, f->r->n_links * 2 * sizeof(*load));
		memset(busy, 0, nh * sizeof(*busy));
		for (size_t i = 0; i < n; i++) {
			unsigned int a = pairs[i].a, b = pairs[i].b;
			bool x = f->r->hosts[a].leaf != f->r->hosts[b].leaf;
			struct pair_route pr;

			assert_false(busy[a] || busy[b]);
			busy[a] = busy[b] = true;
			assert_false(seen[a * nh + b] || seen[b * nh + a]);
			seen[a * nh + b] = true;
			seen_n++;
			cross += x;
			assert_int_equal(route_pair(f->r, a, b, &pr, &err), 0);
			if (pick[i].steered) {
				steered++;
				assert_true(x);
				assert_true(pick[i].ab < pr.n_ab && pick[i].ba < pr.n_ba);
				assert_true(pick[i].ab_ports && pick[i].ba_ports);
				for (unsigned int k = 0; k < f->ports; k++) {
					assert_int_equal(!!(pick[i].ab_ports >> k & 1),
							 port_path(f, &pr, a, b, 0, k) == pick[i].ab);
					assert_int_equal(!!(pick[i].ba_ports >> k & 1),
							 port_path(f, &pr, a, b, 1, k) == pick[i].ba);
				}
				tick++;
				load_path(f, load, stamp, tick, &pr.ab[pick[i].ab], pr.expected_mbps);
				load_path(f, load, stamp, tick, &pr.ba[pick[i].ba], pr.expected_mbps);
			} else {
				whole += x;
				assert_int_equal(choice[i], SCHED_STEER_WHOLE);
				if (!x)
					assert_int_equal(pick[i].fb, 0);
				else if (f->r->hosts[a].leaf == f->fb_leaf ||
					 f->r->hosts[b].leaf == f->fb_leaf)
					assert_int_equal(pick[i].fb, FB_SILENT);
				else
					assert_int_equal(pick[i].fb, FB_NO_FIT);
				tick++;
				for (size_t p = 0; p < pr.n_ab; p++)
					load_path(f, load, stamp, tick, &pr.ab[p], pr.expected_mbps);
				for (size_t p = 0; p < pr.n_ba; p++)
					load_path(f, load, stamp, tick, &pr.ba[p], pr.expected_mbps);
			}
			pair_route_fini(&pr);
		}
		for (size_t l = 0; l < f->r->n_links * 2; l++)
			if (load[l] > 1 + 1e-9)
				fail_msg("round %zu: directed link %zu at %.3f", rounds, l, load[l]);
	}
	assert_int_equal(rc, 0);
	assert_int_equal(seen_n, n_pairs);
	assert_int_equal(f->learned_n, cross);	/* every cross-leaf pair learned, once */
	steer_window_stats(w, st);
	assert_int_equal(st->windows, f->calls);
	assert_true(st->most_host_flows <= f->flows_max);
	assert_int_equal(st->steered, steered);
	assert_int_equal(st->whole, whole);
	assert_int_equal(steered + whole, cross);
	assert_true(rounds >= st->packer.node_bound);
	steer_window_free(w);
	free(pairs);
	free(choice);
	free(pick);
	free(load);
	free(stamp);
	free(busy);
	free(seen);
	return rounds;
}

static int gen_next(struct sched_src *src, struct sched_pair *buf, size_t *n)
{
	return sched_topo_gen_next(src->impl, buf, n);
}

/* All pairs of @f from the streamed generator (spread over the paths). */
static size_t all_pairs(struct fab *f, struct steer_win_stats *st)
{
	size_t nh = f->r->n_hosts, rounds;
	struct sched_topo_gen *g = NULL;
	struct sched_src src;
	struct fab_err err;

	f->r->ecmp_whole = false;
	assert_int_equal(sched_topo_gen_new(&g, f->r, &err), 0);
	src = (struct sched_src){ .next = gen_next, .impl = g, .max_round = nh / 2,
				  .n_pairs = nh * (nh - 1) / 2 };
	rounds = check_window(f, &src, nh * (nh - 1) / 2, st);
	sched_topo_gen_free(g);
	return rounds;
}

/* Random leaf-spine fabrics, few pairs (planned), small windows, a leaf falling back. */
static void test_windows_2l(void **state)
{
	(void)state;
	for (unsigned int seed = 1; seed <= 8; seed++) {
		struct topo_gen_2l g = { .leaves = 2 + seed % 4, .hosts_per_leaf = 2 + seed % 5,
					 .spines = 1 + seed % 4, .host_mbps = 100000,
					 .uplink_mbps = (seed % 3) * 100000 };
		struct steer_win_stats st;
		struct fab f = { .ports = 1 + seed % 8, .flows_max = 0 };

		f.flows_max = f.ports * (1 + seed % 3);	/* 1 to 3 base rounds a window */
		assert_int_equal(topo_gen_leaf_spine(&f.t, &g), 0);
		fab_place(&f, (size_t)g.leaves * g.hosts_per_leaf);
		if (seed % 3 == 0)
			f.fb_leaf = 0;
		all_pairs(&f, &st);
		assert_true(st.windows > 1);
		fab_down(&f);
	}
}

/* A fat tree: paths through cores, a leaf falling back. */
static void test_windows_3l(void **state)
{
	struct topo_gen_3l g = { .pods = 3, .leaves_per_pod = 2, .hosts_per_leaf = 3,
				 .aggs_per_pod = 2, .cores_per_agg = 2, .host_mbps = 100000,
				 .leaf_mbps = 100000, .core_mbps = 100000 };
	struct steer_win_stats st;
	struct fab f = { .ports = 8, .flows_max = 256 };

	(void)state;
	assert_int_equal(topo_gen_fat_tree(&f.t, &g), 0);
	fab_place(&f, 18);
	f.fb_leaf = 1;
	all_pairs(&f, &st);
	assert_int_equal(st.windows, 1);	/* 17 base rounds: one window of 32 */
	fab_down(&f);
}

/*
 * More than 32,768 pairs: streamed (rounds handed out as packed), windows
 * of 256 / 8 = 32 base rounds; the maps held stay a fraction of the pairs;
 * non-blocking (20 hosts at 100G, 5 x 400G up): within 1.25 x the node bound.
 */
static void test_windows_streamed(void **state)
{
	struct topo_gen_2l g = { .leaves = 13, .hosts_per_leaf = 20, .spines = 5,
				 .host_mbps = 100000, .uplink_mbps = 400000 };
	struct steer_win_stats st;
	struct fab f = { .ports = 8, .flows_max = 256 };
	size_t rounds, pairs = 260 * 259 / 2;

	(void)state;
	assert_int_equal(topo_gen_leaf_spine(&f.t, &g), 0);
	fab_place(&f, 260);
	rounds = all_pairs(&f, &st);
	print_message("streamed: 260 hosts, %zu pairs, %zu rounds (node bound %zu), %zu windows, "
		      "%zu maps held at most\n", pairs, rounds, st.packer.node_bound, st.windows,
		      st.maps_most);
	assert_true(st.windows >= 259 / 32);
	assert_true(st.maps_most * 4 < pairs);
	assert_true(rounds * 4 <= st.packer.node_bound * 5);
	fab_down(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows_2l),
		cmocka_unit_test(test_windows_3l),
		cmocka_unit_test(test_windows_streamed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
