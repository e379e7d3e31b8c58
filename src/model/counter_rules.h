/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The counter rules: one table, one entry per port counter, read by every
 * command that judges a counter.  Pure data, no I/O.  docs/counters.md
 * prints the table; a unit test holds the two in step.
 *
 * An entry names its counter and says two things about it:
 *
 *   limit      one reading strictly above it is a problem: discover's link
 *              health, accept's cabling stage (topo_thresholds_from(),
 *              model/topo.h; discover --thresholds changes it per run);
 *   threshold  a rise strictly above it between two readings (before and
 *              after a sweep, a probe, accept's traffic) is a finding of
 *              the entry's severity: sweep, diagnose, accept
 *              (counter_eval(), model/counter_eval.h).
 *
 * COUNTER_OFF in either column: that evaluator passes the counter by.
 *
 * The names of one counter, and who prints which:
 *
 *   name   the IB PMA attribute name ("SymbolErrorCounter"), or the
 *          ethtool -S, RDMA hw_counters or netdev statistics name, or an
 *          fnmatch(3) glob over per-priority names ("rx_prio*_pause");
 *          the policy file's key, and the list its errors print;
 *   alias  an IB PMA counter's fabricctl JSON name (topo_counter_name():
 *          "symbol_errors"): what discover prints and --thresholds takes,
 *          and the name a window finding on a PMA counter carries; the
 *          policy file takes it too;
 *   sysfs  the kernel's name under /sys/class/infiniband/DEV/ports/N/counters
 *          (what status shows) where it differs from the alias
 *          ("symbol_error"); NULL when it is the alias.
 *
 * Ownership: the table and every string in it are static; struct
 * counter_policy is a caller-owned copy (embedded, no heap) whose string
 * pointers still point into the table.
 */
#ifndef FAB_MODEL_COUNTER_RULES_H
#define FAB_MODEL_COUNTER_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* Either column of an entry: this evaluator does not look at the counter. */
#define COUNTER_OFF UINT64_MAX

enum counter_sev {
	COUNTER_SEV_INFO = 0,	/* reported, does not move a score */
	COUNTER_SEV_WARN,	/* congestion, retransmission: weak evidence */
	COUNTER_SEV_ERROR,	/* errors, drops, link flaps: strong evidence */
};

/* "info", "warn", "error"; NULL out of range. */
const char *counter_sev_name(enum counter_sev s);
/* Reverse; -1 when unknown. */
int counter_sev_parse(const char *name);

struct counter_rule {
	const char *name;	/* exact name or fnmatch(3) glob */
	const char *alias;	/* IB PMA counter's JSON name, or NULL */
	const char *sysfs;	/* IB sysfs counters/ name where it differs from alias, or NULL */
	const char *meaning;	/* one line for the operator */
	uint64_t limit;		/* one reading above it is a problem; or COUNTER_OFF */
	uint64_t threshold;	/* a rise above it in a window is a finding; or COUNTER_OFF */
	enum counter_sev sev;	/* of a window finding */
};

/* The built-in table: *n set to its length; the array is static. */
const struct counter_rule *counter_rules_default(size_t *n);

/* The entry whose sysfs name is @name exactly (status's spelling); NULL none. */
const struct counter_rule *counter_rules_sysfs(const char *name);

/* A copy of the table that overrides may change.  Embedded; no heap. */
#define COUNTER_RULES_MAX 96
struct counter_policy {
	struct counter_rule rules[COUNTER_RULES_MAX];
	size_t n;
};

void counter_policy_default(struct counter_policy *pol);

/*
 * The entry named @name or aliased @name, exactly (globs as written, not
 * matched), whatever its columns hold; @pol NULL: the built-in table.
 * NULL when none.  The absolute evaluator and the overrides use it.
 */
const struct counter_rule *counter_policy_entry(const struct counter_policy *pol,
						const char *name);

/*
 * The window rule that covers counter @name: the entry named or aliased
 * @name, else the longest glob that matches it; NULL when none does or
 * when that entry's threshold is COUNTER_OFF.  @pol NULL: the built-in
 * table.  counter_eval() judges what this finds, and only that.
 */
const struct counter_rule *counter_policy_find(const struct counter_policy *pol, const char *name);

/* One override from the parsed policy file. */
struct counter_override {
	const char *name;	/* an entry's name exactly as the table spells it, or its alias */
	bool has_threshold;
	uint64_t threshold;	/* COUNTER_OFF allowed */
	bool has_sev;
	enum counter_sev sev;
	bool has_limit;
	uint64_t limit;		/* COUNTER_OFF allowed */
	const char *where;	/* "policy.yaml:12" for messages; NULL none */
};

/*
 * Apply @n overrides in order.  An unknown name is bad input (-EINVAL,
 * fab_err_input) naming @where and listing the valid names; nothing is
 * changed then (all or nothing).
 */
int counter_policy_apply(struct counter_policy *pol, const struct counter_override *ov, size_t n,
			 struct fab_err *err);

/*
 * The policy file (YAML, docs/counters.md): "counters:" a list of
 * {name, threshold, severity, limit} overriding the table; threshold and
 * limit take a number or "off".  @pol is reset to the table first.  Bad
 * input names FILE:LINE and the field.
 */
int counter_policy_parse(struct counter_policy *pol, const char *buf, size_t len, const char *fname,
			 struct fab_err *err);

/*
 * The same "counters:" list as node @list of a document another parser
 * walks (accept's policy, model/accept.h): the overrides applied to @pol
 * as they stand (not reset first).  Bad input as above.
 */
struct yaml_walk;
struct yaml_node_s;
int counter_policy_walk(struct counter_policy *pol, const struct yaml_walk *w,
			struct yaml_node_s *list);

#endif
