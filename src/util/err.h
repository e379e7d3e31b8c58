/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Error context.  Functions return 0 or -errno and, on failure, fill a
 * caller-owned struct fab_err with a lowercase message that names the
 * object (and carries the kernel's extended ack when there is one).
 * Only main() turns an error into an exit code.
 */
#ifndef FAB_UTIL_ERR_H
#define FAB_UTIL_ERR_H

#include <stdarg.h>
#include <stddef.h>

/* Exit codes shared by every subcommand. */
enum fab_exit {
	FAB_EXIT_OK = 0,	/* all good */
	FAB_EXIT_UNHEALTHY = 1,	/* drift or unhealthy state found */
	FAB_EXIT_USAGE = 2,	/* usage error or bad input */
	FAB_EXIT_SYSTEM = 3,	/* system error */
};

enum fab_err_kind {
	FAB_ERR_SYSTEM = 0,	/* the node or a library failed */
	FAB_ERR_INPUT,		/* the user's input is wrong */
};

struct fab_err {
	int code;		/* negative errno, 0 when clear */
	enum fab_err_kind kind;
	char msg[1024];
};

void fab_err_init(struct fab_err *err);

/*
 * Record an error and return @code (a negative errno) so that callers
 * can write `return fab_err_set(err, -EINVAL, "...")`.  @err may be NULL.
 */
int fab_err_set(struct fab_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Same, but marks the error as bad user input (exit code 2). */
int fab_err_input(struct fab_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prepend "prefix: " to the current message. */
void fab_err_prefix(struct fab_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The exit code for an error: 2 for bad input, 3 otherwise. */
int fab_err_exit(const struct fab_err *err);

#endif
