/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every live worker traces its own flows at once (the worker's "trace"
 * op, fleet/proto_trace.h; docs/paths.md): the sweep learns the path of
 * each test's 5-tuple from the host it leaves.
 *
 * Ownership: @tr[i] (the caller's, n[i] traces with their flows set)
 * get their hops (flow_trace_fini()); nothing is kept.
 */
#ifndef FAB_FLEET_FLEET_TRACE_H
#define FAB_FLEET_FLEET_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "fleet/fleet.h"
#include "model/flow_trace.h"
#include "transport/trace.h"

/*
 * Worker i traces tr[i][0 .. n[i]) (at most TRACE_MAX_FLOWS; none: it
 * is not asked) under @o; got[i] true when its answer came and was read.
 * A worker that fails or does not answer is a warning naming it (its
 * traces keep no hops).  Fails only on ENOMEM or a poll failure.
 */
int fleet_trace_run(struct fleet *f, struct flow_trace *const *tr, const size_t *n,
		    const struct trace_opts *o, int timeout_ms, bool *got, struct fab_err *err);

#endif
