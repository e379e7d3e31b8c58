// SPDX-License-Identifier: GPL-2.0-or-later
/* The node rule of a sweep without expected rates (sweep_nodes.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/sweep_nodes.h"
#include "util/array.h"

int sweep_nodes_begin(struct sweep_nodes *sn, size_t n)
{
	memset(sn, 0, sizeof(*sn));
	sn->n = n;
	sn->ref_mbps = sn->floor_mbps = NAN;
	/*
	 * Each host's slots grow as its pairs come (array_reserve()): one
	 * block of SWEEP_NODE_SAMPLE slots a host touched a page per host
	 * for a coverage sweep's three pairs (16 MB resident at 4096 hosts).
	 */
	sn->bw = calloc(n ? n : 1, sizeof(*sn->bw));
	sn->bw_cap = calloc(n ? n : 1, sizeof(*sn->bw_cap));
	sn->res = calloc(n ? n : 1, sizeof(*sn->res));
	sn->median = calloc(n ? n : 1, sizeof(*sn->median));
	sn->slow = calloc(n ? n : 1, sizeof(*sn->slow));
	if (!sn->bw || !sn->bw_cap || !sn->res || !sn->median || !sn->slow) {
		sweep_nodes_fini(sn);
		return -ENOMEM;
	}
	for (size_t v = 0; v < n; v++) {
		stats_reservoir_init(&sn->res[v], SWEEP_NODE_SAMPLE, 0x6e0de5ull + v);
		sn->median[v] = NAN;
	}
	return 0;
}

void sweep_nodes_fini(struct sweep_nodes *sn)
{
	for (size_t v = 0; sn->bw && v < sn->n; v++)
		free(sn->bw[v]);
	free(sn->bw);
	free(sn->bw_cap);
	free(sn->res);
	free(sn->median);
	free(sn->slow);
	memset(sn, 0, sizeof(*sn));
}

static void offer(struct sweep_nodes *sn, unsigned int v, unsigned int peer, double bw)
{
	size_t k;

	if (v >= sn->n)
		return;
	k = stats_reservoir_slot(&sn->res[v]);
	if (k == SIZE_MAX)
		return;
	if (array_reserve((void **)&sn->bw[v], &sn->bw_cap[v], k + 1, sizeof(*sn->bw[v])) < 0) {
		sn->nomem = true;
		return;
	}
	sn->bw[v][k] = (struct sweep_nodes_slot){ bw, peer };
}

void sweep_nodes_add(struct sweep_nodes *sn, const struct sweep_pair *p)
{
	double bw = sweep_pair_bw(p);

	if (p->status == SWEEP_FAILED || p->expect_src != SWEEP_EXPECT_NONE || isnan(bw))
		return;
	offer(sn, p->a, p->b, bw);
	offer(sn, p->b, p->a, bw);
}

/*
 * The pairs' own noise, in ln: 1.4826 x the MAD of ln bw over the sampled
 * pairs that touch no candidate (a node already below slow_pct % of the
 * nodes' median), so that a slow node's pairs, low together, do not widen
 * the very spread that should expose them.  @tmp: room for every sample.
 */
static double pair_sigma(const struct sweep_nodes *sn, const bool *cand, double *tmp)
{
	size_t n = 0;
	double med;

	for (size_t v = 0; v < sn->n; v++) {
		size_t k = stats_reservoir_len(&sn->res[v]);

		if (cand[v])
			continue;
		for (size_t i = 0; i < k; i++) {
			const struct sweep_nodes_slot *x = &sn->bw[v][i];

			if (x->peer < sn->n && !cand[x->peer])
				tmp[n++] = log(fmax(x->mbps, 1e-3));
		}
	}
	if (n < SWEEP_NODES_MIN_PAIRS)
		return NAN;
	med = stats_median(tmp, n);
	return STATS_MAD_SIGMA * stats_mad(tmp, n, med);
}

/*
 * How far a node's median of @k pairs may fall by chance, in ln: the
 * larger of the spread of the node medians (1.4826 x their MAD: eight
 * medians have a MAD too unsteady to trust alone) and the noise of a
 * median of @k pairs of noise @s_pairs (1.2533 s / sqrt k).
 */
static double node_sigma(double lmad_nodes, double s_pairs, size_t k)
{
	if (isnan(s_pairs))
		return STATS_MAD_SIGMA * lmad_nodes;
	return 1.2533 * s_pairs / sqrt((double)k);
}

static void mark_slow(struct sweep_nodes *sn, double lmed, double lmad, double s_pairs,
		      const struct sweep_cfg *cfg)
{
	for (size_t v = 0; v < sn->n; v++) {
		size_t k = stats_reservoir_len(&sn->res[v]);
		double floor_mbps;

		if (isnan(sn->median[v]))
			continue;
		floor_mbps = fmin(sn->ref_mbps * cfg->slow_pct / 100,
				  exp(lmed - cfg->mad_k * node_sigma(lmad, s_pairs, k)));
		if (isnan(sn->floor_mbps) || floor_mbps < sn->floor_mbps)
			sn->floor_mbps = floor_mbps;
		if (sn->median[v] < floor_mbps) {
			sn->slow[v] = true;
			sn->n_slow++;
		}
	}
}

static double node_median(const struct sweep_nodes *sn, size_t v, size_t k, double *tmp)
{
	for (size_t i = 0; i < k; i++)
		tmp[i] = sn->bw[v][i].mbps;
	return stats_median(tmp, k);
}

int sweep_nodes_judge(struct sweep_nodes *sn, const struct sweep_cfg *cfg)
{
	size_t cap = SWEEP_NODE_SAMPLE;
	double *m, *lm;
	bool *cand;
	double lmed, lmad;
	size_t nm = 0;

	if (sn->nomem)
		return -ENOMEM;
	for (size_t v = 0; v < sn->n; v++)	/* room for every sample held (pair_sigma()) */
		cap += stats_reservoir_len(&sn->res[v]);
	m = calloc(cap, sizeof(*m));
	lm = calloc(cap, sizeof(*lm));
	cand = calloc(sn->n + 1, sizeof(*cand));
	if (!m || !lm || !cand) {
		free(m);
		free(lm);
		free(cand);
		return -ENOMEM;
	}
	for (size_t v = 0; v < sn->n; v++) {
		size_t k = stats_reservoir_len(&sn->res[v]);

		if (k < SWEEP_NODES_MIN_PAIRS)
			continue;
		sn->median[v] = node_median(sn, v, k, lm);
		m[nm++] = sn->median[v];
	}
	if (nm >= SWEEP_NODES_MIN) {
		sn->ref_mbps = stats_median(m, nm);
		for (size_t i = 0; i < nm; i++)
			lm[i] = log(fmax(m[i], 1e-3));
		lmed = stats_median(lm, nm);
		lmad = stats_mad(lm, nm, lmed);
		for (size_t v = 0; v < sn->n; v++)
			cand[v] = sn->median[v] < sn->ref_mbps * SWEEP_NODES_CAND_PCT / 100;
		mark_slow(sn, lmed, lmad, pair_sigma(sn, cand, m), cfg);
	}
	free(m);
	free(lm);
	free(cand);
	return 0;
}

double sweep_nodes_expect(const struct sweep_nodes *sn, const struct sweep_pair *p)
{
	if (p->expect_src != SWEEP_EXPECT_NONE || isnan(sn->ref_mbps))
		return NAN;
	if ((p->a < sn->n && sn->slow[p->a]) || (p->b < sn->n && sn->slow[p->b]))
		return sn->ref_mbps;
	return NAN;
}
