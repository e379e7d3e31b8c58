// SPDX-License-Identifier: GPL-2.0-or-later
/* model/route_ib: InfiniBand routes from hand-built linear forwarding tables. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/path.h"
#include "model/route_ib.h"
#include "model/topo.h"

/*
 *   caA(lid 1)  caB(lid 2)        caC(lid 3)
 *        \1      /2                   |1
 *        [ leaf1 lid 10 ]       [ leaf2 lid 11 ]
 *          3|      \4             3|       |4
 *           |       `------------------.   |
 *           |     .--------------------'   |     (leaf1:3 - spine1:1, leaf2:3 - spine1:2,
 *        [ spine1 lid 12 ]   [ spine2 lid 13 ]    leaf1:4 - spine2:1, leaf2:4 - spine2:2)
 *
 * Tables: leaf1 sends lid 3 up port 3 (spine1), leaf2 sends lids 1, 2 up
 * port 4 (spine2): caA -> caC and caC -> caA take different spines.
 * Every port 4X EDR except spine2 port 2, which is 1X.
 */
struct fab {
	struct topo *t;
	struct topo_node *leaf1, *leaf2, *spine1, *spine2;
	struct topo_port *caA, *caB, *caC;
};

static struct topo_port *port(struct topo_node *n, unsigned int num, unsigned int lid)
{
	struct topo_port *p = topo_port_get(n, num, NULL);

	assert_non_null(p);
	p->lid = lid;
	p->facts = TOPO_F_STATE | TOPO_F_WIDTH | TOPO_F_SPEED | TOPO_F_LID;
	p->state = TOPO_PORT_ACTIVE;
	p->width_x = 4;
	p->lane_mbps = topo_speed_parse("EDR");
	return p;
}

static void cable(struct topo *t, struct topo_port *a, struct topo_port *b)
{
	assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_SMP), 0);
}

/* An LFT of @top + 1 entries, none; then @n (lid, port) pairs. */
static void lft(struct topo_node *sw, unsigned int top, size_t n, const unsigned int (*e)[2])
{
	sw->lft = malloc(top + 1);
	assert_non_null(sw->lft);
	memset(sw->lft, TOPO_LFT_NONE, top + 1);
	sw->lft_top = top;
	for (size_t i = 0; i < n; i++)
		sw->lft[e[i][0]] = (uint8_t)e[i][1];
}

#define LFT(sw, top, ...) do { \
	static const unsigned int e_[][2] = { __VA_ARGS__ }; \
	lft(sw, top, sizeof(e_) / sizeof(e_[0]), e_); \
} while (0)

static void fab_build(struct fab *f)
{
	struct topo *t = topo_new();
	struct topo_node *a, *b, *c;

	assert_non_null(t);
	f->t = t;
	f->leaf1 = topo_node_add(t, TOPO_NODE_SWITCH, "leaf1", 0x101);
	f->leaf2 = topo_node_add(t, TOPO_NODE_SWITCH, "leaf2", 0x102);
	f->spine1 = topo_node_add(t, TOPO_NODE_SWITCH, "spine1", 0x201);
	f->spine2 = topo_node_add(t, TOPO_NODE_SWITCH, "spine2", 0x202);
	a = topo_node_add(t, TOPO_NODE_CA, "caA", 0x1);
	b = topo_node_add(t, TOPO_NODE_CA, "caB", 0x2);
	c = topo_node_add(t, TOPO_NODE_CA, "caC", 0x3);
	for (unsigned int i = 0; i <= 4; i++) {
		port(f->leaf1, i, 10);
		port(f->leaf2, i, 11);
		port(f->spine1, i, 12);
		port(f->spine2, i, 13);
	}
	f->caA = port(a, 1, 1);
	f->caB = port(b, 1, 2);
	f->caC = port(c, 1, 3);
	topo_port_find(f->spine2, 2, NULL)->width_x = 1;
	cable(t, f->caA, topo_port_find(f->leaf1, 1, NULL));
	cable(t, f->caB, topo_port_find(f->leaf1, 2, NULL));
	cable(t, f->caC, topo_port_find(f->leaf2, 1, NULL));
	cable(t, topo_port_find(f->leaf1, 3, NULL), topo_port_find(f->spine1, 1, NULL));
	cable(t, topo_port_find(f->leaf2, 3, NULL), topo_port_find(f->spine1, 2, NULL));
	cable(t, topo_port_find(f->leaf1, 4, NULL), topo_port_find(f->spine2, 1, NULL));
	cable(t, topo_port_find(f->leaf2, 4, NULL), topo_port_find(f->spine2, 2, NULL));
	LFT(f->leaf1, 13, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 10, 0 }, { 11, 3 }, { 12, 3 }, { 13, 4 });
	LFT(f->leaf2, 13, { 1, 4 }, { 2, 4 }, { 3, 1 }, { 10, 4 }, { 11, 0 }, { 12, 3 }, { 13, 4 });
	LFT(f->spine1, 13, { 1, 1 }, { 2, 1 }, { 3, 2 }, { 10, 1 }, { 11, 2 }, { 12, 0 });
	LFT(f->spine2, 13, { 1, 1 }, { 2, 1 }, { 3, 2 }, { 10, 1 }, { 11, 2 }, { 13, 0 });
	topo_sort(t);	/* routes are computed on the sorted graph */
}

/* Assert hop @h of @p leaves by port @out of @from and enters @to. */
static void hop_is(const struct fab *f, const struct path *p, size_t h, const char *from,
		   unsigned int out, const char *to, unsigned int in)
{
	const struct topo_link *l;
	const struct topo_port *o, *i;

	assert_true(h < p->n_hops);
	assert_true(p->hops[h].link < f->t->n_links);
	l = f->t->links[p->hops[h].link];
	o = p->hops[h].fwd ? l->a : l->b;
	i = p->hops[h].fwd ? l->b : l->a;
	assert_string_equal(o->node->name, from);
	assert_int_equal(o->num, out);
	assert_string_equal(i->node->name, to);
	assert_int_equal(i->num, in);
}

static void test_route_same_leaf(void **state)
{
	struct fab f;
	struct route_ib *r;
	struct path p;
	struct fab_err err;

	fab_build(&f);
	r = route_ib_new(f.t);
	assert_non_null(r);
	assert_int_equal(route_ib_path(r, f.caA, 2, &p, &err), 0);
	assert_int_equal(p.n_hops, 2);
	assert_true(p.share == 1.0);
	hop_is(&f, &p, 0, "caA", 1, "leaf1", 1);
	hop_is(&f, &p, 1, "leaf1", 2, "caB", 1);
	path_fini(&p);
	/* A switch LID ends at the switch (lft 0 there). */
	assert_int_equal(route_ib_path(r, f.caC, 12, &p, &err), 0);
	assert_int_equal(p.n_hops, 2);
	hop_is(&f, &p, 1, "leaf2", 3, "spine1", 2);
	path_fini(&p);
	assert_ptr_equal(route_ib_port_by_lid(r, 3), f.caC);
	assert_string_equal(route_ib_port_by_lid(r, 13)->node->name, "spine2");
	assert_null(route_ib_port_by_lid(r, 0));
	assert_null(route_ib_port_by_lid(r, 99));
	route_ib_free(r);
	topo_free(f.t);
}

static void test_route_asymmetric_pair(void **state)
{
	struct fab f;
	struct route_ib *r;
	struct pair_route pr;
	struct fab_err err;
	uint32_t l_s1, l_s2;

	fab_build(&f);
	r = route_ib_new(f.t);
	assert_int_equal(route_ib_pair(r, 4, f.caA, 7, f.caC, &pr, &err), 0);
	assert_int_equal(pr.a, 4);
	assert_int_equal(pr.b, 7);
	assert_int_equal(pr.n_ab, 1);
	assert_int_equal(pr.n_ba, 1);
	assert_int_equal(pr.ab->n_hops, 4);
	hop_is(&f, pr.ab, 0, "caA", 1, "leaf1", 1);
	hop_is(&f, pr.ab, 1, "leaf1", 3, "spine1", 1);
	hop_is(&f, pr.ab, 2, "spine1", 2, "leaf2", 3);
	hop_is(&f, pr.ab, 3, "leaf2", 1, "caC", 1);
	/* Back by the other spine: not the reverse of ab. */
	assert_int_equal(pr.ba->n_hops, 4);
	hop_is(&f, pr.ba, 0, "caC", 1, "leaf2", 1);
	hop_is(&f, pr.ba, 1, "leaf2", 4, "spine2", 2);
	hop_is(&f, pr.ba, 2, "spine2", 1, "leaf1", 4);
	hop_is(&f, pr.ba, 3, "leaf1", 1, "caA", 1);
	assert_int_equal(pr.klass, 4);
	/* spine2 port 2 is 1X EDR and only ba crosses it. */
	assert_true(pr.expected_mbps == 25781.0);
	l_s1 = pr.ab->hops[1].link;
	l_s2 = pr.ba->hops[1].link;
	assert_true(pair_route_uses_link(&pr, l_s1));
	assert_true(pair_route_uses_link(&pr, l_s2));
	assert_ptr_equal(f.t->links[l_s2]->a->node == f.leaf2 ? f.t->links[l_s2]->a :
			 f.t->links[l_s2]->b, topo_port_find(f.leaf2, 4, NULL));
	pair_route_fini(&pr);
	/* Same leaf: klass 2, all 4X. */
	assert_int_equal(route_ib_pair(r, 0, f.caA, 1, f.caB, &pr, &err), 0);
	assert_int_equal(pr.klass, 2);
	assert_true(pr.expected_mbps == 4.0 * 25781);
	pair_route_fini(&pr);
	route_ib_free(r);
	topo_free(f.t);
}

static void test_route_missing_entry(void **state)
{
	struct fab f;
	struct route_ib *r;
	struct path p = { 0 };
	struct pair_route pr = { .klass = 99 };
	struct fab_err err;

	fab_build(&f);
	f.leaf2->lft[2] = TOPO_LFT_NONE;
	r = route_ib_new(f.t);
	assert_int_equal(route_ib_path(r, f.caC, 2, &p, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "\"leaf2\" (0x0000000000000102)"));
	assert_non_null(strstr(err.msg, "lid 2"));
	assert_null(p.hops);	/* not set on failure */
	/* Beyond LinearFDBTop. */
	f.leaf1->lft_top = 2;
	assert_int_equal(route_ib_path(r, f.caA, 3, &p, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "\"leaf1\""));
	/* The pair fails in one direction (ba; ab is fine): nothing handed out, nothing leaks. */
	f.leaf1->lft_top = 13;
	assert_int_equal(route_ib_pair(r, 0, f.caB, 1, f.caC, &pr, &err), -ENOENT);
	assert_int_equal(pr.klass, 99);
	assert_non_null(strstr(err.msg, "\"caC\" port 1: route to lid 2"));
	/* No table at all. */
	free(f.spine1->lft);
	f.spine1->lft = NULL;
	assert_int_equal(route_ib_path(r, f.caA, 3, &p, &err), -ENODATA);
	assert_non_null(strstr(err.msg, "\"spine1\" (0x0000000000000201) has no forwarding table"));
	route_ib_free(r);
	topo_free(f.t);
}

static void test_route_loop_dead_end(void **state)
{
	struct fab f;
	struct route_ib *r;
	struct path p = { 0 };
	struct fab_err err;

	fab_build(&f);
	r = route_ib_new(f.t);
	/* spine1 sends lid 3 back down to leaf1, which sends it up again. */
	f.spine1->lft[3] = 1;
	assert_int_equal(route_ib_path(r, f.caA, 3, &p, &err), -ELOOP);
	assert_non_null(strstr(err.msg, "enters switch \"leaf1\""));
	/* leaf2 -> spine2 -> leaf2 -> ... for lid 1. */
	f.spine2->lft[1] = 2;
	assert_int_equal(route_ib_path(r, f.caC, 1, &p, &err), -ELOOP);
	assert_non_null(strstr(err.msg, "\"leaf2\""));
	/* A port with no cable. */
	f.spine1->lft[3] = 3;
	assert_int_equal(route_ib_path(r, f.caA, 3, &p, &err), -EHOSTUNREACH);
	assert_non_null(strstr(err.msg, "\"spine1\" (0x0000000000000201) forwards it to port 3, which has no link"));
	/* A port that does not exist. */
	f.spine1->lft[3] = 9;
	assert_int_equal(route_ib_path(r, f.caA, 3, &p, &err), -EHOSTUNREACH);
	/* Delivered to the wrong CA. */
	f.leaf1->lft[3] = 2;
	assert_int_equal(route_ib_path(r, f.caA, 3, &p, &err), -EHOSTUNREACH);
	assert_non_null(strstr(err.msg, "dead end at \"caB\" port 1 (lid 2)"));
	/* A switch that keeps a LID that is not its own. */
	f.leaf1->lft[3] = 0;
	assert_int_equal(route_ib_path(r, f.caA, 3, &p, &err), -EHOSTUNREACH);
	assert_non_null(strstr(err.msg, "forwards it to itself, but its lid is 10"));
	/* Bad sources and LIDs. */
	assert_int_equal(route_ib_path(r, topo_port_find(f.leaf1, 1, NULL), 2, &p, &err), -EINVAL);
	assert_int_equal(route_ib_path(r, f.caA, 0, &p, &err), -EINVAL);
	assert_null(p.hops);
	route_ib_free(r);
	route_ib_free(NULL);
	topo_free(f.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route_same_leaf),
		cmocka_unit_test(test_route_asymmetric_pair),
		cmocka_unit_test(test_route_missing_entry),
		cmocka_unit_test(test_route_loop_dead_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
