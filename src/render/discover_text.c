// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover, text: one line per link (unhealthy ones marked '!'), then the
 * problems, then a summary line.  In the manner of iblinkinfo.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "model/topo.h"
#include "render/render_impl.h"

static void end_label(char *buf, size_t len, const char *node, unsigned int num,
		      const char *port_name)
{
	if (port_name && *port_name)
		snprintf(buf, len, "\"%s\" %s", node, port_name);
	else
		snprintf(buf, len, "\"%s\"[%u]", node, num);
}

static void port_label(char *buf, size_t len, const struct topo_port *p)
{
	end_label(buf, len, p->node->name, p->num, p->name);
}

static void rate(char *buf, size_t len, const struct topo_port *p)
{
	const char *sp = topo_speed_name(p->lane_mbps);

	if ((p->facts & TOPO_F_WIDTH) && p->width_x && sp)
		snprintf(buf, len, "%ux%s", p->width_x, sp);
	else if ((p->facts & TOPO_F_SPEED) && p->lane_mbps)
		snprintf(buf, len, "%uMb/s", p->lane_mbps * (p->width_x ? p->width_x : 1));
	else
		snprintf(buf, len, "-");
}

static void text_end(FILE *f, const char *what, const struct topo_end *e)
{
	char l[220];

	end_label(l, sizeof(l), *e->node ? e->node : "?", e->port, e->port_name);
	fprintf(f, " %s%s", what, l);
}

int discover_text(struct render *out, const struct topo *t)
{
	const char *bad_on = out->color ? "\033[31m" : "", *bad_off = out->color ? "\033[0m" : "";
	size_t n_sw = 0, n_ca = 0, n_host = 0;
	FILE *f = out->f;

	for (size_t i = 0; i < t->n_nodes; i++) {
		n_sw += t->nodes[i]->type == TOPO_NODE_SWITCH;
		n_ca += t->nodes[i]->type == TOPO_NODE_CA;
		n_host += t->nodes[i]->type == TOPO_NODE_HOST;
	}
	for (size_t i = 0; i < t->n_links; i++) {
		const struct topo_link *l = t->links[i];
		char a[220], b[220], r[32];
		bool bad = l->status != TOPO_LINK_OK;

		port_label(a, sizeof(a), l->a);
		port_label(b, sizeof(b), l->b);
		rate(r, sizeof(r), l->a);
		fprintf(f, "%s%c %-40s <-> %-40s %-8s %s%s\n", bad ? bad_on : "", bad ? '!' : ' ',
			a, b, r, topo_link_status_name(l->status), bad ? bad_off : "");
	}
	if (t->n_problems)
		fprintf(f, "\nproblems:\n");
	for (size_t i = 0; i < t->n_problems; i++) {
		const struct topo_problem *p = &t->problems[i];

		fprintf(f, "%s  %-12s", bad_on, topo_problem_kind_name(p->kind));
		if (p->has_a)
			text_end(f, "", &p->a);
		if (p->has_b)
			text_end(f, "<-> ", &p->b);
		if (p->has_expected)
			text_end(f, "expected ", &p->expected);
		if (*p->detail)
			fprintf(f, ": %s", p->detail);
		fprintf(f, "%s\n", bad_off);
	}
	fprintf(f, "\n%zu node%s (%zu switch%s, %zu ca%s, %zu host%s), %zu link%s, %zu problem%s\n",
		t->n_nodes, t->n_nodes == 1 ? "" : "s", n_sw, n_sw == 1 ? "" : "es",
		n_ca, n_ca == 1 ? "" : "s", n_host, n_host == 1 ? "" : "s",
		t->n_links, t->n_links == 1 ? "" : "s", t->n_problems, t->n_problems == 1 ? "" : "s");
	return fflush(f) == EOF ? -EIO : 0;
}
