// SPDX-License-Identifier: GPL-2.0-or-later
/* The tracer's packets: IPv4 and IPv6 probes that keep a 5-tuple, and the answers quoting them. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "transport/trace_pkt.h"

#define IP4_HLEN 20
#define IP6_HLEN 40
#define UDP_HLEN 8
#define TCP_HLEN 20
#define ICMP_HLEN 8
#define ICMP_UNREACH 3
#define ICMP_TIMXCEED 11
#define ICMP6_UNREACH 1
#define ICMP6_TIMXCEED 3
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

uint32_t trace_pkt_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += get16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* The L4 checksum over the IPv4 or IPv6 pseudo header and @len bytes at @l4. */
static uint16_t l4_csum(const struct trace_tuple *tu, const uint8_t *l4, size_t len)
{
	uint8_t ph[40] = { 0 };
	size_t alen = tu->v6 ? 16 : 4, phlen;
	uint32_t sum;

	memcpy(ph, tu->src, alen);
	memcpy(ph + alen, tu->dst, alen);
	if (tu->v6) {			/* RFC 8200 8.1: length 32 bits, 3 zero bytes, next header */
		put32(ph + 32, (uint32_t)len);
		ph[39] = tu->proto;
		phlen = 40;
	} else {
		ph[9] = tu->proto;
		put16(ph + 10, (uint16_t)len);
		phlen = 12;
	}
	sum = trace_pkt_sum(ph, phlen, 0);
	sum = trace_pkt_sum(l4, len, sum);
	return (uint16_t)~sum;
}

/* The UDP or TCP header (and IPv6 UDP's payload) of a probe at @l4: its length. */
static size_t l4_build(uint8_t *l4, const struct trace_tuple *tu, uint32_t seq)
{
	size_t len;
	uint16_t csum;

	put16(l4, tu->sport);
	put16(l4 + 2, tu->dport);
	if (tu->proto == IPPROTO_TCP) {
		put32(l4 + 4, seq);
		l4[12] = 5 << 4;		/* data offset: 5 words */
		l4[13] = TCP_SYN;
		put16(l4 + 14, 65535);		/* window */
		put16(l4 + 16, l4_csum(tu, l4, TCP_HLEN));
		return TCP_HLEN;
	}
	len = UDP_HLEN;
	if (tu->v6) {
		put32(l4 + UDP_HLEN, seq);
		len += TRACE_PKT_V6_PAYLOAD;
	}
	put16(l4 + 4, (uint16_t)len);
	csum = l4_csum(tu, l4, len);
	put16(l4 + 6, csum ? csum : 0xffff);	/* 0 means "none" in UDP */
	return len;
}

static size_t build6(uint8_t *buf, const struct trace_tuple *tu, uint8_t ttl, uint32_t seq)
{
	uint8_t *ip = buf;
	size_t l4len;

	memset(buf, 0, TRACE_PKT_MAX);
	put32(ip, 6u << 28 | (tu->label & 0xfffff));	/* version 6, traffic class 0 */
	ip[6] = tu->proto;
	ip[7] = ttl;
	memcpy(ip + 8, tu->src, 16);
	memcpy(ip + 24, tu->dst, 16);
	l4len = l4_build(ip + IP6_HLEN, tu, seq);
	put16(ip + 4, (uint16_t)l4len);
	return IP6_HLEN + l4len;
}

size_t trace_pkt_build(uint8_t *buf, const struct trace_tuple *tu, uint8_t ttl, uint16_t ip_id,
		       uint32_t seq)
{
	uint8_t *ip = buf;
	size_t l4len;

	if (tu->v6)
		return build6(buf, tu, ttl, seq);
	memset(buf, 0, TRACE_PKT_MAX);
	ip[0] = 0x45;				/* version 4, 5 words */
	put16(ip + 4, ip_id);
	put16(ip + 6, 0x4000);			/* DF */
	ip[8] = ttl;
	ip[9] = tu->proto;
	memcpy(ip + 12, tu->src, 4);
	memcpy(ip + 16, tu->dst, 4);
	l4len = l4_build(ip + IP4_HLEN, tu, seq);
	put16(ip + 2, (uint16_t)(IP4_HLEN + l4len));
	put16(ip + 10, (uint16_t)~trace_pkt_sum(ip, IP4_HLEN, 0));
	return IP4_HLEN + l4len;
}

/* An IPv4 header at @p (@len bytes): its length, or 0 when it is not one. */
static size_t ip4_hlen(const uint8_t *p, size_t len)
{
	size_t hl;

	if (len < IP4_HLEN || p[0] >> 4 != 4)
		return 0;
	hl = (size_t)(p[0] & 0x0f) * 4;
	return hl >= IP4_HLEN && hl <= len ? hl : 0;
}

/* The quoted probe inside an ICMP error (@q, @len bytes: IPv4 header + >= 8 bytes). */
static int quote_parse(const uint8_t *q, size_t len, struct trace_answer *a)
{
	size_t hl = ip4_hlen(q, len);
	const uint8_t *l4;

	if (!hl || len < hl + 8 || (q[9] != IPPROTO_UDP && q[9] != IPPROTO_TCP))
		return -EINVAL;
	if (get16(q + 6) & 0x1fff)
		return -EINVAL;			/* a later fragment: no L4 header */
	l4 = q + hl;
	a->probe.proto = q[9];
	memcpy(a->probe.src, q + 12, 4);
	memcpy(a->probe.dst, q + 16, 4);
	a->probe.sport = get16(l4);
	a->probe.dport = get16(l4 + 2);
	a->has_ip_id = true;
	a->ip_id = get16(q + 4);
	if (q[9] == IPPROTO_TCP) {
		a->has_seq = true;
		a->seq = get32(l4 + 4);
	}
	return 0;
}

static int icmp_parse(const uint8_t *ic, size_t len, struct trace_answer *a)
{
	if (len < ICMP_HLEN)
		return -EINVAL;
	if (ic[0] == ICMP_TIMXCEED && ic[1] == 0)
		a->kind = HOP_TIME_EXCEEDED;	/* code 1 (reassembly) is not ours */
	else if (ic[0] == ICMP_UNREACH)
		a->kind = HOP_UNREACHABLE;
	else
		return -EINVAL;
	a->code = ic[1];
	return quote_parse(ic + ICMP_HLEN, len - ICMP_HLEN, a);
}

/* A destination's RST or SYN-ACK from @from to @to (@alen bytes): the probe it answers is the segment reversed. */
static int tcp_parse(const uint8_t *from, const uint8_t *to, size_t alen, const uint8_t *tcp,
		     size_t len, struct trace_answer *a)
{
	uint8_t fl;

	if (len < TCP_HLEN)
		return -EINVAL;
	fl = tcp[13];
	if (fl & TCP_RST)
		a->kind = HOP_TCP_RST;
	else if ((fl & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK))
		a->kind = HOP_TCP_SYNACK;
	else
		return -EINVAL;
	if (!(fl & TCP_ACK))
		return -EINVAL;			/* a RST that acknowledges nothing names no probe */
	a->probe.proto = IPPROTO_TCP;
	memcpy(a->probe.src, to, alen);
	memcpy(a->probe.dst, from, alen);
	a->probe.sport = get16(tcp + 2);
	a->probe.dport = get16(tcp);
	a->has_seq = true;
	a->seq = get32(tcp + 8) - 1;		/* a SYN counts one */
	return 0;
}

int trace_pkt_parse(const uint8_t *pkt, size_t len, struct trace_answer *a)
{
	size_t hl = ip4_hlen(pkt, len), tot;

	memset(a, 0, sizeof(*a));
	if (!hl)
		return -EINVAL;
	tot = get16(pkt + 2);
	if (tot < hl || tot > len || (get16(pkt + 6) & 0x1fff))
		return -EINVAL;
	memcpy(a->from, pkt + 12, 4);
	if (pkt[9] == IPPROTO_ICMP)
		return icmp_parse(pkt + hl, tot - hl, a);
	if (pkt[9] == IPPROTO_TCP)
		return tcp_parse(pkt + 12, pkt + 16, 4, pkt + hl, tot - hl, a);
	return -EINVAL;
}

/* The quoted IPv6 probe inside an ICMPv6 error (@q, @len bytes: IPv6 header + >= 8 bytes). */
static int quote6_parse(const uint8_t *q, size_t len, struct trace_answer *a)
{
	const uint8_t *l4 = q + IP6_HLEN;

	if (len < IP6_HLEN + 8 || q[0] >> 4 != 6 || (q[6] != IPPROTO_UDP && q[6] != IPPROTO_TCP))
		return -EINVAL;			/* our probes carry no extension header */
	a->probe.proto = q[6];
	a->probe.label = get32(q) & 0xfffff;
	memcpy(a->probe.src, q + 8, 16);
	memcpy(a->probe.dst, q + 24, 16);
	a->probe.sport = get16(l4);
	a->probe.dport = get16(l4 + 2);
	if (q[6] == IPPROTO_TCP) {
		a->has_seq = true;
		a->seq = get32(l4 + 4);
	} else if (len >= IP6_HLEN + UDP_HLEN + TRACE_PKT_V6_PAYLOAD &&
		   get16(l4 + 4) == UDP_HLEN + TRACE_PKT_V6_PAYLOAD) {
		a->has_seq = true;
		a->seq = get32(l4 + UDP_HLEN);
	}
	return 0;
}

int trace_pkt_parse6(const uint8_t *msg, size_t len, int proto, const uint8_t from[16],
		     const uint8_t to[16], struct trace_answer *a)
{
	memset(a, 0, sizeof(*a));
	a->probe.v6 = true;
	memcpy(a->from, from, 16);
	if (proto == IPPROTO_TCP)
		return tcp_parse(from, to, 16, msg, len, a);
	if (proto != IPPROTO_ICMPV6 || len < ICMP_HLEN)
		return -EINVAL;
	if (msg[0] == ICMP6_TIMXCEED && msg[1] == 0)
		a->kind = HOP_TIME_EXCEEDED;	/* code 1 (reassembly) is not ours */
	else if (msg[0] == ICMP6_UNREACH)
		a->kind = HOP_UNREACHABLE;
	else
		return -EINVAL;
	a->code = msg[1];
	return quote6_parse(msg + ICMP_HLEN, len - ICMP_HLEN, a);
}

int trace_pkt_probe(const struct trace_answer *a, uint16_t id_base, uint32_t seq_base,
		    uint32_t *k)
{
	if (a->has_seq) {
		*k = a->seq - seq_base;
		if (a->has_ip_id && (uint16_t)(a->ip_id - id_base) != (uint16_t)*k)
			return -1;
		return 0;
	}
	if (!a->has_ip_id)
		return -1;
	*k = (uint16_t)(a->ip_id - id_base);
	return 0;
}

bool trace_tuple_eq(const struct trace_tuple *x, const struct trace_tuple *y)
{
	size_t alen = x->v6 ? 16 : 4;

	return x->proto == y->proto && x->v6 == y->v6 && !memcmp(x->src, y->src, alen) &&
	       !memcmp(x->dst, y->dst, alen) && x->sport == y->sport && x->dport == y->dport;
}
