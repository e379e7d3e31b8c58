/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Routing over a struct topo: where each host sits, what each link is rated
 * at, and which links a host pair's test traffic crosses (Ethernet/LLDP
 * graphs and cabling plans: every equal-cost shortest path, ECMP).
 * InfiniBand routes read from the forwarding tables are model/route_ib.c's;
 * they produce the same struct pair_route (model/path.h).  Pure C, no I/O.
 *
 * Use:
 *     route_new(&r, topo)            topo must be topo_sort()ed and left
 *                                    unchanged while r lives
 *     route_place(r, hosts, err)     each host -> its node, port, access link
 *     route_rates(r, hosts, virt, arg)  rated Mb/s per link
 *     route_pair(r, a, b, &pr, err)  enumerated paths of one pair
 *     route_pair_loads(r, a, b, ...) the pair's (link, share) items, cheap
 *     route_pair_nth(r, a, b, dir, i, &p)   path i of route_pair()'s, alone
 *     route_pair_find(r, a, b, dir, names, n, &i)  the index of a path by its nodes
 *
 * Host placement (route_place): host NAME (or its label lldp_name=) is
 * matched, in this order, to
 *   1. with rdma=DEV[:PORT]: an IB CA whose NodeDescription is "NAME DEV"
 *      (first two words); the port is PORT, else the CA's only linked port,
 *      else port 1 when linked;
 *   2. a host or CA node named exactly NAME (LLDP system name, plan node);
 *   3. without rdma=: the one CA whose description's first word is NAME;
 *   4. the one host node whose name up to its first '.' is NAME (an FQDN
 *      LLDP system name).
 * NAME is the node's (hosts_node()): the ports of a host of several are
 * placed on its linked port named by their ifname=.  Otherwise the
 * access port of a node found by 2-4 is its only linked port, or the
 * linked port whose peer port is named by the host's label port= (the leaf
 * port, e.g. port=swp3).  A host that matches nothing, matches ambiguously,
 * has no linked port or shares a port with another host is an input error
 * naming it (fab_err_input: the caller exits 2); nothing falls back.
 *
 * Rates (route_rates): a port's rated Mb/s is width_x * lane_mbps (width 0
 * counts as 1) when TOPO_F_SPEED is in its facts and the caller's
 * @port_virtual callback does not call it virtual (veth, bridge, tun,
 * dummy... claim a speed they do not have); a link's is the lower of its
 * two ends' known rates, 0 when neither is known.  A host's rate_gbps=
 * wins over both ends of its access link.
 *
 * Paths: hosts are never transit; switches and routers are.  Between two
 * hosts on different switches ("leaves": the node at the far end of a
 * host's access link) the pair's traffic spreads equally over every
 * shortest switch path (share 1/k each, k = number of paths, parallel
 * cables count as distinct paths), plus the two access links.  Routes are
 * symmetric: b -> a uses the reverse of the a -> b paths.  The leaf-to-leaf
 * path set is computed per leaf pair from breadth-first searches, one per
 * leaf, kept in a cache bounded by ROUTE_CACHE_BYTES; pairs are routed on
 * demand, so no per-pair state exists (4096 hosts: 8.4 M pairs, 256 leaves).
 * Cost: a BFS is O(switch nodes + links); a leaf pair's loads are O(links
 * of its shortest-path DAG + the degrees of its nodes outside the middle
 * layer: the DAG is walked from both leaves to the middle, so a fat tree's
 * cores are never scanned); enumeration is O(paths x hops).
 *
 * route_pair_info() keeps each leaf pair's figures (hops, paths, lowest
 * rate: 12 bytes) once asked, up to ROUTE_LPI_LEAVES leaves (1024: 6 MB),
 * so a pair's expected rate costs a lookup, not a walk of its leaf pair's
 * paths; route_place() and route_rates() forget them.
 *
 * Path cap: route_pair() enumerates at most r->max_paths paths per
 * direction (ROUTE_MAX_PATHS = 256 unless the caller lowers or raises it;
 * a 32-ary 3-level fat tree has 256 paths between pods).  Over the cap it
 * returns -E2BIG with a, b, expected_mbps and klass filled and no paths;
 * route_pair_info() counts paths without enumerating them, and the loads
 * (route_pair_loads) are exact whatever the count.
 *
 * One path by its index (route_pair_nth) and the index of a path by its
 * nodes (route_pair_find), in route_pair()'s order, without enumerating
 * (issue 24: a pair's members are named by these indices; docs/paths.md
 * "Steering in windows").  A leaf pair's paths are kept as what makes
 * them, the two leaves' searches (the cache above: distance and path
 * count per node): route_pair() takes a node's next hops in adjacency
 * order, and the paths through next hop v are bt->cnt[v] (the paths from
 * v to the far leaf), so path i is found hop by hop by subtracting the
 * counts of the next hops before the one it takes.  A host pair's path is
 * its two access links around its leaf pair's.  Cost: O(hops x degree)
 * a path, no allocation; route_pair() is O(paths x hops) and allocates
 * each path.
 *
 * Ownership: struct route borrows the topo (and nothing else) and owns
 * everything it allocates; route_free() frees it.  Arrays returned as
 * "borrowed until the next call" live in r's scratch space.
 */
#ifndef FAB_MODEL_ROUTE_H
#define FAB_MODEL_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/hosts.h"
#include "model/path.h"
#include "model/topo.h"
#include "util/err.h"

#define ROUTE_MAX_PATHS 256
#define ROUTE_CACHE_BYTES (16u << 20)
#define ROUTE_NONE UINT32_MAX
#define ROUTE_LPI_LEAVES 1024

/*
 * One link a pair's test crosses and the fraction of the pair's traffic
 * on it.  The pair holds both directions of the link for its whole test
 * (a bandwidth test measures a -> b, then b -> a), so an item stands for
 * both directions with the same share.
 */
struct route_load {
	uint32_t link;		/* index into topo->links[] */
	double share;		/* 0..1 */
};

/* Where a host sits (filled by route_place()). */
struct route_host {
	uint32_t node;		/* index into topo->nodes[] */
	const struct topo_port *port;	/* borrowed: its access port */
	uint32_t link;		/* the access link, index into topo->links[] */
	uint32_t attach;	/* node index at the access link's far end (its leaf) */
	uint32_t leaf;		/* dense index of attach in leaves[] */
};

/* What route_leaf_loads() / route_pair_info() know about a path set. */
struct route_info {
	unsigned int hops;	/* links on each shortest path (pair: with the access links) */
	double n_paths;		/* number of equal-cost paths (counted, never capped) */
	double min_mbps;	/* lowest known link rate on them, 0 when none is known */
};

struct route_bfs;
struct route_lpi;

struct route_adj {
	uint32_t node, link;
};

struct route {
	const struct topo *topo;	/* borrowed */
	size_t n_nodes, n_links;
	uint32_t *adj_start;		/* n_nodes + 1: node i's neighbours are adj[adj_start[i]..] */
	struct route_adj *adj;
	uint32_t *link_mbps;		/* rated Mb/s per link, 0 unknown (route_rates) */
	struct route_host *hosts;	/* n_hosts, after route_place() */
	size_t n_hosts;
	uint32_t *leaves;		/* node index of each leaf (distinct attach nodes) */
	size_t n_leaves;
	unsigned int max_paths;		/* enumeration cap, ROUTE_MAX_PATHS */
	/*
	 * Loads (route_leaf_loads, route_pair_loads, hence the scheduler):
	 * false spreads a pair over its k equal-cost paths, 1/k each; true
	 * counts the whole pair on every link of every path (ECMP hashes
	 * whole flows, and a test's few flows may all land on one path), so
	 * no round can collide on an ECMP member.  Path enumeration
	 * (route_pair) keeps 1/k shares either way.  Default false.
	 */
	bool ecmp_whole;
	/* private: BFS cache and scratch */
	struct route_bfs *cache;
	size_t n_cache;
	uint32_t *leaf_slot;		/* per leaf: cache slot or ROUTE_NONE */
	uint64_t tick;
	uint8_t *transit;		/* per node: a switch or router */
	uint32_t *mark, mark_gen;
	uint32_t *front, *next;
	struct route_load *items, *pitems;
	size_t n_items_cap, n_pitems_cap;
	void *sorted_nodes, *sorted_links;
	uint32_t *link_a;		/* per link: node index of its a end (ROUTE_NONE: a loop) */
	struct path_hop *nth_hops;	/* route_pair_nth(): 2 x (n_nodes + 2) */
	uint64_t *name_hash;		/* per node: its name's hash (route_pair_find) */
	struct route_lpi *lpi;		/* per leaf pair: route_pair_info()'s figures, or NULL */
};

/* 0 or -ENOMEM; *out is set only on success. */
int route_new(struct route **out, const struct topo *t);
void route_free(struct route *r);

/*
 * Forget the BFS cache (up to ROUTE_CACHE_BYTES; it is made again as
 * pairs are routed): for a caller about to hold much else without
 * routing (sweep --steer's coverage picker at 4096 hosts).
 */
void route_cache_drop(struct route *r);

/* Index of @n / @l in the topo, ROUTE_NONE when not of this graph.  O(log n). */
uint32_t route_node_index(const struct route *r, const struct topo_node *n);
uint32_t route_link_index(const struct route *r, const struct topo_link *l);

/* Place every host of @hs (rules above).  -ENOENT/-EINVAL input errors naming the host. */
int route_place(struct route *r, const struct fab_hosts *hs, struct fab_err *err);

/* A port's rated Mb/s from its facts (width_x * lane_mbps), 0 unknown. */
uint32_t route_port_mbps(const struct topo_port *p);

/*
 * Fill r->link_mbps.  @port_virtual (may be NULL) returns true for a port
 * whose speed is only claimed by a virtual device; @hs (may be NULL, else
 * placed with route_place()) supplies rate_gbps= overrides.
 */
void route_rates(struct route *r, const struct fab_hosts *hs,
		 bool (*port_virtual)(const struct topo_port *p, void *arg), void *arg);

/*
 * Links between leaves @la and @lb (dense leaf indices, distinct) with the
 * share of one flow on each; borrowed until the next call on @r.
 * -ENETUNREACH when no switch path joins them; -ENOMEM.
 */
int route_leaf_loads(struct route *r, uint32_t la, uint32_t lb, const struct route_load **items,
		     size_t *n, struct route_info *info);

/*
 * The pair's items: its two access links (share 1 each) and the leaf pair's
 * links; borrowed until the next call on @r.  Same errors; -EINVAL for a == b
 * or a host out of range.
 */
int route_pair_loads(struct route *r, unsigned int a, unsigned int b,
		     const struct route_load **items, size_t *n, struct route_info *info);

/*
 * Expected Mb/s (lowest known rate on any path, 0 when none known) and
 * path class (links on the shortest path: 1 back-to-back, 2 same leaf, ...)
 * without enumerating.  Links of unknown rate are assumed no slower than
 * the known ones (a failure mode: an unknown slow link is not expected).
 */
int route_pair_info(struct route *r, unsigned int a, unsigned int b, struct route_info *info,
		    double *expected_mbps, unsigned int *klass);

/*
 * Enumerate the pair's paths into @out (both directions, share 1/k).
 * -E2BIG when over r->max_paths (out has a, b, expected_mbps, klass and no
 * paths); -ENETUNREACH naming the hosts in @err; -ENOMEM.
 */
int route_pair(struct route *r, unsigned int a, unsigned int b, struct pair_route *out,
	       struct fab_err *err);

/*
 * Path @i of direction @dir (0: a -> b, 1: b -> a) as route_pair(r, a, b)
 * enumerates it (share 1/k; no path cap): @out->hops borrowed from @r
 * until the next route_pair_nth() of the same @dir (so one path of each
 * direction can be held at once).  -ENOENT: @i >= the paths' number;
 * -EINVAL, -ENETUNREACH, -ENOMEM as route_pair_loads().
 */
int route_pair_nth(struct route *r, unsigned int a, unsigned int b, int dir, size_t i,
		   struct path *out);

/*
 * The index (route_pair()'s) of the path of direction @dir whose nodes
 * strictly between its first and its last switch are named @names[0..n)
 * in order (a traced member: model/ecmp_map.h), into *@index; the same
 * answer as ecmp_steer_path() over route_pair()'s paths: -ENOENT none,
 * -EEXIST more than one (parallel cables), -EINVAL a path of fewer than
 * two hops (hosts cabled back to back).
 */
int route_pair_find(struct route *r, unsigned int a, unsigned int b, int dir,
		    const char *const *names, size_t n, size_t *index);

/*
 * The route of a test that took path @iab a -> b and @iba b -> a:
 * route_pair()'s a, b, expected rate and class, one path each way
 * (share 1), owned by @out (pair_route_fini()).  -ENOENT (an index the
 * pair does not have), route_pair_nth()'s errors.
 */
int route_pair_pick(struct route *r, unsigned int a, unsigned int b, size_t iab, size_t iba,
		    struct pair_route *out);

#endif
