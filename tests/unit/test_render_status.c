// SPDX-License-Identifier: GPL-2.0-or-later
/* status renderers: JSON against a golden file, text for the key facts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "render/render.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden"
#endif

static void fill(struct host_state *hs)
{
	struct fab_link *l;
	struct fab_rdma_dev *d;
	struct fab_rdma_port *p;
	struct fab_gid *g;

	host_state_init(hs);
	snprintf(hs->hostname, sizeof(hs->hostname), "node07");
	l = host_state_link_add(hs);
	snprintf(l->name, sizeof(l->name), "eth0");
	l->ifindex = 2;
	snprintf(l->kind, sizeof(l->kind), "veth");
	snprintf(l->operstate, sizeof(l->operstate), "up");
	l->admin_up = true;
	l->mtu = 9000;
	l->speed_mbps = 10000;
	snprintf(l->driver, sizeof(l->driver), "veth");
	snprintf(l->master, sizeof(l->master), "bond0");
	snprintf(l->address, sizeof(l->address), "02:00:00:00:00:07");

	d = host_state_rdma_add(hs);
	snprintf(d->name, sizeof(d->name), "mlx5_0");
	snprintf(d->node_type, sizeof(d->node_type), "CA");
	d->node_guid = 0xe41d2d0300a1b2c3ULL;
	p = rdma_dev_port_add(d);
	p->port = 1;
	snprintf(p->link_layer, sizeof(p->link_layer), "InfiniBand");
	snprintf(p->state, sizeof(p->state), "ACTIVE");
	snprintf(p->phys_state, sizeof(p->phys_state), "LINK_UP");
	p->width_x = 4;
	snprintf(p->speed, sizeof(p->speed), "NDR");
	p->rate_gbps = 400;
	p->active_mtu = 4096;
	p->lid = 12;
	p->sm_lid = 1;
	p->port_guid = 0xe41d2d0300a1b2c4ULL;
	g = rdma_port_gid_add(p);
	snprintf(g->gid, sizeof(g->gid), "fe80::e61d:2d03:a1:b2c4");
	snprintf(g->type, sizeof(g->type), "IB");
	rdma_port_counter_add(p, "symbol_error", 3);
	rdma_port_counter_add(p, "link_downed", 0);
}

static char *render(const struct render_ops *ops, const struct host_state *hs)
{
	struct render out = { .ops = ops, .pretty = true };
	char *buf = NULL;
	size_t len = 0;

	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(ops->status(&out, hs), 0);
	fclose(out.f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

static void test_json_golden(void **state)
{
	struct host_state hs;
	char *got, *want;

	fill(&hs);
	got = render(&render_json_ops, &hs);
	want = slurp(GOLDEN_DIR "/status.json");
	if (getenv("FAB_UPDATE_GOLDEN")) {
		FILE *f = fopen(GOLDEN_DIR "/status.json", "w");

		fputs(got, f);
		fclose(f);
	}
	assert_string_equal(got, want);
	free(got);
	free(want);
	host_state_fini(&hs);
}

static void test_json_unknowns_are_null(void **state)
{
	struct host_state hs;
	json_t *doc, *port;

	fill(&hs);
	hs.links[0].speed_mbps = -1;
	hs.rdma[0].ports[0].width_x = 0;
	hs.rdma[0].ports[0].counters_supported = false;
	doc = status_to_json(&hs);
	assert_string_equal(json_string_value(json_object_get(doc, "schema")), "fabricctl.status/1");
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "links"), 0),
						 "speed_mbps")));
	port = json_array_get(json_object_get(json_array_get(json_object_get(doc, "rdma"), 0),
					      "ports"), 0);
	assert_true(json_is_null(json_object_get(port, "width")));
	assert_true(json_is_null(json_object_get(port, "counters")));
	assert_true(json_is_false(json_object_get(port, "counters_supported")));
	assert_string_equal(json_string_value(json_object_get(port, "port_guid")),
			    "0xe41d2d0300a1b2c4");
	json_decref(doc);
	host_state_fini(&hs);
}

static void test_text(void **state)
{
	struct host_state hs, empty;
	char *got;

	fill(&hs);
	got = render(&render_text_ops, &hs);
	assert_non_null(strstr(got, "eth0"));
	assert_non_null(strstr(got, "9000"));
	assert_non_null(strstr(got, "mlx5_0/1: InfiniBand ACTIVE/LINK_UP 4X NDR (400 Gb/s) mtu 4096"));
	assert_non_null(strstr(got, "symbol_error 3"));
	assert_null(strstr(got, "no RDMA devices"));
	free(got);
	host_state_fini(&hs);

	host_state_init(&empty);
	got = render(&render_text_ops, &empty);
	assert_non_null(strstr(got, "no RDMA devices"));
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_golden),
		cmocka_unit_test(test_json_unknowns_are_null),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
