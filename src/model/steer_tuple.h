/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tuples of a steered test (docs/paths.md "sweep --steer"): which
 * flows `sweep --steer` traces for a host pair (a, b), and which ports
 * the test then runs on, for each transport.  Pure C, no I/O.
 *
 *   tcp   a -> b data a:S -> b:D (the client's streams to b's listener D),
 *         b -> a data b:D -> a:S' (the server answers on the client's
 *         b -> a connections, which leave a from S').
 *   roce  RoCE v2 (verbs on Ethernet): every packet of a QP is UDP to
 *         4791 from the QP's source port, which the GRH flow label sets
 *         (docs/verbs.md "The UDP source port"): a -> b data a:S -> b:4791
 *         (the client's QP), b -> a data b:S' -> a:4791 (the server's).
 *
 * Either way the a -> b side is keyed by S and the b -> a side by S'
 * (the map's ecmp_map_learn_as()), and each traced tuple is the one the
 * test rides.  Ports per sweep, from a random base B: S_k = B + k,
 * S'_k = B + STEER_PORTS + k, D = B + 2 x STEER_PORTS.  tcp: B below the
 * kernel's ephemeral range (a sweep right after another meets none of its
 * tuples in TIME_WAIT); roce: B in 0xc000..0xffff, the only source ports
 * a flow label can give (rdma_flow_label_to_udp_sport() ORs 0xc000 in).
 *
 * Ownership: a struct steer_tuple is a plain value.
 */
#ifndef FAB_MODEL_STEER_TUPLE_H
#define FAB_MODEL_STEER_TUPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "model/ecmp_map.h"
#include "model/flow_trace.h"

#define STEER_PORTS 8			/* ports traced per pair and direction */
#define STEER_TCP_PORT_LO 10000
#define STEER_TCP_PORT_SLOTS 1250	/* 10000 .. 29999: below 32768 */
#define STEER_ROCE_PORT_LO 0xc000	/* IB_ROCE_UDP_ENCAP_VALID_PORT_MIN */
#define STEER_ROCE_PORT_SLOTS 1024	/* 0xc000 .. 0xffff */
#define STEER_ROCE_DPORT 4791		/* ROCE_V2_UDP_DPORT */

enum steer_kind {
	STEER_TCP = 0,
	STEER_ROCE,			/* RoCE v2: UDP to 4791 */
};

struct steer_tuple {
	enum steer_kind kind;
	unsigned int base;		/* B */
};

/* The tuples of @kind from the random number @rnd (any value: the slot is rnd modulo the slots). */
void steer_tuple_init(struct steer_tuple *t, enum steer_kind kind, uint32_t rnd);

/* S_k, S'_k (k < STEER_PORTS) and the test's destination port (tcp: D; roce: 4791). */
uint16_t steer_tuple_fwd(const struct steer_tuple *t, unsigned int k);
uint16_t steer_tuple_rev(const struct steer_tuple *t, unsigned int k);
uint16_t steer_tuple_dport(const struct steer_tuple *t);

/*
 * The flow that rides direction @dir of the test between addresses @a and
 * @b with port @port (ECMP_AB: S, from a; ECMP_BA: S', from b), to trace.
 * Addresses longer than the flow's fields are cut (the caller's are not).
 */
void steer_tuple_flow(const struct steer_tuple *t, enum ecmp_dir dir, uint16_t port,
		      const char *a, const char *b, struct flow *f);

/*
 * Does each run of a test take a new a -> b port of its member (tcp: a
 * server that closed first leaves its tuple in TIME_WAIT at a), or is one
 * port good for every run (roce: UDP holds no state)?
 */
bool steer_tuple_turns(const struct steer_tuple *t);

/*
 * The ports a test recorded against the ports planned (roce: the
 * transport's pairs[].udp_sport, the ports its QPs really used): a bit per
 * direction that differs, STEER_MOVED_AB and STEER_MOVED_BA; a recorded 0
 * (none: the test failed early, or not RoCE v2) proves nothing and counts
 * as the plan.
 */
#define STEER_MOVED_AB 1u
#define STEER_MOVED_BA 2u
unsigned int steer_tuple_moved(uint16_t plan_ab, uint16_t plan_ba, uint16_t got_ab,
			       uint16_t got_ba);

const char *steer_kind_name(enum steer_kind kind);

#endif
