// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover -j writes its document straight into a buffer, without a json_t
 * (render/discover_json.c).  Its bytes must equal the whole document built
 * by discover_to_json() and written by render_json_emit() (jansson's own
 * dumper), compact and indented, for every shape: empty lists, one item,
 * strings that need escaping, text that is not UTF-8 (every way jansson
 * refuses it), named (LLDP) ports, problems with and without an expected
 * end, counters past INT64_MAX, and documents larger than the renderer's
 * 64 KiB buffer.
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

#include "model/ib_checks.h"
#include "model/ib_vl.h"
#include "model/topo.h"
#include "render/render.h"

/* The document, streamed (discover_json) or whole (the reference), as a string. */
static char *render(bool stream, const struct topo *t, bool pretty, int *rc)
{
	struct render out = { .ops = &render_json_ops, .pretty = pretty };
	char *buf = NULL;
	size_t len = 0;

	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	*rc = stream ? render_json_ops.discover(&out, t) : render_json_emit(&out, discover_to_json(t));
	fclose(out.f);
	return buf;
}

static void assert_same_bytes(const struct topo *t)
{
	for (int pretty = 0; pretty <= 1; pretty++) {
		int rc_want, rc_got;
		char *want = render(false, t, pretty, &rc_want);
		char *got = render(true, t, pretty, &rc_got);

		assert_int_equal(rc_want, 0);
		assert_int_equal(rc_got, 0);
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
}

static struct topo_port *ib_port(struct topo_node *n, unsigned int num, unsigned int facts)
{
	struct topo_port *p = topo_port_get(n, num, NULL);

	assert_non_null(p);
	p->guid = n->guid + num;
	p->lid = (unsigned int)(n->guid & 0xffff);
	p->facts = facts;
	p->state = TOPO_PORT_ACTIVE;
	p->phys_state = TOPO_PHYS_LINKUP;
	p->width_x = 4;
	p->width_max_x = 4;
	p->lane_mbps = 25781;
	p->lane_max_mbps = 25781;
	p->mtu = 4096;
	for (int c = 0; c < TOPO_CNT_MAX; c++)
		p->counters[c] = (uint64_t)c * 1000003u + num;
	return p;
}

static void test_empty(void **state)
{
	struct topo *t = topo_new();
	int rc;
	char *s;

	assert_same_bytes(t);
	s = render(true, t, false, &rc);
	assert_string_equal(s, "{\"schema\":\"fabricctl.discover/1\",\"sources\":[],\"summary\":"
			       "{\"nodes\":0,\"switches\":0,\"cas\":0,\"hosts\":0,\"links\":0,"
			       "\"problems\":0},\"nodes\":[],\"links\":[],\"problems\":[]}\n");
	free(s);
	topo_free(t);
}

/* One of each: a switch, a CA, an LLDP host with named ports, odd strings, problems. */
static void test_shapes(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *sw = topo_node_add(t, TOPO_NODE_SWITCH, "sw \"core\" \\ 1", 0x10);
	struct topo_node *ca = topo_node_add(t, TOPO_NODE_CA, "hca\t1 caf\xc3\xa9", 0x20);
	struct topo_node *h1 = topo_node_add(t, TOPO_NODE_HOST, "host-a", 0);
	struct topo_node *h2 = topo_node_add(t, TOPO_NODE_HOST, "", 0);
	struct topo_problem pr = { .kind = TOPO_PROB_MISWIRED, .has_a = true, .has_expected = true };
	struct topo_port *a, *b;

	t->src = TOPO_SRC_SMP | TOPO_SRC_LLDP | TOPO_SRC_PLAN;
	sw->src = TOPO_SRC_SMP;
	sw->n_ports_max = 36;
	ca->src = TOPO_SRC_SMP | TOPO_SRC_PLAN;
	h1->src = TOPO_SRC_LLDP;
	snprintf(h1->chassis_id, sizeof(h1->chassis_id), "52:54:00:12:34:56");
	a = ib_port(sw, 1, TOPO_F_STATE | TOPO_F_WIDTH | TOPO_F_SPEED | TOPO_F_MTU | TOPO_F_LID |
			   TOPO_F_COUNTERS);
	b = ib_port(ca, 1, TOPO_F_STATE | TOPO_F_LID);
	assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_SMP), 0);
	ib_port(sw, 2, 0);		/* unlinked */
	a = topo_port_get(h1, 0, "eth0");
	b = topo_port_get(h2, 0, "swp1\n");
	a->facts = TOPO_F_MTU;
	a->mtu = 9000;
	assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_LLDP | TOPO_SRC_PLAN), 0);
	t->links[1]->status = TOPO_LINK_DEGRADED;
	topo_end_from_port(&pr.a, topo_port_find(sw, 2, NULL));
	snprintf(pr.expected.node, sizeof(pr.expected.node), "hca \"9\"");
	pr.expected.port = 1;
	snprintf(pr.detail, sizeof(pr.detail), "no cable to 'hca9'[1]\x01");
	assert_int_equal(topo_problem_add(t, &pr), 0);
	memset(&pr, 0, sizeof(pr));
	pr.kind = TOPO_PROB_ERRORS;
	pr.has_a = pr.has_b = true;
	topo_end_from_port(&pr.a, a);
	topo_end_from_port(&pr.b, b);
	assert_int_equal(topo_problem_add(t, &pr), 0);
	assert_same_bytes(t);
	topo_free(t);
}

/*
 * A node whose name is not UTF-8 (a NodeDescription is raw bytes off the
 * wire) is kept, with its non-ASCII bytes shown as '?': dropping it would
 * make the document disagree with its own summary.
 */
static void test_item_not_utf8(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *n1 = topo_node_add(t, TOPO_NODE_CA, "ok-1", 1);
	struct topo_node *bad = topo_node_add(t, TOPO_NODE_CA, "bad\xff", 2);
	struct topo_node *n3 = topo_node_add(t, TOPO_NODE_CA, "ok-3", 3);
	int rc;
	char *s;

	assert_int_equal(topo_link_add(t, ib_port(n1, 1, TOPO_F_LID), ib_port(bad, 1, TOPO_F_LID), 1), 0);
	assert_int_equal(topo_link_add(t, ib_port(n3, 1, TOPO_F_LID), ib_port(n1, 2, TOPO_F_LID), 1), 0);
	assert_same_bytes(t);
	s = render(true, t, false, &rc);
	assert_non_null(strstr(s, "{\"name\":\"bad?\""));
	assert_non_null(strstr(s, "\"node\":\"bad?\""));
	assert_non_null(strstr(s, "\"nodes\":[{\"name\":\"ok-1\""));
	assert_non_null(strstr(s, "},{\"name\":\"ok-3\""));
	free(s);
	topo_free(t);
}

/* 100 switches in a ring, 16 CAs each: some 2 MB of JSON, many buffer flushes. */
static void test_large(void **state)
{
	enum { N_SW = 100, N_CA = 16 };
	struct topo *t = topo_new();
	struct topo_node *sw[N_SW];
	struct topo_thresholds th;
	char name[64];
	int rc;
	char *s;

	t->src = TOPO_SRC_SMP;
	for (int i = 0; i < N_SW; i++) {
		snprintf(name, sizeof(name), "spine-%03d", i);
		sw[i] = topo_node_add(t, TOPO_NODE_SWITCH, name, 0x1000 + (uint64_t)i);
		sw[i]->n_ports_max = 18;
		sw[i]->src = TOPO_SRC_SMP;
	}
	for (int i = 0; i < N_SW; i++) {
		assert_int_equal(topo_link_add(t, ib_port(sw[i], 1, TOPO_F_STATE | TOPO_F_WIDTH),
					       ib_port(sw[(i + 1) % N_SW], 2, TOPO_F_STATE | TOPO_F_WIDTH),
					       TOPO_SRC_SMP), 0);
		for (int j = 0; j < N_CA; j++) {
			struct topo_node *ca;

			snprintf(name, sizeof(name), "node%03d-%02d mlx5_0", i, j);
			ca = topo_node_add(t, TOPO_NODE_CA, name, 0x100000 + (uint64_t)(i * N_CA + j));
			ca->n_ports_max = 1;
			assert_int_equal(topo_link_add(t, ib_port(sw[i], 3 + (unsigned int)j, 0x2f),
						       ib_port(ca, 1, 0x2f), TOPO_SRC_SMP), 0);
		}
	}
	sw[7]->ports[0]->width_x = 1;		/* a degraded link: one problem */
	topo_thresholds_default(&th);
	assert_int_equal(topo_health_check(t, &th), 0);
	topo_sort(t);
	assert_int_equal(t->n_problems, 1);
	assert_same_bytes(t);
	s = render(true, t, false, &rc);
	assert_true(strlen(s) > 1000000);
	assert_non_null(strstr(s, "\"links\":1700,\"problems\":1},"));
	free(s);
	topo_free(t);
}

/*
 * Strings as jansson writes them: each control character (its short
 * escape or \u00XX), '"', '\\', DEL and '/' as they are; valid UTF-8 of
 * 2, 3 and 4 bytes as it is; and with any invalid sequence (a stray
 * continuation byte, C0/C1 and F5+ leads, an overlong form, a surrogate,
 * past U+10FFFF, cut short) every byte >= 0x80 as '?'.
 */
static void test_strings(void **state)
{
	static const char *const names[] = {
		"\x01\x02\x08\x09\x0a\x0b\x0c\x0d\x1f \"q\" \\ / \x7f end",
		"2: caf\xc3\xa9 3: \xe2\x82\xac 4: \xf0\x9f\x98\x80",
		"stray \x80", "c0 \xc0\xaf", "c1 \xc1\xbf", "f5 \xf5\x80\x80\x80",
		"overlong \xe0\x80\xaf", "surrogate \xed\xa0\x80", "too big \xf4\x90\x80\x80",
		"cut \xe2\x82", "cut at the end \xf0\x9f\x98", "\xc3\xa9 then \xff",
		"", "x",
	};
	static const char *const want[] = {
		"\"name\":\"\\u0001\\u0002\\b\\t\\n\\u000B\\f\\r\\u001F \\\"q\\\" \\\\ / \x7f end\"",
		"\"2: caf\xc3\xa9 3: \xe2\x82\xac 4: \xf0\x9f\x98\x80\"",
		"\"surrogate ???\"", "\"?? then ?\"",
		"\"port_xmit_data\":-1,", "\"port_rcv_data\":-9223372036854775808,",
	};
	struct topo *t = topo_new();
	struct topo_node *prev = NULL;
	int rc;
	char *s;

	t->src = TOPO_SRC_SMP;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct topo_node *n = topo_node_add(t, TOPO_NODE_CA, names[i], 0x100 + i);
		struct topo_port *p = ib_port(n, 1, TOPO_F_COUNTERS | TOPO_F_LID);

		p->counters[TOPO_CNT_XMT_DATA] = UINT64_MAX;		/* jansson: -1 */
		p->counters[TOPO_CNT_RCV_DATA] = (uint64_t)INT64_MAX + 1;	/* INT64_MIN */
		snprintf(n->chassis_id, sizeof(n->chassis_id), "%s", names[i]);
		if (prev)
			assert_int_equal(topo_link_add(t, ib_port(prev, 2, 0), p, TOPO_SRC_SMP), 0);
		prev = n;
	}
	assert_same_bytes(t);
	s = render(true, t, false, &rc);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(s, want[i]))
			fail_msg("not in the document: %s", want[i]);
	free(s);
	topo_free(t);
}

/*
 * discover --checks: the ib_checks member, every family's shape (a ring of
 * five switches with minimum-hop tables has two credit loops, one entry
 * taken out makes unreachable pairs and breaks the loop one way; an SM that answers with priority 0
 * and one that does not), streamed as the tree has it.
 */
static void test_ib_checks(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *sw[5];
	struct ib_vl_data vd = { 0 };
	json_t *doc, *sm, *cl;

	for (unsigned int i = 0; i < 5; i++) {
		char name[16];
		struct topo_node *ca;

		snprintf(name, sizeof(name), "r%u", i);
		sw[i] = topo_node_add(t, TOPO_NODE_SWITCH, name, 0x100 + i);
		snprintf(name, sizeof(name), "c\"%u", i);
		ca = topo_node_add(t, TOPO_NODE_CA, name, 0x1000 * (i + 1));
		for (unsigned int k = 0; k <= 3; k++)
			ib_port(sw[i], k, TOPO_F_STATE | TOPO_F_LID)->lid = 10 + i;
		ib_port(ca, 1, TOPO_F_STATE | TOPO_F_LID)->lid = i + 1;
		assert_int_equal(topo_link_add(t, topo_port_find(ca, 1, NULL),
					       topo_port_find(sw[i], 1, NULL), TOPO_SRC_SMP), 0);
	}
	for (unsigned int i = 0; i < 5; i++) {
		assert_int_equal(topo_link_add(t, topo_port_find(sw[i], 2, NULL),
					       topo_port_find(sw[(i + 1) % 5], 3, NULL), TOPO_SRC_SMP), 0);
		sw[i]->lft = malloc(15);
		assert_non_null(sw[i]->lft);
		memset(sw[i]->lft, TOPO_LFT_NONE, 15);
		sw[i]->lft_top = 14;
		for (unsigned int j = 0; j < 5; j++) {
			unsigned int d = (j + 5 - i) % 5;

			sw[i]->lft[j + 1] = (uint8_t)(d == 0 ? 1 : d <= 2 ? 2 : 3);
		}
	}
	sw[0]->lft[3] = TOPO_LFT_NONE;
	t->sms = calloc(2, sizeof(*t->sms));
	assert_non_null(t->sms);
	t->sms[0] = (struct topo_sm){ .port = topo_port_find(topo_node_by_name(t, "c\"0"), 1, NULL),
				      .answered = true, .guid = 0x1001, .state = TOPO_SM_MASTER };
	t->sms[1] = (struct topo_sm){ .port = topo_port_find(topo_node_by_name(t, "c\"1"), 1, NULL) };
	t->n_sms = 2;
	t->sms_read = true;
	assert_int_equal(ib_checks_run(t, IB_CHECK_ALL), 0);
	topo_sort(t);
	assert_same_bytes(t);
	doc = discover_to_json(t);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(doc,
			 "ib_checks"), "credit_loops"), "loops")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(doc,
			 "ib_checks"), "routes"), "unreachable")), 1);
	sm = json_object_get(json_object_get(doc, "ib_checks"), "sm");
	assert_true(json_is_false(json_object_get(sm, "agree")));
	assert_true(json_is_integer(json_object_get(json_array_get(json_object_get(sm, "sms"), 0),
						    "priority")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(sm, "sms"), 1),
						 "priority")));
	cl = json_object_get(json_object_get(doc, "ib_checks"), "credit_loops");
	assert_true(json_is_false(json_object_get(cl, "by_vl")));
	assert_true(json_is_null(json_object_get(cl, "path_sls")));
	assert_int_equal(json_array_size(json_object_get(cl, "per_vl")), 0);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(cl, "cycles"), 0),
						 "vls")));
	json_decref(doc);
	/* Per VL, every table read with every SL on VL 2: the same keys, filled. */
	for (unsigned int i = 0; i < 5; i++) {
		struct ib_sl2vl *s = ib_vl_data_add_switch(&vd, sw[i], 4);

		assert_non_null(s);
		memset(s->vl, 2, (size_t)4 * 4 * IB_SL_N);
	}
	assert_int_equal(ib_credit_vl_check(t, t->ib_checks, &vd), 0);
	ib_vl_data_fini(&vd);
	topo_sort(t);
	assert_same_bytes(t);
	doc = discover_to_json(t);
	cl = json_object_get(json_object_get(doc, "ib_checks"), "credit_loops");
	assert_true(json_is_true(json_object_get(cl, "by_vl")));
	assert_string_equal(json_string_value(json_object_get(cl, "path_sls")),
			    "not read: sl 0 assumed");
	assert_int_equal(json_integer_value(json_object_get(cl, "loops")), 1);
	assert_int_equal(json_array_size(json_object_get(cl, "per_vl")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(cl,
			 "per_vl"), 0), "vl")), 2);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(json_array_get(
			 json_object_get(cl, "cycles"), 0), "vls"), 4)), 2);
	json_decref(doc);
	/* Families not asked: null, same keys. */
	assert_int_equal(ib_checks_run(t, IB_CHECK_IDS), 0);
	assert_same_bytes(t);
	doc = discover_to_json(t);
	assert_true(json_is_null(json_object_get(json_object_get(doc, "ib_checks"), "routes")));
	assert_true(json_is_object(json_object_get(json_object_get(doc, "ib_checks"), "ids")));
	json_decref(doc);
	topo_free(t);
}

/* A full disk is an error, not a truncated document reported as written. */
static void test_write_error(void **state)
{
	struct topo *t = topo_new();
	struct render out = { .ops = &render_json_ops };
	struct topo_node *n = topo_node_add(t, TOPO_NODE_CA, "ca", 1);

	ib_port(n, 1, TOPO_F_LID);
	out.f = fopen("/dev/full", "w");
	if (!out.f)
		skip();
	assert_int_equal(render_json_ops.discover(&out, t), -EIO);
	fclose(out.f);
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_item_not_utf8),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_ib_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
