// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lossless chain of each interface a `roce.tos` item matches: what
 * the profile expects merged over its items, what the node has from
 * struct node_config, followed by lossless_check() (model/lossless.c).
 * See changeset.h.
 */
#include <errno.h>
#include <string.h>

#include "model/changeset.h"
#include "util/array.h"
#include "util/str.h"

/* What the chain needs of the profile, merged over the matching items (later ones win). */
struct chain_want {
	int tos;
	bool has_pfc;
	uint8_t pfc_en;
	bool has_ecn[FAB_ECN_N_POINTS];
	uint8_t ecn[FAB_ECN_N_POINTS];
	int lossless, prio, gid_index;
};

static void chain_want_for(const struct profile *p, const struct fab_link *l, struct chain_want *w)
{
	memset(w, 0, sizeof(*w));
	w->tos = w->lossless = w->prio = w->gid_index = -1;
	for (size_t i = 0; i < p->n_ifaces; i++) {
		const struct profile_iface *f = &p->ifaces[i];

		if (!profile_iface_matches(f, l->name, l->driver, l->kind))
			continue;
		if (f->roce_tos >= 0)
			w->tos = f->roce_tos;
		if (f->has_pfc) {
			w->has_pfc = true;
			w->pfc_en = f->pfc_en;
		}
		if (f->has_ecn_np) {
			w->has_ecn[FAB_ECN_NP] = true;
			w->ecn[FAB_ECN_NP] = f->ecn_np;
		}
		if (f->has_ecn_rp) {
			w->has_ecn[FAB_ECN_RP] = true;
			w->ecn[FAB_ECN_RP] = f->ecn_rp;
		}
		if (f->roce_lossless >= 0)
			w->lossless = f->roce_lossless;
		if (f->roce_prio >= 0)
			w->prio = f->roce_prio;
		if (f->roce_gid_index >= 0)
			w->gid_index = f->roce_gid_index;
	}
}

bool changeset_chain_wanted(const struct profile *p, const struct fab_link *l)
{
	struct chain_want w;

	chain_want_for(p, l, &w);
	return w.tos >= 0;
}

static const struct fab_rdma_port *rdma_port(const struct host_state *hs, const char *dev,
					     unsigned int port)
{
	const struct fab_rdma_dev *d = host_state_rdma_by_name(hs, dev);

	for (size_t i = 0; d && i < d->n_ports; i++)
		if (d->ports[i].port == port)
			return &d->ports[i];
	return NULL;
}

/* The chain's input from the profile's expectations @w and the node's @ni on link @l. */
static void chain_in(const struct chain_want *w, const struct fab_link *l,
		     const struct node_iface *ni, const struct host_state *hs,
		     struct lossless_in *in)
{
	const struct fab_rdma_port *pt = NULL;

	memset(in, 0, sizeof(*in));
	in->ifname = l->name;
	in->tos = ni && ni->tos_rc == 0 ? (int)ni->tos : w->tos;
	in->dcb = ni && ni->dcb_rc == 0 ? &ni->dcb : NULL;
	in->dcb_why = !ni || ni->dcb_rc > 0 ? "not read" : ni->dcb_msg;
	in->pcp_prio = w->prio;
	in->lossless = w->lossless >= 0 ? w->lossless == 1 : w->has_pfc && w->pfc_en;
	in->dcqcn = (w->has_ecn[FAB_ECN_NP] && w->ecn[FAB_ECN_NP]) ||
		    (w->has_ecn[FAB_ECN_RP] && w->ecn[FAB_ECN_RP]);
	for (enum fab_ecn_point pt_ = FAB_ECN_NP; ni && pt_ <= FAB_ECN_RP; pt_++) {
		in->ecn_known[pt_] = ni->ecn_rc[pt_] == 0;
		in->ecn[pt_] = ni->ecn[pt_];
	}
	in->cnp_dscp = in->cnp_prio = -1;
	if (ni && ni->dcqcn_rc == 0 && ni->dcqcn.have[DCQCN_CNP_DSCP])
		in->cnp_dscp = (int)ni->dcqcn.val[DCQCN_CNP_DSCP];
	if (ni && ni->dcqcn_rc == 0 && ni->dcqcn.have[DCQCN_CNP_PRIO])
		in->cnp_prio = (int)ni->dcqcn.val[DCQCN_CNP_PRIO];
	/* mlx5 reads the PFC delay as the cable length in metres (docs/dcb.md). */
	in->cable_m = in->dcb && in->dcb->pfc_supported ? in->dcb->pfc.delay_bits : 0;
	in->speed_mbps = l->speed_mbps;
	in->mtu = l->mtu;
	if (ni && ni->rdma_dev[0]) {
		in->rdma_dev = ni->rdma_dev;
		in->rdma_port = ni->rdma_port;
		pt = rdma_port(hs, ni->rdma_dev, ni->rdma_port);
	}
	if (pt) {
		in->gids = pt->gids;
		in->n_gids = pt->n_gids;
	}
	in->addrs = (const char (*)[FAB_ADDRSTRLEN])l->addrs;
	in->n_addrs = l->n_addrs;
	in->gid_pin = w->gid_index;
}

void changeset_port_chain(const struct host_state *hs, const struct fab_link *l,
			  const struct node_iface *ni, struct lossless_chain *out)
{
	struct chain_want w = { .tos = -1, .lossless = -1, .prio = -1, .gid_index = -1 };
	struct lossless_in in;

	if (ni->dcb_rc == 0 && ni->dcb.pfc_supported)
		w.lossless = ni->dcb.pfc.pfc_en != 0;
	w.has_ecn[FAB_ECN_RP] = ni->ecn_rc[FAB_ECN_RP] == 0;
	w.ecn[FAB_ECN_RP] = ni->ecn[FAB_ECN_RP];
	chain_in(&w, l, ni, hs, &in);
	lossless_check(&in, out);
}

static int chain_drift(struct changeset *cs, const struct lossless_chain *c)
{
	struct drift *d = array_add((void **)&cs->drift, &cs->n_drift, sizeof(*d));

	if (!d)
		return -ENOMEM;
	str_fmt(d->object, sizeof(d->object), "%s", c->ifname);
	str_fmt(d->field, sizeof(d->field), "chain");
	str_fmt(d->wanted, sizeof(d->wanted), "unbroken");
	str_fmt(d->found, sizeof(d->found), "%s", c->finding);
	d->verify_only = true;
	return 0;
}

int changeset_chains(const struct profile *p, const struct node_config *ns, struct changeset *cs)
{
	const struct host_state *hs = ns->hs;

	for (size_t i = 0; i < hs->n_links; i++) {
		const struct fab_link *l = &hs->links[i];
		struct lossless_chain *c;
		struct chain_want w;
		struct lossless_in in;

		chain_want_for(p, l, &w);
		if (w.tos < 0)
			continue;
		chain_in(&w, l, node_config_iface(ns, l->name), hs, &in);
		c = array_add((void **)&cs->chains, &cs->n_chains, sizeof(*c));
		if (!c)
			return -ENOMEM;
		lossless_check(&in, c);
		if (c->verdict == LOSSLESS_BROKEN && chain_drift(cs, c) < 0)
			return -ENOMEM;
	}
	return 0;
}
