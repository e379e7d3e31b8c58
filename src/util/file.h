/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whole files: the one reader (profiles, plans, hosts and pairs files,
 * the pending-try file) and the one atomic writer (the pending-try file,
 * Prometheus textfiles).  Nothing else in the tree opens a file to read
 * it whole or replaces one.
 */
#ifndef FAB_UTIL_FILE_H
#define FAB_UTIL_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/err.h"

/*
 * Read all of @path into a new buffer (*@buf, *@len; the caller frees
 * *@buf).  The buffer is NUL-terminated one byte past *@len, so text
 * parsers may use it as a string (the file itself may hold NULs).  A file
 * that cannot be opened or read, or that is larger than @max_bytes, is bad
 * input ("PATH: reason", "PATH: larger than N bytes").  *@buf and *@len
 * are set only on success.
 */
int file_read_all(const char *path, size_t max_bytes, char **buf, size_t *len,
		  struct fab_err *err);

/*
 * Replace @path with @len bytes of @data atomically: a new temporary file
 * in the same directory ("PATH.tmp.PID", or "PATH.tmp.PID.N" when that
 * name is taken), created O_CREAT|O_EXCL|O_NOFOLLOW with @mode (less the
 * umask), written, fsync'd, renamed over @path, then the directory
 * fsync'd.  A symlink planted at the temporary name is never followed
 * (the name is skipped) and one at @path is replaced, not written
 * through.  Readers see the old file or the new one, never half of one.
 * 0, or -errno with "PATH: reason" in @err (system error); on failure the
 * temporary file is removed and @path is untouched.
 */
int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
		      struct fab_err *err);

/*
 * The same for output written as it is made (too large to build in
 * memory first): file_atomic_open() creates the temporary file as above
 * and gives it as w->f (a stdio stream over w->fd that records the
 * first write(2) error in w->rc: a renderer that only sees ferror() is
 * still told the real cause); write to it, then file_atomic_commit()
 * flushes, fsyncs, closes and renames it over @path (0, or -errno with
 * "PATH: write: REASON" in @err, the first error met in write, fsync or
 * close: -ENOSPC for a full filesystem, never a later generic -EIO; the
 * temporary file is removed on failure), or file_atomic_abort() removes
 * it.  @w must stay where it is while open.
 */
struct file_atomic {
	FILE *f;
	int fd;
	int rc;			/* the first write error (-errno); 0: none */
	char path[4096], tmp[4096];
};

int file_atomic_open(struct file_atomic *w, const char *path, mode_t mode, struct fab_err *err);
int file_atomic_commit(struct file_atomic *w, struct fab_err *err);
void file_atomic_abort(struct file_atomic *w);
/*
 * A writer's end: @rc < 0 (the renderer failed) aborts and reports the
 * real cause (w->rc when a write failed, else @rc) as "PATH: write:
 * REASON"; otherwise file_atomic_commit().  0 or -errno with @err set.
 */
int file_atomic_finish(struct file_atomic *w, int rc, struct fab_err *err);

/*
 * Before a long job whose result goes to @path by file_write_atomic():
 * 0 when @path's directory exists, is a directory, and can take a new
 * file, and @path itself is not a directory; otherwise bad input
 * ("PATH: directory DIR does not exist", "... is not writable", ...).
 * Writes nothing.
 */
int file_check_writable(const char *path, struct fab_err *err);

/* Write all @len bytes of @buf to @fd (EINTR retried): 0, or -errno. */
int file_write_all(int fd, const void *buf, size_t len);

#endif
