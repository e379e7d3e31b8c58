// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The PMA engine's pure parts: the request it sends (as libibmad's
 * pma_query_via builds it), what it reads from the answers, and the window
 * bookkeeping (transaction ids, matching, deadlines, bounded resends).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "sys/pma.h"
#include "sys/pma_win.h"

static void test_encode(void **state)
{
	uint8_t umad[1024];
	ib_user_mad_t *u = (ib_user_mad_t *)umad;
	uint8_t *mad;

	assert_int_equal(pma_encode(umad, 0x1234, 7, IB_GSI_PORT_COUNTERS, 0xdeadbeef, 500),
			 IB_MAD_SIZE);
	mad = umad_get_mad(umad);
	assert_int_equal(mad[0], 1);				/* BaseVersion */
	assert_int_equal(mad[1], IB_PERFORMANCE_CLASS);		/* MgmtClass 0x04 */
	assert_int_equal(mad[2], 1);				/* ClassVersion */
	assert_int_equal(mad[3], IB_MAD_METHOD_GET);
	assert_int_equal(mad[4] << 8 | mad[5], 0);		/* Status */
	assert_int_equal(mad[16] << 8 | mad[17], 0x12);		/* AttributeID */
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRMOD_F), 0);
	assert_int_equal((uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F), 0xdeadbeef);
	assert_int_equal(mad[IB_PC_DATA_OFFS + 1], 7);		/* PortSelect */
	assert_int_equal(ntohs(u->addr.lid), 0x1234);
	assert_int_equal(ntohl(u->addr.qpn), 1);
	assert_int_equal(ntohl(u->addr.qkey), IB_DEFAULT_QP1_QKEY);

	assert_int_equal(pma_encode(umad, 9, 255, IB_GSI_PORT_COUNTERS_EXT, 1, 500), IB_MAD_SIZE);
	mad = umad_get_mad(umad);
	assert_int_equal(mad[16] << 8 | mad[17], 0x1d);
	assert_int_equal(mad[IB_PC_DATA_OFFS + 1], 255);

	assert_int_equal(pma_encode(umad, 9, 0, CLASS_PORT_INFO, 1, 500), IB_MAD_SIZE);
	mad = umad_get_mad(umad);
	assert_int_equal(mad[17], 0x01);

	assert_int_equal(pma_encode(umad, 0, 1, IB_GSI_PORT_COUNTERS, 1, 500), -EINVAL);
	assert_int_equal(pma_encode(umad, 0x10000, 1, IB_GSI_PORT_COUNTERS, 1, 500), -EINVAL);
	assert_int_equal(pma_encode(umad, 1, 256, IB_GSI_PORT_COUNTERS, 1, 500), -EINVAL);
}

/* PortCounters by byte (IBA 16.1.3.5), so a field mix-up cannot hide. */
static void test_decode_counters(void **state)
{
	uint8_t d[IB_PC_DATA_SZ] = { 0 };
	uint64_t c[TOPO_CNT_MAX];

	memset(c, 0xee, sizeof(c));
	d[4] = 0x01, d[5] = 0x02;		/* SymbolErrorCounter */
	d[6] = 3;				/* LinkErrorRecoveryCounter */
	d[7] = 4;				/* LinkDownedCounter */
	d[8] = 0x00, d[9] = 5;			/* PortRcvErrors */
	d[10] = 0, d[11] = 6;			/* PortRcvRemotePhysicalErrors */
	d[12] = 0, d[13] = 7;			/* PortRcvSwitchRelayErrors */
	d[14] = 0x01, d[15] = 0x00;		/* PortXmitDiscards */
	d[16] = 9;				/* PortXmitConstraintErrors */
	d[17] = 10;				/* PortRcvConstraintErrors */
	d[19] = 0xbc;				/* LocalLinkIntegrity (hi 4) | ExcessiveBufferOverrun */
	d[22] = 0, d[23] = 13;			/* VL15Dropped */
	d[24] = 0xff, d[27] = 0x01;		/* PortXmitData */
	d[31] = 15;				/* PortRcvData */
	d[35] = 16;				/* PortXmitPkts */
	d[39] = 17;				/* PortRcvPkts */
	d[40] = 0x80, d[43] = 18;		/* PortXmitWait */
	pma_decode_counters(d, c);
	assert_int_equal(c[TOPO_CNT_SYMBOL_ERR], 0x0102);
	assert_int_equal(c[TOPO_CNT_LINK_RECOVERS], 3);
	assert_int_equal(c[TOPO_CNT_LINK_DOWNED], 4);
	assert_int_equal(c[TOPO_CNT_RCV_ERR], 5);
	assert_int_equal(c[TOPO_CNT_RCV_REMOTE_PHYS_ERR], 6);
	assert_int_equal(c[TOPO_CNT_RCV_SWITCH_RELAY_ERR], 7);
	assert_int_equal(c[TOPO_CNT_XMT_DISCARDS], 0x100);
	assert_int_equal(c[TOPO_CNT_XMT_CONSTRAINT_ERR], 9);
	assert_int_equal(c[TOPO_CNT_RCV_CONSTRAINT_ERR], 10);
	assert_int_equal(c[TOPO_CNT_LINK_INTEGRITY_ERR], 0xb);
	assert_int_equal(c[TOPO_CNT_EXCESS_BUF_OVERRUN], 0xc);
	assert_int_equal(c[TOPO_CNT_VL15_DROPPED], 13);
	assert_true(c[TOPO_CNT_XMT_DATA] == 0xff000001u);
	assert_int_equal(c[TOPO_CNT_RCV_DATA], 15);
	assert_int_equal(c[TOPO_CNT_XMT_PKTS], 16);
	assert_int_equal(c[TOPO_CNT_RCV_PKTS], 17);
	assert_true(c[TOPO_CNT_XMT_WAIT] == 0x80000012u);
}

/* PortCountersExtended: the 64-bit data and packets over the 32-bit ones, nothing else. */
static void test_decode_ext(void **state)
{
	uint8_t d[IB_PC_DATA_SZ] = { 0 };
	uint64_t c[TOPO_CNT_MAX];

	for (int i = 0; i < TOPO_CNT_MAX; i++)
		c[i] = 1000 + (uint64_t)i;
	d[8] = 0x12, d[15] = 0x01;		/* PortXmitData */
	d[16] = 0x01, d[23] = 0x02;		/* PortRcvData */
	d[27] = 0x03;				/* PortXmitPkts */
	d[32] = 0x7f, d[39] = 0x04;		/* PortRcvPkts */
	pma_decode_ext(d, c);
	assert_true(c[TOPO_CNT_XMT_DATA] == 0x1200000000000001ull);
	assert_true(c[TOPO_CNT_RCV_DATA] == 0x0100000000000002ull);
	assert_true(c[TOPO_CNT_XMT_PKTS] == 0x0000000300000000ull);
	assert_true(c[TOPO_CNT_RCV_PKTS] == 0x7f00000000000004ull);
	for (int i = 0; i < TOPO_CNT_MAX; i++)
		if (i != TOPO_CNT_XMT_DATA && i != TOPO_CNT_RCV_DATA && i != TOPO_CNT_XMT_PKTS &&
		    i != TOPO_CNT_RCV_PKTS)
			assert_true(c[i] == 1000 + (uint64_t)i);
}

static void test_cpi(void **state)
{
	uint8_t d[IB_PC_DATA_SZ] = { 0 };

	assert_false(pma_cpi_has_ext(d));
	d[2] = 0x02;			/* bit 9: PortCountersExtended */
	assert_true(pma_cpi_has_ext(d));
	d[2] = 0x04;			/* bit 10: ... without the IETF counters */
	assert_true(pma_cpi_has_ext(d));
	d[2] = 0x01, d[3] = 0xff;	/* AllPortSelect and others, no extended width */
	assert_false(pma_cpi_has_ext(d));
}

static void test_win_basic(void **state)
{
	struct pma_win w;
	uint32_t tid;
	size_t i;

	assert_int_equal(pma_win_init(&w, 5, 2, 1, 100), 0);
	assert_true(pma_win_take(&w, 10, &i, &tid));
	assert_int_equal(i, 0);
	assert_int_equal(tid, 100);
	assert_true(pma_win_take(&w, 11, &i, &tid));
	assert_int_equal(i, 1);
	assert_int_equal(tid, 101);
	assert_false(pma_win_take(&w, 12, &i, &tid));	/* window full */
	assert_true(pma_win_wait(&w, 4) == 6);
	/* Out of order, and strangers. */
	assert_int_equal(pma_win_match(&w, 101, false, &i), PMA_WIN_ANSWER);
	assert_int_equal(i, 1);
	assert_int_equal(pma_win_match(&w, 101, false, &i), PMA_WIN_STALE);	/* duplicate */
	assert_int_equal(pma_win_match(&w, 99, false, &i), PMA_WIN_STALE);
	assert_int_equal(pma_win_match(&w, 102, false, &i), PMA_WIN_STALE);	/* not sent yet */
	assert_int_equal(pma_win_match(&w, 100 + 5, false, &i), PMA_WIN_STALE);	/* try 1 of 0: not sent */
	assert_true(pma_win_take(&w, 13, &i, &tid));
	assert_int_equal(i, 2);
	assert_int_equal(pma_win_match(&w, 100, false, &i), PMA_WIN_ANSWER);
	assert_int_equal(pma_win_match(&w, 102, false, &i), PMA_WIN_ANSWER);
	assert_true(pma_win_take(&w, 14, &i, &tid));
	assert_true(pma_win_take(&w, 15, &i, &tid));
	assert_int_equal(i, 4);
	assert_false(pma_win_take(&w, 16, &i, &tid));
	assert_false(pma_win_finished(&w));
	assert_int_equal(pma_win_match(&w, 104, false, &i), PMA_WIN_ANSWER);
	assert_int_equal(pma_win_match(&w, 103, false, &i), PMA_WIN_ANSWER);
	assert_true(pma_win_finished(&w));
	assert_int_equal(w.answered, 5);
	assert_int_equal(w.failed, 0);
	assert_true(pma_win_wait(&w, 0) < 0);
	pma_win_free(&w);
}

/* umad reports a send timed out: resent with the next try's id; a late answer still counts. */
static void test_win_lost(void **state)
{
	struct pma_win w;
	uint32_t tid;
	size_t i;

	assert_int_equal(pma_win_init(&w, 3, 8, 2, 1000), 0);
	for (int k = 0; k < 3; k++)
		assert_true(pma_win_take(&w, 10, &i, &tid));
	assert_int_equal(pma_win_match(&w, 1001, true, &i), PMA_WIN_RETRY);
	assert_int_equal(i, 1);
	assert_true(pma_win_take(&w, 20, &i, &tid));
	assert_int_equal(i, 1);
	assert_int_equal(tid, 1001 + 3);		/* try 1 */
	/* The report of try 0 again (a duplicate): try 1 is still out. */
	assert_int_equal(pma_win_match(&w, 1001, true, &i), PMA_WIN_STALE);
	/* A late answer to try 0 is as good as one to try 1. */
	assert_int_equal(pma_win_match(&w, 1001, false, &i), PMA_WIN_ANSWER);
	assert_int_equal(i, 1);
	assert_int_equal(pma_win_match(&w, 1004, false, &i), PMA_WIN_STALE);
	/* Request 2: lost three times (1 + 2 retries), then failed. */
	assert_int_equal(pma_win_match(&w, 1002, true, &i), PMA_WIN_RETRY);
	assert_true(pma_win_take(&w, 30, &i, &tid));
	assert_int_equal(tid, 1002 + 3);
	assert_int_equal(pma_win_match(&w, tid, true, &i), PMA_WIN_RETRY);
	assert_true(pma_win_take(&w, 30, &i, &tid));
	assert_int_equal(tid, 1002 + 6);
	assert_int_equal(pma_win_match(&w, tid, true, &i), PMA_WIN_LOST);
	assert_int_equal(i, 2);
	assert_false(pma_win_take(&w, 40, &i, &tid));
	assert_int_equal(pma_win_match(&w, 1002 + 6, false, &i), PMA_WIN_STALE);
	/* Request 0 answered, then refused by its MAD status. */
	assert_int_equal(pma_win_match(&w, 1000, false, &i), PMA_WIN_ANSWER);
	pma_win_refuse(&w, 0);
	assert_true(pma_win_finished(&w));
	assert_int_equal(w.answered, 1);
	assert_int_equal(w.failed, 2);
	assert_int_equal(w.resent, 3);
	pma_win_free(&w);
}

/* No answer by the deadline: resent (lost ones first), then failed. */
static void test_win_expire(void **state)
{
	struct pma_win w;
	uint32_t tid;
	size_t i;

	assert_int_equal(pma_win_init(&w, 4, 2, 1, 7), 0);
	assert_true(pma_win_take(&w, 100, &i, &tid));
	assert_true(pma_win_take(&w, 50, &i, &tid));
	assert_true(pma_win_wait(&w, 20) == 30);
	assert_true(pma_win_wait(&w, 60) == 0);
	assert_int_equal(pma_win_expire(&w, 49), 0);
	assert_int_equal(pma_win_expire(&w, 50), 1);	/* request 1 */
	assert_true(pma_win_take(&w, 150, &i, &tid));
	assert_int_equal(i, 1);				/* before request 2 */
	assert_int_equal(tid, 7 + 1 + 4);
	assert_int_equal(pma_win_expire(&w, 200), 2);	/* 0 (try 1 left) and 1 (none) */
	assert_int_equal(w.failed, 1);
	assert_true(pma_win_take(&w, 300, &i, &tid));
	assert_int_equal(i, 0);
	assert_true(pma_win_take(&w, 300, &i, &tid));
	assert_int_equal(i, 2);
	assert_int_equal(pma_win_unsent(&w, 2), PMA_WIN_RETRY);
	assert_int_equal(pma_win_match(&w, 7 + 0 + 4, false, &i), PMA_WIN_ANSWER);
	while (pma_win_take(&w, 400, &i, &tid))
		assert_int_equal(pma_win_match(&w, tid, false, &i), PMA_WIN_ANSWER);
	assert_true(pma_win_finished(&w));
	assert_int_equal(w.answered, 3);
	assert_int_equal(w.failed, 1);
	pma_win_free(&w);
}

/* Transaction ids wrap at 2^32: still matched. */
static void test_win_wrap(void **state)
{
	struct pma_win w;
	uint32_t tid;
	size_t i;

	assert_int_equal(pma_win_init(&w, 4, 4, 3, 0xfffffffe), 0);
	for (size_t k = 0; k < 4; k++) {
		assert_true(pma_win_take(&w, 1, &i, &tid));
		assert_int_equal(tid, (uint32_t)(0xfffffffe + k));
	}
	assert_int_equal(pma_win_match(&w, 1, false, &i), PMA_WIN_ANSWER);
	assert_int_equal(i, 3);
	assert_int_equal(pma_win_match(&w, 0xffffffff, true, &i), PMA_WIN_RETRY);
	assert_true(pma_win_take(&w, 1, &i, &tid));
	assert_int_equal(tid, 3);			/* 0xffffffff + 4 */
	assert_int_equal(pma_win_match(&w, 3, false, &i), PMA_WIN_ANSWER);
	assert_int_equal(i, 1);
	pma_win_free(&w);
}

/*
 * A lossy, reordering network: every 5th send is lost (found by its
 * deadline), answers come back newest first.  Every request is answered
 * exactly once, the window never holds more than its size.
 */
static void test_win_lossy(void **state)
{
	enum { N = 1000, MAX = 64 };
	static uint32_t out[MAX];
	static unsigned int got[N];
	struct pma_win w;
	size_t i, n_out, sends = 0;
	double now = 0;
	uint32_t tid;

	assert_int_equal(pma_win_init(&w, N, MAX, 3, 0x89abcdef), 0);
	while (!pma_win_finished(&w)) {
		n_out = 0;
		while (pma_win_take(&w, now + 10, &i, &tid)) {
			assert_true(w.on_wire <= MAX);
			if (++sends % 5)
				out[n_out++] = tid;
		}
		while (n_out) {
			if (pma_win_match(&w, out[--n_out], false, &i) == PMA_WIN_ANSWER)
				got[i]++;
		}
		now += 1;
		pma_win_expire(&w, now + 10);
	}
	for (size_t k = 0; k < N; k++)
		assert_int_equal(got[k], 1);
	assert_int_equal(w.answered, N);
	assert_int_equal(w.failed, 0);
	assert_int_equal(sends, N + w.resent);
	pma_win_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_decode_counters),
		cmocka_unit_test(test_decode_ext),
		cmocka_unit_test(test_cpi),
		cmocka_unit_test(test_win_basic),
		cmocka_unit_test(test_win_lost),
		cmocka_unit_test(test_win_expire),
		cmocka_unit_test(test_win_wrap),
		cmocka_unit_test(test_win_lossy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
