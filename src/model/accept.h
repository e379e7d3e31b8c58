/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `fabricctl accept` (docs/accept.md): the staged, fail-closed check of
 * new nodes against the running fabric, as a model: the stages, the
 * findings with their stable fault codes, the verdict, the policy file,
 * and the pure parts of the judging (a new host's fabric ports up at their
 * rated width/speed, cabling problems restricted to the new part of the
 * fabric, dual-homing, the links the traffic pairs must cross).
 *
 * A stage ends passed, failed, skipped (turned off, or nothing to read it
 * with: the note says why) or blocked (a stage it depends on failed or was
 * blocked; fail-closed).  The verdict is ACCEPT only when no stage failed
 * or was blocked and there is no finding.
 *
 * Pure: no I/O.  Ownership: struct accept_report owns its findings;
 * accept_report_fini() frees them.  accept_pairs_cover() fills a struct coverage
 * (model/coverage.h) that the caller frees with coverage_fini().
 */
#ifndef FAB_MODEL_ACCEPT_H
#define FAB_MODEL_ACCEPT_H

#include <stdbool.h>
#include <stddef.h>

#include "model/counter_eval.h"
#include "model/coverage.h"
#include "model/host_state.h"
#include "model/hosts.h"
#include "model/profile.h"
#include "model/route.h"
#include "model/topo.h"
#include "util/err.h"

enum accept_stage {
	ACCEPT_ST_REACH = 0,
	ACCEPT_ST_CONFIG,
	ACCEPT_ST_CABLING,
	ACCEPT_ST_COUNTERS_BASE,
	ACCEPT_ST_TRAFFIC,
	ACCEPT_ST_COUNTERS_AFTER,
	ACCEPT_ST_N,
};

enum accept_status {
	ACCEPT_NOT_RUN = 0,
	ACCEPT_PASSED,
	ACCEPT_FAILED,
	ACCEPT_SKIPPED,
	ACCEPT_BLOCKED,
};

/* Stable fault codes: names never change once shipped (docs/accept.md). */
enum accept_code {
	FAB_REACH_NO_WORKER = 0,	/* the node's worker did not answer */
	FAB_REACH_VERSION,		/* it speaks another protocol / software version */
	FAB_REACH_PORT_DOWN,		/* a fabric port of a new host is not up (or not there) */
	FAB_REACH_PORT_DEGRADED,	/* ... up, below its rated speed or the expected width/speed */
	FAB_REACH_PORT_UNREAD,		/* its ports or its data-path interface could not be read */
	FAB_CONFIG_DRIFT,		/* a profile field differs on a new node */
	FAB_CONFIG_UNREAD,		/* the node could not be verified */
	FAB_CABLE_MISSING,
	FAB_CABLE_MISWIRED,
	FAB_CABLE_UNEXPECTED,
	FAB_CABLE_DEGRADED,
	FAB_CABLE_DOWN,
	FAB_CABLE_ERRORS,
	FAB_CABLE_MTU,
	FAB_CABLE_RAIL,
	FAB_CABLE_SINGLE_HOMED,
	FAB_CABLE_ROUTE,		/* IB: a route to or from a new node does not reach */
	FAB_CABLE_ID,			/* IB: a new node's GUID or LID duplicated, zero or off its LMC */
	FAB_CABLE_UNREAD,		/* the cabling could not be read */
	FAB_TRAFFIC_SLOW_LINK,
	FAB_TRAFFIC_SLOW_NODE,
	FAB_TRAFFIC_SLOW_PAIR,		/* slow pair that no link or node explains */
	FAB_TRAFFIC_FAILED,		/* a pair that could not be measured */
	FAB_TRAFFIC_LATENCY,		/* a pair's round-trip p99 above the policy's bound */
	FAB_TRAFFIC_LEG,		/* a new host's bond member slow, dead or unused (its legs) */
	FAB_TRAFFIC_LEG_UNREAD,		/* a new host's bond whose legs were not measured */
	FAB_COUNTER_ERRORS,		/* a port's error counter grew past its threshold */
	FAB_COUNTER_WARN,		/* a congestion counter grew past its threshold */
	FAB_COUNTER_UNREAD,		/* the counters could not be read */
	FAB_COUNTER_OPTICS_FAILING,	/* a new host's cable end is failing (model/accept_optics.h) */
	FAB_COUNTER_OPTICS_MARGINAL,	/* ... marginal */
	FAB_CODE_N,
};

struct accept_finding {
	enum accept_stage stage;
	enum accept_code code;
	char node[128];			/* the node concerned, "" when a link */
	char link[256];			/* "A PORT <-> B PORT", "" when a node */
	char evidence[512];
};

struct accept_stage_result {
	enum accept_status status;
	char note[512];			/* what ran, or why skipped / blocked */
	double secs;
};

/* A node of the hosts file as the reach stage saw it. */
struct accept_node {
	char name[FAB_HOST_NAME_MAX];
	bool is_new, endpoint, reached;
};

struct accept_report {
	struct accept_stage_result st[ACCEPT_ST_N];
	struct accept_node *nodes;		/* every node of the hosts file, in its order */
	size_t n_nodes;
	struct accept_finding *findings;
	size_t n_findings, cap;
	size_t n_new, n_existing, n_switches_new;	/* end points new / existing, new switches */
	size_t n_pairs;				/* measured by the traffic stage */
	size_t n_pairs_chosen;			/* by accept_pairs_cover() */
	size_t links_target, links_short;	/* links to cross K times; of them, short */
	size_t links_off_rails;			/* rails: of links_short, crossed by no rail pair */
	unsigned int coverage_k;
	bool accept;				/* accept_verdict() */
};

/* "reach", "configuration", "cabling", "counters-baseline", "traffic", "counters-after". */
const char *accept_stage_name(enum accept_stage s);
/* "passed", "failed", "skipped", "blocked", "not-run". */
const char *accept_status_name(enum accept_status s);
/* "FAB-REACH-NO-WORKER", ...; NULL when out of range. */
const char *accept_code_name(enum accept_code c);

void accept_report_init(struct accept_report *r);
void accept_report_fini(struct accept_report *r);

/* Append a finding (strings copied, truncated to fit); -ENOMEM. */
int accept_finding_add(struct accept_report *r, enum accept_stage stage, enum accept_code code,
		       const char *node, const char *link, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Append a node (reach stage); -ENOMEM. */
int accept_node_add(struct accept_report *r, const char *name, bool is_new, bool endpoint,
		    bool reached);

/* Findings of stage @s. */
size_t accept_stage_findings(const struct accept_report *r, enum accept_stage s);

/* Set stage @s's status and note. */
void accept_stage_set(struct accept_report *r, enum accept_stage s, enum accept_status st,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * The stage that blocks @s: the first stage @s depends on that failed or
 * was blocked, or -1.  Dependencies: configuration, cabling and the
 * counters baseline on reach; traffic on reach, configuration and cabling;
 * counters after on the baseline and traffic.
 */
int accept_stage_blocker(const struct accept_report *r, enum accept_stage s);

/* Set r->accept: no stage failed or blocked, no finding.  Returns it. */
bool accept_verdict(struct accept_report *r);

/* ---- policy (YAML, docs/accept.md) ---- */

#define ACCEPT_PCT_DEFAULT 90u		/* NGC multinode perf: 90 % of link speed */
#define ACCEPT_PCT_FLOOR 80u		/* never judge below the seeds' 80 % */
#define ACCEPT_K_DEFAULT 2u

struct accept_policy {
	unsigned int pct_expected;	/* a pair below this % of its expected rate is slow */
	unsigned int coverage_k;	/* pairs crossing every new link */
	unsigned int lat_p99_us;	/* a pair whose round-trip p99 is above this is slow; 0 off */
	unsigned int port_rate_gbps;	/* stage 1: rated data-path speed of a host without rate_gbps=; 0 none */
	unsigned int leg_pct;		/* stage 5: a new bond's leg under this % of its fastest is slow */
	bool stage_on[ACCEPT_ST_N];
	struct counter_policy counters;	/* stages 4 and 6: delta thresholds, severities */
	bool optics_marginal_note;	/* optics: {marginal: note}: a marginal cable end is
					 * named in the stage's note, not a finding (default
					 * reject: FAB-COUNTER-OPTICS-MARGINAL) */
};

void accept_policy_default(struct accept_policy *p);

/*
 * Parse the policy file (@len bytes named @fname for messages) into @p
 * (defaults first): keys pct_expected (80..100), coverage (1..64),
 * latency_p99_us (0..10000000, 0 off), port_rate_gbps (0..1000000, 0
 * none), leg_pct (10..100, default 80), stages (a mapping of stage name to true/false), counters (the list of counter_policy_parse(),
 * model/counter_eval.h) and optics (a mapping: marginal, reject or note).
 * Bad input, "FILE:LINE:COL: FIELD: message".
 */
int accept_policy_parse(struct accept_policy *p, const char *buf, size_t len, const char *fname,
			struct fab_err *err);

/* ---- reach: the fabric ports of a new host (docs/accept.md "Fabric ports") ---- */

/*
 * What stage 1 expects of one host's fabric ports.  The ports judged:
 *   - its data-path interface @datapath (the one the worker's counters op
 *     reads: the hosts file's ifname=, else the one holding ADDRESS); when
 *     it is a bond, its members too;
 *   - with @profile: every interface a non-optional `interfaces:` item
 *     names with `match:` (items matching by driver or kind only say how
 *     to configure ports, not which are the fabric's), and
 *     every member of a `bonds:` item and the bond, those that exist
 *     (absent ones are stage 2's drift); never "lo";
 *   - RDMA ports: those whose netdev is one of the interfaces above
 *     (RoCE), the hosts file's rdma=DEV[:PORT] (without a port: the first
 *     ACTIVE one, else the first), and every port a non-optional
 *     `infiniband:` item of @profile matches.
 * An interface is up when it is admin up and its operstate is "up" (or
 * "unknown", as drivers without carrier reporting say); an RDMA port when
 * its state is ACTIVE and its physical state LINK_UP (or not reported).
 * Rated speed: @rate_gbps against the data-path interface's speed (its
 * members' when a bond), only when the interface reports one.  RDMA width
 * and lane speed: the profile's `infiniband:` width/speed when it sets
 * them, else what a strict majority of the fleet's judged, up RDMA ports
 * of the same link layer run at (@norm; the tier rule of
 * topo_health_check(), topo_tally_majority()).  Pure.
 */
struct accept_port_want {
	const char *datapath;		/* NULL or "": not known (no interface is judged as one) */
	double rate_gbps;		/* 0: no rated speed */
	const char *rate_from;		/* where @rate_gbps comes from, for the evidence */
	const char *rdma;		/* rdma=DEV; NULL or "": none */
	unsigned int rdma_port;		/* its PORT; 0: the first ACTIVE one */
	const struct profile *profile;	/* NULL: none */
};

/* What the fleet's judged, up RDMA ports run at: [0] InfiniBand, [1] Ethernet (RoCE). */
struct accept_port_norm {
	struct topo_tally width[2];	/* lanes */
	struct topo_tally lane[2];	/* per-lane Mb/s */
};

/* What accept_ports_judge() judged on one host. */
struct accept_port_count {
	size_t ports;			/* interfaces and RDMA ports judged */
	size_t down, degraded;		/* of them */
	size_t speed_unknown;		/* rated interfaces that report no speed (not judged on it) */
};

/* Count @hs's judged RDMA ports that are up into @norm (zero it first). */
void accept_port_norm_add(struct accept_port_norm *norm, const struct host_state *hs,
			  const struct accept_port_want *w);

/*
 * Judge @hs's fabric ports: one FAB-REACH-PORT-DOWN or
 * FAB-REACH-PORT-DEGRADED finding (stage reach, node @node) per port that
 * is down or below what is expected, its evidence naming the port first
 * ("eth0 down (admin down, operstate down): the data-path interface",
 * "eth0 25000 Mb/s, rated 100 Gb/s (rate_gbps=)", "mlx5_0/1 1X, expected
 * 4X (9 of 10 RDMA ports of the fleet run 4X)"); rdma=DEV naming a
 * device or port the host lacks is FAB-REACH-PORT-DOWN.  Adds to *@c.
 * -ENOMEM.
 */
int accept_ports_judge(struct accept_report *r, const char *node, const struct host_state *hs,
		       const struct accept_port_want *w, const struct accept_port_norm *norm,
		       struct accept_port_count *c);

/* ---- cabling ---- */

/*
 * Is node @name part of the new fabric: one of the @n names in @names, or
 * one of them followed by a space and more (an IB NodeDescription
 * "HOST DEV", as route_place() matches hosts)?
 */
bool accept_name_in(const char *const *names, size_t n, const char *name);

/*
 * Findings for every problem of @found (after topo_diff & co.) that
 * touches a new node (an end, the peer or where the cable should go);
 * problems only among existing nodes are not the new racks' doing and are
 * left out (counted in *@n_other).  -ENOMEM.
 */
int accept_cabling_findings(struct accept_report *r, const struct topo *found,
			    const char *const *new_names, size_t n_new, size_t *n_other);

/*
 * IB (discover --checks routes, ids having run on @found): for each of
 * the @n_new new nodes @new_names that a route to or from it does not
 * reach, one FAB-CABLE-ROUTE finding with how many and the first (source,
 * destination LID, the switch and LFT entry where it breaks, why).
 * 0 or -ENOMEM.
 */
int accept_route_findings(struct accept_report *r, const struct topo *found,
			  const char *const *new_names, size_t n_new);

enum accept_homing {
	ACCEPT_HOMING_DUAL = 0,		/* the members reach two or more switches */
	ACCEPT_HOMING_UNKNOWN,		/* not judged: host not in the graph, < 2 members, no leg seen */
	ACCEPT_HOMING_ONE_LEG,		/* only one member has an LLDP neighbour */
	ACCEPT_HOMING_ONE_SWITCH,	/* every linked member reaches the same switch */
};

/*
 * Dual-homing of host @node, whose bond has the @n_members members
 * @members: the switches their LLDP neighbours in @found are on.  @legs
 * gets "eth0 -> leaf3 swp1, eth1 -> leaf3 swp10"; *@shared the (first)
 * switch, *@n_linked the members with a neighbour.  Shared by accept's
 * cabling stage and `verify --hosts` (cmd/fleet_cmd.c).
 */
enum accept_homing accept_homing(const struct topo *found, const char *node,
				 const char *const *members, size_t n_members, char *legs, size_t len,
				 const char **shared, size_t *n_linked);

/*
 * accept_homing() as a finding: fewer than two distinct switches (both
 * legs on one switch, or only one leg linked) is one
 * FAB-CABLE-SINGLE-HOMED finding naming the node and the switch.  A host
 * not in @found, or a bond of fewer than two members, is not judged here
 * (the cabling diff reports missing links).  -ENOMEM.
 */
int accept_dual_homing(struct accept_report *r, const struct topo *found, const char *node,
		       const char *const *members, size_t n_members, const char *bond);

/* ---- traffic pairs ---- */

/*
 * The links the traffic stage must cross at least K times, flagged in
 * @want (r->topo->n_links): every link with an end on a new node (one of
 * the @n_new names @new_names, new switches included), every new host's
 * access link, and every link between a leaf that holds a new host and
 * another switch (the new leaf's uplinks).  @new_host: r->n_hosts flags.
 * Returns the number flagged, or -ENOMEM.
 */
int accept_want_links(const struct route *r, const bool *new_host, const char *const *new_names,
		      size_t n_new, bool *want);

/*
 * The traffic pairs (docs/accept.md): coverage_pick() (model/coverage.h)
 * with the new end points as the subset (pairs new x new and new x
 * existing, never existing x existing) and accept_want_links() as the
 * targets, so that every new link and every uplink of every new leaf is
 * crossed by at least @k pairs and every new host is in at least @k pairs:
 * O((n + m) k) pairs for n new and m existing end points, not
 * O((n + m)^2).  Then every new x new pair the picker did not choose is
 * added when all of them fit that budget (n (n - 1) / 2 <= (n + m) k: a
 * new rack among many is tested all against all); out->host_pairs counts
 * them, out->link_cross stays the picker's (a lower bound).  @r is placed and rated.  Errors as coverage_pick();
 * @out is set only on success (check links_short, hosts_short).
 */
int accept_pairs_cover(struct route *r, const bool *new_host, const char *const *new_names,
		       size_t n_new, unsigned int k, struct coverage *out, struct fab_err *err);

struct fab_hosts;

/*
 * accept_pairs_cover() for hosts of several fabric ports (rails,
 * model/hosts.h), @hs the end points @r is placed with and @new_host
 * flags them: coverage_pick_rails() (model/coverage_rails.h) with the new
 * end points as the subset and accept_want_links() as the targets, so that
 * on each rail every new port is in at least @k pairs of NIC i to NIC i,
 * and every new link and new-leaf uplink that rail's pairs can cross is
 * crossed by at least @k of them (out->links_unreachable: the wanted
 * links no rail pair crosses, once each).  Then every new x new pair of
 * one rail the picker did not choose, when all of them fit (at most
 * @k x hs->n).  O(k x new ports) pairs, not new ports x the rail's ports.
 * Errors as coverage_pick_rails(); @out is set only on success.
 */
int accept_pairs_cover_rails(struct route *r, const struct fab_hosts *hs, const bool *new_host,
			     const char *const *new_names, size_t n_new, unsigned int k,
			     struct coverage *out, struct fab_err *err);

#endif
