// SPDX-License-Identifier: GPL-2.0-or-later
/* The hosts' cable ends on a discovered graph; see topo_optics.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/topo_optics.h"
#include "util/str.h"

struct topo_optics *topo_optics_new(size_t n)
{
	struct topo_optics *o = calloc(1, sizeof(*o));
	size_t m = n ? n : 1;

	if (!o)
		return NULL;
	o->names = calloc(m, sizeof(*o->names));
	o->sets = calloc(m, sizeof(*o->sets));
	o->read = calloc(m, sizeof(*o->read));
	o->n_hosts = n;
	if (!o->names || !o->sets || !o->read) {
		topo_optics_free(o);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		optics_set_init(&o->sets[i]);
	return o;
}

void topo_optics_free(struct topo_optics *o)
{
	if (!o)
		return;
	for (size_t i = 0; o->sets && i < o->n_hosts; i++)
		optics_set_fini(&o->sets[i]);
	free(o->sets);
	free(o->names);
	free(o->read);
	free(o->cables);
	free(o);
}

unsigned int topo_optics_rank(enum optics_health h)
{
	switch (h) {
	case OPTICS_FAILING:
		return 0;
	case OPTICS_MARGINAL:
		return 1;
	case OPTICS_UNKNOWN:
		return 2;
	default:
		return 3;
	}
}

/* Host @host's port @ifname in @t's graph, NULL when LLDP did not see it. */
static const struct topo_port *graph_port(const struct topo *t, const char *host,
					  const char *ifname)
{
	const struct topo_node *n = host[0] ? topo_node_by_name(t, host) : NULL;

	return n && ifname[0] ? topo_port_find(n, 0, ifname) : NULL;
}

/* The cable of one judged end at graph port @at, NULL when none. */
static struct topo_optics_cable *cable_at(struct topo_optics *o, const struct topo_port *at)
{
	for (size_t i = 0; at && i < o->n_cables; i++)
		if (o->cables[i].n_ends == 1 && o->cables[i].end[0].at == at)
			return &o->cables[i];
	return NULL;
}

/* Port @p of host @h onto its cable: the far end's, when that is a judged host port. */
static void end_add(const struct topo *t, struct topo_optics *o, size_t h,
		    const struct optics_port *p)
{
	struct topo_optics_end e = { .host = h, .port = p };
	struct topo_optics_cable *c;

	e.at = graph_port(t, o->names[h], p->ifname);
	c = e.at && e.at->peer ? cable_at(o, e.at->peer) : NULL;
	if (!c) {
		c = &o->cables[o->n_cables++];
		memset(c, 0, sizeof(*c));
	}
	c->end[c->n_ends++] = e;
	o->n_ends[p->verdict.health]++;
}

/* "node:ifname" of end @e, for the both-ends sentences (two hosts' eth1 are told apart). */
static void end_name(const struct topo_optics *o, const struct topo_optics_end *e, char *buf,
		     size_t len)
{
	str_fmt(buf, len, "%s:%s", o->names[e->host], e->port->ifname);
}

/* @c's health: its ends' worst, or the both-ends verdict's when that is worse and not unknown. */
static void cable_judge(const struct topo_optics *o, struct topo_optics_cable *c,
			const struct optics_policy *pol)
{
	char a[sizeof(o->names[0]) + sizeof(c->end[0].port->ifname) + 1];
	char b[sizeof(a)];

	c->health = c->end[0].port->verdict.health;
	if (c->n_ends < 2)
		return;
	if (topo_optics_rank(c->end[1].port->verdict.health) < topo_optics_rank(c->health))
		c->health = c->end[1].port->verdict.health;
	end_name(o, &c->end[0], a, sizeof(a));
	end_name(o, &c->end[1], b, sizeof(b));
	optics_cable_verdict(c->end[0].port, a, c->end[1].port, b, pol, &c->both);
	if (c->both.health >= OPTICS_MARGINAL &&
	    topo_optics_rank(c->both.health) < topo_optics_rank(c->health))
		c->health = c->both.health;
}

static int cable_cmp(const void *x, const void *y)
{
	const struct topo_optics_cable *a = x, *b = y;
	unsigned int ra = topo_optics_rank(a->health), rb = topo_optics_rank(b->health);

	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->end[0].host != b->end[0].host)
		return a->end[0].host < b->end[0].host ? -1 : 1;
	/* The same host: ports of one array, in its order. */
	return (a->end[0].port > b->end[0].port) - (a->end[0].port < b->end[0].port);
}

int topo_optics_attach(struct topo *t, struct topo_optics *o, const struct optics_policy *pol)
{
	size_t n = 0;

	for (size_t h = 0; h < o->n_hosts; h++) {
		if (!o->read[h])
			continue;
		optics_set_judge(&o->sets[h], NULL, pol);
		for (size_t i = 0; i < o->sets[h].n; i++)
			n += o->sets[h].v[i].module_rc == 0;
	}
	if (!n) {
		topo_optics_free(o);
		return 0;
	}
	o->cables = calloc(n, sizeof(*o->cables));
	if (!o->cables) {
		topo_optics_free(o);
		return -ENOMEM;
	}
	for (size_t h = 0; h < o->n_hosts; h++)
		for (size_t i = 0; o->read[h] && i < o->sets[h].n; i++)
			if (o->sets[h].v[i].module_rc == 0)
				end_add(t, o, h, &o->sets[h].v[i]);
	for (size_t i = 0; i < o->n_cables; i++)
		cable_judge(o, &o->cables[i], pol);
	qsort(o->cables, o->n_cables, sizeof(*o->cables), cable_cmp);
	o->worst = o->cables[0].health;
	if (t->optics_free)
		t->optics_free(t->optics);
	t->optics = o;
	t->optics_free = topo_optics_free;
	return 0;
}
