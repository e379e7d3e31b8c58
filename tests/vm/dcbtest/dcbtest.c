// SPDX-License-Identifier: GPL-2.0
/*
 * dcbtest: pairs of virtual Ethernet devices (dcbt0 <-> dcbt1, dcbt2 <->
 * dcbt3, ...) that implement the kernel's IEEE 802.1Qaz DCB operations,
 * so that fabricctl's DCB netlink code and iproute2's dcb(8) can be tested
 * against the kernel's real net/dcb/dcbnl.c in a VM.  No virtual netdev in
 * Debian's kernel has DCB ops (veth, dummy, netdevsim answer EOPNOTSUPP).
 *
 * Frames sent on one side are delivered to the other (dev_forward_skb, as
 * veth does); the carrier is up while both sides are up.
 *
 * DCB state lives in the device's private data and behaves like a real
 * driver's (mlx5 is the model):
 *   - ETS: `tcs` TCs (default 8); a configuration whose ETS bandwidths do
 *     not sum to 100, or maps a priority to a TC >= tcs, is rejected with
 *     -EINVAL and no extended ack (drivers only log);
 *   - PFC: pfc_cap 8, enable bitmap, mbc and delay stored;
 *   - APP: kept in the kernel's generic table (dcb_ieee_setapp/delapp),
 *     selector 1..5, priority < 8, DSCP < 64 checked;
 *   - maxrate, buffer (prio2buffer, sizes <= total), DCBX mode (host-
 *     managed IEEE/CEE; LLD-managed rejected);
 *   - ethtool: the PFC storm prevention tunable (ETHTOOL_PFC_PREVENTION_TOUT);
 *   - with dcqcn=1, DCQCN and the per-priority ECN enables in the two
 *     layouts mlx5 drivers show them (see "DCQCN" below): the vendor
 *     driver's (MLNX_OFED) sysfs /sys/class/net/IF/ecn/roce_{np,rp}/ on
 *     even devices (dcbt0, dcbt2, ...), the inbox mlx5_ib debugfs
 *     /sys/kernel/debug/mlx5/<parent>/cc_params/ on odd ones.  Each device
 *     then has a platform device parent (dcbtest.N), so IF/device exists
 *     and names the debugfs directory, as a PCI BDF does for mlx5.
 *
 * Parameters: pairs=N (default 1, at most 16); tcs=N (default 8, writable);
 * dcqcn=0|1 (default 0); fail=DIR/NAME (writable): writes to that DCQCN/ECN
 * file fail with -EIO, as a firmware command that fails would
 * (roce_rp/rpg_ai_rate, roce_np/enable/3, cc_params/rp_ai_rate).
 *
 * Build: tests/vm/dcbtest/build (against Debian's linux-headers for the
 * VM kernel).  Load in the VM: insmod dcbtest.ko pairs=2
 */
#include <linux/etherdevice.h>
#include <linux/debugfs.h>
#include <linux/ethtool.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/rtnetlink.h>
#include <net/dcbnl.h>

#define DCBT_MAX_PAIRS 16
#define DCBT_TCS IEEE_8021QAZ_MAX_TCS
#define DCBT_BUFFER_TOTAL (512 * 1024)

static int pairs = 1;
module_param(pairs, int, 0444);
MODULE_PARM_DESC(pairs, "number of dcbtN pairs to create (1..16)");

/*
 * Traffic classes the "hardware" has (ets_cap).  Writable at run time
 * (/sys/module/dcbtest/parameters/tcs) so a test can make the driver
 * refuse an ETS map that a profile loader cannot know is wrong, as a real
 * 4-TC NIC would.
 */
static int tcs = IEEE_8021QAZ_MAX_TCS;
module_param(tcs, int, 0644);
MODULE_PARM_DESC(tcs, "traffic classes per device (1..8): ets_cap, and prio_tc must stay below it");

static int dcqcn;
module_param(dcqcn, int, 0444);
MODULE_PARM_DESC(dcqcn, "1: DCQCN/ECN files: vendor sysfs ecn/ on even devices, mlx5 debugfs cc_params on odd ones");

/* Read unlocked: a test sets it between applies, never during one. */
static char dcbt_fail[64];
module_param_string(fail, dcbt_fail, sizeof(dcbt_fail), 0644);
MODULE_PARM_DESC(fail, "DCQCN/ECN file whose writes fail with -EIO: roce_rp/rpg_ai_rate, roce_np/enable/3, cc_params/rp_ai_rate");

/* DCQCN parameters: the union of both layouts' files (see "DCQCN" below). */
enum dcbt_cc {
	CC_CNP_DSCP, CC_CNP_PRIO, CC_CNP_PRIO_MODE, CC_MIN_TIME_BETWEEN_CNPS,
	CC_CLAMP_TGT_RATE, CC_CLAMP_TGT_RATE_ATI, CC_TIME_RESET, CC_BYTE_RESET, CC_THRESHOLD,
	CC_AI_RATE, CC_MAX_RATE, CC_HAI_RATE, CC_MIN_DEC_FAC, CC_MIN_RATE, CC_FIRST_CNP_RATE,
	CC_DCE_TCP_G, CC_DCE_TCP_RTT, CC_MONITOR_PERIOD, CC_INITIAL_ALPHA, CC_GD,
	CC_N
};

struct dcbt_priv;

/* One debugfs cc_params file: its device and parameter. */
struct dcbt_dbg_file {
	struct dcbt_priv *priv;
	int idx;
};

struct dcbt_priv {
	struct net_device __rcu *peer;
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buffer;
	u8 dcbx;
	u16 pfc_prevention_tout;	/* ethtool tunable, msecs; 0 off, 0xffff auto */
	u32 cc[CC_N];			/* DCQCN parameters */
	u8 ecn_en[2];			/* ECN enable per priority: [0] np, [1] rp */
	struct kobject *ecn_kobj, *pt_kobj[2], *en_kobj[2];	/* vendor sysfs */
	struct dcbt_dbg_file dbg[CC_N];				/* inbox debugfs */
};

static struct net_device *dcbt_devs[2 * DCBT_MAX_PAIRS];
static int dcbt_ndevs;
static struct platform_device *dcbt_pdevs[2 * DCBT_MAX_PAIRS];
static int dcbt_npdevs;
static struct dentry *dcbt_dbg_root;	/* debugfs mlx5/ */

/* --- data path ----------------------------------------------------------- */

static netdev_tx_t dcbt_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	struct net_device *peer;
	unsigned int len = skb->len;

	rcu_read_lock();
	peer = rcu_dereference(priv->peer);
	if (!peer || !netif_carrier_ok(dev)) {
		rcu_read_unlock();
		dev->stats.tx_dropped++;
		kfree_skb(skb);
		return NETDEV_TX_OK;
	}
	if (dev_forward_skb(peer, skb) == NET_RX_SUCCESS) {
		dev->stats.tx_packets++;
		dev->stats.tx_bytes += len;
		peer->stats.rx_packets++;
		peer->stats.rx_bytes += len;
	} else {
		dev->stats.tx_dropped++;
	}
	rcu_read_unlock();
	return NETDEV_TX_OK;
}

static int dcbt_open(struct net_device *dev)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	if (peer && (peer->flags & IFF_UP)) {
		netif_carrier_on(dev);
		netif_carrier_on(peer);
	}
	return 0;
}

static int dcbt_stop(struct net_device *dev)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	struct net_device *peer = rtnl_dereference(priv->peer);

	netif_carrier_off(dev);
	if (peer)
		netif_carrier_off(peer);
	return 0;
}

static const struct net_device_ops dcbt_netdev_ops = {
	.ndo_open = dcbt_open,
	.ndo_stop = dcbt_stop,
	.ndo_start_xmit = dcbt_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* --- DCB ----------------------------------------------------------------- */

static u8 dcbt_tcs(void)
{
	int n = READ_ONCE(tcs);

	return n < 1 ? 1 : n > DCBT_TCS ? DCBT_TCS : n;
}

static int dcbt_ieee_getets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbt_priv *priv = netdev_priv(dev);

	*ets = priv->ets;
	ets->ets_cap = dcbt_tcs();
	return 0;
}

static int dcbt_ieee_setets(struct net_device *dev, struct ieee_ets *ets)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	unsigned int sum = 0;
	bool have_ets = false;
	int i;

	for (i = 0; i < DCBT_TCS; i++) {
		if (ets->prio_tc[i] >= dcbt_tcs()) {
			netdev_err(dev, "dcbtest: prio %d mapped to tc %u, device has %u tcs\n",
				   i, ets->prio_tc[i], dcbt_tcs());
			return -EINVAL;
		}
		switch (ets->tc_tsa[i]) {
		case IEEE_8021QAZ_TSA_STRICT:
		case IEEE_8021QAZ_TSA_VENDOR:
			break;
		case IEEE_8021QAZ_TSA_ETS:
			have_ets = true;
			sum += ets->tc_tx_bw[i];
			break;
		default:
			netdev_err(dev, "dcbtest: tc %d: unsupported tsa %u\n",
				   i, ets->tc_tsa[i]);
			return -EOPNOTSUPP;
		}
	}
	/* As mlx5e_dbcnl_validate_ets(): ETS bandwidths must sum to 100. */
	if (have_ets && sum != 100) {
		netdev_err(dev, "dcbtest: ets bandwidth sum %u is not 100\n", sum);
		return -EINVAL;
	}
	priv->ets.willing = ets->willing;
	priv->ets.cbs = ets->cbs;
	memcpy(priv->ets.tc_tx_bw, ets->tc_tx_bw, sizeof(ets->tc_tx_bw));
	memcpy(priv->ets.tc_rx_bw, ets->tc_rx_bw, sizeof(ets->tc_rx_bw));
	memcpy(priv->ets.tc_tsa, ets->tc_tsa, sizeof(ets->tc_tsa));
	memcpy(priv->ets.prio_tc, ets->prio_tc, sizeof(ets->prio_tc));
	memcpy(priv->ets.tc_reco_bw, ets->tc_reco_bw, sizeof(ets->tc_reco_bw));
	memcpy(priv->ets.tc_reco_tsa, ets->tc_reco_tsa, sizeof(ets->tc_reco_tsa));
	memcpy(priv->ets.reco_prio_tc, ets->reco_prio_tc, sizeof(ets->reco_prio_tc));
	return 0;
}

static int dcbt_ieee_getpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbt_priv *priv = netdev_priv(dev);

	*pfc = priv->pfc;
	pfc->pfc_cap = DCBT_TCS;
	return 0;
}

static int dcbt_ieee_setpfc(struct net_device *dev, struct ieee_pfc *pfc)
{
	struct dcbt_priv *priv = netdev_priv(dev);

	priv->pfc.pfc_en = pfc->pfc_en;
	priv->pfc.mbc = pfc->mbc;
	priv->pfc.delay = pfc->delay;
	return 0;
}

static int dcbt_ieee_getmaxrate(struct net_device *dev, struct ieee_maxrate *mr)
{
	struct dcbt_priv *priv = netdev_priv(dev);

	*mr = priv->maxrate;
	return 0;
}

static int dcbt_ieee_setmaxrate(struct net_device *dev, struct ieee_maxrate *mr)
{
	struct dcbt_priv *priv = netdev_priv(dev);

	priv->maxrate = *mr;
	return 0;
}

static int dcbt_app_check(struct net_device *dev, const struct dcb_app *app)
{
	if (app->selector < IEEE_8021QAZ_APP_SEL_ETHERTYPE ||
	    app->selector > IEEE_8021QAZ_APP_SEL_DSCP || app->priority >= DCBT_TCS)
		return -EINVAL;
	if (app->selector == IEEE_8021QAZ_APP_SEL_DSCP && app->protocol >= 64)
		return -EINVAL;
	return 0;
}

static int dcbt_ieee_setapp(struct net_device *dev, struct dcb_app *app)
{
	int err = dcbt_app_check(dev, app);

	if (err) {
		netdev_err(dev, "dcbtest: invalid app sel %u prio %u proto %u\n",
			   app->selector, app->priority, app->protocol);
		return err;
	}
	return dcb_ieee_setapp(dev, app);
}

static int dcbt_ieee_delapp(struct net_device *dev, struct dcb_app *app)
{
	return dcb_ieee_delapp(dev, app);
}

static int dcbt_getbuffer(struct net_device *dev, struct dcbnl_buffer *buf)
{
	struct dcbt_priv *priv = netdev_priv(dev);

	*buf = priv->buffer;
	buf->total_size = DCBT_BUFFER_TOTAL;
	return 0;
}

static int dcbt_setbuffer(struct net_device *dev, struct dcbnl_buffer *buf)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	u64 sum = 0;
	int i;

	for (i = 0; i < DCBT_TCS; i++) {
		if (buf->prio2buffer[i] >= DCBX_MAX_BUFFERS)
			return -EINVAL;
		sum += buf->buffer_size[i];
	}
	if (sum > DCBT_BUFFER_TOTAL)
		return -EINVAL;
	memcpy(priv->buffer.prio2buffer, buf->prio2buffer, sizeof(buf->prio2buffer));
	memcpy(priv->buffer.buffer_size, buf->buffer_size, sizeof(buf->buffer_size));
	return 0;
}

static u8 dcbt_getdcbx(struct net_device *dev)
{
	struct dcbt_priv *priv = netdev_priv(dev);

	return priv->dcbx;
}

/* Returns 0 on success, non-zero on failure (the dcbnl convention). */
static u8 dcbt_setdcbx(struct net_device *dev, u8 mode)
{
	struct dcbt_priv *priv = netdev_priv(dev);

	if (mode & DCB_CAP_DCBX_LLD_MANAGED)
		return 1;
	if (!(mode & DCB_CAP_DCBX_HOST))
		return 1;
	if ((mode & (DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE)) == 0)
		return 1;
	priv->dcbx = mode;
	return 0;
}

static const struct dcbnl_rtnl_ops dcbt_dcbnl_ops = {
	.ieee_getets = dcbt_ieee_getets,
	.ieee_setets = dcbt_ieee_setets,
	.ieee_getmaxrate = dcbt_ieee_getmaxrate,
	.ieee_setmaxrate = dcbt_ieee_setmaxrate,
	.ieee_getpfc = dcbt_ieee_getpfc,
	.ieee_setpfc = dcbt_ieee_setpfc,
	.ieee_setapp = dcbt_ieee_setapp,
	.ieee_delapp = dcbt_ieee_delapp,
	.getdcbx = dcbt_getdcbx,
	.setdcbx = dcbt_setdcbx,
	.dcbnl_getbuffer = dcbt_getbuffer,
	.dcbnl_setbuffer = dcbt_setbuffer,
};

/* --- ethtool: the PFC storm prevention tunable ---------------------------- */

/*
 * ETHTOOL_PFC_PREVENTION_TOUT as mlx5 takes it (en_ethtool.c): 0 disables,
 * PFC_STORM_PREVENTION_AUTO (0xffff) lets the driver pick (mlx5: 100 ms),
 * else 80..8000 ms; anything else -EINVAL.  The kernel has checked the
 * tunable's type (u16) and length before calling.
 */
static int dcbt_get_tunable(struct net_device *dev, const struct ethtool_tunable *t, void *data)
{
	struct dcbt_priv *priv = netdev_priv(dev);

	if (t->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EOPNOTSUPP;
	*(u16 *)data = priv->pfc_prevention_tout;
	return 0;
}

static int dcbt_set_tunable(struct net_device *dev, const struct ethtool_tunable *t,
			    const void *data)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	u16 v;

	if (t->id != ETHTOOL_PFC_PREVENTION_TOUT)
		return -EOPNOTSUPP;
	v = *(const u16 *)data;
	if (v != PFC_STORM_PREVENTION_AUTO && v != PFC_STORM_PREVENTION_DISABLE &&
	    (v < 80 || v > 8000))
		return -EINVAL;
	priv->pfc_prevention_tout = v;
	return 0;
}

static const struct ethtool_ops dcbt_ethtool_ops = {
	.get_link = ethtool_op_get_link,
	.get_tunable = dcbt_get_tunable,
	.set_tunable = dcbt_set_tunable,
};

/* --- DCQCN: the vendor driver's sysfs and mlx5_ib's debugfs --------------- */

/*
 * The parameters, their files in each layout and the values dcbtest accepts.
 * Vendor names: MLNX_OFED's ecn/roce_np and ecn/roce_rp; debugfs names:
 * mlx5_ib_dbg_cc_name[] of drivers/infiniband/hw/mlx5/cong.c.  Defaults
 * are mlx5's.  Limits (vendor layout only) follow the ranges NVIDIA
 * documents for these parameters, rates capped at 400000 Mb/s: a write
 * outside them is -EINVAL, as the vendor driver's store answers.  The inbox
 * debugfs checks only that the text is a u32 (cong.c then truncates it to
 * the firmware field; dcbtest keeps it whole).
 */
struct dcbt_cc_desc {
	const char *vendor;	/* under ecn/: "roce_np/cnp_dscp"; NULL: debugfs only */
	const char *dbg;	/* under cc_params/ */
	u32 min, max, def;
};

#define DCBT_RATE_MAX 400000

static const struct dcbt_cc_desc dcbt_cc[CC_N] = {
	[CC_CNP_DSCP] = { "roce_np/cnp_dscp", "np_cnp_dscp", 0, 63, 48 },
	[CC_CNP_PRIO] = { "roce_np/cnp_802p_prio", "np_cnp_prio", 0, 7, 6 },
	[CC_CNP_PRIO_MODE] = { NULL, "np_cnp_prio_mode", 0, 1, 1 },
	[CC_MIN_TIME_BETWEEN_CNPS] = { "roce_np/min_time_between_cnps",
		"np_min_time_between_cnps", 0, 4095, 4 },
	[CC_CLAMP_TGT_RATE] = { "roce_rp/clamp_tgt_rate", "rp_clamp_tgt_rate", 0, 1, 0 },
	[CC_CLAMP_TGT_RATE_ATI] = { "roce_rp/clamp_tgt_rate_after_time_inc",
		"rp_clamp_tgt_rate_ati", 0, 1, 1 },
	[CC_TIME_RESET] = { "roce_rp/rpg_time_reset", "rp_time_reset", 0, 131071, 300 },
	[CC_BYTE_RESET] = { "roce_rp/rpg_byte_reset", "rp_byte_reset", 0, 32767, 32767 },
	[CC_THRESHOLD] = { "roce_rp/rpg_threshold", "rp_threshold", 1, 31, 1 },
	[CC_AI_RATE] = { "roce_rp/rpg_ai_rate", "rp_ai_rate", 1, DCBT_RATE_MAX, 5 },
	[CC_MAX_RATE] = { "roce_rp/rpg_max_rate", "rp_max_rate", 0, DCBT_RATE_MAX, 0 },
	[CC_HAI_RATE] = { "roce_rp/rpg_hai_rate", "rp_hai_rate", 1, DCBT_RATE_MAX, 50 },
	[CC_MIN_DEC_FAC] = { "roce_rp/rpg_min_dec_fac", "rp_min_dec_fac", 1, 100, 50 },
	[CC_MIN_RATE] = { "roce_rp/rpg_min_rate", "rp_min_rate", 0, DCBT_RATE_MAX, 1 },
	[CC_FIRST_CNP_RATE] = { "roce_rp/rate_to_set_on_first_cnp",
		"rp_rate_to_set_on_first_cnp", 0, DCBT_RATE_MAX, 0 },
	[CC_DCE_TCP_G] = { "roce_rp/dce_tcp_g", "rp_dce_tcp_g", 0, 1023, 1019 },
	[CC_DCE_TCP_RTT] = { "roce_rp/dce_tcp_rtt", "rp_dce_tcp_rtt", 0, 131071, 1 },
	[CC_MONITOR_PERIOD] = { "roce_rp/rate_reduce_monitor_period",
		"rp_rate_reduce_monitor_period", 0, U32_MAX, 4 },
	[CC_INITIAL_ALPHA] = { "roce_rp/initial_alpha_value", "rp_initial_alpha_value",
		0, 1023, 1023 },
	[CC_GD] = { "roce_rp/rpg_gd", "rp_gd", 0, 15, 11 },
};

static const char *const dcbt_points[2] = { "roce_np", "roce_rp" };

/* Whether the test asked writes to DIR/NAME to fail (parameter fail=). */
static bool dcbt_fails(const char *dir, const char *name)
{
	char want[80];

	snprintf(want, sizeof(want), "%s/%s", dir, name);
	return dcbt_fail[0] && sysfs_streq(dcbt_fail, want);
}

/* The netdev whose device kobject is @up levels above @kobj. */
static struct dcbt_priv *dcbt_kobj_priv(struct kobject *kobj, int up)
{
	while (up--)
		kobj = kobj->parent;
	return netdev_priv(to_net_dev(kobj_to_dev(kobj)));
}

/* A vendor file: its parameter (or priority, for enable/N). */
struct dcbt_attr {
	struct kobj_attribute ka;
	int idx;
};

/* ecn/roce_{np,rp}/PARAM: one decimal number. */
static ssize_t dcbt_cc_show(struct kobject *kobj, struct kobj_attribute *ka, char *buf)
{
	struct dcbt_attr *a = container_of(ka, struct dcbt_attr, ka);

	return sysfs_emit(buf, "%u\n", READ_ONCE(dcbt_kobj_priv(kobj, 2)->cc[a->idx]));
}

static ssize_t dcbt_cc_store(struct kobject *kobj, struct kobj_attribute *ka, const char *buf,
			     size_t n)
{
	struct dcbt_attr *a = container_of(ka, struct dcbt_attr, ka);
	const struct dcbt_cc_desc *d = &dcbt_cc[a->idx];
	u32 v;

	if (kstrtou32(buf, 0, &v) || v < d->min || v > d->max)
		return -EINVAL;
	if (dcbt_fails(kobject_name(kobj), ka->attr.name))
		return -EIO;
	WRITE_ONCE(dcbt_kobj_priv(kobj, 2)->cc[a->idx], v);
	return n;
}

/* ecn/roce_{np,rp}/enable/PRIO: 0 or 1. */
static int dcbt_en_point(struct kobject *kobj)
{
	return strcmp(kobject_name(kobj->parent), "roce_rp") == 0;
}

static ssize_t dcbt_en_show(struct kobject *kobj, struct kobj_attribute *ka, char *buf)
{
	struct dcbt_attr *a = container_of(ka, struct dcbt_attr, ka);
	u8 m = READ_ONCE(dcbt_kobj_priv(kobj, 3)->ecn_en[dcbt_en_point(kobj)]);

	return sysfs_emit(buf, "%d\n", !!(m & BIT(a->idx)));
}

static ssize_t dcbt_en_store(struct kobject *kobj, struct kobj_attribute *ka, const char *buf,
			     size_t n)
{
	struct dcbt_attr *a = container_of(ka, struct dcbt_attr, ka);
	struct dcbt_priv *priv = dcbt_kobj_priv(kobj, 3);
	int pt = dcbt_en_point(kobj);
	char dir[32];
	u32 v;

	if (kstrtou32(buf, 0, &v) || v > 1)
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%s/enable", dcbt_points[pt]);
	if (dcbt_fails(dir, ka->attr.name))
		return -EIO;
	if (v)
		priv->ecn_en[pt] |= BIT(a->idx);
	else
		priv->ecn_en[pt] &= ~BIT(a->idx);
	return n;
}

#define DCBT_CC_ATTR(_idx, _name) \
	{ .ka = __ATTR(_name, 0644, dcbt_cc_show, dcbt_cc_store), .idx = _idx }
#define DCBT_EN_ATTR(_prio) \
	{ .ka = __ATTR(_prio, 0644, dcbt_en_show, dcbt_en_store), .idx = _prio }

static struct dcbt_attr dcbt_np_params[] = {
	DCBT_CC_ATTR(CC_CNP_DSCP, cnp_dscp),
	DCBT_CC_ATTR(CC_CNP_PRIO, cnp_802p_prio),
	DCBT_CC_ATTR(CC_MIN_TIME_BETWEEN_CNPS, min_time_between_cnps),
};

static struct dcbt_attr dcbt_rp_params[] = {
	DCBT_CC_ATTR(CC_CLAMP_TGT_RATE, clamp_tgt_rate),
	DCBT_CC_ATTR(CC_CLAMP_TGT_RATE_ATI, clamp_tgt_rate_after_time_inc),
	DCBT_CC_ATTR(CC_TIME_RESET, rpg_time_reset),
	DCBT_CC_ATTR(CC_BYTE_RESET, rpg_byte_reset),
	DCBT_CC_ATTR(CC_THRESHOLD, rpg_threshold),
	DCBT_CC_ATTR(CC_AI_RATE, rpg_ai_rate),
	DCBT_CC_ATTR(CC_MAX_RATE, rpg_max_rate),
	DCBT_CC_ATTR(CC_HAI_RATE, rpg_hai_rate),
	DCBT_CC_ATTR(CC_MIN_DEC_FAC, rpg_min_dec_fac),
	DCBT_CC_ATTR(CC_MIN_RATE, rpg_min_rate),
	DCBT_CC_ATTR(CC_FIRST_CNP_RATE, rate_to_set_on_first_cnp),
	DCBT_CC_ATTR(CC_DCE_TCP_G, dce_tcp_g),
	DCBT_CC_ATTR(CC_DCE_TCP_RTT, dce_tcp_rtt),
	DCBT_CC_ATTR(CC_MONITOR_PERIOD, rate_reduce_monitor_period),
	DCBT_CC_ATTR(CC_INITIAL_ALPHA, initial_alpha_value),
	DCBT_CC_ATTR(CC_GD, rpg_gd),
};

static struct dcbt_attr dcbt_en[8] = {
	DCBT_EN_ATTR(0), DCBT_EN_ATTR(1), DCBT_EN_ATTR(2), DCBT_EN_ATTR(3),
	DCBT_EN_ATTR(4), DCBT_EN_ATTR(5), DCBT_EN_ATTR(6), DCBT_EN_ATTR(7),
};

/* NULL-terminated attribute lists, filled by dcbt_attrs_init(). */
static struct attribute *dcbt_np_attrs[ARRAY_SIZE(dcbt_np_params) + 1];
static struct attribute *dcbt_rp_attrs[ARRAY_SIZE(dcbt_rp_params) + 1];
static struct attribute *dcbt_en_attrs[ARRAY_SIZE(dcbt_en) + 1];
static const struct attribute_group dcbt_pt_groups[2] = {
	{ .attrs = dcbt_np_attrs }, { .attrs = dcbt_rp_attrs },
};
static const struct attribute_group dcbt_en_group = { .attrs = dcbt_en_attrs };

static void dcbt_attrs_fill(struct attribute **out, struct dcbt_attr *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = &a[i].ka.attr;
	out[n] = NULL;
}

static void dcbt_attrs_init(void)
{
	dcbt_attrs_fill(dcbt_np_attrs, dcbt_np_params, ARRAY_SIZE(dcbt_np_params));
	dcbt_attrs_fill(dcbt_rp_attrs, dcbt_rp_params, ARRAY_SIZE(dcbt_rp_params));
	dcbt_attrs_fill(dcbt_en_attrs, dcbt_en, ARRAY_SIZE(dcbt_en));
}

/* The vendor layout under the netdev: ecn/roce_{np,rp}/{PARAM, enable/PRIO}. */
static int dcbt_ecn_add(struct net_device *dev)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	int pt;

	priv->ecn_kobj = kobject_create_and_add("ecn", &dev->dev.kobj);
	if (!priv->ecn_kobj)
		return -ENOMEM;
	for (pt = 0; pt < 2; pt++) {
		priv->pt_kobj[pt] = kobject_create_and_add(dcbt_points[pt], priv->ecn_kobj);
		if (!priv->pt_kobj[pt])
			return -ENOMEM;
		if (sysfs_create_group(priv->pt_kobj[pt], &dcbt_pt_groups[pt]))
			return -ENOMEM;
		priv->en_kobj[pt] = kobject_create_and_add("enable", priv->pt_kobj[pt]);
		if (!priv->en_kobj[pt])
			return -ENOMEM;
		if (sysfs_create_group(priv->en_kobj[pt], &dcbt_en_group))
			return -ENOMEM;
	}
	return 0;
}

static void dcbt_ecn_del(struct net_device *dev)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	int pt;

	for (pt = 0; pt < 2; pt++) {
		kobject_put(priv->en_kobj[pt]);
		kobject_put(priv->pt_kobj[pt]);
		priv->en_kobj[pt] = priv->pt_kobj[pt] = NULL;
	}
	kobject_put(priv->ecn_kobj);
	priv->ecn_kobj = NULL;
}

/* debugfs mlx5/<parent>/cc_params/NAME: one decimal number, as cong.c shows it. */
static ssize_t dcbt_dbg_read(struct file *f, char __user *ubuf, size_t count, loff_t *pos)
{
	struct dcbt_dbg_file *df = f->private_data;
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%u\n", READ_ONCE(df->priv->cc[df->idx]));
	return simple_read_from_buffer(ubuf, count, pos, buf, len);
}

static ssize_t dcbt_dbg_write(struct file *f, const char __user *ubuf, size_t count,
			      loff_t *pos)
{
	struct dcbt_dbg_file *df = f->private_data;
	char buf[32];
	u32 v;

	if (*pos != 0 || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (kstrtou32(buf, 0, &v))
		return -EINVAL;
	if (dcbt_fails("cc_params", dcbt_cc[df->idx].dbg))
		return -EIO;
	WRITE_ONCE(df->priv->cc[df->idx], v);
	return count;
}

static const struct file_operations dcbt_dbg_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = dcbt_dbg_read,
	.write = dcbt_dbg_write,
};

/* The inbox layout: debugfs mlx5/<name of the netdev's parent>/cc_params/. */
static void dcbt_dbg_add(struct net_device *dev)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	struct dentry *dir;
	int i;

	if (IS_ERR_OR_NULL(dcbt_dbg_root) || !dev->dev.parent)
		return;
	dir = debugfs_create_dir(dev_name(dev->dev.parent), dcbt_dbg_root);
	dir = debugfs_create_dir("cc_params", dir);
	for (i = 0; i < CC_N; i++) {
		priv->dbg[i].priv = priv;
		priv->dbg[i].idx = i;
		debugfs_create_file(dcbt_cc[i].dbg, 0600, dir, &priv->dbg[i], &dcbt_dbg_fops);
	}
}

/* --- setup --------------------------------------------------------------- */

static void dcbt_setup(struct net_device *dev)
{
	struct dcbt_priv *priv = netdev_priv(dev);
	int i;

	ether_setup(dev);
	dev->netdev_ops = &dcbt_netdev_ops;
	dev->dcbnl_ops = &dcbt_dcbnl_ops;
	dev->ethtool_ops = &dcbt_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->priv_flags |= IFF_NO_QUEUE;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = 9216;
	eth_hw_addr_random(dev);

	priv->ets.ets_cap = DCBT_TCS;
	for (i = 0; i < DCBT_TCS; i++)
		priv->ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
	priv->pfc.pfc_cap = DCBT_TCS;
	priv->buffer.total_size = DCBT_BUFFER_TOTAL;
	priv->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	for (i = 0; i < CC_N; i++)
		priv->cc[i] = dcbt_cc[i].def;
}

static void dcbt_destroy_all(void)
{
	int i;

	for (i = 0; i < dcbt_ndevs; i++)
		dcbt_ecn_del(dcbt_devs[i]);
	debugfs_remove_recursive(dcbt_dbg_root);
	dcbt_dbg_root = NULL;
	rtnl_lock();
	for (i = 0; i < dcbt_ndevs; i++) {
		struct dcbt_priv *priv = netdev_priv(dcbt_devs[i]);

		RCU_INIT_POINTER(priv->peer, NULL);
	}
	for (i = 0; i < dcbt_ndevs; i++)
		unregister_netdevice(dcbt_devs[i]);
	rtnl_unlock();
	dcbt_ndevs = 0;
	for (i = 0; i < dcbt_npdevs; i++)
		platform_device_unregister(dcbt_pdevs[i]);
	dcbt_npdevs = 0;
}

/* Device @i: a netdev, with dcqcn=1 under a platform device and with its DCQCN files. */
static int dcbt_create(int i)
{
	struct net_device *dev;
	char name[IFNAMSIZ];
	int err;

	snprintf(name, sizeof(name), "dcbt%d", i);
	dev = alloc_netdev(sizeof(struct dcbt_priv), name, NET_NAME_USER, dcbt_setup);
	if (!dev)
		return -ENOMEM;
	if (dcqcn) {
		struct platform_device *pdev = platform_device_register_simple("dcbtest", i,
									       NULL, 0);

		if (IS_ERR(pdev)) {
			free_netdev(dev);
			return PTR_ERR(pdev);
		}
		dcbt_pdevs[dcbt_npdevs++] = pdev;
		SET_NETDEV_DEV(dev, &pdev->dev);
	}
	err = register_netdev(dev);
	if (err) {
		free_netdev(dev);
		return err;
	}
	netif_carrier_off(dev);
	dcbt_devs[dcbt_ndevs++] = dev;
	if (!dcqcn)
		return 0;
	if (i % 2)
		dcbt_dbg_add(dev);
	else
		return dcbt_ecn_add(dev);
	return 0;
}

static int __init dcbt_init(void)
{
	int i, err;

	if (pairs < 1 || pairs > DCBT_MAX_PAIRS)
		return -EINVAL;
	dcbt_attrs_init();
	if (dcqcn)
		dcbt_dbg_root = debugfs_create_dir("mlx5", NULL);
	for (i = 0; i < 2 * pairs; i++) {
		err = dcbt_create(i);
		if (err)
			goto fail;
	}
	rtnl_lock();
	for (i = 0; i < dcbt_ndevs; i += 2) {
		struct dcbt_priv *a = netdev_priv(dcbt_devs[i]);
		struct dcbt_priv *b = netdev_priv(dcbt_devs[i + 1]);

		rcu_assign_pointer(a->peer, dcbt_devs[i + 1]);
		rcu_assign_pointer(b->peer, dcbt_devs[i]);
	}
	rtnl_unlock();
	pr_info("dcbtest: %d pair(s) created%s\n", pairs, dcqcn ? ", with DCQCN files" : "");
	return 0;
fail:
	dcbt_destroy_all();
	return err;
}

static void __exit dcbt_exit(void)
{
	dcbt_destroy_all();
}

module_init(dcbt_init);
module_exit(dcbt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("virtual netdev pairs with IEEE DCB ops, for testing DCB netlink");
