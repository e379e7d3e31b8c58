// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Routes of every CA pair through the linear forwarding tables, at once
 * (ib_checks.h: routes, and the loads and dependencies that balance and
 * credit-loops need).
 *
 * Forwarding depends on the destination LID only, so the work is done one
 * destination at a time: every switch's next hop towards it is resolved
 * once (a chain of switches is followed until it reaches the CA, breaks,
 * or meets a switch resolved before; all on the chain take that answer),
 * and every source CA port only looks up the switch its cable enters.
 * Then the sources are pushed along the resolved next hops, farthest
 * switch first, which gives the routes per channel and the dependencies
 * between the channels actually used.  O(destinations x switches), not
 * O(pairs x hops): a 1296-HCA fat tree is 1.7 million pairs and 470,000
 * switch lookups.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/ib_cdg.h"
#include "model/ib_checks.h"
#include "model/ptr_index.h"
#include "util/array.h"
#include "util/str.h"

#define SW_NONE UINT32_MAX
#define LID_MAX 0xc000u		/* unicast LIDs are 1 .. 0xbfff */

enum sw_state { ST_NEW = 0, ST_VISITING, ST_OK, ST_FAIL };

/* Where a route breaks: one per switch entry found broken, per destination. */
struct brk {
	uint32_t sw;
	unsigned int port;
	const struct topo_port *to;
	enum ib_break why;
};

/* Unreachable pairs that break at the same place, for one problem each. */
struct group {
	uint64_t key;			/* group_key() */
	uint32_t sw;
	enum ib_break why;
	unsigned int port;		/* the entry's port (or TOPO_LFT_NONE) */
	unsigned int dlid;		/* per-entry breaks only; 0 for link and table breaks */
	const struct topo_port *to, *dst;
	size_t n_pairs, n_lids;
	unsigned int last_dlid;		/* counts n_lids */
	const struct topo_port *ex[3];	/* first sources */
	size_t n_ex;
};

struct rc {
	struct topo *t;
	struct ib_checks *c;
	uint32_t *loads;		/* per channel, or NULL */
	struct ib_cdg *cdg;		/* or NULL */
	/* switches, and each one's ports by number */
	struct topo_node **sw;
	size_t n_sw;
	struct ptr_index sw_ix, link_ix;
	size_t *pn_off;
	struct topo_port **pn;		/* [pn_off[s] + num]: switch s's port num, or NULL */
	uint32_t *pn_ch;		/* its channel out (SW_NONE: no link) */
	uint32_t *pn_nsw;		/* the switch its cable enters (SW_NONE: none, or a CA) */
	/* CA ports taking part, the switch each one's cable enters, their channels out */
	struct topo_port **ca;
	uint32_t *ca_sw, *ca_ch;
	size_t n_ca;
	/* one destination's state, per switch */
	uint8_t *state;
	uint32_t *depth, *fail, *flow, *stack, *touched, *bucket, *bucket_n;
	uint32_t *out;			/* the pn[] slot a switch forwards by */
	size_t n_touched;
	struct brk *brk;
	size_t n_brk, cap_brk;
	size_t cap_unreach;		/* of c->routes.unreach */
	/* groups, hashed on their key */
	struct group *groups;
	size_t n_groups, cap_groups;
	uint32_t *gslot;		/* group index + 1, 0 free */
	size_t gmask;
};

static bool port_active(const struct topo_port *p)
{
	return !(p->facts & TOPO_F_STATE) || p->state == TOPO_PORT_ACTIVE;
}

static bool holds(const struct topo_port *p, unsigned int lid)
{
	return p->lid && lid >= p->lid && lid - p->lid < (1u << (p->lmc & 7));
}

/* Channel of the link direction leaving by @p: 2i leaves links[i]->a, 2i + 1 ->b. */
static uint32_t chan(const struct rc *r, const struct topo_port *p)
{
	size_t i = ptr_index_find(&r->link_ix, p->link);

	return (uint32_t)(2 * i + (p->link->b == p));
}

static uint32_t sw_index(const struct rc *r, const struct topo_node *n)
{
	size_t i = ptr_index_find(&r->sw_ix, n);

	return i == SIZE_MAX ? SW_NONE : (uint32_t)i;
}

static struct topo_port *sw_port(const struct rc *r, uint32_t s, unsigned int num)
{
	size_t n = r->pn_off[s + 1] - r->pn_off[s];

	return num < n ? r->pn[r->pn_off[s] + num] : NULL;
}

/* A CA port taking part: a CA or router port, linked, both ends active, with a LID. */
static bool ca_usable(const struct topo_port *p)
{
	return p->node->type != TOPO_NODE_SWITCH && p->peer && p->lid &&
	       (p->facts & TOPO_F_LID) && port_active(p) && port_active(p->peer);
}

static int rc_index(struct rc *r)
{
	const struct topo *t = r->t;
	size_t n_pn = 0;

	for (size_t i = 0; i < t->n_nodes; i++)
		if (t->nodes[i]->type == TOPO_NODE_SWITCH)
			r->n_sw++;
	r->sw = calloc(r->n_sw + 1, sizeof(*r->sw));
	r->pn_off = calloc(r->n_sw + 2, sizeof(*r->pn_off));
	if (!r->sw || !r->pn_off || ptr_index_init(&r->sw_ix, r->n_sw) < 0 ||
	    ptr_index_init(&r->link_ix, t->n_links) < 0)
		return -ENOMEM;
	r->n_sw = 0;
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct topo_node *n = t->nodes[i];
		unsigned int top = n->n_ports_max;

		if (n->type != TOPO_NODE_SWITCH)
			continue;
		for (size_t j = 0; j < n->n_ports; j++)
			if (n->ports[j]->num > top)
				top = n->ports[j]->num;
		ptr_index_set(&r->sw_ix, r->n_sw, n);
		r->sw[r->n_sw++] = n;
		n_pn += top + 1;
		r->pn_off[r->n_sw] = n_pn;
	}
	ptr_index_sort(&r->sw_ix);
	for (size_t i = 0; i < t->n_links; i++)
		ptr_index_set(&r->link_ix, i, t->links[i]);
	ptr_index_sort(&r->link_ix);
	r->pn = calloc(n_pn + 1, sizeof(*r->pn));
	r->pn_ch = malloc((n_pn + 1) * sizeof(*r->pn_ch));
	r->pn_nsw = malloc((n_pn + 1) * sizeof(*r->pn_nsw));
	if (!r->pn || !r->pn_ch || !r->pn_nsw)
		return -ENOMEM;
	for (size_t k = 0; k < n_pn; k++)
		r->pn_ch[k] = r->pn_nsw[k] = SW_NONE;
	for (size_t s = 0; s < r->n_sw; s++)
		for (size_t j = 0; j < r->sw[s]->n_ports; j++) {
			struct topo_port *p = r->sw[s]->ports[j];
			size_t k = r->pn_off[s] + p->num;

			if (*p->name || p->num >= r->pn_off[s + 1] - r->pn_off[s])
				continue;
			r->pn[k] = p;
			if (!p->peer)
				continue;
			r->pn_ch[k] = chan(r, p);
			if (p->peer->node->type == TOPO_NODE_SWITCH)
				r->pn_nsw[k] = sw_index(r, p->peer->node);
		}
	return 0;
}

static int rc_cas(struct rc *r)
{
	const struct topo *t = r->t;

	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++)
			r->n_ca += ca_usable(t->nodes[i]->ports[j]);
	r->ca = calloc(r->n_ca + 1, sizeof(*r->ca));
	r->ca_sw = calloc(r->n_ca + 1, sizeof(*r->ca_sw));
	r->ca_ch = calloc(r->n_ca + 1, sizeof(*r->ca_ch));
	if (!r->ca || !r->ca_sw || !r->ca_ch)
		return -ENOMEM;
	r->n_ca = 0;
	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++) {
			struct topo_port *p = t->nodes[i]->ports[j];

			if (!ca_usable(p))
				continue;
			r->ca_ch[r->n_ca] = chan(r, p);
			r->ca_sw[r->n_ca] = p->peer->node->type == TOPO_NODE_SWITCH ?
					    sw_index(r, p->peer->node) : SW_NONE;
			r->ca[r->n_ca++] = p;
		}
	return 0;
}

static int rc_scratch(struct rc *r)
{
	size_t n = r->n_sw + 2;

	r->state = calloc(n, sizeof(*r->state));
	r->depth = calloc(n, sizeof(*r->depth));
	r->fail = calloc(n, sizeof(*r->fail));
	r->flow = calloc(n, sizeof(*r->flow));
	r->stack = calloc(n, sizeof(*r->stack));
	r->touched = calloc(n, sizeof(*r->touched));
	r->bucket = calloc(n, sizeof(*r->bucket));
	r->bucket_n = calloc(n + 1, sizeof(*r->bucket_n));
	r->out = calloc(n, sizeof(*r->out));
	if (!r->state || !r->depth || !r->fail || !r->flow || !r->stack || !r->touched ||
	    !r->bucket || !r->bucket_n || !r->out)
		return -ENOMEM;
	return 0;
}

static void rc_fini(struct rc *r)
{
	free(r->sw);
	free(r->pn_off);
	free(r->pn);
	free(r->pn_ch);
	free(r->pn_nsw);
	ptr_index_fini(&r->sw_ix);
	ptr_index_fini(&r->link_ix);
	free(r->ca);
	free(r->ca_sw);
	free(r->ca_ch);
	free(r->state);
	free(r->depth);
	free(r->fail);
	free(r->flow);
	free(r->stack);
	free(r->touched);
	free(r->bucket);
	free(r->bucket_n);
	free(r->out);
	free(r->brk);
	free(r->groups);
	free(r->gslot);
}

static int brk_new(struct rc *r, uint32_t s, unsigned int port, const struct topo_port *to,
		   enum ib_break why, uint32_t *idx)
{
	if (array_reserve((void **)&r->brk, &r->cap_brk, r->n_brk + 1, sizeof(*r->brk)) < 0)
		return -ENOMEM;
	r->brk[r->n_brk] = (struct brk){ .sw = s, .port = port, .to = to, .why = why };
	*idx = (uint32_t)r->n_brk++;
	return 0;
}

/*
 * One step from switch @s towards @dlid: its next switch in *@next, or
 * SW_NONE when the route ends here (*@ok: at the CA holding @dlid; else a
 * break, its index in *@b).  @s is on the chain being followed.
 */
static int step(struct rc *r, uint32_t s, unsigned int dlid, uint32_t *next, bool *ok,
		uint32_t *b)
{
	const struct topo_node *n = r->sw[s];
	unsigned int op = n->lft && dlid <= n->lft_top ? n->lft[dlid] : TOPO_LFT_NONE;
	struct topo_port *p, *q;
	size_t k = r->pn_off[s] + op;

	*next = SW_NONE;
	*ok = false;
	if (!n->lft)
		return brk_new(r, s, TOPO_LFT_NONE, NULL, IB_BREAK_NO_LFT, b);
	if (op == TOPO_LFT_NONE)
		return brk_new(r, s, TOPO_LFT_NONE, NULL, IB_BREAK_NO_ENTRY, b);
	if (op == 0)
		return brk_new(r, s, 0, NULL, IB_BREAK_SELF, b);
	p = sw_port(r, s, op);
	if (!p || !p->peer)
		return brk_new(r, s, op, NULL, IB_BREAK_NO_LINK, b);
	q = p->peer;
	if (!port_active(p) || !port_active(q))
		return brk_new(r, s, op, q, IB_BREAK_DOWN, b);
	r->out[s] = (uint32_t)k;
	if (q->node->type != TOPO_NODE_SWITCH) {
		if (holds(q, dlid)) {
			*ok = true;
			return 0;
		}
		return brk_new(r, s, op, q, IB_BREAK_WRONG_END, b);
	}
	*next = r->pn_nsw[k];
	if (r->state[*next] == ST_VISITING) {
		*next = SW_NONE;
		return brk_new(r, s, op, q, IB_BREAK_LOOP, b);
	}
	return 0;
}

/* Resolve switch @s towards @dlid, and every switch on its chain not resolved before. */
static int resolve(struct rc *r, uint32_t s, unsigned int dlid)
{
	uint32_t sp = 0, x = s, f = 0, d = 0;
	bool ok = false;

	while (r->state[x] == ST_NEW) {
		uint32_t next;
		int rc;

		r->state[x] = ST_VISITING;
		r->touched[r->n_touched++] = x;
		r->stack[sp++] = x;
		rc = step(r, x, dlid, &next, &ok, &f);
		if (rc < 0)
			return rc;
		if (next == SW_NONE)
			break;
		x = next;
	}
	if (r->state[x] == ST_OK || r->state[x] == ST_FAIL) {	/* met a resolved switch */
		ok = r->state[x] == ST_OK;
		d = r->depth[x];
		f = r->fail[x];
	}
	while (sp) {
		uint32_t e = r->stack[--sp];

		r->state[e] = ok ? ST_OK : ST_FAIL;
		r->depth[e] = ++d;
		r->fail[e] = f;
	}
	return 0;
}

/* ---- unreachable pairs, and their groups ---- */

static bool per_entry(enum ib_break why)
{
	return why == IB_BREAK_NO_ENTRY || why == IB_BREAK_SELF || why == IB_BREAK_WRONG_END ||
	       why == IB_BREAK_LOOP;
}

static uint64_t group_key(const struct brk *b, unsigned int dlid)
{
	unsigned int lid = per_entry(b->why) ? dlid : 0;

	return (uint64_t)b->sw << 32 | (uint64_t)b->why << 28 | (uint64_t)(b->port & 0xff) << 16 |
	       lid;
}

static size_t key_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

static uint32_t *group_slot(const struct rc *r, uint32_t *slots, size_t mask, uint64_t k)
{
	size_t h = key_hash(k) & mask;

	while (slots[h] && r->groups[slots[h] - 1].key != k)
		h = (h + 1) & mask;
	return &slots[h];
}

static int group_grow(struct rc *r)
{
	size_t cap = r->gslot ? 2 * (r->gmask + 1) : 256;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t g = 0; g < r->n_groups; g++)
		*group_slot(r, slots, cap - 1, r->groups[g].key) = (uint32_t)g + 1;
	free(r->gslot);
	r->gslot = slots;
	r->gmask = cap - 1;
	return 0;
}

static int group_add(struct rc *r, const struct brk *b, const struct topo_port *src,
		     const struct topo_port *dst, unsigned int dlid)
{
	uint64_t k = group_key(b, dlid);
	struct group *g;
	uint32_t *slot;

	if ((!r->gslot || 2 * (r->n_groups + 1) > r->gmask + 1) && group_grow(r) < 0)
		return -ENOMEM;
	slot = group_slot(r, r->gslot, r->gmask, k);
	if (!*slot) {
		if (array_reserve((void **)&r->groups, &r->cap_groups, r->n_groups + 1,
				  sizeof(*r->groups)) < 0)
			return -ENOMEM;
		r->groups[r->n_groups] = (struct group){
			.key = k, .sw = b->sw, .why = b->why, .port = b->port, .to = b->to, .dst = dst,
			.dlid = per_entry(b->why) ? dlid : 0,
		};
		*slot = (uint32_t)++r->n_groups;
	}
	g = &r->groups[*slot - 1];
	g->n_pairs++;
	if (g->last_dlid != dlid) {
		g->n_lids++;
		g->last_dlid = dlid;
	}
	if (g->n_ex < ARRAY_SIZE(g->ex))
		g->ex[g->n_ex++] = src;
	return 0;
}

/* @b NULL: @src's cable enters another CA (@to), not one holding @dlid. */
static int unreachable_add(struct rc *r, const struct topo_port *src, const struct topo_port *dst,
			   unsigned int dlid, const struct brk *b, const struct topo_port *to)
{
	struct ib_routes_report *rr = &r->c->routes;

	rr->n_unreachable++;
	if (rr->n_listed < IB_UNREACH_LIST_MAX) {
		if (array_reserve((void **)&rr->unreach, &r->cap_unreach, rr->n_listed + 1,
				  sizeof(*rr->unreach)) < 0)
			return -ENOMEM;
		rr->unreach[rr->n_listed++] = b ? (struct ib_unreachable){
			.src = src, .dst = dst, .dlid = dlid, .sw = r->sw[b->sw], .port = b->port,
			.to = b->to, .why = b->why,
		} : (struct ib_unreachable){
			.src = src, .dst = dst, .dlid = dlid, .port = TOPO_LFT_NONE, .to = to,
			.why = IB_BREAK_WRONG_END,
		};
	}
	return b ? group_add(r, b, src, dst, dlid) : 0;
}

/* ---- one destination ---- */

/* Every source towards @dlid (held by @dst): resolved, counted, unreachable ones recorded. */
static int dest_sources(struct rc *r, const struct topo_port *dst, unsigned int dlid)
{
	for (size_t i = 0; i < r->n_ca; i++) {
		const struct topo_port *src = r->ca[i], *q = src->peer;
		uint32_t s = r->ca_sw[i];
		int rc;

		if (src == dst)
			continue;
		r->c->routes.n_pairs++;
		if (s == SW_NONE) {	/* two CAs cabled back to back: no switch on the way */
			if (!holds(q, dlid)) {
				rc = unreachable_add(r, src, dst, dlid, NULL, q);
				if (rc < 0)
					return rc;
			} else if (r->loads) {
				r->loads[r->ca_ch[i]]++;
			}
			continue;
		}
		rc = resolve(r, s, dlid);
		if (rc < 0)
			return rc;
		if (r->state[s] == ST_OK) {
			r->flow[s]++;
			if (r->loads)
				r->loads[r->ca_ch[i]]++;
			continue;
		}
		rc = unreachable_add(r, src, dst, dlid, &r->brk[r->fail[s]], NULL);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The sources' routes pushed along the next hops, farthest switch first: loads and dependencies. */
static int dest_flows(struct rc *r)
{
	uint32_t max_d = 0;
	size_t n = 0;

	for (size_t i = 0; i < r->n_touched; i++) {
		uint32_t s = r->touched[i];

		if (r->state[s] == ST_OK && r->depth[s] > max_d)
			max_d = r->depth[s];
	}
	memset(r->bucket_n, 0, ((size_t)max_d + 2) * sizeof(*r->bucket_n));
	for (size_t i = 0; i < r->n_touched; i++)
		if (r->state[r->touched[i]] == ST_OK)
			r->bucket_n[max_d - r->depth[r->touched[i]] + 1]++;
	for (uint32_t d = 1; d <= max_d + 1; d++)
		r->bucket_n[d] += r->bucket_n[d - 1];
	for (size_t i = 0; i < r->n_touched; i++) {
		uint32_t s = r->touched[i];

		if (r->state[s] == ST_OK)
			r->bucket[r->bucket_n[max_d - r->depth[s]]++] = s;
		n += r->state[s] == ST_OK;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t s = r->bucket[i], k = r->out[s], nx = r->pn_nsw[k];

		if (!r->flow[s])
			continue;
		if (r->loads)
			r->loads[r->pn_ch[k]] += r->flow[s];
		if (nx == SW_NONE)
			continue;
		r->flow[nx] += r->flow[s];
		/* Dependencies between switch-to-switch channels: the only ones a loop can hold. */
		if (r->cdg && r->pn_nsw[r->out[nx]] != SW_NONE &&
		    ib_cdg_add(r->cdg, r->pn_ch[k], r->pn_ch[r->out[nx]]) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int dest_run(struct rc *r, const struct topo_port *dst, unsigned int dlid)
{
	int rc;

	r->n_touched = 0;
	r->n_brk = 0;
	rc = dest_sources(r, dst, dlid);
	if (rc == 0)
		rc = dest_flows(r);
	for (size_t i = 0; i < r->n_touched; i++) {
		uint32_t s = r->touched[i];

		r->state[s] = ST_NEW;
		r->flow[s] = 0;
	}
	return rc;
}

/* ---- problems ---- */

static void names3(char *buf, size_t len, const struct group *g)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < g->n_ex && off < len; i++)
		off += (size_t)str_fmt(buf + off, len - off, "%s%s", i ? ", " : "",
				       g->ex[i]->node->name);
	if (g->n_pairs > g->n_ex && off < len)
		str_fmt(buf + off, len - off, ", ...");
}

static void group_detail(const struct rc *r, const struct group *g, char *d, size_t len)
{
	const struct topo_node *sw = r->sw[g->sw];
	char ex[160];

	names3(ex, sizeof(ex), g);
	switch (g->why) {
	case IB_BREAK_NO_LFT:
		str_fmt(d, len, "forwarding table of \"%s\" (0x%016" PRIx64 ") not read: %zu pairs "
			"to %zu lids unchecked (from %s)", sw->name, sw->guid, g->n_pairs, g->n_lids, ex);
		return;
	case IB_BREAK_NO_LINK:
	case IB_BREAK_DOWN:
		str_fmt(d, len, "\"%s\" forwards %zu lids to port %u, which %s: %zu pairs cannot "
			"reach (from %s)", sw->name, g->n_lids, g->port,
			g->why == IB_BREAK_DOWN ? "is not active" : "has no cable", g->n_pairs, ex);
		return;
	default:
		break;
	}
	if (g->why == IB_BREAK_NO_ENTRY)
		str_fmt(d, len, "\"%s\" has no lft entry for lid %u (LinearFDBTop %u): %zu sources "
			"cannot reach it (%s)", sw->name, g->dlid, sw->lft_top, g->n_pairs, ex);
	else if (g->why == IB_BREAK_SELF)
		str_fmt(d, len, "\"%s\" lft[%u] is port 0, itself, but it does not hold lid %u: "
			"%zu sources cannot reach it (%s)", sw->name, g->dlid, g->dlid, g->n_pairs, ex);
	else if (g->why == IB_BREAK_WRONG_END)
		str_fmt(d, len, "\"%s\" lft[%u] = port %u leads to \"%s\" port %u (lid %u), which "
			"does not hold lid %u: %zu sources cannot reach it (%s)", sw->name, g->dlid,
			g->port, g->to->node->name, g->to->num, g->to->lid, g->dlid, g->n_pairs, ex);
	else
		str_fmt(d, len, "\"%s\" lft[%u] = port %u leads back into \"%s\", entered before on "
			"the way: a forwarding loop; %zu sources cannot reach lid %u (%s)", sw->name,
			g->dlid, g->port, g->to->node->name, g->n_pairs, g->dlid, ex);
}

static int group_problem(struct rc *r, const struct group *g)
{
	struct topo_problem p = { .kind = TOPO_PROB_UNREACHABLE, .has_a = true };
	const struct topo_port *at = g->port != TOPO_LFT_NONE ? sw_port(r, g->sw, g->port) : NULL;

	if (!at)
		at = sw_port(r, g->sw, 0);
	topo_end_from_port(&p.a, at);
	if (!at) {
		str_fmt(p.a.node, sizeof(p.a.node), "%s", r->sw[g->sw]->name);
		p.a.guid = r->sw[g->sw]->guid;
	}
	if (per_entry(g->why)) {
		p.has_b = true;
		topo_end_from_port(&p.b, g->dst);
	} else if (g->to) {
		p.has_b = true;
		topo_end_from_port(&p.b, g->to);
	}
	group_detail(r, g, p.detail, sizeof(p.detail));
	return topo_problem_add(r->t, &p);
}

/* Several per-entry breaks of one switch and kind: one problem for all of them. */
static int group_run_problem(struct rc *r, const struct group *g, size_t n)
{
	struct topo_problem p = { .kind = TOPO_PROB_UNREACHABLE, .has_a = true };
	const struct topo_node *sw = r->sw[g->sw];
	size_t pairs = 0;

	for (size_t i = 0; i < n; i++)
		pairs += g[i].n_pairs;
	topo_end_from_port(&p.a, sw_port(r, g->sw, 0));
	str_fmt(p.a.node, sizeof(p.a.node), "%s", sw->name);
	p.a.guid = sw->guid;
	str_fmt(p.detail, sizeof(p.detail), "\"%s\": %s for %zu lids (lid %u, %u, %u, ...; "
		"LinearFDBTop %u): %zu pairs cannot reach", sw->name, g->why == IB_BREAK_NO_ENTRY ?
		"no lft entry" : g->why == IB_BREAK_LOOP ? "forwarding loops" : "wrong lft entries",
		n, g[0].dlid, g[1].dlid, g[2].dlid, sw->lft_top, pairs);
	return topo_problem_add(r->t, &p);
}

static int group_cmp(const void *x, const void *y)
{
	const struct group *a = x, *b = y;

	if (a->sw != b->sw)
		return a->sw < b->sw ? -1 : 1;
	if (a->why != b->why)
		return a->why < b->why ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	return a->dlid < b->dlid ? -1 : a->dlid > b->dlid;
}

#define GROUP_RUN_MAX 8		/* per-entry breaks of one switch and kind shown one by one */

static int groups_to_problems(struct rc *r)
{
	size_t i = 0;

	if (r->n_groups)
		qsort(r->groups, r->n_groups, sizeof(*r->groups), group_cmp);
	while (i < r->n_groups) {
		size_t j = i + 1;
		int rc;

		while (j < r->n_groups && r->groups[j].sw == r->groups[i].sw &&
		       r->groups[j].why == r->groups[i].why)
			j++;
		if (per_entry(r->groups[i].why) && j - i > GROUP_RUN_MAX) {
			rc = group_run_problem(r, &r->groups[i], j - i);
			i = j;
		} else {
			rc = group_problem(r, &r->groups[i++]);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- credit loops ---- */

static int loops_report(struct rc *r)
{
	struct ib_credit_report *cr = &r->c->credit;
	struct ib_cdg_cycle *cy = NULL;
	size_t n = 0;
	int rc;

	cr->n_deps = ib_cdg_n_edges(r->cdg);
	for (size_t i = 0; i < r->t->n_links; i++)
		cr->n_channels += 2 * (r->t->links[i]->a->node->type == TOPO_NODE_SWITCH &&
				       r->t->links[i]->b->node->type == TOPO_NODE_SWITCH);
	rc = ib_cdg_cycles(r->cdg, IB_LOOPS_LIST_MAX, &cy, &n, &cr->n_loops);
	if (rc < 0)
		return rc;
	cr->loops = calloc(n ? n : 1, sizeof(*cr->loops));
	if (!cr->loops) {
		ib_cdg_cycles_free(cy, n);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct ib_loop *l = &cr->loops[cr->n_listed++];

		l->ch = calloc(cy[i].n ? cy[i].n : 1, sizeof(*l->ch));
		if (!l->ch) {
			rc = -ENOMEM;
			break;
		}
		l->n = cy[i].n;
		l->component = cy[i].scc_size;
		for (size_t k = 0; k < cy[i].n; k++) {
			const struct topo_link *lk = r->t->links[cy[i].ch[k] / 2];

			l->ch[k] = cy[i].ch[k] % 2 ? lk->b : lk->a;
		}
	}
	ib_cdg_cycles_free(cy, n);
	return rc;
}

/* "a"[5]->"b"[1], ... into @d. */
static void loop_detail(const struct ib_loop *l, char *d, size_t len)
{
	size_t off = (size_t)str_fmt(d, len, "%zu channels (%zu in its component): ", l->n,
				     l->component);

	for (size_t k = 0; k < l->n && off < len; k++)
		off += (size_t)str_fmt(d + off, len - off, "%s\"%s\"[%u]->\"%s\"[%u]", k ? ", " : "",
				       l->ch[k]->node->name, l->ch[k]->num,
				       l->ch[k]->peer->node->name, l->ch[k]->peer->num);
}

static int loops_to_problems(struct rc *r)
{
	const struct ib_credit_report *cr = &r->c->credit;

	for (size_t i = 0; i < cr->n_listed; i++) {
		struct topo_problem p = { .kind = TOPO_PROB_CREDIT_LOOP, .has_a = true, .has_b = true };
		const struct ib_loop *l = &cr->loops[i];
		int rc;

		topo_end_from_port(&p.a, l->ch[0]);
		topo_end_from_port(&p.b, l->ch[0]->peer);
		loop_detail(l, p.detail, sizeof(p.detail));
		rc = topo_problem_add(r->t, &p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- the family ---- */

static const char *routes_skip_reason(const struct rc *r)
{
	bool any = false;

	for (size_t s = 0; s < r->n_sw; s++)
		any |= r->sw[s]->lft != NULL;
	if (r->n_sw && !any)
		return "no forwarding tables (they are read by a live walk; a cache file has none)";
	if (r->n_ca < 2)
		return "fewer than two active CA ports with a LID (no subnet manager?)";
	return NULL;
}

static int routes_all(struct rc *r)
{
	for (size_t i = 0; i < r->n_ca; i++) {
		const struct topo_port *dst = r->ca[i];

		r->c->routes.n_lids += 1u << (dst->lmc & 7);
		for (unsigned int off = 0; off < (1u << (dst->lmc & 7)); off++) {
			int rc;

			if (dst->lid + off >= LID_MAX)
				break;
			rc = dest_run(r, dst, dst->lid + off);
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

int ib_routes_check(struct topo *t, struct ib_checks *c, uint32_t *loads)
{
	struct rc r = { .t = t, .c = c, .loads = loads };
	const char *skip;
	int rc;

	rc = rc_index(&r);
	if (rc == 0)
		rc = rc_cas(&r);
	if (rc == 0)
		rc = rc_scratch(&r);
	if (rc < 0)
		goto out;
	c->routes.n_cas = r.n_ca;
	skip = routes_skip_reason(&r);
	c->routes.skipped = c->credit.skipped = c->balance.skipped = skip;
	if (skip)
		goto out;
	c->routes.ran = c->families & IB_CHECK_ROUTES;
	if (c->families & IB_CHECK_CREDIT) {
		r.cdg = ib_cdg_new((uint32_t)(2 * t->n_links));
		if (!r.cdg) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = routes_all(&r);
	if (rc == 0 && (c->families & IB_CHECK_ROUTES))
		rc = groups_to_problems(&r);
	if (rc == 0 && r.cdg) {
		c->credit.ran = true;
		c->credit.vls = 1;
		rc = loops_report(&r);
		if (rc == 0)
			rc = loops_to_problems(&r);
	}
out:
	ib_cdg_free(r.cdg);
	rc_fini(&r);
	return rc;
}
