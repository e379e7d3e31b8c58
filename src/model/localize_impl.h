/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to link localisation (localize.h), whose parts are
 *   localize_acc.c       the accumulator: each measured pair's crossings, counted
 *   localize_cover.c     the cover: the cheapest set of suspects (loc_localize())
 *   localize_probe.c     members as text, probe pairs that split a group
 *   localize_counters.c  counter findings as evidence on the suspects
 * Here: what more than one part uses.  Nothing outside src/model/localize_*.c
 * includes this.
 */
#ifndef FAB_MODEL_LOCALIZE_IMPL_H
#define FAB_MODEL_LOCALIZE_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/localize.h"
#include "model/stats.h"

static inline bool is_bad(enum loc_verdict v)
{
	return v == LOC_SLOW || v == LOC_FAILED;
}

/* One candidate crossed by one pair. */
struct cross {
	uint32_t cand;
	double w;
};

/* A bad pair as the accumulator keeps it: the candidates it crosses (owned). */
struct loc_bad {
	unsigned int a, b;
	enum loc_verdict verdict;
	double pct;
	uint32_t *cand;
	size_t n;
};

/* Hosts up to this many: the measured pairs are a bitmap (4096 hosts: 1 MiB), else a key list. */
#define LOC_SEEN_BITMAP_HOSTS 8192

struct loc_acc {
	const struct topo *topo;
	const uint32_t *host_link;
	size_t n_hosts, n_cand;
	unsigned int *cb, *cn, *cf;	/* per candidate: bad, measured, failed crossing (all pairs) */
	double *g;			/* per candidate: weight of ok pairs crossing */
	struct loc_bad *bad;		/* the bad pairs kept: all, or a uniform sample of LOC_BAD_MAX */
	size_t n_bad;			/* kept */
	size_t n_bad_total;		/* offered to the sample (all, or the residual pass's) */
	size_t n_bad_all;		/* every bad pair added */
	uint8_t *explained;		/* residual pass: per candidate, a suspect's member */
	struct stats_reservoir res;
	struct cross *scratch;
	size_t cap_scratch;
	unsigned int n_measured;
	uint64_t *seen;			/* bitmap of measured pairs, or NULL: keys */
	uint64_t *keys;
	size_t n_keys, cap_keys;
	bool keys_sorted;
};

/* Was pair a-b measured (any verdict but unknown)? */
bool acc_seen(struct loc_acc *acc, unsigned int a, unsigned int b);
/*
 * The accumulator of @in: its own, or (*@own, freed by the caller) one
 * built from in->pairs.
 */
int acc_of(const struct loc_input *in, struct loc_acc **acc, struct loc_acc **own,
	   struct fab_err *err);
/* Suspects' order: score, then bad pairs crossed, then first member's link (qsort). */
int suspect_cmp(const void *x, const void *y);

#endif
