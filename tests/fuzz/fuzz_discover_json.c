// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target, differential: discover -j streams its document item by
 * item (render/discover_json.c); its bytes must equal the whole document from
 * discover_to_json() written by render_json_emit(), compact and indented, for
 * any graph the ibnetdiscover topology parser accepts (names with quotes,
 * backslashes, control characters, bytes that are not UTF-8).  Aborts on
 * the first difference.  Seeds: tests/fuzz/corpus/discover_json (copies
 * of the ibtopo seeds).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ibtopo_parse.h"
#include "model/topo.h"
#include "render/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *render(const struct topo *t, bool stream, bool pretty, int *rc)
{
	struct render out = { .ops = &render_json_ops, .pretty = pretty };
	char *buf = NULL;
	size_t len = 0;

	out.f = open_memstream(&buf, &len);
	if (!out.f)
		abort();
	*rc = stream ? render_json_ops.discover(&out, t) : render_json_emit(&out, discover_to_json(t));
	fclose(out.f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topo *t = topo_new();
	struct topo_thresholds th;
	struct fab_err err;

	fab_err_init(&err);
	if (t && ibtopo_parse(t, (const char *)data, size, "fuzz", TOPO_SRC_PLAN, &err) == 0) {
		topo_thresholds_default(&th);
		topo_health_check(t, &th);
		topo_sort(t);
		for (int pretty = 0; pretty <= 1; pretty++) {
			int rc_whole, rc_stream;
			char *whole = render(t, false, pretty, &rc_whole);
			char *stream = render(t, true, pretty, &rc_stream);

			if ((rc_whole == 0) != (rc_stream == 0) ||
			    (rc_whole == 0 && strcmp(whole, stream) != 0))
				abort();
			free(whole);
			free(stream);
		}
	}
	topo_free(t);
	return 0;
}
