// SPDX-License-Identifier: GPL-2.0-or-later
/* Lookups in a parsed hosts file (model/hosts.h): by name, by node, a label. */
#include <string.h>

#include "model/hosts.h"

int hosts_find(const struct fab_hosts *hs, const char *name)
{
	for (size_t i = 0; i < hs->n; i++)
		if (strcmp(hs->hosts[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *hosts_node(const struct fab_host *h)
{
	return h->node[0] ? h->node : h->name;
}

int hosts_find_node(const struct fab_hosts *hs, const char *node)
{
	for (size_t i = 0; i < hs->n; i++)
		if (strcmp(hosts_node(&hs->hosts[i]), node) == 0)
			return (int)i;
	return -1;
}

const char *hosts_label(const struct fab_host *h, const char *key)
{
	for (size_t i = 0; i < h->n_labels; i++)
		if (strcmp(h->labels[i].key, key) == 0)
			return h->labels[i].value;
	return NULL;
}
