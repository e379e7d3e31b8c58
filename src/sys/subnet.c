// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The InfiniBand subnet as a struct topo: libibnetdisc walks it with
 * directed-route SMPs (NodeInfo, NodeDescription, PortInfo, SwitchInfo),
 * or loads an ibnetdiscover --cache file; sys/pma.c then reads PMA
 * PortCounters (and PortCountersExtended for the data counters) of every
 * linked port by LID, many in flight, and, when asked, every switch's linear forwarding
 * table (SubnGet LinearForwardingTable, many in flight through libibumad).
 * libibumad is underneath; under ibsim the process runs with
 * libumad2sim.so preloaded like any libibumad program.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "model/rdma_rate.h"
#include "sys/pma.h"
#include "sys/sminfo.h"
#include "sys/sys_real.h"
#include "sys/unwalked.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/log.h"

#define SUBNET_CAP_EXT_SPEEDS (1u << 14)	/* PortInfo CapabilityMask.IsExtendedSpeedsSupported */
#define SUBNET_CAP_IS_SM (1u << 1)		/* PortInfo CapabilityMask.IsSM */

/* Widest width in a LinkWidthEnabled/Supported mask (1=1X 2=4X 4=8X 8=12X 16=2X). */
static unsigned int width_mask_max(unsigned int mask)
{
	static const unsigned int lanes[] = { 1, 4, 8, 12, 2 };
	unsigned int best = 0;

	for (unsigned int i = 0; i < 5; i++)
		if (mask & (1u << i) && lanes[i] > best)
			best = lanes[i];
	return best;
}

/* Fastest lane rate in LinkSpeedEnabled (1=SDR 2=DDR 4=QDR) / Ext (1=FDR 2=EDR 4=HDR 8=NDR). */
static unsigned int speed_mask_max(unsigned int mask, unsigned int ext_mask)
{
	static const char *const ext[] = { "FDR", "EDR", "HDR", "NDR", "XDR" };
	static const char *const base[] = { "SDR", "DDR", "QDR" };

	for (int i = 4; i >= 0; i--)
		if (ext_mask & (1u << i))
			return topo_speed_parse(ext[i]);
	for (int i = 2; i >= 0; i--)
		if (mask & (1u << i))
			return topo_speed_parse(base[i]);
	return 0;
}

static enum topo_phys_state phys_state(unsigned int v)
{
	return v <= TOPO_PHYS_TEST ? (enum topo_phys_state)v : TOPO_PHYS_UNKNOWN;
}

static enum topo_port_state port_state(unsigned int v)
{
	return v >= 1 && v <= 4 ? (enum topo_port_state)v : v == 5 ? TOPO_PORT_ACTIVE : TOPO_PORT_UNKNOWN;
}

/*
 * Lane rates of PortInfo speed codes, decoded once per distinct pair:
 * nearly every port of a fabric reports the same codes, and the decoders
 * go through the speed names (topo_speed_parse() compares strings).
 */
struct speed_memo {
	unsigned int (*decode)(unsigned int mask, unsigned int ext_mask);
	unsigned int mask, ext_mask, mbps;
	bool valid;
};

static unsigned int speed_memo_get(struct speed_memo *m, unsigned int mask, unsigned int ext_mask)
{
	if (!m->valid || m->mask != mask || m->ext_mask != ext_mask) {
		m->mask = mask;
		m->ext_mask = ext_mask;
		m->mbps = m->decode(mask, ext_mask);
		m->valid = true;
	}
	return m->mbps;
}

/* Active lane rate from LinkSpeedActive and LinkSpeedExtActive; 0 unknown. */
static unsigned int speed_active(unsigned int spd, unsigned int ext)
{
	const char *name = ib_speed_from_active(spd, ext);

	return name ? topo_speed_parse(name) : 0;
}

/*
 * libibnetdisc's nodes -> ours, open addressing on the node's address, at
 * most half full: links find both their ends here, and the forwarding
 * table reader its switches (topo_node_by_guid() is a scan of the graph).
 */
struct subnet_map_slot {
	const ibnd_node_t *in;
	struct topo_node *n;
};

struct subnet_map {
	struct subnet_map_slot *slot;
	size_t mask, used;
};

static size_t map_hash(const ibnd_node_t *in)
{
	uint64_t h = (uint64_t)(uintptr_t)in;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h;
}

static struct subnet_map_slot *map_slot(const struct subnet_map *m, const ibnd_node_t *in)
{
	size_t h = map_hash(in) & m->mask;

	while (m->slot[h].in && m->slot[h].in != in)
		h = (h + 1) & m->mask;
	return &m->slot[h];
}

static struct topo_node *map_get(const struct subnet_map *m, const ibnd_node_t *in)
{
	return m->slot ? map_slot(m, in)->n : NULL;
}

static int map_put(struct subnet_map *m, const ibnd_node_t *in, struct topo_node *n)
{
	struct subnet_map_slot *slot;

	if (!m->slot || 2 * (m->used + 1) > m->mask + 1) {
		struct subnet_map old = *m;
		size_t cap = m->slot ? 2 * (m->mask + 1) : 1024;

		m->slot = calloc(cap, sizeof(*m->slot));
		if (!m->slot) {
			*m = old;
			return -ENOMEM;
		}
		m->mask = cap - 1;
		for (size_t i = 0; old.slot && i <= old.mask; i++)
			if (old.slot[i].in)
				*map_slot(m, old.slot[i].in) = old.slot[i];
		free(old.slot);
	}
	slot = map_slot(m, in);
	if (!slot->in)
		m->used++;
	*slot = (struct subnet_map_slot){ .in = in, .n = n };
	return 0;
}

struct subnet_conv {
	struct topo *t;
	unsigned int src;
	int rc;
	struct speed_memo active, enabled;
	struct subnet_map map;
	bool asymmetric;	/* a port whose remote port's remote port is another */
};

/*
 * Decode one PortInfo (@cap: the CapabilityMask, port 0's for switch ports;
 * @base: the PortInfo that holds LMC and MasterSMLID, port 0's for them too).
 */
static void port_decode(struct subnet_conv *cv, struct topo_port *p, ibnd_port_t *ip,
			unsigned int cap, uint8_t *base, bool is_switch)
{
	uint8_t *info = ip->info;
	unsigned int spd = mad_get_field(info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	unsigned int spd_en = mad_get_field(info, 0, IB_PORT_LINK_SPEED_ENABLED_F);
	unsigned int ext = 0, ext_en = 0;

	if (cap & SUBNET_CAP_EXT_SPEEDS) {
		ext = mad_get_field(info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
		ext_en = mad_get_field(info, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
	}
	p->guid = ip->guid;
	p->lid = is_switch ? ip->node->smalid : ip->base_lid;
	p->state = port_state(mad_get_field(info, 0, IB_PORT_STATE_F));
	p->phys_state = phys_state(mad_get_field(info, 0, IB_PORT_PHYS_STATE_F));
	p->width_x = ib_width_from_active(mad_get_field(info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F));
	p->width_max_x = width_mask_max(mad_get_field(info, 0, IB_PORT_LINK_WIDTH_ENABLED_F));
	p->lane_mbps = speed_memo_get(&cv->active, spd, ext);
	p->lane_max_mbps = speed_memo_get(&cv->enabled, spd_en, ext_en);
	p->mtu = ib_mtu_from_enum(mad_get_field(info, 0, IB_PORT_NEIGHBOR_MTU_F));
	p->mtu_max = ib_mtu_from_enum(mad_get_field(info, 0, IB_PORT_MTU_CAP_F));
	p->lmc = is_switch ? ip->node->smalmc : ip->lmc;
	p->sm_lid = mad_get_field(base, 0, IB_PORT_SMLID_F);
	p->is_sm = cap & SUBNET_CAP_IS_SM;
	p->facts |= TOPO_F_STATE | TOPO_F_LID;
	if (p->state >= TOPO_PORT_INIT) {
		/* Active width/speed are meaningless on a port that is not up. */
		p->facts |= TOPO_F_WIDTH | TOPO_F_SPEED | TOPO_F_MTU;
	}
}

static enum topo_node_type node_type(int t)
{
	return t == IB_NODE_SWITCH ? TOPO_NODE_SWITCH : t == IB_NODE_ROUTER ? TOPO_NODE_ROUTER :
	       TOPO_NODE_CA;
}

/*
 * The cable from port @i of @in (ours: @n) to its remote port, the remote
 * end as the link's a when @remote_first (its node was converted first).
 * An end already linked elsewhere is a conflict, warned about, left out.
 */
static void link_one(struct subnet_conv *cv, ibnd_node_t *in, struct topo_node *n, int i,
		     bool remote_first)
{
	ibnd_port_t *rp = in->ports[i]->remoteport;
	struct topo_node *rn = map_get(&cv->map, rp->node);
	struct topo_port *a = topo_port_find(n, (unsigned int)i, NULL);
	struct topo_port *b = rn ? topo_port_find(rn, (unsigned int)rp->portnum, NULL) : NULL;
	int rc;

	if (!a || !b)
		return;
	rc = remote_first ? topo_link_add(cv->t, b, a, cv->src) : topo_link_add(cv->t, a, b, cv->src);
	if (rc == -ENOMEM)
		cv->rc = rc;
	else if (rc < 0 && !(a->peer == b))
		fab_warn("subnet: 0x%016" PRIx64 "[%d]: conflicting link ignored", in->guid, i);
}

/*
 * One node and its ports, then its cables to the nodes converted before
 * it and between its own ports: each cable once, when its second end is
 * converted, with the end converted first as its a (libibnetdisc links
 * both ends of a cable to each other, so that is every cable).
 */
static void conv_node(ibnd_node_t *in, void *user)
{
	struct subnet_conv *cv = user;
	bool is_switch = in->type == IB_NODE_SWITCH;
	/* A switch's CapabilityMask is its port 0's. */
	uint8_t *sw_info = is_switch && in->ports[0] ? in->ports[0]->info : NULL;
	unsigned int sw_cap = sw_info ? mad_get_field(sw_info, 0, IB_PORT_CAPMASK_F) : 0;
	struct topo_node *n;

	if (cv->rc)
		return;
	n = topo_node_add(cv->t, node_type(in->type), in->nodedesc, in->guid);
	if (!n || map_put(&cv->map, in, n) < 0) {
		cv->rc = -ENOMEM;
		return;
	}
	n->src |= cv->src;
	n->n_ports_max = (unsigned int)in->numports;
	if (topo_node_reserve_ports(n, (size_t)in->numports + is_switch) < 0) {
		cv->rc = -ENOMEM;
		return;
	}
	n->sysimg_guid = mad_get_field64(in->info, 0, IB_NODE_SYSTEM_GUID_F);
	n->vendor_id = mad_get_field(in->info, 0, IB_NODE_VENDORID_F);
	n->device_id = mad_get_field(in->info, 0, IB_NODE_DEVID_F);
	for (int i = 0; i <= in->numports; i++) {
		ibnd_port_t *ip = in->ports[i];
		struct topo_port *p;

		if (!ip)
			continue;
		p = topo_port_add(n, (unsigned int)i, NULL);	/* a new node: new ports */
		if (!p) {
			cv->rc = -ENOMEM;
			return;
		}
		p->src |= cv->src;
		port_decode(cv, p, ip, sw_info ? sw_cap : mad_get_field(ip->info, 0, IB_PORT_CAPMASK_F),
			    sw_info ? sw_info : ip->info, is_switch);
	}
	for (int i = 1; i <= in->numports && !cv->rc && !cv->asymmetric; i++) {
		ibnd_port_t *ip = in->ports[i], *rp = ip ? ip->remoteport : NULL;

		if (!rp)
			continue;
		if (rp->remoteport != ip)
			cv->asymmetric = true;	/* a cache file's: fabric_to_topo() starts over */
		else if (rp->node != in && map_get(&cv->map, rp->node))
			link_one(cv, in, n, i, true);
		else if (rp->node == in && rp->portnum >= i)
			link_one(cv, in, n, i, false);
	}
}

/* Every port's cable as ibnetdiscover's cache has it, in the walk's order. */
static void conv_link_all(ibnd_node_t *in, void *user)
{
	struct subnet_conv *cv = user;
	struct topo_node *n = map_get(&cv->map, in);

	for (int i = 1; n && i <= in->numports && !cv->rc; i++)
		if (in->ports[i] && in->ports[i]->remoteport)
			link_one(cv, in, n, i, false);
}

/* Undo the links made since @t had @n_links: every end is a port of this conversion. */
static void links_undo(struct topo *t, size_t n_links)
{
	while (t->n_links > n_links) {
		struct topo_link *l = t->links[--t->n_links];

		l->a->peer = l->b->peer = NULL;
		l->a->link = l->b->link = NULL;
		free(l);
	}
}

/*
 * The fabric's nodes and links into @t (empty), and @map from
 * libibnetdisc's nodes to ours (caller frees map->slot).  A live walk
 * links both ends of every cable to each other and takes one pass; a
 * cache file need not (its ports name their remote ports one by one),
 * and then every port's cable is tried in the walk's order, as it says,
 * conflicts warned about.
 */
static int fabric_to_topo(ibnd_fabric_t *fab, struct topo *t, unsigned int src,
			  struct subnet_map *map)
{
	struct subnet_conv cv = {
		.t = t, .src = src,
		.active = { .decode = speed_active }, .enabled = { .decode = speed_mask_max },
	};
	size_t n_links = t->n_links;

	ibnd_iter_nodes(fab, conv_node, &cv);
	if (!cv.rc && cv.asymmetric) {
		links_undo(t, n_links);
		ibnd_iter_nodes(fab, conv_link_all, &cv);
	}
	*map = cv.map;
	t->src |= src;
	return cv.rc;
}

/*
 * Linear forwarding tables.  SwitchInfo (LinearFDBTop) came with the walk;
 * here one SubnGet(LinearForwardingTable) per block of 64 LIDs and switch,
 * sent by the directed route the walk found (it does not depend on the
 * tables being right), up to max_smps on the wire at once through our own
 * umad port, as libibnetdisc's SMP engine does: libibmad's smp_query_via
 * would wait for every answer in turn.  Requests go block-major (block 0 of
 * every switch, then block 1...) so that the switches' management agents
 * share the load.  The transaction id is trid0 + request index, so an
 * answer finds its request without a search.
 */
#define SUBNET_LFT_BLOCK IB_SMP_DATA_SIZE	/* LIDs per LinearForwardingTable block */

struct lft_req {
	struct topo_node *n;
	const ib_portid_t *path;	/* borrowed from the libibnetdisc node */
	unsigned int block;
	unsigned char state;		/* 0 queued, 1 on the wire, 2 answered */
};

struct lft_engine {
	int fd, agent_lid, agent_dr;
	struct lft_req *reqs;
	size_t n_reqs, next, on_wire, answered;
	uint32_t trid0;
	unsigned int max_on_wire, timeout_ms, retries;
	struct topo_node **failed;	/* switches with a block that did not come back */
	size_t n_failed;
};

static bool lft_is_dr(const ib_portid_t *p)
{
	return p->lid <= 0 || p->drpath.drslid == 0xffff || p->drpath.drdlid == 0xffff;
}

static int lft_send(struct lft_engine *e, size_t i)
{
	uint8_t umad[1024];	/* umad_size() + IB_MAD_SIZE, with room to spare */
	struct lft_req *q = &e->reqs[i];
	ib_portid_t path = *q->path;
	ib_rpc_t rpc = { 0 };
	bool dr = lft_is_dr(&path);
	int rc;

	memset(umad, 0, sizeof(umad));
	rpc.mgtclass = dr ? IB_SMI_DIRECT_CLASS : IB_SMI_CLASS;
	rpc.method = IB_MAD_METHOD_GET;
	rpc.attr.id = IB_ATTR_LINEARFORWTBL;
	rpc.attr.mod = q->block;
	rpc.timeout = (int)e->timeout_ms;
	rpc.datasz = IB_SMP_DATA_SIZE;
	rpc.dataoffs = IB_SMP_DATA_OFFS;
	rpc.trid = (uint32_t)(e->trid0 + i);
	path.sl = 0;
	path.qp = 0;
	rc = mad_build_pkt(umad, &rpc, &path, NULL, NULL);
	if (rc < 0)
		return -EINVAL;
	rc = umad_send(e->fd, dr ? e->agent_dr : e->agent_lid, umad, IB_MAD_SIZE,
		       (int)e->timeout_ms, (int)e->retries);
	if (rc < 0)
		return rc;
	q->state = 1;
	e->on_wire++;
	return 0;
}

static void lft_fail(struct lft_engine *e, struct topo_node *n)
{
	for (size_t i = 0; i < e->n_failed; i++)
		if (e->failed[i] == n)
			return;
	e->failed[e->n_failed++] = n;	/* sized for every switch */
}

/* Wait for one answer (or a send timeout reported back by umad) and file it. */
static int lft_recv(struct lft_engine *e)
{
	uint8_t umad[1024];
	int len = (int)(umad_size() + IB_MAD_SIZE), rc;
	/* umad reports a send that ran out of retries; this is only a backstop. */
	int wait_ms = (int)(e->timeout_ms * (e->retries + 1) + 5000);
	struct lft_req *q;
	uint8_t *mad;
	size_t i;

	memset(umad, 0, sizeof(umad));
	rc = umad_recv(e->fd, umad, &len, wait_ms);
	if (rc < 0)
		return rc;
	mad = umad_get_mad(umad);
	i = (uint32_t)mad_get_field64(mad, 0, IB_MAD_TRID_F) - e->trid0;
	if (i >= e->n_reqs || e->reqs[i].state != 1)
		return 0;	/* not ours, or a late duplicate */
	q = &e->reqs[i];
	q->state = 2;
	e->on_wire--;
	if (umad_status(umad) || mad_get_field(mad, 0, IB_DRSMP_STATUS_F) ||
	    mad_get_field(mad, 0, IB_MAD_ATTRID_F) != IB_ATTR_LINEARFORWTBL ||
	    mad_get_field(mad, 0, IB_MAD_ATTRMOD_F) != q->block) {
		fab_debug("subnet: lft of %s block %u: umad status %d, mad status 0x%x",
			  q->n->name, q->block, umad_status(umad),
			  mad_get_field(mad, 0, IB_DRSMP_STATUS_F));
		lft_fail(e, q->n);
		return 0;
	}
	e->answered++;
	for (unsigned int k = 0; k < SUBNET_LFT_BLOCK; k++) {
		unsigned int lid = q->block * SUBNET_LFT_BLOCK + k;
		unsigned int port = mad[IB_SMP_DATA_OFFS + k];

		/* Past LinearFDBTop, or beyond the switch's ports: no route. */
		if (lid <= q->n->lft_top)
			q->n->lft[lid] = port <= q->n->n_ports_max ? (uint8_t)port : TOPO_LFT_NONE;
	}
	return 0;
}

/* Queue every block of every switch, then keep e->max_on_wire SMPs in flight. */
static int lft_run(struct lft_engine *e)
{
	int rc = 0;

	while (e->next < e->n_reqs || e->on_wire) {
		while (e->next < e->n_reqs && e->on_wire < e->max_on_wire) {
			rc = lft_send(e, e->next);
			if (rc < 0)
				return rc;
			e->next++;
		}
		rc = lft_recv(e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Size each switch's table from LinearFDBTop, queue its blocks; switches or -ENOMEM. */
static int lft_plan(struct lft_engine *e, ibnd_fabric_t *fab, const struct subnet_map *map)
{
	struct lft_req *sws;	/* one per switch: its node and route (block unused) */
	size_t n_sw = 0, n = 0, cap = 0, total = 0;
	unsigned int max_blocks = 0;
	int rc = -ENOMEM;

	for (ibnd_node_t *sw = fab->switches; sw; sw = sw->type_next)
		cap++;
	sws = calloc(cap ? cap : 1, sizeof(*sws));
	e->failed = calloc(cap ? cap : 1, sizeof(*e->failed));
	if (!sws || !e->failed)
		goto out;
	for (ibnd_node_t *sw = fab->switches; sw; sw = sw->type_next) {
		struct topo_node *tn = map_get(map, sw);
		unsigned int top = mad_get_field(sw->switchinfo, 0, IB_SW_LINEAR_FDB_TOP_F);
		unsigned int blocks;

		if (!tn || tn->type != TOPO_NODE_SWITCH)
			continue;
		if (top > IB_MAX_UCAST_LID) {
			fab_warn("subnet: switch %s: LinearFDBTop 0x%x beyond the unicast range, "
				 "read up to 0x%x", tn->name, top, IB_MAX_UCAST_LID);
			top = IB_MAX_UCAST_LID;
		}
		free(tn->lft);
		/* top 0: no subnet manager has programmed it; one entry, none, no SMP. */
		tn->lft = malloc(top + 1);
		if (!tn->lft)
			goto out;
		memset(tn->lft, TOPO_LFT_NONE, top + 1);
		tn->lft_top = top;
		sws[n_sw++] = (struct lft_req){ .n = tn, .path = &sw->path_portid };
		blocks = top ? top / SUBNET_LFT_BLOCK + 1 : 0;
		total += blocks;
		if (blocks > max_blocks)
			max_blocks = blocks;
	}
	e->reqs = calloc(total + 1, sizeof(*e->reqs));
	if (!e->reqs)
		goto out;
	for (unsigned int b = 0; b < max_blocks; b++)
		for (size_t i = 0; i < n_sw; i++) {
			if (!sws[i].n->lft_top || b > sws[i].n->lft_top / SUBNET_LFT_BLOCK)
				continue;
			e->reqs[n] = sws[i];
			e->reqs[n++].block = b;
		}
	e->n_reqs = n;
	rc = (int)n_sw;
out:
	free(sws);
	return rc;
}

static int lft_read(ibnd_fabric_t *fab, const struct subnet_map *map,
		    const struct subnet_opts *o, struct fab_err *err)
{
	struct lft_engine e = {
		.fd = -1,
		.max_on_wire = o->max_smps ? o->max_smps : 2,
		.timeout_ms = o->timeout_ms ? o->timeout_ms : 1000,
		.retries = o->retries ? o->retries : 3,
		.trid0 = (uint32_t)mad_trid(),
	};
	char ca[UMAD_CA_NAME_LEN] = "";
	double t0 = (double)clock_mono_ns() / 1e6;
	int rc, n_sw;

	n_sw = lft_plan(&e, fab, map);
	if (n_sw < 0) {
		rc = fab_err_set(err, n_sw, "subnet: out of memory");
		goto out;
	}
	if (o->ca)
		snprintf(ca, sizeof(ca), "%s", o->ca);
	if (umad_init() < 0 || (e.fd = umad_open_port(o->ca ? ca : NULL, o->ca_port)) < 0) {
		rc = fab_err_set(err, -ENODEV, "subnet: %s: cannot open a umad port for "
				 "forwarding table queries", o->ca ? o->ca : "first ib ca");
		goto out;
	}
	e.agent_lid = umad_register(e.fd, IB_SMI_CLASS, 1, 0, NULL);
	e.agent_dr = umad_register(e.fd, IB_SMI_DIRECT_CLASS, 1, 0, NULL);
	if (e.agent_lid < 0 || e.agent_dr < 0) {
		rc = fab_err_set(err, -EIO, "subnet: %s: cannot register smi agents",
				 o->ca ? o->ca : "first ib ca");
		goto out;
	}
	rc = lft_run(&e);
	if (rc < 0) {
		rc = fab_err_set(err, rc, "subnet: forwarding tables: umad: %s "
				 "(%zu of %zu blocks answered)", strerror(-rc), e.answered, e.n_reqs);
		goto out;
	}
	/* A table with a hole is no table: routes through it say so. */
	for (size_t i = 0; i < e.n_failed; i++) {
		if (i < 8)
			fab_warn("subnet: switch %s (0x%016" PRIx64 "): forwarding table not read "
				 "(a block went unanswered or was refused)", e.failed[i]->name,
				 e.failed[i]->guid);
		free(e.failed[i]->lft);
		e.failed[i]->lft = NULL;
		e.failed[i]->lft_top = 0;
	}
	if (e.n_failed > 8)
		fab_warn("subnet: ... %zu switches without a forwarding table in all", e.n_failed);
	fab_info("subnet: forwarding tables of %d switches, %zu blocks, %.1f ms "
		 "(max %u smps in flight)", n_sw - (int)e.n_failed, e.answered,
		 (double)clock_mono_ns() / 1e6 - t0, e.max_on_wire);
	rc = 0;
out:
	if (e.fd >= 0)
		umad_close_port(e.fd);
	free(e.reqs);
	free(e.failed);
	return rc;
}

/*
 * SMInfo of every port whose CapabilityMask has IsSM (sys/sminfo.c asks):
 * by its LID when it has one, else by the directed route to its node.
 */
static int sm_read(ibnd_fabric_t *fab, const struct subnet_map *map, struct topo *t,
		   const struct subnet_opts *o, struct fab_err *err)
{
	struct sminfo_req *reqs = NULL;
	size_t n = 0;
	int rc;

	for (ibnd_node_t *in = fab->nodes; in; in = in->next) {
		struct topo_node *tn = map_get(map, in);

		for (int i = in->type == IB_NODE_SWITCH ? 0 : 1; tn && i <= in->numports; i++) {
			struct topo_port *p = in->ports[i] ? topo_port_find(tn, (unsigned int)i, NULL)
							   : NULL;
			struct sminfo_req *q;

			if (!p || !p->is_sm)
				continue;
			q = array_add((void **)&reqs, &n, sizeof(*reqs));
			if (!q) {
				free(reqs);
				return fab_err_set(err, -ENOMEM, "subnet: out of memory");
			}
			q->port = p;
			q->path = in->path_portid;
			if (p->lid) {
				memset(&q->path, 0, sizeof(q->path));
				ib_portid_set(&q->path, (int)p->lid, 0, 0);
			}
			if (in->type == IB_NODE_SWITCH)
				break;	/* port 0 speaks for the switch */
		}
	}
	rc = sminfo_read(reqs, n, t, o, err);
	free(reqs);
	return rc;
}

/*
 * The switch ports whose link is up (PhysLinkState LinkUp) and that the
 * walk left without a cable: libibnetdisc refused what is behind them (a
 * node or port GUID it had met already) or it did not answer.  Asked by
 * the directed route to the switch and one hop more (sys/unwalked.c).
 */
static int unwalked_scan(ibnd_fabric_t *fab, const struct subnet_map *map, struct topo *t,
			 const struct subnet_opts *o, struct fab_err *err)
{
	struct unwalked_req *reqs = NULL;
	size_t n = 0;
	int rc;

	for (ibnd_node_t *sw = fab->switches; sw; sw = sw->type_next) {
		struct topo_node *tn = map_get(map, sw);

		for (int i = 1; tn && i <= sw->numports; i++) {
			ibnd_port_t *ip = sw->ports[i];
			struct topo_port *p = ip ? topo_port_find(tn, (unsigned int)i, NULL) : NULL;
			struct unwalked_req *q;

			if (!p || p->peer || ip->remoteport || p->phys_state != TOPO_PHYS_LINKUP ||
			    sw->path_portid.drpath.cnt + 1 >= IB_SUBNET_PATH_HOPS_MAX)
				continue;
			q = array_add((void **)&reqs, &n, sizeof(*reqs));
			if (!q) {
				free(reqs);
				return fab_err_set(err, -ENOMEM, "subnet: out of memory");
			}
			q->at = p;
			memset(&q->path, 0, sizeof(q->path));
			q->path.drpath = sw->path_portid.drpath;
			q->path.drpath.p[++q->path.drpath.cnt] = (uint8_t)i;
		}
	}
	rc = unwalked_read(reqs, n, t, o, err);
	free(reqs);
	return rc;
}

/*
 * Before any library opens a port (and prints its own warnings): the CAs
 * this node has, by name.  umad_get_ca_device_list() lists the devices of
 * /sys/class/infiniband whose node_type is an IB one, and nothing else
 * (umad_get_cas_names() answers a default name when there is none, so
 * each of its names had to be read whole with umad_get_ca(): every port
 * attribute and all its P_Keys, which the walk reads again).  No CA: a
 * system error saying so; -C naming one that is not there: bad input,
 * listing those that are.
 */
static int subnet_ca_check(const struct subnet_opts *o, struct fab_err *err)
{
	struct umad_device_node *head;
	char list[512] = "";
	size_t used = 0;
	int found = 0, have = 0, rc = 0;

	errno = 0;
	head = umad_get_ca_device_list();
	if (!head && errno == ENOMEM)
		return fab_err_set(err, -ENOMEM, "subnet: out of memory");
	if (head)
		umad_sort_ca_device_list(&head, 0);	/* the list in alphabetical order */
	for (const struct umad_device_node *d = head; d; d = d->next) {
		have++;
		if (o->ca && strcmp(o->ca, d->ca_name) == 0)
			found = 1;
		if (used < sizeof(list))
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
						 used ? ", " : "", d->ca_name);
	}
	if (!have)
		rc = fab_err_set(err, -ENODEV, "subnet: no infiniband device on this node "
				 "(/sys/class/infiniband is empty or absent: no IB adapter, or its "
				 "driver and ib_umad are not loaded)");
	else if (o->ca && !found)
		rc = fab_err_input(err, -ENODEV, "subnet: no ca '%s' on this node (cas: %s)",
				   o->ca, list);
	umad_free_ca_device_list(head);
	return rc;
}

/* Why libibnetdisc could not load @path: missing, unreadable, or not a cache. */
static int cache_load_error(const char *path, struct fab_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e = errno;
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		e = EISDIR;
	if (fd >= 0)
		close(fd);
	if (fd < 0 || e == EISDIR)
		return fab_err_input(err, -e, "%s: cannot load ibnetdiscover cache: %s", path,
				     strerror(e));
	return fab_err_input(err, -EINVAL, "%s: not an ibnetdiscover cache file (write one with "
			     "'ibnetdiscover --cache FILE'; a topology text file is not one)", path);
}

int subnet_read_all(struct sys *sys, const struct subnet_opts *o, struct topo *t,
		    struct fab_err *err)
{
	char ca[UMAD_CA_NAME_LEN] = "", port[32] = "first active port";
	ibnd_config_t cfg = { 0 };
	double t0 = (double)clock_mono_ns() / 1e6, c0 = clock_cpu_ms(), t1, c1, t2;
	struct subnet_map map = { 0 };
	ibnd_fabric_t *fab;
	unsigned int src;
	int rc;

	if (o->load_cache && o->lft)
		return fab_err_input(err, -EINVAL, "%s: an ibnetdiscover cache holds no forwarding "
				     "tables; routes need a live subnet walk", o->load_cache);
	if (o->load_cache) {
		fab = ibnd_load_fabric(o->load_cache, 0);
		if (!fab)
			return cache_load_error(o->load_cache, err);
		src = TOPO_SRC_CACHE;
	} else {
		rc = subnet_ca_check(o, err);
		if (rc < 0)
			return rc;
		cfg.max_smps = o->max_smps;
		cfg.timeout_ms = o->timeout_ms;
		cfg.retries = o->retries;
		if (o->ca)
			snprintf(ca, sizeof(ca), "%s", o->ca);
		if (o->ca_port)
			snprintf(port, sizeof(port), "port %d", o->ca_port);
		fab = ibnd_discover_fabric(o->ca ? ca : NULL, o->ca_port, NULL, &cfg);
		if (!fab)
			return fab_err_set(err, -ENODEV, "subnet: %s, %s: discovery failed "
					   "(no infiniband port, or no answer to smps)",
					   o->ca ? o->ca : "first ib ca", port);
		src = TOPO_SRC_SMP;
	}
	t1 = (double)clock_mono_ns() / 1e6;
	c1 = clock_cpu_ms();
	rc = fabric_to_topo(fab, t, src, &map);
	t2 = (double)clock_mono_ns() / 1e6;
	if (!o->load_cache)
		fab_info("subnet: %u mads, %u hops, walk %.1f ms (cpu %.1f ms, max %u smps in "
			 "flight), graph %.1f ms", fab->total_mads_used, fab->maxhops_discovered,
			 t1 - t0, c1 - c0, cfg.max_smps, t2 - t1);
	if (rc < 0)
		rc = fab_err_set(err, rc, "subnet: out of memory");
	else if (o->lft)
		rc = lft_read(fab, &map, o, err);
	if (rc == 0 && o->sminfo && !o->load_cache)
		rc = sm_read(fab, &map, t, o, err);
	if (rc == 0 && !o->load_cache)
		rc = unwalked_scan(fab, &map, t, o, err);
	free(map.slot);
	ibnd_destroy_fabric(fab);
	if (rc < 0)
		return rc;
	if (!o->load_cache && o->counters)
		return pma_counters_read(t, o, err);
	return 0;
}
