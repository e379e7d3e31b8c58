/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sweep's per-pair results, kept out of memory once there are many:
 * every finished round's pairs are appended (struct sweep_pair packed
 * into a fixed 216-byte record, its reason text in a second store), and
 * the judge, the localiser and the renderers read them back in passes.
 * Both stores are util/spool.h's: in memory up to a budget, then in an
 * unlinked temporary file in $TMPDIR.  The controller's memory then
 * follows nodes and links, not pairs (4096 hosts, all 8.4 M pairs: about
 * 1.8 GB of records on disk, two 1 MiB windows in memory; docs/scale.md).
 *
 * The budget: PAIR_STORE_MEM bytes of records and as much again of
 * reason text, or FABRICCTL_SPOOL_MEM bytes each when that is set
 * (tests force the file with a small one).  FABRICCTL_SPOOL_WINDOW=BYTES
 * (4096 to 1 GiB) sets the spools' 1 MiB write and read windows, for
 * tests that fill a small $TMPDIR in fewer pairs.
 *
 * A full $TMPDIR loses nothing stored: each spool keeps what follows in
 * memory, up to the budget again (at least its 1 MiB write window), and
 * says so on stderr; past that pair_store_append() fails with the file's
 * error (-ENOSPC, "spool: temporary file in DIR: No space left on
 * device ...") and every pair appended before it still reads back
 * (the sweep then stops measuring and reports those: sweep/sweep.c).
 *
 * What a record keeps: every field of struct sweep_pair, exactly (the
 * doubles as doubles); the reason up to its 255 characters.
 *
 * Ownership: the store owns its records; pair_store_get() copies one out.
 * pair_store_free(NULL) is a no-op.
 */
#ifndef FAB_IO_PAIR_STORE_H
#define FAB_IO_PAIR_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/sweep_judge.h"
#include "util/err.h"

#define PAIR_STORE_MEM (16u << 20)

struct pair_store;

/*
 * A new, empty store for about @expected pairs (0: unknown).  When they
 * will not fit the budget the store is on file from the first pair: no
 * memory is filled only to be written out and freed.
 */
int pair_store_new(struct pair_store **out, size_t expected, struct fab_err *err);
/*
 * Before the first round: will @n_pairs records go to a file, and can one
 * be made?  0, or -errno with the reason (util/spool.h spool_check).
 */
int pair_store_check(size_t n_pairs, struct fab_err *err);
void pair_store_free(struct pair_store *ps);

size_t pair_store_count(const struct pair_store *ps);
/* True once the records went to the temporary file. */
bool pair_store_on_file(const struct pair_store *ps);

/* Append @p as record pair_store_count() - 1.  0 or -errno (@err set). */
int pair_store_append(struct pair_store *ps, const struct sweep_pair *p, struct fab_err *err);
/* Record @i into @out.  0, -EINVAL (no such record) or -errno (@err set). */
int pair_store_get(struct pair_store *ps, size_t i, struct sweep_pair *out, struct fab_err *err);
/* Replace record @i with @p.  0, -EINVAL or -errno (@err set). */
int pair_store_put(struct pair_store *ps, size_t i, const struct sweep_pair *p, struct fab_err *err);

#endif
