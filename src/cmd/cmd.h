/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The context every subcommand gets, and the subcommand entry points.
 * A subcommand parses its own options by its option table (cmd_opt.h;
 * argv[0] is its name), reads and changes the node only through the node
 * layer (src/node/) and ctx->sys, renders only through ctx->render, and
 * returns an exit code (enum fab_exit).  It reports errors by filling
 * ctx->err; main() prints them.
 */
#ifndef FAB_CMD_CMD_H
#define FAB_CMD_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "render/render.h"
#include "sys/sys.h"
#include "util/err.h"

struct fab_cmd;

struct fab_ctx {
	struct sys *sys;		/* owned by main() */
	struct render render;		/* chosen once by main() from -j (render_select()) */
	bool json;			/* -j before the command (a command's own -j: render_select()) */
	bool pretty;			/* JSON indented (-p) */
	const char *argv0;
	const struct fab_cmd *cmds;	/* main()'s subcommand table: the usage lines; NULL none */
	struct fab_err err;
};

struct cmd_opts;

struct fab_cmd {
	const char *name;
	int (*fn)(struct fab_ctx *ctx, int argc, char **argv);
	const struct cmd_opts *opts;	/* its option table (cmd_opt.h): also its synopsis */
	const char *summary;
};

/*
 * The OPTIONS section of each command's man page as text, generated at
 * build time from man/fabricctl-CMD.8 (scripts/man2help); NULL-terminated.
 */
struct fab_cmd_help {
	const char *cmd;	/* the command, and its man page fabricctl-CMD(8) */
	const char *text;
};
extern const struct fab_cmd_help fab_cmd_help[];

/*
 * Print "usage: fabricctl NAME SYNOPSIS" for command @name of @cmds (the
 * table main() dispatches on, which is also the help text) to @f.
 */
void cmd_usage(FILE *f, const struct fab_cmd *cmds, const char *name);

/* Report a usage error for @cmd and return FAB_EXIT_USAGE. */
int cmd_usage_error(struct fab_ctx *ctx, const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * What the option parser (cmd_opt.c) does with what all commands spell
 * alike: -h prints @cmd's usage to stdout and returns FAB_EXIT_OK;
 * anything else (getopt's '?' after its own message) prints it to stderr
 * and returns FAB_EXIT_USAGE.
 */
int cmd_opt_other(struct fab_ctx *ctx, const char *cmd, int opt);

/* The option tables of the commands that have one (cmd_opt.h). */
extern const struct cmd_opts cmd_status_opts, cmd_discover_opts, cmd_report_opts, cmd_worker_opts,
	cmd_apply_opts, cmd_verify_opts, cmd_confirm_opts, cmd_sweep_opts, cmd_diagnose_opts,
	cmd_accept_opts, cmd_trace_opts;

int cmd_status(struct fab_ctx *ctx, int argc, char **argv);
int cmd_discover(struct fab_ctx *ctx, int argc, char **argv);
int cmd_sweep(struct fab_ctx *ctx, int argc, char **argv);
int cmd_report(struct fab_ctx *ctx, int argc, char **argv);
int cmd_diagnose(struct fab_ctx *ctx, int argc, char **argv);
int cmd_accept(struct fab_ctx *ctx, int argc, char **argv);
int cmd_worker(struct fab_ctx *ctx, int argc, char **argv);
int cmd_apply(struct fab_ctx *ctx, int argc, char **argv);
int cmd_verify(struct fab_ctx *ctx, int argc, char **argv);
int cmd_confirm(struct fab_ctx *ctx, int argc, char **argv);
int cmd_trace(struct fab_ctx *ctx, int argc, char **argv);
int cmd_help(struct fab_ctx *ctx, int argc, char **argv);

#endif
