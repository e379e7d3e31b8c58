// SPDX-License-Identifier: GPL-2.0-or-later
/* One worker a host of several fabric ports: aliases and routes (fleet_ports.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_ports.h"
#include "util/log.h"

static int by_node(const void *x, const void *y, void *arg)
{
	const struct fleet *f = arg;
	const struct fab_host *a = f->w[*(const size_t *)x].host, *b = f->w[*(const size_t *)y].host;
	int c = strcmp(hosts_node(a), hosts_node(b));

	if (c)
		return c;
	return (a->port > b->port) - (a->port < b->port);
}

int fleet_ports_alias(struct fleet *f)
{
	size_t *idx, n_alias = 0;

	f->n_procs = f->n;
	if (!hosts_have_rails(f->hosts))
		return 0;
	idx = malloc((f->n ? f->n : 1) * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++)
		idx[i] = i;
	qsort_r(idx, f->n, sizeof(*idx), by_node, f);
	for (size_t k = 1; k < f->n; k++) {
		struct fleet_worker *w = &f->w[idx[k]];
		size_t first = f->w[idx[k - 1]].alias ? f->w[idx[k - 1]].via : idx[k - 1];

		if (strcmp(hosts_node(w->host), hosts_node(f->w[first].host)) != 0)
			continue;
		w->alias = true;
		w->via = first;
		n_alias++;
	}
	free(idx);
	f->n_procs = f->n - n_alias;
	return 0;
}

int fleet_route_add(struct fleet_worker *w, long long id, size_t port)
{
	for (size_t k = 0; k < w->n_routes; k++)
		if (w->routes[k].id == id)
			return 0;
	if (w->n_routes == w->cap_routes) {
		size_t cap = w->cap_routes ? 2 * w->cap_routes : 8;
		struct fleet_route *r = realloc(w->routes, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		w->routes = r;
		w->cap_routes = cap;
	}
	w->routes[w->n_routes++] = (struct fleet_route){ .id = id, .port = port };
	return 0;
}

size_t fleet_route_take(struct fleet_worker *w, size_t self, long long id, bool final)
{
	for (size_t k = 0; k < w->n_routes; k++) {
		size_t port = w->routes[k].port;

		if (w->routes[k].id != id)
			continue;
		if (final)
			w->routes[k] = w->routes[--w->n_routes];
		return port;
	}
	return self;
}

void fleet_ports_die(struct fleet *f, size_t o, size_t told)
{
	for (size_t j = 0; j < f->n; j++) {
		struct fleet_worker *a = &f->w[j];

		if (!a->alias || a->via != o || a->dead || j == o)
			continue;
		a->dead = true;
		memcpy(a->reason, f->w[o].reason, sizeof(a->reason));
		a->notify = j != told;
	}
}

/* The test sessions worker @w serves at once (hello's "sessions"; absent: one). */
static long long sessions(const struct fleet_worker *w)
{
	const json_t *s = json_object_get(w->hello, "sessions");

	return json_is_integer(s) ? json_integer_value(s) : 1;
}

void fleet_ports_hello(struct fleet *f)
{
	for (size_t j = 0; j < f->n; j++) {
		struct fleet_worker *a = &f->w[j];
		const struct fleet_worker *o = &f->w[a->via];

		if (!a->alias || a->dead)
			continue;
		if (o->dead) {
			a->dead = true;
			memcpy(a->reason, o->reason, sizeof(a->reason));
		} else if (!o->hello) {
			a->dead = true;
			snprintf(a->reason, sizeof(a->reason), "no hello");
		} else if (sessions(o) < (long long)a->host->n_ports) {
			a->dead = true;
			snprintf(a->reason, sizeof(a->reason),
				 "the worker of %.64s serves %lld test session%s at once, its %u ports "
				 "need %u (a fabricctl older than its controller)", hosts_node(a->host),
				 sessions(o), sessions(o) == 1 ? "" : "s", a->host->n_ports,
				 a->host->n_ports);
			fab_info("worker %s: %s", a->host->name, a->reason);
		} else {
			a->hello = json_incref(o->hello);
		}
	}
}

void fleet_routes_fini(struct fleet_worker *w)
{
	free(w->routes);
	w->routes = NULL;
	w->n_routes = w->cap_routes = 0;
}
