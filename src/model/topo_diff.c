// SPDX-License-Identifier: GPL-2.0-or-later
/* Discovered graph versus cabling plan; rail alignment.  See topo_diff.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/topo_diff.h"
#include "util/str.h"

void topo_diff_opts_default(struct topo_diff_opts *o)
{
	o->check_speed = true;
}

struct link_mark {
	const struct topo_link *link;
	bool reported;
};

static int mark_cmp(const void *x, const void *y)
{
	const struct link_mark *a = x, *b = y;

	return a->link < b->link ? -1 : a->link > b->link;
}

static struct link_mark *mark_find(struct link_mark *marks, size_t n, const struct topo_link *l)
{
	struct link_mark key = { .link = l };

	return bsearch(&key, marks, n, sizeof(*marks), mark_cmp);
}

static int add_problem(struct topo *t, enum topo_problem_kind kind,
		       const struct topo_port *a, const struct topo_port *b,
		       const struct topo_port *expected, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static int add_problem(struct topo *t, enum topo_problem_kind kind,
		       const struct topo_port *a, const struct topo_port *b,
		       const struct topo_port *expected, const char *fmt, ...)
{
	struct topo_problem pr = { .kind = kind };
	va_list ap;

	if (a) {
		pr.has_a = true;
		topo_end_from_port(&pr.a, a);
	}
	if (b) {
		pr.has_b = true;
		topo_end_from_port(&pr.b, b);
	}
	if (expected) {
		pr.has_expected = true;
		topo_end_from_port(&pr.expected, expected);
	}
	va_start(ap, fmt);
	str_vfmt(pr.detail, sizeof(pr.detail), fmt, ap);
	va_end(ap);
	return topo_problem_add(t, &pr);
}

/* The link's status is the worst of what was found on it. */
static void link_worsen(struct topo_link *l, enum topo_link_status s)
{
	if (l && s > l->status)
		l->status = s;
}

static bool port_is_down(const struct topo_port *p)
{
	return p && (p->facts & TOPO_F_STATE) &&
	       (p->state == TOPO_PORT_DOWN || p->phys_state == TOPO_PHYS_POLLING ||
		p->phys_state == TOPO_PHYS_DISABLED || p->phys_state == TOPO_PHYS_SLEEP);
}

/* A port as discover's text names one: "node"[N], or "node" NAME (a named port). */
static void port_label(char *buf, size_t len, const struct topo_port *p)
{
	if (*p->name)
		str_fmt(buf, len, "\"%s\" %s", p->node->name, p->name);
	else
		str_fmt(buf, len, "\"%s\"[%u]", p->node->name, p->num);
}

/* The Ethernet speed of @p's link: the smaller of its ends' known eth_mbps; 0 unknown. */
static unsigned int eth_link_mbps(const struct topo_port *p)
{
	unsigned int a = p->eth_mbps, b = p->peer ? p->peer->eth_mbps : 0;

	return !a ? b : !b ? a : a < b ? a : b;
}

/* Width/speed of a found link against the plan (Ethernet: speed_mbps against eth_mbps). */
static int diff_rate(struct topo *found, struct topo_port *fp, const struct topo_port *ep)
{
	char w[48] = "", s[64] = "";
	const struct topo_port *fq = fp->peer;

	if (fp->link->status == TOPO_LINK_DEGRADED)
		return 0;	/* the health check said it already */
	if ((ep->facts & TOPO_F_WIDTH) && (fp->facts & TOPO_F_WIDTH) && ep->width_x &&
	    fp->width_x && fp->width_x < ep->width_x)
		str_fmt(w, sizeof(w), "width %ux, expected %ux", fp->width_x, ep->width_x);
	if ((ep->facts & TOPO_F_SPEED) && (fp->facts & TOPO_F_SPEED) && ep->lane_mbps &&
	    fp->lane_mbps && fp->lane_mbps < ep->lane_mbps) {
		const char *a = topo_speed_name(fp->lane_mbps), *e = topo_speed_name(ep->lane_mbps);

		str_fmt(s, sizeof(s), "speed %s, expected %s", a ? a : "?", e ? e : "?");
	} else if (!(fp->facts & TOPO_F_SPEED) && (ep->facts & TOPO_F_SPEED) && ep->lane_mbps) {
		/* Ethernet: the plan's speed_mbps against the nodes' own (eth_mbps). */
		unsigned int want = ep->lane_mbps * (ep->width_x ? ep->width_x : 1);
		unsigned int have = eth_link_mbps(fp);

		if (have && have < want)
			str_fmt(s, sizeof(s), "speed %u Mb/s, expected %u Mb/s", have, want);
	}
	if (!*w && !*s)
		return 0;
	if (fp->link->status < TOPO_LINK_DEGRADED)
		fp->link->status = TOPO_LINK_DEGRADED;
	return add_problem(found, TOPO_PROB_DEGRADED, fp, fq, NULL, "%s%s%s", w,
			   *w && *s ? ", " : "", s);
}

/*
 * @fp (found, planned to reach @eq) is linked to another port: report its
 * cable once.
 */
static int diff_miswired(struct topo *found, struct link_mark *marks, size_t n_marks,
			 struct topo_port *fp, const struct topo_port *eq)
{
	struct link_mark *m = mark_find(marks, n_marks, fp->link);
	char want[200];

	if (!m || m->reported)
		return 0;
	m->reported = true;
	link_worsen(fp->link, TOPO_LINK_MISWIRED);
	port_label(want, sizeof(want), eq);
	return add_problem(found, TOPO_PROB_MISWIRED, fp, fp->peer, eq, "should go to %s", want);
}

static int diff_planned(struct topo *found, const struct topo_link *el,
			struct link_mark *marks, size_t n_marks, const struct topo_diff_opts *o)
{
	const struct topo_port *ea = el->a, *eb = el->b;
	struct topo_port *fa = topo_port_match(found, ea), *fb = topo_port_match(found, eb);
	struct link_mark *m;
	int rc = 0;

	if (fa && fb && fa->peer == fb) {
		m = mark_find(marks, n_marks, fa->link);
		if (m)
			m->reported = true;	/* planned: never "unexpected" */
		return o->check_speed ? diff_rate(found, fa, ea) : 0;
	}
	if (fa && fa->peer)
		rc = diff_miswired(found, marks, n_marks, fa, eb);
	if (rc == 0 && fb && fb->peer)
		rc = diff_miswired(found, marks, n_marks, fb, ea);
	if (rc < 0 || (fa && fa->peer) || (fb && fb->peer))
		return rc;
	if (port_is_down(fa) || port_is_down(fb)) {
		const struct topo_port *d = port_is_down(fa) ? fa : fb;

		return add_problem(found, TOPO_PROB_DOWN, fa ? fa : NULL, NULL, eb,
				   "planned link, port %s/%s", topo_port_state_name(d->state),
				   topo_phys_state_name(d->phys_state));
	}
	{
		struct topo_problem pr = { .kind = TOPO_PROB_MISSING, .has_a = true,
					   .has_expected = true };
		char lb[200];

		topo_end_from_port(&pr.a, ea);
		topo_end_from_port(&pr.expected, eb);
		port_label(lb, sizeof(lb), eb);
		str_fmt(pr.detail, sizeof(pr.detail), "no cable to %s%s", lb,
			 !topo_node_match(found, ea->node) ? " (node not found)" :
			 !topo_node_match(found, eb->node) ? " (peer node not found)" : "");
		return topo_problem_add(found, &pr);
	}
}

int topo_diff(struct topo *found, const struct topo *expected, const struct topo_diff_opts *o)
{
	struct topo_diff_opts def;
	struct link_mark *marks = NULL;
	size_t n = found->n_links;
	int rc = 0;

	if (!o) {
		topo_diff_opts_default(&def);
		o = &def;
	}
	if (n) {
		marks = calloc(n, sizeof(*marks));
		if (!marks)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			marks[i].link = found->links[i];
		qsort(marks, n, sizeof(*marks), mark_cmp);
	}
	for (size_t i = 0; i < expected->n_links && rc == 0; i++)
		rc = diff_planned(found, expected->links[i], marks, n, o);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct topo_link *fl = found->links[i];
		struct topo_port *ea, *eb;

		if (mark_find(marks, n, fl)->reported)
			continue;
		ea = topo_port_match(expected, fl->a);
		eb = topo_port_match(expected, fl->b);
		if (ea && eb && ea->peer == eb)
			continue;
		link_worsen(fl->a->link, TOPO_LINK_UNEXPECTED);
		rc = add_problem(found, TOPO_PROB_UNEXPECTED, fl->a, fl->b, NULL, "not in the plan");
	}
	free(marks);
	return rc;
}

/* ---- rails ---- */

struct rail_nic {
	const struct topo_node *nic;
	char host[128];
	unsigned int index;		/* rail index within its host */
	const struct topo_port *port;	/* the NIC port that reaches a leaf */
};

static int rail_nic_cmp(const void *x, const void *y)
{
	const struct rail_nic *a = x, *b = y;
	int c = strcmp(a->host, b->host);

	return c ? c : strcmp(a->nic->name, b->nic->name);
}

int topo_rail_check(struct topo *t)
{
	struct rail_nic *nics = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*nics));
	size_t n = 0;
	int rc = 0;

	if (!nics)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *nd = t->nodes[i];
		const struct topo_port *p = NULL;
		const char *sp;

		if (nd->type != TOPO_NODE_CA && nd->type != TOPO_NODE_HOST)
			continue;
		for (size_t j = 0; j < nd->n_ports && !p; j++)
			if (nd->ports[j]->peer && nd->ports[j]->peer->node->type == TOPO_NODE_SWITCH)
				p = nd->ports[j];
		sp = strchr(nd->name, ' ');
		if (!p || !sp || sp == nd->name)
			continue;
		nics[n].nic = nd;
		nics[n].port = p;
		str_fmt(nics[n].host, sizeof(nics[n].host), "%.*s", (int)(sp - nd->name), nd->name);
		n++;
	}
	if (n)
		qsort(nics, n, sizeof(*nics), rail_nic_cmp);
	for (size_t i = 0; i < n; i++)
		nics[i].index = i && strcmp(nics[i].host, nics[i - 1].host) == 0 ?
				nics[i - 1].index + 1 : 0;
	/* For each leaf: the rail most of its NICs belong to; report the others. */
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct topo_node *leaf = nics[i].port->peer->node;
		unsigned int count[64] = { 0 }, best = 0;
		bool multi_nic_host = false;

		for (size_t j = 0; j < n; j++) {
			if (nics[j].port->peer->node != leaf || nics[j].index >= 64)
				continue;
			count[nics[j].index]++;
			multi_nic_host |= nics[j].index > 0;
		}
		for (unsigned int k = 1; k < 64; k++)
			if (count[k] > count[best])
				best = k;
		if (nics[i].index == best || nics[i].index >= 64)
			continue;
		if (!multi_nic_host && best == 0)
			continue;
		{
			struct topo_problem pr = { .kind = TOPO_PROB_RAIL, .has_a = true, .has_b = true };

			topo_end_from_port(&pr.a, nics[i].port);
			topo_end_from_port(&pr.b, nics[i].port->peer);
			str_fmt(pr.detail, sizeof(pr.detail),
				 "nic %u of %s reaches a leaf of rail %u", nics[i].index,
				 nics[i].host, best);
			link_worsen(nics[i].port->link, TOPO_LINK_RAIL);
			rc = topo_problem_add(t, &pr);
		}
	}
	free(nics);
	return rc;
}
