// SPDX-License-Identifier: GPL-2.0-or-later
/* Nodes grouped by their PCIe picture, or by their PCIe drift (model/pcie_fleet.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/pcie_fleet.h"

/* A fleet-status node whose one NIC runs at @width, with @gpus GPUs. */
static json_t *node(const char *name, int width, int gpus)
{
	json_t *gl = json_array();

	for (int i = 0; i < gpus; i++)
		json_array_append_new(gl, json_pack("{s:s, s:{s:i, s:f}, s:i}", "bdf",
			i ? "0000:16:00.0" : "0000:14:00.0", "link", "width", 16, "speed_gts", 32.0,
			"numa_node", 0));
	return json_pack("{s:s, s:b, s:{s:{s:[{s:s, s:s, s:{s:i, s:f}, s:i, s:{s:s, s:{s:[], s:i}}, s:{s:n}}], s:o, s:{s:b}}}}",
		"node", name, "ok", 1, "status", "pcie", "nics", "bdf", "0000:13:00.0",
		"driver", "mlx5_core", "link", "width", width, "speed_gts", 32.0, "numa_node", 0,
		"near_gpus", "distance", "switch", "acs", "p2p_redirect", "unread", 0,
		"fw_lldp", "agent", "gpus", gl, "gpudirect", "ready", gpus > 0);
}

static void test_groups(void **state)
{
	json_t *nodes = json_array(), *g, *d;

	(void)state;
	json_array_append_new(nodes, node("n1", 16, 2));
	json_array_append_new(nodes, node("n2", 8, 2));
	json_array_append_new(nodes, node("n3", 16, 2));
	json_array_append_new(nodes, json_pack("{s:s, s:b, s:s}", "node", "n4", "ok", 0,
					       "error", "no answer"));
	json_array_append_new(nodes, node("n5", 16, 1));
	json_array_append_new(nodes, node("n6", 16, 2));
	g = pcie_fleet_groups(nodes);
	assert_int_equal(json_array_size(g), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(g, 0), "count")), 3);
	assert_true(json_is_true(json_object_get(json_array_get(g, 0), "majority")));
	assert_int_equal(json_array_size(json_object_get(json_array_get(g, 0), "differs")), 0);
	/* n2: its NIC at x8. */
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(g, 1),
							     "nodes"), 0)), "n2");
	d = json_array_get(json_object_get(json_array_get(g, 1), "differs"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "what")), "nic 0000:13:00.0");
	assert_string_equal(json_string_value(json_object_get(d, "here")),
			    "mlx5_core x8 32GT/s numa 0 gpus switch acs off fw-lldp -");
	assert_string_equal(json_string_value(json_object_get(d, "majority")),
			    "mlx5_core x16 32GT/s numa 0 gpus switch acs off fw-lldp -");
	/* n5: a GPU missing. */
	d = json_array_get(json_object_get(json_array_get(g, 2), "differs"), 0);
	assert_string_equal(json_string_value(json_object_get(d, "what")), "gpu 0000:16:00.0");
	assert_string_equal(json_string_value(json_object_get(d, "here")), "-");
	assert_string_equal(json_string_value(json_object_get(d, "majority")), "x16 32GT/s numa 0");
	json_decref(g);
	json_decref(nodes);
	/* Nobody read: no group. */
	nodes = json_array();
	json_array_append_new(nodes, json_pack("{s:s, s:b}", "node", "n1", "ok", 0));
	g = pcie_fleet_groups(nodes);
	assert_int_equal(json_array_size(g), 0);
	json_decref(g);
	json_decref(nodes);
}

static void test_tie_first_node(void **state)
{
	json_t *nodes = json_array(), *g;

	(void)state;
	json_array_append_new(nodes, node("a", 8, 1));
	json_array_append_new(nodes, node("b", 16, 1));
	g = pcie_fleet_groups(nodes);
	assert_int_equal(json_array_size(g), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(g, 0),
							     "nodes"), 0)), "a");
	json_decref(g);
	json_decref(nodes);
}

/* More distinct pictures than the 1,024 the groups were once cut to: every node grouped. */
static void test_many_pictures(void **state)
{
	json_t *nodes = json_array(), *g;
	char name[16];

	(void)state;
	for (int i = 0; i < 1100; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		json_array_append_new(nodes, node(name, i + 1, 0));
	}
	json_array_append_new(nodes, node("again", 3, 0));
	g = pcie_fleet_groups(nodes);
	assert_int_equal(json_array_size(g), 1100);
	/* The one group of two first; then the others in node order. */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(g, 0), "count")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(g, 0),
							     "nodes"), 1)), "again");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(g, 1),
							     "nodes"), 0)), "n0");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(g, 1099),
							     "nodes"), 0)), "n1099");
	json_decref(g);
	json_decref(nodes);
}

static void test_drift_field(void **state)
{
	static const struct {
		const char *field, *wanted;
		bool host;
	} cases[] = {
		{ "pcie.width", "x16", true }, { "pcie.speed", "32GT/s", true },
		{ "pcie.acs", "off", true }, { "pcie.numa", "local (node 0)", true },
		{ "gpudirect", "ready", true }, { "fw_lldp", "off", true },
		{ "match", "a nic", true }, { "match", "an interface", false },
		{ "match", NULL, false }, { "mtu", "9000", false }, { "width", "4x", false },
		{ "speed", "NDR", false }, { "dual-homing", "members on two switches", false },
		{ "pcie", "x", false }, { "gpudirect.x", "ready", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (pcie_fleet_drift_field(cases[i].field, cases[i].wanted) != cases[i].host)
			fail_msg("case %zu: %s %s", i, cases[i].field, cases[i].wanted);
	assert_false(pcie_fleet_drift_field(NULL, "a nic"));
}

/* A verified node of a fleet-verify document. */
static json_t *vnode(const char *name, bool ok)
{
	return json_pack("{s:s, s:b}", "node", name, "ok", ok);
}

static json_t *vdrift(const char *node, const char *iface, const char *field, const char *wanted,
		      const char *found)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s}", "node", node, "interface", iface, "field",
			 field, "wanted", wanted, "found", found);
}

/* The names of group @i of @g, joined by ","; its drift as "IF FIELD FOUND;...". */
static void group_is(const json_t *g, size_t i, long long count, bool majority,
		     const char *names, const char *drift)
{
	const json_t *e = json_array_get(g, i), *v;
	char nb[256] = "", db[512] = "";
	size_t k;

	assert_int_equal(json_integer_value(json_object_get(e, "count")), count);
	assert_true(json_is_true(json_object_get(e, "majority")) == majority);
	json_array_foreach(json_object_get(e, "nodes"), k, v)
		snprintf(nb + strlen(nb), sizeof(nb) - strlen(nb), "%s%s", k ? "," : "",
			 json_string_value(v));
	json_array_foreach(json_object_get(e, "drift"), k, v)
		snprintf(db + strlen(db), sizeof(db) - strlen(db), "%s%s %s %s", k ? ";" : "",
			 json_string_value(json_object_get(v, "interface")),
			 json_string_value(json_object_get(v, "field")),
			 json_string_value(json_object_get(v, "found")));
	assert_string_equal(nb, names);
	assert_string_equal(db, drift);
}

static void test_drift_groups(void **state)
{
	json_t *nodes = json_array(), *drift = json_array(), *g;

	(void)state;
	for (int i = 1; i <= 7; i++) {
		char name[8];

		snprintf(name, sizeof(name), "h%d", i);
		json_array_append_new(nodes, vnode(name, i != 6));
	}
	/* h3, h7: mlx5_1 at x8; h2: only an MTU drift; h5: ACS on and a NIC missing; h6 failed. */
	json_array_append_new(drift, vdrift("h2", "eth0", "mtu", "9000", "1500"));
	json_array_append_new(drift, vdrift("h3", "mlx5_1", "pcie.width", "x16", "x8"));
	json_array_append_new(drift, vdrift("h5", "mlx5_0", "pcie.acs", "off", "on at 0000:92:00.0 (ctl 0x001d)"));
	json_array_append_new(drift, vdrift("h5", "mlx5_9", "match", "a nic", "none"));
	json_array_append_new(drift, vdrift("h5", "eth9", "match", "an interface", "none"));
	json_array_append_new(drift, vdrift("h6", "mlx5_1", "pcie.width", "x16", "x4"));
	json_array_append_new(drift, vdrift("h7", "mlx5_1", "pcie.width", "x16", "x8"));
	/* Dual-homing comes last, judged by the controller: not host-side. */
	json_array_append_new(drift, vdrift("h1", "bond0", "dual-homing", "members on two switches",
					    "one switch, leaf3"));
	json_array_append_new(drift, vdrift("nobody", "mlx5_1", "pcie.width", "x16", "x1"));
	g = pcie_fleet_drift_groups(nodes, drift);
	assert_int_equal(json_array_size(g), 3);
	group_is(g, 0, 3, true, "h1,h2,h4", "");
	group_is(g, 1, 2, false, "h3,h7", "mlx5_1 pcie.width x8");
	group_is(g, 2, 1, false, "h5", "mlx5_0 pcie.acs on at 0000:92:00.0 (ctl 0x001d);mlx5_9 match none");
	json_decref(g);

	/* The majority drifts (GPUDirect not ready on most nodes): it comes first. */
	json_array_clear(drift);
	for (int i = 2; i <= 7; i++) {
		char name[8];

		snprintf(name, sizeof(name), "h%d", i);
		json_array_append_new(drift, vdrift(name, "mlx5_0", "gpudirect", "ready", "no dma-buf"));
	}
	g = pcie_fleet_drift_groups(nodes, drift);
	assert_int_equal(json_array_size(g), 2);
	group_is(g, 0, 5, true, "h2,h3,h4,h5,h7", "mlx5_0 gpudirect no dma-buf");
	group_is(g, 1, 1, false, "h1", "");
	json_decref(g);

	/* The same entries in another order are another drift: the order is the node's. */
	json_array_clear(drift);
	json_array_append_new(drift, vdrift("h1", "a", "pcie.width", "x16", "x8"));
	json_array_append_new(drift, vdrift("h1", "b", "pcie.width", "x16", "x8"));
	json_array_append_new(drift, vdrift("h2", "a", "pcie.width", "x16", "x8"));
	json_array_append_new(drift, vdrift("h2", "b", "pcie.width", "x16", "x8"));
	json_array_append_new(drift, vdrift("h3", "b", "pcie.width", "x16", "x8"));
	json_array_append_new(drift, vdrift("h3", "a", "pcie.width", "x16", "x8"));
	g = pcie_fleet_drift_groups(nodes, drift);
	assert_int_equal(json_array_size(g), 3);
	group_is(g, 0, 3, true, "h4,h5,h7", "");
	group_is(g, 1, 2, false, "h1,h2", "a pcie.width x8;b pcie.width x8");
	group_is(g, 2, 1, false, "h3", "b pcie.width x8;a pcie.width x8");
	json_decref(g);
	json_decref(drift);
	json_decref(nodes);

	/* Nobody verified, or no nodes: no group. */
	nodes = json_array();
	json_array_append_new(nodes, vnode("h1", false));
	g = pcie_fleet_drift_groups(nodes, NULL);
	assert_non_null(g);
	assert_int_equal(json_array_size(g), 0);
	json_decref(g);
	json_decref(nodes);
	g = pcie_fleet_drift_groups(NULL, NULL);
	assert_non_null(g);
	assert_int_equal(json_array_size(g), 0);
	json_decref(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_tie_first_node),
		cmocka_unit_test(test_many_pictures),
		cmocka_unit_test(test_drift_field),
		cmocka_unit_test(test_drift_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
