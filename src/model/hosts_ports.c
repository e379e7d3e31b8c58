// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hosts of several fabric ports (model/hosts.h): each node's lines
 * counted, its ports' rails and names given, the labels a node has once
 * checked alike on every line; the nodes apart from their ports; which
 * end points a sweep pairs.  Pure, no I/O.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/hosts.h"
#include "model/schedule.h"
#include "util/str.h"

/* Labels that belong to the node, not to one of its ports. */
static const char *const node_keys[] = { "new", "role", "rack", "lldp_name", "lldp_socket", "dial" };

struct by_node {
	const struct fab_hosts *hs;
};

static int by_node_cmp(const void *x, const void *y, void *arg)
{
	const struct fab_hosts *hs = ((const struct by_node *)arg)->hs;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = strcmp(hosts_node(&hs->hosts[a]), hosts_node(&hs->hosts[b]));

	return c ? c : (a > b) - (a < b);
}

/* Label @key's value on @h as the node's lines compare it ("yes"/"no" for new). */
static const char *node_value(const struct fab_host *h, const char *key)
{
	if (strcmp(key, "new") == 0)
		return hosts_label(h, key) ? (h->is_new ? "yes" : "no") : NULL;
	return hosts_label(h, key);
}

/* Give @h label @key = @value (inherited from another line of its node). */
static int label_inherit(struct fab_host *h, const struct fab_host *from, const char *key,
			 const char *fname, struct fab_err *err)
{
	const char *v = hosts_label(from, key);

	if (h->n_labels == FAB_HOST_LABELS_MAX)
		return fab_err_input(err, -E2BIG, "%s:%u: %s: more than %d labels with those of line %u",
				     fname, h->line, key, FAB_HOST_LABELS_MAX, from->line);
	str_fmt(h->labels[h->n_labels].key, sizeof(h->labels[0].key), "%s", key);
	str_fmt(h->labels[h->n_labels].value, sizeof(h->labels[0].value), "%s", v);
	h->n_labels++;
	if (strcmp(key, "new") == 0)
		h->is_new = from->is_new;
	else if (strcmp(key, "rack") == 0)
		memcpy(h->rack, from->rack, sizeof(h->rack));
	return 0;
}

/* The node's labels alike on its @k lines @idx: given once, they hold for all. */
static int node_labels(struct fab_hosts *hs, const size_t *idx, size_t k, const char *fname,
		       struct fab_err *err)
{
	for (size_t key = 0; key < sizeof(node_keys) / sizeof(node_keys[0]); key++) {
		const struct fab_host *src = NULL;

		for (size_t i = 0; i < k && !src; i++)
			if (node_value(&hs->hosts[idx[i]], node_keys[key]))
				src = &hs->hosts[idx[i]];
		for (size_t i = 0; src && i < k; i++) {
			struct fab_host *h = &hs->hosts[idx[i]];
			const char *v = node_value(h, node_keys[key]);
			int rc;

			if (v && strcmp(v, node_value(src, node_keys[key])) != 0)
				return fab_err_input(err, -EINVAL, "%s:%u: %s: host '%s' has another %s on line %u: a host's lines share it",
						     fname, h->line, node_keys[key], h->node, node_keys[key],
						     src->line);
			if (!v && (rc = label_inherit(h, src, node_keys[key], fname, err)) < 0)
				return rc;
		}
	}
	return 0;
}

/* A node of @k > 1 lines: its ports' rails (distinct) and names NAME:IFNAME. */
static int node_ports(struct fab_hosts *hs, const size_t *idx, size_t k, const char *fname,
		      struct fab_err *err)
{
	for (size_t i = 0; i < k; i++) {
		struct fab_host *h = &hs->hosts[idx[i]];

		if (h->rail < 0)
			h->rail = (int)i;
		if (strlen(h->node) + 1 + strlen(h->nic) >= sizeof(h->name))
			return fab_err_input(err, -ENAMETOOLONG, "%s:%u: ifname=%s: '%s:%s' is longer than %d characters",
					     fname, h->line, h->nic, h->node, h->nic, FAB_HOST_NAME_MAX - 1);
		str_fmt(h->name, sizeof(h->name), "%s:%s", h->node, h->nic);
		for (size_t j = 0; j < i; j++)
			if (hs->hosts[idx[j]].rail == h->rail)
				return fab_err_input(err, -EEXIST, "%s:%u: rail: host '%s' has rail %d on line %u too (ifname %s): one port a rail",
						     fname, h->line, h->node, h->rail,
						     hs->hosts[idx[j]].line, hs->hosts[idx[j]].nic);
	}
	return 0;
}

int hosts_ports_finish(struct fab_hosts *hs, const char *fname, struct fab_err *err)
{
	size_t *idx = calloc(hs->n ? hs->n : 1, sizeof(*idx));
	int rc = 0;

	if (!idx)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", fname);
	for (size_t i = 0; i < hs->n; i++)
		idx[i] = i;
	qsort_r(idx, hs->n, sizeof(*idx), by_node_cmp, &(struct by_node){ hs });
	for (size_t i = 0, k; rc == 0 && i < hs->n; i += k) {
		const char *node = hosts_node(&hs->hosts[idx[i]]);

		for (k = 1; i + k < hs->n && !strcmp(hosts_node(&hs->hosts[idx[i + k]]), node); k++)
			;
		for (size_t j = 0; j < k; j++) {
			hs->hosts[idx[i + j]].port = (unsigned int)j;
			hs->hosts[idx[i + j]].n_ports = (unsigned int)k;
		}
		if (k > 1 && (rc = node_labels(hs, idx + i, k, fname, err)) == 0)
			rc = node_ports(hs, idx + i, k, fname, err);
	}
	free(idx);
	return rc;
}

bool hosts_have_rails(const struct fab_hosts *hs)
{
	for (size_t i = 0; i < hs->n; i++)
		if (hs->hosts[i].n_ports > 1 || hs->hosts[i].rail >= 0)
			return true;
	return false;
}

int hosts_nodes(const struct fab_hosts *all, struct fab_hosts *nodes)
{
	size_t n = 0;

	nodes->hosts = calloc(all->n ? all->n : 1, sizeof(*nodes->hosts));
	if (!nodes->hosts)
		return -ENOMEM;
	for (size_t i = 0; i < all->n; i++) {
		struct fab_host *h = &nodes->hosts[n];

		if (all->hosts[i].port)
			continue;
		*h = all->hosts[i];
		str_fmt(h->name, sizeof(h->name), "%s", hosts_node(&all->hosts[i]));
		n++;
	}
	nodes->n = n;
	return 0;
}

bool hosts_ports_pair(const struct fab_host *a, const struct fab_host *b, bool cross_rail)
{
	if (strcmp(hosts_node(a), hosts_node(b)) == 0)
		return false;
	return cross_rail || a->rail < 0 || b->rail < 0 || a->rail == b->rail;
}

size_t hosts_rail_pairs_count(const struct fab_hosts *hs, size_t *n_nodes)
{
	size_t on_rail[FAB_HOST_RAIL_MAX + 1] = { 0 };	/* 8 KiB */
	size_t none = 0, known = 0, pairs = 0;

	*n_nodes = 0;
	for (size_t i = 0; i < hs->n; i++) {
		const struct fab_host *h = &hs->hosts[i];

		*n_nodes += h->port == 0;
		if (h->rail < 0 || h->rail > FAB_HOST_RAIL_MAX) {
			none++;
			continue;
		}
		pairs += on_rail[h->rail]++;	/* one port a rail a node: all others */
		known++;
	}
	/* A port of no known rail is a node of one line: it meets every other port. */
	return pairs + none * known + none * (none ? none - 1 : 0) / 2;
}

unsigned int *hosts_node_ids(const struct fab_hosts *hs, size_t *n_nodes)
{
	unsigned int *id = calloc(hs->n ? hs->n : 1, sizeof(*id));
	size_t n = 0;

	for (size_t i = 0; id && i < hs->n; i++) {
		int first = hosts_find_node(hs, hosts_node(&hs->hosts[i]));

		id[i] = (size_t)first == i ? (unsigned int)n++ : id[first];
	}
	*n_nodes = n;
	return id;
}

/*
 * The round the circle method (model/schedule.c) gives node pair x-y of
 * @n nodes: x + y = 2r modulo m - 1 (m: n made even), the last node
 * meeting node r.  Pairs of one value never share a node.
 */
static size_t circle_key(size_t n, size_t x, size_t y)
{
	size_t m = n % 2 ? n + 1 : n;

	if (x == m - 1 || y == m - 1)
		return x == m - 1 ? y : x;
	return (x + y) * (m / 2) % (m - 1);
}

struct rail_pair {
	struct sched_pair p;
	size_t key, rail;
};

static int rail_pair_cmp(const void *x, const void *y)
{
	const struct rail_pair *a = x, *b = y;

	if (a->key != b->key)
		return (a->key > b->key) - (a->key < b->key);
	return (a->rail > b->rail) - (a->rail < b->rail);
}

static int pairs_grow(struct rail_pair **rp, size_t n, size_t *cap)
{
	struct rail_pair *t;

	if (n < *cap)
		return 0;
	*cap = *cap ? 2 * *cap : 64;
	t = realloc(*rp, *cap * sizeof(**rp));
	if (!t)
		return -ENOMEM;
	*rp = t;
	return 0;
}

int hosts_port_pairs(const struct fab_hosts *hs, bool cross_rail, bool new_x_rest,
		     struct sched_pair **pairs, size_t *n_pairs)
{
	size_t n = 0, cap = 0, n_nodes;
	unsigned int *node = hosts_node_ids(hs, &n_nodes);
	struct rail_pair *rp = NULL;
	int rc = node ? 0 : -ENOMEM;

	for (size_t a = 0; rc == 0 && a < hs->n; a++)
		for (size_t b = a + 1; rc == 0 && b < hs->n; b++) {
			const struct fab_host *x = &hs->hosts[a], *y = &hs->hosts[b];

			if ((new_x_rest && x->is_new == y->is_new) ||
			    !hosts_ports_pair(x, y, cross_rail))
				continue;
			if ((rc = pairs_grow(&rp, n, &cap)) == 0)
				rp[n++] = (struct rail_pair){ { (unsigned int)a, (unsigned int)b },
							      circle_key(n_nodes, node[a], node[b]),
							      (size_t)(x->rail + 1) };
		}
	free(node);
	if (rc == 0 && n)
		qsort(rp, n, sizeof(*rp), rail_pair_cmp);
	*pairs = rc == 0 ? calloc(n ? n : 1, sizeof(**pairs)) : NULL;
	for (size_t i = 0; *pairs && i < n; i++)
		(*pairs)[i] = rp[i].p;
	free(rp);
	if (!*pairs)
		return -ENOMEM;
	*n_pairs = n;
	return 0;
}
