// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The worker protocol's "bond" op on the wire (fleet/proto_bond.h): a
 * bond's reading round-trips; not a bond is two keys; answers that cannot
 * be read are refused naming the field.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fleet/proto_bond.h"

static void test_round_trip(void **state)
{
	struct bond_snap s = { .ifname = "bond0", .is_bond = true,
			       .mode = FAB_BOND_MODE_8023AD, .policy = FAB_BOND_XMIT_ENCAP34,
			       .n_members = 2 }, back;
	struct fab_err err;
	json_t *j;

	fab_err_init(&err);
	strcpy(s.m[0].name, "eth1");
	strcpy(s.m[1].name, "eth2");
	s.m[0].link_up = true;
	s.m[0].tx_bytes = 1ULL << 40;
	s.m[1].tx_bytes = 7;
	j = proto_bond_result(&s);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "mode")), "802.3ad");
	assert_string_equal(json_string_value(json_object_get(j, "xmit_hash_policy")), "encap3+4");
	assert_int_equal(proto_bond_from_json(j, &back, &err), 0);
	json_decref(j);
	assert_true(back.is_bond);
	assert_string_equal(back.ifname, "bond0");
	assert_int_equal(back.mode, FAB_BOND_MODE_8023AD);
	assert_int_equal(back.policy, FAB_BOND_XMIT_ENCAP34);
	assert_int_equal(back.n_members, 2);
	assert_string_equal(back.m[1].name, "eth2");
	assert_true(back.m[0].link_up);
	assert_false(back.m[1].link_up);
	assert_true(back.m[0].tx_bytes == 1ULL << 40);
	assert_int_equal(back.m[1].tx_bytes, 7);
}

static void test_not_bond(void **state)
{
	struct bond_snap s = { .ifname = "eth0", .mode = -1, .policy = -1 }, back;
	struct fab_err err;
	json_t *j = proto_bond_result(&s), *req = proto_bond_req("10.0.0.1", NULL);

	fab_err_init(&err);
	assert_non_null(j);
	assert_int_equal(json_object_size(j), 2);
	assert_int_equal(proto_bond_from_json(j, &back, &err), 0);
	assert_false(back.is_bond);
	assert_string_equal(back.ifname, "eth0");
	json_decref(j);
	assert_string_equal(json_string_value(json_object_get(req, "op")), "bond");
	assert_true(json_is_null(json_object_get(req, "ifname")));
	json_decref(req);
}

static void refused(const char *text, const char *what)
{
	struct bond_snap back;
	struct fab_err err;
	json_t *j = json_loads(text, 0, NULL);

	fab_err_init(&err);
	assert_non_null(j);
	assert_int_equal(proto_bond_from_json(j, &back, &err), -EPROTO);
	assert_non_null(strstr(err.msg, what));
	json_decref(j);
}

static void test_refused(void **state)
{
	refused("{\"bond\":false}", "\"ifname\"");
	refused("{\"ifname\":\"bond0\",\"bond\":true}", "\"members\"");
	refused("{\"ifname\":\"bond0\",\"bond\":true,\"members\":[]}", "\"members\"");
	refused("{\"ifname\":\"bond0\",\"bond\":true,\"members\":[{\"name\":\"a1\","
		"\"link_up\":true,\"tx_bytes\":-1}]}", "tx_bytes");
	refused("{\"ifname\":\"bond0\",\"bond\":true,\"members\":[{\"name\":\"a-very-long-name-1\","
		"\"link_up\":true,\"tx_bytes\":1}]}", "name");
	refused("{\"ifname\":\"bond0-much-too-long\",\"bond\":false}", "ifname");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip), cmocka_unit_test(test_not_bond),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
