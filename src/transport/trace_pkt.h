/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tracer's packets (transport/trace.c), built and read as bytes, with
 * no socket: IPv4 probes that keep a flow's 5-tuple, and the answers that
 * quote them.
 *
 * A probe is an IPv4 header (TTL and IP ID vary, DF set, no options)
 * followed by a UDP header with no payload, or a TCP SYN with no options.
 * The fields routers hash (addresses, protocol, ports) never change
 * between the probes of one flow; what tells the probes apart lies in
 * fields no router hashes: the IP ID (quoted by every ICMP error), and
 * for TCP also the sequence number (within the first 8 bytes of the TCP
 * header, which RFC 792 has every ICMP error quote, and acknowledged by a
 * destination's RST or SYN-ACK, which quote nothing).
 *
 * An answer is read from what a raw socket returns (the IPv4 header
 * first): an ICMP time exceeded or destination unreachable that quotes a
 * UDP or TCP header, or a TCP segment with RST or SYN+ACK set.  Either way
 * the answer names the probe's tuple as the probe was sent (source =
 * this host), so the tracer matches it against its flows.  Pure: no I/O.
 */
#ifndef FAB_TRANSPORT_TRACE_PKT_H
#define FAB_TRANSPORT_TRACE_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/flow_trace.h"

#define TRACE_PKT_MAX 64	/* bytes: the largest probe (IPv4 20 + TCP 20) with room */

/* A flow's tuple in network form (addresses as 4 bytes, network order). */
struct trace_tuple {
	uint8_t proto;		/* IPPROTO_UDP or IPPROTO_TCP */
	uint8_t src[4], dst[4];
	uint16_t sport, dport;	/* host order */
};

/*
 * The probe for @tu with @ttl, IP ID @ip_id and (TCP) sequence number @seq,
 * into @buf (at least TRACE_PKT_MAX bytes), checksums computed: its length.
 */
size_t trace_pkt_build(uint8_t *buf, const struct trace_tuple *tu, uint8_t ttl, uint16_t ip_id,
		       uint32_t seq);

struct trace_answer {
	enum hop_answer kind;
	uint8_t code;		/* ICMP code (unreachable) */
	uint8_t from[4];	/* who answered: the outer source */
	struct trace_tuple probe;	/* the probe's tuple, source = this host */
	bool has_ip_id;		/* ICMP quotes the probe's IP header */
	uint16_t ip_id;
	bool has_seq;		/* the probe's TCP sequence number: quoted or acknowledged */
	uint32_t seq;
};

/*
 * Read @len bytes of @pkt (an IPv4 packet with its header) as an answer:
 * 0 and @a filled, or -EINVAL when it is none (another ICMP type, a
 * quote too short to hold the ports, a TCP segment without RST or
 * SYN+ACK, a truncated or malformed packet).
 */
int trace_pkt_parse(const uint8_t *pkt, size_t len, struct trace_answer *a);

/*
 * The number k of the probe @a answers, in a run whose probe k carries IP
 * ID @id_base + k (mod 2^16) and TCP sequence number @seq_base + k: 0 and
 * *@k, all 32 bits when @a holds a sequence number (TCP), else the low 16
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
