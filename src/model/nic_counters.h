/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One host's Ethernet / RoCE counters by name, as the "counters" worker op
 * carries them (docs/worker-protocol.md): the interface's netdev
 * statistics (/sys/class/net/IF/statistics/ and carrier_changes), its NIC
 * statistics (`ethtool -S`, ETHTOOL_GSTATS), and for every RDMA port on
 * that interface its hw_counters/ and counters/ directories.  Filled by
 * src/sys/nic_counters.c on the node; pure data here, no I/O.
 *
 * Only counters the node has are listed: a name the driver does not
 * expose is absent, never zero.  Values are the kernel's raw u64.
 *
 * JSON (the op's result):
 *   {"ifname": "eth0",
 *    "stats":   {"rx_dropped": 0, ...},          netdev statistics
 *    "ethtool": {"rx_prio3_pause": 12, ...},     ethtool -S
 *    "rdma": [{"dev": "mlx5_0", "port": 1,
 *              "hw_counters": {"np_cnp_sent": 4, ...},
 *              "counters": {"symbol_error": 0, ...}}]}
 *
 * Ownership: struct nic_counters owns its samples and ports.
 */
#ifndef FAB_MODEL_NIC_COUNTERS_H
#define FAB_MODEL_NIC_COUNTERS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "model/counter_eval.h"
#include "util/err.h"

enum nic_src {
	NIC_SRC_HW = 0,		/* /sys/class/infiniband/DEV/ports/N/hw_counters */
	NIC_SRC_IB,		/* /sys/class/infiniband/DEV/ports/N/counters */
	NIC_SRC_ETHTOOL,	/* ethtool -S */
	NIC_SRC_STATS,		/* /sys/class/net/IF/statistics (and carrier_changes) */
	NIC_SRC_MAX,
};

/* "hw_counters", "counters", "ethtool", "stats". */
const char *nic_src_name(enum nic_src s);

struct nic_sample {
	enum nic_src src;
	unsigned int rdma;	/* index in rdma[] for NIC_SRC_HW / NIC_SRC_IB */
	char name[64];
	uint64_t value;
};

struct nic_rdma_port {
	char dev[64];
	unsigned int port;
};

#define NIC_RDMA_MAX 8
#define NIC_SAMPLES_MAX 4096

struct nic_counters {
	char ifname[64];
	struct nic_rdma_port rdma[NIC_RDMA_MAX];
	size_t n_rdma;
	struct nic_sample *v;	/* owned */
	size_t n, cap;
};

void nic_counters_init(struct nic_counters *c);
void nic_counters_fini(struct nic_counters *c);
/* Append one (@name truncated to 63 bytes); -ENOMEM, -E2BIG past NIC_SAMPLES_MAX. */
int nic_counters_add(struct nic_counters *c, enum nic_src src, unsigned int rdma,
		     const char *name, uint64_t value);
/* A new RDMA port entry; its index, or -E2BIG past NIC_RDMA_MAX. */
int nic_counters_add_rdma(struct nic_counters *c, const char *dev, unsigned int port);

/*
 * `ethtool -S IF` text ("NIC statistics:" then "     name: value" lines)
 * into @c as NIC_SRC_ETHTOOL.  Lines that are not "name: number" (the
 * header, per-queue blocks some drivers print as text) are skipped.
 * 0, -ENOMEM or -E2BIG.
 */
int nic_counters_parse_ethtool(struct nic_counters *c, const char *text, size_t len);

/* The op's result; NULL on ENOMEM. */
json_t *nic_counters_to_json(const struct nic_counters *c);
/* Back; bad input names the field ("counters: ethtool: rx_x: not an integer"). */
int nic_counters_from_json(struct nic_counters *c, const json_t *doc, struct fab_err *err);

/*
 * The samples a rule of @pol (NULL: the defaults) knows into @s on @port
 * (one port: the host end of its access link), under the names
 * counter_eval's rules use: the first source in enum order wins when two
 * carry the same name, and the IB sysfs names that differ from the PMA
 * aliases are translated (symbol_error -> symbol_errors).  Traffic
 * counters and the rest are left out.  0 or -ENOMEM.
 */
int nic_counters_snap(const struct nic_counters *c, const struct counter_policy *pol,
		      const struct topo_port *port, struct counter_snap *s);

#endif
