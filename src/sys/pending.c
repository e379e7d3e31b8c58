// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The node's pending `apply --try` state, behind struct sys_ops: the run
 * directory (rundir = $FABRICCTL_RUNDIR, else /run/fabricctl, or in a
 * network namespace other than PID 1's its own, rundir_netns()) with the apply
 * lock (<rundir>/lock, flock(2)), the pending-state file
 * (<rundir>/pending.json), the reverter's log (<rundir>/last-revert.log,
 * appended) and the detached reverter process itself.  Apply, confirm and
 * the reverter all act under the lock, so exactly one of confirm and the
 * reverter acts on a pending try and no undo overlaps an apply.  A run
 * directory others could write to is refused (rundir_check), and nothing
 * in it is opened through a symlink.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
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
/* The longest run directory name: room left for "/pending.json.confirmed.PID". */
#define RUNDIR_NAME_MAX (PATH_MAX - 64)

#define NETNS_RUN_DIR "/run/netns"	/* where ip-netns(8) names namespaces */

/*
 * The default run directory of this network namespace.  Its lock guards
 * one network stack's configuration, so each namespace has its own, even
 * where namespaces share /run (ip netns exec, one machine as a lab of
 * nodes): a namespace named by ip-netns(8) (found in /run/netns) has
 * /run/fabricctl-netns-NAME (the first name in byte order when it has
 * several; the built-in netns launcher sets the same directory); one
 * without a name that is not PID 1's has /run/fabricctl-netns-ino-INODE;
 * the rest (a real node, or PID 1's namespace unreadable: no
 * CAP_SYS_PTRACE) have /run/fabricctl.
 */
static void rundir_netns(char *buf, size_t len)
{
	struct stat self, init, st;
	char best[NAME_MAX + 1] = "", path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	snprintf(buf, len, "%s", RUNDIR_DEFAULT);
	if (stat("/proc/self/ns/net", &self) < 0)
		return;
	d = opendir(NETNS_RUN_DIR);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, de->d_name) >= (int)sizeof(path) ||
		    stat(path, &st) < 0 || st.st_dev != self.st_dev || st.st_ino != self.st_ino)
			continue;
		if (!*best || strcmp(de->d_name, best) < 0)
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	if (d)
		closedir(d);
	if (*best)
		snprintf(buf, len, "%s-netns-%s", RUNDIR_DEFAULT, best);
	else if (stat("/proc/1/ns/net", &init) == 0 &&
		 (self.st_dev != init.st_dev || self.st_ino != init.st_ino))
		snprintf(buf, len, "%s-netns-ino-%llu", RUNDIR_DEFAULT, (unsigned long long)self.st_ino);
}

/* $FABRICCTL_RUNDIR, else this network namespace's (found once per process). */
static const char *rundir(void)
{
	static char dflt[PATH_MAX];
	const char *d = getenv("FABRICCTL_RUNDIR");

	if (d && *d)
		return d;
	if (!*dflt)
		rundir_netns(dflt, sizeof(dflt));
	return dflt;
}

/*
 * Everything in the run directory is trusted by root (the undo list in
 * the pending file is run as is), so a run directory that someone else
 * could write to is refused, not used: it must be a real directory (not
 * a symlink), owned by root or by us, and not writable by group or
 * others.  -ENOENT, no message, when it does not exist.
 */
static int rundir_check(struct fab_err *err)
{
	const char *d = rundir();
	struct stat st;

	if (strlen(d) > RUNDIR_NAME_MAX)
		return fab_err_set(err, -ENAMETOOLONG,
				   "run directory name is %zu bytes long, more than %d: refused (FABRICCTL_RUNDIR)",
				   strlen(d), RUNDIR_NAME_MAX);
	if (lstat(d, &st) < 0) {
		if (errno == ENOENT)
			return -ENOENT;
		return fab_err_set(err, -errno, "run directory %s: %s", d, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return fab_err_set(err, -ELOOP, "run directory %s is a symbolic link: refused", d);
	if (!S_ISDIR(st.st_mode))
		return fab_err_set(err, -ENOTDIR, "run directory %s is not a directory", d);
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return fab_err_set(err, -EPERM,
				   "run directory %s is owned by uid %u, not by root: refused",
				   d, (unsigned int)st.st_uid);
	if (st.st_mode & 022)
		return fab_err_set(err, -EPERM,
				   "run directory %s is writable by group or others (mode %04o): refused; it must be writable by its owner only",
				   d, (unsigned int)(st.st_mode & 07777));
	return 0;
}

static int rundir_make(struct fab_err *err)
{
	int rc;

	if (strlen(rundir()) <= RUNDIR_NAME_MAX && mkdir(rundir(), 0700) < 0 && errno != EEXIST)
		return fab_err_set(err, -errno, "apply: %s: %s", rundir(), strerror(errno));
	rc = rundir_check(err);
	if (rc == -ENOENT)	/* removed between the two */
		rc = fab_err_set(err, -ENOENT, "run directory %s vanished", rundir());
	if (rc < 0)
		fab_err_prefix(err, "apply");
	return rc;
}

/* An open(2) failure on a name in the run directory, in words. */
static int open_fail(const char *who, const char *path, int e, struct fab_err *err)
{
	if (e == ELOOP)
		return fab_err_set(err, -e, "%s: %s is a symbolic link: refused", who, path);
	return fab_err_set(err, -e, "%s: %s: %s", who, path, strerror(e));
}

/* <rundir>/@name into @buf; -ENAMETOOLONG rather than a name cut short. */
static int rundir_file(char *buf, size_t len, const char *name, struct fab_err *err)
{
	int n = snprintf(buf, len, "%s/%s", rundir(), name);

	if (n < 0 || (size_t)n >= len)
		return fab_err_set(err, -ENAMETOOLONG, "%s/%s: name too long", rundir(), name);
	return 0;
}

/* rundir_file() once the run directory is checked (@make: made when missing). */
static int rundir_path(char *buf, size_t len, const char *name, bool make, struct fab_err *err)
{
	int rc = make ? rundir_make(err) : rundir_check(err);

	return rc < 0 ? rc : rundir_file(buf, len, name, err);
}

const char *pending_path(struct sys *sys, char *buf, size_t len)
{
	struct fab_err e;

	fab_err_init(&e);
	if (rundir_file(buf, len, "pending.json", &e) < 0)
		snprintf(buf, len, "(pending.json: run directory name too long)");
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

	rc = rundir_path(path, sizeof(path), "lock", true, err);
	if (rc < 0)
		return rc;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return open_fail("apply", path, errno, err);
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

	rc = rundir_path(path, sizeof(path), "pending.json", false, err);
	if (rc < 0)
		return rc;
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

	rc = rundir_path(path, sizeof(path), "pending.json", true, err);
	if (rc < 0)
		return rc;
	rc = file_write_atomic(path, text, strlen(text), 0600, err);
	if (rc < 0)
		fab_err_prefix(err, "apply");
	return rc;
}

void pending_drop(struct sys *sys, const char *path)
{
	unlink(path);
}

/* One line appended to the reverter's log; never through a symlink. */
void pending_log(struct sys *sys, const char *line)
{
	char path[PATH_MAX];
	struct fab_err e;
	int fd;

	fab_err_init(&e);
	if (rundir_path(path, sizeof(path), "last-revert.log", false, &e) < 0)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	dprintf(fd, "%s\n", line);
	close(fd);
}

/* The reverter log's last line (it is appended to, one line a revert). */
int pending_log_read(struct sys *sys, char *buf, size_t len)
{
	char path[PATH_MAX], *text = NULL, *end, *start;
	struct fab_err e;
	size_t n;
	int rc;

	fab_err_init(&e);
	rc = rundir_file(path, sizeof(path), "last-revert.log", &e);
	if (rc == 0)
		rc = file_read_all(path, PENDING_MAX_BYTES, &text, &n, &e);
	if (rc < 0)
		return rc;
	end = text + n;
	while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	*end = '\0';
	start = strrchr(text, '\n');
	start = start ? start + 1 : text;
	rc = *start ? 0 : -ENOENT;
	if (rc == 0)
		snprintf(buf, len, "%s", start);
	free(text);
	return rc;
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
