// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover --lldp --hosts: every node's LLDP view through the fleet layer,
 * then every node's cable ends (modules) read once and put on the graph
 * (model/topo_optics.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/discover_lldp.h"
#include "fleet/fleet.h"
#include "fleet/fleet_lldp.h"
#include "fleet/fleet_op.h"
#include "io/load.h"
#include "model/hosts.h"
#include "model/topo_optics.h"
#include "util/log.h"

/*
 * Every worker's modules, one reading (fleet_optics_read(): a node that
 * does not answer is a warning), judged with the default policy and
 * attached to @t's cables.  Fails only on ENOMEM or a poll failure.
 */
static int optics_read(struct fab_ctx *ctx, struct fleet *f, int timeout_ms, struct topo *t)
{
	struct topo_optics *o = topo_optics_new(f->n);
	struct optics_policy pol;
	int rc;

	if (!o)
		return fab_err_set(&ctx->err, -ENOMEM, "discover: out of memory");
	for (size_t i = 0; i < f->n; i++)
		snprintf(o->names[i], sizeof(o->names[i]), "%s", hosts_node(f->w[i].host));
	rc = fleet_optics_read(f, timeout_ms, o->sets, o->read, &ctx->err);
	if (rc < 0) {
		topo_optics_free(o);
		return rc;
	}
	optics_policy_default(&pol);
	if (topo_optics_attach(t, o, &pol) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "discover: out of memory");
	return 0;
}

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
	if (rc == 0 && !o->no_optics)
		rc = optics_read(ctx, &f, o->timeout_ms > 0 ? o->timeout_ms : 20000, t);
out:
	if (f.w)
		fleet_fini(&f);
	hosts_fini(&hosts);
	return rc;
}
