/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Port counters as evidence: the delta between two snapshots (before and
 * after a sweep or a probe) judged by the window column of the counter
 * rules (model/counter_rules.h: one table, docs/counters.md).  Pure data,
 * no I/O: the readers (PMA MADs, ethtool -S,
 * /sys/class/infiniband/.../hw_counters) live in sys/ and fill a struct
 * counter_snap.
 *
 * Rules:
 *   - a counter is known by name: the IB PMA attribute name
 *     ("SymbolErrorCounter"), its fabricctl JSON alias ("symbol_errors",
 *     topo_counter_name()), or an ethtool / hw_counters name; a rule name may
 *     be an fnmatch(3) glob ("rx_prio*_pause") for per-priority counters;
 *   - a finding is raised when after - before > threshold;
 *   - an entry whose threshold is COUNTER_OFF is no rule here (its
 *     counter counts as unknown);
 *   - a counter absent from either snapshot is skipped, never invented;
 *   - a counter that went backwards was reset (or wrapped): reported as a
 *     finding with reset = true and severity info, never as a delta;
 *   - names no rule knows are ignored (counted in n_unknown).
 *
 * Units: values and thresholds are raw counter units (events, packets,
 * PortXmitWait ticks, pause duration in the driver's unit).
 *
 * Ownership: struct counter_snap owns its samples (names copied); ports are
 * borrowed from the caller's struct topo and must outlive the snapshot and
 * every report made from it.  struct counter_report owns its findings and
 * ports arrays.  _fini() frees and zeroes (safe twice).
 */
#ifndef FAB_MODEL_COUNTER_EVAL_H
#define FAB_MODEL_COUNTER_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/counter_rules.h"
#include "model/topo.h"

struct counter_sample {
	const struct topo_port *port;	/* borrowed */
	char name[64];
	uint64_t value;
};

struct counter_snap {
	struct counter_sample *v;	/* owned */
	size_t n, cap;
};

void counter_snap_init(struct counter_snap *s);
void counter_snap_fini(struct counter_snap *s);
/* Append one reading (@name copied, truncated to 63 bytes); -ENOMEM. */
int counter_snap_add(struct counter_snap *s, const struct topo_port *port, const char *name,
		     uint64_t value);
/* Append every PMA counter a port holds (port->facts has TOPO_F_COUNTERS), by its alias. */
int counter_snap_add_topo_port(struct counter_snap *s, const struct topo_port *port);
/* The same with the counters @from holds, as readings of @port (its twin in another read). */
int counter_snap_add_port_as(struct counter_snap *s, const struct topo_port *port,
			     const struct topo_port *from);

struct counter_finding {
	const struct topo_port *port;	/* borrowed */
	uint32_t link;			/* index in topo->links[]; COUNTER_NO_LINK when unlinked */
	char name[64];			/* as read */
	uint64_t before, after;
	uint64_t delta;			/* after - before; 0 on reset */
	uint64_t threshold;		/* the rule's */
	enum counter_sev sev;		/* the rule's; info on reset */
	bool reset;			/* went backwards: cleared or wrapped */
};

#define COUNTER_NO_LINK UINT32_MAX

/* A port read in both snapshots: its counters were looked at. */
struct counter_port_read {
	const struct topo_port *port;	/* borrowed */
	uint32_t link;			/* COUNTER_NO_LINK when unlinked */
	unsigned int compared;		/* counters a rule knows, in both snapshots */
};

struct counter_report {
	struct counter_finding *findings;	/* owned; by port order of @after, then name */
	size_t n_findings;
	struct counter_port_read *ports;	/* owned */
	size_t n_ports;
	size_t n_unknown;	/* samples no rule knows (ignored) */
	size_t n_absent;	/* known samples in one snapshot only (skipped) */
};

void counter_report_fini(struct counter_report *r);

/*
 * Compare @before and @after under @pol (NULL: the defaults).  @t is the
 * graph the ports belong to; it gives each port's link index.  0 or
 * -ENOMEM; @out is filled only on success.
 */
int counter_eval(const struct topo *t, const struct counter_policy *pol,
		 const struct counter_snap *before, const struct counter_snap *after,
		 struct counter_report *out);

#endif
