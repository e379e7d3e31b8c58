// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A saved sweep document read back into the report (io/sweep_doc.c,
 * diagnose --from): hosts, pairs and verdicts, run facts, the graph and
 * the saved routes, the counter entries; and the bad input it names.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "io/pair_store.h"
#include "io/sweep_doc.h"
#include "model/bond.h"
#include "model/bond_legs.h"
#include "model/path.h"
#include "render/render.h"

/*
 * Three hosts on one switch; pairs a-b (ok, routed), a-c (slow), b-c
 * (a status the sweep does not write: planned, not evidence).
 */
#define END(n, p) "{\"node\": \"" n "\", \"port\": \"" p "\"}"
#define HOP(f, fp, t, tp) "{\"from\": " END(f, fp) ", \"to\": " END(t, tp) "}"
#define ROUTE(x, xp, y, yp) \
	"{\"ab\": [{\"share\": 1.0, \"hops\": [" HOP(x, "eth0", "sw", xp) ", " \
	HOP("sw", yp, y, "eth0") "]}], \"ba\": [{\"share\": 1.0, \"hops\": [" \
	HOP(y, "eth0", "sw", yp) ", " HOP("sw", xp, x, "eth0") "]}]}"

static const char doc_full[] =
	"{\"schema\": \"fabricctl.sweep/2\", \"transport\": \"tcp\", \"launcher\": \"netns\","
	" \"mode\": \"all-pairs\", \"started_unix\": 1700000000, \"wall_s\": 2.5,"
	" \"interrupted\": true, \"rounds\": 3, \"rounds_done\": 2,"
	" \"nodes\": [{\"name\": \"a\", \"address\": \"10.0.0.1\", \"rdma\": \"mlx5_0:2\","
	"   \"rate_gbps\": 100}, {\"name\": \"b\", \"address\": \"10.0.0.2\", \"rdma\": null},"
	"   {\"name\": \"c\", \"address\": \"10.0.0.3\"}],"
	" \"topology\": {\"source\": \"plan.yaml\","
	"   \"nodes\": [{\"name\": \"sw\", \"type\": \"switch\"}, {\"name\": \"a\", \"type\": \"host\"},"
	"     {\"name\": \"b\", \"type\": \"host\"}, {\"name\": \"c\", \"type\": \"host\"}],"
	"   \"links\": [{\"a\": " END("a", "eth0") ", \"b\": " END("sw", "swp1") "},"
	"     {\"a\": " END("b", "eth0") ", \"b\": " END("sw", "swp2") "},"
	"     {\"a\": " END("c", "eth0") ", \"b\": " END("sw", "swp3") "}]},"
	" \"pairs\": ["
	"   {\"a\": \"a\", \"b\": \"b\", \"status\": \"ok\", \"reason\": null, \"round\": 1,"
	"    \"bw_ab\": {\"avg_mbps\": 900.5}, \"bw_ba\": null, \"expected_mbps\": 1000,"
	"    \"pct_expected\": 90.05, \"routes\": " ROUTE("a", "swp1", "b", "swp2") "},"
	"   {\"a\": \"c\", \"b\": \"a\", \"status\": \"slow\", \"reason\": \"bandwidth 100 Mb/s\","
	"    \"round\": 2, \"bw_ab\": {\"avg_mbps\": 100}, \"bw_ba\": {\"avg_mbps\": 110},"
	"    \"expected_mbps\": null, \"pct_expected\": null,"
	"    \"routes\": " ROUTE("c", "swp3", "a", "swp1") "},"
	"   {\"a\": \"b\", \"b\": \"c\", \"status\": \"maybe\", \"round\": 3,"
	"    \"routes\": " ROUTE("b", "swp2", "c", "swp3") "}],"
	" \"counters\": [{\"node\": \"sw\", \"guid\": \"0x0000000000000010\", \"port\": 1,"
	"   \"name\": \"symbol_errors\", \"value\": 7},"
	"   {\"node\": \"sw\", \"port\": \"swp2\", \"name\": \"rx_drops\", \"value\": 3},"
	"   {\"node\": \"sw\", \"port\": 2, \"name\": \"bad\", \"value\": \"x\"},"
	"   {\"node\": \"sw\", \"port\": 3, \"value\": 1}]}";

static char dir[64];

static const char *doc_write(const char *name, const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return path;
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/test_sweep_doc.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Load @text with the graph asked for or not: 0 or -errno, @err the reason. */
static int load(const char *text, bool topology, struct sweep_doc *d, struct sweep_report *r,
		struct fab_err *err)
{
	sweep_doc_init(d);
	memset(r, 0, sizeof(*r));
	fab_err_init(err);
	return sweep_doc_load(d, doc_write("doc.json", text), NULL, topology, r, err);
}

static void test_full(void **state)
{
	struct sweep_doc d;
	struct sweep_report r;
	struct sweep_pair p;
	struct fab_err err;

	assert_int_equal(load(doc_full, true, &d, &r, &err), 0);
	/* hosts from nodes[] */
	assert_int_equal(d.hosts.n, 3);
	assert_ptr_equal(r.hosts, &d.hosts);
	assert_string_equal(d.hosts.hosts[0].rdma, "mlx5_0");
	assert_int_equal(d.hosts.hosts[0].rdma_port, 2);
	assert_true(d.hosts.hosts[0].rate_gbps == 100);
	assert_string_equal(d.hosts.hosts[1].rdma, "");
	assert_string_equal(d.hosts.hosts[2].addr, "10.0.0.3");
	/* the run */
	assert_string_equal(r.transport, "tcp");
	assert_string_equal(r.launcher, "netns");
	assert_string_equal(r.mode, "all-pairs");
	assert_int_equal(r.n_rounds, 3);
	assert_int_equal(r.rounds_done, 2);
	assert_true(r.interrupted);
	assert_true(r.wall_s == 2.5);
	assert_int_equal(r.started_unix, 1700000000);
	/* the pairs, in order, with their verdicts */
	assert_int_equal(r.n_pairs, 3);
	assert_int_equal(pair_store_count(r.store), 3);
	assert_int_equal(r.n_ok, 1);
	assert_int_equal(r.n_slow, 1);
	assert_int_equal(r.n_failed + r.n_regressed, 0);
	assert_int_equal(pair_store_get(r.store, 0, &p, &err), 0);
	assert_int_equal(p.a, 0);
	assert_int_equal(p.b, 1);
	assert_int_equal(p.status, SWEEP_OK);
	assert_true(p.ab.measured && p.ab.avg_mbps == 900.5);
	assert_false(p.ba.measured);
	assert_true(p.expected_mbps == 1000 && p.pct_rated == 90.05);
	assert_int_equal(pair_store_get(r.store, 1, &p, &err), 0);
	assert_int_equal(p.a, 2);
	assert_int_equal(p.b, 0);
	assert_int_equal(p.status, SWEEP_SLOW);
	assert_int_equal(p.round, 2);
	assert_string_equal(p.reason, "bandwidth 100 Mb/s");
	assert_true(p.pct_rated == -1 && p.expected_mbps == 0);
	assert_int_equal(pair_store_get(r.store, 2, &p, &err), 0);
	assert_int_equal(p.status, SWEEP_PLANNED);
	/* the graph, the routes as saved, each host's access link and leaf */
	assert_non_null(d.topo);
	assert_string_equal(d.topo_source, "plan.yaml");
	assert_int_equal(d.topo->n_links, 3);
	assert_int_equal(d.n_routes, 3);
	assert_int_equal(d.routes[1].a, 2);
	assert_int_equal(d.routes[1].n_ab, 1);
	assert_int_equal(d.routes[1].ab[0].n_hops, 2);
	assert_int_equal(d.routes[1].klass, 2);
	for (unsigned int h = 0; h < 3; h++) {
		const struct topo_link *l = d.topo->links[d.host_link[h]];

		assert_true(d.host_link[h] < d.topo->n_links);
		assert_string_equal(l->a->node->name, d.hosts.hosts[h].name);
		assert_string_equal(d.topo->nodes[d.host_leaf[h]]->name, "sw");
	}
	/* the counter entries with a name and an integer value, as named */
	assert_true(d.have_counters);
	assert_int_equal(d.n_counters, 2);
	assert_string_equal(d.counters[0].name, "symbol_errors");
	assert_int_equal(d.counters[0].guid, 0x10);
	assert_int_equal(d.counters[0].num, 1);
	assert_null(d.counters[0].port);
	assert_int_equal(d.counters[0].value, 7);
	assert_string_equal(d.counters[1].port, "swp2");
	assert_ptr_equal(sweep_doc_counter_port(d.topo, &d.counters[1]),
			 d.topo->links[d.host_link[1]]->b);
	sweep_doc_fini(&d);
}

/*
 * A --steer sweep's pair: a -> b lists two members, the one its test took
 * marked "traced" -> that one alone, its whole share; b -> a unmarked ->
 * both, their shares as saved.
 */
static void test_traced(void **state)
{
	static const char doc[] =
		"{\"schema\": \"fabricctl.sweep/2\", \"transport\": \"tcp\", \"mode\": \"all-pairs\","
		" \"nodes\": [{\"name\": \"a\", \"address\": \"10.0.0.1\"},"
		"   {\"name\": \"b\", \"address\": \"10.0.0.2\"}],"
		" \"topology\": {\"source\": \"plan.yaml\","
		"   \"nodes\": [{\"name\": \"sw\", \"type\": \"switch\"}, {\"name\": \"a\", \"type\": \"host\"},"
		"     {\"name\": \"b\", \"type\": \"host\"}],"
		"   \"links\": [{\"a\": " END("a", "eth0") ", \"b\": " END("sw", "swp1") "},"
		"     {\"a\": " END("b", "eth0") ", \"b\": " END("sw", "swp2") "}]},"
		" \"pairs\": [{\"a\": \"a\", \"b\": \"b\", \"status\": \"slow\", \"reason\": \"x\","
		"   \"bw_ab\": {\"avg_mbps\": 100}, \"steer\": {\"traced\": true, \"steered\": true},"
		"   \"routes\": {\"ab\": [{\"share\": 0.5, \"hops\": [" HOP("a", "eth0", "sw", "swp1") "]},"
		"     {\"share\": 0.5, \"traced\": true, \"hops\": [" HOP("a", "eth0", "sw", "swp1") ", "
		"       " HOP("sw", "swp2", "b", "eth0") "]}],"
		"   \"ba\": [{\"share\": 0.25, \"hops\": [" HOP("b", "eth0", "sw", "swp2") "]},"
		"     {\"share\": 0.75, \"hops\": [" HOP("b", "eth0", "sw", "swp2") ", "
		"       " HOP("sw", "swp1", "a", "eth0") "]}]}}]}";
	struct sweep_doc d;
	struct sweep_report r;
	struct fab_err err;

	(void)state;
	assert_int_equal(load(doc, true, &d, &r, &err), 0);
	assert_int_equal(d.n_routes, 1);
	assert_int_equal(d.routes[0].n_ab, 1);
	assert_int_equal(d.routes[0].ab[0].n_hops, 2);
	assert_true(d.routes[0].ab[0].share == 1.0);
	assert_int_equal(d.routes[0].n_ba, 2);
	assert_true(d.routes[0].ba[0].share == 0.25 && d.routes[0].ba[1].share == 0.75);
	assert_int_equal(d.routes[0].ba[1].n_hops, 2);
	sweep_doc_fini(&d);
}

/*
 * --steer's confirming probes (localisation.confirming[]) read back: the
 * hosts, each direction's verdict and share, the link crossed alone, the
 * route on the saved graph; a host the sweep does not have and a hop on
 * no link are bad input naming the entry.
 */
#define CONFIRM_DOC(a, hop) \
	"{\"schema\": \"fabricctl.sweep/2\", \"transport\": \"tcp\", \"mode\": \"all-pairs\"," \
	" \"nodes\": [{\"name\": \"a\", \"address\": \"10.0.0.1\"}," \
	"   {\"name\": \"b\", \"address\": \"10.0.0.2\"}, {\"name\": \"c\", \"address\": \"10.0.0.3\"}]," \
	" \"topology\": {\"source\": \"plan.yaml\"," \
	"   \"nodes\": [{\"name\": \"sw\", \"type\": \"switch\"}, {\"name\": \"a\", \"type\": \"host\"}," \
	"     {\"name\": \"b\", \"type\": \"host\"}, {\"name\": \"c\", \"type\": \"host\"}]," \
	"   \"links\": [{\"a\": " END("a", "eth0") ", \"b\": " END("sw", "swp1") "}," \
	"     {\"a\": " END("b", "eth0") ", \"b\": " END("sw", "swp2") "}," \
	"     {\"a\": " END("c", "eth0") ", \"b\": " END("sw", "swp3") "}]}," \
	" \"pairs\": [{\"a\": \"a\", \"b\": \"b\", \"status\": \"slow\", \"reason\": \"x\"," \
	"   \"bw_ab\": {\"avg_mbps\": 100}, \"routes\": " ROUTE("a", "swp1", "b", "swp2") "}]," \
	" \"localisation\": {\"bad_pairs\": 1, \"confirming\": [{\"a\": \"" a "\", \"b\": \"c\"," \
	"   \"crosses\": {\"a\": " END("a", "eth0") ", \"b\": " END("sw", "swp1") "}," \
	"   \"dirs\": {\"ab\": {\"status\": \"slow\", \"pct_expected\": 20.5}," \
	"     \"ba\": {\"status\": \"ok\", \"pct_expected\": 97}}," \
	"   \"routes\": {\"ab\": [{\"share\": 1, \"hops\": [" hop ", " HOP("sw", "swp3", "c", "eth0") "]}]," \
	"     \"ba\": [{\"share\": 1, \"hops\": [" HOP("c", "eth0", "sw", "swp3") ", " \
	HOP("sw", "swp1", "a", "eth0") "]}]}}]}}"

static void test_confirming(void **state)
{
	struct sweep_doc d;
	struct sweep_report r;
	struct fab_err err;

	(void)state;
	assert_int_equal(load(CONFIRM_DOC("a", HOP("a", "eth0", "sw", "swp1")), true, &d, &r, &err), 0);
	assert_int_equal(d.n_confirm, 1);
	assert_int_equal(d.confirm[0].a, 0);
	assert_int_equal(d.confirm[0].b, 2);
	assert_int_equal(d.confirm[0].link, 0);		/* a eth0 <-> sw swp1 */
	assert_int_equal(d.confirm[0].d.v[0], LOC_SLOW);
	assert_int_equal(d.confirm[0].d.v[1], LOC_OK);
	assert_true(d.confirm[0].d.pct[0] == 20.5 && d.confirm[0].d.pct[1] == 97);
	assert_int_equal(d.confirm[0].route.n_ab, 1);
	assert_int_equal(d.confirm[0].route.n_ba, 1);
	assert_int_equal(d.confirm[0].route.ab[0].n_hops, 2);
	assert_int_equal(d.confirm[0].route.ab[0].hops[0].link, 0);
	assert_int_equal(d.confirm[0].route.ab[0].hops[1].link, 2);
	sweep_doc_fini(&d);
	/* without the graph asked for (a live one instead), nothing is read */
	assert_int_equal(load(CONFIRM_DOC("a", HOP("a", "eth0", "sw", "swp1")), false, &d, &r, &err), 0);
	assert_int_equal(d.n_confirm, 0);
	sweep_doc_fini(&d);
	assert_int_equal(load(CONFIRM_DOC("x", HOP("a", "eth0", "sw", "swp1")), true, &d, &r, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "localisation.confirming[0]: 'x' is not a host of the sweep"));
	sweep_doc_fini(&d);
	assert_int_equal(load(CONFIRM_DOC("a", HOP("a", "eth9", "sw", "swp1")), true, &d, &r, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "localisation.confirming[0].routes: a hop names no link"));
	sweep_doc_fini(&d);
}

/* Without the graph asked for, none is read; a document without one says "-" where it is silent. */
static void test_no_topology(void **state)
{
	static const char bare[] =
		"{\"schema\": \"fabricctl.sweep/1\", \"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}],"
		" \"pairs\": [{\"a\": \"a\", \"b\": \"b\", \"status\": \"failed\"}]}";
	struct sweep_doc d;
	struct sweep_report r;
	struct fab_err err;

	assert_int_equal(load(doc_full, false, &d, &r, &err), 0);
	assert_null(d.topo);
	assert_null(d.routes);
	sweep_doc_fini(&d);
	assert_int_equal(load(bare, true, &d, &r, &err), 0);
	assert_null(d.topo);
	assert_null(d.topo_source);
	assert_string_equal(r.transport, "-");
	assert_string_equal(r.mode, "-");
	assert_int_equal(r.n_failed, 1);
	assert_int_equal(r.n_rounds, 0);
	assert_true(isnan(r.wall_s));
	assert_false(d.have_counters);
	sweep_doc_fini(&d);
}

/* Bad input: the file and the element named, kind input. */
static void test_bad(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "{\"schema\": \"fabricctl.status/1\"}", "not a fabricctl.sweep document" },
		{ "{\"schema\": \"fabricctl.sweep/2\", \"nodes\": [{\"name\": \"a b\"}]}",
		  "nodes[0].name: missing or not a host name" },
		{ "{\"schema\": \"fabricctl.sweep/2\", \"nodes\": [{\"name\": \"a\"}],"
		  " \"pairs\": [{\"a\": \"a\", \"b\": \"z\"}]}",
		  "pairs[0]: 'z' is not a host of the sweep" },
		{ "{\"schema\": \"fabricctl.sweep/2\", \"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}],"
		  " \"topology\": {\"nodes\": [], \"links\": []},"
		  " \"pairs\": [{\"a\": \"a\", \"b\": \"b\"}]}",
		  "pairs[0] has no routes: give --topology SOURCE" },
		{ "{\"schema\": \"fabricctl.sweep/2\", \"nodes\": [{\"name\": \"a\"}, {\"name\": \"b\"}],"
		  " \"topology\": {\"nodes\": [{\"name\": \"a\"}], \"links\": [{\"a\": {\"node\": \"x\"}}]},"
		  " \"pairs\": []}",
		  "topology.links[0]: bad link" },
	};
	struct sweep_doc d;
	struct sweep_report r;
	struct fab_err err;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(load(cases[i].text, true, &d, &r, &err), -EINVAL);
		assert_int_equal(err.kind, FAB_ERR_INPUT);
		assert_non_null(strstr(err.msg, "doc.json: "));
		assert_non_null(strstr(err.msg, cases[i].msg));
		sweep_doc_fini(&d);
	}
}

/* Two bonded hosts: ha's a2 slow, hb's b2 dead (its switch port named), as sweep -j writes them. */
#define LEG(m, up, port, bw, v, fault, sw, swp, finding) \
	"{\"member\": \"" m "\", \"link_up\": " up ", \"sport\": " port ", \"bw_mbps\": " bw "," \
	" \"bytes\": 1000, \"tx_bytes\": 1010, \"verdict\": \"" v "\", \"fault\": " fault "," \
	" \"switch\": " sw ", \"switch_port\": " swp ", \"finding\": " finding "}"
#define LEGS_DOC(ab_legs, extra) \
	"{\"schema\": \"fabricctl.sweep/2\", \"nodes\": [{\"name\": \"hx\"}, {\"name\": \"ha\"}," \
	" {\"name\": \"hb\"}], \"pairs\": [{\"a\": \"hx\", \"b\": \"ha\", \"status\": \"ok\"}," \
	" {\"a\": \"ha\", \"b\": \"hb\", \"status\": \"ok\", \"legs\": {\"ab\": {\"node\": \"ha\"," \
	" \"bond\": \"bond0\", \"mode\": \"balance-xor\", \"xmit_hash_policy\": \"layer3+4\"," \
	" \"dport\": 29099, \"trials\": 2, \"unclear\": 0, \"ref_mbps\": 19.0, \"why\": null," \
	" \"legs\": [" ab_legs "]}, \"ba\": {\"node\": \"hb\", \"bond\": \"bond0\"," \
	" \"mode\": \"balance-xor\", \"xmit_hash_policy\": \"layer3+4\", \"dport\": 29099," \
	" \"trials\": 1, \"unclear\": 0, \"ref_mbps\": 18.0," \
	" \"why\": \"member link down: no trial flow landed on it\", \"legs\": [" \
	LEG("b1", "true", "29116", "18.0", "ok", "false", "null", "null", "null") ", " \
	LEG("b2", "false", "null", "null", "dead", "true", "\"s2\"", "\"b2s\"", \
	    "\"dead leg: hb b2 (switch s2 port b2s): member link down\"") "]}}}" extra "]}"
#define AB_LEGS \
	LEG("a1", "true", "29100", "19.0", "ok", "false", "null", "null", "null") ", " \
	LEG("a2", "true", "29101", "3.9", "slow", "true", "null", "null", \
	    "\"slow leg: ha a2: 4 of 19 Mbit/s\"")

/* A saved sweep's legs as the sweep judged them (diagnose --from); bad legs named. */
static void test_legs(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ LEGS_DOC(LEG("a1", "true", "1", "1", "meh", "false", "null", "null", "null"), ""),
		  "pairs[1].legs.ab.legs[0]: \"verdict\" is none of ok, slow, dead, untested" },
		{ LEGS_DOC("{\"sport\": 1}", ""), "pairs[1].legs.ab.legs[0]: no \"member\"" },
		{ LEGS_DOC(AB_LEGS, ", {\"a\": \"hx\", \"b\": \"hb\", \"legs\": 3}"),
		  "pairs[2].legs: not an object" },
	};
	const struct bond_legs_dir *ab, *ba;
	struct sweep_doc d;
	struct sweep_report r;
	struct fab_err err;

	assert_int_equal(load(LEGS_DOC(AB_LEGS, ""), false, &d, &r, &err), 0);
	assert_int_equal(r.n_legs, 1);
	assert_int_equal(r.n_legs_bad, 2);
	assert_int_equal(r.legs[0].index, 1);
	assert_string_equal(r.hosts->hosts[r.legs[0].a].name, "ha");
	assert_string_equal(r.hosts->hosts[r.legs[0].b].name, "hb");
	ab = &r.legs[0].ab;
	ba = &r.legs[0].ba;
	assert_true(ab->run && ba->run);
	assert_string_equal(ab->node, "ha");
	assert_int_equal(ab->mode, FAB_BOND_MODE_BALANCE_XOR);
	assert_int_equal(ab->policy, FAB_BOND_XMIT_LAYER34);
	assert_int_equal(ab->n_legs, 2);
	assert_int_equal(ab->n_bad, 1);
	assert_null(ab->why);
	assert_int_equal(ab->legs[1].verdict, BOND_LEG_SLOW);
	assert_int_equal(ab->legs[1].sport, 29101);
	assert_true(ab->legs[1].mbps > 3.89 && ab->legs[1].mbps < 3.91);
	assert_int_equal(ab->legs[1].tx_delta, 1010);
	assert_string_equal(ab->legs[1].finding, "slow leg: ha a2: 4 of 19 Mbit/s");
	assert_false(ab->legs[0].fault);
	assert_string_equal(ba->why, "member link down: no trial flow landed on it");
	assert_int_equal(ba->legs[1].verdict, BOND_LEG_DEAD);
	assert_int_equal(ba->legs[1].sport, 0);
	assert_false(ba->legs[1].failed);
	assert_false(ba->legs[1].link_up);
	assert_string_equal(ba->legs[1].sw_node, "s2");
	assert_string_equal(ba->legs[1].sw_port, "b2s");
	sweep_doc_fini(&d);

	assert_int_equal(load(doc_full, false, &d, &r, &err), 0);
	assert_null(r.legs);
	assert_int_equal(r.n_legs, 0);
	sweep_doc_fini(&d);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load(bad[i].text, false, &d, &r, &err), -EINVAL);
		assert_int_equal(err.kind, FAB_ERR_INPUT);
		assert_non_null(strstr(err.msg, "doc.json: "));
		assert_non_null(strstr(err.msg, bad[i].msg));
		sweep_doc_fini(&d);
	}
}

/* A sweep whose worker did not answer the bond request, as sweep -j writes it (legs.not_measured). */
#define UNMEASURED_DOC(nm) \
	"{\"schema\": \"fabricctl.sweep/2\", \"nodes\": [{\"name\": \"hx\"}, {\"name\": \"ha\"}," \
	" {\"name\": \"hb\"}], \"pairs\": [{\"a\": \"hx\", \"b\": \"ha\", \"status\": \"ok\"}," \
	" {\"a\": \"ha\", \"b\": \"hb\", \"status\": \"ok\"}], \"legs\": {\"pairs\": 0, \"bad\": 0," \
	" \"findings\": [], \"not_measured\": " nm "}}"
#define NOTE "legs not measured: worker did not answer the bond request: "

static char *render_to_string(const struct render_ops *ops, const struct sweep_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	struct render out = { .ops = ops, .f = open_memstream(&buf, &len) };

	assert_non_null(out.f);
	assert_int_equal(ops->sweep(&out, r), 0);
	fclose(out.f);
	return buf;
}

/*
 * legs.not_measured[] read back (diagnose --from): each host and its
 * worker's reason, said by the text and the JSON as the sweep said them;
 * an older document without it reads as none; bad entries named.
 */
static void test_legs_unmeasured(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ UNMEASURED_DOC("3"), "legs.not_measured: not an array" },
		{ UNMEASURED_DOC("[{\"node\": \"hq\", \"note\": \"" NOTE "x\"}]"),
		  "legs.not_measured[0]: 'hq' is not a host of the sweep" },
		{ UNMEASURED_DOC("[{\"node\": \"hb\", \"note\": \"" NOTE "x\"}, {\"note\": \"x\"}]"),
		  "legs.not_measured[1]: want {node, note}" },
		{ UNMEASURED_DOC("[{\"node\": \"hb\", \"note\": \"slow\"}]"),
		  "legs.not_measured[0]: \"note\" does not start \"" NOTE "\"" },
		{ "{\"schema\": \"fabricctl.sweep/2\", \"nodes\": [{\"name\": \"ha\"}, {\"name\": \"hb\"}],"
		  " \"pairs\": [], \"legs\": []}", "legs: not an object" },
	};
	const char *nm = "[{\"node\": \"hb\", \"note\": \"" NOTE "unknown op 'bond'\"},"
			 " {\"node\": \"hx\", \"note\": \"" NOTE "no answer within 10000 ms\"}]";
	char doc[2048];
	struct sweep_doc d;
	struct sweep_report r;
	struct fab_err err;
	json_error_t jerr;
	json_t *saved, *out;
	char *got;

	(void)state;
	snprintf(doc, sizeof(doc), UNMEASURED_DOC("%s"), nm);
	assert_int_equal(load(doc, false, &d, &r, &err), 0);
	assert_int_equal(r.n_legs_unanswered, 2);
	assert_null(r.legs);
	assert_string_equal(r.hosts->hosts[r.legs_unanswered[0].host].name, "hb");
	assert_string_equal(r.legs_unanswered[0].why, "unknown op 'bond'");
	assert_string_equal(r.hosts->hosts[r.legs_unanswered[1].host].name, "hx");
	assert_string_equal(r.legs_unanswered[1].why, "no answer within 10000 ms");
	/* Said as the sweep said it: the JSON's entries as saved, the text's headline and list. */
	got = render_to_string(&render_json_ops, &r);
	out = json_loads(got, 0, &jerr);
	saved = json_loads(doc, 0, &jerr);
	assert_non_null(out);
	assert_non_null(saved);
	assert_true(json_equal(json_object_get(json_object_get(out, "legs"), "not_measured"),
			       json_object_get(json_object_get(saved, "legs"), "not_measured")));
	json_decref(out);
	json_decref(saved);
	free(got);
	got = render_to_string(&render_text_ops, &r);
	assert_non_null(strstr(got, "; legs of 2 hosts not measured\n"));
	assert_non_null(strstr(got, "\n  hb: " NOTE "unknown op 'bond'\n"));
	assert_non_null(strstr(got, "\n  hx: " NOTE "no answer within 10000 ms\n"));
	free(got);
	sweep_doc_fini(&d);

	/* Older documents: no "legs", or legs without not_measured (null). */
	assert_int_equal(load(doc_full, false, &d, &r, &err), 0);
	assert_int_equal(r.n_legs_unanswered, 0);
	assert_null(r.legs_unanswered);
	sweep_doc_fini(&d);
	assert_int_equal(load(UNMEASURED_DOC("null"), false, &d, &r, &err), 0);
	assert_int_equal(r.n_legs_unanswered, 0);
	sweep_doc_fini(&d);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(load(bad[i].text, false, &d, &r, &err), -EINVAL);
		assert_int_equal(err.kind, FAB_ERR_INPUT);
		assert_non_null(strstr(err.msg, "doc.json: "));
		if (!strstr(err.msg, bad[i].msg))
			fprintf(stderr, "got: %s\nwant: %s\n", err.msg, bad[i].msg);
		assert_non_null(strstr(err.msg, bad[i].msg));
		sweep_doc_fini(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_traced),
		cmocka_unit_test(test_confirming),
		cmocka_unit_test(test_no_topology),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_legs),
		cmocka_unit_test(test_legs_unmeasured),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
