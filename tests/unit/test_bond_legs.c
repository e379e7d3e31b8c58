// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The leg-finding rule (model/bond_legs) on recorded counters: 1 MiB trial
 * flows between two balance-xor layer3+4 bonds in the kernel's bonding
 * driver (the VM lab tests/vm/one-vm/70-bond-legs.sh when it ran the
 * trials with iperf3, its log: the carrying member's tx_bytes grow by the
 * payload plus ~0.4 % of headers (GSO), the quiet one's by the control
 * connection's packets or nothing); a slow leg's trials judged against the
 * bytes written (the case the caller must avoid).  layer3+4 spreads ports
 * over both legs; layer2+3 and active-backup keep every trial on one (said
 * why, not faked); balance-rr splits each flow; noise over the quiet bound
 * makes a trial unclear; the verdicts; two readings of a bond into a
 * trial's deltas; a direction's legs judged against its fastest leg, with
 * their findings.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model/bond_legs.h"
#include "model/topo.h"

#define MB 1048576ULL

static void bond_up(struct fab_bond *b, int mode, int policy)
{
	fab_bond_init(b);
	b->mode = mode;
	b->xmit_hash_policy = policy;
	assert_non_null(fab_bond_member_add(b, "eth1"));
	assert_non_null(fab_bond_member_add(b, "eth2"));
}

static struct bond_leg_trial trial(unsigned int sport, uint64_t d0, uint64_t d1)
{
	struct bond_leg_trial t = { .sport = sport, .sent_bytes = MB };

	t.tx_delta[0] = d0;
	t.tx_delta[1] = d1;
	return t;
}

/* Recorded (70-bond-legs.sh; a1 = eth1, a2 = eth2): 40002, 40003 on a1; 40001, 40004 on a2. */
static void test_layer34_both_legs(void **state)
{
	struct bond_leg_trial t[] = {
		trial(40001, 1519, 1051129), trial(40002, 1052584, 0),
		trial(40003, 1051063, 1519), trial(40004, 1452, 1051195),
	};
	struct fab_bond b;
	struct bond_legs l;

	bond_up(&b, FAB_BOND_MODE_BALANCE_XOR, FAB_BOND_XMIT_LAYER34);
	assert_true(bond_legs_port_hashed(b.mode, b.xmit_hash_policy));
	assert_int_equal(bond_legs_find(&b, t, 4, &l), 0);
	assert_int_equal(l.n_legs, 2);
	assert_int_equal(l.n_found, 2);
	assert_int_equal(l.n_unclear, 0);
	assert_null(l.why);
	assert_string_equal(l.legs[0].member, "eth1");
	assert_int_equal(l.legs[0].sport, 40002);
	assert_int_equal(l.legs[0].trial, 1);
	assert_string_equal(l.legs[1].member, "eth2");
	assert_int_equal(l.legs[1].sport, 40001);
	assert_int_equal(l.legs[1].trial, 0);
	fab_bond_fini(&b);
}

/* layer2+3 between two hosts: every port on eth2; eth1 gets none, and the policy is why. */
static void test_layer23_one_leg(void **state)
{
	struct bond_leg_trial t[] = {
		trial(40000, 0, 1085312), trial(40001, 143, 1085180), trial(40002, 0, 1085446),
	};
	struct fab_bond b;
	struct bond_legs l;

	bond_up(&b, FAB_BOND_MODE_8023AD, FAB_BOND_XMIT_LAYER23);
	assert_false(bond_legs_port_hashed(b.mode, b.xmit_hash_policy));
	assert_int_equal(bond_legs_find(&b, t, 3, &l), 0);
	assert_int_equal(l.n_found, 1);
	assert_int_equal(l.legs[0].sport, 0);
	assert_int_equal(l.legs[0].trial, -1);
	assert_int_equal(l.legs[1].sport, 40000);
	assert_non_null(l.why);
	assert_non_null(strstr(l.why, "hashes no port"));
	fab_bond_fini(&b);
}

static void test_active_backup(void **state)
{
	struct bond_leg_trial t[] = { trial(40000, 1085312, 0), trial(40001, 1085180, 0) };
	struct fab_bond b;
	struct bond_legs l;

	bond_up(&b, FAB_BOND_MODE_ACTIVE_BACKUP, FAB_BOND_XMIT_LAYER34);
	assert_false(bond_legs_port_hashed(b.mode, b.xmit_hash_policy));
	assert_int_equal(bond_legs_find(&b, t, 2, &l), 0);
	assert_int_equal(l.n_found, 1);
	assert_int_equal(l.legs[1].sport, 0);
	assert_non_null(strstr(l.why, "active-backup"));
	fab_bond_fini(&b);
}

/* balance-rr: each flow half on each member: no trial is any member's. */
static void test_round_robin_split(void **state)
{
	struct bond_leg_trial t[] = { trial(40000, 542656, 542656), trial(40001, 542590, 542722) };
	struct fab_bond b;
	struct bond_legs l;

	bond_up(&b, FAB_BOND_MODE_BALANCE_RR, FAB_BOND_XMIT_LAYER2);
	assert_int_equal(bond_legs_find(&b, t, 2, &l), 0);
	assert_int_equal(l.n_found, 0);
	assert_int_equal(l.n_unclear, 2);
	assert_non_null(strstr(l.why, "packets over the members"));
	fab_bond_fini(&b);
}

/*
 * Recorded with tbf at 20 Mbit/s on a2, each trial's bytes taken as the
 * 1 MiB the sender wrote (not what the peer received: the tail was still
 * queued behind tbf when the sender's last write returned): 77-86 % on a2,
 * so a2's trials are not found.  The caller must give the bytes received.
 */
static void test_slow_leg_undrained(void **state)
{
	struct bond_leg_trial t[] = {
		trial(40017, 1524, 904955), trial(40018, 1052648, 0), trial(40020, 0, 885547),
		trial(40029, 0, 805359), trial(40030, 1051063, 1523),
	};
	struct fab_bond b;
	struct bond_legs l;

	bond_up(&b, FAB_BOND_MODE_BALANCE_XOR, FAB_BOND_XMIT_LAYER34);
	assert_int_equal(bond_legs_find(&b, t, 5, &l), 0);
	assert_int_equal(l.n_found, 1);
	assert_int_equal(l.n_unclear, 3);	/* 86 %, 84 %, 77 %: all under 90 % */
	assert_int_equal(l.legs[0].sport, 40018);
	assert_int_equal(l.legs[1].sport, 0);
	assert_non_null(strstr(l.why, "split or hidden"));
	fab_bond_fini(&b);
}

/*
 * A hardware RoCE LAG (mlx5): the RDMA device sends past the bond's
 * netdev, whose members' tx_bytes see only the control connection's few
 * packets.  Every trial unseen: no member found, and the why says the
 * counters, not "split"; a trial with 10 % together seen is not unseen.
 */
static void test_unseen_roce_lag(void **state)
{
	struct bond_leg_trial t[] = { trial(53248, 420, 0), trial(53249, 0, 356) };
	struct bond_leg_trial edge = { .sport = 53250, .sent_bytes = 1000, .tx_delta = { 50, 50 } };
	struct bond_leg_trial under = edge;
	struct fab_bond b;
	struct bond_legs l;

	under.tx_delta[1]--;
	assert_true(bond_legs_trial_unseen(&t[0], 2));
	assert_true(bond_legs_trial_unseen(&t[1], 2));
	assert_false(bond_legs_trial_unseen(&edge, 2));		/* 10 % together */
	assert_true(bond_legs_trial_unseen(&under, 2));
	bond_up(&b, FAB_BOND_MODE_8023AD, FAB_BOND_XMIT_LAYER34);
	assert_int_equal(bond_legs_find(&b, t, 2, &l), 0);
	assert_int_equal(l.n_found, 0);
	assert_int_equal(l.n_unclear, 2);
	assert_int_equal(l.n_unseen, 2);
	assert_non_null(strstr(l.why, "past the bond's netdev"));
	/* one trial seen split over both members: unclear, not unseen; the why is the split */
	t[1] = trial(53249, MB / 2, MB / 2);
	assert_int_equal(bond_legs_find(&b, t, 2, &l), 0);
	assert_int_equal(l.n_unseen, 1);
	assert_non_null(strstr(l.why, "split or hidden"));
	/* a member found: the others' why is never the counters' */
	t[1] = trial(53249, MB, 0);
	assert_int_equal(bond_legs_find(&b, t, 2, &l), 0);
	assert_int_equal(l.n_found, 1);
	assert_null(strstr(l.why, "past the bond's netdev"));
	fab_bond_fini(&b);
}

/* The bounds: 90% carried, under 10% on the other; at and across each edge. */
static void test_bounds(void **state)
{
	struct bond_leg_trial t = trial(1, MB * 9 / 10 + 1, MB / 10 - 1);
	struct fab_bond b;
	struct bond_legs l;

	assert_int_equal(bond_legs_trial_member(&t, 2), 0);
	t.tx_delta[1] = MB / 10 + 1;	/* the other leg was not quiet: unclear */
	assert_int_equal(bond_legs_trial_member(&t, 2), -1);
	t = trial(1, MB * 9 / 10 - 1, 0);	/* under 90%: lost or not this member's */
	assert_int_equal(bond_legs_trial_member(&t, 2), -1);
	t = trial(1, 2 * MB, 2 * MB);	/* both grew by all of it: unclear */
	assert_int_equal(bond_legs_trial_member(&t, 2), -1);

	/* a layer3+4 bond whose trials were all hidden by noise: no policy to blame */
	bond_up(&b, FAB_BOND_MODE_BALANCE_XOR, FAB_BOND_XMIT_LAYER34);
	t = trial(40000, 1085312, 200000);
	assert_int_equal(bond_legs_find(&b, &t, 1, &l), 0);
	assert_int_equal(l.n_found, 0);
	assert_non_null(strstr(l.why, "split or hidden"));
	/* every trial on eth1, cleanly: the counters say so, the policy does not excuse it */
	t = trial(40000, 1085312, 0);
	assert_int_equal(bond_legs_find(&b, &t, 1, &l), 0);
	assert_string_equal(l.why, "no trial flow landed on the member");
	fab_bond_fini(&b);
}

static void test_invalid(void **state)
{
	struct bond_leg_trial t = trial(40000, 10, 0);
	struct fab_bond b;
	struct bond_legs l;

	fab_bond_init(&b);
	assert_int_equal(bond_legs_find(&b, &t, 1, &l), -EINVAL);	/* no members */
	bond_up(&b, FAB_BOND_MODE_8023AD, FAB_BOND_XMIT_LAYER34);
	t.sent_bytes = 0;
	assert_int_equal(bond_legs_find(&b, &t, 1, &l), -EINVAL);
	assert_int_equal(bond_legs_find(&b, NULL, 0, &l), 0);	/* no trials: nothing found */
	assert_int_equal(l.n_found, 0);
	fab_bond_fini(&b);
}

static void test_judge(void **state)
{
	assert_int_equal(bond_leg_judge(true, false, 900, 1000, 80), BOND_LEG_OK);
	assert_int_equal(bond_leg_judge(true, false, 799, 1000, 80), BOND_LEG_SLOW);
	assert_int_equal(bond_leg_judge(true, false, 800, 1000, 80), BOND_LEG_OK);
	assert_int_equal(bond_leg_judge(true, true, 900, 1000, 80), BOND_LEG_DEAD);
	assert_int_equal(bond_leg_judge(true, false, 0, 1000, 80), BOND_LEG_DEAD);
	assert_int_equal(bond_leg_judge(true, false, 5, 0, 80), BOND_LEG_OK);	/* no reference */
	assert_int_equal(bond_leg_judge(false, false, 0, 1000, 80), BOND_LEG_UNTESTED);
	assert_string_equal(bond_leg_verdict_name(BOND_LEG_SLOW), "slow");
	assert_string_equal(bond_leg_verdict_name(BOND_LEG_UNTESTED), "untested");
}

static void test_finding(void **state)
{
	char buf[256];

	bond_leg_finding(buf, sizeof(buf), BOND_LEG_SLOW, "ha", "a2", "s2", "a2s", 3.4, 20, NULL);
	assert_string_equal(buf, "slow leg: ha a2 (switch s2 port a2s): 3 of 20 Mbit/s");
	bond_leg_finding(buf, sizeof(buf), BOND_LEG_SLOW, "ha", "a2", NULL, NULL, 3.4, 0, NULL);
	assert_string_equal(buf, "slow leg: ha a2 (no LLDP neighbour): 3 Mbit/s");
	bond_leg_finding(buf, sizeof(buf), BOND_LEG_DEAD, "ha", "a1", "s1", "", 0, 20, NULL);
	assert_string_equal(buf, "dead leg: ha a1 (switch s1 port ?): no bytes");
	bond_leg_finding(buf, sizeof(buf), BOND_LEG_UNTESTED, "ha", "a1", "s1", "Ethernet1/1", 0,
			 20, "the xmit_hash_policy hashes no port: one address pair takes one leg");
	assert_string_equal(buf, "untested leg: ha a1 (switch s1 port Ethernet1/1): the "
				 "xmit_hash_policy hashes no port: one address pair takes one leg");
	bond_leg_finding(buf, sizeof(buf), BOND_LEG_OK, "hb", "b1", "s1", "b1s", 19.6, 20, NULL);
	assert_string_equal(buf, "ok leg: hb b1 (switch s1 port b1s): 20 Mbit/s");
}

static struct bond_snap snap2(uint64_t tx1, uint64_t tx2)
{
	struct bond_snap s = { .ifname = "bond0", .is_bond = true,
			       .mode = FAB_BOND_MODE_BALANCE_XOR, .policy = FAB_BOND_XMIT_LAYER34,
			       .n_members = 2 };

	strcpy(s.m[0].name, "a1");
	strcpy(s.m[1].name, "a2");
	s.m[0].link_up = s.m[1].link_up = true;
	s.m[0].tx_bytes = tx1;
	s.m[1].tx_bytes = tx2;
	return s;
}

/* Two readings around a trial: the growth per member; readings of other members refused. */
static void test_snap_delta(void **state)
{
	struct bond_snap b = snap2(1000, 5000), a = snap2(1051129 + 1000, 5000 + 1519);
	uint64_t d[FAB_BOND_MAX_MEMBERS];

	assert_int_equal(bond_snap_delta(&b, &a, d), 0);
	assert_int_equal(d[0], 1051129);
	assert_int_equal(d[1], 1519);
	a.m[1].tx_bytes = 10;		/* went back (a counter reset): 0, not a wrap */
	assert_int_equal(bond_snap_delta(&b, &a, d), 0);
	assert_int_equal(d[1], 0);
	strcpy(a.m[1].name, "a3");
	assert_int_equal(bond_snap_delta(&b, &a, d), -EINVAL);
	a = snap2(0, 0);
	a.n_members = 1;
	assert_int_equal(bond_snap_delta(&b, &a, d), -EINVAL);
}

/* The rule over a reading: its members, mode and policy. */
static void test_find_snap(void **state)
{
	struct bond_leg_trial t[] = { trial(40001, 1519, 1051129), trial(40002, 1052584, 0) };
	struct bond_snap s = snap2(0, 0);
	struct bond_legs l;

	assert_int_equal(bond_legs_find_snap(&s, t, 2, &l), 0);
	assert_int_equal(l.n_found, 2);
	assert_string_equal(l.legs[0].member, "a1");
	assert_int_equal(l.legs[0].sport, 40002);
	assert_int_equal(l.legs[1].sport, 40001);
	s.mode = FAB_BOND_MODE_ACTIVE_BACKUP;
	assert_int_equal(bond_legs_find_snap(&s, NULL, 0, &l), 0);
	assert_int_equal(l.n_found, 0);
	assert_non_null(strstr(l.why, "active-backup"));
	s.n_members = 0;
	assert_int_equal(bond_legs_find_snap(&s, t, 2, &l), -EINVAL);
}

/* A direction of two legs as the VM lab measured them (tests/vm/one-vm/70-bond-legs.sh). */
static struct bond_legs_dir dir2(double m1, double m2)
{
	struct bond_legs_dir d = { .run = true, .node = "ha", .bond = "bond0",
				   .mode = FAB_BOND_MODE_BALANCE_XOR,
				   .policy = FAB_BOND_XMIT_LAYER34, .n_legs = 2 };

	strcpy(d.legs[0].member, "a1");
	strcpy(d.legs[1].member, "a2");
	d.legs[0].link_up = d.legs[1].link_up = true;
	d.legs[0].sport = 29100;
	d.legs[1].sport = 29102;
	d.legs[0].mbps = m1;
	d.legs[1].mbps = m2;
	return d;
}

static void test_judge_dir(void **state)
{
	struct bond_legs_dir d = dir2(19.3, 19.1);

	bond_legs_judge_dir(&d, 50, false);		/* both ok */
	assert_int_equal(d.n_bad, 0);
	assert_true(d.ref_mbps == 19.3);
	assert_int_equal(d.legs[1].verdict, BOND_LEG_OK);
	assert_string_equal(d.legs[1].finding, "");

	d = dir2(19.1, 3.9);				/* a2 behind a 4 Mbit/s tbf */
	bond_legs_judge_dir(&d, 50, false);
	assert_int_equal(d.n_bad, 1);
	assert_int_equal(d.legs[0].verdict, BOND_LEG_OK);
	assert_int_equal(d.legs[1].verdict, BOND_LEG_SLOW);
	assert_string_equal(d.legs[1].finding, "slow leg: ha a2: 4 of 19 Mbit/s");
	assert_true(d.legs[1].fault);
	assert_false(d.legs[0].fault);
	bond_legs_judge_dir(&d, 50, true);		/* LLDP read, no neighbour */
	assert_string_equal(d.legs[1].finding,
			    "slow leg: ha a2 (no LLDP neighbour): 4 of 19 Mbit/s");
	strcpy(d.legs[1].sw_node, "s2");
	strcpy(d.legs[1].sw_port, "a2s");
	bond_legs_judge_dir(&d, 50, true);
	assert_string_equal(d.legs[1].finding,
			    "slow leg: ha a2 (switch s2 port a2s): 4 of 19 Mbit/s");

	d = dir2(19.1, 0);				/* its flow failed */
	d.legs[1].failed = true;
	bond_legs_judge_dir(&d, 50, false);
	assert_int_equal(d.n_bad, 1);
	assert_string_equal(d.legs[1].finding, "dead leg: ha a2: its flow failed");
}

/*
 * A rating (the pair's expected_from "rated"): a bond whose legs are all
 * equally slow is level with itself, so only the rating flags it; a rating
 * under the fastest leg changes nothing.
 */
static void test_judge_dir_rated(void **state)
{
	struct bond_legs_dir d = dir2(4.1, 3.9);	/* both legs behind 4 Mbit/s */

	bond_legs_judge_dir(&d, 50, false);		/* no rating: level, ok */
	assert_int_equal(d.n_bad, 0);
	d.rated_mbps = 20;				/* rate_gbps=0.02 */
	bond_legs_judge_dir(&d, 50, false);
	assert_int_equal(d.n_bad, 2);
	assert_true(d.ref_mbps == 4.1);			/* still the fastest leg */
	assert_int_equal(d.legs[0].verdict, BOND_LEG_SLOW);
	assert_string_equal(d.legs[0].finding, "slow leg: ha a1: 4 of 20 Mbit/s rated");
	assert_string_equal(d.legs[1].finding, "slow leg: ha a2: 4 of 20 Mbit/s rated");

	d = dir2(19.1, 3.9);				/* one slow leg, rated under the fastest */
	d.rated_mbps = 10;
	bond_legs_judge_dir(&d, 50, false);
	assert_int_equal(d.n_bad, 1);
	assert_int_equal(d.legs[0].verdict, BOND_LEG_OK);
	assert_string_equal(d.legs[1].finding, "slow leg: ha a2: 4 of 19 Mbit/s");

	d = dir2(19.1, 11);				/* level with the rating: ok */
	d.rated_mbps = 20;
	bond_legs_judge_dir(&d, 50, false);
	assert_int_equal(d.n_bad, 0);
	d.legs[1].mbps = 9.4;				/* under 50 % of the rating */
	bond_legs_judge_dir(&d, 50, false);
	assert_int_equal(d.n_bad, 1);
	assert_string_equal(d.legs[1].finding, "slow leg: ha a2: 9 of 20 Mbit/s rated");
}

/*
 * The retest: every leg keeps its best flow of the passes.  A slow leg
 * stays slow through a pass in which a busy moment slowed its healthy
 * sibling (tests/vm/pair-legs.sh, b's eth0 at 5.8 beside eth1's 4.0: on
 * its own that pass was level, and it stood); a healthy leg slowed once is
 * ok again; a flow that failed gives way to one that ran.
 */
static void test_keep_best(void **state)
{
	struct bond_legs_dir d = dir2(19.2, 4.0), pass = dir2(5.8, 4.0);

	bond_legs_judge_dir(&d, 50, false);
	assert_int_equal(d.n_bad, 1);
	bond_legs_judge_dir(&pass, 50, false);		/* on its own: level */
	assert_int_equal(pass.n_bad, 0);
	pass.legs[0].bytes = 362500;
	bond_legs_keep_best(&d, &pass);
	bond_legs_judge_dir(&d, 50, false);
	assert_int_equal(d.n_bad, 1);
	assert_true(d.legs[0].mbps == 19.2);
	assert_int_equal(d.legs[0].bytes, 0);		/* pass 1's flow kept */
	assert_string_equal(d.legs[1].finding, "slow leg: ha a2: 4 of 19 Mbit/s");

	d = dir2(6.3, 13.7);				/* a1 slowed by a busy moment */
	bond_legs_judge_dir(&d, 80, false);
	assert_int_equal(d.n_bad, 1);
	pass = dir2(13.5, 12.9);
	pass.legs[0].bytes = 843750;
	pass.legs[0].tx_delta = 881000;
	bond_legs_keep_best(&d, &pass);
	bond_legs_judge_dir(&d, 80, false);
	assert_int_equal(d.n_bad, 0);
	assert_true(d.legs[0].mbps == 13.5 && d.legs[1].mbps == 13.7);
	assert_int_equal(d.legs[0].bytes, 843750);	/* with its own flow's counts */
	assert_int_equal(d.legs[0].tx_delta, 881000);

	d = dir2(19.1, 0);				/* failed, then ran */
	d.legs[1].failed = true;
	pass = dir2(0, 18.7);
	pass.legs[0].failed = true;
	bond_legs_keep_best(&d, &pass);
	bond_legs_judge_dir(&d, 80, false);
	assert_int_equal(d.n_bad, 0);
	assert_false(d.legs[0].failed || d.legs[1].failed);
	assert_true(d.legs[0].mbps == 19.1 && d.legs[1].mbps == 18.7);

	d = dir2(19.1, 0);				/* failed twice: dead */
	d.legs[1].failed = true;
	pass = d;
	bond_legs_keep_best(&d, &pass);
	bond_legs_judge_dir(&d, 80, false);
	assert_int_equal(d.legs[1].verdict, BOND_LEG_DEAD);
}

/* A member no trial landed on: a fault on a port hash (dead when its link is down), else why. */
static void test_judge_dir_untested(void **state)
{
	struct bond_legs_dir d = dir2(19.1, 0);

	d.legs[1].sport = 0;
	bond_legs_judge_dir(&d, 80, false);
	assert_int_equal(d.n_bad, 1);
	assert_int_equal(d.legs[1].verdict, BOND_LEG_UNTESTED);
	assert_string_equal(d.legs[1].finding,
			    "untested leg: ha a2: no trial flow landed on the member");
	d.legs[1].link_up = false;
	bond_legs_judge_dir(&d, 80, false);
	assert_int_equal(d.n_bad, 1);
	assert_int_equal(d.legs[1].verdict, BOND_LEG_DEAD);
	assert_string_equal(d.legs[1].finding,
			    "dead leg: ha a2: member link down: no trial flow landed on it");
	d.unread = true;				/* counters not read: said, no fault */
	bond_legs_judge_dir(&d, 80, false);
	assert_int_equal(d.n_bad, 0);

	d = dir2(0, 0);					/* active-backup: no leg per port */
	d.mode = FAB_BOND_MODE_ACTIVE_BACKUP;
	d.legs[0].sport = d.legs[1].sport = 0;
	d.legs[1].link_up = false;
	d.why = "active-backup: the active member carries every flow, the others stand by";
	bond_legs_judge_dir(&d, 80, false);
	assert_int_equal(d.n_bad, 0);
	assert_int_equal(d.legs[1].verdict, BOND_LEG_UNTESTED);
	assert_false(d.legs[1].fault);
	assert_non_null(strstr(d.legs[1].finding, "active-backup"));
	assert_true(d.ref_mbps == 0);
}

/* A member's switch port by the topology: the host at its access link's end, its port, the peer. */
static void test_neighbour(void **state)
{
	struct topo *t = topo_new();
	struct topo_node *ha, *s1, *s2;
	char sw[128], port[64];

	assert_non_null(t);
	ha = topo_node_add(t, TOPO_NODE_HOST, "ha", 0);
	s1 = topo_node_add(t, TOPO_NODE_SWITCH, "s1", 0);
	s2 = topo_node_add(t, TOPO_NODE_SWITCH, "s2", 0);
	assert_int_equal(topo_link_add(t, topo_port_add(s1, 0, "a1s"), topo_port_add(ha, 0, "a1"),
				       0), 0);
	assert_int_equal(topo_link_add(t, topo_port_add(ha, 0, "a2"), topo_port_add(s2, 0, "a2s"),
				       0), 0);
	assert_true(bond_leg_neighbour(t, 0, "a2", sw, sizeof(sw), port, sizeof(port)));
	assert_string_equal(sw, "s2");
	assert_string_equal(port, "a2s");
	assert_true(bond_leg_neighbour(t, 1, "a1", sw, sizeof(sw), port, sizeof(port)));
	assert_string_equal(sw, "s1");
	assert_string_equal(port, "a1s");
	assert_false(bond_leg_neighbour(t, 0, "a3", sw, sizeof(sw), port, sizeof(port)));
	assert_string_equal(sw, "");
	assert_false(bond_leg_neighbour(t, UINT32_MAX, "a1", sw, sizeof(sw), port, sizeof(port)));
	assert_false(bond_leg_neighbour(NULL, 0, "a1", sw, sizeof(sw), port, sizeof(port)));
	topo_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layer34_both_legs), cmocka_unit_test(test_layer23_one_leg),
		cmocka_unit_test(test_active_backup),	  cmocka_unit_test(test_round_robin_split),
		cmocka_unit_test(test_slow_leg_undrained), cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_unseen_roce_lag),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_judge), cmocka_unit_test(test_finding),
		cmocka_unit_test(test_snap_delta), cmocka_unit_test(test_find_snap),
		cmocka_unit_test(test_judge_dir), cmocka_unit_test(test_judge_dir_untested),
		cmocka_unit_test(test_judge_dir_rated),
		cmocka_unit_test(test_keep_best),
		cmocka_unit_test(test_neighbour),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
