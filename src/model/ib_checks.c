// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * InfiniBand subnet sanity (ib_checks.h): the families by name, the run
 * that calls them in order, and routing balance per tier.  Routes are
 * model/ib_route_check.c's, identities and subnet managers
 * model/ib_ident.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/ib_checks.h"
#include "model/ptr_index.h"
#include "util/array.h"
#include "util/str.h"

static const char *const family_names[] = { "routes", "credit-loops", "balance", "ids", "sm" };

const char *ib_check_name(unsigned int family)
{
	for (size_t i = 0; i < ARRAY_SIZE(family_names); i++)
		if (family == 1u << i)
			return family_names[i];
	return NULL;
}

static int family_parse(const char *item, size_t len, unsigned int *bits)
{
	if (len == 3 && strncmp(item, "all", 3) == 0) {
		*bits = IB_CHECK_ALL;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(family_names); i++)
		if (strlen(family_names[i]) == len && strncmp(item, family_names[i], len) == 0) {
			*bits = 1u << i;
			return 0;
		}
	return -EINVAL;
}

int ib_checks_parse(const char *spec, unsigned int *families, char *bad, size_t bad_len)
{
	unsigned int f = *families;
	const char *p = spec;

	if (strcmp(spec, "none") == 0) {
		*families = 0;
		return 0;
	}
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		bool minus = len && *p == '-';
		unsigned int bits;

		if (family_parse(p + minus, len - minus, &bits) < 0) {
			str_fmt(bad, bad_len, "%.*s", (int)len, p);
			return -EINVAL;
		}
		f = minus ? f & ~bits : f | bits;
		if (!end)
			break;
		p = end + 1;
	}
	*families = f;
	return 0;
}

const char *ib_break_name(enum ib_break why)
{
	static const char *const names[IB_BREAK_MAX] = {
		[IB_BREAK_NO_LFT] = "no-table", [IB_BREAK_NO_ENTRY] = "no-entry",
		[IB_BREAK_NO_LINK] = "no-link", [IB_BREAK_DOWN] = "down",
		[IB_BREAK_WRONG_END] = "wrong-end", [IB_BREAK_SELF] = "self",
		[IB_BREAK_LOOP] = "loop",
	};

	return (unsigned int)why < IB_BREAK_MAX ? names[why] : "unknown";
}

/* ---- balance ---- */

#define LEVEL_NONE UINT32_MAX

/* Hops from the nearest CA, by breadth-first search from every CA at once: 0 CAs, 1 leaves... */
static int node_levels(const struct topo *t, struct ptr_index *ix, uint32_t **level_out)
{
	uint32_t *level = malloc((t->n_nodes + 1) * sizeof(*level));
	size_t *queue = malloc((t->n_nodes + 1) * sizeof(*queue));
	size_t head = 0, tail = 0;

	if (!level || !queue || ptr_index_init(ix, t->n_nodes) < 0) {
		free(level);
		free(queue);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n_nodes; i++) {
		ptr_index_set(ix, i, t->nodes[i]);
		level[i] = t->nodes[i]->type == TOPO_NODE_SWITCH ? LEVEL_NONE : 0;
		if (!level[i])
			queue[tail++] = i;
	}
	ptr_index_sort(ix);
	while (head < tail) {
		const struct topo_node *n = t->nodes[queue[head]];
		uint32_t lv = level[queue[head++]];

		for (size_t j = 0; j < n->n_ports; j++) {
			const struct topo_port *q = n->ports[j]->peer;
			size_t k = q ? ptr_index_find(ix, q->node) : SIZE_MAX;

			if (k == SIZE_MAX || level[k] != LEVEL_NONE)
				continue;
			level[k] = lv + 1;
			queue[tail++] = k;
		}
	}
	free(queue);
	*level_out = level;
	return 0;
}

struct tier_acc {
	unsigned int from, to;
	struct ib_channel_load *ch;
	size_t n, cap;
};

static int load_cmp_desc(const void *x, const void *y)
{
	const struct ib_channel_load *a = x, *b = y;

	return a->routes > b->routes ? -1 : a->routes < b->routes;
}

static void tier_name(char *buf, size_t len, unsigned int from, unsigned int to)
{
	char a[8], b[8];

	if (from)
		str_fmt(a, sizeof(a), "sw%u", from);
	else
		str_fmt(a, sizeof(a), "ca");
	if (to)
		str_fmt(b, sizeof(b), "sw%u", to);
	else
		str_fmt(b, sizeof(b), "ca");
	str_fmt(buf, len, "%s>%s", a, b);
}

/* One tier's figures from its channels (sorted here, busiest first). */
static int tier_fill(struct ib_tier *tr, struct tier_acc *a)
{
	size_t k = 0;

	qsort(a->ch, a->n, sizeof(*a->ch), load_cmp_desc);
	tr->from_level = a->from;
	tr->to_level = a->to;
	tier_name(tr->name, sizeof(tr->name), a->from, a->to);
	tr->n_links = a->n;
	tr->max = a->ch[0].routes;
	tr->min = a->ch[a->n - 1].routes;
	tr->median = a->ch[a->n / 2].routes;	/* descending: the lower middle */
	while (k < a->n && a->ch[k].routes > (uint64_t)IB_BALANCE_FACTOR * tr->median)
		k++;
	tr->n_outliers = k;
	tr->n_listed = k < IB_OUTLIERS_LIST_MAX ? k : IB_OUTLIERS_LIST_MAX;
	if (!tr->n_listed)
		return 0;
	tr->outliers = malloc(tr->n_listed * sizeof(*tr->outliers));
	if (!tr->outliers)
		return -ENOMEM;
	memcpy(tr->outliers, a->ch, tr->n_listed * sizeof(*tr->outliers));
	return 0;
}

static int tier_problem(struct topo *t, const struct ib_tier *tr)
{
	struct topo_problem p = { .kind = TOPO_PROB_BALANCE, .has_a = true, .has_b = true };
	const struct topo_port *hot = tr->outliers[0].from;

	topo_end_from_port(&p.a, hot);
	topo_end_from_port(&p.b, hot->peer);
	str_fmt(p.detail, sizeof(p.detail), "tier %s: %zu of %zu links carry over %dx the median "
		"of %u routes (max %u, here; min %u): a routing that spreads evenly, as a "
		"non-blocking fat tree's should, keeps every link of a tier near its median",
		tr->name, tr->n_outliers, tr->n_links, IB_BALANCE_FACTOR, tr->median, tr->max,
		tr->min);
	return topo_problem_add(t, &p);
}

static struct tier_acc *tier_get(struct tier_acc **acc, size_t *n, unsigned int from,
				 unsigned int to)
{
	struct tier_acc *a;

	for (size_t i = 0; i < *n; i++)
		if ((*acc)[i].from == from && (*acc)[i].to == to)
			return &(*acc)[i];
	a = array_add((void **)acc, n, sizeof(**acc));
	if (a) {
		a->from = from;
		a->to = to;
	}
	return a;
}

static int tier_acc_cmp(const void *x, const void *y)
{
	const struct tier_acc *a = x, *b = y;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	return a->to < b->to ? -1 : a->to > b->to;
}

/* Every active link's two channels into the accumulator of their tier. */
static int tiers_collect(const struct topo *t, const uint32_t *loads, struct tier_acc **acc,
			 size_t *n_acc)
{
	struct ptr_index ix = { 0 };
	uint32_t *level = NULL;
	int rc = node_levels(t, &ix, &level);

	for (size_t i = 0; rc == 0 && i < t->n_links; i++) {
		const struct topo_link *l = t->links[i];
		const struct topo_port *ends[2] = { l->a, l->b };
		uint32_t la = level[ptr_index_find(&ix, l->a->node)];
		uint32_t lb = level[ptr_index_find(&ix, l->b->node)];

		if (la == LEVEL_NONE || lb == LEVEL_NONE)
			continue;
		if (((l->a->facts & TOPO_F_STATE) && l->a->state != TOPO_PORT_ACTIVE) ||
		    ((l->b->facts & TOPO_F_STATE) && l->b->state != TOPO_PORT_ACTIVE))
			continue;
		for (int e = 0; e < 2 && rc == 0; e++) {
			struct tier_acc *a = tier_get(acc, n_acc, e ? lb : la, e ? la : lb);

			if (!a || array_reserve((void **)&a->ch, &a->cap, a->n + 1, sizeof(*a->ch)) < 0)
				rc = -ENOMEM;
			else
				a->ch[a->n++] = (struct ib_channel_load){ ends[e], loads[2 * i + e] };
		}
	}
	free(level);
	ptr_index_fini(&ix);
	return rc;
}

int ib_balance_check(struct topo *t, struct ib_checks *c, const uint32_t *loads)
{
	struct ib_balance_report *br = &c->balance;
	struct tier_acc *acc = NULL;
	size_t n_acc = 0;
	int rc = tiers_collect(t, loads, &acc, &n_acc);

	if (rc == 0 && n_acc) {
		qsort(acc, n_acc, sizeof(*acc), tier_acc_cmp);
		br->tiers = calloc(n_acc, sizeof(*br->tiers));
		if (!br->tiers)
			rc = -ENOMEM;
	}
	for (size_t i = 0; rc == 0 && i < n_acc; i++) {
		rc = tier_fill(&br->tiers[br->n_tiers++], &acc[i]);
		if (rc == 0 && br->tiers[i].n_outliers)
			rc = tier_problem(t, &br->tiers[i]);
	}
	for (size_t i = 0; i < n_acc; i++)
		free(acc[i].ch);
	free(acc);
	br->ran = rc == 0;
	return rc;
}

/* ---- the run ---- */

void ib_checks_free(struct ib_checks *c)
{
	if (!c)
		return;
	free(c->routes.unreach);
	ib_credit_report_fini(&c->credit);
	for (size_t i = 0; i < c->balance.n_tiers; i++)
		free(c->balance.tiers[i].outliers);
	free(c->balance.tiers);
	free(c);
}

int ib_checks_run(struct topo *t, unsigned int families)
{
	struct ib_checks *c = calloc(1, sizeof(*c));
	uint32_t *loads = NULL;
	int rc = 0;

	if (!c)
		return -ENOMEM;
	c->families = families;
	topo_sort(t);
	if (families & IB_CHECK_IDS)
		rc = ib_ids_check(t, c);
	if (rc == 0 && (families & IB_CHECK_NEED_LFT)) {
		if (families & IB_CHECK_BALANCE) {
			loads = calloc(2 * t->n_links + 1, sizeof(*loads));
			if (!loads)
				rc = -ENOMEM;
		}
		if (rc == 0)
			rc = ib_routes_check(t, c, loads);
		if (rc == 0 && loads && !c->balance.skipped)
			rc = ib_balance_check(t, c, loads);
	}
	if (rc == 0 && (families & IB_CHECK_SM))
		rc = ib_sm_check(t, c);
	free(loads);
	if (rc < 0) {
		ib_checks_free(c);
		return rc;
	}
	ib_checks_free(t->ib_checks);
	t->ib_checks = c;
	t->ib_checks_free = ib_checks_free;
	return 0;
}
