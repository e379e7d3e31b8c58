// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl diagnose: name the slow link.
 *
 *   diagnose --from SWEEP.json [--topology SOURCE]   re-analyse a saved sweep, no traffic
 *   diagnose --hosts F --topology SOURCE A B          measure A-B and the pairs that share
 *                                                     parts of its path, then localise
 *
 * Both end in model/localize.c (cmd/sweep_locate.c), with counter deltas
 * as evidence where they can be read (InfiniBand PMA counters: the saved
 * sweep's snapshot against the live subnet).  docs/diagnose.md.
 *
 * Exit: 0 nothing found, 1 a suspect named, 2 bad input, 3 system error.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/discover_lldp.h"
#include "cmd/sweep_cmd.h"
#include "sweep/sweep_locate.h"
#include "sweep/sweep_topo.h"
#include "io/load.h"
#include "io/pair_store.h"
#include "model/counter_eval.h"
#include "model/ptr_index.h"
#include "util/file.h"
#include "util/log.h"

#define DIAGNOSE_FROM_MAX_BYTES (256u << 20)
#define DIAGNOSE_NEIGHBOURS 2	/* leaf neighbours of A (and of B) paired with the other end */
#define DIAGNOSE_OUTSIDERS 3	/* hosts on other leaves paired with both sides (controls) */

/* ------------------------------------------------------------ diagnose A B */

static size_t leafmates(const struct sweep_topo *st, const struct fab_hosts *hs, unsigned int h,
			unsigned int skip, unsigned int *out, size_t max)
{
	size_t n = 0;

	for (unsigned int i = 0; i < hs->n && n < max; i++)
		if (i != h && i != skip && st->host_leaf[i] == st->host_leaf[h])
			out[n++] = i;
	return n;
}

static void want_add(struct sched_pair *w, size_t *n, unsigned int a, unsigned int b)
{
	for (size_t i = 0; i < *n; i++)
		if ((w[i].a == a && w[i].b == b) || (w[i].a == b && w[i].b == a))
			return;
	w[(*n)++] = (struct sched_pair){ .a = a, .b = b };
}

/*
 * Up to @max hosts on leaves other than A's and B's: one per leaf first,
 * then more from the same leaves.
 */
static size_t outsiders(const struct sweep_topo *st, const struct fab_hosts *hs, unsigned int a,
			unsigned int b, unsigned int *out, size_t max)
{
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (unsigned int i = 0; i < hs->n && n < max; i++) {
			bool seen = false, taken = false;

			if (st->host_leaf[i] == st->host_leaf[a] || st->host_leaf[i] == st->host_leaf[b])
				continue;
			for (size_t k = 0; k < n; k++) {
				seen |= st->host_leaf[out[k]] == st->host_leaf[i];
				taken |= out[k] == i;
			}
			if (!taken && (pass || !seen))
				out[n++] = i;
		}
	return n;
}

/*
 * A-B first; then A with up to two of B's leaf neighbours and B with up to
 * two of A's (the two uplinks and the far access links apart), one
 * neighbour pair (the path without either end), and each end with a leaf
 * neighbour (its own access link without the uplinks).  Then control
 * pairs to up to three hosts on other leaves, from both sides, so that
 * each side's uplink is avoided by at least four pairs of the same class:
 * the class reference (no rated speed known) must not be made of the very
 * pairs under suspicion (model/pathref.h keeps at least 3 and 20 %).  At
 * most 16 pairs.
 */
int diagnose_pick_pairs(struct fab_ctx *ctx, struct sweep_topo *st, const struct fab_hosts *hs,
			const char *const target[2], struct sched_pair **want, size_t *n_want)
{
	unsigned int ma[DIAGNOSE_NEIGHBOURS], mb[DIAGNOSE_NEIGHBOURS], x[DIAGNOSE_OUTSIDERS];
	struct sched_pair *w = calloc(24, sizeof(*w));
	size_t nx;
	int ia = hosts_find(hs, target[0]), ib = hosts_find(hs, target[1]);
	size_t na, nb, n = 0;

	if (!w)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	if (ia < 0 || ib < 0 || ia == ib) {
		free(w);
		return fab_err_input(&ctx->err, -EINVAL, "diagnose: %s%s%s",
				     ia < 0 ? target[0] : ib < 0 ? target[1] : target[0],
				     ia < 0 || ib < 0 ? " is not an end point of the hosts file" : "",
				     ia == ib && ia >= 0 ? ": A and B are the same host" : "");
	}
	na = leafmates(st, hs, (unsigned int)ia, (unsigned int)ib, ma, DIAGNOSE_NEIGHBOURS);
	nb = leafmates(st, hs, (unsigned int)ib, (unsigned int)ia, mb, DIAGNOSE_NEIGHBOURS);
	want_add(w, &n, (unsigned int)ia, (unsigned int)ib);
	for (size_t k = 0; k < nb; k++)
		want_add(w, &n, (unsigned int)ia, mb[k]);
	for (size_t k = 0; k < na; k++)
		want_add(w, &n, ma[k], (unsigned int)ib);
	if (na && nb)
		want_add(w, &n, ma[0], mb[0]);
	if (na)
		want_add(w, &n, (unsigned int)ia, ma[0]);
	if (nb)
		want_add(w, &n, (unsigned int)ib, mb[0]);
	nx = outsiders(st, hs, (unsigned int)ia, (unsigned int)ib, x, DIAGNOSE_OUTSIDERS);
	for (size_t k = 0; k < nx; k++) {
		want_add(w, &n, (unsigned int)ib, x[k]);
		want_add(w, &n, (unsigned int)ia, x[k]);
	}
	if (nx && nb)
		want_add(w, &n, mb[0], x[0]);
	if (nx && na)
		want_add(w, &n, ma[0], x[0]);
	fab_info("diagnose: measuring %s-%s and %zu pair%s sharing parts of its path", target[0],
		 target[1], n - 1, n == 2 ? "" : "s");
	*want = w;
	*n_want = n;
	return 0;
}

/* The suspects decide the exit status: 1 when one is named. */
static int diag_exit(const struct sweep_report *r)
{
	return r->fabric.loc && r->fabric.loc->n_suspects ? FAB_EXIT_UNHEALTHY : FAB_EXIT_OK;
}

static json_t *find_pair(json_t *pairs, const char *a, const char *b)
{
	json_t *p;
	size_t i;

	json_array_foreach(pairs, i, p) {
		const char *pa = json_string_value(json_object_get(p, "a"));
		const char *pb = json_string_value(json_object_get(p, "b"));

		if (pa && pb && ((!strcmp(pa, a) && !strcmp(pb, b)) || (!strcmp(pa, b) && !strcmp(pb, a))))
			return p;
	}
	return NULL;
}

int diagnose_render(struct fab_ctx *ctx, const struct sweep_report *r, const struct sweep_args *a)
{
	const char *A = a->from ? NULL : a->target[0], *B = a->from ? NULL : a->target[1];
	unsigned int probes = r->fabric.probes_run;
	int rc = diag_exit(r);

	if (ctx->render.ops == &render_json_ops) {
		json_t *doc = sweep_to_json(r), *target = json_null();

		if (!doc)
			return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory"), FAB_EXIT_SYSTEM;
		if (A)
			target = json_pack("{s:s, s:s, s:O*}", "a", A, "b", B, "pair",
					   find_pair(json_object_get(doc, "pairs"), A, B));
		json_object_set_new(doc, "schema", json_string("fabricctl.diagnose/1"));
		json_object_set_new(doc, "from", a->from ? json_string(a->from) : json_null());
		json_object_set_new(doc, "target", target);
		json_object_set_new(doc, "extra_pairs", json_integer(A && r->n_pairs ? (json_int_t)(r->n_pairs - 1 + probes)
										    : (json_int_t)probes));
		if (render_json_emit(&ctx->render, doc) < 0)
			rc = FAB_EXIT_SYSTEM;
		return rc;
	}
	if (A)
		fprintf(ctx->render.f, "diagnose %s %s: %zu pairs measured (%zu extra, %u of them probes)\n",
			A, B, r->n_pairs + probes, r->n_pairs - 1 + probes, probes);
	else
		fprintf(ctx->render.f, "diagnose --from %s: %zu pairs re-analysed, no traffic\n", a->from,
			r->n_pairs);
	if (ctx->render.ops->sweep(&ctx->render, r) < 0)
		rc = FAB_EXIT_SYSTEM;
	return rc;
}

/* ------------------------------------------------------------ diagnose --from */

struct from_ctx {
	json_t *doc;
	struct pair_store *store;	/* the saved pairs */
	unsigned int (*ab)[2];		/* their hosts, by store index */
	struct fab_hosts hosts, fabric;
	struct sweep_report r;
	struct sweep_topo st;
	struct sweep_locate sl;
	struct counter_snap before, after;
	struct counter_report crep;
	struct counter_policy pol;
};

/* Hosts from the document's nodes[] (name, address, rdma, rate_gbps). */
static int hosts_from_doc(struct fab_ctx *ctx, const char *fname, json_t *nodes,
			  struct fab_hosts *hs)
{
	size_t n = json_array_size(nodes), i;
	json_t *v;

	hs->hosts = calloc(n ? n : 1, sizeof(*hs->hosts));
	if (!hs->hosts)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	json_array_foreach(nodes, i, v) {
		struct fab_host *h = &hs->hosts[i];
		const char *name = json_string_value(json_object_get(v, "name"));
		const char *addr = json_string_value(json_object_get(v, "address"));
		const char *rdma = json_string_value(json_object_get(v, "rdma"));
		const char *colon;

		if (!name || strlen(name) >= sizeof(h->name) || !hosts_name_valid(name))
			return fab_err_input(&ctx->err, -EINVAL, "%s: nodes[%zu].name: missing or not a host name",
					     fname, i);
		snprintf(h->name, sizeof(h->name), "%s", name);
		snprintf(h->addr, sizeof(h->addr), "%s", addr ? addr : "");
		if (rdma) {
			colon = strchr(rdma, ':');
			snprintf(h->rdma, sizeof(h->rdma), "%.*s", (int)(colon ? colon - rdma : (long)strlen(rdma)),
				 rdma);
			h->rdma_port = colon ? (unsigned int)strtoul(colon + 1, NULL, 10) : 0;
		}
		h->rate_gbps = json_number_value(json_object_get(v, "rate_gbps"));
		h->line = (unsigned int)i + 1;
		hs->n = i + 1;
	}
	return 0;
}

static enum sweep_status status_parse(const char *s)
{
	if (s && !strcmp(s, "ok"))
		return SWEEP_OK;
	if (s && !strcmp(s, "slow"))
		return SWEEP_SLOW;
	if (s && !strcmp(s, "failed"))
		return SWEEP_FAILED;
	if (s && !strcmp(s, "regressed"))
		return SWEEP_REGRESSED;
	return SWEEP_PLANNED;	/* not measured: ignored by the localisation */
}

/* The saved pairs with their verdicts; names resolved against @hs. */
static int pairs_from_doc(struct fab_ctx *ctx, const char *fname, json_t *pairs,
			  const struct fab_hosts *hs, struct from_ctx *c)
{
	struct sweep_report *r = &c->r;
	struct sweep_pair pair, *p = &pair;
	size_t i;
	json_t *v;
	int rc;

	c->ab = calloc(json_array_size(pairs) ? json_array_size(pairs) : 1, sizeof(*c->ab));
	if (!c->ab)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	if ((rc = pair_store_new(&c->store, json_array_size(pairs), &ctx->err)) < 0)
		return rc;
	r->store = c->store;
	json_array_foreach(pairs, i, v) {
		const char *a = json_string_value(json_object_get(v, "a"));
		const char *b = json_string_value(json_object_get(v, "b"));
		const char *reason = json_string_value(json_object_get(v, "reason"));
		json_t *pct = json_object_get(v, "pct_expected");
		int ia = a ? hosts_find(hs, a) : -1, ib = b ? hosts_find(hs, b) : -1;

		if (ia < 0 || ib < 0 || ia == ib)
			return fab_err_input(&ctx->err, -EINVAL, "%s: pairs[%zu]: '%s' is not a host of the sweep",
					     fname, i, ia < 0 ? (a ? a : "(none)") : (b ? b : "(none)"));
		memset(p, 0, sizeof(*p));
		p->a = (unsigned int)ia;
		p->b = (unsigned int)ib;
		p->status = status_parse(json_string_value(json_object_get(v, "status")));
		p->round = (unsigned int)json_integer_value(json_object_get(v, "round"));
		p->pct_rated = json_is_number(pct) ? json_number_value(pct) : -1;
		p->expected_mbps = json_number_value(json_object_get(v, "expected_mbps"));
		snprintf(p->reason, sizeof(p->reason), "%s", reason ? reason : "");
		p->ab.measured = json_is_object(json_object_get(v, "bw_ab"));
		p->ab.avg_mbps = json_number_value(json_object_get(json_object_get(v, "bw_ab"), "avg_mbps"));
		p->ba.measured = json_is_object(json_object_get(v, "bw_ba"));
		p->ba.avg_mbps = json_number_value(json_object_get(json_object_get(v, "bw_ba"), "avg_mbps"));
		if ((rc = pair_store_append(c->store, p, &ctx->err)) < 0)
			return rc;
		c->ab[i][0] = p->a;
		c->ab[i][1] = p->b;
		r->n_ok += p->status == SWEEP_OK;
		r->n_slow += p->status == SWEEP_SLOW;
		r->n_failed += p->status == SWEEP_FAILED;
		r->n_regressed += p->status == SWEEP_REGRESSED;
		r->n_pairs = i + 1;
	}
	return 0;
}

/* A node type by its JSON name. */
static enum topo_node_type node_type_parse(const char *s)
{
	int t = s ? topo_node_type_parse(s) : -1;

	return t < 0 ? TOPO_NODE_HOST : (enum topo_node_type)t;
}

/* The port an end {node, [guid,] port} names; @create adds it to a node that lacks it. */
static struct topo_port *end_port(struct topo *t, json_t *end, bool create)
{
	const char *node = json_string_value(json_object_get(end, "node"));
	const char *guid = json_string_value(json_object_get(end, "guid"));
	json_t *port = json_object_get(end, "port");
	struct topo_node *n = topo_node_find(t, node ? node : "", guid ? strtoull(guid, NULL, 0) : 0);
	unsigned int num = json_is_integer(port) ? (unsigned int)json_integer_value(port) : 0;
	const char *name = json_is_integer(port) ? NULL : json_string_value(port);

	if (!n)
		return NULL;
	return create ? topo_port_get(n, num, name) : topo_port_find(n, num, name);
}

/* The graph the sweep saved (topology.nodes, topology.links). */
static int topo_from_doc(struct fab_ctx *ctx, const char *fname, json_t *topo, struct topo **out)
{
	struct topo *t = topo_new();
	json_t *v;
	size_t i;

	if (!t)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	json_array_foreach(json_object_get(topo, "nodes"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));

		if (!name || !topo_node_add(t, node_type_parse(json_string_value(json_object_get(v, "type"))),
					    name, 0)) {
			topo_free(t);
			return fab_err_input(&ctx->err, -EINVAL, "%s: topology.nodes[%zu]: bad node", fname, i);
		}
	}
	json_array_foreach(json_object_get(topo, "links"), i, v) {
		struct topo_port *a = end_port(t, json_object_get(v, "a"), true);
		struct topo_port *b = end_port(t, json_object_get(v, "b"), true);

		if (!a || !b || topo_link_add(t, a, b, TOPO_SRC_PLAN) < 0) {
			topo_free(t);
			return fab_err_input(&ctx->err, -EINVAL, "%s: topology.links[%zu]: bad link", fname, i);
		}
	}
	*out = t;
	return 0;
}

/* One direction's saved paths as link-indexed paths (@links: the graph's links indexed). */
static int paths_from_doc(struct topo *t, const struct ptr_index *links, json_t *arr,
			  struct path **out, size_t *n_out)
{
	size_t n = json_array_size(arr), i;
	struct path *ps = calloc(n ? n : 1, sizeof(*ps));
	json_t *v;

	if (!ps)
		return -ENOMEM;
	*out = ps;
	*n_out = n;
	json_array_foreach(arr, i, v) {
		json_t *hops = json_object_get(v, "hops"), *h;
		size_t k;

		ps[i].share = json_number_value(json_object_get(v, "share"));
		ps[i].hops = calloc(json_array_size(hops) ? json_array_size(hops) : 1, sizeof(*ps[i].hops));
		if (!ps[i].hops)
			return -ENOMEM;
		json_array_foreach(hops, k, h) {
			const struct topo_port *p = end_port(t, json_object_get(h, "from"), false);
			size_t l = p ? ptr_index_find(links, p->link) : SIZE_MAX;

			if (l == SIZE_MAX)
				return -EINVAL;
			ps[i].hops[k] = (struct path_hop){ .link = (uint32_t)l, .fwd = t->links[l]->a == p };
			ps[i].n_hops = k + 1;
		}
	}
	return 0;
}

/* Routes as the sweep saved them, and each host's access link from its first hop. */
/* Each host's leaf: the node at the far end of its access link (first hop); nodes indexed once. */
static int host_leaves(struct sweep_topo *st, size_t n_hosts)
{
	struct ptr_index nodes;

	if (ptr_index_init(&nodes, st->t->n_nodes) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < st->t->n_nodes; i++)
		ptr_index_set(&nodes, i, st->t->nodes[i]);
	ptr_index_sort(&nodes);
	for (size_t h = 0; h < n_hosts; h++) {
		const struct topo_link *l;
		size_t i;

		if (st->host_link[h] >= st->t->n_links)
			continue;
		l = st->t->links[st->host_link[h]];
		i = ptr_index_find(&nodes, (l->a->node->type == TOPO_NODE_SWITCH ? l->a : l->b)->node);
		if (i != SIZE_MAX)
			st->host_leaf[h] = (uint32_t)i;
	}
	ptr_index_fini(&nodes);
	return 0;
}

static int routes_fill(struct fab_ctx *ctx, const char *fname, json_t *pairs,
		       const struct from_ctx *c, struct sweep_topo *st, const struct ptr_index *links)
{
	const struct sweep_report *r = &c->r;
	int rc;

	st->routes = calloc(r->n_pairs ? r->n_pairs : 1, sizeof(*st->routes));
	st->host_link = malloc((r->hosts->n ? r->hosts->n : 1) * sizeof(*st->host_link));
	st->host_leaf = malloc((r->hosts->n ? r->hosts->n : 1) * sizeof(*st->host_leaf));
	if (!st->routes || !st->host_link || !st->host_leaf)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	memset(st->host_link, 0xff, r->hosts->n * sizeof(*st->host_link));
	memset(st->host_leaf, 0xff, r->hosts->n * sizeof(*st->host_leaf));
	for (size_t i = 0; i < r->n_pairs; i++) {
		json_t *routes = json_object_get(json_array_get(pairs, i), "routes");
		struct pair_route *pr = &st->routes[i];

		pr->a = c->ab[i][0];
		pr->b = c->ab[i][1];
		st->n_routes = i + 1;
		if (!json_is_object(routes))
			return fab_err_input(&ctx->err, -EINVAL, "%s: pairs[%zu] has no routes: give --topology SOURCE",
					     fname, i);
		rc = paths_from_doc(st->t, links, json_object_get(routes, "ab"), &pr->ab, &pr->n_ab);
		if (rc == 0)
			rc = paths_from_doc(st->t, links, json_object_get(routes, "ba"), &pr->ba, &pr->n_ba);
		if (rc == -ENOMEM)
			return fab_err_set(&ctx->err, rc, "diagnose: out of memory");
		if (rc < 0)
			return fab_err_input(&ctx->err, -EINVAL, "%s: pairs[%zu].routes: a hop names no link of "
					     "the topology", fname, i);
		pr->klass = pr->n_ab ? (unsigned int)pr->ab[0].n_hops : 0;
		if (pr->n_ab && pr->ab[0].n_hops)
			st->host_link[pr->a] = pr->ab[0].hops[0].link;
		if (pr->n_ba && pr->ba[0].n_hops)
			st->host_link[pr->b] = pr->ba[0].hops[0].link;
	}
	if (host_leaves(st, r->hosts->n) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	return 0;
}

static int routes_from_doc(struct fab_ctx *ctx, const char *fname, json_t *pairs,
			   const struct from_ctx *c, struct sweep_topo *st)
{
	struct ptr_index links;
	int rc = 0;

	if (ptr_index_init(&links, st->t->n_links) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	for (size_t l = 0; l < st->t->n_links; l++)
		ptr_index_set(&links, l, st->t->links[l]);
	ptr_index_sort(&links);
	rc = routes_fill(ctx, fname, pairs, c, st, &links);
	ptr_index_fini(&links);
	return rc;
}

/* The sweep's counter snapshot (counters[]: node, port, name, value) on @t's ports. */
static int snap_from_doc(struct topo *t, json_t *arr, struct counter_snap *s)
{
	json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		struct topo_port *p = end_port(t, v, false);
		const char *name = json_string_value(json_object_get(v, "name"));

		if (!p || !name || !json_is_integer(json_object_get(v, "value")))
			continue;	/* a port the live fabric no longer has: skipped */
		if (counter_snap_add(s, p, name, (uint64_t)json_integer_value(json_object_get(v, "value"))) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int from_counters(struct fab_ctx *ctx, struct from_ctx *c)
{
	json_t *saved = json_object_get(c->doc, "counters");
	int rc;

	if (c->st.kind != SWEEP_TOPO_IB || !json_is_array(saved))
		return 0;
	if (snap_from_doc(c->st.t, saved, &c->before) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	for (size_t i = 0; i < c->st.t->n_nodes; i++)
		for (size_t k = 0; k < c->st.t->nodes[i]->n_ports; k++)
			if (counter_snap_add_topo_port(&c->after, c->st.t->nodes[i]->ports[k]) < 0)
				return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	rc = counter_eval(c->st.t, &c->pol, &c->before, &c->after, &c->crep);
	if (rc == 0)
		rc = loc_apply_counters(&c->sl.in, &c->sl.res, &c->crep);
	if (rc < 0)
		return fab_err_set(&ctx->err, rc, "diagnose: counters: %s", strerror(-rc));
	fab_info("diagnose: %zu counter findings on %zu ports read before and now", c->crep.n_findings,
		 c->crep.n_ports);
	return 0;
}

static int from_topology(struct fab_ctx *ctx, struct from_ctx *c, const struct sweep_args *a)
{
	struct fleet f = { .n = 0 };
	int rc;

	if (!a->topology) {
		json_t *topo = json_object_get(c->doc, "topology");

		if (!json_is_object(topo))
			return fab_err_input(&ctx->err, -EINVAL, "%s: the sweep ran without a topology: give "
					     "--topology lldp|ib|PLAN", a->from);
		sweep_topo_init(&c->st, "plan");
		rc = topo_from_doc(ctx, a->from, topo, &c->st.t);
		if (rc == 0)
			rc = routes_from_doc(ctx, a->from, json_object_get(c->doc, "pairs"), c, &c->st);
		return rc;
	}
	sweep_topo_init(&c->st, a->topology);
	rc = sweep_topo_load(ctx, &c->st, &a->ib);
	if (rc == 0 && c->st.kind == SWEEP_TOPO_LLDP) {
		if (!a->hosts)
			return fab_err_input(&ctx->err, -EINVAL, "diagnose: --topology lldp needs --hosts FILE");
		rc = fleet_start(&f, &c->hosts, &a->fo, &ctx->err);
		if (rc == 0)
			rc = sweep_topo_load_lldp(ctx, &c->st, &f, &c->hosts, &c->fabric, &a->fo,
						  a->lldp_socket);
		fleet_fini(&f);
	}
	if (rc == 0)
		rc = sweep_topo_place(ctx, &c->st, &c->hosts);
	if (rc < 0)
		return rc;
	return sweep_topo_route_pairs(ctx, &c->st, (const unsigned int (*)[2])c->ab, c->r.n_pairs);
}

/*
 * What the document recorded of its run: rounds (the top-level count,
 * else the schedule's), rounds done, wall time and start.  What it does
 * not say stays unknown (rounds 0, wall NAN), and the renderers leave it
 * out, rather than a re-analysis passing for a sweep of 0 rounds in 0 s.
 */
static void doc_run_facts(json_t *doc, struct sweep_report *r)
{
	json_t *rounds = json_object_get(doc, "rounds");
	json_t *done = json_object_get(doc, "rounds_done");
	json_t *wall = json_object_get(doc, "wall_s");
	json_t *started = json_object_get(doc, "started_unix");

	if (!json_is_integer(rounds))
		rounds = json_object_get(json_object_get(doc, "schedule"), "rounds");
	r->n_rounds = json_is_integer(rounds) && json_integer_value(rounds) > 0
		? (size_t)json_integer_value(rounds) : 0;
	r->rounds_done = json_is_integer(done) && json_integer_value(done) > 0
		? (size_t)json_integer_value(done) : r->n_rounds;
	r->interrupted = json_is_true(json_object_get(doc, "interrupted"));
	r->wall_s = json_is_number(wall) && json_number_value(wall) >= 0 ? json_number_value(wall)
									  : NAN;
	r->started_unix = json_is_integer(started) ? (int64_t)json_integer_value(started) : 0;
}

static int diagnose_from(struct fab_ctx *ctx, struct sweep_args *a)
{
	struct from_ctx c = { 0 };
	const char *schema;
	int rc;

	hosts_init(&c.hosts);
	hosts_init(&c.fabric);
	sweep_locate_init(&c.sl);
	counter_snap_init(&c.before);
	counter_snap_init(&c.after);
	rc = counter_policy_load(a->policy, &c.pol, &ctx->err);
	if (rc == 0)
		rc = json_doc_load(a->from, DIAGNOSE_FROM_MAX_BYTES, &c.doc, &ctx->err);
	if (rc < 0)
		goto out;
	schema = json_string_value(json_object_get(c.doc, "schema"));
	if (!schema || strncmp(schema, "fabricctl.sweep/", 16) != 0) {
		rc = fab_err_input(&ctx->err, -EINVAL, "%s: not a fabricctl.sweep document", a->from);
		goto out;
	}
	if (a->hosts) {
		struct fab_hosts all;

		hosts_init(&all);
		rc = hosts_load(&all, a->hosts, &ctx->err);
		if (rc == 0 && hosts_split_role(&all, &c.hosts, &c.fabric) < 0)
			rc = fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
		hosts_fini(&all);
	} else {
		rc = hosts_from_doc(ctx, a->from, json_object_get(c.doc, "nodes"), &c.hosts);
	}
	if (rc < 0)
		goto out;
	c.r.hosts = &c.hosts;
	c.r.transport = json_string_value(json_object_get(c.doc, "transport"));
	c.r.launcher = json_string_value(json_object_get(c.doc, "launcher"));
	c.r.mode = json_string_value(json_object_get(c.doc, "mode"));
	c.r.transport = c.r.transport ? c.r.transport : "-";
	c.r.launcher = c.r.launcher ? c.r.launcher : "-";
	c.r.mode = c.r.mode ? c.r.mode : "-";
	c.r.cfg = a->cfg;
	sweep_cfg_transport(&c.r.cfg, c.r.transport);
	sweep_ref_compute(NULL, 0, &c.r.ref);
	rc = pairs_from_doc(ctx, a->from, json_object_get(c.doc, "pairs"), &c.hosts, &c);
	if (rc == 0)
		rc = from_topology(ctx, &c, a);
	if (rc < 0)
		goto out;
	c.st.hosts = &c.hosts;
	{
		struct sweep_locate_env env = { .ctx = ctx, .st = &c.st, .r = &c.r };

		rc = sweep_locate_run(&c.sl, &env);
	}
	if (rc == 0)
		rc = from_counters(ctx, &c);
	if (rc < 0)
		goto out;
	c.r.fabric.source = a->topology ? a->topology
		: json_string_value(json_object_get(json_object_get(c.doc, "topology"), "source"));
	c.r.fabric.topo = c.st.t;
	c.r.fabric.routes = c.st.routes;
	c.r.fabric.host_link = c.st.host_link;
	c.r.fabric.host_leaf = c.st.host_leaf;
	c.r.fabric.loc = &c.sl.res;
	c.r.fabric.loc_in = &c.sl.in;
	doc_run_facts(c.doc, &c.r);
	rc = diagnose_render(ctx, &c.r, a);
	goto done;
out:
	rc = fab_err_exit(&ctx->err);
done:
	c.r.hosts = NULL;
	sweep_report_fini(&c.r);
	pair_store_free(c.store);
	free(c.ab);
	sweep_locate_fini(&c.sl);
	sweep_topo_fini(&c.st);
	counter_report_fini(&c.crep);
	counter_snap_fini(&c.before);
	counter_snap_fini(&c.after);
	hosts_fini(&c.fabric);
	hosts_fini(&c.hosts);
	json_decref(c.doc);
	return rc;
}

int cmd_diagnose(struct fab_ctx *ctx, int argc, char **argv)
{
	struct sweep_args a;
	int rc = sweep_args_parse(ctx, argc, argv, "diagnose", &a);

	if (rc >= 0)
		return rc;
	return a.from ? diagnose_from(ctx, &a) : sweep_main(ctx, &a);
}
