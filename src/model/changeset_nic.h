/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The drift of a profile's `nics:` items (model/profile_nic.c) against the
 * node's PCIe view (model/pcie.h): verify only, no step can fix it.  Called
 * by changeset_diff(); pure.
 *
 * Each NIC an item matches gives at most one drift per check, object the
 * NIC's name (its first netdev, else RDMA device), field:
 *   pcie.width   wanted "x16" ("x16 (max)" for max), found "x8"
 *   pcie.speed   wanted "32GT/s", found "16GT/s"
 *   pcie.acs     wanted "off", found "on at BDF (ctl 0x001d)" or "unknown (not root)"
 *   pcie.numa    wanted "local (node 0)", found "gpu BDF on node 1"
 *   gpudirect    wanted "ready", found "no peer-memory module, no dma-buf" or "no gpu"
 *   fw_lldp      wanted "off", found "on (FLAG)"
 * A NIC without GPUs passes acs and numa (no path to check); a driver with
 * no LLDP flag passes fw_lldp (it cannot be read).  An item matching no NIC,
 * unless optional, is drift "match" (wanted "a nic") and counts in
 * cs->n_unmatched.
 */
#ifndef FAB_MODEL_CHANGESET_NIC_H
#define FAB_MODEL_CHANGESET_NIC_H

#include "model/pcie.h"
#include "model/changeset.h"
#include "model/profile.h"

/* 0 or -ENOMEM.  @v NULL (not read) is a node without NICs. */
int changeset_nic_check(const struct profile *p, const struct pcie_view *v, struct changeset *cs);

#endif
