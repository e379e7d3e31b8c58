// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the YAML cabling-plan parser (src/model/plan_yaml.c).
 * Anything it accepts must also survive the checks that consume a plan,
 * and the writer's output must parse back with the same number of nodes
 * with links and the same links.
 *   make fuzz && build/fuzz/fuzz_plan_yaml -max_total_time=60 tests/fuzz/corpus/plan_yaml
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/plan_yaml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct topo *t = topo_new(), *t2 = NULL;
	struct topo_rails r;
	struct fab_err err;
	char *buf = NULL;
	size_t len = 0;
	struct strbuf sb;

	if (!t)
		return 0;
	topo_rails_init(&r);
	fab_err_init(&err);
	(void)plan_yaml_sniff((const char *)data, size);
	if (plan_yaml_parse(t, &r, (const char *)data, size, "fuzz.yaml", &err) < 0) {
		if (err.kind != FAB_ERR_INPUT && err.code != -ENOMEM)
			abort();	/* parse errors are always bad input */
		goto out;
	}
	/* The plan as its own "found" graph: every check must cope. */
	if (topo_mtu_check(t, t) < 0 || topo_rail_plan_check(t, &r) < 0)
		goto out;
	topo_sort(t);
	strbuf_init(&sb);
	if (plan_yaml_format(t, &sb) < 0) {
		strbuf_fini(&sb);
		goto out;
	}
	buf = strbuf_take(&sb, &len);
	if (!buf)
		goto out;
	t2 = topo_new();
	if (!t2)
		goto out;
	fab_err_init(&err);
	if (plan_yaml_parse(t2, NULL, buf, len, "rewritten.yaml", &err) < 0) {
		fprintf(stderr, "rewritten plan does not parse: %s\n%s\n", err.msg, buf);
		abort();
	}
	if (t2->n_links != t->n_links)
		abort();
out:
	free(buf);
	topo_free(t2);
	topo_rails_fini(&r);
	topo_free(t);
	return 0;
}
