/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The path of one flow, hop by hop: what TTL-limited probes that keep the
 * flow's 5-tuple (the Paris-traceroute method, transport/trace.h) found,
 * and the topology node each answering address belongs to.  Pure data,
 * no I/O; docs/paths.md.
 *
 * A flow is what a switch hashes onto an ECMP member: protocol, both
 * addresses, both ports.  Hop i answers the probe sent with TTL
 * first_ttl + i: a router (ICMP time exceeded), or the destination itself
 * (ICMP port unreachable for UDP, RST or SYN-ACK for TCP), or nobody ("*").
 *
 * Ownership: a struct flow_trace owns its hops; flow_trace_fini() frees
 * them and leaves the trace zeroed (safe twice).
 */
#ifndef FAB_MODEL_FLOW_TRACE_H
#define FAB_MODEL_FLOW_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/node_addr.h"
#include "model/topo.h"

#define FLOW_TRACE_MAX_TTL 64

enum flow_proto {
	FLOW_TCP = 6,
	FLOW_UDP = 17,		/* RoCE v2: UDP to 4791 */
};

struct flow {
	enum flow_proto proto;
	char src[TOPO_ADDR_LEN];	/* "": the source the route to dst picks (filled by the trace) */
	char dst[TOPO_ADDR_LEN];
	uint16_t sport, dport;
	uint32_t label;			/* IPv6: the flow label the probes carry (the test's own); 0 none */
};

enum hop_answer {
	HOP_NONE = 0,		/* no answer: "*" */
	HOP_TIME_EXCEEDED,	/* a router on the way (ICMP time exceeded) */
	HOP_UNREACHABLE,	/* ICMP destination unreachable (code in hop.code): from the
				 * destination (port unreachable), or a router that cannot forward */
	HOP_TCP_RST,		/* the destination: the port is closed */
	HOP_TCP_SYNACK,		/* the destination: the port is open */
};

struct flow_hop {
	unsigned int ttl;
	enum hop_answer answer;
	unsigned int code;		/* ICMP code of HOP_UNREACHABLE */
	char addr[TOPO_ADDR_LEN];	/* the first answer's source; "" for none */
	/*
	 * Another address that answered this TTL (a later try), "" when
	 * none: a router whose way back is an ECMP route answers from
	 * either interface, which is one node; two nodes at one TTL mean the
	 * flow's path changed between probes.
	 */
	char other[TOPO_ADDR_LEN];
	uint32_t rtt_us;		/* of the first answer */
	unsigned int tries;		/* probes sent for this TTL */
	/* flow_trace_map(): the nodes holding addr / other; "" unknown */
	char node[128];
	char other_node[128];
};

struct flow_trace {
	struct flow flow;
	struct flow_hop *hops;		/* owned; hops[i].ttl == hops[0].ttl + i */
	size_t n_hops;
	bool reached;			/* the destination answered */
	unsigned int reached_ttl;	/* and at this TTL; 0 when not reached */
};

void flow_trace_fini(struct flow_trace *t);

/* "udp", "tcp". */
const char *flow_proto_name(enum flow_proto p);
/* "none", "time-exceeded", "unreachable", "tcp-rst", "tcp-synack". */
const char *hop_answer_name(enum hop_answer a);

/*
 * Name each hop's node from @ix (NULL: none, every node "").  Returns the
 * number of answering addresses no node holds.
 */
size_t flow_trace_map(struct flow_trace *t, const struct node_addr_index *ix);

/*
 * The name a hop goes by: its node when mapped, else its address when
 * @by_addr (no topology to map with), else "" (unmapped or no answer).
 */
const char *flow_hop_name(const struct flow_hop *h, bool by_addr);

#endif
