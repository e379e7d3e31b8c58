/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Diagnostics go to stderr; output to stdout.  Verbosity is set once by main(). */
#ifndef FAB_UTIL_LOG_H
#define FAB_UTIL_LOG_H

extern int fab_log_level;	/* 0 quiet, 1 verbose (-v), 2 debug (-vv) */

void fab_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fab_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define fab_info(...) fab_log(1, __VA_ARGS__)
#define fab_debug(...) fab_log(2, __VA_ARGS__)

#endif
