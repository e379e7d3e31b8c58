/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers of the verbs transport (verbs.c) that need no RDMA device, kept
 * apart so they can be tested and fuzzed without one.  Not pure:
 * verbs_gid_find() reads sysfs (under a root that tests point at a
 * fixture); the rest is:
 *
 *  - verbs_gid_find(): the RoCE v2 GID of a port that carries a given
 *    address, found by scanning the port's GID table in sysfs
 *    (ROOT/sys/class/infiniband/DEV/ports/PORT/gids/N and
 *    gid_attrs/types/N).  Never a fixed index: rxe and bonding renumber
 *    the table, so the transport calls this for every new connection.
 *    An IPv4 address matches its IPv4-mapped GID (::ffff:a.b.c.d), an
 *    IPv6 address the GID equal to it.
 *
 *  - struct verbs_ep and its JSON form: the queue-pair details one side
 *    publishes through the controller (docs/verbs.md).  The parser reads
 *    outside input (relayed from the peer) and is fuzzed
 *    (tests/fuzz/fuzz_verbs_ep.c).
 *
 *  - verbs_udp_sport() and friends: the UDP source port of a RoCE v2 RC
 *    QP, the kernel's rule written again (include/rdma/ib_verbs.h
 *    rdma_get_udp_sport(), rdma_calc_flow_label(),
 *    rdma_flow_label_to_udp_sport(); mlx5_set_path_udp_sport() in
 *    drivers/infiniband/hw/mlx5/qp.c and rxe_modify_qp() in
 *    drivers/infiniband/sw/rxe/rxe_verbs.c call it when the QP's address
 *    vector is set with a GRH).  docs/verbs.md "The UDP source port".
 *
 * Functions return 0 or -errno and fill @err; no ownership beyond what
 * each comment says.
 */
#ifndef FAB_TRANSPORT_VERBS_GID_H
#define FAB_TRANSPORT_VERBS_GID_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "transport/transport.h"
#include "util/err.h"

#define VERBS_GID_TYPE_ROCE_V2 "RoCE v2"
#define VERBS_EP_MAX_REGION (64u * 1024 * 1024)	/* bytes, per region */

/* The 16 bytes of the GID that carries @addr (IPv4 -> IPv4-mapped). */
int verbs_gid_from_addr(const char *addr, uint8_t gid[16]);

/*
 * Find the lowest GID index of port @port of @dev whose GID equals the one
 * of @addr and whose type is RoCE v2, reading sysfs under @root ("" or NULL
 * for the real one).  Sets *@index and @gid.  -ENOENT (with a message
 * naming the device, port and address, and saying when only a RoCE v1
 * entry or an entry on the wrong type was there) when none matches; -EINVAL
 * for a bad address; other -errno when the table cannot be read.
 */
int verbs_gid_find(const char *root, const char *dev, unsigned int port, const char *addr,
		   unsigned int *index, uint8_t gid[16], struct fab_err *err);

/*
 * The GID verbs reads at index @idx (@got, of type RoCE v2 or not) against
 * the one verbs_gid_find() found there (@want) for address @addr: 0 when
 * it is still that GID and RoCE v2; -EAGAIN naming @dev, @port, the index
 * and what changed (the table renumbered: the same GID also sits at
 * another index as RoCE v1, which has no IP and no UDP header).
 */
int verbs_gid_recheck(const char *dev, unsigned int port, unsigned int idx,
		      const uint8_t want[16], const uint8_t got[16], bool got_roce_v2,
		      const char *addr, struct fab_err *err);

/* One side's queue pair, as published through the controller. */
struct verbs_ep {
	unsigned int lid;		/* 0 on RoCE */
	uint32_t qpn, psn;		/* 24 bits each */
	uint8_t gid[16];
	int gid_index;			/* informational; -1 when none */
	uint32_t rkey;
	uint64_t addr;			/* start of the remotely writable region */
	uint32_t lat_bytes;		/* latency slot at addr */
	uint32_t bw_bytes;		/* bandwidth slot at addr + lat_bytes */
	unsigned int mtu_bytes;		/* active path MTU of the port: 256..4096 */
	uint8_t token[TP_TOKEN_LEN];
};

#define VERBS_SPORT_MIN 0xc000u		/* IB_ROCE_UDP_ENCAP_VALID_PORT_MIN */
#define VERBS_FLOW_LABEL_MASK 0xfffffu	/* IB_GRH_FLOWLABEL_MASK: 20 bits */

/* rdma_calc_flow_label(): the symmetric label of QPs @lqpn and @rqpn. */
uint32_t verbs_calc_flow_label(uint32_t lqpn, uint32_t rqpn);

/* rdma_flow_label_to_udp_sport(): the UDP source port of flow label @fl. */
uint16_t verbs_flow_label_sport(uint32_t fl);

/*
 * rdma_get_udp_sport(): the UDP source port of QP @lqpn connected to
 * @rqpn with GRH flow label @fl (0: none, the label of both QP numbers,
 * so both ends of a connection share one port).
 */
uint16_t verbs_udp_sport(uint32_t fl, uint32_t lqpn, uint32_t rqpn);

/*
 * The flow label that makes verbs_flow_label_sport() give @sport
 * (0xc000..0xffff), never 0 (0 means "no label": 0xc000 gets 0x4001);
 * 0 for a port outside the range (the kernel could not use it).
 */
uint32_t verbs_sport_flow_label(unsigned int sport);

/* New JSON object for @ep (caller owns it), NULL when out of memory. */
json_t *verbs_ep_to_json(const struct verbs_ep *ep);

/* Strict parse of a peer's endpoint: every key present, every value in range. */
int verbs_ep_from_json(const json_t *j, struct verbs_ep *ep, struct fab_err *err);

#endif
