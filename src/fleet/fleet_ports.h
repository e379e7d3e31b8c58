/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One worker a host for hosts of several fabric ports (fleet.h, struct
 * fleet_worker's alias): which ports are aliases of which worker, the
 * routes that bring a worker's answers back to the port that asked, the
 * aliases' hello and death.  Pure bookkeeping on struct fleet, no I/O,
 * called by fleet.c only.
 */
#ifndef FAB_FLEET_FLEET_PORTS_H
#define FAB_FLEET_FLEET_PORTS_H

#include "fleet/fleet.h"

/*
 * Every port of a host of several (model/hosts.h: n_ports > 1) but its
 * first (port 0) made an alias of the first's worker; f->n_procs set.
 * O(n log n).  0 or -ENOMEM.
 */
int fleet_ports_alias(struct fleet *f);

/* Request @id that worker @w sends for port @port: its answers go to that port.  0 or -ENOMEM. */
int fleet_route_add(struct fleet_worker *w, long long id, size_t port);

/*
 * The port a message of id @id from worker @w (index @self) is for:
 * @self when no route holds it; the route dropped with its final answer
 * (@final).
 */
size_t fleet_route_take(struct fleet_worker *w, size_t self, long long id, bool final);

/*
 * Worker @o died (its reason set): each of its aliases dies with that
 * reason and, but for @told (which the caller tells itself), is marked
 * to be told (notify).
 */
void fleet_ports_die(struct fleet *f, size_t o, size_t told);

/*
 * After the hellos: each alias shares its worker's hello, or dies with
 * the worker's reason, or when the worker serves fewer test sessions at
 * once than its host has ports (an older fabricctl: one at a time).
 */
void fleet_ports_hello(struct fleet *f);

void fleet_routes_fini(struct fleet_worker *w);

#endif
