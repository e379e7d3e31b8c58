/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What status, verify and apply do with --hosts FILE, written once: load
 * the hosts file, run one worker op on every node (fleet_run_op()), merge
 * the answers into the command's document, render it, and exit by one
 * rule:
 *
 *   3  a node could not be reached or read (no answer, a failed worker, a
 *      malformed answer, or the op failed there); this wins over 1, since
 *      an incomplete answer is not a clean bill of health
 *   1  every node answered and at least one is unhealthy (verify: drift)
 *   0  otherwise
 *
 * The document is rendered in every case, so the nodes that did answer
 * are still shown.
 */
#ifndef FAB_CMD_FLEET_CMD_H
#define FAB_CMD_FLEET_CMD_H

#include <jansson.h>

#include "cmd/cmd.h"
#include "fleet/fleet_op.h"

struct fleet_cmd {
	const char *op;			/* worker op: "status", "verify", "apply" */
	const char *schema;		/* "fabricctl.fleet-<op>/1" */
	int timeout_ms;
	/*
	 * verify, apply: the profile, validated here before any node is
	 * contacted (bad input: exit 2), its text sent to every node
	 * (apply_fleet_params()); NULL for none.
	 */
	const char *profile;
	int dry_run;			/* apply's "dry_run" (0, 1); -1: not sent */
	/*
	 * The command's document from fleet_run_op()'s @run (borrowed): a new
	 * reference, NULL on ENOMEM; *@n_failed, *@n_unhealthy count nodes.
	 * NULL: @run itself is the document.
	 */
	json_t *(*merge)(const json_t *run, const struct fleet_cmd *c, size_t *n_failed,
			 size_t *n_unhealthy);
	/* The renderer slot (ctx->render.ops->status_fleet, ...). */
	int (*render)(struct render *r, const json_t *doc);
	const char *failed_what;	/* "could not be verified": the error for exit 3 */
};

/* Run @c over the hosts file @hosts_path; an exit code (the rule above). */
int fleet_cmd_run(struct fab_ctx *ctx, const char *hosts_path, const struct fleet_opts *fo,
		  const struct fleet_cmd *c);

/*
 * --hosts: read @path, validate it here (bad input: file:line:column,
 * before any node is contacted), and make *@params = {"profile": <its
 * text>, "profile_name": @path} for the workers' verify/apply ops.
 */
int apply_fleet_params(const char *path, json_t **params, struct fab_err *err);

#endif
