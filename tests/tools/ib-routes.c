// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ib-routes: walk the InfiniBand subnet with fabricctl's own code (the
 * subnet walk with forwarding tables, src/sys/subnet.c, and the route
 * computation, src/model/route_ib.c) and print the route of every ordered
 * pair of CA ports, for comparison with ibtracert.
 *
 *   ib-routes [-C CA] [-P PORT] [-s MAX_SMPS] [-t TIMEOUT_MS] [-r RETRIES] [-q] [-v]
 *
 * Output, one record a line, fields separated by one space:
 *   ca LID PORTGUID PORTNUM NAME...       every CA/router port with a LID and
 *                                         a cable, by LID (NAME: the node
 *                                         description, may hold spaces)
 *   route SLID DLID KLASS MBPS HOP...     the route SLID -> DLID (HOP: OUT>GUID[IN],
 *                                         leaving by port OUT, entering the port
 *                                         with GUID GUID at its port IN;
 *                                         KLASS, MBPS: the pair's klass and
 *                                         expected_mbps from route_ib_pair)
 *   error SLID DLID MESSAGE...            no route
 *   summary CAS N PAIRS N ERRORS N WALK_MS X ROUTE_MS Y
 * -q prints only errors and the summary.  -v shows fabricctl's phase times (walk,
 * forwarding tables) on stderr.  Exit 0 when every pair has a route, 1 when
 * some have none, 2 on usage, 3 when the walk fails.
 *
 * Build (against the objects of `make lib`):
 *   make lib && cc -std=c17 -D_GNU_SOURCE -Isrc -o ib-routes tests/tools/ib-routes.c \
 *      build/rel/libfab.a $(pkg-config --libs libmnl jansson yaml-0.1 lldpctl \
 *      libibumad libibmad libibnetdisc libibverbs librdmacm) -lm
 * Under ibsim: tests/lab/ibsim run ./ib-routes
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model/path.h"
#include "model/route_ib.h"
#include "model/topo.h"
#include "sys/sys.h"
#include "util/err.h"
#include "util/log.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int lid_cmp(const void *x, const void *y)
{
	const struct topo_port *a = *(struct topo_port *const *)x;
	const struct topo_port *b = *(struct topo_port *const *)y;

	return a->lid < b->lid ? -1 : a->lid > b->lid;
}

static void print_route(const struct topo *t, unsigned int slid, unsigned int dlid,
			const struct pair_route *pr, const struct path *p)
{
	printf("route %u %u %u %.0f", slid, dlid, pr->klass, pr->expected_mbps);
	for (size_t h = 0; h < p->n_hops; h++) {
		const struct topo_link *l = t->links[p->hops[h].link];
		const struct topo_port *out = p->hops[h].fwd ? l->a : l->b;
		const struct topo_port *in = p->hops[h].fwd ? l->b : l->a;

		printf(" %u>0x%016" PRIx64 "[%u]", out->num, in->guid, in->num);
	}
	putchar('\n');
}

int main(int argc, char **argv)
{
	struct subnet_opts o = { .lft = true, .max_smps = 64 };
	struct fab_err err;
	struct sys *sys = NULL;
	struct topo *t = NULL;
	struct route_ib *r = NULL;
	const struct topo_port **cas = NULL;
	size_t n_cas = 0, pairs = 0, errors = 0;
	double t0, t1, t2;
	bool quiet = false;
	int c, rc = 3;

	fab_err_init(&err);
	while ((c = getopt(argc, argv, "C:P:s:t:r:qv")) != -1) {
		switch (c) {
		case 'C': o.ca = optarg; break;
		case 'P': o.ca_port = atoi(optarg); break;
		case 's': o.max_smps = (unsigned int)atoi(optarg); break;
		case 't': o.timeout_ms = (unsigned int)atoi(optarg); break;
		case 'r': o.retries = (unsigned int)atoi(optarg); break;
		case 'q': quiet = true; break;
		case 'v': fab_log_level++; break;
		default:
			fprintf(stderr, "usage: ib-routes [-C CA] [-P PORT] [-s MAX_SMPS] [-t TIMEOUT_MS] "
				"[-r RETRIES] [-q] [-v]\n");
			return 2;
		}
	}
	t = topo_new();
	if (!t || sys_real_new(&sys, NULL, &err) < 0)
		goto fail;
	t0 = now_ms();
	if (!sys->ops->subnet_read || sys->ops->subnet_read(sys, &o, t, &err) < 0)
		goto fail;
	t1 = now_ms();
	topo_sort(t);
	r = route_ib_new(t);
	for (int fill = 0; fill < 2; fill++) {
		size_t k = 0;

		for (size_t i = 0; i < t->n_nodes; i++)
			for (size_t j = 0; t->nodes[i]->type != TOPO_NODE_SWITCH &&
			     j < t->nodes[i]->n_ports; j++)
				if (t->nodes[i]->ports[j]->lid && t->nodes[i]->ports[j]->peer) {
					if (fill)
						cas[k] = t->nodes[i]->ports[j];
					k++;
				}
		n_cas = k;
		if (!fill)
			cas = calloc(n_cas + 1, sizeof(*cas));
		if (!r || !cas) {
			fab_err_set(&err, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	qsort(cas, n_cas, sizeof(*cas), lid_cmp);
	if (!quiet)
		for (size_t i = 0; i < n_cas; i++)
			printf("ca %u 0x%016" PRIx64 " %u %s\n", cas[i]->lid, cas[i]->guid, cas[i]->num,
			       cas[i]->node->name);
	/* Each unordered pair once through route_ib_pair, which routes both directions. */
	for (size_t i = 0; i < n_cas; i++)
		for (size_t j = i + 1; j < n_cas; j++) {
			struct pair_route pr;

			pairs += 2;
			fab_err_init(&err);
			if (route_ib_pair(r, (unsigned int)i, cas[i], (unsigned int)j, cas[j], &pr, &err) < 0) {
				/* One direction failed: route each alone to say which. */
				struct path p;

				for (int d = 0; d < 2; d++) {
					const struct topo_port *s = d ? cas[j] : cas[i], *x = d ? cas[i] : cas[j];
					struct pair_route one = { 0 };

					fab_err_init(&err);
					if (route_ib_path(r, s, x->lid, &p, &err) < 0) {
						errors++;
						printf("error %u %u %s\n", s->lid, x->lid, err.msg);
						continue;
					}
					one.klass = (unsigned int)p.n_hops;
					if (!quiet)
						print_route(t, s->lid, x->lid, &one, &p);
					path_fini(&p);
				}
				continue;
			}
			if (!quiet) {
				print_route(t, cas[i]->lid, cas[j]->lid, &pr, pr.ab);
				print_route(t, cas[j]->lid, cas[i]->lid, &pr, pr.ba);
			}
			pair_route_fini(&pr);
		}
	t2 = now_ms();
	printf("summary cas %zu pairs %zu errors %zu walk_ms %.1f route_ms %.1f\n", n_cas, pairs,
	       errors, t1 - t0, t2 - t1);
	rc = errors ? 1 : 0;
	goto out;
fail:
	fprintf(stderr, "ib-routes: %s\n", err.msg[0] ? err.msg : "out of memory");
out:
	free(cas);
	route_ib_free(r);
	topo_free(t);
	sys_free(sys);
	return rc;
}
