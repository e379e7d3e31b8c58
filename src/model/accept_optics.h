/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * accept's rule for a new host's cable ends (docs/accept.md "Optics",
 * docs/optics.md): every port of a new end point whose verdict
 * (model/optics.h) is failing or marginal is one finding,
 * FAB-COUNTER-OPTICS-FAILING or FAB-COUNTER-OPTICS-MARGINAL, naming the
 * node, the interface, and the verdict's first finding at that level
 * (lane, figure, limit, the repair hint), then how many more there are.
 * Stage 4 judges one reading (the module's flags and values); stage 6 the
 * window since it (FEC, pre-FEC BER, flaps), and only what stage 4 did
 * not already say.  A port whose module cannot be read is counted, not a
 * finding (a port without a module interface never reaches here).
 * With the policy's optics: {marginal: note}, a marginal port is named in
 * the count (for the stage's note) instead of being a finding: a site
 * that accepts hosts with marginal optics; failing ports stay findings.
 *
 * Pure: no I/O.
 */
#ifndef FAB_MODEL_ACCEPT_OPTICS_H
#define FAB_MODEL_ACCEPT_OPTICS_H

#include "model/accept.h"
#include "model/optics.h"

struct accept_optics_count {
	size_t hosts;		/* new hosts whose ports were read */
	size_t ports;		/* ports judged */
	size_t failing, marginal;	/* of them */
	size_t unread;		/* ports whose module could not be read */
	size_t noted;		/* marginal ports noted, not findings (marginal_note) */
	char noted_ends[160];	/* "NODE IFNAME, ..." of them, ", ..." past the room */
};

/*
 * Findings at stage @st for the judged ports of @s (node @node): a port
 * whose verdict is marginal or failing, unless @seen (the stage 4 set of
 * the same host, NULL none) had a finding of every code and lane this one
 * has.  With @marginal_note, a marginal port is noted in *@c, not a
 * finding.  Adds to *@c.  0 or -ENOMEM.
 */
int accept_optics_findings(struct accept_report *r, enum accept_stage st, const char *node,
			   const struct optics_set *s, const struct optics_set *seen,
			   bool marginal_note, struct accept_optics_count *c);

#endif
