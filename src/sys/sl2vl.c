// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Virtual lanes of a live subnet (sys.h: subnet_vl_read; model/ib_vl.h):
 *   - every switch's SLtoVLMappingTable (SubnGet, attribute 0x17, modifier
 *     input port << 8 | output port), for every linked input port and
 *     every output port cabled to another switch (the only hops a credit
 *     loop can hold), by the switch's LID;
 *   - the SL of every CA pair's path: SubnAdmGet(PathRecord) with SLID and
 *     DLID from the subnet administrator (the master SM's LID from our
 *     port's PortInfo), which is what a CA uses to address a peer; a
 *     subnet manager that breaks loops by lanes (opensm's lash, dfsssp)
 *     does it with these SLs.  More than IB_PATH_SL_MAX pairs, or no SA
 *     answering: every path on SL 0, and ib_vl_data.sl_note says why.
 * One MAD at a time through libibmad: this runs only when the one-VL
 * graph has a credit loop (cmd/discover.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "model/ib_vl.h"
#include "sys/sys_real.h"
#include "util/clock.h"
#include "util/log.h"

#define PR_COMPMASK_DLID (1ull << 4)
#define PR_COMPMASK_SLID (1ull << 5)

static bool port_active(const struct topo_port *p)
{
	return !(p->facts & TOPO_F_STATE) || p->state == TOPO_PORT_ACTIVE;
}

static bool ca_usable(const struct topo_port *p)
{
	return p->node->type != TOPO_NODE_SWITCH && p->peer && p->lid && port_active(p) &&
	       port_active(p->peer);
}

/* The (in, out) table of one switch; false when it did not answer. */
static bool table_one(struct ibmad_port *mp, unsigned int lid, struct ib_sl2vl *s,
		      unsigned int in, unsigned int out, unsigned int timeout_ms)
{
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	ib_portid_t id = { 0 };

	ib_portid_set(&id, (int)lid, 0, 0);
	if (!smp_query_via(buf, &id, IB_ATTR_SLVL_TABLE, in << 8 | out, timeout_ms, mp))
		return false;
	ib_sl2vl_decode(buf, &s->vl[((size_t)in * s->n_ports + out) * IB_SL_N]);
	return true;
}

static int tables_read(struct ibmad_port *mp, const struct topo *t, struct ib_vl_data *vd,
		       unsigned int timeout_ms)
{
	for (size_t i = 0; i < t->n_nodes; i++) {
		const struct topo_node *n = t->nodes[i];
		const struct topo_port *p0 = topo_port_find(n, 0, NULL);
		struct ib_sl2vl *s;

		if (n->type != TOPO_NODE_SWITCH || !p0 || !p0->lid)
			continue;
		s = ib_vl_data_add_switch(vd, n, n->n_ports_max + 1);
		if (!s)
			return -ENOMEM;
		for (size_t a = 0; a < n->n_ports; a++) {
			const struct topo_port *in = n->ports[a];

			if (!in->num || in->num > n->n_ports_max || !in->peer)
				continue;
			for (size_t b = 0; b < n->n_ports; b++) {
				const struct topo_port *out = n->ports[b];

				if (out == in || !out->num || out->num > n->n_ports_max || !out->peer ||
				    out->peer->node->type != TOPO_NODE_SWITCH)
					continue;
				if (table_one(mp, p0->lid, s, in->num, out->num, timeout_ms))
					vd->n_tables++;
				else
					vd->n_failed++;
			}
		}
	}
	return 0;
}

/* The SL the SA gives @slid -> @dlid; -EIO when it does not answer. */
static int path_sl(struct ibmad_port *mp, ib_portid_t *sa, unsigned int slid, unsigned int dlid,
		   unsigned int timeout_ms)
{
	uint8_t buf[IB_SA_DATA_SIZE] = { 0 };
	ib_sa_call_t call = {
		.attrid = IB_SA_ATTR_PATHRECORD, .method = IB_MAD_METHOD_GET,
		.mask = PR_COMPMASK_SLID | PR_COMPMASK_DLID,
	};
	uint8_t *p;

	call.trid = mad_trid();
	mad_set_field(buf, 0, IB_SA_PR_SLID_F, slid);
	mad_set_field(buf, 0, IB_SA_PR_DLID_F, dlid);
	p = sa_rpc_call(mp, buf, sa, &call, timeout_ms);
	if (!p)
		return -EIO;
	return (int)mad_get_field(p, 0, IB_SA_PR_SL_F);
}

static size_t pairs_count(const struct topo *t, size_t *n_ca)
{
	size_t lids = 0;

	*n_ca = 0;
	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++)
			if (ca_usable(t->nodes[i]->ports[j])) {
				(*n_ca)++;
				lids += 1u << (t->nodes[i]->ports[j]->lmc & 7);
			}
	return *n_ca ? (*n_ca - 1) * lids : 0;
}

/* The SL of every path from @src to the LIDs of every other CA port; -EIO: the SA went silent. */
static int source_sls(struct ibmad_port *mp, ib_portid_t *sa, const struct topo *t,
		      const struct topo_port *src, struct ib_vl_data *vd, unsigned int timeout_ms)
{
	for (size_t a = 0; a < t->n_nodes; a++)
		for (size_t b = 0; b < t->nodes[a]->n_ports; b++) {
			const struct topo_port *d = t->nodes[a]->ports[b];

			for (unsigned int o = 0; d != src && ca_usable(d) && o < (1u << (d->lmc & 7));
			     o++) {
				int sl = path_sl(mp, sa, src->lid, d->lid + o, timeout_ms);

				if (sl < 0) {
					snprintf(vd->sl_note, sizeof(vd->sl_note), "not read (the "
						 "subnet administrator at lid %d did not answer "
						 "PathRecord %u -> %u): sl 0 assumed", sa->lid,
						 src->lid, d->lid + o);
					return -EIO;
				}
				if (ib_vl_data_add_path(vd, src->lid, d->lid + o, (unsigned int)sl) < 0)
					return -ENOMEM;
			}
		}
	return 0;
}

/* Every ordered (source port, destination LID) pair's SL; a silent SA is not an error. */
static int sls_read(struct ibmad_port *mp, const struct topo *t, struct ib_vl_data *vd,
		    unsigned int timeout_ms)
{
	ib_portid_t sa = { 0 };
	size_t n_ca, n = pairs_count(t, &n_ca);

	if (n > IB_PATH_SL_MAX) {
		snprintf(vd->sl_note, sizeof(vd->sl_note), "not read (%zu pairs, over %d): sl 0 "
			 "assumed", n, IB_PATH_SL_MAX);
		return 0;
	}
	if (ib_resolve_smlid_via(&sa, (int)timeout_ms, mp) < 0 || sa.lid <= 0) {
		snprintf(vd->sl_note, sizeof(vd->sl_note), "not read (no subnet administrator "
			 "answers): sl 0 assumed");
		return 0;
	}
	for (size_t i = 0; i < t->n_nodes; i++)
		for (size_t j = 0; j < t->nodes[i]->n_ports; j++) {
			const struct topo_port *s = t->nodes[i]->ports[j];
			int rc = ca_usable(s) ? source_sls(mp, &sa, t, s, vd, timeout_ms) : 0;

			if (rc == -EIO) {
				vd->n_paths = 0;
				return 0;
			}
			if (rc < 0)
				return rc;
		}
	ib_vl_data_sort(vd);
	vd->sls_read = true;
	return 0;
}

int subnet_vl_read(struct sys *sys, const struct subnet_opts *o, const struct topo *t,
		   struct ib_vl_data *vd, struct fab_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_SA_CLASS };
	unsigned int timeout_ms = o->timeout_ms ? o->timeout_ms : 1000;
	char ca[UMAD_CA_NAME_LEN] = "";
	double t0 = (double)clock_mono_ns() / 1e6;
	struct ibmad_port *mp;
	int rc;

	(void)sys;
	if (o->ca)
		snprintf(ca, sizeof(ca), "%s", o->ca);
	mp = mad_rpc_open_port(o->ca ? ca : NULL, o->ca_port, classes, 3);
	if (!mp)
		return fab_err_set(err, -ENODEV, "subnet: %s: cannot open a MAD port for SL2VL "
				   "and PathRecord queries", o->ca ? o->ca : "first ib ca");
	if (o->retries)
		mad_rpc_set_retries(mp, (int)o->retries);
	rc = tables_read(mp, t, vd, timeout_ms);
	if (rc == 0)
		rc = sls_read(mp, t, vd, timeout_ms);
	mad_rpc_close_port(mp);
	if (rc < 0)
		return fab_err_set(err, rc, "subnet: out of memory");
	fab_info("subnet: sl2vl tables of %zu switches, %zu read, %zu unanswered; path sls: %s "
		 "(%zu); %.1f ms", vd->n_sw, vd->n_tables, vd->n_failed,
		 vd->sls_read ? "sa" : vd->sl_note, vd->n_paths, (double)clock_mono_ns() / 1e6 - t0);
	return 0;
}
