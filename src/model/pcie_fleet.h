/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PCIe picture across a fleet (status --hosts, verify --hosts): which
 * nodes look alike inside, and where the others differ from the majority ("one NIC at x8
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
 *
 * verify --hosts groups the nodes by their host-side drift instead: the
 * drift of a profile's nics: items (model/changeset_nic.h), so "one NIC
 * at x8 among 1,000 hosts" is one group of one, whatever else drifts.
 */
#ifndef FAB_MODEL_PCIE_FLEET_H
#define FAB_MODEL_PCIE_FLEET_H

#include <jansson.h>
#include <stdbool.h>

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

/*
 * A drift entry is host-side: @field is one of changeset_nic.h's
 * (pcie.width, pcie.speed, pcie.acs, pcie.numa, gpudirect, fw_lldp), or
 * "match" with @wanted "a nic" (a nics: item that found no NIC: one fell
 * off the bus).  @wanted may be NULL.
 */
bool pcie_fleet_drift_field(const char *field, const char *wanted);

/*
 * verify --hosts: the nodes grouped by their host-side drift, from a
 * "fabricctl.fleet-verify/1" document's "nodes" (only those with "ok"
 * true: the others were not verified) and flattened "drift" (entries
 * {node, interface, field, wanted, found}; the others are ignored).  A
 * node's host-side entries, in their order, are its key; nodes with the
 * same key form a group, those without any form one too (drift []).
 * Largest first (ties: the group of the first node), as a new array:
 *   [{"count": 997, "majority": true, "nodes": [names], "drift": []},
 *    {"count": 3, "majority": false, "nodes": ["h3", "h7", "h9"],
 *     "drift": [{"interface": "mlx5_1", "field": "pcie.width",
 *                "wanted": "x16 (max)", "found": "x8"}]}]
 * [] when no node was verified; NULL when out of memory.
 */
json_t *pcie_fleet_drift_groups(const json_t *nodes, const json_t *drift);

#endif
