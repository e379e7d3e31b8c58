/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What status, verify and apply do with --hosts FILE, written once: load
 * the hosts file, run one worker op on every node (fleet_op_run()), check
 * and merge the answers (fleet_verify_check(), fleet_apply_check()),
 * render them through the command's slot of the renderer table, and exit
 * by one rule:
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
#include <stdbool.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "fleet/fleet_op.h"

/*
 * Run @op ("status", "verify" or "apply") over the hosts file @hosts_path.
 * verify and apply send @profile (validated here first: bad input is exit
 * 2 before any node is contacted); apply also @dry_run.  An exit code (the
 * rule above).
 */
int fleet_cmd_run(struct fab_ctx *ctx, const char *op, const char *hosts_path,
		  const struct fleet_opts *fo, const char *profile, bool dry_run);

/* --hosts FILE and the fleet options of status, verify and apply. */
struct fleet_cmd_args {
	const char *hosts;		/* --hosts FILE; NULL: this node */
	struct fleet_opts fo;
};

#define FLEET_CMD_ARGS_DEFAULT { .fo = FLEET_OPTS_DEFAULT }

/*
 * Their option rows (cmd_opt.h).  --hosts and --launcher sit where each
 * command's synopsis shows them (@syn); --ssh-config, --worker-cmd and
 * --listen (no synopsis shows them) are the group fleet_cmd_more_opts,
 * for the struct fleet_opts at @f: CMD_GROUP(T, f, fleet_cmd_more_opts).
 */
#define FLEET_CMD_HOSTS(T, f, syn) CMD_STRING("hosts", 0, "FILE", T, f, syn)
#define FLEET_CMD_LAUNCHER(T, f, syn) CMD_STRING("launcher", 0, "NAME|TEMPLATE", T, f, syn)
extern const struct cmd_opt fleet_cmd_more_opts[];

/*
 * --hosts: read @path, validate it here (bad input: file:line:column,
 * before any node is contacted), and make *@params = {"profile": <its
 * text>, "profile_name": @path} for the workers' verify/apply ops.
 */
int apply_fleet_params(const char *path, json_t **params, struct fab_err *err);

/*
 * verify --hosts, after the check: for every bond of @profile with two or
 * more members, each end point of @hosts whose members' LLDP neighbours
 * (read through a fleet started on @hosts) are on fewer than two switches
 * gets a drift entry {node, interface: the bond, field "dual-homing",
 * wanted, found: the legs} in @v, counted in v->n_drifted when the node
 * had no drift yet (cmd/verify.c).  LLDP that cannot be read is a
 * warning: dual-homing is then not judged.  0 or -ENOMEM (ctx->err set).
 */
int verify_fleet_homing(struct fab_ctx *ctx, const struct fab_hosts *hosts,
			const struct fleet_opts *fo, const char *profile,
			struct fleet_verify *v);

/*
 * The calls cmd/accept.c's configuration stage makes, kept until it reads
 * struct fleet_verify itself (fleet_op_run() + fleet_verify_check(): no
 * document between them); then they go.  fleet_run_op(): the answers as
 * a "fabricctl.fleet-status/1"-shaped document with "schema": @schema
 * (new reference in *@doc).  fleet_verify_merge(): from that document
 * (borrowed), a new "fabricctl.fleet-verify/1" (render/fleet_doc.c);
 * NULL on ENOMEM.
 */
int fleet_run_op(const struct fab_hosts *hosts, const struct fleet_opts *o, const char *op,
		 const json_t *params, const char *schema, int timeout_ms, json_t **doc,
		 size_t *n_failed, struct fab_err *err);
json_t *fleet_verify_merge(const json_t *run_doc, const char *profile, size_t *n_failed,
			   size_t *n_drifted);

#endif
