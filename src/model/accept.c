// SPDX-License-Identifier: GPL-2.0-or-later
/* accept: stages, findings, verdict, policy, cabling and pair picking; see accept.h. */
#include <errno.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "model/accept.h"
#include "model/ib_checks.h"
#include "model/coverage.h"
#include "model/yaml_walk.h"
#include "util/array.h"
#include "util/str.h"

static const char *const stage_names[ACCEPT_ST_N] = {
	"reach", "configuration", "cabling", "counters-baseline", "traffic", "counters-after",
};

static const char *const code_names[FAB_CODE_N] = {
	[FAB_REACH_NO_WORKER] = "FAB-REACH-NO-WORKER",
	[FAB_REACH_VERSION] = "FAB-REACH-VERSION",
	[FAB_REACH_PORT_DOWN] = "FAB-REACH-PORT-DOWN",
	[FAB_REACH_PORT_DEGRADED] = "FAB-REACH-PORT-DEGRADED",
	[FAB_REACH_PORT_UNREAD] = "FAB-REACH-PORT-UNREAD",
	[FAB_CONFIG_DRIFT] = "FAB-CONFIG-DRIFT",
	[FAB_CONFIG_UNREAD] = "FAB-CONFIG-UNREAD",
	[FAB_CABLE_MISSING] = "FAB-CABLE-MISSING",
	[FAB_CABLE_MISWIRED] = "FAB-CABLE-MISWIRED",
	[FAB_CABLE_UNEXPECTED] = "FAB-CABLE-UNEXPECTED",
	[FAB_CABLE_DEGRADED] = "FAB-CABLE-DEGRADED",
	[FAB_CABLE_DOWN] = "FAB-CABLE-DOWN",
	[FAB_CABLE_ERRORS] = "FAB-CABLE-ERRORS",
	[FAB_CABLE_MTU] = "FAB-CABLE-MTU",
	[FAB_CABLE_RAIL] = "FAB-CABLE-RAIL",
	[FAB_CABLE_SINGLE_HOMED] = "FAB-CABLE-SINGLE-HOMED",
	[FAB_CABLE_ROUTE] = "FAB-CABLE-ROUTE",
	[FAB_CABLE_ID] = "FAB-CABLE-ID",
	[FAB_CABLE_UNREAD] = "FAB-CABLE-UNREAD",
	[FAB_TRAFFIC_SLOW_LINK] = "FAB-TRAFFIC-SLOW-LINK",
	[FAB_TRAFFIC_SLOW_NODE] = "FAB-TRAFFIC-SLOW-NODE",
	[FAB_TRAFFIC_SLOW_PAIR] = "FAB-TRAFFIC-SLOW-PAIR",
	[FAB_TRAFFIC_FAILED] = "FAB-TRAFFIC-FAILED",
	[FAB_TRAFFIC_LATENCY] = "FAB-TRAFFIC-LATENCY",
	[FAB_TRAFFIC_LEG] = "FAB-TRAFFIC-LEG",
	[FAB_TRAFFIC_LEG_UNREAD] = "FAB-TRAFFIC-LEG-UNREAD",
	[FAB_COUNTER_ERRORS] = "FAB-COUNTER-ERRORS",
	[FAB_COUNTER_WARN] = "FAB-COUNTER-WARN",
	[FAB_COUNTER_UNREAD] = "FAB-COUNTER-UNREAD",
	[FAB_COUNTER_OPTICS_FAILING] = "FAB-COUNTER-OPTICS-FAILING",
	[FAB_COUNTER_OPTICS_MARGINAL] = "FAB-COUNTER-OPTICS-MARGINAL",
};

const char *accept_stage_name(enum accept_stage s)
{
	return (unsigned int)s < ACCEPT_ST_N ? stage_names[s] : "unknown";
}

const char *accept_status_name(enum accept_status s)
{
	switch (s) {
	case ACCEPT_PASSED:
		return "passed";
	case ACCEPT_FAILED:
		return "failed";
	case ACCEPT_SKIPPED:
		return "skipped";
	case ACCEPT_BLOCKED:
		return "blocked";
	default:
		return "not-run";
	}
}

const char *accept_code_name(enum accept_code c)
{
	return (unsigned int)c < FAB_CODE_N ? code_names[c] : NULL;
}

void accept_report_init(struct accept_report *r)
{
	memset(r, 0, sizeof(*r));
}

void accept_report_fini(struct accept_report *r)
{
	free(r->findings);
	free(r->nodes);
	memset(r, 0, sizeof(*r));
}

int accept_finding_add(struct accept_report *r, enum accept_stage stage, enum accept_code code,
		       const char *node, const char *link, const char *fmt, ...)
{
	struct accept_finding *f;
	va_list ap;

	if (array_reserve((void **)&r->findings, &r->cap, r->n_findings + 1,
			  sizeof(*r->findings)) < 0)
		return -ENOMEM;
	f = &r->findings[r->n_findings++];
	memset(f, 0, sizeof(*f));
	f->stage = stage;
	f->code = code;
	str_fmt(f->node, sizeof(f->node), "%s", node ? node : "");
	str_fmt(f->link, sizeof(f->link), "%s", link ? link : "");
	va_start(ap, fmt);
	str_vfmt(f->evidence, sizeof(f->evidence), fmt, ap);
	va_end(ap);
	return 0;
}

int accept_node_add(struct accept_report *r, const char *name, bool is_new, bool endpoint,
		    bool reached)
{
	struct accept_node *n = array_add((void **)&r->nodes, &r->n_nodes, sizeof(*n));

	if (!n)
		return -ENOMEM;
	str_fmt(n->name, sizeof(n->name), "%s", name);
	n->is_new = is_new;
	n->endpoint = endpoint;
	n->reached = reached;
	return 0;
}

size_t accept_stage_findings(const struct accept_report *r, enum accept_stage s)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n_findings; i++)
		n += r->findings[i].stage == s;
	return n;
}

void accept_stage_set(struct accept_report *r, enum accept_stage s, enum accept_status st,
		      const char *fmt, ...)
{
	va_list ap;

	r->st[s].status = st;
	va_start(ap, fmt);
	str_vfmt(r->st[s].note, sizeof(r->st[s].note), fmt, ap);
	va_end(ap);
}

/* Bit d of deps[s]: stage s depends on stage d. */
static const unsigned int stage_deps[ACCEPT_ST_N] = {
	[ACCEPT_ST_REACH] = 0,
	[ACCEPT_ST_CONFIG] = 1u << ACCEPT_ST_REACH,
	[ACCEPT_ST_CABLING] = 1u << ACCEPT_ST_REACH,
	[ACCEPT_ST_COUNTERS_BASE] = 1u << ACCEPT_ST_REACH,
	[ACCEPT_ST_TRAFFIC] = 1u << ACCEPT_ST_REACH | 1u << ACCEPT_ST_CONFIG |
			      1u << ACCEPT_ST_CABLING,
	[ACCEPT_ST_COUNTERS_AFTER] = 1u << ACCEPT_ST_COUNTERS_BASE | 1u << ACCEPT_ST_TRAFFIC,
};

int accept_stage_blocker(const struct accept_report *r, enum accept_stage s)
{
	for (int d = 0; d < ACCEPT_ST_N; d++)
		if ((stage_deps[s] & (1u << d)) &&
		    (r->st[d].status == ACCEPT_FAILED || r->st[d].status == ACCEPT_BLOCKED))
			return d;
	return -1;
}

bool accept_verdict(struct accept_report *r)
{
	bool ok = r->n_findings == 0;

	for (int s = 0; s < ACCEPT_ST_N; s++)
		if (r->st[s].status == ACCEPT_FAILED || r->st[s].status == ACCEPT_BLOCKED)
			ok = false;
	r->accept = ok;
	return ok;
}

/* ---- policy ---- */

void accept_policy_default(struct accept_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->pct_expected = ACCEPT_PCT_DEFAULT;
	p->coverage_k = ACCEPT_K_DEFAULT;
	p->leg_pct = 80;	/* as sweep's --slow-pct for its legs */
	for (int s = 0; s < ACCEPT_ST_N; s++)
		p->stage_on[s] = true;
	counter_policy_default(&p->counters);
}

struct pol_walk {
	const struct yaml_walk *w;
	struct accept_policy *p;
};

static const char *const optics_keys[] = { "marginal", NULL };

/* Stage keys: the stage names, in order. */
static const char *const stage_keys[] = {
	"reach", "configuration", "cabling", "counters-baseline", "traffic", "counters-after",
	NULL,
};

static int stage_key(void *arg, int key, yaml_node_t *k, yaml_node_t *v)
{
	struct pol_walk *pw = arg;

	(void)k;
	return yw_bool(pw->w, v, stage_keys[key], &pw->p->stage_on[key]);
}

/* optics: {marginal: reject | note} (docs/accept.md "Policy"). */
static int optics_key(void *arg, int key, yaml_node_t *k, yaml_node_t *v)
{
	struct pol_walk *pw = arg;
	char val[16];

	(void)key;
	(void)k;
	if (yw_str(pw->w, v, "optics: marginal", val, sizeof(val)) < 0)
		return -EINVAL;
	if (strcmp(val, "reject") != 0 && strcmp(val, "note") != 0)
		return yw_err(pw->w, v, "optics: marginal: '%s' is not reject or note", val);
	pw->p->optics_marginal_note = strcmp(val, "note") == 0;
	return 0;
}

static int root_key(void *arg, int key, yaml_node_t *k, yaml_node_t *v)
{
	struct pol_walk *pw = arg;

	(void)k;
	switch (key) {
	case 0:
		return yw_uint(pw->w, v, "pct_expected", 10, ACCEPT_PCT_FLOOR, 100,
			       &pw->p->pct_expected);
	case 1:
		return yw_uint(pw->w, v, "coverage", 10, 1, 64, &pw->p->coverage_k);
	case 2:
		return yw_map(pw->w, v, "stages", stage_keys, stage_key, pw);
	case 3:
		return yw_uint(pw->w, v, "latency_p99_us", 10, 0, 10000000, &pw->p->lat_p99_us);
	case 4:
		return yw_uint(pw->w, v, "port_rate_gbps", 10, 0, 1000000, &pw->p->port_rate_gbps);
	case 5:
		return yw_map(pw->w, v, "optics", optics_keys, optics_key, pw);
	case 6:
		return yw_uint(pw->w, v, "leg_pct", 10, 10, 100, &pw->p->leg_pct);
	default:
		return counter_policy_walk(&pw->p->counters, pw->w, v);
	}
}

int accept_policy_parse(struct accept_policy *p, const char *buf, size_t len, const char *fname,
			struct fab_err *err)
{
	static const char *const root_keys[] = {
		"pct_expected", "coverage", "stages", "latency_p99_us", "port_rate_gbps", "optics",
		"leg_pct", "counters", NULL,
	};
	struct yaml_walk w = { .fname = fname, .err = err };
	struct pol_walk pw = { .w = &w, .p = p };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int rc;

	accept_policy_default(p);
	rc = yw_load(&w, &parser, &doc, buf, len);
	if (rc < 0)
		return rc;
	root = yaml_document_get_root_node(&doc);
	rc = root ? yw_map(&w, root, "policy", root_keys, root_key, &pw) : 0;	/* empty: defaults */
	yw_unload(&parser, &doc);
	return rc;
}

/* ---- reach: fabric ports ---- */

enum port_role {
	ROLE_NONE = 0,
	ROLE_DATAPATH,		/* the data-path interface */
	ROLE_DP_MEMBER,		/* a member of the data-path bond */
	ROLE_PROFILE,		/* named by a profile `interfaces:` item */
	ROLE_PROFILE_BOND,	/* a bond of the profile */
	ROLE_PROFILE_MEMBER,	/* a member of one */
	ROLE_ROCE,		/* RDMA: on one of the interfaces above */
	ROLE_RDMA_LABEL,	/* RDMA: rdma=DEV[:PORT] */
	ROLE_PROFILE_IB,	/* RDMA: an `infiniband:` item */
};

/* Which of a host's interfaces and RDMA ports are judged, and why. */
struct port_sel {
	unsigned char *link;		/* per hs->links[i]: enum port_role */
	unsigned char *port;		/* per RDMA port, devices in order, flattened */
	size_t n_ports;
	char missing[256];		/* rdma= naming what the host lacks, "" */
};

static bool is_datapath(const struct accept_port_want *w, const char *name)
{
	return w->datapath && w->datapath[0] && strcmp(w->datapath, name) == 0;
}

static void mark_link(struct port_sel *ps, const struct host_state *hs, const char *name,
		      enum port_role role)
{
	for (size_t i = 0; i < hs->n_links; i++)
		if (strcmp(hs->links[i].name, name) == 0 && ps->link[i] == ROLE_NONE)
			ps->link[i] = (unsigned char)role;
}

static void select_links(struct port_sel *ps, const struct host_state *hs,
			 const struct accept_port_want *w)
{
	const struct profile *p = w->profile;
	bool dp_bond = false;

	for (size_t i = 0; i < hs->n_links; i++)
		if (is_datapath(w, hs->links[i].name)) {
			ps->link[i] = ROLE_DATAPATH;
			dp_bond = strcmp(hs->links[i].kind, "bond") == 0;
		}
	/* A bond's members carry the data path; a bridge's ports need not (taps, VMs). */
	for (size_t i = 0; dp_bond && i < hs->n_links; i++)
		if (ps->link[i] == ROLE_NONE && strcmp(hs->links[i].master, w->datapath) == 0)
			ps->link[i] = ROLE_DP_MEMBER;
	for (size_t i = 0; p && i < hs->n_links; i++) {
		const struct fab_link *l = &hs->links[i];

		for (size_t k = 0; k < p->n_ifaces && ps->link[i] == ROLE_NONE; k++)
			if (p->ifaces[k].n_match && !p->ifaces[k].optional &&
			    strcmp(l->name, "lo") != 0 &&
			    profile_iface_matches(&p->ifaces[k], l->name, l->driver, l->kind))
				ps->link[i] = ROLE_PROFILE;
	}
	for (size_t b = 0; p && b < p->n_bonds; b++) {
		const struct fab_bond *bond = &p->bonds[b].want;

		mark_link(ps, hs, bond->name, ROLE_PROFILE_BOND);
		for (size_t m = 0; m < bond->n_members; m++)
			mark_link(ps, hs, bond->members[m].name, ROLE_PROFILE_MEMBER);
	}
}

static bool rdma_port_up(const struct fab_rdma_port *pt)
{
	return strcasecmp(pt->state, "ACTIVE") == 0 &&
	       (!pt->phys_state[0] || strcasecmp(pt->phys_state, "LINK_UP") == 0);
}

static bool link_judged(const struct port_sel *ps, const struct host_state *hs, const char *name)
{
	for (size_t i = 0; name[0] && i < hs->n_links; i++)
		if (ps->link[i] != ROLE_NONE && strcmp(hs->links[i].name, name) == 0)
			return true;
	return false;
}

/* rdma=DEV[:PORT]: the port judged (flat index), or SIZE_MAX with ps->missing said. */
static size_t label_port(struct port_sel *ps, const struct host_state *hs,
			 const struct accept_port_want *w)
{
	size_t k = 0, off = 0;
	char names[160] = "";

	for (size_t d = 0; d < hs->n_rdma; d++) {
		const struct fab_rdma_dev *dev = &hs->rdma[d];

		if (strcmp(dev->name, w->rdma) != 0) {
			k += dev->n_ports;
			if (off < sizeof(names))
				off += (size_t)str_fmt(names + off, sizeof(names) - off, "%s%s",
						       off ? ", " : "", dev->name);
			continue;
		}
		for (size_t j = 0; j < dev->n_ports; j++)
			if (w->rdma_port ? dev->ports[j].port == w->rdma_port
					 : rdma_port_up(&dev->ports[j]))
				return k + j;
		if (!w->rdma_port && dev->n_ports)
			return k;	/* none ACTIVE: the first port, judged down */
		if (w->rdma_port)
			str_fmt(ps->missing, sizeof(ps->missing), "rdma=%s:%u: %s has no port %u",
				w->rdma, w->rdma_port, w->rdma, w->rdma_port);
		else
			str_fmt(ps->missing, sizeof(ps->missing), "rdma=%s: %s has no port", w->rdma,
				w->rdma);
		return SIZE_MAX;
	}
	str_fmt(ps->missing, sizeof(ps->missing), "rdma=%s: no such RDMA device (the host has %s)",
		w->rdma, names[0] ? names : "none");
	return SIZE_MAX;
}

static bool ib_item_matches(const struct profile_ib *ib, const struct fab_rdma_dev *dev,
			    const struct fab_rdma_port *pt)
{
	return profile_ib_matches(ib, dev->name) && (!ib->port || ib->port == pt->port);
}

static void select_ports(struct port_sel *ps, const struct host_state *hs,
			 const struct accept_port_want *w)
{
	const struct profile *p = w->profile;
	size_t k = 0, lab = SIZE_MAX;

	if (w->rdma && w->rdma[0])
		lab = label_port(ps, hs, w);
	for (size_t d = 0; d < hs->n_rdma; d++)
		for (size_t j = 0; j < hs->rdma[d].n_ports; j++, k++) {
			const struct fab_rdma_port *pt = &hs->rdma[d].ports[j];

			if (strcasecmp(pt->link_layer, "Ethernet") == 0 &&
			    link_judged(ps, hs, pt->netdev))
				ps->port[k] = ROLE_ROCE;
			else if (k == lab)
				ps->port[k] = ROLE_RDMA_LABEL;
			for (size_t i = 0; p && i < p->n_ib && ps->port[k] == ROLE_NONE; i++)
				if (!p->ib[i].optional && ib_item_matches(&p->ib[i], &hs->rdma[d], pt))
					ps->port[k] = ROLE_PROFILE_IB;
		}
}

static void port_sel_fini(struct port_sel *ps)
{
	free(ps->link);
	free(ps->port);
}

static int port_sel_init(struct port_sel *ps, const struct host_state *hs,
			 const struct accept_port_want *w)
{
	memset(ps, 0, sizeof(*ps));
	for (size_t d = 0; d < hs->n_rdma; d++)
		ps->n_ports += hs->rdma[d].n_ports;
	ps->link = calloc(hs->n_links ? hs->n_links : 1, 1);
	ps->port = calloc(ps->n_ports ? ps->n_ports : 1, 1);
	if (!ps->link || !ps->port) {
		port_sel_fini(ps);
		return -ENOMEM;
	}
	select_links(ps, hs, w);
	select_ports(ps, hs, w);
	return 0;
}

/* [0] InfiniBand, [1] Ethernet (RoCE) and anything else. */
static unsigned int layer_of(const struct fab_rdma_port *pt)
{
	return strcasecmp(pt->link_layer, "InfiniBand") != 0;
}

void accept_port_norm_add(struct accept_port_norm *norm, const struct host_state *hs,
			  const struct accept_port_want *w)
{
	struct port_sel ps;
	size_t k = 0;

	if (port_sel_init(&ps, hs, w) < 0)
		return;		/* out of memory: the norm lacks this host, nothing worse */
	for (size_t d = 0; d < hs->n_rdma; d++)
		for (size_t j = 0; j < hs->rdma[d].n_ports; j++, k++) {
			const struct fab_rdma_port *pt = &hs->rdma[d].ports[j];

			if (ps.port[k] == ROLE_NONE || !rdma_port_up(pt))
				continue;
			topo_tally_add(&norm->width[layer_of(pt)], pt->width_x);
			topo_tally_add(&norm->lane[layer_of(pt)], topo_speed_parse(pt->speed));
		}
	port_sel_fini(&ps);
}

/* The profile's bond that has member @name ("?" when none). */
static const char *member_of(const struct profile *p, const char *name)
{
	for (size_t b = 0; p && b < p->n_bonds; b++)
		for (size_t m = 0; m < p->bonds[b].want.n_members; m++)
			if (strcmp(p->bonds[b].want.members[m].name, name) == 0)
				return p->bonds[b].want.name;
	return "?";
}

static void link_role_text(char *buf, size_t len, enum port_role role, const char *name,
			   const struct accept_port_want *w)
{
	switch (role) {
	case ROLE_DATAPATH:
		str_fmt(buf, len, "the data-path interface");
		break;
	case ROLE_DP_MEMBER:
		str_fmt(buf, len, "a member of the data-path bond %s", w->datapath);
		break;
	case ROLE_PROFILE:
		str_fmt(buf, len, "named by the profile's interfaces");
		break;
	case ROLE_PROFILE_BOND:
		str_fmt(buf, len, "a bond of the profile");
		break;
	default:
		str_fmt(buf, len, "a member of the profile's bond %s", member_of(w->profile, name));
		break;
	}
}

static int judge_link(struct accept_report *r, const char *node, const struct host_state *hs,
		      size_t i, const struct port_sel *ps, const struct accept_port_want *w,
		      struct accept_port_count *c)
{
	const struct fab_link *l = &hs->links[i];
	bool has_members = false, rated;
	int64_t rated_mbps = (int64_t)(w->rate_gbps * 1000.0 + 0.5);
	char role[96];

	for (size_t m = 0; ps->link[i] == ROLE_DATAPATH && m < hs->n_links; m++)
		has_members |= ps->link[m] == ROLE_DP_MEMBER;
	/* The rated speed is the data path's: a bond's members carry it, each. */
	rated = w->rate_gbps > 0 && (ps->link[i] == ROLE_DP_MEMBER ||
				     (ps->link[i] == ROLE_DATAPATH && !has_members));
	link_role_text(role, sizeof(role), (enum port_role)ps->link[i], l->name, w);
	c->ports++;
	if (!l->admin_up || (strcmp(l->operstate, "up") != 0 && strcmp(l->operstate, "unknown") != 0)) {
		c->down++;
		return accept_finding_add(r, ACCEPT_ST_REACH, FAB_REACH_PORT_DOWN, node, "",
					  "%s down (%soperstate %s): %s", l->name,
					  l->admin_up ? "" : "admin down, ",
					  l->operstate[0] ? l->operstate : "unknown", role);
	}
	if (!rated)
		return 0;
	if (l->speed_mbps < 0) {
		c->speed_unknown++;
		return 0;
	}
	if (l->speed_mbps >= rated_mbps)
		return 0;
	c->degraded++;
	return accept_finding_add(r, ACCEPT_ST_REACH, FAB_REACH_PORT_DEGRADED, node, "",
				  "%s %lld Mb/s, rated %g Gb/s (%s): %s", l->name,
				  (long long)l->speed_mbps, w->rate_gbps,
				  w->rate_from ? w->rate_from : "rated speed", role);
}

/*
 * What @pt is expected to run at (@width: lanes, else per-lane Mb/s): the
 * profile's `infiniband:` value when an item matching it sets one, else
 * the fleet's majority; 0 when neither.  @from says which.
 */
static unsigned int port_expect(const struct accept_port_want *w, const struct accept_port_norm *norm,
				const struct fab_rdma_dev *dev, const struct fab_rdma_port *pt,
				bool width, char *from, size_t len)
{
	const struct profile *p = w->profile;
	const struct topo_tally *t;
	const struct topo_tally_value *maj;

	for (size_t i = 0; p && i < p->n_ib; i++) {
		const struct profile_ib *ib = &p->ib[i];
		unsigned int v = width ? ib->width_x : topo_speed_parse(ib->speed);

		if (v && ib_item_matches(ib, dev, pt)) {
			str_fmt(from, len, "the profile");
			return v;
		}
	}
	if (!norm)
		return 0;
	t = width ? &norm->width[layer_of(pt)] : &norm->lane[layer_of(pt)];
	maj = topo_tally_majority(t);
	if (!maj)
		return 0;
	if (width)
		str_fmt(from, len, "%u of %u RDMA ports of the fleet run %uX", maj->n, t->n, maj->val);
	else
		str_fmt(from, len, "%u of %u RDMA ports of the fleet run %s", maj->n, t->n,
			topo_speed_name(maj->val) ? topo_speed_name(maj->val) : "?");
	return maj->val;
}

static int judge_port(struct accept_report *r, const char *node, const struct fab_rdma_dev *dev,
		      const struct fab_rdma_port *pt, enum port_role role,
		      const struct accept_port_want *w, const struct accept_port_norm *norm,
		      struct accept_port_count *c)
{
	unsigned int want_w, want_s, have_s = topo_speed_parse(pt->speed);
	char why[96], fw[96], fs[96], ws[128] = "", ss[160] = "";

	if (role == ROLE_ROCE)
		str_fmt(why, sizeof(why), "the RoCE port of %s", pt->netdev);
	else if (role == ROLE_RDMA_LABEL)
		str_fmt(why, sizeof(why), "rdma= of the hosts file");
	else
		str_fmt(why, sizeof(why), "matched by the profile's infiniband");
	c->ports++;
	if (!rdma_port_up(pt)) {
		c->down++;
		return accept_finding_add(r, ACCEPT_ST_REACH, FAB_REACH_PORT_DOWN, node, "",
					  "%s/%u %s%s%s: %s", dev->name, pt->port,
					  pt->state[0] ? pt->state : "state unknown",
					  pt->phys_state[0] ? ", phys " : "", pt->phys_state, why);
	}
	want_w = port_expect(w, norm, dev, pt, true, fw, sizeof(fw));
	want_s = port_expect(w, norm, dev, pt, false, fs, sizeof(fs));
	if (want_w && pt->width_x && pt->width_x < want_w)
		str_fmt(ws, sizeof(ws), "%uX, expected %uX (%s)", pt->width_x, want_w, fw);
	if (want_s && have_s && have_s < want_s)
		str_fmt(ss, sizeof(ss), "%s, expected %s (%s)", pt->speed,
			topo_speed_name(want_s) ? topo_speed_name(want_s) : "?", fs);
	if (!ws[0] && !ss[0])
		return 0;
	c->degraded++;
	return accept_finding_add(r, ACCEPT_ST_REACH, FAB_REACH_PORT_DEGRADED, node, "",
				  "%s/%u %s%s%s: %s", dev->name, pt->port, ws, ws[0] && ss[0] ? "; " : "",
				  ss, why);
}

int accept_ports_judge(struct accept_report *r, const char *node, const struct host_state *hs,
		       const struct accept_port_want *w, const struct accept_port_norm *norm,
		       struct accept_port_count *c)
{
	struct port_sel ps;
	size_t k = 0;
	int rc;

	rc = port_sel_init(&ps, hs, w);
	if (rc < 0)
		return rc;
	for (size_t i = 0; rc == 0 && i < hs->n_links; i++)
		if (ps.link[i] != ROLE_NONE)
			rc = judge_link(r, node, hs, i, &ps, w, c);
	for (size_t d = 0; d < hs->n_rdma; d++)
		for (size_t j = 0; j < hs->rdma[d].n_ports; j++, k++)
			if (rc == 0 && ps.port[k] != ROLE_NONE)
				rc = judge_port(r, node, &hs->rdma[d], &hs->rdma[d].ports[j],
						(enum port_role)ps.port[k], w, norm, c);
	if (rc == 0 && ps.missing[0]) {
		c->down++;
		rc = accept_finding_add(r, ACCEPT_ST_REACH, FAB_REACH_PORT_DOWN, node, "", "%s",
					ps.missing);
	}
	port_sel_fini(&ps);
	return rc;
}

/* ---- cabling ---- */

bool accept_name_in(const char *const *names, size_t n, const char *name)
{
	if (!name || !name[0])
		return false;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		/* "h33" is also the IB node "h33 mlx5_0" (NodeDescription, route.h rule 3). */
		if (strncmp(names[i], name, len) == 0 && (name[len] == '\0' || name[len] == ' '))
			return true;
	}
	return false;
}

static const enum accept_code prob_codes[TOPO_PROB_KIND_MAX] = {
	[TOPO_PROB_MISSING] = FAB_CABLE_MISSING,
	[TOPO_PROB_UNEXPECTED] = FAB_CABLE_UNEXPECTED,
	[TOPO_PROB_MISWIRED] = FAB_CABLE_MISWIRED,
	[TOPO_PROB_DEGRADED] = FAB_CABLE_DEGRADED,
	[TOPO_PROB_DOWN] = FAB_CABLE_DOWN,
	[TOPO_PROB_ERRORS] = FAB_CABLE_ERRORS,
	[TOPO_PROB_MTU_MISMATCH] = FAB_CABLE_MTU,
	[TOPO_PROB_RAIL] = FAB_CABLE_RAIL,
	[TOPO_PROB_DUP_GUID] = FAB_CABLE_ID,
	[TOPO_PROB_DUP_LID] = FAB_CABLE_ID,
	[TOPO_PROB_LID] = FAB_CABLE_ID,
};

/* "node port" of an end (IB ports by number). */
static void end_str(char *buf, size_t len, const struct topo_end *e)
{
	if (e->port_name[0])
		str_fmt(buf, len, "%s %s", e->node[0] ? e->node : "?", e->port_name);
	else
		str_fmt(buf, len, "%s %u", e->node[0] ? e->node : "?", e->port);
}

static int problem_finding(struct accept_report *r, const struct topo_problem *p)
{
	char a[200] = "", b[200] = "", x[200] = "", link[256];
	const char *node = "";

	if (p->has_a)
		end_str(a, sizeof(a), &p->a);
	if (p->has_b)
		end_str(b, sizeof(b), &p->b);
	if (p->has_expected)
		end_str(x, sizeof(x), &p->expected);
	if (p->has_a && p->has_b)
		str_fmt(link, sizeof(link), "%s <-> %s", a, b);
	else if (p->has_a && p->has_expected)
		str_fmt(link, sizeof(link), "%s <-> %s", a, x);
	else
		str_fmt(link, sizeof(link), "%s", a);
	if (p->kind == TOPO_PROB_RAIL && p->has_a)
		node = p->a.node;
	if (p->kind == TOPO_PROB_MISWIRED)	/* the detail only repeats "should go to" */
		return accept_finding_add(r, ACCEPT_ST_CABLING, FAB_CABLE_MISWIRED, node, link,
					  "%s is cabled to %s; it should go to %s", a,
					  p->has_b ? b : "nothing", p->has_expected ? x : "?");
	if (p->kind == TOPO_PROB_MISSING)
		return accept_finding_add(r, ACCEPT_ST_CABLING, FAB_CABLE_MISSING, node, link,
					  "planned cable %s <-> %s not found%s%s", a,
					  p->has_expected ? x : b, p->detail[0] ? ": " : "",
					  p->detail);
	return accept_finding_add(r, ACCEPT_ST_CABLING, prob_codes[p->kind], node, link, "%s: %s",
				  topo_problem_kind_name(p->kind),
				  p->detail[0] ? p->detail : "(no detail)");
}

int accept_cabling_findings(struct accept_report *r, const struct topo *found,
			    const char *const *new_names, size_t n_new, size_t *n_other)
{
	size_t other = 0;

	for (size_t i = 0; i < found->n_problems; i++) {
		const struct topo_problem *p = &found->problems[i];
		int rc;

		/*
		 * A kind with no code is the subnet's, not a cable's; the new
		 * nodes' routes are named from the unreachable list
		 * (accept_route_findings()), one finding per node.
		 */
		if ((unsigned int)p->kind >= TOPO_PROB_KIND_MAX || !prob_codes[p->kind])
			continue;
		if (!(p->has_a && accept_name_in(new_names, n_new, p->a.node)) &&
		    !(p->has_b && accept_name_in(new_names, n_new, p->b.node)) &&
		    !(p->has_expected && accept_name_in(new_names, n_new, p->expected.node))) {
			other++;
			continue;
		}
		rc = problem_finding(r, p);
		if (rc < 0)
			return rc;
	}
	if (n_other)
		*n_other = other;
	return 0;
}

static const char *port_node(const struct topo_port *p)
{
	return p && p->node ? p->node->name : "?";
}

int accept_route_findings(struct accept_report *r, const struct topo *found,
			  const char *const *new_names, size_t n_new)
{
	const struct ib_routes_report *rr = found->ib_checks ? &found->ib_checks->routes : NULL;

	for (size_t k = 0; rr && rr->ran && k < n_new; k++) {
		const struct ib_unreachable *first = NULL;
		size_t n = 0;

		for (size_t i = 0; i < rr->n_listed; i++) {
			const struct ib_unreachable *u = &rr->unreach[i];

			if (strcmp(port_node(u->src), new_names[k]) && strcmp(port_node(u->dst), new_names[k]))
				continue;
			first = first ? first : u;
			n++;
		}
		if (n && accept_finding_add(r, ACCEPT_ST_CABLING, FAB_CABLE_ROUTE, new_names[k], "",
					    "%zu route%s to or from it do%s not reach (first: %s -> "
					    "%s, lid %u, breaks at %s, lft entry %s%u: %s)", n,
					    n == 1 ? "" : "s", n == 1 ? "es" : "", port_node(first->src),
					    port_node(first->dst), first->dlid,
					    first->sw ? first->sw->name : "the source's cable",
					    first->port == TOPO_LFT_NONE ? "none, " : "",
					    first->port == TOPO_LFT_NONE ? 0 : first->port,
					    ib_break_name(first->why)) < 0)
			return -ENOMEM;
	}
	return 0;
}

enum accept_homing accept_homing(const struct topo *found, const char *node,
				 const char *const *members, size_t n_members, char *legs, size_t len,
				 const char **shared, size_t *n_linked)
{
	const struct topo_node *n = topo_node_by_name(found, node);
	const char *sw[2] = { NULL, NULL };
	size_t linked = 0, off;

	if (len)
		legs[0] = '\0';
	*shared = NULL;
	*n_linked = 0;
	if (!n || n_members < 2)
		return ACCEPT_HOMING_UNKNOWN;
	for (size_t i = 0; i < n_members; i++) {
		const struct topo_port *p = topo_port_find(n, 0, members[i]);
		const char *peer;

		if (!p || !p->peer || !p->peer->node)
			continue;
		peer = p->peer->node->name;
		linked++;
		off = strlen(legs);
		str_fmt(legs + off, len - off, "%s%s -> %s %s", off ? ", " : "", members[i], peer,
			p->peer->name[0] ? p->peer->name : "?");
		if (!sw[0])
			sw[0] = peer;
		else if (strcmp(sw[0], peer) != 0 && !sw[1])
			sw[1] = peer;
	}
	*shared = sw[0];
	*n_linked = linked;
	if (sw[1])
		return ACCEPT_HOMING_DUAL;
	if (!linked)
		return ACCEPT_HOMING_UNKNOWN;	/* no leg seen: the cabling diff names missing cables */
	return linked == 1 ? ACCEPT_HOMING_ONE_LEG : ACCEPT_HOMING_ONE_SWITCH;
}

int accept_dual_homing(struct accept_report *r, const struct topo *found, const char *node,
		       const char *const *members, size_t n_members, const char *bond)
{
	const char *sw;
	char legs[256];
	size_t linked;

	switch (accept_homing(found, node, members, n_members, legs, sizeof(legs), &sw, &linked)) {
	case ACCEPT_HOMING_ONE_LEG:
		return accept_finding_add(r, ACCEPT_ST_CABLING, FAB_CABLE_SINGLE_HOMED, node, "",
					  "bond %s: only one of %zu members has an LLDP neighbour (%s): "
					  "not dual-homed", bond, n_members, legs);
	case ACCEPT_HOMING_ONE_SWITCH:
		return accept_finding_add(r, ACCEPT_ST_CABLING, FAB_CABLE_SINGLE_HOMED, node, "",
					  "bond %s: all %zu linked members reach one switch, %s (%s): "
					  "one switch failure takes the node off the fabric",
					  bond, linked, sw, legs);
	default:
		return 0;
	}
}

/* ---- traffic pairs ---- */

static bool transit(const struct topo_node *n)
{
	return n->type == TOPO_NODE_SWITCH || n->type == TOPO_NODE_ROUTER;
}

int accept_want_links(const struct route *r, const bool *new_host, const char *const *new_names,
		      size_t n_new, bool *want)
{
	const struct topo *t = r->topo;
	bool *new_leaf = calloc(r->n_nodes ? r->n_nodes : 1, sizeof(*new_leaf));
	size_t n = 0;

	if (!new_leaf)
		return -ENOMEM;
	for (size_t h = 0; h < r->n_hosts; h++)
		if (new_host[h])
			new_leaf[r->hosts[h].attach] = true;
	for (size_t l = 0; l < t->n_links; l++) {
		const struct topo_node *a = t->links[l]->a->node, *b = t->links[l]->b->node;
		uint32_t ia = route_node_index(r, a), ib = route_node_index(r, b);
		bool uplink = transit(a) && transit(b) &&
			      ((ia != ROUTE_NONE && new_leaf[ia]) || (ib != ROUTE_NONE && new_leaf[ib]));

		want[l] = uplink || accept_name_in(new_names, n_new, a->name) ||
			  accept_name_in(new_names, n_new, b->name);
		n += want[l];
	}
	for (size_t h = 0; h < r->n_hosts; h++)	/* a new host's cable, whatever its name */
		if (new_host[h] && r->hosts[h].link < t->n_links && !want[r->hosts[h].link]) {
			want[r->hosts[h].link] = true;
			n++;
		}
	free(new_leaf);
	return (int)(n > INT32_MAX ? INT32_MAX : n);
}

/* Every new x new pair @c lacks, when all of them fit (n_new (n_new - 1) / 2 <= hosts k). */
static int all_new_pairs(struct coverage *c, const struct route *r, const bool *new_host,
			 unsigned int k)
{
	size_t nn = 0, *idx = calloc(r->n_hosts ? r->n_hosts : 1, sizeof(*idx)), add = 0;
	uint8_t *have = NULL;
	struct sched_pair *p;
	int rc = -ENOMEM;

	if (!idx)
		return rc;
	for (size_t h = 0; h < r->n_hosts; h++)
		idx[h] = new_host[h] ? nn++ : SIZE_MAX;
	rc = 0;
	if (nn < 2 || nn * (nn - 1) / 2 > (size_t)k * r->n_hosts)
		goto out;
	rc = -ENOMEM;
	if (!(have = calloc(nn * nn, 1)))
		goto out;
	for (size_t i = 0; i < c->n_pairs; i++) {
		size_t x = idx[c->pairs[i].a], y = idx[c->pairs[i].b];

		if (x != SIZE_MAX && y != SIZE_MAX)
			have[x * nn + y] = have[y * nn + x] = 1;
	}
	for (size_t x = 0; x < nn; x++)
		for (size_t y = x + 1; y < nn; y++)
			add += !have[x * nn + y];
	p = realloc(c->pairs, (c->n_pairs + add + 1) * sizeof(*p));
	if (!p)
		goto out;
	c->pairs = p;
	for (unsigned int a = 0; a < r->n_hosts; a++)
		for (unsigned int b = a + 1; new_host[a] && b < r->n_hosts; b++) {
			if (!new_host[b] || have[idx[a] * nn + idx[b]])
				continue;
			c->pairs[c->n_pairs++] = (struct sched_pair){ .a = a, .b = b };
			c->host_pairs[a]++;
			c->host_pairs[b]++;
		}
	rc = 0;
out:
	free(have);
	free(idx);
	return rc;
}

int accept_pairs_cover(struct route *r, const bool *new_host, const char *const *new_names,
		       size_t n_new, unsigned int k, struct coverage *out, struct fab_err *err)
{
	bool *want = calloc(r->topo->n_links ? r->topo->n_links : 1, sizeof(*want));
	struct coverage_req req = { .k = k, .subset = new_host, .want_link = want };
	int rc;

	if (!want)
		return fab_err_set(err, -ENOMEM, "accept: out of memory");
	rc = accept_want_links(r, new_host, new_names, n_new, want);
	if (rc < 0)
		rc = fab_err_set(err, rc, "accept: out of memory");
	else
		rc = coverage_pick(out, r, &req, err);
	free(want);
	if (rc == 0 && all_new_pairs(out, r, new_host, k) < 0) {
		coverage_fini(out);
		rc = fab_err_set(err, -ENOMEM, "accept: out of memory");
	}
	return rc;
}
