// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The PCIe reader (src/sys/pcie.c, pcie_host.c) through the sys_ops seam on
 * the DGX-like layout fixture (tests/fixtures/pcie-dgx/build: 2 sockets,
 * 2 PCIe switches each with 2 ConnectX-7 and 2 H100 below, an E810 and the
 * BMC's VGA on the first root complex), then the profile's `nics:` items
 * judged on what was read (model/profile_nic.c, model/changeset_nic.c), healthy
 * and with seeded faults; and the status JSON's "pcie" member.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/pcie_topo.h"
#include "model/changeset.h"
#include "model/changeset_nic.h"
#include "model/profile.h"
#include "render/render.h"
#include "sys/sys.h"

#define BUILD "tests/fixtures/pcie-dgx/build"

static char fx[256];

/* Build the fixture with @faults into a fresh directory and read it. */
static struct pcie_view *read_fixture(const char *faults)
{
	char cmd[1024];
	struct fab_err err;
	struct sys *sys;
	struct pcie_view *v = pcie_view_new();

	snprintf(fx, sizeof(fx), "%s/fab-pcie-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(fx));
	snprintf(cmd, sizeof(cmd), "%s %s %s >/dev/null", BUILD, fx, faults);
	assert_int_equal(system(cmd), 0);
	fab_err_init(&err);
	assert_int_equal(sys_real_new(&sys, fx, &err), 0);
	assert_int_equal(sys_pcie_read(sys, v, &err), 0);
	sys_free(sys);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", fx);
	assert_int_equal(system(cmd), 0);
	return v;
}

static const struct pcie_dev *nic_named(const struct pcie_view *v, const char *name)
{
	for (size_t i = 0; i < v->n_nics; i++)
		if (!strcmp(pcie_dev_name(&v->nics[i]), name))
			return &v->nics[i];
	fail_msg("no nic %s", name);
	return NULL;
}

static void test_read_dgx(void **state)
{
	struct pcie_view *v = read_fixture("");
	const struct pcie_dev *n, *e;
	enum pcie_distance d;
	size_t idx[8];

	(void)state;
	assert_int_equal(v->n_nics, 9);		/* 8 ConnectX-7 and the E810; lo is virtual */
	assert_int_equal(v->n_gpus, 8);		/* the ASPEED VGA is no GPU */
	assert_int_equal(v->numa_nodes, 2);
	assert_true(v->config_read);
	n = nic_named(v, "enp19s0np0");
	assert_string_equal(n->bdf, "0000:13:00.0");
	assert_string_equal(n->host_bridge, "pci0000:10");
	assert_string_equal(n->driver, "mlx5_core");
	assert_int_equal(n->vendor, 0x15b3);
	assert_int_equal(n->n_rdma, 1);
	assert_string_equal(n->rdma[0], "mlx5_0");
	assert_int_equal(n->link.speed_mts, 32000);
	assert_int_equal(n->link.width, 16);
	assert_int_equal(n->numa_node, 0);
	assert_int_equal(n->socket, 0);
	assert_string_equal(n->iommu, "identity");
	assert_int_equal(n->n_bridges, 3);
	assert_string_equal(n->bridges[0].bdf, "0000:10:01.0");
	assert_int_equal(n->bridges[0].type, PCIE_TYPE_ROOT_PORT);
	assert_int_equal(n->bridges[1].type, PCIE_TYPE_UPSTREAM);
	assert_int_equal(n->bridges[2].type, PCIE_TYPE_DOWNSTREAM);
	assert_int_equal(n->bridges[2].acs.state, PCIE_ACS_PRESENT);
	assert_int_equal(n->bridges[2].acs.cap, 0x5f);
	assert_int_equal(n->bridges[1].acs.state, PCIE_ACS_ABSENT);
	assert_false(pcie_link_degraded(n));
	/* Its GPUs: the two H100 under its switch. */
	assert_int_equal(pcie_nic_gpus(v, n, idx, 8, &d), 2);
	assert_int_equal(d, PCIE_DIST_SWITCH);
	assert_string_equal(v->gpus[idx[0]].bdf, "0000:14:00.0");
	assert_string_equal(v->gpus[idx[1]].bdf, "0000:16:00.0");
	/* Socket 1's NIC against socket 0's GPU. */
	assert_int_equal(pcie_distance(v, nic_named(v, "enp147s0np0"), &v->gpus[0]),
			 PCIE_DIST_SYSTEM);
	assert_int_equal(pcie_distance(v, n, &v->gpus[2]), PCIE_DIST_NODE);
	/* The E810: firmware LLDP on, its GPUs the four of its node. */
	e = nic_named(v, "ens1f0");
	assert_int_equal(e->fw_lldp, PCIE_FW_LLDP_ON);
	assert_int_equal(pcie_nic_gpus(v, e, idx, 8, &d), 4);
	assert_int_equal(d, PCIE_DIST_NODE);
	assert_string_equal(v->gd.peer_mem, "nvidia_peermem");
	assert_false(v->gd.dma_buf);		/* proprietary nvidia module */
	assert_true(pcie_gpudirect_ready(v));
	pcie_view_free(v);
}

static const char profile_text[] =
	"nics:\n"
	"  - match: [enp*, ens*]\n"
	"    pcie_width: max\n"
	"    pcie_speed: max\n"
	"    acs: off\n"
	"    numa: local\n"
	"    gpudirect: ready\n"
	"    fw_lldp: off\n"
	"  - match: mlx5_4\n"
	"    pcie_width: 16\n"
	"    pcie_speed: gen5\n"
	"  - match: ib*\n"
	"    optional: true\n"
	"    pcie_width: 16\n";

static struct changeset *judge(struct pcie_view *v, const char *text, struct changeset *cs)
{
	struct profile *p;
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(profile_parse("t.yaml", (const unsigned char *)text, strlen(text), &p,
				       &err), 0);
	changeset_init(cs);
	assert_int_equal(changeset_nic_check(p, v, cs), 0);
	profile_free(p);
	return cs;
}

static const struct drift *drift(const struct changeset *cs, const char *obj, const char *field)
{
	for (size_t i = 0; i < cs->n_drift; i++)
		if (!strcmp(cs->drift[i].object, obj) && !strcmp(cs->drift[i].field, field))
			return &cs->drift[i];
	return NULL;
}

static void test_profile_healthy(void **state)
{
	struct pcie_view *v = read_fixture("fw-lldp=off");
	struct changeset cs;

	(void)state;
	judge(v, profile_text, &cs);
	for (size_t i = 0; i < cs.n_drift; i++)
		print_message("drift %s %s %s %s\n", cs.drift[i].object, cs.drift[i].field,
			      cs.drift[i].wanted, cs.drift[i].found);
	assert_int_equal(cs.n_drift, 0);
	assert_int_equal(cs.n_unmatched, 0);
	changeset_fini(&cs);
	pcie_view_free(v);
}

static void test_profile_faults(void **state)
{
	struct pcie_view *v = read_fixture("width:0000:13:00.0=8 speed:0000:95:00.0=16.0 "
					   "acs:0000:32:02.0=001d numa:0000:b6:00.0=0 no-peermem");
	const struct drift *d;
	struct changeset cs;

	(void)state;
	judge(v, profile_text, &cs);
	d = drift(&cs, "enp19s0np0", "pcie.width");
	assert_non_null(d);
	assert_string_equal(d->wanted, "x16 (max)");
	assert_string_equal(d->found, "x8");
	assert_true(d->verify_only);
	d = drift(&cs, "enp149s0np0", "pcie.speed");
	assert_non_null(d);
	assert_string_equal(d->wanted, "32GT/s (max)");
	assert_string_equal(d->found, "16GT/s");
	/* mlx5_4 (enp147s0np0) is not the degraded one. */
	assert_null(drift(&cs, "enp147s0np0", "pcie.speed"));
	/* ACS on the downstream port of enp53s0np0: its path to both its GPUs. */
	d = drift(&cs, "enp53s0np0", "pcie.acs");
	assert_non_null(d);
	assert_string_equal(d->found, "on at 0000:32:02.0 (ctl 0x001d)");
	assert_null(drift(&cs, "enp51s0np0", "pcie.acs"));	/* its own port is clean */
	/* A GPU on the far node: both NICs of that switch. */
	d = drift(&cs, "enp179s0np0", "pcie.numa");
	assert_non_null(d);
	assert_string_equal(d->wanted, "local (node 1)");
	assert_string_equal(d->found, "gpu 0000:b6:00.0 on node 0");
	assert_non_null(drift(&cs, "enp181s0np0", "pcie.numa"));
	d = drift(&cs, "enp19s0np0", "gpudirect");
	assert_non_null(d);
	assert_string_equal(d->found, "no peer-memory module, no dma-buf");
	d = drift(&cs, "ens1f0", "fw_lldp");
	assert_non_null(d);
	assert_string_equal(d->found, "on (fw-lldp-agent)");
	/* 9 NICs without gpudirect, and the five above. */
	assert_int_equal(cs.n_drift, 9 + 6);
	assert_int_equal(changeset_n_verify_only(&cs), cs.n_drift);
	changeset_fini(&cs);
	pcie_view_free(v);
}

static void test_profile_unmatched_and_unread(void **state)
{
	struct pcie_view *v = read_fixture("");
	const struct drift *d;
	struct changeset cs;

	(void)state;
	judge(v, "nics:\n  - match: eth*\n    numa: local\n", &cs);
	assert_int_equal(cs.n_unmatched, 1);
	assert_int_equal(cs.n_drift, 1);
	assert_string_equal(cs.drift[0].object, "eth*");
	assert_string_equal(cs.drift[0].field, "match");
	changeset_fini(&cs);
	/* Not root: ACS unknown is drift, never "off". */
	for (size_t i = 0; i < v->n_nics; i++)
		for (size_t j = 0; j < v->nics[i].n_bridges; j++)
			v->nics[i].bridges[j].acs.state = PCIE_ACS_UNREAD;
	judge(v, "nics:\n  - match: enp19s0np0\n    acs: off\n", &cs);
	d = drift(&cs, "enp19s0np0", "pcie.acs");
	assert_non_null(d);
	assert_string_equal(d->found, "unknown (config space needs root)");
	changeset_fini(&cs);
	/* No view read (a sys without the slot): no NIC. */
	judge(NULL, "nics:\n  - driver: mlx5_core\n    pcie_width: 8\n", &cs);
	assert_int_equal(cs.n_unmatched, 1);
	assert_string_equal(cs.drift[0].object, "* driver mlx5_core");
	changeset_fini(&cs);
	pcie_view_free(v);
}

static void test_status_json(void **state)
{
	struct host_state hs;
	json_t *doc, *pcie, *nic, *near;

	(void)state;
	host_state_init(&hs);
	snprintf(hs.hostname, sizeof(hs.hostname), "dgx01");
	hs.pcie = read_fixture("acs:0000:12:00.0=0004");
	doc = status_to_json(&hs);
	pcie = json_object_get(doc, "pcie");
	assert_int_equal(json_array_size(json_object_get(pcie, "nics")), 9);
	assert_int_equal(json_array_size(json_object_get(pcie, "gpus")), 8);
	assert_true(json_is_true(json_object_get(json_object_get(pcie, "gpudirect"), "ready")));
	nic = json_array_get(json_object_get(pcie, "nics"), 1);	/* sorted by BDF */
	assert_string_equal(json_string_value(json_object_get(nic, "bdf")), "0000:13:00.0");
	assert_true(json_real_value(json_object_get(json_object_get(nic, "link"), "speed_gts")) == 32.0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(nic, "link"), "width")), 16);
	assert_int_equal(json_array_size(json_object_get(nic, "bridges")), 3);
	near = json_object_get(nic, "near_gpus");
	assert_string_equal(json_string_value(json_object_get(near, "distance")), "switch");
	assert_int_equal(json_array_size(json_object_get(near, "bdfs")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_object_get(
		near, "acs"), "p2p_redirect"), 0)), "0000:12:00.0");
	assert_int_equal(json_array_size(json_object_get(nic, "gpus")), 8);
	json_decref(doc);
	/* Not read: null, the key still there. */
	pcie_view_free(hs.pcie);
	hs.pcie = NULL;
	doc = status_to_json(&hs);
	assert_true(json_is_null(json_object_get(doc, "pcie")));
	json_decref(doc);
	host_state_fini(&hs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_dgx),
		cmocka_unit_test(test_profile_healthy),
		cmocka_unit_test(test_profile_faults),
		cmocka_unit_test(test_profile_unmatched_and_unread),
		cmocka_unit_test(test_status_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
