/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A growable byte store that lives in memory up to a budget and in an
 * unlinked temporary file beyond it: what a long job appends and reads
 * back in passes (the sweep's per-pair results: thousands of hosts make
 * millions of pairs, more than the controller should hold in memory).
 *
 * Bytes are appended at the end and read or overwritten anywhere below
 * it.  In memory it is one buffer; when an append would take it past
 * @mem_max bytes the buffer is written to a new file in $TMPDIR (else
 * /tmp), opened O_TMPFILE (or created O_EXCL and unlinked at once: no
 * name is left behind, and the space goes back when the store is freed
 * or the process dies) and freed.  On file, appends collect in a write
 * buffer and reads go through a read-ahead window (SPOOL_WINDOW bytes,
 * or spool_set_window()'s), so a pass in order costs one system call a
 * window, not one a record.
 *
 * When the file cannot take more (ENOSPC, EDQUOT, EFBIG: a full $TMPDIR),
 * or cannot be made when the store must spill, nothing already appended
 * is lost: the store says so once on stderr ("spool: temporary file in
 * DIR: write: No space left on device; keeping what follows in memory,
 * up to N bytes") and keeps what follows in memory, up to the fallback
 * budget (spool_set_fallback(); 0 unless set, but the write buffer's
 * window's bytes are never thrown away).  Only an append past that
 * fails, with the file's error (-ENOSPC ...): the store still holds, and
 * reads back, everything appended before it.
 *
 * Memory: at most @mem_max bytes in memory mode, 2 windows on file;
 * plus the fallback budget once the file refused a write.
 * Ownership: spool_free() frees the store and closes (so removes) its file.
 * One thread at a time.
 */
#ifndef FAB_UTIL_SPOOL_H
#define FAB_UTIL_SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define SPOOL_WINDOW (1u << 20)
#define SPOOL_WINDOW_MIN 4096u

struct spool;

/* A new, empty store (in memory).  0 or -ENOMEM. */
int spool_new(struct spool **out, size_t mem_max, struct fab_err *err);
void spool_free(struct spool *s);

/*
 * Once the file refuses a write (or cannot be made), up to @bytes more
 * are kept in memory (above @mem_max in memory mode, above the write
 * buffer on file) before appends fail.
 */
void spool_set_fallback(struct spool *s, size_t bytes);

/*
 * The write buffer's and the read window's size, @bytes (at least
 * SPOOL_WINDOW_MIN) instead of SPOOL_WINDOW; only before the store goes to
 * its file (ignored after).  Tests use a small one to fill a small $TMPDIR
 * in fewer records.
 */
void spool_set_window(struct spool *s, size_t bytes);

/*
 * Append @len bytes; *@off (may be NULL) gets their offset.  0, or -errno
 * with "spool: ..." in @err: the file could not be made or written and
 * the fallback budget is spent (the error is the file's: -ENOSPC for a
 * full $TMPDIR).  The append is all or nothing: the store keeps what it
 * had, and everything in it reads back.
 */
int spool_append(struct spool *s, const void *data, size_t len, uint64_t *off, struct fab_err *err);
/* Read @len bytes at @off (off + len <= spool_size()).  0, -EINVAL out of range, -errno. */
int spool_read(struct spool *s, uint64_t off, void *buf, size_t len, struct fab_err *err);
/* Overwrite @len bytes at @off (off + len <= spool_size()).  0, -EINVAL, -errno. */
int spool_write(struct spool *s, uint64_t off, const void *data, size_t len, struct fab_err *err);

/*
 * Before a long job: can a store of @bytes spill?  When @bytes is over
 * @mem_max, a temporary file is made in $TMPDIR (else /tmp) and closed
 * again; 0, or -errno with "spool: temporary file in DIR: reason".
 */
int spool_check(uint64_t bytes, size_t mem_max, struct fab_err *err);

uint64_t spool_size(const struct spool *s);
/* True once the store went to its file. */
bool spool_on_file(const struct spool *s);
/* The error the file (or making it) first met (-ENOSPC ...); 0 while none. */
int spool_file_error(const struct spool *s);

#endif
