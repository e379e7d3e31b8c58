/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The LLDP graph of a fleet: every worker of a started fleet is asked for
 * its node's LLDP view (worker op "lldp", docs/discover-lldp.md) and the
 * views are merged into one struct topo with lldp_view_merge().  Each
 * node's lldpd socket is, in order: @socket with "{host}" replaced by the
 * node's NAME (--lldp-socket), the node's `lldp_socket=PATH` label in the
 * hosts file, or the system default.  Used by discover --lldp --hosts, the
 * sweep's --topology lldp, accept's cabling stage and verify --hosts'
 * dual-homing.
 */
#ifndef FAB_FLEET_FLEET_LLDP_H
#define FAB_FLEET_FLEET_LLDP_H

#include "fleet/fleet.h"
#include "model/hosts.h"
#include "model/topo.h"
#include "util/err.h"

/*
 * Merge the view of every node of @f (started on @hosts) into @t; @socket
 * may be NULL, @timeout_ms <= 0 is 20000 (per node).  A node that fails
 * (worker dead, lldpd not answering, bad reply) fails the call:
 * -EHOSTUNREACH naming every failed node, after the others were merged.
 */
int fleet_lldp_collect(struct fleet *f, const struct fab_hosts *hosts, const char *socket,
		       int timeout_ms, struct topo *t, struct fab_err *err);

#endif
