// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The legs' ports (sweep/sweep_legs.h sweep_legs_sport(), _dport()): tcp
 * trials from 29100 + k (a -> b) and 29116 + k (b -> a) to 29099; verbs
 * (RoCE v2) trials from 0xd000 + k and 0xd010 + k to 4791, every one a
 * port a QP's GRH flow label can give: verbs_sport_flow_label() of it,
 * turned back into a port by the kernel's rule (verbs_udp_sport(), any
 * QP numbers), is the port itself.  No two trials of a pair share a port.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sweep/sweep_legs.h"
#include "transport/verbs_gid.h"

static void test_tcp_ports(void **state)
{
	assert_int_equal(sweep_legs_dport(false), SWEEP_LEGS_DPORT);
	assert_int_equal(sweep_legs_sport(false, true, 0), 29100);
	assert_int_equal(sweep_legs_sport(false, true, SWEEP_LEGS_MAX_TRIALS - 1), 29115);
	assert_int_equal(sweep_legs_sport(false, false, 0), 29116);
	assert_int_equal(sweep_legs_sport(false, false, SWEEP_LEGS_MAX_TRIALS - 1), 29131);
}

static void test_roce_ports(void **state)
{
	bool seen[2 * SWEEP_LEGS_MAX_TRIALS] = { false };

	assert_int_equal(sweep_legs_dport(true), 4791);
	for (int fwd = 0; fwd < 2; fwd++) {
		for (unsigned int k = 0; k < SWEEP_LEGS_MAX_TRIALS; k++) {
			unsigned int p = sweep_legs_sport(true, fwd, k);
			uint32_t fl = verbs_sport_flow_label(p);

			assert_in_range(p, VERBS_SPORT_MIN, 0xffff);
			assert_int_not_equal(fl, 0);	/* 0 would be "no label": the kernel's port */
			assert_int_equal(verbs_udp_sport(fl, 17, 42), p);
			assert_int_equal(verbs_udp_sport(fl, 4242, 7), p);
			assert_in_range(p - SWEEP_LEGS_ROCE_SPORT_BASE, 0, 2 * SWEEP_LEGS_MAX_TRIALS - 1);
			assert_false(seen[p - SWEEP_LEGS_ROCE_SPORT_BASE]);
			seen[p - SWEEP_LEGS_ROCE_SPORT_BASE] = true;
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcp_ports),
		cmocka_unit_test(test_roce_ports),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
