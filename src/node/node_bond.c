// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The worker op "bond" (node.h node_bond_snap()): the data-path
 * interface, and when it is a bond its mode, policy and every member's
 * link and tx_bytes, read through sys/ as the counters op reads them.
 */
#include <errno.h>
#include <string.h>

#include "node/node.h"
#include "util/str.h"

/* Member @name's tx_bytes (netdev statistics) into @out. */
static int member_tx(struct sys *sys, const char *name, uint64_t *out, struct fab_err *err)
{
	struct nic_counters_req q = { .ifname = name };
	struct nic_counters c;
	int rc;

	nic_counters_init(&c);
	rc = sys_nic_counters_read(sys, &q, &c, err);
	for (size_t i = 0; rc == 0 && i < c.n; i++)
		if (c.v[i].src == NIC_SRC_STATS && strcmp(c.v[i].name, "tx_bytes") == 0) {
			*out = c.v[i].value;
			nic_counters_fini(&c);
			return 0;
		}
	nic_counters_fini(&c);
	return rc < 0 ? rc : fab_err_set(err, -ENOENT, "bond: %s: no tx_bytes counter", name);
}

/* The interface named @ifname, or holding @addr, into out->ifname. */
static int datapath_ifname(struct sys *sys, const char *addr, const char *ifname,
			   struct bond_snap *out, struct fab_err *err)
{
	struct nic_counters_req q = { .ifname = ifname, .addr = addr };
	struct nic_counters c;
	int rc;

	if (ifname && ifname[0]) {
		str_fmt(out->ifname, sizeof(out->ifname), "%s", ifname);
		return 0;
	}
	nic_counters_init(&c);
	rc = sys_nic_counters_read(sys, &q, &c, err);
	if (rc == 0)
		str_fmt(out->ifname, sizeof(out->ifname), "%s", c.ifname);
	nic_counters_fini(&c);
	return rc;
}

int node_bond_snap(struct sys *sys, const char *addr, const char *ifname, struct bond_snap *out,
		   struct fab_err *err)
{
	struct fab_bond b;
	struct fab_err e;
	int rc;

	memset(out, 0, sizeof(*out));
	out->mode = out->policy = -1;
	if ((rc = datapath_ifname(sys, addr, ifname, out, err)) < 0)
		return rc;
	fab_bond_init(&b);
	fab_err_init(&e);
	rc = sys_bond_read(sys, out->ifname, &b, &e);
	if (rc == -EINVAL) {		/* not a bond: nothing more to say */
		fab_bond_fini(&b);
		return 0;
	}
	if (rc == 0 && (b.n_members == 0 || b.n_members > FAB_BOND_MAX_MEMBERS))
		rc = fab_err_set(&e, -E2BIG, "bond: %s: %zu members (1 to %d read)", out->ifname,
				 b.n_members, FAB_BOND_MAX_MEMBERS);
	if (rc < 0) {
		fab_bond_fini(&b);
		*err = e;
		return rc;
	}
	out->is_bond = true;
	out->mode = b.mode;
	out->policy = b.xmit_hash_policy;
	out->n_members = b.n_members;
	for (size_t i = 0; rc == 0 && i < b.n_members; i++) {
		str_fmt(out->m[i].name, sizeof(out->m[i].name), "%s", b.members[i].name);
		out->m[i].link_up = b.members[i].link_up;
		rc = member_tx(sys, b.members[i].name, &out->m[i].tx_bytes, err);
	}
	fab_bond_fini(&b);
	return rc;
}
