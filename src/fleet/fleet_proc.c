// SPDX-License-Identifier: GPL-2.0-or-later
/* Processes for the fleet's launchers (fleet_proc.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet/fleet_proc.h"
#include "fleet/proto.h"
#include "util/log.h"

void fleet_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

int fleet_argv_push(char ***argv, size_t *n, char *s)
{
	char **tmp;

	if (!s)
		return -ENOMEM;
	tmp = realloc(*argv, (*n + 2) * sizeof(*tmp));
	if (!tmp) {
		free(s);
		return -ENOMEM;
	}
	*argv = tmp;
	tmp[(*n)++] = s;
	tmp[*n] = NULL;
	return 0;
}

/* @word (@len bytes) with every {key} of @s replaced; NULL values leave the key. */
static char *subst_word(const char *word, size_t len, const struct fleet_subst *s, size_t ns)
{
	size_t cap = len + 1, o = 0;
	char *out;

	for (size_t k = 0; k < ns; k++)
		if (s[k].val)
			cap += strlen(s[k].val) * (len / 3 + 1);
	out = malloc(cap);
	if (!out)
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t k;

		for (k = 0; k < ns; k++) {
			size_t kl = strlen(s[k].key);

			if (s[k].val && len - i >= kl && memcmp(word + i, s[k].key, kl) == 0) {
				memcpy(out + o, s[k].val, strlen(s[k].val));
				o += strlen(s[k].val);
				i += kl;
				break;
			}
		}
		if (k == ns)
			out[o++] = word[i++];
	}
	out[o] = '\0';
	return out;
}

int fleet_split_subst(const char *s, const struct fleet_subst *sub, size_t ns, char ***argv,
		      size_t *n)
{
	while (*s) {
		size_t len;
		int rc;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		len = strcspn(s, " \t");
		rc = fleet_argv_push(argv, n, subst_word(s, len, sub, ns));
		if (rc < 0)
			return rc;
		s += len;
	}
	return 0;
}

/*
 * This binary's path, for the worker command: /proc/self/exe, except that
 * once the file was replaced (an upgrade renamed a new binary over it)
 * the kernel answers "PATH (deleted)": the nodes run what is at PATH now.
 */
int fleet_self_path(char *buf, size_t len, struct fab_err *err)
{
	static const char deleted[] = " (deleted)";
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	size_t dl = sizeof(deleted) - 1;

	if (n < 0)
		return fab_err_set(err, -errno, "launcher: /proc/self/exe: %s", strerror(errno));
	buf[n] = '\0';
	if ((size_t)n > dl && strcmp(buf + n - dl, deleted) == 0 && access(buf, F_OK) < 0) {
		buf[n - dl] = '\0';
		fab_info("launcher: this binary was replaced: the workers run %s", buf);
	}
	return 0;
}

static void relay_line(const char *who, const char *s, size_t len, char *last, size_t last_cap)
{
	char clean[2048];

	while (len && (s[len - 1] == '\r' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	proto_str_clean(s, len, clean, sizeof(clean));
	fprintf(stderr, "%s: %s\n", who, clean);
	if (clean[0])
		snprintf(last, last_cap, "%.*s", (int)last_cap - 1, clean);
}

void fleet_relay_read(int *fd, char *buf, size_t cap, size_t *len, const char *who, char *last,
		      size_t last_cap)
{
	for (int k = 0; k < 64 && *fd >= 0; k++) {
		ssize_t n = read(*fd, buf + *len, cap - *len);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n < 0 && errno == EAGAIN)
				return;
			if (*len)
				relay_line(who, buf, *len, last, last_cap);
			*len = 0;
			close(*fd);
			*fd = -1;
			return;
		}
		*len += (size_t)n;
		while ((nl = memchr(buf, '\n', *len))) {
			size_t l = (size_t)(nl - buf);

			relay_line(who, buf, l, last, last_cap);
			memmove(buf, nl + 1, *len - l - 1);
			*len -= l + 1;
		}
		if (*len == cap) {	/* a long line: in pieces */
			relay_line(who, buf, *len, last, last_cap);
			*len = 0;
		}
	}
}

pid_t fleet_exec(char **argv, int in_fd, int out_fd, int err_fd, const char *env_name,
		 const char *env_val)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGPIPE, SIG_DFL);
		if (in_fd < 0)
			in_fd = open("/dev/null", O_RDONLY);
		if (in_fd < 0 || dup2(in_fd, STDIN_FILENO) < 0 || dup2(out_fd, STDOUT_FILENO) < 0 ||
		    dup2(err_fd, STDERR_FILENO) < 0 || (env_name && setenv(env_name, env_val, 1) < 0))
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "fabricctl: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	return pid;
}
