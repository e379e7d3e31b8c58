// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Traced paths to ECMP members: node addresses (model/node_addr), hops
 * named after nodes (model/flow_trace), and the per leaf pair map of
 * source port -> member with its fallbacks (model/ecmp_map).
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

#include "model/ecmp_map.h"
#include "model/flow_trace.h"
#include "model/node_addr.h"

/*
 * The routed lab's addressing: 2 leaves, 2 spines; a leaf answers from
 * its gateway or either uplink, a spine from the port towards the prober.
 */
static struct topo *fabric(void)
{
	static const struct {
		const char *name;
		const char *addrs[3];
	} nodes[] = {
		{ "leaf1", { "10.77.1.254", "10.77.255.1", "10.77.255.3" } },
		{ "leaf2", { "10.77.2.254", "10.77.255.5", "10.77.255.7" } },
		{ "spine1", { "10.77.255.0", "10.77.255.4", NULL } },
		{ "spine2", { "10.77.255.2", "10.77.255.6", NULL } },
		{ "h1", { "10.77.1.1", NULL, NULL } },
		{ "h2", { "10.77.2.2", NULL, NULL } },
	};
	struct topo *t = topo_new();

	assert_non_null(t);
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		struct topo_node *n = topo_node_add(t, nodes[i].name[0] == 'h' ? TOPO_NODE_HOST :
						    TOPO_NODE_SWITCH, nodes[i].name, 0);

		for (size_t j = 0; j < 3 && nodes[i].addrs[j]; j++)
			assert_int_equal(topo_node_addr_add(n, nodes[i].addrs[j]), 0);
	}
	return t;
}

/*
 * A trace of @sport from hops written as "ADDR" (time exceeded), "ADDR/OTHER"
 * (two addresses answered), "*" (silent) or "!ADDR" (the destination's
 * port unreachable: reached).
 */
static void trace_make(struct flow_trace *t, uint16_t sport, const char *const *hops, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->flow = (struct flow){ .proto = FLOW_UDP, .src = "10.77.1.1", .dst = "10.77.2.2",
				 .sport = sport, .dport = 4791 };
	t->hops = calloc(n, sizeof(*t->hops));
	assert_non_null(t->hops);
	t->n_hops = n;
	for (size_t i = 0; i < n; i++) {
		struct flow_hop *h = &t->hops[i];
		const char *s = hops[i], *slash = strchr(s, '/');

		h->ttl = (unsigned int)i + 1;
		h->tries = 1;
		if (!strcmp(s, "*")) {
			h->tries = 3;
			continue;
		}
		h->answer = HOP_TIME_EXCEEDED;
		if (s[0] == '!') {
			h->answer = HOP_UNREACHABLE;
			h->code = 3;
			t->reached = true;
			t->reached_ttl = h->ttl;
			s++;
		}
		snprintf(h->addr, sizeof(h->addr), "%.*s", slash ? (int)(slash - s) : (int)strlen(s), s);
		if (slash)
			snprintf(h->other, sizeof(h->other), "%s", slash + 1);
	}
}

/* Learn @sport's trace (hops as in trace_make()) into @m in @dir, named from @ix. */
static void learn(struct ecmp_map *m, enum ecmp_dir dir, const struct node_addr_index *ix,
		  uint16_t sport, const char *const *hops, size_t n)
{
	struct flow_trace t;

	trace_make(&t, sport, hops, n);
	flow_trace_map(&t, ix);
	assert_int_equal(ecmp_map_learn(m, dir, &t), 0);
	flow_trace_fini(&t);
}

#define LEARN(m, dir, ix, sport, ...) \
	learn(m, dir, ix, sport, (const char *const[]){ __VA_ARGS__ }, \
	      sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

static const char *member_name(const struct ecmp_map *m, enum ecmp_dir dir, int idx)
{
	static char buf[256];

	assert_true(idx >= 0 && (size_t)idx < m->side[dir].n_members);
	ecmp_member_text(&m->side[dir].members[idx], buf, sizeof(buf));
	return buf;
}

static void test_node_addr(void **state)
{
	struct topo *t = fabric();
	struct node_addr_index ix;
	struct topo_node *odd;
	char norm[TOPO_ADDR_LEN];

	odd = topo_node_add(t, TOPO_NODE_SWITCH, "odd", 0);
	assert_int_equal(topo_node_addr_add(odd, "10.77.255.0"), 0);	/* spine1's too */
	assert_int_equal(topo_node_addr_add(odd, "FD00:0:0::7"), 0);
	assert_int_equal(topo_node_addr_add(odd, "fe80::1"), 0);		/* kept, not indexed */
	assert_int_equal(topo_node_addr_add(odd, "fd00::7"), 0);		/* same address: once */
	assert_int_equal(odd->n_addrs, 3);
	assert_int_equal(node_addr_index_build(&ix, t), 0);
	assert_string_equal(node_addr_lookup(&ix, "10.77.255.5")->name, "leaf2");
	assert_string_equal(node_addr_lookup(&ix, "10.77.1.254")->name, "leaf1");
	assert_string_equal(node_addr_lookup(&ix, "fd00::0:7")->name, "odd");
	assert_null(node_addr_lookup(&ix, "10.77.255.0"));	/* claimed twice: neither's */
	assert_int_equal(ix.n_conflicts, 1);
	assert_string_equal(ix.conflict, "10.77.255.0");
	assert_null(node_addr_lookup(&ix, "fe80::1"));
	assert_null(node_addr_lookup(&ix, "10.9.9.9"));
	assert_null(node_addr_lookup(&ix, "not an address"));
	assert_true(node_addr_local("127.0.0.1"));
	assert_true(node_addr_local("169.254.3.4"));
	assert_true(node_addr_local("::1"));
	assert_true(node_addr_local("fe80::9"));
	assert_false(node_addr_local("10.0.0.1"));
	assert_false(node_addr_local("2001:db8::1"));
	assert_int_equal(node_addr_norm("2001:DB8:0::1", norm), 0);
	assert_string_equal(norm, "2001:db8::1");
	assert_int_equal(node_addr_norm("10.1", norm), -EINVAL);
	node_addr_index_fini(&ix);
	node_addr_index_fini(&ix);	/* twice is fine */
	topo_free(t);
}

static void test_trace_map(void **state)
{
	struct topo *t = fabric();
	struct node_addr_index ix;
	struct flow_trace tr;

	assert_int_equal(node_addr_index_build(&ix, t), 0);
	trace_make(&tr, 1, (const char *const[]){ "10.77.1.254", "10.9.9.9/10.77.255.2", "*", "!10.77.2.2" }, 4);
	assert_int_equal(flow_trace_map(&tr, &ix), 1);	/* 10.9.9.9 */
	assert_string_equal(tr.hops[0].node, "leaf1");
	assert_string_equal(tr.hops[1].node, "");
	assert_string_equal(tr.hops[1].other_node, "spine2");
	assert_string_equal(tr.hops[3].node, "h2");
	assert_string_equal(flow_hop_name(&tr.hops[1], false), "");
	assert_string_equal(flow_hop_name(&tr.hops[1], true), "10.9.9.9");
	assert_string_equal(flow_hop_name(&tr.hops[2], true), "");
	assert_int_equal(flow_trace_map(&tr, NULL), 4);	/* no index: every address unnamed */
	assert_string_equal(tr.hops[0].node, "");
	assert_string_equal(hop_answer_name(tr.hops[3].answer), "unreachable");
	flow_trace_fini(&tr);
	flow_trace_fini(&tr);
	node_addr_index_fini(&ix);
	topo_free(t);
}

/*
 * Four ports each way over two spines; the leaves taken from the first
 * traces; leaf2 answering from either uplink is still leaf2; a repeat
 * that takes the same spine changes nothing.
 */
static void test_two_members_both_ways(void **state)
{
	struct topo *t = fabric();
	struct node_addr_index ix;
	struct ecmp_map m;

	assert_int_equal(node_addr_index_build(&ix, t), 0);
	ecmp_map_init(&m, NULL, "", false);
	LEARN(&m, ECMP_AB, &ix, 100, "10.77.1.254", "10.77.255.2", "10.77.255.7", "!10.77.2.2");
	LEARN(&m, ECMP_AB, &ix, 101, "10.77.1.254", "10.77.255.0", "10.77.255.5", "!10.77.2.2");
	LEARN(&m, ECMP_AB, &ix, 102, "10.77.1.254", "10.77.255.2", "10.77.255.5/10.77.255.7", "!10.77.2.2");
	LEARN(&m, ECMP_AB, &ix, 103, "10.77.1.254", "10.77.255.0", "10.77.255.7", "!10.77.2.2");
	LEARN(&m, ECMP_AB, &ix, 100, "10.77.1.254", "10.77.255.2", "10.77.255.5", "!10.77.2.2");
	/* b -> a: answers come from the other ends */
	LEARN(&m, ECMP_BA, &ix, 100, "10.77.2.254", "10.77.255.4", "10.77.255.1", "!10.77.1.1");
	LEARN(&m, ECMP_BA, &ix, 101, "10.77.2.254", "10.77.255.4", "10.77.255.3", "!10.77.1.1");
	LEARN(&m, ECMP_BA, &ix, 102, "10.77.2.254", "10.77.255.6", "10.77.255.3", "!10.77.1.1");
	assert_int_equal(m.reason, ECMP_OK);
	assert_string_equal(m.detail, "");
	assert_string_equal(m.leaf[0], "leaf1");
	assert_string_equal(m.leaf[1], "leaf2");
	assert_int_equal(m.side[ECMP_AB].n_members, 2);
	assert_int_equal(m.side[ECMP_AB].n_ports, 4);
	assert_string_equal(member_name(&m, ECMP_AB, ecmp_map_member(&m, ECMP_AB, 100)), "spine2");
	assert_string_equal(member_name(&m, ECMP_AB, ecmp_map_member(&m, ECMP_AB, 101)), "spine1");
	assert_int_equal(ecmp_map_member(&m, ECMP_AB, 102), ecmp_map_member(&m, ECMP_AB, 100));
	assert_int_equal(ecmp_map_member(&m, ECMP_AB, 103), ecmp_map_member(&m, ECMP_AB, 101));
	assert_int_equal(m.side[ECMP_AB].ports[0].traces, 2);
	assert_int_equal(m.side[ECMP_AB].members[0].n_ports, 2);
	/* the way back is its own: port 100 takes spine1 there */
	assert_string_equal(member_name(&m, ECMP_BA, ecmp_map_member(&m, ECMP_BA, 100)), "spine1");
	assert_string_equal(member_name(&m, ECMP_BA, ecmp_map_member(&m, ECMP_BA, 102)), "spine2");
	assert_int_equal(ecmp_map_member(&m, ECMP_BA, 103), -ENOENT);
	assert_int_equal(ecmp_map_member(&m, ECMP_AB, 999), -ENOENT);
	ecmp_map_fini(&m);
	ecmp_map_fini(&m);
	node_addr_index_fini(&ix);
	topo_free(t);
}

/* A spine that does not answer: that port's member is unknown and the map falls back. */
static void test_silent(void **state)
{
	struct topo *t = fabric();
	struct node_addr_index ix;
	struct ecmp_map m;

	assert_int_equal(node_addr_index_build(&ix, t), 0);
	ecmp_map_init(&m, "leaf1", "leaf2", false);
	LEARN(&m, ECMP_AB, &ix, 100, "10.77.1.254", "10.77.255.2", "10.77.255.7", "!10.77.2.2");
	LEARN(&m, ECMP_AB, &ix, 101, "10.77.1.254", "*", "10.77.255.5", "!10.77.2.2");
	LEARN(&m, ECMP_AB, &ix, 102, "10.77.1.254", "*", "10.77.255.5", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_SILENT);
	assert_string_equal(ecmp_reason_name(m.reason), "silent");
	assert_string_equal(m.detail, "port 101: hop 2 (between leaf1 and leaf2) did not answer after 3 tries");
	assert_int_equal(ecmp_map_member(&m, ECMP_AB, 100), -ESTALE);
	/* still recorded for display: 100 on spine2, 101 and 102 unknown */
	assert_int_equal(m.side[ECMP_AB].n_ports, 3);
	assert_int_equal(m.side[ECMP_AB].ports[0].member, 0);
	assert_int_equal(m.side[ECMP_AB].ports[1].member, -1);
	/* a silent source leaf (TTL 1) does not hide the member */
	ecmp_map_fini(&m);
	ecmp_map_init(&m, "leaf1", "leaf2", false);
	LEARN(&m, ECMP_AB, &ix, 100, "*", "10.77.255.2", "10.77.255.7", "!10.77.2.2");
	LEARN(&m, ECMP_AB, &ix, 101, "10.77.1.254", "10.77.255.0", "*", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_OK);
	assert_string_equal(member_name(&m, ECMP_AB, ecmp_map_member(&m, ECMP_AB, 101)), "spine1");
	ecmp_map_fini(&m);
	node_addr_index_fini(&ix);
	topo_free(t);
}

static void test_unmapped_and_unstable(void **state)
{
	struct topo *t = fabric();
	struct node_addr_index ix;
	struct ecmp_map m;

	assert_int_equal(node_addr_index_build(&ix, t), 0);
	/* an answer no node holds */
	ecmp_map_init(&m, NULL, NULL, false);
	LEARN(&m, ECMP_AB, &ix, 100, "10.77.1.254", "10.77.255.66", "10.77.255.7", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_UNMAPPED);
	assert_string_equal(m.detail, "port 100: hop 2 answered from 10.77.255.66, an address no node holds");
	ecmp_map_fini(&m);
	/* a repeat takes the other spine */
	ecmp_map_init(&m, NULL, NULL, false);
	LEARN(&m, ECMP_AB, &ix, 100, "10.77.1.254", "10.77.255.2", "10.77.255.7", "!10.77.2.2");
	LEARN(&m, ECMP_AB, &ix, 100, "10.77.1.254", "10.77.255.0", "10.77.255.5", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_UNSTABLE);
	assert_string_equal(m.detail, "port 100 took spine2, then spine1 on a repeat");
	assert_int_equal(ecmp_map_member(&m, ECMP_AB, 100), -ESTALE);
	ecmp_map_fini(&m);
	/* two spines answer one TTL of one trace: sprayed */
	ecmp_map_init(&m, NULL, NULL, false);
	LEARN(&m, ECMP_AB, &ix, 100, "10.77.1.254", "10.77.255.2/10.77.255.0", "10.77.255.7", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_UNSTABLE);
	assert_string_equal(m.detail, "port 100: hop 2 answered from spine2 and from spine1: the path changed between probes");
	/* the first reason stays */
	LEARN(&m, ECMP_AB, &ix, 101, "10.77.1.254", "*", "10.77.255.7", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_UNSTABLE);
	ecmp_map_fini(&m);
	node_addr_index_fini(&ix);
	topo_free(t);
}

static void test_no_leaf(void **state)
{
	struct topo *t = fabric();
	struct node_addr_index ix;
	struct ecmp_map m;

	assert_int_equal(node_addr_index_build(&ix, t), 0);
	/* the destination did not answer, the far leaf is not known */
	ecmp_map_init(&m, NULL, NULL, false);
	LEARN(&m, ECMP_AB, &ix, 100, "10.77.1.254", "10.77.255.2", "10.77.255.7", "*");
	assert_int_equal(m.reason, ECMP_NO_LEAF);
	assert_string_equal(m.detail, "port 100: the destination 10.77.2.2 did not answer, so the far leaf is not known");
	ecmp_map_fini(&m);
	/* known, it is found by name even so */
	ecmp_map_init(&m, "leaf1", "leaf2", false);
	LEARN(&m, ECMP_AB, &ix, 100, "10.77.1.254", "10.77.255.2", "10.77.255.7", "*");
	assert_int_equal(m.reason, ECMP_OK);
	assert_string_equal(member_name(&m, ECMP_AB, 0), "spine2");
	/* a flow that starts at another leaf */
	LEARN(&m, ECMP_AB, &ix, 101, "10.77.2.254", "10.77.255.2", "10.77.255.7", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_NO_LEAF);
	assert_string_equal(m.detail, "port 101: hop 1 is leaf2, not the source leaf leaf1");
	ecmp_map_fini(&m);
	node_addr_index_fini(&ix);
	topo_free(t);
}

/* No topology: hops go by address, leaves by position; spines answer from one address each. */
static void test_by_address(void **state)
{
	struct ecmp_map m;

	ecmp_map_init(&m, NULL, NULL, true);
	LEARN(&m, ECMP_AB, NULL, 100, "10.77.1.254", "10.77.255.2", "10.77.255.7", "!10.77.2.2");
	LEARN(&m, ECMP_AB, NULL, 101, "10.77.1.254", "10.77.255.0", "10.77.255.5", "!10.77.2.2");
	LEARN(&m, ECMP_AB, NULL, 102, "10.77.1.254", "10.77.255.2", "10.77.255.5", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_OK);
	assert_string_equal(m.leaf[0], "");
	assert_string_equal(m.leaf[1], "");
	assert_int_equal(m.side[ECMP_AB].n_members, 2);
	assert_string_equal(member_name(&m, ECMP_AB, ecmp_map_member(&m, ECMP_AB, 102)), "10.77.255.2");
	ecmp_map_fini(&m);
}

/* Three transit nodes (a 3-level fat tree); none (leaves cabled directly, one leaf); no router. */
static void test_member_shapes(void **state)
{
	struct ecmp_map m;
	char buf[16];

	ecmp_map_init(&m, NULL, NULL, true);
	LEARN(&m, ECMP_AB, NULL, 7, "10.1.0.1", "10.2.0.1", "10.3.0.1", "10.4.0.1", "10.5.0.1", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_OK);
	assert_string_equal(member_name(&m, ECMP_AB, 0), "10.2.0.1 > 10.3.0.1 > 10.4.0.1");
	ecmp_member_text(&m.side[ECMP_AB].members[0], buf, sizeof(buf));
	assert_string_equal(buf, "10.2.0.1 > 10.3");	/* cut to fit */
	ecmp_map_fini(&m);
	ecmp_map_init(&m, NULL, NULL, true);
	LEARN(&m, ECMP_AB, NULL, 7, "10.1.0.1", "10.5.0.1", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_OK);
	assert_string_equal(member_name(&m, ECMP_AB, 0), "(none)");
	ecmp_map_fini(&m);
	/* two hosts of one leaf: the leaf, then the destination */
	ecmp_map_init(&m, NULL, NULL, false);
	LEARN(&m, ECMP_AB, NULL, 7, "10.1.0.1", "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_OK);
	assert_string_equal(member_name(&m, ECMP_AB, 0), "(none)");
	ecmp_map_fini(&m);
	/* a destination on the source's own link: no router at all */
	ecmp_map_init(&m, NULL, NULL, true);
	LEARN(&m, ECMP_AB, NULL, 7, "!10.77.2.2");
	assert_int_equal(m.reason, ECMP_NO_LEAF);
	assert_string_equal(m.detail, "port 7: the destination 10.77.2.2 answered at TTL 1: no router on the way");
	ecmp_map_fini(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_node_addr),
		cmocka_unit_test(test_trace_map),
		cmocka_unit_test(test_two_members_both_ways),
		cmocka_unit_test(test_silent),
		cmocka_unit_test(test_unmapped_and_unstable),
		cmocka_unit_test(test_no_leaf),
		cmocka_unit_test(test_by_address),
		cmocka_unit_test(test_member_shapes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
