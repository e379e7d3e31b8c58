// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Identities and subnet managers (ib_checks.h: ids, sm).
 *
 * GUIDs: every node GUID, every CA or router port GUID that is not its
 * node's own, and one port GUID per switch (all of a switch's ports share
 * port 0's), sorted; a GUID with two holders is a duplicate.  (Two nodes
 * with the same node GUID reach the walk as one node that seems cabled
 * twice: libibnetdisc merges them, the walk warns of a conflicting link.)
 * LIDs: every LID of every LMC range, CA ports and switch port 0, sorted;
 * a LID with two holders is a duplicate, runs of them one problem.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/ib_checks.h"
#include "util/array.h"
#include "util/str.h"

/* A GUID or a LID and the port (or node: port NULL) holding it. */
struct holder {
	uint64_t id;
	const struct topo_node *node;
	const struct topo_port *port;
};

static int holder_cmp(const void *x, const void *y)
{
	const struct holder *a = x, *b = y;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	if (a->node != b->node)
		return strcmp(a->node->name, b->node->name) < 0 ? -1 : 1;
	if (a->port == b->port)
		return 0;
	return !a->port ? -1 : !b->port ? 1 : a->port->num < b->port->num ? -1 : 1;
}

static int holder_add(struct holder **v, size_t *n, size_t *cap, uint64_t id,
		      const struct topo_node *node, const struct topo_port *port)
{
	if (array_reserve((void **)v, cap, *n + 1, sizeof(**v)) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = (struct holder){ id, node, port };
	return 0;
}

/* The port standing for a switch: port 0, else its first. */
static const struct topo_port *sw_port0(const struct topo_node *n)
{
	return n->n_ports ? n->ports[0] : NULL;
}

static int guids_collect(const struct topo *t, struct holder **v, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *nd = t->nodes[i];
		const struct topo_port *p0 = sw_port0(nd);

		if (nd->guid && holder_add(v, n, cap, nd->guid, nd, NULL) < 0)
			return -ENOMEM;
		if (nd->type == TOPO_NODE_SWITCH) {
			if (p0 && p0->guid && p0->guid != nd->guid &&
			    holder_add(v, n, cap, p0->guid, nd, p0) < 0)
				return -ENOMEM;
			continue;
		}
		for (size_t j = 0; j < nd->n_ports; j++) {
			const struct topo_port *p = nd->ports[j];

			if (p->guid && p->guid != nd->guid && holder_add(v, n, cap, p->guid, nd, p) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

static void holder_text(char *buf, size_t len, const struct holder *h)
{
	if (h->port)
		str_fmt(buf, len, "\"%s\" port %u", h->node->name, h->port->num);
	else
		str_fmt(buf, len, "node \"%s\"", h->node->name);
}

static void holder_end(struct topo_end *e, const struct holder *h)
{
	if (h->port) {
		topo_end_from_port(e, h->port);
		return;
	}
	memset(e, 0, sizeof(*e));
	str_fmt(e->node, sizeof(e->node), "%s", h->node->name);
	e->guid = h->node->guid;
}

static int dup_guid_problem(struct topo *t, const struct holder *h, size_t n)
{
	struct topo_problem p = { .kind = TOPO_PROB_DUP_GUID, .has_a = true, .has_b = true };
	char a[200], b[200];

	holder_end(&p.a, &h[0]);
	holder_end(&p.b, &h[1]);
	holder_text(a, sizeof(a), &h[0]);
	holder_text(b, sizeof(b), &h[1]);
	if (n > 2)
		str_fmt(p.detail, sizeof(p.detail), "guid 0x%016" PRIx64 " is %s's and %s's "
			"(and %zu more holders')", h[0].id, a, b, n - 2);
	else
		str_fmt(p.detail, sizeof(p.detail), "guid 0x%016" PRIx64 " is %s's and %s's",
			h[0].id, a, b);
	return topo_problem_add(t, &p);
}

static int ids_guids(struct topo *t, struct ib_ids_report *ir)
{
	struct holder *v = NULL;
	size_t n = 0, cap = 0, i = 0;
	int rc = guids_collect(t, &v, &n, &cap);

	if (rc == 0 && n)
		qsort(v, n, sizeof(*v), holder_cmp);
	while (rc == 0 && i < n) {
		size_t j = i + 1;

		while (j < n && v[j].id == v[i].id)
			j++;
		if (j - i > 1) {
			ir->n_dup_guids++;
			rc = dup_guid_problem(t, &v[i], j - i);
		}
		i = j;
	}
	free(v);
	return rc;
}

/* Every LID of every holder: CA and router ports with a LID, switch port 0. */
static int lids_collect(const struct topo *t, struct holder **v, size_t *n, size_t *cap,
			struct ib_ids_report *ir)
{
	bool lmc_seen = false;

	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *nd = t->nodes[i];

		for (size_t j = 0; j < nd->n_ports; j++) {
			const struct topo_port *p = nd->ports[j];

			if (!p->lid || !(p->facts & TOPO_F_LID))
				continue;
			if (nd->type == TOPO_NODE_SWITCH && p != sw_port0(nd))
				continue;
			if (nd->type != TOPO_NODE_SWITCH) {
				if (!lmc_seen || p->lmc < ir->lmc_min)
					ir->lmc_min = p->lmc;
				if (!lmc_seen || p->lmc > ir->lmc_max)
					ir->lmc_max = p->lmc;
				lmc_seen = true;
			}
			for (unsigned int k = 0; k < (1u << (p->lmc & 7)); k++)
				if (holder_add(v, n, cap, p->lid + k, nd, p) < 0)
					return -ENOMEM;
		}
	}
	return 0;
}

static int dup_lid_problem(struct topo *t, const struct holder *h, unsigned int first,
			   unsigned int last)
{
	struct topo_problem p = { .kind = TOPO_PROB_DUP_LID, .has_a = true, .has_b = true };
	char a[200], b[200];

	holder_end(&p.a, &h[0]);
	holder_end(&p.b, &h[1]);
	holder_text(a, sizeof(a), &h[0]);
	holder_text(b, sizeof(b), &h[1]);
	if (first == last)
		str_fmt(p.detail, sizeof(p.detail), "lid %u is held by %s and by %s", first, a, b);
	else
		str_fmt(p.detail, sizeof(p.detail), "lids %u-%u are held by %s and by %s", first,
			last, a, b);
	return topo_problem_add(t, &p);
}

/* Duplicates: one problem per run of consecutive LIDs held by the same two. */
static int ids_lids(struct topo *t, struct ib_ids_report *ir)
{
	struct holder *v = NULL, run[2] = { 0 };
	size_t n = 0, cap = 0, i = 0;
	unsigned int first = 0, last = 0;
	int rc = lids_collect(t, &v, &n, &cap, ir);

	if (rc == 0 && n)
		qsort(v, n, sizeof(*v), holder_cmp);
	while (rc == 0 && i < n) {
		size_t j = i + 1;

		while (j < n && v[j].id == v[i].id)
			j++;
		ir->n_lids++;
		if (j - i > 1) {
			ir->n_dup_lids++;
			if (run[0].node && last + 1 == v[i].id && run[0].port == v[i].port &&
			    run[1].port == v[i + 1].port) {
				last = (unsigned int)v[i].id;
			} else {
				if (run[0].node)
					rc = dup_lid_problem(t, run, first, last);
				run[0] = v[i];
				run[1] = v[i + 1];
				first = last = (unsigned int)v[i].id;
			}
		}
		i = j;
	}
	if (rc == 0 && run[0].node)
		rc = dup_lid_problem(t, run, first, last);
	free(v);
	return rc;
}

static int lid_problem(struct topo *t, const struct topo_port *p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int lid_problem(struct topo *t, const struct topo_port *p, const char *fmt, ...)
{
	struct topo_problem pr = { .kind = TOPO_PROB_LID, .has_a = true };
	va_list ap;

	topo_end_from_port(&pr.a, p);
	va_start(ap, fmt);
	str_vfmt(pr.detail, sizeof(pr.detail), fmt, ap);
	va_end(ap);
	return topo_problem_add(t, &pr);
}

#define ZERO_LID_LIST_MAX 8	/* zero LIDs named one by one; more: one problem for all */

/* Linked CA ports and switch port 0 without a LID; base LIDs off their LMC. */
static int ids_zero_unaligned(struct topo *t, struct ib_ids_report *ir)
{
	const struct topo_port *first = NULL;
	size_t any_lid = 0;
	int rc = 0;

	for (size_t pass = 0; pass < 2 && rc == 0; pass++) {
		for (size_t i = 0; i < t->n_nodes && rc == 0; i++) {
			const struct topo_node *nd = t->nodes[i];

			for (size_t j = 0; j < nd->n_ports && rc == 0; j++) {
				const struct topo_port *p = nd->ports[j];
				bool sw = nd->type == TOPO_NODE_SWITCH;

				if (!(p->facts & TOPO_F_LID) || (sw ? p != sw_port0(nd) : !p->peer))
					continue;
				if (!pass && p->lid) {
					any_lid++;
					if (p->lmc && (p->lid & ((1u << (p->lmc & 7)) - 1))) {
						ir->n_unaligned++;
						rc = lid_problem(t, p, "base lid %u is not a multiple of "
								 "2^lmc (lmc %u): the port does not "
								 "answer its whole range", p->lid,
								 p->lmc);
					}
				} else if (!pass && !p->lid) {
					ir->n_zero_lids++;
					first = first ? first : p;
				} else if (pass && !p->lid && ir->n_zero_lids <= ZERO_LID_LIST_MAX) {
					rc = lid_problem(t, p, "no lid (0)");
				}
			}
		}
	}
	if (rc == 0 && ir->n_zero_lids > ZERO_LID_LIST_MAX && any_lid)
		rc = lid_problem(t, first, "this port and %zu others have no lid (0)",
				 ir->n_zero_lids - 1);
	else if (rc == 0 && ir->n_zero_lids > ZERO_LID_LIST_MAX)
		rc = lid_problem(t, first, "no port has a lid: %zu ports at 0 (no subnet manager "
				 "has swept)", ir->n_zero_lids);
	return rc;
}

static const struct topo_port *first_linked(const struct topo_node *n)
{
	for (size_t j = 0; j < n->n_ports; j++)
		if (n->ports[j]->peer)
			return n->ports[j];
	return NULL;
}

/* The graph's port holding @guid as its port GUID (a switch: port 0), or NULL. */
static const struct topo_port *port_by_guid(const struct topo *t, uint64_t guid)
{
	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++)
			if (t->nodes[i]->ports[j]->guid == guid)
				return t->nodes[i]->ports[j];
	return NULL;
}

/*
 * A node behind a linked-up switch port the walk left without a cable
 * (topo.h: struct topo_unwalked) whose node or port GUID the graph holds
 * already: two nodes (or ports) share it, and libibnetdisc kept the one
 * it met first.
 */
static int ids_unwalked(struct topo *t, struct ib_ids_report *ir)
{
	for (size_t i = 0; i < t->n_unwalked; i++) {
		const struct topo_unwalked *u = &t->unwalked[i];
		const struct topo_node *n = u->answered ? topo_node_by_guid(t, u->node_guid) : NULL;
		const struct topo_port *p = u->answered && !n ? port_by_guid(t, u->port_guid) : NULL;
		struct topo_problem pr = { .kind = TOPO_PROB_DUP_GUID, .has_a = true, .has_b = true };
		struct holder h = { .id = n ? u->node_guid : u->port_guid, .node = n, .port = p };
		const struct topo_port *seen;
		char b[200], where[160] = "";
		int rc;

		if (!n && !p)
			continue;
		if (p)
			h.node = p->node;
		ir->n_dup_guids++;
		seen = p ? p : first_linked(h.node);
		if (seen && seen->peer)
			str_fmt(where, sizeof(where), " (the walk has it behind \"%s\" port %u)",
				seen->peer->node->name, seen->peer->num);
		topo_end_from_port(&pr.a, u->at);
		holder_end(&pr.b, &h);
		holder_text(b, sizeof(b), &h);
		str_fmt(pr.detail, sizeof(pr.detail), "behind \"%s\" port %u (link up, left out of "
			"the walk) a %s \"%s\" answers with %s guid 0x%016" PRIx64 ", which is %s's%s: "
			"two %ss share one guid, and the walk kept the one it met first",
			u->at->node->name, u->at->num, topo_node_type_name(u->type), u->desc,
			n ? "node" : "port", h.id, b, where, n ? "node" : "port");
		rc = topo_problem_add(t, &pr);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int ib_ids_check(struct topo *t, struct ib_checks *c)
{
	int rc = ids_guids(t, &c->ids);

	if (rc == 0)
		rc = ids_unwalked(t, &c->ids);

	if (rc == 0)
		rc = ids_lids(t, &c->ids);
	if (rc == 0)
		rc = ids_zero_unaligned(t, &c->ids);
	c->ids.ran = rc == 0;
	return rc;
}

/* ---- subnet managers ---- */

static int sm_problem(struct topo *t, const struct topo_port *port, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int sm_problem(struct topo *t, const struct topo_port *port, const char *fmt, ...)
{
	struct topo_problem p = { .kind = TOPO_PROB_SM, .has_a = port != NULL };
	va_list ap;

	if (port)
		topo_end_from_port(&p.a, port);
	va_start(ap, fmt);
	str_vfmt(p.detail, sizeof(p.detail), fmt, ap);
	va_end(ap);
	return topo_problem_add(t, &p);
}

/* Does @s outrank @m (IBA 14.4.1.1: higher priority; equal, the lower GUID)? */
static bool sm_outranks(const struct topo_sm *s, const struct topo_sm *m)
{
	return s->priority > m->priority || (s->priority == m->priority && s->guid < m->guid);
}

/* Ports whose MasterSMLID is not @lid: active CA ports and switch port 0. */
static int sm_lid_disagree(struct topo *t, struct ib_sm_report *sr, unsigned int lid)
{
	const struct topo_port *ex = NULL;

	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *nd = t->nodes[i];

		for (size_t j = 0; j < nd->n_ports; j++) {
			const struct topo_port *p = nd->ports[j];
			bool sw = nd->type == TOPO_NODE_SWITCH;

			if (!(p->facts & TOPO_F_LID) || p->state != TOPO_PORT_ACTIVE ||
			    (sw && p != sw_port0(nd)) || p->sm_lid == lid)
				continue;
			sr->n_ports_other_sm++;
			ex = ex ? ex : p;
		}
	}
	if (!ex)
		return 0;
	return sm_problem(t, ex, "%zu active ports name another master sm than lid %u (this one: "
			  "lid %u): they have not heard of the master", sr->n_ports_other_sm, lid,
			  ex->sm_lid);
}

static int sm_master_checks(struct topo *t, struct ib_sm_report *sr)
{
	const struct topo_sm *m = sr->master;
	int rc = 0;

	for (size_t i = 0; i < t->n_sms && rc == 0; i++) {
		const struct topo_sm *s = &t->sms[i];

		if (s == m || !s->answered || s->state != TOPO_SM_STANDBY || !sm_outranks(s, m))
			continue;
		sr->agree = false;
		rc = sm_problem(t, s->port, "standby sm (priority %u, guid 0x%016" PRIx64 ") "
				"outranks the master on \"%s\" port %u (priority %u, guid 0x%016"
				PRIx64 "): a handover is due and has not happened", s->priority,
				s->guid, m->port->node->name, m->port->num, m->priority, m->guid);
	}
	if (rc == 0)
		rc = sm_lid_disagree(t, sr, m->port->lid);
	if (sr->n_ports_other_sm)
		sr->agree = false;
	return rc;
}

/* Answered first, then master, standby, discovering, not active; higher priority, lower GUID. */
static int sm_cmp(const void *x, const void *y)
{
	const struct topo_sm *a = x, *b = y;

	if (a->answered != b->answered)
		return a->answered ? -1 : 1;
	if (a->state != b->state)
		return a->state > b->state ? -1 : 1;
	if (a->priority != b->priority)
		return a->priority > b->priority ? -1 : 1;
	if (a->guid != b->guid)
		return a->guid < b->guid ? -1 : 1;
	return strcmp(a->port->node->name, b->port->node->name);
}

int ib_sm_check(struct topo *t, struct ib_checks *c)
{
	struct ib_sm_report *sr = &c->sm;
	const struct topo_sm *m = NULL;
	int rc = 0;

	if (!t->sms_read) {
		sr->skipped = "SMInfo not read (it is read by a live walk; a cache file has none)";
		return 0;
	}
	sr->ran = true;
	if (t->n_sms)
		qsort(t->sms, t->n_sms, sizeof(*t->sms), sm_cmp);
	for (size_t i = 0; i < t->n_sms && rc == 0; i++) {
		const struct topo_sm *s = &t->sms[i];

		if (!s->answered) {
			sr->n_silent++;
			rc = sm_problem(t, s->port, "the port runs a subnet manager (IsSM) but did not "
					"answer SMInfo");
			continue;
		}
		sr->n_masters += s->state == TOPO_SM_MASTER;
		sr->n_standby += s->state == TOPO_SM_STANDBY;
		if (s->state == TOPO_SM_MASTER)
			m = m ? m : s;
	}
	if (rc < 0)
		return rc;
	if (!sr->n_masters && t->n_sms)
		return sm_problem(t, NULL, "no master subnet manager: %zu ports run one, none is "
				  "master", t->n_sms);
	if (!sr->n_masters)
		return sm_problem(t, NULL, "no subnet manager: no port has IsSM set");
	if (sr->n_masters > 1) {
		for (size_t i = 0; i < t->n_sms && rc == 0; i++)
			if (t->sms[i].answered && t->sms[i].state == TOPO_SM_MASTER)
				rc = sm_problem(t, t->sms[i].port, "%zu master subnet managers at once "
						"(this one priority %u, guid 0x%016" PRIx64 ")",
						sr->n_masters, t->sms[i].priority, t->sms[i].guid);
		return rc;
	}
	sr->master = m;
	sr->agree = !sr->n_silent;
	return sm_master_checks(t, sr);
}
