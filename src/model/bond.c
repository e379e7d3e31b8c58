// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdlib.h>
#include <string.h>

#include "model/bond.h"
#include "util/array.h"
#include "util/str.h"

void fab_bond_init(struct fab_bond *b)
{
	memset(b, 0, sizeof(*b));
	b->mode = b->miimon_ms = b->lacp_rate = b->xmit_hash_policy = b->min_links = -1;
}

void fab_bond_fini(struct fab_bond *b)
{
	if (!b)
		return;
	free(b->members);
	b->members = NULL;
	b->n_members = 0;
}

struct fab_bond_member *fab_bond_member_add(struct fab_bond *b, const char *name)
{
	struct fab_bond_member *n = array_add((void **)&b->members, &b->n_members, sizeof(*n));

	if (!n)
		return NULL;
	str_fmt(n->name, sizeof(n->name), "%s", name);
	n->ad_aggregator_id = -1;
	return n;
}

struct fab_bond_member *fab_bond_member_find(const struct fab_bond *b, const char *name)
{
	for (size_t i = 0; i < b->n_members; i++)
		if (strcmp(b->members[i].name, name) == 0)
			return &b->members[i];
	return NULL;
}

static const char *const mode_names[] = {
	"balance-rr", "active-backup", "balance-xor", "broadcast",
	"802.3ad", "balance-tlb", "balance-alb",
};
static const char *const xmit_names[] = {
	"layer2", "layer3+4", "layer2+3", "encap2+3", "encap3+4", "vlan+srcmac",
};
static const char *const lacp_names[] = { "slow", "fast" };

static const char *name_of(const char *const *names, int n, int v)
{
	return v >= 0 && v < n ? names[v] : NULL;
}

static int name_parse(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return i;
	return -1;
}

const char *fab_bond_mode_name(int mode)
{
	return name_of(mode_names, (int)ARRAY_SIZE(mode_names), mode);
}

const char *fab_bond_xmit_name(int policy)
{
	return name_of(xmit_names, (int)ARRAY_SIZE(xmit_names), policy);
}

const char *fab_bond_lacp_name(int rate)
{
	return name_of(lacp_names, (int)ARRAY_SIZE(lacp_names), rate);
}

int fab_bond_mode_parse(const char *s)
{
	if (s[0] >= '0' && s[0] <= '6' && s[1] == '\0')
		return s[0] - '0';
	return name_parse(mode_names, (int)ARRAY_SIZE(mode_names), s);
}

int fab_bond_xmit_parse(const char *s)
{
	return name_parse(xmit_names, (int)ARRAY_SIZE(xmit_names), s);
}

int fab_bond_lacp_parse(const char *s)
{
	return name_parse(lacp_names, (int)ARRAY_SIZE(lacp_names), s);
}
