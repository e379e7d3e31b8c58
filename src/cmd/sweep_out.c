// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep's extra outputs beside stdout and --prom: --csv FILE (one row
 * per pair, render/csv.c) and --html FILE (the report page of
 * render/report_html.c, from the sweep's own document).  Each path is
 * checked before the first worker starts (the engine calls back:
 * sweep/sweep.h struct sweep_checks), so a typo costs nothing; each file
 * is written atomically.
 * After the sweep each output (--prom, --csv, --html, then stdout) is
 * attempted whatever became of the others, and what became of each is
 * said (struct sweep_fates).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/sweep_cmd.h"
#include "render/render.h"
#include "render/report_html.h"
#include "util/file.h"
#include "util/log.h"

static int out_check(const char *opt, const char *path, struct fab_err *err)
{
	if (!path)
		return 0;
	if (!strcmp(path, "-"))
		return fab_err_input(err, -EINVAL, "--%s -: stdout carries the sweep's own output; "
				     "give a file", opt);
	return file_check_writable(path, err);
}

int sweep_out_check(void *ctx, struct fab_err *err)
{
	const struct sweep_args *a = ctx;

	if ((a->prom && file_check_writable(a->prom, err) < 0) || out_check("csv", a->csv, err) < 0 ||
	    out_check("html", a->html, err) < 0)
		return -EINVAL;
	return 0;
}

int sweep_out_check_pairs(void *ctx, size_t n_pairs, struct fab_err *err)
{
	const struct sweep_args *a = ctx;

	if (a->html && n_pairs > SWEEP_HTML_MAX_PAIRS)
		return fab_err_input(err, -E2BIG, "sweep: --html %s: %zu pairs; the report page "
				     "holds at most %d (1024 hosts, all pairs): a coverage sweep "
				     "(--coverage K) or -j and --csv FILE", a->html, n_pairs,
				     SWEEP_HTML_MAX_PAIRS);
	return 0;
}

/* "A, B" in @buf: @s appended after a comma (cut short, never overrun). */
static void list_add(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf);

	snprintf(buf + n, size - n, "%s%s", n ? ", " : "", s);
}

void sweep_fates_add(struct sweep_fates *f, const char *what, const char *path, int rc,
		     const char *why)
{
	char item[sizeof(f->failed)];

	f->n++;
	snprintf(item, sizeof(item), "%s%s%s", what, path ? " " : "", path ? path : "");
	if (rc >= 0) {
		list_add(f->written, sizeof(f->written), item);
		return;
	}
	if (!f->n_failed++)
		f->first_rc = rc;
	fab_warn("sweep: %s not written: %s", item, why);
	snprintf(item + strlen(item), sizeof(item) - strlen(item), " (%s)", strerror(-rc));
	list_add(f->failed, sizeof(f->failed), item);
}

int sweep_fates_result(const struct sweep_fates *f, int cause_rc, const char *cause,
		       struct fab_err *err)
{
	const char *written = f->written[0] ? f->written : "nothing";

	if (!cause)
		cause_rc = 0;
	if (!f->n_failed && !cause_rc)
		return 0;
	if (!f->n_failed)
		return fab_err_set(err, cause_rc, "%s; written: %s", cause, written);
	return fab_err_set(err, cause_rc ? cause_rc : f->first_rc,
			   "%s%s%zu of %zu outputs not written: %s; written: %s",
			   cause_rc ? cause : "", cause_rc ? "; " : "", f->n_failed, f->n, f->failed,
			   written);
}

/* --html FILE: the sweep's document through the report renderer (docs/report.md). */
static int html_write(const struct sweep_args *a, const struct sweep_report *r, struct fab_err *err)
{
	json_t *doc = sweep_to_json(r);
	struct report rep;
	int rc;

	if (!doc)
		return fab_err_set(err, -ENOMEM, "sweep: out of memory");
	report_init(&rep);
	rep.hosts = r->hosts;
	rc = report_add(&rep, "sweep", doc, err);
	json_decref(doc);
	if (rc == 0)
		rc = report_html_save(&rep, a->html, err);
	report_fini(&rep);
	return rc;
}

void sweep_out_write(const struct sweep_args *a, const struct sweep_report *r,
		     struct sweep_fates *f)
{
	struct fab_err e;
	int rc;

	if (a->prom) {
		fab_err_init(&e);
		rc = sweep_prom_write(r, a->prom, &e);
		sweep_fates_add(f, "--prom", a->prom, rc, e.msg);
	}
	if (a->csv) {
		fab_err_init(&e);
		rc = sweep_csv_write(r, a->csv, &e);
		sweep_fates_add(f, "--csv", a->csv, rc, e.msg);
	}
	if (a->html) {
		fab_err_init(&e);
		rc = html_write(a, r, &e);
		sweep_fates_add(f, "--html", a->html, rc, e.msg);
	}
}
