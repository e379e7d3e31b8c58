// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/sys/rdma_port.c against a layout fixture (sys->root): an rxe-like
 * RoCE device and an InfiniBand HCA as the kernel shows them in sysfs.
 * With a root override nothing goes on the wire (no MADs, no verbs).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "sys/sys_real.h"

static char root[200];	/* fits struct sys.root with a suffix */

static void put(const char *rel, const char *content)
{
	char path[PATH_MAX * 2], *s;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s", root, rel);
	for (s = path + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

static int fixture(void **state)
{
	snprintf(root, sizeof(root), "%s/test_rdma_port.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(root));
	/* RoCE (rxe on veth0) */
	put("rxe0/node_type", "1: CA\n");
	put("rxe0/node_guid", "5054:00ff:fe12:3456\n");
	put("rxe0/fw_ver", "0.0.0\n");
	put("rxe0/ports/1/link_layer", "Ethernet\n");
	put("rxe0/ports/1/state", "4: ACTIVE\n");
	put("rxe0/ports/1/phys_state", "5: LinkUp\n");
	put("rxe0/ports/1/lid", "0x0\n");
	put("rxe0/ports/1/sm_lid", "0x0\n");
	put("rxe0/ports/1/rate", "10 Gb/sec (1X QDR)\n");
	put("rxe0/ports/1/gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:3456\n");
	put("rxe0/ports/1/gids/1", "fe80:0000:0000:0000:5054:00ff:fe12:3456\n");
	put("rxe0/ports/1/gids/2", "0000:0000:0000:0000:0000:ffff:c0a8:0101\n");
	put("rxe0/ports/1/gids/3", "0000:0000:0000:0000:0000:0000:0000:0000\n");
	put("rxe0/ports/1/gids/10", "0000:0000:0000:0000:0000:ffff:c0a8:0102\n");
	put("rxe0/ports/1/gid_attrs/types/0", "IB/RoCE v1\n");
	put("rxe0/ports/1/gid_attrs/types/1", "RoCE v2\n");
	put("rxe0/ports/1/gid_attrs/types/2", "RoCE v2\n");
	put("rxe0/ports/1/gid_attrs/ndevs/0", "veth0\n");
	put("rxe0/ports/1/gid_attrs/ndevs/1", "veth0\n");
	put("rxe0/ports/1/gid_attrs/ndevs/2", "veth0\n");
	/* gids/10: no attributes readable (the kernel answers EINVAL) */
	put("rxe0/ports/1/hw_counters/sent_pkts", "42\n");
	put("rxe0/ports/1/hw_counters/rcvd_pkts", "41\n");
	put("rxe0/ports/1/hw_counters/lifespan", "10\n");
	put("rxe0/ports/1/hw_counters/bogus", "n/a\n");
	/* InfiniBand HCA, port 2 unplugged */
	put("mlx5_0/node_type", "1: CA\n");
	put("mlx5_0/node_guid", "0002:c903:00a1:b2c0\n");
	put("mlx5_0/fw_ver", "20.31.1014\n");
	put("mlx5_0/ports/1/link_layer", "InfiniBand\n");
	put("mlx5_0/ports/1/state", "4: ACTIVE\n");
	put("mlx5_0/ports/1/phys_state", "5: LinkUp\n");
	put("mlx5_0/ports/1/lid", "0x1f\n");
	put("mlx5_0/ports/1/sm_lid", "0x1\n");
	put("mlx5_0/ports/1/rate", "100 Gb/sec (4X EDR)\n");
	put("mlx5_0/ports/1/gids/0", "fe80:0000:0000:0000:0002:c903:00a1:b2c1\n");
	put("mlx5_0/ports/1/counters/symbol_error", "5\n");
	put("mlx5_0/ports/1/counters/port_xmit_data", "123456789012\n");
	put("mlx5_0/ports/2/link_layer", "InfiniBand\n");
	put("mlx5_0/ports/2/state", "1: DOWN\n");
	put("mlx5_0/ports/2/phys_state", "3: Disabled\n");
	put("mlx5_0/ports/2/lid", "0x0\n");
	put("mlx5_0/ports/2/sm_lid", "0x0\n");
	put("mlx5_0/ports/2/rate", "100 Gb/sec (4X EDR)\n");
	put("mlx5_0/ports/2/gids/0", "fe80:0000:0000:0000:0002:c903:00a1:b2c2\n");
	*state = NULL;
	return 0;
}

static int teardown(void **state)
{
	char cmd[sizeof(root) + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

/* Without SYS_READ_COUNTERS (apply, verify) no counter is read; the rest is the same. */
static void test_fixture_no_counters(void **state)
{
	struct sys s = { 0 };
	struct host_state hs;
	struct fab_err err;

	fab_err_init(&err);
	snprintf(s.root, sizeof(s.root), "%s", root);
	host_state_init(&hs);
	assert_int_equal(rdma_port_read_all(&s, &hs, 0, &err), 0);
	assert_int_equal(hs.n_rdma, 2);
	for (size_t i = 0; i < hs.n_rdma; i++)
		for (size_t j = 0; j < hs.rdma[i].n_ports; j++) {
			assert_false(hs.rdma[i].ports[j].counters_supported);
			assert_int_equal(hs.rdma[i].ports[j].n_counters, 0);
		}
	assert_int_equal(hs.rdma[0].ports[0].width_x, 4);
	assert_string_equal(hs.rdma[0].ports[0].speed, "EDR");
	host_state_fini(&hs);
}

static void test_fixture(void **state)
{
	struct sys s = { 0 };
	struct host_state hs;
	struct fab_err err;
	struct fab_rdma_dev *d;
	struct fab_rdma_port *p;

	fab_err_init(&err);
	snprintf(s.root, sizeof(s.root), "%s", root);
	host_state_init(&hs);
	assert_int_equal(rdma_port_read_all(&s, &hs, SYS_READ_COUNTERS, &err), 0);
	assert_int_equal(hs.n_rdma, 2);

	d = &hs.rdma[0];	/* scandir order: mlx5_0, rxe0 */
	assert_string_equal(d->name, "mlx5_0");
	assert_string_equal(d->node_type, "CA");
	assert_true(d->node_guid == 0x0002c90300a1b2c0ULL);
	assert_string_equal(d->fw_ver, "20.31.1014");
	assert_int_equal(d->n_ports, 2);
	p = &d->ports[0];
	assert_int_equal(p->port, 1);
	assert_string_equal(p->link_layer, "InfiniBand");
	assert_string_equal(p->state, "ACTIVE");
	assert_string_equal(p->phys_state, "LINK_UP");
	assert_int_equal(p->width_x, 4);
	assert_string_equal(p->speed, "EDR");
	assert_true(p->rate_gbps == 100);
	assert_int_equal(p->lid, 0x1f);
	assert_int_equal(p->sm_lid, 1);
	assert_true(p->port_guid == 0x0002c90300a1b2c1ULL);
	assert_int_equal(p->n_gids, 1);
	assert_string_equal(p->gids[0].gid, "fe80::2:c903:a1:b2c1");
	assert_string_equal(p->gids[0].type, "IB");
	/* no LID-routed PMA in a fixture: the kernel's sysfs counters */
	assert_true(p->counters_supported);
	assert_int_equal(p->n_counters, 2);
	assert_string_equal(p->counters[0].name, "port_xmit_data");
	assert_true(p->counters[0].value == 123456789012ULL);
	assert_string_equal(p->counters[1].name, "symbol_error");
	assert_true(p->counters[1].value == 5);
	p = &d->ports[1];
	assert_string_equal(p->state, "DOWN");
	assert_string_equal(p->phys_state, "DISABLED");
	assert_int_equal(p->width_x, 0);	/* no link: no width */
	assert_string_equal(p->speed, "");
	assert_true(p->rate_gbps == 0);
	assert_false(p->counters_supported);
	assert_int_equal(p->n_counters, 0);

	d = &hs.rdma[1];
	assert_string_equal(d->name, "rxe0");
	assert_true(d->node_guid == 0x505400fffe123456ULL);
	assert_int_equal(d->n_ports, 1);
	p = &d->ports[0];
	assert_string_equal(p->link_layer, "Ethernet");
	assert_string_equal(p->state, "ACTIVE");
	assert_int_equal(p->width_x, 1);
	assert_string_equal(p->speed, "QDR");
	assert_true(p->rate_gbps == 10);
	assert_int_equal(p->active_mtu, 0);	/* verbs are not asked in a fixture */
	assert_string_equal(p->netdev, "veth0");
	assert_int_equal(p->n_gids, 4);		/* the all-zero gids/3 is skipped */
	assert_int_equal(p->gids[0].index, 0);
	assert_string_equal(p->gids[0].type, "RoCE v1");
	assert_string_equal(p->gids[1].type, "RoCE v2");
	assert_int_equal(p->gids[2].index, 2);
	assert_string_equal(p->gids[2].gid, "::ffff:192.168.1.1");
	assert_string_equal(p->gids[2].netdev, "veth0");
	assert_int_equal(p->gids[3].index, 10);
	assert_string_equal(p->gids[3].type, "");
	assert_string_equal(p->gids[3].netdev, "");
	assert_true(p->counters_supported);
	assert_int_equal(p->n_counters, 2);	/* lifespan is a setting, bogus unreadable */
	assert_string_equal(p->counters[0].name, "rcvd_pkts");
	assert_true(p->counters[0].value == 41);
	assert_string_equal(p->counters[1].name, "sent_pkts");
	host_state_fini(&hs);
}

static void test_no_devices(void **state)
{
	struct sys s = { 0 };
	struct host_state hs;
	struct fab_err err;

	fab_err_init(&err);
	snprintf(s.root, sizeof(s.root), "%s/nonexistent", root);
	host_state_init(&hs);
	assert_int_equal(rdma_port_read_all(&s, &hs, SYS_READ_COUNTERS, &err), 0);
	assert_int_equal(hs.n_rdma, 0);
	assert_int_equal(err.code, 0);
	host_state_fini(&hs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_fixture_no_counters),
		cmocka_unit_test(test_no_devices),
	};

	return cmocka_run_group_tests(tests, fixture, teardown);
}
