// SPDX-License-Identifier: GPL-2.0-or-later
/* Numeric option values, one parser and one message for every command. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "cmd/cmd.h"

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
