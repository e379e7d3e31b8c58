/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hosts file (docs/hosts.md): one node per line,
 *
 *     NAME ADDRESS [key=value ...]      # comment
 *
 * NAME is what the launcher gets for {host} (ssh host, Slurm node, pod,
 * network namespace); ADDRESS the data-path IPv4/IPv6 address.  Known keys:
 * rdma=DEV[:PORT], leaf=, rack=, rate_gbps= (rated port speed), new (bare
 * or new=yes|no), ifname=IF (the fabric port), rail=N.  Other keys (port=swpN: the
 * leaf port) are kept as labels.  Pure parsing, no I/O.  Errors are
 * "FILE:LINE:COL: message" (or "FILE:LINE: field: message") and marked as
 * bad input.
 *
 * Several fabric ports (rails, docs/hosts.md "Several fabric ports"): a
 * host given on several lines, each with its own ADDRESS and ifname=, is
 * one node with several end points.  Each line stays one struct fab_host
 * (an end point): @node is the NAME as written (the launcher's {host}),
 * @name "NAME:IFNAME" (one-line hosts: @name is NAME), @rail rail= or the
 * line's order among its host's lines (a plan's `nics:` order).
 *
 * Ownership: struct fab_hosts owns its array; hosts_fini() frees it.
 */
#ifndef FAB_MODEL_HOSTS_H
#define FAB_MODEL_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

#define FAB_HOST_NAME_MAX 64
#define FAB_HOST_LABELS_MAX 16

struct fab_label {
	char key[32];
	char value[64];
};

#define FAB_HOST_NIC_MAX 16	/* IFNAMSIZ */
#define FAB_HOST_RAIL_MAX 1023	/* as a plan's rail: */

struct fab_host {
	char name[FAB_HOST_NAME_MAX];	/* NAME, or NAME:IFNAME for a host of several ports */
	char node[FAB_HOST_NAME_MAX];	/* NAME as written; "" when built by hand: use hosts_node() */
	char nic[FAB_HOST_NIC_MAX];	/* ifname=, "" when none */
	int rail;			/* rail=, else the port's order (several); -1 unknown */
	unsigned int port;		/* 0-based order of this line among its host's lines */
	unsigned int n_ports;		/* lines of its host (1: one line; 0: built by hand) */
	char addr[48];		/* numeric IPv4 or IPv6 */
	char rdma[64];		/* RDMA device, "" when none */
	unsigned int rdma_port;	/* 0 when not given */
	char leaf[32];
	char rack[32];
	bool is_new;
	double rate_gbps;	/* rated port speed, 0 when unknown */
	struct fab_label labels[FAB_HOST_LABELS_MAX];	/* every key=value, known or not */
	size_t n_labels;
	unsigned int line;	/* line in the hosts file */
};

struct fab_hosts {
	struct fab_host *hosts;
	size_t n;
};

struct fab_pairs_list {
	unsigned int (*pairs)[2];	/* indices into a struct fab_hosts */
	size_t n;
};

void hosts_init(struct fab_hosts *hs);
void hosts_fini(struct fab_hosts *hs);

/* Parse @len bytes of hosts file named @fname (for messages) into @hs. */
int hosts_parse(struct fab_hosts *hs, const char *buf, size_t len, const char *fname,
		struct fab_err *err);

/*
 * NULL when numeric @addr can be a node's data-path address; otherwise
 * what it is instead, for a message ("the wildcard address (::)", "a
 * multicast address", ...): wildcard (0.0.0.0/8, ::), multicast,
 * broadcast and 240.0.0.0/4 are refused, IPv4-mapped IPv6 as IPv4.
 */
const char *hosts_addr_unusable(const char *addr);

/* Index of the host named @name, or -1. */
int hosts_find(const struct fab_hosts *hs, const char *name);

/* The node @h is a port of (the launcher's {host}): h->node, or h->name when not set. */
const char *hosts_node(const struct fab_host *h);

/* Index of the first line of node @node (NAME as written), or -1. */
int hosts_find_node(const struct fab_hosts *hs, const char *node);

/* Some host of @hs has several ports or some line a rail=: the sweep pairs end points by rail. */
bool hosts_have_rails(const struct fab_hosts *hs);

/*
 * The nodes of @all, one entry each (its first line, named NAME), into
 * @nodes (hosts_init'ed), for what runs once per node (status, verify,
 * apply, discover).  -ENOMEM.
 */
int hosts_nodes(const struct fab_hosts *all, struct fab_hosts *nodes);

/*
 * End points @a and @b are paired by a sweep: ports of different nodes,
 * on the same rail unless @cross_rail (an unknown rail, -1, pairs with
 * every rail).
 */
bool hosts_ports_pair(const struct fab_host *a, const struct fab_host *b, bool cross_rail);

/*
 * The pairs an all-pairs sweep of @hs measures rail by rail (same rail,
 * or a port of no known rail with any other node's port), counted
 * without building them; *@n_nodes: the nodes (lines with port 0).
 * O(n).  (Every line one host: n (n - 1) / 2.)
 */
size_t hosts_rail_pairs_count(const struct fab_hosts *hs, size_t *n_nodes);

/*
 * Per end point of @hs, its node as a number 0.. in order of first line:
 * a new array (*@n_nodes the count), or NULL on ENOMEM.
 */
unsigned int *hosts_node_ids(const struct fab_hosts *hs, size_t *n_nodes);

struct sched_pair;

/*
 * The end-point pairs a sweep measures: hosts_ports_pair(), and with
 * @new_x_rest only a new host's with another's.  Ordered by the round
 * the circle method (model/schedule.h) gives their two nodes, then rail,
 * so that packed greedily every rail of a round of nodes runs in one
 * round.  A new array in *@pairs (a < b) of *@n_pairs (maybe 0); -ENOMEM.
 */
int hosts_port_pairs(const struct fab_hosts *hs, bool cross_rail, bool new_x_rest,
		     struct sched_pair **pairs, size_t *n_pairs);

/*
 * After the lines are read: each node's ports counted, rails given
 * (rail= or the order), names NAME:IFNAME where a node has several lines,
 * host-wide labels (new, role, rack, lldp_name, lldp_socket, dial)
 * checked alike on all its lines.  Called by hosts_parse(); 0 or -errno.
 */
int hosts_ports_finish(struct fab_hosts *hs, const char *fname, struct fab_err *err);

/* A valid NAME: [A-Za-z0-9._@-], not starting with '-' (never an option). */
bool hosts_name_valid(const char *name);

/*
 * A line of the hosts file is an end point (a host the sweep measures)
 * unless it has a label role= other than "host" (role=leaf, role=spine:
 * a switch whose worker only reads its lldpd for sweep --topology lldp and
 * discover --lldp).
 */
/* The value of label @key of @h, NULL when it has none. */
const char *hosts_label(const struct fab_host *h, const char *key);

bool hosts_is_endpoint(const struct fab_host *h);

/* Copy @all's end points into @ends and the rest into @fabric (both hosts_init'ed); -ENOMEM. */
int hosts_split_role(const struct fab_hosts *all, struct fab_hosts *ends, struct fab_hosts *fabric);

/*
 * Pairs file: "NAME NAME" per line, comments and blank lines allowed;
 * both names must be in @hs, distinct, and each pair listed once.
 */
int hosts_pairs_parse(struct fab_pairs_list *pl, const struct fab_hosts *hs,
		      const char *buf, size_t len, const char *fname, struct fab_err *err);
void hosts_pairs_fini(struct fab_pairs_list *pl);

#endif
