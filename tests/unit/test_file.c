// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/util/file.c: a whole file read into memory, up to a size limit:
 * exactly the limit is read, one byte more is bad input naming the file,
 * a missing file is bad input with the system's reason, an empty file is
 * zero bytes.  Output pointers are set only on success.
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

#include "util/file.h"

static char path[64];

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_file.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void file_fill(size_t n)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	for (size_t i = 0; i < n; i++)
		fputc('a' + (int)(i % 26), f);
	assert_int_equal(fclose(f), 0);
}

static void test_read_sizes(void **state)
{
	/* Across the first allocation (16 KiB) and its doublings. */
	const size_t sizes[] = { 0, 1, 16383, 16384, 16385, 100000 };

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct fab_err err;
		char *buf = NULL;
		size_t len = 12345;

		fab_err_init(&err);
		file_fill(sizes[k]);
		assert_int_equal(file_read_all(path, 1 << 20, &buf, &len, &err), 0);
		assert_int_equal(len, sizes[k]);
		if (sizes[k]) {
			assert_int_equal(buf[0], 'a');
			assert_int_equal(buf[sizes[k] - 1], 'a' + (int)((sizes[k] - 1) % 26));
		}
		free(buf);
	}
}

static void test_limit(void **state)
{
	struct fab_err err;
	char *buf = NULL, want[128];
	size_t len = 7;

	(void)state;
	fab_err_init(&err);
	file_fill(40000);
	assert_int_equal(file_read_all(path, 40000, &buf, &len, &err), 0);
	assert_int_equal(len, 40000);
	free(buf);
	buf = NULL;
	len = 7;
	assert_int_equal(file_read_all(path, 39999, &buf, &len, &err), -EFBIG);
	assert_int_equal(err.kind, FAB_ERR_INPUT);
	snprintf(want, sizeof(want), "%s: larger than 39999 bytes", path);
	assert_string_equal(err.msg, want);
	assert_null(buf);
	assert_int_equal(len, 7);
}

static void test_missing(void **state)
{
	struct fab_err err;
	char *buf = NULL;
	size_t len = 7;

	(void)state;
	fab_err_init(&err);
	unlink(path);
	assert_int_equal(file_read_all(path, 100, &buf, &len, &err), -ENOENT);
	assert_int_equal(err.kind, FAB_ERR_INPUT);
	assert_non_null(strstr(err.msg, "No such file or directory"));
	assert_null(buf);
	assert_int_equal(len, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
