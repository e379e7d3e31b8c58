// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The DCQCN parameter table (model/dcqcn.h).  Names: the vendor driver's
 * sysfs files (ecn/roce_np, ecn/roce_rp) and mlx5_ib's debugfs cc_params
 * (drivers/infiniband/hw/mlx5/cong.c, mlx5_ib_dbg_cc_name[]).
 */
#include <string.h>

#include "model/dcqcn.h"

const struct dcqcn_desc dcqcn_params[DCQCN_N] = {
	[DCQCN_CNP_DSCP] = { "cnp_dscp", "roce_np/cnp_dscp", "np_cnp_dscp", 63 },
	[DCQCN_CNP_PRIO] = { "cnp_prio", "roce_np/cnp_802p_prio", "np_cnp_prio", 7 },
	[DCQCN_NP_MIN_TIME_BETWEEN_CNPS] = { "np.min_time_between_cnps",
		"roce_np/min_time_between_cnps", "np_min_time_between_cnps", UINT32_MAX },
	[DCQCN_RP_CLAMP_TGT_RATE] = { "rp.clamp_tgt_rate", "roce_rp/clamp_tgt_rate",
		"rp_clamp_tgt_rate", 1 },
	[DCQCN_RP_CLAMP_TGT_RATE_ATI] = { "rp.clamp_tgt_rate_after_time_inc",
		"roce_rp/clamp_tgt_rate_after_time_inc", "rp_clamp_tgt_rate_ati", 1 },
	[DCQCN_RP_TIME_RESET] = { "rp.time_reset", "roce_rp/rpg_time_reset", "rp_time_reset",
		UINT32_MAX },
	[DCQCN_RP_BYTE_RESET] = { "rp.byte_reset", "roce_rp/rpg_byte_reset", "rp_byte_reset",
		UINT32_MAX },
	[DCQCN_RP_THRESHOLD] = { "rp.threshold", "roce_rp/rpg_threshold", "rp_threshold",
		UINT32_MAX },
	[DCQCN_RP_AI_RATE] = { "rp.ai_rate", "roce_rp/rpg_ai_rate", "rp_ai_rate", UINT32_MAX },
	[DCQCN_RP_MAX_RATE] = { "rp.max_rate", "roce_rp/rpg_max_rate", "rp_max_rate", UINT32_MAX },
	[DCQCN_RP_HAI_RATE] = { "rp.hai_rate", "roce_rp/rpg_hai_rate", "rp_hai_rate", UINT32_MAX },
	[DCQCN_RP_MIN_DEC_FAC] = { "rp.min_dec_fac", "roce_rp/rpg_min_dec_fac", "rp_min_dec_fac",
		UINT32_MAX },
	[DCQCN_RP_MIN_RATE] = { "rp.min_rate", "roce_rp/rpg_min_rate", "rp_min_rate", UINT32_MAX },
	[DCQCN_RP_RATE_TO_SET_ON_FIRST_CNP] = { "rp.rate_to_set_on_first_cnp",
		"roce_rp/rate_to_set_on_first_cnp", "rp_rate_to_set_on_first_cnp", UINT32_MAX },
	[DCQCN_RP_DCE_TCP_G] = { "rp.dce_tcp_g", "roce_rp/dce_tcp_g", "rp_dce_tcp_g", UINT32_MAX },
	[DCQCN_RP_DCE_TCP_RTT] = { "rp.dce_tcp_rtt", "roce_rp/dce_tcp_rtt", "rp_dce_tcp_rtt",
		UINT32_MAX },
	[DCQCN_RP_RATE_REDUCE_MONITOR_PERIOD] = { "rp.rate_reduce_monitor_period",
		"roce_rp/rate_reduce_monitor_period", "rp_rate_reduce_monitor_period", UINT32_MAX },
	[DCQCN_RP_INITIAL_ALPHA_VALUE] = { "rp.initial_alpha_value", "roce_rp/initial_alpha_value",
		"rp_initial_alpha_value", UINT32_MAX },
	[DCQCN_RP_GD] = { "rp.gd", "roce_rp/rpg_gd", "rp_gd", UINT32_MAX },
};

int dcqcn_param_find(const char *key)
{
	for (int i = 0; i < DCQCN_N; i++)
		if (!strcmp(dcqcn_params[i].key, key))
			return i;
	return -1;
}

const char *dcqcn_layout_name(enum dcqcn_layout l)
{
	switch (l) {
	case DCQCN_LAYOUT_VENDOR: return "sysfs";
	case DCQCN_LAYOUT_DEBUGFS: return "debugfs";
	case DCQCN_LAYOUT_NONE: break;
	}
	return "none";
}
