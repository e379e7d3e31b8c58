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

#define FLEET_BOND_WHY_LEN 160

/*
 * Every live worker's reading at once (one request each, answers awaited
 * together): @out[i] and @have[i] (f->n each) for worker i; a worker that
 * fails or answers what cannot be read (an older one: "unknown op") has
 * have false and, when @why is not NULL, the reason in @why[i] ("" when
 * have), also said at debug level.  Fails only on ENOMEM or a poll failure.
 */
int fleet_bond_snap_all(struct fleet *f, int timeout_ms, struct bond_snap *out, bool *have,
			char (*why)[FLEET_BOND_WHY_LEN], struct fab_err *err);

#endif
