// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover --format dot: a Graphviz graph.  Switches are boxes, CAs and
 * hosts ellipses; each link is an edge labelled with its ports and rate;
 * unhealthy links are red and bold, with their status in the label.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/topo.h"
#include "render/render_impl.h"

/* A DOT string literal: escape quotes and backslashes; newlines become \\n. */
static void dot_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", f);	/* a line break inside the label */
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static size_t node_index(const struct topo *t, const struct topo_node *n)
{
	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i] == n)
			return i;
	return 0;
}

static void port_ref(char *buf, size_t len, const struct topo_port *p)
{
	if (*p->name)
		snprintf(buf, len, "%s", p->name);
	else
		snprintf(buf, len, "%u", p->num);
}

static int dot_discover(struct render *out, const struct topo *t)
{
	FILE *f = out->f;

	fprintf(f, "graph fabric {\n\tgraph [overlap=false, splines=true];\n"
		   "\tnode [fontsize=10];\n\tedge [fontsize=8];\n");
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *n = t->nodes[i];
		char label[200];

		if (n->guid)
			snprintf(label, sizeof(label), "%s\n0x%016" PRIx64, n->name, n->guid);
		else
			snprintf(label, sizeof(label), "%s", n->name);
		fprintf(f, "\tn%zu [label=", i);
		dot_str(f, label);
		fprintf(f, ", shape=%s];\n", n->type == TOPO_NODE_SWITCH ? "box" : "ellipse");
	}
	for (size_t i = 0; i < t->n_links; i++) {
		const struct topo_link *l = t->links[i];
		const char *sp = topo_speed_name(l->a->lane_mbps);
		char pa[64], pb[64], label[200];
		bool bad = l->status != TOPO_LINK_OK;

		port_ref(pa, sizeof(pa), l->a);
		port_ref(pb, sizeof(pb), l->b);
		if ((l->a->facts & TOPO_F_WIDTH) && l->a->width_x && sp)
			snprintf(label, sizeof(label), "%ux%s%s%s", l->a->width_x, sp,
				 bad ? " " : "", bad ? topo_link_status_name(l->status) : "");
		else
			snprintf(label, sizeof(label), "%s", bad ? topo_link_status_name(l->status) : "");
		fprintf(f, "\tn%zu -- n%zu [taillabel=", node_index(t, l->a->node),
			node_index(t, l->b->node));
		dot_str(f, pa);
		fprintf(f, ", headlabel=");
		dot_str(f, pb);
		fprintf(f, ", label=");
		dot_str(f, label);
		if (bad)
			fprintf(f, ", color=red, penwidth=3, fontcolor=red");
		fprintf(f, "];\n");
	}
	fprintf(f, "}\n");
	return fflush(f) == EOF || ferror(f) ? -EIO : 0;
}

const struct render_ops render_dot_ops = {
	.name = "dot",
	.discover = dot_discover,
};
