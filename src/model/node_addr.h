/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * IP addresses of topology nodes, and the node an address belongs to.
 *
 * A router answers a TTL-limited probe from one of its own interface
 * addresses (on Linux the address of the interface its reply leaves by,
 * unless net.ipv4.icmp_errors_use_inbound_ifaddr is set), and which one
 * can change from probe to probe when its way back is itself an ECMP
 * route.  So a traced hop names a router, never a port: the node that
 * holds the answering address among its addresses (topo_node.addrs: a
 * plan's addresses:, LLDP management addresses; docs/paths.md).
 *
 * Use:
 *     node_addr_index_build(&ix, topo)     every node's addresses, sorted
 *     node_addr_lookup(&ix, "10.77.255.5") the node, or NULL
 *     node_addr_index_fini(&ix)
 *
 * Loopback and link-local addresses are left out (node_addr_local()).
 * An address two nodes both claim belongs to neither (a lookup returns
 * NULL): the index counts such addresses and keeps the first for a
 * message.  Ownership: the index owns its entries and borrows the nodes,
 * which must outlive it.  Pure C, no I/O.
 */
#ifndef FAB_MODEL_NODE_ADDR_H
#define FAB_MODEL_NODE_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/topo.h"

struct node_addr {
	uint8_t family;		/* 4 or 6 */
	uint8_t bytes[16];	/* IPv4: the first 4, network order */
};

/* Parse IPv4 or IPv6 text: 0, or -EINVAL when @s is not an address. */
int node_addr_parse(const char *s, struct node_addr *a);
/* @a as inet_ntop(3) writes it, into @buf (TOPO_ADDR_LEN bytes). */
void node_addr_text(const struct node_addr *a, char *buf);
/* @s in inet_ntop(3)'s form into @out (TOPO_ADDR_LEN bytes): 0, or -EINVAL. */
int node_addr_norm(const char *s, char *out);
/*
 * An address that names no node: IPv4 0.0.0.0/8, 127/8 and 169.254/16,
 * IPv6 ::, ::1 and fe80::/10 (unique on a link at most; never the source
 * of an answer to a routed probe).  Not text (@s not an address) also.
 */
bool node_addr_local(const char *s);

struct node_addr_entry {
	struct node_addr addr;
	const struct topo_node *node;	/* borrowed; NULL: claimed by two nodes */
};

struct node_addr_index {
	struct node_addr_entry *e;	/* owned, sorted by address */
	size_t n;
	size_t n_conflicts;		/* addresses two nodes claim */
	char conflict[TOPO_ADDR_LEN];	/* the first of them, "" when none */
};

/* Index every address of every node of @t: 0 or -ENOMEM. */
int node_addr_index_build(struct node_addr_index *ix, const struct topo *t);
void node_addr_index_fini(struct node_addr_index *ix);

/* The node holding @addr (text), or NULL: unknown, claimed twice, or not an address. */
const struct topo_node *node_addr_lookup(const struct node_addr_index *ix, const char *addr);

#endif
