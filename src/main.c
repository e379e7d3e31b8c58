// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl: configure and check the host side of RoCE and InfiniBand
 * fabrics.  main() parses global options, picks the output backend once,
 * dispatches on the subcommand table, and is the only place that exits.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "util/log.h"

#ifndef FAB_VERSION
#define FAB_VERSION "0.1"
#endif

/* help's synopsis: it takes no options. */
static const struct cmd_opt help_rows[] = {
	CMD_TEXT("[COMMAND]", 0),
	{ 0 },
};

static const struct cmd_opts cmd_help_opts = { "help", help_rows };

static const struct fab_cmd fab_cmds[] = {
	{ "status", cmd_status, &cmd_status_opts,
	  "this node's ports: state, width, speed, MTU, GIDs, counters; modules and cables" },
	{ "discover", cmd_discover, &cmd_discover_opts,
	  "fabric topology (IB subnet, LLDP), link health, diff against a cabling plan" },
	{ "sweep", cmd_sweep, &cmd_sweep_opts,
	  "pairwise latency and bandwidth between all nodes, slow pairs and suspects" },
	{ "diagnose", cmd_diagnose, &cmd_diagnose_opts,
	  "name the slow link: re-analyse a saved sweep, or measure around one slow pair" },
	{ "accept", cmd_accept, &cmd_accept_opts,
	  "staged check of new nodes against the running fabric: one verdict, fault codes" },
	{ "report", cmd_report, &cmd_report_opts,
	  "one self-contained HTML page from sweep, discover, diagnose and accept JSON" },
	{ "worker", cmd_worker, &cmd_worker_opts,
	  "node side of --hosts and sweep: JSON lines on stdin/stdout, or dialled back over TCP" },
	{ "apply", cmd_apply, &cmd_apply_opts,
	  "make this node match a profile: MTU, PFC, ETS, DSCP, ECN, RoCE ToS, bond" },
	{ "verify", cmd_verify, &cmd_verify_opts,
	  "check this node (or every node) against a profile, list drift" },
	{ "confirm", cmd_confirm, &cmd_confirm_opts,
	  "keep (or undo now) a pending apply --try" },
	{ "trace", cmd_trace, &cmd_trace_opts,
	  "the path of a flow by its own 5-tuple; with --ports, the ECMP member each source port takes" },
	{ "help", cmd_help, &cmd_help_opts, "show help for a command" },
	{ NULL, NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: fabricctl [OPTIONS] COMMAND [ARGS]\n"
		   "\n"
		   "options:\n"
		   "  -j, --json       JSON output\n"
		   "  -p, --pretty     indent JSON\n"
		   "  -v, --verbose    more diagnostics on stderr (twice for debug)\n"
		   "      --root DIR   read sysfs/configfs under DIR (test fixtures)\n"
		   "  -V, --version    print the version\n"
		   "  -h, --help       this help\n"
		   "\n"
		   "commands:\n");
	for (const struct fab_cmd *c = fab_cmds; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
}

static const struct fab_cmd *cmd_find(const char *name)
{
	/* Exact match only: never by prefix. */
	for (const struct fab_cmd *c = fab_cmds; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* Levenshtein distance of two short words, capped at 9. */
static unsigned int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned int row[33];

	if (la > 32 || lb > 32)
		return 9;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned int)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned int diag = row[0];

		row[0] = (unsigned int)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned int up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb] > 9 ? 9 : row[lb];
}

/* The command a mistyped @name most likely meant, or NULL (never by prefix alone). */
static const char *cmd_suggest(const char *name)
{
	const char *best = NULL;
	unsigned int best_d = 3;	/* at most two edits */

	for (const struct fab_cmd *c = fab_cmds; c->name; c++) {
		unsigned int d = edit_distance(name, c->name);

		if (d < best_d) {
			best_d = d;
			best = c->name;
		}
	}
	return best;
}

static void unknown_command(const char *prefix, const char *name)
{
	const char *s = cmd_suggest(name);

	fprintf(stderr, "%sunknown command '%s'", prefix, name);
	if (s)
		fprintf(stderr, "; did you mean '%s'?", s);
	fprintf(stderr, " (commands: 'fabricctl help')\n");
}

/* help CMD: what it does and its options, as its man page explains them. */
static void cmd_help_options(FILE *f, const char *name)
{
	const struct fab_cmd *c = cmd_find(name);

	fprintf(f, "\n%s\n", c->summary);
	for (const struct fab_cmd_help *h = fab_cmd_help; h->cmd; h++)
		if (strcmp(h->cmd, name) == 0) {
			fprintf(f, "\noptions:\n%s", h->text);
			break;
		}
	if (strcmp(name, "help") == 0)
		fprintf(f, "\nsee fabricctl(8)\n");
	else
		fprintf(f, "\nsee fabricctl-%s(8)\n", name);
}

int cmd_help(struct fab_ctx *ctx, int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return FAB_EXIT_OK;
	}
	if (!cmd_find(argv[1])) {
		unknown_command("fabricctl help: ", argv[1]);
		return FAB_EXIT_USAGE;
	}
	cmd_usage(stdout, fab_cmds, argv[1]);
	cmd_help_options(stdout, argv[1]);
	return FAB_EXIT_OK;
}

/* stdout's reader has gone (a closed pipe): what SIGPIPE would have ended. */
static bool stdout_reader_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return ferror(stdout) && poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "root", required_argument, NULL, 'R' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fab_ctx ctx = { .argv0 = argv[0], .cmds = fab_cmds };
	const struct fab_cmd *cmd;
	static char cmdname[64];
	const char *root = NULL;
	int opt, rc;

	fab_err_init(&ctx.err);
	/* getopt's messages name the tool, not the path it was started by. */
	argv[0] = (char *)"fabricctl";
	/*
	 * Once, for every command: a worker or launcher that goes away must
	 * not kill the controller (nor a worker its controller) half-way;
	 * writes to it fail with EPIPE instead.  Launched children get the
	 * default back (fleet.c).  Output to a reader that has gone still
	 * ends the command as SIGPIPE did, silently (below).
	 */
	signal(SIGPIPE, SIG_IGN);
	/* '+': stop at the first non-option, the subcommand parses the rest. */
	while ((opt = getopt_long(argc, argv, "+jpvVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			ctx.json = true;
			break;
		case 'p':
			ctx.pretty = true;
			break;
		case 'v':
			fab_log_level++;
			break;
		case 'R':
			root = optarg;
			break;
		case 'V':
			printf("fabricctl %s\n", FAB_VERSION);
			return FAB_EXIT_OK;
		case 'h':
			usage(stdout);
			return FAB_EXIT_OK;
		default:
			usage(stderr);
			return FAB_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return FAB_EXIT_USAGE;
	}
	cmd = cmd_find(argv[optind]);
	if (!cmd) {
		unknown_command("fabricctl: ", argv[optind]);
		return FAB_EXIT_USAGE;
	}
	if (sys_real_new(&ctx.sys, root, &ctx.err) < 0) {
		fprintf(stderr, "fabricctl: %s\n", ctx.err.msg);
		return FAB_EXIT_SYSTEM;
	}
	ctx.render.f = stdout;
	ctx.render.pretty = ctx.pretty;
	ctx.render.color = isatty(STDOUT_FILENO);
	render_select(&ctx.render, ctx.json ? "json" : "text");
	argc -= optind;
	argv += optind;
	/* getopt's own messages then read "fabricctl status: unrecognized option". */
	snprintf(cmdname, sizeof(cmdname), "fabricctl %s", cmd->name);
	argv[0] = cmdname;
	optind = 0;	/* reset getopt for the subcommand (glibc: 0 reinitialises) */
	rc = cmd->fn(&ctx, argc, argv);
	if (rc != FAB_EXIT_OK && stdout_reader_gone()) {
		sys_free(ctx.sys);
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	if (ctx.err.code)
		fprintf(stderr, "fabricctl %s: %s\n", cmd->name, ctx.err.msg);
	sys_free(ctx.sys);
	return rc;
}
