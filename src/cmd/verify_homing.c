// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts: the dual-homing of the profile's bonds, judged on the
 * LLDP neighbours the workers read (fleet_cmd.h verify_fleet_homing).  Its
 * own file: fleet_cmd.c calls it, and verify.c calls fleet_cmd.c (no two
 * files call each other: scripts/check-calls).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/fleet_cmd.h"
#include "fleet/fleet.h"
#include "fleet/fleet_lldp.h"
#include "io/load.h"
#include "model/accept.h"
#include "model/profile.h"
#include "util/log.h"

/* One drift entry when @host's bond @b is not dual-homed in @t. */
static int homing_drift(const struct topo *t, const struct fab_bond *b, const char *host,
			struct fleet_verify *v)
{
	const char *members[16], *sw;
	char legs[256], found[400];
	size_t n = 0, linked;
	enum accept_homing h;

	for (size_t m = 0; m < b->n_members && n < 16; m++)
		members[n++] = b->members[m].name;
	h = accept_homing(t, host, members, n, legs, sizeof(legs), &sw, &linked);
	if (h != ACCEPT_HOMING_ONE_LEG && h != ACCEPT_HOMING_ONE_SWITCH)
		return 0;
	if (h == ACCEPT_HOMING_ONE_SWITCH)
		snprintf(found, sizeof(found), "one switch, %s (%s)", sw, legs);
	else
		snprintf(found, sizeof(found), "one linked member (%s)", legs);
	if (!fleet_verify_drifted(v, host))
		v->n_drifted++;
	return fleet_verify_drift_add(v, host, b->name, "dual-homing", "members on two switches",
				      found);
}

int verify_fleet_homing(struct fab_ctx *ctx, const struct fab_hosts *hosts,
			const struct fleet_opts *fo, const char *profile,
			struct fleet_verify *v)
{
	struct profile *p = NULL;
	struct fleet f = { .n = 0 };
	struct topo *t = NULL;
	bool bonds = false;
	int rc = 0;

	if (profile_load(profile, &p, &ctx->err) < 0) {	/* validated before: not expected */
		fab_err_init(&ctx->err);
		return 0;
	}
	for (size_t b = 0; b < p->n_bonds; b++)
		bonds |= p->bonds[b].want.n_members >= 2;
	if (!bonds)
		goto out;
	t = topo_new();
	if (!t) {
		rc = -ENOMEM;
		goto out;
	}
	if (fleet_start(&f, hosts, fo, &ctx->err) < 0 ||
	    fleet_lldp_collect(&f, hosts, NULL, fo->hello_timeout_ms, t, &ctx->err) < 0) {
		fab_warn("verify: dual-homing of the profile's bonds not judged: %s", ctx->err.msg);
		fab_err_init(&ctx->err);
		goto out;
	}
	topo_sort(t);
	for (size_t i = 0; i < hosts->n && rc == 0; i++) {
		if (!hosts_is_endpoint(&hosts->hosts[i]))
			continue;
		for (size_t b = 0; b < p->n_bonds && rc == 0; b++)
			rc = homing_drift(t, &p->bonds[b].want, hosts->hosts[i].name, v);
	}
out:
	if (f.w)
		fleet_fini(&f);
	topo_free(t);
	profile_free(p);
	return rc < 0 ? fab_err_set(&ctx->err, rc, "verify: out of memory") : 0;
}
