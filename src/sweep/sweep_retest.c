// SPDX-License-Identifier: GPL-2.0-or-later
/* The retest of the pairs that look slow (sweep_impl.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/pair_store.h"
#include "sweep/sweep_impl.h"
#include "util/log.h"

struct keyed {
	uint64_t key;
	size_t idx;
};

static int keyed_cmp(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	return a->key < b->key ? -1 : a->key > b->key;
}

/*
 * The retest's order when it goes one pair at a time: each suspect with
 * bandwidth figures preceded by its control (sweep_results_controls),
 * when it has one.  Fills @sp (2 * n slots) and @ctl_at (which of them
 * are controls); *@m the pairs in order.
 */
static int retest_with_controls(struct sweep_results *sr, const size_t *idx, size_t n,
				const struct sweep_ref *ref, struct sched_pair *sp, bool *ctl_at,
				size_t *m, struct fab_err *err)
{
	struct sweep_pair *sus = calloc(n ? n : 1, sizeof(*sus));
	struct sweep_control *ctl = calloc(n ? n : 1, sizeof(*ctl));
	int rc = -ENOMEM;

	*m = 0;
	if (!sus || !ctl) {
		fab_err_set(err, rc, "sweep: out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if ((rc = pair_store_get(sr->store, idx[k], &sus[k], err)) < 0)
			goto out;
	if ((rc = sweep_results_controls(sr, sus, n, ref, ctl, err)) < 0)
		goto out;
	for (size_t k = 0; k < n; k++) {
		if (ctl[k].a != ctl[k].b) {
			ctl_at[*m] = true;
			sp[(*m)++] = (struct sched_pair){ .a = ctl[k].a, .b = ctl[k].b };
		}
		ctl_at[*m] = false;
		sp[(*m)++] = (struct sched_pair){ .a = sus[k].a, .b = sus[k].b };
	}
out:
	free(sus);
	free(ctl);
	return rc;
}

/* One retested pair's new figures @again into its store entry @p (read from the store). */
static void retest_judge(struct sweep_pair *p, const struct sweep_pair *again,
			const struct sweep_pair *ctl, const struct fab_hosts *hs,
			const struct sweep_report *r)
{
	struct sweep_pair keep = *p;
	char name[2 * FAB_HOST_NAME_MAX + 2];

	if (again->status == SWEEP_FAILED) {
		/* Keep the first figures: they are still evidence. */
		p->retested = true;
		p->first_slow = true;
		snprintf(p->reason + strnlen(p->reason, sizeof(p->reason) - 40), 40, " (retest failed)");
		return;
	}
	*p = *again;
	p->round = keep.round;
	p->expected_mbps = keep.expected_mbps;
	p->expect_src = keep.expect_src;
	p->klass = keep.klass;
	p->retested = true;
	p->first_slow = true;
	if (!ctl || ctl->status == SWEEP_FAILED) {
		sweep_pair_judge_expected(p, p->expected_mbps, p->expect_src, &r->ref, &r->cfg);
		return;
	}
	snprintf(name, sizeof(name), "%s-%s", hs->hosts[ctl->a].name, hs->hosts[ctl->b].name);
	sweep_pair_judge_control(p, sweep_pair_bw(ctl), name, &r->ref, &r->cfg);
	fab_info("re-test %s-%s: %.0f Mb/s beside control %s at %.0f Mb/s: %s",
		 hs->hosts[p->a].name, hs->hosts[p->b].name, sweep_pair_bw(p), name,
		 sweep_pair_bw(ctl), sweep_status_name(p->status));
}

/*
 * Pass @pass's figures @again (@ctl its control, or NULL) into @p.  The
 * confirming pass keeps the better of the two retests: a pair pages only
 * when every window since the first found it slow.
 */
static void retest_take(struct sweep_pair *p, const struct sweep_pair *again,
			const struct sweep_pair *ctl, const struct fab_hosts *hs,
			const struct sweep_report *r, enum sweep_retest_pass pass)
{
	struct sweep_pair cand = *p;
	bool regressed = p->status == SWEEP_REGRESSED;
	size_t len;

	if (pass != SWEEP_RETEST_CONFIRM) {
		retest_judge(p, again, ctl, hs, r);
		return;
	}
	if (again->status == SWEEP_FAILED)
		return;		/* the first retest's figures stand */
	retest_judge(&cand, again, ctl, hs, r);
	/* regressed: the better window stands, judged against the baseline afterwards */
	if ((cand.status == SWEEP_SLOW || (regressed && cand.status == SWEEP_OK)) &&
	    sweep_pair_bw(&cand) <= sweep_pair_bw(p))
		cand = *p;
	*p = cand;
	if (p->status != SWEEP_SLOW)
		return;
	len = strnlen(p->reason, sizeof(p->reason));
	snprintf(p->reason + len, sizeof(p->reason) - len, " (slow in both retests)");
}

/*
 * Re-test the pairs that look slow, keep the new figures, judge them
 * again: a pair stays slow only when the retest finds it slow too.  One
 * pair at a time, nothing else on the fabric or the hosts, when there are
 * at most SWEEP_RETEST_ALONE_MAX of them (a test that shared a link, a
 * CPU or a switch buffer with its round measured its neighbours too; see
 * docs/sweep.md), each right after a healthy control pair of its class
 * (the window's own reference: a busy machine slows both), else in
 * link-safe rounds.  @alone: the pairs slow by latency only, always one
 * at a time (a latency loop that shared a link or a CPU with another
 * pair's bandwidth test measured that test's queue).  SWEEP_RETEST_CONFIRM
 * measures the pairs the first pass left slow by a margin once more
 * (sweep_pair_marginal()), again after a control.
 */
int sweep_retest(struct sweep_ctx *ctx, const struct sweep_measure *m, struct sweep_opts *so,
		 struct sweep_report *r, struct sweep_results *sr, struct sweep_topo *st,
		 enum sweep_retest_pass pass)
{
	bool alone = pass == SWEEP_RETEST_LATENCY;
	struct fab_err *err = &ctx->err;
	struct sched_pair *sp = NULL;
	struct sweep_pair *again = NULL, p;
	struct keyed *ix = NULL;
	size_t *idx = NULL, n = 0, total = 0, done, upto, m_sp = 0;
	bool *ctl_at = NULL, one_by_one;
	const struct sweep_pair *ctl = NULL;
	struct sched s;
	int rc;

	sched_init(&s);
	rc = sweep_results_retest_list(sr, pass, &r->ref, &idx, &n, &total, err);
	if (rc < 0 || !n)
		goto out;
	if (n < total)
		fab_warn("sweep: %zu pairs look slow%s; re-testing a uniform sample of %zu (the others "
			 "keep their first figures)", total, alone ? " by latency" : "", n);
	one_by_one = alone || n <= SWEEP_RETEST_ALONE_MAX;
	sp = calloc(2 * n, sizeof(*sp));
	ix = calloc(n, sizeof(*ix));
	ctl_at = calloc(2 * n, sizeof(*ctl_at));
	if (!sp || !ix || !ctl_at) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		if ((rc = pair_store_get(sr->store, idx[k], &p, err)) < 0)
			goto out;
		sp[k] = (struct sched_pair){ .a = p.a, .b = p.b };
		ix[k] = (struct keyed){ sched_pair_key(p.a, p.b), idx[k] };
	}
	m_sp = n;
	qsort(ix, n, sizeof(*ix), keyed_cmp);
	if (one_by_one && !alone &&
	    (rc = retest_with_controls(sr, idx, n, &r->ref, sp, ctl_at, &m_sp, err)) < 0)
		goto out;
	fab_info("re-testing %zu %sslow pair%s%s%s", n, pass == SWEEP_RETEST_CONFIRM ? "still " : "",
		 n == 1 ? "" : "s",
		 alone ? " by latency, one at a time" : one_by_one ? ", one at a time" : "",
		 m_sp > n ? ", each after a control pair" : "");
	if (one_by_one) {
		rc = sched_one_per_round(&s, sp, m_sp);
	} else if (st) {	/* the retest's rounds follow the same link rule */
		struct sched_topo_bound keep = st->bound;

		rc = sweep_topo_schedule(ctx, st, SWEEP_MODE_PAIRS, sp, n, NULL, &s);
		st->bound = keep;
	} else {
		rc = sched_from_pairs(&s, sp, n, r->hosts->n);
	}
	if (rc < 0) {
		fab_err_set(err, rc, "sweep: retest schedule: %s", strerror(-rc));
		goto out;
	}
	again = calloc(s.n_pairs ? s.n_pairs : 1, sizeof(*again));
	if (!again) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	so->label = "retest";
	rc = sweep_measure_sched(m, &s, so, again, &done, err);
	if (rc == -EINTR)	/* keep the first figures of the pairs not re-tested */
		r->interrupted = true;
	else if (rc < 0)
		goto out;
	rc = 0;
	upto = done < s.n_rounds ? s.round_start[done] : s.n_pairs;
	for (size_t k = 0; k < upto && rc == 0; k++) {
		struct keyed key = { sched_pair_key(again[k].a, again[k].b), 0 };
		const struct keyed *e;

		if (one_by_one && ctl_at[k]) {	/* one per round: again[] is in sp[] order */
			ctl = &again[k];
			continue;
		}
		e = bsearch(&key, ix, n, sizeof(*ix), keyed_cmp);
		if (!e)
			continue;
		if ((rc = pair_store_get(sr->store, e->idx, &p, err)) < 0)
			break;
		retest_take(&p, &again[k], ctl, r->hosts, r, pass);
		ctl = NULL;
		rc = pair_store_put(sr->store, e->idx, &p, err);
	}
out:
	sched_fini(&s);
	free(again);
	free(sp);
	free(ix);
	free(idx);
	free(ctl_at);
	return rc;
}
