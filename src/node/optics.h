/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The node's pluggable modules and the links under them (issue 26), read
 * through sys and judged by model/optics.h: written once, for `status`
 * and, later, for the worker (diagnose evidence, accept stage 1/4).
 */
#ifndef FAB_NODE_OPTICS_H
#define FAB_NODE_OPTICS_H

#include <jansson.h>

#include "model/host_state.h"
#include "model/optics.h"
#include "sys/sys.h"
#include "util/err.h"

struct node_optics_opts {
	double window_s;		/* > 0: read the links twice, this far apart */
	const struct optics_policy *pol;	/* NULL: optics_policy_default() */
};

/*
 * Read the module and the link of @ifname into @p (optics_set_add'ed):
 * every page module_eeprom_next() asks for, decoded; one link reading.
 * Returns -EOPNOTSUPP when the interface has no module interface at all
 * (virtual devices), 0 otherwise (@p->module_rc and @p->link_rc say what
 * failed, with the messages beside them).
 */
int node_optics_port(struct sys *sys, const char *ifname, struct optics_port *p);

/*
 * The same, raw: the pages into @e (not decoded) and one link reading
 * into @p (its module_rc/link_rc and messages too).
 */
int node_optics_raw(struct sys *sys, const char *ifname, struct module_eeprom *e,
		    struct optics_port *p);

/*
 * The worker's "optics" op (docs/worker-protocol.md): {"ports": [...]},
 * each port as model/optics_wire.h carries it, raw, for the controller to
 * decode and judge; the interfaces in @names (a name without a module
 * interface is kept with its error), or with @n 0 every hardware port that
 * has one.  NULL with @err when the links cannot be listed or on ENOMEM.
 */
json_t *node_optics_wire(struct sys *sys, const char *const *names, size_t n,
			 struct fab_err *err);

/*
 * Every hardware link of @hs (kind "", not loopback) that has a module
 * interface, into a new hs->optics, each with its verdict; with a window,
 * the links are read again after it.  -ENOMEM only: a port that cannot be
 * read is kept with its error.
 */
int node_optics_read(struct sys *sys, struct host_state *hs, const struct node_optics_opts *o,
		     struct fab_err *err);

#endif
