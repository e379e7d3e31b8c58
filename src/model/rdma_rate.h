/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding what InfiniBand ports report about themselves: PortInfo
 * width/speed/MTU codes (IBA vol 1, 14.2.5.6), port and physical states,
 * and the kernel's sysfs strings ("10 Gb/sec (1X QDR)", "4: ACTIVE",
 * "0002:c903:00a1:b2c3").  Pure functions, no I/O.  Returned strings are
 * static.
 */
#ifndef FAB_MODEL_RDMA_RATE_H
#define FAB_MODEL_RDMA_RATE_H

#include <stddef.h>
#include <stdint.h>

/* PortInfo LinkWidthActive (1=1X 2=4X 4=8X 8=12X 16=2X) -> lanes; 0 when unknown. */
unsigned int ib_width_from_active(unsigned int code);

/*
 * PortInfo LinkSpeedActive (1=SDR 2=DDR 4=QDR) and LinkSpeedExtActive
 * (1=FDR 2=EDR 4=HDR 8=NDR; 0 = none) -> "SDR" ... "NDR"; an extended
 * speed wins.  NULL when unknown.
 */
const char *ib_speed_from_active(unsigned int speed, unsigned int speed_ext);

/* PortInfo/verbs MTU enum (1=256 ... 5=4096) -> bytes; 0 when unknown. */
unsigned int ib_mtu_from_enum(unsigned int code);

/* PortState 1..5 -> "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"; NULL otherwise. */
const char *ib_port_state_name(unsigned int state);

/*
 * PortPhysicalState 1..7 -> "SLEEP", "POLLING", "DISABLED", "TRAINING",
 * "LINK_UP", "LINK_ERROR_RECOVERY", "PHY_TEST"; NULL otherwise.
 */
const char *ib_phys_state_name(unsigned int state);

/*
 * Parse a sysfs port rate, "10 Gb/sec (1X QDR)", "2.5 Gb/sec (1X)" (older
 * kernels and umad2sim leave SDR unnamed), "100 Gb/sec (4X EDR)".
 * Fills @width_x, @speed ("" when neither named nor implied) and @gbps,
 * which is width x nominal lane rate when the speed is known and the
 * number in the string otherwise.  0 or -EINVAL.
 */
int ib_rate_parse(const char *s, unsigned int *width_x, char *speed, size_t speed_len,
		  double *gbps);

/* "4: ACTIVE" -> 4.  0 or -EINVAL. */
int ib_sysfs_enum_parse(const char *s, unsigned int *val);

/* "0002:c903:00a1:b2c3" (sysfs node_guid) -> 0x0002c90300a1b2c3.  0 or -EINVAL. */
int ib_guid_parse(const char *s, uint64_t *guid);

#endif
