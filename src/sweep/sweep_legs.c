// SPDX-License-Identifier: GPL-2.0-or-later
/* Dual-homed legs: trial flows, a port per member, one flow per leg (sweep_legs.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_bond.h"
#include "io/pair_store.h"
#include "model/schedule.h"
#include "sweep/sweep_legs.h"
#include "util/log.h"
#include "util/str.h"

/* What one legs run shares. */
struct legs_env {
	struct sweep_ctx *ctx;
	struct fleet *f;
	const struct sweep_measure *m;
	struct sweep_opts o;		/* the sweep's, no steering, no progress line */
	unsigned int leg_ms;		/* a leg flow's duration: the sweep's */
	int timeout_ms;			/* a "bond" op's answer */
	bool retest;
	bool roce;			/* verbs: RoCE v2 flows (QPs' flow labels), else tcp */
	double slow_pct;
	const struct sweep_legs_fabric *fab;
	struct bond_snap *snap;		/* per worker (host): its data-path interface */
	bool *have;			/* per worker: snap read */
	char (*why)[FLEET_BOND_WHY_LEN];	/* per worker: why not read ("" once noted) */
	struct sweep_legs_sel sel;	/* which pairs and senders */
	bool *done;			/* per worker: its legs measured (sel.once) */
};

/* One flow's figures and the sender's members' tx_bytes growth over it. */
struct leg_flow {
	bool ok;
	double mbps;
	uint64_t bytes;
	uint64_t delta[FAB_BOND_MAX_MEMBERS];
};

unsigned int sweep_legs_sport(bool roce, bool fwd, unsigned int k)
{
	return (roce ? SWEEP_LEGS_ROCE_SPORT_BASE : SWEEP_LEGS_SPORT_BASE) + k +
	       (fwd ? 0 : SWEEP_LEGS_MAX_TRIALS);
}

unsigned int sweep_legs_dport(bool roce)
{
	return roce ? SWEEP_LEGS_ROCE_DPORT : SWEEP_LEGS_DPORT;
}

void sweep_legs_init(struct sweep_legs *l)
{
	memset(l, 0, sizeof(*l));
}

void sweep_legs_fini(struct sweep_legs *l)
{
	free(l->pairs);
	free(l->unans);
	sweep_legs_init(l);
}

/* The one-pair session a (client) - b (server): one direction, from @sport to the legs port. */
static int one_flow(struct legs_env *e, unsigned int a, unsigned int b, bool fwd,
		    unsigned int sport, unsigned int ms, struct sweep_pair *out)
{
	struct sched_pair sp = { .a = a, .b = b };
	struct sweep_opts o = e->o;
	struct sched s;
	size_t done = 0;
	int rc;

	o.spec.lat_iters = 0;
	o.spec.lat_ms = 0;
	o.spec.duration_ms = ms;
	o.spec.bw_fwd = fwd;
	o.spec.bw_rev = !fwd;
	o.spec.port = e->roce ? 0 : SWEEP_LEGS_DPORT;	/* RoCE v2: always 4791 */
	o.spec.sport_fwd = fwd ? sport : 0;
	o.spec.sport_rev = fwd ? 0 : sport;
	o.spec.timeout_ms = ms + (unsigned int)o.step_timeout_ms;
	sched_init(&s);
	rc = sched_one_per_round(&s, &sp, 1);
	if (rc < 0)
		rc = fab_err_set(&e->ctx->err, rc, "sweep: legs: out of memory");
	else
		rc = sweep_measure_sched(e->m, &s, &o, out, &done, &e->ctx->err);
	sched_fini(&s);
	return rc;
}

/*
 * A flow a - b one way (@fwd: a sends) from @sport, the sender's members
 * read before and after.  0 (fl->ok false when the flow failed), -EINTR,
 * -ENOMEM; -EIO when the sender's bond could not be read (@why).
 */
static int leg_flow(struct legs_env *e, unsigned int a, unsigned int b, bool fwd,
		    unsigned int sport, unsigned int ms, struct leg_flow *fl, struct fab_err *why)
{
	unsigned int tx = fwd ? a : b;
	struct bond_snap before, after;
	struct sweep_pair p;
	int rc;

	memset(fl, 0, sizeof(*fl));
	if (fleet_bond_snap(e->f, tx, e->timeout_ms, &before, why) < 0)
		return -EIO;
	rc = one_flow(e, a, b, fwd, sport, ms, &p);
	if (rc < 0)
		return rc;
	if (fleet_bond_snap(e->f, tx, e->timeout_ms, &after, why) < 0)
		return -EIO;
	if (bond_snap_delta(&before, &after, fl->delta) < 0)
		return fab_err_set(why, -EIO, "bond: %s: its members changed", before.ifname), -EIO;
	fl->ok = p.status != SWEEP_FAILED && (fwd ? p.ab.measured : p.ba.measured);
	if (!fl->ok)
		fab_warn("sweep: legs: %s -> %s from port %u: %s", e->f->w[tx].host->name,
			 e->f->w[fwd ? b : a].host->name, sport,
			 p.reason[0] ? p.reason : "no figures");
	fl->mbps = fl->ok ? (fwd ? p.ab.avg_mbps : p.ba.avg_mbps) : 0;
	fl->bytes = fl->ok ? (fwd ? p.ab.bytes : p.ba.bytes) : 0;
	return 0;
}

/* Has every member of @sn whose link is up a port in @found?  (A member down carries nothing.) */
static bool up_found(const struct bond_snap *sn, const struct bond_legs *found)
{
	for (size_t i = 0; i < sn->n_members; i++)
		if (sn->m[i].link_up && !found->legs[i].sport)
			return false;
	return true;
}

/*
 * Trial flows until every member of @sn whose link is up has a port (or
 * none are left): @found.  When the first two trials that moved bytes
 * were both unseen by every member's counter, they stop: the flows leave
 * past the netdev (a hardware RoCE LAG), d->unread, no leg judged.
 */
static int dir_trials(struct legs_env *e, unsigned int a, unsigned int b, bool fwd,
		      const struct bond_snap *sn, struct bond_legs_dir *d, struct bond_legs *found,
		      struct fab_err *why)
{
	struct bond_leg_trial t[SWEEP_LEGS_MAX_TRIALS];
	size_t n = 0;
	int rc = 0;

	for (unsigned int k = 0; k < SWEEP_LEGS_MAX_TRIALS; k++) {
		unsigned int sport = sweep_legs_sport(e->roce, fwd, k);
		struct leg_flow fl;

		rc = leg_flow(e, a, b, fwd, sport, SWEEP_LEGS_TRIAL_MS, &fl, why);
		if (rc < 0)
			return rc;
		d->n_trials++;
		if (!fl.ok || fl.bytes == 0) {
			d->n_unclear++;
			continue;
		}
		t[n] = (struct bond_leg_trial){ .sport = sport, .sent_bytes = fl.bytes };
		memcpy(t[n].tx_delta, fl.delta, sizeof(fl.delta));
		fab_debug("legs: %s trial from port %u: %llu bytes received", d->node, t[n].sport,
			  (unsigned long long)fl.bytes);
		n++;
		bond_legs_find_snap(sn, t, n, found);
		if (up_found(sn, found) || (n >= 2 && found->n_unseen == n))
			break;
	}
	bond_legs_find_snap(sn, t, n, found);
	d->n_unclear += found->n_unclear;
	d->why = found->why;
	if (n > 0 && found->n_unseen == n)	/* not the legs: the counters */
		d->unread = true;
	if (n == 0) {		/* not the legs: the flows (a port taken, a firewall) */
		d->why = "every trial flow failed (see the warnings)";
		d->unread = true;
	}
	return 0;
}

/* Every leg with a port measured once, in reverse order when @rev: its figures into @d. */
static int dir_measure(struct legs_env *e, unsigned int a, unsigned int b, bool fwd,
		       struct bond_legs_dir *d, bool rev, struct fab_err *why)
{
	for (size_t k = 0; k < d->n_legs; k++) {
		struct bond_leg_result *l = &d->legs[rev ? d->n_legs - 1 - k : k];
		struct leg_flow fl;
		int rc;

		if (!l->sport)
			continue;
		rc = leg_flow(e, a, b, fwd, l->sport, e->leg_ms, &fl, why);
		if (rc < 0)
			return rc;
		l->failed = !fl.ok;
		l->mbps = fl.mbps;
		l->bytes = fl.bytes;
		l->tx_delta = fl.delta[l - d->legs];
	}
	return 0;
}

/* How many legs with a port look slow or dead. */
static size_t dir_not_ok(const struct bond_legs_dir *d)
{
	size_t n = 0;

	for (size_t i = 0; i < d->n_legs; i++)
		n += d->legs[i].sport && d->legs[i].verdict != BOND_LEG_OK;
	return n;
}

/* -v: "legs ha -> hb bond0: a1 port 29101 18.1 Mb/s ok, a2 port 29100 3.2 Mb/s slow". */
static void dir_log(const struct bond_legs_dir *d, const char *to)
{
	char line[512] = "";
	size_t o = 0;

	for (size_t i = 0; i < d->n_legs && o < sizeof(line); i++) {
		const struct bond_leg_result *l = &d->legs[i];

		const char *v = bond_leg_verdict_name(l->verdict), *sep = i ? "," : "";
		char *at = line + o;
		size_t left = sizeof(line) - o;

		if (l->sport)
			o += (size_t)str_fmt(at, left, "%s %s port %u %.1f Mb/s %s", sep, l->member,
					     l->sport, l->mbps, v);
		else
			o += (size_t)str_fmt(at, left, "%s %s %s", sep, l->member, v);
	}
	fab_info("legs %s -> %s %s: %zu trial%s,%s%s%s", d->node, to, d->bond, d->n_trials,
		 d->n_trials == 1 ? "" : "s", line, d->why ? "; " : "", d->why ? d->why : "");
}

/* @d's head and legs from the sender's reading @sn, each member's neighbour when known. */
static void dir_head(struct legs_env *e, unsigned int sender, const struct bond_snap *sn,
		     struct bond_legs_dir *d)
{
	d->run = true;
	str_fmt(d->node, sizeof(d->node), "%s", e->f->w[sender].host->name);
	str_fmt(d->bond, sizeof(d->bond), "%s", sn->ifname);
	d->mode = sn->mode;
	d->policy = sn->policy;
	d->dport = sweep_legs_dport(e->roce);
	d->n_legs = sn->n_members;
	for (size_t i = 0; i < sn->n_members; i++) {
		struct bond_leg_result *l = &d->legs[i];

		str_fmt(l->member, sizeof(l->member), "%s", sn->m[i].name);
		l->link_up = sn->m[i].link_up;
		if (e->fab->host_link)
			bond_leg_neighbour(e->fab->t, e->fab->host_link[sender], l->member,
					   l->sw_node, sizeof(l->sw_node), l->sw_port,
					   sizeof(l->sw_port));
	}
}

/* Trials, then every leg measured, and again when one looks slow or dead. */
static int dir_find_measure(struct legs_env *e, unsigned int a, unsigned int b, bool fwd,
			    const struct bond_snap *sn, struct bond_legs_dir *d,
			    struct fab_err *why)
{
	struct bond_legs found;
	int rc = dir_trials(e, a, b, fwd, sn, d, &found, why);

	if (rc < 0)
		return rc;
	for (size_t i = 0; i < d->n_legs; i++)
		d->legs[i].sport = found.legs[i].sport;
	rc = dir_measure(e, a, b, fwd, d, false, why);
	bond_legs_judge_dir(d, e->slow_pct, e->fab->lldp);
	/*
	 * A leg that looks slow or dead: up to SWEEP_LEGS_RETESTS more passes,
	 * each in the other order; every leg keeps its best flow of the passes
	 * and is judged against the best of them all (bond_legs_keep_best()).
	 * So a healthy leg is paged only when a busy moment slowed every one
	 * of its flows, and a slow leg escapes only when one slowed every
	 * flow of its fast siblings (judging each pass on its own, and keeping
	 * the one with the fewest legs not ok, let a single pass whose healthy
	 * leg a busy moment slowed hide a slow one).
	 */
	for (int k = 0; rc == 0 && e->retest && k < SWEEP_LEGS_RETESTS && dir_not_ok(d); k++) {
		struct bond_legs_dir pass = *d;

		rc = dir_measure(e, a, b, fwd, &pass, k % 2 == 0, why);
		if (rc < 0)
			break;
		bond_legs_keep_best(d, &pass);
		bond_legs_judge_dir(d, e->slow_pct, e->fab->lldp);
	}
	return rc;
}

/* The legs of one direction (@fwd: a sends through its bond @sn) into @d. */
static int dir_run(struct legs_env *e, unsigned int a, unsigned int b, bool fwd,
		   const struct bond_snap *sn, struct bond_legs_dir *d)
{
	struct bond_legs found;
	struct fab_err why;
	int rc = 0;

	fab_err_init(&why);
	dir_head(e, fwd ? a : b, sn, d);
	if (!bond_legs_port_hashed(sn->mode, sn->policy)) {
		bond_legs_find_snap(sn, NULL, 0, &found);	/* no trial: the policy says why */
		d->why = found.why;
	} else {
		rc = dir_find_measure(e, a, b, fwd, sn, d, &why);
	}
	if (rc == -EIO) {	/* the bond could not be read: said, not a leg fault */
		fab_warn("sweep: legs of %s: %s", d->node, why.msg);
		d->why = "the bond's counters could not be read (see the warnings)";
		d->unread = true;
		for (size_t i = 0; i < d->n_legs; i++)
			d->legs[i].sport = 0;
		rc = 0;
	}
	bond_legs_judge_dir(d, e->slow_pct, e->fab->lldp);
	dir_log(d, e->f->w[fwd ? b : a].host->name);
	return rc;
}

/* A slot for pair @p (store index @i); NULL on ENOMEM. */
static struct bond_legs_pair *legs_add(struct sweep_legs *l, size_t i, const struct sweep_pair *p)
{
	struct bond_legs_pair *n;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4;

		n = realloc(l->pairs, cap * sizeof(*n));
		if (!n)
			return NULL;
		l->pairs = n;
		l->cap = cap;
	}
	n = &l->pairs[l->n++];
	memset(n, 0, sizeof(*n));
	n->index = i;
	n->a = p->a;
	n->b = p->b;
	return n;
}

/* Is host @h named @name (its end point's name, or its host's)? */
static bool host_is(const struct fab_host *h, const char *name)
{
	return !strcmp(h->name, name) || !strcmp(hosts_node(h), name);
}

/* Does the selection take pair @p at all (sel.pair)? */
static bool sel_pair(const struct legs_env *e, const struct sweep_pair *p)
{
	const struct fab_host *a = e->f->w[p->a].host, *b = e->f->w[p->b].host;
	const char *const *n = e->sel.pair;

	return !n[0] || !n[1] || (host_is(a, n[0]) && host_is(b, n[1])) ||
	       (host_is(a, n[1]) && host_is(b, n[0]));
}

/* Are sender @w's legs wanted now: a bond, picked by sel.new_only, not done (sel.once)? */
static bool sel_sender(const struct legs_env *e, unsigned int w)
{
	return e->have[w] && e->snap[w].is_bond && !(e->sel.once && e->done[w]) &&
	       !(e->sel.new_only && !e->f->w[w].host->is_new);
}

/*
 * Worker @w did not answer the bond request: its host's legs are not
 * measured, said once in l->unans (when the selection takes the host).
 */
static int note_unanswered(struct legs_env *e, struct sweep_legs *l, unsigned int w)
{
	struct bond_legs_unanswered *u;

	if (e->have[w] || !e->why[w][0] || (e->sel.new_only && !e->f->w[w].host->is_new))
		return 0;
	if (l->n_unans == l->cap_unans) {
		size_t cap = l->cap_unans ? 2 * l->cap_unans : 4;

		u = realloc(l->unans, cap * sizeof(*u));
		if (!u)
			return fab_err_set(&e->ctx->err, -ENOMEM, "sweep: out of memory");
		l->unans = u;
		l->cap_unans = cap;
	}
	u = &l->unans[l->n_unans++];
	u->host = w;
	str_fmt(u->why, sizeof(u->why), "%s", e->why[w]);
	fab_info("legs of %s not measured: worker did not answer the bond request: %s",
		 e->f->w[w].host->name, u->why);
	e->why[w][0] = '\0';
	return 0;
}

/* The legs of store pair @i (@p), when one of its ends is a bond the selection wants. */
static int pair_run(struct legs_env *e, struct sweep_legs *l, size_t i, const struct sweep_pair *p)
{
	bool wa, wb;
	struct bond_legs_pair *lp;
	int rc = 0;

	if (p->status == SWEEP_FAILED || p->status == SWEEP_PLANNED || !sel_pair(e, p))
		return 0;
	if (note_unanswered(e, l, p->a) < 0 || note_unanswered(e, l, p->b) < 0)
		return -ENOMEM;
	wa = sel_sender(e, p->a);
	wb = sel_sender(e, p->b);
	if (!wa && !wb)
		return 0;
	lp = legs_add(l, i, p);
	if (!lp)
		return fab_err_set(&e->ctx->err, -ENOMEM, "sweep: out of memory");
	/* a rating is one flow's (one member's): every leg is judged against it too */
	if (p->expect_src == SWEEP_EXPECT_RATED)
		lp->ab.rated_mbps = lp->ba.rated_mbps = p->expected_mbps;
	if (wa)
		rc = dir_run(e, p->a, p->b, true, &e->snap[p->a], &lp->ab);
	if (rc == 0 && wb)
		rc = dir_run(e, p->a, p->b, false, &e->snap[p->b], &lp->ba);
	e->done[p->a] |= wa;
	e->done[p->b] |= wb;
	l->n_bad += lp->ab.n_bad + lp->ba.n_bad;
	return rc;
}

/*
 * Every live worker's data-path interface, asked at once: *@any when one
 * is a bond or a worker did not answer (its legs are then said unmeasured).
 */
static int snaps_read(struct legs_env *e, bool *any)
{
	int rc = fleet_bond_snap_all(e->f, e->timeout_ms, e->snap, e->have, e->why, &e->ctx->err);

	*any = false;
	for (size_t i = 0; rc == 0 && i < e->f->n; i++)
		*any |= (e->have[i] && e->snap[i].is_bond) || e->why[i][0];
	return rc;
}

static int legs_pairs(struct legs_env *e, struct sweep_legs *l, struct sweep_report *r)
{
	struct sweep_pair p;
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < r->n_pairs; i++)
		if ((rc = pair_store_get(r->store, i, &p, &e->ctx->err)) == 0)
			rc = pair_run(e, l, i, &p);
	return rc;
}

int sweep_legs_run(struct sweep_ctx *ctx, struct sweep_legs *l, struct fleet *f,
		   const struct sweep_measure *m, const struct sweep_opts *so, bool retest,
		   const struct sweep_legs_fabric *fab, const struct sweep_legs_sel *sel,
		   struct sweep_report *r)
{
	struct legs_env e = { .ctx = ctx, .f = f, .m = m, .o = *so, .retest = retest, .fab = fab,
			      .leg_ms = so->spec.duration_ms, .timeout_ms = so->step_timeout_ms,
			      .slow_pct = r->cfg.slow_pct };
	int rc;

	if (!f->n || !so->spec.duration_ms ||
	    (strcmp(so->transport, "tcp") && strcmp(so->transport, "verbs")))
		return 0;
	e.roce = strcmp(so->transport, "verbs") == 0;
	e.o.pair_spec = NULL;
	e.o.progress = false;
	e.o.label = "legs";
	if (sel)
		e.sel = *sel;
	if (e.sel.slow_pct > 0)
		e.slow_pct = e.sel.slow_pct;
	e.snap = calloc(f->n, sizeof(*e.snap));
	e.have = calloc(f->n, sizeof(*e.have));
	e.done = calloc(f->n, sizeof(*e.done));
	e.why = calloc(f->n, sizeof(*e.why));
	if (!e.snap || !e.have || !e.done || !e.why) {
		rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	} else {
		bool any = false;

		rc = snaps_read(&e, &any);
		if (rc == 0 && any)
			rc = legs_pairs(&e, l, r);
	}
	free(e.snap);
	free(e.have);
	free(e.done);
	free(e.why);
	r->legs = l->n ? l->pairs : NULL;
	r->n_legs = l->n;
	r->n_legs_bad = l->n_bad;
	r->legs_unanswered = l->n_unans ? l->unans : NULL;
	r->n_legs_unanswered = l->n_unans;
	return rc;
}
