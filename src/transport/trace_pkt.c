// SPDX-License-Identifier: GPL-2.0-or-later
/* The tracer's packets: IPv4 probes that keep a 5-tuple, and the answers quoting them. */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "transport/trace_pkt.h"

#define IP4_HLEN 20
#define UDP_HLEN 8
#define TCP_HLEN 20
#define ICMP_HLEN 8
#define ICMP_UNREACH 3
#define ICMP_TIMXCEED 11
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

/* The L4 checksum over the IPv4 pseudo header and @len bytes at @l4. */
static uint16_t l4_csum(const struct trace_tuple *tu, const uint8_t *l4, size_t len)
{
	uint8_t ph[12];
	uint32_t sum;

	memcpy(ph, tu->src, 4);
	memcpy(ph + 4, tu->dst, 4);
	ph[8] = 0;
	ph[9] = tu->proto;
	put16(ph + 10, (uint16_t)len);
	sum = trace_pkt_sum(ph, sizeof(ph), 0);
	sum = trace_pkt_sum(l4, len, sum);
	return (uint16_t)~sum;
}

size_t trace_pkt_build(uint8_t *buf, const struct trace_tuple *tu, uint8_t ttl, uint16_t ip_id,
		       uint32_t seq)
{
	size_t l4len = tu->proto == IPPROTO_TCP ? TCP_HLEN : UDP_HLEN;
	uint8_t *ip = buf, *l4 = buf + IP4_HLEN;
	uint16_t csum;

	memset(buf, 0, IP4_HLEN + l4len);
	ip[0] = 0x45;				/* version 4, 5 words */
	put16(ip + 2, (uint16_t)(IP4_HLEN + l4len));
	put16(ip + 4, ip_id);
	put16(ip + 6, 0x4000);			/* DF */
	ip[8] = ttl;
	ip[9] = tu->proto;
	memcpy(ip + 12, tu->src, 4);
	memcpy(ip + 16, tu->dst, 4);
	put16(ip + 10, (uint16_t)~trace_pkt_sum(ip, IP4_HLEN, 0));
	put16(l4, tu->sport);
	put16(l4 + 2, tu->dport);
	if (tu->proto == IPPROTO_TCP) {
		put32(l4 + 4, seq);
		l4[12] = 5 << 4;		/* data offset: 5 words */
		l4[13] = TCP_SYN;
		put16(l4 + 14, 65535);		/* window */
		put16(l4 + 16, l4_csum(tu, l4, TCP_HLEN));
	} else {
		put16(l4 + 4, UDP_HLEN);
		csum = l4_csum(tu, l4, UDP_HLEN);
		put16(l4 + 6, csum ? csum : 0xffff);	/* 0 means "none" in UDP */
	}
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

/* A destination's RST or SYN-ACK: the probe it answers is the segment reversed. */
static int tcp_parse(const uint8_t *ip, const uint8_t *tcp, size_t len, struct trace_answer *a)
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
	memcpy(a->probe.src, ip + 16, 4);
	memcpy(a->probe.dst, ip + 12, 4);
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
		return tcp_parse(pkt, pkt + hl, tot - hl, a);
	return -EINVAL;
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
	return x->proto == y->proto && !memcmp(x->src, y->src, 4) && !memcmp(x->dst, y->dst, 4) &&
	       x->sport == y->sport && x->dport == y->dport;
}
