// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "model/bond_legs.h"
#include "model/topo.h"
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

bool bond_legs_trial_unseen(const struct bond_leg_trial *t, size_t n_members)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n_members && i < FAB_BOND_MAX_MEMBERS; i++)
		sum += t->tx_delta[i];
	return t->sent_bytes > 0 && sum * 100 < t->sent_bytes * BOND_LEGS_QUIET_PCT;
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
	if (l->n_unseen > 0 && l->n_unseen == l->n_unclear && l->n_found == 0)
		return "no member's tx_bytes saw the trial flows: they left past the bond's "
		       "netdev (a hardware RoCE LAG sends by QP tx affinity; docs/verbs.md)";
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
			out->n_unseen += bond_legs_trial_unseen(&trials[i], b->n_members);
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

/*
 * The finding, @where in parentheses after the member (NULL: none);
 * @rated: @expected_mbps is the pair's rating, not the fastest leg.
 */
static int finding_at(char *buf, size_t len, enum bond_leg_verdict v, const char *node,
		      const char *member, const char *where, double mbps, double expected_mbps,
		      bool rated, const char *why)
{
	char at[160] = "";

	if (where)
		str_fmt(at, sizeof(at), " (%s)", where);
	switch (v) {
	case BOND_LEG_SLOW:
		if (expected_mbps > 0)
			return str_fmt(buf, len, "slow leg: %s %s%s: %.0f of %.0f Mbit/s%s", node,
				       member, at, mbps, expected_mbps, rated ? " rated" : "");
		return str_fmt(buf, len, "slow leg: %s %s%s: %.0f Mbit/s", node, member, at, mbps);
	case BOND_LEG_DEAD:
		return str_fmt(buf, len, "dead leg: %s %s%s: %s", node, member, at,
			       why ? why : "no bytes");
	case BOND_LEG_UNTESTED:
		return str_fmt(buf, len, "untested leg: %s %s%s: %s", node, member, at,
			       why ? why : "no trial flow landed on the member");
	default:
		return str_fmt(buf, len, "ok leg: %s %s%s: %.0f Mbit/s", node, member, at, mbps);
	}
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
	return finding_at(buf, len, v, node, member, where, mbps, expected_mbps, false,
			  v == BOND_LEG_DEAD ? NULL : why);
}

int bond_snap_delta(const struct bond_snap *before, const struct bond_snap *after,
		    uint64_t *delta)
{
	if (before->n_members != after->n_members || before->n_members > FAB_BOND_MAX_MEMBERS)
		return -EINVAL;
	for (size_t i = 0; i < before->n_members; i++) {
		if (strcmp(before->m[i].name, after->m[i].name))
			return -EINVAL;
		delta[i] = after->m[i].tx_bytes > before->m[i].tx_bytes
			   ? after->m[i].tx_bytes - before->m[i].tx_bytes : 0;
	}
	return 0;
}

int bond_legs_find_snap(const struct bond_snap *s, const struct bond_leg_trial *trials, size_t n,
			struct bond_legs *out)
{
	struct fab_bond_member mem[FAB_BOND_MAX_MEMBERS];
	struct fab_bond b = { .mode = s->mode, .xmit_hash_policy = s->policy, .members = mem,
			      .n_members = s->n_members };

	memset(mem, 0, sizeof(mem));
	if (s->n_members == 0 || s->n_members > FAB_BOND_MAX_MEMBERS) {
		memset(out, 0, sizeof(*out));
		return -EINVAL;
	}
	for (size_t i = 0; i < s->n_members; i++) {
		str_fmt(mem[i].name, sizeof(mem[i].name), "%s", s->m[i].name);
		mem[i].link_up = s->m[i].link_up;
	}
	return bond_legs_find(&b, trials, n, out);
}

/* One leg's verdict and finding; true when it is a fault. */
static bool judge_leg(struct bond_legs_dir *d, struct bond_leg_result *l, double slow_pct,
		      bool lldp)
{
	const char *why = d->why;
	char where[160];
	/* the leg's reference: the fastest leg, or the rating when that is higher */
	bool rated = d->rated_mbps > d->ref_mbps;
	double ref = rated ? d->rated_mbps : d->ref_mbps;

	l->verdict = bond_leg_judge(l->sport != 0, l->failed, l->mbps, ref, slow_pct);
	bool hashed = bond_legs_port_hashed(d->mode, d->policy) && !d->unread;

	if (l->verdict == BOND_LEG_UNTESTED && !l->link_up && hashed) {
		l->verdict = BOND_LEG_DEAD;
		why = "member link down: no trial flow landed on it";
	} else if (l->verdict == BOND_LEG_DEAD) {
		why = l->failed ? "its flow failed" : NULL;
	}
	l->finding[0] = '\0';
	if (l->verdict == BOND_LEG_OK)
		return false;
	if (l->sw_node[0])
		str_fmt(where, sizeof(where), "switch %s port %s", l->sw_node,
			l->sw_port[0] ? l->sw_port : "?");
	else
		str_fmt(where, sizeof(where), "%s", lldp ? "no LLDP neighbour" : "");
	finding_at(l->finding, sizeof(l->finding), l->verdict, d->node, l->member,
		   where[0] ? where : NULL, l->mbps, ref, rated, why);
	return l->verdict != BOND_LEG_UNTESTED || hashed;
}

void bond_legs_judge_dir(struct bond_legs_dir *d, double slow_pct, bool lldp)
{
	d->ref_mbps = 0;
	d->n_bad = 0;
	for (size_t i = 0; i < d->n_legs; i++)
		if (d->legs[i].sport && !d->legs[i].failed && d->legs[i].mbps > d->ref_mbps)
			d->ref_mbps = d->legs[i].mbps;
	for (size_t i = 0; i < d->n_legs; i++) {
		d->legs[i].fault = judge_leg(d, &d->legs[i], slow_pct, lldp);
		d->n_bad += d->legs[i].fault;
	}
}

void bond_legs_keep_best(struct bond_legs_dir *d, const struct bond_legs_dir *pass)
{
	for (size_t i = 0; i < d->n_legs && i < pass->n_legs; i++) {
		struct bond_leg_result *l = &d->legs[i];
		const struct bond_leg_result *p = &pass->legs[i];

		if (!l->sport || p->failed || (!l->failed && p->mbps <= l->mbps))
			continue;
		l->failed = false;
		l->mbps = p->mbps;
		l->bytes = p->bytes;
		l->tx_delta = p->tx_delta;
	}
}

bool bond_leg_neighbour(const struct topo *t, uint32_t host_link, const char *ifname, char *sw,
			size_t sw_len, char *port, size_t port_len)
{
	const struct topo_link *l;
	const struct topo_node *host;
	const struct topo_port *p;

	sw[0] = port[0] = '\0';
	if (!t || host_link >= t->n_links)
		return false;
	l = t->links[host_link];
	host = l->a->node->type != TOPO_NODE_SWITCH ? l->a->node : l->b->node;
	if (host->type == TOPO_NODE_SWITCH)
		return false;
	p = topo_port_find(host, 0, ifname);
	if (!p || !p->peer)
		return false;
	str_fmt(sw, sw_len, "%s", p->peer->node->name);
	if (p->peer->name[0])
		str_fmt(port, port_len, "%s", p->peer->name);
	else
		str_fmt(port, port_len, "%u", p->peer->num);
	return true;
}
