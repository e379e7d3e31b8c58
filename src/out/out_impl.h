/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Internal to src/out/: per-command renderer functions that the two
 * vtables (out_text.c, out_json.c) point at.  Each command keeps its
 * renderers in its own files (out/<cmd>_text.c, out/<cmd>_json.c) and
 * adds its slot to struct out_ops, its declarations here, and one line
 * to each vtable.
 */
#ifndef FAB_OUT_OUT_IMPL_H
#define FAB_OUT_OUT_IMPL_H

#include "out/out.h"

/* discover (5A): out/discover_text.c, out/discover_json.c. */
int discover_text(struct fab_out *out, const struct topo *t);
int discover_json(struct fab_out *out, const struct topo *t);

#endif
