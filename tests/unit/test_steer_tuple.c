// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tuples of a steered test (model/steer_tuple): tcp and RoCE v2
 * ports per sweep (RoCE v2 only in 0xc000..0xffff, each port one a GRH
 * flow label gives: transport/verbs_gid.c round trip), the flows traced
 * each way (UDP to 4791 from the QP's port both ways; tcp b -> a from the
 * listener to S'), which runs keep a port, and the recorded ports against
 * the planned ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model/steer_tuple.h"
#include "transport/verbs_gid.h"

/* Every slot: ports in range, distinct, apart from the destination. */
static void test_ports(void **state)
{
	uint32_t rnd[] = { 0, 1, 1023, 1024, 1249, 1250, 0xffffffffu, 0x9e3779b9u };

	(void)state;
	for (size_t i = 0; i < sizeof(rnd) / sizeof(rnd[0]); i++) {
		struct steer_tuple tc, tr;

		steer_tuple_init(&tc, STEER_TCP, rnd[i]);
		steer_tuple_init(&tr, STEER_ROCE, rnd[i]);
		assert_int_equal(steer_tuple_dport(&tr), 4791);
		for (unsigned int k = 0; k < STEER_PORTS; k++) {
			uint16_t f = steer_tuple_fwd(&tr, k), r = steer_tuple_rev(&tr, k);

			assert_true(f >= 0xc000 && r >= 0xc000);
			assert_int_not_equal(f, r);
			/* The QP can get it: the flow label for the port gives the port. */
			assert_int_equal(verbs_flow_label_sport(verbs_sport_flow_label(f)), f);
			assert_int_equal(verbs_flow_label_sport(verbs_sport_flow_label(r)), r);
			assert_true(steer_tuple_fwd(&tc, k) >= STEER_TCP_PORT_LO);
			assert_true(steer_tuple_rev(&tc, k) < steer_tuple_dport(&tc));
			assert_true(steer_tuple_dport(&tc) < 32768);
			for (unsigned int j = 0; j < k; j++)
				assert_int_not_equal(steer_tuple_fwd(&tr, j), f);
		}
	}
	{
		struct steer_tuple t;

		steer_tuple_init(&t, STEER_ROCE, STEER_ROCE_PORT_SLOTS - 1);
		assert_int_equal(steer_tuple_rev(&t, STEER_PORTS - 1), 0xffff);
		steer_tuple_init(&t, STEER_ROCE, STEER_ROCE_PORT_SLOTS);
		assert_int_equal(steer_tuple_fwd(&t, 0), 0xc000);
		steer_tuple_init(&t, STEER_TCP, 7);
		assert_int_equal(steer_tuple_fwd(&t, 3), 10000 + 7 * 16 + 3);
		assert_int_equal(steer_tuple_rev(&t, 3), 10000 + 7 * 16 + 8 + 3);
		assert_int_equal(steer_tuple_dport(&t), 10000 + 7 * 16 + 16);
	}
}

/* The flows: RoCE v2 both ways from the QP's port to 4791; tcp b -> a from D to S'. */
static void test_flows(void **state)
{
	struct steer_tuple t;
	struct flow f;

	(void)state;
	steer_tuple_init(&t, STEER_ROCE, 2);
	steer_tuple_flow(&t, ECMP_AB, steer_tuple_fwd(&t, 1), "10.77.1.2", "10.77.2.2", &f);
	assert_int_equal(f.proto, FLOW_UDP);
	assert_string_equal(f.src, "10.77.1.2");
	assert_string_equal(f.dst, "10.77.2.2");
	assert_int_equal(f.sport, 0xc000 + 32 + 1);
	assert_int_equal(f.dport, 4791);
	steer_tuple_flow(&t, ECMP_BA, steer_tuple_rev(&t, 5), "10.77.1.2", "10.77.2.2", &f);
	assert_int_equal(f.proto, FLOW_UDP);
	assert_string_equal(f.src, "10.77.2.2");
	assert_string_equal(f.dst, "10.77.1.2");
	assert_int_equal(f.sport, 0xc000 + 32 + 8 + 5);
	assert_int_equal(f.dport, 4791);
	assert_false(steer_tuple_turns(&t));
	assert_string_equal(steer_kind_name(t.kind), "RoCE v2");

	steer_tuple_init(&t, STEER_TCP, 0);
	steer_tuple_flow(&t, ECMP_AB, steer_tuple_fwd(&t, 0), "fd00::1", "fd00::2", &f);
	assert_int_equal(f.proto, FLOW_TCP);
	assert_int_equal(f.sport, 10000);
	assert_int_equal(f.dport, 10016);
	steer_tuple_flow(&t, ECMP_BA, steer_tuple_rev(&t, 2), "fd00::1", "fd00::2", &f);
	assert_string_equal(f.src, "fd00::2");
	assert_string_equal(f.dst, "fd00::1");
	assert_int_equal(f.sport, 10016);
	assert_int_equal(f.dport, 10010);
	assert_true(steer_tuple_turns(&t));
	assert_string_equal(steer_kind_name(t.kind), "tcp");
}

/* A long address is cut to the flow's field, never overrun. */
static void test_long_addr(void **state)
{
	char big[3 * TOPO_ADDR_LEN];
	struct steer_tuple t;
	struct flow f;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	steer_tuple_init(&t, STEER_ROCE, 0);
	steer_tuple_flow(&t, ECMP_AB, 0xc000, big, "10.0.0.1", &f);
	assert_int_equal(strlen(f.src), TOPO_ADDR_LEN - 1);
	assert_string_equal(f.dst, "10.0.0.1");
}

/* Recorded against planned: a bit per direction that differs; 0 recorded proves nothing. */
static void test_moved(void **state)
{
	(void)state;
	assert_int_equal(steer_tuple_moved(0xc001, 0xc009, 0xc001, 0xc009), 0);
	assert_int_equal(steer_tuple_moved(0xc001, 0xc009, 0, 0), 0);
	assert_int_equal(steer_tuple_moved(0xc001, 0xc009, 0xc002, 0xc009), STEER_MOVED_AB);
	assert_int_equal(steer_tuple_moved(0xc001, 0xc009, 0xc001, 0xd000), STEER_MOVED_BA);
	/* A worker that ignores the plan: the symmetric port of both QP numbers, both ways. */
	assert_int_equal(steer_tuple_moved(0xc001, 0xc009, 49458, 49458),
			 STEER_MOVED_AB | STEER_MOVED_BA);
	assert_int_equal(steer_tuple_moved(0xc001, 0xc009, 0, 0xc00a), STEER_MOVED_BA);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_flows),
		cmocka_unit_test(test_long_addr),
		cmocka_unit_test(test_moved),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
