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
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "io/load.h"
#include "model/hosts.h"
#include "render/report_html.h"

/* A sweep of 1024 nodes with every figure is ~300 MB of pretty JSON; refuse more than 1 GiB. */
#define REPORT_INPUT_MAX (1024UL * 1024 * 1024)

int cmd_report(struct fab_ctx *ctx, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "hosts", required_argument, NULL, 'H' },
		{ "baseline", required_argument, NULL, 'B' },
		{ "regress-pct", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *output = NULL, *hosts_path = NULL, *base_path = NULL;
	json_t *base = NULL;
	char *end;
	struct fab_hosts hosts;
	struct report rep;
	int opt, rc = FAB_EXIT_OK;

	hosts_init(&hosts);
	report_init(&rep);
	while ((opt = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			output = optarg;
			break;
		case 'H':
			hosts_path = optarg;
			break;
		case 'B':
			base_path = optarg;
			break;
		case 'R':
			rep.regress_pct = strtod(optarg, &end);
			if (end == optarg || *end || !isfinite(rep.regress_pct) || rep.regress_pct <= 0 ||
			    rep.regress_pct > 100)
				return cmd_usage_error(ctx, "report", "--regress-pct %s: want a number "
						       "above 0, at most 100", optarg);
			break;
		default:
			return cmd_opt_other(ctx, "report", opt);
		}
	}
	if (optind >= argc)
		return cmd_usage_error(ctx, "report", "no input document");
	if (!output)
		return cmd_usage_error(ctx, "report", "no output: -o FILE.html (or -o - for stdout)");
	if (hosts_path) {
		if (hosts_load(&hosts, hosts_path, &ctx->err) < 0)
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
	if (base_path) {
		if (!rep.doc[REPORT_SWEEP]) {
			rc = cmd_usage_error(ctx, "report", "--baseline needs a sweep document to compare");
			goto out;
		}
		if (json_doc_load(base_path, REPORT_INPUT_MAX, &base, &ctx->err) < 0 ||
		    report_add_baseline(&rep, base_path, base, &ctx->err) < 0)
			goto fail;
	}
	if (report_html_save(&rep, output, &ctx->err) < 0)
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
