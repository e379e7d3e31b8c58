// SPDX-License-Identifier: GPL-2.0-or-later
/* discover --lldp --hosts: every node's LLDP view through the fleet layer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/discover_lldp.h"
#include "fleet/fleet.h"
#include "fleet/fleet_lldp.h"
#include "io/load.h"
#include "model/hosts.h"
#include "util/log.h"

int discover_lldp_fleet_read(struct fab_ctx *ctx, const struct discover_lldp_fleet *o,
			     struct topo *t)
{
	struct fleet_opts fo = {
		.launcher = o->launcher ? o->launcher : "ssh",
		.verbose = fab_log_level,
		.hello_timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 20000,
		.progress = isatty(STDERR_FILENO),
	};
	struct fab_hosts hosts;
	struct fleet f = { .n = 0 };
	int rc;

	hosts_init(&hosts);
	rc = hosts_load_nodes(&hosts, o->hosts_file, &ctx->err);
	if (rc < 0)
		goto out;
	if (!hosts.n) {
		rc = fab_err_input(&ctx->err, -EINVAL, "%s: no hosts", o->hosts_file);
		goto out;
	}
	rc = fleet_start(&f, &hosts, &fo, &ctx->err);
	if (rc == 0)
		rc = fleet_lldp_collect(&f, &hosts, o->socket, o->timeout_ms, t, &ctx->err);
out:
	if (f.w)
		fleet_fini(&f);
	hosts_fini(&hosts);
	return rc;
}
