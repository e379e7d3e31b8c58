/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracer's packets (transport/trace.c), built and read as bytes, with
 * no socket: IPv4 and IPv6 probes that keep a flow's 5-tuple, and the
 * answers that quote them.
 *
 * An IPv4 probe is an IPv4 header (TTL and IP ID vary, DF set, no
 * options) followed by a UDP header with no payload, or a TCP SYN with no
 * options.  An IPv6 probe is an IPv6 header (hop limit varies; traffic
 * class 0, the flow's flow label, no extension header) followed by a UDP
 * header and 4 bytes of payload, or the same TCP SYN.  The fields routers
 * hash (addresses, protocol, ports; IPv6: the flow label too, which some
 * switches and Linux's policy 0 hash) never change between the probes of
 * one flow; what tells the probes apart lies in fields no router hashes:
 * the IPv4 IP ID (quoted by every ICMP error), the TCP sequence number
 * (within the first 8 bytes of the TCP header, which RFC 792 has every
 * ICMP error quote, and acknowledged by a destination's RST or SYN-ACK,
 * which quote nothing), and the IPv6 UDP probe's payload (IPv6 has no IP
 * ID; an ICMPv6 error quotes as much of the probe as fits in 1280 bytes,
 * RFC 4443 2.4 (c), so all of it).  The UDP payload changes the UDP
 * checksum, which no router hashes.
 *
 * An IPv4 answer is read from what a raw socket returns (the IPv4 header
 * first): an ICMP time exceeded or destination unreachable that quotes a
 * UDP or TCP header, or a TCP segment with RST or SYN+ACK set.  An IPv6
 * raw socket returns no IPv6 header: the answer is the ICMPv6 message or
 * the TCP segment, with the addresses the socket gives beside it (who
 * sent it; the TCP segment's destination, from IPV6_PKTINFO).  Either way
 * the answer names the probe's tuple as the probe was sent (source =
 * this host), so the tracer matches it against its flows.  Pure: no I/O.
 */
#ifndef FAB_TRANSPORT_TRACE_PKT_H
#define FAB_TRANSPORT_TRACE_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/flow_trace.h"

#define TRACE_PKT_MAX 80	/* bytes: the largest probe (IPv6 40 + TCP 20) with room */
#define TRACE_PKT_V6_PAYLOAD 4	/* the IPv6 UDP probe's payload: its number */

/* A flow's tuple in network form (addresses network order; IPv4: the first 4 bytes, the rest 0). */
struct trace_tuple {
	uint8_t proto;		/* IPPROTO_UDP or IPPROTO_TCP */
	bool v6;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;	/* host order */
	uint32_t label;		/* IPv6: the flow label (20 bits); not compared */
};

/*
 * The probe for @tu with @ttl (IPv6: the hop limit), IP ID @ip_id (IPv4)
 * and number @seq (TCP: the sequence number; IPv6 UDP: the payload), into
 * @buf (at least TRACE_PKT_MAX bytes), checksums computed: its length.
 */
size_t trace_pkt_build(uint8_t *buf, const struct trace_tuple *tu, uint8_t ttl, uint16_t ip_id,
		       uint32_t seq);

struct trace_answer {
	enum hop_answer kind;
	uint8_t code;		/* ICMP code (unreachable) */
	uint8_t from[16];	/* who answered: the outer source (IPv4: 4 bytes) */
	struct trace_tuple probe;	/* the probe's tuple, source = this host */
	bool has_ip_id;		/* ICMP quotes the probe's IP header */
	uint16_t ip_id;
	bool has_seq;		/* the probe's TCP sequence number: quoted or acknowledged; */
	uint32_t seq;		/* IPv6 UDP: its payload, quoted */
};

/*
 * Read @len bytes of @pkt (an IPv4 packet with its header) as an answer:
 * 0 and @a filled, or -EINVAL when it is none (another ICMP type, a
 * quote too short to hold the ports, a TCP segment without RST or
 * SYN+ACK, a truncated or malformed packet).
 */
int trace_pkt_parse(const uint8_t *pkt, size_t len, struct trace_answer *a);

/*
 * Read @len bytes of @msg as an IPv6 answer, as an IPv6 raw socket of
 * @proto (IPPROTO_ICMPV6 or IPPROTO_TCP) returns it: no IPv6 header;
 * @from its source, @to its destination (TCP: this host, from
 * IPV6_PKTINFO).  0 and @a filled (probe.v6 set), or -EINVAL as above.
 */
int trace_pkt_parse6(const uint8_t *msg, size_t len, int proto, const uint8_t from[16],
		     const uint8_t to[16], struct trace_answer *a);

/*
 * The number k of the probe @a answers, in a run whose probe k carries IP
 * ID @id_base + k (mod 2^16) and number @seq_base + k (TCP sequence
 * number, IPv6 UDP payload): 0 and *@k, all 32 bits when @a holds that
 * number (TCP, IPv6), else the low 16
 * (the caller keeps its probes by k mod 2^16); or -1 when @a names none,
 * or its IP ID and sequence number disagree.  The caller then checks that
 * probe's tuple against a->probe (trace_tuple_eq()): an answer is ours
 * only when both match.
 */
int trace_pkt_probe(const struct trace_answer *a, uint16_t id_base, uint32_t seq_base,
		    uint32_t *k);

bool trace_tuple_eq(const struct trace_tuple *x, const struct trace_tuple *y);

/* The Internet checksum of @len bytes, folded, not inverted, starting from @sum. */
uint32_t trace_pkt_sum(const uint8_t *p, size_t len, uint32_t sum);

#endif
