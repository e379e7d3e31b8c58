// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: whatever a raw socket hands the tracer (an IPv4 packet
 * from anyone; an ICMPv6 message or a TCP segment on an IPv6 socket)
 * through trace_pkt_parse, trace_pkt_parse6 and trace_pkt_probe
 * (src/transport/trace_pkt.c).  Seeds: tests/fuzz/corpus/trace_pkt (real
 * answers from the routed netns lab: time exceeded for UDP and TCP probes,
 * port unreachable, RST; *6_*: IPv6 ones from two Linux routers, as an
 * IPv6 raw socket returns them, after the selector byte).  The first byte
 * picks the reader: odd, IPv6 (its second bit: TCP, else ICMPv6), on the
 * bytes after it; the IPv4 reader always reads the whole input too.
 *   build/fuzz/fuzz_trace_pkt -max_total_time=60 SCRATCH tests/fuzz/corpus/trace_pkt
 * (SCRATCH: an empty folder for the inputs it finds; the seeds stay as they are)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "transport/trace_pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t from[16] = { 0xfd, [15] = 1 }, to[16] = { 0xfd, [15] = 2 };
	struct trace_answer a;
	uint8_t probe[TRACE_PKT_MAX];
	uint32_t k;

	if (size && (data[0] & 1) &&
	    trace_pkt_parse6(data + 1, size - 1, data[0] & 2 ? 6 : 58, from, to, &a) == 0) {
		if (a.kind == HOP_NONE || !a.probe.v6 || a.has_ip_id)
			abort();	/* IPv6 has no IP ID */
		if (trace_pkt_build(probe, &a.probe, 1, 0, a.seq) > TRACE_PKT_MAX)
			abort();
	}
	if (trace_pkt_parse(data, size, &a) < 0)
		return 0;
	if (a.kind == HOP_NONE)
		abort();		/* an answer always says what it is */
	if (trace_pkt_probe(&a, 0x1000, 0x10000000, &k) == 0 && !a.has_seq && k > 0xffff)
		abort();		/* an IP ID names 16 bits */
	/* the probe it names rebuilds into a packet of a probe's size */
	if (trace_pkt_build(probe, &a.probe, 1, a.ip_id, a.seq) > TRACE_PKT_MAX)
		abort();
	return 0;
}
