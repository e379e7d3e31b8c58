// SPDX-License-Identifier: GPL-2.0-or-later
/* The path of one flow, hop by hop, and the nodes its answers come from. */
#include <stdlib.h>
#include <string.h>

#include "model/flow_trace.h"
#include "util/str.h"

void flow_trace_fini(struct flow_trace *t)
{
	if (!t)
		return;
	free(t->hops);
	memset(t, 0, sizeof(*t));
}

const char *flow_proto_name(enum flow_proto p)
{
	return p == FLOW_TCP ? "tcp" : p == FLOW_UDP ? "udp" : "?";
}

const char *hop_answer_name(enum hop_answer a)
{
	static const char *const names[] = {
		[HOP_NONE] = "none",
		[HOP_TIME_EXCEEDED] = "time-exceeded",
		[HOP_UNREACHABLE] = "unreachable",
		[HOP_TCP_RST] = "tcp-rst",
		[HOP_TCP_SYNACK] = "tcp-synack",
	};

	return (unsigned int)a < sizeof(names) / sizeof(names[0]) ? names[a] : "?";
}

/* The node holding @addr into @node ("" when none); true when @addr is set but no node's. */
static bool map_one(const char *addr, char *node, size_t len, const struct node_addr_index *ix)
{
	const struct topo_node *n;

	node[0] = '\0';
	if (!addr[0])
		return false;
	n = ix ? node_addr_lookup(ix, addr) : NULL;
	if (n)
		str_fmt(node, len, "%s", n->name);
	return !n;
}

size_t flow_trace_map(struct flow_trace *t, const struct node_addr_index *ix)
{
	size_t unmapped = 0;

	for (size_t i = 0; i < t->n_hops; i++) {
		struct flow_hop *h = &t->hops[i];

		unmapped += map_one(h->addr, h->node, sizeof(h->node), ix);
		unmapped += map_one(h->other, h->other_node, sizeof(h->other_node), ix);
	}
	return unmapped;
}

const char *flow_hop_name(const struct flow_hop *h, bool by_addr)
{
	if (h->node[0])
		return h->node;
	return by_addr ? h->addr : "";
}
