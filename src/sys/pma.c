// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * PMA counters of a walked subnet (sys/pma.h).  The engine keeps up to
 * subnet_opts.max_pmas PerfMgt Gets on the wire through its own umad port
 * and PerfMgt agent, as libibnetdisc does with SMPs: libibmad's
 * pma_query_via waits for each answer in turn (~1.3 s for the 7776 ports
 * of a 1296-HCA fat tree).  Two rounds: first every node's ClassPortInfo
 * and every linked port's PortCounters, then PortCountersExtended of the
 * ports whose node answers it and whose PortCounters came back, so the
 * 64-bit data counters always land over the 32-bit ones, as in the
 * sequential order.  A lost query (umad reports the send timed out, or
 * no answer by its deadline) goes out again, subnet_opts.retries times.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "sys/pma.h"
#include "sys/pma_win.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/log.h"

#define PMA_CAP_EXT_WIDTH (1u << 9)		/* ClassPortInfo: PortCountersExtended */
#define PMA_CAP_EXT_WIDTH_NOIETF (1u << 10)	/* ... without the IETF counters */
#define PMA_UMAD_BUF 1024			/* umad_size() + IB_MAD_SIZE, with room */

static const struct {
	enum topo_counter c;
	enum MAD_FIELDS f;
} pma_base[] = {
	{ TOPO_CNT_SYMBOL_ERR, IB_PC_ERR_SYM_F },
	{ TOPO_CNT_LINK_RECOVERS, IB_PC_LINK_RECOVERS_F },
	{ TOPO_CNT_LINK_DOWNED, IB_PC_LINK_DOWNED_F },
	{ TOPO_CNT_RCV_ERR, IB_PC_ERR_RCV_F },
	{ TOPO_CNT_RCV_REMOTE_PHYS_ERR, IB_PC_ERR_PHYSRCV_F },
	{ TOPO_CNT_RCV_SWITCH_RELAY_ERR, IB_PC_ERR_SWITCH_REL_F },
	{ TOPO_CNT_XMT_DISCARDS, IB_PC_XMT_DISCARDS_F },
	{ TOPO_CNT_XMT_CONSTRAINT_ERR, IB_PC_ERR_XMTCONSTR_F },
	{ TOPO_CNT_RCV_CONSTRAINT_ERR, IB_PC_ERR_RCVCONSTR_F },
	{ TOPO_CNT_LINK_INTEGRITY_ERR, IB_PC_ERR_LOCALINTEG_F },
	{ TOPO_CNT_EXCESS_BUF_OVERRUN, IB_PC_ERR_EXCESS_OVR_F },
	{ TOPO_CNT_VL15_DROPPED, IB_PC_VL15_DROPPED_F },
	{ TOPO_CNT_XMT_WAIT, IB_PC_XMT_WAIT_F },
	{ TOPO_CNT_XMT_DATA, IB_PC_XMT_BYTES_F },
	{ TOPO_CNT_RCV_DATA, IB_PC_RCV_BYTES_F },
	{ TOPO_CNT_XMT_PKTS, IB_PC_XMT_PKTS_F },
	{ TOPO_CNT_RCV_PKTS, IB_PC_RCV_PKTS_F },
};

static const struct {
	enum topo_counter c;
	enum MAD_FIELDS f;
} pma_ext[] = {
	{ TOPO_CNT_XMT_DATA, IB_PC_EXT_XMT_BYTES_F },
	{ TOPO_CNT_RCV_DATA, IB_PC_EXT_RCV_BYTES_F },
	{ TOPO_CNT_XMT_PKTS, IB_PC_EXT_XMT_PKTS_F },
	{ TOPO_CNT_RCV_PKTS, IB_PC_EXT_RCV_PKTS_F },
};

int pma_encode(void *umad, unsigned int lid, unsigned int port, unsigned int attr, uint32_t tid,
	       unsigned int timeout_ms)
{
	uint8_t data[IB_PC_DATA_SZ] = { 0 };
	ib_rpc_t rpc = { 0 };
	ib_portid_t pid = { 0 };

	if (!lid || lid > 0xffff || port > 255)
		return -EINVAL;
	ib_portid_set(&pid, (int)lid, 0, 0);
	pid.qp = 1;
	pid.qkey = IB_DEFAULT_QP1_QKEY;
	/* PortSelect: the same place in PortCounters and PortCountersExtended. */
	mad_set_field(data, 0, IB_PC_PORT_SELECT_F, port);
	rpc.mgtclass = IB_PERFORMANCE_CLASS;
	rpc.method = IB_MAD_METHOD_GET;
	rpc.attr.id = attr;
	rpc.attr.mod = 0;
	rpc.timeout = (int)timeout_ms;
	rpc.datasz = IB_PC_DATA_SZ;
	rpc.dataoffs = IB_PC_DATA_OFFS;
	rpc.trid = tid;
	memset(umad, 0, umad_size() + IB_MAD_SIZE);
	if (mad_build_pkt(umad, &rpc, &pid, NULL, data) < 0)
		return -EINVAL;
	return IB_MAD_SIZE;
}

bool pma_cpi_has_ext(const uint8_t *data)
{
	unsigned int cap = (unsigned int)data[2] << 8 | data[3];	/* CapabilityMask, big endian */

	return cap & (PMA_CAP_EXT_WIDTH | PMA_CAP_EXT_WIDTH_NOIETF);
}

void pma_decode_counters(const uint8_t *data, uint64_t *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(pma_base); i++)
		c[pma_base[i].c] = mad_get_field((void *)(uintptr_t)data, 0, pma_base[i].f);
}

void pma_decode_ext(const uint8_t *data, uint64_t *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(pma_ext); i++)
		c[pma_ext[i].c] = mad_get_field64((void *)(uintptr_t)data, 0, pma_ext[i].f);
}

/* What the read found, whichever path read it. */
/* Ports a warning names before "and N more". */
#define PMA_FAILED_NAMED 8

struct pma_stats {
	size_t done, failed, no_lid, n_ext;
	char failed_list[PMA_FAILED_NAMED * 168];	/* "h0003 (0x...) port 1, ..." */
};

/* Name @p in @st's list of failed ports, the first PMA_FAILED_NAMED of them. */
static void failed_add(struct pma_stats *st, const struct topo_port *p)
{
	size_t off = strlen(st->failed_list);

	if (st->failed++ >= PMA_FAILED_NAMED || off + 1 >= sizeof(st->failed_list))
		return;
	snprintf(st->failed_list + off, sizeof(st->failed_list) - off,
		 "%s%.128s (0x%016" PRIx64 ") port %u", off ? ", " : "", p->node->name,
		 p->node->guid, p->num);
}

/* The node's LID for ClassPortInfo: its first linked port's (as the reads go). */
static unsigned int node_pma_lid(const struct topo_node *n)
{
	for (size_t j = 0; j < n->n_ports; j++)
		if (n->ports[j]->peer && n->ports[j]->lid)
			return n->ports[j]->lid;
	return 0;
}

/* ------------------------------------------------------------------ */
/* One query at a time: libibmad's pma_query_via (it follows redirects). */

static bool serial_has_ext(struct ibmad_port *mp, unsigned int lid, unsigned int timeout_ms)
{
	uint8_t buf[IB_MAD_SIZE] = { 0 };
	ib_portid_t pid = { 0 };

	ib_portid_set(&pid, (int)lid, 0, 0);
	if (!pma_query_via(buf, &pid, 0, timeout_ms, CLASS_PORT_INFO, mp))
		return false;
	return pma_cpi_has_ext(buf);
}

static int serial_port(struct ibmad_port *mp, struct topo_port *p, bool ext_ok,
		       unsigned int timeout_ms)
{
	uint8_t buf[IB_MAD_SIZE];
	ib_portid_t pid = { 0 };

	ib_portid_set(&pid, (int)p->lid, 0, 0);
	memset(buf, 0, sizeof(buf));
	if (!pma_query_via(buf, &pid, (int)p->num, timeout_ms, IB_GSI_PORT_COUNTERS, mp))
		return -EIO;
	pma_decode_counters(buf, p->counters);
	memset(buf, 0, sizeof(buf));
	if (ext_ok && pma_query_via(buf, &pid, (int)p->num, timeout_ms, IB_GSI_PORT_COUNTERS_EXT, mp))
		pma_decode_ext(buf, p->counters);
	p->facts |= TOPO_F_COUNTERS;
	return 0;
}

/* Every linked port of @n; whether its PMA answers PortCountersExtended. */
static bool serial_node(struct ibmad_port *mp, struct topo_node *n, unsigned int timeout_ms)
{
	unsigned int lid = node_pma_lid(n);
	bool ext = lid && serial_has_ext(mp, lid, timeout_ms);

	for (size_t j = 0; j < n->n_ports; j++) {
		struct topo_port *p = n->ports[j];

		p->facts &= ~TOPO_F_COUNTERS;
		if (p->peer && p->lid)
			serial_port(mp, p, ext, timeout_ms);
	}
	return ext;
}

/* The nodes with @only set (every node when NULL), one query at a time; @ext per node. */
static int serial_read(struct topo *t, const struct subnet_opts *o, const bool *only, bool *ext,
		       struct fab_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_PERFORMANCE_CLASS };
	char ca[UMAD_CA_NAME_LEN] = "";
	struct ibmad_port *mp;

	if (o->ca)
		snprintf(ca, sizeof(ca), "%s", o->ca);
	mp = mad_rpc_open_port(o->ca ? ca : NULL, o->ca_port, classes, 3);
	if (!mp)
		return fab_err_set(err, -ENODEV, "subnet: %s: cannot open a MAD port for PMA queries",
				   o->ca ? o->ca : "first ib ca");
	for (size_t i = 0; i < t->n_nodes; i++)
		if (!only || only[i])
			ext[i] = serial_node(mp, t->nodes[i], o->timeout_ms);
	mad_rpc_close_port(mp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Many in flight: our own umad port and PerfMgt agent. */

struct pma_req {
	struct topo_port *p;	/* NULL: the node's ClassPortInfo */
	uint32_t node;		/* index in topo.nodes */
	uint16_t lid;
	uint16_t attr;
};

struct pma_engine {
	int fd, agent;
	unsigned int max, timeout_ms, retries;
	uint32_t trid;		/* the next round's first transaction id */
	bool *ext;		/* per node: ClassPortInfo says PortCountersExtended */
	bool *redirect;		/* per node: its PMA redirects; libibmad reads it */
	size_t n_redirect, resent;
};

/* An answer to @q (MAD status 0 or not): file it; false when refused. */
static bool engine_file(struct pma_engine *e, const struct pma_req *q, const uint8_t *mad, int len)
{
	unsigned int status = mad_get_field((void *)(uintptr_t)mad, 0, IB_DRSMP_STATUS_F);
	const uint8_t *data = mad + IB_PC_DATA_OFFS;

	if (status == IB_MAD_STS_REDIRECT) {
		if (!e->redirect[q->node])
			e->n_redirect++;
		e->redirect[q->node] = true;
		return false;
	}
	if (status || len < IB_MAD_SIZE ||
	    mad_get_field((void *)(uintptr_t)mad, 0, IB_MAD_ATTRID_F) != q->attr)
		return false;
	switch (q->attr) {
	case CLASS_PORT_INFO:
		e->ext[q->node] = pma_cpi_has_ext(data);
		break;
	case IB_GSI_PORT_COUNTERS:
		pma_decode_counters(data, q->p->counters);
		q->p->facts |= TOPO_F_COUNTERS;
		break;
	default:
		pma_decode_ext(data, q->p->counters);
		break;
	}
	return true;
}

/* One umad_recv (at most @wait_ms) and what it brings; <0: umad failed. */
static int engine_recv(struct pma_engine *e, struct pma_win *w, const struct pma_req *reqs,
		       double wait_ms)
{
	uint8_t umad[PMA_UMAD_BUF];
	int len = IB_MAD_SIZE, rc;
	const uint8_t *mad;
	size_t i;

	memset(umad, 0, umad_size() + IB_MAD_SIZE);
	/* 0 would block in read(): at least 1 ms. */
	rc = umad_recv(e->fd, umad, &len, wait_ms < 1 ? 1 : (int)ceil(wait_ms));
	if (rc == -ETIMEDOUT)
		return 0;
	if (rc < 0)
		return rc;
	mad = umad_get_mad(umad);
	/* Too short to be a MAD (umad2sim's "dropped" notice), or not PerfMgt. */
	if (len < IB_PC_DATA_OFFS ||
	    mad_get_field((void *)(uintptr_t)mad, 0, IB_MAD_MGMTCLASS_F) != IB_PERFORMANCE_CLASS)
		return 0;
	switch (pma_win_match(w, (uint32_t)mad_get_field64((void *)(uintptr_t)mad, 0, IB_MAD_TRID_F),
			      umad_status(umad) != 0, &i)) {
	case PMA_WIN_ANSWER:
		if (!engine_file(e, &reqs[i], mad, len))
			pma_win_refuse(w, i);
		break;
	case PMA_WIN_LOST:
		fab_debug("subnet: pma lid %u attr 0x%x: no answer after %u tries", reqs[i].lid,
			  reqs[i].attr, e->retries + 1);
		break;
	default:
		break;
	}
	return 0;
}

/* Send every request of one round, e->max in flight; <0: umad failed. */
static int engine_round(struct pma_engine *e, const struct pma_req *reqs, size_t n)
{
	uint8_t umad[PMA_UMAD_BUF];
	struct pma_win w;
	int rc;

	rc = pma_win_init(&w, n, e->max, e->retries, e->trid);
	if (rc < 0)
		return rc;
	e->trid += (uint32_t)(n * (e->retries + 1u));
	while (rc == 0 && !pma_win_finished(&w)) {
		double now = (double)clock_mono_ns() / 1e6, wait;
		uint32_t tid;
		size_t i;

		while (pma_win_take(&w, now + e->timeout_ms, &i, &tid)) {
			const struct pma_req *q = &reqs[i];

			rc = pma_encode(umad, q->lid, q->p ? q->p->num : 0, q->attr, tid, e->timeout_ms);
			/* No retries by the kernel: a timed-out send comes back; we resend. */
			if (rc >= 0)
				rc = umad_send(e->fd, e->agent, umad, IB_MAD_SIZE, (int)e->timeout_ms, 0);
			if (rc < 0)
				break;
		}
		if (rc < 0)
			break;
		wait = pma_win_wait(&w, now);
		rc = engine_recv(e, &w, reqs, wait < 0 ? e->timeout_ms : wait);
		pma_win_expire(&w, (double)clock_mono_ns() / 1e6);
	}
	e->resent += w.resent;
	pma_win_free(&w);
	return rc;
}

/* Round one: every node's ClassPortInfo, every linked port's PortCounters. */
static size_t plan_first(const struct topo *t, struct pma_req *reqs)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		struct topo_node *nd = t->nodes[i];
		unsigned int lid = node_pma_lid(nd);

		if (lid)
			reqs[n++] = (struct pma_req){ .node = (uint32_t)i, .lid = (uint16_t)lid,
						      .attr = CLASS_PORT_INFO };
		for (size_t j = 0; j < nd->n_ports; j++) {
			struct topo_port *p = nd->ports[j];

			p->facts &= ~TOPO_F_COUNTERS;
			if (!p->peer || !p->lid)
				continue;
			reqs[n++] = (struct pma_req){ .p = p, .node = (uint32_t)i,
						      .lid = (uint16_t)p->lid,
						      .attr = IB_GSI_PORT_COUNTERS };
		}
	}
	return n;
}

/* Round two: PortCountersExtended where the node has it and PortCounters came. */
static size_t plan_second(const struct topo *t, const struct pma_engine *e, struct pma_req *reqs)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		struct topo_node *nd = t->nodes[i];

		if (!e->ext[i] || e->redirect[i])
			continue;
		for (size_t j = 0; j < nd->n_ports; j++) {
			struct topo_port *p = nd->ports[j];

			if (p->peer && p->lid && p->facts & TOPO_F_COUNTERS)
				reqs[n++] = (struct pma_req){ .p = p, .node = (uint32_t)i,
							      .lid = (uint16_t)p->lid,
							      .attr = IB_GSI_PORT_COUNTERS_EXT };
		}
	}
	return n;
}

/* <0 with @why set: the engine could not run; the caller reads one at a time. */
static int engine_read(struct topo *t, const struct subnet_opts *o, struct pma_engine *e,
		       char *why, size_t why_len)
{
	char ca[UMAD_CA_NAME_LEN] = "";
	struct pma_req *reqs;
	size_t cap = t->n_nodes, n;
	int rc = -ENOMEM;

	for (size_t i = 0; i < t->n_nodes; i++)
		cap += t->nodes[i]->n_ports;
	reqs = calloc(cap ? cap : 1, sizeof(*reqs));
	if (!reqs) {
		snprintf(why, why_len, "out of memory");
		return rc;
	}
	if (o->ca)
		snprintf(ca, sizeof(ca), "%s", o->ca);
	e->fd = umad_init() < 0 ? -1 : umad_open_port(o->ca ? ca : NULL, o->ca_port);
	if (e->fd < 0) {
		snprintf(why, why_len, "cannot open a umad port");
		rc = -ENODEV;
		goto out;
	}
	e->agent = umad_register(e->fd, IB_PERFORMANCE_CLASS, 1, 0, NULL);
	if (e->agent < 0) {
		snprintf(why, why_len, "cannot register a PerfMgt agent");
		rc = -EIO;
		goto out;
	}
	n = plan_first(t, reqs);
	rc = engine_round(e, reqs, n);
	if (rc == 0)
		rc = engine_round(e, reqs, plan_second(t, e, reqs));
	if (rc < 0)
		snprintf(why, why_len, "umad: %s", strerror(-rc));
out:
	if (e->fd >= 0)
		umad_close_port(e->fd);
	free(reqs);
	return rc;
}

int pma_counters_read(struct topo *t, const struct subnet_opts *o, struct fab_err *err)
{
	struct pma_engine e = {
		.fd = -1,
		.max = o->max_pmas ? o->max_pmas : PMA_WINDOW_DEFAULT,
		.timeout_ms = o->timeout_ms ? o->timeout_ms : 1000,
		.retries = o->retries ? o->retries : 3,
		.trid = (uint32_t)mad_trid(),
	};
	struct pma_stats st = { 0 };
	double t0 = (double)clock_mono_ns() / 1e6, c0 = clock_cpu_ms();
	char why[128] = "", how[96];
	int rc = -ENOMEM;

	e.ext = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*e.ext));
	e.redirect = calloc(t->n_nodes ? t->n_nodes : 1, sizeof(*e.redirect));
	if (!e.ext || !e.redirect) {
		rc = fab_err_set(err, -ENOMEM, "subnet: out of memory");
		goto out;
	}
	if (!o->pma_serial && engine_read(t, o, &e, why, sizeof(why)) == 0) {
		snprintf(how, sizeof(how), "max %u pma queries in flight, %zu resent", e.max,
			 e.resent);
		if (e.n_redirect) {
			/* libibmad follows PMA redirects; the engine does not. */
			fab_info("subnet: %zu nodes redirect their PMA: read one query at a time "
				 "(libibmad)", e.n_redirect);
			rc = serial_read(t, o, e.redirect, e.ext, err);
			if (rc < 0)
				goto out;
		}
	} else {
		if (!o->pma_serial)
			fab_warn("subnet: pma: %s: reading counters one query at a time (libibmad)",
				 why);
		snprintf(how, sizeof(how), "one query at a time (libibmad)");
		rc = serial_read(t, o, NULL, e.ext, err);
		if (rc < 0)
			goto out;
	}
	for (size_t i = 0; i < t->n_nodes; i++) {
		struct topo_node *n = t->nodes[i];

		st.n_ext += e.ext[i];
		for (size_t j = 0; j < n->n_ports; j++) {
			struct topo_port *p = n->ports[j];

			if (!p->peer)
				continue;
			if (!p->lid)
				st.no_lid++;
			else if (p->facts & TOPO_F_COUNTERS)
				st.done++;
			else
				failed_add(&st, p);
		}
	}
	if (st.no_lid)
		fab_warn("subnet: %zu ports have no lid (no subnet manager?): no counters for them",
			 st.no_lid);
	if (st.failed) {
		char more[40] = "";

		if (st.failed > PMA_FAILED_NAMED)
			snprintf(more, sizeof(more), ", and %zu more", st.failed - PMA_FAILED_NAMED);
		fab_warn("subnet: pma query failed on %zu port%s: %s%s", st.failed,
			 st.failed == 1 ? "" : "s", st.failed_list, more);
	}
	fab_info("subnet: counters of %zu ports, %zu nodes with PortCountersExtended, %.1f ms "
		 "(cpu %.1f ms, %s)", st.done, st.n_ext, (double)clock_mono_ns() / 1e6 - t0,
		 clock_cpu_ms() - c0, how);
	rc = 0;
out:
	free(e.ext);
	free(e.redirect);
	return rc;
}
