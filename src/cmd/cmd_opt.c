// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Option tables (cmd_opt.h): getopt_long() driven by a command's rows,
 * typed values, and the synopsis printed from the same rows.  Numeric
 * values, one parser and one message for every command.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"

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

/* One row of a table with its groups flattened: where its value lies. */
struct cmd_row {
	const struct cmd_opt *o;
	size_t base;		/* of its group in the args struct */
};

/* @rows (their values counted from @base) appended to @row[*@n]: 0, or -E2BIG. */
static int rows_flat(const struct cmd_opt *rows, size_t base, struct cmd_row *row, size_t *n)
{
	for (const struct cmd_opt *o = rows; o->type != CMD_OPT_END; o++) {
		if (o->type == CMD_OPT_GROUP) {
			if (rows_flat(o->group, base + o->off, row, n) < 0)
				return -E2BIG;
			continue;
		}
		if (*n == CMD_OPTS_MAX)
			return -E2BIG;
		row[(*n)++] = (struct cmd_row){ o, base };
	}
	return 0;
}

/* getopt_long()'s value for row @i: its short name, or one above any character. */
static int row_val(const struct cmd_row *row, size_t i)
{
	return row[i].o->key ? row[i].o->key : 256 + (int)i;
}

static bool row_has_arg(const struct cmd_opt *o)
{
	return o->type == CMD_OPT_CALL ? o->metavar != NULL : o->type != CMD_OPT_FLAG;
}

/* getopt_long()'s tables for @row; -h and --help added. */
static void opts_build(const struct cmd_row *row, size_t n, struct option *lo, char *str)
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
static int row_take(struct fab_ctx *ctx, const char *cmd, const struct cmd_row *r, const char *arg,
		    void *args)
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
	struct cmd_row row[CMD_OPTS_MAX];
	struct option lo[CMD_OPTS_MAX + 2];
	char str[2 * CMD_OPTS_MAX + 2];
	size_t n = 0;
	int opt;

	if (rows_flat(t->rows, 0, row, &n) < 0) {
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

/* The synopsis being written: at each depth, what is open. */
struct syn {
	FILE *f;
	bool first;
	enum { SYN_NONE, SYN_BRACKET, SYN_BARE } open[2];	/* top level, CMD_SYN_IN */
};

/* Close what is open at depth @from and below it. */
static void syn_close(struct syn *s, int from)
{
	for (int d = 1; d >= from; d--) {
		if (s->open[d] == SYN_BRACKET)
			fputc(']', s->f);
		s->open[d] = SYN_NONE;
	}
}

/* Where @o begins: in the open bracket as an alternative, or after what it closes. */
static void syn_open(struct syn *s, const struct cmd_opt *o)
{
	int d = (o->syn & CMD_SYN_IN) ? 1 : 0;
	bool bracket = !(o->syn & CMD_SYN_REQ) && o->type != CMD_OPT_TEXT;

	if ((o->syn & CMD_SYN_OR) && s->open[d] != SYN_NONE) {
		syn_close(s, d + 1);
		fputs(" | ", s->f);
		return;
	}
	syn_close(s, d);
	if (!s->first)
		fputc(' ', s->f);
	if (bracket)
		fputc('[', s->f);
	s->open[d] = bracket ? SYN_BRACKET : SYN_BARE;
}

static void syn_row(struct syn *s, const struct cmd_opt *o)
{
	syn_open(s, o);
	s->first = false;
	if (o->type == CMD_OPT_TEXT) {
		fputs(o->metavar, s->f);
		return;
	}
	if (o->key && ((o->syn & CMD_SYN_SHORT) || !o->name))
		fprintf(s->f, "-%c", o->key);
	else
		fprintf(s->f, "--%s", o->name);
	if (o->metavar)
		fprintf(s->f, " %s", o->metavar);
}

/* The forms @row has (CMD_SYN_FORM()): at least one. */
static int syn_forms(const struct cmd_row *row, size_t n)
{
	int forms = 1;

	for (size_t i = 0; i < n; i++)
		for (int k = 2; k <= CMD_SYN_FORMS_MAX; k++)
			if ((row[i].o->syn & CMD_SYN_FORM(k)) && k > forms)
				forms = k;
	return forms;
}

static bool syn_shows(const struct cmd_opt *o, int form)
{
	unsigned int all = CMD_SYN_FORM(CMD_SYN_FORMS_MAX + 1) - CMD_SYN_FORM(1);

	return !(o->syn & CMD_SYN_HIDE) && (!(o->syn & all) || (o->syn & CMD_SYN_FORM(form)));
}

void cmd_opts_synopsis(FILE *f, const struct cmd_opts *t)
{
	struct cmd_row row[CMD_OPTS_MAX];
	size_t n = 0;
	int forms;

	rows_flat(t->rows, 0, row, &n);	/* too many: the first ones (parsing says so) */
	forms = syn_forms(row, n);
	for (int form = 1; form <= forms; form++) {
		struct syn s = { .f = f, .first = true };

		fputs(form > 1 ? " | " : "", f);
		for (size_t i = 0; i < n; i++)
			if (syn_shows(row[i].o, form))
				syn_row(&s, row[i].o);
		syn_close(&s, 0);
	}
}
