// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Walking an option table (cmd_opt.h): its rows with the groups
 * flattened, and the synopsis they print.  Calls nothing of the parser's
 * (cmd_opt.c) nor of main.c's: both call it.
 */
#include <errno.h>

#include "cmd/cmd_opt.h"

/* cmd_opts_flat(), with @syn the .syn of the groups @rows is in. */
static int opts_flat(const struct cmd_opt *rows, size_t base, unsigned int syn,
		     struct cmd_opt_row *row, size_t *n)
{
	for (const struct cmd_opt *o = rows; o->type != CMD_OPT_END; o++) {
		if (o->type == CMD_OPT_GROUP) {
			if (opts_flat(o->group, base + o->off, syn | o->syn, row, n) < 0)
				return -E2BIG;
			continue;
		}
		if (*n == CMD_OPTS_MAX)
			return -E2BIG;
		row[(*n)++] = (struct cmd_opt_row){ o, base, o->syn | syn };
	}
	return 0;
}

/* See cmd_opt.h. */
int cmd_opts_flat(const struct cmd_opt *rows, size_t base, struct cmd_opt_row *row, size_t *n)
{
	return opts_flat(rows, base, 0, row, n);
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
static void syn_open(struct syn *s, const struct cmd_opt_row *r)
{
	const struct cmd_opt *o = r->o;
	int d = (r->syn & CMD_SYN_IN) ? 1 : 0;
	bool bracket = !(r->syn & CMD_SYN_REQ) && o->type != CMD_OPT_TEXT;

	if ((r->syn & CMD_SYN_OR) && s->open[d] != SYN_NONE) {
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

static void syn_row(struct syn *s, const struct cmd_opt_row *r)
{
	const struct cmd_opt *o = r->o;

	syn_open(s, r);
	s->first = false;
	if (o->type == CMD_OPT_TEXT) {
		fputs(o->metavar, s->f);
		return;
	}
	if (o->key && ((r->syn & CMD_SYN_SHORT) || !o->name))
		fprintf(s->f, "-%c", o->key);
	else
		fprintf(s->f, "--%s", o->name);
	if (o->metavar)
		fprintf(s->f, " %s", o->metavar);
}

/* The forms @row has (CMD_SYN_FORM()): at least one. */
static int syn_forms(const struct cmd_opt_row *row, size_t n)
{
	int forms = 1;

	for (size_t i = 0; i < n; i++)
		for (int k = 2; k <= CMD_SYN_FORMS_MAX; k++)
			if ((row[i].syn & CMD_SYN_FORM(k)) && k > forms)
				forms = k;
	return forms;
}

static bool syn_shows(const struct cmd_opt_row *r, int form)
{
	unsigned int all = CMD_SYN_FORM(CMD_SYN_FORMS_MAX + 1) - CMD_SYN_FORM(1);

	return !(r->syn & CMD_SYN_HIDE) && (!(r->syn & all) || (r->syn & CMD_SYN_FORM(form)));
}

void cmd_opts_synopsis(FILE *f, const struct cmd_opts *t)
{
	struct cmd_opt_row row[CMD_OPTS_MAX];
	size_t n = 0;
	int forms;

	cmd_opts_flat(t->rows, 0, row, &n);	/* too many: the first ones (parsing says so) */
	forms = syn_forms(row, n);
	for (int form = 1; form <= forms; form++) {
		struct syn s = { .f = f, .first = true };

		fputs(form > 1 ? " | " : "", f);
		for (size_t i = 0; i < n; i++)
			if (syn_shows(&row[i], form))
				syn_row(&s, &row[i]);
		syn_close(&s, 0);
	}
}
