/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Run one worker op on every node of a hosts file and merge the answers
 * into one document: status --hosts ("fabricctl.fleet-status/1") and,
 * through the same path, verify --hosts (op "verify").
 *
 *   {"schema": @schema, "op": @op, "nodes": [{"node", "address", "ok",
 *    "error", @op: <the node's document or null>}], "summary": {"nodes",
 *    "ok", "failed"}}
 *
 * Ownership: *@doc is a new reference for the caller.
 */
#ifndef FAB_FLEET_FLEET_STATUS_H
#define FAB_FLEET_FLEET_STATUS_H

#include <jansson.h>

#include "fleet/fleet.h"

/* Load a hosts file (bad input: file:line:col, exit 2). */
int fleet_hosts_load(struct fab_hosts *hs, const char *path, struct fab_err *err);

/*
 * Start workers on @hosts, send {"op": @op} plus @params (borrowed, may
 * be NULL), merge.  *@n_failed gets the number of nodes without an answer.
 */
int fleet_run_op(const struct fab_hosts *hosts, const struct fleet_opts *o, const char *op,
		 const json_t *params, const char *schema, int timeout_ms, json_t **doc,
		 size_t *n_failed, struct fab_err *err);

#endif
