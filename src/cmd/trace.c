// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl trace: the path of one flow from this host, traced with probes
 * that keep its 5-tuple (transport/trace.h), its hops named after the
 * plan's nodes (model/node_addr.h); with --ports N, N source ports and the
 * ECMP member each takes (model/ecmp_map.h).  docs/paths.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "io/load.h"
#include "model/ecmp_map.h"
#include "model/node_addr.h"
#include "render/trace.h"
#include "transport/trace.h"
#include "util/log.h"

#define TRACE_SPORT_DEFAULT 49152u	/* the first dynamic port; RoCE v2 QPs use 0xC000 up */
#define TRACE_DPORT_UDP 4791u		/* RoCE v2 */
#define TRACE_DPORT_TCP 80u		/* as traceroute -T */
#define TRACE_MAX_PORTS TRACE_MAX_FLOWS
#define TRACE_MAX_REPEAT 10u

struct trace_cmd {
	struct flow flow;		/* the first port's */
	unsigned int ports, repeat;
	bool dport_set;
	const char *plan;
	struct trace_opts o;
};

static int opts_parse(struct fab_ctx *ctx, struct trace_cmd *c, int argc, char **argv)
{
	enum { OPT_SPORT = 256, OPT_PORTS, OPT_REPEAT, OPT_SRC, OPT_PLAN, OPT_MAX_TTL, OPT_TRIES,
	       OPT_WAIT };
	static const struct option opts[] = {
		{ "udp", no_argument, NULL, 'U' },
		{ "tcp", no_argument, NULL, 'T' },
		{ "port", required_argument, NULL, 'p' },
		{ "sport", required_argument, NULL, OPT_SPORT },
		{ "ports", required_argument, NULL, OPT_PORTS },
		{ "repeat", required_argument, NULL, OPT_REPEAT },
		{ "src", required_argument, NULL, OPT_SRC },
		{ "plan", required_argument, NULL, OPT_PLAN },
		{ "max-ttl", required_argument, NULL, OPT_MAX_TTL },
		{ "tries", required_argument, NULL, OPT_TRIES },
		{ "wait", required_argument, NULL, OPT_WAIT },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int v;
	int opt;

	while ((opt = getopt_long(argc, argv, "UTp:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'U':
		case 'T':
			c->flow.proto = opt == 'T' ? FLOW_TCP : FLOW_UDP;
			break;
		case 'p':
			if (cmd_opt_whole(ctx, "trace", "port", optarg, 1, 65535, &v) < 0)
				return FAB_EXIT_USAGE;
			c->flow.dport = (uint16_t)v;
			c->dport_set = true;
			break;
		case OPT_SPORT:
			if (cmd_opt_whole(ctx, "trace", "sport", optarg, 1, 65535, &v) < 0)
				return FAB_EXIT_USAGE;
			c->flow.sport = (uint16_t)v;
			break;
		case OPT_PORTS:
			if (cmd_opt_whole(ctx, "trace", "ports", optarg, 1, TRACE_MAX_PORTS, &c->ports) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_REPEAT:
			if (cmd_opt_whole(ctx, "trace", "repeat", optarg, 1, TRACE_MAX_REPEAT, &c->repeat) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_SRC:
			if (strlen(optarg) >= sizeof(c->flow.src))
				return cmd_usage_error(ctx, "trace", "--src %s: not an address", optarg);
			strcpy(c->flow.src, optarg);
			break;
		case OPT_PLAN:
			c->plan = optarg;
			break;
		case OPT_MAX_TTL:
			if (cmd_opt_whole(ctx, "trace", "max-ttl", optarg, 1, FLOW_TRACE_MAX_TTL, &c->o.max_ttl) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_TRIES:
			if (cmd_opt_whole(ctx, "trace", "tries", optarg, 1, 100, &c->o.tries) < 0)
				return FAB_EXIT_USAGE;
			break;
		case OPT_WAIT:
			if (cmd_opt_whole(ctx, "trace", "wait", optarg, 10, 60000, &c->o.retry_ms) < 0)
				return FAB_EXIT_USAGE;
			break;
		case 'j':
			render_select(&ctx->render, "json");
			break;
		default:
			return cmd_opt_other(ctx, "trace", opt);
		}
	}
	if (optind + 1 != argc)
		return cmd_usage_error(ctx, "trace", optind < argc ? "one DEST only" : "DEST is required");
	if (strlen(argv[optind]) >= sizeof(c->flow.dst))
		return cmd_usage_error(ctx, "trace", "%s: not an address", argv[optind]);
	strcpy(c->flow.dst, argv[optind]);
	if ((unsigned int)c->flow.sport + c->ports - 1 > 65535)
		return cmd_usage_error(ctx, "trace", "--sport %u --ports %u: past port 65535",
				       c->flow.sport, c->ports);
	return -1;	/* go on */
}

/* The destination port by protocol, unless given. */
static void opts_finish(struct trace_cmd *c)
{
	if (!c->dport_set)
		c->flow.dport = c->flow.proto == FLOW_TCP ? TRACE_DPORT_TCP : TRACE_DPORT_UDP;
}

/* The plan's nodes' addresses, indexed (the index borrows *@plan's nodes: keep it). */
static int plan_index(struct fab_ctx *ctx, const char *path, struct topo **plan,
		      struct node_addr_index *ix)
{
	if (!path)
		return 0;
	if (plan_load(path, plan, NULL, &ctx->err) < 0)
		return ctx->err.code;
	if (node_addr_index_build(ix, *plan) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "%s: out of memory", path);
	if (ix->n_conflicts)
		fab_warn("trace: %s: %zu address%s claimed by two nodes (%s): a hop answering from one is named by neither",
			 path, ix->n_conflicts, ix->n_conflicts == 1 ? "" : "es", ix->conflict);
	if (!ix->n)
		fab_warn("trace: %s: no node lists addresses (addresses:): hops are not named",
			 path);
	return 0;
}

/* Every port, then every port again per repeat: @tr holds ports x repeat traces. */
static int traces_run(struct fab_ctx *ctx, const struct trace_cmd *c, struct flow_trace *tr)
{
	for (unsigned int r = 0; r < c->repeat; r++) {
		struct flow_trace *set = tr + (size_t)r * c->ports;

		for (unsigned int i = 0; i < c->ports; i++) {
			set[i].flow = c->flow;
			set[i].flow.sport = (uint16_t)(c->flow.sport + i);
		}
		if (trace_run(set, c->ports, &c->o, -1, &ctx->err) < 0)
			return ctx->err.code;
	}
	return 0;
}

static int map_learn(struct fab_ctx *ctx, struct ecmp_map *m, struct flow_trace *tr, size_t n,
		     const struct node_addr_index *ix)
{
	for (size_t i = 0; i < n; i++) {
		flow_trace_map(&tr[i], ix);
		if (ecmp_map_learn(m, ECMP_AB, &tr[i]) < 0)
			return fab_err_set(&ctx->err, -ENOMEM, "trace: out of memory");
	}
	return 0;
}

/* 0 when every flow reached its destination and the map holds, else 1. */
static int trace_verdict(const struct flow_trace *tr, size_t n, const struct ecmp_map *m)
{
	for (size_t i = 0; i < n; i++)
		if (!tr[i].reached)
			return FAB_EXIT_UNHEALTHY;
	return m->reason == ECMP_OK ? FAB_EXIT_OK : FAB_EXIT_UNHEALTHY;
}

static int trace_output(struct fab_ctx *ctx, const struct trace_report *rep)
{
	int rc;

	rc = ctx->render.ops->trace ? ctx->render.ops->trace(&ctx->render, rep) : -EOPNOTSUPP;
	if (rc < 0)
		return fab_err_set(&ctx->err, rc, "writing output failed");
	return 0;
}

int cmd_trace(struct fab_ctx *ctx, int argc, char **argv)
{
	struct trace_cmd c = { .flow = { .proto = FLOW_UDP, .sport = TRACE_SPORT_DEFAULT },
			       .ports = 1, .repeat = 1, .o = TRACE_OPTS_DEFAULT };
	struct node_addr_index ix = { .n = 0 };
	struct flow_trace *tr = NULL;
	struct topo *plan = NULL;
	struct trace_report rep;
	struct ecmp_map map;
	size_t n;
	int rc = opts_parse(ctx, &c, argc, argv);

	if (rc >= 0)
		return rc;
	opts_finish(&c);
	ecmp_map_init(&map, NULL, NULL, !c.plan);
	n = (size_t)c.ports * c.repeat;
	tr = calloc(n, sizeof(*tr));
	if (!tr) {
		fab_err_set(&ctx->err, -ENOMEM, "trace: out of memory");
		rc = FAB_EXIT_SYSTEM;
		goto out;
	}
	if (plan_index(ctx, c.plan, &plan, &ix) < 0 || traces_run(ctx, &c, tr) < 0 ||
	    map_learn(ctx, &map, tr, n, c.plan ? &ix : NULL) < 0) {
		rc = fab_err_exit(&ctx->err);
		goto out;
	}
	rep = (struct trace_report){ .traces = tr, .n_traces = n, .n_ports = c.ports, .map = &map,
				     .plan = c.plan };
	rc = trace_output(ctx, &rep) < 0 ? FAB_EXIT_SYSTEM : trace_verdict(tr, n, &map);
out:
	for (size_t i = 0; tr && i < n; i++)
		flow_trace_fini(&tr[i]);
	free(tr);
	ecmp_map_fini(&map);
	node_addr_index_fini(&ix);
	topo_free(plan);
	return rc;
}
