// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts / apply --hosts checks (src/fleet/fleet_op.c) and the
 * fleet documents written from them (src/render/fleet_doc.c): the node
 * documents are made by the same builders the worker uses (verify_to_json,
 * apply_to_json over a real changeset_diff), added to a struct fleet_run as
 * fleet_op_run() adds the answers; the check must flatten drift/steps
 * with the node's name, count nodes, turn malformed answers into failed
 * nodes with the reason, and the document keep the same keys when nothing
 * answered.  The text tables are checked line by line; the JSON against a
 * golden file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fleet/fleet_op.h"
#include "model/changeset.h"
#include "model/host_state.h"
#include "model/lossless.h"
#include "model/profile.h"
#include "render/render.h"
#include "util/array.h"

struct fixture {
	struct profile *p;
	struct host_state hs;
	struct node_config ns;
	struct changeset cs;	/* eth0: mtu 1500 -> 9000, pfc unknown -> 3 */
	struct changeset empty;
};

static int setup(void **state)
{
	static const char text[] =
		"interfaces:\n"
		"  - match: eth0\n"
		"    mtu: 9000\n"
		"    pfc: {enable: [3]}\n";
	struct fixture *f = calloc(1, sizeof(*f));
	struct fab_err err;
	struct fab_link *l;
	struct node_iface *ni;

	assert_non_null(f);
	fab_err_init(&err);
	assert_int_equal(profile_parse("p.yaml", (const unsigned char *)text, sizeof(text) - 1,
				       &f->p, &err), 0);
	host_state_init(&f->hs);
	l = host_state_link_add(&f->hs);
	snprintf(l->name, sizeof(l->name), "eth0");
	l->mtu = 1500;
	node_config_init(&f->ns, &f->hs);
	ni = node_config_iface_add(&f->ns, "eth0");
	ni->dcb_rc = -EOPNOTSUPP;
	snprintf(ni->dcb_msg, sizeof(ni->dcb_msg), "dcb: eth0: dcb not supported by driver");
	changeset_init(&f->cs);
	assert_int_equal(changeset_diff(f->p, &f->ns, &f->cs, &err), 0);
	assert_int_equal(f->cs.n_drift, 2);
	assert_int_equal(f->cs.n_steps, 2);
	changeset_init(&f->empty);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	changeset_fini(&f->cs);
	changeset_fini(&f->empty);
	node_config_fini(&f->ns);
	host_state_fini(&f->hs);
	profile_free(f->p);
	free(f);
	return 0;
}

/* Add one node's answer to @run: @doc stolen (NULL: failed with @error). */
static void node(struct fleet_run *run, const char *name, json_t *doc, const char *error)
{
	assert_int_equal(fleet_run_add(run, name, "10.0.0.1", doc, error), 0);
}

/* fleet_verify_check() over @run and its document (new reference); *@failed, *@drifted. */
static json_t *verify_merge(struct fleet_run *run, size_t *failed, size_t *drifted)
{
	struct fleet_verify v;
	json_t *doc;

	assert_int_equal(fleet_verify_check(run, "p.yaml", &v), 0);
	doc = fleet_verify_to_json(&v);
	assert_non_null(doc);
	*failed = run->n_failed;
	*drifted = v.n_drifted;
	fleet_verify_fini(&v);
	return doc;
}

/* The same for apply. */
static json_t *apply_merge(struct fleet_run *run, bool dry_run, size_t *failed)
{
	struct fleet_apply a;
	json_t *doc;

	assert_int_equal(fleet_apply_check(run, "p.yaml", dry_run, &a), 0);
	doc = fleet_apply_to_json(&a);
	assert_non_null(doc);
	*failed = run->n_failed;
	fleet_apply_fini(&a);
	return doc;
}

/* @ops's @slot of @v written to a string (free() it). */
static char *render_verify(const struct render_ops *ops, const struct fleet_verify *v, bool pretty)
{
	struct render out = { .ops = ops, .pretty = pretty };
	char *buf = NULL;
	size_t len = 0;

	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(ops->verify_fleet(&out, v), 0);
	fclose(out.f);
	return buf;
}

static const char *jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	assert_non_null(s);
	return s;
}

static long long jint(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	assert_true(json_is_integer(v));
	return (long long)json_integer_value(v);
}

static void test_verify_merge(void **state)
{
	struct fixture *f = *state;
	struct fleet_run run;
	size_t failed = 99, drifted = 99;
	json_t *doc, *d, *sum;

	fleet_run_init(&run, "verify");
	node(&run, "a", verify_to_json("p.yaml", "a", &f->empty), NULL);
	node(&run, "b", verify_to_json("p.yaml", "b", &f->cs), NULL);
	node(&run, "c", NULL, "no hello within 15000 ms");
	doc = verify_merge(&run, &failed, &drifted);

	assert_non_null(doc);
	assert_int_equal(failed, 1);
	assert_int_equal(drifted, 1);
	assert_string_equal(jstr(doc, "schema"), "fabricctl.fleet-verify/1");
	assert_string_equal(jstr(doc, "profile"), "p.yaml");
	assert_true(json_is_false(json_object_get(doc, "ok")));
	d = json_object_get(doc, "drift");
	assert_int_equal(json_array_size(d), 2);
	assert_string_equal(jstr(json_array_get(d, 0), "node"), "b");
	assert_string_equal(jstr(json_array_get(d, 0), "interface"), "eth0");
	assert_string_equal(jstr(json_array_get(d, 0), "field"), "mtu");
	assert_string_equal(jstr(json_array_get(d, 0), "wanted"), "9000");
	assert_string_equal(jstr(json_array_get(d, 0), "found"), "1500");
	assert_string_equal(jstr(json_array_get(d, 1), "node"), "b");
	assert_string_equal(jstr(json_array_get(d, 1), "field"), "pfc.enable");
	sum = json_object_get(doc, "summary");
	assert_int_equal(jint(sum, "nodes"), 3);
	assert_int_equal(jint(sum, "ok"), 1);
	assert_int_equal(jint(sum, "drifted"), 1);
	assert_int_equal(jint(sum, "failed"), 1);
	assert_int_equal(jint(sum, "n_drift"), 2);
	/* The failed node keeps its reason and a null document. */
	assert_string_equal(jstr(json_array_get(json_object_get(doc, "nodes"), 2), "error"),
			    "no hello within 15000 ms");
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "nodes"), 2),
						 "verify")));
	json_decref(doc);
	fleet_run_fini(&run);
}

/* Each malformed answer makes its node failed with the reason; its drift is not taken. */
static void test_verify_merge_malformed(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *key, *json, *why;
	} cases[] = {
		{ "schema", "\"fabricctl.status/1\"", "schema" },
		{ "n_drift", "5", "n_drift" },
		{ "ok", "true", "\"ok\" does not agree" },
		{ "drift", "{}", "\"drift\" is not an array" },
		{ "drift", "[{\"interface\":\"eth0\",\"field\":\"mtu\",\"wanted\":\"1\"}]", "n_drift" },
		{ "drift", "[1, 2]", "lacks interface, field, wanted or found" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		json_t *v = verify_to_json("p.yaml", "b", &f->cs), *doc, *n;
		size_t failed = 0, drifted = 0;
		struct fleet_run run;

		json_object_set_new(v, cases[i].key, json_loads(cases[i].json, JSON_DECODE_ANY, NULL));
		fleet_run_init(&run, "verify");
		node(&run, "b", v, NULL);
		doc = verify_merge(&run, &failed, &drifted);
		assert_int_equal(failed, 1);
		assert_int_equal(drifted, 0);
		assert_int_equal(json_array_size(json_object_get(doc, "drift")), 0);
		n = json_array_get(json_object_get(doc, "nodes"), 0);
		assert_true(json_is_false(json_object_get(n, "ok")));
		assert_true(json_is_null(json_object_get(n, "verify")));
		if (!strstr(jstr(n, "error"), "malformed verify document") ||
		    !strstr(jstr(n, "error"), cases[i].why))
			fail_msg("case %zu: error '%s' lacks '%s'", i, jstr(n, "error"), cases[i].why);
		json_decref(doc);
		fleet_run_fini(&run);
	}
	/* A drift entry without "found" while n_drift agrees. */
	{
		json_t *v = verify_to_json("p.yaml", "b", &f->cs), *doc;
		size_t failed = 0, drifted = 0;
		struct fleet_run run;

		json_object_del(json_array_get(json_object_get(v, "drift"), 1), "found");
		fleet_run_init(&run, "verify");
		node(&run, "b", v, NULL);
		doc = verify_merge(&run, &failed, &drifted);
		assert_int_equal(failed, 1);
		assert_non_null(strstr(jstr(json_array_get(json_object_get(doc, "nodes"), 0), "error"),
				       "lacks interface, field, wanted or found"));
		json_decref(doc);
		fleet_run_fini(&run);
	}
}

/* No node answered, or there were none: the same keys, arrays stay arrays. */
static void test_verify_merge_same_keys(void **state)
{
	static const char *const keys[] = { "schema", "profile", "ok", "nodes", "drift", "summary",
					    "pcie_groups", "chain_groups" };
	struct fleet_run runs[2];

	fleet_run_init(&runs[0], "verify");
	node(&runs[0], "a", NULL, "exited with status 127");
	fleet_run_init(&runs[1], "verify");
	for (int r = 0; r < 2; r++) {
		size_t failed = 9, drifted = 9;
		json_t *doc = verify_merge(&runs[r], &failed, &drifted);

		assert_non_null(doc);
		assert_int_equal(json_object_size(doc), ARRAY_SIZE(keys));
		for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
			assert_non_null(json_object_get(doc, keys[k]));
		assert_true(json_is_array(json_object_get(doc, "drift")));
		assert_true(json_is_array(json_object_get(doc, "pcie_groups")));
		assert_int_equal(json_array_size(json_object_get(doc, "pcie_groups")), 0);
		assert_true(json_is_array(json_object_get(doc, "chain_groups")));
		assert_int_equal(json_array_size(json_object_get(doc, "chain_groups")), 0);
		assert_int_equal(failed, r == 0 ? 1 : 0);
		assert_int_equal(drifted, 0);
		assert_true(json_is_true(json_object_get(doc, "ok")) == (r == 1));
		json_decref(doc);
		fleet_run_fini(&runs[r]);
	}
}

static void test_verify_fleet_text(void **state)
{
	struct fixture *f = *state;
	struct fleet_run run;
	struct fleet_verify v;
	char *buf;

	fleet_run_init(&run, "verify");
	node(&run, "a", verify_to_json("p.yaml", "a", &f->empty), NULL);
	node(&run, "b", verify_to_json("p.yaml", "b", &f->cs), NULL);
	node(&run, "c", NULL, "sent garbage: \"HTTP/1.1\"");
	assert_int_equal(fleet_verify_check(&run, "p.yaml", &v), 0);
	buf = render_verify(&render_text_ops, &v, false);
	assert_string_equal(buf,
		"verify p.yaml on 3 nodes: 1 ok, 1 drifted (2 drifts), 1 failed\n"
		"NODE             INTERFACE        FIELD              WANTED               FOUND\n"
		"b                eth0             mtu                9000                 1500\n"
		"b                eth0             pfc.enable         3                    unknown (dcb: eth0: dcb not supported by driver)\n"
		"c                FAILED: sent garbage: \"HTTP/1.1\"\n");
	free(buf);
	fleet_verify_fini(&v);
	fleet_run_fini(&run);
}

/* A verify document of one node whose eth0 chain is @path, broken by @brk (NONE: whole). */
static json_t *chain_doc(const char *node, const char *path, enum lossless_break brk)
{
	struct lossless_chain c = { .verdict = brk ? LOSSLESS_BROKEN : LOSSLESS_OK, .brk = brk };
	struct changeset cs;
	json_t *doc;

	changeset_init(&cs);
	snprintf(c.ifname, sizeof(c.ifname), "eth0");
	snprintf(c.path, sizeof(c.path), "%s", path);
	if (brk)
		snprintf(c.finding, sizeof(c.finding), "%s, but PFC is off on priority 4", path);
	c.tos = c.dscp = c.prio = c.tc = c.buffer = c.cnp_dscp = c.cnp_prio = c.cnp_tc = -1;
	c.gid_index = -1;
	cs.chains = &c;
	cs.n_chains = 1;
	doc = verify_to_json("p.yaml", node, &cs);
	assert_non_null(doc);
	return doc;
}

/* Nodes grouped by their chain, the largest group first. */
static void test_verify_fleet_chain_groups(void **state)
{
	struct fleet_run run;
	struct fleet_verify v;
	json_t *doc, *g, *g0, *g1, *c;
	char *buf;

	fleet_run_init(&run, "verify");
	node(&run, "a", chain_doc("a", "DSCP 26 \u2192 prio 3 \u2192 TC 3", LOSSLESS_BREAK_NONE), NULL);
	node(&run, "b", chain_doc("b", "DSCP 26 \u2192 prio 4 \u2192 TC 4", LOSSLESS_BREAK_PFC_OFF), NULL);
	node(&run, "c", chain_doc("c", "DSCP 26 \u2192 prio 3 \u2192 TC 3", LOSSLESS_BREAK_NONE), NULL);
	assert_int_equal(fleet_verify_check(&run, "p.yaml", &v), 0);
	buf = render_verify(&render_text_ops, &v, false);
	assert_non_null(strstr(buf,
		"chains: 2 kinds, by group, largest first:\n"
		"  2 nodes ok: DSCP 26 \u2192 prio 3 \u2192 TC 3: a c\n"
		"  1 node BROKEN (pfc_off): DSCP 26 \u2192 prio 4 \u2192 TC 4: b\n"));
	free(buf);
	doc = fleet_verify_to_json(&v);
	g = json_object_get(doc, "chain_groups");
	assert_int_equal(json_array_size(g), 2);
	g0 = json_array_get(g, 0);
	g1 = json_array_get(g, 1);
	assert_int_equal(jint(g0, "count"), 2);
	assert_true(json_is_true(json_object_get(g0, "majority")));
	assert_true(json_is_false(json_object_get(g1, "majority")));
	assert_string_equal(json_string_value(json_array_get(json_object_get(g0, "nodes"), 1)), "c");
	c = json_array_get(json_object_get(g0, "chains"), 0);
	assert_int_equal(json_object_size(c), 3);
	assert_string_equal(jstr(c, "verdict"), "ok");
	assert_true(json_is_null(json_object_get(c, "break")));
	assert_string_equal(jstr(c, "path"), "DSCP 26 \u2192 prio 3 \u2192 TC 3");
	c = json_array_get(json_object_get(g1, "chains"), 0);
	assert_string_equal(jstr(c, "verdict"), "broken");
	assert_string_equal(jstr(c, "break"), "pfc_off");
	assert_string_equal(json_string_value(json_array_get(json_object_get(g1, "nodes"), 0)), "b");
	json_decref(doc);
	fleet_verify_fini(&v);
	fleet_run_fini(&run);
}

/* A node whose mlx5_0/1 (netdev eth0) is RoCE with a chain of verdict @brk (NONE: ok). */
static void roce_node(struct host_state *hs, enum lossless_break brk)
{
	struct fab_rdma_dev *d;
	struct fab_rdma_port *pt;
	struct lossless_chain *c;

	host_state_init(hs);
	snprintf(hs->hostname, sizeof(hs->hostname), "h");
	d = host_state_rdma_add(hs);
	assert_non_null(d);
	snprintf(d->name, sizeof(d->name), "mlx5_0");
	pt = rdma_dev_port_add(d);
	assert_non_null(pt);
	pt->port = 1;
	snprintf(pt->link_layer, sizeof(pt->link_layer), "Ethernet");
	snprintf(pt->state, sizeof(pt->state), "ACTIVE");
	snprintf(pt->netdev, sizeof(pt->netdev), "eth0");
	c = calloc(1, sizeof(*c));
	assert_non_null(c);
	pt->chain = c;
	c->verdict = brk ? LOSSLESS_BROKEN : LOSSLESS_OK;
	c->brk = brk;
	snprintf(c->ifname, sizeof(c->ifname), "eth0");
	snprintf(c->rdma_dev, sizeof(c->rdma_dev), "mlx5_0");
	c->rdma_port = 1;
	c->tos = 106;
	c->dscp = 26;
	c->prio = c->tc = brk ? 4 : 3;
	c->buffer = brk ? -1 : 1;
	c->pfc = !brk;
	c->cnp_dscp = 48;
	c->cnp_prio = c->cnp_tc = 6;
	c->gid_index = 3;
	snprintf(c->addr, sizeof(c->addr), "192.168.77.1");
	snprintf(c->path, sizeof(c->path), brk ? "DSCP 26 \u2192 prio 4 \u2192 TC 4" :
		 "DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 buffer 1");
	if (brk)
		snprintf(c->finding, sizeof(c->finding), "%s, but PFC is off on priority 4", c->path);
}

/* The "    chain ..." line of @hs's local status text, without its indent and "chain ". */
static char *local_chain_line(const struct host_state *hs)
{
	struct render out = { .ops = &render_text_ops };
	char *buf = NULL, *line, *end;
	size_t len = 0;

	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(render_text_ops.status(&out, hs), 0);
	fclose(out.f);
	line = strstr(buf, "    chain ");
	assert_non_null(line);
	end = strchr(line, '\n');
	line = strndup(line + 10, (size_t)(end - line - 10));
	free(buf);
	return line;
}

/*
 * status --hosts: the worker's status document (status_to_json(), what
 * op_status replies) carries each RoCE port's chain; the fleet text lists
 * one line a RoCE port, the same line `status` prints on the node; nothing
 * when no node has one (the table stays as it was).
 */
static void test_status_fleet_chains(void **state)
{
	struct render out = { .ops = &render_text_ops };
	struct host_state a, b;
	struct fleet_run run;
	char *buf = NULL, *la, *lb, want[2048];
	const json_t *c;
	json_t *doc;
	size_t len = 0;

	roce_node(&a, LOSSLESS_BREAK_NONE);
	roce_node(&b, LOSSLESS_BREAK_PFC_OFF);
	la = local_chain_line(&a);
	lb = local_chain_line(&b);
	assert_string_equal(la, "eth0 (mlx5_0/1) ok: DSCP 26 \u2192 prio 3 \u2192 TC 3 \u2192 "
			    "buffer 1, PFC on; CNP prio 6 \u2192 TC 6; GID 3 (192.168.77.1)");
	fleet_run_init(&run, "status");
	node(&run, "a", status_to_json(&a), NULL);
	node(&run, "b", status_to_json(&b), NULL);
	node(&run, "c", NULL, "no answer");
	doc = fleet_status_to_json(&run);
	c = json_object_get(json_array_get(json_object_get(json_array_get(json_object_get(
		json_object_get(json_array_get(json_object_get(doc, "nodes"), 1), "status"),
		"rdma"), 0), "ports"), 0), "chain");
	assert_string_equal(jstr(c, "verdict"), "broken");
	assert_string_equal(jstr(c, "break"), "pfc_off");
	assert_string_equal(jstr(c, "rdma"), "mlx5_0/1");
	json_decref(doc);
	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(render_text_ops.status_fleet(&out, &run), 0);
	fclose(out.f);
	snprintf(want, sizeof(want), "\nchains (RoCE ports):\n"
		 "NODE             CHAIN\n"
		 "a                %s\n"
		 "b                %s\n", la, lb);
	assert_non_null(strstr(buf, want));
	free(buf);
	fleet_run_fini(&run);
	/* No chain anywhere: no section. */
	free(a.rdma[0].ports[0].chain);
	a.rdma[0].ports[0].chain = NULL;
	fleet_run_init(&run, "status");
	node(&run, "a", status_to_json(&a), NULL);
	buf = NULL;
	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(render_text_ops.status_fleet(&out, &run), 0);
	fclose(out.f);
	assert_null(strstr(buf, "chains"));
	free(buf);
	fleet_run_fini(&run);
	free(la);
	free(lb);
	host_state_fini(&a);
	host_state_fini(&b);
}

/* A node name longer than the default 16 columns widens the NODE column on every row. */
static void test_verify_fleet_text_long_name(void **state)
{
	struct fixture *f = *state;
	struct fleet_run run;
	struct fleet_verify v;
	char *buf;

	fleet_run_init(&run, "verify");
	node(&run, "gpu-node-0123.cluster.example",
	     verify_to_json("p.yaml", "gpu-node-0123.cluster.example", &f->cs), NULL);
	node(&run, "c", NULL, "no answer");
	assert_int_equal(fleet_verify_check(&run, "p.yaml", &v), 0);
	buf = render_verify(&render_text_ops, &v, false);
	assert_string_equal(buf,
		"verify p.yaml on 2 nodes: 0 ok, 1 drifted (2 drifts), 1 failed\n"
		"NODE                          INTERFACE        FIELD              WANTED               FOUND\n"
		"gpu-node-0123.cluster.example eth0             mtu                9000                 1500\n"
		"gpu-node-0123.cluster.example eth0             pfc.enable         3                    unknown (dcb: eth0: dcb not supported by driver)\n"
		"c                             FAILED: no answer\n");
	free(buf);
	fleet_verify_fini(&v);
	fleet_run_fini(&run);
}

/* One more drift entry in @cs. */
static void drift_add(struct changeset *cs, const char *object, const char *field,
		      const char *wanted, const char *found)
{
	struct drift *d = array_add((void **)&cs->drift, &cs->n_drift, sizeof(*d));

	assert_non_null(d);
	snprintf(d->object, sizeof(d->object), "%s", object);
	snprintf(d->field, sizeof(d->field), "%s", field);
	snprintf(d->wanted, sizeof(d->wanted), "%s", wanted);
	snprintf(d->found, sizeof(d->found), "%s", found);
	d->verify_only = true;
}

/*
 * verify --hosts groups the verified nodes by their host-side drift: a and
 * d have the same NIC at x8 (a also an MTU drift, not host-side: same
 * group), b and c none, e no answer (not grouped), f ACS on and GPUDirect
 * not ready on two NICs (merged into one item in text).  Two groups of two:
 * the first node's first.
 */
static void test_verify_fleet_pcie_groups(void **state)
{
	struct fixture *f = *state;
	struct changeset a, d, h;
	struct fleet_run run;
	struct fleet_verify v;
	json_t *doc, *g;
	char *buf;

	changeset_init(&a);
	changeset_init(&d);
	changeset_init(&h);
	drift_add(&a, "mlx5_1", "pcie.width", "x16", "x8");
	drift_add(&a, "eth0", "mtu", "9000", "1500");
	drift_add(&d, "mlx5_1", "pcie.width", "x16", "x8");
	drift_add(&h, "mlx5_0", "pcie.acs", "off", "on at 0000:92:00.0 (ctl 0x001d)");
	drift_add(&h, "mlx5_0", "gpudirect", "ready", "no peer-memory module, no dma-buf");
	drift_add(&h, "mlx5_1", "gpudirect", "ready", "no peer-memory module, no dma-buf");
	fleet_run_init(&run, "verify");
	node(&run, "a", verify_to_json("p.yaml", "a", &a), NULL);
	node(&run, "b", verify_to_json("p.yaml", "b", &f->empty), NULL);
	node(&run, "c", verify_to_json("p.yaml", "c", &f->empty), NULL);
	node(&run, "d", verify_to_json("p.yaml", "d", &d), NULL);
	node(&run, "e", NULL, "no answer");
	node(&run, "f", verify_to_json("p.yaml", "f", &h), NULL);
	assert_int_equal(fleet_verify_check(&run, "p.yaml", &v), 0);
	buf = render_verify(&render_text_ops, &v, false);
	assert_string_equal(buf,
		"verify p.yaml on 6 nodes: 2 ok, 3 drifted (6 drifts), 1 failed\n"
		"NODE             INTERFACE        FIELD              WANTED               FOUND\n"
		"a                mlx5_1           pcie.width         x16                  x8\n"
		"a                eth0             mtu                9000                 1500\n"
		"d                mlx5_1           pcie.width         x16                  x8\n"
		"f                mlx5_0           pcie.acs           off                  on at 0000:92:00.0 (ctl 0x001d)\n"
		"f                mlx5_0           gpudirect          ready                no peer-memory module, no dma-buf\n"
		"f                mlx5_1           gpudirect          ready                no peer-memory module, no dma-buf\n"
		"e                FAILED: no answer\n"
		"\n"
		"PCIe drift on 3 of 5 verified nodes, by group, largest first:\n"
		"  2 nodes: mlx5_1 pcie.width x8, want x16: a, d\n"
		"  2 nodes: no PCIe drift: b, c\n"
		"  1 node: mlx5_0 pcie.acs on at 0000:92:00.0 (ctl 0x001d), want off; "
		"mlx5_0, mlx5_1 gpudirect no peer-memory module, no dma-buf, want ready: f\n");
	free(buf);
	doc = fleet_verify_to_json(&v);
	g = json_object_get(doc, "pcie_groups");
	assert_int_equal(json_array_size(g), 3);
	assert_true(json_is_true(json_object_get(json_array_get(g, 0), "majority")));
	assert_true(json_is_false(json_object_get(json_array_get(g, 1), "majority")));
	assert_int_equal(jint(json_array_get(g, 0), "count"), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(g, 0),
									     "nodes"), 1)), "d");
	assert_int_equal(json_array_size(json_object_get(json_array_get(g, 0), "drift")), 1);
	assert_string_equal(jstr(json_array_get(json_object_get(json_array_get(g, 0), "drift"), 0),
				 "found"), "x8");
	assert_int_equal(json_array_size(json_object_get(json_array_get(g, 1), "drift")), 0);
	assert_int_equal(json_array_size(json_object_get(json_array_get(g, 2), "drift")), 3);
	json_decref(doc);
	fleet_verify_fini(&v);
	fleet_run_fini(&run);
	changeset_fini(&a);
	changeset_fini(&d);
	changeset_fini(&h);
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "re");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(fp);
	assert_non_null(buf);
	n = fread(buf, 1, 65535, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void test_verify_fleet_json_golden(void **state)
{
	struct fixture *f = *state;
	struct fleet_run run;
	struct fleet_verify v;
	char *buf, *want;

	fleet_run_init(&run, "verify");
	node(&run, "node1", verify_to_json("p.yaml", "node1", &f->cs), NULL);
	node(&run, "node2", NULL, "no answer to verify within 60000 ms");
	assert_int_equal(fleet_verify_check(&run, "p.yaml", &v), 0);
	buf = render_verify(&render_json_ops, &v, true);
	want = slurp("tests/golden/fleet-verify.json");
	assert_string_equal(buf, want);
	free(want);
	free(buf);
	fleet_verify_fini(&v);
	fleet_run_fini(&run);
}

/* Three nodes: @ok's apply, @bad's, and one that was refused. */
static void apply_nodes(struct fleet_run *run, const struct apply_report *ok,
			const struct apply_report *bad)
{
	fleet_run_init(run, "apply");
	node(run, "a", apply_to_json(ok), NULL);
	node(run, "b", apply_to_json(bad), NULL);
	node(run, "c", NULL, "apply: another apply is running on this node");
}

static void test_apply_merge(void **state)
{
	struct fixture *f = *state;
	struct apply_report ok_rep = { .profile = "p.yaml", .cs = &f->empty, .failed = -1 };
	struct apply_report bad = { .profile = "p.yaml", .cs = &f->cs, .failed = 1,
				    .rolled_back = true };
	struct fleet_run run;
	json_t *doc, *c, *n;
	size_t failed = 0;

	f->cs.steps[0].status = CHANGE_STEP_UNDONE;
	f->cs.steps[1].status = CHANGE_STEP_FAILED;
	snprintf(bad.error, sizeof(bad.error), "step 2 (pfc eth0 enable 3) failed: no dcb");
	apply_nodes(&run, &ok_rep, &bad);
	doc = apply_merge(&run, false, &failed);
	assert_int_equal(failed, 2);
	assert_string_equal(jstr(doc, "schema"), "fabricctl.fleet-apply/1");
	assert_true(json_is_false(json_object_get(doc, "ok")));
	c = json_object_get(doc, "changes");
	assert_int_equal(json_array_size(c), 2);
	assert_string_equal(jstr(json_array_get(c, 0), "node"), "b");
	assert_string_equal(jstr(json_array_get(c, 0), "field"), "mtu");
	assert_string_equal(jstr(json_array_get(c, 0), "status"), "undone");
	assert_string_equal(jstr(json_array_get(c, 1), "status"), "failed");
	n = json_array_get(json_object_get(doc, "nodes"), 1);
	assert_true(json_is_false(json_object_get(n, "ok")));
	assert_string_equal(jstr(n, "error"), "step 2 (pfc eth0 enable 3) failed: no dcb");
	/* The failed node's own document stays, it says what was rolled back. */
	assert_true(json_is_true(json_object_get(json_object_get(n, "apply"), "rolled_back")));
	assert_true(json_is_true(json_object_get(json_array_get(json_object_get(doc, "nodes"), 0), "ok")));
	assert_int_equal(jint(json_object_get(doc, "summary"), "ok"), 1);
	assert_int_equal(jint(json_object_get(doc, "summary"), "changed"), 1);
	assert_int_equal(jint(json_object_get(doc, "summary"), "n_changes"), 2);
	json_decref(doc);
	fleet_run_fini(&run);

	/* A node that did not do what was asked (dry run vs apply) is failed. */
	apply_nodes(&run, &ok_rep, &bad);
	doc = apply_merge(&run, true, &failed);
	assert_int_equal(failed, 3);
	assert_string_equal(jstr(json_array_get(json_object_get(doc, "nodes"), 0), "error"),
			    "applied instead of a dry run");
	json_decref(doc);
	fleet_run_fini(&run);

	/* A malformed apply document. */
	{
		json_t *a = apply_to_json(&ok_rep);

		json_object_set_new(a, "steps", json_string("none"));
		fleet_run_init(&run, "apply");
		node(&run, "a", a, NULL);
		doc = apply_merge(&run, false, &failed);
		assert_int_equal(failed, 1);
		assert_non_null(strstr(jstr(json_array_get(json_object_get(doc, "nodes"), 0), "error"),
				       "malformed apply document: \"steps\" is not an array"));
		json_decref(doc);
		fleet_run_fini(&run);
	}
}

static void test_apply_fleet_text(void **state)
{
	struct fixture *f = *state;
	struct apply_report rep = { .profile = "p.yaml", .cs = &f->cs, .failed = -1,
				    .dry_run = true };
	struct render out = { .ops = &render_text_ops };
	struct fleet_run run;
	struct fleet_apply a;
	char *buf = NULL;
	size_t len = 0;

	fleet_run_init(&run, "apply");
	node(&run, "a", apply_to_json(&rep), NULL);
	node(&run, "b", NULL, "exited with status 127");
	assert_int_equal(fleet_apply_check(&run, "p.yaml", true, &a), 0);
	out.f = open_memstream(&buf, &len);
	assert_int_equal(render_text_ops.apply_fleet(&out, &a), 0);
	fclose(out.f);
	assert_string_equal(buf,
		"apply p.yaml (dry run) on 2 nodes: 1 ok, 1 failed, 1 changed (2 changes)\n"
		"NODE             STATUS      OBJECT           FIELD            FROM -> TO\n"
		"a                would       eth0             mtu              1500 -> 9000\n"
		/* certain to fail on that node: marked, with the node's reason */
		"a                WOULD-FAIL  eth0             pfc.enable       unknown -> 3\n"
		"                 dcb: eth0: dcb not supported by driver\n"
		"b                FAILED: exited with status 127\n");
	free(buf);
	fleet_apply_fini(&a);
	fleet_run_fini(&run);
}

/* ---- up-front checks ---- */

/* A fleet of @n nodes from @hosts_text, not started: hellos with @transports. */
static void fleet_fake(struct fleet *f, struct fab_hosts *hs, const char *hosts_text,
		       const char *transports)
{
	struct fab_err err;

	fab_err_init(&err);
	hosts_init(hs);
	assert_int_equal(hosts_parse(hs, hosts_text, strlen(hosts_text), "hosts", &err), 0);
	memset(f, 0, sizeof(*f));
	f->n = hs->n;
	f->hosts = hs;
	f->w = calloc(hs->n, sizeof(*f->w));
	assert_non_null(f->w);
	for (size_t i = 0; i < hs->n; i++) {
		f->w[i].host = &hs->hosts[i];
		f->w[i].hello = json_loads(transports, 0, NULL);
		assert_non_null(f->w[i].hello);
	}
}

static void fleet_fake_free(struct fleet *f, struct fab_hosts *hs, json_t **st)
{
	for (size_t i = 0; i < f->n; i++) {
		json_decref(f->w[i].hello);
		json_decref(st[i]);
	}
	free(f->w);
	hosts_fini(hs);
}

/* A status document with RDMA devices "name:port,port name:port". */
static json_t *status_with(const char *devs)
{
	json_t *rdma = json_array();
	char *copy = strdup(devs), *save = NULL;

	for (char *d = strtok_r(copy, " ", &save); d; d = strtok_r(NULL, " ", &save)) {
		char *ports = strchr(d, ':'), *save2 = NULL;
		json_t *pa = json_array();

		*ports++ = '\0';
		for (char *p = strtok_r(ports, ",", &save2); p; p = strtok_r(NULL, ",", &save2))
			json_array_append_new(pa, json_pack("{s:i}", "port", atoi(p)));
		json_array_append_new(rdma, json_pack("{s:s, s:o}", "name", d, "ports", pa));
	}
	free(copy);
	return json_pack("{s:s, s:[], s:o}", "schema", "fabricctl.status/1", "links", "rdma", rdma);
}

static void test_rdma_judge(void **state)
{
	const char *verbs = "{\"transports\": [\"tcp\", \"verbs\"]}";
	struct fab_hosts hs;
	struct fleet f;
	struct fab_err err;
	json_t *st[6];

	/* No node has a device: one error listing them, with the tcp hint. */
	fleet_fake(&f, &hs, "h1 10.0.0.1\nh2 10.0.0.2\n", verbs);
	st[0] = status_with("");
	st[1] = status_with("");
	fab_err_init(&err);
	assert_int_equal(fleet_rdma_judge(&f, st, &err), -ENODEV);
	assert_int_equal(err.kind, FAB_ERR_INPUT);
	assert_string_equal(err.msg, "--transport verbs: 2 of 2 nodes cannot run it: h1: no RDMA "
			    "device; h2: no RDMA device (sweep these nodes with --transport tcp)");
	fleet_fake_free(&f, &hs, st);

	/* Each other case, named; a node that did not answer (NULL) is not judged here. */
	fleet_fake(&f, &hs, "h1 10.0.0.1 rdma=mlx5_0\nh2 10.0.0.2\nh3 10.0.0.3 rdma=mlx5_1:2\n"
		   "h4 10.0.0.4 rdma=mlx5_0:2\nh5 10.0.0.5 rdma=mlx5_0\nh6 10.0.0.6 rdma=mlx5_0\n",
		   verbs);
	st[0] = status_with("mlx5_0:1");		/* ok */
	st[1] = status_with("mlx5_0:1 mlx5_1:1");	/* no rdma= */
	st[2] = status_with("mlx5_0:1");		/* no mlx5_1 */
	st[3] = status_with("mlx5_0:1");		/* no port 2 */
	st[4] = NULL;
	st[5] = status_with("");
	fab_err_init(&err);
	assert_int_equal(fleet_rdma_judge(&f, st, &err), -ENODEV);
	assert_string_equal(err.msg, "--transport verbs: 4 of 6 nodes cannot run it: "
			    "h2: no rdma=DEV on line 2 of the hosts file (it has mlx5_0, mlx5_1); "
			    "h3: no RDMA device mlx5_1 (it has mlx5_0); h4: mlx5_0 has no port 2; "
			    "h6: no RDMA device");
	fleet_fake_free(&f, &hs, st);

	/* Built without verbs; more than four listed as a count. */
	fleet_fake(&f, &hs, "a 10.0.0.1\nb 10.0.0.2\nc 10.0.0.3\nd 10.0.0.4\ne 10.0.0.5\n"
		   "f 10.0.0.6\n", "{\"transports\": [\"tcp\"]}");
	for (size_t i = 0; i < 6; i++)
		st[i] = status_with("mlx5_0:1");
	fab_err_init(&err);
	assert_int_equal(fleet_rdma_judge(&f, st, &err), -ENODEV);
	assert_string_equal(err.msg, "--transport verbs: 6 of 6 nodes cannot run it: "
			    "a: its fabricctl is built without verbs; b: its fabricctl is built "
			    "without verbs; c: its fabricctl is built without verbs; d: its "
			    "fabricctl is built without verbs; and 2 more");
	fleet_fake_free(&f, &hs, st);

	/* Every node fit: no error. */
	fleet_fake(&f, &hs, "h1 10.0.0.1 rdma=rxe0\nh2 10.0.0.2 rdma=mlx5_0:2\n", verbs);
	st[0] = status_with("rxe0:1");
	st[1] = status_with("mlx5_0:1,2");
	fab_err_init(&err);
	assert_int_equal(fleet_rdma_judge(&f, st, &err), 0);
	fleet_fake_free(&f, &hs, st);
}

static void test_launcher_check(void **state)
{
	struct fab_hosts hs;
	struct fab_err err;
	struct fleet_opts o = FLEET_OPTS_DEFAULT;
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	char file[] = "/tmp/test_fleet_op.XXXXXX", tmpl[64], want[160];
	int fd;

	hosts_init(&hs);
	fab_err_init(&err);
	assert_int_equal(hosts_parse(&hs, "h1 10.0.0.1\n", 12, "hosts", &err), 0);
	o.launcher = "sh -c {host}";
	assert_int_equal(fleet_launcher_check(&o, &hs, &err), 0);
	o.launcher = "/bin/sh -c {host}";
	assert_int_equal(fleet_launcher_check(&o, &hs, &err), 0);
	o.launcher = "nosuch-launcher-xyz {host}";
	assert_int_equal(fleet_launcher_check(&o, &hs, &err), -ENOENT);
	assert_int_equal(err.kind, FAB_ERR_INPUT);
	assert_string_equal(err.msg, "launcher 'nosuch-launcher-xyz {host}': nosuch-launcher-xyz: "
			    "command not found in PATH");
	/* A file without execute bits (root too needs one). */
	fd = mkstemp(file);
	assert_true(fd >= 0);
	close(fd);
	snprintf(tmpl, sizeof(tmpl), "%s {host}", file);
	snprintf(want, sizeof(want), "launcher '%s': %s: not an executable file", tmpl, file);
	fab_err_init(&err);
	o.launcher = tmpl;
	assert_int_equal(fleet_launcher_check(&o, &hs, &err), -ENOENT);
	assert_string_equal(err.msg, want);
	unlink(file);
	fab_err_init(&err);
	o.launcher = "/tmp {host}";		/* a directory */
	assert_int_equal(fleet_launcher_check(&o, &hs, &err), -ENOENT);
	/* A PATH without sh's directory: not found; execvp's default without PATH. */
	setenv("PATH", "/nonexistent:", 1);
	o.launcher = "sh -c {host}";
	assert_int_equal(fleet_launcher_check(&o, &hs, &err), -ENOENT);
	unsetenv("PATH");
	assert_int_equal(fleet_launcher_check(&o, &hs, &err), 0);
	if (path)
		setenv("PATH", path, 1);
	free(path);
	/* The template's own error comes first. */
	fab_err_init(&err);
	o.launcher = "ip netns exec";
	assert_int_equal(fleet_launcher_check(&o, &hs, &err), -EINVAL);
	hosts_fini(&hs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_verify_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_merge_malformed, setup, teardown),
		cmocka_unit_test(test_verify_merge_same_keys),
		cmocka_unit_test_setup_teardown(test_verify_fleet_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_fleet_text_long_name, setup, teardown),
		cmocka_unit_test(test_verify_fleet_chain_groups),
		cmocka_unit_test(test_status_fleet_chains),
		cmocka_unit_test_setup_teardown(test_verify_fleet_json_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_fleet_pcie_groups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_fleet_text, setup, teardown),
		cmocka_unit_test(test_rdma_judge),
		cmocka_unit_test(test_launcher_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
