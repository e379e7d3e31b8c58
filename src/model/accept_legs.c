// SPDX-License-Identifier: GPL-2.0-or-later
/* accept's stage 5: a new host's legs not measured; see accept_legs.h. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "model/accept_legs.h"
#include "model/bond_legs.h"

/* Why host @name's legs were not measured ("" when they were; NULL: it sent through no bond). */
static const char *dirs_gap(const struct sweep_report *r, const char *name)
{
	const char *why = NULL;

	for (size_t i = 0; i < r->n_legs; i++)
		for (int k = 0; k < 2; k++) {
			const struct bond_legs_dir *d = k ? &r->legs[i].ba : &r->legs[i].ab;

			if (!d->run || strcmp(d->node, name) != 0)
				continue;
			if (!d->unread)
				return "";
			if (!why)
				why = d->why ? d->why : "its bond's legs could not be read";
		}
	return why;
}

/* Host @h's "bond" answer that never came, or NULL. */
static const struct bond_legs_unanswered *unanswered(const struct sweep_report *r, size_t h)
{
	for (size_t i = 0; i < r->n_legs_unanswered; i++)
		if (r->legs_unanswered[i].host == h)
			return &r->legs_unanswered[i];
	return NULL;
}

int accept_legs_gaps(struct accept_report *ar, const struct sweep_report *r,
		     const unsigned char *dp, size_t *n_gaps, size_t *n_plain)
{
	int rc = 0;

	*n_gaps = *n_plain = 0;
	for (size_t h = 0; rc == 0 && r->hosts && h < r->hosts->n; h++) {
		const struct fab_host *host = &r->hosts->hosts[h];
		enum accept_dp_kind kind = dp ? (enum accept_dp_kind)dp[h] : ACCEPT_DP_UNKNOWN;
		const struct bond_legs_unanswered *u;
		const char *why;

		if (!host->is_new || !hosts_is_endpoint(host))
			continue;
		why = dirs_gap(r, host->name);
		if (why && !why[0])
			continue;	/* measured */
		if (why) {
			rc = accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_LEG_UNREAD,
						host->name, "", "legs not measured: %s", why);
		} else if ((u = unanswered(r, h))) {
			if (kind == ACCEPT_DP_PLAIN) {
				(*n_plain)++;
				continue;
			}
			rc = accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_LEG_UNREAD,
						host->name, "", "legs not measured: worker did not "
						"answer the bond request: %s%s", u->why,
						kind == ACCEPT_DP_BOND ? " (its data path is a bond, "
						"stage 1)" : " (stage 1 could not tell whether its "
						"data path is a bond)");
		} else if (kind == ACCEPT_DP_BOND) {
			rc = accept_finding_add(ar, ACCEPT_ST_TRAFFIC, FAB_TRAFFIC_LEG_UNREAD,
						host->name, "", "legs not measured: its data path is a "
						"bond (stage 1), the sweep measured none of its legs");
		} else {
			continue;
		}
		(*n_gaps)++;
	}
	return rc < 0 ? -ENOMEM : 0;
}
