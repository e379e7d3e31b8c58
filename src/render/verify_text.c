// SPDX-License-Identifier: GPL-2.0-or-later
/* verify, text: a table of drift, or one line saying there is none. */
#include <errno.h>
#include <stdio.h>

#include "model/changeset.h"
#include "render/render_impl.h"

/* One line per RoCE chain after the drift: "chain eth0 (mlx5_0/1) ok: DSCP 26 → ...". */
static void chains_text(FILE *f, const struct changeset *cs)
{
	struct render_txt tx = { .next = 0 };
	char line[700];

	for (size_t i = 0; i < cs->n_chains; i++)
		fprintf(f, "chain %s\n",
			render_txt(&tx, chain_text(&cs->chains[i], line, sizeof(line))));
}

int verify_text(struct render *out, const char *profile, const char *hostname,
		const struct changeset *cs)
{
	FILE *f = out->f;

	if (!cs->n_drift) {
		fprintf(f, "verify %s: %s matches, no drift\n", profile, hostname[0] ? hostname : "node");
		chains_text(f, cs);
		return fflush(f) == EOF ? -EIO : 0;
	}
	fprintf(f, "verify %s: %zu drift%s on %s\n", profile, cs->n_drift,
		cs->n_drift == 1 ? "" : "s", hostname[0] ? hostname : "node");
	fprintf(f, "%-16s %-18s %-20s %s\n", "INTERFACE", "FIELD", "WANTED", "FOUND");
	for (size_t i = 0; i < cs->n_drift; i++) {
		const struct drift *d = &cs->drift[i];

		fprintf(f, "%-16s %-18s %-20s %s\n", d->object, d->field, d->wanted, d->found);
	}
	chains_text(f, cs);
	return fflush(f) == EOF ? -EIO : 0;
}
