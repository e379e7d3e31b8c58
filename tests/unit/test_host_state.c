// SPDX-License-Identifier: GPL-2.0-or-later
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/host_state.h"

static void test_add_lookup_sort(void **state)
{
	struct host_state hs;
	struct fab_link *l;

	host_state_init(&hs);
	l = host_state_link_add(&hs);
	snprintf(l->name, sizeof(l->name), "bond0");
	l->ifindex = 7;
	assert_int_equal(l->speed_mbps, -1);	/* unknown by default */
	l = host_state_link_add(&hs);
	snprintf(l->name, sizeof(l->name), "eth1");
	l->ifindex = 3;
	l->master_ifindex = 7;
	l = host_state_link_add(&hs);
	snprintf(l->name, sizeof(l->name), "eth0");
	l->ifindex = 2;
	l->master_ifindex = 99;	/* master not in this namespace */

	host_state_resolve_masters(&hs);
	host_state_sort(&hs);
	assert_int_equal(hs.n_links, 3);
	assert_string_equal(hs.links[0].name, "eth0");
	assert_string_equal(hs.links[1].name, "eth1");
	assert_string_equal(hs.links[2].name, "bond0");
	assert_string_equal(hs.links[1].master, "bond0");
	assert_string_equal(hs.links[0].master, "");
	assert_ptr_equal(host_state_link_by_name(&hs, "eth1"), &hs.links[1]);
	assert_ptr_equal(host_state_link_by_index(&hs, 7), &hs.links[2]);
	assert_null(host_state_link_by_name(&hs, "eth"));	/* exact match only */
	host_state_fini(&hs);
	assert_int_equal(hs.n_links, 0);
	host_state_fini(&hs);	/* fini twice is harmless */
}

static void test_rdma_tree(void **state)
{
	struct host_state hs;
	struct fab_rdma_dev *d;
	struct fab_rdma_port *p;
	struct fab_gid *g;

	host_state_init(&hs);
	d = host_state_rdma_add(&hs);
	snprintf(d->name, sizeof(d->name), "rxe1");
	d = host_state_rdma_add(&hs);
	snprintf(d->name, sizeof(d->name), "rxe0");
	p = rdma_dev_port_add(d);
	p->port = 2;
	p = rdma_dev_port_add(d);
	p->port = 1;
	g = rdma_port_gid_add(p);
	g->index = 1;
	g = rdma_port_gid_add(p);
	g->index = 0;
	assert_false(p->counters_supported);
	assert_non_null(rdma_port_counter_add(p, "symbol_error", 5));
	assert_true(p->counters_supported);

	host_state_sort(&hs);
	assert_string_equal(hs.rdma[0].name, "rxe0");
	assert_int_equal(hs.rdma[0].ports[0].port, 1);
	assert_int_equal(hs.rdma[0].ports[0].gids[0].index, 0);
	assert_int_equal(hs.rdma[0].ports[0].counters[0].value, 5);
	assert_ptr_equal(host_state_rdma_by_name(&hs, "rxe1"), &hs.rdma[1]);
	host_state_fini(&hs);
}

static void test_keep_named(void **state)
{
	struct host_state hs;
	char *names[] = { "rxe1", "eth1" }, *bad[] = { "eth1", "eth" };
	const char *links[] = { "eth0", "eth1", "eth2" }, *devs[] = { "rxe0", "rxe1" };

	host_state_init(&hs);
	for (size_t i = 0; i < 3; i++)
		snprintf(host_state_link_add(&hs)->name, FAB_IFNAMSIZ, "%s", links[i]);
	for (size_t i = 0; i < 2; i++) {
		struct fab_rdma_dev *d = host_state_rdma_add(&hs);
		struct fab_rdma_port *p;

		snprintf(d->name, sizeof(d->name), "%s", devs[i]);
		p = rdma_dev_port_add(d);
		rdma_port_gid_add(p);
		rdma_port_counter_add(p, "symbol_error", i);
	}
	/* A name that matches nothing is reported by index; nothing is dropped. */
	assert_int_equal(host_state_keep_named(&hs, bad, 2), 1);
	assert_int_equal(hs.n_links, 3);
	assert_int_equal(hs.n_rdma, 2);
	/* Dropped devices are freed (ASan checks), kept ones keep their data. */
	assert_int_equal(host_state_keep_named(&hs, names, 2), -1);
	assert_int_equal(hs.n_links, 1);
	assert_string_equal(hs.links[0].name, "eth1");
	assert_int_equal(hs.n_rdma, 1);
	assert_string_equal(hs.rdma[0].name, "rxe1");
	assert_int_equal(hs.rdma[0].ports[0].counters[0].value, 1);
	host_state_fini(&hs);
}

static void test_ib_rates(void **state)
{
	assert_true(ib_speed_lane_gbps("EDR") == 25.0);
	assert_true(ib_speed_lane_gbps("ndr") == 100.0);
	assert_true(ib_speed_lane_gbps("SDR") == 2.5);
	assert_true(ib_speed_lane_gbps("bogus") == 0);
	assert_int_equal(ib_width_parse("4X"), 4);
	assert_int_equal(ib_width_parse("1x"), 1);
	assert_int_equal(ib_width_parse("12X"), 12);
	assert_int_equal(ib_width_parse("3X"), 0);
	assert_int_equal(ib_width_parse("4"), 0);
	assert_int_equal(ib_width_parse("X"), 0);
	assert_int_equal(ib_width_parse("4Xa"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_lookup_sort),
		cmocka_unit_test(test_rdma_tree),
		cmocka_unit_test(test_keep_named),
		cmocka_unit_test(test_ib_rates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
