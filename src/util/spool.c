// SPDX-License-Identifier: GPL-2.0-or-later
/* Memory-then-file byte store; see spool.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/log.h"
#include "util/spool.h"

struct spool {
	size_t mem_max;
	size_t fallback;		/* bytes kept in memory once the file fails */
	int file_rc;			/* the file's first failure; 0: none */
	/* memory mode */
	unsigned char *buf;
	size_t len, cap;
	/* file mode (fd >= 0): [0, file_len) on file, then wlen bytes in wbuf */
	int fd;
	uint64_t file_len;
	unsigned char *wbuf;
	size_t window;			/* SPOOL_WINDOW unless spool_set_window() */
	size_t wlen, wcap;		/* wcap: the window, more after a failure */
	unsigned char *rwin;		/* bytes [rwin_off, rwin_off + rwin_len) of the file */
	uint64_t rwin_off;
	size_t rwin_len;
};

static const char *tmp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int spool_new(struct spool **out, size_t mem_max, struct fab_err *err)
{
	struct spool *s = calloc(1, sizeof(*s));

	if (!s)
		return fab_err_set(err, -ENOMEM, "spool: out of memory");
	s->mem_max = mem_max;
	s->window = SPOOL_WINDOW;
	s->fd = -1;
	*out = s;
	return 0;
}

void spool_free(struct spool *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	free(s->wbuf);
	free(s->rwin);
	free(s);
}

uint64_t spool_size(const struct spool *s)
{
	return s->fd >= 0 ? s->file_len + s->wlen : s->len;
}

bool spool_on_file(const struct spool *s)
{
	return s->fd >= 0;
}

int spool_file_error(const struct spool *s)
{
	return s->file_rc;
}

void spool_set_fallback(struct spool *s, size_t bytes)
{
	s->fallback = bytes;
}

void spool_set_window(struct spool *s, size_t bytes)
{
	if (s->fd >= 0)
		return;		/* on file: the buffers are made */
	s->window = bytes < SPOOL_WINDOW_MIN ? SPOOL_WINDOW_MIN : bytes;
}

/* The write buffer once the file refused: the window, or the fallback if larger. */
static size_t held_max(const struct spool *s)
{
	return s->window > s->fallback ? s->window : s->fallback;
}

/*
 * The file refused @rc: said once, then what follows stays in memory
 * (the caller keeps the bytes it could not write).
 */
static void file_failed(struct spool *s, const char *what, int rc)
{
	size_t more = s->fd < 0 ? s->fallback
		    : held_max(s) - s->wlen;

	if (s->file_rc)
		return;
	s->file_rc = rc;
	fab_warn("spool: temporary file in %s: %s: %s; keeping the rest in memory (up to %zu more "
		 "bytes)", tmp_dir(), what, strerror(-rc), more);
}

/* The fallback is spent: the file's own error, and what the store holds. */
static int fallback_spent(struct spool *s, struct fab_err *err)
{
	return fab_err_set(err, s->file_rc,
			   "spool: temporary file in %s: %s (%llu bytes on file, %zu in memory: "
			   "no room for more)", tmp_dir(), strerror(-s->file_rc),
			   (unsigned long long)(s->fd >= 0 ? s->file_len : 0),
			   s->fd >= 0 ? s->wlen : s->len);
}

/* All of @n bytes at @off, written (@write) or read; 0 or -errno (-EIO at an early end). */
static int pio_all(int fd, void *buf, size_t n, uint64_t off, bool write)
{
	unsigned char *p = buf;

	while (n) {
		ssize_t k = write ? pwrite(fd, p, n, (off_t)off) : pread(fd, p, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

static int pwrite_all(int fd, const void *p, size_t n, uint64_t off)
{
	return pio_all(fd, (void *)(uintptr_t)p, n, off, true);
}

/* An unlinked file in @dir: O_TMPFILE, else a unique name removed at once. */
static int tmp_open(const char *dir)
{
	char path[PATH_MAX];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	if (snprintf(path, sizeof(path), "%s/fabricctl-spool.XXXXXX", dir) >= (int)sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

int spool_check(uint64_t bytes, size_t mem_max, struct fab_err *err)
{
	int fd;

	if (bytes <= mem_max)
		return 0;
	fd = tmp_open(tmp_dir());
	if (fd < 0)
		return fab_err_set(err, -errno, "spool: temporary file in %s: %s", tmp_dir(),
				   strerror(errno));
	close(fd);
	return 0;
}

/*
 * Memory to file: the buffer is written out and freed.  -ENOMEM (@err
 * set), or a file error (-errno, not set: the caller falls back).
 */
static int spill(struct spool *s, struct fab_err *err)
{
	int rc;

	s->wbuf = malloc(s->window);
	s->rwin = malloc(s->window);
	if (!s->wbuf || !s->rwin) {
		free(s->wbuf);
		free(s->rwin);
		s->wbuf = s->rwin = NULL;
		return fab_err_set(err, -ENOMEM, "spool: out of memory");
	}
	s->fd = tmp_open(tmp_dir());
	if (s->fd < 0) {
		rc = -errno;
		goto fail;
	}
	rc = pwrite_all(s->fd, s->buf, s->len, 0);
	if (rc < 0)
		goto fail;
	s->file_len = s->len;
	free(s->buf);
	s->buf = NULL;
	s->len = s->cap = 0;
	s->wlen = s->rwin_len = 0;
	s->wcap = s->window;
	return 0;
fail:
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->wbuf);
	free(s->rwin);
	s->wbuf = s->rwin = NULL;
	return rc;
}

/* The write buffer to the file; on failure the bytes stay in it (file_failed()). */
static void flush(struct spool *s)
{
	int rc;

	if (!s->wlen || s->file_rc)
		return;
	rc = pwrite_all(s->fd, s->wbuf, s->wlen, s->file_len);
	if (rc < 0) {
		file_failed(s, "write", rc);
		return;
	}
	s->file_len += s->wlen;
	s->wlen = 0;
}

/* Room for @len more bytes in a buffer of *@cap holding @used, up to @max. */
static int buf_room(unsigned char **buf, size_t *cap, size_t used, size_t len, size_t max)
{
	size_t ncap = *cap ? *cap : 4096;
	unsigned char *b;

	if (used + len <= *cap)
		return 0;
	if (used + len > max)
		return -ENOSPC;
	while (ncap < used + len)
		ncap = ncap > max / 2 ? max : ncap * 2;
	b = realloc(*buf, ncap);
	if (!b)
		return -ENOMEM;
	*buf = b;
	*cap = ncap;
	return 0;
}

/* Memory mode (never spilled, or the spill failed): into the buffer. */
static int mem_append(struct spool *s, const void *data, size_t len, struct fab_err *err)
{
	size_t max = s->mem_max;
	int rc;

	/* The file again only when the fallback is spent (a missing $TMPDIR made since). */
	if (s->len + len > s->mem_max &&
	    (!s->file_rc || s->len + len - s->mem_max > s->fallback)) {
		rc = spill(s, err);
		if (rc == 0)
			s->file_rc = 0;
		if (rc == 0 || rc == -ENOMEM)
			return rc;
		file_failed(s, "create", rc);
	}
	if (s->file_rc)
		max = s->mem_max + s->fallback < s->mem_max ? SIZE_MAX : s->mem_max + s->fallback;
	rc = buf_room(&s->buf, &s->cap, s->len, len, max);
	if (rc == -ENOSPC)
		return fallback_spent(s, err);
	if (rc < 0)
		return fab_err_set(err, rc, "spool: out of memory");
	memcpy(s->buf + s->len, data, len);
	s->len += len;
	return 0;
}

int spool_append(struct spool *s, const void *data, size_t len, uint64_t *off, struct fab_err *err)
{
	uint64_t at = spool_size(s);
	size_t max;
	int rc;

	if (s->fd < 0) {
		rc = mem_append(s, data, len, err);
		if (rc < 0 || s->fd < 0)
			goto out;
		at = spool_size(s);	/* spilled: append on file below */
	}
	if (s->wlen + len > s->wcap)
		flush(s);
	if (len > s->wcap && !s->wlen && !s->file_rc) {	/* larger than the buffer: straight out */
		rc = pwrite_all(s->fd, data, len, s->file_len);
		if (rc == 0) {
			s->file_len += len;
			goto out;
		}
		file_failed(s, "write", rc);
	}
	max = held_max(s);
	rc = buf_room(&s->wbuf, &s->wcap, s->wlen, len, s->file_rc ? max : s->wcap);
	if (rc == -ENOSPC)
		rc = fallback_spent(s, err);
	else if (rc < 0)
		rc = fab_err_set(err, rc, "spool: out of memory");
	if (rc == 0) {
		memcpy(s->wbuf + s->wlen, data, len);
		s->wlen += len;
	}
out:
	if (rc == 0 && off)
		*off = at;
	return rc;
}

/* File bytes [off, off + len) (within file_len) into @buf through the window. */
static int file_read(struct spool *s, uint64_t off, unsigned char *buf, size_t len)
{
	while (len) {
		size_t k;
		int rc;

		if (off < s->rwin_off || off >= s->rwin_off + s->rwin_len) {
			uint64_t left = s->file_len - off;

			s->rwin_len = 0;
			s->rwin_off = off;
			k = left < s->window ? (size_t)left : s->window;
			rc = pio_all(s->fd, s->rwin, k, off, false);
			if (rc < 0)
				return rc;
			s->rwin_len = k;
		}
		k = (size_t)(s->rwin_off + s->rwin_len - off);
		if (k > len)
			k = len;
		memcpy(buf, s->rwin + (off - s->rwin_off), k);
		buf += k;
		off += k;
		len -= k;
	}
	return 0;
}

int spool_read(struct spool *s, uint64_t off, void *buf, size_t len, struct fab_err *err)
{
	unsigned char *p = buf;
	int rc;

	if (off > spool_size(s) || len > spool_size(s) - off)
		return fab_err_set(err, -EINVAL, "spool: read past the end");
	if (s->fd < 0) {
		memcpy(p, s->buf + off, len);
		return 0;
	}
	if (off < s->file_len) {
		size_t k = off + len <= s->file_len ? len : (size_t)(s->file_len - off);

		rc = file_read(s, off, p, k);
		if (rc < 0)
			return fab_err_set(err, rc, "spool: read: %s", strerror(-rc));
		p += k;
		off += k;
		len -= k;
	}
	if (len)
		memcpy(p, s->wbuf + (off - s->file_len), len);
	return 0;
}

int spool_write(struct spool *s, uint64_t off, const void *data, size_t len, struct fab_err *err)
{
	const unsigned char *p = data;
	int rc;

	if (off > spool_size(s) || len > spool_size(s) - off)
		return fab_err_set(err, -EINVAL, "spool: write past the end");
	if (s->fd < 0) {
		memcpy(s->buf + off, p, len);
		return 0;
	}
	if (off < s->file_len) {
		size_t k = off + len <= s->file_len ? len : (size_t)(s->file_len - off);

		rc = pwrite_all(s->fd, p, k, off);
		if (rc < 0)
			return fab_err_set(err, rc, "spool: write: %s", strerror(-rc));
		/* Keep the read window true to the file. */
		if (off < s->rwin_off + s->rwin_len && off + k > s->rwin_off) {
			uint64_t lo = off > s->rwin_off ? off : s->rwin_off;
			uint64_t hi = off + k < s->rwin_off + s->rwin_len ? off + k
									  : s->rwin_off + s->rwin_len;

			memcpy(s->rwin + (lo - s->rwin_off), p + (lo - off), (size_t)(hi - lo));
		}
		p += k;
		off += k;
		len -= k;
	}
	if (len)
		memcpy(s->wbuf + (off - s->file_len), p, len);
	return 0;
}
