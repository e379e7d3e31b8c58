// SPDX-License-Identifier: GPL-2.0-or-later
/* Nodes grouped by their PCIe picture (model/pcie_fleet.c). */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_tie_first_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
