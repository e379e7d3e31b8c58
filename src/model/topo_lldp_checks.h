/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Checks that LLDP and YAML cabling plans make possible, on top of
 * topo_diff() (topo_diff.h):
 *
 *   topo_mtu_check()         MTU mismatches across a link: the two ends'
 *                            MTUs, one end's MTU against the Max Frame Size
 *                            its peer advertises over LLDP, and both against
 *                            the MTU the plan expects.
 *   topo_rail_plan_check()   rail alignment against the plan's rails: NIC i
 *                            of a host (the plan's `nics:` order) must reach
 *                            a leaf of rail i (the leaf's `rail:`).
 *
 * Both append TOPO_PROB_MTU_MISMATCH / TOPO_PROB_RAIL problems to the found
 * graph and change nothing else.  Pure, no I/O.
 *
 * MFS against MTU: an 802.3 Max Frame Size counts the Ethernet header (14),
 * an optional 802.1Q tag (4) and the FCS (4) on top of the MTU, and vendors
 * differ on which they include.  An MFS in [mtu + 14, mtu + 22] is taken to
 * mean the peer's MTU equals ours; anything else is a mismatch, reported
 * with the peer's implied MTU as mfs - 18.
 *
 * Ownership of struct topo_rails: it owns its two arrays; topo_rails_fini()
 * frees them.  Filled by the YAML plan parser (plan_yaml.h).
 */
#ifndef FAB_MODEL_TOPO_LLDP_CHECKS_H
#define FAB_MODEL_TOPO_LLDP_CHECKS_H

#include <stddef.h>

#include "model/topo.h"

#define TOPO_MFS_OVERHEAD_MIN 14u	/* Ethernet header, no FCS */
#define TOPO_MFS_OVERHEAD_MAX 22u	/* header + 802.1Q tag + FCS */
#define TOPO_MFS_OVERHEAD 18u		/* header + FCS: the usual */

struct topo_rail_leaf {
	char node[128];			/* a switch of the plan */
	unsigned int rail;		/* 0-based rail it serves */
};

struct topo_rail_nic {
	char node[128];			/* a host of the plan */
	char port[64];			/* its NIC's port name ("" for IB: num) */
	unsigned int num;		/* IB port number; 0 for named ports */
	unsigned int rail;		/* 0-based index in the host's nics: list */
};

struct topo_rails {
	struct topo_rail_leaf *leaves;
	size_t n_leaves;
	struct topo_rail_nic *nics;
	size_t n_nics;
};

void topo_rails_init(struct topo_rails *r);
void topo_rails_fini(struct topo_rails *r);
/* 0 or -ENOMEM; strings are copied. */
int topo_rails_leaf_add(struct topo_rails *r, const char *node, unsigned int rail);
int topo_rails_nic_add(struct topo_rails *r, const char *node, unsigned int num,
		       const char *port, unsigned int rail);

/*
 * For every link of @found: if both ends know their MTU (TOPO_F_MTU) and
 * differ, or one end knows its MTU and the other's mtu_max (LLDP MFS) is
 * outside [mtu + 14, mtu + 22], one mtu-mismatch problem naming both ends.
 * Else, when @plan (may be NULL) expects an MTU for either end of the link
 * (a plan port with TOPO_F_MTU, matched by node name and port) and a known
 * MTU differs from it, one problem naming that end and its peer, the
 * expected MTU in the detail.  Unlinked found ports are checked against
 * the plan as well.  0 or -ENOMEM.
 */
int topo_mtu_check(struct topo *found, const struct topo *plan);

/*
 * For every NIC in @rails: the found port (by node name and port), its
 * peer's node, and that node's rail in @rails.  A NIC of rail i whose peer
 * is a leaf of rail j != i is a rail problem naming the NIC port and the
 * leaf port, with the leaves of rail i in the detail.  NICs that are not
 * found or not linked, and leaves without a rail, are left to the plan
 * diff.  0 or -ENOMEM.
 */
int topo_rail_plan_check(struct topo *found, const struct topo_rails *rails);

#endif
