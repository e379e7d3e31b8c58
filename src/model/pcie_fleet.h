/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PCIe picture across a fleet (status --hosts): which nodes look alike
 * inside, and where the others differ from the majority ("one NIC at x8
 * among 1,000 hosts").  Pure: reads the "nodes" of a fleet-status document
 * (each node's "status" is a fabricctl.status/1 document with "pcie").
 *
 * A node's picture is a set of keyed items made from its "pcie" member:
 *   "nic BDF"    "DRIVER x16 32GT/s numa 0 gpus switch acs off fw-lldp -"
 *   "gpu BDF"    "x16 32GT/s numa 0"
 *   "gpudirect"  "ready" | "not ready" | "no gpu"
 * Nodes with the same items form a group; the largest group is the
 * majority (ties: the group of the first node).  Each other group lists,
 * per key, what it has against what the majority has ("-" when absent).
 */
#ifndef FAB_MODEL_PCIE_FLEET_H
#define FAB_MODEL_PCIE_FLEET_H

#include <jansson.h>

/*
 * The groups, largest first, as a new JSON array:
 *   [{"count": 998, "majority": true, "nodes": [names], "differs": []},
 *    {"count": 1, "majority": false, "nodes": ["n17"],
 *     "differs": [{"what": "nic 0000:13:00.0", "here": "... x8 ...",
 *                  "majority": "... x16 ..."}]}]
 * Nodes that were not read, or whose status has no "pcie", are left out;
 * [] when none has one.  NULL when out of memory.
 */
json_t *pcie_fleet_groups(const json_t *nodes);

#endif
