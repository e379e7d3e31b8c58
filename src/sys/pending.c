// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The node's pending `apply --try` state, behind struct sys_ops: the run
 * directory (rundir = $FABRICCTL_RUNDIR or /run/fabricctl) with the apply
 * lock (<rundir>/lock, flock(2)), the pending-state file
 * (<rundir>/pending.json), the reverter's log (<rundir>/last-revert.log)
 * and the detached reverter process itself.  Apply, confirm and the
 * reverter all act under the lock, so exactly one of confirm and the
 * reverter acts on a pending try and no undo overlaps an apply.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/sys_real.h"
#include "util/file.h"

#define RUNDIR_DEFAULT "/run/fabricctl"
/* The pending-try file is small; anything larger is not ours. */
#define PENDING_MAX_BYTES (1u << 20)

static const char *rundir(void)
{
	const char *d = getenv("FABRICCTL_RUNDIR");

	return d && *d ? d : RUNDIR_DEFAULT;
}

static int rundir_make(struct fab_err *err)
{
	if (mkdir(rundir(), 0700) < 0 && errno != EEXIST)
		return fab_err_set(err, -errno, "apply: %s: %s", rundir(), strerror(errno));
	return 0;
}

const char *pending_path(struct sys *sys, char *buf, size_t len)
{
	snprintf(buf, len, "%s/pending.json", rundir());
	return buf;
}

/*
 * One apply at a time per node: an exclusive flock(2) on <rundir>/lock,
 * held until pending_unlock() or the process exits (the reverter does not
 * inherit it: it is taken O_CLOEXEC and closed in the reverter).
 */
int pending_lock(struct sys *sys, int *lock, struct fab_err *err)
{
	char path[PATH_MAX];
	int fd, rc;

	rc = rundir_make(err);
	if (rc < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/lock", rundir());
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
	*lock = fd;
	return 0;
}

void pending_unlock(struct sys *sys, int lock)
{
	if (lock >= 0)
		close(lock);	/* releases the lock */
}

int pending_read(struct sys *sys, char **text, size_t *len, struct fab_err *err)
{
	char path[PATH_MAX];
	int rc;

	pending_path(sys, path, sizeof(path));
	if (access(path, F_OK) < 0 && errno == ENOENT)
		return -ENOENT;
	rc = file_read_all(path, PENDING_MAX_BYTES, text, len, err);
	if (rc < 0)
		err->kind = FAB_ERR_SYSTEM;
	return rc;
}

int pending_write(struct sys *sys, const char *text, struct fab_err *err)
{
	char path[PATH_MAX];
	int rc;

	rc = rundir_make(err);
	if (rc < 0)
		return rc;
	pending_path(sys, path, sizeof(path));
	rc = file_write_atomic(path, text, strlen(text), 0600, err);
	if (rc < 0)
		fab_err_prefix(err, "apply");
	return rc;
}

void pending_drop(struct sys *sys, const char *path)
{
	unlink(path);
}

void pending_log(struct sys *sys, const char *line)
{
	char path[PATH_MAX];
	FILE *log;

	snprintf(path, sizeof(path), "%s/last-revert.log", rundir());
	log = fopen(path, "we");
	if (log) {
		fprintf(log, "%s\n", line);
		fclose(log);
	}
}

/* In the reverter: sleep until @deadline (wall clock, Unix seconds). */
static void sleep_until(long long deadline)
{
	struct timespec ts;

	for (;;) {
		clock_gettime(CLOCK_REALTIME, &ts);
		if (ts.tv_sec >= deadline)
			break;
		ts.tv_sec = deadline - ts.tv_sec;
		ts.tv_nsec = 0;
		nanosleep(&ts, NULL);
	}
}

/* In the reverter: no inherited descriptors (the apply lock among them), no tty. */
static void detach_fds(void)
{
	int fd;

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
}

/*
 * Detach the reverter: double fork so it is reparented to init, setsid
 * so the admin's session hangup does not reach it.  The grandchild's pid
 * comes back through a pipe; the parent reaps the intermediate child.
 */
int reverter_spawn(struct sys *sys, long long deadline, void (*fn)(struct sys *, long long),
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

		close(fds[0]);
		setsid();
		gc = fork();
		if (gc != 0)
			_exit(gc < 0 ? 1 : 0);
		me = getpid();
		if (write(fds[1], &me, sizeof(me)) != sizeof(me))
			_exit(1);
		close(fds[1]);
		/* The apply may be catching these while it runs: confirm's SIGTERM must end us. */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		detach_fds();
		if (chdir("/") < 0)
			_exit(1);
		sleep_until(deadline);
		fn(sys, deadline);
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
 * Stop the reverter @pid early, only if it is the very process recorded:
 * a pidfd pins the process, then its start time (/proc/PID/stat field 22)
 * must be @start and it must run the same program as we do (/proc/PID/exe;
 * a rebuilt binary shows " (deleted)", compared without).  The signal goes
 * through the pidfd, so a pid reused after the checks is never hit.
 */
void reverter_stop(struct sys *sys, int pid, unsigned long long start)
{
	char path[64], exe[PATH_MAX], self[PATH_MAX];
	unsigned long long now;
	ssize_t n, m;
	int pfd;

	if (pid <= 1 || !start)
		return;
	pfd = pidfd_open(pid, 0);
	if (pfd < 0)
		return;
	if (proc_start(sys, pid, &now) < 0 || now != start)
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	m = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0 || m <= 0)
		goto out;
	exe[n] = self[m] = '\0';
	exe[strcspn(exe, " ")] = self[strcspn(self, " ")] = '\0';
	if (!strcmp(exe, self))
		pidfd_send_signal(pfd, SIGTERM, NULL, 0);
out:
	close(pfd);
}
