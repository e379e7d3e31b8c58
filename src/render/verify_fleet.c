// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify --hosts as one drift table with a NODE column plus the nodes
 * that could not be verified (fleet/fleet_op.h's struct fleet_verify).
 * JSON: render/fleet_doc.c.
 */
#include <errno.h>
#include <stdio.h>

#include "fleet/fleet_op.h"
#include "render/render_impl.h"

int verify_fleet_text(struct render *out, const struct fleet_verify *v)
{
	const char *red = out->color ? "\033[31m" : "", *off = out->color ? "\033[0m" : "";
	long long n = (long long)v->run->n, failed = (long long)v->run->n_failed;
	long long drifted = (long long)v->n_drifted, n_drift = (long long)v->n_drift;
	FILE *f = out->f;
	int w = fleet_node_width(v->run);

	fprintf(f, "verify %s on %lld node%s: %lld ok, %lld drifted (%lld drift%s), %lld failed\n",
		fleet_dash(v->profile), n, n == 1 ? "" : "s", n - failed - drifted, drifted,
		n_drift, n_drift == 1 ? "" : "s", failed);
	if (v->n_drift)
		fprintf(f, "%-*s %-16s %-18s %-20s %s\n", w, "NODE", "INTERFACE", "FIELD", "WANTED",
			"FOUND");
	for (size_t i = 0; i < v->n_drift; i++) {
		const struct fleet_drift *d = &v->drift[i];

		fprintf(f, "%-*s %-16s %-18s %-20s %s%s%s\n", w, fleet_dash(d->node),
			fleet_dash(d->interface), fleet_dash(d->field), fleet_dash(d->wanted), red,
			fleet_dash(d->found), off);
	}
	fleet_failed_print(out, v->run);
	return fflush(f) == EOF ? -EIO : 0;
}
