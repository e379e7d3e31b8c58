// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd/cmd_opt.c: one table drives getopt_long(), the typed values and
 * the synopsis.  Flags (on and off), strings, numbers and whole numbers in
 * their ranges (the usage error's exact words), callbacks, groups counted
 * from their own struct, an unknown option, a missing argument, -h; and
 * the synopsis: brackets, short names, nesting, alternatives, forms; and
 * every command's table whole (no option twice, each row complete).
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"

/*
 * What cmd_opt.c's usage helpers said (they write to stderr and stdout):
 * the usage error's message without "fabricctl ", and which option the
 * default case saw ('h': usage on stdout; '?': usage on stderr, no message).
 */
static char usage_msg[512];
static int other_opt;

struct inner {
	int pad;
	const char *where;
};

struct args {
	bool flag, counters;
	const char *str;
	double num;
	unsigned int whole;
	struct inner in;
	int calls;
	const char *call_arg;
};

static int take_call(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	struct args *a = args;

	if (strcmp(arg, "bad") == 0) {
		cmd_usage_error(ctx, cmd, "--call: no '%s'", arg);
		return -EINVAL;
	}
	a->calls++;
	a->call_arg = arg;
	return 0;
}

static const struct cmd_opt inner_rows[] = {
	CMD_STRING("where", 'w', "PLACE", struct inner, where, 0),
	{ 0 },
};

static const struct cmd_opt rows[] = {
	CMD_JSON,
	CMD_FLAG("flag", 'f', struct args, flag, 0),
	CMD_FLAG("no-counters", 0, struct args, counters, CMD_OPT_OFF),
	CMD_STRING("str", 's', "S", struct args, str, 0),
	CMD_NUMBER("num", 0, "X", struct args, num, -1.5, 2.5, 0),
	CMD_WHOLE("whole", 0, "N", struct args, whole, 1, 10, 0),
	CMD_CALL("call", 0, "V", take_call, 0),
	CMD_GROUP(struct args, in, inner_rows),
	CMD_TEXT("FILE", 0),
	{ 0 },
};

static const struct cmd_opts table = { "t", rows };

static const struct fab_cmd test_cmds[] = {
	{ "t", NULL, &table, "a test command" },
	{ NULL, NULL, NULL, NULL },
};

/* Read what was written to @fd (a temporary file) since offset 0 into @buf. */
static void slurp(int fd, char *buf, size_t len)
{
	ssize_t n = pread(fd, buf, len - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
}

/* cmd_opts_parse() with stdout and stderr caught: fills usage_msg and other_opt. */
static int captured(struct fab_ctx *ctx, int argc, char **argv, struct args *a)
{
	char out[1024], err[1024], *nl;
	int o = dup(1), e = dup(2), fo = fileno(tmpfile()), fe = fileno(tmpfile()), rc;

	fflush(stdout);
	fflush(stderr);
	dup2(fo, 1);
	dup2(fe, 2);
	rc = cmd_opts_parse(ctx, &table, argc, argv, a);
	fflush(stdout);
	fflush(stderr);
	dup2(o, 1);
	dup2(e, 2);
	close(o);
	close(e);
	slurp(fo, out, sizeof(out));
	slurp(fe, err, sizeof(err));
	if (strncmp(err, "fabricctl t: ", 13) == 0) {
		snprintf(usage_msg, sizeof(usage_msg), "%.500s", err + strlen("fabricctl "));
		if ((nl = strchr(usage_msg, '\n')))
			*nl = '\0';
	} else if (strncmp(err, "usage: fabricctl t", 18) == 0) {
		other_opt = '?';
	}
	if (strncmp(out, "usage: fabricctl t", 18) == 0)
		other_opt = 'h';
	return rc;
}

/* Parse the words of @line (space-separated, at most 15) into @a; the exit code or -1. */
static int parse(struct fab_ctx *ctx, struct args *a, const char *line)
{
	static char buf[512];
	char *argv[16] = { (char *)"fabricctl t" };
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *w = strtok(buf, " "); w && argc < 15; w = strtok(NULL, " "))
		argv[argc++] = w;
	usage_msg[0] = '\0';
	other_opt = 0;
	optind = 0;
	opterr = 0;	/* getopt's own message is glibc's: not ours to check */
	ctx->cmds = test_cmds;
	return captured(ctx, argc, argv, a);
}

static void test_values(void **state)
{
	struct fab_ctx ctx = { .json = false };
	struct args a = { .counters = true, .whole = 7 };

	assert_int_equal(parse(&ctx, &a, "-f --no-counters -s x --num -1.5 --whole 10 file"), -1);
	assert_true(a.flag);
	assert_false(a.counters);
	assert_string_equal(a.str, "x");
	assert_true(a.num == -1.5);
	assert_int_equal(a.whole, 10);
	assert_int_equal(optind, 5 + 4);	/* "file", after the options */
	assert_string_equal(usage_msg, "");
	/* Defaults stay where an option is not given; the last of two wins. */
	a = (struct args){ .counters = true, .whole = 7 };
	assert_int_equal(parse(&ctx, &a, "--str a --str=b"), -1);
	assert_false(a.flag);
	assert_true(a.counters);
	assert_int_equal(a.whole, 7);
	assert_string_equal(a.str, "b");
}

static void test_ranges(void **state)
{
	struct fab_ctx ctx = { .json = false };
	struct args a = { .num = 0 };

	assert_int_equal(parse(&ctx, &a, "--num 2.5"), -1);
	assert_true(a.num == 2.5);
	assert_int_equal(parse(&ctx, &a, "--num 2.6"), FAB_EXIT_USAGE);
	assert_string_equal(usage_msg, "t: --num 2.6: want a number from -1.5 to 2.5");
	assert_true(a.num == 2.5);	/* untouched by a refused value */
	assert_int_equal(parse(&ctx, &a, "--num abc"), FAB_EXIT_USAGE);
	assert_string_equal(usage_msg, "t: --num abc: want a number from -1.5 to 2.5");
	assert_int_equal(parse(&ctx, &a, "--num nan"), FAB_EXIT_USAGE);
	assert_int_equal(parse(&ctx, &a, "--num 1x"), FAB_EXIT_USAGE);
	assert_int_equal(parse(&ctx, &a, "--whole 0"), FAB_EXIT_USAGE);
	assert_string_equal(usage_msg, "t: --whole 0: want a number from 1 to 10");
	assert_int_equal(parse(&ctx, &a, "--whole 11"), FAB_EXIT_USAGE);
	assert_string_equal(usage_msg, "t: --whole 11: want a number from 1 to 10");
	assert_int_equal(parse(&ctx, &a, "--whole -1"), FAB_EXIT_USAGE);
	assert_string_equal(usage_msg, "t: --whole -1: want a number from 1 to 10");
}

static void test_whole_numbers(void **state)
{
	struct fab_ctx ctx = { .json = false };
	struct args a = { .whole = 0 };

	assert_int_equal(parse(&ctx, &a, "--whole 1"), -1);
	assert_int_equal(a.whole, 1);
	assert_int_equal(parse(&ctx, &a, "--whole 3.5"), FAB_EXIT_USAGE);
	assert_string_equal(usage_msg, "t: --whole 3.5: want a whole number");
	assert_int_equal(a.whole, 1);
	assert_int_equal(parse(&ctx, &a, "--whole 4.0"), -1);
	assert_int_equal(a.whole, 4);
}

static void test_call_group_json(void **state)
{
	struct fab_ctx ctx = { .json = false };
	struct args a = { .calls = 0 };

	assert_int_equal(parse(&ctx, &a, "--call one --call two -w here"), -1);
	assert_int_equal(a.calls, 2);
	assert_string_equal(a.call_arg, "two");
	assert_string_equal(a.in.where, "here");	/* counted from the group's struct */
	assert_int_equal(parse(&ctx, &a, "--where=there --call bad"), FAB_EXIT_USAGE);
	assert_string_equal(usage_msg, "t: --call: no 'bad'");
	assert_string_equal(a.in.where, "there");
	assert_null(ctx.render.ops);
	assert_int_equal(parse(&ctx, &a, "-j"), -1);
	assert_ptr_equal(ctx.render.ops, &render_json_ops);
}

static void test_unknown_missing_help(void **state)
{
	struct fab_ctx ctx = { .json = false };
	struct args a = { .flag = false };

	assert_int_equal(parse(&ctx, &a, "--bogus"), FAB_EXIT_USAGE);
	assert_int_equal(other_opt, '?');
	assert_int_equal(parse(&ctx, &a, "-Z"), FAB_EXIT_USAGE);
	assert_int_equal(other_opt, '?');
	assert_int_equal(parse(&ctx, &a, "--str"), FAB_EXIT_USAGE);	/* missing argument */
	assert_int_equal(other_opt, '?');
	assert_int_equal(parse(&ctx, &a, "-s"), FAB_EXIT_USAGE);
	assert_int_equal(other_opt, '?');
	/* A flag takes no argument. */
	assert_int_equal(parse(&ctx, &a, "--flag=yes"), FAB_EXIT_USAGE);
	assert_int_equal(other_opt, '?');
	assert_int_equal(parse(&ctx, &a, "-h"), FAB_EXIT_OK);
	assert_int_equal(other_opt, 'h');
	assert_int_equal(parse(&ctx, &a, "--help"), FAB_EXIT_OK);
	assert_int_equal(other_opt, 'h');
	/* Prefixes as getopt_long() takes them: unique ones only. */
	assert_int_equal(parse(&ctx, &a, "--fl"), -1);
	assert_true(a.flag);
}

static void synopsis_is(const struct cmd_opt *r, const char *want)
{
	struct cmd_opts t = { "t", r };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	cmd_opts_synopsis(f, &t);
	fclose(f);
	assert_string_equal(buf, want);
	free(buf);
}

static void test_synopsis(void **state)
{
	/* Brackets, short names, a hidden row, a group, nesting and an operand. */
	synopsis_is(rows, "[-j] [--flag] [--no-counters] [--str S] [--num X] [--whole N] "
		    "[--call V] [--where PLACE] FILE");
	static const struct cmd_opt nested[] = {
		CMD_TEXT("IN [IN...]", 0),
		CMD_STRING("out", 'o', "FILE", struct args, str, CMD_SYN_SHORT | CMD_SYN_REQ),
		CMD_STRING("hidden", 0, "X", struct args, str, CMD_SYN_HIDE),
		CMD_STRING("base", 0, "OLD", struct args, str, 0),
		CMD_NUMBER("pct", 0, "P", struct args, num, 0, 100, CMD_SYN_IN),
		CMD_FLAG("last", 0, struct args, flag, 0),
		{ 0 },
	};
	synopsis_is(nested, "IN [IN...] -o FILE [--base OLD [--pct P]] [--last]");
	/* Alternatives in one bracket, the second with its own nested options. */
	static const struct cmd_opt alt[] = {
		CMD_FLAG("dry", 'n', struct args, flag, 0),
		CMD_WHOLE("try", 't', "S", struct args, whole, 1, 9, 0),
		CMD_STRING("hosts", 0, "FILE", struct args, str, CMD_SYN_OR),
		CMD_STRING("launcher", 0, "L", struct args, str, CMD_SYN_IN),
		CMD_WHOLE("timeout", 0, "S", struct args, whole, 1, 9, CMD_SYN_IN),
		CMD_FLAG("serial", 0, struct args, flag, 0),
		CMD_FLAG("new", 0, struct args, flag, CMD_SYN_OR),
		CMD_FLAG("all", 0, struct args, flag, CMD_SYN_OR),
		CMD_TEXT("PROFILE", 0),
		{ 0 },
	};
	synopsis_is(alt, "[--dry] [--try S | --hosts FILE [--launcher L] [--timeout S]] "
		    "[--serial | --new | --all] PROFILE");
	/* Two forms: rows of every form, of one, operands in the middle. */
	static const struct cmd_opt forms[] = {
		CMD_JSON,
		CMD_TEXT("[DEV...]", CMD_SYN_FORM(1)),
		CMD_STRING("hosts", 0, "FILE", struct args, str, CMD_SYN_REQ | CMD_SYN_FORM(2)),
		CMD_STRING("launcher", 0, "L", struct args, str, CMD_SYN_IN | CMD_SYN_FORM(2)),
		{ 0 },
	};
	synopsis_is(forms, "[-j] [DEV...] | [-j] --hosts FILE [--launcher L]");
	static const struct cmd_opt none[] = { { 0 } };
	synopsis_is(none, "");
	/* A group's .syn is OR-ed into its rows: hidden wholesale, or all in one form. */
	static const struct cmd_opt inner[] = {
		CMD_FLAG("flag", 0, struct args, flag, 0),
		CMD_STRING("str", 0, "S", struct args, str, CMD_SYN_IN),
		{ 0 },
	};
	static const struct cmd_opt grouped[] = {
		CMD_JSON,
		{ CMD_OPT_GROUP, NULL, 0, NULL, 0, 0, 0, CMD_SYN_HIDE, NULL, inner },
		CMD_TEXT("A", CMD_SYN_FORM(1)),
		{ CMD_OPT_GROUP, NULL, 0, NULL, 0, 0, 0, CMD_SYN_FORM(2), NULL, inner },
		{ 0 },
	};
	synopsis_is(grouped, "[-j] A | [-j] [--flag [--str S]]");
}

/* Every command's table: names and short names unique, each row whole for its type. */
static void test_command_tables(void **state)
{
	const struct cmd_opts *tables[] = { &cmd_status_opts, &cmd_discover_opts, &cmd_report_opts,
					    &cmd_worker_opts, &cmd_apply_opts, &cmd_verify_opts,
					    &cmd_confirm_opts, &cmd_sweep_opts, &cmd_diagnose_opts,
					    &cmd_accept_opts, &cmd_trace_opts };

	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++) {
		struct cmd_opt_row row[CMD_OPTS_MAX];
		size_t n = 0;

		assert_int_equal(cmd_opts_flat(tables[t]->rows, 0, row, &n), 0);
		for (size_t i = 0; i < n; i++) {
			const struct cmd_opt *o = row[i].o;

			if (o->type == CMD_OPT_TEXT) {
				assert_null(o->name);
				assert_non_null(o->metavar);
				continue;
			}
			assert_non_null(o->name);
			assert_true(o->key != 'h');
			assert_true((o->type == CMD_OPT_FLAG) == (o->metavar == NULL) ||
				    o->type == CMD_OPT_CALL);
			assert_true(o->type != CMD_OPT_CALL || o->call);
			assert_true(o->min <= o->max);
			for (size_t j = 0; j < i; j++) {
				if (row[j].o->type == CMD_OPT_TEXT)
					continue;
				if (strcmp(row[j].o->name, o->name) == 0 ||
				    (o->key && row[j].o->key == o->key))
					fail_msg("%s: --%s twice", tables[t]->cmd, o->name);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_whole_numbers),
		cmocka_unit_test(test_call_group_json),
		cmocka_unit_test(test_unknown_missing_help),
		cmocka_unit_test(test_synopsis),
		cmocka_unit_test(test_command_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
