// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One whole apply on this node (apply_node()), as `fabricctl apply` and
 * the worker's "apply" op run it: the node's apply lock, read through
 * sys_ops, diff into a plan (model/plan.c), run it; a failing step undoes
 * every step already done, in reverse order.
 *
 * --try: after a successful apply, the undo list goes to a pending-state
 * file (<rundir>/pending.json, rundir = $FABRICCTL_RUNDIR or /run/fabricctl)
 * and a detached reverter process (double fork, setsid) sleeps until the
 * deadline, then claims the file by rename(2) and undoes the changes.
 * `fabricctl confirm` claims it first (rename to confirmed) and the
 * reverter finds nothing to do.  While the file exists, apply refuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "node/apply.h"
#include "util/err.h"

/* Write @text to @path atomically (tmp + rename), mode 0600. */
static int write_atomic(const char *path, const char *text, struct fab_err *err)
{
	char tmp[300];
	size_t len = strlen(text);
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return fab_err_set(err, -errno, "apply: %s: %s", tmp, strerror(errno));
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		rc = fab_err_set(err, -errno ? -errno : -EIO, "apply: write %s: %s", tmp,
				 strerror(errno));
	if (close(fd) < 0 && rc == 0)
		rc = fab_err_set(err, -errno, "apply: write %s: %s", tmp, strerror(errno));
	if (rc == 0 && rename(tmp, path) < 0)
		rc = fab_err_set(err, -errno, "apply: rename %s: %s", path, strerror(errno));
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/*
 * The reverter (runs detached): sleep until the deadline, then claim the
 * pending file by renaming it; if confirm got there first, there is
 * nothing to do.  Undo in reverse, log the outcome next to the file.
 */
static void reverter(struct sys *sys, const char *pending, long long deadline)
{
	char claimed[300], logp[300], *text = NULL;
	struct plan plan;
	struct fab_err e;
	struct timespec ts;
	long long dl;
	size_t len;
	int pid, rc;
	FILE *log;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (ts.tv_sec >= deadline)
			break;
		ts.tv_sec = deadline - ts.tv_sec;
		ts.tv_nsec = 0;
		nanosleep(&ts, NULL);
	}
	snprintf(claimed, sizeof(claimed), "%s.reverting", pending);
	if (rename(pending, claimed) < 0)
		return;		/* confirmed (or reverted by confirm --revert) */
	snprintf(logp, sizeof(logp), "%s/last-revert.log", apply_rundir());
	plan_init(&plan);
	fab_err_init(&e);
	rc = apply_read_small(claimed, &text, &len);
	if (rc == 0)
		rc = plan_undo_from_json(claimed, text, len, &plan, &dl, &pid, &e);
	if (rc == 0) {
		for (size_t i = 0; i < plan.n_steps; i++)
			plan.steps[i].status = PLAN_STEP_DONE;
		rc = apply_plan_undo(sys, &plan, &e);
	}
	log = fopen(logp, "we");
	if (log) {
		fprintf(log, "reverted %zu step(s) at deadline %lld: %s\n", plan.n_steps, deadline,
			rc == 0 ? "ok" : e.msg);
		fclose(log);
	}
	unlink(claimed);
	free(text);
	plan_fini(&plan);
}

/*
 * Detach the reverter: double fork so it is reparented to init, setsid
 * so the admin's session hangup does not reach it.  The grandchild's pid
 * comes back through a pipe; the parent reaps the intermediate child.
 */
static int reverter_spawn(struct sys *sys, const char *pending, long long deadline,
			  int *rpid, struct fab_err *err)
{
	int fds[2], st;
	pid_t pid, got = 0;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return fab_err_set(err, -errno, "apply: pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return fab_err_set(err, -errno, "apply: fork: %s", strerror(errno));
	}
	if (pid == 0) {
		pid_t gc, me;
		int fd;

		close(fds[0]);
		setsid();
		gc = fork();
		if (gc != 0)
			_exit(gc < 0 ? 1 : 0);
		me = getpid();
		if (write(fds[1], &me, sizeof(me)) != sizeof(me))
			_exit(1);
		close(fds[1]);
		/* Drop every inherited descriptor, the apply lock among them. */
		close_range(3, ~0U, 0);
		signal(SIGHUP, SIG_IGN);
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		if (chdir("/") < 0)
			_exit(1);
		reverter(sys, pending, deadline);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &got, sizeof(got)) != sizeof(got))
		got = 0;
	close(fds[0]);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || got <= 0)
		return fab_err_set(err, -ECHILD, "apply: could not start the reverter");
	*rpid = (int)got;
	return 0;
}

/*
 * One apply at a time per node: an exclusive flock(2) on <rundir>/lock,
 * held until the process exits (the reverter does not inherit it: it is
 * taken O_CLOEXEC and released by close in the parent's path).
 */
static int apply_lock(int *fd_out, struct fab_err *err)
{
	char path[300];
	int fd;

	if (mkdir(apply_rundir(), 0700) < 0 && errno != EEXIST)
		return fab_err_set(err, -errno, "apply: %s: %s", apply_rundir(), strerror(errno));
	snprintf(path, sizeof(path), "%s/lock", apply_rundir());
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return fab_err_set(err, -errno, "apply: %s: %s", path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;

		close(fd);
		if (e == EWOULDBLOCK)
			return fab_err_set(err, -EBUSY, "apply: another apply is running on this node (%s)",
					   path);
		return fab_err_set(err, -e, "apply: lock %s: %s", path, strerror(e));
	}
	*fd_out = fd;
	return 0;
}

/* Is a try pending?  Fills @err (exit 3) when it is. */
static int pending_check(struct fab_err *err)
{
	char path[256], *text = NULL;
	struct plan plan;
	struct fab_err e;
	long long dl = 0;
	size_t len;
	int pid = 0;

	apply_pending_path(path, sizeof(path));
	if (access(path, F_OK) < 0)
		return 0;
	plan_init(&plan);
	fab_err_init(&e);
	if (apply_read_small(path, &text, &len) == 0)
		plan_undo_from_json(path, text, len, &plan, &dl, &pid, &e);
	free(text);
	plan_fini(&plan);
	return fab_err_set(err, -EBUSY,
			   "a try is pending (%s, reverter pid %d, reverts at %lld): run 'fabricctl confirm' to keep it or 'fabricctl confirm --revert' to undo it",
			   path, pid, dl);
}

/* Apply succeeded with --try: start the reverter, record the undo list. */
static int try_arm(struct sys *sys, struct plan *plan, unsigned int secs,
		   struct apply_report *rep, struct fab_err *err)
{
	char *text;
	long long deadline = (long long)time(NULL) + secs;
	int rpid = 0, rc;

	apply_pending_path(rep->pending_path, sizeof(rep->pending_path));
	if (mkdir(apply_rundir(), 0700) < 0 && errno != EEXIST)
		return fab_err_set(err, -errno, "apply: %s: %s", apply_rundir(), strerror(errno));
	rc = reverter_spawn(sys, rep->pending_path, deadline, &rpid, err);
	if (rc < 0)
		return rc;
	text = plan_undo_to_json(plan, plan->n_steps, deadline, rpid);
	if (!text)
		return fab_err_set(err, -ENOMEM, "apply: out of memory");
	rc = write_atomic(rep->pending_path, text, err);
	free(text);
	if (rc < 0)
		return rc;	/* the reverter finds no file and exits */
	rep->try_deadline_s = deadline;
	return 0;
}

int apply_node(struct sys *sys, const struct profile *p, const char *name, bool dry,
	       unsigned int try_s, struct plan *plan, struct apply_report *rep,
	       struct fab_err *err)
{
	struct host_state hs;
	struct node_config ns;
	int rc, lock_fd = -1;

	rep->failed = -1;
	rep->plan = NULL;
	host_state_init(&hs);
	node_config_init(&ns, &hs);
	if (!dry) {
		rc = apply_lock(&lock_fd, err);
		if (rc == 0)
			rc = pending_check(err);
		if (rc < 0)
			goto out;
	}
	rc = apply_node_read(sys, p, &hs, &ns, err);
	if (rc == 0)
		rc = plan_diff(p, &ns, plan, err);
	if (rc < 0)
		goto out;
	if (plan->n_unmatched) {
		/* Nothing can make an absent interface appear: refuse before touching anything. */
		rc = -ENODEV;
		for (size_t i = 0; i < plan->n_drift; i++)
			if (!strcmp(plan->drift[i].field, "match")) {
				fab_err_set(err, -ENODEV,
					    "%s: '%s' matches no %s on this node (mark the item optional: true if that is fine)",
					    name, plan->drift[i].object,
					    strcmp(plan->drift[i].wanted, "an interface") ? "rdma port"
											   : "interface");
				break;
			}
		goto out;
	}
	rep->profile = name;
	rep->plan = plan;
	rep->dry_run = dry;
	if (dry)
		goto out;
	if (try_s)
		signal(SIGHUP, SIG_IGN);	/* a cut-off admin must not stop us half-way */
	rc = apply_plan_run(sys, plan, rep);
	if (rc < 0) {
		fab_err_set(err, rc, "%s%s%s", rep->error,
			    rep->rolled_back ? "; rolled back, the node is as before"
					     : "; ROLLBACK INCOMPLETE: ",
			    rep->rolled_back ? "" : rep->rollback_error);
	} else if (try_s && plan->n_steps) {
		struct fab_err e;

		fab_err_init(&e);
		rc = try_arm(sys, plan, try_s, rep, &e);
		if (rc < 0) {
			/* Could not arm the safety net: undo now rather than leave it unguarded. */
			apply_plan_undo(sys, plan, err);
			fab_err_set(err, rc, "%s; changes undone", e.msg);
		}
	}
out:
	if (lock_fd >= 0)
		close(lock_fd);		/* releases the lock */
	node_config_fini(&ns);
	host_state_fini(&hs);
	return rc;
}
