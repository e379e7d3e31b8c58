// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "model/bond_legs.h"
#include "util/str.h"

bool bond_legs_port_hashed(int mode, int policy)
{
	bool hashing_mode = mode == FAB_BOND_MODE_BALANCE_XOR || mode == FAB_BOND_MODE_8023AD ||
			    mode == FAB_BOND_MODE_BALANCE_TLB;

	return hashing_mode &&
	       (policy == FAB_BOND_XMIT_LAYER34 || policy == FAB_BOND_XMIT_ENCAP34);
}

int bond_legs_trial_member(const struct bond_leg_trial *t, size_t n_members)
{
	int best = -1;

	if (t->sent_bytes == 0)
		return -1;
	for (size_t i = 0; i < n_members && i < FAB_BOND_MAX_MEMBERS; i++) {
		/* delta * 100 >= sent * pct, in 64 bits: fine below 1.8e17 bytes */
		bool carried = t->tx_delta[i] * 100 >= t->sent_bytes * BOND_LEGS_CARRIED_PCT;
		bool quiet = t->tx_delta[i] * 100 < t->sent_bytes * BOND_LEGS_QUIET_PCT;

		if (carried && best < 0)
			best = (int)i;
		else if (carried || !quiet)
			return -1;
	}
	return best;
}

/* Why some member got no flow, after the trials: the policy first, then the counters. */
static const char *legs_why(const struct fab_bond *b, const struct bond_legs *l)
{
	if (l->n_found == l->n_legs)
		return NULL;
	switch (b->mode) {
	case FAB_BOND_MODE_ACTIVE_BACKUP:
		return "active-backup: the active member carries every flow, the others stand by";
	case FAB_BOND_MODE_BALANCE_RR:
	case FAB_BOND_MODE_BROADCAST:
		return "the mode spreads each flow's packets over the members: no leg per flow";
	default:
		break;
	}
	if (b->xmit_hash_policy >= 0 && !bond_legs_port_hashed(b->mode, b->xmit_hash_policy))
		return "the xmit_hash_policy hashes no port: one address pair takes one leg";
	if (l->n_unclear > 0)
		return "some trials were split or hidden by other traffic, "
		       "none landed on the member";
	return "no trial flow landed on the member";
}

int bond_legs_find(const struct fab_bond *b, const struct bond_leg_trial *trials, size_t n,
		   struct bond_legs *out)
{
	memset(out, 0, sizeof(*out));
	if (b->n_members == 0 || b->n_members > FAB_BOND_MAX_MEMBERS)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (trials[i].sent_bytes == 0)
			return -EINVAL;
	out->n_legs = b->n_members;
	for (size_t m = 0; m < b->n_members; m++) {
		str_fmt(out->legs[m].member, sizeof(out->legs[m].member), "%s", b->members[m].name);
		out->legs[m].trial = -1;
	}
	for (size_t i = 0; i < n; i++) {
		int m = bond_legs_trial_member(&trials[i], b->n_members);

		if (m < 0) {
			out->n_unclear++;
			continue;
		}
		if (out->legs[m].trial >= 0)
			continue;
		out->legs[m].trial = (int)i;
		out->legs[m].sport = trials[i].sport;
		out->n_found++;
	}
	out->why = legs_why(b, out);
	return 0;
}

enum bond_leg_verdict bond_leg_judge(bool tested, bool failed, double mbps, double expected_mbps,
				     double slow_pct)
{
	if (!tested)
		return BOND_LEG_UNTESTED;
	if (failed || mbps <= 0)
		return BOND_LEG_DEAD;
	if (expected_mbps > 0 && mbps < expected_mbps * slow_pct / 100)
		return BOND_LEG_SLOW;
	return BOND_LEG_OK;
}

const char *bond_leg_verdict_name(enum bond_leg_verdict v)
{
	static const char *const names[] = {
		[BOND_LEG_OK] = "ok", [BOND_LEG_SLOW] = "slow", [BOND_LEG_DEAD] = "dead",
		[BOND_LEG_UNTESTED] = "untested",
	};

	return (unsigned int)v < sizeof(names) / sizeof(names[0]) ? names[v] : "?";
}

int bond_leg_finding(char *buf, size_t len, enum bond_leg_verdict v, const char *node,
		     const char *member, const char *sw_node, const char *sw_port, double mbps,
		     double expected_mbps, const char *why)
{
	char where[128];

	if (sw_node && sw_node[0])
		str_fmt(where, sizeof(where), "switch %s port %s", sw_node,
			sw_port && sw_port[0] ? sw_port : "?");
	else
		str_fmt(where, sizeof(where), "no LLDP neighbour");
	switch (v) {
	case BOND_LEG_SLOW:
		if (expected_mbps > 0)
			return str_fmt(buf, len, "slow leg: %s %s (%s): %.0f of %.0f Mbit/s", node,
				       member, where, mbps, expected_mbps);
		return str_fmt(buf, len, "slow leg: %s %s (%s): %.0f Mbit/s", node, member, where,
			       mbps);
	case BOND_LEG_DEAD:
		return str_fmt(buf, len, "dead leg: %s %s (%s): no bytes", node, member, where);
	case BOND_LEG_UNTESTED:
		return str_fmt(buf, len, "untested leg: %s %s (%s): %s", node, member, where,
			       why ? why : "no trial flow landed on the member");
	default:
		return str_fmt(buf, len, "ok leg: %s %s (%s): %.0f Mbit/s", node, member, where,
			       mbps);
	}
}
