// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One whole apply on this node (apply_node()), as `fabricctl apply` and
 * the worker's "apply" op run it: the node's apply lock, read through
 * sys_ops, diff into a change set (model/changeset.c), run it; a failing step undoes
 * every step already done, in reverse order.
 *
 * --try: after a successful apply, the undo list goes to the pending
 * state (sys_pending_write: <rundir>/pending.json, rundir =
 * $FABRICCTL_RUNDIR or /run/fabricctl, src/sys/pending.c) and a detached
 * reverter (sys_reverter_spawn) sleeps until the deadline, then takes
 * the apply lock, reads the pending state and, when it names this
 * reverter, undoes the changes (apply_revert_at_deadline).  The pending
 * state is written before the apply lets go of the lock, so even
 * `--try 1` cannot fire before it exists.  `fabricctl confirm` takes the
 * lock too, acts first and the reverter finds nothing to do.  While a try
 * is pending, apply refuses.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "node/apply.h"
#include "node/node.h"
#include "util/err.h"
#include "util/log.h"
#include "util/str.h"

int apply_lock_wait(struct sys *sys, int *lock, int wait_ms, struct fab_err *err)
{
	struct timespec tick = { .tv_nsec = 50 * 1000 * 1000 };
	int rc;

	for (;;) {
		fab_err_init(err);
		rc = sys_pending_lock(sys, lock, err);
		if (rc != -EBUSY || wait_ms == 0)
			return rc;
		if (wait_ms > 0)
			wait_ms = wait_ms > 50 ? wait_ms - 50 : 0;
		nanosleep(&tick, NULL);
	}
}

/*
 * Is the pending state @pp for this process (a reverter, holding the
 * lock)?  Its own try; or the journal of an apply killed before it could
 * arm its try (the apply held the lock all along, so it is gone): undone
 * as its try would have been.  Not a later try, with its own reverter.
 */
static bool pending_is_mine(struct sys *sys, const struct change_pending *pp)
{
	unsigned long long me;

	if (pp->applying)
		return true;
	if (pp->pid != (int)getpid())
		return false;
	return !pp->pid_start || (sys_proc_start(sys, 0, &me) == 0 && me == pp->pid_start);
}

/*
 * The pending state as it is, read and parsed (@cs initialised by the
 * caller, filled here; @path its file): 0, -ENOENT when none, or the
 * error of reading or parsing it (@e).
 */
static int pending_load(struct sys *sys, char *path, size_t plen, struct changeset *cs,
			struct change_pending *pp, struct fab_err *e)
{
	char *text = NULL;
	size_t n;
	int rc = sys_pending_read(sys, &text, &n, e);

	sys_pending_path(sys, path, plen);
	if (rc == 0)
		rc = changeset_undo_from_json(path, text, n, cs, pp, e);
	free(text);
	return rc;
}

void apply_revert_at_deadline(struct sys *sys, long long deadline)
{
	char path[PATH_MAX], line[1200], when[STR_TIME_LEN];
	struct change_pending pp;
	struct changeset cs;
	struct fab_err e;
	int rc, lock = -1;

	changeset_init(&cs);
	/* Under the apply lock: never during an apply, a confirm or another undo. */
	if (apply_lock_wait(sys, &lock, -1, &e) < 0) {
		snprintf(line, sizeof(line), "deadline %s: NOT reverted: %.900s",
			 str_time(when, sizeof(when), deadline), e.msg);
		sys_pending_log(sys, line);
		goto out;
	}
	fab_err_init(&e);
	/* Checked before anything acts on it: a damaged state stays where it is. */
	rc = pending_load(sys, path, sizeof(path), &cs, &pp, &e);
	if (rc == -ENOENT)
		goto out;	/* confirmed (or reverted by confirm --revert) */
	if (rc < 0) {
		snprintf(line, sizeof(line),
			 "deadline %s: pending state unreadable, NOT reverted, left in place (new applies stay refused): %.900s",
			 str_time(when, sizeof(when), deadline), e.msg);
		sys_pending_log(sys, line);
		goto out;
	}
	if (!pending_is_mine(sys, &pp))
		goto out;	/* a later try's, with its own reverter */
	for (size_t i = 0; i < cs.n_steps; i++)
		cs.steps[i].status = CHANGE_STEP_DONE;
	rc = apply_changeset_undo(sys, &cs, &e);
	snprintf(line, sizeof(line), "reverted %zu step(s) at deadline %s: %s", cs.n_steps,
		 str_time(when, sizeof(when), deadline), rc == 0 ? "ok" : e.msg);
	sys_pending_log(sys, line);
	sys_pending_drop(sys, path);
out:
	if (lock >= 0)
		sys_pending_unlock(sys, lock);
	changeset_fini(&cs);
}

bool apply_reverter_dead(struct sys *sys, const struct change_pending *pp)
{
	unsigned long long start;
	int rc;

	if (pp->applying || pp->pid <= 0)
		return false;	/* a journal: its apply held the lock, no reverter */
	rc = sys_proc_start(sys, pp->pid, &start);
	if (rc == -ENOENT || rc == -ESRCH)
		return true;	/* no such process */
	if (rc < 0)
		return false;	/* cannot tell (no /proc): as before, trusted alive */
	return pp->pid_start && start != pp->pid_start;
}

bool apply_try_overdue(const struct change_pending *pp)
{
	return pp->deadline && (long long)time(NULL) >= pp->deadline;
}

int apply_revert_orphan(struct sys *sys, struct changeset *cs, const struct change_pending *pp,
			const char *path, const char *who, struct fab_err *err)
{
	char line[1200], when[STR_TIME_LEN];
	struct fab_err e;
	int rc;

	fab_err_init(&e);
	for (size_t i = 0; i < cs->n_steps; i++)
		cs->steps[i].status = CHANGE_STEP_DONE;
	rc = apply_changeset_undo(sys, cs, &e);
	snprintf(line, sizeof(line),
		 "deadline %s: the reverter (pid %d) was dead; %s (pid %d) reverted %zu step(s) in its place: %.600s",
		 str_time(when, sizeof(when), pp->deadline), pp->pid, who, (int)getpid(),
		 cs->n_steps, rc == 0 ? "ok" : e.msg);
	sys_pending_log(sys, line);
	if (rc < 0)
		return fab_err_set(err, rc,
				   "the try due at %s lost its reverter (pid %d), and undoing it failed: %.600s; the pending state is kept (%s): 'fabricctl confirm --revert' tries again",
				   when, pp->pid, e.msg, path);
	sys_pending_drop(sys, path);
	return 0;
}

void apply_orphan_advice(const struct change_pending *pp, const char *path, char *buf, size_t len)
{
	char when[STR_TIME_LEN];

	str_time(when, sizeof(when), pp->deadline);
	if (apply_try_overdue(pp))
		str_fmt(buf, len,
			"the try pending in %s lost its reverter (pid %d, not running): its deadline %s has passed and it was NOT reverted; run 'fabricctl confirm --revert' to revert it now (the next 'fabricctl apply' or 'fabricctl confirm' also reverts it first)",
			path, pp->pid, when);
	else
		str_fmt(buf, len,
			"the try pending in %s lost its reverter (pid %d, not running): nothing will revert it at %s; run 'fabricctl confirm' to keep it or 'fabricctl confirm --revert' to undo it",
			path, pp->pid, when);
}

int apply_pending_note(struct sys *sys, char *buf, size_t len)
{
	char path[PATH_MAX];
	struct change_pending pp = { 0 };
	struct changeset cs;
	struct fab_err e;
	int rc;

	buf[0] = '\0';
	fab_err_init(&e);
	changeset_init(&cs);
	rc = pending_load(sys, path, sizeof(path), &cs, &pp, &e);
	changeset_fini(&cs);
	if (rc < 0 || !apply_reverter_dead(sys, &pp))
		return 0;
	apply_orphan_advice(&pp, path, buf, len);
	return 1;
}

/*
 * What is pending before an apply (under the lock): nothing; a try
 * (refused, exit 3); a damaged state (refused); or the journal of an
 * apply that was killed (its holder of the lock is gone): undo its
 * started steps first, then go on from the state before it.
 */
static int pending_settle(struct sys *sys, struct apply_report *rep, struct fab_err *err)
{
	char path[PATH_MAX], line[1200], when[STR_TIME_LEN];
	struct change_pending pp = { 0 };
	struct changeset cs;
	struct fab_err e;
	int rc;

	fab_err_init(&e);
	changeset_init(&cs);
	rc = pending_load(sys, path, sizeof(path), &cs, &pp, &e);
	if (rc == -ENOENT) {
		changeset_fini(&cs);
		return 0;
	}
	if (rc < 0) {
		rc = fab_err_set(err, -EBUSY,
				 "a try is pending but its state is damaged (%.600s): nothing can be applied until it is repaired, or removed by hand (which gives up its automatic revert)",
				 e.msg);
	} else if (pp.applying) {
		for (size_t i = 0; i < cs.n_steps; i++)
			cs.steps[i].status = CHANGE_STEP_DONE;
		rc = apply_changeset_undo(sys, &cs, &e);
		snprintf(line, sizeof(line),
			 "recovered an interrupted apply (pid %d): undid %zu step(s): %.900s", pp.owner,
			 cs.n_steps, rc == 0 ? "ok" : e.msg);
		sys_pending_log(sys, line);
		if (rc == 0) {
			sys_pending_drop(sys, path);
			rep->recovered = true;
			rep->recovered_steps = cs.n_steps;
		} else {
			fab_err_set(err, rc,
				    "undoing an interrupted apply's changes (journal %s) failed: %.600s; 'fabricctl confirm --revert' tries again",
				    path, e.msg);
		}
	} else if (apply_reverter_dead(sys, &pp) && apply_try_overdue(&pp)) {
		/* What its reverter would have done at the deadline, done now: then the apply. */
		rc = apply_revert_orphan(sys, &cs, &pp, path, "apply", err);
		if (rc == 0)
			str_fmt(rep->orphan, sizeof(rep->orphan),
				"the try due at %s had lost its reverter (pid %d): reverted its %zu step(s) first, as the reverter would have (logged in last-revert.log beside %s)",
				str_time(when, sizeof(when), pp.deadline), pp.pid, cs.n_steps, path);
	} else if (apply_reverter_dead(sys, &pp)) {
		char advice[1024];

		apply_orphan_advice(&pp, path, advice, sizeof(advice));
		snprintf(line, sizeof(line), "deadline %s: the reverter (pid %d) was found dead by apply (pid %d): nothing reverts the try by itself now",
			 str_time(when, sizeof(when), pp.deadline), pp.pid, (int)getpid());
		sys_pending_log(sys, line);
		rc = fab_err_set(err, -EBUSY, "%s", advice);
	} else {
		rc = fab_err_set(err, -EBUSY,
				 "a try is pending (%s, reverter pid %d, reverts at %s): run 'fabricctl confirm' to keep it or 'fabricctl confirm --revert' to undo it",
				 path, pp.pid, str_time(when, sizeof(when), pp.deadline));
	}
	changeset_fini(&cs);
	return rc;
}

/*
 * --dry-run (no lock, nothing acted on): what a real apply would meet in
 * the pending state, in @buf ("" when nothing).
 */
static void pending_dry_note(struct sys *sys, char *buf, size_t len)
{
	char path[PATH_MAX], when[STR_TIME_LEN];
	struct change_pending pp = { 0 };
	struct changeset cs;
	struct fab_err e;
	int rc;

	buf[0] = '\0';
	fab_err_init(&e);
	changeset_init(&cs);
	rc = pending_load(sys, path, sizeof(path), &cs, &pp, &e);
	if (rc == -ENOENT)
		goto out;
	if (rc < 0)
		str_fmt(buf, len, "a try is pending but its state is damaged (%.600s): a real apply is refused",
			e.msg);
	else if (pp.applying)	/* not a refusal: said, and the dry run goes on */
		fab_warn("%s is the journal of an interrupted apply (pid %d): a real apply first "
			 "undoes its %zu step(s), then plans from the state before it", path, pp.owner,
			 cs.n_steps);
	else if (apply_reverter_dead(sys, &pp) && apply_try_overdue(&pp))	/* not a refusal */
		fab_warn("%s lost its reverter (pid %d) and is past its deadline: a real apply first "
			 "reverts its %zu step(s), as the reverter would have, then plans from there",
			 path, pp.pid, cs.n_steps);
	else if (apply_reverter_dead(sys, &pp))
		apply_orphan_advice(&pp, path, buf, len);
	else
		str_fmt(buf, len, "a try is pending (%s, reverter pid %d, reverts at %s): a real apply "
			"is refused until 'fabricctl confirm' or 'fabricctl confirm --revert'", path,
			pp.pid, str_time(when, sizeof(when), pp.deadline));
out:
	changeset_fini(&cs);
}

/* ---- signals and the journal while a change set runs ---- */

static volatile sig_atomic_t apply_sig;

static void apply_sig_note(int sig)
{
	apply_sig = sig;
}

static const int apply_sigs[3] = { SIGINT, SIGTERM, SIGHUP };

/*
 * SIGINT, SIGTERM, SIGHUP are noted, not fatal, while a change set runs.  One
 * ignored when we started stays ignored (nohup, a background job of a
 * script): whoever started us asked for that.
 */
static void signals_catch(struct sigaction saved[3])
{
	struct sigaction sa = { .sa_handler = apply_sig_note, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	apply_sig = 0;
	for (int i = 0; i < 3; i++) {
		sigaction(apply_sigs[i], NULL, &saved[i]);
		if (saved[i].sa_handler != SIG_IGN)
			sigaction(apply_sigs[i], &sa, NULL);
	}
}

static void signals_restore(const struct sigaction saved[3])
{
	for (int i = 0; i < 3; i++)
		sigaction(apply_sigs[i], &saved[i], NULL);
}

struct journal {
	struct sys *sys;
	struct changeset *cs;
	struct change_pending pp;
	long pause;		/* FABRICCTL_TEST_STEP_PAUSE (test only), 0: none */
	struct fab_err err;
};

static int journal_write(struct journal *j)
{
	char *text = changeset_undo_to_json(j->cs, j->cs->n_steps, &j->pp);
	int rc;

	if (!text)
		return fab_err_set(&j->err, -ENOMEM, "apply: out of memory");
	rc = sys_pending_write(j->sys, text, &j->err);
	free(text);
	return rc;
}

/*
 * Test only (tests/integration/apply-faults.sh): FABRICCTL_TEST_STEP_PAUSE=N
 * stops before step N (N = steps + 1: after the last; steps + 2: --try,
 * the reverter started, its pending state not yet written) for up to 60 s, or
 * until one of the caught signals arrives, so a test can signal or
 * SIGKILL the apply at that step boundary.
 */
static void test_pause(long n)
{
	struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };

	fprintf(stderr, "fabricctl apply: FABRICCTL_TEST_STEP_PAUSE: paused before step %ld (pid %d)\n",
		n, (int)getpid());
	for (int i = 0; i < 3000 && !apply_sig; i++)
		nanosleep(&tick, NULL);
}

/* Before step @i: stop on a signal; record in the journal that step i begins. */
static int journal_before(void *arg, size_t i, struct apply_report *rep)
{
	struct journal *j = arg;

	if (!apply_sig && j->pause == (long)i + 1)
		test_pause(j->pause);
	if (apply_sig) {
		rep->signo = apply_sig;
		return -EINTR;
	}
	if (i == j->cs->n_steps)
		return 0;
	j->pp.started = i + 1;
	return journal_write(j);
}

/*
 * The revert deadline in whole Unix seconds, never sooner than @secs from
 * now: rounded up (time(NULL) + secs could be secs - 0.99 s away, and
 * `--try 1` then reverted at once).
 */
static long long try_deadline(unsigned int secs)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (long long)now.tv_sec + secs + (now.tv_nsec > 0);
}

/* Apply succeeded with --try: start the reverter, record the undo list. */
static int try_arm(struct sys *sys, struct changeset *cs, unsigned int secs, long pause,
		   struct apply_report *rep, struct fab_err *err)
{
	struct change_pending pp = { .deadline = try_deadline(secs), .owner = getpid() };
	char *text;
	int rc;

	sys_pending_path(sys, rep->pending_path, sizeof(rep->pending_path));
	rc = sys_reverter_spawn(sys, pp.deadline, apply_revert_at_deadline, &pp.pid, err);
	if (rc < 0)
		return rc;
	/* With its start time, confirm can tell the reverter from a later process with its pid. */
	sys_proc_start(sys, pp.pid, &pp.pid_start);
	/* Test hook: a kill here leaves the journal, which this reverter undoes at its deadline. */
	if (!apply_sig && pause == (long)cs->n_steps + 2)
		test_pause(pause);
	if (apply_sig) {
		rep->signo = apply_sig;
		rc = fab_err_set(err, -EINTR, "interrupted by SIG%s while arming the try",
				 sigabbrev_np(apply_sig) ? sigabbrev_np(apply_sig) : "?");
		goto fail;
	}
	text = changeset_undo_to_json(cs, cs->n_steps, &pp);
	if (!text) {
		rc = fab_err_set(err, -ENOMEM, "apply: out of memory");
		goto fail;
	}
	rc = sys_pending_write(sys, text, err);
	free(text);
	if (rc < 0)
		goto fail;
	rep->try_deadline_s = pp.deadline;
	return 0;
fail:
	/* The caller undoes the changes: the reverter has nothing to do. */
	sys_reverter_stop(sys, pp.pid, pp.pid_start);
	return rc;
}

/*
 * Run @cs under the journal: it is written before the first change and
 * marks each step before it runs, so an apply killed (SIGKILL, a crash)
 * half-way leaves the record of what to undo; the next apply, or confirm
 * --revert, restores the state before it.  SIGINT, SIGTERM and SIGHUP
 * stop the change set at the next step boundary and roll it back (rep->signo).
 * The journal goes when the change set ends (done or rolled back), or becomes
 * the pending state of --try.
 */
static int plan_run_journaled(struct sys *sys, struct changeset *cs, unsigned int try_s,
			      struct apply_report *rep, struct fab_err *err)
{
	struct journal j = { .sys = sys, .cs = cs,
			     .pp = { .applying = true, .owner = getpid() } };
	const char *pause = getenv("FABRICCTL_TEST_STEP_PAUSE");
	struct sigaction saved[3];
	char path[256];
	int rc, late;

	fab_err_init(&j.err);
	j.pause = pause ? atol(pause) : 0;
	sys_pending_path(sys, path, sizeof(path));
	signals_catch(saved);
	rc = journal_write(&j);
	if (rc < 0) {
		fab_err_set(err, rc, "%s; nothing changed", j.err.msg);
		goto out;
	}
	rc = apply_changeset_run(sys, cs, rep, journal_before, &j);
	if (rc < 0) {
		fab_err_set(err, rc, "%s%s%s%s%s", rep->error, j.err.msg[0] ? ": " : "", j.err.msg,
			    rep->rolled_back ? "; rolled back, the node is as before"
					     : "; ROLLBACK INCOMPLETE: ",
			    rep->rolled_back ? "" : rep->rollback_error);
	} else if (try_s) {
		struct fab_err e;

		fab_err_init(&e);
		rc = try_arm(sys, cs, try_s, j.pause, rep, &e);
		if (rc < 0) {
			/* Could not arm the safety net: undo now rather than leave it unguarded. */
			struct fab_err u;

			fab_err_init(&u);
			rep->failed = (long)cs->n_steps;
			snprintf(rep->error, sizeof(rep->error), "%s", e.msg);
			rep->rolled_back = apply_changeset_undo(sys, cs, &u) == 0;
			if (!rep->rolled_back)
				snprintf(rep->rollback_error, sizeof(rep->rollback_error), "%s", u.msg);
			fab_err_set(err, rc, "%s; %s%s", e.msg,
				    rep->rolled_back ? "rolled back, the node is as before"
						     : "ROLLBACK INCOMPLETE: ",
				    rep->rolled_back ? "" : u.msg);
		}
	}
	if (rc < 0 || !try_s)
		sys_pending_drop(sys, path);	/* the change set ended: no journal */
out:
	late = rep->signo ? 0 : apply_sig;
	signals_restore(saved);
	if (try_s && rc == 0) {
		signal(SIGHUP, SIG_IGN);	/* armed: a cut-off admin must not stop the report */
		signal(SIGPIPE, SIG_IGN);
	}
	if (late)
		raise(late);	/* came after the change set was done: as if it came just after */
	return rc;
}

int apply_node(struct sys *sys, const struct profile *p, const char *name, bool dry,
	       unsigned int try_s, struct changeset *cs, struct apply_report *rep,
	       struct fab_err *err)
{
	struct host_state hs;
	struct node_config ns;
	int rc, lock_fd = -1;

	rep->failed = -1;
	rep->cs = NULL;
	rep->dry_refused[0] = '\0';
	host_state_init(&hs);
	node_config_init(&ns, &hs);
	if (!dry) {
		rc = sys_pending_lock(sys, &lock_fd, err);
		if (rc == 0)
			rc = pending_settle(sys, rep, err);
		if (rc < 0)
			goto out;
	}
	rc = node_diff(sys, p, &hs, &ns, cs, err);
	if (rc < 0)
		goto out;
	if (cs->n_unmatched) {
		/* Nothing can make an absent interface appear: refuse before touching anything. */
		rc = -ENODEV;
		for (size_t i = 0; i < cs->n_drift; i++)
			if (!strcmp(cs->drift[i].field, "match")) {
				fab_err_set(err, -ENODEV,
					    "%s: '%s' matches no %s on this node (mark the item optional: true if that is fine)",
					    name, cs->drift[i].object,
					    strcmp(cs->drift[i].wanted, "an interface") ? "rdma port"
											   : "interface");
				break;
			}
		goto out;
	}
	rep->profile = name;
	rep->cs = cs;
	rep->dry_run = dry;
	if (dry) {
		pending_dry_note(sys, rep->dry_refused, sizeof(rep->dry_refused));
		goto out;
	}
	if (!cs->n_steps)
		goto out;
	rc = plan_run_journaled(sys, cs, try_s, rep, err);
out:
	if (lock_fd >= 0)
		sys_pending_unlock(sys, lock_fd);
	node_config_fini(&ns);
	host_state_fini(&hs);
	return rc;
}

