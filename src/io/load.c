// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>

#include "io/load.h"
#include "util/file.h"

int profile_load_text(const char *path, char **text, size_t *len, struct profile **out,
		      struct fab_err *err)
{
	struct profile *p = NULL;
	char *buf = NULL;
	size_t n = 0;
	int rc;

	rc = file_read_all(path, PROFILE_MAX_BYTES, &buf, &n, err);
	if (rc == 0)
		rc = profile_parse(path, (const unsigned char *)buf, n, &p, err);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	if (out)
		*out = p;
	else
		profile_free(p);
	*text = buf;
	*len = n;
	return 0;
}

int profile_load(const char *path, struct profile **out, struct fab_err *err)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	rc = profile_load_text(path, &text, &len, out, err);
	free(text);
	return rc;
}

int hosts_load(struct fab_hosts *hs, const char *path, struct fab_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	rc = file_read_all(path, HOSTS_FILE_MAX_BYTES, &buf, &len, err);
	if (rc < 0)
		return rc;
	rc = hosts_parse(hs, buf, len, path, err);
	free(buf);
	return rc;
}
