/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Generated fat trees as a struct topo, for unit tests, benchmarks and
 * scale simulation.  Pure C, no I/O.
 *
 * Names: hosts h1..hN (one port "eth0"), leaves leaf1.., aggregation
 * switches agg1.. (3 levels only), spines spine1..; switch ports swp1..
 * numbered in the order they are cabled (downlinks first).  Every node is
 * TOPO_SRC_PLAN; hosts are TOPO_NODE_HOST, switches TOPO_NODE_SWITCH.
 * Port rates: width_x = 1 and lane_mbps = the link's rate with TOPO_F_SPEED
 * set on both ends, or no speed fact at all when the rate is 0 (unknown).
 * The graph is topo_sort()ed before it is returned.
 *
 * Ownership: *out is a new graph the caller frees with topo_free().
 * Complexity: O(nodes + links) plus topo_sort().
 */
#ifndef FAB_MODEL_TOPO_GEN_H
#define FAB_MODEL_TOPO_GEN_H

#include "model/topo.h"

/* 2-level leaf-spine: every leaf has uplinks_per_spine cables to every spine. */
struct topo_gen_2l {
	unsigned int leaves;		/* >= 1 */
	unsigned int hosts_per_leaf;	/* >= 1 */
	unsigned int spines;		/* 0: one leaf, no spine */
	unsigned int uplinks_per_spine;	/* 0 means 1 */
	unsigned int host_mbps;		/* host port rate, 0 unknown */
	unsigned int uplink_mbps;	/* leaf-spine rate, 0 unknown (oversubscription: lower it) */
};

/*
 * 3-level fat tree: pods of leaves_per_pod leaves and aggs_per_pod
 * aggregation switches (every leaf cabled to every agg of its pod); agg j
 * of every pod is cabled to the cores of group j (cores_per_agg each,
 * aggs_per_pod * cores_per_agg cores in all).  The k-ary fat tree is
 * pods = k, leaves_per_pod = aggs_per_pod = hosts_per_leaf = cores_per_agg
 * = k/2 (k^3/4 hosts); 4096 hosts: 16 pods x 16 leaves x 16 hosts with 16
 * aggs per pod and 16 cores per agg (256 cores, full bisection).
 */
struct topo_gen_3l {
	unsigned int pods, leaves_per_pod, hosts_per_leaf, aggs_per_pod, cores_per_agg;
	unsigned int host_mbps, leaf_mbps, core_mbps;	/* host-leaf, leaf-agg, agg-core; 0 unknown */
};

/* 0, -EINVAL on a zero count or more than 1 << 20 hosts, -ENOMEM. */
int topo_gen_leaf_spine(struct topo **out, const struct topo_gen_2l *g);
int topo_gen_fat_tree(struct topo **out, const struct topo_gen_3l *g);

#endif
