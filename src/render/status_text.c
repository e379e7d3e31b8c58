// SPDX-License-Identifier: GPL-2.0-or-later
/* status, text: terse, column-aligned, in the manner of `ip -br` and ibstat. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "render/optics.h"
#include "render/render_impl.h"

static const char *dash(const char *s)
{
	return s && *s ? s : "-";
}

/* Interface names are the kernel's, which any local user may set to escapes: render_txt(). */
static void text_links(FILE *f, struct render_txt *tx, const struct host_state *hs)
{
	fprintf(f, "%-16s %5s %-8s %6s %10s %-10s %-8s %-16s\n",
		"IFNAME", "INDEX", "STATE", "MTU", "SPEED", "DRIVER", "KIND", "MASTER");
	for (size_t i = 0; i < hs->n_links; i++) {
		const struct fab_link *l = &hs->links[i];
		char speed[24];

		if (l->speed_mbps >= 0)
			snprintf(speed, sizeof(speed), "%" PRId64 "Mb/s", l->speed_mbps);
		else
			snprintf(speed, sizeof(speed), "-");
		fprintf(f, "%-16s %5d %-8s %6u %10s %-10s %-8s %-16s\n",
			render_txt(tx, l->name), l->ifindex, l->operstate, l->mtu, speed,
			dash(l->driver), dash(l->kind), render_txt(tx, dash(l->master)));
	}
}

static void text_port(FILE *f, struct render_txt *tx, const struct fab_rdma_dev *d,
		      const struct fab_rdma_port *p)
{
	fprintf(f, "%s/%u: %s %s/%s", d->name, p->port, p->link_layer,
		p->state, dash(p->phys_state));
	if (p->width_x && *p->speed)
		fprintf(f, " %uX %s (%.0f Gb/s)", p->width_x, p->speed, p->rate_gbps);
	else if (p->rate_gbps > 0)
		fprintf(f, " %.0f Gb/s", p->rate_gbps);
	if (p->active_mtu)
		fprintf(f, " mtu %u", p->active_mtu);
	if (*p->netdev)
		fprintf(f, " netdev %s", render_txt(tx, p->netdev));
	fputc('\n', f);
	if (p->link_layer[0] == 'I')
		fprintf(f, "    lid %u sm_lid %u port_guid 0x%016" PRIx64 "\n",
			p->lid, p->sm_lid, p->port_guid);
	for (size_t i = 0; i < p->n_gids; i++)
		fprintf(f, "    gid %-3u %-39s %-8s %s\n", p->gids[i].index,
			p->gids[i].gid, p->gids[i].type, render_txt(tx, dash(p->gids[i].netdev)));
	if (p->chain) {
		char line[700];

		fprintf(f, "    chain %s\n", render_txt(tx, chain_text(p->chain, line, sizeof(line))));
	}
	if (!p->counters_supported) {
		fprintf(f, "    counters: not supported\n");
		return;
	}
	fprintf(f, "    counters:");
	for (size_t i = 0; i < p->n_counters; i++)
		fprintf(f, "%s%s %" PRIu64, i % 4 ? ", " : "\n      ",
			p->counters[i].name, p->counters[i].value);
	fputc('\n', f);
}

int status_text(struct render *out, const struct host_state *hs)
{
	FILE *f = out->f;
	struct render_txt tx = { .next = 0 };

	text_links(f, &tx, hs);
	fputc('\n', f);
	if (!hs->n_rdma)
		fprintf(f, "no RDMA devices\n");
	for (size_t i = 0; i < hs->n_rdma; i++) {
		const struct fab_rdma_dev *d = &hs->rdma[i];

		fprintf(f, "%s: %s node_guid 0x%016" PRIx64 " fw %s\n", d->name,
			dash(d->node_type), d->node_guid, dash(d->fw_ver));
		for (size_t j = 0; j < d->n_ports; j++)
			text_port(f, &tx, d, &d->ports[j]);
	}
	status_pcie_text(f, &tx, hs->pcie);
	optics_text_summary(f, hs->optics);
	return fflush(f) == EOF ? -EIO : 0;
}
