/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * accept's stage 5, a new host's legs that were not measured
 * (docs/accept.md "Every leg of a new host"): the stage passes a new
 * host with a bond only when the sweep measured its legs, as it passes
 * counters or ports only when they were read (FAB-COUNTER-UNREAD,
 * FAB-REACH-PORT-UNREAD).  Pure C, no I/O.
 */
#ifndef FAB_MODEL_ACCEPT_LEGS_H
#define FAB_MODEL_ACCEPT_LEGS_H

#include <stddef.h>

#include "model/accept.h"
#include "model/sweep_judge.h"

/* A host's data-path interface as stage 1 (reach) read it. */
enum accept_dp_kind {
	ACCEPT_DP_UNKNOWN = 0,	/* not read (its ports could not be, no data path found) */
	ACCEPT_DP_BOND,		/* a bond */
	ACCEPT_DP_PLAIN,	/* not a bond */
};

/*
 * The legs not measured of each new end point h of the sweep report @r
 * (r->hosts), @dp[h] its data path by stage 1 (NULL: every one unknown),
 * as FAB-TRAFFIC-LEG-UNREAD findings of stage 5 in @ar, node h:
 *
 *  - h sent through its bond and some direction of it was measured (not
 *    unread; a policy that hashes no port counts: it says why): none;
 *  - every direction h sent was unread (its bond's counters could not be
 *    read, every trial flow failed, no member's counter saw the trials):
 *    "legs not measured: WHY" (the first direction's why);
 *  - h sent nothing and its worker did not answer the bond request
 *    (r->legs_unanswered): "legs not measured: worker did not answer the
 *    bond request: REASON", unless stage 1 read h's data path as not a
 *    bond (@dp PLAIN: nothing to measure; counted in *@n_plain);
 *  - h sent nothing, answered, and stage 1 read its data path as a bond:
 *    "legs not measured: its data path is a bond (stage 1), the sweep
 *    measured none of its legs" (its pairs failed, the legs did not run).
 *
 * *@n_gaps the findings added.  0 or -ENOMEM.
 */
int accept_legs_gaps(struct accept_report *ar, const struct sweep_report *r,
		     const unsigned char *dp, size_t *n_gaps, size_t *n_plain);

#endif
