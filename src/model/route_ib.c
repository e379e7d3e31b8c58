// SPDX-License-Identifier: GPL-2.0-or-later
/* InfiniBand routes from linear forwarding tables (route_ib.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/route_ib.h"
#include "util/array.h"

struct link_ix {
	uintptr_t link;		/* struct topo_link * */
	uint32_t ix;		/* its index in topo->links[] */
};

struct route_ib {
	const struct topo *t;
	const struct topo_port **by_lid;	/* [0..max_lid] */
	unsigned int max_lid;
	struct link_ix *links;			/* sorted by pointer */
	size_t n_links;
};

static int link_ix_cmp(const void *x, const void *y)
{
	const struct link_ix *a = x, *b = y;

	return a->link < b->link ? -1 : a->link > b->link;
}

struct route_ib *route_ib_new(const struct topo *t)
{
	struct route_ib *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->t = t;
	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++)
			if (t->nodes[i]->ports[j]->lid > r->max_lid)
				r->max_lid = t->nodes[i]->ports[j]->lid;
	r->by_lid = calloc(r->max_lid + 1, sizeof(*r->by_lid));
	r->links = calloc(t->n_links ? t->n_links : 1, sizeof(*r->links));
	if (!r->by_lid || !r->links) {
		route_ib_free(r);
		return NULL;
	}
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *n = t->nodes[i];

		for (size_t j = 0; j < n->n_ports; j++) {
			const struct topo_port *p = n->ports[j];

			/* Every port of a switch carries the switch's LID: keep port 0 (or the first). */
			if (!p->lid || (r->by_lid[p->lid] && r->by_lid[p->lid]->node == n))
				continue;
			r->by_lid[p->lid] = p;
		}
	}
	for (size_t i = 0; i < t->n_links; i++)
		r->links[i] = (struct link_ix){ .link = (uintptr_t)t->links[i], .ix = (uint32_t)i };
	r->n_links = t->n_links;
	qsort(r->links, r->n_links, sizeof(*r->links), link_ix_cmp);
	return r;
}

void route_ib_free(struct route_ib *r)
{
	if (!r)
		return;
	free(r->by_lid);
	free(r->links);
	free(r);
}

const struct topo_port *route_ib_port_by_lid(const struct route_ib *r, unsigned int lid)
{
	return lid && lid <= r->max_lid ? r->by_lid[lid] : NULL;
}

static int link_index(const struct route_ib *r, const struct topo_link *l, uint32_t *ix)
{
	struct link_ix key = { .link = (uintptr_t)l }, *hit;

	hit = bsearch(&key, r->links, r->n_links, sizeof(*r->links), link_ix_cmp);
	if (!hit)
		return -EINVAL;
	*ix = hit->ix;
	return 0;
}

/* Append the hop leaving by @p (linked); -ENOMEM. */
static int hop_add(const struct route_ib *r, struct path *p, size_t *cap,
		   const struct topo_port *out)
{
	struct path_hop h;
	uint32_t ix;

	if (link_index(r, out->link, &ix) < 0)
		return -EINVAL;
	h.link = ix;
	h.fwd = out->link->a == out;
	if (array_reserve((void **)&p->hops, cap, p->n_hops + 1, sizeof(*p->hops)) < 0)
		return -ENOMEM;
	p->hops[p->n_hops++] = h;
	return 0;
}

/* The node a hop enters. */
static const struct topo_node *hop_entered(const struct route_ib *r, const struct path_hop *h)
{
	const struct topo_link *l = r->t->links[h->link];

	return (h->fwd ? l->b : l->a)->node;
}

#define SW_FMT "switch \"%s\" (0x%016" PRIx64 ")"

/* Follow the tables from @src to @dlid into @p (hops appended). */
static int route_walk(const struct route_ib *r, const struct topo_port *src, unsigned int dlid,
		      struct path *p, struct fab_err *err)
{
	const struct topo_port *out = src;
	size_t cap = 0;
	int rc;

	for (;;) {
		const struct topo_port *in;
		const struct topo_node *n;
		unsigned int op;

		rc = hop_add(r, p, &cap, out);
		if (rc < 0)
			return rc == -ENOMEM ? fab_err_set(err, rc, "route: out of memory") :
			       fab_err_set(err, rc, "route: a link not in this graph");
		in = out->peer;
		n = in->node;
		if (n->type != TOPO_NODE_SWITCH) {
			if (in->lid == dlid)
				return 0;
			return fab_err_set(err, -EHOSTUNREACH, "route to lid %u: dead end at \"%s\" "
					   "port %u (lid %u)", dlid, n->name, in->num, in->lid);
		}
		for (size_t i = 0; i + 1 < p->n_hops; i++)
			if (hop_entered(r, &p->hops[i]) == n)
				return fab_err_set(err, -ELOOP, "route to lid %u: loops, enters "
						   SW_FMT " twice (after %zu hops)", dlid,
						   n->name, n->guid, p->n_hops);
		if (!n->lft)
			return fab_err_set(err, -ENODATA, "route to lid %u: " SW_FMT " has no "
					   "forwarding table", dlid, n->name, n->guid);
		op = dlid <= n->lft_top ? n->lft[dlid] : TOPO_LFT_NONE;
		if (op == TOPO_LFT_NONE)
			return fab_err_set(err, -ENOENT, "route to lid %u: " SW_FMT " has no "
					   "forwarding entry for it (LinearFDBTop %u)", dlid, n->name,
					   n->guid, n->lft_top);
		if (op == 0) {
			if (in->lid == dlid)
				return 0;
			return fab_err_set(err, -EHOSTUNREACH, "route to lid %u: " SW_FMT " forwards "
					   "it to itself, but its lid is %u", dlid, n->name, n->guid,
					   in->lid);
		}
		out = topo_port_find(n, op, NULL);
		if (!out || !out->peer)
			return fab_err_set(err, -EHOSTUNREACH, "route to lid %u: dead end, " SW_FMT
					   " forwards it to port %u, which has no link", dlid,
					   n->name, n->guid, op);
	}
}

int route_ib_path(const struct route_ib *r, const struct topo_port *src, unsigned int dlid,
		  struct path *out, struct fab_err *err)
{
	struct path p = { .share = 1.0 };
	int rc;

	if (!dlid)
		return fab_err_set(err, -EINVAL, "route: destination lid 0 (no subnet manager?)");
	if (!src || src->node->type == TOPO_NODE_SWITCH || !src->peer)
		return fab_err_set(err, -EINVAL, "route to lid %u: source %s%s%s is not a linked "
				   "ca port", dlid, src ? "\"" : "", src ? src->node->name : "(none)",
				   src ? "\"" : "");
	rc = route_walk(r, src, dlid, &p, err);
	if (rc < 0) {
		path_fini(&p);
		fab_err_prefix(err, "\"%s\" port %u", src->node->name, src->num);
		return rc;
	}
	*out = p;
	return 0;
}

/* Lowest width_x * lane_mbps over both ends of every hop of @p; @min 0 = none yet. */
static void path_min_mbps(const struct route_ib *r, const struct path *p, double *min)
{
	for (size_t i = 0; i < p->n_hops; i++) {
		const struct topo_link *l = r->t->links[p->hops[i].link];
		const struct topo_port *ends[2] = { l->a, l->b };

		for (int e = 0; e < 2; e++) {
			const struct topo_port *q = ends[e];
			double mbps;

			if ((q->facts & (TOPO_F_WIDTH | TOPO_F_SPEED)) != (TOPO_F_WIDTH | TOPO_F_SPEED) ||
			    !q->width_x || !q->lane_mbps)
				continue;
			mbps = (double)q->width_x * q->lane_mbps;
			if (*min == 0 || mbps < *min)
				*min = mbps;
		}
	}
}

int route_ib_pair(const struct route_ib *r, unsigned int a, const struct topo_port *pa,
		  unsigned int b, const struct topo_port *pb, struct pair_route *out,
		  struct fab_err *err)
{
	struct pair_route pr = { .a = a, .b = b };
	int rc;

	if (!pa || !pb)
		return fab_err_set(err, -EINVAL, "route: host pair %u-%u: a port is missing", a, b);
	pr.ab = calloc(1, sizeof(*pr.ab));
	pr.ba = calloc(1, sizeof(*pr.ba));
	if (!pr.ab || !pr.ba) {
		rc = fab_err_set(err, -ENOMEM, "route: out of memory");
		goto out;
	}
	rc = route_ib_path(r, pa, pb->lid, pr.ab, err);
	if (rc < 0)
		goto out;
	pr.n_ab = 1;
	rc = route_ib_path(r, pb, pa->lid, pr.ba, err);
	if (rc < 0)
		goto out;
	pr.n_ba = 1;
	pr.klass = (unsigned int)pr.ab->n_hops;
	path_min_mbps(r, pr.ab, &pr.expected_mbps);
	path_min_mbps(r, pr.ba, &pr.expected_mbps);
	*out = pr;
	return 0;
out:
	pair_route_fini(&pr);	/* frees the path arrays, filled or not */
	return rc;
}
