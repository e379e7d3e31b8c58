/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per leaf pair: which ECMP member each source port's flow takes, learned
 * from traced flows (model/flow_trace.h), in both directions; or why that
 * cannot be known, so the caller keeps counting the whole ECMP set.
 * docs/paths.md.
 *
 * A member is the sequence of transit nodes a flow crosses between its
 * source leaf and its destination leaf (a spine in a 2-level leaf-spine;
 * aggregation, core, aggregation in a 3-level fat tree; none between two
 * hosts of one leaf): routers, never
 * their ports, since a router answers from whichever interface its reply
 * leaves by.  The two directions are learned apart: the way back is
 * hashed by other switches.
 *
 * The map falls back, for good, with the first reason found:
 *   silent    a hop between the leaves did not answer (ICMP filtered,
 *             rate limited past the tries, a router that does not answer)
 *   unmapped  an answer between the leaves came from an address no node
 *             of the topology holds (add it to the plan's addresses:)
 *   unstable  one tuple took two paths: two nodes answered one TTL of one
 *             trace (packet spraying, adaptive routing), or a repeat of a
 *             port took another member than before
 *   no-leaf   the flow's path does not pass the pair's leaves where they
 *             should be (the far end did not answer, or a hop refused it)
 *
 * Use:
 *     ecmp_map_init(&m, "leaf1", "leaf2", false)  ("" leaves: taken from the first trace)
 *     ecmp_map_learn(&m, ECMP_AB, &trace)         per traced flow a -> b (and ECMP_BA)
 *     ecmp_map_member(&m, ECMP_AB, sport)         the member index, or why not
 *     ecmp_map_fini(&m)
 *
 * Ownership: the map owns its members (and their node names) and its
 * ports; it borrows nothing.  Pure C, no I/O.
 */
#ifndef FAB_MODEL_ECMP_MAP_H
#define FAB_MODEL_ECMP_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/flow_trace.h"

enum ecmp_dir {
	ECMP_AB = 0,		/* flows from leaf a's host to leaf b's */
	ECMP_BA = 1,
};

enum ecmp_reason {
	ECMP_OK = 0,
	ECMP_SILENT,
	ECMP_UNMAPPED,
	ECMP_UNSTABLE,
	ECMP_NO_LEAF,
};

struct ecmp_member {
	char **nodes;		/* owned: transit node names from the source leaf on */
	size_t n_nodes;		/* 0: no transit node (leaves cabled directly, or one leaf) */
	unsigned int n_ports;	/* source ports seen taking it */
};

struct ecmp_port {
	uint16_t sport;
	int member;		/* index into the side's members[], -1 unknown */
	unsigned int traces;	/* times traced */
};

struct ecmp_side {
	struct ecmp_member *members;	/* owned, in the order first seen */
	size_t n_members;
	struct ecmp_port *ports;	/* owned, in the order first traced */
	size_t n_ports;
};

struct ecmp_map {
	char leaf[2][128];	/* leaf a, leaf b; "" until a trace shows it */
	bool by_addr;		/* no topology: hops go by their addresses */
	struct ecmp_side side[2];	/* [ECMP_AB], [ECMP_BA] */
	enum ecmp_reason reason;	/* ECMP_OK: the map holds */
	char detail[320];		/* why it fell back, for people; "" when it holds */
};

/*
 * Empty map for the pair (@leaf_a, @leaf_b), either may be NULL or "" (the
 * first trace of a direction names the leaves: its first hop, and the hop
 * before the destination).  @by_addr: hops are not mapped to nodes and go
 * by their answering addresses; then the leaves are found by position
 * only (TTL 1, and the hop before the destination) and left unnamed, and a
 * transit router that answers from two addresses looks like two: the map
 * can only be trusted where each transit router answers from one (a
 * spine of a 2-level fabric does: its way back to the source is one link).
 */
void ecmp_map_init(struct ecmp_map *m, const char *leaf_a, const char *leaf_b, bool by_addr);
void ecmp_map_fini(struct ecmp_map *m);

/*
 * Learn from @t, a flow traced in direction @dir and mapped
 * (flow_trace_map()): the member its source port takes, or the reason the
 * map falls back.  0, or -ENOMEM.  A map that fell back still records the
 * ports whose member was seen (for display), but never holds again.
 */
int ecmp_map_learn(struct ecmp_map *m, enum ecmp_dir dir, const struct flow_trace *t);
/*
 * The same, the flow's member recorded under @port instead of its source
 * port: the b -> a side of a test from a:S to b:D is traced as the flow
 * b:D -> a:S', whose varying port is its destination S' (docs/paths.md
 * "Steering"), so that side is keyed by S'.
 */
int ecmp_map_learn_as(struct ecmp_map *m, enum ecmp_dir dir, const struct flow_trace *t,
		      uint16_t port);

/*
 * The member (index into m->side[dir].members) that source port @sport
 * takes in @dir: >= 0; -ENOENT when that port was not traced or its
 * member is unknown; -ESTALE when the map fell back (m->reason says why).
 */
int ecmp_map_member(const struct ecmp_map *m, enum ecmp_dir dir, uint16_t sport);

/* "ok", "silent", "unmapped", "unstable", "no-leaf". */
const char *ecmp_reason_name(enum ecmp_reason r);

/* @mb's nodes joined by " > " ("(none)": no transit node), into @buf (truncated). */
void ecmp_member_text(const struct ecmp_member *mb, char *buf, size_t len);

#endif
