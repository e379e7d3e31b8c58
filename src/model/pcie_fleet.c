// SPDX-License-Identifier: GPL-2.0-or-later
/* Nodes grouped by their PCIe picture; see pcie_fleet.h. */
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

/* The group (index into @groups) whose picture equals @pic, or -1. */
static long group_of(const json_t *groups, json_t *pic)
{
	const json_t *g;
	size_t i;

	json_array_foreach(groups, i, g)
		if (json_equal(json_object_get(g, "picture"), pic))
			return (long)i;
	return -1;
}

static int by_count(const void *a, const void *b)
{
	json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "count"));
	json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "count"));

	return x < y ? 1 : x > y ? -1 : 0;
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

/* Groups by picture, in order of first node: [{count, nodes, picture}]. */
static json_t *collect(const json_t *nodes)
{
	json_t *groups = json_array();
	const json_t *node;
	size_t i;

	json_array_foreach(nodes, i, node) {
		json_t *pic, *g;
		long k;

		if (!json_is_true(json_object_get(node, "ok")))
			continue;
		pic = picture(json_object_get(node, "status"));
		if (!pic)
			continue;
		k = group_of(groups, pic);
		if (k < 0) {
			g = json_pack("{s:I, s:[], s:o}", "count", (json_int_t)0, "nodes",
				      "picture", pic);
			json_array_append_new(groups, g);
		} else {
			g = json_array_get(groups, (size_t)k);
			json_decref(pic);
		}
		json_object_set_new(g, "count",
				    json_integer(json_integer_value(json_object_get(g, "count")) + 1));
		json_array_append(json_object_get(g, "nodes"), json_object_get(node, "node"));
	}
	return groups;
}

json_t *pcie_fleet_groups(const json_t *nodes)
{
	json_t *groups = collect(nodes), *out = json_array(), *maj, *g;
	json_t *sorted[1024];
	size_t n = json_array_size(groups), i;

	if (!groups || !out) {
		json_decref(groups);
		json_decref(out);
		return NULL;
	}
	if (n > sizeof(sorted) / sizeof(sorted[0]))
		n = sizeof(sorted) / sizeof(sorted[0]);	/* 1024 pictures: the rest left out */
	for (i = 0; i < n; i++)
		sorted[i] = json_array_get(groups, i);
	/* Stable for equal counts: insertion sort keeps the first node's group first. */
	for (i = 1; i < n; i++)
		for (size_t j = i; j > 0 && by_count(&sorted[j - 1], &sorted[j]) > 0; j--) {
			json_t *t = sorted[j];

			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	maj = n ? json_object_get(sorted[0], "picture") : NULL;
	for (i = 0; i < n; i++) {
		g = sorted[i];
		json_array_append_new(out, json_pack("{s:O, s:b, s:O, s:o}",
			"count", json_object_get(g, "count"), "majority", i == 0,
			"nodes", json_object_get(g, "nodes"),
			"differs", differs(json_object_get(g, "picture"), maj)));
	}
	json_decref(groups);
	return out;
}
