// SPDX-License-Identifier: GPL-2.0-or-later
/* Distances, ACS on a path, link expectations, GPUDirect: see pcie_topo.h. */
#include <string.h>

#include "model/pcie_topo.h"
#include "util/array.h"
#include "util/str.h"

#define PCIE_SEEN_MAX 64	/* distinct bridges on the paths from one NIC */

const char *pcie_distance_name(enum pcie_distance d)
{
	static const char *const names[] = {
		[PCIE_DIST_SWITCH] = "switch", [PCIE_DIST_ROOT_PORT] = "root_port",
		[PCIE_DIST_HOST_BRIDGE] = "host_bridge", [PCIE_DIST_NODE] = "numa_node",
		[PCIE_DIST_SOCKET] = "socket", [PCIE_DIST_SYSTEM] = "cross_socket",
		[PCIE_DIST_UNKNOWN] = "unknown",
	};

	return (unsigned int)d < ARRAY_SIZE(names) ? names[d] : "unknown";
}

int pcie_numa(const struct pcie_view *v, const struct pcie_dev *d)
{
	if (d->numa_node >= 0)
		return d->numa_node;
	return v->numa_nodes == 1 ? 0 : -1;
}

/* How many bridges, from the root port down, @a and @b share (same host bridge). */
static size_t common_bridges(const struct pcie_dev *a, const struct pcie_dev *b)
{
	size_t k = 0;

	while (k < a->n_bridges && k < b->n_bridges &&
	       !strcmp(a->bridges[k].bdf, b->bridges[k].bdf))
		k++;
	return k;
}

static bool same_host_bridge(const struct pcie_dev *a, const struct pcie_dev *b)
{
	return a->host_bridge[0] && !strcmp(a->host_bridge, b->host_bridge);
}

enum pcie_distance pcie_distance(const struct pcie_view *v, const struct pcie_dev *a,
				 const struct pcie_dev *b)
{
	int na, nb;

	if (same_host_bridge(a, b)) {
		size_t k = common_bridges(a, b);

		return k >= 2 ? PCIE_DIST_SWITCH : k == 1 ? PCIE_DIST_ROOT_PORT
							   : PCIE_DIST_HOST_BRIDGE;
	}
	na = pcie_numa(v, a);
	nb = pcie_numa(v, b);
	if (na < 0 || nb < 0)
		return PCIE_DIST_UNKNOWN;
	if (na == nb)
		return PCIE_DIST_NODE;
	if (a->socket < 0 || b->socket < 0)
		return PCIE_DIST_UNKNOWN;
	return a->socket == b->socket ? PCIE_DIST_SOCKET : PCIE_DIST_SYSTEM;
}

size_t pcie_nic_gpus(const struct pcie_view *v, const struct pcie_dev *nic, size_t *idx,
		     size_t max, enum pcie_distance *dist)
{
	enum pcie_distance best = PCIE_DIST_UNKNOWN;
	size_t n = 0;

	for (size_t i = 0; i < v->n_gpus; i++) {
		enum pcie_distance d = pcie_distance(v, nic, &v->gpus[i]);

		if (d < best)
			best = d;
	}
	for (size_t i = 0; i < v->n_gpus; i++)
		if (pcie_distance(v, nic, &v->gpus[i]) == best && n < max)
			idx[n++] = i;
	*dist = best;
	return n;
}

static bool seen(const char (*bdfs)[PCIE_BDF_LEN], size_t n, const char *bdf)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(bdfs[i], bdf))
			return true;
	return false;
}

/* Bridge @b of a path, counted once. */
static void nic_acs_one(const struct pcie_bridge *b, char (*bdfs)[PCIE_BDF_LEN], size_t *n_seen,
			const struct pcie_bridge **out, size_t max, size_t *n, size_t *unread)
{
	if (seen((const char (*)[PCIE_BDF_LEN])bdfs, *n_seen, b->bdf) || *n_seen == PCIE_SEEN_MAX)
		return;
	str_fmt(bdfs[(*n_seen)++], PCIE_BDF_LEN, "%s", b->bdf);
	if (b->acs.state == PCIE_ACS_UNREAD)
		(*unread)++;
	else if (b->acs.state == PCIE_ACS_PRESENT && (b->acs.ctl & PCIE_ACS_P2P_REDIRECT) &&
		 *n < max)
		out[(*n)++] = b;
}

size_t pcie_nic_acs(const struct pcie_view *v, const struct pcie_dev *nic, const size_t *idx,
		    size_t n, const struct pcie_bridge **out, size_t max, size_t *n_path,
		    size_t *unread)
{
	char bdfs[PCIE_SEEN_MAX][PCIE_BDF_LEN];
	size_t n_seen = 0, n_on = 0;

	*unread = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pcie_dev *g = &v->gpus[idx[i]];
		size_t k = same_host_bridge(nic, g) ? common_bridges(nic, g) : 0;

		for (size_t j = k; j < nic->n_bridges; j++)
			nic_acs_one(&nic->bridges[j], bdfs, &n_seen, out, max, &n_on, unread);
		for (size_t j = k; j < g->n_bridges; j++)
			nic_acs_one(&g->bridges[j], bdfs, &n_seen, out, max, &n_on, unread);
	}
	*n_path = n_seen;
	return n_on;
}

const struct pcie_link *pcie_dev_slot(const struct pcie_dev *d)
{
	return d->n_bridges ? &d->bridges[d->n_bridges - 1].link : NULL;
}

static unsigned int lower(unsigned int a, unsigned int b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return a < b ? a : b;
}

void pcie_link_best(const struct pcie_dev *d, unsigned int *speed_mts, unsigned int *width)
{
	const struct pcie_link *s = pcie_dev_slot(d);

	*speed_mts = lower(d->link.max_speed_mts, s ? s->max_speed_mts : 0);
	*width = lower(d->link.max_width, s ? s->max_width : 0);
}

bool pcie_link_degraded(const struct pcie_dev *d)
{
	unsigned int s, w;

	pcie_link_best(d, &s, &w);
	return (d->link.speed_mts && s && d->link.speed_mts < s) ||
	       (d->link.width && w && d->link.width < w);
}

bool pcie_gpudirect_ready(const struct pcie_view *v)
{
	return v->n_gpus && (v->gd.peer_mem[0] || v->gd.dma_buf);
}
