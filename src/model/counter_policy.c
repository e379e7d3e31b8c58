// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The counter policy file (sweep, diagnose --policy; accept's policy;
 * docs/counters.md):
 *
 *     counters:
 *       - { name: SymbolErrorCounter, threshold: 0, severity: error, limit: 50 }
 *       - { name: PortXmitWait, threshold: 100000000 }
 *       - { name: rx_dropped, threshold: off }
 *
 * Each item overrides one entry of the counter rules (model/counter_rules.h)
 * by its name or alias: the window threshold and severity, the limit on one
 * reading, or both; unknown names are refused, listing the valid ones.
 * Pure: parses a buffer.
 */
#include <errno.h>
#include <string.h>
#include <yaml.h>

#include "model/counter_rules.h"
#include "model/yaml_walk.h"
#include "util/str.h"

#define POLICY_ITEMS_MAX COUNTER_RULES_MAX

struct pol_item {
	const struct yaml_walk *w;
	struct counter_override *ov;
	char name[64];
	char where[96];
};

/* A count, or "off" (COUNTER_OFF: that evaluator passes the counter by). */
static int count_or_off(const struct yaml_walk *w, yaml_node_t *v, const char *what,
			uint64_t *val)
{
	if (v->type == YAML_SCALAR_NODE && strcmp(yw_scalar(v), "off") == 0) {
		*val = COUNTER_OFF;
		return 0;
	}
	return yw_u64(w, v, what, 10, 0, UINT64_MAX, val);
}

static int item_sev(struct pol_item *it, yaml_node_t *v)
{
	char sev[16];
	int s;

	if (yw_str(it->w, v, "severity", sev, sizeof(sev)) < 0)
		return -EINVAL;
	s = counter_sev_parse(sev);
	if (s < 0)
		return yw_err(it->w, v, "severity: '%s' is not error, warn or info", sev);
	it->ov->has_sev = true;
	it->ov->sev = (enum counter_sev)s;
	return 0;
}

static int item_key(void *arg, int key, yaml_node_t *k, yaml_node_t *v)
{
	struct pol_item *it = arg;

	(void)k;
	switch (key) {
	case 0:
		return yw_str(it->w, v, "name", it->name, sizeof(it->name));
	case 1:
		it->ov->has_threshold = true;
		return count_or_off(it->w, v, "threshold", &it->ov->threshold);
	case 2:
		return item_sev(it, v);
	default:
		it->ov->has_limit = true;
		return count_or_off(it->w, v, "limit", &it->ov->limit);
	}
}

static int root_key(void *arg, int key, yaml_node_t *k, yaml_node_t *v)
{
	(void)key;
	(void)k;
	*(yaml_node_t **)arg = v;
	return 0;
}

int counter_policy_walk(struct counter_policy *pol, const struct yaml_walk *w, yaml_node_t *list)
{
	static const char *const item_keys[] = { "name", "threshold", "severity", "limit", NULL };
	struct counter_override ov[POLICY_ITEMS_MAX];
	struct pol_item items[POLICY_ITEMS_MAX];
	size_t n = 0;
	int rc;

	rc = yw_seq_len(w, list, "counters", POLICY_ITEMS_MAX, &n);
	memset(ov, 0, sizeof(ov));
	for (size_t i = 0; rc == 0 && i < n; i++) {
		yaml_node_t *item = yw_seq_item(w, list, i);

		items[i] = (struct pol_item){ .w = w, .ov = &ov[i] };
		rc = yw_map(w, item, "counters item", item_keys, item_key, &items[i]);
		if (rc == 0 && !items[i].name[0])
			rc = yw_err(w, item, "counters item: 'name' is required");
		str_fmt(items[i].where, sizeof(items[i].where), "%s:%zu", w->fname,
			item->start_mark.line + 1);
		ov[i].name = items[i].name;
		ov[i].where = items[i].where;
	}
	if (rc == 0)
		rc = counter_policy_apply(pol, ov, n, w->err);
	return rc;
}

int counter_policy_parse(struct counter_policy *pol, const char *buf, size_t len, const char *fname,
			 struct fab_err *err)
{
	static const char *const root_keys[] = { "counters", NULL };
	struct yaml_walk w = { .fname = fname, .err = err };
	yaml_node_t *root, *list = NULL;
	yaml_parser_t parser;
	yaml_document_t doc;
	int rc;

	counter_policy_default(pol);
	rc = yw_load(&w, &parser, &doc, buf, len);
	if (rc < 0)
		return rc;
	root = yaml_document_get_root_node(&doc);
	rc = root ? yw_map(&w, root, "policy", root_keys, root_key, &list)
		  : fab_err_input(err, -EINVAL, "%s:1:1: empty policy (expected 'counters:')", fname);
	if (rc == 0 && list)
		rc = counter_policy_walk(pol, &w, list);
	yw_unload(&parser, &doc);
	return rc;
}
