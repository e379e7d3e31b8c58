/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep --baseline OLD.json: an earlier sweep's pair averages, compared
 * with this sweep's pairs after every judgement.
 *
 * Ownership: struct sweep_baseline owns what it read (sweep_baseline_fini);
 * @path is borrowed and must outlive it.
 */
#ifndef FAB_SWEEP_SWEEP_BASELINE_H
#define FAB_SWEEP_SWEEP_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/sweep_judge.h"
#include "util/err.h"

/*
 * --baseline OLD.json (sweep/sweep_baseline.c): read and checked before anything
 * runs (bad input names the file and the pair), then each pair compared
 * with the same pair of the old sweep after every judgement
 * (sweep_pair_judge_base()).
 */
struct sweep_base_pair;
/*
 * --baseline: only what is compared is kept (io/json_scan.c streams the
 * document): each old pair's two names and two averages, not the tree.
 */
struct sweep_base_raw;
struct sweep_baseline {
	const char *path;
	bool loaded;			/* false: no --baseline */
	int64_t started_unix;
	struct sweep_base_raw *raw;	/* the document's pairs, in its order */
	size_t n_raw, cap_raw;
	struct sweep_base_pair *pairs;	/* sorted by host indices, once resolved */
	size_t n;
	bool resolved;
};

int sweep_baseline_load(struct sweep_baseline *b, const char *path, struct fab_err *err);
/* Fill every pair's base_* figures and judge it; r->baseline too.  0 or -errno (@err set). */
int sweep_baseline_apply(struct sweep_baseline *b, double regress_pct, struct sweep_report *r,
			 struct fab_err *err);
void sweep_baseline_fini(struct sweep_baseline *b);

#endif
