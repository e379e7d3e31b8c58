// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep's extra outputs beside stdout and --prom: --csv FILE (one row
 * per pair, render/csv.c).  Each path is checked before the first worker
 * starts, so a typo costs nothing; each file is written atomically.
 */
#include <errno.h>

#include "cmd/sweep_cmd.h"
#include "render/render.h"
#include "util/file.h"

int sweep_out_check(const struct sweep_args *a, struct fab_err *err)
{
	if (a->csv && file_check_writable(a->csv, err) < 0)
		return -EINVAL;
	return 0;
}

int sweep_out_write(const struct sweep_args *a, const struct sweep_report *r, struct fab_err *err)
{
	if (a->csv && sweep_csv_write(r, a->csv, err) < 0)
		return -EIO;
	return 0;
}
