// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every command spells alike: the usage line, usage errors, -h and
 * unknown options; option tables (cmd_opt.h): getopt_long() driven by a
 * command's rows and the typed values stored; numbers through one parser
 * with one message for every command.  The synopsis is cmd_opt_table.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"

void cmd_usage(FILE *f, const struct fab_cmd *cmds, const char *name)
{
	/* Exact match only: never by prefix. */
	for (const struct fab_cmd *c = cmds; c && c->name; c++)
		if (strcmp(c->name, name) == 0) {
			fprintf(f, "usage: fabricctl %s ", c->name);
			cmd_opts_synopsis(f, c->opts);
			fputc('\n', f);
			return;
		}
}

int cmd_usage_error(struct fab_ctx *ctx, const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fabricctl %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cmd_usage(stderr, ctx->cmds, cmd);
	return FAB_EXIT_USAGE;
}

int cmd_opt_other(struct fab_ctx *ctx, const char *cmd, int opt)
{
	if (opt == 'h') {
		cmd_usage(stdout, ctx->cmds, cmd);
		return FAB_EXIT_OK;
	}
	cmd_usage(stderr, ctx->cmds, cmd);
	return FAB_EXIT_USAGE;
}

int cmd_opt_num(struct fab_ctx *ctx, const char *cmd, const char *opt, const char *s, double min,
		double max, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < min || v > max) {
		cmd_usage_error(ctx, cmd, "--%s %s: want a number from %.15g to %.15g", opt, s, min,
				max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int cmd_opt_whole(struct fab_ctx *ctx, const char *cmd, const char *opt, const char *s,
		  unsigned int min, unsigned int max, unsigned int *out)
{
	double v;

	if (cmd_opt_num(ctx, cmd, opt, s, min, max, &v) < 0)
		return -EINVAL;
	if (v != floor(v)) {
		cmd_usage_error(ctx, cmd, "--%s %s: want a whole number", opt, s);
		return -EINVAL;
	}
	*out = (unsigned int)v;
	return 0;
}

int cmd_opt_json(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	render_select(&ctx->render, "json");
	return 0;
}

/* getopt_long()'s value for row @i: its short name, or one above any character. */
static int row_val(const struct cmd_opt_row *row, size_t i)
{
	return row[i].o->key ? row[i].o->key : 256 + (int)i;
}

static bool row_has_arg(const struct cmd_opt *o)
{
	return o->type == CMD_OPT_CALL ? o->metavar != NULL : o->type != CMD_OPT_FLAG;
}

/* getopt_long()'s tables for @row; -h and --help added. */
static void opts_build(const struct cmd_opt_row *row, size_t n, struct option *lo, char *str)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct cmd_opt *o = row[i].o;
		int has = row_has_arg(o) ? required_argument : no_argument;

		if (o->type == CMD_OPT_TEXT)
			continue;
		if (o->key) {
			*str++ = o->key;
			if (has)
				*str++ = ':';
		}
		if (o->name)
			lo[k++] = (struct option){ o->name, has, NULL, row_val(row, i) };
	}
	lo[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[k] = (struct option){ 0 };
	*str++ = 'h';
	*str = '\0';
}

/* Option @r's argument @arg into @args: 0, or -EINVAL after a usage error. */
static int row_take(struct fab_ctx *ctx, const char *cmd, const struct cmd_opt_row *r,
		    const char *arg, void *args)
{
	const struct cmd_opt *o = r->o;
	char *at = (char *)args + r->base + o->off;

	switch (o->type) {
	case CMD_OPT_FLAG:
		*(bool *)at = !(o->syn & CMD_OPT_OFF);
		return 0;
	case CMD_OPT_STRING:
		*(const char **)at = arg;
		return 0;
	case CMD_OPT_NUMBER:
		return cmd_opt_num(ctx, cmd, o->name, arg, o->min, o->max, (double *)at);
	case CMD_OPT_WHOLE:
		return cmd_opt_whole(ctx, cmd, o->name, arg, (unsigned int)o->min,
				     (unsigned int)o->max, (unsigned int *)at);
	case CMD_OPT_CALL:
		return o->call(ctx, cmd, arg, (char *)args + r->base);
	default:
		return -EINVAL;
	}
}

int cmd_opts_parse(struct fab_ctx *ctx, const struct cmd_opts *t, int argc, char **argv,
		   void *args)
{
	struct cmd_opt_row row[CMD_OPTS_MAX];
	struct option lo[CMD_OPTS_MAX + 2];
	char str[2 * CMD_OPTS_MAX + 2];
	size_t n = 0;
	int opt;

	if (cmd_opts_flat(t->rows, 0, row, &n) < 0) {
		fab_err_set(&ctx->err, -E2BIG, "%s: more than %d options", t->cmd, CMD_OPTS_MAX);
		return FAB_EXIT_SYSTEM;
	}
	opts_build(row, n, lo, str);
	while ((opt = getopt_long(argc, argv, str, lo, NULL)) != -1) {
		size_t i = 0;

		while (i < n && (row[i].o->type == CMD_OPT_TEXT || row_val(row, i) != opt))
			i++;
		if (i == n)	/* -h, or getopt's '?' after its own message */
			return cmd_opt_other(ctx, t->cmd, opt);
		if (row_take(ctx, t->cmd, &row[i], optarg, args) < 0)
			return FAB_EXIT_USAGE;
	}
	return -1;
}
