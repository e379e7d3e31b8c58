// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * model/ib_checks: routes, credit loops, balance, identities and subnet
 * managers on hand-built subnets with hand-written forwarding tables.
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
#include "model/topo.h"

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

static struct topo_port *pt(struct topo_node *n, unsigned int num)
{
	struct topo_port *p = topo_port_find(n, num, NULL);

	assert_non_null(p);
	return p;
}

static void cable(struct topo *t, struct topo_port *a, struct topo_port *b)
{
	assert_int_equal(topo_link_add(t, a, b, TOPO_SRC_SMP), 0);
}

static void lft(struct topo_node *sw, unsigned int top, size_t n, const unsigned int (*e)[2])
{
	free(sw->lft);
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

/*
 *   caA(1) caB(2)      caC(3) caD(4)
 *      1\   /2            1\   /2
 *      [leaf1 10]         [leaf2 11]
 *       3|    4\          /3    |4
 *        |      `--------+--.   |
 *        |   .-----------'   \  |
 *      [spine1 12]        [spine2 13]
 * leaf1 3 - spine1 1, leaf1 4 - spine2 1, leaf2 3 - spine1 2, leaf2 4 - spine2 2.
 * Tables: the lids of each leaf's CAs spread over both spines, as ftree does.
 */
struct fab {
	struct topo *t;
	struct topo_node *leaf1, *leaf2, *spine1, *spine2, *a, *b, *c, *d;
};

static void fab_build(struct fab *f)
{
	struct topo *t = topo_new();

	assert_non_null(t);
	f->t = t;
	f->leaf1 = topo_node_add(t, TOPO_NODE_SWITCH, "leaf1", 0x101);
	f->leaf2 = topo_node_add(t, TOPO_NODE_SWITCH, "leaf2", 0x102);
	f->spine1 = topo_node_add(t, TOPO_NODE_SWITCH, "spine1", 0x201);
	f->spine2 = topo_node_add(t, TOPO_NODE_SWITCH, "spine2", 0x202);
	f->a = topo_node_add(t, TOPO_NODE_CA, "caA", 0x1000);
	f->b = topo_node_add(t, TOPO_NODE_CA, "caB", 0x2000);
	f->c = topo_node_add(t, TOPO_NODE_CA, "caC", 0x3000);
	f->d = topo_node_add(t, TOPO_NODE_CA, "caD", 0x4000);
	for (unsigned int i = 0; i <= 4; i++) {
		port(f->leaf1, i, 10);
		port(f->leaf2, i, 11);
		port(f->spine1, i, 12);
		port(f->spine2, i, 13);
	}
	cable(t, port(f->a, 1, 1), pt(f->leaf1, 1));
	cable(t, port(f->b, 1, 2), pt(f->leaf1, 2));
	cable(t, port(f->c, 1, 3), pt(f->leaf2, 1));
	cable(t, port(f->d, 1, 4), pt(f->leaf2, 2));
	cable(t, pt(f->leaf1, 3), pt(f->spine1, 1));
	cable(t, pt(f->leaf2, 3), pt(f->spine1, 2));
	cable(t, pt(f->leaf1, 4), pt(f->spine2, 1));
	cable(t, pt(f->leaf2, 4), pt(f->spine2, 2));
	LFT(f->leaf1, 13, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 }, { 10, 0 }, { 11, 3 }, { 12, 3 },
	    { 13, 4 });
	LFT(f->leaf2, 13, { 1, 3 }, { 2, 4 }, { 3, 1 }, { 4, 2 }, { 10, 3 }, { 11, 0 }, { 12, 3 },
	    { 13, 4 });
	LFT(f->spine1, 13, { 1, 1 }, { 2, 1 }, { 3, 2 }, { 4, 2 }, { 10, 1 }, { 11, 2 }, { 12, 0 });
	LFT(f->spine2, 13, { 1, 1 }, { 2, 1 }, { 3, 2 }, { 4, 2 }, { 10, 1 }, { 11, 2 }, { 13, 0 });
}

static size_t n_kind(const struct topo *t, enum topo_problem_kind k)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_problems; i++)
		n += t->problems[i].kind == k;
	return n;
}

static const struct topo_problem *first_kind(const struct topo *t, enum topo_problem_kind k)
{
	for (size_t i = 0; i < t->n_problems; i++)
		if (t->problems[i].kind == k)
			return &t->problems[i];
	fail_msg("no problem of kind %s", topo_problem_kind_name(k));
	return NULL;
}

static const struct ib_tier *tier(const struct ib_checks *c, const char *name)
{
	for (size_t i = 0; i < c->balance.n_tiers; i++)
		if (strcmp(c->balance.tiers[i].name, name) == 0)
			return &c->balance.tiers[i];
	fail_msg("no tier %s", name);
	return NULL;
}

static void test_parse(void **state)
{
	unsigned int f = 0;
	char bad[32];

	(void)state;
	assert_int_equal(ib_checks_parse("all", &f, bad, sizeof(bad)), 0);
	assert_int_equal(f, IB_CHECK_ALL);
	assert_int_equal(ib_checks_parse("all,-balance,-sm", &f, bad, sizeof(bad)), 0);
	assert_int_equal(f, IB_CHECK_ROUTES | IB_CHECK_CREDIT | IB_CHECK_IDS);
	assert_int_equal(ib_checks_parse("none", &f, bad, sizeof(bad)), 0);
	assert_int_equal(f, 0);
	assert_int_equal(ib_checks_parse("credit-loops,sm", &f, bad, sizeof(bad)), 0);
	assert_int_equal(f, IB_CHECK_CREDIT | IB_CHECK_SM);
	assert_int_equal(ib_checks_parse("routes,routing", &f, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "routing");
	assert_int_equal(f, IB_CHECK_CREDIT | IB_CHECK_SM);	/* unchanged on error */
	assert_int_equal(ib_checks_parse("", &f, bad, sizeof(bad)), -EINVAL);
	assert_int_equal(ib_checks_parse("ids,", &f, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(ib_check_name(IB_CHECK_CREDIT), "credit-loops");
	assert_null(ib_check_name(IB_CHECK_ALL));
}

/* The healthy fat tree: everything reaches, no loop, every tier even. */
static void test_healthy(void **state)
{
	const struct ib_checks *c;
	const struct ib_tier *tr;
	struct fab f;

	(void)state;
	fab_build(&f);
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_ALL & ~IB_CHECK_SM), 0);
	c = f.t->ib_checks;
	assert_non_null(c);
	assert_int_equal(f.t->n_problems, 0);
	assert_true(c->routes.ran);
	assert_null(c->routes.skipped);
	assert_int_equal(c->routes.n_cas, 4);
	assert_int_equal(c->routes.n_lids, 4);
	assert_int_equal(c->routes.n_pairs, 12);
	assert_int_equal(c->routes.n_unreachable, 0);
	assert_true(c->credit.ran);
	assert_int_equal(c->credit.vls, 1);
	assert_int_equal(c->credit.n_channels, 8);
	assert_int_equal(c->credit.n_deps, 4);
	assert_int_equal(c->credit.n_loops, 0);
	assert_true(c->balance.ran);
	assert_int_equal(c->balance.n_tiers, 4);
	tr = tier(c, "ca>sw1");
	assert_int_equal(tr->n_links, 4);
	assert_int_equal(tr->min, 3);
	assert_int_equal(tr->max, 3);
	tr = tier(c, "sw1>sw2");
	assert_int_equal(tr->n_links, 4);
	assert_int_equal(tr->min, 2);
	assert_int_equal(tr->median, 2);
	assert_int_equal(tr->max, 2);
	assert_int_equal(tr->n_outliers, 0);
	tr = tier(c, "sw2>sw1");
	assert_int_equal(tr->min, 2);
	assert_int_equal(tr->max, 2);
	tr = tier(c, "sw1>ca");
	assert_int_equal(tr->median, 3);
	assert_true(c->ids.ran);
	assert_int_equal(c->ids.n_lids, 8);
	assert_int_equal(c->ids.n_dup_guids + c->ids.n_dup_lids + c->ids.n_zero_lids, 0);
	assert_false(c->sm.ran);
	topo_free(f.t);
}

/* One entry taken out: exactly the pairs through it, named with the switch and the LID. */
static void test_missing_entry(void **state)
{
	const struct ib_checks *c;
	const struct topo_problem *p;
	struct fab f;

	(void)state;
	fab_build(&f);
	f.leaf1->lft[3] = TOPO_LFT_NONE;
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_ROUTES), 0);
	c = f.t->ib_checks;
	assert_int_equal(c->routes.n_unreachable, 2);
	assert_int_equal(c->routes.n_listed, 2);
	for (size_t i = 0; i < 2; i++) {
		const struct ib_unreachable *u = &c->routes.unreach[i];

		assert_ptr_equal(u->sw, f.leaf1);
		assert_int_equal(u->dlid, 3);
		assert_int_equal(u->port, TOPO_LFT_NONE);
		assert_int_equal(u->why, IB_BREAK_NO_ENTRY);
		assert_ptr_equal(u->dst->node, f.c);
		assert_ptr_equal(u->src->node, i ? f.b : f.a);
	}
	assert_int_equal(f.t->n_problems, 1);
	p = first_kind(f.t, TOPO_PROB_UNREACHABLE);
	assert_string_equal(p->a.node, "leaf1");
	assert_string_equal(p->b.node, "caC");
	assert_non_null(strstr(p->detail, "no lft entry for lid 3"));
	assert_non_null(strstr(p->detail, "2 sources cannot reach it (caA, caB)"));
	assert_false(c->credit.ran);
	topo_free(f.t);
}

/* Entries that lead nowhere, back, or to the wrong CA; a table not read. */
static void test_breaks(void **state)
{
	const struct ib_checks *c;
	struct fab f;
	size_t why[IB_BREAK_MAX] = { 0 };

	(void)state;
	fab_build(&f);
	topo_port_find(f.leaf2, 4, NULL)->state = TOPO_PORT_INIT;	/* leaf2 -> spine2 not active */
	f.leaf1->lft[4] = 3;			/* D via spine1 instead */
	f.spine1->lft[4] = 1;			/* spine1 sends D back to leaf1: a loop */
	f.leaf2->lft[1] = 2;			/* A: to caD, which is not A */
	f.leaf2->lft[2] = 4;			/* B: up spine2, whose port is down */
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_ROUTES | IB_CHECK_BALANCE), 0);
	c = f.t->ib_checks;
	for (size_t i = 0; i < c->routes.n_listed; i++)
		why[c->routes.unreach[i].why]++;
	/* caA, caB -> D loop; caC -> A wrong end (caD -> A too, same leaf); caC, caD -> B down. */
	assert_int_equal(why[IB_BREAK_LOOP], 2);
	assert_int_equal(why[IB_BREAK_WRONG_END], 2);
	assert_int_equal(why[IB_BREAK_DOWN], 2);
	assert_int_equal(c->routes.n_unreachable, 6);
	assert_int_equal(n_kind(f.t, TOPO_PROB_UNREACHABLE), 3);
	for (size_t i = 0; i < f.t->n_problems; i++)
		if (strstr(f.t->problems[i].detail, "loop"))
			assert_string_equal(f.t->problems[i].a.node, "spine1");
	topo_free(f.t);
	/* A table not read: every pair through that switch, one problem for it. */
	fab_build(&f);
	free(f.spine2->lft);
	f.spine2->lft = NULL;
	f.spine2->lft_top = 0;
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_ROUTES), 0);
	assert_int_equal(f.t->ib_checks->routes.n_unreachable, 4);	/* A, B -> D; C, D -> B */
	assert_int_equal(f.t->n_problems, 1);
	assert_string_equal(f.t->problems[0].a.node, "spine2");
	assert_non_null(strstr(f.t->problems[0].detail, "not read: 4 pairs to 2 lids"));
	topo_free(f.t);
}

/*
 * Five switches in a ring, one CA each, minimum-hop tables: every
 * destination two hops away goes the short way round, so the routes
 * r(i) -> r(i+1) -> r(i+2) chain all clockwise channels into one loop,
 * and the counter-clockwise ones into another.
 */
static void test_ring_credit_loop(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *sw[5], *ca[5];
	const struct ib_checks *c;
	const struct topo_problem *p;

	(void)state;
	for (unsigned int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "r%u", i);
		sw[i] = topo_node_add(t, TOPO_NODE_SWITCH, name, 0x100 + i);
		snprintf(name, sizeof(name), "c%u", i);
		ca[i] = topo_node_add(t, TOPO_NODE_CA, name, 0x1000 * (i + 1));
		for (unsigned int k = 0; k <= 3; k++)
			port(sw[i], k, 10 + i);
		cable(t, port(ca[i], 1, i + 1), pt(sw[i], 1));
	}
	for (unsigned int i = 0; i < 5; i++) {
		cable(t, pt(sw[i], 2), pt(sw[(i + 1) % 5], 3));
		sw[i]->lft = malloc(15);
		memset(sw[i]->lft, TOPO_LFT_NONE, 15);
		sw[i]->lft_top = 14;
		for (unsigned int j = 0; j < 5; j++) {
			unsigned int d = (j + 5 - i) % 5;

			sw[i]->lft[j + 1] = (uint8_t)(d == 0 ? 1 : d <= 2 ? 2 : 3);
		}
	}
	assert_int_equal(ib_checks_run(t, IB_CHECK_ALL & ~IB_CHECK_SM), 0);
	c = t->ib_checks;
	assert_int_equal(c->routes.n_unreachable, 0);
	assert_int_equal(c->credit.n_channels, 10);
	assert_int_equal(c->credit.n_deps, 10);
	assert_int_equal(c->credit.n_loops, 2);
	assert_int_equal(c->credit.n_listed, 2);
	for (size_t l = 0; l < 2; l++) {
		const struct ib_loop *lp = &c->credit.loops[l];

		assert_int_equal(lp->n, 5);
		assert_int_equal(lp->component, 5);
		for (size_t k = 0; k < 5; k++)	/* each channel enters the next one's switch */
			assert_ptr_equal(lp->ch[k]->peer->node, lp->ch[(k + 1) % 5]->node);
	}
	assert_int_equal(n_kind(t, TOPO_PROB_CREDIT_LOOP), 2);
	p = first_kind(t, TOPO_PROB_CREDIT_LOOP);
	assert_non_null(strstr(p->detail, "5 channels (5 in its component): "));
	assert_true(!!strstr(t->problems[0].detail, "\"r0\"[2]->\"r1\"[3]") +
		    !!strstr(t->problems[1].detail, "\"r0\"[2]->\"r1\"[3]") == 1);
	assert_true(!!strstr(t->problems[0].detail, "\"r1\"[3]->\"r0\"[2]") +
		    !!strstr(t->problems[1].detail, "\"r1\"[3]->\"r0\"[2]") == 1);
	/* Even: each ring channel carries 3 routes (1 and 2 hops away, from behind). */
	assert_int_equal(tier(c, "sw1>sw1")->min, 3);
	assert_int_equal(tier(c, "sw1>sw1")->max, 3);
	assert_int_equal(n_kind(t, TOPO_PROB_BALANCE), 0);
	topo_free(t);
}

/* Everything up one spine: its links carry all, the other spine's none. */
static void test_balance_piled(void **state)
{
	const struct ib_tier *tr;
	const struct topo_problem *p;
	struct fab f;

	(void)state;
	fab_build(&f);
	f.leaf1->lft[4] = 3;
	f.leaf2->lft[2] = 3;
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_BALANCE), 0);
	assert_false(f.t->ib_checks->routes.ran);	/* not asked; balance used the walk */
	tr = tier(f.t->ib_checks, "sw1>sw2");
	assert_int_equal(tr->max, 4);
	assert_int_equal(tr->min, 0);
	assert_int_equal(tr->median, 0);
	assert_int_equal(tr->n_outliers, 2);
	assert_int_equal(tr->outliers[0].routes, 4);
	assert_ptr_equal(tr->outliers[0].from->peer->node, f.spine1);
	assert_int_equal(n_kind(f.t, TOPO_PROB_BALANCE), 2);	/* up and down */
	p = first_kind(f.t, TOPO_PROB_BALANCE);
	assert_non_null(strstr(p->detail, "2 of 4 links carry over 2x the median of 0 routes"));
	topo_free(f.t);
}

static void test_no_tables(void **state)
{
	struct fab f;

	(void)state;
	fab_build(&f);
	for (size_t i = 0; i < f.t->n_nodes; i++) {
		free(f.t->nodes[i]->lft);
		f.t->nodes[i]->lft = NULL;
	}
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_ALL & ~IB_CHECK_SM), 0);
	assert_false(f.t->ib_checks->routes.ran);
	assert_non_null(f.t->ib_checks->routes.skipped);
	assert_ptr_equal(f.t->ib_checks->credit.skipped, f.t->ib_checks->routes.skipped);
	assert_false(f.t->ib_checks->balance.ran);
	assert_int_equal(f.t->n_problems, 0);
	topo_free(f.t);
}

static void test_ids(void **state)
{
	const struct topo_problem *p;
	struct fab f;

	(void)state;
	fab_build(&f);
	pt(f.d, 1)->guid = pt(f.a, 1)->guid;	/* two CA ports, one GUID */
	pt(f.b, 1)->lmc = 1;			/* caB holds 2-3, caC has 3 */
	pt(f.spine2, 0)->lmc = 1;		/* base 13: not aligned to lmc 1 */
	pt(f.d, 1)->lid = 0;
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_IDS), 0);
	assert_int_equal(f.t->ib_checks->ids.n_dup_guids, 1);
	assert_int_equal(f.t->ib_checks->ids.n_dup_lids, 1);
	assert_int_equal(f.t->ib_checks->ids.n_zero_lids, 1);
	assert_int_equal(f.t->ib_checks->ids.n_unaligned, 1);
	assert_int_equal(f.t->ib_checks->ids.lmc_max, 1);
	p = first_kind(f.t, TOPO_PROB_DUP_GUID);
	assert_non_null(strstr(p->detail, "guid 0x0000000000001001 is \"caA\" port 1's and "
			       "\"caD\" port 1's"));
	p = first_kind(f.t, TOPO_PROB_DUP_LID);
	assert_string_equal(p->detail, "lid 3 is held by \"caB\" port 1 and by \"caC\" port 1");
	assert_int_equal(n_kind(f.t, TOPO_PROB_LID), 2);
	topo_free(f.t);
}

/*
 * Two nodes with one node GUID: the walk kept caA and left leaf2 port 5
 * (up, to a fifth CA) without a cable; what answers there has caA's
 * node GUID, then caB's port GUID, then a GUID of its own (no problem),
 * then nothing (no problem).
 */
static void test_ids_unwalked(void **state)
{
	struct topo_unwalked u[4];
	const struct topo_problem *p;
	struct fab f;

	(void)state;
	fab_build(&f);
	u[0] = (struct topo_unwalked){ .at = port(f.leaf2, 5, 11), .answered = true,
				       .type = TOPO_NODE_CA, .node_guid = 0x1000,
				       .port_guid = 0x1001, .port = 1, .desc = "caE" };
	u[1] = u[0];
	u[1].node_guid = 0x9000;
	u[1].port_guid = 0x2001;
	u[2] = u[1];
	u[2].port_guid = 0x9001;
	u[3] = (struct topo_unwalked){ .at = pt(f.leaf2, 5) };
	f.t->unwalked = malloc(sizeof(u));
	assert_non_null(f.t->unwalked);
	memcpy(f.t->unwalked, u, sizeof(u));
	f.t->n_unwalked = 4;
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_IDS), 0);
	assert_int_equal(f.t->ib_checks->ids.n_dup_guids, 2);
	assert_int_equal(n_kind(f.t, TOPO_PROB_DUP_GUID), 2);
	p = first_kind(f.t, TOPO_PROB_DUP_GUID);
	assert_string_equal(p->a.node, "leaf2");
	assert_int_equal(p->a.port, 5);
	assert_string_equal(p->detail, "behind \"leaf2\" port 5 (link up, left out of the walk) a "
			    "ca \"caE\" answers with node guid 0x0000000000001000, which is node "
			    "\"caA\"'s (the walk has it behind \"leaf1\" port 1): two nodes share one "
			    "guid, and the walk kept the one it met first");
	assert_string_equal(p->b.node, "caA");
	assert_non_null(strstr(f.t->problems[1].detail, "port guid 0x0000000000002001, which is "
			       "\"caB\" port 1's (the walk has it behind \"leaf1\" port 2): two ports"));
	topo_free(f.t);
}

static void test_lid_runs(void **state)
{
	struct fab f;

	(void)state;
	fab_build(&f);
	pt(f.a, 1)->lid = 4;
	pt(f.a, 1)->lmc = 2;	/* 4-7 */
	pt(f.b, 1)->lid = 5;
	pt(f.b, 1)->lmc = 1;	/* 5-6 inside it */
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_IDS), 0);
	assert_int_equal(n_kind(f.t, TOPO_PROB_DUP_LID), 2);	/* 4 with caD; 5-6 with caB */
	assert_string_equal(first_kind(f.t, TOPO_PROB_DUP_LID)->detail,
			    "lid 4 is held by \"caA\" port 1 and by \"caD\" port 1");
	assert_string_equal(f.t->problems[1].detail,
			    "lids 5-6 are held by \"caA\" port 1 and by \"caB\" port 1");
	topo_free(f.t);
}

static void add_sm(struct topo *t, struct topo_port *p, unsigned int prio, enum topo_sm_state st)
{
	struct topo_sm *s;

	t->sms = realloc(t->sms, (t->n_sms + 1) * sizeof(*t->sms));
	s = &t->sms[t->n_sms++];
	*s = (struct topo_sm){ .port = p, .answered = true, .guid = p->guid, .priority = prio,
			       .state = st, .act_count = 100 };
	p->is_sm = true;
}

static void sm_lids(struct topo *t, unsigned int lid)
{
	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++)
			t->nodes[i]->ports[j]->sm_lid = lid;
}

static void test_sm(void **state)
{
	const struct ib_sm_report *sr;
	struct fab f;

	(void)state;
	fab_build(&f);
	f.t->sms_read = true;
	/* None at all. */
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_SM), 0);
	assert_true(f.t->ib_checks->sm.ran);
	assert_int_equal(n_kind(f.t, TOPO_PROB_SM), 1);
	assert_string_equal(first_kind(f.t, TOPO_PROB_SM)->detail,
			    "no subnet manager: no port has IsSM set");
	f.t->n_problems = 0;
	/* Master on caA (lid 1), standby on caC; every port names lid 1. */
	add_sm(f.t, pt(f.a, 1), 5, TOPO_SM_MASTER);
	add_sm(f.t, pt(f.c, 1), 3, TOPO_SM_STANDBY);
	sm_lids(f.t, 1);
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_SM), 0);
	sr = &f.t->ib_checks->sm;
	assert_int_equal(f.t->n_problems, 0);
	assert_int_equal(sr->n_masters, 1);
	assert_int_equal(sr->n_standby, 1);
	assert_ptr_equal(sr->master->port, pt(f.a, 1));
	assert_true(sr->agree);
	/* The standby outranks the master; one port names another SM. */
	f.t->sms[1].priority = 9;
	pt(f.d, 1)->sm_lid = 3;
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_SM), 0);
	sr = &f.t->ib_checks->sm;
	assert_false(sr->agree);
	assert_int_equal(sr->n_ports_other_sm, 1);
	assert_int_equal(n_kind(f.t, TOPO_PROB_SM), 2);
	f.t->n_problems = 0;
	/* Two masters; a silent SM port. */
	f.t->sms[1].state = TOPO_SM_MASTER;
	add_sm(f.t, pt(f.b, 1), 0, TOPO_SM_STANDBY);
	f.t->sms[2].answered = false;
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_SM), 0);
	sr = &f.t->ib_checks->sm;
	assert_int_equal(sr->n_masters, 2);
	assert_int_equal(sr->n_silent, 1);
	assert_null(sr->master);
	assert_false(sr->agree);
	assert_int_equal(n_kind(f.t, TOPO_PROB_SM), 3);
	/* Not read (a cache file): skipped, no problem. */
	f.t->n_problems = 0;
	f.t->sms_read = false;
	assert_int_equal(ib_checks_run(f.t, IB_CHECK_SM), 0);
	assert_false(f.t->ib_checks->sm.ran);
	assert_non_null(f.t->ib_checks->sm.skipped);
	assert_int_equal(f.t->n_problems, 0);
	topo_free(f.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_missing_entry),
		cmocka_unit_test(test_breaks),
		cmocka_unit_test(test_ring_credit_loop),
		cmocka_unit_test(test_balance_piled),
		cmocka_unit_test(test_no_tables),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_ids_unwalked),
		cmocka_unit_test(test_lid_runs),
		cmocka_unit_test(test_sm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
