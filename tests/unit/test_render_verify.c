// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * verify/apply renderers over a change set built by changeset_diff: JSON compared with
 * the golden files tests/golden/{verify-drift,apply-rollback}.json (same
 * keys whether empty or not), text checked line by line.
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

#include <jansson.h>

#include "model/changeset.h"
#include "model/profile.h"
#include "render/render.h"

struct fixture {
	struct profile *p;
	struct host_state hs;
	struct node_config ns;
	struct changeset cs;
};

static int setup(void **state)
{
	static const char text[] =
		"interfaces:\n"
		"  - match: eth0\n"
		"    mtu: 9000\n"
		"    pfc: {enable: [3]}\n"
		"  - match: ib*\n"
		"    mtu: 2044\n";
	struct fixture *f = calloc(1, sizeof(*f));
	struct fab_err err;
	struct fab_link *l;
	struct node_iface *ni;

	assert_non_null(f);
	fab_err_init(&err);
	assert_int_equal(profile_parse("p.yaml", (const unsigned char *)text, sizeof(text) - 1,
				       &f->p, &err), 0);
	host_state_init(&f->hs);
	l = host_state_link_add(&f->hs);
	snprintf(l->name, sizeof(l->name), "eth0");
	l->mtu = 1500;
	node_config_init(&f->ns, &f->hs);
	ni = node_config_iface_add(&f->ns, "eth0");
	ni->dcb_rc = -EOPNOTSUPP;
	snprintf(ni->dcb_msg, sizeof(ni->dcb_msg), "dcb: eth0: dcb not supported by driver");
	changeset_init(&f->cs);
	assert_int_equal(changeset_diff(f->p, &f->ns, &f->cs, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	changeset_fini(&f->cs);
	node_config_fini(&f->ns);
	host_state_fini(&f->hs);
	profile_free(f->p);
	free(f);
	return 0;
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "re");
	char *buf = calloc(1, 65536);
	size_t n;

	assert_non_null(fp);
	assert_non_null(buf);
	n = fread(buf, 1, 65535, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static void test_verify_json_golden(void **state)
{
	struct fixture *f = *state;
	char *buf = NULL, *want;
	size_t len = 0;
	struct render out = { .pretty = true };

	out.f = open_memstream(&buf, &len);
	assert_non_null(out.f);
	assert_int_equal(render_json_ops.verify(&out, "p.yaml", "node1", &f->cs), 0);
	fclose(out.f);
	want = slurp("tests/golden/verify-drift.json");
	assert_string_equal(buf, want);
	free(want);
	free(buf);
}

static void test_verify_text(void **state)
{
	struct fixture *f = *state;
	char *buf = NULL;
	size_t len = 0;
	struct render out = { 0 };

	out.f = open_memstream(&buf, &len);
	assert_int_equal(render_text_ops.verify(&out, "p.yaml", "node1", &f->cs), 0);
	fclose(out.f);
	assert_string_equal(buf,
		"verify p.yaml: 3 drifts on node1\n"
		"INTERFACE        FIELD              WANTED               FOUND\n"
		"ib*              match              an interface         none\n"
		"eth0             mtu                9000                 1500\n"
		"eth0             pfc.enable         3                    unknown (dcb: eth0: dcb not supported by driver)\n");
	free(buf);
}

static void test_apply_json_golden(void **state)
{
	struct fixture *f = *state;
	struct apply_report rep = { .profile = "p.yaml", .cs = &f->cs, .failed = 1,
				    .rolled_back = true };
	char *buf = NULL, *want;
	size_t len = 0;
	struct render out = { .pretty = true };

	/* As the executor leaves it after step 2 failed and step 1 was undone. */
	f->cs.steps[0].status = CHANGE_STEP_UNDONE;
	f->cs.steps[1].status = CHANGE_STEP_FAILED;
	snprintf(rep.error, sizeof(rep.error),
		 "step 2 (pfc eth0 enable 3) failed: dcb: eth0: pfc not supported by driver");
	out.f = open_memstream(&buf, &len);
	assert_int_equal(render_json_ops.apply(&out, &rep), 0);
	fclose(out.f);
	want = slurp("tests/golden/apply-rollback.json");
	assert_string_equal(buf, want);
	free(want);
	free(buf);
}

static void test_verify_json_no_drift_same_keys(void **state)
{
	struct changeset empty;
	char *buf = NULL;
	size_t len = 0;
	struct render out = { 0 };

	changeset_init(&empty);
	out.f = open_memstream(&buf, &len);
	assert_int_equal(render_json_ops.verify(&out, "p.yaml", "node1", &empty), 0);
	fclose(out.f);
	assert_string_equal(buf, "{\"schema\":\"fabricctl.verify/1\",\"profile\":\"p.yaml\","
				 "\"hostname\":\"node1\",\"ok\":true,\"n_drift\":0,\"drift\":[],"
				 "\"chains\":[]}\n");
	free(buf);
}

/* A profile with roce.tos: the chain of eth0 followed over what was read, in text and JSON. */
static void test_verify_chain(void **state)
{
	static const char text[] =
		"interfaces:\n"
		"  - match: eth0\n"
		"    pfc: {enable: [3]}\n"
		"    roce: {tos: 106}\n";
	static const struct fab_dcb_app app = { FAB_DCB_APP_SEL_DSCP, 26, 4 };
	struct fixture f = { 0 };
	struct fab_err err;
	struct fab_link *l;
	struct node_iface *ni;
	char *buf = NULL;
	size_t len = 0;
	struct render out = { 0 };
	json_t *doc, *c;

	(void)state;
	fab_err_init(&err);
	assert_int_equal(profile_parse("p.yaml", (const unsigned char *)text, sizeof(text) - 1,
				       &f.p, &err), 0);
	host_state_init(&f.hs);
	l = host_state_link_add(&f.hs);
	snprintf(l->name, sizeof(l->name), "eth0");
	l->mtu = 9000;
	node_config_init(&f.ns, &f.hs);
	ni = node_config_iface_add(&f.ns, "eth0");
	ni->dcb_rc = 0;
	ni->dcb.pfc_supported = ni->dcb.ets_supported = ni->dcb.app_supported = true;
	ni->dcb.pfc.pfc_en = 1u << 3;
	for (unsigned int i = 0; i < 8; i++) {
		ni->dcb.ets.prio_tc[i] = (uint8_t)i;
		ni->dcb.ets.tc_tsa[i] = FAB_DCB_TSA_STRICT;
	}
	assert_int_equal(fab_dcb_app_add(&ni->dcb, &app), 0);
	ni->tos_rc = 0;
	ni->tos = 106;
	snprintf(ni->rdma_dev, sizeof(ni->rdma_dev), "mlx5_0");
	ni->rdma_port = 1;
	changeset_init(&f.cs);
	assert_int_equal(changeset_diff(f.p, &f.ns, &f.cs, &err), 0);
	assert_int_equal(f.cs.n_drift, 0);
	assert_int_equal(changeset_chains(f.p, &f.ns, &f.cs), 0);
	assert_int_equal(f.cs.n_chains, 1);
	out.f = open_memstream(&buf, &len);
	assert_int_equal(render_text_ops.verify(&out, "p.yaml", "node1", &f.cs), 0);
	fclose(out.f);
	assert_string_equal(buf,
		"verify p.yaml: 1 drift on node1\n"
		"INTERFACE        FIELD              WANTED               FOUND\n"
		"eth0             chain              unbroken             DSCP 26 \u2192 prio 4 \u2192 TC 4, but PFC is off on priority 4\n"
		"chain eth0 (mlx5_0/1) BROKEN: DSCP 26 \u2192 prio 4 \u2192 TC 4, but PFC is off on priority 4\n");
	free(buf);
	buf = NULL;
	out.f = open_memstream(&buf, &len);
	assert_int_equal(render_json_ops.verify(&out, "p.yaml", "node1", &f.cs), 0);
	fclose(out.f);
	doc = json_loads(buf, 0, NULL);
	assert_non_null(doc);
	c = json_array_get(json_object_get(doc, "chains"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "verdict")), "broken");
	assert_string_equal(json_string_value(json_object_get(c, "break")), "pfc_off");
	assert_string_equal(json_string_value(json_object_get(c, "rdma")), "mlx5_0/1");
	assert_int_equal(json_integer_value(json_object_get(c, "prio")), 4);
	assert_true(json_is_false(json_object_get(c, "pfc")));
	assert_true(json_is_null(json_object_get(c, "buffer")));
	assert_true(json_is_null(json_object_get(json_object_get(c, "gid"), "index")));
	assert_false(json_is_true(json_object_get(doc, "ok")));
	json_decref(doc);
	free(buf);
	changeset_fini(&f.cs);
	node_config_fini(&f.ns);
	host_state_fini(&f.hs);
	profile_free(f.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_verify_json_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_json_golden, setup, teardown),
		cmocka_unit_test(test_verify_json_no_drift_same_keys),
		cmocka_unit_test(test_verify_chain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
