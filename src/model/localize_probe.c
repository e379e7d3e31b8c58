// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Link localisation (localize.h): a member as text (loc_member_text()),
 * and the probe pairs that split a group of suspects (loc_probes_pick(),
 * loc_group_narrow()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"
#include "model/localize_impl.h"
#include "model/ptr_index.h"

void loc_probes_fini(struct loc_probes *p)
{
	for (size_t i = 0; i < p->n; i++)
		pair_route_fini(&p->routes[i]);
	free(p->routes);
	free(p->masks);
	memset(p, 0, sizeof(*p));
}

/* ---- text ---- */

static const char *host_name(const struct loc_input *in, int h, char *buf, size_t len)
{
	if (in->host_names && in->host_names[h])
		return in->host_names[h];
	str_fmt(buf, len, "host %d", h);
	return buf;
}

void loc_member_text(const struct loc_input *in, const struct loc_member *m, char *buf, size_t len)
{
	char a[256], b[256], hn[32];

	if (m->link == LOC_NO_LINK) {
		str_fmt(buf, len, "node %s", m->host >= 0 ? host_name(in, m->host, hn, sizeof(hn)) : "?");
		return;
	}
	const struct topo_link *l = in->topo->links[m->link];

	if (m->host >= 0) {
		/* The switch end is the one that is not the host's node. */
		const struct topo_port *sw = l->a->node->type == TOPO_NODE_SWITCH ? l->a : l->b;
		const struct topo_port *hp = sw == l->a ? l->b : l->a;

		topo_port_text(sw, a, sizeof(a));
		str_fmt(buf, len, "node %s (its link to %s)",
			 in->host_names && in->host_names[m->host] ? in->host_names[m->host]
								   : hp->node->name, a);
		return;
	}
	topo_port_text(l->a, a, sizeof(a));
	topo_port_text(l->b, b, sizeof(b));
	str_fmt(buf, len, "%s <-> %s", a, b);
}

/* True when @r crosses member @m (its link, or its host for a host member). */
static bool member_crossed(const struct loc_input *in, const struct loc_member *m,
			   const struct pair_route *r)
{
	if (m->host >= 0 && (r->a == (unsigned int)m->host || r->b == (unsigned int)m->host))
		return true;
	return m->link != LOC_NO_LINK && pair_route_uses_link(r, m->link);
}

/* ---- probes ---- */

/* The host end's node of host @h's access link; NULL when unknown. */
static const struct topo_node *host_node(const struct loc_input *in, size_t h)
{
	uint32_t l = in->host_link ? in->host_link[h] : LOC_NO_LINK;

	if (l == LOC_NO_LINK)
		return NULL;
	const struct topo_link *link = in->topo->links[l];

	return link->a->node->type == TOPO_NODE_SWITCH ? link->b->node : link->a->node;
}

struct host_rank {
	size_t h;
	size_t dist;
};

static int host_rank_cmp(const void *x, const void *y)
{
	const struct host_rank *a = x, *b = y;

	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return a->h < b->h ? -1 : a->h > b->h;
}

/* Hosts ordered by graph distance to the members' links, nearest first. */
static int hosts_by_distance(const struct loc_input *in, const struct loc_suspect *s,
			     struct host_rank *order)
{
	const struct topo *t = in->topo;
	size_t nn = t->n_nodes, head = 0, tail = 0;
	struct ptr_index ix = { 0 };
	size_t *dist = malloc((nn ? nn : 1) * sizeof(*dist));
	size_t *queue = malloc((nn ? nn : 1) * sizeof(*queue));
	int rc = ptr_index_init(&ix, nn);

	if (rc || !dist || !queue) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nn; i++) {
		ptr_index_set(&ix, i, t->nodes[i]);
		dist[i] = SIZE_MAX;
	}
	ptr_index_sort(&ix);
	for (size_t m = 0; m < s->n_members; m++) {
		const struct topo_link *l;

		if (s->members[m].link == LOC_NO_LINK)
			continue;
		l = t->links[s->members[m].link];
		for (int e = 0; e < 2; e++) {
			size_t i = ptr_index_find(&ix, (e ? l->b : l->a)->node);

			if (i != SIZE_MAX && dist[i] == SIZE_MAX) {
				dist[i] = 0;
				queue[tail++] = i;
			}
		}
	}
	while (head < tail) {
		size_t i = queue[head++];
		const struct topo_node *n = t->nodes[i];

		for (size_t p = 0; p < n->n_ports; p++) {
			size_t j;

			if (!n->ports[p]->peer)
				continue;
			j = ptr_index_find(&ix, n->ports[p]->peer->node);
			if (j != SIZE_MAX && dist[j] == SIZE_MAX) {
				dist[j] = dist[i] + 1;
				queue[tail++] = j;
			}
		}
	}
	for (size_t h = 0; h < in->n_hosts; h++) {
		const struct topo_node *n = host_node(in, h);
		size_t i = n ? ptr_index_find(&ix, n) : SIZE_MAX;

		order[h] = (struct host_rank){ h, i != SIZE_MAX ? dist[i] : SIZE_MAX };
		for (size_t m = 0; m < s->n_members; m++)
			if (s->members[m].host == (int)h)
				order[h].dist = 0;
	}
	qsort(order, in->n_hosts, sizeof(*order), host_rank_cmp);
	rc = 0;
out:
	ptr_index_fini(&ix);
	free(dist);
	free(queue);
	return rc;
}

/* Bit m set when @r crosses member m. */
static uint32_t route_mask(const struct loc_input *in, const struct loc_suspect *s, size_t nm,
			   const struct pair_route *r)
{
	uint32_t mask = 0;

	for (size_t m = 0; m < nm; m++)
		if (member_crossed(in, &s->members[m], r))
			mask |= 1u << m;
	return mask;
}

/* True when @mask splits some class of @cls (members m < nm). */
static bool mask_splits(const uint32_t *cls, size_t nm, uint32_t mask)
{
	for (size_t i = 0; i < nm; i++)
		for (size_t j = i + 1; j < nm; j++)
			if (cls[i] == cls[j] && !!(mask & (1u << i)) != !!(mask & (1u << j)))
				return true;
	return false;
}

static bool all_split(const uint32_t *cls, size_t nm)
{
	for (size_t i = 0; i < nm; i++)
		for (size_t j = i + 1; j < nm; j++)
			if (cls[i] == cls[j])
				return false;
	return true;
}

static void refine(uint32_t *cls, size_t nm, uint32_t mask, uint32_t *next_id)
{
	uint32_t fresh[32];
	bool done[32] = { false };

	for (size_t m = 0; m < nm; m++) {
		if (!(mask & (1u << m)))
			continue;
		size_t first = m;

		for (size_t k = 0; k < m; k++)
			if ((mask & (1u << k)) && cls[k] == cls[m] && done[k]) {
				first = k;
				break;
			}
		fresh[m] = first == m ? (*next_id)++ : fresh[first];
		done[m] = true;
	}
	for (size_t m = 0; m < nm; m++)
		if (mask & (1u << m))
			cls[m] = fresh[m];
}

int loc_probes_pick(const struct loc_input *in, struct loc_suspect *s,
		    const struct loc_probe_req *req, loc_route_fn route, void *ctx,
		    struct loc_probes *out, struct fab_err *err)
{
	size_t nm = s->n_members > 32 ? 32 : s->n_members;
	size_t max_probes = req && req->max_probes ? req->max_probes : 8;
	size_t max_routes = req && req->max_routes ? req->max_routes : 20000, routed = 0;
	const bool *avoid = req ? req->avoid : NULL;
	struct host_rank *order = malloc((in->n_hosts ? in->n_hosts : 1) * sizeof(*order));
	struct loc_probes p = { 0 };
	uint32_t cls[32] = { 0 }, next_id = 1;
	struct loc_acc *acc = NULL, *own = NULL;
	int rc = acc_of(in, &acc, &own, err);
	bool budget = false;

	if (rc) {
		free(order);
		return rc;
	}
	rc = -ENOMEM;
	p.routes = calloc(max_probes, sizeof(*p.routes));
	p.masks = calloc(max_probes, sizeof(*p.masks));
	if (!order || !p.routes || !p.masks)
		goto out;
	rc = hosts_by_distance(in, s, order);
	if (rc)
		goto out;
	for (size_t k = 1; k < in->n_hosts && !all_split(cls, nm) && p.n < max_probes && !budget; k++) {
		for (size_t j = 0; j < k && p.n < max_probes; j++) {
			unsigned int a = (unsigned int)order[j].h, b = (unsigned int)order[k].h;
			struct pair_route r = { 0 };
			uint32_t mask;

			if ((avoid && (avoid[a] || avoid[b])) || acc_seen(acc, a, b))
				continue;
			if (routed == max_routes) {
				budget = true;
				break;
			}
			routed++;
			rc = route(ctx, a < b ? a : b, a < b ? b : a, &r);
			if (rc == -ENOENT)
				continue;
			if (rc) {
				fab_err_set(err, rc, "localize: routing probe pair %u-%u", a, b);
				pair_route_fini(&r);
				goto out;
			}
			mask = route_mask(in, s, nm, &r);
			if (!mask_splits(cls, nm, mask)) {
				pair_route_fini(&r);
				continue;
			}
			/* Refine: in each class, the members this pair crosses get a fresh id. */
			refine(cls, nm, mask, &next_id);
			p.routes[p.n] = r;
			p.masks[p.n++] = mask;
			if (all_split(cls, nm))
				break;
		}
	}
	p.exhausted = !budget && p.n < max_probes;
	p.unsplittable = !all_split(cls, nm);
	if (p.unsplittable) {
		if (p.exhausted)
			str_fmt(p.note, sizeof(p.note), "traffic cannot tell these apart; see counters");
		else if (budget)
			str_fmt(p.note, sizeof(p.note),
				 "no pair among %zu routed tells these apart; see counters", routed);
		else
			str_fmt(p.note, sizeof(p.note),
				 "probe limit %zu reached before every member was told apart", max_probes);
		s->unsplittable = p.exhausted;
		str_fmt(s->note, sizeof(s->note), "%s", p.note);
	}
	*out = p;
	memset(&p, 0, sizeof(p));
	rc = 0;
out:
	if (rc == -ENOMEM)
		fab_err_set(err, rc, "localize: out of memory");
	loc_probes_fini(&p);
	free(order);
	loc_acc_free(own);
	return rc;
}

int loc_group_narrow(const struct loc_input *in, struct loc_suspect *s,
		     const struct loc_probes *probes, const enum loc_verdict *verdicts)
{
	size_t nm = s->n_members > 32 ? 32 : s->n_members;
	unsigned int agree[32] = { 0 }, known = 0, best = 0;

	for (size_t i = 0; i < probes->n; i++) {
		if (verdicts[i] == LOC_UNKNOWN)
			continue;
		known++;
		s->ev.probes_run++;
		s->ev.probes_bad += is_bad(verdicts[i]);
		for (size_t m = 0; m < nm; m++)
			agree[m] += !!(probes->masks[i] & (1u << m)) == is_bad(verdicts[i]);
	}
	if (!known)
		return 0;
	for (size_t m = 0; m < nm; m++)
		if (agree[m] > best)
			best = agree[m];
	if (best < known) {
		str_fmt(s->note, sizeof(s->note),
			 "%u probes contradict every member (an intermittent fault?); group kept", known);
		return 0;
	}
	size_t o = 0;

	for (size_t m = 0; m < nm; m++)
		if (agree[m] == best)
			s->members[o++] = s->members[m];
	for (size_t m = nm; m < s->n_members; m++)	/* beyond 32: not probed, kept */
		s->members[o++] = s->members[m];
	s->n_members = o;
	if (o == 1) {
		s->kind = s->members[0].host >= 0 ? LOC_KIND_NODE : LOC_KIND_LINK;
		s->unsplittable = false;
		str_fmt(s->note, sizeof(s->note), "narrowed by %u probes", known);
	} else {
		str_fmt(s->note, sizeof(s->note), "one of %zu links after %u probes%s", o, known,
			 s->unsplittable ? "; traffic cannot tell these apart; see counters" : "");
	}
	return 0;
}
