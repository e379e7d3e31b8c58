/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The path each of a set of flows takes from this host, learned the
 * Paris-traceroute way: TTL-limited probes that keep the flow's 5-tuple
 * (so every router hashes them as it hashes the flow), the answers read
 * on raw sockets and matched to the probe they quote.  IPv4; root or
 * CAP_NET_RAW.  docs/paths.md; the packets are transport/trace_pkt.h's.
 *
 *     struct flow_trace tr[2] = { { .flow = { FLOW_UDP, "", "10.77.2.2", 49152, 4791 } },
 *                                 { .flow = { FLOW_UDP, "", "10.77.2.2", 49153, 4791 } } };
 *     struct trace_opts o = TRACE_OPTS_DEFAULT;
 *     trace_run(tr, 2, &o, -1, &err);     hops of both, traced side by side
 *
 * All flows are traced at once: each starts with TTLs 1..window in
 * flight; a router's answer at TTL t opens t + 1, and so does a TTL that
 * gave up silent while fewer than window TTLs in a row are; until the
 * destination answers (UDP: port unreachable; TCP: RST or SYN-ACK to the
 * SYN probe), a router says it cannot forward, or max_ttl.  (One TTL
 * past the last router, not a window: every probe past the destination
 * reaches it, and its rate limit is shared by all flows to it.)  A TTL
 * without an answer is probed again every retry_ms; it is "*" after tries
 * of its probes went unanswered while no other flow to the same
 * destination got an answer at that TTL either.  That is what gets past a
 * router's ICMP rate limit (Linux: net.ipv4.icmp_ratelimit, one answer a
 * second per prober after a burst of 6), which lets the answers of N flows
 * crossing one router through one a second: the flows still waiting keep
 * trying while others get theirs (at most N such rounds), and a silent
 * router costs tries rounds.  Probes leave at least gap_us apart.
 *
 * The tracer fills each trace's flow.src when it was "" (the source the
 * route to dst picks), its hops (TTL 1 on, up to the destination's answer
 * or the last TTL probed) and reached; hop.node is left for
 * flow_trace_map().  0, -ECANCELED when @cancel_fd (>= 0) became
 * readable, or -errno with @err set (-EPERM without CAP_NET_RAW,
 * -EAFNOSUPPORT for an IPv6 flow, -ENETUNREACH without a route, -E2BIG
 * for more than TRACE_MAX_FLOWS flows).  Probes are told apart by their
 * number modulo 65536 (the IP ID): an answer later than 65536 probes is
 * taken for the newer probe with its number, and checked by its tuple.
 * On failure the traces hold no hops.
 */
#ifndef FAB_TRANSPORT_TRACE_H
#define FAB_TRANSPORT_TRACE_H

#include <stddef.h>

#include "model/flow_trace.h"
#include "util/err.h"

struct trace_opts {
	unsigned int max_ttl;		/* the last TTL probed, 1..FLOW_TRACE_MAX_TTL */
	unsigned int window;		/* TTLs probed past the last one that answered, >= 1 */
	unsigned int tries;		/* unanswered probes per TTL before it is "*", >= 1 */
	unsigned int retry_ms;		/* between two tries of one TTL */
	unsigned int gap_us;		/* between any two probes */
};

#define TRACE_MAX_FLOWS 256u	/* flows in one trace_run() */

#define TRACE_OPTS_DEFAULT { .max_ttl = 16, .window = 4, .tries = 3, .retry_ms = 1000, .gap_us = 500 }

int trace_run(struct flow_trace *tr, size_t n, const struct trace_opts *o, int cancel_fd,
	      struct fab_err *err);

#endif
