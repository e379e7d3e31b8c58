// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/rdma_rate.h"

static void test_portinfo_codes(void **state)
{
	assert_int_equal(ib_width_from_active(1), 1);
	assert_int_equal(ib_width_from_active(2), 4);
	assert_int_equal(ib_width_from_active(4), 8);
	assert_int_equal(ib_width_from_active(8), 12);
	assert_int_equal(ib_width_from_active(16), 2);
	assert_int_equal(ib_width_from_active(0), 0);
	assert_int_equal(ib_width_from_active(3), 0);	/* a mask, not an active width */

	assert_string_equal(ib_speed_from_active(1, 0), "SDR");
	assert_string_equal(ib_speed_from_active(2, 0), "DDR");
	assert_string_equal(ib_speed_from_active(4, 0), "QDR");
	assert_string_equal(ib_speed_from_active(4, 1), "FDR");	/* extended wins */
	assert_string_equal(ib_speed_from_active(1, 2), "EDR");
	assert_string_equal(ib_speed_from_active(4, 4), "HDR");
	assert_string_equal(ib_speed_from_active(4, 8), "NDR");
	assert_null(ib_speed_from_active(0, 0));
	assert_null(ib_speed_from_active(3, 0));
	assert_null(ib_speed_from_active(4, 3));

	assert_int_equal(ib_mtu_from_enum(1), 256);
	assert_int_equal(ib_mtu_from_enum(3), 1024);
	assert_int_equal(ib_mtu_from_enum(5), 4096);
	assert_int_equal(ib_mtu_from_enum(0), 0);
	assert_int_equal(ib_mtu_from_enum(6), 0);

	assert_string_equal(ib_port_state_name(1), "DOWN");
	assert_string_equal(ib_port_state_name(4), "ACTIVE");
	assert_null(ib_port_state_name(0));
	assert_null(ib_port_state_name(6));
	assert_string_equal(ib_phys_state_name(2), "POLLING");
	assert_string_equal(ib_phys_state_name(5), "LINK_UP");
	assert_string_equal(ib_phys_state_name(7), "PHY_TEST");
	assert_null(ib_phys_state_name(8));
}

static void check_rate(const char *s, unsigned int w, const char *speed, double gbps)
{
	unsigned int width = 99;
	char sp[8] = "x";
	double g = -1;

	assert_int_equal(ib_rate_parse(s, &width, sp, sizeof(sp), &g), 0);
	assert_int_equal(width, w);
	assert_string_equal(sp, speed);
	assert_true(g > gbps - 1e-9 && g < gbps + 1e-9);
}

static void test_rate_parse(void **state)
{
	unsigned int w = 7;
	char sp[8] = "keep";
	double g = 3;

	check_rate("10 Gb/sec (1X QDR)", 1, "QDR", 10);
	check_rate("100 Gb/sec (4X EDR)", 4, "EDR", 100);
	check_rate("104 Gb/sec (4X EDR)", 4, "EDR", 100);	/* umad2sim: 26 per lane */
	check_rate("56 Gb/sec (4X FDR)", 4, "FDR", 56);
	check_rate("400 Gb/sec (4X NDR)", 4, "NDR", 400);
	check_rate("2.5 Gb/sec (1X SDR)", 1, "SDR", 2.5);
	check_rate("2.5 Gb/sec (1X)", 1, "SDR", 2.5);		/* old kernels, umad2sim */
	check_rate("10 Gb/sec (4X)", 4, "SDR", 10);
	check_rate("40 Gb/sec (4X FDR10)", 4, "FDR10", 40);
	check_rate("12 Gb/sec (4X ZZZ)", 4, "", 12);		/* unknown speed keeps the number */
	check_rate("300 Gb/sec (12X EDR)", 12, "EDR", 300);

	assert_int_equal(ib_rate_parse("", &w, sp, sizeof(sp), &g), -EINVAL);
	assert_int_equal(ib_rate_parse("fast", &w, sp, sizeof(sp), &g), -EINVAL);
	assert_int_equal(ib_rate_parse("10 Gb/sec", &w, sp, sizeof(sp), &g), -EINVAL);
	assert_int_equal(ib_rate_parse("10 Gb/sec (3X QDR)", &w, sp, sizeof(sp), &g), -EINVAL);
	assert_int_equal(ib_rate_parse("10 Mb/sec (1X QDR)", &w, sp, sizeof(sp), &g), -EINVAL);
	assert_int_equal(ib_rate_parse("-10 Gb/sec (1X QDR)", &w, sp, sizeof(sp), &g), -EINVAL);
	/* outputs untouched on failure */
	assert_int_equal(w, 7);
	assert_string_equal(sp, "keep");
	assert_true(g == 3);
}

static void test_sysfs_values(void **state)
{
	unsigned int v = 9;
	uint64_t guid = 1;

	assert_int_equal(ib_sysfs_enum_parse("4: ACTIVE", &v), 0);
	assert_int_equal(v, 4);
	assert_int_equal(ib_sysfs_enum_parse("0x1f", &v), 0);	/* lid */
	assert_int_equal(v, 0x1f);
	assert_int_equal(ib_sysfs_enum_parse("5", &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(ib_sysfs_enum_parse("ACTIVE", &v), -EINVAL);
	assert_int_equal(ib_sysfs_enum_parse("4 ACTIVE", &v), -EINVAL);
	assert_int_equal(ib_sysfs_enum_parse("", &v), -EINVAL);
	assert_int_equal(v, 5);

	assert_int_equal(ib_guid_parse("0002:c903:00a1:b2c3", &guid), 0);
	assert_true(guid == 0x0002c90300a1b2c3ULL);
	assert_int_equal(ib_guid_parse("FFFF:ffff:0000:0001", &guid), 0);
	assert_true(guid == 0xffffffff00000001ULL);
	assert_int_equal(ib_guid_parse("0002:c903:00a1", &guid), -EINVAL);
	assert_int_equal(ib_guid_parse("0002:c903:00a1:b2c3:0000", &guid), -EINVAL);
	assert_int_equal(ib_guid_parse("002:c903:00a1:b2c3", &guid), -EINVAL);
	assert_int_equal(ib_guid_parse("0002:c903:00a1:b2cg", &guid), -EINVAL);
	assert_int_equal(ib_guid_parse("", &guid), -EINVAL);
	assert_true(guid == 0xffffffff00000001ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_portinfo_codes),
		cmocka_unit_test(test_rate_parse),
		cmocka_unit_test(test_sysfs_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
