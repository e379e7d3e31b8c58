// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

/* Room for one byte past the limit tells a file of exactly max_bytes apart. */
static int buf_grow(char **data, size_t *cap, size_t max_bytes, const char *path,
		    struct fab_err *err)
{
	size_t ncap = *cap ? *cap * 2 : 16384;
	char *tmp;

	if (*cap > max_bytes)
		return fab_err_input(err, -EFBIG, "%s: larger than %zu bytes", path, max_bytes);
	if (ncap > max_bytes + 1)
		ncap = max_bytes + 1;
	tmp = realloc(*data, ncap + 1);		/* + the terminating NUL */
	if (!tmp)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", path);
	*data = tmp;
	*cap = ncap;
	return 0;
}

int file_read_all(const char *path, size_t max_bytes, char **buf, size_t *len,
		  struct fab_err *err)
{
	char *data = NULL;
	size_t n = 0, cap = 0;
	int fd, rc = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fab_err_input(err, -errno, "%s: %s", path, strerror(errno));
	for (;;) {
		ssize_t got;

		if (n == cap) {
			rc = buf_grow(&data, &cap, max_bytes, path, err);
			if (rc < 0)
				goto out;
		}
		got = read(fd, data + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = fab_err_input(err, -errno, "%s: %s", path, strerror(errno));
			goto out;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (!data) {
		rc = buf_grow(&data, &cap, max_bytes, path, err);
		if (rc < 0)
			goto out;
	}
	data[n] = '\0';
	*buf = data;
	*len = n;
	data = NULL;
out:
	free(data);
	close(fd);
	return rc;
}

/* Create a fresh temporary file beside @path; never opens an existing name. */
static int tmp_create(const char *path, mode_t mode, char *tmp, size_t tmplen,
		      struct fab_err *err)
{
	for (unsigned int i = 0; i < 100; i++) {
		int fd, n;

		n = i ? snprintf(tmp, tmplen, "%s.tmp.%d.%u", path, (int)getpid(), i)
		      : snprintf(tmp, tmplen, "%s.tmp.%d", path, (int)getpid());
		if (n < 0 || (size_t)n >= tmplen)
			return fab_err_set(err, -ENAMETOOLONG, "%s: name too long", path);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return fab_err_set(err, -errno, "%s: %s", tmp, strerror(errno));
	}
	return fab_err_set(err, -EEXIST, "%s: no free temporary name beside it", path);
}

int file_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;	/* not for a regular file, pipe or socket: never loop on it */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Make the rename durable; best effort (some filesystems refuse fsync on a directory). */
static void dir_sync(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(copy);
}

/* The stream's writes: straight to the file, the first error kept for commit. */
static ssize_t atomic_write(void *cookie, const char *buf, size_t size)
{
	struct file_atomic *w = cookie;
	int rc = file_write_all(w->fd, buf, size);

	if (rc < 0) {
		if (!w->rc)
			w->rc = rc;
		errno = -rc;
		return 0;	/* fopencookie(3): 0 is the error */
	}
	return (ssize_t)size;
}

static int atomic_close(void *cookie)
{
	struct file_atomic *w = cookie;
	int rc = close(w->fd);

	w->fd = -1;
	return rc;
}

int file_atomic_open(struct file_atomic *w, const char *path, mode_t mode, struct fab_err *err)
{
	cookie_io_functions_t io = { .write = atomic_write, .close = atomic_close };

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (snprintf(w->path, sizeof(w->path), "%s", path) >= (int)sizeof(w->path))
		return fab_err_set(err, -ENAMETOOLONG, "%s: name too long", path);
	w->fd = tmp_create(path, mode, w->tmp, sizeof(w->tmp), err);
	if (w->fd < 0)
		return w->fd;
	w->f = fopencookie(w, "w", io);
	if (!w->f) {
		int rc = -errno;

		close(w->fd);
		w->fd = -1;
		unlink(w->tmp);
		return fab_err_set(err, rc, "%s: %s", w->tmp, strerror(-rc));
	}
	return 0;
}

void file_atomic_abort(struct file_atomic *w)
{
	if (!w->f)
		return;
	fclose(w->f);
	unlink(w->tmp);
	w->f = NULL;
}

int file_atomic_commit(struct file_atomic *w, struct fab_err *err)
{
	int rc = 0;

	if (fflush(w->f) == EOF || ferror(w->f))
		rc = w->rc ? w->rc : -(errno ? errno : EIO);
	if (rc == 0 && fsync(w->fd) < 0)
		rc = -errno;
	if (fclose(w->f) == EOF && rc == 0)
		rc = w->rc ? w->rc : -(errno ? errno : EIO);
	w->f = NULL;
	if (rc < 0) {
		fab_err_set(err, rc, "%s: write: %s", w->path, strerror(-rc));
		goto fail;
	}
	if (rename(w->tmp, w->path) < 0) {
		rc = fab_err_set(err, -errno, "%s: rename: %s", w->path, strerror(errno));
		goto fail;
	}
	dir_sync(w->path);
	return 0;
fail:
	unlink(w->tmp);
	return rc;
}

int file_atomic_finish(struct file_atomic *w, int rc, struct fab_err *err)
{
	if (rc >= 0)
		return file_atomic_commit(w, err);
	if (w->rc)
		rc = w->rc;
	file_atomic_abort(w);
	return fab_err_set(err, rc, "%s: write: %s", w->path, strerror(-rc));
}

int file_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
		      struct fab_err *err)
{
	struct file_atomic w;
	int rc = file_atomic_open(&w, path, mode, err);

	if (rc < 0)
		return rc;
	rc = file_write_all(w.fd, data, len);
	if (rc < 0)
		w.rc = rc;
	return file_atomic_finish(&w, rc, err);
}

int file_check_writable(const char *path, struct fab_err *err)
{
	char *copy = strdup(path);
	const char *dir;
	struct stat st;
	int rc = 0;

	if (!copy)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", path);
	dir = dirname(copy);
	if (!*path) {
		rc = fab_err_input(err, -EINVAL, "empty file name");
	} else if (stat(dir, &st) < 0) {
		rc = fab_err_input(err, -errno, "%s: directory %s %s", path, dir,
				   errno == ENOENT ? "does not exist" : strerror(errno));
	} else if (!S_ISDIR(st.st_mode)) {
		rc = fab_err_input(err, -ENOTDIR, "%s: %s is not a directory", path, dir);
	} else if (access(dir, W_OK | X_OK) < 0) {
		rc = fab_err_input(err, -errno, "%s: directory %s is not writable (%s)", path, dir,
				   strerror(errno));
	} else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = fab_err_input(err, -EISDIR, "%s: is a directory, not a file", path);
	}
	free(copy);
	return rc;
}
