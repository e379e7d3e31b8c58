/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What answers behind a switch port whose link is up but that the walk
 * left without a cable (topo.h: struct topo_unwalked): SubnGet(NodeInfo)
 * and SubnGet(NodeDescription) by directed route, one at a time through
 * libibmad (a healthy subnet has none of these ports).  Internal to
 * src/sys/: sys/subnet.c finds the ports and their routes during the walk.
 */
#ifndef FAB_SYS_UNWALKED_H
#define FAB_SYS_UNWALKED_H

#include <stddef.h>

#include <infiniband/mad.h>

#include "model/topo.h"
#include "sys/sys.h"
#include "util/err.h"

struct unwalked_req {
	const struct topo_port *at;	/* the switch port */
	ib_portid_t path;		/* the directed route through it */
};

/*
 * Ask each of @reqs and set t->unwalked to one entry per request (answered
 * false for no answer: not an error here).  -ENODEV when no MAD port
 * opens, -ENOMEM.
 */
int unwalked_read(const struct unwalked_req *reqs, size_t n, struct topo *t,
		  const struct subnet_opts *o, struct fab_err *err);

#endif
