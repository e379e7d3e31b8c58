// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The lossless chain of a RoCE port (model/lossless.h): followed link by
 * link, the first broken one named.  Order: priority, PFC, traffic class
 * bandwidth, buffer, ECN, CNP, GID.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <string.h>

#include "model/lossless.h"
#include "util/str.h"

#define ARROW " \u2192 "	/* " → " */

uint32_t lossless_xoff_bytes(unsigned int cable_m, int64_t speed_mbps, unsigned int mtu)
{
	uint64_t speed = speed_mbps > 40000 ? (uint64_t)speed_mbps : 40000;

	/* (301 + 2.16 * len) ns-ish per Gb/s, in integers as the driver does. */
	return (uint32_t)((301 + 216 * (uint64_t)cable_m / 100) * speed / 1000 +
			  272 * (uint64_t)mtu / 100);
}

uint32_t lossless_buffer_min_bytes(unsigned int cable_m, int64_t speed_mbps, unsigned int mtu)
{
	return lossless_xoff_bytes(cable_m, speed_mbps, mtu) + mtu + 128;
}

const char *lossless_verdict_name(enum lossless_verdict v)
{
	switch (v) {
	case LOSSLESS_OK: return "ok";
	case LOSSLESS_BROKEN: return "broken";
	case LOSSLESS_UNKNOWN: return "unknown";
	}
	return "unknown";
}

const char *lossless_break_name(enum lossless_break b)
{
	static const char *const names[] = {
		[LOSSLESS_BREAK_NONE] = "",
		[LOSSLESS_BREAK_PFC_OFF] = "pfc_off",
		[LOSSLESS_BREAK_TC_NO_BW] = "tc_no_bandwidth",
		[LOSSLESS_BREAK_BUFFER_LOSSY] = "buffer_lossy",
		[LOSSLESS_BREAK_BUFFER_SMALL] = "buffer_small",
		[LOSSLESS_BREAK_ECN_OFF] = "ecn_off",
		[LOSSLESS_BREAK_CNP_SHARED] = "cnp_shared",
		[LOSSLESS_BREAK_CNP_LOSSY] = "cnp_lossy",
		[LOSSLESS_BREAK_NO_GID] = "no_gid",
		[LOSSLESS_BREAK_GID_PIN] = "gid_pin",
	};

	return (unsigned int)b < sizeof(names) / sizeof(names[0]) ? names[b] : "";
}

/* ---- helpers ---- */

__attribute__((format(printf, 2, 3)))
static void path_add(struct lossless_chain *c, const char *fmt, ...)
{
	size_t n = strlen(c->path);
	va_list ap;

	if (n)
		str_fmt(c->path + n, sizeof(c->path) - n, "%s", ARROW);
	n = strlen(c->path);
	va_start(ap, fmt);
	str_vfmt(c->path + n, sizeof(c->path) - n, fmt, ap);
	va_end(ap);
}

/* The first broken link: @what (the path followed is put before it at the end). */
static void broken(struct lossless_chain *c, enum lossless_break b, const char *what)
{
	if (c->verdict == LOSSLESS_BROKEN)
		return;
	c->verdict = LOSSLESS_BROKEN;
	c->brk = b;
	str_fmt(c->finding, sizeof(c->finding), "%s", what);
}

static void unknown(struct lossless_chain *c, const char *why)
{
	if (c->verdict == LOSSLESS_OK && !c->why[0])
		str_fmt(c->why, sizeof(c->why), "%s", why);
}

static const char *mask_str(uint8_t mask, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned int p = 0; p < FAB_DCB_NPRIO; p++)
		if (mask & (1u << p)) {
			size_t n = strlen(buf);

			str_fmt(buf + n, len - n, "%s%u", n ? "," : "", p);
		}
	return buf;
}

static bool trusts(const struct fab_dcb *dcb, uint8_t sel)
{
	for (size_t i = 0; i < dcb->n_trust; i++)
		if (dcb->trust[i] == sel)
			return true;
	return false;
}

static bool has_dscp_apps(const struct fab_dcb *dcb)
{
	for (size_t i = 0; i < dcb->n_apps; i++)
		if (dcb->apps[i].selector == FAB_DCB_APP_SEL_DSCP)
			return true;
	return false;
}

/* Is DSCP what classifies?  The trust table where the kernel has one, else DSCP APP entries. */
static bool dscp_trusted(const struct fab_dcb *dcb)
{
	if (dcb->trust_supported && dcb->n_trust)
		return trusts(dcb, FAB_DCB_APP_SEL_DSCP);
	return dcb->app_supported && has_dscp_apps(dcb);
}

/*
 * The priority of traffic marked @dscp, or -1 when it cannot be known;
 * @by gets how.  DSCP trust: the APP entry, else the next trusted
 * selector (PCP: @pcp_prio), else priority 0, the default.
 */
static int prio_of(const struct fab_dcb *dcb, int dscp, int pcp_prio, char *by, size_t len)
{
	const struct fab_dcb_app *a = NULL;

	if (dscp >= 0 && dscp_trusted(dcb))
		a = fab_dcb_app_find(dcb, FAB_DCB_APP_SEL_DSCP, (uint16_t)dscp);
	if (a) {
		str_fmt(by, len, "app");
		return a->priority;
	}
	if (pcp_prio >= 0) {
		str_fmt(by, len, "pcp");
		return pcp_prio;
	}
	if (dscp >= 0 && dscp_trusted(dcb) &&
	    !(dcb->trust_supported && trusts(dcb, FAB_DCB_APP_SEL_PCP))) {
		str_fmt(by, len, "default");
		return 0;
	}
	by[0] = '\0';
	return -1;
}

/* ---- the links ---- */

/* DSCP → prio; false when the chain stops here. */
static bool link_prio(const struct lossless_in *in, struct lossless_chain *c)
{
	char why[300];

	if (in->tos < 0) {
		unknown(c, "the RoCE ToS is not known");
		return false;
	}
	c->tos = in->tos;
	c->dscp = in->tos >> 2;
	path_add(c, "DSCP %d", c->dscp);
	if (!in->dcb) {
		str_fmt(why, sizeof(why), "DCB not read: %s", in->dcb_why ? in->dcb_why : "unknown");
		unknown(c, why);
		return false;
	}
	c->prio = prio_of(in->dcb, c->dscp, in->pcp_prio, c->prio_by, sizeof(c->prio_by));
	if (c->prio < 0) {
		unknown(c, "PCP trust: the priority RoCE is tagged with is not known (roce.prio)");
		return false;
	}
	if (!strcmp(c->prio_by, "app"))
		path_add(c, "prio %d", c->prio);
	else if (!strcmp(c->prio_by, "pcp"))
		path_add(c, "prio %d (pcp)", c->prio);
	else
		path_add(c, "prio %d (no APP entry)", c->prio);
	return true;
}

static void link_pfc(const struct lossless_in *in, struct lossless_chain *c)
{
	const struct fab_dcb *dcb = in->dcb;
	char what[64];

	if (!dcb->pfc_supported) {
		if (in->lossless)
			unknown(c, "PFC not readable");
		return;
	}
	c->pfc = dcb->pfc.pfc_en & (1u << c->prio);
	if (!in->lossless || c->pfc)
		return;
	str_fmt(what, sizeof(what), "PFC is off on priority %d", c->prio);
	broken(c, LOSSLESS_BREAK_PFC_OFF, what);
}

static void link_tc(const struct lossless_in *in, struct lossless_chain *c)
{
	const struct fab_dcb_ets *e = &in->dcb->ets;
	char what[64];

	if (!in->dcb->ets_supported) {
		unknown(c, "ETS not readable");
		return;
	}
	c->tc = e->prio_tc[c->prio] < FAB_DCB_NTC ? e->prio_tc[c->prio] : 0;
	path_add(c, "TC %d", c->tc);
	if (e->tc_tsa[c->tc] != FAB_DCB_TSA_ETS || e->tc_tx_bw_pct[c->tc])
		return;
	str_fmt(what, sizeof(what), "TC %d is an ETS class with 0 %% bandwidth", c->tc);
	broken(c, LOSSLESS_BREAK_TC_NO_BW, what);
}

static void link_buffer(const struct lossless_in *in, struct lossless_chain *c)
{
	const struct fab_dcb *dcb = in->dcb;
	uint8_t lossy = 0;
	char mb[32], what[200];

	if (!dcb->buffer_supported)
		return;
	c->buffer = dcb->buffer.prio2buffer[c->prio] % FAB_DCB_NBUF;
	c->buffer_bytes = dcb->buffer.buffer_size[c->buffer];
	path_add(c, "buffer %d", c->buffer);
	if (!in->lossless)
		return;
	for (unsigned int p = 0; p < FAB_DCB_NPRIO; p++)
		if (dcb->buffer.prio2buffer[p] % FAB_DCB_NBUF == c->buffer &&
		    !(dcb->pfc.pfc_en & (1u << p)))
			lossy |= 1u << p;
	if (lossy && dcb->pfc_supported) {
		str_fmt(what, sizeof(what),
			"buffer %d also holds priorities %s, which have no PFC (a lossy buffer)",
			c->buffer, mask_str(lossy, mb, sizeof(mb)));
		broken(c, LOSSLESS_BREAK_BUFFER_LOSSY, what);
		return;
	}
	if (!c->buffer_bytes) {
		str_fmt(what, sizeof(what), "buffer %d has no size", c->buffer);
		broken(c, LOSSLESS_BREAK_BUFFER_SMALL, what);
		return;
	}
	if (!in->cable_m || !in->mtu)
		return;
	c->buffer_need = lossless_buffer_min_bytes(in->cable_m, in->speed_mbps, in->mtu);
	if (c->buffer_bytes < c->buffer_need) {
		str_fmt(what, sizeof(what),
			"buffer %d is %u bytes, under the %u a lossless buffer needs for %u m at %lld Mb/s, MTU %u",
			c->buffer, c->buffer_bytes, c->buffer_need, in->cable_m,
			(long long)(in->speed_mbps > 40000 ? in->speed_mbps : 40000), in->mtu);
		broken(c, LOSSLESS_BREAK_BUFFER_SMALL, what);
	}
}

/* The NP enable is port-wide on mlx5 though sysfs shows it per priority: any bit counts. */
static void link_ecn(const struct lossless_in *in, struct lossless_chain *c)
{
	bool rp_off, np_off;
	char what[96];

	if (!in->dcqcn)
		return;
	if (!in->ecn_known[FAB_ECN_RP] || !in->ecn_known[FAB_ECN_NP]) {
		unknown(c, "ECN not readable");
		return;
	}
	rp_off = !(in->ecn[FAB_ECN_RP] & (1u << c->prio));
	np_off = !in->ecn[FAB_ECN_NP];
	if (!rp_off && !np_off)
		return;
	str_fmt(what, sizeof(what), "ECN is off on priority %d (%s)", c->prio,
		rp_off && np_off ? "reaction and notification point" :
		rp_off ? "reaction point" : "notification point");
	broken(c, LOSSLESS_BREAK_ECN_OFF, what);
}

/* The CNPs: DSCP (under DSCP trust) or their 802.1p priority → prio → TC. */
static void link_cnp(const struct lossless_in *in, struct lossless_chain *c)
{
	const struct fab_dcb *dcb = in->dcb;
	char by[8], what[200];
	int prio;

	if (in->cnp_dscp < 0 && in->cnp_prio < 0)
		return;
	c->cnp_dscp = in->cnp_dscp;
	prio = in->cnp_dscp >= 0 && dscp_trusted(dcb) ?
	       prio_of(dcb, in->cnp_dscp, -1, by, sizeof(by)) : -1;
	c->cnp_prio = prio >= 0 ? prio : in->cnp_prio;
	if (c->cnp_prio < 0 || !dcb->ets_supported || c->tc < 0)
		return;
	c->cnp_tc = dcb->ets.prio_tc[c->cnp_prio] % FAB_DCB_NTC;
	if (c->cnp_tc == c->tc) {
		str_fmt(what, sizeof(what),
			"CNPs (DSCP %d, prio %d) ride TC %d too, behind the data they should slow down",
			c->cnp_dscp, c->cnp_prio, c->cnp_tc);
		broken(c, LOSSLESS_BREAK_CNP_SHARED, what);
		return;
	}
	if (dcb->ets.tc_tsa[c->cnp_tc] == FAB_DCB_TSA_STRICT ||
	    (dcb->pfc_supported && (dcb->pfc.pfc_en & (1u << c->cnp_prio))))
		return;
	str_fmt(what, sizeof(what),
		"CNPs (DSCP %d, prio %d) ride TC %d, a lossy class: no PFC on priority %d and not strict",
		c->cnp_dscp, c->cnp_prio, c->cnp_tc, c->cnp_prio);
	broken(c, LOSSLESS_BREAK_CNP_LOSSY, what);
}

/* IPv4 and global IPv6 addresses carry RoCE v2; link-local IPv6 has its own GID, not the data path's. */
static bool data_addr(const char *a, unsigned char bin[16])
{
	unsigned char v4[4];

	if (inet_pton(AF_INET, a, v4) == 1) {
		memset(bin, 0, 10);
		bin[10] = bin[11] = 0xff;
		memcpy(bin + 12, v4, 4);
		return true;
	}
	if (inet_pton(AF_INET6, a, bin) != 1)
		return false;
	return !(bin[0] == 0xfe && (bin[1] & 0xc0) == 0x80);
}

static int gid_of(const struct lossless_in *in, const unsigned char want[16])
{
	unsigned char g[16];

	for (size_t i = 0; i < in->n_gids; i++) {
		const struct fab_gid *gid = &in->gids[i];

		if (strcmp(gid->type, "RoCE v2") || inet_pton(AF_INET6, gid->gid, g) != 1)
			continue;
		if (gid->netdev[0] && strcmp(gid->netdev, in->ifname))
			continue;
		if (!memcmp(g, want, 16))
			return (int)i;
	}
	return -1;
}

static void link_gid(const struct lossless_in *in, struct lossless_chain *c)
{
	unsigned char bin[16];
	char what[300];
	int g = -1;

	if (!in->rdma_dev || !in->rdma_dev[0])
		return;
	for (size_t i = 0; i < in->n_addrs && g < 0; i++) {
		if (!data_addr(in->addrs[i], bin))
			continue;
		if (!c->addr[0])
			str_fmt(c->addr, sizeof(c->addr), "%s", in->addrs[i]);
		g = gid_of(in, bin);
		if (g >= 0)
			str_fmt(c->addr, sizeof(c->addr), "%s", in->addrs[i]);
	}
	if (!c->addr[0])
		return;	/* no IP address: nothing to look up */
	if (g < 0) {
		str_fmt(what, sizeof(what), "address %s of %s has no RoCE v2 GID on %s/%u",
			c->addr, in->ifname, in->rdma_dev, in->rdma_port);
		broken(c, LOSSLESS_BREAK_NO_GID, what);
		return;
	}
	c->gid_index = (int)in->gids[g].index;
	str_fmt(c->gid, sizeof(c->gid), "%s", in->gids[g].gid);
	if (in->gid_pin >= 0 && in->gid_pin != c->gid_index) {
		str_fmt(what, sizeof(what), "the RoCE v2 GID of %s is index %d on %s/%u, not %d",
			c->addr, c->gid_index, in->rdma_dev, in->rdma_port, in->gid_pin);
		broken(c, LOSSLESS_BREAK_GID_PIN, what);
	}
}

void lossless_check(const struct lossless_in *in, struct lossless_chain *c)
{
	memset(c, 0, sizeof(*c));
	str_fmt(c->ifname, sizeof(c->ifname), "%s", in->ifname);
	if (in->rdma_dev)
		str_fmt(c->rdma_dev, sizeof(c->rdma_dev), "%s", in->rdma_dev);
	c->rdma_port = in->rdma_port;
	c->lossless = in->lossless;
	c->dcqcn = in->dcqcn;
	c->tos = c->dscp = c->prio = c->tc = c->buffer = -1;
	c->cnp_dscp = c->cnp_prio = c->cnp_tc = c->gid_index = -1;
	if (link_prio(in, c)) {
		link_pfc(in, c);
		link_tc(in, c);
		link_buffer(in, c);
		link_ecn(in, c);
		link_cnp(in, c);
	}
	if (c->verdict == LOSSLESS_BROKEN && c->path[0]) {
		char what[sizeof(c->finding)];

		memcpy(what, c->finding, sizeof(what));
		str_fmt(c->finding, sizeof(c->finding), "%s, but %s", c->path, what);
	}
	/* The GID is a chain of its own: its finding stands without the DSCP path. */
	link_gid(in, c);
	if (c->verdict == LOSSLESS_OK && c->why[0])
		c->verdict = LOSSLESS_UNKNOWN;
}
