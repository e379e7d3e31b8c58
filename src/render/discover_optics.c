// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover --lldp --hosts: the hosts' cable ends (model/topo_optics.h) in
 * discover's outputs (docs/optics.md "discover"): JSON "cables", a cable
 * each, worst first, with each judged end's module, its peer in the graph
 * and its verdict (optics_verdict_to_json(), as status and diagnose
 * write it), and for a host-to-host cable what both ends tell; text, after
 * the links: the ends counted by verdict, worst first, one line each for
 * the ends and cables that are not healthy, in the manner of status
 * --hosts's "modules:" lines.  Nothing at all when no host has a module.
 */
#include <stdio.h>
#include <string.h>

#include "model/topo_optics.h"
#include "render/optics.h"
#include "render/render_impl.h"

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

/* {"node", "port"} of graph port @p, null when none. */
static json_t *peer_json(const struct topo_port *p)
{
	if (!p)
		return json_null();
	return json_pack("{s:o, s:o}", "node", json_text(p->node->name),
			 "port", p->name[0] ? json_text(p->name) : json_integer(p->num));
}

static json_t *end_json(const struct topo_optics *o, const struct topo_optics_end *e)
{
	const struct fab_module *m = &e->port->mod;

	return json_pack("{s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o}, s:o}",
			 "node", json_text(o->names[e->host]), "ifname", json_text(e->port->ifname),
			 "peer", peer_json(e->at ? e->at->peer : NULL),
			 "module", "type", json_text_or_null(m->type),
			 "vendor", json_text_or_null(m->vendor), "pn", json_text_or_null(m->pn),
			 "sn", json_text_or_null(m->sn),
			 "verdict", optics_verdict_to_json(&e->port->verdict));
}

json_t *discover_optics_json(const struct topo_optics *o)
{
	json_t *a = json_array();

	for (size_t i = 0; a && o && i < o->n_cables; i++) {
		const struct topo_optics_cable *c = &o->cables[i];
		json_t *ends = json_array();

		for (size_t k = 0; k < c->n_ends; k++)
			json_array_append_new(ends, end_json(o, &c->end[k]));
		json_array_append_new(a, json_pack("{s:s, s:o, s:o}",
						   "health", optics_health_name(c->health),
						   "ends", ends, "both_ends", c->n_ends == 2 ?
						   optics_verdict_to_json(&c->both) : json_null()));
	}
	return a;
}

/* ": finding; hint" of @v's worst finding, and the newline. */
static void finding_text(FILE *f, struct render_txt *tx, const struct optics_verdict *v)
{
	const struct optics_finding *w = optics_verdict_worst(v);
	const char *hint = w && w->hint ? optics_hint_text(w->hint) : NULL;

	fprintf(f, ": %s%s%s", w ? render_txt(tx, w->text) : optics_health_name(v->health),
		hint ? "; " : "", hint ? hint : "");
	if (v->n > 1)
		fprintf(f, " (%zu findings)", v->n);
	fputc('\n', f);
}

/* "    h2 eth1 -> leaf1 swp3 QSFP28 Vendor PN sn SN: finding; hint". */
static void end_text(FILE *f, struct render_txt *tx, const struct topo_optics *o,
		     const struct topo_optics_end *e)
{
	const struct fab_module *m = &e->port->mod;
	const struct topo_port *peer = e->at ? e->at->peer : NULL;

	fprintf(f, "    %s %s", render_txt(tx, o->names[e->host]), render_txt(tx, e->port->ifname));
	if (peer && peer->name[0])
		fprintf(f, " -> %s %s", render_txt(tx, peer->node->name),
			render_txt(tx, peer->name));
	fprintf(f, " %s %s %s sn %s", render_txt(tx, dash(m->type)),
		render_txt(tx, dash(m->vendor)), render_txt(tx, dash(m->pn)),
		render_txt(tx, dash(m->sn)));
	finding_text(f, tx, &e->port->verdict);
}

/* "    h3 eth1 <-> h4 eth1, both ends: finding; hint". */
static void both_text(FILE *f, struct render_txt *tx, const struct topo_optics *o,
		      const struct topo_optics_cable *c)
{
	fprintf(f, "    %s %s <-> %s %s, both ends", render_txt(tx, o->names[c->end[0].host]),
		render_txt(tx, c->end[0].port->ifname), render_txt(tx, o->names[c->end[1].host]),
		render_txt(tx, c->end[1].port->ifname));
	finding_text(f, tx, &c->both);
}

/* Every end and both-ends verdict of health @h, under "  @h:" when there is one. */
static void level_text(FILE *f, struct render_txt *tx, const struct topo_optics *o,
		       enum optics_health h)
{
	bool head = false;

	for (size_t i = 0; i < o->n_cables; i++) {
		const struct topo_optics_cable *c = &o->cables[i];

		for (size_t k = 0; k < c->n_ends; k++) {
			if (c->end[k].port->verdict.health != h)
				continue;
			if (!head)
				fprintf(f, "  %s:\n", optics_health_name(h));
			head = true;
			end_text(f, tx, o, &c->end[k]);
		}
		if (c->n_ends == 2 && c->both.health == h) {
			if (!head)
				fprintf(f, "  %s:\n", optics_health_name(h));
			head = true;
			both_text(f, tx, o, c);
		}
	}
}

void discover_optics_text(FILE *f, const struct topo_optics *o)
{
	static const enum optics_health order[] = { OPTICS_FAILING, OPTICS_MARGINAL,
						    OPTICS_UNKNOWN, OPTICS_HEALTHY };
	struct render_txt tx = { .next = 0 };
	size_t n_read = 0, total = 0;
	bool first = true;

	if (!o || !o->n_cables)
		return;
	for (size_t i = 0; i < o->n_hosts; i++)
		n_read += o->read[i];
	for (size_t k = 0; k < 4; k++)
		total += o->n_ends[order[k]];
	fprintf(f, "\ncable ends: %zu node%s read, %zu cable end%s:", n_read,
		n_read == 1 ? "" : "s", total, total == 1 ? "" : "s");
	for (size_t k = 0; k < 4; k++) {
		if (!o->n_ends[order[k]])
			continue;
		fprintf(f, "%s %zu %s", first ? "" : ",", o->n_ends[order[k]],
			optics_health_name(order[k]));
		first = false;
	}
	if (n_read < o->n_hosts)
		fprintf(f, "; %zu node%s not read", o->n_hosts - n_read,
			o->n_hosts - n_read == 1 ? "" : "s");
	fputc('\n', f);
	for (size_t k = 0; k < 3; k++)
		level_text(f, &tx, o, order[k]);
}
