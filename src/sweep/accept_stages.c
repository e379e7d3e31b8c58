// SPDX-License-Identifier: GPL-2.0-or-later
/* accept's stages 1 (reach), 2 (configuration) and 3 (cabling); accept_run.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_lldp.h"
#include "fleet/fleet_op.h"
#include "model/accept_legs.h"
#include "model/topo_diff.h"
#include "model/ib_checks.h"
#include "sweep/accept_impl.h"
#include "util/str.h"

/* ---- stage 1: reach ---- */

/* Worker @i's data-path interface as read (@fp): a bond or not, for stage 5 (s->dp_kind). */
static void dp_kind_keep(struct accept_state *s, size_t i, const struct fleet_ports *fp)
{
	const struct fab_host *h = s->f.w[i].host;
	size_t k = (size_t)(h - s->all.hosts);

	if (!s->dp_kind || k >= s->all.n || !fp->got || !fp->datapath[0])
		return;
	for (size_t j = 0; j < fp->hs.n_links; j++)
		if (strcmp(fp->hs.links[j].name, fp->datapath) == 0)
			s->dp_kind[k] = strcmp(fp->hs.links[j].kind, "bond") == 0 ? ACCEPT_DP_BOND
										 : ACCEPT_DP_PLAIN;
}

#define ACCEPT_PORTS_TIMEOUT_MS 20000

/* What @h's fabric ports are expected to be (model/accept.h); @datapath borrowed. */
static void port_want(const struct accept_state *s, const struct fab_host *h, const char *datapath,
		      struct accept_port_want *w)
{
	*w = (struct accept_port_want){ .datapath = datapath, .rdma = h->rdma,
					.rdma_port = h->rdma_port, .profile = s->profile };
	if (h->rate_gbps > 0) {
		w->rate_gbps = h->rate_gbps;
		w->rate_from = "rate_gbps=";
	} else if (s->pol.port_rate_gbps) {
		w->rate_gbps = s->pol.port_rate_gbps;
		w->rate_from = "the policy's port_rate_gbps";
	}
}

/*
 * The fabric ports of every reached new end point, read through its
 * worker (status and the data-path interface, fleet_ports_read()) and
 * judged (accept_ports_judge()).  The existing end points are read too:
 * their RDMA ports count in the fleet's norm, and their own problems are
 * counted in the note, never findings.  Switches are not judged here (the
 * cabling stage judges their ports).  What was judged goes into @note.
 */
static int reach_ports(struct sweep_ctx *ctx, struct accept_state *s, char *note, size_t len)
{
	struct fleet_ports *fp = calloc(s->f.n ? s->f.n : 1, sizeof(*fp));
	struct accept_port_count cn = { 0 }, ce = { 0 };
	struct accept_report *r = &s->rep, scratch;
	struct accept_port_norm norm;
	struct accept_port_want w;
	size_t n_new = 0, n_old = 0;
	int rc;

	free(s->dp_kind);
	s->dp_kind = calloc(s->all.n ? s->all.n : 1, sizeof(*s->dp_kind));
	if (!fp || !s->dp_kind) {
		free(fp);
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	}
	memset(&norm, 0, sizeof(norm));
	accept_report_init(&scratch);
	rc = fleet_ports_read(&s->f, ACCEPT_PORTS_TIMEOUT_MS, fp, &ctx->err);
	for (size_t i = 0; rc == 0 && i < s->f.n; i++) {
		if (!fp[i].got || !hosts_is_endpoint(s->f.w[i].host))
			continue;
		port_want(s, s->f.w[i].host, fp[i].datapath, &w);
		accept_port_norm_add(&norm, &fp[i].hs, &w);
	}
	for (size_t i = 0; rc == 0 && i < s->f.n; i++) {
		const struct fab_host *h = s->f.w[i].host;

		if (!r->nodes[i].reached || !hosts_is_endpoint(h))
			continue;	/* not reached: said above */
		port_want(s, h, fp[i].datapath, &w);
		dp_kind_keep(s, i, &fp[i]);
		if (!h->is_new) {
			n_old += fp[i].got;
			if (fp[i].got)
				rc = accept_ports_judge(&scratch, h->name, &fp[i].hs, &w, &norm, &ce);
			continue;
		}
		n_new++;
		if (!fp[i].got) {
			rc = accept_finding_add(r, ACCEPT_ST_REACH, FAB_REACH_PORT_UNREAD, h->name, "",
						"its ports could not be read: %s", fp[i].why);
			continue;
		}
		if (!fp[i].datapath[0])
			rc = accept_finding_add(r, ACCEPT_ST_REACH, FAB_REACH_PORT_UNREAD, h->name, "",
						"no data-path interface for %s: %s", h->addr,
						fp[i].why_datapath);
		if (rc == 0)
			rc = accept_ports_judge(r, h->name, &fp[i].hs, &w, &norm, &cn);
	}
	if (rc == -ENOMEM)
		rc = fab_err_set(&ctx->err, rc, "accept: out of memory");
	if (rc == 0 && n_new)
		str_fmt(note, len, "; fabric ports of %zu new host%s: %zu judged, %zu down, %zu "
			"below rated or expected%s; existing hosts' ports read on %zu, %zu problem%s "
			"there not judged", n_new, n_new == 1 ? "" : "s", cn.ports, cn.down,
			cn.degraded, cn.speed_unknown ? " (some rated ports report no speed)" : "",
			n_old, ce.down + ce.degraded, ce.down + ce.degraded == 1 ? "" : "s");
	accept_report_fini(&scratch);
	fleet_ports_fini(fp, s->f.n);
	free(fp);
	return rc;
}

int accept_stage_reach(struct sweep_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	size_t dead = 0, findings;
	char ports[400] = "";
	int rc;

	if (s->o.no_workers) {
		for (size_t i = 0; i < s->all.n; i++)
			if (accept_node_add(r, s->all.hosts[i].name, s->all.hosts[i].is_new,
					    hosts_is_endpoint(&s->all.hosts[i]), false) < 0)
				return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
		accept_stage_set(r, ACCEPT_ST_REACH, ACCEPT_SKIPPED,
				 "--no-workers: no worker contacted (IB-only); the new nodes' presence "
				 "and port state are judged by the cabling stage's subnet walk");
		return 0;
	}
	rc = fleet_start(&s->f, &s->all, &s->o.fo, &ctx->err);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < s->f.n; i++) {
		const struct fleet_worker *w = &s->f.w[i];
		const json_t *sw = w->hello ? json_object_get(w->hello, "software") : NULL;
		const char *what = w->host->is_new ? "new" : "existing";

		if (w->dead || !w->hello) {
			bool ver = strstr(w->reason, "version") != NULL;

			dead++;
			rc = accept_finding_add(r, ACCEPT_ST_REACH,
						ver ? FAB_REACH_VERSION : FAB_REACH_NO_WORKER,
						w->host->name, "", "%s node at %s: %s", what,
						w->host->addr, w->reason[0] ? w->reason : "no hello");
		} else if (json_is_string(sw) && strcmp(json_string_value(sw), FAB_VERSION) != 0) {
			rc = accept_finding_add(r, ACCEPT_ST_REACH, FAB_REACH_VERSION, w->host->name, "",
						"worker runs fabricctl %s, this admin host %s",
						json_string_value(sw), FAB_VERSION);
		}
		if (rc == 0)
			rc = accept_node_add(r, w->host->name, w->host->is_new,
					     hosts_is_endpoint(w->host), !w->dead && w->hello);
		if (rc < 0)
			return fab_err_set(&ctx->err, rc, "accept: out of memory");
	}
	findings = accept_stage_findings(r, ACCEPT_ST_REACH);
	if (fleet_live(&s->f) && reach_ports(ctx, s, ports, sizeof(ports)) < 0)
		return ctx->err.code;
	if (accept_stage_findings(r, ACCEPT_ST_REACH))
		accept_stage_set(r, ACCEPT_ST_REACH, ACCEPT_FAILED,
				 "%zu of %zu %s answered (%zu without a worker or of another "
				 "version)%s", s->f.n - dead, s->f.n, fleet_unit(&s->f, s->f.n),
				 findings, ports);
	else
		accept_stage_set(r, ACCEPT_ST_REACH, ACCEPT_PASSED,
				 "all %zu %s answered, protocol version %d%s", s->f.n,
				 fleet_unit(&s->f, s->f.n),
				 FAB_PROTO_VERSION, ports);
	return 0;
}

/* ---- stage 2: configuration (read only) ---- */

int accept_stage_config(struct sweep_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	struct fleet_verify v = { .n_drift = 0 };
	struct fleet_run run = { .n = 0 };
	size_t i;
	int rc;

	if (!s->profile_params) {
		accept_stage_set(r, ACCEPT_ST_CONFIG, ACCEPT_SKIPPED, "no --profile given");
		return 0;
	}
	if (s->o.no_workers) {
		accept_stage_set(r, ACCEPT_ST_CONFIG, ACCEPT_SKIPPED,
				 "--no-workers: no worker to verify the profile with");
		return 0;
	}
	rc = fleet_op_run(&s->new_ends, &s->o.fo, "verify", s->profile_params, 60000, &run,
			  &ctx->err);
	if (rc < 0)
		return rc;
	if (fleet_verify_check(&run, s->o.profile, &v) < 0)
		goto oom;
	for (i = 0; i < v.n_drift; i++) {
		const struct fleet_drift *d = &v.drift[i];

		if (accept_finding_add(r, ACCEPT_ST_CONFIG, FAB_CONFIG_DRIFT, d->node, "",
				       "%s %s: wanted %s, found %s", d->interface, d->field, d->wanted,
				       d->found) < 0)
			goto oom;
	}
	for (i = 0; i < run.n; i++) {
		const struct fleet_answer *a = &run.nodes[i];

		if (a->ok)
			continue;
		if (accept_finding_add(r, ACCEPT_ST_CONFIG, FAB_CONFIG_UNREAD, a->node, "",
				       "could not be verified: %s", a->error ? a->error : "?") < 0)
			goto oom;
	}
	accept_stage_set(r, ACCEPT_ST_CONFIG,
			 run.n_failed || v.n_drifted ? ACCEPT_FAILED : ACCEPT_PASSED,
			 "verify %s on the %zu new nodes (existing nodes not touched): %zu drifted, "
			 "%zu failed", s->o.profile, s->new_ends.n, v.n_drifted, run.n_failed);
	rc = 0;
	goto out;
oom:
	rc = fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
out:
	fleet_verify_fini(&v);
	fleet_run_fini(&run);
	return rc;
}

/* ---- stage 3: cabling ---- */

static int dual_homing(struct accept_state *s)
{
	int rc = 0;

	for (size_t b = 0; s->profile && b < s->profile->n_bonds && rc == 0; b++) {
		const struct fab_bond *bond = &s->profile->bonds[b].want;
		const char *members[16];
		size_t n = 0;

		for (size_t m = 0; m < bond->n_members && n < 16; m++)
			members[n++] = bond->members[m].name;
		for (size_t i = 0; i < s->new_ends.n && rc == 0; i++)
			rc = accept_dual_homing(&s->rep, s->found, s->new_ends.hosts[i].name, members,
						n, bond->name);
	}
	return rc;
}

/*
 * A new node of the hosts file that the walk does not hold (by name, or
 * the first word of a node description): the plan diff names planned
 * cables, but without a plan nothing else would.
 */
static int ib_absent(struct accept_report *r, const struct accept_state *s)
{
	for (size_t i = 0; i < s->n_new_names; i++) {
		const char *one[1] = { s->new_names[i] };
		bool found = false;
		int rc;

		for (size_t k = 0; k < s->ib->n_nodes && !found; k++)
			found = accept_name_in(one, 1, s->ib->nodes[k]->name);
		if (found)
			continue;
		rc = accept_finding_add(r, ACCEPT_ST_CABLING, FAB_CABLE_MISSING, s->new_names[i], "",
					"new node not in the IB subnet walk from this node (no node "
					"or node description '%s')", s->new_names[i]);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/*
 * Stage 3's verdict on the graph @t found (the IB subnet walk when @ib, as
 * discover --ib --expect, else LLDP): its health and its diff against the
 * plan, MTU and rails (LLDP), then the findings on the new nodes.
 */
static int cabling_judge(struct sweep_ctx *ctx, struct accept_state *s, struct topo *t, bool ib)
{
	struct accept_report *r = &s->rep;
	struct topo_thresholds th;
	size_t other = 0;

	topo_thresholds_from(&th, &s->pol.counters);
	if (topo_health_check_plan(t, &th, s->plan) < 0 || (s->plan && topo_diff(t, s->plan, NULL) < 0) ||
	    (!ib && (topo_mtu_check(t, s->plan) < 0 || topo_rail_plan_check(t, &s->rails) < 0)))
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	/* IB: the new nodes' routes and identities (discover --checks routes,ids). */
	if (ib && ib_checks_run(t, IB_CHECK_ROUTES | IB_CHECK_IDS) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	topo_sort(t);
	if (accept_cabling_findings(r, t, s->new_names, s->n_new_names, &other) < 0 ||
	    (ib && accept_route_findings(r, t, s->new_names, s->n_new_names) < 0) ||
	    (ib ? ib_absent(r, s) : dual_homing(s)) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	accept_stage_set(r, ACCEPT_ST_CABLING,
			 accept_stage_findings(r, ACCEPT_ST_CABLING) ? ACCEPT_FAILED : ACCEPT_PASSED,
			 "%s: %zu nodes, %zu links%s%s; %zu problem%s among existing nodes only, "
			 "not judged%s", ib ? "IB subnet walk" : "LLDP", t->n_nodes, t->n_links,
			 s->plan ? ", against " : ", no --plan (miswiring not judged)",
			 s->plan ? s->o.plan : "", other, other == 1 ? "" : "s",
			 ib ? "; dual-homing is judged from LLDP only" : "");
	return 0;
}

int accept_stage_cabling(struct sweep_ctx *ctx, struct accept_state *s)
{
	if (strcmp(s->o.topology, "ib") == 0) {
		if (accept_ib_walk(ctx, &s->ib, true) < 0)
			return accept_stage_unread(ctx, &s->rep, ACCEPT_ST_CABLING, FAB_CABLE_UNREAD,
					    "the IB subnet could not be read");
		return cabling_judge(ctx, s, s->ib, true);
	}
	s->found = topo_new();
	if (!s->found)
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	/* A node whose LLDP view cannot be read: the cabling is not proven. */
	if (fleet_lldp_collect(&s->f, &s->all, s->o.lldp_socket, 0, s->found, &ctx->err) < 0)
		return accept_stage_unread(ctx, &s->rep, ACCEPT_ST_CABLING, FAB_CABLE_UNREAD,
				    "the LLDP graph could not be read");
	return cabling_judge(ctx, s, s->found, false);
}
