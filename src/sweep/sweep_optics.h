/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diagnose's cable evidence (docs/optics.md, docs/diagnose.md): every
 * worker's modules and links read before the first round
 * (fleet_optics_read()), the hosts the suspects name read again after the
 * sweep, and each of their cable ends judged over that window
 * (optics_set_judge()).  Evidence, never the verdict: a host that does
 * not answer is said, and the sweep goes on.
 *
 * Ownership: struct sweep_optics owns the readings and the result
 * (sweep_optics_fini()); report->cables borrows the result.
 */
#ifndef FAB_SWEEP_SWEEP_OPTICS_H
#define FAB_SWEEP_SWEEP_OPTICS_H

#include <stdbool.h>

#include "fleet/fleet.h"
#include "model/counter_eval.h"
#include "model/localize.h"
#include "model/optics.h"
#include "sweep/sweep_ctx.h"
#include "sweep/sweep_topo.h"

struct sweep_optics {
	struct optics_hosts before;	/* every worker's, before the first round */
	struct optics_hosts now;	/* the suspects' hosts, after the sweep, judged */
	bool have_before, have_now;
};

void sweep_optics_init(struct sweep_optics *so);
void sweep_optics_fini(struct sweep_optics *so);

/* The first reading, of every live worker of @f.  0, or -ENOMEM / a poll failure (ctx->err). */
int sweep_optics_before(struct sweep_ctx *ctx, struct sweep_optics *so, struct fleet *f);

/*
 * The hosts @res's suspects name (a node suspect, a group member that is
 * a host's access link) read again through @f and judged against the
 * first reading; a host's ports narrowed to its access port in @st's
 * graph when one of them has its name.  Nothing to do (0) without
 * suspects on hosts or a first reading.
 */
int sweep_optics_suspects(struct sweep_ctx *ctx, struct sweep_optics *so, struct fleet *f,
			  const struct sweep_topo *st, const struct loc_result *res);

/*
 * diagnose --from --topology ib: both ends of every link a suspect names,
 * judged from the PMA counters the saved sweep recorded (@before) and
 * the live subnet's (@after) over @window_s (optics_ib_verdict(); 0:
 * unknown), into so->now's InfiniBand ends.  Nothing without suspects or
 * saved counters.  0 or -ENOMEM.
 */
int sweep_optics_ib(struct sweep_ctx *ctx, struct sweep_optics *so, const struct topo *t,
		    const struct counter_snap *before, const struct counter_snap *after,
		    const struct loc_result *res, double window_s);

#endif
