// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdarg.h>
#include <stdio.h>

#include "util/log.h"

int fab_log_level;

void fab_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > fab_log_level)
		return;
	fputs("fabricctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void fab_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("fabricctl: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
