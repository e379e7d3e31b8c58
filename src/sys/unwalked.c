// SPDX-License-Identifier: GPL-2.0-or-later
/* NodeInfo behind the linked-up switch ports the walk left without a cable (unwalked.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "sys/unwalked.h"
#include "util/log.h"

static enum topo_node_type node_type(unsigned int t)
{
	return t == IB_NODE_SWITCH ? TOPO_NODE_SWITCH : t == IB_NODE_ROUTER ? TOPO_NODE_ROUTER :
	       TOPO_NODE_CA;
}

static void unwalked_one(struct ibmad_port *mp, const struct unwalked_req *q,
			 unsigned int timeout_ms, struct topo_unwalked *u)
{
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	ib_portid_t path = q->path;

	*u = (struct topo_unwalked){ .at = q->at };
	if (!smp_query_via(buf, &path, IB_ATTR_NODE_INFO, 0, timeout_ms, mp)) {
		fab_debug("subnet: nothing answers NodeInfo behind \"%s\" port %u",
			  q->at->node->name, q->at->num);
		return;
	}
	u->answered = true;
	u->type = node_type(mad_get_field(buf, 0, IB_NODE_TYPE_F));
	u->node_guid = mad_get_field64(buf, 0, IB_NODE_GUID_F);
	u->port_guid = mad_get_field64(buf, 0, IB_NODE_PORT_GUID_F);
	u->port = mad_get_field(buf, 0, IB_NODE_LOCAL_PORT_F);
	memset(buf, 0, sizeof(buf));
	path = q->path;
	if (smp_query_via(buf, &path, IB_ATTR_NODE_DESC, 0, timeout_ms, mp))
		snprintf(u->desc, sizeof(u->desc), "%.*s", IB_SMP_DATA_SIZE, (const char *)buf);
}

int unwalked_read(const struct unwalked_req *reqs, size_t n, struct topo *t,
		  const struct subnet_opts *o, struct fab_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	char ca[UMAD_CA_NAME_LEN] = "";
	struct ibmad_port *mp;
	size_t answered = 0;

	if (!n)
		return 0;
	t->unwalked = calloc(n, sizeof(*t->unwalked));
	if (!t->unwalked)
		return fab_err_set(err, -ENOMEM, "subnet: out of memory");
	if (o->ca)
		snprintf(ca, sizeof(ca), "%s", o->ca);
	mp = mad_rpc_open_port(o->ca ? ca : NULL, o->ca_port, classes, 2);
	if (!mp)
		return fab_err_set(err, -ENODEV, "subnet: %s: cannot open a MAD port for NodeInfo "
				   "queries", o->ca ? o->ca : "first ib ca");
	if (o->retries)
		mad_rpc_set_retries(mp, (int)o->retries);
	for (size_t i = 0; i < n; i++) {
		unwalked_one(mp, &reqs[i], o->timeout_ms, &t->unwalked[t->n_unwalked]);
		answered += t->unwalked[t->n_unwalked++].answered;
	}
	mad_rpc_close_port(mp);
	fab_info("subnet: %zu linked-up switch ports without a cable in the walk, %zu answer "
		 "NodeInfo", n, answered);
	return 0;
}
