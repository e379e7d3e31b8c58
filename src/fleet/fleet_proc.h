/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Processes for the launchers: argument vectors built from templates,
 * fork and exec in a process group, the path of this binary, and the
 * relay of a child's output to stderr.  Used by the per-node launch
 * (fleet.c) and the collective one (fleet_dial.c); knows nothing of
 * struct fleet.
 */
#ifndef FAB_FLEET_PROC_H
#define FAB_FLEET_PROC_H

#include <stddef.h>
#include <sys/types.h>

#include "util/err.h"

/* Free a NULL-terminated argv built by the functions below. */
void fleet_argv_free(char **argv);

/* Append @s (taken, NULL: -ENOMEM) to *@argv of *@n words, NULL-terminated.  0 or -ENOMEM. */
int fleet_argv_push(char ***argv, size_t *n, char *s);

/*
 * Split template @s at blanks (never a shell) and append its words to
 * *@argv, each with every @sub[].key ("{host}", "{port}", ...) replaced
 * by its value (a NULL value: left as written).  0 or -ENOMEM.
 */
struct fleet_subst {
	const char *key, *val;
};
int fleet_split_subst(const char *s, const struct fleet_subst *sub, size_t ns, char ***argv,
		      size_t *n);

/* This binary's path (/proc/self/exe) into @buf.  0 or -errno with @err. */
int fleet_self_path(char *buf, size_t len, struct fab_err *err);

/*
 * Fork and exec @argv (a launcher) in its own process group, so that it
 * dies with its children; there @in_fd (-1: /dev/null), @out_fd and
 * @err_fd are its stdin, stdout and stderr, SIGPIPE is back to the
 * default, and @env_name=@env_val is in its environment when @env_name is
 * set.  Its pid, or -errno when fork() failed.  An exec that fails exits
 * 127 after saying why on @err_fd.
 */
pid_t fleet_exec(char **argv, int in_fd, int out_fd, int err_fd, const char *env_name,
		 const char *env_val);

/*
 * Relay what descriptor *@fd has now to stderr as "WHO: line" (control
 * bytes as \xNN, trailing blanks dropped), never blocking (at most 64
 * reads, so a flood cannot hold the controller); @buf (@cap bytes, *@len
 * used) keeps a partial line, @last the last non-empty line; at EOF the
 * rest is relayed and *@fd closed (-1).  A worker's stderr, a collective
 * launcher's output.
 */
void fleet_relay_read(int *fd, char *buf, size_t cap, size_t *len, const char *who, char *last,
		      size_t last_cap);

#endif
