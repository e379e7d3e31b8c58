// SPDX-License-Identifier: GPL-2.0
/*
 * optest: three virtual Ethernet devices with a pluggable module each,
 * so that fabricctl's module and FEC readers and ethtool(8) can be
 * checked against each other through the kernel's real ethtool netlink
 * code (net/ethtool/eeprom.c, fec.c, linkstate.c) in a VM:
 *
 *   optsfp   an SFP28 slot (SFF-8472: A0h and A2h), 25000 Mb/s, 1 lane
 *   optqsfp  a QSFP28 slot (SFF-8636: lower page, upper pages 0-3), 100000 Mb/s, 4 lanes
 *   optcmis  a QSFP-DD slot (CMIS: lower page, upper pages of banks 0-3), 400000 Mb/s, 8 lanes
 *
 * The module's memory is a debugfs file a test writes (and reads):
 * /sys/kernel/debug/optest/IF/eeprom, laid out as
 *
 *   0      lower page (I2C 0x50, bytes 0-127)
 *   128 + (bank * 256 + page) * 128     upper half (bytes 128-255) of that page
 *   OPT_A2 (131200)                     I2C 0x51 bytes 0-255 (SFF-8472 A2h)
 *
 * get_module_eeprom_by_page() serves it as a module would (-EINVAL, with
 * an extended ack, for what the module does not have); it starts empty
 * (identifier 0: no module), so `ethtool -m` and fabricctl see exactly
 * what the test wrote.
 *
 * FEC: active RS (optsfp: BaseR), and statistics that grow with time:
 * each counter is BASE + RATE x seconds since it was last written, split
 * evenly over the lanes (debugfs corrected_blocks, uncorrectable_blocks,
 * corrected_bits and their *_rate files, u64).  Writing "0" or "1" to
 * debugfs carrier drops or raises the carrier (a flap is a 0 then a 1).
 *
 * Build: tests/vm/optest/build.  Load in the VM: insmod optest.ko
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define OPT_PAGE 128
#define OPT_BANKS 4
#define OPT_A2 (OPT_PAGE + OPT_BANKS * 256 * OPT_PAGE)
#define OPT_SIZE (OPT_A2 + 256)

enum opt_kind { OPT_SFP, OPT_QSFP, OPT_CMIS, OPT_KINDS };

static const struct {
	const char *name;
	u32 speed;
	u32 lanes;
} opt_kinds[OPT_KINDS] = {
	[OPT_SFP] = { "optsfp", SPEED_25000, 1 },
	[OPT_QSFP] = { "optqsfp", SPEED_100000, 4 },
	[OPT_CMIS] = { "optcmis", SPEED_400000, 8 },
};

struct opt_counter {
	u64 base;	/* debugfs: the value at @since */
	u64 rate;	/* debugfs: per second after @since */
};

struct opt_priv {
	enum opt_kind kind;
	u8 *eeprom;			/* OPT_SIZE bytes, vmalloc'ed */
	struct mutex lock;		/* eeprom and counters */
	struct opt_counter corr_blocks, uncorr_blocks, corr_bits;
	ktime_t since;
	struct dentry *dir;
};

static struct net_device *opt_devs[OPT_KINDS];
static struct dentry *opt_root;

/* --- data path: frames are counted and dropped ---------------------------- */

static netdev_tx_t opt_xmit(struct sk_buff *skb, struct net_device *dev)
{
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static int opt_open(struct net_device *dev)
{
	netif_carrier_on(dev);
	return 0;
}

static int opt_stop(struct net_device *dev)
{
	netif_carrier_off(dev);
	return 0;
}

static const struct net_device_ops opt_netdev_ops = {
	.ndo_open = opt_open,
	.ndo_stop = opt_stop,
	.ndo_start_xmit = opt_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* --- ethtool --------------------------------------------------------------- */

static int opt_get_link_ksettings(struct net_device *dev, struct ethtool_link_ksettings *cmd)
{
	struct opt_priv *priv = netdev_priv(dev);

	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	cmd->base.speed = netif_carrier_ok(dev) ? opt_kinds[priv->kind].speed : SPEED_UNKNOWN;
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.port = PORT_FIBRE;
	cmd->base.autoneg = AUTONEG_DISABLE;
	cmd->lanes = opt_kinds[priv->kind].lanes;
	return 0;
}

/* Where a request lies in the eeprom file, or -1 when this module has no such memory. */
static long opt_offset(const struct opt_priv *priv, const struct ethtool_module_eeprom *r)
{
	if (r->i2c_address == 0x51)
		return priv->kind == OPT_SFP && r->page == 0 && r->bank == 0 ?
		       OPT_A2 + r->offset : -1;
	if (r->i2c_address != 0x50)
		return -1;
	if (r->offset < OPT_PAGE)
		return r->page == 0 && r->bank == 0 ? r->offset : -1;
	if (priv->kind == OPT_SFP && (r->page || r->bank))
		return -1;
	if (priv->kind == OPT_QSFP && (r->page > 3 || r->bank))
		return -1;
	if (r->bank >= OPT_BANKS)
		return -1;
	return OPT_PAGE + (r->bank * 256 + r->page) * OPT_PAGE + (r->offset - OPT_PAGE);
}

static int opt_get_module_eeprom_by_page(struct net_device *dev,
					 const struct ethtool_module_eeprom *page,
					 struct netlink_ext_ack *extack)
{
	struct opt_priv *priv = netdev_priv(dev);
	long off = opt_offset(priv, page);

	if (off < 0 || off + page->length > OPT_SIZE) {
		NL_SET_ERR_MSG_MOD(extack, "no such page in this module");
		return -EINVAL;
	}
	mutex_lock(&priv->lock);
	if (!priv->eeprom[0]) {
		mutex_unlock(&priv->lock);
		NL_SET_ERR_MSG_MOD(extack, "no module plugged");
		return -ENODEV;
	}
	memcpy(page->data, priv->eeprom + off, page->length);
	mutex_unlock(&priv->lock);
	return page->length;
}

static int opt_get_fecparam(struct net_device *dev, struct ethtool_fecparam *fec)
{
	struct opt_priv *priv = netdev_priv(dev);

	fec->fec = ETHTOOL_FEC_AUTO | ETHTOOL_FEC_RS | ETHTOOL_FEC_BASER;
	fec->active_fec = priv->kind == OPT_SFP ? ETHTOOL_FEC_BASER : ETHTOOL_FEC_RS;
	return 0;
}

static u64 opt_value(const struct opt_counter *c, ktime_t since)
{
	s64 ms = ktime_ms_delta(ktime_get(), since);

	return c->base + div_u64(c->rate * (u64)(ms < 0 ? 0 : ms), 1000);
}

/* @v split evenly over @lanes, the remainder on lane 0: the lanes sum to the total. */
static void opt_fec_stat(struct ethtool_fec_stat *s, u64 v, u32 lanes)
{
	u32 i;

	for (i = 0; i < lanes; i++)
		s->lanes[i] = div_u64(v, lanes);
	s->lanes[0] += v - div_u64(v, lanes) * lanes;
}

static void opt_get_fec_stats(struct net_device *dev, struct ethtool_fec_stats *st)
{
	struct opt_priv *priv = netdev_priv(dev);
	u32 lanes = opt_kinds[priv->kind].lanes;

	mutex_lock(&priv->lock);
	opt_fec_stat(&st->corrected_blocks, opt_value(&priv->corr_blocks, priv->since), lanes);
	opt_fec_stat(&st->uncorrectable_blocks, opt_value(&priv->uncorr_blocks, priv->since),
		     lanes);
	/* corrected bits as a total only, as many drivers give it */
	st->corrected_bits.total = opt_value(&priv->corr_bits, priv->since);
	mutex_unlock(&priv->lock);
}

static const struct ethtool_ops opt_ethtool_ops = {
	.cap_link_lanes_supported = true,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = opt_get_link_ksettings,
	.get_module_eeprom_by_page = opt_get_module_eeprom_by_page,
	.get_fecparam = opt_get_fecparam,
	.get_fec_stats = opt_get_fec_stats,
};

/* --- debugfs ----------------------------------------------------------------- */

static ssize_t opt_eeprom_read(struct file *f, char __user *buf, size_t len, loff_t *ppos)
{
	struct opt_priv *priv = f->private_data;
	ssize_t n;

	mutex_lock(&priv->lock);
	n = simple_read_from_buffer(buf, len, ppos, priv->eeprom, OPT_SIZE);
	mutex_unlock(&priv->lock);
	return n;
}

static ssize_t opt_eeprom_write(struct file *f, const char __user *buf, size_t len,
				loff_t *ppos)
{
	struct opt_priv *priv = f->private_data;
	ssize_t n;

	mutex_lock(&priv->lock);
	n = simple_write_to_buffer(priv->eeprom, OPT_SIZE, ppos, buf, len);
	mutex_unlock(&priv->lock);
	return n;
}

static const struct file_operations opt_eeprom_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = opt_eeprom_read,
	.write = opt_eeprom_write,
	.llseek = default_llseek,
};

static ssize_t opt_carrier_write(struct file *f, const char __user *buf, size_t len,
				 loff_t *ppos)
{
	struct net_device *dev = f->private_data;
	bool on;
	int err = kstrtobool_from_user(buf, len, &on);

	if (err)
		return err;
	if (on)
		netif_carrier_on(dev);
	else
		netif_carrier_off(dev);
	return len;
}

static const struct file_operations opt_carrier_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = opt_carrier_write,
	.llseek = no_llseek,
};

/* Writing a counter (or its rate) restarts its clock at the value it has now. */
static int opt_counter_set(void *data, u64 val)
{
	u64 *field = data;
	struct opt_priv *priv = NULL;
	struct opt_counter *c;
	int i;

	for (i = 0; i < OPT_KINDS && !priv; i++) {
		struct opt_priv *p;

		if (!opt_devs[i])
			continue;
		p = netdev_priv(opt_devs[i]);
		if ((void *)field >= (void *)p && (void *)field < (void *)(p + 1))
			priv = p;
	}
	if (!priv)
		return -EINVAL;
	mutex_lock(&priv->lock);
	for (c = &priv->corr_blocks; c <= &priv->corr_bits; c++)
		c->base = opt_value(c, priv->since);
	priv->since = ktime_get();
	*field = val;
	mutex_unlock(&priv->lock);
	return 0;
}

static int opt_counter_get(void *data, u64 *val)
{
	*val = *(u64 *)data;
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(opt_counter_fops, opt_counter_get, opt_counter_set, "%llu\n");

static void opt_debugfs(struct net_device *dev)
{
	struct opt_priv *priv = netdev_priv(dev);
	static const char *const names[3] = {
		"corrected_blocks", "uncorrectable_blocks", "corrected_bits",
	};
	struct opt_counter *c[3] = { &priv->corr_blocks, &priv->uncorr_blocks, &priv->corr_bits };
	char rate[32];
	int i;

	priv->dir = debugfs_create_dir(dev->name, opt_root);
	debugfs_create_file("eeprom", 0600, priv->dir, priv, &opt_eeprom_fops);
	debugfs_create_file("carrier", 0200, priv->dir, dev, &opt_carrier_fops);
	for (i = 0; i < 3; i++) {
		snprintf(rate, sizeof(rate), "%s_rate", names[i]);
		debugfs_create_file_unsafe(names[i], 0600, priv->dir, &c[i]->base,
					   &opt_counter_fops);
		debugfs_create_file_unsafe(rate, 0600, priv->dir, &c[i]->rate, &opt_counter_fops);
	}
}

/* --- setup --------------------------------------------------------------------- */

static void opt_destructor(struct net_device *dev)
{
	struct opt_priv *priv = netdev_priv(dev);

	vfree(priv->eeprom);
}

static void opt_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &opt_netdev_ops;
	dev->ethtool_ops = &opt_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->priv_destructor = opt_destructor;
	dev->priv_flags |= IFF_NO_QUEUE;
	eth_hw_addr_random(dev);
}

static void opt_destroy_all(void)
{
	int i;

	debugfs_remove_recursive(opt_root);
	for (i = 0; i < OPT_KINDS; i++)
		if (opt_devs[i])
			unregister_netdev(opt_devs[i]);
}

static int __init opt_init(void)
{
	int i, err;

	opt_root = debugfs_create_dir("optest", NULL);
	for (i = 0; i < OPT_KINDS; i++) {
		struct net_device *dev;
		struct opt_priv *priv;

		dev = alloc_netdev(sizeof(*priv), opt_kinds[i].name, NET_NAME_USER, opt_setup);
		if (!dev) {
			err = -ENOMEM;
			goto fail;
		}
		priv = netdev_priv(dev);
		priv->kind = i;
		priv->since = ktime_get();
		mutex_init(&priv->lock);
		priv->eeprom = vzalloc(OPT_SIZE);
		if (!priv->eeprom) {
			free_netdev(dev);
			err = -ENOMEM;
			goto fail;
		}
		err = register_netdev(dev);
		if (err) {
			vfree(priv->eeprom);
			free_netdev(dev);
			goto fail;
		}
		netif_carrier_off(dev);
		opt_devs[i] = dev;
		opt_debugfs(dev);
	}
	pr_info("optest: optsfp, optqsfp, optcmis created\n");
	return 0;
fail:
	opt_destroy_all();
	return err;
}

static void __exit opt_exit(void)
{
	opt_destroy_all();
}

module_init(opt_init);
module_exit(opt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("virtual netdevs with pluggable module pages and FEC statistics, for testing");
