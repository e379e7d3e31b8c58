// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/host_state.h"
#include "model/optics.h"
#include "model/pcie.h"
#include "util/array.h"
#include "util/str.h"

void host_state_init(struct host_state *hs)
{
	memset(hs, 0, sizeof(*hs));
}

static void rdma_port_fini(struct fab_rdma_port *p)
{
	free(p->gids);
	free(p->counters);
	free(p->chain);
}

void host_state_fini(struct host_state *hs)
{
	size_t i, j;

	if (!hs)
		return;
	for (i = 0; i < hs->n_rdma; i++) {
		for (j = 0; j < hs->rdma[i].n_ports; j++)
			rdma_port_fini(&hs->rdma[i].ports[j]);
		free(hs->rdma[i].ports);
	}
	free(hs->rdma);
	free(hs->links);
	if (hs->optics)
		optics_set_fini(hs->optics);
	free(hs->optics);
	pcie_view_free(hs->pcie);
	memset(hs, 0, sizeof(*hs));
}

struct fab_link *host_state_link_add(struct host_state *hs)
{
	struct fab_link *l = array_add((void **)&hs->links, &hs->n_links, sizeof(*l));

	if (l)
		l->speed_mbps = -1;
	return l;
}

struct fab_rdma_dev *host_state_rdma_add(struct host_state *hs)
{
	return array_add((void **)&hs->rdma, &hs->n_rdma, sizeof(struct fab_rdma_dev));
}

struct fab_rdma_port *rdma_dev_port_add(struct fab_rdma_dev *dev)
{
	return array_add((void **)&dev->ports, &dev->n_ports, sizeof(struct fab_rdma_port));
}

struct fab_gid *rdma_port_gid_add(struct fab_rdma_port *port)
{
	return array_add((void **)&port->gids, &port->n_gids, sizeof(struct fab_gid));
}

struct fab_counter *rdma_port_counter_add(struct fab_rdma_port *port,
					  const char *name, uint64_t value)
{
	struct fab_counter *c = array_add((void **)&port->counters, &port->n_counters,
					  sizeof(*c));

	if (!c)
		return NULL;
	str_fmt(c->name, sizeof(c->name), "%s", name);
	c->value = value;
	port->counters_supported = true;
	return c;
}

struct fab_link *host_state_link_by_name(const struct host_state *hs, const char *name)
{
	for (size_t i = 0; i < hs->n_links; i++)
		if (strcmp(hs->links[i].name, name) == 0)
			return &hs->links[i];
	return NULL;
}

struct fab_link *host_state_link_by_index(const struct host_state *hs, int ifindex)
{
	for (size_t i = 0; i < hs->n_links; i++)
		if (hs->links[i].ifindex == ifindex)
			return &hs->links[i];
	return NULL;
}

struct fab_rdma_dev *host_state_rdma_by_name(const struct host_state *hs, const char *name)
{
	for (size_t i = 0; i < hs->n_rdma; i++)
		if (strcmp(hs->rdma[i].name, name) == 0)
			return &hs->rdma[i];
	return NULL;
}

static bool name_listed(const char *name, char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

int host_state_keep_named(struct host_state *hs, char *const *names, size_t n)
{
	size_t keep = 0;

	for (size_t i = 0; i < n; i++)
		if (!host_state_link_by_name(hs, names[i]) && !host_state_rdma_by_name(hs, names[i]))
			return (int)i;
	for (size_t i = 0; i < hs->n_links; i++)
		if (name_listed(hs->links[i].name, names, n))
			hs->links[keep++] = hs->links[i];
	hs->n_links = keep;
	keep = 0;
	for (size_t i = 0; i < hs->n_rdma; i++) {
		struct fab_rdma_dev *d = &hs->rdma[i];

		if (name_listed(d->name, names, n)) {
			hs->rdma[keep++] = *d;
			continue;
		}
		for (size_t j = 0; j < d->n_ports; j++)
			rdma_port_fini(&d->ports[j]);
		free(d->ports);
	}
	hs->n_rdma = keep;
	if (hs->pcie)
		pcie_view_keep_named(hs->pcie, names, n);
	return -1;
}

void host_state_resolve_masters(struct host_state *hs)
{
	for (size_t i = 0; i < hs->n_links; i++) {
		struct fab_link *l = &hs->links[i];
		struct fab_link *m;

		l->master[0] = '\0';
		if (!l->master_ifindex)
			continue;
		m = host_state_link_by_index(hs, l->master_ifindex);
		if (m)
			memcpy(l->master, m->name, sizeof(l->master));
	}
}

static int link_cmp(const void *a, const void *b)
{
	const struct fab_link *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

static int rdma_cmp(const void *a, const void *b)
{
	const struct fab_rdma_dev *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int port_cmp(const void *a, const void *b)
{
	const struct fab_rdma_port *x = a, *y = b;

	return (x->port > y->port) - (x->port < y->port);
}

static int gid_cmp(const void *a, const void *b)
{
	const struct fab_gid *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

void host_state_sort(struct host_state *hs)
{
	if (hs->n_links)
		qsort(hs->links, hs->n_links, sizeof(*hs->links), link_cmp);
	if (hs->n_rdma)
		qsort(hs->rdma, hs->n_rdma, sizeof(*hs->rdma), rdma_cmp);
	for (size_t i = 0; i < hs->n_rdma; i++) {
		struct fab_rdma_dev *d = &hs->rdma[i];

		if (d->n_ports)
			qsort(d->ports, d->n_ports, sizeof(*d->ports), port_cmp);
		for (size_t j = 0; j < d->n_ports; j++)
			if (d->ports[j].n_gids)
				qsort(d->ports[j].gids, d->ports[j].n_gids,
				      sizeof(*d->ports[j].gids), gid_cmp);
	}
}

static const struct {
	const char *name;
	double lane_gbps;
} ib_speeds[] = {
	{ "SDR", 2.5 }, { "DDR", 5.0 }, { "QDR", 10.0 }, { "FDR10", 10.0 },
	{ "FDR", 14.0 }, { "EDR", 25.0 }, { "HDR", 50.0 },
	{ "NDR", 100.0 }, { "XDR", 200.0 },
};

double ib_speed_lane_gbps(const char *speed)
{
	for (size_t i = 0; i < ARRAY_SIZE(ib_speeds); i++)
		if (strcasecmp(speed, ib_speeds[i].name) == 0)
			return ib_speeds[i].lane_gbps;
	return 0;
}

unsigned int ib_width_parse(const char *s)
{
	char *end;
	unsigned long w = strtoul(s, &end, 10);

	if (end == s || (*end != 'x' && *end != 'X') || end[1] != '\0')
		return 0;
	if (w != 1 && w != 2 && w != 4 && w != 8 && w != 12)
		return 0;
	return (unsigned int)w;
}
