/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The worker protocol's "bond" op (docs/worker-protocol.md): a host's
 * data-path interface and, when it is a bond, its members' tx_bytes, on
 * the wire.  sweep's dual-homed legs read it before and after each trial
 * flow (sweep/sweep_legs.c).
 *
 *   request  {"op":"bond","addr":"10.25.0.1","ifname":null}
 *   result   {"ifname":"bond0","bond":true,"mode":"balance-xor",
 *             "xmit_hash_policy":"layer3+4",
 *             "members":[{"name":"a1","link_up":true,"tx_bytes":123456}, ...]}
 *            {"ifname":"eth0","bond":false}
 *
 * Ownership: the json_t returned are new references.
 */
#ifndef FAB_FLEET_PROTO_BOND_H
#define FAB_FLEET_PROTO_BOND_H

#include <jansson.h>

#include "model/bond_legs.h"
#include "util/err.h"

/* The request for the interface @ifname (NULL: the one holding @addr); NULL: ENOMEM. */
json_t *proto_bond_req(const char *addr, const char *ifname);
/* The result for @s; NULL: ENOMEM. */
json_t *proto_bond_result(const struct bond_snap *s);
/* A result back into @s; -EPROTO naming the field. */
int proto_bond_from_json(const json_t *res, struct bond_snap *s, struct fab_err *err);

#endif
