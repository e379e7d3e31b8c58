/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ECN roles of a RoCE port, as profiles, plans and sys_ops name them. */
#ifndef FAB_MODEL_ECN_H
#define FAB_MODEL_ECN_H

/* mlx5 sysfs names them roce_np and roce_rp; profiles `ecn: { np:, rp: }`. */
enum fab_ecn_point {
	FAB_ECN_NP = 0,		/* notification point: the receiver, sends CNPs */
	FAB_ECN_RP = 1,		/* reaction point: the sender, slows down on CNPs */
	FAB_ECN_N_POINTS
};

#endif
