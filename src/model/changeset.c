// SPDX-License-Identifier: GPL-2.0-or-later
/* Profile vs node diff: ordered steps with undo, and the drift list (the pending state
 * as JSON: changeset_json.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/changeset.h"
#include "model/changeset_nic.h"
#include "util/array.h"
#include "util/str.h"


/* ---- node_config ---- */

void node_config_init(struct node_config *ns, const struct host_state *hs)
{
	memset(ns, 0, sizeof(*ns));
	ns->hs = hs;
}

void node_config_fini(struct node_config *ns)
{
	if (!ns)
		return;
	for (size_t i = 0; i < ns->n_ifaces; i++)
		fab_dcb_fini(&ns->ifaces[i].dcb);
	for (size_t i = 0; i < ns->n_bonds; i++)
		fab_bond_fini(&ns->bonds[i].bond);
	free(ns->ifaces);
	free(ns->bonds);
	ns->ifaces = NULL;
	ns->bonds = NULL;
	ns->n_ifaces = ns->n_bonds = 0;
}

struct node_iface *node_config_iface_add(struct node_config *ns, const char *name)
{
	struct node_iface *n = array_add((void **)&ns->ifaces, &ns->n_ifaces, sizeof(*n));

	if (!n)
		return NULL;
	str_fmt(n->name, sizeof(n->name), "%s", name);
	n->dcb_rc = n->ecn_rc[0] = n->ecn_rc[1] = n->tos_rc = n->dcqcn_rc = n->storm_rc = 1;
	fab_dcb_init(&n->dcb);
	return n;
}

struct node_bond *node_config_bond_add(struct node_config *ns, const char *name)
{
	struct node_bond *n = array_add((void **)&ns->bonds, &ns->n_bonds, sizeof(*n));

	if (!n)
		return NULL;
	str_fmt(n->name, sizeof(n->name), "%s", name);
	n->rc = 1;
	fab_bond_init(&n->bond);
	return n;
}

struct node_iface *node_config_iface(const struct node_config *ns, const char *name)
{
	for (size_t i = 0; i < ns->n_ifaces; i++)
		if (!strcmp(ns->ifaces[i].name, name))
			return &ns->ifaces[i];
	return NULL;
}

struct node_bond *node_config_bond(const struct node_config *ns, const char *name)
{
	for (size_t i = 0; i < ns->n_bonds; i++)
		if (!strcmp(ns->bonds[i].name, name))
			return &ns->bonds[i];
	return NULL;
}

/* ---- merged wants per interface ---- */

struct want {
	bool matched;
	unsigned int mtu;
	bool has_pfc;
	uint8_t pfc_en;
	bool has_pfc_delay;
	uint16_t pfc_delay;
	int pfc_storm;
	bool has_buf_prio, has_buf_size;
	uint8_t buf_prio[FAB_DCB_NPRIO];
	uint64_t buf_size[FAB_DCB_NBUF];
	bool has_maxrate;
	uint64_t maxrate[FAB_DCB_NTC];
	bool has_dcqcn[DCQCN_N];
	uint32_t dcqcn[DCQCN_N];
	bool has_ets;
	uint8_t prio_tc[FAB_DCB_NPRIO], tc_bw[FAB_DCB_NTC], tsa[FAB_DCB_NTC];
	bool has_trust;
	uint8_t trust[FAB_DCB_TRUST_MAX];
	size_t n_trust;
	struct fab_dcb_app apps[PROFILE_MAX_APPS];
	size_t n_apps;
	bool has_ecn[FAB_ECN_N_POINTS];
	uint8_t ecn[FAB_ECN_N_POINTS];
	int tos;
	unsigned int roce_mtu;
};

/* Later items override the fields they set. */
static void want_merge(struct want *w, const struct profile_iface *f)
{
	if (!w->matched)
		w->tos = w->pfc_storm = -1;
	w->matched = true;
	if (f->mtu)
		w->mtu = f->mtu;
	if (f->has_pfc) {
		w->has_pfc = true;
		w->pfc_en = f->pfc_en;
	}
	if (f->has_pfc_delay) {
		w->has_pfc_delay = true;
		w->pfc_delay = f->pfc_delay;
	}
	if (f->pfc_storm_ms >= 0)
		w->pfc_storm = f->pfc_storm_ms;
	if (f->has_buf_prio) {
		w->has_buf_prio = true;
		memcpy(w->buf_prio, f->buf_prio, sizeof(w->buf_prio));
	}
	if (f->has_buf_size) {
		w->has_buf_size = true;
		memcpy(w->buf_size, f->buf_size, sizeof(w->buf_size));
	}
	if (f->has_maxrate) {
		w->has_maxrate = true;
		memcpy(w->maxrate, f->maxrate_kbps, sizeof(w->maxrate));
	}
	for (int i = 0; i < DCQCN_N; i++)
		if (f->has_dcqcn[i]) {
			w->has_dcqcn[i] = true;
			w->dcqcn[i] = f->dcqcn[i];
		}
	if (f->has_ets) {
		w->has_ets = true;
		memcpy(w->prio_tc, f->ets_prio_tc, sizeof(w->prio_tc));
		memcpy(w->tc_bw, f->ets_tc_bw_pct, sizeof(w->tc_bw));
		memcpy(w->tsa, f->ets_tsa, sizeof(w->tsa));
	}
	if (f->has_trust) {
		w->has_trust = true;
		memcpy(w->trust, f->trust, sizeof(w->trust));
		w->n_trust = f->n_trust;
	}
	for (size_t i = 0; i < f->n_apps; i++) {
		size_t j;

		for (j = 0; j < w->n_apps; j++)
			if (w->apps[j].selector == f->apps[i].selector &&
			    w->apps[j].protocol == f->apps[i].protocol)
				break;
		if (j == w->n_apps) {
			if (w->n_apps == PROFILE_MAX_APPS)
				continue;
			w->n_apps++;
		}
		w->apps[j] = f->apps[i];
	}
	if (f->has_ecn_np) {
		w->has_ecn[FAB_ECN_NP] = true;
		w->ecn[FAB_ECN_NP] = f->ecn_np;
	}
	if (f->has_ecn_rp) {
		w->has_ecn[FAB_ECN_RP] = true;
		w->ecn[FAB_ECN_RP] = f->ecn_rp;
	}
	if (f->roce_tos >= 0)
		w->tos = f->roce_tos;
	if (f->roce_mtu)
		w->roce_mtu = f->roce_mtu;
}

static void want_for_link(const struct profile *p, const struct fab_link *l, struct want *w)
{
	memset(w, 0, sizeof(*w));
	w->tos = -1;
	for (size_t i = 0; i < p->n_ifaces; i++)
		if (profile_iface_matches(&p->ifaces[i], l->name, l->driver, l->kind))
			want_merge(w, &p->ifaces[i]);
}

void change_needs(const struct profile *p, const struct host_state *hs, struct change_needs *needs)
{
	for (size_t i = 0; i < hs->n_links; i++) {
		struct want w;

		want_for_link(p, &hs->links[i], &w);
		needs[i].dcb = w.has_pfc || w.has_pfc_delay || w.has_ets || w.has_trust || w.n_apps ||
			       w.has_buf_prio || w.has_buf_size || w.has_maxrate;
		needs[i].ecn_np = w.has_ecn[FAB_ECN_NP];
		needs[i].ecn_rp = w.has_ecn[FAB_ECN_RP];
		needs[i].tos = w.tos >= 0 || w.roce_mtu;
		needs[i].dcqcn = memchr(w.has_dcqcn, true, sizeof(w.has_dcqcn)) != NULL;
		needs[i].pfc_storm = w.pfc_storm >= 0;
	}
}

/* ---- change set ---- */

void changeset_init(struct changeset *cs)
{
	memset(cs, 0, sizeof(*cs));
}

void changeset_fini(struct changeset *cs)
{
	if (!cs)
		return;
	free(cs->steps);
	free(cs->drift);
	free(cs->chains);
	changeset_init(cs);
}

static int drift_add(struct changeset *cs, const char *object, const char *field,
		     const char *wanted, const char *found)
{
	struct drift *d = array_add((void **)&cs->drift, &cs->n_drift, sizeof(*d));

	if (!d)
		return -ENOMEM;
	str_fmt(d->object, sizeof(d->object), "%s", object);
	str_fmt(d->field, sizeof(d->field), "%s", field);
	str_fmt(d->wanted, sizeof(d->wanted), "%s", wanted);
	str_fmt(d->found, sizeof(d->found), "%s", found);
	return 0;
}

/* Drift @field of @obj when @want is set and @found is not it (case aside); "" found reads "unknown". */
static int drift_str(struct changeset *cs, const char *obj, const char *field, const char *want,
		     const char *found)
{
	if (!want[0] || !strcasecmp(want, found))
		return 0;
	return drift_add(cs, obj, field, want, found[0] ? found : "unknown");
}

/* Drift @field of @obj when @want (0: any) is not @found, both as "%u@unit"; 0 found reads "unknown". */
static int drift_uint(struct changeset *cs, const char *obj, const char *field, unsigned int want,
		      unsigned int found, const char *unit)
{
	char wb[16], fb[16];

	if (!want || want == found)
		return 0;
	str_fmt(wb, sizeof(wb), "%u%s", want, unit);
	if (found)
		str_fmt(fb, sizeof(fb), "%u%s", found, unit);
	else
		str_fmt(fb, sizeof(fb), "unknown");
	return drift_add(cs, obj, field, wb, fb);
}

/* Append a step; @undo NULL means the previous value is unknown. */
static int step_add(struct changeset *cs, const struct change_action *act,
		    const struct change_action *undo, const char *object, const char *field,
		    const char *from, const char *to)
{
	struct change_step *s = array_add((void **)&cs->steps, &cs->n_steps, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->act = *act;
	if (undo) {
		s->undo = *undo;
		s->has_undo = true;
	}
	str_fmt(s->object, sizeof(s->object), "%s", object);
	str_fmt(s->field, sizeof(s->field), "%s", field);
	str_fmt(s->from, sizeof(s->from), "%s", from);
	str_fmt(s->to, sizeof(s->to), "%s", to);
	return 0;
}

size_t changeset_n_fails(const struct changeset *cs)
{
	size_t n = 0;

	for (size_t i = 0; i < cs->n_steps; i++)
		n += cs->steps[i].fails[0] != '\0';
	return n;
}

size_t changeset_n_verify_only(const struct changeset *cs)
{
	size_t n = 0;

	for (size_t i = 0; i < cs->n_drift; i++)
		n += cs->drift[i].verify_only;
	return n;
}

/* The step just added is certain to fail (shown by apply --dry-run). */
static void step_fails(struct changeset *cs, const char *why)
{
	str_fmt(cs->steps[cs->n_steps - 1].fails,
		sizeof(cs->steps[0].fails), "%s", why);
}

/* Drift [@from, n_drift) has no step: apply cannot change it. */
static void drift_verify_only(struct changeset *cs, size_t from)
{
	for (size_t i = from; i < cs->n_drift; i++)
		cs->drift[i].verify_only = true;
}

static struct change_action action(enum change_op op, const char *obj)
{
	struct change_action a;

	memset(&a, 0, sizeof(a));
	a.op = op;
	str_fmt(a.obj, sizeof(a.obj), "%s", obj);
	fab_bond_init(&a.bond);
	return a;
}

const char *prio_mask_str(uint8_t mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (!mask) {
		str_fmt(buf, len, "none");
		return buf;
	}
	for (unsigned int p = 0; p < 8 && off < len; p++)
		if (mask & (1u << p))
			off += (size_t)str_fmt(buf + off, len - off, "%s%u", off ? "," : "", p);
	return buf;
}

static const char *u8list_str(const uint8_t *v, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)str_fmt(buf + off, len - off, "%s%u", i ? "," : "", v[i]);
	return buf;
}

static const char *tsa_list_str(const uint8_t *v, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < FAB_DCB_NTC && off < len; i++) {
		const char *n = fab_dcb_tsa_name(v[i]);

		off += (size_t)str_fmt(buf + off, len - off, "%s%s", i ? "," : "", n ? n : "?");
	}
	return buf;
}

static const char *sel_list_str(const uint8_t *v, size_t n, char *buf, size_t len)
{
	size_t off = 0;

	str_fmt(buf, len, "none");
	for (size_t i = 0; i < n && off < len; i++) {
		const char *s = fab_dcb_sel_name(v[i]);

		off += (size_t)str_fmt(buf + off, len - off, "%s%s", i ? "," : "", s ? s : "?");
	}
	return buf;
}

static const char *unknown_str(const char *msg, char *buf, size_t len)
{
	str_fmt(buf, len, "unknown (%.120s)", msg);
	return buf;
}

/* Plan diff context. */
struct pd {
	const struct profile *p;
	const struct node_config *ns;
	struct changeset *cs;
	struct fab_err *err;
	struct want *wants;	/* per hs->links[i] */
};

/* ---- bonds ---- */

static const char *bond_opts_str(const struct fab_bond *b, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
#define OPT(cond, ...) do { if ((cond) && off < len) off += (size_t)str_fmt(buf + off, len - off, __VA_ARGS__); } while (0)
	OPT(b->mode >= 0, "%smode %s", off ? " " : "", fab_bond_mode_name(b->mode));
	OPT(b->miimon_ms >= 0, "%smiimon %d", off ? " " : "", b->miimon_ms);
	OPT(b->lacp_rate >= 0, "%slacp_rate %s", off ? " " : "", fab_bond_lacp_name(b->lacp_rate));
	OPT(b->xmit_hash_policy >= 0, "%sxmit_hash_policy %s", off ? " " : "",
	    fab_bond_xmit_name(b->xmit_hash_policy));
	OPT(b->min_links >= 0, "%smin_links %d", off ? " " : "", b->min_links);
#undef OPT
	if (!buf[0])
		str_fmt(buf, len, "defaults");
	return buf;
}

static const char *members_str(const struct fab_bond *b, char *buf, size_t len)
{
	size_t off = 0;

	str_fmt(buf, len, "none");
	for (size_t i = 0; i < b->n_members && off < len; i++)
		off += (size_t)str_fmt(buf + off, len - off, "%s%s", i ? "," : "", b->members[i].name);
	return buf;
}

/* Option values as text into a 32-byte buffer; "unknown" for -1. */
static const char *opt_s(const char *name, int v, char *b)
{
	if (name)
		str_fmt(b, 32, "%s", name);
	else if (v < 0)
		str_fmt(b, 32, "unknown");
	else
		str_fmt(b, 32, "%d", v);
	return b;
}

static const char *mode_s(int v, char *b) { return opt_s(fab_bond_mode_name(v), v, b); }
static const char *lacp_s(int v, char *b) { return opt_s(fab_bond_lacp_name(v), v, b); }
static const char *xmit_s(int v, char *b) { return opt_s(fab_bond_xmit_name(v), v, b); }
static const char *num_s(int v, char *b) { return opt_s(NULL, v, b); }

/* One bond option: drift and the step's fields when it differs. */
static int bond_opt_one(struct pd *d, const char *bond, const char *label, int want, int cur,
			const char *(*fmt)(int, char *), int *act_v, int *undo_v, bool *any)
{
	char w[32], f[32];

	if (want < 0 || want == cur)
		return 0;
	*act_v = want;
	*undo_v = cur;
	*any = true;
	return drift_add(d->cs, bond, label, fmt(want, w), fmt(cur, f));
}

static int bond_opt_diff(struct pd *d, const struct fab_bond *want, const struct fab_bond *cur)
{
	struct change_action act = action(CHANGE_BOND_SET, want->name);
	struct change_action undo = action(CHANGE_BOND_SET, want->name);
	char from[128], to[128];
	bool any = false;

	str_fmt(act.bond.name, sizeof(act.bond.name), "%s", want->name);
	str_fmt(undo.bond.name, sizeof(undo.bond.name), "%s", want->name);
if (bond_opt_one(d, want->name, "mode", want->mode, cur->mode, mode_s,
			 &act.bond.mode, &undo.bond.mode, &any) < 0 ||
	    bond_opt_one(d, want->name, "miimon", want->miimon_ms, cur->miimon_ms, num_s,
			 &act.bond.miimon_ms, &undo.bond.miimon_ms, &any) < 0 ||
	    bond_opt_one(d, want->name, "lacp_rate", want->lacp_rate, cur->lacp_rate, lacp_s,
			 &act.bond.lacp_rate, &undo.bond.lacp_rate, &any) < 0 ||
	    bond_opt_one(d, want->name, "xmit_hash_policy", want->xmit_hash_policy,
			 cur->xmit_hash_policy, xmit_s, &act.bond.xmit_hash_policy,
			 &undo.bond.xmit_hash_policy, &any) < 0 ||
	    bond_opt_one(d, want->name, "min_links", want->min_links, cur->min_links, num_s,
			 &act.bond.min_links, &undo.bond.min_links, &any) < 0)
		return -ENOMEM;
	if (!any)
		return 0;
	return step_add(d->cs, &act, &undo, want->name, "options",
			bond_opts_str(&undo.bond, from, sizeof(from)),
			bond_opts_str(&act.bond, to, sizeof(to)));
}

/*
 * A dual-homed bond is only as good as its legs: every wanted member that
 * is enslaved must have its link up, and in 802.3ad all of them must sit in
 * the bond's one aggregator (a leg in another aggregator carries nothing:
 * its switch did not answer LACP, or answered for another LAG).  These are
 * drift without a step: apply cannot plug a cable back in.
 */
static int bond_health_drift(struct pd *d, const struct fab_bond *want, const struct fab_bond *cur)
{
	int agg = -1;
	char field[64];

	for (size_t m = 0; m < want->n_members; m++) {
		const struct fab_bond_member *bm = fab_bond_member_find(cur, want->members[m].name);

		if (!bm)
			continue;
		str_fmt(field, sizeof(field), "members.%s.link", bm->name);
		if (!bm->link_up && drift_add(d->cs, want->name, field, "up", "down") < 0)
			return -ENOMEM;
		/* The aggregator of the first member whose link is up is the bond's. */
		if (bm->link_up && agg < 0)
			agg = bm->ad_aggregator_id;
	}
	if (cur->mode != FAB_BOND_MODE_8023AD || agg < 0)
		return 0;
	for (size_t m = 0; m < want->n_members; m++) {
		const struct fab_bond_member *bm = fab_bond_member_find(cur, want->members[m].name);
		char w[32], f[32];

		if (!bm || !bm->link_up || bm->ad_aggregator_id < 0 || bm->ad_aggregator_id == agg)
			continue;
		str_fmt(field, sizeof(field), "members.%s.aggregator", bm->name);
		str_fmt(w, sizeof(w), "%d", agg);
		str_fmt(f, sizeof(f), "%d", bm->ad_aggregator_id);
		if (drift_add(d->cs, want->name, field, w, f) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int bond_health_diff(struct pd *d, const struct fab_bond *want, const struct fab_bond *cur)
{
	size_t from = d->cs->n_drift;
	int rc = bond_health_drift(d, want, cur);

	drift_verify_only(d->cs, from);
	return rc;
}

/* Enslaving @name (the step just added) fails when no such interface exists. */
static void member_check(struct pd *d, const char *name)
{
	char why[128];

	if (host_state_link_by_name(d->ns->hs, name))
		return;
	str_fmt(why, sizeof(why), "bond member %s: no such interface on this node", name);
	step_fails(d->cs, why);
}

static int bonds_diff(struct pd *d)
{
	for (size_t i = 0; i < d->p->n_bonds; i++) {
		const struct fab_bond *want = &d->p->bonds[i].want;
		const struct node_bond *nb = node_config_bond(d->ns, want->name);
		char wbuf[128], fbuf[128];

		if (!nb || nb->rc == 1)
			return fab_err_set(d->err, -EIO, "bond: %s: not read", want->name);
		if (nb->rc == -ENODEV) {
			struct change_action act = action(CHANGE_BOND_CREATE, want->name);
			struct change_action undo = action(CHANGE_BOND_DELETE, want->name);

			act.bond = *want;
			act.bond.members = NULL;
			act.bond.n_members = 0;
			if (drift_add(d->cs, want->name, "present", "yes", "no") < 0)
				return -ENOMEM;
			if (step_add(d->cs, &act, &undo, want->name, "bond", "absent",
				     bond_opts_str(want, wbuf, sizeof(wbuf))) < 0)
				return -ENOMEM;
			for (size_t m = 0; m < want->n_members; m++) {
				struct change_action e = action(CHANGE_BOND_ENSLAVE, want->name);
				struct change_action r = action(CHANGE_BOND_RELEASE, want->name);

				str_fmt(e.arg, sizeof(e.arg), "%s", want->members[m].name);
				str_fmt(r.arg, sizeof(r.arg), "%s", want->members[m].name);
				if (step_add(d->cs, &e, &r, want->name, "members", "-",
					     want->members[m].name) < 0)
					return -ENOMEM;
				member_check(d, want->members[m].name);
			}
			continue;
		}
		if (nb->rc < 0)
			return fab_err_set(d->err, nb->rc, "%s", nb->msg);
		if (bond_opt_diff(d, want, &nb->bond) < 0)
			return -ENOMEM;
		if (want->n_members) {
			bool differ = want->n_members != nb->bond.n_members;

			for (size_t m = 0; m < want->n_members; m++)
				differ |= !fab_bond_member_find(&nb->bond, want->members[m].name);
			if (differ)
				if (drift_add(d->cs, want->name, "members",
					      members_str(want, wbuf, sizeof(wbuf)),
					      members_str(&nb->bond, fbuf, sizeof(fbuf))) < 0)
					return -ENOMEM;
			for (size_t m = 0; m < nb->bond.n_members; m++) {
				const char *mn = nb->bond.members[m].name;
				struct change_action r = action(CHANGE_BOND_RELEASE, want->name);
				struct change_action e = action(CHANGE_BOND_ENSLAVE, want->name);

				if (fab_bond_member_find(want, mn))
					continue;
				str_fmt(r.arg, sizeof(r.arg), "%s", mn);
				str_fmt(e.arg, sizeof(e.arg), "%s", mn);
				if (step_add(d->cs, &r, &e, want->name, "members", mn, "-") < 0)
					return -ENOMEM;
			}
			for (size_t m = 0; m < want->n_members; m++) {
				const char *mn = want->members[m].name;
				struct change_action e = action(CHANGE_BOND_ENSLAVE, want->name);
				struct change_action r = action(CHANGE_BOND_RELEASE, want->name);

				if (fab_bond_member_find(&nb->bond, mn))
					continue;
				str_fmt(e.arg, sizeof(e.arg), "%s", mn);
				str_fmt(r.arg, sizeof(r.arg), "%s", mn);
				if (step_add(d->cs, &e, &r, want->name, "members", "-", mn) < 0)
					return -ENOMEM;
				member_check(d, mn);
			}
			if (bond_health_diff(d, want, &nb->bond) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* ---- per-interface phases ---- */

static int mtu_step(struct pd *d, const char *ifname, unsigned int want, unsigned int cur,
		    bool exists)
{
	struct change_action act = action(CHANGE_MTU_SET, ifname);
	struct change_action undo = action(CHANGE_MTU_SET, ifname);
	char w[16], f[16];

	str_fmt(w, sizeof(w), "%u", want);
	str_fmt(f, sizeof(f), exists ? "%u" : "absent", cur);
	if (exists && want == cur)
		return 0;
	act.u = want;
	undo.u = exists ? cur : 1500;
	if (drift_add(d->cs, ifname, "mtu", w, f) < 0)
		return -ENOMEM;
	return step_add(d->cs, &act, &undo, ifname, "mtu", f, w);
}

static int mtu_diff(struct pd *d)
{
	const struct host_state *hs = d->ns->hs;

	/* Bonds first: a bond's MTU propagates to its members. */
	for (size_t i = 0; i < d->p->n_bonds; i++) {
		const struct profile_bond *b = &d->p->bonds[i];
		const struct fab_link *l = host_state_link_by_name(hs, b->want.name);

		if (b->mtu)
			if (mtu_step(d, b->want.name, b->mtu, l ? l->mtu : 0, l != NULL) < 0)
				return -ENOMEM;
	}
	for (size_t i = 0; i < hs->n_links; i++)
		if (d->wants[i].mtu)
			if (mtu_step(d, hs->links[i].name, d->wants[i].mtu, hs->links[i].mtu, true) < 0)
				return -ENOMEM;
	return 0;
}

/*
 * Is DCB part @what readable on @ni?  Sets @why when not (the reason is
 * the read error, or "<part> not supported by driver").
 */
static bool dcb_part_ok(const struct node_iface *ni, bool supported, const char *what,
			char *why, size_t len)
{
	if (ni->dcb_rc < 0) {
		str_fmt(why, len, "%s", ni->dcb_msg);
		return false;
	}
	if (ni->dcb_rc > 0) {
		str_fmt(why, len, "dcb: %s: not read", ni->name);
		return false;
	}
	if (!supported) {
		str_fmt(why, len, "dcb: %s: %s not supported by driver", ni->name, what);
		return false;
	}
	return true;
}

/* Not readable because the driver lacks it (not a transient read error). */
static bool dcb_part_refused(const struct node_iface *ni, bool supported)
{
	return ni->dcb_rc == -EOPNOTSUPP || (ni->dcb_rc == 0 && !supported);
}

/* Step for a DCB part the driver refuses: added, marked certain to fail. */
static int dcb_step_add(struct pd *d, const struct node_iface *ni, bool supported,
			const char *why, const struct change_action *act, const char *object,
			const char *field, const char *to)
{
	if (step_add(d->cs, act, NULL, object, field, "unknown", to) < 0)
		return -ENOMEM;
	if (dcb_part_refused(ni, supported))
		step_fails(d->cs, why);
	return 0;
}

/* PFC unreadable: drift "unknown" for each wanted field, one step without undo. */
static int pfc_unknown(struct pd *d, const struct fab_link *l, const struct want *w,
		       const struct node_iface *ni, const char *why)
{
	struct change_action act = action(CHANGE_PFC_SET, l->name);
	char wb[64], db[16], fb[160];

	act.pfc.pfc_en = w->pfc_en;
	act.pfc.delay_bits = w->pfc_delay;
	prio_mask_str(w->pfc_en, wb, sizeof(wb));
	str_fmt(db, sizeof(db), "%u", w->pfc_delay);
	unknown_str(why, fb, sizeof(fb));
	if (w->has_pfc && drift_add(d->cs, l->name, "pfc.enable", wb, fb) < 0)
		return -ENOMEM;
	if (w->has_pfc_delay && drift_add(d->cs, l->name, "pfc.delay", db, fb) < 0)
		return -ENOMEM;
	return dcb_step_add(d, ni, ni->dcb.pfc_supported, why, &act, l->name,
			    w->has_pfc ? "pfc.enable" : "pfc.delay", w->has_pfc ? wb : db);
}

static int pfc_diff(struct pd *d, const struct fab_link *l, const struct want *w,
		    const struct node_iface *ni)
{
	const struct fab_dcb_pfc *cur = &ni->dcb.pfc;
	char why[256], wb[64], fb[64], from[80], to[80];
	struct change_action act = action(CHANGE_PFC_SET, l->name), undo;
	bool en, delay;

	if (!w->has_pfc && !w->has_pfc_delay)
		return 0;
	if (!dcb_part_ok(ni, ni->dcb.pfc_supported, "pfc", why, sizeof(why)))
		return pfc_unknown(d, l, w, ni, why);
	en = w->has_pfc && cur->pfc_en != w->pfc_en;
	delay = w->has_pfc_delay && cur->delay_bits != w->pfc_delay;
	if (!en && !delay)
		return 0;
	undo = action(CHANGE_PFC_SET, l->name);
	undo.pfc = *cur;
	act.pfc = *cur;
	if (en)
		act.pfc.pfc_en = w->pfc_en;
	if (delay)
		act.pfc.delay_bits = w->pfc_delay;
	prio_mask_str(w->pfc_en, wb, sizeof(wb));
	prio_mask_str(cur->pfc_en, fb, sizeof(fb));
	if (en && drift_add(d->cs, l->name, "pfc.enable", wb, fb) < 0)
		return -ENOMEM;
	str_fmt(from, sizeof(from), "%u", cur->delay_bits);
	str_fmt(to, sizeof(to), "%u", w->pfc_delay);
	if (delay && drift_add(d->cs, l->name, "pfc.delay", to, from) < 0)
		return -ENOMEM;
	if (!delay)
		return step_add(d->cs, &act, &undo, l->name, "pfc.enable", fb, wb);
	if (!en)
		return step_add(d->cs, &act, &undo, l->name, "pfc.delay", from, to);
	str_fmt(from, sizeof(from), "enable %s, delay %u", fb, cur->delay_bits);
	str_fmt(to, sizeof(to), "enable %s, delay %u", wb, w->pfc_delay);
	return step_add(d->cs, &act, &undo, l->name, "pfc", from, to);
}

static bool read_err_certain(int rc);

static const char *storm_str(unsigned int ms, char *buf, size_t len)
{
	if (ms == PROFILE_PFC_STORM_AUTO)
		str_fmt(buf, len, "auto");
	else if (!ms)
		str_fmt(buf, len, "off");
	else
		str_fmt(buf, len, "%u", ms);
	return buf;
}

/* The PFC storm prevention timeout (an ethtool tunable). */
static int pfc_storm_diff(struct pd *d, const struct fab_link *l, const struct want *w,
			  const struct node_iface *ni)
{
	struct change_action act = action(CHANGE_PFC_STORM_SET, l->name), undo;
	char wb[16], fb[300];
	bool known = ni->storm_rc == 0;

	if (w->pfc_storm < 0 || (known && ni->storm_ms == (unsigned int)w->pfc_storm))
		return 0;
	storm_str((unsigned int)w->pfc_storm, wb, sizeof(wb));
	if (known)
		storm_str(ni->storm_ms, fb, sizeof(fb));
	else
		unknown_str(ni->storm_rc > 0 ? "not read" : ni->storm_msg, fb, sizeof(fb));
	if (drift_add(d->cs, l->name, "pfc.storm_timeout_ms", wb, fb) < 0)
		return -ENOMEM;
	act.u = (unsigned int)w->pfc_storm;
	undo = act;
	undo.u = ni->storm_ms;
	if (step_add(d->cs, &act, known ? &undo : NULL, l->name, "pfc.storm_timeout_ms",
		     known ? fb : "unknown", wb) < 0)
		return -ENOMEM;
	if (!known && read_err_certain(ni->storm_rc))
		step_fails(d->cs, ni->storm_msg);
	return 0;
}

/* "a,b,c,..." of 8 numbers into @buf. */
static const char *u64list_str(const uint64_t *v, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < 8; i++) {
		size_t n = strlen(buf);

		str_fmt(buf + n, len - n, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
	}
	return buf;
}

/* Receive buffers: the mapping and/or the sizes; the other part stays as read. */
static int buffer_diff(struct pd *d, const struct fab_link *l, const struct want *w,
		       const struct node_iface *ni)
{
	const struct fab_dcb_buffer *cur = &ni->dcb.buffer;
	char why[256], wb[128], fb[160];
	struct change_action act = action(CHANGE_BUFFER_SET, l->name), undo;
	uint64_t cur_size[FAB_DCB_NBUF];
	bool map, size;

	if (!w->has_buf_prio && !w->has_buf_size)
		return 0;
	for (size_t i = 0; i < FAB_DCB_NBUF; i++)
		cur_size[i] = cur->buffer_size[i];
	act.buffer = *cur;
	if (w->has_buf_prio)
		memcpy(act.buffer.prio2buffer, w->buf_prio, sizeof(w->buf_prio));
	for (size_t i = 0; w->has_buf_size && i < FAB_DCB_NBUF; i++)
		act.buffer.buffer_size[i] = (uint32_t)w->buf_size[i];
	if (!dcb_part_ok(ni, ni->dcb.buffer_supported, "buffer", why, sizeof(why))) {
		unknown_str(why, fb, sizeof(fb));
		if (w->has_buf_prio &&
		    drift_add(d->cs, l->name, "buffer.prio_buffer",
			      u8list_str(w->buf_prio, 8, wb, sizeof(wb)), fb) < 0)
			return -ENOMEM;
		if (w->has_buf_size &&
		    drift_add(d->cs, l->name, "buffer.size", u64list_str(w->buf_size, wb, sizeof(wb)),
			      fb) < 0)
			return -ENOMEM;
		return dcb_step_add(d, ni, ni->dcb.buffer_supported, why, &act, l->name, "buffer",
				    "as profile");
	}
	map = w->has_buf_prio && memcmp(cur->prio2buffer, w->buf_prio, sizeof(w->buf_prio));
	size = w->has_buf_size && memcmp(cur_size, w->buf_size, sizeof(cur_size));
	if (map && drift_add(d->cs, l->name, "buffer.prio_buffer",
			     u8list_str(w->buf_prio, 8, wb, sizeof(wb)),
			     u8list_str(cur->prio2buffer, 8, fb, sizeof(fb))) < 0)
		return -ENOMEM;
	if (size && drift_add(d->cs, l->name, "buffer.size", u64list_str(w->buf_size, wb, sizeof(wb)),
			      u64list_str(cur_size, fb, sizeof(fb))) < 0)
		return -ENOMEM;
	if (!map && !size)
		return 0;
	undo = action(CHANGE_BUFFER_SET, l->name);
	undo.buffer = *cur;
	str_fmt(wb, sizeof(wb), "prio_buffer %s", u8list_str(cur->prio2buffer, 8, fb, sizeof(fb)));
	str_fmt(fb, sizeof(fb), "prio_buffer %s",
		u8list_str(act.buffer.prio2buffer, 8, why, sizeof(why)));
	return step_add(d->cs, &act, &undo, l->name, "buffer", wb, fb);
}

static int maxrate_diff(struct pd *d, const struct fab_link *l, const struct want *w,
			const struct node_iface *ni)
{
	char why[256], wb[200], fb[200];
	struct change_action act = action(CHANGE_MAXRATE_SET, l->name), undo;

	if (!w->has_maxrate)
		return 0;
	memcpy(act.maxrate, w->maxrate, sizeof(act.maxrate));
	u64list_str(w->maxrate, wb, sizeof(wb));
	if (!dcb_part_ok(ni, ni->dcb.maxrate_supported, "maxrate", why, sizeof(why))) {
		if (drift_add(d->cs, l->name, "maxrate_kbps", wb, unknown_str(why, fb, sizeof(fb))) < 0)
			return -ENOMEM;
		return dcb_step_add(d, ni, ni->dcb.maxrate_supported, why, &act, l->name,
				    "maxrate_kbps", wb);
	}
	if (!memcmp(ni->dcb.tc_maxrate_kbps, w->maxrate, sizeof(w->maxrate)))
		return 0;
	undo = action(CHANGE_MAXRATE_SET, l->name);
	memcpy(undo.maxrate, ni->dcb.tc_maxrate_kbps, sizeof(undo.maxrate));
	u64list_str(ni->dcb.tc_maxrate_kbps, fb, sizeof(fb));
	if (drift_add(d->cs, l->name, "maxrate_kbps", wb, fb) < 0)
		return -ENOMEM;
	return step_add(d->cs, &act, &undo, l->name, "maxrate_kbps", fb, wb);
}

static int ets_diff(struct pd *d, const struct fab_link *l, const struct want *w,
		    const struct node_iface *ni)
{
	char why[256], wb[128], fb[160], from[128], to[128];
	const struct fab_dcb_ets *cur = &ni->dcb.ets;
	struct change_action act = action(CHANGE_ETS_SET, l->name), undo;
	bool differ = false;

	if (!w->has_ets)
		return 0;
	act.ets.willing = false;
	memcpy(act.ets.prio_tc, w->prio_tc, sizeof(w->prio_tc));
	memcpy(act.ets.tc_tx_bw_pct, w->tc_bw, sizeof(w->tc_bw));
	memcpy(act.ets.tc_tsa, w->tsa, sizeof(w->tsa));
	str_fmt(to, sizeof(to), "prio_tc %s", u8list_str(w->prio_tc, 8, wb, sizeof(wb)));
	if (!dcb_part_ok(ni, ni->dcb.ets_supported, "ets", why, sizeof(why))) {
		unknown_str(why, fb, sizeof(fb));
		if (drift_add(d->cs, l->name, "ets.prio_tc", wb, fb) < 0)
			return -ENOMEM;
		if (drift_add(d->cs, l->name, "ets.tc_bw", u8list_str(w->tc_bw, 8, wb, sizeof(wb)), fb) < 0)
			return -ENOMEM;
		if (drift_add(d->cs, l->name, "ets.tsa", tsa_list_str(w->tsa, wb, sizeof(wb)), fb) < 0)
			return -ENOMEM;
		return dcb_step_add(d, ni, ni->dcb.ets_supported, why, &act, l->name, "ets", to);
	}
	if (memcmp(cur->prio_tc, w->prio_tc, 8)) {
		if (drift_add(d->cs, l->name, "ets.prio_tc", u8list_str(w->prio_tc, 8, wb, sizeof(wb)),
			      u8list_str(cur->prio_tc, 8, fb, sizeof(fb))) < 0)
			return -ENOMEM;
		differ = true;
	}
	if (memcmp(cur->tc_tx_bw_pct, w->tc_bw, 8)) {
		if (drift_add(d->cs, l->name, "ets.tc_bw", u8list_str(w->tc_bw, 8, wb, sizeof(wb)),
			      u8list_str(cur->tc_tx_bw_pct, 8, fb, sizeof(fb))) < 0)
			return -ENOMEM;
		differ = true;
	}
	if (memcmp(cur->tc_tsa, w->tsa, 8)) {
		if (drift_add(d->cs, l->name, "ets.tsa", tsa_list_str(w->tsa, wb, sizeof(wb)),
			      tsa_list_str(cur->tc_tsa, fb, sizeof(fb))) < 0)
			return -ENOMEM;
		differ = true;
	}
	if (!differ)
		return 0;
	undo = action(CHANGE_ETS_SET, l->name);
	undo.ets = *cur;
	act.ets = *cur;
	memcpy(act.ets.prio_tc, w->prio_tc, sizeof(w->prio_tc));
	memcpy(act.ets.tc_tx_bw_pct, w->tc_bw, sizeof(w->tc_bw));
	memcpy(act.ets.tc_tsa, w->tsa, sizeof(w->tsa));
	str_fmt(from, sizeof(from), "prio_tc %s", u8list_str(cur->prio_tc, 8, fb, sizeof(fb)));
	return step_add(d->cs, &act, &undo, l->name, "ets", from, to);
}

static int app_diff(struct pd *d, const struct fab_link *l, const struct want *w,
		    const struct node_iface *ni, bool del_phase)
{
	char why[256], field[32], wb[16], fb[160];
	bool ok;

	if (!w->n_apps)
		return 0;
	ok = dcb_part_ok(ni, ni->dcb.app_supported, "app table", why, sizeof(why));
	for (size_t i = 0; i < w->n_apps; i++) {
		const struct fab_dcb_app *a = &w->apps[i];
		struct change_action act, undo;
		bool exact = false, other = false;

		str_fmt(field, sizeof(field), "dscp_map.%u", a->protocol);
		str_fmt(wb, sizeof(wb), "%u", a->priority);
		if (!ok) {
			if (del_phase)
				continue;
			act = action(CHANGE_APP_ADD, l->name);
			act.app = *a;
			if (drift_add(d->cs, l->name, field, wb, unknown_str(why, fb, sizeof(fb))) < 0)
				return -ENOMEM;
			if (dcb_step_add(d, ni, ni->dcb.app_supported, why, &act, l->name, field, wb) < 0)
				return -ENOMEM;
			continue;
		}
		for (size_t j = 0; j < ni->dcb.n_apps; j++) {
			const struct fab_dcb_app *c = &ni->dcb.apps[j];

			if (c->selector != a->selector || c->protocol != a->protocol)
				continue;
			if (c->priority == a->priority)
				exact = true;
			else
				other = true;
		}
		if (del_phase) {
			/* Stale mappings of this DSCP to other priorities go first. */
			for (size_t j = 0; j < ni->dcb.n_apps; j++) {
				const struct fab_dcb_app *c = &ni->dcb.apps[j];
				char cb[16];

				if (c->selector != a->selector || c->protocol != a->protocol ||
				    c->priority == a->priority)
					continue;
				act = action(CHANGE_APP_DEL, l->name);
				undo = action(CHANGE_APP_ADD, l->name);
				act.app = undo.app = *c;
				str_fmt(cb, sizeof(cb), "%u", c->priority);
				if (step_add(d->cs, &act, &undo, l->name, field, cb, "-") < 0)
					return -ENOMEM;
			}
			continue;
		}
		if (exact && !other)
			continue;
		/* Drift: what the kernel maps this DSCP to now. */
		fb[0] = '\0';
		for (size_t j = 0, off = 0; j < ni->dcb.n_apps && off < sizeof(fb); j++) {
			const struct fab_dcb_app *c = &ni->dcb.apps[j];

			if (c->selector == a->selector && c->protocol == a->protocol)
				off += (size_t)str_fmt(fb + off, sizeof(fb) - off, "%s%u",
							off ? "," : "", c->priority);
		}
		if (drift_add(d->cs, l->name, field, wb, fb[0] ? fb : "none") < 0)
			return -ENOMEM;
		if (exact)
			continue;
		act = action(CHANGE_APP_ADD, l->name);
		undo = action(CHANGE_APP_DEL, l->name);
		act.app = undo.app = *a;
		if (step_add(d->cs, &act, &undo, l->name, field, "-", wb) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int trust_diff(struct pd *d, const struct fab_link *l, const struct want *w,
		      const struct node_iface *ni)
{
	char why[256], wb[96], fb[160];
	struct change_action act = action(CHANGE_TRUST_SET, l->name), undo;

	if (!w->has_trust)
		return 0;
	memcpy(act.trust, w->trust, sizeof(act.trust));
	act.n_trust = w->n_trust;
	sel_list_str(w->trust, w->n_trust, wb, sizeof(wb));
	if (!dcb_part_ok(ni, ni->dcb.trust_supported, "app-trust", why, sizeof(why))) {
		if (drift_add(d->cs, l->name, "trust", wb, unknown_str(why, fb, sizeof(fb))) < 0)
			return -ENOMEM;
		return dcb_step_add(d, ni, ni->dcb.trust_supported, why, &act, l->name, "trust", wb);
	}
	if (ni->dcb.n_trust == w->n_trust && !memcmp(ni->dcb.trust, w->trust, w->n_trust))
		return 0;
	undo = action(CHANGE_TRUST_SET, l->name);
	memcpy(undo.trust, ni->dcb.trust, sizeof(undo.trust));
	undo.n_trust = ni->dcb.n_trust;
	sel_list_str(ni->dcb.trust, ni->dcb.n_trust, fb, sizeof(fb));
	if (drift_add(d->cs, l->name, "trust", wb, fb) < 0)
		return -ENOMEM;
	return step_add(d->cs, &act, &undo, l->name, "trust", fb, wb);
}

/*
 * A read of a node part that failed in a way a write meets as well: the
 * driver lacks the part, the device or its file is not there, a directory
 * stands where the file should.  The steps that set it are certain to fail
 * (a dry run says so); any other read error leaves them unknown.
 */
static bool read_err_certain(int rc)
{
	return rc == -EOPNOTSUPP || rc == -ENODEV || rc == -ENOENT || rc == -EISDIR;
}

static int ecn_diff(struct pd *d, const struct fab_link *l, const struct want *w,
		    const struct node_iface *ni)
{
	static const char *const fields[] = { "ecn.np", "ecn.rp" };

	for (enum fab_ecn_point pt = FAB_ECN_NP; pt <= FAB_ECN_RP; pt++) {
		char wb[32], fb[160], field[32];
		bool known = ni->ecn_rc[pt] == 0;

		if (!w->has_ecn[pt])
			continue;
		prio_mask_str(w->ecn[pt], wb, sizeof(wb));
		if (!known)
			unknown_str(ni->ecn_rc[pt] > 0 ? "not read" : ni->ecn_msg[pt], fb, sizeof(fb));
		else if (ni->ecn[pt] == w->ecn[pt])
			continue;
		else
			prio_mask_str(ni->ecn[pt], fb, sizeof(fb));
		if (drift_add(d->cs, l->name, fields[pt], wb, fb) < 0)
			return -ENOMEM;
		for (unsigned int prio = 0; prio < FAB_DCB_NPRIO; prio++) {
			bool want_on = w->ecn[pt] & (1u << prio);
			bool cur_on = ni->ecn[pt] & (1u << prio);
			struct change_action act = action(CHANGE_ECN_SET, l->name), undo;

			if (known && want_on == cur_on)
				continue;
			/* Unknown state (not an mlx5 port?): only the priorities to enable. */
			if (!known && !want_on)
				continue;
			act.point = pt;
			act.u = prio;
			act.on = want_on;
			undo = act;
			undo.on = !want_on;
			str_fmt(field, sizeof(field), "%s.%u", fields[pt], prio);
			if (step_add(d->cs, &act, known ? &undo : NULL, l->name, field,
				     known ? (cur_on ? "on" : "off") : "unknown", want_on ? "on" : "off") < 0)
				return -ENOMEM;
			if (read_err_certain(ni->ecn_rc[pt]))
				step_fails(d->cs, ni->ecn_msg[pt]);
		}
	}
	return 0;
}

/* One step per DCQCN parameter that differs; verify drift "dcqcn.<key>". */
static int dcqcn_diff(struct pd *d, const struct fab_link *l, const struct want *w,
		      const struct node_iface *ni)
{
	for (int i = 0; i < DCQCN_N; i++) {
		struct change_action act = action(CHANGE_DCQCN_SET, l->name), undo;
		char field[48], wb[16], fb[300];
		bool known = ni->dcqcn_rc == 0 && ni->dcqcn.have[i];

		if (!w->has_dcqcn[i] || (known && ni->dcqcn.val[i] == w->dcqcn[i]))
			continue;
		str_fmt(field, sizeof(field), "dcqcn.%s", dcqcn_params[i].key);
		str_fmt(wb, sizeof(wb), "%u", w->dcqcn[i]);
		if (known)
			str_fmt(fb, sizeof(fb), "%u", ni->dcqcn.val[i]);
		else if (ni->dcqcn_rc == 0)
			str_fmt(fb, sizeof(fb), "unknown (not in %s)", dcqcn_layout_name(ni->dcqcn.layout));
		else
			unknown_str(ni->dcqcn_rc > 0 ? "not read" : ni->dcqcn_msg, fb, sizeof(fb));
		if (drift_add(d->cs, l->name, field, wb, fb) < 0)
			return -ENOMEM;
		act.port = (unsigned int)i;
		act.val = w->dcqcn[i];
		undo = act;
		undo.val = ni->dcqcn.val[i];
		if (step_add(d->cs, &act, known ? &undo : NULL, l->name, field,
			     known ? fb : "unknown", wb) < 0)
			return -ENOMEM;
		if (!known && (ni->dcqcn_rc == 0 || read_err_certain(ni->dcqcn_rc)))
			step_fails(d->cs, ni->dcqcn_rc == 0 ? "dcqcn: parameter not in this driver's layout"
							    : ni->dcqcn_msg);
	}
	return 0;
}

static int tos_diff(struct pd *d, const struct fab_link *l, const struct want *w,
		    const struct node_iface *ni)
{
	char wb[16], fb[160], obj[80];
	struct change_action act, undo;

	if (w->tos < 0)
		return 0;
	str_fmt(wb, sizeof(wb), "%d", w->tos);
	if (!ni->rdma_dev[0]) {
		act = action(CHANGE_FAIL, l->name);
		act.errno_ = -EOPNOTSUPP;
		str_fmt(act.msg, sizeof(act.msg),
			 "roce: %s: no rdma device on this netdev (roce.tos needs one)", l->name);
		if (drift_add(d->cs, l->name, "roce.tos", wb, "no rdma device") < 0)
			return -ENOMEM;
		if (step_add(d->cs, &act, NULL, l->name, "roce.tos", "no rdma device", wb) < 0)
			return -ENOMEM;
		step_fails(d->cs, act.msg);
		return 0;
	}
	str_fmt(obj, sizeof(obj), "%s/%u", ni->rdma_dev, ni->rdma_port);
	act = action(CHANGE_TOS_SET, ni->rdma_dev);
	act.port = ni->rdma_port;
	act.u = (unsigned int)w->tos;
	if (ni->tos_rc != 0) {
		unknown_str(ni->tos_rc > 0 ? "not read" : ni->tos_msg, fb, sizeof(fb));
		if (drift_add(d->cs, l->name, "roce.tos", wb, fb) < 0)
			return -ENOMEM;
		if (step_add(d->cs, &act, NULL, obj, "roce.tos", "unknown", wb) < 0)
			return -ENOMEM;
		if (read_err_certain(ni->tos_rc))
			step_fails(d->cs, ni->tos_msg);
		return 0;
	}
	if (ni->tos == (unsigned int)w->tos)
		return 0;
	undo = act;
	undo.u = ni->tos;
	str_fmt(fb, sizeof(fb), "%u", ni->tos);
	if (drift_add(d->cs, l->name, "roce.tos", wb, fb) < 0)
		return -ENOMEM;
	return step_add(d->cs, &act, &undo, obj, "roce.tos", fb, wb);
}

/* Verify only. */
static int roce_mtu_check(struct pd *d, const struct fab_link *l, const struct want *w,
			  const struct node_iface *ni)
{
	char wb[16], fb[32];
	size_t from = d->cs->n_drift;

	if (!w->roce_mtu)
		return 0;
	str_fmt(wb, sizeof(wb), "%u", w->roce_mtu);
	if (!ni || !ni->rdma_dev[0])
		str_fmt(fb, sizeof(fb), "no rdma device");
	else if (ni->roce_active_mtu == w->roce_mtu)
		return 0;
	else
		str_fmt(fb, sizeof(fb), ni->roce_active_mtu ? "%u" : "unknown", ni->roce_active_mtu);
	if (drift_add(d->cs, l->name, "roce.mtu", wb, fb) < 0)
		return -ENOMEM;
	drift_verify_only(d->cs, from);
	return 0;
}

static int ib_check(struct pd *d)
{
	const struct host_state *hs = d->ns->hs;

	for (size_t i = 0; i < d->p->n_ib; i++) {
		const struct profile_ib *ib = &d->p->ib[i];
		size_t found = 0, from = d->cs->n_drift;
		char buf[300], obj[80];

		for (size_t r = 0; r < hs->n_rdma; r++) {
			const struct fab_rdma_dev *dev = &hs->rdma[r];

			if (!profile_ib_matches(ib, dev->name))
				continue;
			for (size_t k = 0; k < dev->n_ports; k++) {
				const struct fab_rdma_port *pt = &dev->ports[k];

				if (ib->port && pt->port != ib->port)
					continue;
				found++;
				str_fmt(obj, sizeof(obj), "%s/%u", dev->name, pt->port);
				if (drift_str(d->cs, obj, "state", ib->state, pt->state) < 0 ||
				    drift_str(d->cs, obj, "phys_state", ib->phys_state, pt->phys_state) < 0 ||
				    drift_uint(d->cs, obj, "width", ib->width_x, pt->width_x, "X") < 0 ||
				    drift_str(d->cs, obj, "speed", ib->speed, pt->speed) < 0 ||
				    drift_uint(d->cs, obj, "active_mtu", ib->active_mtu, pt->active_mtu, "") < 0)
					return -ENOMEM;
			}
		}
		drift_verify_only(d->cs, from);	/* apply sets no IB port state */
		if (!found && !ib->optional) {
			d->cs->n_unmatched++;
			profile_match_str(ib->match, ib->n_match, buf, sizeof(buf));
			if (drift_add(d->cs, buf, "match", "an rdma port", "none") < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int changeset_diff(const struct profile *p, const struct node_config *ns, struct changeset *cs,
	      struct fab_err *err)
{
	const struct host_state *hs = ns->hs;
	struct pd d = { .p = p, .ns = ns, .cs = cs, .err = err };
	static const struct node_iface none = { .dcb_rc = 1, .ecn_rc = { 1, 1 }, .tos_rc = 1,
						.dcqcn_rc = 1, .storm_rc = 1 };
	int rc = 0;

	d.wants = calloc(hs->n_links ? hs->n_links : 1, sizeof(*d.wants));
	if (!d.wants)
		return fab_err_set(err, -ENOMEM, "plan: out of memory");
	for (size_t i = 0; i < hs->n_links; i++)
		want_for_link(p, &hs->links[i], &d.wants[i]);
	/* Items that match no interface. */
	for (size_t i = 0; i < p->n_ifaces; i++) {
		const struct profile_iface *f = &p->ifaces[i];
		bool hit = false;
		char buf[300];

		for (size_t j = 0; j < hs->n_links && !hit; j++)
			hit = profile_iface_matches(f, hs->links[j].name, hs->links[j].driver,
						    hs->links[j].kind);
		if (hit || f->optional)
			continue;
		cs->n_unmatched++;
		profile_match_str(f->match, f->n_match, buf, sizeof(buf));
		if (f->driver[0])
			str_fmt(buf + strlen(buf), sizeof(buf) - strlen(buf), " driver %s", f->driver);
		if (f->kind[0])
			str_fmt(buf + strlen(buf), sizeof(buf) - strlen(buf), " kind %s", f->kind);
		rc = drift_add(cs, buf, "match", "an interface", "none");
		if (rc < 0)
			goto nomem;
	}
	rc = bonds_diff(&d);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc < 0)
		goto out;
	rc = mtu_diff(&d);
	if (rc < 0)
		goto nomem;
	/*
	 * One phase at a time over every interface: PFC before the buffers,
	 * then ETS and the TCs' max rates, then APP, then trust.
	 */
	for (int phase = 0; phase < 10; phase++) {
		for (size_t i = 0; i < hs->n_links; i++) {
			const struct fab_link *l = &hs->links[i];
			const struct want *w = &d.wants[i];
			const struct node_iface *ni = node_config_iface(ns, l->name);

			if (!w->matched)
				continue;
			if (!ni)
				ni = &none;
			switch (phase) {
			case 0:
				rc = pfc_diff(&d, l, w, ni);
				if (rc == 0)
					rc = pfc_storm_diff(&d, l, w, ni);
				break;
			case 1: rc = buffer_diff(&d, l, w, ni); break;
			case 2: rc = ets_diff(&d, l, w, ni); break;
			case 3: rc = maxrate_diff(&d, l, w, ni); break;
			case 4: rc = app_diff(&d, l, w, ni, true); break;
			case 5: rc = app_diff(&d, l, w, ni, false); break;
			case 6: rc = trust_diff(&d, l, w, ni); break;
			case 7: rc = ecn_diff(&d, l, w, ni); break;
			case 8: rc = dcqcn_diff(&d, l, w, ni); break;
			default:
				rc = tos_diff(&d, l, w, ni);
				if (rc == 0)
					rc = roce_mtu_check(&d, l, w, ni);
				break;
			}
			if (rc < 0)
				goto nomem;
		}
	}
	rc = ib_check(&d);
	if (rc == 0)
		rc = changeset_nic_check(p, hs->pcie, cs);
	if (rc < 0)
		goto nomem;
	goto out;
nomem:
	rc = fab_err_set(err, rc, "plan: out of memory");
out:
	free(d.wants);
	return rc;
}

/* ---- text of an action ---- */

static const char *const op_names[] = {
	[CHANGE_BOND_CREATE] = "bond-create", [CHANGE_BOND_DELETE] = "bond-delete",
	[CHANGE_BOND_SET] = "bond-set", [CHANGE_BOND_ENSLAVE] = "bond-enslave",
	[CHANGE_BOND_RELEASE] = "bond-release", [CHANGE_MTU_SET] = "mtu",
	[CHANGE_PFC_SET] = "pfc", [CHANGE_ETS_SET] = "ets", [CHANGE_APP_DEL] = "app-del",
	[CHANGE_APP_ADD] = "app-add", [CHANGE_TRUST_SET] = "trust", [CHANGE_ECN_SET] = "ecn",
	[CHANGE_TOS_SET] = "roce-tos", [CHANGE_FAIL] = "fail",
	[CHANGE_MAXRATE_SET] = "maxrate", [CHANGE_BUFFER_SET] = "buffer",
	[CHANGE_DCQCN_SET] = "dcqcn", [CHANGE_PFC_STORM_SET] = "pfc-storm",
};
#define N_OPS ((int)ARRAY_SIZE(op_names))

const char *change_action_str(const struct change_action *a, char *buf, size_t len)
{
	char x[128];
	const char *op = (int)a->op >= 0 && (int)a->op < N_OPS ? op_names[a->op] : "?";

	switch (a->op) {
	case CHANGE_BOND_CREATE:
	case CHANGE_BOND_SET:
		str_fmt(buf, len, "%s %s %s", op, a->obj, bond_opts_str(&a->bond, x, sizeof(x)));
		break;
	case CHANGE_BOND_ENSLAVE:
	case CHANGE_BOND_RELEASE:
		str_fmt(buf, len, "%s %s %s", op, a->obj, a->arg);
		break;
	case CHANGE_MTU_SET:
		str_fmt(buf, len, "%s %s %u", op, a->obj, a->u);
		break;
	case CHANGE_PFC_SET:
		str_fmt(buf, len, "%s %s enable %s", op, a->obj,
			 prio_mask_str(a->pfc.pfc_en, x, sizeof(x)));
		break;
	case CHANGE_ETS_SET:
		str_fmt(buf, len, "%s %s prio_tc %s", op, a->obj, u8list_str(a->ets.prio_tc, 8, x, sizeof(x)));
		break;
	case CHANGE_MAXRATE_SET:
		str_fmt(buf, len, "%s %s %s kbit/s", op, a->obj, u64list_str(a->maxrate, x, sizeof(x)));
		break;
	case CHANGE_BUFFER_SET:
		str_fmt(buf, len, "%s %s prio_buffer %s", op, a->obj,
			u8list_str(a->buffer.prio2buffer, 8, x, sizeof(x)));
		break;
	case CHANGE_PFC_STORM_SET:
		str_fmt(buf, len, "%s %s %s", op, a->obj, storm_str(a->u, x, sizeof(x)));
		break;
	case CHANGE_DCQCN_SET:
		str_fmt(buf, len, "%s %s %s %u", op, a->obj,
			a->port < DCQCN_N ? dcqcn_params[a->port].key : "?", a->val);
		break;
	case CHANGE_APP_DEL:
	case CHANGE_APP_ADD:
		str_fmt(buf, len, "%s %s %s %u prio %u", op, a->obj,
			 fab_dcb_sel_name(a->app.selector) ? fab_dcb_sel_name(a->app.selector) : "?",
			 a->app.protocol, a->app.priority);
		break;
	case CHANGE_TRUST_SET:
		str_fmt(buf, len, "%s %s %s", op, a->obj, sel_list_str(a->trust, a->n_trust, x, sizeof(x)));
		break;
	case CHANGE_ECN_SET:
		str_fmt(buf, len, "%s %s %s prio %u %s", op, a->obj, a->point ? "rp" : "np", a->u,
			 a->on ? "on" : "off");
		break;
	case CHANGE_TOS_SET:
		str_fmt(buf, len, "%s %s/%u %u", op, a->obj, a->port, a->u);
		break;
	default:
		str_fmt(buf, len, "%s %s", op, a->obj);
		break;
	}
	return buf;
}

const char *change_op_name(enum change_op op)
{
	return (int)op >= 0 && (int)op < N_OPS ? op_names[op] : NULL;
}

int change_op_parse(const char *name)
{
	for (int i = 0; i < N_OPS; i++)
		if (op_names[i] && !strcmp(op_names[i], name))
			return i;
	return -1;
}
