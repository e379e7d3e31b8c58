// SPDX-License-Identifier: GPL-2.0-or-later
/* The memory-then-file byte store (util/spool.c). */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/spool.h"

/* Byte @i of the test pattern. */
static unsigned char pat(uint64_t i)
{
	return (unsigned char)(i * 131 + (i >> 9) * 7 + 1);
}

/* Append @total bytes in chunks of varying size; read back across windows. */
static void fill_and_check(size_t mem_max, size_t total, bool want_file)
{
	struct spool *s;
	struct fab_err err;
	unsigned char *buf = malloc(total), *got = malloc(total);
	size_t done = 0, step = 1;

	assert_non_null(buf);
	assert_non_null(got);
	fab_err_init(&err);
	for (size_t i = 0; i < total; i++)
		buf[i] = pat(i);
	assert_int_equal(spool_new(&s, mem_max, &err), 0);
	while (done < total) {
		size_t n = step < total - done ? step : total - done;
		uint64_t off;

		assert_int_equal(spool_append(s, buf + done, n, &off, &err), 0);
		assert_int_equal(off, done);
		done += n;
		step = step * 3 % 70001 + 1;	/* 1 byte to 70 kB, some over a window */
	}
	assert_int_equal(spool_size(s), total);
	assert_int_equal(spool_on_file(s), want_file);
	/* In order, in odd pieces (each crossing windows and the write buffer). */
	memset(got, 0, total);
	for (size_t at = 0, k = 1; at < total; at += k, k = k * 7 % 300007 + 1)
		assert_int_equal(spool_read(s, at, got + at, k < total - at ? k : total - at, &err), 0);
	assert_memory_equal(got, buf, total);
	/* Out of order: a record at a time from the end. */
	for (size_t at = total; at >= 216; at -= 216 * 97) {
		unsigned char rec[216];

		assert_int_equal(spool_read(s, at - 216, rec, sizeof(rec), &err), 0);
		assert_memory_equal(rec, buf + at - 216, sizeof(rec));
		if (at < 216 * 97)
			break;
	}
	/* Overwrites anywhere (file, write buffer, the read window) read back. */
	for (size_t at = 5; at + 300 < total; at += total / 13) {
		unsigned char w[300];

		for (size_t i = 0; i < sizeof(w); i++)
			w[i] = buf[at + i] = (unsigned char)~buf[at + i];
		assert_int_equal(spool_read(s, at, got, 10, &err), 0);	/* window on it */
		assert_int_equal(spool_write(s, at, w, sizeof(w), &err), 0);
	}
	assert_int_equal(spool_read(s, 0, got, total, &err), 0);
	assert_memory_equal(got, buf, total);
	/* Past the end: refused. */
	assert_int_equal(spool_read(s, total - 1, got, 2, &err), -EINVAL);
	assert_int_equal(spool_write(s, total, got, 1, &err), -EINVAL);
	spool_free(s);
	free(buf);
	free(got);
}

static void test_memory(void **state)
{
	fill_and_check(8u << 20, 3u << 20, false);
}

static void test_file(void **state)
{
	fill_and_check(100000, 5u << 20, true);
}

static void test_file_from_start(void **state)
{
	fill_and_check(0, 1u << 20, true);
}

static void test_tmpdir_missing(void **state)
{
	struct spool *s;
	struct fab_err err;
	char c = 'x';

	fab_err_init(&err);
	setenv("TMPDIR", "/nonexistent-fabricctl-dir", 1);
	assert_int_equal(spool_new(&s, 0, &err), 0);
	assert_true(spool_append(s, &c, 1, NULL, &err) < 0);
	assert_non_null(strstr(err.msg, "/nonexistent-fabricctl-dir"));
	assert_int_equal(spool_size(s), 0);
	unsetenv("TMPDIR");
	assert_int_equal(spool_append(s, &c, 1, NULL, &err), 0);
	assert_int_equal(spool_size(s), 1);
	spool_free(s);
	spool_free(NULL);
}

/*
 * A file that refuses writes (RLIMIT_FSIZE: EFBIG, as a full $TMPDIR
 * gives ENOSPC) loses nothing: within the fallback every append succeeds
 * and reads back; past it the append fails with the file's error, and
 * everything before it still reads back.
 */
static size_t fill_limited_at(size_t fallback, size_t window, rlim_t limit, size_t total,
			      unsigned char *buf, struct spool **out, int *rc_out, struct fab_err *err)
{
	struct rlimit old, lim = { .rlim_cur = limit };
	struct spool *s;
	size_t done = 0;
	int rc = 0;

	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	assert_int_equal(spool_new(&s, 0, err), 0);
	spool_set_fallback(s, fallback);
	if (window)
		spool_set_window(s, window);
	for (size_t i = 0; i < total; i++)
		buf[i] = pat(i);
	while (done < total && rc == 0) {
		size_t n = total - done < 216 ? total - done : 216;

		rc = spool_append(s, buf + done, n, NULL, err);
		if (rc == 0)
			done += n;
	}
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	*out = s;
	*rc_out = rc;
	return done;
}

static size_t fill_limited(size_t fallback, size_t total, unsigned char *buf, struct spool **out,
			   int *rc_out, struct fab_err *err)
{
	return fill_limited_at(fallback, 0, 256 << 10, total, buf, out, rc_out, err);
}

static void test_file_refused_fallback(void **state)
{
	size_t total = 3u << 20;
	unsigned char *buf = malloc(total), *got = malloc(total);
	struct fab_err err;
	struct spool *s;
	int rc;

	fab_err_init(&err);
	assert_int_equal(fill_limited(4u << 20, total, buf, &s, &rc, &err), total);
	assert_int_equal(rc, 0);
	assert_int_equal(spool_file_error(s), -EFBIG);
	assert_int_equal(spool_size(s), total);
	assert_int_equal(spool_read(s, 0, got, total, &err), 0);
	assert_memory_equal(got, buf, total);
	spool_free(s);
	free(buf);
	free(got);
}

static void test_file_refused_spent(void **state)
{
	size_t total = 3u << 20, done;
	unsigned char *buf = malloc(total), *got = malloc(total);
	struct fab_err err;
	struct spool *s;
	int rc;

	fab_err_init(&err);
	done = fill_limited(0, total, buf, &s, &rc, &err);
	assert_int_equal(rc, -EFBIG);
	assert_non_null(strstr(err.msg, strerror(EFBIG)));
	/* The write window's worth was kept in memory, not thrown away. */
	assert_true(done >= SPOOL_WINDOW - 216 && done < total);
	assert_int_equal(spool_size(s), done);
	assert_int_equal(spool_read(s, 0, got, done, &err), 0);
	assert_memory_equal(got, buf, done);
	spool_free(s);
	free(buf);
	free(got);
}

/*
 * A 16 KiB window (spool_set_window()) and a file limited to 64 KiB: the
 * file takes four windows of 216-byte records (75 a window, 64,800
 * bytes), the fifth flush is refused, its window stays in memory (81,000
 * bytes in all), the next append fails, and every byte reads back: from
 * the file through the small read window and from memory.  A window
 * below SPOOL_WINDOW_MIN is that minimum: with no file at all, 18
 * records (3,888 bytes of 4,096) are kept.
 */
static void test_small_window(void **state)
{
	size_t total = 1u << 20, done;
	unsigned char *buf = malloc(total), *got = malloc(total);
	struct fab_err err;
	struct spool *s;
	int rc;

	fab_err_init(&err);
	done = fill_limited_at(0, 16u << 10, 64u << 10, total, buf, &s, &rc, &err);
	assert_int_equal(rc, -EFBIG);
	assert_int_equal(done, 5 * 75 * 216);
	assert_true(spool_on_file(s));
	assert_int_equal(spool_size(s), done);
	memset(got, 0, total);
	for (size_t at = 0, k = 1; at < done; at += k, k = k * 7 % 30011 + 1)
		assert_int_equal(spool_read(s, at, got + at, k < done - at ? k : done - at, &err), 0);
	assert_memory_equal(got, buf, done);
	spool_free(s);

	done = fill_limited_at(0, 1, 0, total, buf, &s, &rc, &err);
	assert_int_equal(rc, -EFBIG);
	assert_int_equal(done, 18 * 216);
	assert_int_equal(spool_read(s, 0, got, done, &err), 0);
	assert_memory_equal(got, buf, done);
	spool_free(s);
	free(buf);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_file_from_start),
		cmocka_unit_test(test_tmpdir_missing),
		cmocka_unit_test(test_file_refused_fallback),
		cmocka_unit_test(test_file_refused_spent),
		cmocka_unit_test(test_small_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
