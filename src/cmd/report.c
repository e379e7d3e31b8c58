// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl report IN.json... -o FILE.html [--hosts FILE]
 * [--baseline OLD.json [--regress-pct P]]: one
 * self-contained HTML page from sweep, discover, diagnose and accept
 * documents (docs/report.md).  Front-end only: read the files, hand them
 * to render/report_html.c.
 */
#include <errno.h>
#include <getopt.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "io/load.h"
#include "model/hosts.h"
#include "render/report_html.h"

/* A sweep of 1024 nodes with every figure is ~300 MB of pretty JSON; refuse more than 1 GiB. */
#define REPORT_INPUT_MAX (1024UL * 1024 * 1024)

struct report_args {
	const char *output, *hosts, *baseline;
	double regress_pct;		/* -1: not given */
};

/* --regress-pct: as sweep's, a fall of more than P percent, P from 0 to 100. */
static const struct cmd_opt report_rows[] = {
	CMD_TEXT("IN.json [IN.json...]", 0),
	CMD_STRING("output", 'o', "FILE.html", struct report_args, output,
		   CMD_SYN_SHORT | CMD_SYN_REQ),
	CMD_STRING("hosts", 0, "FILE", struct report_args, hosts, 0),
	CMD_STRING("baseline", 0, "OLD.json", struct report_args, baseline, 0),
	CMD_NUMBER("regress-pct", 0, "P", struct report_args, regress_pct, 0, 100, CMD_SYN_IN),
	{ 0 },
};

const struct cmd_opts cmd_report_opts = { "report", report_rows };

int cmd_report(struct fab_ctx *ctx, int argc, char **argv)
{
	struct report_args a = { .regress_pct = -1 };
	json_t *base = NULL;
	struct fab_hosts hosts;
	struct report rep;
	int rc = cmd_opts_parse(ctx, &cmd_report_opts, argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (optind >= argc)
		return cmd_usage_error(ctx, "report", "no input document");
	if (!a.output)
		return cmd_usage_error(ctx, "report",
				       "no output: -o FILE.html (or -o - for stdout)");
	hosts_init(&hosts);
	report_init(&rep);
	rep.regress_pct = a.regress_pct;
	if (a.hosts) {
		if (hosts_load(&hosts, a.hosts, &ctx->err) < 0)
			goto fail;
		rep.hosts = &hosts;
	}
	for (int i = optind; i < argc; i++) {
		json_t *doc = NULL;

		if (json_doc_load(argv[i], REPORT_INPUT_MAX, &doc, &ctx->err) < 0)
			goto fail;
		rc = report_add(&rep, argv[i], doc, &ctx->err);
		json_decref(doc);
		if (rc < 0)
			goto fail;
	}
	if (a.baseline) {
		if (!rep.doc[REPORT_SWEEP]) {
			rc = cmd_usage_error(ctx, "report", "--baseline needs a sweep document to compare");
			goto out;
		}
		if (json_doc_load(a.baseline, REPORT_INPUT_MAX, &base, &ctx->err) < 0 ||
		    report_add_baseline(&rep, a.baseline, base, &ctx->err) < 0)
			goto fail;
	}
	if (report_html_save(&rep, a.output, &ctx->err) < 0)
		goto fail;
	rc = FAB_EXIT_OK;
	goto out;
fail:
	rc = fab_err_exit(&ctx->err);
out:
	json_decref(base);
	report_fini(&rep);
	hosts_fini(&hosts);
	return rc;
}
