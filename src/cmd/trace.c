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
#include "cmd/cmd_opt.h"
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
	unsigned int dport, sport;	/* -p (0: by protocol), --sport: into .flow */
	unsigned int label;		/* --flow-label: into .flow (IPv6) */
	const char *plan;
	struct trace_opts o;
};

static int opt_udp(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	((struct trace_cmd *)args)->flow.proto = FLOW_UDP;
	return 0;
}

static int opt_tcp(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	((struct trace_cmd *)args)->flow.proto = FLOW_TCP;
	return 0;
}

static int opt_src(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	struct trace_cmd *c = args;

	if (strlen(arg) >= sizeof(c->flow.src)) {
		cmd_usage_error(ctx, cmd, "--src %s: not an address", arg);
		return -EINVAL;
	}
	strcpy(c->flow.src, arg);
	return 0;
}

#define C struct trace_cmd

static const struct cmd_opt trace_rows[] = {
	CMD_JSON,
	CMD_CALL("udp", 'U', NULL, opt_udp, CMD_SYN_SHORT),
	CMD_CALL("tcp", 'T', NULL, opt_tcp, CMD_SYN_SHORT | CMD_SYN_OR),
	CMD_WHOLE("port", 'p', "PORT", C, dport, 1, 65535, CMD_SYN_SHORT),
	CMD_WHOLE("sport", 0, "PORT", C, sport, 1, 65535, 0),
	CMD_WHOLE("flow-label", 0, "N", C, label, 0, 0xfffff, 0),
	CMD_WHOLE("ports", 0, "N", C, ports, 1, TRACE_MAX_PORTS, 0),
	CMD_WHOLE("repeat", 0, "N", C, repeat, 1, TRACE_MAX_REPEAT, 0),
	CMD_CALL("src", 0, "ADDR", opt_src, 0),
	CMD_STRING("plan", 0, "PLAN", C, plan, 0),
	CMD_WHOLE("max-ttl", 0, "N", C, o.max_ttl, 1, FLOW_TRACE_MAX_TTL, 0),
	CMD_WHOLE("tries", 0, "N", C, o.tries, 1, 100, 0),
	CMD_WHOLE("wait", 0, "MS", C, o.retry_ms, 10, 60000, 0),
	CMD_TEXT("DEST", 0),
	{ 0 },
};

#undef C

const struct cmd_opts cmd_trace_opts = { "trace", trace_rows };

static int opts_parse(struct fab_ctx *ctx, struct trace_cmd *c, int argc, char **argv)
{
	int rc = cmd_opts_parse(ctx, &cmd_trace_opts, argc, argv, c);

	if (rc >= 0)
		return rc;
	c->flow.sport = (uint16_t)c->sport;
	c->flow.label = c->label;
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
	if (c->dport)
		c->flow.dport = (uint16_t)c->dport;
	else
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
	struct trace_cmd c = { .flow = { .proto = FLOW_UDP }, .sport = TRACE_SPORT_DEFAULT,
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
