// SPDX-License-Identifier: GPL-2.0-or-later
/* sweep --topology: the graph, host placement, rounds and routes (sweep_topo.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_lldp.h"
#include "fleet/fleet_op.h"
#include "io/load.h"
#include "model/coverage_rails.h"
#include "model/localize.h"
#include "sweep/sweep_steer.h"
#include "sweep/sweep_topo.h"
#include "sys/sys.h"
#include "util/log.h"

void sweep_topo_init(struct sweep_topo *st, const char *spec)
{
	memset(st, 0, sizeof(*st));
	st->spec = spec;
	st->kind = !strcmp(spec, "lldp") ? SWEEP_TOPO_LLDP
		 : !strcmp(spec, "ib") ? SWEEP_TOPO_IB : SWEEP_TOPO_PLAN;
	topo_rails_init(&st->rails);
}

void sweep_topo_fini(struct sweep_topo *st)
{
	for (size_t i = 0; i < st->n_routes; i++)
		pair_route_fini(&st->routes[i]);
	free(st->routes);
	counter_snap_fini(&st->nic_before);
	sweep_steer_free(st->steer);
	free(st->host_link);
	free(st->host_leaf);
	coverage_fini(&st->cov);
	route_ib_free(st->rib);
	route_free(st->r);
	topo_free(st->t);
	topo_rails_fini(&st->rails);
	memset(st, 0, sizeof(*st));
}

const char *sweep_topo_kind_name(enum sweep_topo_kind k)
{
	switch (k) {
	case SWEEP_TOPO_LLDP:
		return "lldp";
	case SWEEP_TOPO_IB:
		return "ib";
	case SWEEP_TOPO_PLAN:
		return "plan";
	}
	return "plan";
}

int sweep_topo_load(struct sweep_ctx *ctx, struct sweep_topo *st, const struct subnet_opts *ib)
{
	struct subnet_opts o;

	switch (st->kind) {
	case SWEEP_TOPO_PLAN:
		return plan_load(st->spec, &st->t, &st->rails, &ctx->err);
	case SWEEP_TOPO_IB:
		o = *ib;
		o.lft = true;	/* every pair's route is the switches' own */
		o.counters = true;	/* the "before" of counter evidence */
		if (!o.max_smps)
			o.max_smps = 64;
		st->t = topo_new();
		if (!st->t)
			return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		return sys_subnet_read(ctx->sys, &o, st->t, &ctx->err);
	case SWEEP_TOPO_LLDP:
		break;
	}
	return 0;
}

int sweep_topo_load_lldp(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f,
			 const struct fab_hosts *hosts, const struct fab_hosts *switches,
			 const struct fleet_opts *fo, const char *socket)
{
	struct fleet sf = { .n = 0 };
	int rc;

	st->t = topo_new();
	if (!st->t)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	st->switches = switches;
	rc = fleet_lldp_collect(f, hosts, socket, fo->hello_timeout_ms, st->t, &ctx->err);
	if (rc < 0 || !switches->n)
		return rc;
	fab_info("topology: reading %zu switch%s' lldpd", switches->n, switches->n == 1 ? "" : "es");
	rc = fleet_start(&sf, switches, fo, &ctx->err);
	if (rc == 0)
		rc = fleet_lldp_collect(&sf, switches, socket, fo->hello_timeout_ms, st->t, &ctx->err);
	if (sf.w)
		fleet_fini(&sf);
	return rc;
}

/* Cabled ports of @n. */
static size_t node_cables(const struct topo_node *n)
{
	size_t k = 0;

	for (size_t i = 0; i < n->n_ports; i++)
		k += n->ports[i]->link != NULL;
	return k;
}

/* Per node of st->r: a host of the hosts file sits on it (a new array, NULL: ENOMEM). */
static bool *nodes_placed(const struct sweep_topo *st)
{
	bool *placed = calloc(st->r->n_nodes + 1, sizeof(*placed));

	for (size_t h = 0; placed && h < st->r->n_hosts; h++)
		placed[st->r->hosts[h].node] = true;
	return placed;
}

/*
 * A plan node named only under links: is a host by default (docs/plan.md);
 * one that no host of the hosts file sits on and that has more than one
 * cable is a switch, a spine the plan did not declare, or no pair could
 * cross it.  Retype those; *@n how many.  0 or -ENOMEM.
 */
static int plan_implied_switches(struct sweep_topo *st, size_t *n)
{
	bool *placed = nodes_placed(st);

	*n = 0;
	if (!placed)
		return -ENOMEM;
	for (size_t i = 0; i < st->t->n_nodes; i++) {
		struct topo_node *node = st->t->nodes[i];

		if ((node->type != TOPO_NODE_HOST && node->type != TOPO_NODE_CA) ||
		    !(node->src & TOPO_SRC_IMPLIED) || placed[i] || node_cables(node) < 2)
			continue;
		fab_info("topology %s: node %s is in no line of the hosts file and has %zu cables: "
			 "a switch", st->spec, node->name, node_cables(node));
		node->type = TOPO_NODE_SWITCH;
		(*n)++;
	}
	free(placed);
	return 0;
}

/* Graph, hosts on it: route_new() and route_place(), errors named. */
static int place_on(struct sweep_ctx *ctx, struct sweep_topo *st, const struct fab_hosts *hosts)
{
	int rc;

	route_free(st->r);
	st->r = NULL;
	rc = route_new(&st->r, st->t);
	if (rc < 0)
		return fab_err_set(&ctx->err, rc, "sweep: out of memory");
	rc = route_place(st->r, hosts, &ctx->err);
	if (rc < 0) {
		/* route_place names the host; say where the graph came from. */
		char msg[sizeof(ctx->err.msg)];

		memcpy(msg, ctx->err.msg, sizeof(msg));
		fab_err_input(&ctx->err, rc, "%s (--topology %s)", msg, st->spec);
	}
	return rc;
}

/* A line of @hs (a switch read through its lldpd) names topology node @name. */
static bool switch_listed(const struct fab_hosts *hs, const char *name)
{
	for (size_t i = 0; hs && i < hs->n; i++) {
		const char *want = hosts_label(&hs->hosts[i], "lldp_name");
		size_t len;

		want = want ? want : hs->hosts[i].name;
		len = strlen(want);
		if (!strcmp(name, want) || (!strncmp(name, want, len) && name[len] == '.'))
			return true;
	}
	return false;
}

/* Append ", NAME" (the first without the comma) to @buf while it fits; else count in *@more. */
static void name_add(char *buf, size_t len, const char *name, size_t *k, size_t *more)
{
	size_t used = strlen(buf);

	if (*k < 8 && used + strlen(name) + 3 < len) {
		snprintf(buf + used, len - used, "%s%s", (*k)++ ? ", " : "", name);
		return;
	}
	(*more)++;
}

/*
 * lldp: the leaves whose own lldpd was not read explain the missing
 * uplinks (a host's lldpd shows only the host's cable); say which to add
 * and how.  All read: the fabric as the switches report it is cut.
 */
static int lldp_cut(struct sweep_ctx *ctx, struct sweep_topo *st, const char *la, const char *lb)
{
	const struct route *r = st->r;
	char names[400] = "";
	size_t k = 0, more = 0;

	for (size_t i = 0; i < r->n_leaves; i++) {
		const char *nm = st->t->nodes[r->leaves[i]]->name;

		if (r->transit[r->leaves[i]] && !switch_listed(st->switches, nm))
			name_add(names, sizeof(names), nm, &k, &more);
	}
	if (!k)
		return fab_err_set(&ctx->err, -ENETUNREACH,
				   "topology lldp: leaves %s and %s have no path between them in what "
				   "the switches' lldpd report (an uplink down, or a switch between them "
				   "whose lldpd was not read: add it to the hosts file with role=spine)",
				   la, lb);
	return fab_err_input(&ctx->err, -ENETUNREACH,
			     "topology lldp: leaves %s and %s have no path between them: a host's "
			     "lldpd shows only its own cable, and the switches' lldpd were not read "
			     "(%s%s not in the hosts file); add the switches to the hosts file, one "
			     "line each, 'NAME ADDRESS role=leaf|spine [lldp_socket=PATH]': %s%s and "
			     "the spines between them (the netns lab writes them: tests/lab/netns "
			     "hostsfile --switches)",
			     la, lb, names, more ? " and more" : "", names, more ? " and more" : "");
}

/*
 * A plan: name the nodes declared hosts that no host of the hosts file
 * sits on and that have more than one cable (would they join the leaves
 * as switches?), else say the plan has no switch path.
 */
static int plan_cut(struct sweep_ctx *ctx, struct sweep_topo *st, const char *la, const char *lb)
{
	bool *placed = nodes_placed(st);
	char names[400] = "";
	size_t k = 0, more = 0;

	if (!placed)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < st->t->n_nodes; i++) {
		const struct topo_node *n = st->t->nodes[i];

		if ((n->type == TOPO_NODE_HOST || n->type == TOPO_NODE_CA) && !placed[i] &&
		    node_cables(n) > 1)
			name_add(names, sizeof(names), n->name, &k, &more);
	}
	free(placed);
	if (k)
		return fab_err_input(&ctx->err, -ENETUNREACH,
				     "plan %s: leaves %s and %s have no path between them: %s%s %s "
				     "declared a host (never transit) but in no line of the hosts file "
				     "and cabled more than once; if %s a switch, declare it with "
				     "'type: switch' under nodes", st->spec, la, lb, names,
				     more ? " and more" : "", k + more == 1 ? "is" : "are",
				     k + more == 1 ? "it is" : "they are");
	return fab_err_input(&ctx->err, -ENETUNREACH,
			     "plan %s: leaves %s and %s have no path between them: no chain of "
			     "switches joins them in the plan's links", st->spec, la, lb);
}

/* Every leaf reaches every other through switches, or an error naming two that do not. */
static int leaves_joined(struct sweep_ctx *ctx, struct sweep_topo *st)
{
	const struct route *r = st->r;
	uint32_t *comp = malloc((r->n_nodes + 1) * sizeof(*comp));
	uint32_t *queue = malloc((r->n_nodes + 1) * sizeof(*queue));
	uint32_t n_comp = 0;
	const char *la = NULL, *lb = NULL;
	int rc = 0;

	if (!comp || !queue) {
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->n_nodes; i++)
		comp[i] = UINT32_MAX;
	for (size_t k = 0; k < r->n_leaves && !lb; k++) {
		uint32_t x = r->leaves[k];
		size_t head = 0, tail = 0;

		if (!r->transit[x])	/* a host cabled back to back to another */
			continue;
		if (comp[x] != UINT32_MAX)
			continue;
		if (n_comp) {	/* a second component: its leaf reaches none of the first's */
			lb = st->t->nodes[x]->name;
			break;
		}
		la = st->t->nodes[x]->name;
		comp[x] = n_comp;
		queue[tail++] = x;
		while (head < tail) {
			uint32_t u = queue[head++];

			for (uint32_t e = r->adj_start[u]; e < r->adj_start[u + 1]; e++) {
				uint32_t v = r->adj[e].node;

				if (r->transit[v] && comp[v] == UINT32_MAX) {
					comp[v] = n_comp;
					queue[tail++] = v;
				}
			}
		}
		n_comp++;
	}
	if (lb)
		rc = st->kind == SWEEP_TOPO_LLDP ? lldp_cut(ctx, st, la, lb) : plan_cut(ctx, st, la, lb);
out:
	free(comp);
	free(queue);
	return rc;
}

int sweep_topo_place(struct sweep_ctx *ctx, struct sweep_topo *st, const struct fab_hosts *hosts)
{
	size_t retyped = 0;
	int rc;

	topo_sort(st->t);
	rc = place_on(ctx, st, hosts);
	if (rc == 0 && st->kind == SWEEP_TOPO_PLAN) {
		if (plan_implied_switches(st, &retyped) < 0)
			return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		if (retyped)	/* the switches are transit now: route again */
			rc = place_on(ctx, st, hosts);
	}
	if (rc == 0 && st->kind != SWEEP_TOPO_IB)
		rc = leaves_joined(ctx, st);
	if (rc < 0)
		return rc;
	route_rates(st->r, hosts, NULL, NULL);
	st->r->ecmp_whole = true;	/* conservative: a test's flows may hash onto one path */
	st->hosts = hosts;
	st->host_link = calloc(hosts->n ? hosts->n : 1, sizeof(*st->host_link));
	st->host_leaf = calloc(hosts->n ? hosts->n : 1, sizeof(*st->host_leaf));
	if (!st->host_link || !st->host_leaf)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < hosts->n; i++) {
		st->host_link[i] = st->r->hosts[i].link;
		st->host_leaf[i] = st->r->hosts[i].attach;
	}
	if (st->kind == SWEEP_TOPO_IB) {
		st->rib = route_ib_new(st->t);
		if (!st->rib)
			return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	}
	return 0;
}

int sweep_topo_route(struct sweep_topo *st, unsigned int a, unsigned int b, struct pair_route *out,
		     struct fab_err *err)
{
	int rc;

	if (st->rib)
		return route_ib_pair(st->rib, a, st->r->hosts[a].port, b, st->r->hosts[b].port, out,
				     err);
	rc = route_pair(st->r, a, b, out, err);
	if (rc == -E2BIG)	/* more paths than listed: expected and class only */
		rc = 0;
	return rc;
}

int sweep_topo_pair_expect(struct sweep_topo *st, unsigned int a, unsigned int b,
			   double *expected_mbps, unsigned int *klass, struct fab_err *err)
{
	struct pair_route pr = { 0 };
	struct route_info info;
	int rc;

	if (!st->rib) {
		rc = route_pair_info(st->r, a, b, &info, expected_mbps, klass);
		return rc < 0 ? fab_err_set(err, rc, "sweep: route %s-%s: %s", st->hosts->hosts[a].name,
					    st->hosts->hosts[b].name, strerror(-rc)) : 0;
	}
	rc = sweep_topo_route(st, a, b, &pr, err);
	if (rc == 0) {
		*expected_mbps = pr.expected_mbps;
		*klass = pr.klass;
	}
	pair_route_fini(&pr);
	return rc;
}

/* The pair's loads with each link's real share (the scheduler counts whole flows). */
static int pair_loads(struct sweep_topo *st, unsigned int a, unsigned int b,
		      const struct route_load **items, size_t *n, struct fab_err *err)
{
	bool whole = st->r->ecmp_whole;
	struct route_info info;
	int rc;

	st->r->ecmp_whole = false;
	rc = route_pair_loads(st->r, a, b, items, n, &info);
	st->r->ecmp_whole = whole;
	return rc < 0 ? fab_err_set(err, rc, "sweep: route %s-%s: %s", st->hosts->hosts[a].name,
				    st->hosts->hosts[b].name, strerror(-rc)) : 0;
}

/* Every link of @pr's paths, either direction, into a new array. */
static uint32_t *route_links(const struct pair_route *pr, size_t *n)
{
	size_t k = 0, cap = 0;
	uint32_t *l;

	for (size_t i = 0; i < pr->n_ab; i++)
		cap += pr->ab[i].n_hops;
	for (size_t i = 0; i < pr->n_ba; i++)
		cap += pr->ba[i].n_hops;
	l = calloc(cap ? cap : 1, sizeof(*l));
	if (!l)
		return NULL;
	for (size_t i = 0; i < pr->n_ab; i++)
		for (size_t h = 0; h < pr->ab[i].n_hops; h++)
			l[k++] = pr->ab[i].hops[h].link;
	for (size_t i = 0; i < pr->n_ba; i++)
		for (size_t h = 0; h < pr->ba[i].n_hops; h++)
			l[k++] = pr->ba[i].hops[h].link;
	*n = k;
	return l;
}

int sweep_topo_pair_links(struct sweep_topo *st, unsigned int a, unsigned int b, uint32_t **links,
			  size_t *n, struct fab_err *err)
{
	const struct route_load *items;
	struct pair_route pr = { 0 };
	int rc;

	if (st->rib) {
		rc = sweep_topo_route(st, a, b, &pr, err);
		if (rc == 0 && !(*links = route_links(&pr, n)))
			rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		pair_route_fini(&pr);
		return rc;
	}
	rc = pair_loads(st, a, b, &items, n, err);
	if (rc < 0)
		return rc;
	*links = calloc(*n ? *n : 1, sizeof(**links));
	if (!*links)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < *n; i++)
		(*links)[i] = items[i].link;
	return 0;
}

/* One pair on @route: as one observation, or each direction its own (@dirs). */
static int loc_add_route(struct loc_acc *acc, unsigned int a, unsigned int b, const struct pair_route *route,
			 int verdict, double pct_expected, const struct loc_dirs *dirs)
{
	return dirs ? loc_acc_add_dirs(acc, a, b, route, dirs)
		    : loc_acc_add(acc, a, b, route, verdict, pct_expected);
}

int sweep_topo_loc_add(struct sweep_topo *st, struct loc_acc *acc, unsigned int a, unsigned int b,
		       int verdict, double pct_expected, const struct loc_dirs *dirs, struct fab_err *err)
{
	const struct pair_route *taken = sweep_steer_route(st->steer, a, b);
	const struct route_load *items;
	struct pair_route pr = { 0 };
	size_t n;
	int rc;

	if (taken)
		return loc_add_route(acc, a, b, taken, verdict, pct_expected, dirs) < 0
		       ? fab_err_set(err, -ENOMEM, "sweep: out of memory") : 0;
	if (st->rib) {
		rc = sweep_topo_route(st, a, b, &pr, err);
		if (rc == 0 && loc_add_route(acc, a, b, &pr, verdict, pct_expected, dirs) < 0)
			rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		pair_route_fini(&pr);
		return rc;
	}
	rc = pair_loads(st, a, b, &items, &n, err);
	if (rc == -ENETUNREACH) {	/* no path: what the hosts' own links tell */
		fab_err_init(err);
		items = NULL;
		n = 0;
	} else if (rc < 0) {
		return rc;
	}
	if (loc_acc_add_loads(acc, a, b, items, n, verdict, pct_expected) < 0)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	return 0;
}

int sweep_topo_route_pairs(struct sweep_ctx *ctx, struct sweep_topo *st,
			   const unsigned int (*ab)[2], size_t n)
{
	for (size_t i = 0; i < st->n_routes; i++)
		pair_route_fini(&st->routes[i]);
	free(st->routes);
	st->n_routes = 0;
	st->routes = calloc(n ? n : 1, sizeof(*st->routes));
	if (!st->routes)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; i < n; i++) {
		int rc = sweep_topo_route(st, ab[i][0], ab[i][1], &st->routes[i], &ctx->err);

		if (rc < 0)
			return rc;
		st->n_routes = i + 1;
	}
	st->n_routes = n;
	return 0;
}

/* The requested pairs as a list: all, new x (old and new), or @want. */
static int want_list(const struct sweep_topo *st, enum sweep_mode mode,
		     const struct sched_pair *want, size_t n_want, const bool *is_new,
		     struct sched_pair **out, size_t *n_out)
{
	size_t n = st->hosts->n, k = 0, cap = mode != SWEEP_MODE_PAIRS ? n * (n - 1) / 2 : n_want;
	struct sched_pair *p = calloc(cap ? cap : 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	if (mode == SWEEP_MODE_PAIRS) {
		memcpy(p, want, n_want * sizeof(*p));
		k = n_want;
	} else {
		for (unsigned int a = 0; a < n; a++)
			for (unsigned int b = a + 1; b < n; b++)
				if (!is_new || is_new[a] != is_new[b])
					p[k++] = (struct sched_pair){ .a = a, .b = b };
	}
	*out = p;
	*n_out = k;
	return 0;
}

/* IB: every requested pair routed by the LFTs, packed by its real links. */
static int schedule_routed(struct sweep_ctx *ctx, struct sweep_topo *st, const struct sched_pair *w,
			   size_t n, struct sched *s)
{
	struct pair_route *routes = calloc(n ? n : 1, sizeof(*routes));
	size_t done = 0;
	int rc = 0;

	if (!routes)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (; done < n && rc == 0; done++)
		rc = sweep_topo_route(st, w[done].a, w[done].b, &routes[done], &ctx->err);
	if (rc == 0)
		rc = sched_topo_routed(s, &st->bound, st->r, routes, n, &ctx->err);
	for (size_t i = 0; i < done; i++)
		pair_route_fini(&routes[i]);
	free(routes);
	return rc;
}

/* More hosts than the packer stores: the streamed generator as a round source. */
static int gen_next(struct sched_src *src, struct sched_pair *buf, size_t *n)
{
	return sched_topo_gen_next(src->impl, buf, n);
}

static void gen_free(struct sched_src *src)
{
	sched_topo_gen_free(src->impl);
}

static int schedule_streamed(struct sweep_ctx *ctx, struct sweep_topo *st, struct sched_src *src)
{
	size_t n = st->hosts->n;
	struct sched_topo_gen *g = NULL;
	int rc;

	rc = sched_topo_gen_new(&g, st->r, &ctx->err);
	if (rc < 0)
		return rc;
	memset(src, 0, sizeof(*src));
	src->impl = g;
	src->next = gen_next;
	src->free = gen_free;
	src->n_pairs = n * (n - 1) / 2;
	src->max_round = n / 2;
	/* The rounds are counted by a dry run (then the generator starts again). */
	rc = sched_topo_gen_count(g, &src->n_rounds);
	if (rc < 0) {
		sched_src_fini(src);
		return fab_err_set(&ctx->err, rc, "sweep: schedule: %s", strerror(-rc));
	}
	st->bound = *sched_topo_gen_bound(g);
	return 0;
}

/*
 * --coverage K: the picker's pairs (every link pairs can cross crossed by,
 * and every host in, at least K of them; with --new only pairs touching
 * new hosts), then the packer over them (IB: over their LFT routes).  A
 * link or host the picker could not bring to K is said, not hidden.
 * Hosts of several fabric ports: the picker a rail (model/coverage_rails.h),
 * the rails' pairs packed together.
 */
static int schedule_coverage(struct sweep_ctx *ctx, struct sweep_topo *st, const bool *is_new,
			     struct sched *s)
{
	struct coverage_req req = { .k = st->cov_k, .subset = is_new };
	struct coverage *c = &st->cov;
	int rc;

	if (hosts_have_rails(st->hosts))	/* per rail, NIC i to NIC i */
		rc = coverage_pick_rails(c, st->r, st->hosts, &req, &ctx->err);
	else
		rc = coverage_pick(c, st->r, &req, &ctx->err);
	if (rc < 0)
		return rc;
	if (c->links_short || c->links_unreachable) {
		char l[420];

		sweep_topo_link_text(st->t, c->first_short_link, l, sizeof(l));
		fab_warn("sweep: coverage %u: %zu of %zu links crossed fewer than %u times, %zu not "
			 "crossable (first: %s)", st->cov_k,
			 c->links_short, c->links_target, st->cov_k, c->links_unreachable, l);
	}
	if (c->hosts_short)
		fab_warn("sweep: coverage %u: %zu hosts in fewer than %u pairs (first: %s)", st->cov_k,
			 c->hosts_short, st->cov_k,
			 c->first_short_host < st->hosts->n ? st->hosts->hosts[c->first_short_host].name
							     : "-");
	if (st->rib)
		return schedule_routed(ctx, st, c->pairs, c->n_pairs, s);
	return sched_topo_pairs(s, &st->bound, st->r, c->pairs, c->n_pairs, &ctx->err);
}

int sweep_topo_schedule_src(struct sweep_ctx *ctx, struct sweep_topo *st, enum sweep_mode mode,
			    const struct sched_pair *want, size_t n_want, const bool *is_new,
			    struct sched *s, struct sched_src *src)
{
	int rc;

	if (mode == SWEEP_MODE_ALL_PAIRS && !st->rib && st->hosts->n > SCHED_TOPO_EXPLICIT_MAX) {
		rc = schedule_streamed(ctx, st, src);
		if (rc == 0)
			st->have_bound = true;
		return rc;
	}
	rc = sweep_topo_schedule(ctx, st, mode, want, n_want, is_new, s);
	if (rc == 0)
		sched_src_explicit(src, s);
	return rc;
}

int sweep_topo_schedule(struct sweep_ctx *ctx, struct sweep_topo *st, enum sweep_mode mode,
			const struct sched_pair *want, size_t n_want, const bool *is_new,
			struct sched *s)
{
	struct sched_pair *w = NULL;
	size_t n = 0;
	int rc;

	if (mode == SWEEP_MODE_SERIAL)
		return sched_serial(s, st->hosts->n);
	if (mode == SWEEP_MODE_COVERAGE || mode == SWEEP_MODE_COVERAGE_NEW) {
		rc = schedule_coverage(ctx, st, is_new, s);
	} else if (st->rib) {
		if (want_list(st, mode, want, n_want, is_new, &w, &n) < 0)
			return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		rc = schedule_routed(ctx, st, w, n, s);
		free(w);
	} else if (mode == SWEEP_MODE_PAIRS) {
		rc = sched_topo_pairs(s, &st->bound, st->r, want, n_want, &ctx->err);
	} else if (mode == SWEEP_MODE_BIPARTITE) {
		rc = sched_topo_bipartite(s, &st->bound, st->r, is_new, &ctx->err);
	} else {
		rc = sched_topo_all(s, &st->bound, st->r, &ctx->err);
	}
	if (rc == 0)
		st->have_bound = true;
	return rc;
}


void sweep_topo_link_text(const struct topo *t, uint32_t link, char *buf, size_t len)
{
	char a[200], b[200];

	if (link >= t->n_links) {
		snprintf(buf, len, "(no link)");
		return;
	}
	topo_port_text(t->links[link]->a, a, sizeof(a));
	topo_port_text(t->links[link]->b, b, sizeof(b));
	snprintf(buf, len, "%s <-> %s", a, b);
}

/* Every counter @t's ports hold, on the ports of @ref with the same node GUID and number. */
static int snap_mapped(struct counter_snap *s, const struct topo *ref, const struct topo *t)
{
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *n = t->nodes[i];
		const struct topo_node *rn = topo_node_by_guid(ref, n->guid);

		for (size_t k = 0; rn && k < n->n_ports; k++) {
			const struct topo_port *p = n->ports[k];
			const struct topo_port *rp = topo_port_find(rn, p->num, NULL);

			if (rp && counter_snap_add_port_as(s, rp, p) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

#define SWEEP_COUNTERS_TIMEOUT_MS 20000

/*
 * Every worker's counters into @s, each host's on the host end of its
 * access link, only the names a rule knows (a policy file changes
 * thresholds, never the names); *@n_read: hosts that answered.
 */
static int nic_read(struct sweep_ctx *ctx, const struct sweep_topo *st, struct counter_snap *s,
		    size_t *n_read)
{
	struct fleet *f = st->fleet;
	struct nic_counters *c = calloc(f->n ? f->n : 1, sizeof(*c));
	bool *got = calloc(f->n ? f->n : 1, sizeof(*got));
	int rc = 0;

	*n_read = 0;
	if (!c || !got)
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	for (size_t i = 0; rc == 0 && i < f->n; i++)
		nic_counters_init(&c[i]);
	if (rc == 0)
		rc = fleet_counters_read(f, SWEEP_COUNTERS_TIMEOUT_MS, c, got, &ctx->err);
	for (size_t i = 0; rc == 0 && i < f->n; i++) {
		const struct topo_port *p = st->r->hosts[i].port;

		if (!got[i] || !p)
			continue;
		(*n_read)++;
		if (nic_counters_snap(&c[i], NULL, p, s) < 0)
			rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	}
	for (size_t i = 0; c && i < f->n; i++)
		nic_counters_fini(&c[i]);
	free(c);
	free(got);
	return rc;
}

int sweep_topo_counters_before(struct sweep_ctx *ctx, struct sweep_topo *st, struct fleet *f)
{
	size_t n = 0;
	int rc;

	if (st->kind == SWEEP_TOPO_IB || !f || !f->n || !st->hosts || f->n != st->hosts->n)
		return 0;
	st->fleet = f;
	counter_snap_init(&st->nic_before);
	rc = nic_read(ctx, st, &st->nic_before, &n);
	if (rc == 0) {
		st->nic_read = true;
		fab_info("counters: read on %zu of %zu hosts before the sweep", n, f->n);
	}
	return rc;
}

/* Ethernet / RoCE: the workers' counters now against those before. */
static int counters_nic(struct sweep_ctx *ctx, struct sweep_topo *st,
			const struct counter_policy *pol, struct counter_report *out)
{
	struct counter_snap after;
	size_t n = 0;
	int rc;

	counter_snap_init(&after);
	rc = nic_read(ctx, st, &after, &n);
	if (rc == 0 && counter_eval(st->t, pol, &st->nic_before, &after, out) < 0)
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	if (rc == 0)
		fab_info("counters: read on %zu hosts after the sweep: %zu finding%s on %zu host port%s",
			 n, out->n_findings, out->n_findings == 1 ? "" : "s", out->n_ports,
			 out->n_ports == 1 ? "" : "s");
	counter_snap_fini(&after);
	return rc;
}

int sweep_topo_counters(struct sweep_ctx *ctx, struct sweep_topo *st, const struct subnet_opts *ib,
			const struct counter_policy *pol, struct counter_report *out)
{
	struct subnet_opts o = *ib;
	struct counter_snap before, after;
	struct topo *now = NULL;
	int rc = 0;

	if (st->kind != SWEEP_TOPO_IB)
		return st->nic_read ? counters_nic(ctx, st, pol, out) : 0;
	counter_snap_init(&before);
	counter_snap_init(&after);
	o.counters = true;
	if (!o.max_smps)
		o.max_smps = 64;
	now = topo_new();
	if (!now)
		rc = -ENOMEM;
	if (rc == 0 && sys_subnet_read(ctx->sys, &o, now, &ctx->err) < 0) {
		/* Evidence, not the verdict: say so and go on without it. */
		fab_warn("sweep: counters after the sweep: %s", ctx->err.msg);
		fab_err_init(&ctx->err);
		goto out;
	}
	for (size_t i = 0; rc == 0 && i < st->t->n_nodes; i++)
		for (size_t k = 0; rc == 0 && k < st->t->nodes[i]->n_ports; k++)
			rc = counter_snap_add_topo_port(&before, st->t->nodes[i]->ports[k]);
	if (rc == 0)
		rc = snap_mapped(&after, st->t, now);
	if (rc == 0)
		rc = counter_eval(st->t, pol, &before, &after, out);
out:
	topo_free(now);
	counter_snap_fini(&before);
	counter_snap_fini(&after);
	return rc < 0 ? fab_err_set(&ctx->err, rc, "sweep: counters: %s", strerror(-rc)) : 0;
}
