// SPDX-License-Identifier: GPL-2.0-or-later
/* status, JSON: "fabricctl.status/1" (docs/json-status.md). */
#include <inttypes.h>
#include <stdio.h>

#include "render/optics.h"
#include "render/render_impl.h"

static json_t *link_to_json(const struct fab_link *l)
{
	return json_pack("{s:s, s:i, s:o, s:s, s:b, s:I, s:o, s:o, s:o, s:o}",
			 "name", l->name,
			 "ifindex", l->ifindex,
			 "kind", json_text_or_null(l->kind),
			 "operstate", l->operstate,
			 "admin_up", l->admin_up,
			 "mtu", (json_int_t)l->mtu,
			 "speed_mbps", l->speed_mbps >= 0 ? json_integer(l->speed_mbps) : json_null(),
			 "driver", json_text_or_null(l->driver),
			 "master", json_text_or_null(l->master),
			 "address", json_text_or_null(l->address));
}

static json_t *port_to_json(const struct fab_rdma_port *p)
{
	json_t *gids = json_array(), *counters, *jp;
	char width[8];

	for (size_t i = 0; i < p->n_gids; i++)
		json_array_append_new(gids, json_pack("{s:I, s:s, s:s, s:o}",
			"index", (json_int_t)p->gids[i].index,
			"gid", p->gids[i].gid,
			"type", p->gids[i].type,
			"netdev", json_text_or_null(p->gids[i].netdev)));
	if (p->counters_supported) {
		counters = json_object();
		for (size_t i = 0; i < p->n_counters; i++)
			json_object_set_new(counters, p->counters[i].name,
					    json_integer((json_int_t)p->counters[i].value));
	} else {
		counters = json_null();
	}
	snprintf(width, sizeof(width), "%uX", p->width_x);
	jp = json_pack("{s:I, s:s, s:s, s:o, s:o, s:o, s:o, s:o}",
		       "port", (json_int_t)p->port,
		       "link_layer", p->link_layer,
		       "state", p->state,
		       "phys_state", json_text_or_null(p->phys_state),
		       "width", p->width_x ? json_string(width) : json_null(),
		       "speed", json_text_or_null(p->speed),
		       "rate_gbps", p->rate_gbps > 0 ? json_real(p->rate_gbps) : json_null(),
		       "active_mtu", p->active_mtu ? json_integer(p->active_mtu) : json_null());
	if (!jp)
		return NULL;
	json_object_set_new(jp, "lid", json_integer(p->lid));
	json_object_set_new(jp, "sm_lid", json_integer(p->sm_lid));
	json_object_set_new(jp, "port_guid", json_guid(p->port_guid));
	json_object_set_new(jp, "netdev", json_text_or_null(p->netdev));
	json_object_set_new(jp, "gids", gids);
	json_object_set_new(jp, "counters_supported", json_boolean(p->counters_supported));
	json_object_set_new(jp, "counters", counters);
	json_object_set_new(jp, "chain", p->chain ? chain_to_json(p->chain) : json_null());
	return jp;
}

static json_t *rdma_to_json(const struct fab_rdma_dev *d)
{
	json_t *ports = json_array();

	for (size_t i = 0; i < d->n_ports; i++)
		json_array_append_new(ports, port_to_json(&d->ports[i]));
	return json_pack("{s:s, s:o, s:o, s:o, s:o}",
			 "name", d->name,
			 "node_type", json_text_or_null(d->node_type),
			 "node_guid", json_guid(d->node_guid),
			 "fw_ver", json_text_or_null(d->fw_ver),
			 "ports", ports);
}

json_t *status_to_json(const struct host_state *hs)
{
	json_t *links = json_array(), *rdma = json_array();

	for (size_t i = 0; i < hs->n_links; i++)
		json_array_append_new(links, link_to_json(&hs->links[i]));
	for (size_t i = 0; i < hs->n_rdma; i++)
		json_array_append_new(rdma, rdma_to_json(&hs->rdma[i]));
	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}",
			 "schema", "fabricctl.status/1",
			 "hostname", hs->hostname,
			 "links", links,
			 "rdma", rdma,
			 "pcie", status_pcie_json(hs->pcie),
			 "modules", optics_set_to_json(hs->optics));
}

int status_json(struct render *out, const struct host_state *hs)
{
	return render_json_emit(out, status_to_json(hs));
}
