// SPDX-License-Identifier: GPL-2.0-or-later
/* The fabric graph: nodes, ports, links, problems.  See topo.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/counter_rules.h"
#include "model/node_addr.h"
#include "model/topo.h"
#include "util/array.h"
#include "util/str.h"

static const char *const counter_names[TOPO_CNT_MAX] = {
	[TOPO_CNT_SYMBOL_ERR] = "symbol_errors",
	[TOPO_CNT_LINK_RECOVERS] = "link_error_recovery",
	[TOPO_CNT_LINK_DOWNED] = "link_downed",
	[TOPO_CNT_RCV_ERR] = "port_rcv_errors",
	[TOPO_CNT_RCV_REMOTE_PHYS_ERR] = "port_rcv_remote_physical_errors",
	[TOPO_CNT_RCV_SWITCH_RELAY_ERR] = "port_rcv_switch_relay_errors",
	[TOPO_CNT_XMT_DISCARDS] = "port_xmit_discards",
	[TOPO_CNT_XMT_CONSTRAINT_ERR] = "port_xmit_constraint_errors",
	[TOPO_CNT_RCV_CONSTRAINT_ERR] = "port_rcv_constraint_errors",
	[TOPO_CNT_LINK_INTEGRITY_ERR] = "local_link_integrity_errors",
	[TOPO_CNT_EXCESS_BUF_OVERRUN] = "excessive_buffer_overrun_errors",
	[TOPO_CNT_VL15_DROPPED] = "vl15_dropped",
	[TOPO_CNT_XMT_WAIT] = "port_xmit_wait",
	[TOPO_CNT_XMT_DATA] = "port_xmit_data",
	[TOPO_CNT_RCV_DATA] = "port_rcv_data",
	[TOPO_CNT_XMT_PKTS] = "port_xmit_packets",
	[TOPO_CNT_RCV_PKTS] = "port_rcv_packets",
};

const char *topo_counter_name(enum topo_counter c)
{
	return (unsigned int)c < TOPO_CNT_MAX ? counter_names[c] : NULL;
}

/*
 * `fabricctl status` shows the kernel's sysfs names; where one differs
 * from ours the counter rules record it (symbol_error, VL15_dropped).
 * Both spellings are accepted, in any case.
 */
int topo_counter_parse(const char *name)
{
	size_t n;
	const struct counter_rule *r = counter_rules_default(&n);

	for (size_t i = 0; i < n; i++)
		if (r[i].sysfs && r[i].alias && strcasecmp(r[i].sysfs, name) == 0) {
			name = r[i].alias;
			break;
		}
	for (int i = 0; i < TOPO_CNT_MAX; i++)
		if (strcasecmp(counter_names[i], name) == 0)
			return i;
	return -1;
}

char *topo_counter_list(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < TOPO_CNT_MAX && off < len; i++)
		off += (size_t)str_fmt(buf + off, len - off, "%s%s", i ? ", " : "", counter_names[i]);
	return buf;
}

const char *topo_problem_kind_name(enum topo_problem_kind kind)
{
	static const char *const names[TOPO_PROB_KIND_MAX] = {
		[TOPO_PROB_MISSING] = "missing",
		[TOPO_PROB_UNEXPECTED] = "unexpected",
		[TOPO_PROB_MISWIRED] = "miswired",
		[TOPO_PROB_DEGRADED] = "degraded",
		[TOPO_PROB_DOWN] = "down",
		[TOPO_PROB_ERRORS] = "errors",
		[TOPO_PROB_MTU_MISMATCH] = "mtu-mismatch",
		[TOPO_PROB_RAIL] = "rail",
		[TOPO_PROB_UNREACHABLE] = "unreachable",
		[TOPO_PROB_CREDIT_LOOP] = "credit-loop",
		[TOPO_PROB_BALANCE] = "route-balance",
		[TOPO_PROB_DUP_GUID] = "duplicate-guid",
		[TOPO_PROB_DUP_LID] = "duplicate-lid",
		[TOPO_PROB_LID] = "lid",
		[TOPO_PROB_SM] = "sm",
	};

	return (unsigned int)kind < TOPO_PROB_KIND_MAX ? names[kind] : "unknown";
}

const char *topo_node_type_name(enum topo_node_type type)
{
	switch (type) {
	case TOPO_NODE_SWITCH: return "switch";
	case TOPO_NODE_CA: return "ca";
	case TOPO_NODE_HOST: return "host";
	case TOPO_NODE_ROUTER: return "router";
	}
	return "unknown";
}

int topo_node_type_parse(const char *name)
{
	for (int t = TOPO_NODE_SWITCH; t <= TOPO_NODE_ROUTER; t++)
		if (strcmp(name, topo_node_type_name((enum topo_node_type)t)) == 0)
			return t;
	return -1;
}

const char *topo_port_state_name(enum topo_port_state s)
{
	switch (s) {
	case TOPO_PORT_DOWN: return "down";
	case TOPO_PORT_INIT: return "init";
	case TOPO_PORT_ARMED: return "armed";
	case TOPO_PORT_ACTIVE: return "active";
	case TOPO_PORT_UNKNOWN: break;
	}
	return "unknown";
}

const char *topo_sm_state_name(enum topo_sm_state s)
{
	switch (s) {
	case TOPO_SM_NOT_ACTIVE: return "not-active";
	case TOPO_SM_DISCOVERING: return "discovering";
	case TOPO_SM_STANDBY: return "standby";
	case TOPO_SM_MASTER: return "master";
	}
	return "unknown";
}

const char *topo_phys_state_name(enum topo_phys_state s)
{
	switch (s) {
	case TOPO_PHYS_SLEEP: return "sleep";
	case TOPO_PHYS_POLLING: return "polling";
	case TOPO_PHYS_DISABLED: return "disabled";
	case TOPO_PHYS_TRAINING: return "training";
	case TOPO_PHYS_LINKUP: return "linkup";
	case TOPO_PHYS_ERROR_RECOVERY: return "error-recovery";
	case TOPO_PHYS_TEST: return "test";
	case TOPO_PHYS_UNKNOWN: break;
	}
	return "unknown";
}

const char *topo_link_status_name(enum topo_link_status s)
{
	switch (s) {
	case TOPO_LINK_OK: return "ok";
	case TOPO_LINK_MTU: return "mtu-mismatch";
	case TOPO_LINK_DEGRADED: return "degraded";
	case TOPO_LINK_DOWN: return "down";
	case TOPO_LINK_ERRORS: return "errors";
	case TOPO_LINK_UNEXPECTED: return "unexpected";
	case TOPO_LINK_RAIL: return "rail";
	case TOPO_LINK_MISWIRED: return "miswired";
	}
	return "unknown";
}

static const struct {
	const char *name;
	unsigned int lane_mbps;
} speeds[] = {
	{ "SDR", 2500 }, { "DDR", 5000 }, { "QDR", 10000 }, { "FDR10", 10312 },
	{ "FDR", 14062 }, { "EDR", 25781 }, { "HDR", 53125 }, { "NDR", 106250 },
	{ "XDR", 212500 },
};

const char *topo_speed_name(unsigned int lane_mbps)
{
	for (size_t i = 0; i < ARRAY_SIZE(speeds); i++)
		if (speeds[i].lane_mbps == lane_mbps)
			return speeds[i].name;
	return NULL;
}

unsigned int topo_speed_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(speeds); i++)
		if (strcmp(speeds[i].name, name) == 0)
			return speeds[i].lane_mbps;
	return 0;
}

/*
 * @src into @dst of @len bytes, cut to fit, as str_fmt(dst, len, "%s", src)
 * would; without the formatter, which cost more than the rest of adding a
 * port (8307 of them on a 1296-HCA subnet).  NULL copies as "".
 */
static void copy_text(char *dst, size_t len, const char *src)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

struct topo *topo_new(void)
{
	return calloc(1, sizeof(struct topo));
}

/* @p lies in @n's reserved block (compared as addresses: the block is one object, @p maybe not). */
static bool port_reserved(const struct topo_node *n, const struct topo_port *p)
{
	uintptr_t a = (uintptr_t)p, lo = (uintptr_t)n->reserved;

	return n->reserved && a >= lo && a < lo + n->n_reserved * sizeof(*n->reserved);
}

static void node_free(struct topo_node *n)
{
	for (size_t i = 0; i < n->n_ports; i++)
		if (!port_reserved(n, n->ports[i]))
			free(n->ports[i]);
	free(n->ports);
	free(n->reserved);
	free(n->lft);
	free(n->addrs);
	free(n);
}

void topo_free(struct topo *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n_nodes; i++)
		node_free(t->nodes[i]);
	free(t->nodes);
	for (size_t i = 0; i < t->n_links; i++)
		free(t->links[i]);
	free(t->links);
	free(t->problems);
	free(t->sms);
	free(t->unwalked);
	if (t->ib_checks_free)
		t->ib_checks_free(t->ib_checks);
	if (t->optics_free)
		t->optics_free(t->optics);
	free(t->ix_name);
	free(t->ix_guid);
	free(t);
}

/* Grow an array of @size-byte elements to hold one more; 0 or -ENOMEM. */
static int grow(void **arr, size_t n, size_t size)
{
	void *p;

	/* Capacity: 8, then doubling; grow only when full. */
	if (n != 0 && (n < 8 || (n & (n - 1))))
		return 0;
	p = realloc(*arr, (n ? n * 2 : 8) * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	return 0;
}

/*
 * The node index: two open-addressing tables (linear probing) of node
 * pointers, one keyed by name, one by GUID, at most half full.  A probe
 * chain keeps the order of insertion (removal shifts the rest back), so
 * of nodes with one key the first added is found first.
 */
static size_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (size_t)(h ^ (h >> 29));
}

static size_t hash_guid(uint64_t g)
{
	g ^= g >> 33;
	g *= 0xff51afd7ed558ccdull;
	g ^= g >> 33;
	return (size_t)g;
}

static void ix_put(struct topo_node **tab, size_t cap, size_t h, struct topo_node *n)
{
	size_t i = h & (cap - 1);

	while (tab[i])
		i = (i + 1) & (cap - 1);
	tab[i] = n;
}

static void ix_insert(struct topo *t, struct topo_node *n)
{
	ix_put(t->ix_name, t->ix_cap, hash_name(n->name), n);
	if (n->guid)
		ix_put(t->ix_guid, t->ix_cap, hash_guid(n->guid), n);
}

/* Take @n out of @tab, where it was put under hash @h; the chain behind it shifts back. */
static void ix_remove(struct topo_node **tab, size_t cap, size_t h, const struct topo_node *n,
		      bool by_name)
{
	size_t m = cap - 1, i = h & m, j;

	while (tab[i] && tab[i] != n)
		i = (i + 1) & m;
	if (!tab[i])
		return;
	tab[i] = NULL;
	for (j = (i + 1) & m; tab[j]; j = (j + 1) & m) {
		size_t home = (by_name ? hash_name(tab[j]->name) : hash_guid(tab[j]->guid)) & m;

		/* tab[j] moves into the hole unless its home lies cyclically in (i, j]. */
		if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
			tab[i] = tab[j];
			tab[j] = NULL;
			i = j;
		}
	}
}

/* Room for @n nodes at most half full: the tables doubled and refilled in node order. */
static int ix_reserve(struct topo *t, size_t n)
{
	struct topo_node **nt, **gt;
	size_t cap = t->ix_cap ? t->ix_cap : 64;

	if (n * 2 <= t->ix_cap)
		return 0;
	while (n * 2 > cap)
		cap *= 2;
	nt = calloc(cap, sizeof(*nt));
	gt = calloc(cap, sizeof(*gt));
	if (!nt || !gt) {
		free(nt);
		free(gt);
		return -ENOMEM;
	}
	free(t->ix_name);
	free(t->ix_guid);
	t->ix_name = nt;
	t->ix_guid = gt;
	t->ix_cap = cap;
	for (size_t i = 0; i < t->n_nodes; i++)
		ix_insert(t, t->nodes[i]);
	return 0;
}

struct topo_node *topo_node_add(struct topo *t, enum topo_node_type type,
				const char *name, uint64_t guid)
{
	struct topo_node *n;

	if (grow((void **)&t->nodes, t->n_nodes, sizeof(*t->nodes)) < 0 ||
	    ix_reserve(t, t->n_nodes + 1) < 0)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->type = type;
	n->guid = guid;
	copy_text(n->name, sizeof(n->name), name);
	t->nodes[t->n_nodes++] = n;
	ix_insert(t, n);
	return n;
}

int topo_node_addr_add(struct topo_node *n, const char *addr)
{
	char norm[TOPO_ADDR_LEN], *slot;

	if (node_addr_norm(addr, norm) < 0)
		return -EINVAL;
	for (size_t i = 0; i < n->n_addrs; i++)
		if (strcmp(n->addrs[i], norm) == 0)
			return 0;
	slot = array_add((void **)&n->addrs, &n->n_addrs, sizeof(*n->addrs));
	if (!slot)
		return -ENOMEM;
	memcpy(slot, norm, sizeof(norm));
	return 0;
}

int topo_node_set_name(struct topo *t, struct topo_node *n, const char *name)
{
	ix_remove(t->ix_name, t->ix_cap, hash_name(n->name), n, true);
	copy_text(n->name, sizeof(n->name), name);
	ix_put(t->ix_name, t->ix_cap, hash_name(n->name), n);
	return 0;
}

int topo_node_set_guid(struct topo *t, struct topo_node *n, uint64_t guid)
{
	if (n->guid)
		ix_remove(t->ix_guid, t->ix_cap, hash_guid(n->guid), n, false);
	n->guid = guid;
	if (guid)
		ix_put(t->ix_guid, t->ix_cap, hash_guid(guid), n);
	return 0;
}

struct topo_node *topo_node_by_guid(const struct topo *t, uint64_t guid)
{
	size_t m = t->ix_cap - 1;

	if (!guid || !t->ix_cap)
		return NULL;
	for (size_t i = hash_guid(guid) & m; t->ix_guid[i]; i = (i + 1) & m)
		if (t->ix_guid[i]->guid == guid)
			return t->ix_guid[i];
	return NULL;
}

struct topo_node *topo_node_by_name(const struct topo *t, const char *name)
{
	size_t m = t->ix_cap - 1;

	if (!t->ix_cap)
		return NULL;
	for (size_t i = hash_name(name) & m; t->ix_name[i]; i = (i + 1) & m)
		if (strcmp(t->ix_name[i]->name, name) == 0)
			return t->ix_name[i];
	return NULL;
}

struct topo_node *topo_node_find(const struct topo *t, const char *name, uint64_t guid)
{
	if (guid)
		return topo_node_by_guid(t, guid);
	return name ? topo_node_by_name(t, name) : NULL;
}

struct topo_port *topo_port_find(const struct topo_node *n, unsigned int num, const char *name)
{
	bool by_name = name && *name;

	/*
	 * IB ports are added in order, from 0 (switches) or 1 (CAs): port
	 * num sits at [num] or [num - 1], a first guess that saves a scan.
	 */
	if (!by_name)
		for (size_t i = num ? num - 1 : 0; i <= num && i < n->n_ports; i++)
			if (!*n->ports[i]->name && n->ports[i]->num == num)
				return n->ports[i];
	for (size_t i = 0; i < n->n_ports; i++) {
		struct topo_port *p = n->ports[i];

		if (by_name ? strcmp(p->name, name) == 0 : (!*p->name && p->num == num))
			return p;
	}
	return NULL;
}

struct topo_node *topo_node_match(const struct topo *t, const struct topo_node *n)
{
	struct topo_node *m;

	if (n->guid) {
		m = topo_node_by_guid(t, n->guid);
		if (m)
			return m;
	}
	m = topo_node_by_name(t, n->name);
	if (m && m->guid && n->guid)
		return NULL;	/* same name, different GUIDs: another node */
	return m;
}

struct topo_port *topo_port_match(const struct topo *t, const struct topo_port *p)
{
	struct topo_node *n = topo_node_match(t, p->node);

	return n ? topo_port_find(n, p->num, p->name) : NULL;
}

int topo_node_reserve_ports(struct topo_node *n, size_t count)
{
	if (n->reserved)
		return -EEXIST;
	if (!count)
		return 0;
	n->reserved = calloc(count, sizeof(*n->reserved));
	if (!n->reserved)
		return -ENOMEM;
	n->n_reserved = count;
	return 0;
}

struct topo_port *topo_port_get(struct topo_node *n, unsigned int num, const char *name)
{
	struct topo_port *p = topo_port_find(n, num, name);

	return p ? p : topo_port_add(n, num, name);
}

struct topo_port *topo_port_add(struct topo_node *n, unsigned int num, const char *name)
{
	struct topo_port *p;

	if (grow((void **)&n->ports, n->n_ports, sizeof(*n->ports)) < 0)
		return NULL;
	if (n->n_reserved_used < n->n_reserved)
		p = &n->reserved[n->n_reserved_used++];
	else
		p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->node = n;
	p->num = num;
	copy_text(p->name, sizeof(p->name), name);
	n->ports[n->n_ports++] = p;
	return p;
}

int topo_link_add(struct topo *t, struct topo_port *a, struct topo_port *b, unsigned int src)
{
	struct topo_link *l;

	if (a == b)
		return -EINVAL;
	if (a->peer == b && b->peer == a) {
		a->link->src |= src;
		return 0;
	}
	if (a->peer || b->peer)
		return -EEXIST;
	if (grow((void **)&t->links, t->n_links, sizeof(*t->links)) < 0)
		return -ENOMEM;
	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->a = a;
	l->b = b;
	l->src = src;
	a->peer = b;
	b->peer = a;
	a->link = b->link = l;
	t->links[t->n_links++] = l;
	return 0;
}

int topo_problem_add(struct topo *t, const struct topo_problem *p)
{
	if (grow((void **)&t->problems, t->n_problems, sizeof(*t->problems)) < 0)
		return -ENOMEM;
	t->problems[t->n_problems++] = *p;
	return 0;
}

void topo_end_from_port(struct topo_end *e, const struct topo_port *port)
{
	memset(e, 0, sizeof(*e));
	if (!port)
		return;
	copy_text(e->node, sizeof(e->node), port->node->name);
	e->guid = port->node->guid;
	e->port = port->num;
	copy_text(e->port_name, sizeof(e->port_name), port->name);
}

/* ---- sorting ---- */

static int node_cmp(const struct topo_node *a, const struct topo_node *b)
{
	int c;

	if (a == b)
		return 0;	/* two ports of one node: the common case sorting links */
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	c = strcmp(a->name, b->name);
	if (c)
		return c;
	return a->guid < b->guid ? -1 : a->guid > b->guid;
}

static int port_cmp(const struct topo_port *a, const struct topo_port *b)
{
	int c = node_cmp(a->node, b->node);

	if (c)
		return c;
	if (a->num != b->num)
		return a->num < b->num ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int node_pcmp(const void *x, const void *y)
{
	return node_cmp(*(struct topo_node *const *)x, *(struct topo_node *const *)y);
}

static int port_pcmp(const void *x, const void *y)
{
	return port_cmp(*(struct topo_port *const *)x, *(struct topo_port *const *)y);
}

static int link_pcmp(const void *x, const void *y)
{
	const struct topo_link *a = *(struct topo_link *const *)x;
	const struct topo_link *b = *(struct topo_link *const *)y;
	int c = port_cmp(a->a, b->a);

	return c ? c : port_cmp(a->b, b->b);
}

static int end_cmp(const struct topo_end *a, const struct topo_end *b)
{
	int c = strcmp(a->node, b->node);

	if (c)
		return c;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return strcmp(a->port_name, b->port_name);
}

static int problem_cmp(const void *x, const void *y)
{
	const struct topo_problem *a = x, *b = y;
	int c;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	c = end_cmp(&a->a, &b->a);
	if (c)
		return c;
	c = end_cmp(&a->b, &b->b);
	return c ? c : strcmp(a->detail, b->detail);
}

void topo_sort(struct topo *t)
{
	if (t->n_nodes)
		qsort(t->nodes, t->n_nodes, sizeof(*t->nodes), node_pcmp);
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct topo_node *n = t->nodes[i];
		size_t j = 1;

		/* A walk adds a node's ports in order: most need no sort. */
		while (j < n->n_ports && port_cmp(n->ports[j - 1], n->ports[j]) <= 0)
			j++;
		if (j < n->n_ports)
			qsort(n->ports, n->n_ports, sizeof(*n->ports), port_pcmp);
	}
	for (size_t i = 0; i < t->n_links; i++) {
		struct topo_link *l = t->links[i];

		if (port_cmp(l->a, l->b) > 0) {
			struct topo_port *tmp = l->a;

			l->a = l->b;
			l->b = tmp;
		}
	}
	if (t->n_links)
		qsort(t->links, t->n_links, sizeof(*t->links), link_pcmp);
	if (t->n_problems)
		qsort(t->problems, t->n_problems, sizeof(*t->problems), problem_cmp);
}

/* ---- health ---- */

void topo_thresholds_from(struct topo_thresholds *th, const struct counter_policy *pol)
{
	_Static_assert(COUNTER_OFF == UINT64_MAX, "COUNTER_OFF is topo_thresholds' 'not checked'");
	for (int i = 0; i < TOPO_CNT_MAX; i++) {
		const struct counter_rule *r = counter_policy_entry(pol, counter_names[i]);

		th->max[i] = r ? r->limit : COUNTER_OFF;
	}
}

void topo_thresholds_default(struct topo_thresholds *th)
{
	topo_thresholds_from(th, NULL);
}

int topo_thresholds_parse(struct topo_thresholds *th, const char *spec, char *bad, size_t bad_len)
{
	char *copy = strdup(spec), *save = NULL, *item;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '='), *end;
		unsigned long long v;
		int c;

		if (!eq) {
			rc = -EINVAL;
			break;
		}
		*eq = '\0';
		c = topo_counter_parse(item);
		*eq = '=';
		if (c < 0 || !eq[1]) {
			rc = -EINVAL;
			break;
		}
		if (strcmp(eq + 1, "off") == 0) {
			th->max[c] = UINT64_MAX;
			continue;
		}
		errno = 0;
		v = strtoull(eq + 1, &end, 10);
		if (errno || *end || eq[1] == '-') {
			rc = -EINVAL;
			break;
		}
		th->max[c] = v;
	}
	if (rc < 0 && bad)
		str_fmt(bad, bad_len, "%s", item);
	free(copy);
	return rc;
}

static bool port_down(const struct topo_port *p)
{
	if (!(p->facts & TOPO_F_STATE))
		return false;
	return p->state == TOPO_PORT_DOWN || p->phys_state == TOPO_PHYS_POLLING ||
	       p->phys_state == TOPO_PHYS_DISABLED || p->phys_state == TOPO_PHYS_SLEEP;
}

static int add_port_problem(struct topo *t, enum topo_problem_kind kind,
			    const struct topo_port *p, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int add_port_problem(struct topo *t, enum topo_problem_kind kind,
			    const struct topo_port *p, const char *fmt, ...)
{
	struct topo_problem pr = { .kind = kind, .has_a = true };
	va_list ap;

	topo_end_from_port(&pr.a, p);
	if (p->peer) {
		pr.has_b = true;
		topo_end_from_port(&pr.b, p->peer);
	}
	va_start(ap, fmt);
	str_vfmt(pr.detail, sizeof(pr.detail), fmt, ap);
	va_end(ap);
	return topo_problem_add(t, &pr);
}

static void worsen(struct topo_link *l, enum topo_link_status s)
{
	if (l && s > l->status)
		l->status = s;
}

static bool port_degraded(const struct topo_port *p)
{
	return ((p->facts & TOPO_F_WIDTH) && p->width_x && p->width_max_x &&
		p->width_x < p->width_max_x) ||
	       ((p->facts & TOPO_F_SPEED) && p->lane_mbps && p->lane_max_mbps &&
		p->lane_mbps < p->lane_max_mbps);
}

/* Degraded: below what the port itself enables. */
static int check_degraded(struct topo *t, struct topo_port *p)
{
	char w[48] = "", s[64] = "";

	if ((p->facts & TOPO_F_WIDTH) && p->width_x && p->width_max_x &&
	    p->width_x < p->width_max_x)
		str_fmt(w, sizeof(w), "width %ux, enabled %ux", p->width_x, p->width_max_x);
	if ((p->facts & TOPO_F_SPEED) && p->lane_mbps && p->lane_max_mbps &&
	    p->lane_mbps < p->lane_max_mbps) {
		const char *a = topo_speed_name(p->lane_mbps), *m = topo_speed_name(p->lane_max_mbps);

		str_fmt(s, sizeof(s), "speed %s, enabled %s", a ? a : "?", m ? m : "?");
	}
	if (!*w && !*s)
		return 0;
	/* One report per link: when both ends are degraded, the first end speaks. */
	if (p->link && p->link->a != p && p->peer && port_degraded(p->peer))
		return 0;
	worsen(p->link, TOPO_LINK_DEGRADED);
	return add_port_problem(t, TOPO_PROB_DEGRADED, p, "%s%s%s", w, *w && *s ? ", " : "", s);
}

static int check_counters(struct topo *t, struct topo_port *p, const struct topo_thresholds *th)
{
	if (!(p->facts & TOPO_F_COUNTERS))
		return 0;
	for (int c = 0; c < TOPO_CNT_MAX; c++) {
		if (th->max[c] == UINT64_MAX || p->counters[c] <= th->max[c])
			continue;
		worsen(p->link, TOPO_LINK_ERRORS);
		if (add_port_problem(t, TOPO_PROB_ERRORS, p, "%s %" PRIu64 " > %" PRIu64,
				     counter_names[c], p->counters[c], th->max[c]) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Tiers.  A link narrower or slower than a strict majority of the links
 * of its tier (the same pair of node types and levels: ca-leaf,
 * leaf-spine, spine-core) is degraded, even when each end enables only
 * what it runs (the simulator does that, and so does a misconfigured
 * port), so no plan is needed to find it.  A switch's level is its
 * distance in links from the nearest CA or host (a leaf is 1); a switch
 * no CA reaches has no level ("switch").  Three values are held to the
 * tier: an IB link's width and lane rate, an Ethernet link's speed
 * (eth_mbps, known for physical NICs).  Ethernet speeds are held to the
 * majority of the tier's links on the same lower-level switch (the leaf):
 * a host's 1G management NIC and its 100G data NICs sit in one host-leaf
 * tier, on different leaves, and the management links are not slow data
 * links.  An end is known to support a
 * value when it enables it, when another of its node's ports runs at it,
 * or when a node of the same model (type, vendor and device id) runs a
 * port at it; an end that is not known to is still reported, and the
 * detail says so.  A cable whose plan states its width (speed) is judged
 * by the plan instead (topo_diff()).
 */
#define TIER_NO_LEVEL 0xffffffffu

enum tier_dim { TIER_WIDTH = 0, TIER_LANE, TIER_ETH, TIER_N_DIMS };

struct tier {
	unsigned int type[2], level[2];		/* the lower end first */
	struct topo_tally tally[TIER_N_DIMS];	/* what its links of known value run at (not TIER_ETH) */
};

struct tier_ctx {
	struct topo_node **by_ptr;	/* t->nodes sorted by address, for node_index() */
	size_t *ends;			/* per link i: its ends' indexes into by_ptr, [2i] a, [2i+1] b */
	unsigned int *level;		/* by index into by_ptr */
	struct tier *tiers;
	size_t n_tiers;
	struct topo_tally *eth;		/* by index into by_ptr: Ethernet speeds of its tier's links below it */
};

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(struct topo_node *const *)a;
	uintptr_t y = (uintptr_t)*(struct topo_node *const *)b;

	return x < y ? -1 : x > y;
}

static size_t node_index(const struct tier_ctx *c, const struct topo *t, struct topo_node *n)
{
	struct topo_node **hit = bsearch(&n, c->by_ptr, t->n_nodes, sizeof(*c->by_ptr), ptr_cmp);

	return (size_t)(hit - c->by_ptr);
}

static bool is_switch(const struct topo_node *n)
{
	return n->type == TOPO_NODE_SWITCH || n->type == TOPO_NODE_ROUTER;
}

static void tier_levels(struct tier_ctx *c, const struct topo *t)
{
	bool changed = true;

	for (size_t i = 0; i < t->n_nodes; i++)
		c->level[i] = is_switch(c->by_ptr[i]) ? TIER_NO_LEVEL : 0;
	for (size_t round = 0; changed && round < t->n_nodes; round++) {
		changed = false;
		for (size_t i = 0; i < t->n_links; i++) {
			const size_t *e = &c->ends[2 * i];

			for (int k = 0; k < 2; k++) {
				unsigned int other = c->level[e[!k]];

				if (is_switch(c->by_ptr[e[k]]) && other != TIER_NO_LEVEL &&
				    other + 1 < c->level[e[k]]) {
					c->level[e[k]] = other + 1;
					changed = true;
				}
			}
		}
	}
}

/* What @p runs at in dimension @d; 0 unknown. */
static unsigned int port_value(const struct topo_port *p, enum tier_dim d)
{
	switch (d) {
	case TIER_WIDTH:
		return (p->facts & TOPO_F_WIDTH) ? p->width_x : 0;
	case TIER_LANE:
		return (p->facts & TOPO_F_SPEED) ? p->lane_mbps : 0;
	default:
		return p->eth_mbps;	/* the node's own ethtool speed, 0 unknown or virtual */
	}
}

/* The most @p enables in dimension @d; 0 unknown (Ethernet: never known). */
static unsigned int port_enabled(const struct topo_port *p, enum tier_dim d)
{
	switch (d) {
	case TIER_WIDTH:
		return (p->facts & TOPO_F_WIDTH) ? p->width_max_x : 0;
	case TIER_LANE:
		return (p->facts & TOPO_F_SPEED) ? p->lane_max_mbps : 0;
	default:
		return 0;
	}
}

/* What a link runs at: the smaller of what its two ends report; 0 unknown. */
static unsigned int link_value(const struct topo_link *l, enum tier_dim d)
{
	unsigned int va = port_value(l->a, d), vb = port_value(l->b, d);

	return !va ? vb : !vb ? va : va < vb ? va : vb;
}

static bool link_down(const struct topo_link *l)
{
	return port_down(l->a) || port_down(l->b);
}

/* Link @li's tier, added when new; NULL on ENOMEM. */
static struct tier *tier_of(struct tier_ctx *c, const struct topo *t, size_t li)
{
	const struct topo_link *l = t->links[li];
	size_t ia = c->ends[2 * li], ib = c->ends[2 * li + 1];
	unsigned int ty[2] = { l->a->node->type, l->b->node->type };
	unsigned int lv[2] = { c->level[ia], c->level[ib] };
	struct tier *tr;

	if (lv[0] > lv[1] || (lv[0] == lv[1] && ty[0] > ty[1])) {
		unsigned int x = ty[0];

		ty[0] = ty[1];
		ty[1] = x;
		x = lv[0];
		lv[0] = lv[1];
		lv[1] = x;
	}
	for (size_t i = 0; i < c->n_tiers; i++) {
		tr = &c->tiers[i];
		if (tr->type[0] == ty[0] && tr->type[1] == ty[1] && tr->level[0] == lv[0] &&
		    tr->level[1] == lv[1])
			return tr;
	}
	tr = realloc(c->tiers, (c->n_tiers + 1) * sizeof(*c->tiers));
	if (!tr)
		return NULL;
	c->tiers = tr;
	tr = &c->tiers[c->n_tiers++];
	memset(tr, 0, sizeof(*tr));
	tr->type[0] = ty[0];
	tr->type[1] = ty[1];
	tr->level[0] = lv[0];
	tr->level[1] = lv[1];
	return tr;
}

void topo_tally_add(struct topo_tally *t, unsigned int v)
{
	if (!v)
		return;
	t->n++;
	for (unsigned int i = 0; i < t->n_vals; i++)
		if (t->v[i].val == v) {
			t->v[i].n++;
			return;
		}
	if (t->n_vals < TOPO_TALLY_MAX)
		t->v[t->n_vals++] = (struct topo_tally_value){ .val = v, .n = 1 };
}

const struct topo_tally_value *topo_tally_majority(const struct topo_tally *t)
{
	for (unsigned int i = 0; i < t->n_vals; i++)
		if (2 * t->v[i].n > t->n)
			return &t->v[i];
	return NULL;
}

static bool port_runs_at_least(const struct topo_port *q, enum tier_dim d, unsigned int v)
{
	return q->peer && !port_down(q) && port_value(q, d) >= v;
}

static bool node_runs_at_least(const struct topo_node *n, enum tier_dim d, unsigned int v)
{
	for (size_t j = 0; j < n->n_ports; j++)
		if (port_runs_at_least(n->ports[j], d, v))
			return true;
	return false;
}

static bool end_supports(const struct topo *t, const struct topo_port *p, enum tier_dim d,
			 unsigned int v)
{
	const struct topo_node *n = p->node;

	if (port_enabled(p, d) >= v)
		return true;
	if (node_runs_at_least(n, d, v))
		return true;
	if (!n->vendor_id && !n->device_id)
		return false;
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *m = t->nodes[i];

		if (m != n && m->type == n->type && m->vendor_id == n->vendor_id &&
		    m->device_id == n->device_id && node_runs_at_least(m, d, v))
			return true;
	}
	return false;
}

static const char *tier_end_name(unsigned int type, unsigned int level, char *buf, size_t len)
{
	static const char *const names[] = { "switch", "leaf", "spine", "core" };

	if (type != TOPO_NODE_SWITCH)
		return topo_node_type_name((enum topo_node_type)type);
	if (level == TIER_NO_LEVEL)
		return names[0];
	if (level < sizeof(names) / sizeof(names[0]))
		return names[level];
	str_fmt(buf, len, "level-%u", level);
	return buf;
}

static void value_text(enum tier_dim d, unsigned int v, char *buf, size_t len)
{
	const char *name = d == TIER_LANE ? topo_speed_name(v) : NULL;

	if (d == TIER_WIDTH)
		str_fmt(buf, len, "%ux", v);
	else if (name)
		str_fmt(buf, len, "%s", name);
	else
		str_fmt(buf, len, "%u Mb/s", v);
}

/* One link's finding in one dimension. */
struct tier_finding {
	char text[160];		/* "width 1x; 63 of 64 leaf-spine links run 4x"; "" none */
	char want[24];		/* the tier's value, "4x" */
	bool unknown[2];	/* end a / b not known to support it */
};

/* @f filled when @l is below its tier's majority in dimension @d. */
static void tier_judge(const struct topo *t, const struct tier *tr, const struct topo_link *l,
		       enum tier_dim d, const struct topo_tally *ty, const char *on,
		       struct tier_finding *f)
{
	const struct topo_tally_value *maj = topo_tally_majority(ty);
	unsigned int v = link_value(l, d);
	char b0[24], b1[24], have[24];

	memset(f, 0, sizeof(*f));
	if (!maj || !v || v >= maj->val)
		return;
	value_text(d, v, have, sizeof(have));
	value_text(d, maj->val, f->want, sizeof(f->want));
	f->unknown[0] = !end_supports(t, l->a, d, maj->val);
	f->unknown[1] = !end_supports(t, l->b, d, maj->val);
	str_fmt(f->text, sizeof(f->text), "%s %s; %u of %u %s-%s links%s%.64s run %s",
		d == TIER_WIDTH ? "width" : "speed", have, maj->n, ty->n,
		tier_end_name(tr->type[0], tr->level[0], b0, sizeof(b0)),
		tier_end_name(tr->type[1], tr->level[1], b1, sizeof(b1)), on ? " of " : "",
		on ? on : "", f->want);
}

/* TOPO_F_WIDTH / TOPO_F_SPEED: what @plan states for the cable @l is (0: none, or no plan). */
static unsigned int tier_planned(const struct topo *plan, const struct topo_link *l)
{
	const struct topo_port *pa, *pb;
	unsigned int f = 0;

	if (!plan)
		return 0;
	pa = topo_port_match(plan, l->a);
	pb = topo_port_match(plan, l->b);
	if (!pa || !pb || pa->peer != pb)
		return 0;
	for (int k = 0; k < 2; k++) {
		const struct topo_port *p = k ? pb : pa;

		if ((p->facts & TOPO_F_WIDTH) && p->width_x)
			f |= TOPO_F_WIDTH;
		if ((p->facts & TOPO_F_SPEED) && p->lane_mbps)
			f |= TOPO_F_SPEED;
	}
	return f;
}

/* Append to the string in @out (truncated to @len). */
static void text_add(char *out, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void text_add(char *out, size_t len, const char *fmt, ...)
{
	size_t off = strlen(out);
	va_list ap;

	if (off + 1 >= len)
		return;
	va_start(ap, fmt);
	str_vfmt(out + off, len - off, fmt, ap);
	va_end(ap);
}

/*
 * The problem's detail from @l's findings: "width 1x; 31 of 32 ca-leaf
 * links run 4x; h0005 port 1 not known to support 4x".
 */
static void tier_detail(const struct topo_link *l, const struct topo_port *first,
			const struct tier_finding *f, char *out, size_t len)
{
	char name[2][200], want[2][80] = { "", "" };
	int k0 = first == l->b;		/* the end the problem names first speaks first */

	*out = '\0';
	for (int d = 0; d < TIER_N_DIMS; d++)
		if (f[d].text[0])
			text_add(out, len, "%s%s", *out ? "; " : "", f[d].text);
	for (int k = 0; k < 2; k++) {
		topo_port_text(k ? l->b : l->a, name[k], sizeof(name[k]));
		for (int d = 0; d < TIER_N_DIMS; d++)
			if (f[d].text[0] && f[d].unknown[k])
				text_add(want[k], sizeof(want[k]), "%s%s", *want[k] ? " or " : "",
					 f[d].want);
	}
	if (*want[0] && strcmp(want[0], want[1]) == 0) {
		text_add(out, len, "; %s and %s not known to support %s", name[k0], name[!k0],
			 want[0]);
		return;
	}
	for (int k = 0; k < 2; k++)
		if (*want[k ^ k0])
			text_add(out, len, "; %s not known to support %s", name[k ^ k0], want[k ^ k0]);
}

/* The end link @i's tier problem names: the lower-level switch end (the leaf of a ca-leaf link). */
static const struct topo_port *tier_end(const struct tier_ctx *c, const struct topo *t, size_t i)
{
	const struct topo_link *l = t->links[i];
	unsigned int la = c->level[c->ends[2 * i]];
	unsigned int lb = c->level[c->ends[2 * i + 1]];

	if (!is_switch(l->b->node))
		return l->a;
	if (!is_switch(l->a->node))
		return l->b;
	return lb < la ? l->b : l->a;
}

/* The by_ptr index of the node of tier_end(). */
static size_t tier_end_index(const struct tier_ctx *c, const struct topo *t, size_t i)
{
	return c->ends[2 * i + (tier_end(c, t, i) == t->links[i]->b)];
}

static int check_tiers(struct topo *t, const struct topo *plan)
{
	struct tier_ctx c = { 0 };
	size_t *link_tier = NULL;	/* per link: 1 + its tier's index, 0 none */
	int rc = -ENOMEM;

	if (!t->n_links)
		return 0;
	c.by_ptr = malloc(t->n_nodes * sizeof(*c.by_ptr));
	c.level = malloc(t->n_nodes * sizeof(*c.level));
	c.ends = malloc(2 * t->n_links * sizeof(*c.ends));
	link_tier = calloc(t->n_links, sizeof(*link_tier));
	c.eth = calloc(t->n_nodes, sizeof(*c.eth));
	if (!c.by_ptr || !c.level || !c.ends || !link_tier || !c.eth)
		goto out;
	memcpy(c.by_ptr, t->nodes, t->n_nodes * sizeof(*c.by_ptr));
	qsort(c.by_ptr, t->n_nodes, sizeof(*c.by_ptr), ptr_cmp);
	/* Each end's node looked up once, not in every round of tier_levels(). */
	for (size_t i = 0; i < t->n_links; i++) {
		c.ends[2 * i] = node_index(&c, t, t->links[i]->a->node);
		c.ends[2 * i + 1] = node_index(&c, t, t->links[i]->b->node);
	}
	tier_levels(&c, t);
	/* Links keep their tier's index: tier_of() may move the array. */
	for (size_t i = 0; i < t->n_links; i++) {
		struct topo_link *l = t->links[i];
		struct tier *tr;

		if (link_down(l))
			continue;
		tr = tier_of(&c, t, i);
		if (!tr)
			goto out;
		link_tier[i] = (size_t)(tr - c.tiers) + 1;
		topo_tally_add(&tr->tally[TIER_WIDTH], link_value(l, TIER_WIDTH));
		topo_tally_add(&tr->tally[TIER_LANE], link_value(l, TIER_LANE));
		topo_tally_add(&c.eth[tier_end_index(&c, t, i)], link_value(l, TIER_ETH));
	}
	for (size_t i = 0; i < t->n_links; i++) {
		struct topo_link *l = t->links[i];
		struct tier_finding f[TIER_N_DIMS];
		const struct tier *tr;
		unsigned int planned;
		char detail[sizeof(((struct topo_problem *)0)->detail)];
		bool any = false;

		/* Down, or already degraded against its own enabled width/speed. */
		if (!link_tier[i] || port_degraded(l->a) || port_degraded(l->b))
			continue;
		tr = &c.tiers[link_tier[i] - 1];
		for (int d = 0; d < TIER_N_DIMS; d++) {
			if (d == TIER_ETH)
				tier_judge(t, tr, l, TIER_ETH, &c.eth[tier_end_index(&c, t, i)],
					   tier_end(&c, t, i)->node->name, &f[d]);
			else
				tier_judge(t, tr, l, (enum tier_dim)d, &tr->tally[d], NULL, &f[d]);
			any |= f[d].text[0] != '\0';
		}
		if (!any)
			continue;
		/* The plan's own width/speed for this cable wins (topo_diff() judges it). */
		planned = tier_planned(plan, l);
		if (planned & TOPO_F_WIDTH)
			f[TIER_WIDTH].text[0] = '\0';
		if (planned & TOPO_F_SPEED)
			f[TIER_LANE].text[0] = f[TIER_ETH].text[0] = '\0';
		tier_detail(l, tier_end(&c, t, i), f, detail, sizeof(detail));
		if (!*detail)
			continue;
		worsen(l, TOPO_LINK_DEGRADED);
		if (add_port_problem(t, TOPO_PROB_DEGRADED, tier_end(&c, t, i), "%s", detail) < 0)
			goto out;
	}
	rc = 0;
out:
	free(c.by_ptr);
	free(c.ends);
	free(c.level);
	free(c.tiers);
	free(c.eth);
	free(link_tier);
	return rc;
}

int topo_health_check(struct topo *t, const struct topo_thresholds *th)
{
	return topo_health_check_plan(t, th, NULL);
}

int topo_health_check_plan(struct topo *t, const struct topo_thresholds *th,
			   const struct topo *plan)
{
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct topo_node *n = t->nodes[i];

		for (size_t j = 0; j < n->n_ports; j++) {
			struct topo_port *p = n->ports[j];

			if (p->num == 0 && !*p->name && n->type == TOPO_NODE_SWITCH)
				continue;	/* switch management port */
			/*
			 * An unlinked port is an empty socket as far as the graph
			 * knows (its peer is unknown): only a plan can say a cable
			 * belongs there, and topo_diff() reports it then.
			 */
			if (!p->peer)
				continue;
			if (port_down(p)) {
				worsen(p->link, TOPO_LINK_DOWN);
				if (add_port_problem(t, TOPO_PROB_DOWN, p, "state %s, phys %s",
						     topo_port_state_name(p->state),
						     topo_phys_state_name(p->phys_state)) < 0)
					return -ENOMEM;
				continue;
			}
			if (check_degraded(t, p) < 0 || check_counters(t, p, th) < 0)
				return -ENOMEM;
		}
	}
	return check_tiers(t, plan);
}

void topo_port_text(const struct topo_port *p, char *buf, size_t len)
{
	if (p->name[0])
		str_fmt(buf, len, "%s %s", p->node->name, p->name);
	else
		str_fmt(buf, len, "%s port %u", p->node->name, p->num);
}
