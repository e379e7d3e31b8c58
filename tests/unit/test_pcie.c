// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The PCIe view (model/pcie.c, model/pcie_topo.c): the parsers of what
 * sysfs gives (link speeds, config space, private flags) and the rules
 * (distance between a NIC and each GPU, a NIC's GPUs, ACS on the paths,
 * "at its maximum"), on views built by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/pcie.h"
#include "model/pcie_topo.h"

static void test_speed_parse(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(pcie_speed_parse("2.5 GT/s PCIe"), 2500);
	assert_int_equal(pcie_speed_parse("8.0 GT/s PCIe"), 8000);
	assert_int_equal(pcie_speed_parse("16 GT/s"), 16000);	/* kernels before 4.17 */
	assert_int_equal(pcie_speed_parse("32.0 GT/s PCIe"), 32000);
	assert_int_equal(pcie_speed_parse("64.0 GT/s PCIe"), 64000);
	assert_int_equal(pcie_speed_parse("Unknown"), 0);
	assert_int_equal(pcie_speed_parse(""), 0);
	assert_int_equal(pcie_speed_parse("8.0 Mb/s"), 0);
	assert_int_equal(pcie_speed_parse("99999999999 GT/s"), 0);
	assert_string_equal(pcie_speed_str(2500, buf, sizeof(buf)), "2.5GT/s");
	assert_string_equal(pcie_speed_str(32000, buf, sizeof(buf)), "32GT/s");
	assert_string_equal(pcie_speed_str(0, buf, sizeof(buf)), "-");
}

static void test_bdf_and_class(void **state)
{
	(void)state;
	assert_true(pcie_is_bdf("0000:41:00.0"));
	assert_true(pcie_is_bdf("10000:41:00.0") == false);
	assert_false(pcie_is_bdf("0000:41:00.8"));
	assert_false(pcie_is_bdf("0000:4G:00.0"));
	assert_false(pcie_is_bdf("0000:4A:00.0"));	/* sysfs writes lower case */
	assert_false(pcie_is_bdf("pci0000:00"));
	assert_true(pcie_class_is_gpu(0x030200, 0x10de));	/* 3D controller */
	assert_true(pcie_class_is_gpu(0x038000, 0x1002));	/* AMD Instinct: display other */
	assert_true(pcie_class_is_gpu(0x030000, 0x1234));	/* qemu's VGA */
	assert_true(pcie_class_is_gpu(0x120000, 0x1002));	/* processing accelerator */
	assert_false(pcie_class_is_gpu(0x030000, 0x1a03));	/* ASPEED BMC VGA */
	assert_false(pcie_class_is_gpu(0x030000, 0x102b));	/* Matrox G200e */
	assert_false(pcie_class_is_gpu(0x020000, 0x15b3));
}

/* A 4 KiB config space: PCIe capability of @type at 0x40, AER at 0x100, ACS at 0x148. */
static void cfg_build(uint8_t *cfg, unsigned int type, bool acs, uint16_t ctl)
{
	memset(cfg, 0, 4096);
	cfg[0x06] = 0x10;
	cfg[0x34] = 0x50;
	cfg[0x50] = 0x05;	/* MSI first, then PCIe */
	cfg[0x51] = 0x40;
	cfg[0x40] = 0x10;
	cfg[0x42] = (uint8_t)(type << 4 | 2);
	cfg[0x100] = 0x01;
	cfg[0x102] = acs ? 0x82 : 0x02;
	cfg[0x103] = acs ? 0x14 : 0x00;
	if (acs) {
		cfg[0x148] = 0x0d;
		cfg[0x14a] = 0x01;
		cfg[0x14c] = 0x5f;
		cfg[0x14e] = (uint8_t)ctl;
		cfg[0x14f] = (uint8_t)(ctl >> 8);
	}
}

static void test_config_parse(void **state)
{
	static uint8_t cfg[4096];
	enum pcie_port_type t;
	struct pcie_acs a;

	(void)state;
	cfg_build(cfg, 6, true, 0x001d);
	pcie_config_parse(cfg, sizeof(cfg), &t, &a);
	assert_int_equal(t, PCIE_TYPE_DOWNSTREAM);
	assert_int_equal(a.state, PCIE_ACS_PRESENT);
	assert_int_equal(a.cap, 0x5f);
	assert_int_equal(a.ctl, 0x1d);
	/* Without root sysfs gives 64 bytes: nothing past the header is known. */
	pcie_config_parse(cfg, 64, &t, &a);
	assert_int_equal(t, PCIE_TYPE_UNKNOWN);
	assert_int_equal(a.state, PCIE_ACS_UNREAD);
	/* A PCIe port whose extended space is not reachable: ACS unknown, not absent. */
	pcie_config_parse(cfg, 256, &t, &a);
	assert_int_equal(t, PCIE_TYPE_DOWNSTREAM);
	assert_int_equal(a.state, PCIE_ACS_UNREAD);
	cfg_build(cfg, 4, false, 0);
	pcie_config_parse(cfg, sizeof(cfg), &t, &a);
	assert_int_equal(t, PCIE_TYPE_ROOT_PORT);
	assert_int_equal(a.state, PCIE_ACS_ABSENT);
	/* A conventional PCI function (no PCIe capability, 256 bytes): no ACS. */
	memset(cfg, 0, sizeof(cfg));
	cfg[0x06] = 0x10;
	cfg[0x34] = 0x40;
	cfg[0x40] = 0x01;	/* power management, end of list */
	pcie_config_parse(cfg, 256, &t, &a);
	assert_int_equal(t, PCIE_TYPE_UNKNOWN);
	assert_int_equal(a.state, PCIE_ACS_ABSENT);
	/* Lists that loop end: a capability pointing at itself, an extended one too. */
	cfg_build(cfg, 0, false, 0);
	cfg[0x34] = 0x60;
	cfg[0x60] = 0x05;
	cfg[0x61] = 0x60;
	cfg[0x100] = 0x01;
	cfg[0x102] = 0x01;
	cfg[0x103] = 0x10;	/* next = 0x100 */
	pcie_config_parse(cfg, sizeof(cfg), &t, &a);
	assert_int_equal(t, PCIE_TYPE_UNKNOWN);
	assert_int_equal(a.state, PCIE_ACS_ABSENT);
	/* A function that does not answer reads all ones. */
	memset(cfg, 0xff, sizeof(cfg));
	pcie_config_parse(cfg, sizeof(cfg), &t, &a);
	assert_int_equal(a.state, PCIE_ACS_UNREAD);
}

static void test_fw_lldp(void **state)
{
	static const char ice[] = "Private flags for ens1f0:\n"
				  "link-down-on-close     : off\n"
				  "fw-lldp-agent          : on\n";
	static const char i40e[] = "Private flags for ens2f0:\n"
				   "disable-fw-lldp       : on\r\n";
	static const char mlx5[] = "Private flags for enp1s0:\nrx_cqe_moder   : on\n";
	struct pcie_dev d;

	(void)state;
	memset(&d, 0, sizeof(d));
	pcie_fw_lldp_parse(&d, ice, strlen(ice));
	assert_int_equal(d.fw_lldp, PCIE_FW_LLDP_ON);
	assert_string_equal(d.fw_lldp_flag, "fw-lldp-agent");
	memset(&d, 0, sizeof(d));
	pcie_fw_lldp_parse(&d, i40e, strlen(i40e));
	assert_int_equal(d.fw_lldp, PCIE_FW_LLDP_OFF);	/* disable-fw-lldp on: agent off */
	memset(&d, 0, sizeof(d));
	pcie_fw_lldp_parse(&d, mlx5, strlen(mlx5));
	assert_int_equal(d.fw_lldp, PCIE_FW_LLDP_UNKNOWN);
	pcie_fw_lldp_flag(&d, "fw-lldp-agent", false);
	assert_int_equal(d.fw_lldp, PCIE_FW_LLDP_OFF);
	assert_true(pcie_kernel_at_least("5.15.0-91-generic", 5, 12));
	assert_true(pcie_kernel_at_least("6.1.0-57-amd64", 5, 12));
	assert_false(pcie_kernel_at_least("5.4.0-150-generic", 5, 12));
	assert_false(pcie_kernel_at_least("garbage", 5, 12));
}

/* ---- views built by hand ---- */

static struct pcie_dev *dev(struct pcie_view *v, bool gpu, const char *bdf, const char *host,
			    int numa, int socket, const char *const *bridges)
{
	struct pcie_dev *d = gpu ? pcie_view_gpu_add(v) : pcie_view_nic_add(v);

	snprintf(d->bdf, sizeof(d->bdf), "%s", bdf);
	snprintf(d->host_bridge, sizeof(d->host_bridge), "%s", host);
	d->numa_node = numa;
	d->socket = socket;
	for (size_t i = 0; bridges && bridges[i]; i++) {
		struct pcie_bridge *b = pcie_dev_bridge_add(d);

		snprintf(b->bdf, sizeof(b->bdf), "%s", bridges[i]);
		b->acs.state = PCIE_ACS_PRESENT;
	}
	return d;
}

/*
 * Socket 0: root complex pci0000:10 with a switch (NIC and GPU 0 under it)
 * and a second root port (GPU 1); root complex pci0000:30 (GPU 2).
 * Socket 1 (node 1): GPU 3.  A NIC on socket 0's second root complex.
 */
static const char *const sw_nic[] = { "0000:10:01.0", "0000:11:00.0", "0000:12:00.0", NULL };
static const char *const sw_gpu[] = { "0000:10:01.0", "0000:11:00.0", "0000:12:01.0", NULL };
static const char *const rp2[] = { "0000:10:02.0", NULL };
static const char *const rc30[] = { "0000:30:01.0", NULL };
static const char *const rc90[] = { "0000:90:01.0", NULL };
static const char *const rc30b[] = { "0000:30:02.0", NULL };

static void host(struct pcie_view *v)
{
	memset(v, 0, sizeof(*v));
	v->numa_nodes = 2;
	dev(v, false, "0000:13:00.0", "pci0000:10", 0, 0, sw_nic);
	dev(v, false, "0000:31:00.0", "pci0000:30", 0, 0, rc30b);
	dev(v, true, "0000:14:00.0", "pci0000:10", 0, 0, sw_gpu);
	dev(v, true, "0000:20:00.0", "pci0000:10", 0, 0, rp2);
	dev(v, true, "0000:32:00.0", "pci0000:30", 0, 0, rc30);
	dev(v, true, "0000:91:00.0", "pci0000:90", 1, 1, rc90);
}

static void host_fini(struct pcie_view *v)
{
	for (size_t i = 0; i < v->n_nics; i++)
		free(v->nics[i].bridges);
	for (size_t i = 0; i < v->n_gpus; i++)
		free(v->gpus[i].bridges);
	free(v->nics);
	free(v->gpus);
}

static void test_distance(void **state)
{
	struct pcie_view v;
	const struct pcie_dev *nic;
	struct pcie_dev *g;

	(void)state;
	host(&v);
	nic = &v.nics[0];
	assert_int_equal(pcie_distance(&v, nic, &v.gpus[0]), PCIE_DIST_SWITCH);
	assert_int_equal(pcie_distance(&v, nic, &v.gpus[1]), PCIE_DIST_HOST_BRIDGE);
	assert_int_equal(pcie_distance(&v, nic, &v.gpus[2]), PCIE_DIST_NODE);
	assert_int_equal(pcie_distance(&v, nic, &v.gpus[3]), PCIE_DIST_SYSTEM);
	/* Symmetric. */
	assert_int_equal(pcie_distance(&v, &v.gpus[3], nic), PCIE_DIST_SYSTEM);
	/* Share only the root port: a PCI bridge below it, not a switch. */
	g = &v.gpus[1];
	snprintf(g->bridges[0].bdf, sizeof(g->bridges[0].bdf), "0000:10:01.0");
	assert_int_equal(pcie_distance(&v, nic, g), PCIE_DIST_ROOT_PORT);
	/* Another NUMA node of the same socket (sub-NUMA clustering). */
	v.gpus[3].socket = 0;
	assert_int_equal(pcie_distance(&v, nic, &v.gpus[3]), PCIE_DIST_SOCKET);
	/* Unknown socket: not guessed. */
	v.gpus[3].socket = -1;
	assert_int_equal(pcie_distance(&v, nic, &v.gpus[3]), PCIE_DIST_UNKNOWN);
	/* Unknown node on a two-node host; on a one-node host it is node 0. */
	v.gpus[2].numa_node = -1;
	assert_int_equal(pcie_distance(&v, nic, &v.gpus[2]), PCIE_DIST_UNKNOWN);
	v.numa_nodes = 1;
	assert_int_equal(pcie_distance(&v, nic, &v.gpus[2]), PCIE_DIST_NODE);
	assert_string_equal(pcie_distance_name(PCIE_DIST_SYSTEM), "cross_socket");
	assert_string_equal(pcie_distance_name(PCIE_DIST_SWITCH), "switch");
	host_fini(&v);
}

static void test_nearest_gpus(void **state)
{
	struct pcie_view v;
	enum pcie_distance d;
	size_t idx[8], n;

	(void)state;
	host(&v);
	n = pcie_nic_gpus(&v, &v.nics[0], idx, 8, &d);
	assert_int_equal(n, 1);
	assert_int_equal(idx[0], 0);
	assert_int_equal(d, PCIE_DIST_SWITCH);
	/* The second NIC: its root complex's GPU, a different root port. */
	n = pcie_nic_gpus(&v, &v.nics[1], idx, 8, &d);
	assert_int_equal(n, 1);
	assert_int_equal(idx[0], 2);
	assert_int_equal(d, PCIE_DIST_HOST_BRIDGE);
	/* With that GPU gone, the socket's other GPUs (two) at numa_node distance. */
	v.gpus[2].numa_node = 1;
	v.gpus[2].socket = 1;
	snprintf(v.gpus[2].host_bridge, sizeof(v.gpus[2].host_bridge), "pci0000:b0");
	n = pcie_nic_gpus(&v, &v.nics[1], idx, 8, &d);
	assert_int_equal(n, 2);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[1], 1);
	assert_int_equal(d, PCIE_DIST_NODE);
	/* No GPU at all. */
	v.n_gpus = 0;
	assert_int_equal(pcie_nic_gpus(&v, &v.nics[0], idx, 8, &d), 0);
	assert_int_equal(d, PCIE_DIST_UNKNOWN);
	v.n_gpus = 4;
	host_fini(&v);
}

static void test_acs_path(void **state)
{
	const struct pcie_bridge *on[8];
	struct pcie_view v;
	size_t idx[] = { 0 }, two[] = { 0, 1 }, n_path, unread;

	(void)state;
	host(&v);
	/* Below the switch's upstream port: the two downstream ports. */
	assert_int_equal(pcie_nic_acs(&v, &v.nics[0], idx, 1, on, 8, &n_path, &unread), 0);
	assert_int_equal(n_path, 2);
	assert_int_equal(unread, 0);
	/* ACS on above the common bridge (the root port) is off the path. */
	v.nics[0].bridges[0].acs.ctl = PCIE_ACS_RR | PCIE_ACS_CR;
	v.gpus[0].bridges[0].acs.ctl = PCIE_ACS_RR | PCIE_ACS_CR;
	assert_int_equal(pcie_nic_acs(&v, &v.nics[0], idx, 1, on, 8, &n_path, &unread), 0);
	/* Source validation alone redirects nothing. */
	v.gpus[0].bridges[2].acs.ctl = PCIE_ACS_SV;
	assert_int_equal(pcie_nic_acs(&v, &v.nics[0], idx, 1, on, 8, &n_path, &unread), 0);
	v.gpus[0].bridges[2].acs.ctl = PCIE_ACS_SV | PCIE_ACS_RR | PCIE_ACS_CR | PCIE_ACS_UF;
	assert_int_equal(pcie_nic_acs(&v, &v.nics[0], idx, 1, on, 8, &n_path, &unread), 1);
	assert_string_equal(on[0]->bdf, "0000:12:01.0");
	/* Two GPUs: the NIC's own bridges counted once. */
	v.nics[0].bridges[2].acs.ctl = PCIE_ACS_EC;
	assert_int_equal(pcie_nic_acs(&v, &v.nics[0], two, 2, on, 8, &n_path, &unread), 3);
	/* nic: 3 bridges (root port included, no common one with GPU 1), gpu 0: 1, gpu 1: 1 */
	assert_int_equal(n_path, 5);
	/* Not readable (not root): unknown, not off. */
	v.nics[0].bridges[2].acs.state = PCIE_ACS_UNREAD;
	v.gpus[0].bridges[2].acs.ctl = 0;
	assert_int_equal(pcie_nic_acs(&v, &v.nics[0], idx, 1, on, 8, &n_path, &unread), 0);
	assert_int_equal(unread, 1);
	host_fini(&v);
}

static void test_link_best(void **state)
{
	struct pcie_view v;
	struct pcie_dev *d;
	unsigned int s, w;

	(void)state;
	host(&v);
	d = &v.nics[0];
	d->link = (struct pcie_link){ 16000, 8, 32000, 16 };
	d->bridges[2].link = (struct pcie_link){ 16000, 8, 32000, 16 };
	pcie_link_best(d, &s, &w);
	assert_int_equal(s, 32000);
	assert_int_equal(w, 16);
	assert_true(pcie_link_degraded(d));
	/* A Gen5 x16 card in a Gen4 x8 slot runs at its best at 16GT/s x8. */
	d->bridges[2].link.max_speed_mts = 16000;
	d->bridges[2].link.max_width = 8;
	pcie_link_best(d, &s, &w);
	assert_int_equal(s, 16000);
	assert_int_equal(w, 8);
	assert_false(pcie_link_degraded(d));
	/* Unknown slot: the device's own maximum. */
	d->n_bridges = 0;
	pcie_link_best(d, &s, &w);
	assert_int_equal(w, 16);
	assert_true(pcie_link_degraded(d));
	d->n_bridges = 3;
	host_fini(&v);
}

static void test_names(void **state)
{
	struct pcie_view *v = pcie_view_new();
	struct pcie_dev *d;
	char *keep[] = { "mlx5_1" };

	(void)state;
	d = pcie_view_nic_add(v);
	snprintf(d->bdf, sizeof(d->bdf), "0000:13:00.0");
	pcie_dev_name_add(d, "mlx5_0", true);
	assert_string_equal(pcie_dev_name(d), "mlx5_0");
	pcie_dev_name_add(d, "enp19s0np0", false);
	pcie_dev_name_add(d, "enp19s0np0", false);
	assert_int_equal(d->n_netdevs, 1);
	assert_string_equal(pcie_dev_name(d), "enp19s0np0");
	d = pcie_view_nic_add(v);
	snprintf(d->bdf, sizeof(d->bdf), "0000:01:00.0");
	pcie_dev_name_add(d, "mlx5_1", true);
	pcie_dev_bridge_add(d);
	pcie_view_sort(v);
	assert_string_equal(v->nics[0].bdf, "0000:01:00.0");
	assert_non_null(pcie_view_nic_by_bdf(v, "0000:13:00.0"));
	pcie_view_keep_named(v, keep, 1);
	assert_int_equal(v->n_nics, 1);
	assert_string_equal(v->nics[0].rdma[0], "mlx5_1");
	pcie_view_free(v);
	pcie_view_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_parse),
		cmocka_unit_test(test_bdf_and_class),
		cmocka_unit_test(test_config_parse),
		cmocka_unit_test(test_fw_lldp),
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_nearest_gpus),
		cmocka_unit_test(test_acs_path),
		cmocka_unit_test(test_link_best),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
