// SPDX-License-Identifier: GPL-2.0-or-later
/* One host's Ethernet / RoCE counters by name (nic_counters.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/nic_counters.h"
#include "util/array.h"
#include "util/str.h"

static const char *const src_names[NIC_SRC_MAX] = {
	[NIC_SRC_HW] = "hw_counters",
	[NIC_SRC_IB] = "counters",
	[NIC_SRC_ETHTOOL] = "ethtool",
	[NIC_SRC_STATS] = "stats",
};

const char *nic_src_name(enum nic_src s)
{
	return (unsigned int)s < NIC_SRC_MAX ? src_names[s] : NULL;
}

void nic_counters_init(struct nic_counters *c)
{
	memset(c, 0, sizeof(*c));
}

void nic_counters_fini(struct nic_counters *c)
{
	free(c->v);
	memset(c, 0, sizeof(*c));
}

int nic_counters_add(struct nic_counters *c, enum nic_src src, unsigned int rdma,
		     const char *name, uint64_t value)
{
	if (c->n == NIC_SAMPLES_MAX)
		return -E2BIG;
	if (array_reserve((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)) < 0)
		return -ENOMEM;
	struct nic_sample *s = &c->v[c->n++];

	s->src = src;
	s->rdma = rdma;
	str_fmt(s->name, sizeof(s->name), "%s", name);
	s->value = value;
	return 0;
}

int nic_counters_add_rdma(struct nic_counters *c, const char *dev, unsigned int port)
{
	if (c->n_rdma == NIC_RDMA_MAX)
		return -E2BIG;
	str_fmt(c->rdma[c->n_rdma].dev, sizeof(c->rdma[0].dev), "%s", dev);
	c->rdma[c->n_rdma].port = port;
	return (int)c->n_rdma++;
}

/* One "   name: value" line; 1 when it is one (name and value set). */
static int ethtool_line(const char *p, const char *end, char *name, size_t nlen, uint64_t *v)
{
	char num[32];
	const char *colon;
	size_t k;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon || colon == p || (size_t)(colon - p) >= nlen)
		return 0;
	memcpy(name, p, (size_t)(colon - p));
	name[colon - p] = '\0';
	if (strpbrk(name, " \t"))
		return 0;	/* "NIC statistics" and other prose */
	p = colon + 1;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	k = (size_t)(end - p);
	while (k && (p[k - 1] == ' ' || p[k - 1] == '\t' || p[k - 1] == '\r'))
		k--;
	if (!k || k >= sizeof(num))
		return 0;
	memcpy(num, p, k);
	num[k] = '\0';
	return parse_uint(num, 10, v) == 0;
}

int nic_counters_parse_ethtool(struct nic_counters *c, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char name[64];
		uint64_t v;

		if (ethtool_line(p, le, name, sizeof(name), &v)) {
			int rc = nic_counters_add(c, NIC_SRC_ETHTOOL, 0, name, v);

			if (rc)
				return rc;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* {name: value} of the samples of @src (and rdma port @rdma for the RDMA sources). */
static json_t *src_to_json(const struct nic_counters *c, enum nic_src src, unsigned int rdma)
{
	json_t *o = json_object();

	for (size_t i = 0; o && i < c->n; i++)
		if (c->v[i].src == src && (src >= NIC_SRC_ETHTOOL || c->v[i].rdma == rdma))
			json_object_set_new(o, c->v[i].name, json_integer((json_int_t)c->v[i].value));
	return o;
}

json_t *nic_counters_to_json(const struct nic_counters *c)
{
	json_t *rdma = json_array();

	for (size_t i = 0; rdma && i < c->n_rdma; i++)
		json_array_append_new(rdma, json_pack("{s:s, s:I, s:o, s:o}",
			"dev", c->rdma[i].dev, "port", (json_int_t)c->rdma[i].port,
			"hw_counters", src_to_json(c, NIC_SRC_HW, (unsigned int)i),
			"counters", src_to_json(c, NIC_SRC_IB, (unsigned int)i)));
	return json_pack("{s:s, s:o, s:o, s:o}", "ifname", c->ifname,
			 "stats", src_to_json(c, NIC_SRC_STATS, 0),
			 "ethtool", src_to_json(c, NIC_SRC_ETHTOOL, 0),
			 "rdma", rdma ? rdma : json_null());
}

static int src_from_json(struct nic_counters *c, json_t *o, enum nic_src src,
			 unsigned int rdma, struct fab_err *err)
{
	const char *k;
	json_t *v;

	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o))
		return fab_err_input(err, -EINVAL, "counters: %s: not an object", nic_src_name(src));
	json_object_foreach(o, k, v) {
		int rc;

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fab_err_input(err, -EINVAL, "counters: %s: %.64s: not a non-negative integer",
					     nic_src_name(src), k);
		rc = nic_counters_add(c, src, rdma, k, (uint64_t)json_integer_value(v));
		if (rc == -E2BIG)
			return fab_err_input(err, rc, "counters: more than %d", NIC_SAMPLES_MAX);
		if (rc)
			return fab_err_set(err, rc, "counters: out of memory");
	}
	return 0;
}

int nic_counters_from_json(struct nic_counters *c, const json_t *doc, struct fab_err *err)
{
	const char *ifname = json_string_value(json_object_get(doc, "ifname"));
	json_t *rdma = json_object_get(doc, "rdma"), *e;
	size_t i;
	int rc;

	if (!json_is_object(doc) || !ifname)
		return fab_err_input(err, -EINVAL, "counters: not an object with \"ifname\"");
	str_fmt(c->ifname, sizeof(c->ifname), "%s", ifname);
	rc = src_from_json(c, json_object_get(doc, "stats"), NIC_SRC_STATS, 0, err);
	if (rc == 0)
		rc = src_from_json(c, json_object_get(doc, "ethtool"), NIC_SRC_ETHTOOL, 0, err);
	if (rc < 0)
		return rc;
	if (rdma && !json_is_null(rdma) && !json_is_array(rdma))
		return fab_err_input(err, -EINVAL, "counters: rdma: not an array");
	json_array_foreach(rdma, i, e) {
		const char *dev = json_string_value(json_object_get(e, "dev"));
		const json_t *port = json_object_get(e, "port");
		int k;

		if (!dev || !json_is_integer(port) || json_integer_value(port) < 0 ||
		    json_integer_value(port) > 255)
			return fab_err_input(err, -EINVAL, "counters: rdma[%zu]: needs \"dev\" and \"port\"", i);
		k = nic_counters_add_rdma(c, dev, (unsigned int)json_integer_value(port));
		if (k < 0)
			return fab_err_input(err, k, "counters: rdma: more than %d ports", NIC_RDMA_MAX);
		rc = src_from_json(c, json_object_get(e, "hw_counters"), NIC_SRC_HW, (unsigned int)k, err);
		if (rc == 0)
			rc = src_from_json(c, json_object_get(e, "counters"), NIC_SRC_IB, (unsigned int)k, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* An IB sysfs counters/ name as its PMA alias (topo_counter_name), where the rules record one. */
static const char *ib_alias(const char *name)
{
	const struct counter_rule *r = counter_rules_sysfs(name);

	return r && r->alias ? r->alias : name;
}

struct snap_ent {
	const char *name;	/* as counter_eval knows it */
	enum nic_src src;
	uint64_t value;
};

static int ent_cmp(const void *x, const void *y)
{
	const struct snap_ent *a = x, *b = y;
	int c = strcmp(a->name, b->name);

	return c ? c : (int)a->src - (int)b->src;
}

int nic_counters_snap(const struct nic_counters *c, const struct counter_policy *pol,
		      const struct topo_port *port, struct counter_snap *s)
{
	struct counter_policy def;
	struct snap_ent *e = malloc((c->n ? c->n : 1) * sizeof(*e));
	size_t k = 0;
	int rc = 0;

	if (!e)
		return -ENOMEM;
	if (!pol) {
		counter_policy_default(&def);
		pol = &def;
	}
	for (size_t i = 0; i < c->n; i++) {
		const char *name = c->v[i].src == NIC_SRC_IB ? ib_alias(c->v[i].name) : c->v[i].name;

		if (counter_policy_find(pol, name))
			e[k++] = (struct snap_ent){ .name = name, .src = c->v[i].src,
						    .value = c->v[i].value };
	}
	/* One sample per name: the first source in enum order. */
	qsort(e, k, sizeof(*e), ent_cmp);
	for (size_t i = 0; rc == 0 && i < k; i++)
		if (i == 0 || strcmp(e[i].name, e[i - 1].name) != 0)
			rc = counter_snap_add(s, port, e[i].name, e[i].value);
	free(e);
	return rc;
}
