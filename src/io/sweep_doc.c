// SPDX-License-Identifier: GPL-2.0-or-later
/* A saved sweep document read back into the sweep's report (sweep_doc.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "io/load.h"
#include "io/pair_store.h"
#include "io/sweep_doc.h"
#include "model/path.h"
#include "model/ptr_index.h"

void sweep_doc_init(struct sweep_doc *d)
{
	memset(d, 0, sizeof(*d));
	hosts_init(&d->hosts);
	hosts_init(&d->fabric);
}

void sweep_doc_fini(struct sweep_doc *d)
{
	for (size_t i = 0; i < d->n_routes; i++)
		pair_route_fini(&d->routes[i]);
	free(d->routes);
	loc_probe_obs_free(d->confirm, d->n_confirm);
	free(d->host_link);
	free(d->host_leaf);
	topo_free(d->topo);
	for (size_t i = 0; i < d->n_counters; i++) {
		free(d->counters[i].node);
		free(d->counters[i].port);
		free(d->counters[i].name);
	}
	free(d->counters);
	free(d->legs);
	for (size_t i = 0; i < d->n_legs_why; i++)
		free(d->legs_why[i]);
	free(d->legs_why);
	free(d->legs_unans);
	free(d->transport);
	free(d->launcher);
	free(d->mode);
	free(d->topo_source);
	free(d->ab);
	pair_store_free(d->store);
	hosts_fini(&d->fabric);
	hosts_fini(&d->hosts);
	memset(d, 0, sizeof(*d));
}

/*
 * A port of a host of several (model/hosts.h): @name is "HOST:NIC" of
 * the node's "host" and "nic", both valid, its "rail" a rail.  Into @h.
 */
static bool node_port_from_doc(json_t *v, const char *name, struct fab_host *h)
{
	const char *host = json_string_value(json_object_get(v, "host"));
	const char *nic = json_string_value(json_object_get(v, "nic"));
	json_t *rail = json_object_get(v, "rail");
	size_t hl = host ? strlen(host) : 0;

	if (!host || !nic || !hosts_name_valid(host) || hl >= sizeof(h->node) || !*nic ||
	    strlen(nic) >= sizeof(h->nic) || strpbrk(nic, "/:,") || strncmp(name, host, hl) != 0 ||
	    name[hl] != ':' || strcmp(name + hl + 1, nic) != 0)
		return false;
	if (json_is_integer(rail) && json_integer_value(rail) >= 0 &&
	    json_integer_value(rail) <= FAB_HOST_RAIL_MAX)
		h->rail = (int)json_integer_value(rail);
	snprintf(h->node, sizeof(h->node), "%s", host);
	snprintf(h->nic, sizeof(h->nic), "%s", nic);
	return true;
}

/* Each node's ports counted (port, n_ports) as the hosts file would. */
static void ports_count(struct fab_hosts *hs)
{
	for (size_t i = 0; i < hs->n; i++) {
		struct fab_host *h = &hs->hosts[i];

		for (size_t j = 0; j < hs->n; j++)
			if (!strcmp(hosts_node(&hs->hosts[j]), hosts_node(h))) {
				h->port += j < i;
				h->n_ports++;
			}
	}
}

/* Hosts from the document's nodes[] (name, address, rdma, rate_gbps; host, nic, rail). */
static int hosts_from_doc(const char *fname, json_t *nodes, struct fab_hosts *hs,
			  struct fab_err *err)
{
	size_t n = json_array_size(nodes), i;
	json_t *v;

	hs->hosts = calloc(n ? n : 1, sizeof(*hs->hosts));
	if (!hs->hosts)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	json_array_foreach(nodes, i, v) {
		struct fab_host *h = &hs->hosts[i];
		const char *name = json_string_value(json_object_get(v, "name"));
		const char *addr = json_string_value(json_object_get(v, "address"));
		const char *rdma = json_string_value(json_object_get(v, "rdma"));
		const char *colon;

		h->rail = -1;
		if (!name || strlen(name) >= sizeof(h->name) ||
		    !(hosts_name_valid(name) || node_port_from_doc(v, name, h)))
			return fab_err_input(err, -EINVAL, "%s: nodes[%zu].name: missing or not a host name",
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
	ports_count(hs);
	return 0;
}

/* The hosts file's end points and switches, or the document's nodes. */
static int hosts_read(struct sweep_doc *d, const char *fname, json_t *doc, const char *hosts_path,
		      struct fab_err *err)
{
	struct fab_hosts all;
	int rc;

	if (!hosts_path)
		return hosts_from_doc(fname, json_object_get(doc, "nodes"), &d->hosts, err);
	hosts_init(&all);
	rc = hosts_load(&all, hosts_path, err);
	if (rc == 0 && hosts_split_role(&all, &d->hosts, &d->fabric) < 0)
		rc = fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	hosts_fini(&all);
	return rc;
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

/* One saved pair (its hosts already resolved) as the sweep held it. */
static void pair_from_doc(json_t *v, int ia, int ib, struct sweep_pair *p)
{
	const char *reason = json_string_value(json_object_get(v, "reason"));
	json_t *pct = json_object_get(v, "pct_expected");

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
}

/* The saved pairs with their verdicts; names resolved against d->hosts. */
static int pairs_from_doc(struct sweep_doc *d, const char *fname, json_t *pairs,
			  struct sweep_report *r, struct fab_err *err)
{
	const struct fab_hosts *hs = &d->hosts;
	struct sweep_pair pair, *p = &pair;
	size_t i;
	json_t *v;
	int rc;

	d->ab = calloc(json_array_size(pairs) ? json_array_size(pairs) : 1, sizeof(*d->ab));
	if (!d->ab)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	if ((rc = pair_store_new(&d->store, json_array_size(pairs), err)) < 0)
		return rc;
	r->store = d->store;
	json_array_foreach(pairs, i, v) {
		const char *a = json_string_value(json_object_get(v, "a"));
		const char *b = json_string_value(json_object_get(v, "b"));
		int ia = a ? hosts_find(hs, a) : -1, ib = b ? hosts_find(hs, b) : -1;

		if (ia < 0 || ib < 0 || ia == ib)
			return fab_err_input(err, -EINVAL, "%s: pairs[%zu]: '%s' is not a host of the sweep",
					     fname, i, ia < 0 ? (a ? a : "(none)") : (b ? b : "(none)"));
		pair_from_doc(v, ia, ib, p);
		if ((rc = pair_store_append(d->store, p, err)) < 0)
			return rc;
		d->ab[i][0] = p->a;
		d->ab[i][1] = p->b;
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
static int topo_from_doc(const char *fname, json_t *topo, struct topo **out, struct fab_err *err)
{
	struct topo *t = topo_new();
	json_t *v;
	size_t i;

	if (!t)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	json_array_foreach(json_object_get(topo, "nodes"), i, v) {
		const char *name = json_string_value(json_object_get(v, "name"));

		if (!name || !topo_node_add(t, node_type_parse(json_string_value(json_object_get(v, "type"))),
					    name, 0)) {
			topo_free(t);
			return fab_err_input(err, -EINVAL, "%s: topology.nodes[%zu]: bad node", fname, i);
		}
	}
	json_array_foreach(json_object_get(topo, "links"), i, v) {
		struct topo_port *a = end_port(t, json_object_get(v, "a"), true);
		struct topo_port *b = end_port(t, json_object_get(v, "b"), true);

		if (!a || !b || topo_link_add(t, a, b, TOPO_SRC_PLAN) < 0) {
			topo_free(t);
			return fab_err_input(err, -EINVAL, "%s: topology.links[%zu]: bad link", fname, i);
		}
	}
	*out = t;
	return 0;
}

/*
 * One direction's saved paths as link-indexed paths (@links: the graph's
 * links indexed).  A --steer sweep marked the member its test took
 * ("traced": true): then that path alone, its whole share, as the sweep
 * itself localised the pair (sweep_topo_loc_add()); else every listed path.
 */
static int paths_from_doc(struct topo *t, const struct ptr_index *links, json_t *arr,
			  struct path **out, size_t *n_out)
{
	size_t n = json_array_size(arr), i, m = 0, traced = 0;
	struct path *ps = calloc(n ? n : 1, sizeof(*ps));
	json_t *v;

	if (!ps)
		return -ENOMEM;
	*out = ps;
	*n_out = 0;
	json_array_foreach(arr, i, v)
		traced += json_is_true(json_object_get(v, "traced"));
	json_array_foreach(arr, i, v) {
		json_t *hops = json_object_get(v, "hops"), *h;
		struct path *p = &ps[m];
		size_t k;

		if (traced && !json_is_true(json_object_get(v, "traced")))
			continue;
		p->share = traced ? 1.0 / (double)traced : json_number_value(json_object_get(v, "share"));
		p->hops = calloc(json_array_size(hops) ? json_array_size(hops) : 1, sizeof(*p->hops));
		if (!p->hops)
			return -ENOMEM;
		*n_out = ++m;
		json_array_foreach(hops, k, h) {
			const struct topo_port *e = end_port(t, json_object_get(h, "from"), false);
			size_t l = e ? ptr_index_find(links, e->link) : SIZE_MAX;

			if (l == SIZE_MAX)
				return -EINVAL;
			p->hops[k] = (struct path_hop){ .link = (uint32_t)l, .fwd = t->links[l]->a == e };
			p->n_hops = k + 1;
		}
	}
	return 0;
}

/* Each host's leaf: the node at the far end of its access link (first hop); nodes indexed once. */
static int host_leaves(struct sweep_doc *d, size_t n_hosts)
{
	const struct topo *t = d->topo;
	struct ptr_index nodes;

	if (ptr_index_init(&nodes, t->n_nodes) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_nodes; i++)
		ptr_index_set(&nodes, i, t->nodes[i]);
	ptr_index_sort(&nodes);
	for (size_t h = 0; h < n_hosts; h++) {
		const struct topo_link *l;
		size_t i;

		if (d->host_link[h] >= t->n_links)
			continue;
		l = t->links[d->host_link[h]];
		i = ptr_index_find(&nodes, (l->a->node->type == TOPO_NODE_SWITCH ? l->a : l->b)->node);
		if (i != SIZE_MAX)
			d->host_leaf[h] = (uint32_t)i;
	}
	ptr_index_fini(&nodes);
	return 0;
}

/* Routes as the sweep saved them, and each host's access link from its first hop. */
static int routes_fill(struct sweep_doc *d, const char *fname, json_t *pairs, size_t n_pairs,
		       const struct ptr_index *links, struct fab_err *err)
{
	size_t n_hosts = d->hosts.n;
	int rc;

	d->routes = calloc(n_pairs ? n_pairs : 1, sizeof(*d->routes));
	d->host_link = malloc((n_hosts ? n_hosts : 1) * sizeof(*d->host_link));
	d->host_leaf = malloc((n_hosts ? n_hosts : 1) * sizeof(*d->host_leaf));
	if (!d->routes || !d->host_link || !d->host_leaf)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	memset(d->host_link, 0xff, n_hosts * sizeof(*d->host_link));
	memset(d->host_leaf, 0xff, n_hosts * sizeof(*d->host_leaf));
	for (size_t i = 0; i < n_pairs; i++) {
		json_t *routes = json_object_get(json_array_get(pairs, i), "routes");
		struct pair_route *pr = &d->routes[i];

		pr->a = d->ab[i][0];
		pr->b = d->ab[i][1];
		d->n_routes = i + 1;
		if (!json_is_object(routes))
			return fab_err_input(err, -EINVAL, "%s: pairs[%zu] has no routes: give --topology SOURCE",
					     fname, i);
		rc = paths_from_doc(d->topo, links, json_object_get(routes, "ab"), &pr->ab, &pr->n_ab);
		if (rc == 0)
			rc = paths_from_doc(d->topo, links, json_object_get(routes, "ba"), &pr->ba, &pr->n_ba);
		if (rc == -ENOMEM)
			return fab_err_set(err, rc, "diagnose: out of memory");
		if (rc < 0)
			return fab_err_input(err, -EINVAL, "%s: pairs[%zu].routes: a hop names no link of "
					     "the topology", fname, i);
		pr->klass = pr->n_ab ? (unsigned int)pr->ab[0].n_hops : 0;
		if (pr->n_ab && pr->ab[0].n_hops)
			d->host_link[pr->a] = pr->ab[0].hops[0].link;
		if (pr->n_ba && pr->ba[0].n_hops)
			d->host_link[pr->b] = pr->ba[0].hops[0].link;
	}
	if (host_leaves(d, n_hosts) < 0)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	return 0;
}

static enum loc_verdict verdict_from_doc(json_t *dir)
{
	const char *s = json_string_value(json_object_get(dir, "status"));

	return !s ? LOC_UNKNOWN : !strcmp(s, "ok") ? LOC_OK : !strcmp(s, "slow") ? LOC_SLOW :
	       !strcmp(s, "failed") ? LOC_FAILED : LOC_UNKNOWN;
}

/*
 * localisation.confirming[] (--steer's confirming probes): each pair by
 * its hosts, each direction's verdict, its route on the saved graph.  An
 * entry that names no host of the sweep or no link of the graph is bad
 * input, as a pair's would be.
 */
static int confirm_from_doc(struct sweep_doc *d, const char *fname, json_t *arr,
			    const struct ptr_index *links, struct fab_err *err)
{
	json_t *v;
	size_t i;
	int rc;

	if (!json_is_array(arr) || !json_array_size(arr))
		return 0;
	d->confirm = calloc(json_array_size(arr), sizeof(*d->confirm));
	if (!d->confirm)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	json_array_foreach(arr, i, v) {
		struct loc_probe_obs *o = &d->confirm[d->n_confirm];
		const char *a = json_string_value(json_object_get(v, "a"));
		const char *b = json_string_value(json_object_get(v, "b"));
		int ia = a ? hosts_find(&d->hosts, a) : -1, ib = b ? hosts_find(&d->hosts, b) : -1;
		json_t *routes = json_object_get(v, "routes"), *dirs = json_object_get(v, "dirs");

		if (ia < 0 || ib < 0 || ia == ib)
			return fab_err_input(err, -EINVAL, "%s: localisation.confirming[%zu]: '%s' is not "
					     "a host of the sweep", fname, i,
					     ia < 0 ? (a ? a : "(none)") : (b ? b : "(none)"));
		*o = (struct loc_probe_obs){ .a = (unsigned int)ia, .b = (unsigned int)ib,
					     .link = UINT32_MAX };
		o->route.a = o->a;
		o->route.b = o->b;
		d->n_confirm++;
		for (int k = 0; k < 2; k++) {
			json_t *dir = json_object_get(dirs, k ? "ba" : "ab");
			json_t *pct = json_object_get(dir, "pct_expected");

			o->d.v[k] = verdict_from_doc(dir);
			o->d.pct[k] = json_is_number(pct) ? json_number_value(pct) : -1;
		}
		rc = paths_from_doc(d->topo, links, json_object_get(routes, "ab"), &o->route.ab,
				    &o->route.n_ab);
		if (rc == 0)
			rc = paths_from_doc(d->topo, links, json_object_get(routes, "ba"), &o->route.ba,
					    &o->route.n_ba);
		if (rc == -ENOMEM)
			return fab_err_set(err, rc, "diagnose: out of memory");
		if (rc < 0 || !o->route.n_ab || !o->route.n_ba)
			return fab_err_input(err, -EINVAL, "%s: localisation.confirming[%zu].routes: a "
					     "hop names no link of the topology, or a way has no path",
					     fname, i);
		o->route.klass = (unsigned int)o->route.ab[0].n_hops;
		{
			const struct topo_port *e = end_port(d->topo, json_object_get(
				json_object_get(v, "crosses"), "a"), false);
			size_t l = e ? ptr_index_find(links, e->link) : SIZE_MAX;

			o->link = l == SIZE_MAX ? UINT32_MAX : (uint32_t)l;
		}
	}
	return 0;
}

static int routes_from_doc(struct sweep_doc *d, const char *fname, json_t *pairs, size_t n_pairs,
			   json_t *confirming, struct fab_err *err)
{
	struct ptr_index links;
	int rc = 0;

	if (ptr_index_init(&links, d->topo->n_links) < 0)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	for (size_t l = 0; l < d->topo->n_links; l++)
		ptr_index_set(&links, l, d->topo->links[l]);
	ptr_index_sort(&links);
	rc = routes_fill(d, fname, pairs, n_pairs, &links, err);
	if (rc == 0)
		rc = confirm_from_doc(d, fname, confirming, &links, err);
	ptr_index_fini(&links);
	return rc;
}

/* The saved graph and routes; none (d->topo NULL) when the document has no "topology". */
static int topology_from_doc(struct sweep_doc *d, const char *fname, json_t *doc, size_t n_pairs,
			     struct fab_err *err)
{
	json_t *topo = json_object_get(doc, "topology");
	int rc;

	if (!json_is_object(topo))
		return 0;
	rc = topo_from_doc(fname, topo, &d->topo, err);
	if (rc == 0)
		rc = routes_from_doc(d, fname, json_object_get(doc, "pairs"), n_pairs,
				     json_object_get(json_object_get(doc, "localisation"), "confirming"),
				     err);
	return rc;
}

/* The sweep's counter snapshot (counters[]: node, guid, port, name, value), as named. */
static int counters_from_doc(struct sweep_doc *d, json_t *arr)
{
	json_t *v;
	size_t i;

	d->have_counters = json_is_array(arr);
	d->counters = calloc(json_array_size(arr) ? json_array_size(arr) : 1, sizeof(*d->counters));
	if (!d->counters)
		return -ENOMEM;
	json_array_foreach(arr, i, v) {
		struct sweep_doc_counter *c = &d->counters[d->n_counters];
		const char *node = json_string_value(json_object_get(v, "node"));
		const char *guid = json_string_value(json_object_get(v, "guid"));
		const char *name = json_string_value(json_object_get(v, "name"));
		json_t *port = json_object_get(v, "port");
		const char *pname = json_is_integer(port) ? NULL : json_string_value(port);

		if (!name || !json_is_integer(json_object_get(v, "value")))
			continue;	/* never a counter of any port */
		c->node = strdup(node ? node : "");
		c->port = pname ? strdup(pname) : NULL;
		c->name = strdup(name);
		if (!c->node || !c->name || (pname && !c->port)) {
			free(c->node);
			free(c->port);
			free(c->name);
			return -ENOMEM;
		}
		c->guid = guid ? strtoull(guid, NULL, 0) : 0;
		c->num = json_is_integer(port) ? (unsigned int)json_integer_value(port) : 0;
		c->value = (uint64_t)json_integer_value(json_object_get(v, "value"));
		d->n_counters++;
	}
	return 0;
}

struct topo_port *sweep_doc_counter_port(struct topo *t, const struct sweep_doc_counter *c)
{
	struct topo_node *n = topo_node_find(t, c->node, c->guid);

	return n ? topo_port_find(n, c->num, c->port) : NULL;
}

/* A string member as a new copy, "-" when absent; -ENOMEM. */
static int str_member(json_t *doc, const char *key, const char *none, char **out)
{
	const char *s = json_string_value(json_object_get(doc, key));

	*out = NULL;
	if (!s && !none)
		return 0;
	*out = strdup(s ? s : none);
	return *out ? 0 : -ENOMEM;
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

/* Transport, launcher, mode and the topology's source, copied out of @doc. */
static int doc_names(struct sweep_doc *d, json_t *doc, struct sweep_report *r,
		     struct fab_err *err)
{
	if (str_member(doc, "transport", "-", &d->transport) < 0 ||
	    str_member(doc, "launcher", "-", &d->launcher) < 0 ||
	    str_member(doc, "mode", "-", &d->mode) < 0 ||
	    str_member(json_object_get(doc, "topology"), "source", NULL, &d->topo_source) < 0)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	r->transport = d->transport;
	r->launcher = d->launcher;
	r->mode = d->mode;
	return 0;
}

int sweep_doc_load(struct sweep_doc *d, const char *path, const char *hosts_path, bool topology,
		   struct sweep_report *r, struct fab_err *err)
{
	json_t *doc = NULL;
	const char *schema;
	int rc;

	rc = json_doc_load(path, SWEEP_DOC_MAX_BYTES, &doc, err);
	if (rc < 0)
		return rc;
	schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema || strncmp(schema, "fabricctl.sweep/", 16) != 0) {
		rc = fab_err_input(err, -EINVAL, "%s: not a fabricctl.sweep document", path);
		goto out;
	}
	rc = hosts_read(d, path, doc, hosts_path, err);
	if (rc < 0)
		goto out;
	r->hosts = &d->hosts;
	r->rails = hosts_have_rails(&d->hosts);
	rc = doc_names(d, doc, r, err);
	if (rc == 0)
		rc = pairs_from_doc(d, path, json_object_get(doc, "pairs"), r, err);
	if (rc == 0)
		rc = sweep_doc_legs(d, path, json_object_get(doc, "pairs"), r, err);
	if (rc == 0)
		rc = sweep_doc_legs_unmeasured(d, path, json_object_get(doc, "legs"), r, err);
	if (rc == 0 && topology)
		rc = topology_from_doc(d, path, doc, r->n_pairs, err);
	if (rc == 0 && counters_from_doc(d, json_object_get(doc, "counters")) < 0)
		rc = fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	if (rc == 0)
		doc_run_facts(doc, r);
out:
	json_decref(doc);
	return rc;
}
