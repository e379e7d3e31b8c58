// SPDX-License-Identifier: GPL-2.0-or-later
/* Hosts-file and pairs-file parsers: fields, labels, file:line:col errors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/hosts.h"

static int parse(struct fab_hosts *hs, const char *text, struct fab_err *err)
{
	hosts_init(hs);
	fab_err_init(err);
	return hosts_parse(hs, text, strlen(text), "hosts", err);
}

static void test_good_file(void **state)
{
	const char *text =
		"# fleet\n"
		"\n"
		"node07 10.0.1.7 rdma=mlx5_0 leaf=L2\n"
		"  node08\t10.0.1.8   rdma=mlx5_1:2 rack=r1 new   # added in May\n"
		"node09 fd00::9 rate_gbps=100 port=swp3 new=no\r\n"
		"node10 10.0.1.10";
	struct fab_hosts hs;
	struct fab_err err;

	assert_int_equal(parse(&hs, text, &err), 0);
	assert_int_equal(hs.n, 4);
	assert_string_equal(hs.hosts[0].name, "node07");
	assert_string_equal(hs.hosts[0].addr, "10.0.1.7");
	assert_string_equal(hs.hosts[0].rdma, "mlx5_0");
	assert_int_equal(hs.hosts[0].rdma_port, 0);
	assert_string_equal(hs.hosts[0].leaf, "L2");
	assert_false(hs.hosts[0].is_new);
	assert_int_equal(hs.hosts[0].line, 3);
	assert_string_equal(hs.hosts[1].rdma, "mlx5_1");
	assert_int_equal(hs.hosts[1].rdma_port, 2);
	assert_string_equal(hs.hosts[1].rack, "r1");
	assert_true(hs.hosts[1].is_new);
	assert_int_equal(hs.hosts[1].n_labels, 3);
	assert_string_equal(hs.hosts[2].addr, "fd00::9");
	assert_true(hs.hosts[2].rate_gbps == 100);
	assert_false(hs.hosts[2].is_new);
	/* Unknown keys are kept as labels. */
	assert_string_equal(hs.hosts[2].labels[1].key, "port");
	assert_string_equal(hs.hosts[2].labels[1].value, "swp3");
	assert_string_equal(hs.hosts[3].addr, "10.0.1.10");
	assert_int_equal(hosts_find(&hs, "node09"), 2);
	assert_int_equal(hosts_find(&hs, "node9"), -1);
	hosts_fini(&hs);
}

static void expect_error(const char *text, const char *msg)
{
	struct fab_hosts hs;
	struct fab_err err;

	assert_true(parse(&hs, text, &err) < 0);
	assert_int_equal(err.kind, FAB_ERR_INPUT);
	assert_string_equal(err.msg, msg);
	hosts_fini(&hs);
}

static void test_errors(void **state)
{
	expect_error("a 10.0.0.1\nb\n", "hosts:2:2: missing address: want NAME ADDRESS [key=value ...]");
	expect_error("a 10.0.0.300\n", "hosts:1:3: bad address '10.0.0.300': want an IPv4 or IPv6 address");
	expect_error("a 10.0.0.1\n\n# x\na 10.0.0.2\n",
		     "hosts:4:1: host 'a' listed twice (first at line 1)");
	expect_error("-oProxyCommand=x 10.0.0.1\n", "hosts:1:1: bad host name '-oProxyCommand=x': want letters, digits, '.', '_', '-' or '@', not starting with '-'");
	expect_error("a;reboot 10.0.0.1\n", "hosts:1:1: bad host name 'a;reboot': want letters, digits, '.', '_', '-' or '@', not starting with '-'");
	expect_error("a 10.0.0.1 leaf\n", "hosts:1:12: label 'leaf' needs a value (key=value)");
	expect_error("a 10.0.0.1 =x\n", "hosts:1:12: bad label '=x': want key=value");
	expect_error("a 10.0.0.1 Leaf=x\n", "hosts:1:12: bad label key 'Leaf': want lowercase letters, digits and '_' (e.g. leaf=, rate_gbps=)");
	expect_error("a 10.0.0.1 leaf=x leaf=y\n", "hosts:1:19: label 'leaf' given twice");
	expect_error("a 10.0.0.1 rdma=mlx5_0:0\n", "hosts:1:17: rdma=mlx5_0:0: want DEV or DEV:PORT");
	expect_error("a 10.0.0.1 rate_gbps=fast\n", "hosts:1:22: rate_gbps=fast: want a positive number");
	expect_error("a 10.0.0.1 new=maybe\n", "hosts:1:16: new=maybe: want yes or no");
	expect_error("# nothing\n\n", "hosts: no hosts");
	expect_error("", "hosts: no hosts");
}

/*
 * Label values follow the names' character rule (plus '/', ':', ','): bytes
 * that are not UTF-8 would drop the host from -j's nodes[], escapes would
 * reach the terminal.  The error names the value's bad byte, escaped.
 */
static void test_label_values(void **state)
{
	struct fab_hosts hs;
	struct fab_err err;

	expect_error("a 10.0.0.1 leaf=\xff\xfe\n",
		     "hosts:1:17: label 'leaf': bad character '\\xff' in its value: want letters, "
		     "digits, '.', '_', '-', '@', '/', ':' or ','");
	expect_error("a 10.0.0.1\nb 10.0.0.2 rack=r1 leaf=L\x1b]0;owned\a\n",
		     "hosts:2:26: label 'leaf': bad character '\\x1b' in its value: want letters, "
		     "digits, '.', '_', '-', '@', '/', ':' or ','");
	expect_error("a 10.0.0.1 note=\xc2\x9b" "2J\n",
		     "hosts:1:17: label 'note': bad character '\\xc2' in its value: want letters, "
		     "digits, '.', '_', '-', '@', '/', ':' or ','");
	expect_error("a 10.0.0.1 x=a$b\n",
		     "hosts:1:15: label 'x': bad character '$' in its value: want letters, "
		     "digits, '.', '_', '-', '@', '/', ':' or ','");
	/* Error messages show a bad field with its control characters escaped. */
	expect_error("a\x1b[2J 10.0.0.1\n", "hosts:1:1: bad host name 'a\\x1b[2J': want letters, digits, "
		     "'.', '_', '-' or '@', not starting with '-'");
	expect_error("a 10.0.0.1 L\x1b=x\n", "hosts:1:12: bad label key 'L\\x1b': want lowercase letters, "
		     "digits and '_' (e.g. leaf=, rate_gbps=)");
	/* What the lab and the docs write still parses. */
	assert_int_equal(parse(&hs, "h1 10.0.0.1 rdma=mlx5_0:1 leaf=fab1-leaf1 leaf_port=swp1 "
			 "lldp_socket=/run/fabricctl-lab/fab1/lldp/h1.sock rack=r3 ifname=eth0 new\n",
			 &err), 0);
	assert_string_equal(hs.hosts[0].leaf, "fab1-leaf1");
	hosts_fini(&hs);
}

/* The data-path address must be this node's own unicast address. */
static void test_wildcard_addresses(void **state)
{
	struct fab_hosts hs;
	struct fab_err err;
	const char ok[] = "a 10.0.0.1\nb fd00::2\nc ::ffff:10.0.0.3\nd 127.0.0.1\n";

	expect_error("a 10.0.0.1\nb 0.0.0.0\n",
		     "hosts:2:3: address '0.0.0.0' is a wildcard address (0.0.0.0/8): "
		     "want this node's own unicast address");
	expect_error("a ::\n", "hosts:1:3: address '::' is the wildcard address (::): "
		     "want this node's own unicast address");
	expect_error("a 0::0\n", "hosts:1:3: address '0::0' is the wildcard address (::): "
		     "want this node's own unicast address");
	expect_error("a  0.1.2.3 leaf=x\n", "hosts:1:4: address '0.1.2.3' is a wildcard address "
		     "(0.0.0.0/8): want this node's own unicast address");
	expect_error("a ::ffff:0.0.0.0\n", "hosts:1:3: address '::ffff:0.0.0.0' is a wildcard "
		     "address (0.0.0.0/8): want this node's own unicast address");
	expect_error("a 239.1.2.3\n", "hosts:1:3: address '239.1.2.3' is a multicast address: "
		     "want this node's own unicast address");
	expect_error("a ff02::1\n", "hosts:1:3: address 'ff02::1' is a multicast address: "
		     "want this node's own unicast address");
	expect_error("a 255.255.255.255\n", "hosts:1:3: address '255.255.255.255' is the "
		     "broadcast address: want this node's own unicast address");
	expect_error("a 240.0.0.1\n", "hosts:1:3: address '240.0.0.1' is a reserved address "
		     "(240.0.0.0/4): want this node's own unicast address");
	assert_int_equal(parse(&hs, ok, &err), 0);
	assert_int_equal(hs.n, 4);
	hosts_fini(&hs);
	assert_null(hosts_addr_unusable("10.1.2.3"));
	assert_null(hosts_addr_unusable("fe80::1"));
	assert_string_equal(hosts_addr_unusable("::"), "the wildcard address (::)");
	assert_string_equal(hosts_addr_unusable("nonsense"), "not an IPv4 or IPv6 address");
}

/* Each node its own address: the second holder of one is bad input naming both lines. */
static void test_duplicate_addresses(void **state)
{
	struct fab_hosts hs;
	struct fab_err err;

	expect_error("a 10.0.0.1\nb 10.0.0.2\n# c\nc 10.0.0.1\n",
		     "hosts:4: host 'c' has the same address as host 'a' on line 1 (10.0.0.1): "
		     "want each node's own address");
	/* The same address written two ways (IPv4 and IPv4-mapped IPv6, zeros). */
	expect_error("a 10.0.0.3\nb ::ffff:10.0.0.3\n",
		     "hosts:2: host 'b' has the same address as host 'a' on line 1 (10.0.0.3): "
		     "want each node's own address");
	expect_error("a fd00::2\nb fd00:0:0::0:2\n",
		     "hosts:2: host 'b' has the same address as host 'a' on line 1 (fd00::2): "
		     "want each node's own address");
	/* Of several, the earliest repeat is named, with its first holder. */
	expect_error("a 10.0.0.9\nb 10.0.0.5\nc 10.0.0.5\nd 10.0.0.9\ne 10.0.0.9\n",
		     "hosts:3: host 'c' has the same address as host 'b' on line 2 (10.0.0.5): "
		     "want each node's own address");
	assert_int_equal(parse(&hs, "a 10.0.0.1\nb 10.0.0.2\nc 10.0.1.1\nd fd00::1\n", &err), 0);
	assert_int_equal(hs.n, 4);
	hosts_fini(&hs);
}

static void test_nul_and_limits(void **state)
{
	struct fab_hosts hs;
	struct fab_err err;
	const char text[] = "a 10.0.0.1\nb\0 10.0.0.2\n";
	char many[1024] = "a 10.0.0.1";

	hosts_init(&hs);
	fab_err_init(&err);
	assert_true(hosts_parse(&hs, text, sizeof(text) - 1, "h", &err) < 0);
	assert_string_equal(err.msg, "h:2: NUL byte in line");
	hosts_fini(&hs);
	for (int i = 0; i < 17; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), " k%d=v", i);
	expect_error(many, "hosts:1: more than 16 labels");
}

static void test_pairs(void **state)
{
	struct fab_pairs_list pl;
	struct fab_hosts hs;
	struct fab_err err;

	assert_int_equal(parse(&hs, "a 10.0.0.1\nb 10.0.0.2\nc 10.0.0.3\n", &err), 0);
	assert_int_equal(hosts_pairs_parse(&pl, &hs, "# p\na b\n c  a # x\n", 18, "p", &err), 0);
	assert_int_equal(pl.n, 2);
	assert_int_equal(pl.pairs[0][0], 0);
	assert_int_equal(pl.pairs[0][1], 1);
	assert_int_equal(pl.pairs[1][0], 2);
	assert_int_equal(pl.pairs[1][1], 0);
	hosts_pairs_fini(&pl);
	assert_true(hosts_pairs_parse(&pl, &hs, "a b\nb a\n", 8, "p", &err) < 0);
	assert_string_equal(err.msg, "p:2: pair b a listed twice (first at line 1)");
	hosts_pairs_fini(&pl);
	assert_true(hosts_pairs_parse(&pl, &hs, "a d\n", 4, "p", &err) < 0);
	assert_string_equal(err.msg, "p:1:3: 'd' is not in the hosts file");
	hosts_pairs_fini(&pl);
	assert_true(hosts_pairs_parse(&pl, &hs, "a a\n", 4, "p", &err) < 0);
	assert_string_equal(err.msg, "p:1:3: a pair needs two different hosts");
	hosts_pairs_fini(&pl);
	assert_true(hosts_pairs_parse(&pl, &hs, "a b c\n", 6, "p", &err) < 0);
	assert_string_equal(err.msg, "p:1: want two host names");
	hosts_pairs_fini(&pl);
	hosts_fini(&hs);
}

/* role= lines are fabric nodes (switches), not end points; order kept. */
static void test_split_role(void **state)
{
	const char *txt = "h1 10.0.0.1 leaf=l1\nleaf1 10.0.254.1 role=leaf\n"
			  "h2 10.0.0.2 role=host\nspine1 10.0.254.2 role=spine\n";
	struct fab_hosts hs, ends, fab;
	struct fab_err err;

	(void)state;
	fab_err_init(&err);
	hosts_init(&hs);
	hosts_init(&ends);
	hosts_init(&fab);
	assert_int_equal(hosts_parse(&hs, txt, strlen(txt), "h", &err), 0);
	assert_int_equal(hosts_split_role(&hs, &ends, &fab), 0);
	assert_int_equal(ends.n, 2);
	assert_string_equal(ends.hosts[0].name, "h1");
	assert_string_equal(ends.hosts[1].name, "h2");
	assert_int_equal(ends.hosts[1].line, 3);
	assert_int_equal(fab.n, 2);
	assert_string_equal(fab.hosts[0].name, "leaf1");
	assert_string_equal(fab.hosts[1].name, "spine1");
	assert_false(hosts_is_endpoint(&fab.hosts[1]));
	hosts_fini(&hs);
	hosts_fini(&ends);
	hosts_fini(&fab);
}

/* A host on several lines, each with its ifname=: one node, several end points. */
static void test_ports(void **state)
{
	const char *text =
		"gpu1 10.0.0.1 ifname=eth0 rdma=mlx5_0 leaf=r0l1 new\n"
		"gpu2 10.0.0.2\n"
		"gpu1 10.0.1.1 ifname=eth1 rdma=mlx5_1:1 leaf=r1l1\n"
		"gpu3 10.0.0.3 ifname=eth0 rail=0\n"
		"gpu3 10.0.1.3 ifname=eth1 rail=1 new=no\n";
	struct fab_hosts hs, nodes;
	struct fab_err err;

	assert_int_equal(parse(&hs, text, &err), 0);
	assert_int_equal(hs.n, 5);
	assert_string_equal(hs.hosts[0].name, "gpu1:eth0");
	assert_string_equal(hs.hosts[0].node, "gpu1");
	assert_string_equal(hs.hosts[0].nic, "eth0");
	assert_int_equal(hs.hosts[0].rail, 0);
	assert_int_equal(hs.hosts[0].port, 0);
	assert_int_equal(hs.hosts[0].n_ports, 2);
	assert_string_equal(hs.hosts[2].name, "gpu1:eth1");
	assert_string_equal(hs.hosts[2].rdma, "mlx5_1");
	assert_string_equal(hs.hosts[2].leaf, "r1l1");
	assert_int_equal(hs.hosts[2].rail, 1);
	assert_int_equal(hs.hosts[2].port, 1);
	/* new is the node's: given on one line, it holds for all. */
	assert_true(hs.hosts[2].is_new);
	assert_string_equal(hosts_label(&hs.hosts[2], "new"), "");
	/* A one-line host keeps its name and has no rail. */
	assert_string_equal(hs.hosts[1].name, "gpu2");
	assert_int_equal(hs.hosts[1].rail, -1);
	assert_int_equal(hs.hosts[1].n_ports, 1);
	assert_int_equal(hs.hosts[4].rail, 1);
	assert_false(hs.hosts[3].is_new);
	assert_int_equal(hosts_find(&hs, "gpu1:eth1"), 2);
	assert_int_equal(hosts_find(&hs, "gpu1"), -1);
	assert_int_equal(hosts_find_node(&hs, "gpu1"), 0);
	assert_int_equal(hosts_find_node(&hs, "gpu3"), 3);
	assert_true(hosts_have_rails(&hs));
	/* Pairing: other nodes, same rail; gpu2 (no rail) with every rail. */
	assert_true(hosts_ports_pair(&hs.hosts[0], &hs.hosts[3], false));
	assert_false(hosts_ports_pair(&hs.hosts[0], &hs.hosts[4], false));
	assert_true(hosts_ports_pair(&hs.hosts[0], &hs.hosts[4], true));
	assert_false(hosts_ports_pair(&hs.hosts[0], &hs.hosts[2], true));
	assert_true(hosts_ports_pair(&hs.hosts[1], &hs.hosts[4], false));
	/* The nodes, once each, by NAME. */
	hosts_init(&nodes);
	assert_int_equal(hosts_nodes(&hs, &nodes), 0);
	assert_int_equal(nodes.n, 3);
	assert_string_equal(nodes.hosts[0].name, "gpu1");
	assert_string_equal(nodes.hosts[1].name, "gpu2");
	assert_string_equal(nodes.hosts[2].name, "gpu3");
	assert_string_equal(nodes.hosts[2].addr, "10.0.0.3");
	hosts_fini(&nodes);
	hosts_fini(&hs);
}

/* A file without ports: no rails, names as written. */
static void test_ports_none(void **state)
{
	struct fab_hosts hs;
	struct fab_err err;

	assert_int_equal(parse(&hs, "a 10.0.0.1 ifname=eth3\nb 10.0.0.2\n", &err), 0);
	assert_string_equal(hs.hosts[0].name, "a");
	assert_string_equal(hs.hosts[0].nic, "eth3");
	assert_false(hosts_have_rails(&hs));
	assert_true(hosts_ports_pair(&hs.hosts[0], &hs.hosts[1], false));
	hosts_fini(&hs);
}

static void test_ports_errors(void **state)
{
	expect_error("a 10.0.0.1 ifname=eth0\na 10.0.0.2\n",
		     "hosts:2:1: host 'a' listed twice (first at line 1): a host of several fabric ports names each one's ifname= on its line");
	expect_error("a 10.0.0.1\n a 10.0.0.2 ifname=eth1\n",
		     "hosts:2:2: host 'a' listed twice (first at line 1): a host of several fabric ports names each one's ifname= on its line");
	expect_error("a 10.0.0.1 ifname=eth0\nb 10.0.0.3\na 10.0.0.2 ifname=eth0\n",
		     "hosts:3:1: host 'a': ifname 'eth0' listed twice (first at line 1)");
	expect_error("a 10.0.0.1 ifname=eth0\na 10.0.0.1 ifname=eth1\n",
		     "hosts:2: host 'a' has the same address as host 'a' on line 1 (10.0.0.1): want each node's own address");
	expect_error("a 10.0.0.1 ifname=a/b\n",
		     "hosts:1:19: ifname=a/b: want an interface name (at most 15 characters, no '/', ':' or ',')");
	expect_error("a 10.0.0.1 ifname=abcdefghijklmnop\n",
		     "hosts:1:19: ifname=abcdefghijklmnop: want an interface name (at most 15 characters, no '/', ':' or ',')");
	expect_error("a 10.0.0.1 rail=x\n", "hosts:1:17: rail=x: want a rail number 0..1023");
	expect_error("a 10.0.0.1 rail=1024\n", "hosts:1:17: rail=1024: want a rail number 0..1023");
	expect_error("a 10.0.0.1 ifname=e0 rail=1\na 10.0.0.2 ifname=e1\n",
		     "hosts:2: rail: host 'a' has rail 1 on line 1 too (ifname e0): one port a rail");
	expect_error("a 10.0.0.1 ifname=e0 new\na 10.0.0.2 ifname=e1 new=no\n",
		     "hosts:2: new: host 'a' has another new on line 1: a host's lines share it");
	expect_error("a 10.0.0.1 ifname=e0 rack=r1\na 10.0.0.2 ifname=e1 rack=r2\n",
		     "hosts:2: rack: host 'a' has another rack on line 1: a host's lines share it");
	{
		struct fab_hosts hs;
		struct fab_pairs_list pl;
		struct fab_err err;
		const char *p = "a:e1 b\n";

		assert_int_equal(parse(&hs, "a 10.0.0.1 ifname=e0\na 10.0.1.1 ifname=e1\nb 10.0.0.2\n", &err), 0);
		assert_int_equal(hosts_pairs_parse(&pl, &hs, p, strlen(p), "p", &err), 0);
		assert_int_equal(pl.n, 1);
		assert_int_equal(pl.pairs[0][0], 1);
		hosts_pairs_fini(&pl);
		p = "b a\n";
		assert_true(hosts_pairs_parse(&pl, &hs, p, strlen(p), "p", &err) < 0);
		assert_string_equal(err.msg, "p:1:3: 'a' is a host of several fabric ports: name one of them (a:e0)");
		hosts_fini(&hs);
	}
	expect_error("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 10.0.0.1 ifname=e0\n"
		     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 10.0.0.2 ifname=e1\n",
		     "hosts:1: ifname=e0: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:e0' is longer than 63 characters");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_file),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_label_values),
		cmocka_unit_test(test_wildcard_addresses),
		cmocka_unit_test(test_duplicate_addresses),
		cmocka_unit_test(test_nul_and_limits),
		cmocka_unit_test(test_pairs),
		cmocka_unit_test(test_split_role),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_ports_none),
		cmocka_unit_test(test_ports_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
