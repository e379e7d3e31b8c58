// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/util/file.c: a whole file read into memory, up to a size limit:
 * exactly the limit is read, one byte more is bad input naming the file,
 * a missing file is bad input with the system's reason, an empty file is
 * zero bytes, the buffer is NUL-terminated.  Output pointers are set only
 * on success.  The atomic writer replaces the file whole with the mode
 * asked for, leaves no temporary file, and never writes through a symlink
 * planted at its temporary name or at the target.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/array.h"
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
	for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
		struct fab_err err;
		char *buf = NULL;
		size_t len = 12345;

		fab_err_init(&err);
		file_fill(sizes[k]);
		assert_int_equal(file_read_all(path, 1 << 20, &buf, &len, &err), 0);
		assert_int_equal(len, sizes[k]);
		assert_int_equal(buf[len], '\0');
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

static void read_back(const char *p, const char *want)
{
	struct fab_err err;
	char *buf = NULL;
	size_t len = 0;

	fab_err_init(&err);
	assert_int_equal(file_read_all(p, 1 << 20, &buf, &len, &err), 0);
	assert_int_equal(len, strlen(want));
	assert_string_equal(buf, want);
	free(buf);
}

/* No "PATH.tmp.*" left beside @p. */
static void assert_no_tmp(const char *p)
{
	char tmp[128];
	struct stat st;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", p, (int)getpid());
	assert_int_equal(lstat(tmp, &st), -1);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d.1", p, (int)getpid());
	assert_int_equal(lstat(tmp, &st), -1);
}

static void test_write_replaces(void **state)
{
	struct fab_err err;
	struct stat st;
	mode_t old = umask(022);

	(void)state;
	fab_err_init(&err);
	file_fill(100);
	assert_int_equal(file_write_atomic(path, "new\n", 4, 0600, &err), 0);
	read_back(path, "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_no_tmp(path);
	/* A second write over the first; an empty one. */
	assert_int_equal(file_write_atomic(path, "second", 6, 0644, &err), 0);
	read_back(path, "second");
	assert_int_equal(file_write_atomic(path, "", 0, 0644, &err), 0);
	read_back(path, "");
	umask(old);
}

static void test_write_planted_symlink(void **state)
{
	char victim[96], tmp[128];
	struct fab_err err;
	struct stat st;
	FILE *f;

	(void)state;
	fab_err_init(&err);
	snprintf(victim, sizeof(victim), "%s.victim", path);
	f = fopen(victim, "w");
	assert_non_null(f);
	fputs("precious", f);
	assert_int_equal(fclose(f), 0);
	/* Someone plants the temporary name the writer tries first ... */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(file_write_atomic(path, "mine", 4, 0600, &err), 0);
	read_back(victim, "precious");
	read_back(path, "mine");
	/* ... the link is theirs, still there and still a link; ours is gone. */
	assert_int_equal(lstat(tmp, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	unlink(tmp);
	assert_no_tmp(path);
	/* A symlink at the target itself is replaced, not written through. */
	unlink(path);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(file_write_atomic(path, "again", 5, 0600, &err), 0);
	read_back(victim, "precious");
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	read_back(path, "again");
	unlink(victim);
}

/*
 * A stream written through file_atomic_open() that the filesystem refuses
 * (RLIMIT_FSIZE: EFBIG, as a full one gives ENOSPC): the error is the
 * write's own, named with the file, whether the renderer noticed it
 * (file_atomic_finish with its -EIO) or only commit did; nothing is left.
 */
static void test_atomic_refused(void **state)
{
	struct rlimit old, lim = { .rlim_cur = 16 << 10 };
	char want[160], line[100];
	struct file_atomic w;
	struct fab_err err;

	(void)state;
	signal(SIGXFSZ, SIG_IGN);
	file_fill(10);
	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	snprintf(want, sizeof(want), "%s: write: %s", path, strerror(EFBIG));
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim.rlim_max = old.rlim_max;
	for (int finish = 0; finish < 2; finish++) {
		int rc = 0;

		fab_err_init(&err);
		assert_int_equal(file_atomic_open(&w, path, 0644, &err), 0);
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
		for (int i = 0; i < 2000; i++)
			fprintf(w.f, "%s\n", line);
		if (ferror(w.f))
			rc = -EIO;	/* what a renderer returns */
		rc = finish ? file_atomic_finish(&w, rc, &err) : file_atomic_commit(&w, &err);
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
		assert_int_equal(rc, -EFBIG);
		assert_string_equal(err.msg, want);
		assert_no_tmp(path);
	}
	read_back(path, "abcdefghij");
}

static void test_write_error(void **state)
{
	struct fab_err err;
	char want[128];

	(void)state;
	fab_err_init(&err);
	assert_int_equal(file_write_atomic("/nonexistent-dir/x", "a", 1, 0600, &err), -ENOENT);
	assert_int_equal(err.kind, FAB_ERR_SYSTEM);
	snprintf(want, sizeof(want), "/nonexistent-dir/x.tmp.%d: No such file or directory",
		 (int)getpid());
	assert_string_equal(err.msg, want);
}

/* Checked before a long job: the directory must exist and take a file. */
static void test_check_writable(void **state)
{
	char dir[] = "/tmp/test_file_dir.XXXXXX", fpath[64], want[160];
	struct fab_err err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fab_err_init(&err);
	snprintf(fpath, sizeof(fpath), "%s/x.prom", dir);
	assert_int_equal(file_check_writable(fpath, &err), 0);
	assert_int_equal(file_check_writable("relative.prom", &err), 0);
	/* A missing directory: bad input, named. */
	snprintf(fpath, sizeof(fpath), "%s/nosuch/x.prom", dir);
	snprintf(want, sizeof(want), "%s: directory %s/nosuch does not exist", fpath, dir);
	assert_int_equal(file_check_writable(fpath, &err), -ENOENT);
	assert_int_equal(err.kind, FAB_ERR_INPUT);
	assert_string_equal(err.msg, want);
	/* FILE itself a directory. */
	fab_err_init(&err);
	snprintf(want, sizeof(want), "%s: is a directory, not a file", dir);
	assert_int_equal(file_check_writable(dir, &err), -EISDIR);
	assert_string_equal(err.msg, want);
	/* The "directory" a file. */
	fab_err_init(&err);
	snprintf(fpath, sizeof(fpath), "%s/f", dir);
	assert_int_equal(file_write_atomic(fpath, "a", 1, 0600, &err), 0);
	snprintf(fpath, sizeof(fpath), "%s/f/x.prom", dir);
	snprintf(want, sizeof(want), "%s: %s/f is not a directory", fpath, dir);
	assert_int_equal(file_check_writable(fpath, &err), -ENOTDIR);
	assert_string_equal(err.msg, want);
	/* Nothing was written by the checks. */
	snprintf(fpath, sizeof(fpath), "%s/x.prom", dir);
	assert_int_equal(access(fpath, F_OK), -1);
	snprintf(fpath, sizeof(fpath), "%s/f", dir);
	unlink(fpath);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_planted_symlink, setup, teardown),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test_setup_teardown(test_atomic_refused, setup, teardown),
		cmocka_unit_test(test_check_writable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
