// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status, JSON: the "pcie" member of "fabricctl.status/1"
 * (docs/json-status.md, "pcie"): null when not read.
 */
#include <stdio.h>

#include "model/pcie_topo.h"
#include "render/render_impl.h"

#define NEAR_MAX 64

static json_t *uint_or_null(unsigned int v)
{
	return v ? json_integer((json_int_t)v) : json_null();
}

static json_t *gts_or_null(unsigned int mts)
{
	return mts ? json_real(mts / 1000.0) : json_null();
}

static json_t *hex(unsigned int v, int digits)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "0x%0*x", digits, v);
	return json_string(buf);
}

static json_t *link_json(const struct pcie_link *l)
{
	return json_pack("{s:o, s:o, s:o, s:o}",
			 "speed_gts", gts_or_null(l->speed_mts),
			 "width", uint_or_null(l->width),
			 "max_speed_gts", gts_or_null(l->max_speed_mts),
			 "max_width", uint_or_null(l->max_width));
}

static json_t *acs_json(const struct pcie_acs *a)
{
	if (a->state == PCIE_ACS_UNREAD)
		return json_pack("{s:n, s:n, s:n, s:n}", "supported", "cap", "ctl", "p2p_redirect");
	if (a->state == PCIE_ACS_ABSENT)
		return json_pack("{s:b, s:n, s:n, s:b}", "supported", 0, "cap", "ctl",
				 "p2p_redirect", 0);
	return json_pack("{s:b, s:o, s:o, s:b}", "supported", 1, "cap", hex(a->cap, 4),
			 "ctl", hex(a->ctl, 4), "p2p_redirect",
			 (a->ctl & PCIE_ACS_P2P_REDIRECT) != 0);
}

static json_t *bridges_json(const struct pcie_dev *d)
{
	json_t *a = json_array();

	for (size_t i = 0; i < d->n_bridges; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:o}",
			"bdf", d->bridges[i].bdf,
			"type", pcie_port_type_name(d->bridges[i].type),
			"link", link_json(&d->bridges[i].link),
			"acs", acs_json(&d->bridges[i].acs)));
	return a;
}

static json_t *names_json(const char (*names)[16], size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(names[i]));
	return a;
}

static json_t *rdma_json(const struct pcie_dev *d)
{
	json_t *a = json_array();

	for (size_t i = 0; i < d->n_rdma; i++)
		json_array_append_new(a, json_string(d->rdma[i]));
	return a;
}

/* What NICs and GPUs have alike. */
static json_t *dev_json(const struct pcie_view *v, const struct pcie_dev *d)
{
	const struct pcie_link *s = pcie_dev_slot(d);
	unsigned int bs, bw;
	int numa = pcie_numa(v, d);

	pcie_link_best(d, &bs, &bw);
	return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o}",
		"bdf", d->bdf,
		"vendor", hex(d->vendor, 4),
		"device", hex(d->device, 4),
		"class", hex(d->class_code, 6),
		"driver", json_text_or_null(d->driver),
		"link", link_json(&d->link),
		"slot", s && !d->link_from_port ? link_json(s) : json_null(),
		"link_from_port", d->link_from_port,
		"best_speed_gts", gts_or_null(bs),
		"best_width", uint_or_null(bw),
		"degraded", pcie_link_degraded(d),
		"numa_node", numa >= 0 ? json_integer(numa) : json_null(),
		"socket", d->socket >= 0 ? json_integer(d->socket) : json_null(),
		"host_bridge", json_text_or_null(d->host_bridge),
		"iommu", json_text_or_null(d->iommu),
		"bridges", bridges_json(d));
}

static json_t *acs_on_json(const struct pcie_view *v, const struct pcie_dev *nic,
			   const size_t *idx, size_t n)
{
	const struct pcie_bridge *on[NEAR_MAX];
	size_t n_on, n_path, unread;
	json_t *a = json_array();

	n_on = pcie_nic_acs(v, nic, idx, n, on, NEAR_MAX, &n_path, &unread);
	for (size_t i = 0; i < n_on; i++)
		json_array_append_new(a, json_string(on[i]->bdf));
	return json_pack("{s:I, s:I, s:o}", "bridges", (json_int_t)n_path,
			 "unread", (json_int_t)unread, "p2p_redirect", a);
}

/* "gpus": every GPU with its distance; "near": the NIC's GPUs and the ACS on their paths. */
static void nic_gpus_json(json_t *j, const struct pcie_view *v, const struct pcie_dev *nic)
{
	size_t idx[NEAR_MAX], n;
	enum pcie_distance dist;
	json_t *all = json_array(), *near = json_array();

	for (size_t i = 0; i < v->n_gpus; i++)
		json_array_append_new(all, json_pack("{s:s, s:s}", "bdf", v->gpus[i].bdf,
			"distance", pcie_distance_name(pcie_distance(v, nic, &v->gpus[i]))));
	n = pcie_nic_gpus(v, nic, idx, NEAR_MAX, &dist);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(near, json_string(v->gpus[idx[i]].bdf));
	json_object_set_new(j, "gpus", all);
	json_object_set_new(j, "near_gpus", json_pack("{s:o, s:o, s:o}",
		"bdfs", near,
		"distance", n ? json_string(pcie_distance_name(dist)) : json_null(),
		"acs", acs_on_json(v, nic, idx, n)));
}

static json_t *nic_json(const struct pcie_view *v, const struct pcie_dev *d)
{
	json_t *j = dev_json(v, d);

	json_object_set_new(j, "netdevs", names_json(d->netdevs, d->n_netdevs));
	json_object_set_new(j, "rdma", rdma_json(d));
	json_object_set_new(j, "fw_lldp", json_pack("{s:b, s:o, s:o}",
		"supported", d->fw_lldp != PCIE_FW_LLDP_UNKNOWN,
		"flag", json_text_or_null(d->fw_lldp_flag),
		"agent", d->fw_lldp == PCIE_FW_LLDP_UNKNOWN ? json_null()
			: json_string(pcie_fw_lldp_name(d->fw_lldp))));
	nic_gpus_json(j, v, d);
	return j;
}

json_t *status_pcie_json(const struct pcie_view *v)
{
	json_t *nics, *gpus;

	if (!v)
		return json_null();
	nics = json_array();
	gpus = json_array();
	for (size_t i = 0; i < v->n_nics; i++)
		json_array_append_new(nics, nic_json(v, &v->nics[i]));
	for (size_t i = 0; i < v->n_gpus; i++)
		json_array_append_new(gpus, dev_json(v, &v->gpus[i]));
	return json_pack("{s:o, s:b, s:o, s:o, s:o}",
		"numa_nodes", uint_or_null(v->numa_nodes),
		"config_read", v->config_read,
		"gpudirect", json_pack("{s:o, s:o, s:b, s:o}",
			"ready", v->n_gpus ? json_boolean(pcie_gpudirect_ready(v)) : json_null(),
			"peer_mem", json_text_or_null(v->gd.peer_mem),
			"dma_buf", v->gd.dma_buf,
			"dma_buf_via", json_text_or_null(v->gd.dma_buf_via)),
		"nics", nics,
		"gpus", gpus);
}
