// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * status, text: the PCIe part (model/pcie.h).  Two lines per NIC (its
 * link, node, IOMMU and firmware LLDP agent; then its GPUs and the ACS on
 * the path to them), one per GPU, one for GPUDirect.
 */
#include <inttypes.h>
#include <stdio.h>

#include "model/pcie_topo.h"
#include "render/render_impl.h"

#define NEAR_MAX 16

static void text_link(FILE *f, const struct pcie_dev *d)
{
	const struct pcie_link *s = pcie_dev_slot(d);
	char a[16], b[16], c[16];

	if (!d->link.width && !d->link.speed_mts && !d->link.max_width) {
		fprintf(f, "pcie link unknown");
		return;
	}
	fprintf(f, "pcie x%u %s (max x%u %s", d->link.width,
		pcie_speed_str(d->link.speed_mts, a, sizeof(a)), d->link.max_width,
		pcie_speed_str(d->link.max_speed_mts, b, sizeof(b)));
	if (s && !d->link_from_port)
		fprintf(f, ", slot x%u %s", s->max_width,
			pcie_speed_str(s->max_speed_mts, c, sizeof(c)));
	fprintf(f, ")%s%s", d->link_from_port ? " from its port" : "",
		pcie_link_degraded(d) ? " BELOW MAX" : "");
}

static void text_place(FILE *f, struct render_txt *tx, const struct pcie_view *v,
		       const struct pcie_dev *d)
{
	int n = pcie_numa(v, d);

	if (n >= 0)
		fprintf(f, "; numa %d", n);
	else
		fprintf(f, "; numa -");
	if (d->socket >= 0)
		fprintf(f, " socket %d", d->socket);
	fprintf(f, "; iommu %s", d->iommu[0] ? render_txt(tx, d->iommu) : "-");
}

/* The ACS verdict on the path from @nic to its GPUs. */
static void text_acs(FILE *f, const struct pcie_view *v, const struct pcie_dev *nic,
		     const size_t *idx, size_t n)
{
	const struct pcie_bridge *on[NEAR_MAX];
	size_t n_on, n_path, unread;

	n_on = pcie_nic_acs(v, nic, idx, n, on, NEAR_MAX, &n_path, &unread);
	if (n_on) {
		fprintf(f, "; acs ON at");
		for (size_t i = 0; i < n_on; i++)
			fprintf(f, " %s (ctl 0x%04x)", on[i]->bdf, on[i]->acs.ctl);
	} else if (unread) {
		fprintf(f, "; acs unknown (config space needs root)");
	} else {
		fprintf(f, "; acs off on the path (%zu bridges)", n_path);
	}
}

static void text_nic_gpus(FILE *f, struct render_txt *tx, const struct pcie_view *v,
			  const struct pcie_dev *nic)
{
	size_t idx[NEAR_MAX], n;
	enum pcie_distance dist;

	fprintf(f, "    ");
	if (nic->n_netdevs > 1 || (nic->n_netdevs && nic->n_rdma)) {
		fprintf(f, "also");
		for (size_t i = 1; i < nic->n_netdevs; i++)
			fprintf(f, " %s", render_txt(tx, nic->netdevs[i]));
		for (size_t i = 0; i < nic->n_rdma; i++)
			fprintf(f, " %s", render_txt(tx, nic->rdma[i]));
		fprintf(f, "; ");
	} else if (nic->n_rdma > 1) {
		fprintf(f, "also");
		for (size_t i = 1; i < nic->n_rdma; i++)
			fprintf(f, " %s", render_txt(tx, nic->rdma[i]));
		fprintf(f, "; ");
	}
	n = pcie_nic_gpus(v, nic, idx, NEAR_MAX, &dist);
	if (!n) {
		fprintf(f, "gpus none\n");
		return;
	}
	fprintf(f, "gpus");
	for (size_t i = 0; i < n; i++)
		fprintf(f, " %s", v->gpus[idx[i]].bdf);
	fprintf(f, " (%s", pcie_distance_name(dist));
	if (pcie_numa(v, &v->gpus[idx[0]]) >= 0)
		fprintf(f, ", numa %d", pcie_numa(v, &v->gpus[idx[0]]));
	fprintf(f, ")");
	text_acs(f, v, nic, idx, n);
	fputc('\n', f);
}

static void text_nic(FILE *f, struct render_txt *tx, const struct pcie_view *v,
		     const struct pcie_dev *d)
{
	fprintf(f, "nic %s %s (%s): ", render_txt(tx, pcie_dev_name(d)), d->bdf,
		d->driver[0] ? render_txt(tx, d->driver) : "-");
	text_link(f, d);
	text_place(f, tx, v, d);
	fprintf(f, "; fw-lldp %s", d->fw_lldp == PCIE_FW_LLDP_UNKNOWN ? "-"
		: pcie_fw_lldp_name(d->fw_lldp));
	fputc('\n', f);
	text_nic_gpus(f, tx, v, d);
}

static void text_gpu(FILE *f, struct render_txt *tx, const struct pcie_view *v,
		     const struct pcie_dev *d)
{
	fprintf(f, "gpu %s %04x:%04x (%s): ", d->bdf, d->vendor, d->device,
		d->driver[0] ? render_txt(tx, d->driver) : "-");
	text_link(f, d);
	text_place(f, tx, v, d);
	fputc('\n', f);
}

static void text_gpudirect(FILE *f, struct render_txt *tx, const struct pcie_view *v)
{
	const struct pcie_gpudirect *g = &v->gd;

	fprintf(f, "gpudirect %s (peer memory %s, dma-buf %s)\n",
		!v->n_gpus ? "- (no GPU)" : pcie_gpudirect_ready(v) ? "ready" : "NOT READY",
		g->peer_mem[0] ? render_txt(tx, g->peer_mem) : "none",
		g->dma_buf ? render_txt(tx, g->dma_buf_via) : "no");
}

void status_pcie_text(FILE *f, struct render_txt *tx, const struct pcie_view *v)
{
	if (!v)
		return;
	fputc('\n', f);
	if (!v->n_nics && !v->n_gpus) {
		fprintf(f, "no NIC or GPU on PCI\n");
		return;
	}
	for (size_t i = 0; i < v->n_nics; i++)
		text_nic(f, tx, v, &v->nics[i]);
	for (size_t i = 0; i < v->n_gpus; i++)
		text_gpu(f, tx, v, &v->gpus[i]);
	text_gpudirect(f, tx, v);
}
