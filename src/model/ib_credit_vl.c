// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Credit loops per virtual lane (ib_checks.h: ib_credit_vl_check()).
 *
 * The one-VL graph of ib_route_check.c merges every lane of a link into
 * one channel.  Here a channel is (link direction, VL): each CA pair's
 * route is followed through the LFTs hop by hop with the SL of its path,
 * each switch-to-switch hop on the VL its switch's SL2VL table gives that
 * SL for (input port, output port), and consecutive hops make a
 * dependency between their (channel, VL).  A subnet manager that breaks
 * the loops of a ring or torus by lanes (opensm's lash, dfsssp) leaves
 * every lane's graph acyclic; tables that put every SL on VL 0 leave the
 * one-VL loops where they were.  Hops at a switch whose table was not
 * read go on VL 0, and are counted.
 *
 * One route at a time, O(pairs x hops): only run when the one-VL graph
 * has a loop (a graph without a cycle has none when split by lanes: a
 * cycle over (channel, VL) is a closed walk over the channels).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/ib_cdg.h"
#include "model/ib_checks.h"
#include "model/ib_vl.h"
#include "model/ptr_index.h"
#include "util/str.h"

#define CH_NONE UINT32_MAX
#define CYCLES_MAX 4096		/* cycles looked at to count the loops of each VL */

struct cv {
	struct topo *t;
	const struct ib_vl_data *vd;
	struct ib_credit_report *cr;
	struct ptr_index link_ix, sw_ix;
	const struct ib_sl2vl **tab;	/* per switch of sw_ix: its tables, or NULL */
	size_t n_sw;
	uint16_t *used;			/* per channel: a bit per VL a route takes it on */
	size_t deps_vl[IB_VL_N];
	struct ib_cdg *g;
};

static bool port_active(const struct topo_port *p)
{
	return !(p->facts & TOPO_F_STATE) || p->state == TOPO_PORT_ACTIVE;
}

/* As ib_route_check.c: a CA or router port, linked, both ends active, with a LID. */
static bool ca_usable(const struct topo_port *p)
{
	return p->node->type != TOPO_NODE_SWITCH && p->peer && p->lid &&
	       (p->facts & TOPO_F_LID) && port_active(p) && port_active(p->peer);
}

static uint32_t chan(const struct cv *v, const struct topo_port *p)
{
	size_t i = ptr_index_find(&v->link_ix, p->link);

	return (uint32_t)(2 * i + (p->link->b == p));
}

static int cv_init(struct cv *v)
{
	const struct topo *t = v->t;
	size_t k = 0;

	for (size_t i = 0; i < t->n_nodes; i++)
		v->n_sw += t->nodes[i]->type == TOPO_NODE_SWITCH;
	v->tab = calloc(v->n_sw + 1, sizeof(*v->tab));
	v->used = calloc(2 * t->n_links + 1, sizeof(*v->used));
	v->g = ib_cdg_new((uint32_t)(2 * t->n_links * IB_VL_N));
	if (!v->tab || !v->used || !v->g || ptr_index_init(&v->sw_ix, v->n_sw) < 0 ||
	    ptr_index_init(&v->link_ix, t->n_links) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_nodes; i++) {
		if (t->nodes[i]->type != TOPO_NODE_SWITCH)
			continue;
		v->tab[k] = ib_vl_data_switch(v->vd, t->nodes[i]);
		ptr_index_set(&v->sw_ix, k++, t->nodes[i]);
	}
	ptr_index_sort(&v->sw_ix);
	for (size_t i = 0; i < t->n_links; i++)
		ptr_index_set(&v->link_ix, i, t->links[i]);
	ptr_index_sort(&v->link_ix);
	return 0;
}

static void cv_fini(struct cv *v)
{
	free(v->tab);
	free(v->used);
	ib_cdg_free(v->g);
	ptr_index_fini(&v->sw_ix);
	ptr_index_fini(&v->link_ix);
}

/* @from -> @to, counted on its lane (or across lanes) when new. */
static int dep_add(struct cv *v, uint32_t from, uint32_t to)
{
	size_t before = ib_cdg_n_edges(v->g);

	if (ib_cdg_add(v->g, from, to) < 0)
		return -ENOMEM;
	if (ib_cdg_n_edges(v->g) == before)
		return 0;
	if (from % IB_VL_N == to % IB_VL_N)
		v->deps_vl[to % IB_VL_N]++;
	else
		v->cr->n_cross_deps++;
	return 0;
}

/* The VL the switch @in enters puts @sl on towards @out (IB_VL_UNREAD counted, VL 0). */
static unsigned int hop_vl(struct cv *v, const struct topo_port *in, unsigned int out,
			   unsigned int sl)
{
	size_t si = ptr_index_find(&v->sw_ix, in->node);
	unsigned int vl = ib_sl2vl_get(si == SIZE_MAX ? NULL : v->tab[si], in->num, out, sl);

	if (vl != IB_VL_UNREAD)
		return vl;
	v->cr->n_unmapped++;
	return 0;
}

/* One route, @src to @dlid, hop by hop through the switches; ends where ib_route_check.c's would. */
static int walk(struct cv *v, const struct topo_port *src, unsigned int dlid)
{
	unsigned int sl = ib_vl_path_sl(v->vd, src->lid, dlid);
	const struct topo_port *in = src->peer;
	uint32_t prev = CH_NONE;

	for (size_t hop = 0; hop <= v->n_sw && in->node->type == TOPO_NODE_SWITCH; hop++) {
		const struct topo_node *n = in->node;
		unsigned int op = n->lft && dlid <= n->lft_top ? n->lft[dlid] : TOPO_LFT_NONE, vl;
		const struct topo_port *p = op && op != TOPO_LFT_NONE ? topo_port_find(n, op, NULL) :
					    NULL;
		uint32_t cur;

		/* Only switch-to-switch channels can hold a loop. */
		if (!p || !p->peer || p->peer->node->type != TOPO_NODE_SWITCH || !port_active(p) ||
		    !port_active(p->peer))
			break;
		vl = hop_vl(v, in, op, sl);
		if (vl == IB_VL_DROP) {
			v->cr->n_dropped++;
			break;
		}
		cur = chan(v, p) * IB_VL_N + vl;
		v->used[cur / IB_VL_N] |= (uint16_t)(1u << vl);
		if (prev != CH_NONE && dep_add(v, prev, cur) < 0)
			return -ENOMEM;
		prev = cur;
		in = p->peer;
	}
	return 0;
}

/* Every other CA port's routes to @dst's LIDs. */
static int dest_walk(struct cv *v, const struct topo_port *dst)
{
	const struct topo *t = v->t;

	for (size_t a = 0; a < t->n_nodes; a++)
		for (size_t b = 0; b < t->nodes[a]->n_ports; b++) {
			const struct topo_port *src = t->nodes[a]->ports[b];

			if (src == dst || !ca_usable(src) || src->peer->node->type != TOPO_NODE_SWITCH)
				continue;
			for (unsigned int o = 0; o < (1u << (dst->lmc & 7)); o++)
				if (walk(v, src, dst->lid + o) < 0)
					return -ENOMEM;
		}
	return 0;
}

static int walk_all(struct cv *v)
{
	const struct topo *t = v->t;

	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++)
			if (ca_usable(t->nodes[i]->ports[j]) &&
			    dest_walk(v, t->nodes[i]->ports[j]) < 0)
				return -ENOMEM;
	return 0;
}

/* ---- the report ---- */

void ib_credit_report_fini(struct ib_credit_report *cr)
{
	for (size_t i = 0; i < cr->n_listed; i++) {
		free(cr->loops[i].ch);
		free(cr->loops[i].vl);
	}
	free(cr->loops);
	free(cr->per_vl);
	memset(cr, 0, sizeof(*cr));
}

/* The VL of every channel of @cy when they share one; IB_VL_N when they do not. */
static unsigned int cycle_vl(const struct ib_cdg_cycle *cy)
{
	unsigned int vl = cy->ch[0] % IB_VL_N;

	for (size_t k = 1; k < cy->n; k++)
		if (cy->ch[k] % IB_VL_N != vl)
			return IB_VL_N;
	return vl;
}

static int loop_fill(const struct cv *v, struct ib_loop *l, const struct ib_cdg_cycle *cy)
{
	l->ch = calloc(cy->n + 1, sizeof(*l->ch));
	l->vl = calloc(cy->n + 1, sizeof(*l->vl));
	if (!l->ch || !l->vl)
		return -ENOMEM;
	l->n = cy->n;
	l->component = cy->scc_size;
	for (size_t k = 0; k < cy->n; k++) {
		uint32_t c = cy->ch[k] / IB_VL_N;
		const struct topo_link *lk = v->t->links[c / 2];

		l->ch[k] = c % 2 ? lk->b : lk->a;
		l->vl[k] = (uint8_t)(cy->ch[k] % IB_VL_N);
	}
	return 0;
}

static int loops_fill(struct cv *v, size_t loops_vl[IB_VL_N])
{
	struct ib_credit_report *cr = v->cr;
	struct ib_cdg_cycle *cy = NULL;
	size_t n = 0;
	int rc = ib_cdg_cycles(v->g, CYCLES_MAX, &cy, &n, &cr->n_loops);

	if (rc < 0)
		return rc;
	cr->loops = calloc(n < IB_LOOPS_LIST_MAX ? n + 1 : IB_LOOPS_LIST_MAX, sizeof(*cr->loops));
	if (!cr->loops)
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		unsigned int vl = cycle_vl(&cy[i]);

		if (vl < IB_VL_N)
			loops_vl[vl]++;
		else
			cr->n_cross_loops++;
		if (cr->n_listed < IB_LOOPS_LIST_MAX)
			rc = loop_fill(v, &cr->loops[cr->n_listed++], &cy[i]);
	}
	ib_cdg_cycles_free(cy, n);
	return rc;
}

static int per_vl_fill(struct cv *v, const size_t loops_vl[IB_VL_N])
{
	struct ib_credit_report *cr = v->cr;
	size_t chans[IB_VL_N] = { 0 };

	for (size_t c = 0; c < 2 * v->t->n_links; c++)
		for (unsigned int vl = 0; vl < IB_VL_N; vl++)
			chans[vl] += (v->used[c] >> vl) & 1;
	cr->per_vl = calloc(IB_VL_N, sizeof(*cr->per_vl));
	if (!cr->per_vl)
		return -ENOMEM;
	for (unsigned int vl = 0; vl < IB_VL_N; vl++) {
		if (!chans[vl])
			continue;
		cr->per_vl[cr->n_per_vl++] = (struct ib_vl_figures){
			.vl = vl, .n_channels = chans[vl], .n_deps = v->deps_vl[vl],
			.n_loops = loops_vl[vl],
		};
		cr->n_channels += chans[vl];
	}
	cr->vls = (unsigned int)cr->n_per_vl;
	return 0;
}

/* ---- problems ---- */

static void problems_drop_loops(struct topo *t)
{
	size_t k = 0;

	for (size_t i = 0; i < t->n_problems; i++)
		if (t->problems[i].kind != TOPO_PROB_CREDIT_LOOP)
			t->problems[k++] = t->problems[i];
	t->n_problems = k;
}

/* "5 channels on vl 1 (5 in its component): "a"[5]->"b"[1], ..." into @d. */
static void loop_detail(const struct ib_loop *l, char *d, size_t len)
{
	bool one = true;
	size_t off;

	for (size_t k = 1; k < l->n; k++)
		one &= l->vl[k] == l->vl[0];
	if (one)
		off = (size_t)str_fmt(d, len, "%zu channels on vl %u (%zu in its component): ",
				      l->n, l->vl[0], l->component);
	else
		off = (size_t)str_fmt(d, len, "%zu channels over several vls (%zu in its "
				      "component): ", l->n, l->component);
	for (size_t k = 0; k < l->n && off < len; k++) {
		off += (size_t)str_fmt(d + off, len - off, "%s\"%s\"[%u]->\"%s\"[%u]", k ? ", " : "",
				       l->ch[k]->node->name, l->ch[k]->num,
				       l->ch[k]->peer->node->name, l->ch[k]->peer->num);
		if (!one && off < len)
			off += (size_t)str_fmt(d + off, len - off, " vl %u", l->vl[k]);
	}
}

static int loops_to_problems(struct topo *t, const struct ib_credit_report *cr)
{
	problems_drop_loops(t);
	for (size_t i = 0; i < cr->n_listed; i++) {
		struct topo_problem p = { .kind = TOPO_PROB_CREDIT_LOOP, .has_a = true, .has_b = true };
		const struct ib_loop *l = &cr->loops[i];
		int rc;

		topo_end_from_port(&p.a, l->ch[0]);
		topo_end_from_port(&p.b, l->ch[0]->peer);
		loop_detail(l, p.detail, sizeof(p.detail));
		rc = topo_problem_add(t, &p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int ib_credit_vl_check(struct topo *t, struct ib_checks *c, const struct ib_vl_data *vd)
{
	struct ib_credit_report *cr = &c->credit;
	struct cv v = { .t = t, .vd = vd, .cr = cr };
	size_t loops_vl[IB_VL_N] = { 0 };
	int rc;

	if (!cr->ran)
		return 0;
	ib_credit_report_fini(cr);
	cr->ran = cr->by_vl = true;
	cr->n_tables = vd->n_tables;
	str_fmt(cr->path_sls, sizeof(cr->path_sls), "%s", vd->sls_read ? "sa" :
		*vd->sl_note ? vd->sl_note : "not read: sl 0 assumed");
	rc = cv_init(&v);
	if (rc == 0)
		rc = walk_all(&v);
	if (rc == 0)
		rc = loops_fill(&v, loops_vl);
	if (rc == 0)
		rc = per_vl_fill(&v, loops_vl);
	if (v.g)
		cr->n_deps = ib_cdg_n_edges(v.g);
	if (rc == 0)
		rc = loops_to_problems(t, cr);
	cv_fini(&v);
	return rc;
}
