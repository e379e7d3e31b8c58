// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Views written once for text and JSON (src/render/view.c) and the views
 * written with them: confirm (render/confirm.c) and the error document
 * (render/error.c), byte for byte as cmd/confirm.c and cmd/discover.c
 * wrote them before they went through the renderer table (printf() and
 * json_pack()).  And the table itself: the text and JSON renderers fill
 * every slot, so no command has to ask which renderer it was given.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "render/render.h"
#include "render/view.h"
#include "util/err.h"

/* A render over a memory stream. */
struct mem {
	struct render out;
	char *buf;
	size_t len;
};

static void mem_open(struct mem *m, const struct render_ops *ops)
{
	memset(m, 0, sizeof(*m));
	m->out.ops = ops;
	m->out.f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->out.f);
}

/* What was written (the caller frees it). */
static char *mem_close(struct mem *m)
{
	fclose(m->out.f);
	return m->buf;
}

static char *confirm_out(const struct render_ops *ops, const struct confirm_report *r)
{
	struct mem m;

	mem_open(&m, ops);
	assert_int_equal(ops->confirm(&m.out, r), 0);
	return mem_close(&m);
}

static void test_confirm(void **state)
{
	static const struct {
		struct confirm_report r;
		const char *text, *json;
	} cases[] = {
		{ { CONFIRM_CONFIRMED, 2, "; automatic revert cancelled", NULL },
		  "confirmed 2 change(s); automatic revert cancelled\n",
		  "{\"schema\":\"fabricctl.confirm/1\",\"action\":\"confirmed\",\"changes\":2}\n" },
		{ { CONFIRM_REVERTED, 1, "", NULL },
		  "reverted 1 change(s)\n",
		  "{\"schema\":\"fabricctl.confirm/1\",\"action\":\"reverted\",\"changes\":1}\n" },
		{ { CONFIRM_REVERTED, 3, " of an interrupted apply", NULL },
		  "reverted 3 change(s) of an interrupted apply\n",
		  "{\"schema\":\"fabricctl.confirm/1\",\"action\":\"reverted\",\"changes\":3}\n" },
		/* Nothing pending: the error on stderr says it in text; JSON has last_revert. */
		{ { CONFIRM_NONE, 0, "", NULL }, "",
		  "{\"schema\":\"fabricctl.confirm/1\",\"action\":\"none\",\"changes\":0,"
		  "\"last_revert\":null}\n" },
		{ { CONFIRM_NONE, 0, "", "reverted 1 step(s) at deadline X: ok" }, "",
		  "{\"schema\":\"fabricctl.confirm/1\",\"action\":\"none\",\"changes\":0,"
		  "\"last_revert\":\"reverted 1 step(s) at deadline X: ok\"}\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text = confirm_out(&render_text_ops, &cases[i].r);
		char *json = confirm_out(&render_json_ops, &cases[i].r);

		assert_string_equal(text, cases[i].text);
		assert_string_equal(json, cases[i].json);
		free(text);
		free(json);
	}
}

static void test_error(void **state)
{
	struct fab_err err;
	struct mem m;
	char *s;

	fab_err_init(&err);
	fab_err_input(&err, -EINVAL, "plan.yaml:3:5: unknown key");
	mem_open(&m, &render_json_ops);
	assert_int_equal(render_json_ops.error(&m.out, "discover", &err), 0);
	s = mem_close(&m);
	assert_string_equal(s, "{\"schema\":\"fabricctl.error/1\",\"command\":\"discover\","
			    "\"error\":\"plan.yaml:3:5: unknown key\",\"kind\":\"input\","
			    "\"exit\":2}\n");
	free(s);
	/* Text: nothing on stdout (main() prints the message on stderr). */
	mem_open(&m, &render_text_ops);
	assert_int_equal(render_text_ops.error(&m.out, "discover", &err), 0);
	s = mem_close(&m);
	assert_string_equal(s, "");
	free(s);
}

/* One view, nested and with foreign text, against json_pack() of the same members. */
static int nested_view(struct render *out, const char *name)
{
	struct view v;

	view_begin(&v, out, "fabricctl.test/1");
	view_any(&v, "name", json_text(name), "name %s", view_txt(&v, name));
	view_obj(&v, "port");
	view_any(&v, "mtu", json_integer(9000), " mtu %d", 9000);
	view_json(&v, "speed", json_null());
	view_close(&v);
	view_arr(&v, "gids");
	view_any(&v, NULL, json_string("fe80::1"), " gid %s", "fe80::1");
	view_any(&v, NULL, json_string("::ffff:10.0.0.1"), " gid %s", "::ffff:10.0.0.1");
	view_close(&v);
	view_json(&v, "ok", json_true());
	view_text(&v, "\n");
	return view_end(&v);
}

static void test_view_nested(void **state)
{
	json_t *want = json_pack("{s:s, s:s, s:{s:i, s:n}, s:[s, s], s:b}",
				 "schema", "fabricctl.test/1", "name", "e\x1b[2J",
				 "port", "mtu", 9000, "speed", "gids", "fe80::1",
				 "::ffff:10.0.0.1", "ok", 1);
	char *wants = json_dumps(want, JSON_PRESERVE_ORDER | JSON_COMPACT), *s;
	struct mem m;

	mem_open(&m, &render_json_ops);
	assert_int_equal(nested_view(&m.out, "e\x1b[2J"), 0);
	s = mem_close(&m);
	assert_int_equal(strlen(s), strlen(wants) + 1);
	assert_memory_equal(s, wants, strlen(wants));
	free(s);
	/* Pretty, as render_json_emit() indents every document. */
	mem_open(&m, &render_json_ops);
	m.out.pretty = true;
	assert_int_equal(nested_view(&m.out, "e\x1b[2J"), 0);
	s = mem_close(&m);
	free(wants);
	wants = json_dumps(want, JSON_PRESERVE_ORDER | JSON_INDENT(2));
	assert_memory_equal(s, wants, strlen(wants));
	free(s);
	free(wants);
	json_decref(want);
	/* Text: the formats in order, the control character shown, not written. */
	mem_open(&m, &render_text_ops);
	assert_int_equal(nested_view(&m.out, "e\x1b[2J"), 0);
	s = mem_close(&m);
	assert_string_equal(s, "name e\\x1b[2J mtu 9000 gid fe80::1 gid ::ffff:10.0.0.1\n");
	free(s);
}

/* A renderer that writes neither (DOT, CSV, ...): refused, nothing written. */
static void test_view_other(void **state)
{
	static const struct render_ops other = { .name = "other", .kind = RENDER_OTHER };
	struct mem m;
	char *s;

	mem_open(&m, &other);
	assert_int_equal(nested_view(&m.out, "x"), -EOPNOTSUPP);
	s = mem_close(&m);
	assert_string_equal(s, "");
	free(s);
}

/* A value jansson refuses (not UTF-8): no document at all, rather than one without the member. */
static void test_view_bad_value(void **state)
{
	struct view v;
	struct mem m;
	char *s;

	mem_open(&m, &render_json_ops);
	view_begin(&v, &m.out, "fabricctl.test/1");
	view_any(&v, "name", json_string("\xff"), "%s", "x");
	view_any(&v, "mtu", json_integer(1), " %d", 1);
	assert_int_equal(view_end(&v), -ENOMEM);
	s = mem_close(&m);
	assert_string_equal(s, "");
	free(s);
}

/* Deeper than VIEW_DEPTH: refused, no document. */
static void test_view_depth(void **state)
{
	struct view v;
	struct mem m;
	char *s;

	mem_open(&m, &render_json_ops);
	view_begin(&v, &m.out, NULL);
	for (int i = 0; i < VIEW_DEPTH + 1; i++)
		view_arr(&v, i ? NULL : "a");
	assert_int_equal(view_end(&v), -E2BIG);
	s = mem_close(&m);
	assert_string_equal(s, "");
	free(s);
}

/* Every slot of the text and JSON tables is filled: no command prints around the table. */
static void test_table_full(void **state)
{
	static const struct render_ops *const ops[] = { &render_text_ops, &render_json_ops };

	for (size_t i = 0; i < 2; i++) {
		const struct render_ops *o = ops[i];

		assert_int_equal(o->kind, i ? RENDER_JSON : RENDER_TEXT);
		assert_non_null(o->status);
		assert_non_null(o->discover);
		assert_non_null(o->sweep);
		assert_non_null(o->status_fleet);
		assert_non_null(o->apply);
		assert_non_null(o->verify);
		assert_non_null(o->verify_fleet);
		assert_non_null(o->apply_fleet);
		assert_non_null(o->confirm);
		assert_non_null(o->error);
		assert_non_null(o->accept);
		assert_non_null(o->diagnose);
	}
	/* Written once: the same function behind both. */
	assert_ptr_equal(render_text_ops.confirm, render_json_ops.confirm);
	assert_ptr_equal(render_text_ops.error, render_json_ops.error);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_confirm),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_view_nested),
		cmocka_unit_test(test_view_other),
		cmocka_unit_test(test_view_bad_value),
		cmocka_unit_test(test_view_depth),
		cmocka_unit_test(test_table_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
