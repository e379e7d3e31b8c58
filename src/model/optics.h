/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One end of a cable: the module in the port (model/module.h), the link's
 * FEC figures and flap counters, and one verdict with its evidence and a
 * repair hint.  The rules are written in docs/optics.md; this file is
 * where they live.  Pure C, no I/O: src/sys/ reads the counters
 * (struct optics_link), src/node/optics.c puts a port together.
 *
 * A verdict is judged on one reading (the module's own flags and values
 * against its own thresholds, then the policy's), and, when two readings
 * of the link a window apart are given, on what happened in the window:
 * uncorrectable FEC blocks, the pre-FEC bit error ratio, flaps.  Totals
 * since the counters started are shown, never judged: a link that
 * trained once at boot has corrected blocks and a carrier change or two.
 *
 * Ownership: plain data, embedded; struct optics_set owns its array.
 */
#ifndef FAB_MODEL_OPTICS_H
#define FAB_MODEL_OPTICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/module.h"

#define OPTICS_FEC_LANES 8
#define OPTICS_FEC_HIST_MAX 16
#define OPTICS_FINDINGS_MAX 24

/* The FEC the link runs (ETHTOOL_A_FEC_ACTIVE). */
enum optics_fec {
	OPTICS_FEC_UNKNOWN = 0,	/* not reported */
	OPTICS_FEC_NONE,
	OPTICS_FEC_BASER,	/* Clause 74 FC-FEC */
	OPTICS_FEC_RS,		/* Clause 91/134 Reed-Solomon: RS(528,514) or RS(544,514) */
	OPTICS_FEC_LLRS,	/* RS(272,257+1), low latency */
};
const char *optics_fec_name(enum optics_fec f);	/* "RS", "BaseR", "None", "LLRS", "" */

/* One FEC counter: its total and, where the driver gives them, per lane. */
struct optics_fec_stat {
	bool ok;
	uint64_t total;
	unsigned int n_lanes;
	uint64_t lane[OPTICS_FEC_LANES];
};

/* One bin of the FEC histogram: codewords with low..high symbol errors. */
struct optics_fec_bin {
	uint32_t low, high;
	uint64_t count;
};

/* What the link layer says at one moment (src/sys/link_phy.c). */
struct optics_link {
	double t_s;			/* CLOCK_MONOTONIC seconds of the reading */
	int64_t speed_mbps;		/* -1 unknown */
	unsigned int lanes;		/* ETHTOOL_A_LINKMODES_LANES; 0 unknown */
	bool link_ok, link_up;		/* ETHTOOL_A_LINKSTATE_LINK */
	bool fec_ok;			/* the driver answered FEC_GET */
	enum optics_fec fec;
	bool fec_auto;
	struct optics_fec_stat corrected_blocks, uncorrectable_blocks, corrected_bits;
	struct optics_fec_bin hist[OPTICS_FEC_HIST_MAX];
	unsigned int n_hist;
	bool down_events_ok;		/* ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT (Linux 6.6+) */
	uint64_t down_events;
	bool carrier_changes_ok;	/* /sys/class/net/IF/carrier_changes */
	uint64_t carrier_changes;
	bool carrier_down_ok;		/* /sys/class/net/IF/carrier_down_count */
	uint64_t carrier_down;
};

void optics_link_init(struct optics_link *l);

enum optics_health {
	OPTICS_UNKNOWN = 0,	/* nothing to judge: no module, no counters */
	OPTICS_HEALTHY,
	OPTICS_MARGINAL,
	OPTICS_FAILING,
};
const char *optics_health_name(enum optics_health h);	/* "unknown", "healthy", ... */

/* Repair hints, in the order a technician tries them. */
enum optics_hint {
	OPTICS_HINT_NONE = 0,
	OPTICS_HINT_CLEAN,		/* inspect and clean the connectors (both ends) */
	OPTICS_HINT_RESEAT,		/* reseat the module and the cable */
	OPTICS_HINT_FAR_END,		/* check the far end's transmitter */
	OPTICS_HINT_REPLACE_CABLE,
	OPTICS_HINT_REPLACE_OPTIC,
	OPTICS_HINT_COOLING,		/* check airflow, then replace the optic */
};
const char *optics_hint_text(enum optics_hint h);

struct optics_finding {
	enum optics_health level;	/* marginal or failing */
	char code[32];			/* "rx_power_low_alarm", "fec_uncorrectable", ... */
	unsigned int lane;		/* 1-based; 0: the module or the link */
	bool has_value;
	double value, limit;		/* the figure and the limit it crossed */
	char unit[8];			/* "dBm", "C", "V", "mA", "", ... */
	char source[24];		/* "module flag", "module threshold", "policy", "window" */
	enum optics_hint hint;
	char text[256];			/* one sentence, for people (truncated past it) */
};

/* Limits where the module gives none, and the link rules (docs/optics.md). */
struct optics_policy {
	double temp_high_warn_c, temp_high_alarm_c;
	double rx_low_warn_dbm, rx_low_alarm_dbm;
	double lane_spread_db;		/* a lane this far below its siblings' median */
	double ber_limit_kp4;		/* RS(544,514) pre-FEC BER limit (2.4e-4) */
	double ber_limit_kr4;		/* RS(528,514) (5e-5) */
	double ber_marginal_ratio;	/* marginal above limit * ratio (0.1: a decade) */
	unsigned int flaps_failing;	/* link-down events in a window that fail a link */
	double ib_ber_limit;		/* InfiniBand: symbol errors per bit carried (1e-12) */
};
void optics_policy_default(struct optics_policy *p);

struct optics_verdict {
	enum optics_health health;
	enum optics_hint hint;		/* the first thing to do; NONE when healthy */
	bool windowed;			/* link rules were judged over a window */
	double window_s;
	bool ber_ok;			/* a pre-FEC BER estimate exists */
	bool ber_lower_bound;		/* from corrected blocks: at least this */
	double ber, ber_limit;
	char fec_code[16];		/* "RS(544,514)", "RS(528,514)", "" */
	uint64_t uncorrectable, flaps;	/* in the window */
	struct optics_finding f[OPTICS_FINDINGS_MAX];
	size_t n;
};

/*
 * Judge one end of a cable: @m (may be NULL or !present: no module read),
 * @now (may be NULL), and @before (NULL for a single reading: link rules
 * then are not judged).  @v is filled; the rules are docs/optics.md's.
 * This is the call `status`, and later `diagnose` (evidence for a suspect
 * access link) and `accept` (stage 1/4 findings), make.
 */
void optics_verdict(const struct fab_module *m, const struct optics_link *before,
		    const struct optics_link *now, const struct optics_policy *pol,
		    struct optics_verdict *v);

/*
 * Pre-FEC BER over a window: corrected bits (else corrected blocks, as a
 * lower bound) over the bits the link carried (speed x seconds).  0 and
 * *@ber when computable, -ENODATA otherwise.  *@lower_bound is true when
 * blocks stood in for bits.
 */
int optics_ber(const struct optics_link *before, const struct optics_link *now, double *ber,
	       bool *lower_bound);

/* The pre-FEC BER limit of the running FEC ("RS(544,514)" on lanes of 50 Gb/s
 * and more), 0 when the FEC has none; @code gets the code's name. */
double optics_ber_limit(const struct optics_link *l, const struct fab_module *m,
			const struct optics_policy *pol, char *code, size_t len);

/* One interface's cable end. */
struct optics_port {
	char ifname[16];
	int module_rc;			/* 0 decoded; -errno: why not (no module interface, ...) */
	char module_err[160];		/* the message for module_rc */
	struct fab_module mod;
	int link_rc;
	char link_err[160];
	struct optics_link link;	/* the last reading */
	bool have_before;
	struct optics_link before;	/* the window's first reading */
	struct optics_verdict verdict;
};

/*
 * What only both ends of one cable tell (a host-to-host link LLDP found,
 * or any pair of ports known to face each other), beside each end's own
 * verdict: for each lane, Rx at one end against Tx at the other (lane i
 * to lane i, as a straight parallel cable and a duplex fibre carry them):
 *   - Rx low at @a, Tx normal at @b: the fibre or the connectors between
 *     them lose the light (failing when Rx is past its alarm, marginal past
 *     its warning): clean both ends, then replace the cable;
 *   - Rx low at @a, Tx low at @b: @b's transmitter: replace @b's optic.
 * "Low" is past the module's own threshold, else the policy's; the loss
 * (Tx dBm at one end minus Rx dBm at the other) is in the finding.  The
 * sentences name the ends @a_name and @b_name ("node:ifname", as the
 * caller knows the nodes; NULL or "": the port's ifname alone, ambiguous
 * when both ends are eth1).  @v holds these findings only (both
 * directions); health unknown when neither end has lane powers.
 */
void optics_cable_verdict(const struct optics_port *a, const char *a_name,
			  const struct optics_port *b, const char *b_name,
			  const struct optics_policy *pol, struct optics_verdict *v);

struct optics_set {
	struct optics_port *v;
	size_t n;
	double window_s;		/* 0: one reading */
};

void optics_set_init(struct optics_set *s);
void optics_set_fini(struct optics_set *s);
/* A new zeroed port (borrowed, valid until the next add), NULL when out of memory. */
struct optics_port *optics_set_add(struct optics_set *s, const char *ifname);
/* The worst health in the set (UNKNOWN when empty). */
enum optics_health optics_set_worst(const struct optics_set *s);
/* @s's port named @ifname (borrowed), NULL when none. */
struct optics_port *optics_set_find(const struct optics_set *s, const char *ifname);

/*
 * The finding that stands for @v: the first at its verdict's level (the
 * rules run strongest evidence first), NULL when healthy or unknown.
 * What one line says of a cable end (diagnose's evidence, accept's
 * finding, the report's cable table).
 */
const struct optics_finding *optics_verdict_worst(const struct optics_verdict *v);

/*
 * Judge every port of @now over the window since @before (the same
 * host's earlier reading, ports matched by name; NULL or a port missing
 * there: one reading), into @now's verdicts; now->window_s is set from
 * the link readings' clocks (0 when none was windowed).
 */
void optics_set_judge(struct optics_set *now, const struct optics_set *before,
		      const struct optics_policy *pol);

/*
 * InfiniBand: what a port's PMA counters say about its cable, on the same
 * scale (docs/optics.md "InfiniBand"): SymbolErrorCounter,
 * LinkErrorRecoveryCounter and LinkDownedCounter as the subnet walk reads
 * them (model/topo.h TOPO_CNT_*).
 */
struct optics_ib_pma {
	bool ok;			/* the three were read */
	uint64_t symbol_errors, link_recovers, link_downed;
};

/* The PMA counters' 16-bit ceiling: a symbol error count there is a lower bound. */
#define OPTICS_IB_SYMBOL_MAX 65535u

/*
 * Judge one InfiniBand port over a window (@window_s, <= 0 unknown; its
 * rate @rate_mbps, width x lane rate, <= 0 unknown) into @v (windowed):
 *   I1 symbol errors per bit carried above pol->ib_ber_limit: failing;
 *   I2 symbol errors in the window, not past it (or the rate unknown):
 *      marginal;
 *   I3 flaps (link downed + link error recovery in the window) >=
 *      flaps_failing: failing; I4 at least one: marginal.
 * A counter that went backwards (cleared) is not judged.  Unknown when
 * either reading is missing.
 */
void optics_ib_verdict(const struct optics_ib_pma *before, const struct optics_ib_pma *after,
		       double window_s, double rate_mbps, const struct optics_policy *pol,
		       struct optics_verdict *v);

/* One InfiniBand cable end: a port of a node the subnet walk read. */
struct optics_ib_end {
	char node[128];
	unsigned int port;
	double rate_mbps;		/* 0 unknown */
	struct optics_ib_pma before, after;
	struct optics_verdict verdict;
};

/*
 * The cable ends of several hosts (diagnose's evidence for the hosts its
 * suspects name): per host index, a set read through its worker and
 * judged.  Owns its sets (optics_hosts_fini()).
 */
struct optics_hosts {
	struct optics_set *set;		/* n entries */
	bool *read;			/* read[i]: host i answered (an empty set: no module) */
	char **why;			/* why[i]: why host i was not read (owned), NULL none */
	bool *wanted;			/* wanted[i]: a suspect names host i */
	size_t n;
	struct optics_ib_end *ib;	/* InfiniBand: both ends of the suspects' links (owned) */
	size_t n_ib;
	double ib_window_s;		/* since the first counters were read; 0 unknown */
};
/* Another InfiniBand end (zeroed, borrowed until the next add), NULL: ENOMEM. */
struct optics_ib_end *optics_hosts_ib_add(struct optics_hosts *h);
/* 0 or -ENOMEM; @h is usable (empty) either way. */
int optics_hosts_init(struct optics_hosts *h, size_t n);
void optics_hosts_fini(struct optics_hosts *h);

#endif
