// SPDX-License-Identifier: GPL-2.0-or-later
/* The profile's `nics:` section (model/profile_nic.c): values and errors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model/pcie.h"
#include "model/profile.h"

static int parse(const char *text, struct profile **p, struct fab_err *err)
{
	fab_err_init(err);
	return profile_parse("p.yaml", (const unsigned char *)text, strlen(text), p, err);
}

static void test_values(void **state)
{
	struct profile *p;
	struct fab_err err;

	(void)state;
	assert_int_equal(parse("nics:\n"
			       "  - match: [enp*, mlx5_*]\n"
			       "    driver: mlx5_core\n"
			       "    pcie_width: max\n"
			       "    pcie_speed: 32\n"
			       "    acs: off\n"
			       "    numa: local\n"
			       "    gpudirect: ready\n"
			       "    fw_lldp: off\n"
			       "  - pcie_width: 8\n"
			       "    pcie_speed: gen4\n"
			       "    optional: true\n"
			       "  - pcie_speed: 2.5 GT/s\n"
			       "  - pcie_speed: MAX\n"
			       "    fw_lldp: on\n", &p, &err), 0);
	assert_int_equal(p->n_nics, 4);
	assert_int_equal(p->nics[0].n_match, 2);
	assert_string_equal(p->nics[0].driver, "mlx5_core");
	assert_int_equal(p->nics[0].pcie_width, PROFILE_NIC_MAX);
	assert_int_equal(p->nics[0].pcie_speed_mts, 32000);
	assert_true(p->nics[0].acs_off && p->nics[0].numa_local && p->nics[0].gpudirect);
	assert_int_equal(p->nics[0].fw_lldp, 0);
	assert_int_equal(p->nics[0].mark.line, 2);
	assert_int_equal(p->nics[1].pcie_width, 8);
	assert_int_equal(p->nics[1].pcie_speed_mts, 16000);
	assert_true(p->nics[1].optional);
	assert_int_equal(p->nics[1].fw_lldp, -1);
	assert_int_equal(p->nics[2].pcie_speed_mts, 2500);
	assert_int_equal(p->nics[3].pcie_speed_mts, PROFILE_NIC_MAX);
	assert_int_equal(p->nics[3].fw_lldp, 1);
	profile_free(p);
}

static void expect_error(const char *text, const char *msg)
{
	struct profile *p = NULL;
	struct fab_err err;

	assert_int_equal(parse(text, &p, &err), -EINVAL);
	assert_null(p);
	if (!strstr(err.msg, msg))
		fail_msg("'%s' lacks '%s'", err.msg, msg);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("nics:\n  - pcie_width: 3\n",
		     "p.yaml:2:17: pcie_width: 3 is not a link width");
	expect_error("nics:\n  - pcie_width: 64\n", "pcie_width: 64 out of range 1..32");
	expect_error("nics:\n  - pcie_speed: 10\n", "pcie_speed: expected 2.5, 5, 8, 16, 32 or 64");
	expect_error("nics:\n  - pcie_speed: gen7\n", "pcie_speed: expected");
	expect_error("nics:\n  - acs: on\n", "acs: the only value is off");
	expect_error("nics:\n  - numa: remote\n", "numa: the only value is local, found 'remote'");
	expect_error("nics:\n  - gpudirect: yes\n", "gpudirect: the only value is ready");
	expect_error("nics:\n  - fw_lldp: maybe\n", "fw_lldp: expected true or false");
	expect_error("nics:\n  - match: enp*\n", "p.yaml:2:5: nics[0]: checks nothing");
	expect_error("nics:\n  - pcie_lanes: 16\n", "unknown key 'pcie_lanes'");
	expect_error("nics: {a: 1}\n", "nics: expected a list");
}

static void test_matches(void **state)
{
	struct profile *p;
	struct fab_err err;
	struct pcie_dev d;

	(void)state;
	memset(&d, 0, sizeof(d));
	snprintf(d.driver, sizeof(d.driver), "mlx5_core");
	pcie_dev_name_add(&d, "enp19s0np0", false);
	pcie_dev_name_add(&d, "mlx5_0", true);
	assert_int_equal(parse("nics:\n"
			       "  - {match: mlx5_0, numa: local}\n"
			       "  - {match: enp19*, driver: ice, numa: local}\n"
			       "  - {driver: 'mlx5*', numa: local}\n"
			       "  - {match: [eth0, ib0], numa: local}\n", &p, &err), 0);
	assert_true(profile_nic_matches(&p->nics[0], &d));
	assert_false(profile_nic_matches(&p->nics[1], &d));
	assert_true(profile_nic_matches(&p->nics[2], &d));
	assert_false(profile_nic_matches(&p->nics[3], &d));
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
