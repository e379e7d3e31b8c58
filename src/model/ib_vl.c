// SPDX-License-Identifier: GPL-2.0-or-later
/* SL-to-VL tables and path SLs (ib_vl.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/ib_vl.h"
#include "util/array.h"

void ib_vl_data_fini(struct ib_vl_data *d)
{
	for (size_t i = 0; i < d->n_sw; i++)
		free(d->sw[i].vl);
	free(d->sw);
	free(d->paths);
	memset(d, 0, sizeof(*d));
}

struct ib_sl2vl *ib_vl_data_add_switch(struct ib_vl_data *d, const struct topo_node *sw,
				       unsigned int n_ports)
{
	size_t n = (size_t)n_ports * n_ports * IB_SL_N;
	uint8_t *vl = malloc(n ? n : 1);
	struct ib_sl2vl *s;

	if (!vl)
		return NULL;
	s = array_add((void **)&d->sw, &d->n_sw, sizeof(*d->sw));
	if (!s) {
		free(vl);
		return NULL;
	}
	memset(vl, IB_VL_UNREAD, n);
	*s = (struct ib_sl2vl){ .sw = sw, .n_ports = n_ports, .vl = vl };
	return s;
}

void ib_sl2vl_decode(const uint8_t raw[8], uint8_t vl[IB_SL_N])
{
	for (unsigned int i = 0; i < 8; i++) {
		vl[2 * i] = raw[i] >> 4;
		vl[2 * i + 1] = raw[i] & 0xf;
	}
}

int ib_vl_data_add_path(struct ib_vl_data *d, unsigned int slid, unsigned int dlid,
			unsigned int sl)
{
	if (array_reserve((void **)&d->paths, &d->cap_paths, d->n_paths + 1, sizeof(*d->paths)) < 0)
		return -ENOMEM;
	d->paths[d->n_paths++] = (struct ib_path_sl){
		.slid = (uint16_t)slid, .dlid = (uint16_t)dlid, .sl = (uint8_t)(sl & 0xf),
	};
	return 0;
}

static int path_cmp(const void *x, const void *y)
{
	const struct ib_path_sl *a = x, *b = y;

	if (a->slid != b->slid)
		return a->slid < b->slid ? -1 : 1;
	return a->dlid < b->dlid ? -1 : a->dlid > b->dlid;
}

void ib_vl_data_sort(struct ib_vl_data *d)
{
	if (d->n_paths)
		qsort(d->paths, d->n_paths, sizeof(*d->paths), path_cmp);
}

unsigned int ib_vl_path_sl(const struct ib_vl_data *d, unsigned int slid, unsigned int dlid)
{
	struct ib_path_sl key = { .slid = (uint16_t)slid, .dlid = (uint16_t)dlid };
	const struct ib_path_sl *p;

	if (!d->n_paths)
		return 0;
	p = bsearch(&key, d->paths, d->n_paths, sizeof(*d->paths), path_cmp);
	return p ? p->sl : 0;
}

const struct ib_sl2vl *ib_vl_data_switch(const struct ib_vl_data *d, const struct topo_node *sw)
{
	for (size_t i = 0; i < d->n_sw; i++)
		if (d->sw[i].sw == sw)
			return &d->sw[i];
	return NULL;
}

unsigned int ib_sl2vl_get(const struct ib_sl2vl *s, unsigned int in, unsigned int out,
			  unsigned int sl)
{
	if (!s || in >= s->n_ports || out >= s->n_ports || sl >= IB_SL_N)
		return IB_VL_UNREAD;
	return s->vl[((size_t)in * s->n_ports + out) * IB_SL_N + sl];
}
