// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The parsers of ethtool netlink replies in src/sys/link_phy.c, on
 * messages built as the kernel builds them: FEC (mode, auto, statistics
 * as u64 arrays of total then lanes, the histogram of newer kernels),
 * link state (link-down events of 6.6+), link modes (speed, lanes); and
 * what they refuse.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include "sys/link_phy.h"

static char buf[4096] __attribute__((aligned(8)));

static struct nlmsghdr *reply(uint8_t cmd)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	memset(buf, 0, sizeof(buf));
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = 0x20;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = ETHTOOL_GENL_VERSION;
	return nlh;
}

static void put_u64s(struct nlmsghdr *nlh, uint16_t type, const uint64_t *v, size_t n)
{
	mnl_attr_put(nlh, type, n * sizeof(*v), v);
}

static void test_fec(void **state)
{
	static const uint64_t corr[] = { 30, 10, 20 }, bits[] = { 123456789 };
	struct nlmsghdr *nlh = reply(ETHTOOL_MSG_FEC_GET_REPLY);
	struct nlattr *stats, *bin;
	struct optics_link l;
	uint64_t hist = 42;

	(void)state;
	mnl_attr_put_u32(nlh, ETHTOOL_A_FEC_ACTIVE, ETHTOOL_LINK_MODE_FEC_RS_BIT);
	mnl_attr_put_u8(nlh, ETHTOOL_A_FEC_AUTO, 1);
	stats = mnl_attr_nest_start(nlh, ETHTOOL_A_FEC_STATS);
	put_u64s(nlh, ETHTOOL_A_FEC_STAT_CORRECTED, corr, 3);
	mnl_attr_put(nlh, ETHTOOL_A_FEC_STAT_UNCORR, 0, NULL);	/* not given */
	put_u64s(nlh, ETHTOOL_A_FEC_STAT_CORR_BITS, bits, 1);
	bin = mnl_attr_nest_start(nlh, 5);			/* ETHTOOL_A_FEC_STAT_HIST */
	mnl_attr_put_u32(nlh, 2, 1);
	mnl_attr_put_u32(nlh, 3, 3);
	mnl_attr_put(nlh, 4, sizeof(hist), &hist);
	mnl_attr_nest_end(nlh, bin);
	mnl_attr_nest_end(nlh, stats);
	optics_link_init(&l);
	assert_int_equal(link_phy_parse_fec(nlh, &l), 0);
	assert_true(l.fec_ok && l.fec_auto);
	assert_int_equal(l.fec, OPTICS_FEC_RS);
	assert_true(l.corrected_blocks.ok);
	assert_int_equal(l.corrected_blocks.total, 30);
	assert_int_equal(l.corrected_blocks.n_lanes, 2);
	assert_int_equal(l.corrected_blocks.lane[1], 20);
	assert_false(l.uncorrectable_blocks.ok);
	assert_true(l.corrected_bits.ok);
	assert_int_equal(l.corrected_bits.total, 123456789);
	assert_int_equal(l.corrected_bits.n_lanes, 0);
	assert_int_equal(l.n_hist, 1);
	assert_int_equal(l.hist[0].high, 3);
	assert_int_equal(l.hist[0].count, 42);
}

static void test_fec_modes_and_malformed(void **state)
{
	static const struct { uint32_t bit; enum optics_fec fec; } modes[] = {
		{ ETHTOOL_LINK_MODE_FEC_NONE_BIT, OPTICS_FEC_NONE },
		{ ETHTOOL_LINK_MODE_FEC_BASER_BIT, OPTICS_FEC_BASER },
		{ ETHTOOL_LINK_MODE_FEC_LLRS_BIT, OPTICS_FEC_LLRS },
		{ 3, OPTICS_FEC_UNKNOWN },
	};
	struct nlmsghdr *nlh;
	struct nlattr *stats;
	struct optics_link l;
	uint8_t odd[12] = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		nlh = reply(ETHTOOL_MSG_FEC_GET_REPLY);
		mnl_attr_put_u32(nlh, ETHTOOL_A_FEC_ACTIVE, modes[i].bit);
		optics_link_init(&l);
		assert_int_equal(link_phy_parse_fec(nlh, &l), 0);
		assert_int_equal(l.fec, modes[i].fec);
	}
	/* a statistic whose length is not a multiple of 8 */
	nlh = reply(ETHTOOL_MSG_FEC_GET_REPLY);
	stats = mnl_attr_nest_start(nlh, ETHTOOL_A_FEC_STATS);
	mnl_attr_put(nlh, ETHTOOL_A_FEC_STAT_CORRECTED, sizeof(odd), odd);
	mnl_attr_nest_end(nlh, stats);
	optics_link_init(&l);
	assert_int_equal(link_phy_parse_fec(nlh, &l), -EBADMSG);
	/* a histogram bin without its value */
	nlh = reply(ETHTOOL_MSG_FEC_GET_REPLY);
	stats = mnl_attr_nest_start(nlh, ETHTOOL_A_FEC_STATS);
	mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, 5));
	mnl_attr_nest_end(nlh, stats);
	assert_int_equal(link_phy_parse_fec(nlh, &l), -EBADMSG);
	/* a message too short for the genl header */
	nlh = mnl_nlmsg_put_header(buf);
	assert_int_equal(link_phy_parse_fec(nlh, &l), -EBADMSG);
}

static void test_linkstate_linkmodes(void **state)
{
	struct nlmsghdr *nlh = reply(ETHTOOL_MSG_LINKSTATE_GET_REPLY);
	struct optics_link l;

	(void)state;
	mnl_attr_put_u8(nlh, ETHTOOL_A_LINKSTATE_LINK, 1);
	mnl_attr_put_u32(nlh, 7, 5);	/* ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT */
	optics_link_init(&l);
	assert_int_equal(link_phy_parse_linkstate(nlh, &l), 0);
	assert_true(l.link_ok && l.link_up && l.down_events_ok);
	assert_int_equal(l.down_events, 5);
	/* 6.1: no down count */
	nlh = reply(ETHTOOL_MSG_LINKSTATE_GET_REPLY);
	mnl_attr_put_u8(nlh, ETHTOOL_A_LINKSTATE_LINK, 0);
	optics_link_init(&l);
	assert_int_equal(link_phy_parse_linkstate(nlh, &l), 0);
	assert_true(l.link_ok && !l.link_up && !l.down_events_ok);
	nlh = reply(ETHTOOL_MSG_LINKMODES_GET_REPLY);
	mnl_attr_put_u32(nlh, ETHTOOL_A_LINKMODES_SPEED, 400000);
	mnl_attr_put_u32(nlh, ETHTOOL_A_LINKMODES_LANES, 8);
	assert_int_equal(link_phy_parse_linkmodes(nlh, &l), 0);
	assert_int_equal(l.speed_mbps, 400000);
	assert_int_equal(l.lanes, 8);
	/* SPEED_UNKNOWN stays unknown */
	nlh = reply(ETHTOOL_MSG_LINKMODES_GET_REPLY);
	mnl_attr_put_u32(nlh, ETHTOOL_A_LINKMODES_SPEED, (uint32_t)SPEED_UNKNOWN);
	optics_link_init(&l);
	assert_int_equal(link_phy_parse_linkmodes(nlh, &l), 0);
	assert_int_equal(l.speed_mbps, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fec),
		cmocka_unit_test(test_fec_modes_and_malformed),
		cmocka_unit_test(test_linkstate_linkmodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
