/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sweep's verdict, pure C, no I/O: struct sweep_pair holds one pair's
 * figures; sweep_ref_compute() derives the fleet reference (median and MAD
 * of the pairs' bandwidth and latency), sweep_pair_judge() marks a pair ok
 * or slow against it, and sweep_suspects() names the nodes and links that
 * explain the slow and failed pairs, most suspect first.
 *
 * The pairs themselves live in a store (io/pair_store.h) that the
 * command reads and writes in passes: the functions here take one pair at
 * a time (or an array, for small sets), never the whole sweep.
 *
 * Ownership: struct sweep_report owns its suspects array and borrows its
 * hosts and its pair store; sweep_report_fini() frees what it owns.
 */
#ifndef FAB_MODEL_SWEEP_JUDGE_H
#define FAB_MODEL_SWEEP_JUDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/hosts.h"
#include "model/stats.h"

enum sweep_status {
	SWEEP_OK = 0,
	SWEEP_SLOW,
	SWEEP_FAILED,
	SWEEP_PLANNED,		/* sweep --dry-run: scheduled, not measured */
	SWEEP_REGRESSED,	/* ok, but its bandwidth fell below --baseline's by more than --regress-pct */
};

/* Where a pair's expected rate came from. */
enum sweep_expect {
	SWEEP_EXPECT_NONE = 0,	/* judged against the fleet reference */
	SWEEP_EXPECT_RATED,	/* the lowest rated speed on its path (or rate_gbps=) */
	SWEEP_EXPECT_CLASS,	/* its path class's reference (model/pathref.h) */
	SWEEP_EXPECT_NODES,	/* a slow node's pair: the median of node medians (sweep_nodes.h) */
};

/* One direction of a bandwidth test, measured at the receiver. */
struct sweep_bw {
	bool measured;
	double avg_mbps;	/* bytes over the whole transfer */
	double min_mbps;	/* the slowest full interval */
	uint64_t bytes;
	double secs;
	unsigned int intervals;	/* full intervals measured */
};

struct sweep_pair {
	unsigned int a, b;	/* host indices; "ab" is a -> b */
	unsigned int round;	/* 1-based round of the first measurement */
	enum sweep_status status;
	char reason[256];	/* why failed or slow; "" when ok */
	bool have_lat;
	struct stats_summary lat_ns;	/* round-trip times */
	struct sweep_bw ab, ba;
	double pct_rated;	/* slowest direction vs. expected_mbps; <0 when unknown */
	double expected_mbps;	/* what the pair should reach; 0 unknown */
	enum sweep_expect expect_src;
	unsigned int klass;	/* path class (links on its shortest path); 0 unknown */
	bool retested;		/* measured again because it looked slow */
	bool first_slow;	/* it looked slow before the retest */
	bool slow_lat;		/* slow by its latency against the fleet's (nothing else) */
	bool near_ref;		/* slow against a same-window control, but at least
				   SWEEP_CONTROL_FLOOR_PCT % of the figure it was judged by */
	double test_s;		/* the pair's session, first request to last reply */
	/* sweep --baseline: the same pair's figures in the baseline sweep (NAN: not measured there) */
	bool have_base;		/* the baseline has the pair */
	double base_ab_mbps, base_ba_mbps;
	double change_pct;	/* worst direction's change vs. the baseline, %; NAN unknown */
	/* verbs on RoCE v2: the UDP source port of each direction's packets; 0 unknown */
	uint16_t sport_ab, sport_ba;
};

struct sweep_cfg {
	double slow_pct;	/* below this % of the reference is slow (80) */
	double min_pct;		/* slowest interval below this % of the rated speed is slow (40) */
	bool min_pct_fleet;	/* also judge the slowest interval against the fleet median */
	double bw_min_mbps;	/* absolute floor, 0 for none */
	double mad_k;		/* relative test also needs median - k*sigma (3) */
	double lat_factor;	/* latency above factor x fleet median is slow (3) */
	double lat_floor_ns;	/* ... and above the fleet median by at least this much (0: none) */
	double lat_max_ns;	/* absolute latency ceiling, 0 for none */
};

/*
 * A population's dips: each pair's slowest interval over its average
 * (sweep_pair_dip), median and MAD; n pairs (0: none).
 */
struct sweep_dip_ref {
	size_t n;
	double median, mad;
};

/* Path classes (hop counts) below this have their own dip reference. */
#define SWEEP_DIP_CLASSES 16
/* A dip reference needs this many pairs; below it the fleet's, then none. */
#define SWEEP_DIP_MIN_PAIRS 6

struct sweep_ref {
	size_t n;		/* pairs with figures */
	double bw_median_mbps, bw_mad_mbps;	/* NAN when n == 0 */
	double bw_log_median, bw_log_mad;	/* of ln(bw): bandwidth spreads by factors */
	double lat_median_ns, lat_mad_ns;	/* of the pairs' p50, NAN when none */
	struct sweep_dip_ref dip;		/* the fleet's dips */
	struct sweep_dip_ref dip_class[SWEEP_DIP_CLASSES];	/* by path class (klass) */
};

struct sweep_suspect {
	bool is_node;
	unsigned int node;	/* is_node */
	unsigned int a, b;	/* !is_node: the link between hosts a and b */
	double score;		/* 0..1: share of the node's pairs that are bad */
	unsigned int bad_pairs, slow_pairs, failed_pairs, pairs;
	double median_bw_mbps;	/* of the node's pairs (or the link's); NAN when none */
	char evidence[256];
};

struct topo;
struct pair_route;
struct loc_result;
struct loc_probe_obs;
struct loc_input;
struct pair_store;
struct optics_hosts;
struct bond_legs_pair;
struct bond_legs_unanswered;

/*
 * A pair's path and routes are listed (JSON "path" and "routes", the CSV
 * "path" column, the dry run's paths) when it has at most
 * SWEEP_PATHS_MAX_LISTED equal-cost paths and the sweep at most
 * SWEEP_PATHS_MAX_PAIRS pairs; otherwise null (empty): a 3-level fat
 * tree's pairs between pods have 256 paths over hundreds of links, and a
 * document listing them for every pair would be gigabytes.  The graph is
 * in "topology"; diagnose --from then needs --topology to route again.
 */
#define SWEEP_PATHS_MAX_PAIRS 65536
#define SWEEP_PATHS_MAX_LISTED 16

/*
 * sweep --steer (sweep/sweep_steer.h, docs/paths.md "Steering"): one
 * pair's facts.  traced: both directions' ports were traced and mapped to
 * members; steered: the member its test took each way is known (ab, ba,
 * paths of the pair's route); fallback: why not (a short word: "silent",
 * "unmapped", "unstable", "no free traced port", ...), NULL when steered or
 * when the pair has nothing to steer (same leaf).
 */
struct path;

struct sweep_steer_fact {
	bool traced, steered;
	const char *fallback;
	const struct path *ab, *ba;
};

#define SWEEP_STEER_WHY_MAX 12

/*
 * sweep --steer as the report tells it.  whole: the rounds count whole
 * ECMP sets (steering did not apply: skipped says why); otherwise they
 * count per-member loads and rounds_whole is what whole sets would need.
 * steered, fallback: cross-leaf pairs; by_why: the fallbacks per reason.
 * fact: a pair's facts (NULL: none, --dry-run).
 */
struct sweep_steer_view {
	bool whole;
	const char *skipped;
	size_t rounds_whole;
	unsigned int windows;	/* traced in windows of this many base rounds; 0: before the first round */
	size_t steered, fallback;
	struct {
		const char *why;
		size_t n;
	} by_why[SWEEP_STEER_WHY_MAX];
	size_t n_why;
	void (*fact)(const void *ctx, unsigned int a, unsigned int b, struct sweep_steer_fact *out);
	const void *ctx;
};

/*
 * The fabric a topology-aware sweep ran on (sweep --topology); source is
 * NULL without one.  Everything borrowed from the command.
 */
struct sweep_fabric_view {
	const char *source;		/* "lldp", "ib", or the plan's path */
	const struct topo *topo;
	const struct pair_route *routes;	/* per pair of the store (same index); NULL: route() */
	/* A pair's route on demand (NULL: none), for renderers that list paths; 0 or -errno. */
	int (*route)(void *ctx, unsigned int a, unsigned int b, struct pair_route *out);
	void *route_ctx;
	const uint32_t *host_link;	/* per host: its access link in topo->links[], UINT32_MAX unknown */
	const uint32_t *host_leaf;	/* per host: its leaf in topo->nodes[], UINT32_MAX unknown */
	bool have_bound;		/* the schedule's lower bound (model/sched_topo.h) */
	size_t bound, bound_node, bound_link, bound_cut;
	unsigned int cov_k;		/* coverage sweep: K; 0 not one */
	size_t cov_links_target, cov_links_short, cov_links_unreachable, cov_hosts_short;
	const struct loc_result *loc;	/* link suspects (model/localize.h), NULL none */
	const struct loc_input *loc_in;	/* what loc was computed from (names, links) */
	unsigned int probes_run;	/* extra pairs measured to split groups */
	const struct sweep_steer_view *steer;	/* --steer; NULL: not used (no steer keys) */
	const struct loc_probe_obs *confirm;	/* --steer's confirming probes (localize.h) */
	size_t n_confirm;
};

/* A collective launch (fleet/fleet_dial.h): who joined, why others were refused. */
struct launch_counts {
	unsigned int joined;
	unsigned int wrong_token, unknown_host, duplicate, not_join, idle;
	unsigned int wrong_source;	/* a known host's name from an address not its own */
};

struct sweep_launch {
	bool dial;			/* false: a per-node launcher, no counts */
	struct launch_counts n;
};

struct sweep_report {
	const struct fab_hosts *hosts;	/* borrowed */
	/*
	 * Hosts of several fabric ports (hosts_have_rails()): the pairs and
	 * nodes say each end's host, NIC and rail; text has a matrix a rail.
	 */
	bool rails;
	const char *transport, *launcher, *mode;
	struct sweep_cfg cfg;
	unsigned int duration_ms, lat_iters, lat_ms, streams, msg_bytes;	/* lat_ms: --lat-time, 0 none */
	size_t n_rounds;
	size_t rounds_done;	/* n_rounds unless interrupted */
	bool interrupted;	/* stopped by a signal: the store holds the finished rounds' pairs */
	/*
	 * Stopped by an error ("" when not): its message.  Then interrupted
	 * is set too, and the store holds every pair it took before the
	 * error (the finished rounds', and those of the round under way it
	 * could still hold).
	 */
	char stop_error[512];
	struct pair_store *store;	/* borrowed: the n_pairs pairs, in round order */
	size_t n_pairs;
	size_t n_ok, n_slow, n_failed, n_regressed;	/* by status, after the last judgement */
	struct sweep_ref ref;
	struct sweep_suspect *suspects;
	size_t n_suspects;
	size_t suspects_left_out;	/* link suspects past SWEEP_LINK_SUSPECTS_MAX, not listed */
	double wall_s;
	int64_t started_unix;
	bool dry_run;			/* nothing measured: pairs are SWEEP_PLANNED */
	struct sweep_fabric_view fabric;
	struct sweep_launch launch;
	/*
	 * Per host: its worker never started (no hello), so its pairs failed
	 * unmeasured (not a fabric fault: kept out of the suspects' evidence);
	 * borrowed, NULL when every worker started.
	 */
	const bool *not_started;
	size_t n_not_started;
	/*
	 * diagnose: the cable ends of the hosts its suspects name, read
	 * through their workers before and after the sweep and judged over
	 * that window (model/optics.h; wanted[i]: host i is one of them);
	 * borrowed, NULL when not read (--from, no suspect on a host).
	 */
	const struct optics_hosts *cables;
	/*
	 * Dual-homed legs (sweep/sweep_legs.h, docs/sweep.md): the pairs with
	 * a bonded end, each direction's legs and their findings; NULL when
	 * none ran (no bond, --no-legs).  n_legs_bad: legs not ok, a fault.
	 */
	const struct bond_legs_pair *legs;
	size_t n_legs, n_legs_bad;
	/*
	 * The hosts whose worker did not answer the "bond" request, each an
	 * end of a measured pair the legs run took: their legs not measured
	 * (said per host, not a fault); NULL when none.
	 */
	const struct bond_legs_unanswered *legs_unanswered;
	size_t n_legs_unanswered;
	struct {			/* sweep --baseline; file NULL: none */
		const char *file;
		double regress_pct;
		int64_t started_unix;	/* the baseline sweep's; 0 unknown */
		size_t compared;	/* pairs with figures in both */
	} baseline;
};

/*
 * Latency is judged against the fleet only with at least this many pairs
 * measured (below it, only --lat-max-us): with three pairs one busy moment
 * is a third of the reference.
 */
#define SWEEP_LAT_MIN_PAIRS 6

void sweep_cfg_default(struct sweep_cfg *cfg);

/*
 * The latency floor when none was given (lat_floor_ns < 0): what a
 * scheduler hiccup cannot reach on a healthy path of @transport, 100 us
 * for tcp (kernel stacks, a run queue's wait), 10 us for verbs (polled).
 */
#define SWEEP_LAT_FLOOR_TCP_NS 100000.0
#define SWEEP_LAT_FLOOR_VERBS_NS 10000.0
void sweep_cfg_transport(struct sweep_cfg *cfg, const char *transport);

/* The slowest measured direction's average (NAN when none measured). */
double sweep_pair_bw(const struct sweep_pair *p);

/* Fleet reference over the pairs that have figures (ok or slow). */
void sweep_ref_compute(const struct sweep_pair *pairs, size_t n, struct sweep_ref *ref);
/*
 * The same from the figures themselves: @bw (nb bandwidths of the pairs
 * that have one) and @lat (nl median round trips); the arrays are not
 * changed.  The sweep passes a uniform sample of its pairs' figures
 * (stats_reservoir), all of them while they fit.
 */
void sweep_ref_from(const double *bw, size_t nb, const double *lat, size_t nl,
		    struct sweep_ref *ref);
/*
 * The dip references (fleet and per path class) from @n pairs' dips @dip
 * (NAN: none) and classes @klass (NULL: all class 0); the arrays are not
 * changed.  sweep_ref_compute() calls it; sweep_ref_from() leaves them empty.
 */
void sweep_ref_dips(struct sweep_ref *ref, const double *dip, const unsigned int *klass, size_t n);

/*
 * A pair's dip: its slowest full interval over its average, the lower of
 * its measured directions that have at least two intervals; NAN when none.
 * 1 is a flat transfer; an intermittent link dips towards 0.
 */
double sweep_pair_dip(const struct sweep_pair *p);

/*
 * Mark @p ok or slow (failed stays failed), filling reason and pct_rated.
 * @rated_mbps is the lower rated speed of the two nodes, 0 when unknown:
 * then bandwidth is judged against the fleet reference: below slow_pct %
 * of the median, and an outlier on a log scale (ln bw below the median of
 * ln bw by more than mad_k * 1.4826 * its MAD), since concurrent pairs on
 * shared hosts spread by factors, not by fixed amounts.  A pair is also
 * slow (unstable) when its slowest interval is below min_pct % of the
 * rated speed and its dip is an outlier among its path class's dips (below
 * half their median and mad_k sigmas below it; the fleet's dips when the
 * class has fewer than SWEEP_DIP_MIN_PAIRS, the rated rule alone when the
 * fleet has fewer too), below bw_min_mbps, or when its median latency is
 * above lat_factor x the fleet median, mad_k sigmas above it and
 * lat_floor_ns above it.  docs/sweep.md ("How a pair is judged") gives
 * the reasons.
 */
void sweep_pair_judge(struct sweep_pair *p, double rated_mbps, const struct sweep_ref *ref,
		      const struct sweep_cfg *cfg);

/*
 * Fill r->suspects from the pairs: a node is suspect when at least two of
 * its pairs are bad and more than half of them are; a slow pair whose
 * nodes are both unsuspected makes its link suspect (at most
 * SWEEP_LINK_SUSPECTS_MAX of them; r->suspects_left_out counts the rest).
 * Sorted by score.  A node's median bandwidth is that of a uniform sample
 * of SWEEP_NODE_SAMPLE of its pairs (all of them while they fit).
 *
 * Two passes over the pairs, in the same order: sweep_suspects_count()
 * each one, sweep_suspects_nodes(), sweep_suspects_link() each one again,
 * sweep_suspects_end().  sweep_suspects() does all of it over an array.
 * 0 or -ENOMEM.
 */
#define SWEEP_NODE_SAMPLE 256
#define SWEEP_LINK_SUSPECTS_MAX 1024

struct sweep_suspects_acc {
	size_t n;			/* hosts */
	unsigned int *slow, *failed, *total;
	bool *suspect;
	double **bw;			/* per host: its slots, grown up to SWEEP_NODE_SAMPLE */
	size_t *bw_cap;			/* per host: slots allocated */
	bool nomem;			/* a sample not stored: sweep_suspects_nodes() says -ENOMEM */
	struct stats_reservoir *res;	/* per host */
	struct sweep_suspect *s;
	size_t ns, cap, left_out;
};

int sweep_suspects_begin(struct sweep_suspects_acc *acc, size_t n_hosts);
void sweep_suspects_count(struct sweep_suspects_acc *acc, const struct sweep_pair *p);
int sweep_suspects_nodes(struct sweep_suspects_acc *acc, const struct sweep_ref *ref);
int sweep_suspects_link(struct sweep_suspects_acc *acc, const struct sweep_pair *p);
/* Sorted into r->suspects (replacing them); the accumulator is emptied. */
void sweep_suspects_end(struct sweep_suspects_acc *acc, struct sweep_report *r);
void sweep_suspects_acc_fini(struct sweep_suspects_acc *acc);
int sweep_suspects(struct sweep_report *r, const struct sweep_pair *pairs, size_t n);

/*
 * The same with the pair's expected rate @expected_mbps from @src (rated
 * along its path, or its path class's reference): below slow_pct % of it
 * (or its slowest interval below min_pct %) is slow, the reason naming
 * what it was compared with.  SWEEP_EXPECT_NONE or 0: sweep_pair_judge()
 * with no rated speed.
 */
void sweep_pair_judge_expected(struct sweep_pair *p, double expected_mbps, enum sweep_expect src,
			       const struct sweep_ref *ref, const struct sweep_cfg *cfg);

/*
 * Judge a re-tested pair against a control: a healthy pair of the same
 * path class and expected rate, sharing no host with it, re-tested alone
 * just before it.  When the control measured less than the pair's
 * expected rate (the hosts were busy in that window, not the link), the
 * pair is judged against the control's figure instead, but never against
 * less than SWEEP_CONTROL_FLOOR_PCT % of its expected rate (a window so
 * busy proves nothing, and a real fault must still show).  A pair
 * without an expected rate has the fleet median as its expected rate
 * (sweep_ref_fleet_mbps()): the fleet rule, its median (and MAD floor)
 * moved to the control's figure.  @control_mbps NAN, or no expected rate
 * and no fleet median: sweep_pair_judge_expected().  @control names the
 * control in the reason ("h1-h3").
 */
#define SWEEP_CONTROL_FLOOR_PCT 50

void sweep_pair_judge_control(struct sweep_pair *p, double control_mbps, const char *control,
			      const struct sweep_ref *ref, const struct sweep_cfg *cfg);

/* The fleet median a pair without an expected rate is judged by; NAN when there is none (under 3 pairs). */
double sweep_ref_fleet_mbps(const struct sweep_ref *ref);

/*
 * Is slow @p slow by a margin only: its bandwidth at least
 * SWEEP_CONTROL_FLOOR_PCT % of its expected rate (of the fleet median
 * @ref when it has none), or of the same-window control's figure it was
 * judged by (near_ref: a retest at 2616 Mb/s after a control at 4390, in
 * a lab whose class reference was 5927)?  Such a verdict is one busy window away from
 * a healthy one, so the sweep measures it once more before it pages
 * (sweep/sweep_retest.c); a link at a fifth of its rate is not marginal.
 * A regressed pair (--baseline) is marginal when it kept at least
 * SWEEP_CONTROL_FLOOR_PCT % of its baseline (change_pct >= -50): a busy
 * window took 15.6 % off a healthy pair beside a real 30 % fall at load 5.
 * False for pairs slow by latency only, failed, or without a figure.
 */
bool sweep_pair_marginal(const struct sweep_pair *p, const struct sweep_ref *ref);

/*
 * Which direction of slow @p is slow, so that the localiser can judge
 * each direction on the paths it took (on an ECMP fabric a -> b and
 * b -> a hash onto members of their own; model/localize.h
 * loc_acc_add_dirs()): true, with slow[0] (a -> b) and slow[1] (b -> a)
 * set, when the pair is slow by its bandwidth, has an expected rate, and
 * exactly one direction's average reaches @slow_pct % of it.  False
 * otherwise (slow by latency only, judged by the fleet rule without an
 * expected rate, both or neither direction short): the pair is then one
 * observation.  Only the directions' averages are read, as diagnose
 * --from reads them back from the document.
 */
bool sweep_pair_dirs_split(const struct sweep_pair *p, double slow_pct, bool slow[2]);

/*
 * Compare @p with its baseline figures (have_base, base_*_mbps): fill
 * change_pct with the worse direction's change (measured in both) and mark
 * an ok pair SWEEP_REGRESSED, with a reason, when that change is a fall of
 * more than @regress_pct %.  A slow or failed pair keeps its status.
 */
void sweep_pair_judge_base(struct sweep_pair *p, double regress_pct);

/* Pairs "not ok" in the summaries: slow, failed and regressed. */
static inline bool sweep_status_bad(enum sweep_status s)
{
	return s == SWEEP_SLOW || s == SWEEP_FAILED || s == SWEEP_REGRESSED;
}

void sweep_report_fini(struct sweep_report *r);

const char *sweep_status_name(enum sweep_status s);

#endif
