// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What every command spells alike: the usage line, usage errors, -h and
 * unknown options, and numeric option values (one parser and one
 * message).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"

void cmd_usage(FILE *f, const struct fab_cmd *cmds, const char *name)
{
	/* Exact match only: never by prefix. */
	for (const struct fab_cmd *c = cmds; c && c->name; c++)
		if (strcmp(c->name, name) == 0) {
			fprintf(f, "usage: fabricctl %s %s\n", c->name, c->synopsis);
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
