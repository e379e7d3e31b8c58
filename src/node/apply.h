/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a node does to check and apply a profile, called alike by the
 * local commands (apply, verify, confirm) and the worker: read what a
 * profile needs from the node, run a change set with rollback, one whole apply
 * under the node's lock, and what the reverter of `apply --try` does at its deadline (the pending
 * state itself is behind sys_ops: sys_pending_*(), src/sys/pending.c).
 */
#ifndef FAB_NODE_APPLY_H
#define FAB_NODE_APPLY_H

#include <jansson.h>
#include <stdbool.h>

#include "model/changeset.h"
#include "model/profile.h"
#include "sys/sys.h"

/*
 * Read the node (links, RDMA ports) into @hs and what @p needs of each
 * matched interface and bond into @ns (node_config_init'ed on @hs by the
 * caller).  Capability reads that fail are recorded in @ns, not returned;
 * only reading the links themselves fails (-errno, @err).
 */
int apply_node_read(struct sys *sys, const struct profile *p, struct host_state *hs,
		    struct node_config *ns, struct fab_err *err);

/* Run one action through sys_ops; 0 or -errno with @err. */
int apply_action_exec(struct sys *sys, const struct change_action *a, struct fab_err *err);

/*
 * Run @cs's steps in order.  When one fails, undo every step already
 * done in reverse order.  Step statuses and @rep record what happened.
 * @before (may be NULL) runs before each step i and once more after the
 * last (i == n_steps): a negative return stops the change set there and undoes
 * what is done (set rep->signo first when a signal is the reason).
 * Returns 0, or the failing step's (or @before's) -errno.
 */
int apply_changeset_run(struct sys *sys, struct changeset *cs, struct apply_report *rep,
		   int (*before)(void *arg, size_t i, struct apply_report *rep), void *arg);

/*
 * Undo @cs's steps with status DONE in reverse (confirm --revert, the
 * reverter).  0 or the first failure's -errno (all undos are attempted).
 */
int apply_changeset_undo(struct sys *sys, struct changeset *cs, struct fab_err *err);

/*
 * One whole apply of @p (messages name it @name) on this node, as
 * `fabricctl apply` and the worker's "apply" op run it: take the node's
 * apply lock, refuse while a try is pending, read, diff into @cs
 * (changeset_init'ed by the caller), refuse profile items matching nothing,
 * run with rollback, and with @try_s arm the reverter.  @dry: change set only,
 * no lock.  On return rep->cs is @cs when there is a report to show,
 * NULL when it failed before there was a change set.  0 or -errno with @err.
 */
int apply_node(struct sys *sys, const struct profile *p, const char *name, bool dry,
	       unsigned int try_s, struct changeset *cs, struct apply_report *rep,
	       struct fab_err *err);

/*
 * The reverter's job at the deadline of an `apply --try` (runs in the
 * process sys_reverter_spawn() started): under the apply lock, read the
 * pending state and, when it names this process, undo its steps in
 * reverse, drop it and log the outcome.  Nothing when confirm came first
 * (or a later try's state is there); a damaged state is left in place.
 */
void apply_revert_at_deadline(struct sys *sys, long long deadline);

/*
 * A pending try whose reverter is dead (killed, or its pid now another
 * process: /proc start time) leaves nobody to revert it at its deadline.
 * apply, confirm and status see it:
 *   past the deadline, apply and confirm (either form) revert it first,
 *   as the reverter would have, and log it; status says what to run;
 *   before it, apply refuses naming both commands, confirm keeps or
 *   reverts as asked; both log it, status says what to run.
 */
/* The try @pp's reverter is not running (false for a journal, which has none). */
bool apply_reverter_dead(struct sys *sys, const struct change_pending *pp);
/* @pp's deadline has come. */
bool apply_try_overdue(const struct change_pending *pp);
/*
 * Under the apply lock: undo the try (@cs as changeset_undo_from_json() gave
 * it) in the dead reverter's place, log it ("deadline T: the reverter
 * (pid N) was dead; WHO (pid M) reverted K step(s) in its place: ok")
 * and drop the pending state at @path.  0 or -errno with @err (the state
 * is kept).
 */
int apply_revert_orphan(struct sys *sys, struct changeset *cs, const struct change_pending *pp,
			const char *path, const char *who, struct fab_err *err);
/* What the operator must run about @pp (its reverter dead), one line into @buf. */
void apply_orphan_advice(const struct change_pending *pp, const char *path, char *buf, size_t len);
/*
 * For status: 1 and that line in @buf when a try is pending whose
 * reverter is dead; 0 otherwise (nothing pending, a live reverter, a
 * damaged state: apply and confirm say those).
 */
int apply_pending_note(struct sys *sys, char *buf, size_t len);

/*
 * Take the node's apply lock (sys_pending_lock), waiting while another
 * holds it: up to @wait_ms, or forever when negative.  0 or -errno with
 * @err (-EBUSY: "another apply is running" after the wait).
 */
int apply_lock_wait(struct sys *sys, int *lock, int wait_ms, struct fab_err *err);

#endif
