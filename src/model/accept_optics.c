// SPDX-License-Identifier: GPL-2.0-or-later
/* accept's rule for a new host's cable ends; see accept_optics.h. */
#include <errno.h>
#include <string.h>

#include "model/accept_optics.h"
#include "util/str.h"

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

/* Did @p (the earlier reading of the port) say finding @f already? */
static bool said(const struct optics_port *p, const struct optics_finding *f)
{
	for (size_t i = 0; p && i < p->verdict.n; i++)
		if (p->verdict.f[i].lane == f->lane && strcmp(p->verdict.f[i].code, f->code) == 0)
			return true;
	return false;
}

/* Is every finding of @p's verdict one @seen said? */
static bool all_said(const struct optics_port *p, const struct optics_port *seen)
{
	for (size_t i = 0; i < p->verdict.n; i++)
		if (!said(seen, &p->verdict.f[i]))
			return false;
	return true;
}

static int port_finding(struct accept_report *r, enum accept_stage st, const char *node,
			const struct optics_port *p)
{
	const struct optics_verdict *v = &p->verdict;
	const struct optics_finding *w = optics_verdict_worst(v);
	const struct fab_module *m = &p->mod;
	const char *hint = w && w->hint ? optics_hint_text(w->hint) : NULL;
	char more[48] = "";

	if (v->n > 1)
		str_fmt(more, sizeof(more), "; %zu findings in all", v->n);
	return accept_finding_add(r, st, v->health == OPTICS_FAILING ? FAB_COUNTER_OPTICS_FAILING
								     : FAB_COUNTER_OPTICS_MARGINAL,
				  node, "", "%s %s: %s%s%s (module %s %s %s sn %s)%s", p->ifname,
				  optics_health_name(v->health), w ? w->text : "", hint ? "; " : "",
				  hint ? hint : "", dash(m->type), dash(m->vendor), dash(m->pn),
				  dash(m->sn), more);
}

/* Name @node's port @ifname in @c's noted ends; ", ..." once there is no room. */
static void note_end(struct accept_optics_count *c, const char *node, const char *ifname)
{
	size_t len = strlen(c->noted_ends), room = sizeof(c->noted_ends) - len;
	char one[sizeof(c->noted_ends)];

	c->noted++;
	if (len >= 5 && strcmp(c->noted_ends + len - 5, ", ...") == 0)
		return;
	str_fmt(one, sizeof(one), "%s%s %s", len ? ", " : "", node, ifname);
	if (strlen(one) + sizeof(", ...") <= room)
		str_fmt(c->noted_ends + len, room, "%s", one);
	else
		str_fmt(c->noted_ends + len, room, "%s", len ? ", ..." : "...");
}

int accept_optics_findings(struct accept_report *r, enum accept_stage st, const char *node,
			   const struct optics_set *s, const struct optics_set *seen,
			   bool marginal_note, struct accept_optics_count *c)
{
	c->hosts++;
	for (size_t i = 0; i < s->n; i++) {
		const struct optics_port *p = &s->v[i];
		const struct optics_port *q = seen ? optics_set_find(seen, p->ifname) : NULL;

		if (p->module_rc) {
			c->unread++;
			continue;
		}
		c->ports++;
		if (p->verdict.health < OPTICS_MARGINAL || (seen && all_said(p, q)))
			continue;
		if (p->verdict.health == OPTICS_FAILING) {
			c->failing++;
		} else {
			c->marginal++;
			if (marginal_note) {
				note_end(c, node, p->ifname);
				continue;
			}
		}
		if (port_finding(r, st, node, p) < 0)
			return -ENOMEM;
	}
	return 0;
}
