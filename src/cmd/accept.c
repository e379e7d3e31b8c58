// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl accept --hosts FILE [--profile P] [--plan PLAN] [--topology SRC]
 *                  [--policy POLICY] [--keep-going] [--counter-window S] [--no-workers]
 *
 * Pre-expansion verification (docs/accept.md): the nodes labelled `new` in
 * the hosts file against the running fabric, in stages, fail-closed, one
 * verdict.  A front end composing what exists:
 *
 *   1 reach          fleet_start() on every node of the hosts file; the new
 *                    end points' fabric ports through their workers
 *                    (fleet_ports_read: status + the data-path interface),
 *                    judged by accept_ports_judge()
 *   2 configuration  the worker's verify op on the new end points only
 *                    (fleet_run_op + fleet_verify_merge); nothing is applied
 *   3 cabling        the LLDP graph through the reach stage's workers
 *                    (discover_lldp_fleet_collect), health, plan diff, MTU,
 *                    rails, restricted to the new nodes; dual-homing of the
 *                    profile's bonds.  --topology ib: the subnet walk from
 *                    this node (sys_subnet_read), health and plan diff
 *   4, 6 counters    IB: PMA counters of the new nodes' ports and their
 *                    peers, walked before and after, counter_eval() under
 *                    the policy's table; Ethernet: skipped (no source yet)
 *   5 traffic        sweep_main() with --topology and the pairs of
 *                    accept_pairs_cover() (model/coverage.h), its
 *                    "fabricctl.sweep/2" JSON captured in memory and read
 *                    back; the policy's latency p99 bound
 *
 * --no-workers (IB only): stages 1, 2 and 5 are skipped, saying so (the
 * subnet walk of stage 3 judges the new nodes' IB ports).
 *
 * Exit: 0 ACCEPT, 1 REJECT, 2 bad input, 3 system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/discover_lldp.h"
#include "cmd/fleet_cmd.h"
#include "cmd/sweep_cmd.h"
#include "fleet/fleet.h"
#include "fleet/fleet_op.h"
#include "io/load.h"
#include "model/accept.h"
#include "model/counter_eval.h"
#include "model/profile.h"
#include "model/topo_diff.h"
#include "model/topo_lldp_checks.h"
#include "render/accept.h"
#include "sys/sys.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/log.h"
#include "util/str.h"

#define ACCEPT_POLICY_MAX (1u << 20)

struct accept_opts {
	const char *hosts, *profile, *plan, *topology, *policy, *lldp_socket, *transport;
	struct fleet_opts fo;
	bool keep_going;
	bool no_workers;		/* --no-workers: IB-only, read from this node only */
	double counter_window_s;	/* --counter-window: wait between the counter reads */
	double duration_s;
	unsigned int lat_iters;
	unsigned int coverage_k;	/* --coverage, 0: the policy's */
};

/* Everything one run holds; accept_state_fini() frees it. */
struct accept_state {
	struct accept_opts o;
	struct accept_policy pol;
	struct accept_report rep;
	struct fab_hosts all, ends, fabric, new_ends;
	const char **new_names;		/* borrowed from all */
	size_t n_new_names;
	struct profile *profile;
	json_t *profile_params;
	struct topo *plan, *found, *tplan;	/* tplan: --topology PLAN for the pairs */
	struct topo *ib;			/* the IB subnet walk of the cabling stage */
	struct topo *cnt0;			/* IB: the counters baseline walk (stage 4) */
	struct topo *nic_graph;			/* Ethernet: the graph nic0's ports are of (borrowed) */
	struct counter_snap nic0;		/* Ethernet: the new hosts' counters before (stage 4) */
	struct topo_rails rails, trails;
	struct fleet f;
	bool progress;				/* stderr is a terminal: say each stage */
};

static int accept_parse(struct fab_ctx *ctx, int argc, char **argv, struct accept_opts *o)
{
	enum { OPT_PROFILE = 256, OPT_PLAN, OPT_TOPOLOGY, OPT_POLICY, OPT_KEEP_GOING,
	       OPT_COVERAGE, OPT_DURATION, OPT_LAT_ITERS, OPT_LLDP_SOCKET, OPT_TRANSPORT,
	       OPT_NO_WORKERS, OPT_COUNTER_WINDOW };
	static const struct option opts[] = {
		FLEET_LONG_OPTIONS,
		{ "profile", required_argument, NULL, OPT_PROFILE },
		{ "plan", required_argument, NULL, OPT_PLAN },
		{ "topology", required_argument, NULL, OPT_TOPOLOGY },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "keep-going", no_argument, NULL, OPT_KEEP_GOING },
		{ "coverage", required_argument, NULL, OPT_COVERAGE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "lat-iters", required_argument, NULL, OPT_LAT_ITERS },
		{ "lldp-socket", required_argument, NULL, OPT_LLDP_SOCKET },
		{ "transport", required_argument, NULL, OPT_TRANSPORT },
		{ "no-workers", no_argument, NULL, OPT_NO_WORKERS },
		{ "counter-window", required_argument, NULL, OPT_COUNTER_WINDOW },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (fleet_opt_take(&o->fo, &o->hosts, opt, optarg))
			continue;
		switch (opt) {
		case OPT_PROFILE:
			o->profile = optarg;
			break;
		case OPT_PLAN:
			o->plan = optarg;
			break;
		case OPT_TOPOLOGY:
			o->topology = optarg;
			break;
		case OPT_POLICY:
			o->policy = optarg;
			break;
		case OPT_KEEP_GOING:
			o->keep_going = true;
			break;
		case OPT_COVERAGE:
			if (cmd_opt_whole(ctx, "accept", "coverage", optarg, 1, 64, &o->coverage_k) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_DURATION:
			if (cmd_opt_num(ctx, "accept", "duration", optarg, 0.1, 3600, &o->duration_s) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_LAT_ITERS:
			if (cmd_opt_whole(ctx, "accept", "lat-iters", optarg, 1, 10000000, &o->lat_iters) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_LLDP_SOCKET:
			o->lldp_socket = optarg;
			break;
		case OPT_TRANSPORT:
			o->transport = optarg;
			break;
		case OPT_NO_WORKERS:
			o->no_workers = true;
			break;
		case OPT_COUNTER_WINDOW:
			if (cmd_opt_num(ctx, "accept", "counter-window", optarg, 0, 86400,
					&o->counter_window_s) < 0)
				return FAB_EXIT_USAGE;
			break;
		case 'j':
			render_select(&ctx->render, "json");
			break;
		default:
			return cmd_opt_other(ctx, "accept", opt);
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, "accept", "unexpected argument '%s'", argv[optind]);
	if (!o->hosts)
		return cmd_usage_error(ctx, "accept", "--hosts FILE is required");
	if (o->no_workers && (!o->topology || strcmp(o->topology, "ib") != 0))
		return cmd_usage_error(ctx, "accept", "--no-workers goes with --topology ib "
				       "(LLDP and traffic need the workers)");
	return -1;	/* go on */
}

/* ---- input, all read and checked before any node is contacted ---- */

static int load_policy(struct accept_state *s, struct fab_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	accept_policy_default(&s->pol);
	if (!s->o.policy)
		return 0;
	rc = file_read_all(s->o.policy, ACCEPT_POLICY_MAX, &buf, &len, err);
	if (rc == 0)
		rc = accept_policy_parse(&s->pol, buf, len, s->o.policy, err);
	free(buf);
	return rc;
}

static int load_inputs(struct accept_state *s, struct fab_err *err)
{
	int rc = load_policy(s, err);

	if (rc < 0)
		return rc;
	if (s->o.coverage_k)
		s->pol.coverage_k = s->o.coverage_k;
	rc = hosts_load(&s->all, s->o.hosts, err);
	if (rc < 0)
		return rc;
	if (hosts_split_role(&s->all, &s->ends, &s->fabric) < 0)
		return fab_err_set(err, -ENOMEM, "accept: out of memory");
	s->new_names = calloc(s->all.n ? s->all.n : 1, sizeof(*s->new_names));
	if (!s->new_names)
		return fab_err_set(err, -ENOMEM, "accept: out of memory");
	for (size_t i = 0; i < s->all.n; i++)
		if (s->all.hosts[i].is_new)
			s->new_names[s->n_new_names++] = s->all.hosts[i].name;
	for (size_t i = 0; i < s->ends.n; i++) {
		if (!s->ends.hosts[i].is_new)
			continue;
		struct fab_host *h = array_add((void **)&s->new_ends.hosts, &s->new_ends.n, sizeof(*h));

		if (!h)
			return fab_err_set(err, -ENOMEM, "accept: out of memory");
		*h = s->ends.hosts[i];
	}
	s->rep.n_new = s->new_ends.n;
	s->rep.n_existing = s->ends.n - s->new_ends.n;
	s->rep.n_switches_new = s->n_new_names - s->new_ends.n;
	s->rep.coverage_k = s->pol.coverage_k;
	if (!s->new_ends.n)
		return fab_err_input(err, -EINVAL, "%s: no end point is labelled new (docs/hosts.md)",
				     s->o.hosts);
	if (s->o.profile) {
		rc = apply_fleet_params(s->o.profile, &s->profile_params, err);
		if (rc == 0)
			rc = profile_load(s->o.profile, &s->profile, err);
		if (rc < 0)
			return rc;
	}
	if (s->o.plan) {
		rc = plan_load(s->o.plan, &s->plan, &s->rails, err);
		if (rc < 0)
			return rc;
	}
	if (!s->o.topology)
		s->o.topology = s->o.plan ? s->o.plan : "lldp";
	return 0;
}

/* ---- stage 1: reach ---- */

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
static int reach_ports(struct fab_ctx *ctx, struct accept_state *s, char *note, size_t len)
{
	struct fleet_ports *fp = calloc(s->f.n ? s->f.n : 1, sizeof(*fp));
	struct accept_port_count cn = { 0 }, ce = { 0 };
	struct accept_report *r = &s->rep, scratch;
	struct accept_port_norm norm;
	struct accept_port_want w;
	size_t n_new = 0, n_old = 0;
	int rc;

	if (!fp)
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
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

static int stage_reach(struct fab_ctx *ctx, struct accept_state *s)
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
				 "%zu of %zu nodes answered (%zu without a worker or of another "
				 "version)%s", s->f.n - dead, s->f.n, findings, ports);
	else
		accept_stage_set(r, ACCEPT_ST_REACH, ACCEPT_PASSED,
				 "all %zu nodes answered, protocol version %d%s", s->f.n,
				 FAB_PROTO_VERSION, ports);
	return 0;
}

/* ---- stage 2: configuration (read only) ---- */

static const char *jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : "?";
}

static int stage_config(struct fab_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	json_t *run = NULL, *doc = NULL, *d;
	size_t failed = 0, drifted = 0, i;
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
	rc = fleet_run_op(&s->new_ends, &s->o.fo, "verify", s->profile_params,
			  "fabricctl.fleet-verify/1", 60000, &run, &failed, &ctx->err);
	if (rc < 0)
		return rc;
	doc = fleet_verify_merge(run, s->o.profile, &failed, &drifted);
	if (!doc) {
		rc = fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
		goto out;
	}
	json_array_foreach(json_object_get(doc, "drift"), i, d) {
		rc = accept_finding_add(r, ACCEPT_ST_CONFIG, FAB_CONFIG_DRIFT, jstr(d, "node"), "",
					"%s %s: wanted %s, found %s", jstr(d, "interface"),
					jstr(d, "field"), jstr(d, "wanted"), jstr(d, "found"));
		if (rc < 0)
			goto oom;
	}
	json_array_foreach(json_object_get(doc, "nodes"), i, d) {
		if (json_is_true(json_object_get(d, "ok")))
			continue;
		rc = accept_finding_add(r, ACCEPT_ST_CONFIG, FAB_CONFIG_UNREAD, jstr(d, "node"), "",
					"could not be verified: %s", jstr(d, "error"));
		if (rc < 0)
			goto oom;
	}
	accept_stage_set(r, ACCEPT_ST_CONFIG,
			 failed || drifted ? ACCEPT_FAILED : ACCEPT_PASSED,
			 "verify %s on the %zu new nodes (existing nodes not touched): %zu drifted, "
			 "%zu failed", s->o.profile, s->new_ends.n, drifted, failed);
	rc = 0;
	goto out;
oom:
	rc = fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
out:
	json_decref(doc);
	json_decref(run);
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

/* The IB subnet walk from this node, with PMA counters, into a new *@out. */
static int ib_walk(struct fab_ctx *ctx, struct topo **out)
{
	struct subnet_opts o = { .counters = true, .max_smps = 64 };
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
 * Stage @st could not read what it judges (why: ctx->err): a finding of
 * @code with that reason, and the stage failed, not proven (@note).
 * 0 or -ENOMEM.
 */
static int stage_unread(struct fab_ctx *ctx, struct accept_report *r, enum accept_stage st,
			enum accept_code code, const char *note)
{
	int rc = accept_finding_add(r, st, code, "", "", "%s", ctx->err.msg);

	fab_err_init(&ctx->err);
	accept_stage_set(r, st, ACCEPT_FAILED, "%s", note);
	return rc < 0 ? fab_err_set(&ctx->err, rc, "accept: out of memory") : 0;
}

/*
 * Stage 3's verdict on the graph @t found (the IB subnet walk when @ib, as
 * discover --ib --expect, else LLDP): its health and its diff against the
 * plan, MTU and rails (LLDP), then the findings on the new nodes.
 */
static int cabling_judge(struct fab_ctx *ctx, struct accept_state *s, struct topo *t, bool ib)
{
	struct accept_report *r = &s->rep;
	struct topo_thresholds th;
	size_t other = 0;

	topo_thresholds_default(&th);
	if (topo_health_check_plan(t, &th, s->plan) < 0 || (s->plan && topo_diff(t, s->plan, NULL) < 0) ||
	    (!ib && (topo_mtu_check(t, s->plan) < 0 || topo_rail_plan_check(t, &s->rails) < 0)))
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	topo_sort(t);
	if (accept_cabling_findings(r, t, s->new_names, s->n_new_names, &other) < 0 ||
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

static int stage_cabling(struct fab_ctx *ctx, struct accept_state *s)
{
	struct discover_lldp_fleet fl = { .socket = s->o.lldp_socket };

	if (strcmp(s->o.topology, "ib") == 0) {
		if (ib_walk(ctx, &s->ib) < 0)
			return stage_unread(ctx, &s->rep, ACCEPT_ST_CABLING, FAB_CABLE_UNREAD,
					    "the IB subnet could not be read");
		return cabling_judge(ctx, s, s->ib, true);
	}
	s->found = topo_new();
	if (!s->found)
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	/* A node whose LLDP view cannot be read: the cabling is not proven. */
	if (discover_lldp_fleet_collect(ctx, &s->f, &s->all, &fl, s->found) < 0)
		return stage_unread(ctx, &s->rep, ACCEPT_ST_CABLING, FAB_CABLE_UNREAD,
				    "the LLDP graph could not be read");
	return cabling_judge(ctx, s, s->found, false);
}

/* ---- stage 5: traffic ---- */

/*
 * The graph the sweep will route the pairs on (its --topology): the LLDP
 * graph of the cabling stage, the IB graph of the cabling or counters
 * stage, or the plan.  NULL with *@why set when there is none.
 */
static struct topo *traffic_graph(struct fab_ctx *ctx, struct accept_state *s, const char **why)
{
	struct discover_lldp_fleet fl = { .socket = s->o.lldp_socket };

	if (strcmp(s->o.topology, "ib") == 0) {
		if (!s->ib && ib_walk(ctx, &s->ib) < 0)	/* the cabling stage was turned off */
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
		if (s->found && discover_lldp_fleet_collect(ctx, &s->f, &s->all, &fl, s->found) < 0) {
			*why = ctx->err.msg;
			topo_free(s->found);
			s->found = NULL;
		}
	}
	if (!s->found && !*why)
		*why = "no LLDP graph was read";
	return s->found;
}

/*
 * The pairs (accept_pairs_cover) as a pairs file for the sweep, in a
 * private temporary file: its path in @path.  A graph the new hosts
 * cannot be placed on is a finding, not an error (*@done false).
 */
static int write_pairs(struct fab_ctx *ctx, struct accept_state *s, char *path, size_t len,
		       bool *done)
{
	const char *dir = getenv("TMPDIR"), *why = NULL;
	struct coverage cov = { 0 };
	struct topo *t;
	struct route *r = NULL;
	bool *is_new = NULL;
	FILE *f = NULL;
	int fd, n, rc;

	*done = false;
	t = traffic_graph(ctx, s, &why);
	if (!t) {
		rc = accept_finding_add(&s->rep, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_FAILED, "", "",
					"no pairs chosen: %s", why ? why : "no graph");
		fab_err_init(&ctx->err);
		return rc < 0 ? fab_err_set(&ctx->err, rc, "accept: out of memory") : 0;
	}
	topo_sort(t);
	is_new = calloc(s->ends.n ? s->ends.n : 1, sizeof(*is_new));
	if (!is_new || route_new(&r, t) < 0) {
		rc = fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
		goto out;
	}
	for (size_t i = 0; i < s->ends.n; i++)
		is_new[i] = s->ends.hosts[i].is_new;
	rc = route_place(r, &s->ends, &ctx->err);
	if (rc == 0) {
		route_rates(r, &s->ends, NULL, NULL);
		r->ecmp_whole = true;	/* as the sweep routes them */
		rc = accept_pairs_cover(r, is_new, s->new_names, s->n_new_names, s->pol.coverage_k,
					&cov, &ctx->err);
	}
	if (rc < 0 && ctx->err.kind == FAB_ERR_INPUT) {	/* a host not on the graph, too few hosts */
		rc = accept_finding_add(&s->rep, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_FAILED, "", "",
					"no pairs chosen (--topology %s): %s", s->o.topology,
					ctx->err.msg);
		fab_err_init(&ctx->err);
		if (rc < 0)
			rc = fab_err_set(&ctx->err, rc, "accept: out of memory");
		goto out;
	}
	if (rc < 0)
		goto out;
	s->rep.n_pairs_chosen = cov.n_pairs;
	s->rep.links_target = cov.links_target;
	s->rep.links_short = cov.links_short + cov.links_unreachable;
	n = snprintf(path, len, "%s/fabricctl-accept-pairs.XXXXXX", dir && *dir ? dir : "/tmp");
	if (n < 0 || (size_t)n >= len) {
		rc = fab_err_input(&ctx->err, -ENAMETOOLONG, "TMPDIR %s: name too long", dir);
		path[0] = '\0';
		goto out;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		rc = fab_err_set(&ctx->err, -errno, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		path[0] = '\0';
		goto out;
	}
	for (size_t i = 0; i < cov.n_pairs; i++)
		fprintf(f, "%s %s\n", s->ends.hosts[cov.pairs[i].a].name,
			s->ends.hosts[cov.pairs[i].b].name);
	if (fclose(f) == EOF) {
		rc = fab_err_set(&ctx->err, -EIO, "%s: write failed", path);
		goto out;
	}
	*done = true;
out:
	coverage_fini(&cov);
	route_free(r);
	free(is_new);
	return rc;
}

static const char *end_text(const json_t *e, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s", jstr(e, "node"), jstr(e, "port"));
	return buf;
}

/* Findings from the captured "fabricctl.sweep/2" document. */
/* Pairs whose round-trip p99 is above the policy's bound (@bound_us, 0 off). */
static int latency_findings(struct accept_report *r, const json_t *doc, unsigned int bound_us,
			    size_t *n_lat)
{
	const json_t *p, *lat;
	char link[256];
	size_t i;
	int rc;

	*n_lat = 0;
	json_array_foreach(json_object_get(doc, "pairs"), i, p) {
		double p99;

		lat = json_object_get(p, "lat_ns");
		if (!bound_us || !json_is_object(lat))
			continue;
		p99 = json_number_value(json_object_get(lat, "p99"));
		if (p99 <= bound_us * 1000.0)
			continue;
		(*n_lat)++;
		snprintf(link, sizeof(link), "%s <-> %s", jstr(p, "a"), jstr(p, "b"));
		rc = accept_finding_add(r, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_LATENCY, "", link,
					"round-trip p99 %.1f us above the policy's %u us (p50 %.1f us, "
					"%lld samples)", p99 / 1000.0, bound_us,
					json_number_value(json_object_get(lat, "p50")) / 1000.0,
					(long long)json_integer_value(json_object_get(lat, "samples")));
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int traffic_findings(struct accept_report *r, const json_t *doc, size_t *n_slow,
			    size_t *n_failed)
{
	const json_t *p, *sp, *l;
	size_t i, j, suspects = 0;
	char a[120], b[120], link[256];
	int rc = 0;

	*n_slow = *n_failed = 0;
	json_array_foreach(json_object_get(doc, "pairs"), i, p) {
		const char *st = jstr(p, "status");

		if (strcmp(st, "failed") == 0) {
			(*n_failed)++;
			snprintf(link, sizeof(link), "%s <-> %s", jstr(p, "a"), jstr(p, "b"));
			rc = accept_finding_add(r, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_FAILED, "", link,
						"pair could not be measured: %s",
						json_is_string(json_object_get(p, "error")) ?
						jstr(p, "error") : "no figures");
		} else if (strcmp(st, "ok") != 0) {
			(*n_slow)++;
		}
		if (rc < 0)
			return rc;
	}
	json_array_foreach(json_object_get(doc, "suspects"), i, sp) {
		const char *kind = jstr(sp, "kind");
		const json_t *ev = json_object_get(sp, "evidence");
		char evs[200];

		snprintf(evs, sizeof(evs), "%lld of %lld pairs crossing it slow, median %.0f %% of expected",
			 (long long)json_integer_value(json_object_get(ev, "cross_bad")),
			 (long long)json_integer_value(json_object_get(ev, "cross_n")),
			 json_number_value(json_object_get(ev, "cross_pct_median")));
		suspects++;
		if (strcmp(kind, "node") == 0) {
			rc = accept_finding_add(r, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_SLOW_NODE,
						jstr(sp, "node"), "", "slow node: %s", evs);
		} else if (json_is_array(json_object_get(sp, "links"))) {
			json_array_foreach(json_object_get(sp, "links"), j, l) {
				snprintf(link, sizeof(link), "%s <-> %s",
					 end_text(json_object_get(l, "a"), a, sizeof(a)),
					 end_text(json_object_get(l, "b"), b, sizeof(b)));
				rc = accept_finding_add(r, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_SLOW_LINK, "",
							link, "one of a group traffic cannot split: %s",
							evs);
				if (rc < 0)
					return rc;
			}
		} else {
			l = json_object_get(sp, "link");
			snprintf(link, sizeof(link), "%s <-> %s",
				 end_text(json_object_get(l, "a"), a, sizeof(a)),
				 end_text(json_object_get(l, "b"), b, sizeof(b)));
			rc = accept_finding_add(r, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_SLOW_LINK, "", link,
						"slow link: %s", evs);
		}
		if (rc < 0)
			return rc;
	}
	/* Slow pairs no suspect explains are findings of their own. */
	json_array_foreach(json_object_get(doc, "pairs"), i, p) {
		if (suspects || strcmp(jstr(p, "status"), "slow") != 0)
			continue;
		snprintf(link, sizeof(link), "%s <-> %s", jstr(p, "a"), jstr(p, "b"));
		rc = accept_finding_add(r, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_SLOW_PAIR, "", link,
					"%.0f Mb/s, %.0f %% of the expected %.0f Mb/s",
					json_number_value(json_object_get(p, "bw_mbps")),
					json_number_value(json_object_get(p, "pct_expected")),
					json_number_value(json_object_get(p, "expected_mbps")));
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* sweep_main() with its JSON rendered into memory; the document in *@doc. */
static int run_sweep(struct fab_ctx *ctx, struct sweep_args *a, json_t **doc, int *sweep_rc)
{
	struct fab_ctx sub = *ctx;
	char *buf = NULL;
	size_t len = 0;
	json_error_t jerr;

	fab_err_init(&sub.err);
	sub.render.f = open_memstream(&buf, &len);
	if (!sub.render.f)
		return fab_err_set(&ctx->err, -errno, "accept: open_memstream: %s", strerror(errno));
	sub.render.pretty = false;
	render_select(&sub.render, "json");
	*sweep_rc = sweep_main(&sub, a);
	fclose(sub.render.f);
	*doc = NULL;
	if (sub.err.code)
		ctx->err = sub.err;	/* kept for the stage's note */
	if (len)
		*doc = json_loadb(buf, len, 0, &jerr);
	free(buf);
	return 0;
}

static int stage_traffic(struct fab_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	struct sweep_args a;
	char pairs[PATH_MAX] = "";
	json_t *doc = NULL;
	size_t n_slow = 0, n_failed = 0, n_lat = 0;
	int rc, sweep_rc = 0;
	bool chosen;

	if (s->o.no_workers) {
		accept_stage_set(r, ACCEPT_ST_TRAFFIC, ACCEPT_SKIPPED,
				 "--no-workers: no worker to run traffic on");
		return 0;
	}
	rc = write_pairs(ctx, s, pairs, sizeof(pairs), &chosen);
	/* The sweep starts workers of its own: the stages' fleet is done. */
	if (s->f.w)
		fleet_fini(&s->f);
	if (rc < 0)
		goto out;
	if (!chosen) {
		accept_stage_set(r, ACCEPT_ST_TRAFFIC, ACCEPT_FAILED, "no traffic pairs could be chosen");
		goto out;
	}
	sweep_args_default(&a, "sweep");
	a.hosts = s->o.hosts;
	a.pairs = pairs;
	a.mode = "pairs";
	a.topology = s->o.topology;
	a.lldp_socket = s->o.lldp_socket;
	a.fo = s->o.fo;
	a.progress = s->progress;	/* the sweep's "round N of M" line */
	a.cfg.slow_pct = s->pol.pct_expected;
	if (s->o.transport)
		a.transport = s->o.transport;
	if (s->o.duration_s > 0)
		a.duration_s = s->o.duration_s;
	if (s->o.lat_iters)
		a.lat_iters = s->o.lat_iters;
	rc = run_sweep(ctx, &a, &doc, &sweep_rc);
	if (rc < 0)
		goto out;
	if (!doc || (sweep_rc != FAB_EXIT_OK && sweep_rc != FAB_EXIT_UNHEALTHY)) {
		rc = accept_finding_add(r, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_FAILED, "", "",
					"the sweep failed (exit %d): %s", sweep_rc,
					ctx->err.code ? ctx->err.msg : "no report");
		fab_err_init(&ctx->err);
		accept_stage_set(r, ACCEPT_ST_TRAFFIC, ACCEPT_FAILED, "the sweep did not complete");
		goto out;
	}
	fab_err_init(&ctx->err);
	r->n_pairs = json_array_size(json_object_get(doc, "pairs"));
	rc = traffic_findings(r, doc, &n_slow, &n_failed);
	if (rc == 0)
		rc = latency_findings(r, doc, s->pol.lat_p99_us, &n_lat);
	if (rc < 0) {
		rc = fab_err_set(&ctx->err, rc, "accept: out of memory");
		goto out;
	}
	accept_stage_set(r, ACCEPT_ST_TRAFFIC,
			 accept_stage_findings(r, ACCEPT_ST_TRAFFIC) ? ACCEPT_FAILED : ACCEPT_PASSED,
			 "%zu pairs measured (new x new, new x existing; all pairs would be %zu), "
			 "every one of %zu new links and new-leaf uplinks crossed by >= %u "
			 "(%zu short), over --topology %s: %zu slow (< %u %% of expected), %zu failed, "
			 "%zu over the latency p99 bound%s", r->n_pairs, s->ends.n * (s->ends.n - 1) / 2,
			 r->links_target, r->coverage_k, r->links_short, s->o.topology, n_slow,
			 s->pol.pct_expected, n_failed, n_lat,
			 s->pol.lat_p99_us ? "" : " (none set)");
out:
	if (pairs[0])
		unlink(pairs);
	json_decref(doc);
	return rc;
}

/* ---- driving the stages ---- */

typedef int (*stage_fn)(struct fab_ctx *ctx, struct accept_state *s);

/*
 * On a terminal (stderr a tty, as the fleet's and the sweep's progress
 * lines): each stage as it begins, then how it ended and how long it took,
 * so a run of tens of seconds is never silent.  Nothing when redirected.
 */
static void stage_say(const struct accept_state *s, enum accept_stage st, bool begin, double secs)
{
	if (!s->progress)
		return;
	if (begin)
		fprintf(stderr, "accept: stage %d of %d, %s: running\n", st + 1, ACCEPT_ST_N,
			accept_stage_name(st));
	else if (secs < 0)	/* not run */
		fprintf(stderr, "accept: stage %d of %d, %s: %s\n", st + 1, ACCEPT_ST_N,
			accept_stage_name(st), accept_status_name(s->rep.st[st].status));
	else
		fprintf(stderr, "accept: stage %d of %d, %s: %s (%.1f s)\n", st + 1, ACCEPT_ST_N,
			accept_stage_name(st), accept_status_name(s->rep.st[st].status), secs);
	fflush(stderr);
}

static int stage_run(struct fab_ctx *ctx, struct accept_state *s, enum accept_stage st,
		     stage_fn fn)
{
	struct accept_report *r = &s->rep;
	int blocker = accept_stage_blocker(r, st);
	double t0 = (double)clock_mono_ns() / 1e9;
	int rc;

	if (!s->pol.stage_on[st]) {
		accept_stage_set(r, st, ACCEPT_SKIPPED, "turned off by the policy");
		stage_say(s, st, false, -1);
		return 0;
	}
	if (blocker >= 0 && !s->o.keep_going) {
		accept_stage_set(r, st, ACCEPT_BLOCKED, "not run: stage %d (%s) did not pass",
				 blocker + 1, accept_stage_name(blocker));
		stage_say(s, st, false, -1);
		return 0;
	}
	fab_info("accept: stage %d: %s", st + 1, accept_stage_name(st));
	stage_say(s, st, true, 0);
	rc = fn(ctx, s);
	r->st[st].secs = (double)clock_mono_ns() / 1e9 - t0;
	if (rc >= 0)
		stage_say(s, st, false, r->st[st].secs);
	return rc;
}

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

/* A host's access port in @t: its first port cabled to a switch; NULL none. */
static const struct topo_port *access_port(const struct topo *t, const char *host)
{
	const struct topo_node *n = topo_node_by_name(t, host);

	for (size_t k = 0; n && k < n->n_ports; k++) {
		const struct topo_port *p = n->ports[k];

		if (p->peer && p->peer->node->type == TOPO_NODE_SWITCH)
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
static int nic_snap(struct fab_ctx *ctx, struct accept_state *s, struct counter_snap *snap,
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
		    !(p = access_port(s->nic_graph, h->name)))
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

static int stage_counters_base_nic(struct fab_ctx *ctx, struct accept_state *s)
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
	s->nic_graph = traffic_graph(ctx, s, &why);
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
		return stage_unread(ctx, r, ACCEPT_ST_COUNTERS_BASE, FAB_COUNTER_UNREAD,
				    "the hosts' counters could not be read");
	}
	accept_stage_set(r, ACCEPT_ST_COUNTERS_BASE, ACCEPT_PASSED,
			 "counters read on %zu new hosts through their workers (netdev statistics, "
			 "ethtool -S, RDMA hw_counters; switch ports not read)", n);
	return 0;
}

static int stage_counters_base(struct fab_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	size_t ports = 0;
	int rc;

	if (!counters_ib(s))
		return stage_counters_base_nic(ctx, s);
	rc = ib_walk(ctx, &s->cnt0);
	if (rc < 0) {
		return stage_unread(ctx, r, ACCEPT_ST_COUNTERS_BASE, FAB_COUNTER_UNREAD,
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

static int counters_after_nic(struct fab_ctx *ctx, struct accept_state *s)
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
		rc = stage_unread(ctx, r, ACCEPT_ST_COUNTERS_AFTER, FAB_COUNTER_UNREAD,
				  "the hosts' counters could not be read again");
		goto out;
	}
	if (rc == 0)
		rc = counters_judge(s, s->nic_graph, &s->nic0, &after, "counter", "new hosts' ports");
out:
	counter_snap_fini(&after);
	return rc < 0 ? fab_err_set(&ctx->err, rc, "accept: out of memory") : 0;
}

static int counters_after_ib(struct fab_ctx *ctx, struct accept_state *s)
{
	struct accept_report *r = &s->rep;
	struct counter_snap before, after;
	struct topo *now = NULL;
	int rc;

	counter_snap_init(&before);
	counter_snap_init(&after);
	rc = ib_walk(ctx, &now);
	if (rc < 0) {
		rc = stage_unread(ctx, r, ACCEPT_ST_COUNTERS_AFTER, FAB_COUNTER_UNREAD,
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

/* Stage 6: the counters read again after the traffic, judged against stage 4's. */
static int stage_counters_after(struct fab_ctx *ctx, struct accept_state *s)
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

static void accept_state_fini(struct accept_state *s)
{
	if (s->f.w)
		fleet_fini(&s->f);
	accept_report_fini(&s->rep);
	hosts_fini(&s->all);
	hosts_fini(&s->ends);
	hosts_fini(&s->fabric);
	free(s->new_ends.hosts);
	free(s->new_names);
	profile_free(s->profile);
	json_decref(s->profile_params);
	topo_free(s->plan);
	topo_free(s->found);
	topo_free(s->tplan);
	topo_free(s->ib);
	topo_free(s->cnt0);
	counter_snap_fini(&s->nic0);
	topo_rails_fini(&s->rails);
	topo_rails_fini(&s->trails);
}

int cmd_accept(struct fab_ctx *ctx, int argc, char **argv)
{
	static const struct { enum accept_stage st; stage_fn fn; } stages[] = {
		{ ACCEPT_ST_REACH, stage_reach },
		{ ACCEPT_ST_CONFIG, stage_config },
		{ ACCEPT_ST_CABLING, stage_cabling },
		{ ACCEPT_ST_COUNTERS_BASE, stage_counters_base },
		{ ACCEPT_ST_TRAFFIC, stage_traffic },
		{ ACCEPT_ST_COUNTERS_AFTER, stage_counters_after },
	};
	struct accept_state s = { .o = { .fo = FLEET_OPTS_DEFAULT } };
	struct accept_meta m;
	int rc;

	accept_report_init(&s.rep);
	hosts_init(&s.all);
	hosts_init(&s.ends);
	hosts_init(&s.fabric);
	hosts_init(&s.new_ends);
	topo_rails_init(&s.rails);
	topo_rails_init(&s.trails);
	rc = accept_parse(ctx, argc, argv, &s.o);
	if (rc >= 0)
		goto out;
	s.o.fo.verbose = fab_log_level;
	s.progress = isatty(STDERR_FILENO);
	s.o.fo.progress = s.progress;	/* "N of M nodes answered" in the stages that ask the fleet */
	if (load_inputs(&s, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	for (size_t i = 0; i < sizeof(stages) / sizeof(stages[0]); i++) {
		if (stage_run(ctx, &s, stages[i].st, stages[i].fn) < 0) {
			rc = fab_err_exit(&ctx->err);
			goto out;
		}
	}
	accept_verdict(&s.rep);
	m = (struct accept_meta){ .hosts = s.o.hosts, .profile = s.o.profile, .plan = s.o.plan,
				  .topology = s.o.topology, .policy = s.o.policy,
				  .pct_expected = s.pol.pct_expected, .keep_going = s.o.keep_going };
	if (ctx->render.ops == &render_json_ops)
		rc = render_json_emit(&ctx->render, accept_to_json(&s.rep, &m));
	else
		rc = accept_render_text(&ctx->render, &s.rep, &m);
	if (rc < 0) {
		fab_err_set(&ctx->err, rc, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	rc = s.rep.accept ? FAB_EXIT_OK : FAB_EXIT_UNHEALTHY;
out:
	accept_state_fini(&s);
	return rc;
}
