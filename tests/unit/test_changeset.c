// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * changeset_diff (pure: profile x node_config -> ordered steps + drift) and the
 * apply executor (node/apply_exec.c) against a recording sys_ops: order,
 * undo values, rollback in reverse, pending-state round trip.
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

#include "node/apply.h"
#include "model/changeset.h"
#include "model/profile.h"
#include "rec_sys.c"

static struct profile *prof(const char *text)
{
	struct profile *p = NULL;
	struct fab_err err;

	fab_err_init(&err);
	if (profile_parse("t.yaml", (const unsigned char *)text, strlen(text), &p, &err) < 0)
		fail_msg("profile: %s", err.msg);
	return p;
}

static void link_add(struct host_state *hs, const char *name, unsigned int mtu, const char *kind)
{
	struct fab_link *l = host_state_link_add(hs);

	assert_non_null(l);
	snprintf(l->name, sizeof(l->name), "%s", name);
	snprintf(l->kind, sizeof(l->kind), "%s", kind);
	l->ifindex = (int)hs->n_links + 1;
	l->mtu = mtu;
	l->speed_mbps = -1;
}

/* A node_iface whose DCB reads back as the kernel defaults of a DCB-capable NIC. */
static struct node_iface *dcb_iface(struct node_config *ns, const char *name)
{
	struct node_iface *ni = node_config_iface_add(ns, name);

	assert_non_null(ni);
	ni->dcb_rc = 0;
	ni->dcb.pfc_supported = ni->dcb.ets_supported = ni->dcb.app_supported = true;
	ni->dcb.trust_supported = true;
	ni->dcb.pfc.pfc_cap = 8;
	ni->dcb.pfc.delay_bits = 32;
	ni->dcb.ets.ets_cap = 8;
	ni->dcb.ets.tc_tx_bw_pct[0] = 100;
	for (int i = 0; i < 8; i++)
		ni->dcb.ets.tc_tsa[i] = FAB_DCB_TSA_ETS;
	ni->dcb.trust[0] = FAB_DCB_APP_SEL_PCP;
	ni->dcb.n_trust = 1;
	return ni;
}

static void diff_ok(const struct profile *p, const struct node_config *ns, struct changeset *cs)
{
	struct fab_err err;

	fab_err_init(&err);
	changeset_init(cs);
	if (changeset_diff(p, ns, cs, &err) < 0)
		fail_msg("plan_diff: %s", err.msg);
}

/* "field:from>to" of every step, space separated. */
static const char *steps_str(const struct changeset *cs, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < cs->n_steps && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s %s:%s>%s", i ? " | " : "",
					cs->steps[i].object, cs->steps[i].field,
					cs->steps[i].from, cs->steps[i].to);
	return buf;
}

static void test_mtu_only(void **state)
{
	struct profile *p = prof("interfaces:\n  - match: eth*\n    mtu: 9000\n");
	struct host_state hs;
	struct node_config ns;
	struct changeset cs;
	char buf[512];

	host_state_init(&hs);
	link_add(&hs, "lo", 65536, "");
	link_add(&hs, "eth0", 1500, "veth");
	link_add(&hs, "eth1", 9000, "veth");
	node_config_init(&ns, &hs);
	diff_ok(p, &ns, &cs);
	assert_string_equal(steps_str(&cs, buf, sizeof(buf)), "eth0 mtu:1500>9000");
	assert_int_equal(cs.steps[0].act.op, CHANGE_MTU_SET);
	assert_int_equal(cs.steps[0].act.u, 9000);
	assert_true(cs.steps[0].has_undo);
	assert_int_equal(cs.steps[0].undo.u, 1500);
	assert_int_equal(cs.n_drift, 1);
	assert_string_equal(cs.drift[0].object, "eth0");
	assert_string_equal(cs.drift[0].field, "mtu");
	assert_string_equal(cs.drift[0].wanted, "9000");
	assert_string_equal(cs.drift[0].found, "1500");
	changeset_fini(&cs);
	/* Idempotence: once applied, the change set is empty. */
	hs.links[1].mtu = 9000;
	diff_ok(p, &ns, &cs);
	assert_int_equal(cs.n_steps, 0);
	assert_int_equal(cs.n_drift, 0);
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

static void test_unmatched_and_later_items_win(void **state)
{
	struct profile *p = prof("interfaces:\n"
				 "  - match: eth*\n    mtu: 9000\n"
				 "  - match: eth1\n    mtu: 4000\n"
				 "  - match: ib*\n    mtu: 2044\n"
				 "  - match: xx*\n    optional: true\n    mtu: 1000\n");
	struct host_state hs;
	struct node_config ns;
	struct changeset cs;
	char buf[512];

	host_state_init(&hs);
	link_add(&hs, "eth0", 1500, "");
	link_add(&hs, "eth1", 1500, "");
	node_config_init(&ns, &hs);
	diff_ok(p, &ns, &cs);
	assert_string_equal(steps_str(&cs, buf, sizeof(buf)),
			    "eth0 mtu:1500>9000 | eth1 mtu:1500>4000");
	assert_int_equal(cs.n_unmatched, 1);
	assert_string_equal(cs.drift[0].object, "ib*");
	assert_string_equal(cs.drift[0].field, "match");
	assert_string_equal(cs.drift[0].found, "none");
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

static const char *full_profile =
	"bonds:\n"
	"  - name: bond0\n"
	"    mode: 802.3ad\n"
	"    miimon: 100\n"
	"    members: [eth0, eth1]\n"
	"    mtu: 9000\n"
	"interfaces:\n"
	"  - match: [eth0, eth1]\n"
	"    mtu: 9000\n"
	"    pfc: {enable: [3]}\n"
	"    ets:\n"
	"      prio_tc: [0, 1, 2, 3, 4, 5, 6, 7]\n"
	"      tc_bw: [10, 5, 5, 50, 10, 10, 0, 10]\n"
	"      tsa: [ets, ets, ets, ets, ets, ets, strict, ets]\n"
	"    trust: [dscp]\n"
	"    dscp_map: {26: 3}\n"
	"    ecn: {np: [3]}\n"
	"    roce: {tos: 106}\n";

/* The safe order: bond, members, bond MTU, member MTU, PFC, ETS, APP del/add, trust, ECN, ToS. */
static void test_full_order_and_undo(void **state)
{
	struct profile *p = prof(full_profile);
	struct host_state hs;
	struct node_config ns;
	struct node_iface *e0, *e1;
	struct node_bond *nb;
	struct changeset cs;
	char buf[2048];
	struct fab_dcb_app old = { FAB_DCB_APP_SEL_DSCP, 26, 0 };

	host_state_init(&hs);
	link_add(&hs, "eth0", 1500, "");
	link_add(&hs, "eth1", 1500, "");
	node_config_init(&ns, &hs);
	e0 = dcb_iface(&ns, "eth0");
	assert_int_equal(fab_dcb_app_add(&e0->dcb, &old), 0);	/* stale 26 -> 0 */
	e0->ecn_rc[FAB_ECN_NP] = 0;
	snprintf(e0->rdma_dev, sizeof(e0->rdma_dev), "mlx5_0");
	e0->rdma_port = 1;
	e0->tos_rc = 0;
	e1 = dcb_iface(&ns, "eth1");
	e1->dcb.pfc.pfc_en = 1u << 3;		/* eth1 already has PFC */
	e1->ecn_rc[FAB_ECN_NP] = -EOPNOTSUPP;	/* and no ECN sysfs */
	snprintf(e1->ecn_msg[FAB_ECN_NP], sizeof(e1->ecn_msg[0]), "ecn: eth1: roce_np not supported by driver");
	snprintf(e1->rdma_dev, sizeof(e1->rdma_dev), "mlx5_1");
	e1->rdma_port = 1;
	e1->tos_rc = 0;
	e1->tos = 106;
	nb = node_config_bond_add(&ns, "bond0");
	nb->rc = -ENODEV;
	diff_ok(p, &ns, &cs);
	assert_string_equal(steps_str(&cs, buf, sizeof(buf)),
			    "bond0 bond:absent>mode 802.3ad miimon 100"
			    " | bond0 members:->eth0 | bond0 members:->eth1"
			    " | bond0 mtu:absent>9000"
			    " | eth0 mtu:1500>9000 | eth1 mtu:1500>9000"
			    " | eth0 pfc.enable:none>3"
			    " | eth0 ets:prio_tc 0,0,0,0,0,0,0,0>prio_tc 0,1,2,3,4,5,6,7"
			    " | eth1 ets:prio_tc 0,0,0,0,0,0,0,0>prio_tc 0,1,2,3,4,5,6,7"
			    " | eth0 dscp_map.26:0>-"
			    " | eth0 dscp_map.26:->3 | eth1 dscp_map.26:->3"
			    " | eth0 trust:pcp>dscp | eth1 trust:pcp>dscp"
			    " | eth0 ecn.np.3:off>on | eth1 ecn.np.3:unknown>on"
			    " | mlx5_0/1 roce.tos:0>106");
	/* Undo values are the node's. */
	assert_int_equal(cs.steps[0].undo.op, CHANGE_BOND_DELETE);
	assert_int_equal(cs.steps[1].undo.op, CHANGE_BOND_RELEASE);
	assert_int_equal(cs.steps[6].undo.pfc.pfc_en, 0);
	assert_int_equal(cs.steps[6].act.pfc.delay_bits, 32);	/* untouched fields kept */
	assert_int_equal(cs.steps[7].undo.ets.tc_tx_bw_pct[0], 100);
	assert_int_equal(cs.steps[9].act.op, CHANGE_APP_DEL);
	assert_int_equal(cs.steps[9].undo.op, CHANGE_APP_ADD);
	assert_int_equal(cs.steps[9].undo.app.priority, 0);
	assert_int_equal(cs.steps[10].undo.op, CHANGE_APP_DEL);
	assert_int_equal(cs.steps[12].undo.trust[0], FAB_DCB_APP_SEL_PCP);
	assert_false(cs.steps[15].has_undo);		/* eth1 ECN state unknown */
	assert_int_equal(cs.steps[16].undo.u, 0);
	/* Drift names the unknown with its reason. */
	{
		bool seen = false;

		for (size_t i = 0; i < cs.n_drift; i++)
			if (!strcmp(cs.drift[i].object, "eth1") && !strcmp(cs.drift[i].field, "ecn.np")) {
				assert_string_equal(cs.drift[i].found,
						    "unknown (ecn: eth1: roce_np not supported by driver)");
				seen = true;
			}
		assert_true(seen);
	}
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

static void test_bond_existing(void **state)
{
	struct profile *p = prof("bonds:\n  - name: bond0\n    miimon: 100\n    members: [eth0, eth1]\n");
	struct host_state hs;
	struct node_config ns;
	struct node_bond *nb;
	struct changeset cs;
	char buf[512];

	host_state_init(&hs);
	link_add(&hs, "bond0", 1500, "bond");
	node_config_init(&ns, &hs);
	nb = node_config_bond_add(&ns, "bond0");
	nb->rc = 0;
	nb->bond.mode = FAB_BOND_MODE_ACTIVE_BACKUP;
	nb->bond.miimon_ms = 0;
	fab_bond_member_add(&nb->bond, "eth0")->link_up = true;
	fab_bond_member_add(&nb->bond, "eth2")->link_up = true;
	diff_ok(p, &ns, &cs);
	assert_string_equal(steps_str(&cs, buf, sizeof(buf)),
			    "bond0 options:miimon 0>miimon 100 | bond0 members:eth2>- | bond0 members:->eth1");
	assert_int_equal(cs.steps[0].act.bond.mode, -1);	/* mode not in profile: untouched */
	assert_int_equal(cs.steps[0].undo.bond.miimon_ms, 0);
	assert_int_equal(cs.steps[1].act.op, CHANGE_BOND_RELEASE);
	assert_int_equal(cs.steps[1].undo.op, CHANGE_BOND_ENSLAVE);
	assert_int_equal(cs.n_drift, 2);
	assert_string_equal(cs.drift[1].wanted, "eth0,eth1");
	assert_string_equal(cs.drift[1].found, "eth0,eth2");
	changeset_fini(&cs);
	/* A bond that cannot be read is a system error, not a guess. */
	nb->rc = -EOPNOTSUPP;
	snprintf(nb->msg, sizeof(nb->msg), "bond: bond0: not supported");
	{
		struct fab_err err;

		fab_err_init(&err);
		changeset_init(&cs);
		assert_int_equal(changeset_diff(p, &ns, &cs, &err), -EOPNOTSUPP);
		assert_string_equal(err.msg, "bond: bond0: not supported");
		changeset_fini(&cs);
	}
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

/* A leg down, or an 802.3ad leg in another aggregator, is drift with no step. */
static void test_bond_degraded(void **state)
{
	struct profile *p = prof("bonds:\n  - name: bond0\n    mode: 802.3ad\n"
				 "    members: [eth0, eth1, eth2]\n");
	struct host_state hs;
	struct node_config ns;
	struct node_bond *nb;
	struct fab_bond_member *m;
	struct changeset cs;

	host_state_init(&hs);
	link_add(&hs, "bond0", 1500, "bond");
	node_config_init(&ns, &hs);
	nb = node_config_bond_add(&ns, "bond0");
	nb->rc = 0;
	nb->bond.mode = FAB_BOND_MODE_8023AD;
	m = fab_bond_member_add(&nb->bond, "eth0");
	m->link_up = true;
	m->ad_aggregator_id = 1;
	m = fab_bond_member_add(&nb->bond, "eth1");
	m->link_up = false;
	m->ad_aggregator_id = 1;
	m = fab_bond_member_add(&nb->bond, "eth2");
	m->link_up = true;
	m->ad_aggregator_id = 2;
	diff_ok(p, &ns, &cs);
	assert_int_equal(cs.n_steps, 0);
	assert_int_equal(cs.n_drift, 2);
	assert_string_equal(cs.drift[0].object, "bond0");
	assert_string_equal(cs.drift[0].field, "members.eth1.link");
	assert_string_equal(cs.drift[0].wanted, "up");
	assert_string_equal(cs.drift[0].found, "down");
	assert_string_equal(cs.drift[1].field, "members.eth2.aggregator");
	assert_string_equal(cs.drift[1].wanted, "1");
	assert_string_equal(cs.drift[1].found, "2");
	/* apply cannot plug a cable in: both verify-only */
	assert_true(cs.drift[0].verify_only && cs.drift[1].verify_only);
	assert_int_equal(changeset_n_verify_only(&cs), 2);
	changeset_fini(&cs);

	/* Healthy again: nothing to report. */
	nb->bond.members[1].link_up = true;
	nb->bond.members[2].ad_aggregator_id = 1;
	diff_ok(p, &ns, &cs);
	assert_int_equal(cs.n_drift, 0);
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

static void test_ib_verify(void **state)
{
	struct profile *p = prof("infiniband:\n  - match: mlx5_*\n    state: active\n    width: 4x\n"
				 "    speed: NDR\n    active_mtu: 4096\n");
	struct host_state hs;
	struct node_config ns;
	struct fab_rdma_dev *d;
	struct fab_rdma_port *pt;
	struct changeset cs;

	host_state_init(&hs);
	d = host_state_rdma_add(&hs);
	snprintf(d->name, sizeof(d->name), "mlx5_0");
	pt = rdma_dev_port_add(d);
	pt->port = 1;
	snprintf(pt->state, sizeof(pt->state), "ACTIVE");
	snprintf(pt->speed, sizeof(pt->speed), "HDR");
	pt->width_x = 4;
	pt->active_mtu = 4096;
	node_config_init(&ns, &hs);
	diff_ok(p, &ns, &cs);
	assert_int_equal(cs.n_steps, 0);	/* verify only */
	assert_int_equal(cs.n_drift, 1);
	assert_string_equal(cs.drift[0].object, "mlx5_0/1");
	assert_string_equal(cs.drift[0].field, "speed");
	assert_string_equal(cs.drift[0].wanted, "NDR");
	assert_string_equal(cs.drift[0].found, "HDR");
	assert_true(cs.drift[0].verify_only);	/* apply says so instead of "nothing to do" */
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

/*
 * Steps certain to fail are marked for apply --dry-run: a DCB part the
 * driver refuses, roce.tos without an RDMA device, a missing bond member.
 * A DCB read that failed otherwise (may be transient) is not marked.
 */
static void test_dry_run_fails(void **state)
{
	struct profile *p = prof("interfaces:\n  - match: eth0\n    pfc: {enable: [3]}\n"
				 "    roce: {tos: 106, mtu: 4096}\n  - match: eth1\n    pfc: {enable: [3]}\n"
				 "bonds:\n  - name: bond0\n    mode: active-backup\n"
				 "    members: [eth0, nosuch0]\n");
	struct host_state hs;
	struct node_config ns;
	struct node_iface *e0, *e1;
	struct node_bond *nb;
	struct changeset cs;

	host_state_init(&hs);
	link_add(&hs, "eth0", 1500, "");
	link_add(&hs, "eth1", 1500, "");
	node_config_init(&ns, &hs);
	e0 = node_config_iface_add(&ns, "eth0");
	e0->dcb_rc = -EOPNOTSUPP;
	snprintf(e0->dcb_msg, sizeof(e0->dcb_msg), "dcb: eth0: dcb not supported by driver");
	e1 = node_config_iface_add(&ns, "eth1");
	e1->dcb_rc = -EIO;
	snprintf(e1->dcb_msg, sizeof(e1->dcb_msg), "dcb: eth1: timed out");
	nb = node_config_bond_add(&ns, "bond0");
	nb->rc = -ENODEV;
	diff_ok(p, &ns, &cs);
	assert_int_equal(changeset_n_fails(&cs), 3);
	for (size_t i = 0; i < cs.n_steps; i++) {
		const struct change_step *st = &cs.steps[i];

		if (!strcmp(st->object, "eth0") && !strcmp(st->field, "pfc.enable"))
			assert_string_equal(st->fails, "dcb: eth0: dcb not supported by driver");
		else if (!strcmp(st->field, "roce.tos"))
			assert_string_equal(st->fails, "roce: eth0: no rdma device on this netdev (roce.tos needs one)");
		else if (!strcmp(st->to, "nosuch0"))
			assert_string_equal(st->fails, "bond member nosuch0: no such interface on this node");
		else
			assert_string_equal(st->fails, "");	/* eth1's pfc, eth0's enslave, the bond */
	}
	assert_int_equal(changeset_n_verify_only(&cs), 1);	/* roce.mtu */
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

/* Build the full change set used by the executor tests. */
static void full_plan(struct host_state *hs, struct node_config *ns, struct changeset *cs,
		      struct profile **pp)
{
	struct node_bond *nb;
	struct node_iface *e0, *e1;

	*pp = prof(full_profile);
	host_state_init(hs);
	link_add(hs, "eth0", 1500, "");
	link_add(hs, "eth1", 1500, "");
	node_config_init(ns, hs);
	e0 = dcb_iface(ns, "eth0");
	e0->ecn_rc[0] = 0;
	snprintf(e0->rdma_dev, sizeof(e0->rdma_dev), "mlx5_0");
	e0->rdma_port = 1;
	e0->tos_rc = 0;
	e1 = dcb_iface(ns, "eth1");
	e1->ecn_rc[0] = 0;
	snprintf(e1->rdma_dev, sizeof(e1->rdma_dev), "mlx5_1");
	e1->rdma_port = 1;
	e1->tos_rc = 0;
	e1->ecn[0] = 1u << 3;
	nb = node_config_bond_add(ns, "bond0");
	nb->rc = -ENODEV;
	diff_ok(*pp, ns, cs);
}

static void full_free(struct host_state *hs, struct node_config *ns, struct changeset *cs,
		      struct profile *p)
{
	changeset_fini(cs);
	node_config_fini(ns);
	host_state_fini(hs);
	profile_free(p);
}

static void test_exec_all_ok(void **state)
{
	struct host_state hs;
	struct node_config ns;
	struct changeset cs;
	struct profile *p;
	struct rec_sys r;
	struct apply_report rep = { 0 };

	full_plan(&hs, &ns, &cs, &p);
	rec_sys_init(&r);
	assert_int_equal(apply_changeset_run(&r.sys, &cs, &rep, NULL, NULL), 0);
	assert_int_equal(rep.failed, -1);
	assert_int_equal(r.n, (int)cs.n_steps);
	assert_string_equal(r.log[0], "bond-create bond0 mode=4");
	assert_string_equal(r.log[1], "enslave bond0 eth0");
	assert_string_equal(r.log[3], "mtu bond0 9000");
	assert_string_equal(r.log[6], "pfc eth0 0x08");
	for (size_t i = 0; i < cs.n_steps; i++)
		assert_int_equal(cs.steps[i].status, CHANGE_STEP_DONE);
	full_free(&hs, &ns, &cs, p);
}

/* Step 7 fails: steps 6..1 are undone in exactly reverse order, with the old values. */
static void test_exec_rollback_reverse(void **state)
{
	struct host_state hs;
	struct node_config ns;
	struct changeset cs;
	struct profile *p;
	struct rec_sys r;
	struct apply_report rep = { 0 };

	full_plan(&hs, &ns, &cs, &p);
	rec_sys_init(&r);
	r.fail_at = 7;		/* the PFC on eth0 */
	assert_int_equal(apply_changeset_run(&r.sys, &cs, &rep, NULL, NULL), -EOPNOTSUPP);
	assert_int_equal(rep.failed, 6);
	assert_true(rep.rolled_back);
	assert_string_equal(rep.error,
			    "step 7 (pfc eth0 enable 3) failed: rec: pfc eth0 0x08: failed as told");
	assert_int_equal(r.n, 7 + 6);
	assert_string_equal(r.log[7], "mtu eth1 1500");
	assert_string_equal(r.log[8], "mtu eth0 1500");
	assert_string_equal(r.log[9], "mtu bond0 1500");
	assert_string_equal(r.log[10], "release eth1");
	assert_string_equal(r.log[11], "release eth0");
	assert_string_equal(r.log[12], "bond-delete bond0");
	assert_int_equal(cs.steps[0].status, CHANGE_STEP_UNDONE);
	assert_int_equal(cs.steps[5].status, CHANGE_STEP_UNDONE);
	assert_int_equal(cs.steps[6].status, CHANGE_STEP_FAILED);
	assert_int_equal(cs.steps[7].status, CHANGE_STEP_PLANNED);
	full_free(&hs, &ns, &cs, p);
}

/* The rollback itself failing is reported, and every other undo is still tried. */
static void test_exec_rollback_failure(void **state)
{
	struct host_state hs;
	struct node_config ns;
	struct changeset cs;
	struct profile *p;
	struct rec_sys r;
	struct apply_report rep = { 0 };

	full_plan(&hs, &ns, &cs, &p);
	rec_sys_init(&r);
	r.fail_at = 3;		/* enslave eth1 fails */
	assert_int_equal(apply_changeset_run(&r.sys, &cs, &rep, NULL, NULL), -EOPNOTSUPP);
	assert_true(rep.rolled_back);
	assert_int_equal(r.n, 5);
	assert_string_equal(r.log[3], "release eth0");
	assert_string_equal(r.log[4], "bond-delete bond0");
	/* Now a failing undo: fail the first undo call. */
	full_free(&hs, &ns, &cs, p);
	full_plan(&hs, &ns, &cs, &p);
	rec_sys_init(&r);
	r.fail_at = 3;
	memset(&rep, 0, sizeof(rep));
	{
		/* Make the undo of step 2 fail by failing call 4 as well: re-run with a wrapper. */
		struct fab_err err;

		cs.steps[0].status = CHANGE_STEP_DONE;
		cs.steps[1].status = CHANGE_STEP_DONE;
		rec_sys_init(&r);
		r.fail_at = 1;	/* the first undo (release eth0) fails */
		fab_err_init(&err);
		assert_int_equal(apply_changeset_undo(&r.sys, &cs, &err), -EOPNOTSUPP);
		assert_int_equal(r.n, 2);	/* bond-delete still attempted */
		assert_string_equal(r.log[1], "bond-delete bond0");
		assert_int_equal(cs.steps[1].status, CHANGE_STEP_UNDO_FAILED);
		assert_int_equal(cs.steps[0].status, CHANGE_STEP_UNDONE);
		assert_string_equal(err.msg,
				    "undo bond-release bond0 eth0: rec: release eth0: failed as told");
	}
	full_free(&hs, &ns, &cs, p);
}

static void test_exec_missing_slot(void **state)
{
	static const struct sys_ops bare = { .name = "bare" };
	struct sys sys = { .ops = &bare };
	struct change_action a;
	struct fab_err err;

	memset(&a, 0, sizeof(a));
	a.op = CHANGE_PFC_SET;
	snprintf(a.obj, sizeof(a.obj), "eth0");
	fab_err_init(&err);
	assert_int_equal(apply_action_exec(&sys, &a, &err), -EOPNOTSUPP);
	assert_string_equal(err.msg, "dcb: eth0: not supported by bare");
}

static void test_pending_roundtrip(void **state)
{
	struct host_state hs;
	struct node_config ns;
	struct changeset cs, back;
	struct profile *p;
	struct fab_err err;
	struct change_pending pp = { .deadline = 1234567890LL, .pid = 4242, .pid_start = 98765 };
	char *text;

	full_plan(&hs, &ns, &cs, &p);
	text = changeset_undo_to_json(&cs, cs.n_steps, &pp);
	memset(&pp, 0, sizeof(pp));
	assert_non_null(text);
	changeset_init(&back);
	fab_err_init(&err);
	if (changeset_undo_from_json("p.json", text, strlen(text), &back, &pp, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(pp.deadline, 1234567890LL);
	assert_int_equal(pp.pid, 4242);
	assert_int_equal(pp.pid_start, 98765);
	assert_int_equal(back.n_steps, cs.n_steps);
	for (size_t i = 0; i < cs.n_steps; i++) {
		char a[160], b[160];

		assert_int_equal(back.steps[i].has_undo, cs.steps[i].has_undo);
		if (!cs.steps[i].has_undo)
			continue;
		assert_string_equal(change_action_str(&back.steps[i].undo, a, sizeof(a)),
				    change_action_str(&cs.steps[i].undo, b, sizeof(b)));
		/* The fields an ETS set writes survive the round trip. */
		assert_int_equal(back.steps[i].undo.ets.willing, cs.steps[i].undo.ets.willing);
		assert_memory_equal(back.steps[i].undo.ets.prio_tc, cs.steps[i].undo.ets.prio_tc, 8);
		assert_memory_equal(back.steps[i].undo.ets.tc_tx_bw_pct,
				    cs.steps[i].undo.ets.tc_tx_bw_pct, 8);
		assert_memory_equal(back.steps[i].undo.ets.tc_tsa, cs.steps[i].undo.ets.tc_tsa, 8);
		assert_int_equal(back.steps[i].undo.pfc.delay_bits, cs.steps[i].undo.pfc.delay_bits);
	}
	free(text);
	changeset_fini(&back);
	/* Malformed documents are input errors, never crashes. */
	changeset_init(&back);
	assert_int_equal(changeset_undo_from_json("p.json", "{\"schema\":1}", 12, &back, &pp, &err),
			 -EINVAL);
	assert_string_equal(err.msg, "p.json: not a fabricctl.pending/2 document");
	assert_int_equal(changeset_undo_from_json("p.json", "{", 1, &back, &pp, &err), -EINVAL);
	changeset_fini(&back);
	full_free(&hs, &ns, &cs, p);
}

/* PFC delay, receive buffers, max rates: diffed, ordered, run, rolled back, kept in the pending state. */
static void test_buffer_maxrate_delay(void **state)
{
	struct profile *p = prof("interfaces:\n  - match: eth0\n"
				 "    pfc: {enable: [3], delay: 10, storm_timeout_ms: auto}\n"
				 "    buffer: {prio_buffer: [0, 0, 0, 1, 0, 0, 0, 0],"
				 " size: [65536, 131072, 0, 0, 0, 0, 0, 0]}\n"
				 "    maxrate_kbps: [0, 0, 0, 0, 0, 0, 0, 1000000]\n");
	struct host_state hs;
	struct node_config ns;
	struct changeset cs, back;
	struct node_iface *ni;
	struct rec_sys r;
	struct apply_report rep = { 0 };
	struct change_pending pp = { 0 };
	struct fab_err err;
	char buf[1024], *text;

	host_state_init(&hs);
	link_add(&hs, "eth0", 9000, "");
	node_config_init(&ns, &hs);
	ni = dcb_iface(&ns, "eth0");
	ni->dcb.buffer_supported = ni->dcb.maxrate_supported = true;
	ni->dcb.buffer.buffer_size[0] = 262144;
	ni->dcb.buffer.total_size = 524288;
	ni->dcb.tc_maxrate_kbps[7] = 5;
	ni->storm_rc = 0;
	ni->storm_ms = 0;
	diff_ok(p, &ns, &cs);
	/* The storm guard's step goes right after PFC: drop it to keep the rest as below. */
	assert_int_equal(cs.n_steps, 4);
	assert_string_equal(cs.steps[1].field, "pfc.storm_timeout_ms");
	assert_string_equal(cs.steps[1].from, "off");
	assert_string_equal(cs.steps[1].to, "auto");
	assert_int_equal(cs.steps[1].undo.u, 0);
	assert_int_equal(cs.steps[1].act.u, 0xffff);
	changeset_fini(&cs);
	ni->storm_ms = 0xffff;
	diff_ok(p, &ns, &cs);
	assert_string_equal(steps_str(&cs, buf, sizeof(buf)),
		"eth0 pfc:enable none, delay 32>enable 3, delay 10 | "
		"eth0 buffer:prio_buffer 0,0,0,0,0,0,0,0>prio_buffer 0,0,0,1,0,0,0,0 | "
		"eth0 maxrate_kbps:0,0,0,0,0,0,0,5>0,0,0,0,0,0,0,1000000");
	assert_int_equal(cs.n_drift, 5);
	assert_string_equal(cs.drift[1].field, "pfc.delay");
	assert_string_equal(cs.drift[1].wanted, "10");
	assert_string_equal(cs.drift[1].found, "32");
	assert_string_equal(cs.drift[3].field, "buffer.size");
	assert_string_equal(cs.drift[3].found, "262144,0,0,0,0,0,0,0");
	/* total_size is carried as read; the undo restores mapping and sizes. */
	assert_int_equal(cs.steps[1].act.buffer.total_size, 524288);
	assert_int_equal(cs.steps[1].undo.buffer.buffer_size[0], 262144);
	/* The max-rate step fails: buffer, then PFC, are undone with their old values. */
	rec_sys_init(&r);
	r.fail_at = 3;
	assert_int_equal(apply_changeset_run(&r.sys, &cs, &rep, NULL, NULL), -EOPNOTSUPP);
	assert_true(rep.rolled_back);
	assert_int_equal(r.n, 5);
	assert_string_equal(r.log[0], "pfc eth0 0x08");
	assert_string_equal(r.log[1], "buffer eth0 p3=1 b1=131072");
	assert_string_equal(r.log[2], "maxrate eth0 tc3=0");
	assert_string_equal(r.log[3], "buffer eth0 p3=0 b1=0");
	assert_string_equal(r.log[4], "pfc eth0 0x00");
	/* The pending state keeps buffer and max-rate undos whole. */
	text = changeset_undo_to_json(&cs, cs.n_steps, &pp);
	assert_non_null(text);
	changeset_init(&back);
	fab_err_init(&err);
	if (changeset_undo_from_json("p.json", text, strlen(text), &back, &pp, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(back.steps[0].undo.pfc.delay_bits, 32);
	assert_memory_equal(&back.steps[1].undo.buffer, &cs.steps[1].undo.buffer,
			    sizeof(struct fab_dcb_buffer));
	assert_int_equal(back.steps[2].undo.op, CHANGE_MAXRATE_SET);
	assert_int_equal(back.steps[2].undo.maxrate[7], 5);
	free(text);
	changeset_fini(&back);
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

/* DCQCN parameters: drift per parameter, one step each with its undo, a missing file certain to fail. */
static void test_dcqcn(void **state)
{
	struct profile *p = prof("interfaces:\n  - match: eth0\n"
				 "    dcqcn: {cnp_dscp: 46, rp: {ai_rate: 10, min_rate: 2}}\n");
	struct host_state hs;
	struct node_config ns;
	struct changeset cs, back;
	struct node_iface *ni;
	struct rec_sys r;
	struct apply_report rep = { 0 };
	struct change_pending pp = { 0 };
	struct fab_err err;
	char buf[1024], *text;

	host_state_init(&hs);
	link_add(&hs, "eth0", 9000, "");
	node_config_init(&ns, &hs);
	ni = node_config_iface_add(&ns, "eth0");
	ni->dcqcn_rc = 0;
	ni->dcqcn.layout = DCQCN_LAYOUT_DEBUGFS;
	ni->dcqcn.have[DCQCN_CNP_DSCP] = ni->dcqcn.have[DCQCN_RP_AI_RATE] = true;
	ni->dcqcn.val[DCQCN_CNP_DSCP] = 48;
	ni->dcqcn.val[DCQCN_RP_AI_RATE] = 5;
	diff_ok(p, &ns, &cs);
	assert_string_equal(steps_str(&cs, buf, sizeof(buf)),
		"eth0 dcqcn.cnp_dscp:48>46 | eth0 dcqcn.rp.ai_rate:5>10 | eth0 dcqcn.rp.min_rate:unknown>2");
	assert_int_equal(cs.n_drift, 3);
	assert_string_equal(cs.drift[2].found, "unknown (not in debugfs)");
	assert_int_equal(changeset_n_fails(&cs), 1);
	rec_sys_init(&r);
	r.fail_at = 3;		/* the driver refuses min_rate, as it lacks the file */
	assert_int_equal(apply_changeset_run(&r.sys, &cs, &rep, NULL, NULL), -EOPNOTSUPP);
	assert_true(rep.rolled_back);
	assert_int_equal(r.n, 5);
	assert_string_equal(r.log[0], "dcqcn eth0 cnp_dscp=46");
	assert_string_equal(r.log[1], "dcqcn eth0 rp.ai_rate=10");
	assert_string_equal(r.log[2], "dcqcn eth0 rp.min_rate=2");
	assert_string_equal(r.log[3], "dcqcn eth0 rp.ai_rate=5");
	assert_string_equal(r.log[4], "dcqcn eth0 cnp_dscp=48");
	text = changeset_undo_to_json(&cs, 2, &pp);
	assert_non_null(text);
	changeset_init(&back);
	fab_err_init(&err);
	if (changeset_undo_from_json("p.json", text, strlen(text), &back, &pp, &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(back.steps[1].undo.op, CHANGE_DCQCN_SET);
	assert_int_equal(back.steps[1].undo.port, DCQCN_RP_AI_RATE);
	assert_int_equal(back.steps[1].undo.val, 5);
	free(text);
	changeset_fini(&back);
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mtu_only),
		cmocka_unit_test(test_buffer_maxrate_delay),
		cmocka_unit_test(test_dcqcn),
		cmocka_unit_test(test_unmatched_and_later_items_win),
		cmocka_unit_test(test_full_order_and_undo),
		cmocka_unit_test(test_bond_existing),
		cmocka_unit_test(test_bond_degraded),
		cmocka_unit_test(test_ib_verify),
		cmocka_unit_test(test_dry_run_fails),
		cmocka_unit_test(test_exec_all_ok),
		cmocka_unit_test(test_exec_rollback_reverse),
		cmocka_unit_test(test_exec_rollback_failure),
		cmocka_unit_test(test_exec_missing_slot),
		cmocka_unit_test(test_pending_roundtrip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
