// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hosts-file and pairs-file parsers on arbitrary bytes.  The input is
 * split at the first "\n%%\n": before it a hosts file, after it a pairs
 * file for those hosts.  Checks that whatever parses is well-formed.
 */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/hosts.h"
#include "model/schedule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The pairs a sweep makes of the ports: each once, of two nodes, pairable. */
static void ports_check(const struct fab_hosts *hs)
{
	struct sched_pair *p = NULL;
	size_t n = 0;

	if (hs->n > 64 || hosts_port_pairs(hs, false, false, &p, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		assert(p[i].a < p[i].b && p[i].b < hs->n);
		assert(hosts_ports_pair(&hs->hosts[p[i].a], &hs->hosts[p[i].b], false));
	}
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data, *sep = memmem(buf, size, "\n%%\n", 4);
	size_t hlen = sep ? (size_t)(sep - buf) : size;
	struct fab_pairs_list pl;
	struct fab_hosts hs;
	struct fab_err err;

	hosts_init(&hs);
	fab_err_init(&err);
	if (hosts_parse(&hs, buf, hlen, "fuzz", &err) == 0) {
		assert(hs.n > 0);
		for (size_t i = 0; i < hs.n; i++) {
			const struct fab_host *h = &hs.hosts[i];
			size_t nl = strlen(h->node);

			/* NAME, or NAME:IFNAME for a port of a host of several */
			assert(hosts_name_valid(h->node));
			assert(h->n_ports > 1 ? strncmp(h->name, h->node, nl) == 0 && h->name[nl] == ':' &&
						strcmp(h->name + nl + 1, h->nic) == 0 && h->rail >= 0
					      : strcmp(h->name, h->node) == 0);
			assert(h->port < h->n_ports && h->rail <= FAB_HOST_RAIL_MAX);
			assert(hosts_find(&hs, h->name) == (int)i);
			assert(h->n_labels <= FAB_HOST_LABELS_MAX);
		}
		ports_check(&hs);
		if (sep) {
			if (hosts_pairs_parse(&pl, &hs, sep + 4, size - hlen - 4, "pairs", &err) == 0)
				for (size_t i = 0; i < pl.n; i++)
					assert(pl.pairs[i][0] < hs.n && pl.pairs[i][1] < hs.n &&
					       pl.pairs[i][0] != pl.pairs[i][1]);
			hosts_pairs_fini(&pl);
		}
	} else {
		assert(err.code < 0 && err.msg[0]);
	}
	hosts_fini(&hs);
	return 0;
}
