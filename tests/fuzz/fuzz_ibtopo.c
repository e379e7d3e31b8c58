// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the ibnetdiscover topology (plan) parser, then the
 * writer and the diff on whatever it accepted; a written plan must parse
 * back.  Seeds: tests/fuzz/corpus/ibtopo.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/ibtopo_parse.h"
#include "model/topo_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topo *t = topo_new(), *t2 = topo_new();
	struct topo_thresholds th;
	struct fab_err err;
	char *buf = NULL;
	size_t len = 0;
	struct strbuf sb;

	fab_err_init(&err);
	if (ibtopo_parse(t, (const char *)data, size, "fuzz", TOPO_SRC_PLAN, &err) == 0) {
		strbuf_init(&sb);
		ibtopo_format(t, &sb);
		buf = strbuf_take(&sb, &len);
		if (buf) {
			/* What we write, we read: names with quotes are the one exception. */
			if (ibtopo_parse(t2, buf, len, "rt", TOPO_SRC_PLAN, &err) == 0 &&
			    t2->n_links != t->n_links) {
				bool quoted = false;

				for (size_t i = 0; i < t->n_nodes; i++)
					for (const char *c = t->nodes[i]->name; *c; c++)
						quoted |= *c == '"' || *c == '#';
				if (!quoted)
					abort();
			}
			free(buf);
		}
		topo_thresholds_default(&th);
		topo_health_check(t, &th);
		topo_diff(t, t2, NULL);
		topo_rail_check(t);
		topo_sort(t);
	}
	topo_free(t);
	topo_free(t2);
	return 0;
}
