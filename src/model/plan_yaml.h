/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * YAML cabling plans (docs/plan.md, fabricctl-plan(5)): the expected
 * cabling of an Ethernet/RoCE or mixed fabric, read into a struct topo
 * (TOPO_SRC_PLAN) for topo_diff() and topo_mtu_check(), plus the rails
 * for topo_rail_plan_check().  `fabricctl discover --save-plan` writes
 * the same format from a discovered graph.
 *
 *   version: 1
 *   defaults: { mtu: 9000 }
 *   nodes:
 *     - { name: leaf1, type: switch, rail: 0, addresses: [10.0.255.1, 10.0.1.254] }
 *     - { name: h1, type: host, nics: [eth0, eth1] }
 *   links:
 *     - { a: "h1:eth0", b: "leaf1:swp1" }
 *     - [ "h1:eth1", "leaf2:swp1" ]
 *
 * Parsed with libyaml; the parser is strict (unknown keys, wrong types,
 * duplicate cables are errors) and every error is bad input reported as
 * "FILE:LINE:COLUMN: message" (kind FAB_ERR_INPUT, -EINVAL).  Pure: reads
 * a buffer, formats into a buffer (the caller writes it).
 */
#ifndef FAB_MODEL_PLAN_YAML_H
#define FAB_MODEL_PLAN_YAML_H

#include <stdbool.h>

#include "model/topo.h"
#include "model/topo_lldp_checks.h"
#include "util/err.h"
#include "util/str.h"

/* Plans larger than this are refused (bad input): 64 MiB. */
#define PLAN_YAML_MAX_BYTES (64u << 20)

/*
 * Does @buf look like a YAML plan rather than an ibnetdiscover topology
 * file?  True when the first line that is neither blank nor a comment
 * starts with "---", "version:", "defaults:", "nodes:" or "links:".
 */
bool plan_yaml_sniff(const char *buf, size_t len);

/* Is @path named as a YAML plan: *.yaml or *.yml? */
bool plan_yaml_named(const char *path);

/*
 * Parse @len bytes of @buf (need not be NUL-terminated) into @t (empty,
 * from topo_new()) and @rails (topo_rails_init'ed; may be NULL when the
 * caller has no use for rails).  Nodes, ports and links carry
 * TOPO_SRC_PLAN; an expected MTU sets mtu and TOPO_F_MTU on both ends of
 * its link, an expected speed lane_mbps/width_x and TOPO_F_SPEED /
 * TOPO_F_WIDTH.  -EINVAL with "FILE:LINE:COL: message" in @err; -ENOMEM.
 * On failure @t and @rails hold what was parsed so far (the caller frees).
 */
int plan_yaml_parse(struct topo *t, struct topo_rails *rails, const char *buf, size_t len,
		    const char *fname, struct fab_err *err);

/*
 * Append @t to @sb as a plan: every node that has a linked port (name, type, GUID
 * and addresses when it has them), then every link with the MTU both ends agree on (or
 * the one end that knows it) and the width/speed when known.  0, or
 * -ENOMEM (the text in @sb is incomplete).
 */
int plan_yaml_format(const struct topo *t, struct strbuf *sb);

/*
 * The same with @rails (may be NULL: plan_yaml_format()): a switch named
 * in rails->leaves gets `rail: N`, a host with NICs in rails->nics
 * `nics: [...]` listing its NICs of rails 0, 1, ... in order (the list's
 * index is the rail, so a rail missing ends the list; a host without a
 * NIC of rail 0 gets none).  Parsed back, the plan gives those rails.
 * Without rails the text is byte for byte plan_yaml_format()'s.
 */
int plan_yaml_format_rails(const struct topo *t, const struct topo_rails *rails, struct strbuf *sb);

#endif
