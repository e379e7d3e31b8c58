// SPDX-License-Identifier: GPL-2.0-or-later
/* IP addresses of topology nodes: text forms, and the index from address to node. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/node_addr.h"

int node_addr_parse(const char *s, struct node_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (!s)
		return -EINVAL;
	if (inet_pton(AF_INET, s, a->bytes) == 1) {
		a->family = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, a->bytes) == 1) {
		a->family = 6;
		return 0;
	}
	return -EINVAL;
}

void node_addr_text(const struct node_addr *a, char *buf)
{
	if (!inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->bytes, buf, TOPO_ADDR_LEN))
		buf[0] = '\0';
}

int node_addr_norm(const char *s, char *out)
{
	struct node_addr a;

	if (node_addr_parse(s, &a) < 0)
		return -EINVAL;
	node_addr_text(&a, out);
	return 0;
}

bool node_addr_local(const char *s)
{
	static const uint8_t zero[16];
	struct node_addr a;
	const uint8_t *b = a.bytes;

	if (node_addr_parse(s, &a) < 0)
		return true;
	if (a.family == 4)
		return b[0] == 0 || b[0] == 127 || (b[0] == 169 && b[1] == 254);
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return true;
	return !memcmp(b, zero, 15) && (b[15] == 0 || b[15] == 1);
}

static int addr_cmp(const struct node_addr *x, const struct node_addr *y)
{
	if (x->family != y->family)
		return x->family < y->family ? -1 : 1;
	return memcmp(x->bytes, y->bytes, sizeof(x->bytes));
}

static int entry_cmp(const void *x, const void *y)
{
	const struct node_addr_entry *a = x, *b = y;
	int c = addr_cmp(&a->addr, &b->addr);

	if (c)
		return c;
	/* The same address twice: keep the order stable by node name. */
	return strcmp(a->node->name, b->node->name);
}

/* Fold runs of one address into one entry; two nodes' claim becomes NULL. */
static void index_fold(struct node_addr_index *ix)
{
	size_t w = 0;

	for (size_t r = 0; r < ix->n; r++) {
		if (w && addr_cmp(&ix->e[w - 1].addr, &ix->e[r].addr) == 0) {
			if (ix->e[w - 1].node && ix->e[w - 1].node != ix->e[r].node) {
				if (!ix->n_conflicts++)
					node_addr_text(&ix->e[r].addr, ix->conflict);
				ix->e[w - 1].node = NULL;
			}
			continue;
		}
		ix->e[w++] = ix->e[r];
	}
	ix->n = w;
}

int node_addr_index_build(struct node_addr_index *ix, const struct topo *t)
{
	size_t total = 0;

	memset(ix, 0, sizeof(*ix));
	for (size_t i = 0; i < t->n_nodes; i++)
		total += t->nodes[i]->n_addrs;
	if (!total)
		return 0;
	ix->e = calloc(total, sizeof(*ix->e));
	if (!ix->e)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *n = t->nodes[i];

		for (size_t j = 0; j < n->n_addrs; j++) {
			if (node_addr_local(n->addrs[j]) ||
			    node_addr_parse(n->addrs[j], &ix->e[ix->n].addr) < 0)
				continue;
			ix->e[ix->n++].node = n;
		}
	}
	qsort(ix->e, ix->n, sizeof(*ix->e), entry_cmp);
	index_fold(ix);
	return 0;
}

void node_addr_index_fini(struct node_addr_index *ix)
{
	if (!ix)
		return;
	free(ix->e);
	memset(ix, 0, sizeof(*ix));
}

const struct topo_node *node_addr_lookup(const struct node_addr_index *ix, const char *addr)
{
	struct node_addr a;
	size_t lo = 0, hi = ix->n;

	if (node_addr_parse(addr, &a) < 0)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = addr_cmp(&ix->e[mid].addr, &a);

		if (c == 0)
			return ix->e[mid].node;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
