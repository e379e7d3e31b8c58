/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Virtual lanes of a subnet's routes, for the per-VL credit-loop analysis
 * (ib_checks.h: ib_credit_vl_check()).  Pure data, filled by sys (a live
 * subnet: SubnGet(SLtoVLMappingTable) of every switch, SubnAdmGet(PathRecord)
 * of every CA pair) or by hand in the unit tests.
 *
 * A packet carries a service level (SL, 0..15) from its source to its
 * destination; each switch puts it on the virtual lane (VL) that its
 * SLtoVLMappingTable for (input port, output port) gives that SL, VL 15
 * meaning drop.  A subnet manager that breaks credit loops with lanes
 * (opensm's lash, dfsssp, torus-2QoS) does it with the SL it gives each
 * path in PathRecord and with those tables.
 *
 * Ownership: struct ib_vl_data owns its arrays; the switch pointers are
 * borrowed from the topo the data was read for.
 */
#ifndef FAB_MODEL_IB_VL_H
#define FAB_MODEL_IB_VL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/topo.h"

#define IB_SL_N 16		/* service levels */
#define IB_VL_N 16		/* virtual lanes: data 0..14, 15 management (drop for data) */
#define IB_VL_DROP 15
#define IB_VL_UNREAD 0xff	/* a table entry not read */
#define IB_PATH_SL_MAX 262144	/* path SLs asked of the SA at most (pairs); more: SL 0 assumed */

/* One switch's tables: a VL for every (input port, output port, SL). */
struct ib_sl2vl {
	const struct topo_node *sw;	/* borrowed */
	unsigned int n_ports;		/* ports 0 .. n_ports - 1 */
	uint8_t *vl;			/* owned: [(in * n_ports + out) * IB_SL_N + sl]; IB_VL_UNREAD */
};

/* The SL of the path from a source port's base LID to a destination LID. */
struct ib_path_sl {
	uint16_t slid, dlid;
	uint8_t sl;
};

struct ib_vl_data {
	struct ib_sl2vl *sw;		/* owned, one per switch read */
	size_t n_sw;
	size_t n_tables;		/* (in, out) tables answered */
	size_t n_failed;		/* (in, out) tables asked and not answered */
	struct ib_path_sl *paths;	/* owned; ib_vl_data_sort() orders them by slid, dlid */
	size_t n_paths, cap_paths;
	bool sls_read;			/* paths[] came from the SA; false: every path on SL 0 */
	char sl_note[128];		/* why not, when not */
};

void ib_vl_data_fini(struct ib_vl_data *d);

/* A switch's table set for @n_ports ports, every entry IB_VL_UNREAD; NULL on ENOMEM. */
struct ib_sl2vl *ib_vl_data_add_switch(struct ib_vl_data *d, const struct topo_node *sw,
				       unsigned int n_ports);
/* One SLtoVLMappingTable block (8 bytes, SL 0 in the high nibble of byte 0) into @vl. */
void ib_sl2vl_decode(const uint8_t raw[8], uint8_t vl[IB_SL_N]);
/* -ENOMEM */
int ib_vl_data_add_path(struct ib_vl_data *d, unsigned int slid, unsigned int dlid,
			unsigned int sl);
/* Order paths[] for ib_vl_path_sl(). */
void ib_vl_data_sort(struct ib_vl_data *d);
/* The SL of the path @slid -> @dlid: 0 when not known. */
unsigned int ib_vl_path_sl(const struct ib_vl_data *d, unsigned int slid, unsigned int dlid);
/* @sw's table, or NULL when not read. */
const struct ib_sl2vl *ib_vl_data_switch(const struct ib_vl_data *d, const struct topo_node *sw);
/* The VL of @sl from @in to @out at @s; IB_VL_UNREAD when not read. */
unsigned int ib_sl2vl_get(const struct ib_sl2vl *s, unsigned int in, unsigned int out,
			  unsigned int sl);

#endif
