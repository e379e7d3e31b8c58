/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One worker's "bond" op (fleet/proto_bond.h): its host's data-path
 * interface and, when it is a bond, the members' tx_bytes; what sweep's
 * dual-homed legs read around every trial flow (sweep/sweep_legs.c).
 */
#ifndef FAB_FLEET_FLEET_BOND_H
#define FAB_FLEET_FLEET_BOND_H

#include "fleet/fleet.h"
#include "model/bond_legs.h"

/*
 * Worker @i's reading into @out within @timeout_ms: 0; -EPROTO for an
 * answer that cannot be read, the worker's error (ok:false), -ETIMEDOUT,
 * -EPIPE (dead) with @err set.  Messages of other workers meanwhile are
 * dropped (none is busy while the legs run).
 */
int fleet_bond_snap(struct fleet *f, size_t i, int timeout_ms, struct bond_snap *out,
		    struct fab_err *err);

#endif
