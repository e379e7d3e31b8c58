// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Channel dependency graph and credit loops (ib_cdg.h).  Edges go into an
 * open-addressing set as they come (routes repeat dependencies many times
 * over); a cycle search turns the set into adjacency lists, finds the
 * strongly connected components with Tarjan's algorithm (iterative: a
 * component can hold every channel of the fabric), and walks the shortest
 * cycle of each by breadth-first search.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "model/ib_cdg.h"

#define NONE UINT32_MAX

struct ib_cdg {
	uint32_t n;		/* channels */
	uint64_t *set;		/* (from << 32 | to) + 1 per edge, 0 free; a power of two slots */
	size_t mask, used;
};

/* The adjacency lists of a graph: the dependencies of v are adj[off[v] .. off[v + 1]). */
struct csr {
	uint32_t *off, *adj;
};

struct ib_cdg *ib_cdg_new(uint32_t n_channels)
{
	struct ib_cdg *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->n = n_channels;
	return g;
}

void ib_cdg_free(struct ib_cdg *g)
{
	if (!g)
		return;
	free(g->set);
	free(g);
}

static size_t key_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return (size_t)k;
}

static uint64_t *set_slot(uint64_t *set, size_t mask, uint64_t k)
{
	size_t h = key_hash(k) & mask;

	while (set[h] && set[h] != k)
		h = (h + 1) & mask;
	return &set[h];
}

/* Twice the slots (1024 at first), every key moved over; -ENOMEM leaves the set as it was. */
static int set_grow(struct ib_cdg *g)
{
	size_t cap = g->set ? 2 * (g->mask + 1) : 1024;
	uint64_t *set = calloc(cap, sizeof(*set));

	if (!set)
		return -ENOMEM;
	for (size_t i = 0; g->set && i <= g->mask; i++)
		if (g->set[i])
			*set_slot(set, cap - 1, g->set[i]) = g->set[i];
	free(g->set);
	g->set = set;
	g->mask = cap - 1;
	return 0;
}

int ib_cdg_add(struct ib_cdg *g, uint32_t from, uint32_t to)
{
	uint64_t k = ((uint64_t)from << 32 | to) + 1;
	uint64_t *slot;

	if (from >= g->n || to >= g->n)
		return -EINVAL;
	/* At most half full. */
	if ((!g->set || 2 * (g->used + 1) > g->mask + 1) && set_grow(g) < 0)
		return -ENOMEM;
	slot = set_slot(g->set, g->mask, k);
	if (!*slot) {
		*slot = k;
		g->used++;
	}
	return 0;
}

int ib_cdg_add_route(struct ib_cdg *g, const uint32_t *ch, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		int rc = ib_cdg_add(g, ch[i], ch[i + 1]);

		if (rc < 0)
			return rc;
	}
	return 0;
}

size_t ib_cdg_n_edges(const struct ib_cdg *g)
{
	return g->used;
}

static int u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/* The set as adjacency lists, each sorted (the answer must not depend on hash order). */
static int csr_build(const struct ib_cdg *g, struct csr *c)
{
	uint32_t *fill;

	c->off = calloc((size_t)g->n + 1, sizeof(*c->off));
	c->adj = malloc((g->used ? g->used : 1) * sizeof(*c->adj));
	fill = calloc((size_t)g->n + 1, sizeof(*fill));
	if (!c->off || !c->adj || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (size_t i = 0; g->set && i <= g->mask; i++)
		if (g->set[i])
			c->off[((g->set[i] - 1) >> 32) + 1]++;
	for (uint32_t v = 0; v < g->n; v++)
		c->off[v + 1] += c->off[v];
	memcpy(fill, c->off, ((size_t)g->n + 1) * sizeof(*fill));
	for (size_t i = 0; g->set && i <= g->mask; i++) {
		if (g->set[i]) {
			uint64_t k = g->set[i] - 1;

			c->adj[fill[k >> 32]++] = (uint32_t)k;
		}
	}
	for (uint32_t v = 0; v < g->n; v++)
		qsort(c->adj + c->off[v], c->off[v + 1] - c->off[v], sizeof(*c->adj), u32_cmp);
	free(fill);
	return 0;
}

/* Tarjan's state: comp[v] is v's component (numbered as they close), size[] theirs. */
struct scc {
	uint32_t *index, *low, *comp, *size, *stk, *cs_v, *cs_e;
	bool *on;
	uint32_t n_comp;
};

static void scc_fini(struct scc *s)
{
	free(s->index);
	free(s->low);
	free(s->comp);
	free(s->size);
	free(s->stk);
	free(s->cs_v);
	free(s->cs_e);
	free(s->on);
}

static int scc_init(struct scc *s, uint32_t n)
{
	size_t m = n ? n : 1;

	memset(s, 0, sizeof(*s));
	s->index = malloc(m * sizeof(*s->index));
	s->low = malloc(m * sizeof(*s->low));
	s->comp = malloc(m * sizeof(*s->comp));
	s->size = calloc(m, sizeof(*s->size));
	s->stk = malloc(m * sizeof(*s->stk));
	s->cs_v = malloc(m * sizeof(*s->cs_v));
	s->cs_e = malloc(m * sizeof(*s->cs_e));
	s->on = calloc(m, sizeof(*s->on));
	if (!s->index || !s->low || !s->comp || !s->size || !s->stk || !s->cs_v || !s->cs_e ||
	    !s->on) {
		scc_fini(s);
		return -ENOMEM;
	}
	for (uint32_t v = 0; v < n; v++)
		s->index[v] = NONE;
	return 0;
}

/* Tarjan from @root, without recursion: cs_v/cs_e are the call stack (vertex, next edge). */
static void scc_from(struct scc *s, const struct csr *c, uint32_t root, uint32_t *idx)
{
	/* The component stack is empty between roots: a root closes its own component last. */
	uint32_t depth = 0, sp = 0;

	s->cs_v[depth] = root;
	s->cs_e[depth++] = c->off[root];
	s->index[root] = s->low[root] = (*idx)++;
	s->stk[sp++] = root;
	s->on[root] = true;
	while (depth) {
		uint32_t v = s->cs_v[depth - 1], e = s->cs_e[depth - 1];

		if (e < c->off[v + 1]) {
			uint32_t w = c->adj[e];

			s->cs_e[depth - 1]++;
			if (s->index[w] == NONE) {
				s->index[w] = s->low[w] = (*idx)++;
				s->stk[sp++] = w;
				s->on[w] = true;
				s->cs_v[depth] = w;
				s->cs_e[depth++] = c->off[w];
			} else if (s->on[w] && s->index[w] < s->low[v]) {
				s->low[v] = s->index[w];
			}
			continue;
		}
		depth--;
		if (depth && s->low[v] < s->low[s->cs_v[depth - 1]])
			s->low[s->cs_v[depth - 1]] = s->low[v];
		if (s->low[v] != s->index[v])
			continue;
		for (;;) {
			uint32_t w = s->stk[--sp];

			s->on[w] = false;
			s->comp[w] = s->n_comp;
			s->size[s->n_comp]++;
			if (w == v)
				break;
		}
		s->n_comp++;
	}
}

static bool self_dep(const struct csr *c, uint32_t v)
{
	for (uint32_t e = c->off[v]; e < c->off[v + 1]; e++)
		if (c->adj[e] == v)
			return true;
	return false;
}

/*
 * The shortest cycle through @v inside its component, by breadth-first
 * search from @v until a dependency leads back to it; @parent and @queue
 * are scratch of n entries, parent all NONE on entry and again on return.
 */
static int shortest_cycle(const struct csr *c, const struct scc *s, uint32_t v,
			  uint32_t *parent, uint32_t *queue, struct ib_cdg_cycle *out)
{
	size_t head = 0, tail = 0, n = 0;
	uint32_t last = NONE;
	int rc = 0;

	queue[tail++] = v;
	parent[v] = v;
	while (head < tail && last == NONE) {
		uint32_t u = queue[head++];

		for (uint32_t e = c->off[u]; e < c->off[u + 1]; e++) {
			uint32_t w = c->adj[e];

			if (w == v) {
				last = u;
				break;
			}
			if (s->comp[w] != s->comp[v] || parent[w] != NONE)
				continue;
			parent[w] = u;
			queue[tail++] = w;
		}
	}
	for (uint32_t u = last; u != NONE; u = u == v ? NONE : parent[u])
		n++;
	out->ch = malloc((n ? n : 1) * sizeof(*out->ch));
	if (!out->ch)
		rc = -ENOMEM;
	out->n = n;
	for (uint32_t u = last, i = (uint32_t)n; out->ch && u != NONE; u = u == v ? NONE : parent[u])
		out->ch[--i] = u;
	out->scc_size = s->size[s->comp[v]];
	for (size_t i = 0; i < tail; i++)
		parent[queue[i]] = NONE;
	return rc;
}

/* One cycle per cyclic component, components in order of their lowest channel. */
static int cycles_collect(const struct csr *c, const struct scc *s, uint32_t n, size_t max,
			  struct ib_cdg_cycle *out, size_t *n_out, size_t *n_loops)
{
	uint32_t *parent = malloc((n ? n : 1) * sizeof(*parent));
	uint32_t *queue = malloc((n ? n : 1) * sizeof(*queue));
	bool *seen = calloc(s->n_comp ? s->n_comp : 1, sizeof(*seen));
	int rc = -ENOMEM;

	if (!parent || !queue || !seen)
		goto out;
	for (uint32_t v = 0; v < n; v++)
		parent[v] = NONE;
	rc = 0;
	for (uint32_t v = 0; v < n && rc == 0; v++) {
		uint32_t k = s->comp[v];

		if (seen[k] || (s->size[k] < 2 && !self_dep(c, v)))
			continue;
		seen[k] = true;
		if (*n_out < max) {
			rc = shortest_cycle(c, s, v, parent, queue, &out[*n_out]);
			(*n_out)++;
		}
		(*n_loops)++;
	}
out:
	free(parent);
	free(queue);
	free(seen);
	return rc;
}

int ib_cdg_cycles(const struct ib_cdg *g, size_t max, struct ib_cdg_cycle **out, size_t *n_out,
		  size_t *n_loops)
{
	struct ib_cdg_cycle *cy = NULL;
	struct csr c = { 0 };
	struct scc s;
	size_t n = 0, loops = 0;
	uint32_t idx = 0;
	int rc = -ENOMEM;

	if (csr_build(g, &c) < 0 || scc_init(&s, g->n) < 0)
		goto out_csr;
	cy = calloc(max ? max : 1, sizeof(*cy));
	if (!cy)
		goto out;
	for (uint32_t v = 0; v < g->n; v++)
		if (s.index[v] == NONE)
			scc_from(&s, &c, v, &idx);
	rc = cycles_collect(&c, &s, g->n, max, cy, &n, &loops);
	if (rc < 0) {
		ib_cdg_cycles_free(cy, n);
		goto out;
	}
	if (!n) {
		free(cy);
		cy = NULL;
	}
	*out = cy;
	*n_out = n;
	*n_loops = loops;
out:
	scc_fini(&s);
out_csr:
	free(c.off);
	free(c.adj);
	return rc;
}

void ib_cdg_cycles_free(struct ib_cdg_cycle *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++)
		free(c[i].ch);
	free(c);
}
