// SPDX-License-Identifier: GPL-2.0-or-later
/* accept's stages 4 and 6: counters before and after the traffic (accept_run.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet/fleet_op.h"
#include "model/nic_counters.h"
#include "sweep/accept_impl.h"
#include "util/log.h"

/*
 * Stages 4 and 6.  InfiniBand: the PMA counters of every port of a new node
 * and of the port at the other end of its cables, read by a subnet walk
 * from this node before the traffic and again after it (and after
 * --counter-window), the deltas judged under the policy's counter table
 * (model/counter_eval.h, as diagnose does).  Ethernet / RoCE: the new
 * hosts' own counters through their workers (netdev statistics, ethtool -S,
 * RDMA hw_counters; model/nic_counters.h), on the host end of each one's
 * access link in the traffic graph; switch ports are not read.
 */
static bool counters_ib(const struct accept_state *s)
{
	return strcmp(s->o.topology, "ib") == 0;
}

/* Ports of @t whose counters are judged: a new node's, and the far end of its cables. */
static bool port_judged(const struct accept_state *s, const struct topo_port *p)
{
	return accept_name_in(s->new_names, s->n_new_names, p->node->name) ||
	       (p->peer && accept_name_in(s->new_names, s->n_new_names, p->peer->node->name));
}

#define ACCEPT_COUNTERS_TIMEOUT_MS 20000

/*
 * An end point's access port in @t: its first port cabled to a switch (a
 * port of a host of several: the one its ifname= names); NULL none.
 */
static const struct topo_port *access_port(const struct topo *t, const struct fab_host *h)
{
	const struct topo_node *n = topo_node_by_name(t, hosts_node(h));

	for (size_t k = 0; n && k < n->n_ports; k++) {
		const struct topo_port *p = n->ports[k];

		if (p->peer && p->peer->node->type == TOPO_NODE_SWITCH &&
		    (h->n_ports <= 1 || strcmp(p->name, h->nic) == 0))
			return p;
	}
	return NULL;
}

/*
 * Ethernet: every new end point's counters through its worker into @snap,
 * on its access port in s->nic_graph; *@n_read hosts answered, *@n_new of
 * them new end points.  Hosts that do not answer are left out (the reach
 * stage has said so).
 */
static int nic_snap(struct sweep_ctx *ctx, struct accept_state *s, struct counter_snap *snap,
		    size_t *n_read)
{
	struct nic_counters *c = calloc(s->f.n ? s->f.n : 1, sizeof(*c));
	bool *got = calloc(s->f.n ? s->f.n : 1, sizeof(*got));
	int rc = 0;

	*n_read = 0;
	if (!c || !got)
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < s->f.n; i++)
		nic_counters_init(&c[i]);
	if (rc == 0)
		rc = fleet_counters_read(&s->f, ACCEPT_COUNTERS_TIMEOUT_MS, c, got, &ctx->err);
	for (size_t i = 0; rc == 0 && i < s->f.n; i++) {
		const struct fab_host *h = &s->all.hosts[i];
		const struct topo_port *p;

		if (!got[i] || !h->is_new || !hosts_is_endpoint(h) ||
		    !(p = access_port(s->nic_graph, h)))
			continue;
		(*n_read)++;
		rc = nic_counters_snap(&c[i], &s->pol.counters, p, snap);
	}
	for (size_t i = 0; c && i < s->f.n; i++)
		nic_counters_fini(&c[i]);
	free(c);
	free(got);
	return rc;
}

static int stage_counters_base_nic(struct sweep_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	const char *why = NULL;
	size_t n = 0;
	int rc;

	if (!s->f.w) {
		accept_stage_set(r, ACCEPT_ST_COUNTERS_BASE, ACCEPT_SKIPPED,
				 "no workers: the hosts' counters are read through them");
		return 0;
	}
	s->nic_graph = accept_traffic_graph(ctx, s, &why);
	if (!s->nic_graph) {
		fab_err_init(&ctx->err);
		accept_stage_set(r, ACCEPT_ST_COUNTERS_BASE, ACCEPT_SKIPPED,
				 "no graph to place the hosts' ports on: %s", why ? why : "none");
		return 0;
	}
	counter_snap_init(&s->nic0);
	rc = nic_snap(ctx, s, &s->nic0, &n);
	if (rc < 0) {
		if (rc == -ENOMEM)
			return fab_err_set(&ctx->err, rc, "accept: out of memory");
		return accept_stage_unread(ctx, r, ACCEPT_ST_COUNTERS_BASE, FAB_COUNTER_UNREAD,
				    "the hosts' counters could not be read");
	}
	accept_stage_set(r, ACCEPT_ST_COUNTERS_BASE, ACCEPT_PASSED,
			 "counters read on %zu new hosts through their workers (netdev statistics, "
			 "ethtool -S, RDMA hw_counters; switch ports not read)", n);
	return 0;
}

static int counters_base(struct sweep_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	size_t ports = 0;
	int rc;

	if (!counters_ib(s))
		return stage_counters_base_nic(ctx, s);
	rc = accept_ib_walk(ctx, &s->cnt0, false);
	if (rc < 0) {
		return accept_stage_unread(ctx, r, ACCEPT_ST_COUNTERS_BASE, FAB_COUNTER_UNREAD,
				    "the PMA counters could not be read");
	}
	for (size_t i = 0; i < s->cnt0->n_nodes; i++)
		for (size_t k = 0; k < s->cnt0->nodes[i]->n_ports; k++) {
			const struct topo_port *p = s->cnt0->nodes[i]->ports[k];

			ports += (p->facts & TOPO_F_COUNTERS) && port_judged(s, p);
		}
	accept_stage_set(r, ACCEPT_ST_COUNTERS_BASE, ACCEPT_PASSED,
			 "PMA counters read on %zu ports (the new nodes' and the switch ports their "
			 "cables reach)", ports);
	if (s->o.counter_window_s > 0)
		fab_log(0, "accept: counters baseline read; the second read follows the traffic "
			   "stage and a %.1f s --counter-window", s->o.counter_window_s);
	return 0;
}

/* @before from the baseline graph, @after from @now mapped onto it by node GUID and port. */
static int counter_snaps(const struct accept_state *s, const struct topo *now,
			 struct counter_snap *before, struct counter_snap *after)
{
	const struct topo *t = s->cnt0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *n = t->nodes[i];
		const struct topo_node *nn = topo_node_by_guid(now, n->guid);

		for (size_t k = 0; k < n->n_ports; k++) {
			const struct topo_port *p = n->ports[k];
			const struct topo_port *np = nn ? topo_port_find(nn, p->num, NULL) : NULL;

			if (!port_judged(s, p))
				continue;
			if (counter_snap_add_topo_port(before, p) < 0 ||
			    (np && counter_snap_add_port_as(after, p, np) < 0))
				return -ENOMEM;
		}
	}
	return 0;
}

static int counter_findings(struct accept_report *r, const struct counter_report *cr,
			    size_t *n_info)
{
	*n_info = 0;
	for (size_t i = 0; i < cr->n_findings; i++) {
		const struct counter_finding *f = &cr->findings[i];
		char port[200], peer[200] = "", link[420];
		int rc;

		if (f->sev == COUNTER_SEV_INFO || f->reset) {
			(*n_info)++;
			continue;
		}
		topo_port_text(f->port, port, sizeof(port));
		if (f->port->peer)
			topo_port_text(f->port->peer, peer, sizeof(peer));
		snprintf(link, sizeof(link), "%s%s%s", port, peer[0] ? " <-> " : "", peer);
		rc = accept_finding_add(r, ACCEPT_ST_COUNTERS_AFTER,
					f->sev == COUNTER_SEV_ERROR ? FAB_COUNTER_ERRORS : FAB_COUNTER_WARN,
					f->port->node->name, link,
					"%s %s +%llu (%llu -> %llu) over the threshold %llu (%s)", port,
					f->name, (unsigned long long)f->delta,
					(unsigned long long)f->before, (unsigned long long)f->after,
					(unsigned long long)f->threshold, counter_sev_name(f->sev));
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void sleep_s(double secs)
{
	struct timespec ts = { .tv_sec = (time_t)secs,
			       .tv_nsec = (long)((secs - (double)(time_t)secs) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Stage 6's verdict: the deltas from @before to @after on @t's ports under
 * the policy, findings for those over a threshold, the stage's note
 * ("@what deltas on N @ports").  0 or -ENOMEM.
 */
static int counters_judge(struct accept_state *s, const struct topo *t,
			  const struct counter_snap *before, const struct counter_snap *after,
			  const char *what, const char *ports)
{
	struct accept_report *r = &s->rep;
	struct counter_report cr = { 0 };
	size_t n_info = 0;
	int rc;

	rc = counter_eval(t, &s->pol.counters, before, after, &cr);
	if (rc == 0)
		rc = counter_findings(r, &cr, &n_info);
	if (rc == 0) {
		accept_stage_set(r, ACCEPT_ST_COUNTERS_AFTER,
				 accept_stage_findings(r, ACCEPT_ST_COUNTERS_AFTER) ? ACCEPT_FAILED :
				 ACCEPT_PASSED,
				 "%s deltas on %zu %s%s: %zu over the policy's thresholds, %zu "
				 "informational or reset", what, cr.n_ports, ports,
				 s->o.counter_window_s > 0 ? " (with --counter-window)" : "",
				 accept_stage_findings(r, ACCEPT_ST_COUNTERS_AFTER), n_info);
	}
	counter_report_fini(&cr);
	return rc < 0 ? -ENOMEM : 0;
}

/* --counter-window: wait between the traffic and the second read (said on stderr). */
static void counter_window(const struct accept_state *s)
{
	if (s->o.counter_window_s <= 0)
		return;
	fab_log(0, "accept: counter window: %.1f s before the second counter read",
		s->o.counter_window_s);
	sleep_s(s->o.counter_window_s);
}

static int counters_after_nic(struct sweep_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	struct counter_snap after;
	size_t n = 0;
	int rc;

	counter_snap_init(&after);
	/* The traffic stage's sweep had workers of its own: start the stages' again. */
	rc = s->f.w ? 0 : fleet_start(&s->f, &s->all, &s->o.fo, &ctx->err);
	if (rc == 0)
		rc = nic_snap(ctx, s, &after, &n);
	if (rc < 0 && rc != -ENOMEM) {
		rc = accept_stage_unread(ctx, r, ACCEPT_ST_COUNTERS_AFTER, FAB_COUNTER_UNREAD,
				  "the hosts' counters could not be read again");
		goto out;
	}
	if (rc == 0)
		rc = counters_judge(s, s->nic_graph, &s->nic0, &after, "counter", "new hosts' ports");
out:
	counter_snap_fini(&after);
	return rc < 0 ? fab_err_set(&ctx->err, rc, "accept: out of memory") : 0;
}

static int counters_after_ib(struct sweep_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	struct counter_snap before, after;
	struct topo *now = NULL;
	int rc;

	counter_snap_init(&before);
	counter_snap_init(&after);
	rc = accept_ib_walk(ctx, &now, false);
	if (rc < 0) {
		rc = accept_stage_unread(ctx, r, ACCEPT_ST_COUNTERS_AFTER, FAB_COUNTER_UNREAD,
				  "the PMA counters could not be read again");
		goto out;
	}
	rc = counter_snaps(s, now, &before, &after);
	if (rc == 0)
		rc = counters_judge(s, s->cnt0, &before, &after, "PMA counter", "ports");
out:
	counter_snap_fini(&before);
	counter_snap_fini(&after);
	topo_free(now);
	return rc < 0 ? fab_err_set(&ctx->err, rc, "accept: out of memory") : 0;
}

/* Stage 4: the counters before the traffic, and the new hosts' cable ends. */
int accept_stage_counters_base(struct sweep_ctx *ctx, struct accept_state *s)
{
	int rc = counters_base(ctx, s);

	return rc < 0 ? rc : accept_optics_base(ctx, s);
}

static int counters_after(struct sweep_ctx *ctx, struct accept_state *s)
{
	bool ib = counters_ib(s);

	if (ib ? !s->cnt0 : !s->nic_graph) {
		accept_stage_set(&s->rep, ACCEPT_ST_COUNTERS_AFTER, ACCEPT_SKIPPED,
				 ib ? "no baseline (stage 4 did not run)"
				    : "no baseline (stage 4 did not read the hosts' counters)");
		return 0;
	}
	counter_window(s);
	return ib ? counters_after_ib(ctx, s) : counters_after_nic(ctx, s);
}

/* Stage 6: the counters read again after the traffic, judged against stage 4's; the cable ends. */
int accept_stage_counters_after(struct sweep_ctx *ctx, struct accept_state *s)
{
	int rc = counters_after(ctx, s);

	return rc < 0 ? rc : accept_optics_after(ctx, s);
}
