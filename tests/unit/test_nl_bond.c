// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nl_bond_link_parse (src/sys/nl_bond.c) on real kernel answers: the
 * RTM_NEWLINK messages Linux 6.1 sent for a bond and its member (captured
 * in the VM by tests/vm/dcbtest/capture-golden into
 * tests/golden/bond-link-*.hex), plus mangled copies.
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

#include <linux/if_bonding.h>

#include "sys/nl_bond.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden"
#endif

struct golden {
	unsigned char b[8192] __attribute__((aligned(8)));
	size_t len;
};

static void golden_load(const char *name, struct golden *g)
{
	char path[256], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (run from the repository root)", path);
	g->len = 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		if (line[0] == '#')
			continue;
		for (;;) {
			unsigned long v = strtoul(p, &end, 16);

			if (end == p)
				break;
			assert_true(v <= 0xff && g->len < sizeof(g->b));
			g->b[g->len++] = (unsigned char)v;
			p = end;
		}
	}
	fclose(f);
	assert_true(g->len >= 16);
}

static void test_bond(void **state)
{
	struct nl_bond_link l;
	struct golden g;

	golden_load("bond-link-gb0.hex", &g);
	assert_int_equal(nl_bond_link_parse((const void *)g.b, g.len, &l), 0);
	assert_string_equal(l.name, "gb0");
	assert_int_equal(l.ifindex, 12);
	assert_string_equal(l.kind, "bond");
	assert_string_equal(l.slave_kind, "");
	assert_true(l.flags & IFF_UP);
	assert_int_equal(l.master, 0);
	assert_int_equal(l.mode, BOND_MODE_8023AD);
	assert_int_equal(l.miimon_ms, 100);
	assert_int_equal(l.lacp_rate, 1);		/* fast */
	assert_int_equal(l.xmit_hash_policy, BOND_XMIT_POLICY_LAYER34);
	assert_int_equal(l.min_links, 1);
	assert_int_equal(l.slave_state, -1);
	assert_int_equal(l.mii_status, -1);
}

static void test_member(void **state)
{
	struct nl_bond_link l;
	struct golden g;

	golden_load("bond-link-gd0.hex", &g);
	assert_int_equal(nl_bond_link_parse((const void *)g.b, g.len, &l), 0);
	assert_string_equal(l.name, "gd0");
	assert_string_equal(l.kind, "dummy");
	assert_string_equal(l.slave_kind, "bond");
	assert_int_equal(l.master, 12);		/* gb0 */
	assert_int_equal(l.mii_status, BOND_LINK_UP);
	assert_true(l.ad_aggregator_id > 0);
	assert_true(l.slave_state == BOND_STATE_ACTIVE || l.slave_state == BOND_STATE_BACKUP);
	/* IFLA_INFO_DATA of a dummy is not read as bond options. */
	assert_int_equal(l.mode, -1);
	assert_int_equal(l.miimon_ms, -1);
}

static void test_malformed(void **state)
{
	struct nl_bond_link l;
	struct golden g;

	golden_load("bond-link-gb0.hex", &g);
	/* Shorter than nlmsg_len says. */
	assert_int_equal(nl_bond_link_parse((const void *)g.b, g.len - 1, &l), -EBADMSG);
	/* Not an RTM_NEWLINK. */
	g.b[4] = 0x11;
	assert_int_equal(nl_bond_link_parse((const void *)g.b, g.len, &l), -EBADMSG);
	g.b[4] = 0x10;
	/* IFLA_IFNAME (at offset 32) with a 1-byte payload and no NUL: left out. */
	assert_int_equal(g.b[34], 3);
	g.b[32] = 5;
	g.b[36] = 'X';
	assert_int_equal(nl_bond_link_parse((const void *)g.b, g.len, &l), 0);
	assert_string_equal(l.name, "");
	assert_string_equal(l.kind, "bond");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bond),
		cmocka_unit_test(test_member),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests_name("nl_bond", tests, NULL, NULL);
}
