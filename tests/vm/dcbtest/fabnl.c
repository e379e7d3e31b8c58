// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabnl: a tests-only driver for src/sys/nl_dcb.c and nl_bond.c, so the
 * adapters can be exercised in the VM without a profile.  Not installed;
 * the VM tests proper go through `fabricctl apply/verify`.
 *
 *   fabnl dcb-read IF                      JSON-ish one line per part
 *   fabnl pfc-set IF MASK                  MASK: bitmap of priorities (0x08)
 *   fabnl ets-set IF BW0,..,BW7 TSA0,..,TSA7 TC0,..,TC7   (tsa: s=strict e=ets)
 *   fabnl app-add|app-del IF DSCP:PRIO...
 *   fabnl trust-set IF SEL...              (dscp pcp ...)
 *   fabnl bond-read NAME
 *   fabnl bond-create NAME MODE [miimon=N] [lacp=fast] [xmit=layer3+4] [min_links=N]
 *   fabnl bond-set NAME ... (same options, mode=MODE)
 *   fabnl bond-delete NAME | enslave BOND DEV | release DEV
 *
 * Exit: 0 ok, 3 error (message on stderr, as fabricctl prints it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/sys_real.h"

static int parse_list(const char *s, uint8_t *out, int n, int tsa)
{
	char *dup = strdup(s), *save = NULL, *tok;
	int i = 0;

	for (tok = strtok_r(dup, ",", &save); tok && i < n; tok = strtok_r(NULL, ",", &save), i++) {
		if (tsa)
			out[i] = tok[0] == 'e' ? FAB_DCB_TSA_ETS : FAB_DCB_TSA_STRICT;
		else
			out[i] = (uint8_t)strtoul(tok, NULL, 0);
	}
	free(dup);
	return i == n ? 0 : -1;
}

static void bond_opts(struct fab_bond *b, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char *v = strchr(argv[i], '=');

		if (!v)
			continue;
		*v++ = '\0';
		if (!strcmp(argv[i], "mode"))
			b->mode = fab_bond_mode_parse(v);
		else if (!strcmp(argv[i], "miimon"))
			b->miimon_ms = atoi(v);
		else if (!strcmp(argv[i], "lacp"))
			b->lacp_rate = fab_bond_lacp_parse(v);
		else if (!strcmp(argv[i], "xmit"))
			b->xmit_hash_policy = fab_bond_xmit_parse(v);
		else if (!strcmp(argv[i], "min_links"))
			b->min_links = atoi(v);
	}
}

int main(int argc, char **argv)
{
	struct fab_err err;
	const char *cmd;
	int rc = -EINVAL;

	fab_err_init(&err);
	if (argc < 3) {
		fprintf(stderr, "usage: see the header of tests/vm/dcbtest/fabnl.c\n");
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "dcb-read")) {
		struct fab_dcb d;

		fab_dcb_init(&d);
		rc = nl_dcb_read(NULL, argv[2], &d, &err);
		if (rc == 0) {
			printf("pfc supported=%d cap=%u en=0x%02x mbc=%u delay=%u\n", d.pfc_supported,
			       d.pfc.pfc_cap, d.pfc.pfc_en, d.pfc.mbc, d.pfc.delay_bits);
			printf("ets supported=%d cap=%u willing=%d bw=", d.ets_supported,
			       d.ets.ets_cap, d.ets.willing);
			for (int i = 0; i < 8; i++)
				printf("%s%u", i ? "," : "", d.ets.tc_tx_bw_pct[i]);
			printf(" tsa=");
			for (int i = 0; i < 8; i++)
				printf("%s%s", i ? "," : "", fab_dcb_tsa_name(d.ets.tc_tsa[i]) ?
				       fab_dcb_tsa_name(d.ets.tc_tsa[i]) : "?");
			printf(" prio_tc=");
			for (int i = 0; i < 8; i++)
				printf("%s%u", i ? "," : "", d.ets.prio_tc[i]);
			printf("\napp supported=%d n=%zu", d.app_supported, d.n_apps);
			for (size_t i = 0; i < d.n_apps; i++)
				printf(" %s:%u:%u", fab_dcb_sel_name(d.apps[i].selector) ?
				       fab_dcb_sel_name(d.apps[i].selector) : "?",
				       d.apps[i].protocol, d.apps[i].priority);
			printf("\ntrust supported=%d n=%zu\ndcbx supported=%d mode=0x%02x\n",
			       d.trust_supported, d.n_trust, d.dcbx_supported, d.dcbx);
		}
		fab_dcb_fini(&d);
	} else if (!strcmp(cmd, "pfc-set") && argc == 4) {
		struct fab_dcb_pfc p = { .pfc_en = (uint8_t)strtoul(argv[3], NULL, 0) };

		rc = nl_dcb_pfc_set(NULL, argv[2], &p, &err);
	} else if (!strcmp(cmd, "ets-set") && argc == 6) {
		struct fab_dcb_ets e = { 0 };

		if (parse_list(argv[3], e.tc_tx_bw_pct, 8, 0) || parse_list(argv[4], e.tc_tsa, 8, 1) ||
		    parse_list(argv[5], e.prio_tc, 8, 0))
			return 2;
		rc = nl_dcb_ets_set(NULL, argv[2], &e, &err);
	} else if ((!strcmp(cmd, "app-add") || !strcmp(cmd, "app-del")) && argc >= 4) {
		struct fab_dcb_app apps[64];
		size_t n = 0;

		for (int i = 3; i < argc && n < 64; i++, n++) {
			apps[n].selector = FAB_DCB_APP_SEL_DSCP;
			apps[n].protocol = (uint16_t)strtoul(argv[i], NULL, 0);
			apps[n].priority = (uint8_t)strtoul(strchr(argv[i], ':') + 1, NULL, 0);
		}
		rc = (cmd[4] == 'a' ? nl_dcb_app_add : nl_dcb_app_del)(NULL, argv[2], apps, n, &err);
	} else if (!strcmp(cmd, "trust-set")) {
		uint8_t sel[8];
		size_t n = 0;

		for (int i = 3; i < argc && n < 8; i++)
			sel[n++] = (uint8_t)fab_dcb_sel_parse(argv[i]);
		rc = nl_dcb_trust_set(NULL, argv[2], sel, n, &err);
	} else if (!strcmp(cmd, "bond-read")) {
		struct fab_bond b;

		fab_bond_init(&b);
		rc = nl_bond_read(NULL, argv[2], &b, &err);
		if (rc == 0) {
			printf("bond %s mode=%s miimon=%d lacp=%s xmit=%s min_links=%d active=%s\n",
			       b.name, fab_bond_mode_name(b.mode) ? fab_bond_mode_name(b.mode) : "?",
			       b.miimon_ms, fab_bond_lacp_name(b.lacp_rate) ?
			       fab_bond_lacp_name(b.lacp_rate) : "?",
			       fab_bond_xmit_name(b.xmit_hash_policy) ?
			       fab_bond_xmit_name(b.xmit_hash_policy) : "?",
			       b.min_links, b.active_member[0] ? b.active_member : "-");
			for (size_t i = 0; i < b.n_members; i++)
				printf("member %s up=%d active=%d agg=%d\n", b.members[i].name,
				       b.members[i].link_up, b.members[i].active,
				       b.members[i].ad_aggregator_id);
		}
		fab_bond_fini(&b);
	} else if (!strcmp(cmd, "bond-create") && argc >= 4) {
		struct fab_bond b;

		fab_bond_init(&b);
		snprintf(b.name, sizeof(b.name), "%s", argv[2]);
		b.mode = fab_bond_mode_parse(argv[3]);
		bond_opts(&b, argc - 4, argv + 4);
		rc = nl_bond_create(NULL, &b, &err);
	} else if (!strcmp(cmd, "bond-set")) {
		struct fab_bond b;

		fab_bond_init(&b);
		snprintf(b.name, sizeof(b.name), "%s", argv[2]);
		bond_opts(&b, argc - 3, argv + 3);
		rc = nl_bond_set(NULL, &b, &err);
	} else if (!strcmp(cmd, "bond-delete")) {
		rc = nl_bond_delete(NULL, argv[2], &err);
	} else if (!strcmp(cmd, "enslave") && argc == 4) {
		rc = nl_bond_enslave(NULL, argv[2], argv[3], &err);
	} else if (!strcmp(cmd, "release")) {
		rc = nl_bond_release(NULL, argv[2], &err);
	} else {
		fprintf(stderr, "fabnl: unknown command '%s'\n", cmd);
		return 2;
	}
	if (rc < 0) {
		fprintf(stderr, "fabnl %s: %s\n", cmd, err.msg);
		return 3;
	}
	return 0;
}
