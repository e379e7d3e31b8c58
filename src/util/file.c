// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file.h"

int file_read_all(const char *path, size_t max_bytes, char **buf, size_t *len,
		  struct fab_err *err)
{
	FILE *f = fopen(path, "r");
	char *data = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!f)
		return fab_err_input(err, -errno, "%s: %s", path, strerror(errno));
	for (;;) {
		size_t got;

		if (n == cap) {
			char *tmp;

			/* Room for one byte past the limit tells a file of exactly max_bytes apart. */
			if (cap > max_bytes) {
				rc = fab_err_input(err, -EFBIG, "%s: larger than %zu bytes", path,
						   max_bytes);
				goto out;
			}
			cap = cap ? cap * 2 : 16384;
			if (cap > max_bytes + 1)
				cap = max_bytes + 1;
			tmp = realloc(data, cap);
			if (!tmp) {
				rc = fab_err_set(err, -ENOMEM, "%s: out of memory", path);
				goto out;
			}
			data = tmp;
		}
		got = fread(data + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		rc = fab_err_input(err, -EIO, "%s: read error", path);
		goto out;
	}
	*buf = data;
	*len = n;
	data = NULL;
out:
	free(data);
	fclose(f);
	return rc;
}
