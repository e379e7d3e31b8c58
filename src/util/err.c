// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/err.h"

void fab_err_init(struct fab_err *err)
{
	err->code = 0;
	err->kind = FAB_ERR_SYSTEM;
	err->msg[0] = '\0';
}

static int err_vset(struct fab_err *err, enum fab_err_kind kind, int code,
		    const char *fmt, va_list ap)
{
	if (!err)
		return code;
	err->code = code;
	err->kind = kind;
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return code;
}

int fab_err_set(struct fab_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = err_vset(err, FAB_ERR_SYSTEM, code, fmt, ap);
	va_end(ap);
	return code;
}

int fab_err_input(struct fab_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = err_vset(err, FAB_ERR_INPUT, code, fmt, ap);
	va_end(ap);
	return code;
}

void fab_err_prefix(struct fab_err *err, const char *fmt, ...)
{
	char prefix[256], old[sizeof(err->msg)];
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* Bounded precision: a long message is cut, never overrun. */
	snprintf(err->msg, sizeof(err->msg), "%.255s: %.760s", prefix, old);
}

int fab_err_exit(const struct fab_err *err)
{
	if (err->code == 0)
		return FAB_EXIT_OK;
	return err->kind == FAB_ERR_INPUT ? FAB_EXIT_USAGE : FAB_EXIT_SYSTEM;
}
