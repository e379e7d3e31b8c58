/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whole files read into memory (plans, hosts files). */
#ifndef FAB_UTIL_FILE_H
#define FAB_UTIL_FILE_H

#include <stddef.h>

#include "util/err.h"

/*
 * Read all of @path into a new buffer (*@buf, *@len; the caller frees
 * *@buf; not NUL-terminated).  A file that cannot be opened or read, or
 * that is larger than @max_bytes, is bad input ("PATH: reason").
 * *@buf and *@len are set only on success.
 */
int file_read_all(const char *path, size_t max_bytes, char **buf, size_t *len,
		  struct fab_err *err);

#endif
