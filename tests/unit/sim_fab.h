/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One place for the simulated fabrics of the steering unit tests
 * (test_sched_steer_stream, test_sched_topo_steer, test_steer_cover,
 * test_steer_window): hosts h1..hN at 10.0.x.y placed on a generated
 * topology's access links, the route model over them, and the helpers
 * they share (a 64-bit mixer for seeded choices, a path compared with a
 * hop list).  Header-only: each test is one translation unit linked with
 * libfab.a (Makefile, build/san/tests/%).
 */
#ifndef FAB_TESTS_SIM_FAB_H
#define FAB_TESTS_SIM_FAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/ecmp_sim.h"
#include "model/sched_topo.h"

/*
 * Hosts h1..h@nh (10.0.i/256.i%256) parsed into @hs and placed on @t's
 * access links in order; *@r the route model with the plan's rates.
 * Fails the running cmocka test on any error.
 */
static inline void sim_fab_place(struct fab_hosts *hs, struct route **r, struct topo *t, size_t nh)
{
	size_t cap = 64 * nh + 1, len = 0;
	char *buf = malloc(cap);
	struct fab_err err;

	assert_non_null(buf);
	for (size_t i = 1; i <= nh; i++)
		len += (size_t)snprintf(buf + len, cap - len, "h%zu 10.0.%zu.%zu\n", i, i / 256,
					i % 256);
	hosts_init(hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(hs, buf, len, "hosts", &err), 0);
	free(buf);
	assert_int_equal(route_new(r, t), 0);
	assert_int_equal(route_place(*r, hs, &err), 0);
	route_rates(*r, hs, NULL, NULL);
}

/* Undo sim_fab_place() and free @t and @es (either may be NULL). */
static inline void sim_fab_free(struct fab_hosts *hs, struct route *r, struct topo *t,
				struct ecmp_sim *es)
{
	ecmp_sim_free(es);
	route_free(r);
	hosts_fini(hs);
	topo_free(t);
}

/* splitmix64's finaliser: seeded, well-spread choices for the random fabrics. */
static inline uint64_t sim_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Whether @p is the hop list @h[@n] (same links, same directions). */
static inline bool sim_path_is(const struct path *p, const struct path_hop *h, size_t n)
{
	if (p->n_hops != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (p->hops[i].link != h[i].link || p->hops[i].fwd != h[i].fwd)
			return false;
	return true;
}

#endif
