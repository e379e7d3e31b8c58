/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rules over a struct pcie_view (model/pcie.h), pure: how far a NIC is
 * from each GPU, which GPUs are "its" GPUs, which bridges between them
 * redirect peer-to-peer traffic (ACS), whether a link runs below what the
 * device and its slot can do, whether GPUDirect RDMA is ready.
 *
 * Distance, nearest first (nvidia-smi topo's PIX/PXB, PHB, NODE, SYS):
 *   switch       the two share a bridge below the root port: a PCIe switch
 *   root_port    they share only the root port
 *   host_bridge  different root ports of one root complex (host bridge)
 *   numa_node    different root complexes on one NUMA node
 *   socket       different NUMA nodes of one socket
 *   cross_socket different sockets
 *   unknown      NUMA node or socket not known where they would decide
 * A NIC's GPUs are the GPUs at the smallest distance from it.
 */
#ifndef FAB_MODEL_PCIE_TOPO_H
#define FAB_MODEL_PCIE_TOPO_H

#include <stdbool.h>
#include <stddef.h>

#include "model/pcie.h"

enum pcie_distance {
	PCIE_DIST_SWITCH = 0,
	PCIE_DIST_ROOT_PORT,
	PCIE_DIST_HOST_BRIDGE,
	PCIE_DIST_NODE,
	PCIE_DIST_SOCKET,
	PCIE_DIST_SYSTEM,
	PCIE_DIST_UNKNOWN,
};

const char *pcie_distance_name(enum pcie_distance d);

/* @d's NUMA node; -1 unknown (a node-less device on a one-node host is on node 0). */
int pcie_numa(const struct pcie_view *v, const struct pcie_dev *d);

enum pcie_distance pcie_distance(const struct pcie_view *v, const struct pcie_dev *a,
				 const struct pcie_dev *b);

/*
 * The GPUs nearest @nic: their indices into v->gpus in @idx (at most @max,
 * in BDF order) and their count; *@dist their distance.  0 when there is
 * no GPU (*@dist PCIE_DIST_UNKNOWN).
 */
size_t pcie_nic_gpus(const struct pcie_view *v, const struct pcie_dev *nic, size_t *idx,
		     size_t max, enum pcie_distance *dist);

/*
 * The bridges on the paths from @nic to each GPU @idx[0..@n) (indices into
 * v->gpus): below the closest common bridge of the two on both sides (every
 * bridge of both when they share none), each bridge once (by BDF).  Those
 * whose ACS control redirects peer-to-peer traffic (PCIE_ACS_P2P_REDIRECT)
 * go to @out (at most @max), their count returned; *@n_path counts the
 * paths' bridges, *@unread those whose ACS could not be read.
 */
size_t pcie_nic_acs(const struct pcie_view *v, const struct pcie_dev *nic, const size_t *idx,
		    size_t n, const struct pcie_bridge **out, size_t max, size_t *n_path,
		    size_t *unread);

/* The link of @d's slot: the port right above it (NULL when none is known). */
const struct pcie_link *pcie_dev_slot(const struct pcie_dev *d);
/* "At its maximum": the lower of @d's and its slot's maximum speed and width (0 unknown). */
void pcie_link_best(const struct pcie_dev *d, unsigned int *speed_mts, unsigned int *width);
/* The current link is known and below pcie_link_best() in speed or width. */
bool pcie_link_degraded(const struct pcie_dev *d);

/* GPUs present and a peer-memory module loaded or dma-buf available. */
bool pcie_gpudirect_ready(const struct pcie_view *v);

#endif
