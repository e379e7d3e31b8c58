// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diagnose --from SWEEP.json [--topology SOURCE]: a saved sweep localised
 * again, no traffic (sweep_impl.h).  The document is loaded through
 * io/sweep_doc.h into the report; its pairs are routed on the graph it
 * saved (with the routes it saved) or on --topology's; then
 * model/localize.h (sweep_locate.c) names the suspects, with counter
 * deltas as evidence where they can be read (InfiniBand PMA counters: the
 * saved sweep's snapshot against the live subnet).  docs/diagnose.md.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "io/sweep_doc.h"
#include "sweep/sweep_impl.h"
#include "util/log.h"

/* The saved graph and routes become the sweep's topology (moved, not copied). */
static int topology_saved(struct sweep_state *w)
{
	struct sweep_doc *d = &w->doc;
	struct sweep_topo *st = &w->topo;

	if (!d->topo)
		return fab_err_input(&w->ctx.err, -EINVAL, "%s: the sweep ran without a topology: give "
				     "--topology lldp|ib|PLAN", w->req.from);
	sweep_topo_init(st, "plan");
	w->st = st;
	st->t = d->topo;
	st->routes = d->routes;
	st->n_routes = d->n_routes;
	st->host_link = d->host_link;
	st->host_leaf = d->host_leaf;
	d->topo = NULL;
	d->routes = NULL;
	d->n_routes = 0;
	d->host_link = d->host_leaf = NULL;
	return 0;
}

/* --topology SOURCE: read (lldp: through workers started on the hosts file), place, route. */
static int topology_live(struct sweep_state *w, const struct sweep_report *r)
{
	struct sweep_ctx *ctx = &w->ctx;
	const struct sweep_req *req = &w->req;
	struct sweep_topo *st = &w->topo;
	struct fleet f = { .n = 0 };
	int rc;

	sweep_topo_init(st, req->topology);
	w->st = st;
	rc = sweep_topo_load(ctx, st, &req->ib);
	if (rc == 0 && st->kind == SWEEP_TOPO_LLDP) {
		if (!req->hosts)
			return fab_err_input(&ctx->err, -EINVAL, "diagnose: --topology lldp needs --hosts FILE");
		rc = fleet_start(&f, &w->doc.hosts, &req->fo, &ctx->err);
		if (rc == 0)
			rc = sweep_topo_load_lldp(ctx, st, &f, &w->doc.hosts, &w->doc.fabric, &req->fo,
						  req->lldp_socket);
		fleet_fini(&f);
	}
	if (rc == 0)
		rc = sweep_topo_place(ctx, st, &w->doc.hosts);
	if (rc < 0)
		return rc;
	return sweep_topo_route_pairs(ctx, st, (const unsigned int (*)[2])w->doc.ab, r->n_pairs);
}

/* InfiniBand (--topology ib): the saved counters against the live subnet's, as evidence. */
static int counters_compare(struct sweep_state *w)
{
	struct sweep_ctx *ctx = &w->ctx;
	const struct sweep_doc *d = &w->doc;
	struct topo *t = w->topo.t;
	int rc;

	if (w->topo.kind != SWEEP_TOPO_IB || !d->have_counters)
		return 0;
	for (size_t i = 0; i < d->n_counters; i++) {
		struct topo_port *p = sweep_doc_counter_port(t, &d->counters[i]);

		if (!p)
			continue;	/* a port the live fabric no longer has: skipped */
		if (counter_snap_add(&w->before, p, d->counters[i].name, d->counters[i].value) < 0)
			return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	}
	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t k = 0; k < t->nodes[i]->n_ports; k++)
			if (counter_snap_add_topo_port(&w->after, t->nodes[i]->ports[k]) < 0)
				return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	rc = counter_eval(t, w->req.policy, &w->before, &w->after, &w->crep);
	if (rc == 0)
		rc = loc_apply_counters(&w->sl.in, &w->sl.res, &w->crep);
	if (rc < 0)
		return fab_err_set(&ctx->err, rc, "diagnose: counters: %s", strerror(-rc));
	fab_info("diagnose: %zu counter findings on %zu ports read before and now", w->crep.n_findings,
		 w->crep.n_ports);
	return 0;
}

int sweep_from_run(struct sweep_state *w, struct sweep_outcome *out)
{
	struct sweep_ctx *ctx = &w->ctx;
	const struct sweep_req *req = &w->req;
	struct sweep_report *r = &out->report;
	struct sweep_locate_env env = { .ctx = ctx, .r = r };
	int rc;

	rc = sweep_doc_load(&w->doc, req->from, req->hosts, !req->topology, r, &ctx->err);
	if (rc < 0)
		return rc;
	r->cfg = req->cfg;
	sweep_cfg_transport(&r->cfg, r->transport);
	sweep_ref_compute(NULL, 0, &r->ref);
	rc = req->topology ? topology_live(w, r) : topology_saved(w);
	if (rc < 0)
		return rc;
	w->topo.hosts = &w->doc.hosts;
	env.st = &w->topo;
	/* the sweep's confirming probes, on the saved graph only (their hops name its links) */
	env.saved = req->topology ? NULL : w->doc.confirm;
	env.n_saved = req->topology ? 0 : w->doc.n_confirm;
	rc = sweep_locate_run(&w->sl, &env);
	if (rc == 0)
		rc = counters_compare(w);
	/* IB: the suspects' links' ends on the cable scale, since the saved sweep began */
	if (rc == 0 && w->topo.kind == SWEEP_TOPO_IB)
		rc = sweep_optics_ib(ctx, &w->optics, w->topo.t, &w->before, &w->after, &w->sl.res,
				     r->started_unix > 0 ? (double)(time(NULL) - r->started_unix) : 0);
	if (rc < 0)
		return rc;
	r->cables = w->optics.have_now ? &w->optics.now : NULL;
	r->fabric.source = req->topology ? req->topology : w->doc.topo_source;
	r->fabric.topo = w->topo.t;
	r->fabric.routes = w->topo.routes;
	r->fabric.host_link = w->topo.host_link;
	r->fabric.host_leaf = w->topo.host_leaf;
	r->fabric.loc = &w->sl.res;
	r->fabric.loc_in = &w->sl.in;
	r->fabric.confirm = env.saved;
	r->fabric.n_confirm = env.n_saved;
	return 0;
}
