/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a node does, written once and called alike by the local command
 * (src/cmd/status.c, verify.c, discover.c) and by the worker serving the
 * controller (src/cmd/worker.c): read its state, verify it against a
 * profile, read its lldpd, read its counters (the worker alone: for a
 * sweep's suspects).  A node thus answers the same whether the command
 * runs on it or reaches it through a worker: which reads, with which
 * flags, is decided here once (node/node.c).  Applying a profile is
 * node/apply.h.  Nothing here renders or talks the worker protocol;
 * errors are -errno with @err.
 */
#ifndef FAB_NODE_NODE_H
#define FAB_NODE_NODE_H

#include "model/bond_legs.h"
#include "model/host_state.h"
#include "model/lldp_view.h"
#include "model/changeset.h"
#include "model/profile.h"
#include "sys/sys.h"
#include "util/err.h"

/* status: the node's links and RDMA ports with their counters into @hs (host_state_init'ed). */
int node_status_read(struct sys *sys, struct host_state *hs, struct fab_err *err);

/*
 * diff: read what @p needs into @hs and @nc (initialised by the caller,
 * @nc on @hs) and diff into @cs (changeset_init'ed); cs->n_drift is the
 * drift.  What apply plans from.
 */
int node_diff(struct sys *sys, const struct profile *p, struct host_state *hs,
	      struct node_config *nc, struct changeset *cs, struct fab_err *err);
/*
 * verify: node_diff(), then the lossless chain of each interface a
 * `roce.tos` item matches (DCB and ECN read for it where the profile's
 * fields did not; changeset_chains()): cs->chains, and one drift per
 * broken chain.
 */
int node_verify(struct sys *sys, const struct profile *p, struct host_state *hs,
		struct node_config *nc, struct changeset *cs, struct fab_err *err);

/* lldp: the node's LLDP view from lldpd at @socket (NULL: the default) into @v (lldp_view_init'ed). */
int node_lldp_read(struct sys *sys, const char *socket, struct lldp_view *v, struct fab_err *err);

/*
 * counters: the Ethernet / RoCE counters of the interface named in @req (or
 * holding its address) and of the RDMA ports on it, by name, into @out
 * (nic_counters_init'ed).  Evidence for a sweep's suspects (docs/diagnose.md).
 */
int node_counters_read(struct sys *sys, const struct nic_counters_req *req,
		       struct nic_counters *out, struct fab_err *err);

/*
 * bond (sweep's dual-homed legs): the interface named @ifname (NULL or
 * "": the one holding @addr) into @out; when it is a bond, its mode,
 * policy and each member's link and tx_bytes.  Not a bond is not an
 * error (out->is_bond false).
 */
int node_bond_snap(struct sys *sys, const char *addr, const char *ifname, struct bond_snap *out,
		   struct fab_err *err);

#endif
