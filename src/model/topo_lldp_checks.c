// SPDX-License-Identifier: GPL-2.0-or-later
/* MTU mismatch and plan rail checks over a struct topo. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/topo_lldp_checks.h"
#include "util/array.h"
#include "util/str.h"

void topo_rails_init(struct topo_rails *r)
{
	memset(r, 0, sizeof(*r));
}

void topo_rails_fini(struct topo_rails *r)
{
	if (!r)
		return;
	free(r->leaves);
	free(r->nics);
	memset(r, 0, sizeof(*r));
}

int topo_rails_leaf_add(struct topo_rails *r, const char *node, unsigned int rail)
{
	struct topo_rail_leaf *l = array_add((void **)&r->leaves, &r->n_leaves, sizeof(*l));

	if (!l)
		return -ENOMEM;
	str_fmt(l->node, sizeof(l->node), "%s", node);
	l->rail = rail;
	return 0;
}

int topo_rails_nic_add(struct topo_rails *r, const char *node, unsigned int num,
		       const char *port, unsigned int rail)
{
	struct topo_rail_nic *n = array_add((void **)&r->nics, &r->n_nics, sizeof(*n));

	if (!n)
		return -ENOMEM;
	str_fmt(n->node, sizeof(n->node), "%s", node);
	str_fmt(n->port, sizeof(n->port), "%s", port ? port : "");
	n->num = num;
	n->rail = rail;
	return 0;
}

/* ---- MTU ---------------------------------------------------------------- */

static bool mfs_fits(unsigned int mtu, unsigned int mfs)
{
	return mfs >= mtu + TOPO_MFS_OVERHEAD_MIN && mfs <= mtu + TOPO_MFS_OVERHEAD_MAX;
}

static int add_problem(struct topo *t, enum topo_problem_kind kind, const struct topo_port *a,
		       const struct topo_port *b, const char *detail)
{
	struct topo_problem p;

	memset(&p, 0, sizeof(p));
	p.kind = kind;
	p.has_a = a != NULL;
	topo_end_from_port(&p.a, a);
	p.has_b = b != NULL;
	topo_end_from_port(&p.b, b);
	str_fmt(p.detail, sizeof(p.detail), "%s", detail);
	return topo_problem_add(t, &p);
}

/* Problem details are short human text; a long port name just truncates. */
static void detail_fmt(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void detail_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	str_vfmt(buf, len, fmt, ap);
	va_end(ap);
}

/* A port as discover's text names one: "node" NAME, or "node"[N]. */
static const char *port_label(const struct topo_port *p, char *buf, size_t len)
{
	if (p->name[0])
		str_fmt(buf, len, "\"%s\" %s", p->node->name, p->name);
	else
		str_fmt(buf, len, "\"%s\"[%u]", p->node->name, p->num);
	return buf;
}

/* The plan's port for @p (same node name, same port), NULL when none. */
static const struct topo_port *plan_port(const struct topo *plan, const struct topo_port *p)
{
	const struct topo_node *n;

	if (!plan)
		return NULL;
	n = topo_node_find(plan, p->node->name, p->node->guid);
	if (!n && p->node->guid)
		n = topo_node_by_name(plan, p->node->name);
	return n ? topo_port_find(n, p->num, p->name) : NULL;
}

/* Expected MTU of @p from the plan (either end of its planned link); 0 none. */
static unsigned int plan_mtu(const struct topo *plan, const struct topo_port *p)
{
	const struct topo_port *pp = plan_port(plan, p);

	if (!pp)
		return 0;
	if (pp->facts & TOPO_F_MTU && pp->mtu)
		return pp->mtu;
	if (pp->peer && pp->peer->facts & TOPO_F_MTU)
		return pp->peer->mtu;
	return 0;
}

/*
 * Does the link a-b disagree with itself?  Fills @detail; true when so.
 * MTUs of both ends win over MFS; an MFS is checked against the other
 * end's MTU.
 */
static bool link_mtu_mismatch(const struct topo_port *a, const struct topo_port *b,
			      char *detail, size_t len)
{
	char la[200], lb[200];

	if (a->facts & TOPO_F_MTU && a->mtu && b->facts & TOPO_F_MTU && b->mtu) {
		if (a->mtu == b->mtu)
			return false;
		detail_fmt(detail, len, "mtu %u on %s, %u on %s", a->mtu,
			 port_label(a, la, sizeof(la)), b->mtu, port_label(b, lb, sizeof(lb)));
		return true;
	}
	for (int k = 0; k < 2; k++) {
		const struct topo_port *mine = k ? b : a, *peer = k ? a : b;

		if (!(mine->facts & TOPO_F_MTU) || !mine->mtu || !peer->mtu_max)
			continue;
		if (mfs_fits(mine->mtu, peer->mtu_max))
			return false;
		detail_fmt(detail, len, "mtu %u on %s, peer %s advertises max frame size %u (mtu %d)",
			 mine->mtu, port_label(mine, la, sizeof(la)),
			 port_label(peer, lb, sizeof(lb)), peer->mtu_max,
			 (int)peer->mtu_max - (int)TOPO_MFS_OVERHEAD);
		return true;
	}
	return false;
}

/* A known MTU of @p that differs from the plan's; fills @detail. */
static bool plan_mtu_mismatch(const struct topo *plan, const struct topo_port *p,
			      char *detail, size_t len)
{
	unsigned int want = plan_mtu(plan, p);
	char lp[200];

	if (!want || !(p->facts & TOPO_F_MTU) || !p->mtu || p->mtu == want)
		return false;
	detail_fmt(detail, len, "mtu %u on %s, plan expects %u", p->mtu,
		 port_label(p, lp, sizeof(lp)), want);
	return true;
}

int topo_mtu_check(struct topo *found, const struct topo *plan)
{
	char detail[192];
	int rc;

	for (size_t i = 0; i < found->n_links; i++) {
		struct topo_link *l = found->links[i];
		bool mismatch = true;

		if (link_mtu_mismatch(l->a, l->b, detail, sizeof(detail)))
			rc = add_problem(found, TOPO_PROB_MTU_MISMATCH, l->a, l->b, detail);
		else if (plan_mtu_mismatch(plan, l->a, detail, sizeof(detail)))
			rc = add_problem(found, TOPO_PROB_MTU_MISMATCH, l->a, l->b, detail);
		else if (plan_mtu_mismatch(plan, l->b, detail, sizeof(detail)))
			rc = add_problem(found, TOPO_PROB_MTU_MISMATCH, l->b, l->a, detail);
		else
			rc = 0, mismatch = false;
		if (rc < 0)
			return rc;
		/* Not "ok" in the link list; a worse status (down, degraded) stays. */
		if (mismatch && l->status < TOPO_LINK_MTU)
			l->status = TOPO_LINK_MTU;
	}
	if (!plan)
		return 0;
	for (size_t i = 0; i < found->n_nodes; i++) {
		const struct topo_node *n = found->nodes[i];

		for (size_t j = 0; j < n->n_ports; j++) {
			const struct topo_port *p = n->ports[j];

			if (p->peer || !plan_mtu_mismatch(plan, p, detail, sizeof(detail)))
				continue;
			rc = add_problem(found, TOPO_PROB_MTU_MISMATCH, p, NULL, detail);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

/* ---- rails -------------------------------------------------------------- */

static const struct topo_rail_leaf *rail_leaf(const struct topo_rails *r, const char *node)
{
	for (size_t i = 0; i < r->n_leaves; i++)
		if (strcmp(r->leaves[i].node, node) == 0)
			return &r->leaves[i];
	return NULL;
}

/* "leaf1, leaf3" or "none": the leaves of @rail, for the detail text. */
static void rail_leaves(const struct topo_rails *r, unsigned int rail, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < r->n_leaves && off < len; i++) {
		int w;

		if (r->leaves[i].rail != rail)
			continue;
		w = str_fmt(buf + off, len - off, "%s%s", off ? ", " : "", r->leaves[i].node);
		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (!buf[0])
		str_fmt(buf, len, "none");
}

int topo_rail_plan_check(struct topo *found, const struct topo_rails *rails)
{
	for (size_t i = 0; i < rails->n_nics; i++) {
		const struct topo_rail_nic *nic = &rails->nics[i];
		const struct topo_rail_leaf *leaf;
		const struct topo_node *n = topo_node_by_name(found, nic->node);
		const struct topo_port *p;
		char detail[192], want[96];
		int rc;

		p = n ? topo_port_find(n, nic->num, nic->port) : NULL;
		if (!p || !p->peer)
			continue;
		leaf = rail_leaf(rails, p->peer->node->name);
		if (!leaf || leaf->rail == nic->rail)
			continue;
		rail_leaves(rails, nic->rail, want, sizeof(want));
		detail_fmt(detail, sizeof(detail), "nic %u (rail %u) reaches %s of rail %u; rail %u leaves: %s",
			 nic->rail, nic->rail, leaf->node, leaf->rail, nic->rail, want);
		rc = add_problem(found, TOPO_PROB_RAIL, p, p->peer, detail);
		if (rc < 0)
			return rc;
		if (p->link && p->link->status < TOPO_LINK_RAIL)
			p->link->status = TOPO_LINK_RAIL;	/* miswired, the worse, stays */
	}
	return 0;
}
