// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The tracer's packets: probes built byte for byte as the ones a real
 * trace sent, and real answers (captured with tcpdump on a host of the
 * routed netns lab, Linux 6.18 routers; IPv6: two Linux 6.18 routers
 * between two namespaces) read and matched to their probe.
 */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "transport/trace_pkt.h"

/* leaf1 (10.77.1.254) answers the UDP probe 10.77.1.1:50000 -> 10.77.2.2:4791, TTL 1, IP ID 0x4990. */
static const uint8_t te_leaf1[] = {
	0x45, 0xc0, 0x00, 0x38, 0x0d, 0x48, 0x00, 0x00, 0x40, 0x01, 0x55, 0x25, 0x0a, 0x4d, 0x01, 0xfe,
	0x0a, 0x4d, 0x01, 0x01, 0x0b, 0x00, 0x0c, 0xb6, 0x00, 0x00, 0x00, 0x00, 0x45, 0x00, 0x00, 0x1c,
	0x49, 0x90, 0x40, 0x00, 0x01, 0x11, 0x18, 0xa5, 0x0a, 0x4d, 0x01, 0x01, 0x0a, 0x4d, 0x02, 0x02,
	0xc3, 0x50, 0x12, 0xb7, 0x00, 0x08, 0x12, 0x3a,
};

/* spine2 (10.77.255.2) answers the same flow's TTL-2 probe, IP ID 0x4991. */
static const uint8_t te_spine2[] = {
	0x45, 0xc0, 0x00, 0x38, 0xc9, 0xce, 0x00, 0x00, 0x3f, 0x01, 0x9c, 0x99, 0x0a, 0x4d, 0xff, 0x02,
	0x0a, 0x4d, 0x01, 0x01, 0x0b, 0x00, 0x0c, 0xb6, 0x00, 0x00, 0x00, 0x00, 0x45, 0x00, 0x00, 0x1c,
	0x49, 0x91, 0x40, 0x00, 0x01, 0x11, 0x18, 0xa4, 0x0a, 0x4d, 0x01, 0x01, 0x0a, 0x4d, 0x02, 0x02,
	0xc3, 0x50, 0x12, 0xb7, 0x00, 0x08, 0x12, 0x3a,
};

/* The destination 10.77.2.2: port 4791 unreachable, to the TTL-4 probe (IP ID 0x4993). */
static const uint8_t pu_h2[] = {
	0x45, 0xc0, 0x00, 0x38, 0x32, 0x9c, 0x00, 0x00, 0x3d, 0x01, 0x32, 0xcd, 0x0a, 0x4d, 0x02, 0x02,
	0x0a, 0x4d, 0x01, 0x01, 0x03, 0x03, 0x14, 0xb3, 0x00, 0x00, 0x00, 0x00, 0x45, 0x00, 0x00, 0x1c,
	0x49, 0x93, 0x40, 0x00, 0x01, 0x11, 0x18, 0xa2, 0x0a, 0x4d, 0x01, 0x01, 0x0a, 0x4d, 0x02, 0x02,
	0xc3, 0x50, 0x12, 0xb7, 0x00, 0x08, 0x12, 0x3a,
};

/* leaf1 answers the TCP SYN probe 10.77.1.1:50001 -> 10.77.2.2:5201, IP ID 0x9b35, seq 0x0931360e. */
static const uint8_t te_tcp[] = {
	0x45, 0xc0, 0x00, 0x44, 0x0d, 0x53, 0x00, 0x00, 0x40, 0x01, 0x55, 0x0e, 0x0a, 0x4d, 0x01, 0xfe,
	0x0a, 0x4d, 0x01, 0x01, 0x0b, 0x00, 0x0c, 0xb7, 0x00, 0x00, 0x00, 0x00, 0x45, 0x00, 0x00, 0x28,
	0x9b, 0x35, 0x40, 0x00, 0x01, 0x06, 0xc6, 0xfe, 0x0a, 0x4d, 0x01, 0x01, 0x0a, 0x4d, 0x02, 0x02,
	0xc3, 0x51, 0x14, 0x51, 0x09, 0x31, 0x36, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x50, 0x02, 0xff, 0xff,
	0x81, 0x64, 0x00, 0x00,
};

/* The destination's RST+ACK to that flow's TTL-4 SYN (seq 0x09313611: ack 0x09313612). */
static const uint8_t rst_h2[] = {
	0x45, 0x00, 0x00, 0x28, 0x00, 0x00, 0x40, 0x00, 0x3d, 0x06, 0x26, 0x34, 0x0a, 0x4d, 0x02, 0x02,
	0x0a, 0x4d, 0x01, 0x01, 0x14, 0x51, 0xc3, 0x51, 0x00, 0x00, 0x00, 0x00, 0x09, 0x31, 0x36, 0x12,
	0x50, 0x14, 0x00, 0x00, 0x81, 0x4e, 0x00, 0x00,
};

/* The IPv6 UDP probe fd00:1::1:50000 -> [fd00:2::2]:4791, hop limit 1 (number 0x4b5f2531 in its payload). */
static const uint8_t p6_udp[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x11, 0x01, 0xfd, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xfd, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc3, 0x50, 0x12, 0xb7, 0x00, 0x0c, 0xbf, 0x36,
	0x4b, 0x5f, 0x25, 0x31,
};

/* r1 (fd00:1::fe) answers it: ICMPv6 time exceeded, as the ICMPv6 socket returns it (no IPv6 header). */
static const uint8_t te6_r1[] = {
	0x03, 0x00, 0x90, 0x96, 0x00, 0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x11, 0x01,
	0xfd, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0xfd, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0xc3, 0x50, 0x12, 0xb7, 0x00, 0x0c, 0xbf, 0x36, 0x4b, 0x5f, 0x25, 0x31,
};

/* The destination fd00:2::2: port unreachable (code 4) to the hop-limit-3 probe. */
static const uint8_t pu6_h2[] = {
	0x01, 0x04, 0x93, 0x8d, 0x00, 0x00, 0x00, 0x00, 0x60, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x11, 0x01,
	0xfd, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0xfd, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
	0xc3, 0x50, 0x12, 0xb7, 0x00, 0x0c, 0xbf, 0x34, 0x4b, 0x5f, 0x25, 0x33,
};

/* The IPv6 TCP SYN probe fd00:1::1:50001 -> [fd00:2::2]:5201, hop limit 1, seq 0x4b5f1bc2. */
static const uint8_t p6_tcp[] = {
	0x60, 0x00, 0x00, 0x00, 0x00, 0x14, 0x06, 0x01, 0xfd, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xfd, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc3, 0x51, 0x14, 0x51, 0x4b, 0x5f, 0x1b, 0xc2,
	0x00, 0x00, 0x00, 0x00, 0x50, 0x02, 0xff, 0xff, 0x77, 0x17, 0x00, 0x00,
};

/* The destination's RST+ACK to the hop-limit-3 SYN, as the TCP socket returns it. */
static const uint8_t rst6_h2[] = {
	0x14, 0x51, 0xc3, 0x51, 0x00, 0x00, 0x00, 0x00, 0x4b, 0x5f, 0x1b, 0xc5, 0x50, 0x14, 0x00, 0x00,
	0xfa, 0x21, 0x00, 0x00,
};

static const struct trace_tuple udp6_flow = {
	.proto = IPPROTO_UDP, .v6 = true,
	.src = { 0xfd, 0, 0, 1, [15] = 1 }, .dst = { 0xfd, 0, 0, 2, [15] = 2 },
	.sport = 50000, .dport = 4791,
};

static const struct trace_tuple tcp6_flow = {
	.proto = IPPROTO_TCP, .v6 = true,
	.src = { 0xfd, 0, 0, 1, [15] = 1 }, .dst = { 0xfd, 0, 0, 2, [15] = 2 },
	.sport = 50001, .dport = 5201,
};

static const uint8_t r1_addr[16] = { 0xfd, 0, 0, 1, [15] = 0xfe };

static const struct trace_tuple udp_flow = {
	.proto = IPPROTO_UDP, .src = { 10, 77, 1, 1 }, .dst = { 10, 77, 2, 2 },
	.sport = 50000, .dport = 4791,
};

static const struct trace_tuple tcp_flow = {
	.proto = IPPROTO_TCP, .src = { 10, 77, 1, 1 }, .dst = { 10, 77, 2, 2 },
	.sport = 50001, .dport = 5201,
};

/* Our probes are the packets the routers quote, byte for byte (checksums included). */
static void test_build_as_quoted(void **state)
{
	uint8_t buf[TRACE_PKT_MAX];
	size_t len;

	len = trace_pkt_build(buf, &udp_flow, 1, 0x4990, 0);
	assert_int_equal(len, 28);
	assert_memory_equal(buf, te_leaf1 + 28, 28);
	len = trace_pkt_build(buf, &udp_flow, 1, 0x4993, 0);
	assert_memory_equal(buf, pu_h2 + 28, 28);
	len = trace_pkt_build(buf, &tcp_flow, 1, 0x9b35, 0x0931360e);
	assert_int_equal(len, 40);
	assert_memory_equal(buf, te_tcp + 28, 40);
	/* the IP header sums to 0xffff: its checksum holds */
	assert_int_equal(trace_pkt_sum(buf, 20, 0), 0xffff);
}

/*
 * Paris: probes of one flow differ only in TTL, IP ID, the IP checksum and
 * the TCP sequence number and checksum, never in what a router hashes.
 */
static void test_probes_keep_tuple(void **state)
{
	uint8_t a[TRACE_PKT_MAX], b[TRACE_PKT_MAX];
	static const size_t keep[] = { 0, 1, 2, 3, 6, 7, 9, 12, 13, 14, 15, 16, 17, 18, 19,
				       20, 21, 22, 23 };

	trace_pkt_build(a, &udp_flow, 1, 100, 0);
	trace_pkt_build(b, &udp_flow, 9, 7000, 0);
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		assert_int_equal(a[keep[i]], b[keep[i]]);
	/* UDP: the whole header, checksum too (no payload to change it) */
	assert_memory_equal(a + 20, b + 20, 8);
	trace_pkt_build(a, &tcp_flow, 1, 100, 1000);
	trace_pkt_build(b, &tcp_flow, 9, 7000, 5000);
	for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		assert_int_equal(a[keep[i]], b[keep[i]]);
	assert_memory_equal(a + 32, b + 32, 4);		/* ack, offset, flags: SYN */
	assert_int_equal(a[33], 0x02);
}

static void test_parse_real(void **state)
{
	struct trace_answer a;

	assert_int_equal(trace_pkt_parse(te_leaf1, sizeof(te_leaf1), &a), 0);
	assert_int_equal(a.kind, HOP_TIME_EXCEEDED);
	assert_memory_equal(a.from, ((uint8_t[]){ 10, 77, 1, 254 }), 4);
	assert_true(trace_tuple_eq(&a.probe, &udp_flow));
	assert_true(a.has_ip_id);
	assert_int_equal(a.ip_id, 0x4990);
	assert_false(a.has_seq);

	assert_int_equal(trace_pkt_parse(pu_h2, sizeof(pu_h2), &a), 0);
	assert_int_equal(a.kind, HOP_UNREACHABLE);
	assert_int_equal(a.code, 3);
	assert_memory_equal(a.from, udp_flow.dst, 4);

	assert_int_equal(trace_pkt_parse(te_tcp, sizeof(te_tcp), &a), 0);
	assert_int_equal(a.kind, HOP_TIME_EXCEEDED);
	assert_true(trace_tuple_eq(&a.probe, &tcp_flow));
	assert_true(a.has_seq);
	assert_int_equal(a.seq, 0x0931360e);

	assert_int_equal(trace_pkt_parse(rst_h2, sizeof(rst_h2), &a), 0);
	assert_int_equal(a.kind, HOP_TCP_RST);
	assert_true(trace_tuple_eq(&a.probe, &tcp_flow));	/* the segment turned round */
	assert_false(a.has_ip_id);
	assert_int_equal(a.seq, 0x09313611);
}

/*
 * Answers matched to probe numbers, in a run with bases 0x4990 (IP ID) and
 * 0x0931360e (TCP sequence number): an ICMP quote of a UDP probe names the
 * number's low 16 bits, a TCP probe's quote or RST all 32.
 */
static void test_match(void **state)
{
	struct trace_answer a;
	uint32_t k;

	trace_pkt_parse(te_leaf1, sizeof(te_leaf1), &a);
	assert_int_equal(trace_pkt_probe(&a, 0x4990, 0, &k), 0);
	assert_int_equal(k, 0);
	trace_pkt_parse(te_spine2, sizeof(te_spine2), &a);
	assert_int_equal(trace_pkt_probe(&a, 0x4990, 0, &k), 0);
	assert_int_equal(k, 1);
	trace_pkt_parse(pu_h2, sizeof(pu_h2), &a);
	assert_int_equal(trace_pkt_probe(&a, 0x4990, 0, &k), 0);
	assert_int_equal(k, 3);
	assert_int_equal(trace_pkt_probe(&a, 0x4994, 0, &k), 0);
	assert_int_equal(k, 65535);		/* another base: another number */
	/* IP ID wraps: from base 0xfffe, IP ID 1 is probe 3 */
	a.ip_id = 1;
	assert_int_equal(trace_pkt_probe(&a, 0xfffe, 0, &k), 0);
	assert_int_equal(k, 3);
	/* TCP: the RST carries no IP ID, its acknowledgement names the probe */
	trace_pkt_parse(rst_h2, sizeof(rst_h2), &a);
	assert_int_equal(trace_pkt_probe(&a, 0, 0x0931360e, &k), 0);
	assert_int_equal(k, 3);
	assert_int_equal(trace_pkt_probe(&a, 0, 0x09313612, &k), 0);
	assert_int_equal(k, 0xffffffff);	/* before the base: no probe the caller has */
	/* a quote whose IP ID and sequence number disagree is no probe of ours */
	trace_pkt_parse(te_tcp, sizeof(te_tcp), &a);
	assert_int_equal(trace_pkt_probe(&a, 0x9b35, 0x0931360e, &k), 0);
	assert_int_equal(k, 0);
	assert_int_equal(trace_pkt_probe(&a, 0x9b34, 0x0931360e, &k), -1);
	/* nothing to go by */
	a.has_ip_id = a.has_seq = false;
	assert_int_equal(trace_pkt_probe(&a, 0, 0, &k), -1);
	/* the tuple check: another flow's quote does not match this flow */
	trace_pkt_parse(te_leaf1, sizeof(te_leaf1), &a);
	assert_false(trace_tuple_eq(&a.probe, &tcp_flow));
}

static void test_parse_rejects(void **state)
{
	uint8_t buf[128];
	struct trace_answer a;

	/* truncated: outer header, ICMP header, quote too short for the ports */
	assert_int_equal(trace_pkt_parse(te_leaf1, 19, &a), -EINVAL);
	assert_int_equal(trace_pkt_parse(te_leaf1, 27, &a), -EINVAL);
	memcpy(buf, te_leaf1, sizeof(te_leaf1));
	buf[3] = 0x34;			/* total length: quote ends 4 bytes into UDP */
	assert_int_equal(trace_pkt_parse(buf, sizeof(te_leaf1), &a), -EINVAL);
	/* total length past what was read */
	memcpy(buf, te_leaf1, sizeof(te_leaf1));
	buf[3] = 0x60;
	assert_int_equal(trace_pkt_parse(buf, sizeof(te_leaf1), &a), -EINVAL);
	/* ICMP echo reply, time exceeded in reassembly */
	memcpy(buf, te_leaf1, sizeof(te_leaf1));
	buf[20] = 0;
	assert_int_equal(trace_pkt_parse(buf, sizeof(te_leaf1), &a), -EINVAL);
	buf[20] = 11;
	buf[21] = 1;
	assert_int_equal(trace_pkt_parse(buf, sizeof(te_leaf1), &a), -EINVAL);
	/* a quoted ICMP probe is not a UDP or TCP flow */
	memcpy(buf, te_leaf1, sizeof(te_leaf1));
	buf[37] = IPPROTO_ICMP;
	assert_int_equal(trace_pkt_parse(buf, sizeof(te_leaf1), &a), -EINVAL);
	/* an outer fragment; IPv6; header length under 20 */
	memcpy(buf, te_leaf1, sizeof(te_leaf1));
	buf[7] = 8;
	assert_int_equal(trace_pkt_parse(buf, sizeof(te_leaf1), &a), -EINVAL);
	buf[7] = 0;
	buf[0] = 0x60;
	assert_int_equal(trace_pkt_parse(buf, sizeof(te_leaf1), &a), -EINVAL);
	buf[0] = 0x44;
	assert_int_equal(trace_pkt_parse(buf, sizeof(te_leaf1), &a), -EINVAL);
	/* TCP: a SYN (the peer's own connect), a RST that acknowledges nothing */
	memcpy(buf, rst_h2, sizeof(rst_h2));
	buf[33] = 0x02;
	assert_int_equal(trace_pkt_parse(buf, sizeof(rst_h2), &a), -EINVAL);
	buf[33] = 0x04;
	assert_int_equal(trace_pkt_parse(buf, sizeof(rst_h2), &a), -EINVAL);
	buf[33] = 0x12;			/* SYN+ACK: the port is open */
	assert_int_equal(trace_pkt_parse(buf, sizeof(rst_h2), &a), 0);
	assert_int_equal(a.kind, HOP_TCP_SYNACK);
}

/* IPv6: the probes as sent, byte for byte; the flow label kept, the number in the UDP payload. */
static void test_build6(void **state)
{
	uint8_t buf[TRACE_PKT_MAX], b2[TRACE_PKT_MAX];
	struct trace_tuple lab = udp6_flow;
	size_t len;

	len = trace_pkt_build(buf, &udp6_flow, 1, 0, 0x4b5f2531);
	assert_int_equal(len, sizeof(p6_udp));
	assert_memory_equal(buf, p6_udp, sizeof(p6_udp));
	len = trace_pkt_build(buf, &tcp6_flow, 1, 0, 0x4b5f1bc2);
	assert_int_equal(len, sizeof(p6_tcp));
	assert_memory_equal(buf, p6_tcp, sizeof(p6_tcp));
	/* the quote in the time exceeded is the probe as sent */
	assert_memory_equal(te6_r1 + 8, p6_udp, sizeof(p6_udp));
	/* a label: in the header's low 20 bits, the same on every probe; only hop limit, payload, checksum vary */
	lab.label = 0x12345;
	trace_pkt_build(buf, &lab, 1, 0, 7);
	trace_pkt_build(b2, &lab, 9, 0, 8);
	assert_memory_equal(buf, ((uint8_t[]){ 0x60, 0x01, 0x23, 0x45 }), 4);
	assert_memory_equal(buf, b2, 7);
	assert_memory_equal(buf + 8, b2 + 8, 32 + 6);	/* addresses, ports, UDP length */
	assert_int_not_equal(buf[7], b2[7]);
}

static void test_parse6_real(void **state)
{
	static const uint8_t me[16] = { 0xfd, 0, 0, 1, [15] = 1 };
	struct trace_answer a;
	uint32_t k;

	assert_int_equal(trace_pkt_parse6(te6_r1, sizeof(te6_r1), IPPROTO_ICMPV6, r1_addr, me, &a), 0);
	assert_int_equal(a.kind, HOP_TIME_EXCEEDED);
	assert_memory_equal(a.from, r1_addr, 16);
	assert_true(trace_tuple_eq(&a.probe, &udp6_flow));
	assert_false(trace_tuple_eq(&a.probe, &udp_flow));	/* the IPv4 flow of the same ports */
	assert_false(a.has_ip_id);
	assert_true(a.has_seq);
	assert_int_equal(trace_pkt_probe(&a, 0, 0x4b5f2531, &k), 0);
	assert_int_equal(k, 0);

	assert_int_equal(trace_pkt_parse6(pu6_h2, sizeof(pu6_h2), IPPROTO_ICMPV6, udp6_flow.dst, me, &a), 0);
	assert_int_equal(a.kind, HOP_UNREACHABLE);
	assert_int_equal(a.code, 4);		/* ICMPv6 port unreachable */
	assert_int_equal(trace_pkt_probe(&a, 0, 0x4b5f2531, &k), 0);
	assert_int_equal(k, 2);			/* the hop-limit-3 probe */

	/* the RST: the segment turned round, the addresses from the socket */
	assert_int_equal(trace_pkt_parse6(rst6_h2, sizeof(rst6_h2), IPPROTO_TCP, tcp6_flow.dst, me, &a), 0);
	assert_int_equal(a.kind, HOP_TCP_RST);
	assert_true(trace_tuple_eq(&a.probe, &tcp6_flow));
	assert_int_equal(trace_pkt_probe(&a, 0, 0x4b5f1bc2, &k), 0);
	assert_int_equal(k, 2);

	/* not answers: an echo request, a quote cut inside the UDP header, an IPv4 quote */
	{
		uint8_t buf[sizeof(te6_r1)];

		memcpy(buf, te6_r1, sizeof(buf));
		buf[0] = 128;
		assert_int_equal(trace_pkt_parse6(buf, sizeof(buf), IPPROTO_ICMPV6, r1_addr, me, &a), -EINVAL);
		assert_int_equal(trace_pkt_parse6(te6_r1, 8 + 40 + 4, IPPROTO_ICMPV6, r1_addr, me, &a), -EINVAL);
		memcpy(buf, te6_r1, sizeof(buf));
		buf[8] = 0x45;
		assert_int_equal(trace_pkt_parse6(buf, sizeof(buf), IPPROTO_ICMPV6, r1_addr, me, &a), -EINVAL);
		/* a quote without the payload: the tuple, but no number to match */
		assert_int_equal(trace_pkt_parse6(te6_r1, 8 + 40 + 8, IPPROTO_ICMPV6, r1_addr, me, &a), 0);
		assert_int_equal(trace_pkt_probe(&a, 0, 0x4b5f2531, &k), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_as_quoted),
		cmocka_unit_test(test_probes_keep_tuple),
		cmocka_unit_test(test_parse_real),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_build6),
		cmocka_unit_test(test_parse6_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
