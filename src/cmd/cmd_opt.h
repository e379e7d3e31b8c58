/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One option table per command: the same rows build getopt_long()'s
 * struct option[] and optstring, store each value, typed and range-checked,
 * into the command's own args struct, and print the usage synopsis.  What
 * an option means is explained once, in the command's man page (its OPTIONS
 * section is `fabricctl help CMD`, scripts/man2help), not here.
 *
 *	struct verify_args { const char *hosts; struct fleet_opts fo; };
 *	static const struct cmd_opt verify_rows[] = {
 *		CMD_JSON,
 *		CMD_STRING("hosts", 0, "FILE", struct verify_args, hosts, 0),
 *		CMD_STRING("launcher", 0, "NAME|TEMPLATE", struct verify_args, fo.launcher,
 *			   CMD_SYN_IN),
 *		CMD_TEXT("PROFILE", 0),
 *		{ 0 },
 *	};
 *	const struct cmd_opts cmd_verify_opts = { "verify", verify_rows };
 *
 * gives "[-j] [--hosts FILE [--launcher NAME|TEMPLATE]] PROFILE".  Numbers
 * go through cmd_opt_num()/cmd_opt_whole() (below): a value out of range
 * is the usage error "--OPT VALUE: want a number from MIN to MAX".  -h and
 * --help are every command's (cmd_opt_other()).  A new option is one row
 * (and its field); its words in the man page's SYNOPSIS and OPTIONS.
 *
 * The parser is cmd_opt.c; the walk of a table and the synopsis are
 * cmd_opt_table.c, which main.c's cmd_usage() prints after the name.
 */
#ifndef FAB_CMD_CMD_OPT_H
#define FAB_CMD_CMD_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cmd/cmd.h"

enum cmd_opt_type {
	CMD_OPT_END,		/* the row that ends a table: { 0 } */
	CMD_OPT_FLAG,		/* no argument: the bool at .off set true (CMD_OPT_OFF: false) */
	CMD_OPT_STRING,		/* const char * at .off: the argument, borrowed from argv */
	CMD_OPT_NUMBER,		/* double at .off: a number from .min to .max */
	CMD_OPT_WHOLE,		/* unsigned int at .off: a whole number from .min to .max */
	CMD_OPT_CALL,		/* .call() does it; takes an argument when .metavar is set */
	CMD_OPT_GROUP,		/* the rows of .group, their .off counted from this .off, */
				/* this .syn OR-ed into theirs (CMD_SYN_HIDE: none shown) */
	CMD_OPT_TEXT,		/* synopsis only: .metavar as written (operands: "PROFILE") */
				/* (also a form's own spelling of options of the table) */
};

/* .syn: how a row shows in the synopsis (0: "[--name METAVAR]", in every form). */
#define CMD_SYN_HIDE	0x01u	/* not shown (still accepted) */
#define CMD_SYN_SHORT	0x02u	/* shown by its short name: "[-j]" */
#define CMD_SYN_REQ	0x04u	/* shown without brackets: "-o FILE.html" */
#define CMD_SYN_IN	0x08u	/* in the bracket of the last row not IN: "[--a A [--b B]]" */
#define CMD_SYN_OR	0x10u	/* the row before's alternative, in its bracket: "[--a | --b]" */
#define CMD_OPT_OFF	0x20u	/* CMD_OPT_FLAG: stores false ("--no-counters") */
/*
 * A synopsis of several forms ("A | B"): a row marked CMD_SYN_FORM(1) shows
 * in the first only, CMD_SYN_FORM(2) in the second; unmarked rows in all.
 */
#define CMD_SYN_FORM(n)	(0x100u << ((n) - 1))
#define CMD_SYN_FORMS_MAX 4

struct cmd_opt {
	enum cmd_opt_type type;
	const char *name;	/* --name; NULL for CMD_OPT_GROUP and CMD_OPT_TEXT */
	char key;		/* -key as well; 0: long only */
	const char *metavar;	/* the argument as the synopsis names it; NULL: none */
	size_t off;		/* of the value in the args struct (CMD_OFF()) */
	double min, max;	/* CMD_OPT_NUMBER, CMD_OPT_WHOLE */
	unsigned int syn;	/* CMD_SYN_*, CMD_OPT_OFF */
	/*
	 * CMD_OPT_CALL: @arg (NULL without .metavar) into @args (the struct
	 * the rows' .off count from); 0, or -EINVAL after cmd_usage_error().
	 */
	int (*call)(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args);
	const struct cmd_opt *group;	/* CMD_OPT_GROUP: its rows, ending with { 0 } */
};

/* A command's table: what cmd_usage() prints and cmd_opts_parse() reads. */
struct cmd_opts {
	const char *cmd;
	const struct cmd_opt *rows;	/* ending with { 0 } */
};

/* The most rows a table may have, groups flattened (one getopt_long() table). */
#define CMD_OPTS_MAX 96

/*
 * offsetof(T, f), and a compile error unless T's f has type @type: a row
 * cannot store a double into an unsigned int.
 */
#define CMD_OFF(T, f, type) (offsetof(T, f) + 0 * sizeof(_Generic(((T *)0)->f, type: 1)))

#define CMD_FLAG(n, k, T, f, syn) \
	{ CMD_OPT_FLAG, n, k, NULL, CMD_OFF(T, f, bool), 0, 0, syn, NULL, NULL }
#define CMD_STRING(n, k, meta, T, f, syn) \
	{ CMD_OPT_STRING, n, k, meta, CMD_OFF(T, f, const char *), 0, 0, syn, NULL, NULL }
#define CMD_NUMBER(n, k, meta, T, f, lo, hi, syn) \
	{ CMD_OPT_NUMBER, n, k, meta, CMD_OFF(T, f, double), lo, hi, syn, NULL, NULL }
#define CMD_WHOLE(n, k, meta, T, f, lo, hi, syn) \
	{ CMD_OPT_WHOLE, n, k, meta, CMD_OFF(T, f, unsigned int), lo, hi, syn, NULL, NULL }
#define CMD_CALL(n, k, meta, fn, syn) \
	{ CMD_OPT_CALL, n, k, meta, 0, 0, 0, syn, fn, NULL }
#define CMD_GROUP(T, f, rows) \
	{ CMD_OPT_GROUP, NULL, 0, NULL, offsetof(T, f), 0, 0, 0, NULL, rows }
#define CMD_TEXT(text, syn) \
	{ CMD_OPT_TEXT, NULL, 0, text, 0, 0, 0, syn, NULL, NULL }

/*
 * The value @s of option --@opt of @cmd as a number in [@min, @max] (a whole
 * one for cmd_opt_whole()): 0, or -EINVAL after a usage error naming the
 * option, the value and the range (the caller returns FAB_EXIT_USAGE).
 */
int cmd_opt_num(struct fab_ctx *ctx, const char *cmd, const char *opt, const char *s, double min,
		double max, double *out);
int cmd_opt_whole(struct fab_ctx *ctx, const char *cmd, const char *opt, const char *s,
		  unsigned int min, unsigned int max, unsigned int *out);

/* -j, --json: the JSON renderer (render_select()). */
#define CMD_JSON CMD_CALL("json", 'j', NULL, cmd_opt_json, CMD_SYN_SHORT)

int cmd_opt_json(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args);

/* One row of a table with its groups flattened (cmd_opts_flat()). */
struct cmd_opt_row {
	const struct cmd_opt *o;
	size_t base;		/* of its group in the args struct: the value at base + o->off */
	unsigned int syn;	/* o->syn, and the .syn of the groups it is in */
};

/*
 * The rows of @rows, groups replaced by their rows (counted from @base),
 * appended to @row[*@n] (at most CMD_OPTS_MAX in all): 0, or -E2BIG.
 */
int cmd_opts_flat(const struct cmd_opt *rows, size_t base, struct cmd_opt_row *row, size_t *n);

/*
 * Parse @argc/@argv (argv[0] the command) by @t into @args: -1 when the
 * command is to run (its operands from optind on), otherwise its exit
 * code: FAB_EXIT_OK after -h (the usage on stdout), FAB_EXIT_USAGE after
 * a usage error (getopt's, or a value out of range: on stderr).
 */
int cmd_opts_parse(struct fab_ctx *ctx, const struct cmd_opts *t, int argc, char **argv,
		   void *args);

/* The synopsis of @t, as "usage: fabricctl CMD " is followed, without a newline. */
void cmd_opts_synopsis(FILE *f, const struct cmd_opts *t);

#endif
