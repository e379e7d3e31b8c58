/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * SMInfo (SubnGet, attribute 0x20) of the ports that run a subnet manager,
 * one query at a time through libibmad (a subnet has a handful of them).
 * Internal to src/sys/: sys/subnet.c finds the ports (PortInfo
 * CapabilityMask.IsSM) and their addresses during the walk.
 */
#ifndef FAB_SYS_SMINFO_H
#define FAB_SYS_SMINFO_H

#include <stddef.h>

#include <infiniband/mad.h>

#include "model/topo.h"
#include "sys/sys.h"
#include "util/err.h"

struct sminfo_req {
	struct topo_port *port;		/* the port asked (IsSM set) */
	ib_portid_t path;		/* its LID, or the directed route to its node */
};

/*
 * Ask each of @reqs, in order, and append one struct topo_sm per request to
 * t->sms (answered false for a port that did not answer: a problem for
 * model/ib_checks, not an error here); set t->sms_read.  -ENODEV when no
 * MAD port can be opened, -ENOMEM.
 */
int sminfo_read(const struct sminfo_req *reqs, size_t n, struct topo *t,
		const struct subnet_opts *o, struct fab_err *err);

#endif
