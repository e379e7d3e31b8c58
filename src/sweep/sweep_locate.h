/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Link suspects of a topology-aware sweep: which links (or hosts' access
 * links) explain the bad pairs (model/localize.h, docs/diagnose.md).
 * Groups of links the pairs cannot tell apart are split by probe pairs
 * measured over the same fleet, when one is given.
 *
 * Ownership: struct sweep_locate owns its result, its accumulator and
 * arrays (sweep_locate_fini); its input borrows the topology, which must
 * outlive it.
 */
#ifndef FAB_SWEEP_SWEEP_LOCATE_H
#define FAB_SWEEP_SWEEP_LOCATE_H

#include "fleet/sweep.h"
#include "model/localize.h"
#include "model/sweep_judge.h"
#include "sweep/sweep_topo.h"

struct sweep_results;

/* Residual passes when the localiser sampled the bad pairs (model/localize.h). */
#define SWEEP_LOCATE_RESIDUAL_PASSES 2

struct sweep_locate {
	struct loc_input in;		/* in.acc: the sweep's pairs, one pass over its store */
	struct loc_result res;
	const char **names;
	unsigned int probes_run;
	struct loc_probe_obs *confirm;	/* owned: --steer's confirming probes, as measured */
	size_t n_confirm;
};

struct sweep_locate_env {
	struct sweep_ctx *ctx;
	struct sweep_topo *st;		/* st->routes: one per pair of the store (diagnose --from), else routed here */
	const struct sweep_report *r;	/* judged; its store is read */
	const struct sweep_measure *m;	/* NULL: no probes (diagnose --from) */
	struct sweep_opts *so;		/* for probes */
	size_t max_probes;		/* per group; 0: 8 */
	const struct sweep_results *sr;	/* the path classes' references for probes; NULL none */
	const bool *skip_host;		/* per host: worker never started, its pairs not evidence; NULL none */
	const struct loc_probe_obs *saved;	/* diagnose --from: the sweep's confirming probes, added */
	size_t n_saved;
};

void sweep_locate_init(struct sweep_locate *sl);
void sweep_locate_fini(struct sweep_locate *sl);

/* Localise, then probe and narrow every group.  0 or -errno (ctx->err set). */
int sweep_locate_run(struct sweep_locate *sl, const struct sweep_locate_env *env);

#endif
