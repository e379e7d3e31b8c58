// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl discover: the fabric as one graph (InfiniBand subnet through
 * SMPs, Ethernet/RoCE through LLDP), its link health, and its difference
 * from a cabling plan.
 *
 *   sources ─▶ struct topo ─▶ topo_health_check ─▶ topo_diff(plan) ─▶ render
 *
 * Exit: 0 nothing found, 1 any problem, 2 bad input (nothing done),
 * 3 system error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "cmd/discover_lldp.h"
#include "io/load.h"
#include "model/ib_checks.h"
#include "model/ib_vl.h"
#include "model/ibtopo_parse.h"
#include "model/lldp_view.h"
#include "model/plan_rails.h"
#include "model/plan_yaml.h"
#include "model/topo_lldp_checks.h"
#include "model/topo_optics.h"
#include "model/topo.h"
#include "model/topo_diff.h"
#include "node/node.h"
#include "util/clock.h"
#include "util/file.h"
#include "util/log.h"
#include "util/str.h"

struct discover_opts {
	bool ib, lldp, rails;
	const char *lldp_socket;
	const char *hosts, *launcher;	/* --lldp --hosts FILE [--launcher L] */
	bool optics;			/* read the hosts' modules (--no-optics: not) */
	const char *expect;		/* plan file */
	const char *save_plan;
	unsigned int ca_port;		/* -P PORT, into subnet.ca_port */
	const struct render_ops *format;	/* NULL: text or JSON by -j */
	struct subnet_opts subnet;
	struct topo_thresholds th;
	struct topo_rails plan_rails;	/* rails of a YAML plan (topo_lldp_checks.h) */
	unsigned int checks;		/* --checks: IB_CHECK_* families (model/ib_checks.h) */
};

/*
 * LLDP source (src/sys/lldp.c, and the fleet path in discover_lldp.c): this node's
 * lldpd view merged into @t.  --hosts FILE (every node's view through the
 * fleet layer) plugs in here as well.
 */
static int discover_lldp(struct fab_ctx *ctx, const struct discover_opts *o, struct topo *t)
{
	struct lldp_view view;
	unsigned int conflicts = 0;
	int rc;

	if (o->hosts) {		/* every node's view (src/cmd/discover_lldp.c) */
		struct discover_lldp_fleet fl = { .hosts_file = o->hosts, .launcher = o->launcher,
						  .socket = o->lldp_socket,
						  .no_optics = !o->optics };

		return discover_lldp_fleet_read(ctx, &fl, t);
	}
	lldp_view_init(&view);
	rc = node_lldp_read(ctx->sys, o->lldp_socket, &view, &ctx->err);
	if (rc == 0) {
		rc = lldp_view_merge(t, &view, &conflicts);
		if (rc < 0)
			fab_err_set(&ctx->err, rc, "lldp: out of memory");
		else
			t->src |= TOPO_SRC_LLDP;
	}
	lldp_view_fini(&view);
	return rc;
}

static int discover_ib(struct fab_ctx *ctx, const struct discover_opts *o, struct topo *t)
{
	return sys_subnet_read(ctx->sys, &o->subnet, t, &ctx->err);
}

/*
 * --save-plan's YAML: with --hosts, the rails the hosts file and the graph
 * give (model/plan_rails.h: hosts' nics:, leaves' rail:).
 */
static int save_plan_yaml(struct fab_ctx *ctx, const struct discover_opts *o, const struct topo *t,
			  struct strbuf *sb)
{
	struct topo_rails rails;
	struct fab_hosts hosts;
	int rc = 0;

	topo_rails_init(&rails);
	hosts_init(&hosts);
	if (o->hosts) {
		rc = hosts_load(&hosts, o->hosts, &ctx->err);
		if (rc == 0 && plan_rails_derive(t, &hosts, &rails) < 0)
			rc = fab_err_set(&ctx->err, -ENOMEM, "%s: out of memory", o->save_plan);
	}
	if (rc == 0 && plan_yaml_format_rails(t, &rails, sb) < 0)
		rc = fab_err_set(&ctx->err, -ENOMEM, "%s: out of memory", o->save_plan);
	hosts_fini(&hosts);
	topo_rails_fini(&rails);
	return rc;
}

/*
 * --save-plan: the graph as a plan, in ibnetdiscover's topology format;
 * LLDP graphs and *.yaml / *.yml paths get the YAML plan writer.  Says
 * so when the name suggests otherwise, and warns when the fabric saved
 * as tomorrow's --expect has problems today.
 */
static int save_plan(struct fab_ctx *ctx, const struct discover_opts *o, const struct topo *t)
{
	const char *path = o->save_plan;
	bool yaml_name = plan_yaml_named(path);
	struct strbuf sb;
	int rc;

	strbuf_init(&sb);
	if (yaml_name || !(t->src & (TOPO_SRC_SMP | TOPO_SRC_CACHE))) {
		if (!yaml_name)
			fab_warn("%s: an LLDP graph is saved as a YAML plan "
				 "(fabricctl-plan(5)), not in ibnetdiscover format", path);
		rc = save_plan_yaml(ctx, o, t, &sb);
	} else {
		rc = ibtopo_format(t, &sb);
		if (rc < 0)
			fab_err_set(&ctx->err, rc, "%s: out of memory", path);
	}
	if (t->n_problems)
		fab_warn("%s: the fabric saved as a plan has %zu problem%s now (listed below): "
			 "check them before using it as --expect", path, t->n_problems,
			 t->n_problems == 1 ? "" : "s");
	if (rc == 0)
		rc = file_write_atomic(path, sb.buf ? sb.buf : "", sb.len, 0666, &ctx->err);
	strbuf_fini(&sb);
	return rc;
}

/*
 * Credit loops found on one VL: the subnet's SL2VL tables and path SLs
 * read, and the loops looked for again per VL (lanes may break them; a
 * graph without a loop on one VL has none on any, so nothing is read
 * then).  Tables that cannot be read leave the one-VL answer, warned.
 */
static int checks_per_vl(struct fab_ctx *ctx, const struct discover_opts *o, struct topo *t)
{
	const struct ib_checks *c = t->ib_checks;
	struct ib_vl_data vd = { 0 };
	double t0;
	int rc;

	if (!c || !c->credit.ran || !c->credit.n_loops || !o->subnet.lft)
		return 0;
	if (sys_subnet_vl_read(ctx->sys, &o->subnet, t, &vd, &ctx->err) < 0) {
		fab_warn("credit loops on one vl: %s", ctx->err.msg);
		fab_err_init(&ctx->err);
		ib_vl_data_fini(&vd);
		return 0;
	}
	t0 = (double)clock_mono_ns() / 1e6;
	rc = ib_credit_vl_check(t, t->ib_checks, &vd);
	ib_vl_data_fini(&vd);
	if (rc < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "discover: out of memory");
	fab_info("checks per vl: %.1f ms", (double)clock_mono_ns() / 1e6 - t0);
	return 0;
}

/* --checks (model/ib_checks.h); -v says how long the analysis took (tests/bench/ib-checks.sh). */
static int run_checks(struct fab_ctx *ctx, const struct discover_opts *o, struct topo *t)
{
	double t0 = (double)clock_mono_ns() / 1e6;

	if (ib_checks_run(t, o->checks) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "discover: out of memory");
	fab_info("checks: %.1f ms", (double)clock_mono_ns() / 1e6 - t0);
	return checks_per_vl(ctx, o, t);
}

static int discover_opt_format(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	struct discover_opts *o = args;

	o->format = render_find(arg);
	if (o->format)
		return 0;
	cmd_usage_error(ctx, cmd, "unknown format '%s' (text, json, dot, ibnetdiscover, csv)", arg);
	return -EINVAL;
}

/* --csv: one row per link (render/csv.c); the last of --csv and --format wins. */
static int discover_opt_csv(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	((struct discover_opts *)args)->format = &render_csv_ops;
	return 0;
}

static int discover_opt_thresholds(struct fab_ctx *ctx, const char *cmd, const char *arg,
				   void *args)
{
	struct discover_opts *o = args;
	char bad[128], names[512];

	if (topo_thresholds_parse(&o->th, arg, bad, sizeof(bad)) == 0)
		return 0;
	cmd_usage_error(ctx, cmd, "bad threshold '%s' (COUNTER=N or COUNTER=off; counters: %s)",
			bad, topo_counter_list(names, sizeof(names)));
	return -EINVAL;
}

static int discover_opt_checks(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	struct discover_opts *o = args;
	char bad[128];

	if (ib_checks_parse(arg, &o->checks, bad, sizeof(bad)) == 0)
		return 0;
	cmd_usage_error(ctx, cmd, "bad --checks item '%s' (all, none, or routes, credit-loops, "
			"balance, ids, sm; -NAME drops one)", bad);
	return -EINVAL;
}

#define D struct discover_opts
static const struct cmd_opt discover_rows[] = {
	CMD_JSON,
	CMD_FLAG("ib", 0, D, ib, 0),
	CMD_FLAG("lldp", 0, D, lldp, 0),
	CMD_STRING("lldp-socket", 0, "PATH", D, lldp_socket, 0),
	CMD_STRING("hosts", 0, "FILE", D, hosts, 0),
	CMD_STRING("launcher", 0, "NAME|TEMPLATE", D, launcher, CMD_SYN_IN),
	CMD_FLAG("no-optics", 0, D, optics, CMD_OPT_OFF | CMD_SYN_IN),
	CMD_STRING("ca", 'C', "CA", D, subnet.ca, CMD_SYN_SHORT),
	CMD_WHOLE("port", 'P', "PORT", D, ca_port, 0, 255, CMD_SYN_SHORT),
	CMD_STRING("load-cache", 0, "FILE", D, subnet.load_cache, 0),
	CMD_STRING("expect", 0, "PLAN", D, expect, 0),
	CMD_STRING("save-plan", 0, "FILE", D, save_plan, 0),
	CMD_CALL("format", 0, "text|json|dot|ibnetdiscover|csv", discover_opt_format, 0),
	CMD_CALL("csv", 0, NULL, discover_opt_csv, 0),
	CMD_CALL("thresholds", 0, "COUNTER=N,...", discover_opt_thresholds, 0),
	CMD_FLAG("no-counters", 0, D, subnet.counters, CMD_OPT_OFF),
	CMD_FLAG("rails", 0, D, rails, 0),
	CMD_CALL("checks", 0, "FAMILY,...", discover_opt_checks, 0),
	CMD_WHOLE("max-smps", 0, "N", D, subnet.max_smps, 1, 128, 0),
	/* 0: one at a time through libibmad (the fallback), for comparison. */
	CMD_WHOLE("max-pmas", 0, "N", D, subnet.max_pmas, 0, PMA_WINDOW_MAX, 0),
	CMD_WHOLE("timeout", 0, "MS", D, subnet.timeout_ms, 0, 600000, 0),
	CMD_WHOLE("retries", 0, "N", D, subnet.retries, 0, 100, 0),
	{ 0 },
};
#undef D

const struct cmd_opts cmd_discover_opts = { "discover", discover_rows };

/*
 * discover's options into @o (thresholds and subnet defaults already set)
 * and the renderer they pick: -1 when the command is to run, otherwise
 * its exit code (help, or a usage error).
 */
static int discover_parse(struct fab_ctx *ctx, int argc, char **argv, struct discover_opts *o)
{
	int rc = cmd_opts_parse(ctx, &cmd_discover_opts, argc, argv, o);

	if (rc >= 0)
		return rc;
	o->subnet.ca_port = (int)o->ca_port;
	o->subnet.pma_serial = !o->subnet.max_pmas;
	if (o->subnet.load_cache)
		o->ib = true;
	if (optind < argc)
		return cmd_usage_error(ctx, "discover", "unexpected argument '%s'", argv[optind]);
	if ((o->hosts || o->launcher) && !o->lldp)
		return cmd_usage_error(ctx, "discover", "--hosts and --launcher need --lldp");
	if (!o->optics && !o->hosts)
		return cmd_usage_error(ctx, "discover", "--no-optics is for --lldp --hosts "
				       "(the only discovery that reads modules)");
	if (!o->ib && !o->lldp)
		o->ib = true;
	if (o->checks && !o->ib)
		return cmd_usage_error(ctx, "discover", "--checks is for the InfiniBand subnet (--ib)");
	/* What the checks read besides the walk; a cache file has neither (docs/discover.md). */
	o->subnet.lft = (o->checks & IB_CHECK_NEED_LFT) && !o->subnet.load_cache;
	o->subnet.sminfo = o->checks & IB_CHECK_SM;
	if (o->lldp && o->format == &render_ibnet_ops)
		return cmd_usage_error(ctx, "discover", "--format ibnetdiscover describes an InfiniBand "
				       "subnet (GUIDs, numbered ports); an LLDP graph has named "
				       "Ethernet ports: use -j, --format dot, or --save-plan FILE.yaml");
	if (o->format)
		render_select(&ctx->render, o->format->name);
	return -1;
}

int cmd_discover(struct fab_ctx *ctx, int argc, char **argv)
{
	struct discover_opts o = {
		.subnet = { .counters = true, .max_smps = 64, .max_pmas = PMA_WINDOW_DEFAULT },
		.optics = true,
	};
	struct topo *t = NULL, *plan = NULL;
	int rc;

	topo_thresholds_default(&o.th);
	rc = discover_parse(ctx, argc, argv, &o);
	if (rc >= 0)
		return rc;
	rc = FAB_EXIT_OK;

	/* Bad input first: nothing is queried when the plan is wrong. */
	if (o.expect && plan_load(o.expect, &plan, &o.plan_rails, &ctx->err) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	t = topo_new();
	if (!t) {
		fab_err_set(&ctx->err, -ENOMEM, "discover: out of memory");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if ((o.ib && discover_ib(ctx, &o, t) < 0) || (o.lldp && discover_lldp(ctx, &o, t) < 0)) {
		rc = fab_err_exit(&ctx->err);
		/* -j: the failure as a document on stdout too (docs/discover.md). */
		if (ctx->render.ops->error)
			ctx->render.ops->error(&ctx->render, "discover", &ctx->err);
		goto out;
	}
	if (topo_health_check_plan(t, &o.th, plan) < 0 ||
	    (plan && topo_diff(t, plan, NULL) < 0) ||
	    topo_mtu_check(t, plan) < 0 ||			
	    topo_rail_plan_check(t, &o.plan_rails) < 0 ||		
	    (o.rails && topo_rail_check(t) < 0)) {
		fab_err_set(&ctx->err, -ENOMEM, "discover: out of memory");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (o.checks && run_checks(ctx, &o, t) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (plan)
		t->src |= TOPO_SRC_PLAN;	/* "sources": the cabling was checked against one */
	topo_sort(t);
	if (o.save_plan && save_plan(ctx, &o, t) < 0) {
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (!ctx->render.ops->discover || ctx->render.ops->discover(&ctx->render, t) < 0) {
		fab_err_set(&ctx->err, -EIO, "writing output failed");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	/* A failing cable end (model/topo_optics.h) is a problem as a miswired cable is. */
	rc = t->n_problems || (t->optics && t->optics->worst == OPTICS_FAILING) ?
	     FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
out:
	topo_rails_fini(&o.plan_rails);
	topo_free(plan);
	topo_free(t);
	return rc;
}
