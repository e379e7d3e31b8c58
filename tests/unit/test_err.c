// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "util/err.h"
#include "util/str.h"

static void test_set_and_exit(void **state)
{
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(fab_err_exit(&err), FAB_EXIT_OK);
	assert_int_equal(fab_err_set(&err, -ENODEV, "dcb: %s: no such device", "eth9"), -ENODEV);
	assert_string_equal(err.msg, "dcb: eth9: no such device");
	assert_int_equal(fab_err_exit(&err), FAB_EXIT_SYSTEM);
	assert_int_equal(fab_err_input(&err, -EINVAL, "p.yaml:3:5: bad mtu"), -EINVAL);
	assert_int_equal(fab_err_exit(&err), FAB_EXIT_USAGE);
	fab_err_prefix(&err, "apply");
	assert_string_equal(err.msg, "apply: p.yaml:3:5: bad mtu");
	/* NULL context is allowed and still returns the code. */
	assert_int_equal(fab_err_set(NULL, -EIO, "x"), -EIO);
}

static void test_long_messages_truncate(void **state)
{
	struct fab_err err;
	char big[2000];

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	fab_err_init(&err);
	fab_err_set(&err, -E2BIG, "%s", big);
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
	fab_err_prefix(&err, "%s", big);
	assert_true(strlen(err.msg) < sizeof(err.msg));
	assert_non_null(strstr(err.msg, ": a"));
}

/* util/str: the times messages show (local time, ISO 8601, zone). */
static void test_str_time(void **state)
{
	char buf[STR_TIME_LEN];

	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(str_time(buf, sizeof(buf), 1796174625), "2026-12-02 01:23:45 UTC");
	setenv("TZ", "CET-1", 1);
	tzset();
	assert_string_equal(str_time(buf, sizeof(buf), 1796174625), "2026-12-02 02:23:45 CET");
	unsetenv("TZ");
	tzset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_and_exit),
		cmocka_unit_test(test_long_messages_truncate),
		cmocka_unit_test(test_str_time),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
