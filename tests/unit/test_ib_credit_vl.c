// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model/ib_credit_vl (and the tables of model/ib_vl): credit loops per
 * virtual lane on a ring of five switches with minimum-hop tables (two
 * loops on one VL), with hand-written SL2VL tables and path SLs: the
 * loops broken by lanes as lash does, kept when every SL maps to VL 0,
 * broken by a dateline, and a loop that runs over two lanes.
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

struct ring {
	struct topo *t;
	struct topo_node *sw[5], *ca[5];
};

static struct topo_port *port(struct topo_node *n, unsigned int num, unsigned int lid)
{
	struct topo_port *p = topo_port_get(n, num, NULL);

	assert_non_null(p);
	p->lid = lid;
	p->facts = TOPO_F_STATE | TOPO_F_LID;
	p->state = TOPO_PORT_ACTIVE;
	p->guid = n->type == TOPO_NODE_SWITCH ? n->guid : n->guid + num;
	return p;
}

/*
 * Switch ri: port 1 to CA ci (LID i + 1), port 2 to r(i+1)'s port 3;
 * minimum hops: LIDs one or two ahead leave by 2, behind by 3.
 */
static void ring_build(struct ring *r)
{
	r->t = topo_new();
	assert_non_null(r->t);
	for (unsigned int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "r%u", i);
		r->sw[i] = topo_node_add(r->t, TOPO_NODE_SWITCH, name, 0x100 + i);
		snprintf(name, sizeof(name), "c%u", i);
		r->ca[i] = topo_node_add(r->t, TOPO_NODE_CA, name, 0x1000 * (i + 1));
		for (unsigned int k = 0; k <= 3; k++)
			port(r->sw[i], k, 10 + i);
		assert_int_equal(topo_link_add(r->t, port(r->ca[i], 1, i + 1),
					       topo_port_find(r->sw[i], 1, NULL), TOPO_SRC_SMP), 0);
	}
	for (unsigned int i = 0; i < 5; i++) {
		assert_int_equal(topo_link_add(r->t, topo_port_find(r->sw[i], 2, NULL),
					       topo_port_find(r->sw[(i + 1) % 5], 3, NULL),
					       TOPO_SRC_SMP), 0);
		r->sw[i]->lft = malloc(15);
		assert_non_null(r->sw[i]->lft);
		memset(r->sw[i]->lft, TOPO_LFT_NONE, 15);
		r->sw[i]->lft_top = 14;
		for (unsigned int j = 0; j < 5; j++) {
			unsigned int d = (j + 5 - i) % 5;

			r->sw[i]->lft[j + 1] = (uint8_t)(d == 0 ? 1 : d <= 2 ? 2 : 3);
		}
	}
	assert_int_equal(ib_checks_run(r->t, IB_CHECK_ROUTES | IB_CHECK_CREDIT), 0);
	assert_int_equal(r->t->ib_checks->credit.n_loops, 2);
	assert_false(r->t->ib_checks->credit.by_vl);
}

/* Every switch's tables: VL @vl_of(switch, in, out, sl) for ports 1..3. */
static void tables(struct ring *r, struct ib_vl_data *vd,
		   unsigned int (*vl_of)(unsigned int, unsigned int, unsigned int, unsigned int))
{
	for (unsigned int i = 0; i < 5; i++) {
		struct ib_sl2vl *s = ib_vl_data_add_switch(vd, r->sw[i], 4);

		assert_non_null(s);
		for (unsigned int in = 1; in <= 3; in++)
			for (unsigned int out = 1; out <= 3; out++) {
				for (unsigned int sl = 0; sl < IB_SL_N; sl++)
					s->vl[(in * 4 + out) * IB_SL_N + sl] =
						(uint8_t)vl_of(i, in, out, sl);
				vd->n_tables++;
			}
	}
}

static unsigned int vl_identity(unsigned int sw, unsigned int in, unsigned int out, unsigned int sl)
{
	(void)sw, (void)in, (void)out;
	return sl;
}

static unsigned int vl_zero(unsigned int sw, unsigned int in, unsigned int out, unsigned int sl)
{
	(void)sw, (void)in, (void)out, (void)sl;
	return 0;
}

/* Clockwise, a packet on r0's ring link from r4 changes lane: a dateline. */
static unsigned int vl_dateline(unsigned int sw, unsigned int in, unsigned int out, unsigned int sl)
{
	return sw == 0 && in == 3 && out == 2 ? 1 : sl;
}

/* Clockwise, every hop out of an odd switch on VL 1, of an even one on VL 0. */
static unsigned int vl_alternate(unsigned int sw, unsigned int in, unsigned int out,
				 unsigned int sl)
{
	(void)in, (void)sl;
	return out == 2 && sw % 2 ? 1 : 0;
}

static size_t n_loop_problems(const struct topo *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_problems; i++)
		n += t->problems[i].kind == TOPO_PROB_CREDIT_LOOP;
	return n;
}

static void test_decode_and_lookup(void **state)
{
	static const uint8_t raw[8] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xe7 };
	struct ib_vl_data vd = { 0 };
	struct ib_sl2vl *s;
	uint8_t vl[IB_SL_N];

	(void)state;
	ib_sl2vl_decode(raw, vl);
	for (unsigned int sl = 0; sl < 15; sl++)
		assert_int_equal(vl[sl], sl);
	assert_int_equal(vl[15], 7);
	assert_int_equal(ib_vl_data_add_path(&vd, 5, 9, 3), 0);
	assert_int_equal(ib_vl_data_add_path(&vd, 1, 9, 2), 0);
	assert_int_equal(ib_vl_data_add_path(&vd, 5, 2, 17), 0);	/* 4 bits kept */
	ib_vl_data_sort(&vd);
	assert_int_equal(ib_vl_path_sl(&vd, 5, 9), 3);
	assert_int_equal(ib_vl_path_sl(&vd, 1, 9), 2);
	assert_int_equal(ib_vl_path_sl(&vd, 5, 2), 1);
	assert_int_equal(ib_vl_path_sl(&vd, 9, 5), 0);		/* not known: SL 0 */
	s = ib_vl_data_add_switch(&vd, NULL, 3);
	assert_non_null(s);
	assert_int_equal(ib_sl2vl_get(s, 1, 2, 0), IB_VL_UNREAD);
	memcpy(&s->vl[(1 * 3 + 2) * IB_SL_N], vl, IB_SL_N);
	assert_int_equal(ib_sl2vl_get(s, 1, 2, 15), 7);
	assert_int_equal(ib_sl2vl_get(s, 3, 2, 0), IB_VL_UNREAD);	/* past the ports */
	assert_int_equal(ib_sl2vl_get(NULL, 1, 2, 0), IB_VL_UNREAD);
	ib_vl_data_fini(&vd);
}

/*
 * As lash does it: the routes c0 -> c2 and c0 -> c3 (two hops, one each
 * way round) on SL 1, the rest on SL 0, identity tables: each ring's
 * chain of five dependencies is cut in two lanes, no loop.
 */
static void test_lanes_break_loops(void **state)
{
	struct ib_vl_data vd = { .sls_read = true };
	const struct ib_credit_report *cr;
	struct ring r;

	(void)state;
	ring_build(&r);
	tables(&r, &vd, vl_identity);
	assert_int_equal(ib_vl_data_add_path(&vd, 1, 3, 1), 0);
	assert_int_equal(ib_vl_data_add_path(&vd, 1, 4, 1), 0);
	ib_vl_data_sort(&vd);
	assert_int_equal(ib_credit_vl_check(r.t, r.t->ib_checks, &vd), 0);
	cr = &r.t->ib_checks->credit;
	assert_true(cr->ran);
	assert_true(cr->by_vl);
	assert_string_equal(cr->path_sls, "sa");
	assert_int_equal(cr->n_tables, 45);
	assert_int_equal(cr->n_loops, 0);
	assert_int_equal(cr->n_listed, 0);
	assert_int_equal(cr->vls, 2);
	assert_int_equal(cr->n_per_vl, 2);
	/* VL 0: all ten ring channels, the 8 other two-hop dependencies; VL 1: 2 + 2 channels, 2. */
	assert_int_equal(cr->per_vl[0].vl, 0);
	assert_int_equal(cr->per_vl[0].n_channels, 10);
	assert_int_equal(cr->per_vl[0].n_deps, 8);
	assert_int_equal(cr->per_vl[0].n_loops, 0);
	assert_int_equal(cr->per_vl[1].vl, 1);
	assert_int_equal(cr->per_vl[1].n_channels, 4);
	assert_int_equal(cr->per_vl[1].n_deps, 2);
	assert_int_equal(cr->n_channels, 14);
	assert_int_equal(cr->n_deps, 10);
	assert_int_equal(cr->n_cross_deps + cr->n_unmapped + cr->n_dropped, 0);
	assert_int_equal(n_loop_problems(r.t), 0);
	assert_int_equal(r.t->n_problems, 0);
	ib_vl_data_fini(&vd);
	topo_free(r.t);
}

/* The same SLs, tables that put every SL on VL 0: both loops, on VL 0, as problems. */
static void test_all_on_vl0(void **state)
{
	struct ib_vl_data vd = { 0 };
	const struct ib_credit_report *cr;
	struct ring r;

	(void)state;
	ring_build(&r);
	tables(&r, &vd, vl_zero);
	assert_int_equal(ib_vl_data_add_path(&vd, 1, 3, 1), 0);
	ib_vl_data_sort(&vd);
	assert_int_equal(ib_credit_vl_check(r.t, r.t->ib_checks, &vd), 0);
	cr = &r.t->ib_checks->credit;
	assert_string_equal(cr->path_sls, "not read: sl 0 assumed");
	assert_int_equal(cr->n_loops, 2);
	assert_int_equal(cr->n_listed, 2);
	assert_int_equal(cr->vls, 1);
	assert_int_equal(cr->per_vl[0].vl, 0);
	assert_int_equal(cr->per_vl[0].n_channels, 10);
	assert_int_equal(cr->per_vl[0].n_deps, 10);
	assert_int_equal(cr->per_vl[0].n_loops, 2);
	for (size_t l = 0; l < 2; l++) {
		assert_int_equal(cr->loops[l].n, 5);
		assert_non_null(cr->loops[l].vl);
		for (size_t k = 0; k < 5; k++) {
			assert_int_equal(cr->loops[l].vl[k], 0);
			assert_ptr_equal(cr->loops[l].ch[k]->peer->node,
					 cr->loops[l].ch[(k + 1) % 5]->node);
		}
	}
	/* The one-VL problems replaced, not added to. */
	assert_int_equal(n_loop_problems(r.t), 2);
	assert_non_null(strstr(r.t->problems[0].detail, "5 channels on vl 0 (5 in its component)"));
	ib_vl_data_fini(&vd);
	topo_free(r.t);
}

/* A dateline at r0 breaks the clockwise loop with a lane change; the other stays on VL 0. */
static void test_dateline(void **state)
{
	struct ib_vl_data vd = { 0 };
	const struct ib_credit_report *cr;
	struct ring r;

	(void)state;
	ring_build(&r);
	tables(&r, &vd, vl_dateline);
	assert_int_equal(ib_credit_vl_check(r.t, r.t->ib_checks, &vd), 0);
	cr = &r.t->ib_checks->credit;
	assert_int_equal(cr->n_loops, 1);
	assert_int_equal(cr->n_cross_deps, 1);	/* c4 -> c1: r4>r0 on VL 0, r0>r1 on VL 1 */
	assert_int_equal(cr->n_cross_loops, 0);
	assert_int_equal(cr->per_vl[0].n_loops, 1);
	/* The loop left is the counter-clockwise one: r1 leaves by port 3 towards r0. */
	for (size_t k = 0; k < 5; k++)
		assert_int_equal(cr->loops[0].ch[k]->num, 3);
	assert_int_equal(n_loop_problems(r.t), 1);
	ib_vl_data_fini(&vd);
	topo_free(r.t);
}

/* Lanes that alternate round the ring still close a loop, over both: reported as such. */
static void test_loop_over_two_vls(void **state)
{
	struct ib_vl_data vd = { 0 };
	const struct ib_credit_report *cr;
	struct ring r;
	bool seen[2] = { false, false };

	(void)state;
	ring_build(&r);
	tables(&r, &vd, vl_alternate);
	assert_int_equal(ib_credit_vl_check(r.t, r.t->ib_checks, &vd), 0);
	cr = &r.t->ib_checks->credit;
	/* Each clockwise channel keeps its switch's lane: the chain closes over VL 0 and 1. */
	assert_int_equal(cr->n_loops, 2);
	assert_int_equal(cr->n_cross_loops, 1);
	for (size_t l = 0; l < cr->n_listed; l++) {
		bool one = true;

		for (size_t k = 1; k < cr->loops[l].n; k++)
			one &= cr->loops[l].vl[k] == cr->loops[l].vl[0];
		if (!one)
			for (size_t k = 0; k < cr->loops[l].n; k++)
				seen[cr->loops[l].vl[k]] = true;
	}
	assert_true(seen[0] && seen[1]);
	assert_non_null(strstr(r.t->problems[0].detail, "over several vls") ?
			strstr(r.t->problems[0].detail, "over several vls") :
			strstr(r.t->problems[1].detail, "over several vls"));
	ib_vl_data_fini(&vd);
	topo_free(r.t);
}

/* No table read: every hop counted and put on VL 0 (the loops stay); VL 15 drops the route. */
static void test_unmapped_and_dropped(void **state)
{
	struct ib_vl_data vd = { 0 };
	const struct ib_credit_report *cr;
	struct ring r;

	(void)state;
	ring_build(&r);
	assert_int_equal(ib_credit_vl_check(r.t, r.t->ib_checks, &vd), 0);
	cr = &r.t->ib_checks->credit;
	assert_int_equal(cr->n_loops, 2);
	assert_int_equal(cr->n_unmapped, 30);	/* 10 one-hop routes x 1 + 10 two-hop x 2 */
	ib_vl_data_fini(&vd);
	topo_free(r.t);
	ring_build(&r);
	tables(&r, &vd, vl_identity);
	vd.sw[0].vl[(1 * 4 + 2) * IB_SL_N + 0] = IB_VL_DROP;	/* r0: from c0, clockwise */
	assert_int_equal(ib_credit_vl_check(r.t, r.t->ib_checks, &vd), 0);
	cr = &r.t->ib_checks->credit;
	assert_int_equal(cr->n_dropped, 2);	/* c0 -> c1, c0 -> c2 */
	assert_int_equal(cr->n_loops, 1);
	ib_vl_data_fini(&vd);
	topo_free(r.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_and_lookup),
		cmocka_unit_test(test_lanes_break_loops),
		cmocka_unit_test(test_all_on_vl0),
		cmocka_unit_test(test_dateline),
		cmocka_unit_test(test_loop_over_two_vls),
		cmocka_unit_test(test_unmapped_and_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
