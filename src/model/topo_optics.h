/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * discover --lldp --hosts: the hosts' cable ends on the graph LLDP found
 * (docs/optics.md "discover").  Each host's modules, read once through its
 * worker (fleet_optics_read()), are judged on that one reading
 * (optics_set_judge(), no window: the link rules are not judged) and put
 * on the cable the host port is on: one cable per judged port, or one for
 * both ends when LLDP says the port faces another host's judged port;
 * such a cable also gets what only both ends tell (optics_cable_verdict(),
 * its sentences naming each end "node:ifname").
 * A port whose module was not read (no module interface: a veth) is no
 * cable end: a fleet without modules gives nothing here.  Pure C.
 *
 * Ownership: a struct topo_optics owns its hosts' names and sets; its
 * cables borrow the sets' ports and the graph's ports (the struct topo it
 * is attached to, which owns it: t->optics, freed by topo_free()).
 */
#ifndef FAB_MODEL_TOPO_OPTICS_H
#define FAB_MODEL_TOPO_OPTICS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/optics.h"
#include "model/topo.h"

/* One judged end: a port of host @host with a module. */
struct topo_optics_end {
	size_t host;				/* index in topo_optics's hosts */
	const struct optics_port *port;		/* borrowed from sets[host] */
	const struct topo_port *at;		/* in the graph; NULL: LLDP did not see it */
};

struct topo_optics_cable {
	struct topo_optics_end end[2];
	size_t n_ends;				/* 2: a host-to-host cable, both ends judged */
	struct optics_verdict both;		/* n_ends 2: optics_cable_verdict()'s findings */
	enum optics_health health;		/* the worst of the ends' and both's */
};

struct topo_optics {
	char (*names)[128];			/* n_hosts host names */
	struct optics_set *sets;		/* n_hosts, optics_set_init'ed */
	bool *read;				/* read[i]: host i answered */
	size_t n_hosts;
	struct topo_optics_cable *cables;	/* worst first, then in the hosts' order */
	size_t n_cables;
	size_t n_ends[4];			/* cable ends by their own health (enum value) */
	enum optics_health worst;		/* of every end and every both-ends verdict */
};

/* A new one for @n hosts (names "", sets empty, nothing read); NULL: ENOMEM. */
struct topo_optics *topo_optics_new(size_t n);
void topo_optics_free(struct topo_optics *o);

/*
 * Judge every read host's set with @pol, one reading each, and build @o's
 * cables on @t's graph (hosts found by name, their ports by interface
 * name).  @t takes @o when it holds a cable end (t->optics); otherwise
 * @o is freed and t->optics stays NULL.  0, or -ENOMEM (@o freed).
 */
int topo_optics_attach(struct topo *t, struct topo_optics *o, const struct optics_policy *pol);

/* Worst first: failing, marginal, unknown, healthy (0..3). */
unsigned int topo_optics_rank(enum optics_health h);

#endif
