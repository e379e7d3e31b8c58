// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * apply --hosts as one step table with a NODE column plus a line per
 * failed node (fleet/fleet_op.h's struct fleet_apply).  JSON:
 * render/fleet_doc.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "render/render_impl.h"

static void change_print(FILE *f, int w, bool dry, const struct fleet_change *c)
{
	const char *st = fleet_dash(c->status);

	fprintf(f, "%-*s %-11s %-16s %-16s %s -> %s\n", w, fleet_dash(c->node),
		dry && c->fails ? "WOULD-FAIL" : dry && !strcmp(st, "planned") ? "would" : st,
		fleet_dash(c->object), fleet_dash(c->field), fleet_dash(c->from),
		fleet_dash(c->to));
	if (dry && c->fails)
		fprintf(f, "%-*s %s\n", w, "", c->fails);
}

int apply_fleet_text(struct render *out, const struct fleet_apply *a)
{
	long long n = (long long)a->run->n, failed = (long long)a->run->n_failed;
	long long n_changes = (long long)a->n_changes;
	FILE *f = out->f;
	int w = fleet_node_width(a->run);

	fprintf(f, "apply %s%s on %lld node%s: %lld ok, %lld failed, %lld changed (%lld change%s)\n",
		fleet_dash(a->profile), a->dry_run ? " (dry run)" : "", n, n == 1 ? "" : "s",
		n - failed, failed, (long long)a->n_changed, n_changes, n_changes == 1 ? "" : "s");
	if (a->n_changes)
		fprintf(f, "%-*s %-11s %-16s %-16s %s\n", w, "NODE", "STATUS", "OBJECT", "FIELD",
			"FROM -> TO");
	for (size_t i = 0; i < a->n_changes; i++)
		change_print(f, w, a->dry_run, &a->changes[i]);
	fleet_failed_print(out, a->run);
	return fflush(f) == EOF ? -EIO : 0;
}
