// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * RDMA devices and ports.
 *
 * libibumad enumerates devices and ports (so that ibsim's umad2sim, which
 * fakes /sys/class/infiniband for umad, works the same as hardware and
 * rxe).  For InfiniBand ports a PortInfo SMP to the local port (libibmad)
 * gives the active width, speed and MTU, and the PMA gives PortCounters
 * (PortCountersExtended where the PMA has them); sysfs is the fallback
 * when MADs cannot be sent (no access to /dev/infiniband/umad*).
 * Ethernet (RoCE) ports: rate and GID table from sysfs, active MTU from
 * libibverbs, counters from sysfs counters/ and hw_counters/.
 *
 * With a root override (sys->root set: a layout fixture) devices are listed
 * from <root>/sys/class/infiniband directly and nothing goes on the wire.
 *
 * A node without RDMA devices is not an error.  Everything is copied out of
 * library buffers before they are released.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>
#include <infiniband/verbs.h>

#include "model/rdma_rate.h"
#include "sys/sys_real.h"
#include "util/array.h"
#include "util/log.h"

#define RP_SYSFS		"/sys/class/infiniband"
#define RP_MAD_TIMEOUT_MS	300
#define RP_MAD_RETRIES		2
#define RP_MAD_BUF		1024
/* PortInfo CapabilityMask.IsExtendedSpeedsSupported */
#define RP_PORT_CAP_EXT_SPEEDS	(1u << 14)
/* PMA ClassPortInfo CapabilityMask: PortCountersExtended (IETF or not) */
#define RP_PM_EXT_WIDTH		(1u << 9)
#define RP_PM_EXT_WIDTH_NOIETF	(1u << 10)


struct rp_ctx {
	struct sys *sys;
	bool wire;			/* MADs and verbs allowed (no root override) */
	bool counters;			/* SYS_READ_COUNTERS */
	bool ibv_tried;
	struct ibv_device **ibv_list;	/* owned; freed at the end of the read */
	int ibv_n;
};

/* What the enumeration says about a port before we look further. */
struct rp_port_raw {
	unsigned int port;
	unsigned int state, phys_state, lid, sm_lid;
	uint64_t guid;
	uint64_t gid_prefix;	/* 0 when unknown */
	char link_layer[24];
};

static const char *rp_node_type_name(unsigned int type)
{
	static const char *const names[] = {
		NULL, "CA", "switch", "router", "RNIC", "usNIC", "usNIC UDP",
	};

	return type < ARRAY_SIZE(names) && names[type] ? names[type] : "unknown";
}

static bool rp_is_ib(const struct fab_rdma_port *p)
{
	return strcmp(p->link_layer, "InfiniBand") == 0;
}

/* Numeric directory entries only ("1", "17"); sorted by scandir. */
static int rp_numeric(const struct dirent *d)
{
	const char *s = d->d_name;

	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int rp_visible(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

static int rp_numsort(const struct dirent **a, const struct dirent **b)
{
	unsigned long x = strtoul((*a)->d_name, NULL, 10), y = strtoul((*b)->d_name, NULL, 10);

	return (x > y) - (x < y);
}

static void rp_free_names(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- GIDs ---------------------------------------------------------------- */

static int rp_gid_add(struct fab_rdma_dev *dev, struct fab_rdma_port *p, unsigned int index,
		      const struct in6_addr *a, const char *type, const char *ndev,
		      struct fab_err *err)
{
	static const struct in6_addr zero;
	struct fab_gid *g;

	if (memcmp(a, &zero, sizeof(zero)) == 0)
		return 0;
	g = rdma_port_gid_add(p);
	if (!g)
		return fab_err_set(err, -ENOMEM, "rdma: %s: port %u: out of memory",
				   dev->name, p->port);
	g->index = index;
	if (memcmp(a, &zero, 12) == 0) {
		/* inet_ntop would print "::0.16.0.5" (IPv4-compatible form) */
		unsigned int hi = (unsigned int)a->s6_addr[12] << 8 | a->s6_addr[13];
		unsigned int lo = (unsigned int)a->s6_addr[14] << 8 | a->s6_addr[15];

		if (hi)
			snprintf(g->gid, sizeof(g->gid), "::%x:%x", hi, lo);
		else
			snprintf(g->gid, sizeof(g->gid), "::%x", lo);
	} else {
		inet_ntop(AF_INET6, a, g->gid, sizeof(g->gid));
	}
	snprintf(g->type, sizeof(g->type), "%s", type);
	snprintf(g->netdev, sizeof(g->netdev), "%s", ndev);
	return 0;
}

static void rp_gid_type(const char *sysfs, char *buf, size_t len)
{
	size_t n;

	if (strcmp(sysfs, "IB/RoCE v1") == 0)
		sysfs = "RoCE v1";
	n = strnlen(sysfs, len - 1);
	memcpy(buf, sysfs, n);
	buf[n] = '\0';
}

/* RoCE: the whole GID table from sysfs, with types and netdevs. */
static int rp_gids_eth(struct rp_ctx *c, struct fab_rdma_dev *dev, struct fab_rdma_port *p,
		       struct fab_err *err)
{
	char path[512], line[128], type[32], ndev[FAB_IFNAMSIZ];
	struct dirent **names;
	struct in6_addr a;
	int n, rc = 0;

	n = scandir(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/ports/%u/gids",
			     dev->name, p->port), &names, rp_numeric, rp_numsort);
	if (n < 0)
		return 0;	/* no GID table: nothing to report */
	for (int i = 0; i < n && rc == 0; i++) {
		const char *idx = names[i]->d_name;

		if (sys_read_line(sys_path(c->sys, path, sizeof(path),
					   RP_SYSFS "/%s/ports/%u/gids/%s", dev->name, p->port, idx),
				  line, sizeof(line)) < 0 ||
		    inet_pton(AF_INET6, line, &a) != 1)
			continue;
		/* Unused entries fail with EINVAL on the attribute files. */
		if (sys_read_line(sys_path(c->sys, path, sizeof(path),
					   RP_SYSFS "/%s/ports/%u/gid_attrs/types/%s",
					   dev->name, p->port, idx), line, sizeof(line)) < 0)
			line[0] = '\0';
		rp_gid_type(line, type, sizeof(type));
		if (sys_read_line(sys_path(c->sys, path, sizeof(path),
					   RP_SYSFS "/%s/ports/%u/gid_attrs/ndevs/%s",
					   dev->name, p->port, idx), ndev, sizeof(ndev)) < 0)
			ndev[0] = '\0';
		rc = rp_gid_add(dev, p, (unsigned int)strtoul(idx, NULL, 10), &a, type, ndev, err);
		if (rc == 0 && !p->netdev[0] && ndev[0])
			snprintf(p->netdev, sizeof(p->netdev), "%s", ndev);
	}
	rp_free_names(names, n);
	return rc;
}

/* InfiniBand: GID index 0 (subnet prefix + port GUID). */
static int rp_gids_ib(struct rp_ctx *c, struct fab_rdma_dev *dev, struct fab_rdma_port *p,
		      const struct rp_port_raw *raw, struct fab_err *err)
{
	char path[512], line[128];
	struct in6_addr a;

	if (sys_read_line(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/ports/%u/gids/0",
				   dev->name, p->port), line, sizeof(line)) < 0 ||
	    inet_pton(AF_INET6, line, &a) != 1) {
		uint64_t hi = htobe64(raw->gid_prefix), lo = htobe64(raw->guid);

		if (!raw->gid_prefix)
			return 0;
		memcpy(a.s6_addr, &hi, 8);
		memcpy(a.s6_addr + 8, &lo, 8);
	}
	return rp_gid_add(dev, p, 0, &a, "IB", "", err);
}

/* ---- counters ------------------------------------------------------------ */

static int rp_counter_add(struct fab_rdma_dev *dev, struct fab_rdma_port *p, const char *name,
			  uint64_t value, struct fab_err *err)
{
	if (!rdma_port_counter_add(p, name, value))
		return fab_err_set(err, -ENOMEM, "rdma: %s: port %u: out of memory",
				   dev->name, p->port);
	p->counters_supported = true;
	return 0;
}

/* Every readable file of ports/<p>/<dir>, sorted by name. */
static int rp_counters_dir(struct rp_ctx *c, struct fab_rdma_dev *dev, struct fab_rdma_port *p,
			   const char *dir, struct fab_err *err)
{
	struct dirent **names;
	char path[512];
	uint64_t v;
	int n, rc = 0;

	n = scandir(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/ports/%u/%s",
			     dev->name, p->port, dir), &names, rp_visible, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n && rc == 0; i++) {
		/* hw_counters/lifespan is a setting, not a counter. */
		if (strcmp(names[i]->d_name, "lifespan") == 0)
			continue;
		if (sys_read_u64(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/ports/%u/%s/%s",
					  dev->name, p->port, dir, names[i]->d_name), &v) < 0)
			continue;	/* a directory, or a counter the driver cannot read */
		rc = rp_counter_add(dev, p, names[i]->d_name, v, err);
	}
	rp_free_names(names, n);
	return rc;
}

static const struct {
	const char *name;	/* the kernel's sysfs counter names */
	enum MAD_FIELDS field;
	enum MAD_FIELDS ext;	/* PortCountersExtended field, or 0 */
} rp_pma_counters[] = {
	{ "symbol_error", IB_PC_ERR_SYM_F, 0 },
	{ "link_error_recovery", IB_PC_LINK_RECOVERS_F, 0 },
	{ "link_downed", IB_PC_LINK_DOWNED_F, 0 },
	{ "port_rcv_errors", IB_PC_ERR_RCV_F, 0 },
	{ "port_rcv_remote_physical_errors", IB_PC_ERR_PHYSRCV_F, 0 },
	{ "port_rcv_switch_relay_errors", IB_PC_ERR_SWITCH_REL_F, 0 },
	{ "port_xmit_discards", IB_PC_XMT_DISCARDS_F, 0 },
	{ "port_xmit_constraint_errors", IB_PC_ERR_XMTCONSTR_F, 0 },
	{ "port_rcv_constraint_errors", IB_PC_ERR_RCVCONSTR_F, 0 },
	{ "local_link_integrity_errors", IB_PC_ERR_LOCALINTEG_F, 0 },
	{ "excessive_buffer_overrun_errors", IB_PC_ERR_EXCESS_OVR_F, 0 },
	{ "VL15_dropped", IB_PC_VL15_DROPPED_F, 0 },
	{ "port_xmit_wait", IB_PC_XMT_WAIT_F, 0 },
	{ "port_xmit_data", IB_PC_XMT_BYTES_F, IB_PC_EXT_XMT_BYTES_F },
	{ "port_rcv_data", IB_PC_RCV_BYTES_F, IB_PC_EXT_RCV_BYTES_F },
	{ "port_xmit_packets", IB_PC_XMT_PKTS_F, IB_PC_EXT_XMT_PKTS_F },
	{ "port_rcv_packets", IB_PC_RCV_PKTS_F, IB_PC_EXT_RCV_PKTS_F },
};

/*
 * PortCounters from the port's own PMA (needs a LID).  Returns 0 with
 * counters added, or -EIO when the PMA did not answer (caller falls back).
 * Data counters are in the PMA's units (4-octet words), as in sysfs.
 */
static int rp_counters_pma(struct fab_rdma_dev *dev, struct fab_rdma_port *p,
			   struct ibmad_port *mp, struct fab_err *err)
{
	uint8_t pc[RP_MAD_BUF], pce[RP_MAD_BUF];
	ib_portid_t id;
	bool ext = false;
	unsigned int cap;
	int rc;

	if (!mp || !p->lid)
		return -EIO;
	memset(&id, 0, sizeof(id));
	id.lid = (int)p->lid;
	memset(pc, 0, sizeof(pc));
	if (!pma_query_via(pc, &id, (int)p->port, 0, CLASS_PORT_INFO, mp))
		return -EIO;
	cap = (unsigned int)pc[2] << 8 | pc[3];	/* ClassPortInfo.CapabilityMask */
	memset(pc, 0, sizeof(pc));
	if (!pma_query_via(pc, &id, (int)p->port, 0, IB_GSI_PORT_COUNTERS, mp))
		return -EIO;
	if (cap & (RP_PM_EXT_WIDTH | RP_PM_EXT_WIDTH_NOIETF)) {
		memset(pce, 0, sizeof(pce));
		ext = pma_query_via(pce, &id, (int)p->port, 0, IB_GSI_PORT_COUNTERS_EXT, mp) != NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(rp_pma_counters); i++) {
		uint64_t v;

		if (ext && rp_pma_counters[i].ext)
			v = mad_get_field64(pce, 0, rp_pma_counters[i].ext);
		else
			v = mad_get_field(pc, 0, rp_pma_counters[i].field);
		rc = rp_counter_add(dev, p, rp_pma_counters[i].name, v, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* ---- width, speed, MTU --------------------------------------------------- */

static void rp_rate_sysfs(struct rp_ctx *c, struct fab_rdma_dev *dev, struct fab_rdma_port *p)
{
	char path[512], line[64];

	if (sys_read_line(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/ports/%u/rate",
				   dev->name, p->port), line, sizeof(line)) < 0)
		return;
	if (ib_rate_parse(line, &p->width_x, p->speed, sizeof(p->speed), &p->rate_gbps) < 0)
		fab_debug("rdma: %s: port %u: unparsed rate '%s'", dev->name, p->port, line);
}

/* PortInfo SMP to the local port: 0, or -EIO when no answer. */
static int rp_portinfo_smp(struct fab_rdma_port *p, struct ibmad_port *mp)
{
	uint8_t pi[RP_MAD_BUF];
	unsigned int cap, ext = 0;
	const char *speed;
	ib_portid_t id;

	if (!mp)
		return -EIO;
	memset(&id, 0, sizeof(id));	/* LID 0, empty directed route: this port */
	memset(pi, 0, sizeof(pi));
	if (!smp_query_via(pi, &id, IB_ATTR_PORT_INFO, p->port, 0, mp))
		return -EIO;
	cap = mad_get_field(pi, 0, IB_PORT_CAPMASK_F);
	if (cap & RP_PORT_CAP_EXT_SPEEDS)
		ext = mad_get_field(pi, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
	speed = ib_speed_from_active(mad_get_field(pi, 0, IB_PORT_LINK_SPEED_ACTIVE_F), ext);
	p->width_x = ib_width_from_active(mad_get_field(pi, 0, IB_PORT_LINK_WIDTH_ACTIVE_F));
	snprintf(p->speed, sizeof(p->speed), "%s", speed ? speed : "");
	p->rate_gbps = speed ? p->width_x * ib_speed_lane_gbps(speed) : 0;
	p->active_mtu = ib_mtu_from_enum(mad_get_field(pi, 0, IB_PORT_NEIGHBOR_MTU_F));
	return 0;
}

/* libibverbs: the active MTU of an Ethernet port (rxe follows the netdev). */
static unsigned int rp_verbs_mtu(struct rp_ctx *c, const char *dev, unsigned int port)
{
	struct ibv_port_attr attr;
	struct ibv_context *ctx;
	unsigned int mtu = 0;

	if (!c->wire)
		return 0;
	if (!c->ibv_tried) {
		c->ibv_tried = true;
		c->ibv_list = ibv_get_device_list(&c->ibv_n);
	}
	for (int i = 0; c->ibv_list && i < c->ibv_n; i++) {
		if (strcmp(ibv_get_device_name(c->ibv_list[i]), dev) != 0)
			continue;
		ctx = ibv_open_device(c->ibv_list[i]);
		if (!ctx)
			break;
		memset(&attr, 0, sizeof(attr));
		if (ibv_query_port(ctx, (uint8_t)port, &attr) == 0)
			mtu = ib_mtu_from_enum(attr.active_mtu);
		ibv_close_device(ctx);
		break;
	}
	return mtu;
}

/*
 * Open a MAD port silently: libibmad warns on stderr when the umad device
 * cannot be opened (no permission, no ib_umad), so try libibumad first.
 */
static struct ibmad_port *rp_mad_open(struct rp_ctx *c, const char *ca, unsigned int port)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_PERFORMANCE_CLASS };
	struct ibmad_port *mp;
	char name[64];
	int fd;

	if (!c->wire)
		return NULL;
	snprintf(name, sizeof(name), "%s", ca);
	fd = umad_open_port(name, (int)port);
	if (fd < 0) {
		fab_debug("rdma: %s: port %u: no MAD access: %s", ca, port, strerror(-fd));
		return NULL;
	}
	umad_close_port(fd);
	mp = mad_rpc_open_port(name, (int)port, classes, (int)ARRAY_SIZE(classes));
	if (!mp)
		return NULL;
	mad_rpc_set_timeout(mp, RP_MAD_TIMEOUT_MS);
	mad_rpc_set_retries(mp, RP_MAD_RETRIES);
	return mp;
}

/* ---- ports and devices --------------------------------------------------- */

static int rp_port_read(struct rp_ctx *c, struct fab_rdma_dev *dev,
			const struct rp_port_raw *raw, struct fab_err *err)
{
	struct fab_rdma_port *p = rdma_dev_port_add(dev);
	struct ibmad_port *mp = NULL;
	const char *s;
	int rc = 0;

	if (!p)
		return fab_err_set(err, -ENOMEM, "rdma: %s: out of memory", dev->name);
	p->port = raw->port;
	if (strcmp(raw->link_layer, "Ethernet") == 0)
		snprintf(p->link_layer, sizeof(p->link_layer), "Ethernet");
	else if (!raw->link_layer[0] || strcmp(raw->link_layer, "IB") == 0 ||
		 strcmp(raw->link_layer, "InfiniBand") == 0)
		snprintf(p->link_layer, sizeof(p->link_layer), "InfiniBand");
	else
		snprintf(p->link_layer, sizeof(p->link_layer), "%.15s", raw->link_layer);
	s = ib_port_state_name(raw->state);
	snprintf(p->state, sizeof(p->state), "%s", s ? s : "UNKNOWN");
	s = ib_phys_state_name(raw->phys_state);
	snprintf(p->phys_state, sizeof(p->phys_state), "%s", s ? s : "UNKNOWN");
	p->port_guid = raw->guid;

	if (rp_is_ib(p)) {
		p->lid = raw->lid;
		p->sm_lid = raw->sm_lid;
		mp = rp_mad_open(c, dev->name, p->port);
		if (rp_portinfo_smp(p, mp) < 0)
			rp_rate_sysfs(c, dev, p);
		rc = rp_gids_ib(c, dev, p, raw, err);
		if (rc == 0 && c->counters) {
			rc = rp_counters_pma(dev, p, mp, err);
			if (rc == -EIO) {
				fab_debug("rdma: %s: port %u: no PMA answer, using sysfs counters",
					  dev->name, p->port);
				rc = rp_counters_dir(c, dev, p, "counters", err);
			}
		}
	} else {
		rp_rate_sysfs(c, dev, p);
		p->active_mtu = rp_verbs_mtu(c, dev->name, p->port);
		rc = rp_gids_eth(c, dev, p, err);
		if (rc == 0 && c->counters)
			rc = rp_counters_dir(c, dev, p, "counters", err);
		if (rc == 0 && c->counters)
			rc = rp_counters_dir(c, dev, p, "hw_counters", err);
	}
	if (mp)
		mad_rpc_close_port(mp);
	if (rc == 0 && raw->phys_state != 5) {
		/* No link: what the port last trained to means nothing now. */
		p->width_x = 0;
		p->speed[0] = '\0';
		p->rate_gbps = 0;
		p->active_mtu = 0;
	}
	return rc;
}

static struct fab_rdma_dev *rp_dev_add(struct host_state *hs, const char *name,
				       unsigned int node_type, uint64_t node_guid,
				       const char *fw_ver, struct fab_err *err)
{
	struct fab_rdma_dev *dev = host_state_rdma_add(hs);

	if (!dev) {
		fab_err_set(err, -ENOMEM, "rdma: %s: out of memory", name);
		return NULL;
	}
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	snprintf(dev->node_type, sizeof(dev->node_type), "%s", rp_node_type_name(node_type));
	dev->node_guid = node_guid;
	snprintf(dev->fw_ver, sizeof(dev->fw_ver), "%s", fw_ver);
	return dev;
}

/* The real node: libibumad. */
static int rp_read_umad(struct rp_ctx *c, struct host_state *hs, struct fab_err *err)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int n, rc;

	rc = umad_init();
	if (rc < 0)
		return 0;	/* no umad ABI (no ib_umad, no /sys/class/infiniband_mad) */
	n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	if (n < 0) {
		if (n == -ENOENT || n == -ENODEV)
			return 0;
		return fab_err_set(err, n, "rdma: cannot list devices: %s", strerror(-n));
	}
	for (int i = 0; i < n; i++) {
		struct fab_rdma_dev *dev;
		umad_ca_t ca;

		memset(&ca, 0, sizeof(ca));
		rc = umad_get_ca(names[i], &ca);
		if (rc == -ENOENT || rc == -ENODEV) {
			/*
			 * Gone since the listing, or libibumad's made-up
			 * default name on a node without devices.
			 */
			continue;
		}
		if (rc < 0)
			return fab_err_set(err, rc < -1 ? rc : -EIO, "rdma: %s: cannot read device: %s",
					   names[i], strerror(rc < -1 ? -rc : EIO));
		dev = rp_dev_add(hs, ca.ca_name, ca.node_type, be64toh(ca.node_guid), ca.fw_ver, err);
		if (!dev) {
			umad_release_ca(&ca);
			return err ? err->code : -ENOMEM;
		}
		for (int j = 0; j < UMAD_CA_MAX_PORTS; j++) {
			const umad_port_t *up = ca.ports[j];
			struct rp_port_raw raw;

			if (!up)
				continue;
			memset(&raw, 0, sizeof(raw));
			raw.port = (unsigned int)up->portnum;
			raw.state = up->state;
			raw.phys_state = up->phys_state;
			raw.lid = up->base_lid;
			raw.sm_lid = up->sm_lid;
			raw.guid = be64toh(up->port_guid);
			raw.gid_prefix = be64toh(up->gid_prefix);
			snprintf(raw.link_layer, sizeof(raw.link_layer), "%s", up->link_layer);
			rc = rp_port_read(c, dev, &raw, err);
			if (rc < 0) {
				umad_release_ca(&ca);
				return rc;
			}
		}
		umad_release_ca(&ca);
	}
	return 0;
}

static unsigned int rp_sysfs_enum(struct rp_ctx *c, const char *fmt_dev, unsigned int port,
				  const char *file)
{
	char path[512], line[64];
	unsigned int v = 0;

	if (sys_read_line(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/ports/%u/%s",
				   fmt_dev, port, file), line, sizeof(line)) < 0 ||
	    ib_sysfs_enum_parse(line, &v) < 0)
		return 0;
	return v;
}

/* A layout fixture: the same sysfs files the kernel (and libibumad) read. */
static int rp_read_sysfs(struct rp_ctx *c, struct host_state *hs, struct fab_err *err)
{
	struct dirent **devs, **ports;
	char path[512], line[128], fw[64];
	int n, np, rc = 0;

	n = scandir(sys_path(c->sys, path, sizeof(path), RP_SYSFS), &devs, rp_visible, alphasort);
	if (n < 0)
		return 0;	/* no RDMA devices */
	for (int i = 0; i < n && rc == 0; i++) {
		const char *name = devs[i]->d_name;
		struct fab_rdma_dev *dev;
		unsigned int type = 0;
		uint64_t guid = 0;

		if (sys_read_line(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/node_type", name),
				  line, sizeof(line)) == 0)
			ib_sysfs_enum_parse(line, &type);
		if (sys_read_line(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/node_guid", name),
				  line, sizeof(line)) == 0)
			ib_guid_parse(line, &guid);
		if (sys_read_line(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/fw_ver", name),
				  fw, sizeof(fw)) < 0)
			fw[0] = '\0';
		dev = rp_dev_add(hs, name, type, guid, fw, err);
		if (!dev) {
			rc = err ? err->code : -ENOMEM;
			break;
		}
		np = scandir(sys_path(c->sys, path, sizeof(path), RP_SYSFS "/%s/ports", name),
			     &ports, rp_numeric, rp_numsort);
		if (np < 0)
			continue;
		for (int j = 0; j < np && rc == 0; j++) {
			struct rp_port_raw raw;
			struct in6_addr a;

			memset(&raw, 0, sizeof(raw));
			raw.port = (unsigned int)strtoul(ports[j]->d_name, NULL, 10);
			raw.state = rp_sysfs_enum(c, name, raw.port, "state");
			raw.phys_state = rp_sysfs_enum(c, name, raw.port, "phys_state");
			raw.lid = rp_sysfs_enum(c, name, raw.port, "lid");
			raw.sm_lid = rp_sysfs_enum(c, name, raw.port, "sm_lid");
			if (sys_read_line(sys_path(c->sys, path, sizeof(path),
						   RP_SYSFS "/%s/ports/%u/link_layer", name, raw.port),
					  raw.link_layer, sizeof(raw.link_layer)) < 0)
				raw.link_layer[0] = '\0';
			/* Port GUID: the low half of GID 0, as libibumad does. */
			if (sys_read_line(sys_path(c->sys, path, sizeof(path),
						   RP_SYSFS "/%s/ports/%u/gids/0", name, raw.port),
					  line, sizeof(line)) == 0 &&
			    inet_pton(AF_INET6, line, &a) == 1) {
				uint64_t lo;

				memcpy(&lo, a.s6_addr + 8, 8);
				raw.guid = be64toh(lo);
			}
			rc = rp_port_read(c, dev, &raw, err);
		}
		rp_free_names(ports, np);
	}
	rp_free_names(devs, n);
	return rc;
}

int rdma_port_read_all(struct sys *sys, struct host_state *hs, unsigned int flags,
		       struct fab_err *err)
{
	struct rp_ctx c = { .sys = sys, .wire = sys->root[0] == '\0',
			    .counters = flags & SYS_READ_COUNTERS };
	int rc;

	/* Library diagnostics only when debugging (-vv). */
	madrpc_show_errors(fab_log_level >= 2);
	umad_debug(fab_log_level >= 2 ? 1 : 0);
	if (c.wire)
		rc = rp_read_umad(&c, hs, err);
	else
		rc = rp_read_sysfs(&c, hs, err);
	if (c.ibv_list)
		ibv_free_device_list(c.ibv_list);
	return rc;
}
