/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fabric profile: how a node's fabric ports must be (docs/profile.md,
 * fabricctl-profile(5)).  Parsed from YAML by profile_parse() (libyaml),
 * strictly: unknown keys, duplicate keys, wrong types and out-of-range
 * values are errors reported as "file:line:column: message" (fab_err_input,
 * exit 2), before anything on the node is touched.
 *
 * Every section and every field is optional; a field that is absent is
 * neither applied nor verified (has_* false, -1 or 0 as noted).
 *
 * Ownership: struct profile owns its arrays; profile_free() frees all
 * (NULL-safe).  Strings are fixed-size copies.
 */
#ifndef FAB_MODEL_PROFILE_H
#define FAB_MODEL_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/bond.h"
#include "model/dcb.h"
#include "model/dcqcn.h"
#include "util/err.h"

#define PROFILE_MAX_APPS 64	/* one per DSCP value at most */
#define PROFILE_MAX_GLOBS 8
#define PROFILE_PFC_STORM_AUTO 0xffff	/* PFC_STORM_PREVENTION_AUTO: the driver's timeout */	/* `match:` may be one glob or a list of up to 8 */

/* Where an item came from, for messages: 1-based line and column. */
struct profile_mark {
	unsigned int line, col;
};

/* One item of `interfaces:`.  Matching: every given matcher must match. */
struct profile_iface {
	struct profile_mark mark;
	char match[PROFILE_MAX_GLOBS][32];	/* fnmatch(3) globs over the netdev name, any may match */
	size_t n_match;		/* 0 = any name */
	char driver[32];	/* glob over the ethtool driver name; "" = any */
	char kind[16];		/* rtnetlink kind (veth, bond); "" = any; "hw" = none */
	bool optional;		/* matching no interface is fine (else drift/error) */
	unsigned int mtu;	/* netdev MTU, 68..65535; 0 = not set */
	bool has_pfc;
	uint8_t pfc_en;		/* bit p: PFC on priority p */
	bool has_pfc_delay;
	uint16_t pfc_delay;	/* ieee_pfc.delay; mlx5: the cable length in metres */
	int pfc_storm_ms;	/* PFC storm prevention timeout: -1 not set, 0 off,
				 * 80..8000, PROFILE_PFC_STORM_AUTO */
	bool has_buf_prio, has_buf_size;	/* receive buffers (DCB_ATTR_DCB_BUFFER) */
	uint8_t buf_prio[FAB_DCB_NPRIO];	/* buffer of each priority */
	uint64_t buf_size[FAB_DCB_NBUF];	/* bytes per buffer */
	bool has_maxrate;
	uint64_t maxrate_kbps[FAB_DCB_NTC];	/* ieee_maxrate per TC, kbit/s, 0 = unlimited */
	bool has_ets;
	uint8_t ets_prio_tc[FAB_DCB_NPRIO];	/* traffic class per priority */
	uint8_t ets_tc_bw_pct[FAB_DCB_NTC];	/* percent per TC */
	uint8_t ets_tsa[FAB_DCB_NTC];		/* FAB_DCB_TSA_* */
	bool has_trust;
	uint8_t trust[FAB_DCB_TRUST_MAX];	/* FAB_DCB_APP_SEL_*, highest first */
	size_t n_trust;
	struct fab_dcb_app apps[PROFILE_MAX_APPS];	/* wanted APP entries (dscp map) */
	size_t n_apps;
	bool has_dcqcn[DCQCN_N];	/* dcqcn: parameters (model/dcqcn.h) */
	uint32_t dcqcn[DCQCN_N];
	bool has_ecn_np, has_ecn_rp;
	uint8_t ecn_np, ecn_rp;	/* bit p: ECN enabled on priority p (exactly these) */
	int roce_tos;		/* rdma_cm default_roce_tos 0..255; -1 = not set */
	unsigned int roce_mtu;	/* verify only: active MTU of the RDMA port; 0 = not set */
	/* The lossless chain (verify only, model/lossless.h): */
	int roce_lossless;	/* PFC expected on RoCE's priority: 1, 0; -1 = from pfc.enable */
	int roce_prio;		/* PCP trust: the priority RoCE is tagged with 0..7; -1 = not set */
	int roce_gid_index;	/* the RoCE v2 GID index of the data-path address; -1 = not set */
};

/* One item of `bonds:`; the wanted bond (members by name, -1 = not set). */
struct profile_bond {
	struct profile_mark mark;
	struct fab_bond want;	/* owned */
	unsigned int mtu;	/* 0 = not set */
};

/* One item of `infiniband:` (verify only: the SM owns these). */
struct profile_ib {
	struct profile_mark mark;
	char match[PROFILE_MAX_GLOBS][32];	/* globs over the RDMA device name */
	size_t n_match;		/* 0 = any device */
	unsigned int port;	/* 0 = every port */
	bool optional;
	char state[16];		/* "ACTIVE", ...; "" = not set (stored upper case) */
	char phys_state[24];	/* "LINK_UP", ...; "" */
	unsigned int width_x;	/* 1, 2, 4, 8, 12; 0 = not set */
	char speed[8];		/* "NDR", ...; "" */
	unsigned int active_mtu;	/* 256..4096; 0 */
};

/*
 * One item of `nics:` (verify only: firmware, BIOS and boot-time tools set
 * these; model/profile_nic.c, docs/profile.md "nics").  A NIC is a PCI
 * function with a netdev or RDMA device (model/pcie.h).
 */
#define PROFILE_NIC_MAX (-1)	/* pcie_width / pcie_speed_mts: "max", what NIC and slot can do */
struct profile_nic {
	struct profile_mark mark;
	char match[PROFILE_MAX_GLOBS][32];	/* globs over its netdev and RDMA device names */
	size_t n_match;		/* 0 = any NIC */
	char driver[32];	/* glob over its PCI driver; "" = any */
	bool optional;
	int pcie_width;		/* minimum current width; 0 not set, PROFILE_NIC_MAX */
	int pcie_speed_mts;	/* minimum current speed in MT/s; 0 not set, PROFILE_NIC_MAX */
	bool acs_off;		/* no bridge on the path to its GPUs redirects P2P */
	bool numa_local;	/* its GPUs on its NUMA node */
	bool gpudirect;		/* GPUDirect RDMA ready */
	int fw_lldp;		/* firmware LLDP agent: -1 not set, 0 off, 1 on */
};

struct profile {
	char path[256];		/* as given, for messages */
	char name[64];		/* optional `name:` */
	struct profile_iface *ifaces;
	size_t n_ifaces;
	struct profile_bond *bonds;
	size_t n_bonds;
	struct profile_ib *ib;
	size_t n_ib;
	struct profile_nic *nics;
	size_t n_nics;
};

/* Profiles larger than this are refused (bad input). */
#define PROFILE_MAX_BYTES (1 << 20)

/*
 * Parse @len bytes of @buf; @name (the path) is used in messages.  Files
 * are read by profile_load() (io/load.h).
 */
int profile_parse(const char *name, const unsigned char *buf, size_t len,
		  struct profile **out, struct fab_err *err);
void profile_free(struct profile *p);

/* Does @iface match a link with this name, driver and kind? */
bool profile_iface_matches(const struct profile_iface *iface, const char *name,
			   const char *driver, const char *kind);
/* Does @ib match an RDMA device named @dev? */
bool profile_ib_matches(const struct profile_ib *ib, const char *dev);
/* Does @n match NIC @d (any of its netdev or RDMA device names, and its driver)? */
struct pcie_dev;
bool profile_nic_matches(const struct profile_nic *n, const struct pcie_dev *d);
/* "eth*|en*" style text of a match list into @buf ("*" for none). */
const char *profile_match_str(const char (*globs)[32], size_t n, char *buf, size_t len);

#endif
