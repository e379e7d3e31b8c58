// SPDX-License-Identifier: GPL-2.0-or-later
/* SMInfo of the subnet managers (sminfo.h), as infiniband-diags' sminfo asks it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "sys/sminfo.h"
#include "util/log.h"

/* One port's SMInfo into @s; false when it did not answer. */
static bool sminfo_one(struct ibmad_port *mp, const struct sminfo_req *q, unsigned int timeout_ms,
		       struct topo_sm *s)
{
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	ib_portid_t path = q->path;

	*s = (struct topo_sm){ .port = q->port };
	if (!smp_query_via(buf, &path, IB_ATTR_SMINFO, 0, (unsigned int)timeout_ms, mp)) {
		fab_debug("subnet: sminfo of \"%s\" port %u: no answer", q->port->node->name,
			  q->port->num);
		return false;
	}
	s->answered = true;
	s->guid = mad_get_field64(buf, 0, IB_SMINFO_GUID_F);
	s->act_count = mad_get_field(buf, 0, IB_SMINFO_ACT_F);
	s->priority = mad_get_field(buf, 0, IB_SMINFO_PRIO_F);
	s->state = (enum topo_sm_state)(mad_get_field(buf, 0, IB_SMINFO_STATE_F) & 3);
	return true;
}

int sminfo_read(const struct sminfo_req *reqs, size_t n, struct topo *t,
		const struct subnet_opts *o, struct fab_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS };
	char ca[UMAD_CA_NAME_LEN] = "";
	struct ibmad_port *mp;
	size_t answered = 0;

	t->sms_read = true;
	if (!n)
		return 0;
	t->sms = calloc(n, sizeof(*t->sms));
	if (!t->sms)
		return fab_err_set(err, -ENOMEM, "subnet: out of memory");
	if (o->ca)
		snprintf(ca, sizeof(ca), "%s", o->ca);
	mp = mad_rpc_open_port(o->ca ? ca : NULL, o->ca_port, classes, 2);
	if (!mp)
		return fab_err_set(err, -ENODEV, "subnet: %s: cannot open a MAD port for SMInfo "
				   "queries", o->ca ? o->ca : "first ib ca");
	if (o->retries)
		mad_rpc_set_retries(mp, (int)o->retries);
	for (size_t i = 0; i < n; i++)
		answered += sminfo_one(mp, &reqs[i], o->timeout_ms, &t->sms[t->n_sms++]);
	mad_rpc_close_port(mp);
	fab_info("subnet: sminfo of %zu sm ports, %zu answered", n, answered);
	return 0;
}
