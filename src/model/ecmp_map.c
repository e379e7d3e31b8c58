// SPDX-License-Identifier: GPL-2.0-or-later
/* Per leaf pair: the ECMP member each source port takes, learned from traced flows. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/ecmp_map.h"
#include "util/array.h"
#include "util/str.h"

#define NAME_LEN 128

/* What one trace says: the member's nodes, or why it says nothing. */
struct finding {
	enum ecmp_reason reason;
	char detail[320];
	const char *nodes[FLOW_TRACE_MAX_TTL];	/* borrowed from the trace */
	size_t n_nodes;
	char src_leaf[NAME_LEN], dst_leaf[NAME_LEN];	/* as the trace shows them */
};

static enum ecmp_reason found(struct finding *f, enum ecmp_reason r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum ecmp_reason found(struct finding *f, enum ecmp_reason r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	str_vfmt(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
	f->reason = r;
	return r;
}

void ecmp_map_init(struct ecmp_map *m, const char *leaf_a, const char *leaf_b, bool by_addr)
{
	memset(m, 0, sizeof(*m));
	str_fmt(m->leaf[0], sizeof(m->leaf[0]), "%s", leaf_a ? leaf_a : "");
	str_fmt(m->leaf[1], sizeof(m->leaf[1]), "%s", leaf_b ? leaf_b : "");
	m->by_addr = by_addr;
}

static void side_fini(struct ecmp_side *s)
{
	for (size_t i = 0; i < s->n_members; i++) {
		for (size_t j = 0; j < s->members[i].n_nodes; j++)
			free(s->members[i].nodes[j]);
		free(s->members[i].nodes);
	}
	free(s->members);
	free(s->ports);
}

void ecmp_map_fini(struct ecmp_map *m)
{
	if (!m)
		return;
	side_fini(&m->side[0]);
	side_fini(&m->side[1]);
	memset(m, 0, sizeof(*m));
}

const char *ecmp_reason_name(enum ecmp_reason r)
{
	static const char *const names[] = {
		[ECMP_OK] = "ok",
		[ECMP_SILENT] = "silent",
		[ECMP_UNMAPPED] = "unmapped",
		[ECMP_UNSTABLE] = "unstable",
		[ECMP_NO_LEAF] = "no-leaf",
	};

	return (unsigned int)r < ARRAY_SIZE(names) ? names[r] : "?";
}

void ecmp_member_text(const struct ecmp_member *mb, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (!mb->n_nodes) {
		str_fmt(buf, len, "(none)");
		return;
	}
	for (size_t i = 0; i < mb->n_nodes && off < len; i++) {
		int w = str_fmt(buf + off, len - off, "%s%s", i ? " > " : "", mb->nodes[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
}

/* ---- reading one trace --------------------------------------------------------- */

static const char *hop_name(const struct ecmp_map *m, const struct flow_hop *h)
{
	return flow_hop_name(h, m->by_addr);
}

/* Index of the first hop at or after @from named @name; -1 when none. */
static long hop_find(const struct ecmp_map *m, const struct flow_trace *t, size_t from,
		     const char *name)
{
	for (size_t i = from; i < t->n_hops; i++)
		if (strcmp(hop_name(m, &t->hops[i]), name) == 0)
			return (long)i;
	return -1;
}

/*
 * The source leaf: the hop named @leaf, else hop TTL 1 (a host sits on its
 * leaf); when @leaf is "" hop TTL 1 names it.  A TTL-1 hop that answers as
 * another node means the flow does not start at that leaf.
 */
static enum ecmp_reason src_locate(const struct ecmp_map *m, const struct flow_trace *t,
				   const char *leaf, size_t *idx, struct finding *f)
{
	long i;

	if (!t->n_hops || t->hops[0].ttl != 1)
		return found(f, ECMP_NO_LEAF, "port %u: the trace does not start at TTL 1",
			     t->flow.sport);
	i = leaf[0] ? hop_find(m, t, 0, leaf) : -1;
	if (i < 0 && leaf[0] && t->hops[0].answer != HOP_NONE && hop_name(m, &t->hops[0])[0])
		return found(f, ECMP_NO_LEAF, "port %u: hop 1 is %s, not the source leaf %s",
			     t->flow.sport, hop_name(m, &t->hops[0]), leaf);
	*idx = i < 0 ? 0 : (size_t)i;
	str_fmt(f->src_leaf, sizeof(f->src_leaf), "%s", leaf[0] ? leaf : hop_name(m, &t->hops[0]));
	return ECMP_OK;
}

/*
 * The destination leaf: the hop named @leaf after the source leaf, else the
 * hop just before the destination's answer when it did not answer itself;
 * when @leaf is "" the hop before the destination names it (the source leaf
 * itself when both hosts sit on it: no transit node).
 */
static enum ecmp_reason dst_locate(const struct ecmp_map *m, const struct flow_trace *t,
				   const char *leaf, size_t src, size_t *idx, struct finding *f)
{
	long i = leaf[0] ? hop_find(m, t, src + 1, leaf) : -1;
	size_t last;

	if (i >= 0) {
		*idx = (size_t)i;
		str_fmt(f->dst_leaf, sizeof(f->dst_leaf), "%s", leaf);
		return ECMP_OK;
	}
	if (!t->reached)
		return found(f, ECMP_NO_LEAF, "port %u: the destination %s did not answer, so the far leaf is not known",
			     t->flow.sport, t->flow.dst);
	if (t->reached_ttl < 2)
		return found(f, ECMP_NO_LEAF, "port %u: the destination %s answered at TTL 1: no router on the way",
			     t->flow.sport, t->flow.dst);
	last = t->reached_ttl - t->hops[0].ttl - 1;	/* the hop before the destination */
	if (last < src || last >= t->n_hops)
		return found(f, ECMP_NO_LEAF, "port %u: the destination %s answered before the source leaf",
			     t->flow.sport, t->flow.dst);
	if (leaf[0] && t->hops[last].answer != HOP_NONE && hop_name(m, &t->hops[last])[0])
		return found(f, ECMP_NO_LEAF, "port %u: hop %u is %s, not the far leaf %s",
			     t->flow.sport, t->hops[last].ttl, hop_name(m, &t->hops[last]), leaf);
	*idx = last;
	str_fmt(f->dst_leaf, sizeof(f->dst_leaf), "%s", leaf[0] ? leaf : hop_name(m, &t->hops[last]));
	return ECMP_OK;
}

/* One transit hop: answered, by a node we know, by one node only. */
static enum ecmp_reason transit_check(const struct ecmp_map *m, const struct flow_trace *t,
				      const struct flow_hop *h, struct finding *f)
{
	unsigned int sp = t->flow.sport;
	const char *other;

	if (h->answer == HOP_NONE)
		return found(f, ECMP_SILENT, "port %u: hop %u (between %s and %s) did not answer after %u tries",
			     sp, h->ttl, f->src_leaf[0] ? f->src_leaf : "the source leaf",
			     f->dst_leaf[0] ? f->dst_leaf : "the far leaf", h->tries);
	if (h->answer != HOP_TIME_EXCEEDED)
		return found(f, ECMP_NO_LEAF, "port %u: hop %u (%s) answered %s, not time exceeded",
			     sp, h->ttl, h->addr, hop_answer_name(h->answer));
	if (!hop_name(m, h)[0])
		return found(f, ECMP_UNMAPPED, "port %u: hop %u answered from %s, an address no node holds",
			     sp, h->ttl, h->addr);
	if (!h->other[0])
		return ECMP_OK;
	other = m->by_addr ? h->other : h->other_node;
	if (!other[0])
		return found(f, ECMP_UNMAPPED, "port %u: hop %u answered from %s, an address no node holds",
			     sp, h->ttl, h->other);
	if (strcmp(other, hop_name(m, h)) != 0)
		return found(f, ECMP_UNSTABLE, "port %u: hop %u answered from %s and from %s: the path changed between probes",
			     sp, h->ttl, hop_name(m, h), other);
	return ECMP_OK;
}

/* What @t says about its member, with leaves @src_leaf and @dst_leaf ("" unknown). */
static enum ecmp_reason trace_read(const struct ecmp_map *m, const struct flow_trace *t,
				   const char *src_leaf, const char *dst_leaf, struct finding *f)
{
	size_t src = 0, dst = 0;

	memset(f, 0, sizeof(*f));
	if (m->by_addr)
		src_leaf = dst_leaf = "";	/* a leaf answers from several addresses: by position */
	if (src_locate(m, t, src_leaf, &src, f) || dst_locate(m, t, dst_leaf, src, &dst, f))
		return f->reason;
	for (size_t i = src + 1; i < dst; i++) {
		if (transit_check(m, t, &t->hops[i], f))
			return f->reason;
		f->nodes[f->n_nodes++] = hop_name(m, &t->hops[i]);
	}
	return ECMP_OK;
}

/* ---- recording ----------------------------------------------------------------- */

static bool member_is(const struct ecmp_member *mb, const struct finding *f)
{
	if (mb->n_nodes != f->n_nodes)
		return false;
	for (size_t i = 0; i < f->n_nodes; i++)
		if (strcmp(mb->nodes[i], f->nodes[i]) != 0)
			return false;
	return true;
}

/* The member @f names, added when new: its index, or -ENOMEM. */
static int member_get(struct ecmp_side *s, const struct finding *f)
{
	struct ecmp_member *mb;

	for (size_t i = 0; i < s->n_members; i++)
		if (member_is(&s->members[i], f))
			return (int)i;
	mb = array_add((void **)&s->members, &s->n_members, sizeof(*mb));
	if (!mb)
		return -ENOMEM;
	if (f->n_nodes) {
		mb->nodes = calloc(f->n_nodes, sizeof(*mb->nodes));
		if (!mb->nodes)
			goto nomem;
	}
	for (size_t i = 0; i < f->n_nodes; i++) {
		mb->nodes[i] = strdup(f->nodes[i]);
		if (!mb->nodes[i])
			goto nomem;
		mb->n_nodes++;
	}
	return (int)(s->n_members - 1);
nomem:
	for (size_t i = 0; i < mb->n_nodes; i++)
		free(mb->nodes[i]);
	free(mb->nodes);
	s->n_members--;
	return -ENOMEM;
}

static struct ecmp_port *port_find(const struct ecmp_side *s, uint16_t sport)
{
	for (size_t i = 0; i < s->n_ports; i++)
		if (s->ports[i].sport == sport)
			return &s->ports[i];
	return NULL;
}

static void map_fail(struct ecmp_map *m, enum ecmp_reason r, const char *detail)
{
	if (m->reason != ECMP_OK)
		return;		/* the first reason stays */
	m->reason = r;
	str_fmt(m->detail, sizeof(m->detail), "%s", detail);
}

/* Port @sport took member @idx (-1: unknown) once more. */
static int port_record(struct ecmp_map *m, struct ecmp_side *s, uint16_t sport, int idx)
{
	struct ecmp_port *p = port_find(s, sport);
	char was[256], now[256], msg[600];

	if (!p) {
		p = array_add((void **)&s->ports, &s->n_ports, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->sport = sport;
		p->member = -1;
	}
	p->traces++;
	if (idx < 0)
		return 0;
	if (p->member >= 0 && p->member != idx) {
		ecmp_member_text(&s->members[p->member], was, sizeof(was));
		ecmp_member_text(&s->members[idx], now, sizeof(now));
		str_fmt(msg, sizeof(msg), "port %u took %s, then %s on a repeat", sport, was, now);
		map_fail(m, ECMP_UNSTABLE, msg);
		return 0;
	}
	if (p->member < 0) {
		p->member = idx;
		s->members[idx].n_ports++;
	}
	return 0;
}

int ecmp_map_learn(struct ecmp_map *m, enum ecmp_dir dir, const struct flow_trace *t)
{
	struct ecmp_side *s = &m->side[dir];
	char *src_leaf = m->leaf[dir == ECMP_AB ? 0 : 1];
	char *dst_leaf = m->leaf[dir == ECMP_AB ? 1 : 0];
	struct finding f;
	int idx = -1;

	if (trace_read(m, t, src_leaf, dst_leaf, &f) != ECMP_OK) {
		map_fail(m, f.reason, f.detail);
		return port_record(m, s, t->flow.sport, -1);
	}
	/* The first trace names the leaves (by address a leaf has no one name). */
	if (!m->by_addr && !src_leaf[0])
		str_fmt(src_leaf, NAME_LEN, "%s", f.src_leaf);
	if (!m->by_addr && !dst_leaf[0])
		str_fmt(dst_leaf, NAME_LEN, "%s", f.dst_leaf);
	idx = member_get(s, &f);
	if (idx < 0)
		return idx;
	return port_record(m, s, t->flow.sport, idx);
}

int ecmp_map_member(const struct ecmp_map *m, enum ecmp_dir dir, uint16_t sport)
{
	const struct ecmp_port *p;

	if (m->reason != ECMP_OK)
		return -ESTALE;
	p = port_find(&m->side[dir], sport);
	if (!p || p->member < 0)
		return -ENOENT;
	return p->member;
}

int ecmp_map_learn_as(struct ecmp_map *m, enum ecmp_dir dir, const struct flow_trace *t,
		      uint16_t port)
{
	struct flow_trace as = *t;	/* borrows t's hops */

	as.flow.sport = port;
	return ecmp_map_learn(m, dir, &as);
}
