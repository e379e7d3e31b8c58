/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Link localisation: from host pairs, their routes and their verdicts, name
 * the links (or nodes) that explain the bad pairs.  Pure, no I/O; the sweep
 * and `fabricctl diagnose` call it.  docs/diagnose.md explains the method.
 *
 * Flow
 *   1. loc_localize(): suspects from the measured pairs (cover + groups);
 *   2. for each group: loc_probes_pick() chooses extra pairs whose paths
 *      cross one member and not another; the caller measures them and
 *      loc_group_narrow() folds their verdicts in;
 *   3. loc_apply_counters(): counter deltas (counter_eval.h) on either end
 *      of a suspect's links raise or lower its score, and may order a
 *      group's members (a tie broken by counters, said so).
 *
 * Inputs are borrowed for the call only.  A host's access link is the link
 * index in topo->links[] of the cable from the host's NIC to its switch
 * (LOC_NO_LINK when unknown: the host is then its own candidate).
 *
 * Ownership: struct loc_result owns its suspects; a suspect owns its links[]
 * and counters[] arrays; struct loc_probes owns its routes.  _fini() frees
 * and zeroes (safe twice).  Nothing keeps a pointer into the inputs except
 * counter findings' port pointers, borrowed from the caller's topo.
 */
#ifndef FAB_MODEL_LOCALIZE_H
#define FAB_MODEL_LOCALIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/counter_eval.h"
#include "model/path.h"
#include "model/route.h"
#include "model/topo.h"
#include "util/err.h"

#define LOC_NO_LINK UINT32_MAX

enum loc_verdict {
	LOC_UNKNOWN = 0,	/* not measured: ignored */
	LOC_OK,
	LOC_SLOW,		/* measured below its expected rate */
	LOC_FAILED,		/* did not complete (refused, timed out, worker died) */
};

struct loc_pair {
	const struct pair_route *route;	/* borrowed; route->a/b are host indices */
	enum loc_verdict verdict;
	double pct_expected;		/* measured / expected x 100; < 0 when unknown */
};

struct loc_acc;
struct loc_result;

/*
 * The measured pairs come either as an array (@pairs, @n_pairs: borrowed
 * for each call) or, for sweeps too large to hold every pair's route, one
 * by one into an accumulator (@acc, from loc_acc_new(); @pairs unused):
 * what the localiser keeps of an ok pair is a few counts and weights per
 * candidate, of a bad pair its crossings, so memory follows the links,
 * the hosts and the bad pairs.  Both give the same results.
 *
 * Bad pairs beyond LOC_BAD_MAX (a fault that touches most pairs of a
 * large sweep: on an ECMP fat tree each crosses hundreds of links, 2048
 * of them 4.5 MB): the cover is found on a uniform sample of LOC_BAD_MAX, the ok
 * pairs' weight scaled by the same fraction; the counts in the evidence
 * and the scores are over every pair; n_unexplained is estimated from
 * the sample.
 */
#define LOC_BAD_MAX 2048
struct loc_input {
	const struct topo *topo;	/* borrowed; links and names */
	const uint32_t *host_link;	/* borrowed, n_hosts entries; LOC_NO_LINK unknown */
	const char *const *host_names;	/* borrowed, n_hosts entries, or NULL: names for text */
	size_t n_hosts;
	const struct loc_pair *pairs;	/* borrowed */
	size_t n_pairs;
	struct loc_acc *acc;		/* borrowed; when set, the pairs added to it */
};

/*
 * An accumulator over @in's graph and hosts (@in's pairs and acc are not
 * read; topo and host_link are borrowed and must outlive it).  0 or
 * -ENOMEM.
 */
int loc_acc_new(struct loc_acc **out, const struct loc_input *in);
void loc_acc_free(struct loc_acc *acc);
/*
 * Add one measured pair of hosts @a and @b: its route (either direction's
 * paths; NULL: no route, only the two access links), or its links as
 * (link, share) items (route.h's loads: a link's share is the fraction of
 * the pair's traffic on it; each link at most once, as route.h's loads
 * are).  LOC_UNKNOWN is ignored.  0, -EINVAL (bad host index), -ENOMEM.
 */
int loc_acc_add(struct loc_acc *acc, unsigned int a, unsigned int b, const struct pair_route *route,
		enum loc_verdict v, double pct_expected);
int loc_acc_add_loads(struct loc_acc *acc, unsigned int a, unsigned int b,
		      const struct route_load *items, size_t n, enum loc_verdict v,
		      double pct_expected);
/*
 * A pair whose two directions disagree (one slow, one not: on an ECMP
 * fabric each direction hashes onto its own member) as two observations:
 * the worse direction on its own paths with its verdict and share, the
 * better one on the candidates of its paths that the worse did not cross
 * (a link both took, the hosts' access links among them, stays the worse
 * direction's evidence, as it was the pair's; nothing left: no second
 * observation).  v[0], pct[0] are a -> b's (route->ab), v[1], pct[1]
 * b -> a's.  Equal verdicts, or a route without paths both ways: one
 * observation with the worse verdict.  Returns as loc_acc_add().
 */
struct loc_dirs {
	enum loc_verdict v[2];
	double pct[2];
};
int loc_acc_add_dirs(struct loc_acc *acc, unsigned int a, unsigned int b, const struct pair_route *route,
		     const struct loc_dirs *d);

/*
 * A confirming probe of a steered sweep as measured (docs/paths.md
 * "Confirming suspects"): the pair, the link it crossed alone, each
 * direction's verdict, its route (one path each way).  The sweep adds it
 * with loc_acc_add_dirs(); its JSON keeps it (localisation.confirming),
 * so that `diagnose --from` adds it again.
 */
struct loc_probe_obs {
	unsigned int a, b;
	uint32_t link;
	struct loc_dirs d;
	struct pair_route route;	/* owned */
};
void loc_probe_obs_free(struct loc_probe_obs *o, size_t n);

/*
 * A fault the sample of bad pairs missed (a small one beside a large
 * one: an access link's few bad pairs among a million that cross a slow
 * uplink) is found in a residual pass:
 *   loc_acc_sampled(): were bad pairs left out of the sample?
 *   loc_acc_residual(acc, r): the accumulator now samples only the bad
 *     pairs that cross no member of @r's suspects (the counts stay those
 *     of every pair); add the pairs again (ok ones are ignored);
 *   loc_localize_more(in, cfg, r, err): the cover over that sample, its
 *     new suspects added to @r (and r->n_unexplained now what is left).
 * 0, -ENOMEM (loc_localize_more: as loc_localize).
 */
bool loc_acc_sampled(const struct loc_acc *acc);
/*
 * The links every measured crossing of which was bad (at least one): the
 * suspects' members, and the links that only ever shared their bad pairs
 * (a second fault whose pairs all cross a first, an innocent link whose
 * pairs all cross faults).  Traffic already measured cannot clear them;
 * a pair whose path crosses one of them and no other can (the sweep's
 * confirming probes, docs/paths.md "Confirming suspects").  @r's members
 * first (in its order), then the others, most bad crossings first; at
 * most @max into @out; returns how many.  Hosts without a known access
 * link are left out.
 */
size_t loc_acc_unexonerated(const struct loc_acc *acc, const struct loc_result *r, uint32_t *out,
			    size_t max);
int loc_acc_residual(struct loc_acc *acc, const struct loc_result *r);

/* Tuning; loc_cfg_default() gives the documented values. */
struct loc_cfg {
	double lambda;		/* cost of naming one more suspect, in bad pairs (0.5) */
	double contra_weight;	/* cost of one ok pair crossing a suspect, in bad pairs (1.0) */
	unsigned int exact_max;	/* exact cover search when candidates <= this (16) */
};

void loc_cfg_default(struct loc_cfg *cfg);

enum loc_kind {
	LOC_KIND_LINK = 0,	/* one link, not a host's own access link */
	LOC_KIND_NODE,		/* one host: its access link, or the host itself */
	LOC_KIND_GROUP,		/* one of several links traffic could not tell apart */
};

/* "link", "node", "group". */
const char *loc_kind_name(enum loc_kind k);

/* One member of a suspect. */
struct loc_member {
	uint32_t link;		/* index in topo->links[]; LOC_NO_LINK for a host without known access link */
	int host;		/* host whose access link this is (or the host itself); -1 none */
	double counter_score;	/* this member's counter evidence: > 0 errors/warnings, < 0 clean while others are not */
};

struct loc_evidence {
	unsigned int cross_bad, cross_n;	/* measured pairs crossing: bad of all */
	unsigned int other_bad, other_n;	/* measured pairs not crossing: bad of all */
	unsigned int cross_failed;		/* of cross_bad, how many failed rather than slow */
	double cross_pct_median;		/* median pct_expected of the slow crossing pairs; < 0 none */
	unsigned int probes_run, probes_bad;	/* extra pairs measured to narrow a group */
	unsigned int counters_error, counters_warn;	/* findings on the members' ports */
};

struct loc_suspect {
	enum loc_kind kind;
	struct loc_member *members;	/* owned; a group's, best first */
	size_t n_members;
	double score;			/* 0..1: traffic consistency, adjusted by counters */
	double traffic_score;		/* the score before counters */
	struct loc_evidence ev;
	struct counter_finding *counters;	/* owned copies; findings on the members' ports */
	size_t n_counters;
	bool all_failed;		/* node: every one of its measured pairs failed */
	bool unsplittable;		/* group: no pair's path tells the members apart */
	bool tie_by_counters;		/* group: members ordered by counter evidence */
	char note[256];			/* "traffic cannot tell these apart; see counters", ... */
};

struct loc_result {
	struct loc_suspect *suspects;	/* owned, highest score first */
	size_t n_suspects;
	unsigned int n_bad;		/* bad pairs in the input */
	unsigned int n_unexplained;	/* bad pairs no suspect covers (noise, or a fault off every path) */
	unsigned int n_measured;	/* pairs with a verdict */
};

void loc_result_fini(struct loc_result *r);

/*
 * Find the suspects.  A pair crosses a link when any of its paths (either
 * direction, any ECMP share) uses it, and crosses both hosts' access links
 * (also when it has no route).  0 on success (no bad pair: no suspect),
 * -EINVAL for a pair or host index out of range (fab_err_input), -ENOMEM.
 * @cfg NULL: defaults.  @out is filled only on success.
 */
int loc_localize(const struct loc_input *in, const struct loc_cfg *cfg, struct loc_result *out,
		 struct fab_err *err);

int loc_localize_more(const struct loc_input *in, const struct loc_cfg *cfg, struct loc_result *r,
		      struct fab_err *err);

/*
 * Probes.  @route fills @out with the route of hosts a -> b (both
 * directions; the caller's struct, freed by pair_route_fini()) and returns
 * 0, -ENOENT when the pair has no route, or another -errno (passed up).
 */
typedef int (*loc_route_fn)(void *ctx, unsigned int a, unsigned int b, struct pair_route *out);

struct loc_probe_req {
	const bool *avoid;	/* borrowed, n_hosts entries or NULL: hosts not to use (busy, suspect, dead) */
	size_t max_probes;	/* at most this many probes (0: 8) */
	size_t max_routes;	/* at most this many route calls (0: 20000) */
};

struct loc_probes {
	struct pair_route *routes;	/* owned: the pairs to measure, in order */
	uint32_t *masks;		/* owned: bit m set when routes[i] crosses member m */
	size_t n;
	bool unsplittable;	/* some members remain that no probe separates */
	bool exhausted;		/* every usable pair was routed (else the route budget ran out) */
	char note[256];
};

void loc_probes_fini(struct loc_probes *p);

/*
 * Choose probe pairs that split @s's members (at most 32 members are
 * considered): hosts nearest the members first, then greedily each pair
 * whose crossing mask splits a class of still-confused members.  Pairs
 * already in @in are not chosen again.  Sets s->unsplittable and s->note
 * when members remain that no pair tells apart ("traffic cannot tell these
 * apart; see counters").  0, -EINVAL, -ENOMEM or the route callback's error.
 */
int loc_probes_pick(const struct loc_input *in, struct loc_suspect *s,
		    const struct loc_probe_req *req, loc_route_fn route, void *ctx,
		    struct loc_probes *out, struct fab_err *err);

/*
 * Fold the probes' verdicts (@verdicts[i] for probes->routes[i]; LOC_UNKNOWN
 * ignored) into @s: a member is kept when it explains the most probes
 * (crossing probes bad, others ok).  One member left: the suspect becomes a
 * link or node.  Probes that contradict every member (all ok: an
 * intermittent fault) leave the group as it was, with a note.
 */
int loc_group_narrow(const struct loc_input *in, struct loc_suspect *s,
		     const struct loc_probes *probes, const enum loc_verdict *verdicts);

/*
 * Attach counter findings to suspects: a finding on either end of a
 * member's link counts for that member.  error raises the score by half
 * of what is left to 1, warn by a quarter, info is listed only; a suspect
 * whose ports were read clean while findings exist on other links crossed
 * by its bad pairs is lowered by a fifth.  Re-sorts the suspects.  -ENOMEM.
 */
int loc_apply_counters(const struct loc_input *in, struct loc_result *r,
		       const struct counter_report *rep);

/*
 * Text for one member: "leaf1 swp49 <-> spine1 swp3", or for a host's
 * access link "node h3 (its link to leaf1 swp3)".  Port numbers print as
 * "port 7" when a port has no name.  Truncates to @len.
 */
void loc_member_text(const struct loc_input *in, const struct loc_member *m, char *buf, size_t len);

#endif
