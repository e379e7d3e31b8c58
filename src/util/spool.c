// SPDX-License-Identifier: GPL-2.0-or-later
/* Memory-then-file byte store; see spool.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/spool.h"

struct spool {
	size_t mem_max;
	/* memory mode */
	unsigned char *buf;
	size_t len, cap;
	/* file mode (fd >= 0): [0, file_len) on file, then wlen bytes in wbuf */
	int fd;
	uint64_t file_len;
	unsigned char *wbuf;
	size_t wlen;
	unsigned char *rwin;		/* bytes [rwin_off, rwin_off + rwin_len) of the file */
	uint64_t rwin_off;
	size_t rwin_len;
};

int spool_new(struct spool **out, size_t mem_max, struct fab_err *err)
{
	struct spool *s = calloc(1, sizeof(*s));

	if (!s)
		return fab_err_set(err, -ENOMEM, "spool: out of memory");
	s->mem_max = mem_max;
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

static const char *tmp_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
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

/* Memory to file: the buffer is written out and freed. */
static int spill(struct spool *s, struct fab_err *err)
{
	const char *dir = tmp_dir();
	int rc;

	s->wbuf = malloc(SPOOL_WINDOW);
	s->rwin = malloc(SPOOL_WINDOW);
	if (!s->wbuf || !s->rwin) {
		free(s->wbuf);
		free(s->rwin);
		s->wbuf = s->rwin = NULL;
		return fab_err_set(err, -ENOMEM, "spool: out of memory");
	}
	s->fd = tmp_open(dir);
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
	return 0;
fail:
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	free(s->wbuf);
	free(s->rwin);
	s->wbuf = s->rwin = NULL;
	return fab_err_set(err, rc, "spool: temporary file in %s: %s", dir, strerror(-rc));
}

static int flush(struct spool *s, struct fab_err *err)
{
	int rc;

	if (!s->wlen)
		return 0;
	rc = pwrite_all(s->fd, s->wbuf, s->wlen, s->file_len);
	if (rc < 0)
		return fab_err_set(err, rc, "spool: write: %s", strerror(-rc));
	s->file_len += s->wlen;
	s->wlen = 0;
	return 0;
}

int spool_append(struct spool *s, const void *data, size_t len, uint64_t *off, struct fab_err *err)
{
	uint64_t at = spool_size(s);
	int rc;

	if (s->fd < 0 && s->len + len > s->mem_max && (rc = spill(s, err)) < 0)
		return rc;
	if (s->fd < 0) {
		if (s->len + len > s->cap) {
			size_t cap = s->cap ? s->cap : 4096;
			unsigned char *b;

			while (cap < s->len + len)
				cap *= 2;
			if (cap > s->mem_max)
				cap = s->mem_max;
			b = realloc(s->buf, cap);
			if (!b)
				return fab_err_set(err, -ENOMEM, "spool: out of memory");
			s->buf = b;
			s->cap = cap;
		}
		memcpy(s->buf + s->len, data, len);
		s->len += len;
	} else if (len > SPOOL_WINDOW) {
		if ((rc = flush(s, err)) < 0)
			return rc;
		rc = pwrite_all(s->fd, data, len, s->file_len);
		if (rc < 0)
			return fab_err_set(err, rc, "spool: write: %s", strerror(-rc));
		s->file_len += len;
	} else {
		if (s->wlen + len > SPOOL_WINDOW && (rc = flush(s, err)) < 0)
			return rc;
		memcpy(s->wbuf + s->wlen, data, len);
		s->wlen += len;
	}
	if (off)
		*off = at;
	return 0;
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
			k = left < SPOOL_WINDOW ? (size_t)left : SPOOL_WINDOW;
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
