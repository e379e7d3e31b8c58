// SPDX-License-Identifier: GPL-2.0-or-later
/* What every JSON renderer shares: string and GUID values, and the one writer of a document. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render_impl.h"

json_t *json_guid(uint64_t guid)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016" PRIx64, guid);
	return json_string(buf);
}

json_t *json_text(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j || !s)
		return j;
	copy = strdup(s);
	if (!copy)
		return NULL;
	for (char *c = copy; *c; c++)
		if ((unsigned char)*c >= 0x80)
			*c = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* "" means unknown: render null so consumers need not special-case it. */
json_t *json_text_or_null(const char *s)
{
	return s && *s ? json_text(s) : json_null();
}

int render_json_emit(struct render *out, json_t *doc)
{
	size_t flags = JSON_PRESERVE_ORDER | (out->pretty ? JSON_INDENT(2) : JSON_COMPACT);
	int rc = 0;

	if (!doc)
		return -ENOMEM;
	if (json_dumpf(doc, out->f, flags) < 0 || fputc('\n', out->f) == EOF)
		rc = -EIO;
	json_decref(doc);
	if (fflush(out->f) == EOF)
		rc = -EIO;
	return rc;
}
