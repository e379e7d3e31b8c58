// SPDX-License-Identifier: GPL-2.0-or-later
/* Pointer -> index lookups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/ptr_index.h"

static void test_find(void **state)
{
	int v[100];
	struct ptr_index ix;

	assert_int_equal(ptr_index_init(&ix, 100), 0);
	for (size_t i = 0; i < 100; i++)
		ptr_index_set(&ix, i, &v[99 - i]);
	ptr_index_sort(&ix);
	for (size_t i = 0; i < 100; i++)
		assert_int_equal(ptr_index_find(&ix, &v[i]), 99 - i);
	assert_int_equal(ptr_index_find(&ix, NULL), SIZE_MAX);
	assert_int_equal(ptr_index_find(&ix, &ix), SIZE_MAX);
	ptr_index_fini(&ix);
	ptr_index_fini(&ix);
	assert_int_equal(ptr_index_init(&ix, 0), 0);
	ptr_index_sort(&ix);
	assert_int_equal(ptr_index_find(&ix, v), SIZE_MAX);
	ptr_index_fini(&ix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
