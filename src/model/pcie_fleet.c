// SPDX-License-Identifier: GPL-2.0-or-later
/* Nodes grouped by their PCIe picture, or by their PCIe drift; see pcie_fleet.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/pcie_fleet.h"
#include "util/str.h"

static const char *s_or(const json_t *v, const char *dflt)
{
	return json_is_string(v) ? json_string_value(v) : dflt;
}

/* "x16 32GT/s" of a LINK object ("x? ?GT/s" for unknowns). */
static void link_str(const json_t *link, char *buf, size_t len)
{
	const json_t *w = json_object_get(link, "width"), *s = json_object_get(link, "speed_gts");
	char wb[16] = "x?", sb[16] = "?";

	if (json_is_integer(w))
		str_fmt(wb, sizeof(wb), "x%lld", (long long)json_integer_value(w));
	if (json_is_number(s))
		str_fmt(sb, sizeof(sb), "%g", json_number_value(s));
	str_fmt(buf, len, "%s %sGT/s", wb, sb);
}

static void numa_str(const json_t *dev, char *buf, size_t len)
{
	const json_t *n = json_object_get(dev, "numa_node");

	if (json_is_integer(n))
		str_fmt(buf, len, "%lld", (long long)json_integer_value(n));
	else
		str_fmt(buf, len, "-");
}

static const char *acs_str(const json_t *nic)
{
	const json_t *acs = json_object_get(json_object_get(nic, "near_gpus"), "acs");

	if (json_array_size(json_object_get(acs, "p2p_redirect")))
		return "on";
	if (json_integer_value(json_object_get(acs, "unread")) > 0)
		return "unknown";
	return "off";
}

static int item_add(json_t *pic, const char *what, const char *value)
{
	return json_object_set_new(pic, what, json_string(value));
}

/* One node's picture: {what: value}; NULL when it has no "pcie". */
static json_t *picture(const json_t *status)
{
	const json_t *pcie = json_object_get(status, "pcie"), *d, *gd;
	json_t *pic;
	char what[48], val[256], l[32], n[16];
	size_t i;

	if (!json_is_object(pcie))
		return NULL;
	pic = json_object();
	json_array_foreach(json_object_get(pcie, "nics"), i, d) {
		link_str(json_object_get(d, "link"), l, sizeof(l));
		numa_str(d, n, sizeof(n));
		str_fmt(what, sizeof(what), "nic %s", s_or(json_object_get(d, "bdf"), "?"));
		str_fmt(val, sizeof(val), "%s %s numa %s gpus %s acs %s fw-lldp %s",
			s_or(json_object_get(d, "driver"), "-"), l, n,
			s_or(json_object_get(json_object_get(d, "near_gpus"), "distance"), "-"),
			acs_str(d), s_or(json_object_get(json_object_get(d, "fw_lldp"), "agent"), "-"));
		item_add(pic, what, val);
	}
	json_array_foreach(json_object_get(pcie, "gpus"), i, d) {
		link_str(json_object_get(d, "link"), l, sizeof(l));
		numa_str(d, n, sizeof(n));
		str_fmt(what, sizeof(what), "gpu %s", s_or(json_object_get(d, "bdf"), "?"));
		str_fmt(val, sizeof(val), "%s numa %s", l, n);
		item_add(pic, what, val);
	}
	gd = json_object_get(json_object_get(pcie, "gpudirect"), "ready");
	item_add(pic, "gpudirect", json_is_true(gd) ? "ready" : json_is_false(gd) ? "not ready"
									       : "no gpu");
	return pic;
}

/* Per key of @here or @maj that differs: {what, here, majority}. */
static json_t *differs(json_t *here, json_t *maj)
{
	json_t *out = json_array(), *v;
	const char *k;

	json_object_foreach(here, k, v) {
		const char *m = s_or(json_object_get(maj, k), "-");

		if (strcmp(m, json_string_value(v)))
			json_array_append_new(out, json_pack("{s:s, s:O, s:s}", "what", k,
							     "here", v, "majority", m));
	}
	json_object_foreach(maj, k, v)
		if (!json_object_get(here, k))
			json_array_append_new(out, json_pack("{s:s, s:s, s:O}", "what", k,
							     "here", "-", "majority", v));
	return out;
}

/*
 * Groups: [{"count", "nodes": [names], "key"}] in order of first node,
 * found by the key's canonical text in @index ({text: position}).
 */
struct grouping {
	json_t *groups, *index;
};

/* Add @node (borrowed) to the group of @key (stolen); 0 or -ENOMEM. */
static int group_add(struct grouping *gr, json_t *key, json_t *node)
{
	char *text = json_dumps(key, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	const json_t *at = text ? json_object_get(gr->index, text) : NULL;
	json_t *g;
	int rc = -ENOMEM;

	if (!text)
		goto out;
	if (at) {
		g = json_array_get(gr->groups, (size_t)json_integer_value(at));
	} else {
		g = json_pack("{s:I, s:[], s:O}", "count", (json_int_t)0, "nodes", "key", key);
		if (!g || json_object_set_new(gr->index, text,
					      json_integer((json_int_t)json_array_size(gr->groups))) < 0 ||
		    json_array_append_new(gr->groups, g) < 0)
			goto out;
	}
	if (json_object_set_new(g, "count",
				json_integer(json_integer_value(json_object_get(g, "count")) + 1)) < 0 ||
	    json_array_append(json_object_get(g, "nodes"), node) < 0)
		goto out;
	rc = 0;
out:
	free(text);
	json_decref(key);
	return rc;
}

struct ranked {
	json_t *g;		/* borrowed */
	json_int_t count;
	size_t first;		/* position: the first node's group wins a tie */
};

static int by_count(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/*
 * @gr's groups, largest first, as [{"count", "majority", "nodes", @what:
 * @make(key, majority's key)}]; NULL when out of memory.
 */
static json_t *groups_out(const struct grouping *gr, const char *what,
			  json_t *(*make)(json_t *key, json_t *maj))
{
	size_t n = json_array_size(gr->groups), i;
	struct ranked *r = calloc(n ? n : 1, sizeof(*r));
	json_t *out = json_array(), *maj;

	if (!r || !out)
		goto fail;
	for (i = 0; i < n; i++) {
		r[i].g = json_array_get(gr->groups, i);
		r[i].count = json_integer_value(json_object_get(r[i].g, "count"));
		r[i].first = i;
	}
	qsort(r, n, sizeof(*r), by_count);
	maj = n ? json_object_get(r[0].g, "key") : NULL;
	for (i = 0; i < n; i++) {
		json_t *e = json_pack("{s:O, s:b, s:O, s:o}", "count",
				      json_object_get(r[i].g, "count"), "majority", i == 0, "nodes",
				      json_object_get(r[i].g, "nodes"), what,
				      make(json_object_get(r[i].g, "key"), maj));

		if (json_array_append_new(out, e) < 0)
			goto fail;
	}
	free(r);
	return out;
fail:
	free(r);
	json_decref(out);
	return NULL;
}

static int grouping_init(struct grouping *gr)
{
	gr->groups = json_array();
	gr->index = json_object();
	return gr->groups && gr->index ? 0 : -ENOMEM;
}

static void grouping_fini(struct grouping *gr)
{
	json_decref(gr->groups);
	json_decref(gr->index);
}

json_t *pcie_fleet_groups(const json_t *nodes)
{
	struct grouping gr;
	json_t *node, *out = NULL;
	size_t i;

	if (grouping_init(&gr) < 0)
		goto out;
	json_array_foreach(nodes, i, node) {
		json_t *pic;

		if (!json_is_true(json_object_get(node, "ok")))
			continue;
		pic = picture(json_object_get(node, "status"));
		if (pic && group_add(&gr, pic, json_object_get(node, "node")) < 0)
			goto out;
	}
	out = groups_out(&gr, "differs", differs);
out:
	grouping_fini(&gr);
	return out;
}

/* ---- verify --hosts ---- */

bool pcie_fleet_drift_field(const char *field, const char *wanted)
{
	if (!field)
		return false;
	if (!strncmp(field, "pcie.", 5) || !strcmp(field, "gpudirect") || !strcmp(field, "fw_lldp"))
		return true;
	return !strcmp(field, "match") && wanted && !strcmp(wanted, "a nic");
}

/* A group's drift is its key: the same for every member. */
static json_t *drift_of(json_t *key, json_t *maj)
{
	(void)maj;
	return json_incref(key);
}

/* {name: []} for each verified node of @nodes; NULL when out of memory. */
static json_t *verified(const json_t *nodes)
{
	json_t *by = json_object(), *node;
	size_t i;

	json_array_foreach(nodes, i, node) {
		const char *name = json_string_value(json_object_get(node, "node"));

		if (by && name && json_is_true(json_object_get(node, "ok")) &&
		    json_object_set_new(by, name, json_array()) < 0) {
			json_decref(by);
			by = NULL;
		}
	}
	return by;
}

/* Each host-side entry of @drift appended to its node's array in @by. */
static int drift_sort(json_t *by, const json_t *drift)
{
	const json_t *d;
	size_t i;

	json_array_foreach(drift, i, d) {
		json_t *mine = json_object_get(by, s_or(json_object_get(d, "node"), ""));
		const char *f = json_string_value(json_object_get(d, "field"));

		if (!mine || !pcie_fleet_drift_field(f, json_string_value(json_object_get(d, "wanted"))))
			continue;
		if (json_array_append_new(mine, json_pack("{s:O, s:O, s:O, s:O}",
			"interface", json_object_get(d, "interface"), "field", json_object_get(d, "field"),
			"wanted", json_object_get(d, "wanted"), "found", json_object_get(d, "found"))) < 0)
			return -ENOMEM;
	}
	return 0;
}

json_t *pcie_fleet_drift_groups(const json_t *nodes, const json_t *drift)
{
	struct grouping gr;
	json_t *by = verified(nodes), *node, *out = NULL;
	size_t i;

	if (grouping_init(&gr) < 0 || !by || drift_sort(by, drift) < 0)
		goto out;
	json_array_foreach(nodes, i, node) {
		json_t *name = json_object_get(node, "node");
		json_t *mine = json_object_get(by, s_or(name, ""));

		if (json_is_true(json_object_get(node, "ok")) && mine &&
		    group_add(&gr, json_incref(mine), name) < 0)
			goto out;
	}
	out = groups_out(&gr, "drift", drift_of);
out:
	json_decref(by);
	grouping_fini(&gr);
	return out;
}
