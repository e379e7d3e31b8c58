/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnetdiscover topology files: the text `ibnetdiscover` prints, which IB
 * users keep as their cabling plan, and the ibsim netfile dialect
 * (`Switch 8 "sw1"` / `[1] "hca1"[1] w=1`).
 *
 *   switchguid=0x200001(200001)
 *   Switch  8 "S-0000000000200001"   # "Switch2" base port 0 lid 3 lmc 0
 *   [1]     "H-0000000000100003"[1](100004)   # "Hca2" lid 4 4xQDR
 *   caguid=0x100003
 *   Ca      2 "H-0000000000100003"   # "Hca2"
 *   [1](100004)   "S-0000000000200001"[1]   # lid 4 lmc 0 "Switch2" lid 3 4xQDR
 *
 * Node ids of the form S-/H-/R-<hex> carry the node GUID; the node's name
 * is then the quoted description in the header comment.  Other ids are
 * the node's name (and it has no GUID).  A trailing "NxSPEED" in a port
 * line's comment is the expected width and speed of that link.
 *
 * Pure: parses a buffer, formats into a buffer (the caller writes it).
 */
#ifndef FAB_MODEL_IBTOPO_PARSE_H
#define FAB_MODEL_IBTOPO_PARSE_H

#include "model/topo.h"
#include "util/err.h"
#include "util/str.h"

/*
 * Parse @len bytes of @buf (need not be NUL-terminated) into @t (empty,
 * from topo_new()), marking everything with @src (TOPO_SRC_PLAN for
 * --expect).  Errors are bad input: "FILE:LINE:COL: message" in @err
 * (kind FAB_ERR_INPUT), -EINVAL; -ENOMEM.  On failure @t holds what was
 * parsed so far; the caller frees it.
 */
int ibtopo_parse(struct topo *t, const char *buf, size_t len, const char *fname,
		 unsigned int src, struct fab_err *err);

/*
 * Append @t to @sb in ibnetdiscover's topology format: every node with at least
 * one port, switches first, then CAs and routers, each port that has a
 * peer with the peer's id, width and speed.  Nodes without a GUID use
 * their name as id.  0, or -ENOMEM (the text in @sb is incomplete).
 */
int ibtopo_format(const struct topo *t, struct strbuf *sb);

#endif
