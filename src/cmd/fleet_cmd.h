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
#include <stdbool.h>

#include "cmd/cmd.h"
#include "fleet/fleet_op.h"

/*
 * Run @op ("status", "verify" or "apply") over the hosts file @hosts_path.
 * verify and apply send @profile (validated here first: bad input is exit
 * 2 before any node is contacted); apply also @dry_run.  An exit code (the
 * rule above).
 */
int fleet_cmd_run(struct fab_ctx *ctx, const char *op, const char *hosts_path,
		  const struct fleet_opts *fo, const char *profile, bool dry_run);

/*
 * The options of status and verify, which take -j and the fleet options
 * (FLEET_LONG_OPTIONS: --hosts FILE into *@hosts, the rest into @fo) and
 * nothing else: -1 when @cmd is to run (its arguments from optind),
 * otherwise its exit code (help, a usage error).
 */
int fleet_cmd_parse(struct fab_ctx *ctx, const char *cmd, int argc, char **argv,
		    struct fleet_opts *fo, const char **hosts);

#endif
