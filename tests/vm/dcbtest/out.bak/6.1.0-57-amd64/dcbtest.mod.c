#include <linux/module.h>
#define INCLUDE_VERMAGIC
#include <linux/build-salt.h>
#include <linux/elfnote-lto.h>
#include <linux/export-internal.h>
#include <linux/vermagic.h>
#include <linux/compiler.h>

BUILD_SALT;
BUILD_LTO_INFO;

MODULE_INFO(vermagic, VERMAGIC_STRING);
MODULE_INFO(name, KBUILD_MODNAME);

__visible struct module __this_module
__section(".gnu.linkonce.this_module") = {
	.name = KBUILD_MODNAME,
	.init = init_module,
#ifdef CONFIG_MODULE_UNLOAD
	.exit = cleanup_module,
#endif
	.arch = MODULE_ARCH_INIT,
};

#ifdef CONFIG_RETPOLINE
MODULE_INFO(retpoline, "Y");
#endif


static const struct modversion_info ____versions[]
__used __section("__versions") = {
	{ 0xbdfb6dbb, "__fentry__" },
	{ 0x5b8239ca, "__x86_return_thunk" },
	{ 0x60ec6dea, "netif_carrier_off" },
	{ 0x12a84869, "dcb_ieee_delapp" },
	{ 0x92f015df, "netdev_err" },
	{ 0x8d522714, "__rcu_read_lock" },
	{ 0x2469810f, "__rcu_read_unlock" },
	{ 0xed89811, "kfree_skb_reason" },
	{ 0x9e7ac6a1, "dev_forward_skb" },
	{ 0xffdd91d4, "netif_carrier_on" },
	{ 0xc7a4fbed, "rtnl_lock" },
	{ 0x76c1878f, "unregister_netdevice_queue" },
	{ 0x6e720ff2, "rtnl_unlock" },
	{ 0x656e4a6e, "snprintf" },
	{ 0x82061d95, "alloc_netdev_mqs" },
	{ 0xc4c36f, "register_netdev" },
	{ 0x4ac64954, "free_netdev" },
	{ 0x92997ed8, "_printk" },
	{ 0xa19b956, "__stack_chk_fail" },
	{ 0xeea5b5f1, "dcb_ieee_setapp" },
	{ 0x1f460ab7, "ether_setup" },
	{ 0x41ed3709, "get_random_bytes" },
	{ 0xb948063c, "dev_addr_mod" },
	{ 0x15e3853, "eth_mac_addr" },
	{ 0x5fbd6442, "eth_validate_addr" },
	{ 0x69e0fbdc, "param_ops_int" },
	{ 0x9060323f, "module_layout" },
};

MODULE_INFO(depends, "");

