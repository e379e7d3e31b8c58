// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The rails discover --save-plan writes (model/plan_rails.h): hosts'
 * NICs from the hosts file or LLDP, leaves' rails from their NICs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/plan_rails.h"

#define NICS_MAX (FAB_HOST_RAIL_MAX + 1)

/* @h's node in the graph: its label lldp_name=, else its NAME. */
static const struct topo_node *host_node(const struct topo *t, const struct fab_host *h)
{
	const char *name = hosts_label(h, "lldp_name");

	return topo_node_by_name(t, name ? name : hosts_node(h));
}

/* Named port @name of @n, cabled (to anything): NULL when not. */
static const struct topo_port *cabled(const struct topo_node *n, const char *name)
{
	const struct topo_port *p = name[0] ? topo_port_find(n, 0, name) : NULL;

	return p && p->peer ? p : NULL;
}

static int nics_add(struct topo_rails *out, const struct topo_node *n,
		    const struct topo_port **nics, size_t k)
{
	for (unsigned int i = 0; i < k; i++)
		if (topo_rails_nic_add(out, n->name, nics[i]->num, nics[i]->name, i) < 0)
			return -ENOMEM;
	return 0;
}

/* A host of several lines from @first: its ports in rail order, if rails 0..k-1, all cabled. */
static int nics_from_lines(const struct fab_hosts *hs, size_t first, const struct topo_node *n,
			   struct topo_rails *out)
{
	const struct topo_port *nics[NICS_MAX] = { NULL };
	const char *node = hosts_node(&hs->hosts[first]);
	size_t k = hs->hosts[first].n_ports;

	if (k > NICS_MAX)
		return 0;
	for (size_t i = first; i < hs->n; i++) {
		const struct fab_host *h = &hs->hosts[i];

		if (strcmp(hosts_node(h), node))
			continue;
		if (h->rail < 0 || (size_t)h->rail >= k || nics[h->rail])
			return 0;
		nics[h->rail] = cabled(n, h->nic);
		if (!nics[h->rail])
			return 0;
	}
	for (size_t r = 0; r < k; r++)
		if (!nics[r])
			return 0;
	return nics_add(out, n, nics, k);
}

static int port_name_cmp(const void *x, const void *y)
{
	return strverscmp((*(const struct topo_port *const *)x)->name,
			  (*(const struct topo_port *const *)y)->name);
}

/* A host of one line: the named ports LLDP saw on switches, by name, each on its own switch. */
static int nics_from_lldp(const struct topo_node *n, struct topo_rails *out)
{
	const struct topo_port *nics[NICS_MAX];
	size_t k = 0;

	for (size_t i = 0; i < n->n_ports; i++) {
		const struct topo_port *p = n->ports[i];

		if (!p->name[0] || !p->peer || p->peer->node->type != TOPO_NODE_SWITCH)
			continue;
		if (k == NICS_MAX)
			return 0;
		nics[k++] = p;
	}
	if (k < 2)
		return 0;
	for (size_t i = 0; i < k; i++)
		for (size_t j = i + 1; j < k; j++)
			if (nics[i]->peer->node == nics[j]->peer->node)
				return 0;	/* two on one switch: not rails */
	qsort(nics, k, sizeof(nics[0]), port_name_cmp);
	return nics_add(out, n, nics, k);
}

struct leaf_rail {
	const struct topo_node *sw;
	unsigned int rail;
};

static int leaf_rail_cmp(const void *x, const void *y)
{
	const struct leaf_rail *a = x, *b = y;

	if (a->sw != b->sw)
		return strcmp(a->sw->name, b->sw->name);
	return (a->rail > b->rail) - (a->rail < b->rail);
}

/* Every switch whose railed NICs all have one rail gets it. */
static int leaves_add(const struct topo *t, struct topo_rails *out)
{
	struct leaf_rail *lr = calloc(out->n_nics ? out->n_nics : 1, sizeof(*lr));
	size_t n = 0;
	int rc = 0;

	if (!lr)
		return -ENOMEM;
	for (size_t i = 0; i < out->n_nics; i++) {
		const struct topo_rail_nic *nic = &out->nics[i];
		const struct topo_node *h = topo_node_by_name(t, nic->node);
		const struct topo_port *p = h ? topo_port_find(h, nic->num, nic->port) : NULL;

		if (p && p->peer && p->peer->node->type == TOPO_NODE_SWITCH)
			lr[n++] = (struct leaf_rail){ p->peer->node, nic->rail };
	}
	qsort(lr, n, sizeof(*lr), leaf_rail_cmp);
	for (size_t i = 0; i < n && rc == 0;) {
		size_t j = i;

		while (j < n && lr[j].sw == lr[i].sw)
			j++;
		if (lr[j - 1].rail == lr[i].rail)
			rc = topo_rails_leaf_add(out, lr[i].sw->name, lr[i].rail);
		i = j;
	}
	free(lr);
	return rc;
}

int plan_rails_derive(const struct topo *t, const struct fab_hosts *hs, struct topo_rails *out)
{
	for (size_t i = 0; i < hs->n; i++) {
		const struct fab_host *h = &hs->hosts[i];
		const struct topo_node *n;
		int rc;

		if (h->port != 0 || !hosts_is_endpoint(h))
			continue;	/* a node once, at its first line; switches have no nics */
		n = host_node(t, h);
		if (!n || n->type == TOPO_NODE_SWITCH)
			continue;
		rc = h->n_ports > 1 ? nics_from_lines(hs, i, n, out) : nics_from_lldp(n, out);
		if (rc < 0)
			return rc;
	}
	return leaves_add(t, out);
}
