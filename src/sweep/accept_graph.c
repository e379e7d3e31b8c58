// SPDX-License-Identifier: GPL-2.0-or-later
/* What several of accept's stages read (accept_impl.h). */
#include <errno.h>
#include <string.h>

#include "fleet/fleet_lldp.h"
#include "io/load.h"
#include "sweep/accept_impl.h"

/*
 * The IB subnet walk from this node, with PMA counters (and the switches'
 * forwarding tables when @lft: the cabling stage's route check), into a
 * new *@out.
 */
int accept_ib_walk(struct sweep_ctx *ctx, struct topo **out, bool lft)
{
	struct subnet_opts o = { .counters = true, .max_smps = 64, .lft = lft };
	struct topo *t = topo_new();
	int rc;

	*out = NULL;
	if (!t)
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	rc = sys_subnet_read(ctx->sys, &o, t, &ctx->err);
	if (rc < 0) {
		topo_free(t);
		return rc;
	}
	topo_sort(t);
	*out = t;
	return 0;
}

/*
 * Stage @st could not read what it judges (why: ctx->err): a finding of
 * @code with that reason, and the stage failed, not proven (@note).
 * 0 or -ENOMEM.
 */
int accept_stage_unread(struct sweep_ctx *ctx, struct accept_report *r, enum accept_stage st,
			enum accept_code code, const char *note)
{
	int rc = accept_finding_add(r, st, code, "", "", "%s", ctx->err.msg);

	fab_err_init(&ctx->err);
	accept_stage_set(r, st, ACCEPT_FAILED, "%s", note);
	return rc < 0 ? fab_err_set(&ctx->err, rc, "accept: out of memory") : 0;
}

/*
 * The graph the sweep will route the pairs on (its --topology): the LLDP
 * graph of the cabling stage, the IB graph of the cabling or counters
 * stage, or the plan.  NULL with *@why set when there is none.
 */
struct topo *accept_traffic_graph(struct sweep_ctx *ctx, struct accept_state *s, const char **why)
{
	if (strcmp(s->o.topology, "ib") == 0) {
		if (!s->ib && accept_ib_walk(ctx, &s->ib, false) < 0)	/* the cabling stage was turned off */
			*why = ctx->err.msg;
		return s->ib;
	}
	if (strcmp(s->o.topology, "lldp") != 0) {
		if (!s->tplan && plan_load(s->o.topology, &s->tplan, &s->trails, &ctx->err) < 0)
			*why = ctx->err.msg;
		return s->tplan;
	}
	if (!s->found && s->f.w) {	/* the cabling stage was turned off */
		s->found = topo_new();
		if (s->found && fleet_lldp_collect(&s->f, &s->all, s->o.lldp_socket, 0, s->found,
						    &ctx->err) < 0) {
			*why = ctx->err.msg;
			topo_free(s->found);
			s->found = NULL;
		}
	}
	if (!s->found && !*why)
		*why = "no LLDP graph was read";
	return s->found;
}
