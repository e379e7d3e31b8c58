/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * DCQCN (RoCE congestion control) parameters of a port, in the two layouts
 * mlx5 drivers show them (docs/dcb.md "DCQCN"):
 *   vendor driver (MLNX_OFED):  <root>/sys/class/net/IF/ecn/roce_np/cnp_dscp,
 *                               .../roce_rp/rpg_ai_rate, ...
 *   inbox mlx5_ib (debugfs):    <root>/sys/kernel/debug/mlx5/BDF/cc_params/np_cnp_dscp,
 *                               .../rp_ai_rate, ...  (BDF: the netdev's PCI device)
 * One table names each parameter in the profile (`dcqcn:`) and in both
 * layouts.  Pure data; src/sys/sysfs_dcqcn.c reads and writes them.
 *
 * The notification point's enable is port-wide on mlx5 although sysfs shows
 * it per priority (ecn/roce_np/enable/<prio>); see model/lossless.c.
 */
#ifndef FAB_MODEL_DCQCN_H
#define FAB_MODEL_DCQCN_H

#include <stdbool.h>
#include <stdint.h>

enum dcqcn_param {
	DCQCN_CNP_DSCP = 0,
	DCQCN_CNP_PRIO,
	DCQCN_NP_MIN_TIME_BETWEEN_CNPS,
	DCQCN_RP_CLAMP_TGT_RATE,
	DCQCN_RP_CLAMP_TGT_RATE_ATI,
	DCQCN_RP_TIME_RESET,
	DCQCN_RP_BYTE_RESET,
	DCQCN_RP_THRESHOLD,
	DCQCN_RP_AI_RATE,
	DCQCN_RP_MAX_RATE,
	DCQCN_RP_HAI_RATE,
	DCQCN_RP_MIN_DEC_FAC,
	DCQCN_RP_MIN_RATE,
	DCQCN_RP_RATE_TO_SET_ON_FIRST_CNP,
	DCQCN_RP_DCE_TCP_G,
	DCQCN_RP_DCE_TCP_RTT,
	DCQCN_RP_RATE_REDUCE_MONITOR_PERIOD,
	DCQCN_RP_INITIAL_ALPHA_VALUE,
	DCQCN_RP_GD,
	DCQCN_N
};

struct dcqcn_desc {
	const char *key;	/* profile: "cnp_dscp", "np.min_time_between_cnps", "rp.ai_rate" */
	const char *vendor;	/* under ecn/: "roce_np/cnp_dscp" */
	const char *debugfs;	/* under cc_params/: "np_cnp_dscp" */
	uint32_t max;		/* largest value accepted in a profile */
};

extern const struct dcqcn_desc dcqcn_params[DCQCN_N];

enum dcqcn_layout {
	DCQCN_LAYOUT_NONE = 0,
	DCQCN_LAYOUT_VENDOR,	/* sysfs ecn/roce_{np,rp}/ */
	DCQCN_LAYOUT_DEBUGFS,	/* debugfs mlx5/BDF/cc_params/ */
};

struct fab_dcqcn {
	enum dcqcn_layout layout;
	bool have[DCQCN_N];	/* the file is there and was read */
	uint32_t val[DCQCN_N];
};

/* Index of the parameter whose profile key is @key; -1 when none. */
int dcqcn_param_find(const char *key);
/* "sysfs", "debugfs", "none". */
const char *dcqcn_layout_name(enum dcqcn_layout l);

#endif
