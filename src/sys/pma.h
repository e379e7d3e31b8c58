/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * PMA counters of every linked port of a walked subnet: PortCounters, and
 * PortCountersExtended for the data counters where the node's
 * ClassPortInfo says it answers them.  Many queries in flight through our
 * own umad port (sys/pma_win.h keeps the books), or one at a time through
 * libibmad's pma_query_via: when asked (subnet_opts.pma_serial), when the
 * umad port or the PerfMgt agent cannot be had, and for the nodes whose
 * PMA redirects (libibmad follows redirects; the engine does not).
 * The encoding and decoding below are what both paths share.
 */
#ifndef FAB_SYS_PMA_H
#define FAB_SYS_PMA_H

#include <stdbool.h>
#include <stdint.h>

#include "model/topo.h"
#include "sys/sys.h"
#include "util/err.h"

/*
 * A PerfMgt Get of attribute @attr (ClassPortInfo, PortCounters or
 * PortCountersExtended) for port @port of LID @lid, transaction id @tid,
 * into @umad (umad_size() + IB_MAD_SIZE bytes): the packet libibmad's
 * pma_query_via builds.  Its length (IB_MAD_SIZE), or -EINVAL.
 */
int pma_encode(void *umad, unsigned int lid, unsigned int port, unsigned int attr, uint32_t tid,
	       unsigned int timeout_ms);

/* From a PMA MAD's data (MAD + IB_PC_DATA_OFFS): */
/* ClassPortInfo: whether PortCountersExtended is answered. */
bool pma_cpi_has_ext(const uint8_t *data);
/* PortCounters: every counter of enum topo_counter (data and packets 32-bit). */
void pma_decode_counters(const uint8_t *data, uint64_t *c);
/* PortCountersExtended: the 64-bit data and packet counters over those. */
void pma_decode_ext(const uint8_t *data, uint64_t *c);

/* Read the counters of every linked port of @t (TOPO_F_COUNTERS where read). */
int pma_counters_read(struct topo *t, const struct subnet_opts *o, struct fab_err *err);

#endif
