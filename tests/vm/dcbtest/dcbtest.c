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
 *   - ethtool: the PFC storm prevention tunable (ETHTOOL_PFC_PREVENTION_TOUT).
 *
 * Parameters: pairs=N (default 1, at most 16); tcs=N (default 8, writable).
 *
 * Build: tests/vm/dcbtest/build (against Debian's linux-headers for the
 * VM kernel).  Load in the VM: insmod dcbtest.ko pairs=2
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/netdevice.h>
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

struct dcbt_priv {
	struct net_device __rcu *peer;
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buffer;
	u8 dcbx;
	u16 pfc_prevention_tout;	/* ethtool tunable, msecs; 0 off, 0xffff auto */
};

static struct net_device *dcbt_devs[2 * DCBT_MAX_PAIRS];
static int dcbt_ndevs;

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
}

static void dcbt_destroy_all(void)
{
	int i;

	rtnl_lock();
	for (i = 0; i < dcbt_ndevs; i++) {
		struct dcbt_priv *priv = netdev_priv(dcbt_devs[i]);

		RCU_INIT_POINTER(priv->peer, NULL);
	}
	for (i = 0; i < dcbt_ndevs; i++)
		unregister_netdevice(dcbt_devs[i]);
	rtnl_unlock();
	dcbt_ndevs = 0;
}

static int __init dcbt_init(void)
{
	int i, err;

	if (pairs < 1 || pairs > DCBT_MAX_PAIRS)
		return -EINVAL;
	for (i = 0; i < 2 * pairs; i++) {
		struct net_device *dev;
		char name[IFNAMSIZ];

		snprintf(name, sizeof(name), "dcbt%d", i);
		dev = alloc_netdev(sizeof(struct dcbt_priv), name, NET_NAME_USER,
				   dcbt_setup);
		if (!dev) {
			err = -ENOMEM;
			goto fail;
		}
		err = register_netdev(dev);
		if (err) {
			free_netdev(dev);
			goto fail;
		}
		netif_carrier_off(dev);
		dcbt_devs[dcbt_ndevs++] = dev;
	}
	rtnl_lock();
	for (i = 0; i < dcbt_ndevs; i += 2) {
		struct dcbt_priv *a = netdev_priv(dcbt_devs[i]);
		struct dcbt_priv *b = netdev_priv(dcbt_devs[i + 1]);

		rcu_assign_pointer(a->peer, dcbt_devs[i + 1]);
		rcu_assign_pointer(b->peer, dcbt_devs[i]);
	}
	rtnl_unlock();
	pr_info("dcbtest: %d pair(s) created\n", pairs);
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
