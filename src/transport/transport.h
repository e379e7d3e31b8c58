/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Data-path engines for the sweep, behind one interface: tcp (tcp.c:
 * ping-pong latency, streaming bandwidth over one or more streams) and
 * verbs (verbs.c: RC queue pairs, RDMA write).
 *
 * One test between a server (node B) and a client (node A) runs in five
 * steps, each relayed by the controller through the worker protocol
 * (docs/worker-protocol.md):
 *
 *   1. server_open(B)   creates the listener / QP and publishes B's
 *                        endpoint (tcp: {"addr","port"}; verbs: {"lid",
 *                        "qpn","psn","gid","rkey","addr"}).
 *   2. client_open(A)   gets B's endpoint and publishes A's own
 *                        (tcp: {} - nothing to say; verbs: A's QP info).
 *   3. server_peer(B)   gets A's endpoint (verbs: move B's QP to RTR/RTS;
 *                        tcp: NULL, nothing to do).
 *   4. server_run(B)    serves the spec until the client is done;
 *      client_run(A)    runs the spec and returns every figure.
 *   5. close()          on both.
 *
 * Only a peer that presents the sweep's token is served; every wait is
 * bounded by spec->timeout_ms, and returns -ECANCELED as soon as
 * @cancel_fd (the worker's stdin) becomes readable or hangs up.
 * Functions return 0 or -errno and fill @err.  Endpoints are jansson
 * objects: the ones returned are new references owned by the caller,
 * the ones passed in are borrowed.
 *
 * Results: the client reports latency (round trips it timed) and both
 * bandwidth directions; the receiver of each direction measures it in
 * intervals of interval_ms and the server sends its figures back over the
 * data path, so the client's result is complete.
 */
#ifndef FAB_TRANSPORT_TRANSPORT_H
#define FAB_TRANSPORT_TRANSPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/sweep_judge.h"
#include "util/array.h"
#include "util/err.h"

#define TP_TOKEN_LEN 16		/* bytes; 32 hex digits on the wire */

/*
 * Verbs tuning, the knobs perftest has (sweep --verbs-*, docs/verbs.md);
 * the tcp transport ignores them.
 */
struct tp_verbs_tuning {
	unsigned int bw_bytes;		/* bandwidth message (perftest -s); 0: default */
	unsigned int tx_depth;		/* writes in flight (-t); 0: default */
	unsigned int cq_mod;		/* one in cq_mod signalled (-Q), at most tx_depth; 0: default */
	unsigned int spin_us;		/* a wait spins this long before it yields or sleeps */
};

#define TP_VERBS_TUNING_DEFAULT { .bw_bytes = 65536, .tx_depth = 128, .cq_mod = 32, .spin_us = 20 }

/*
 * What one test does: its phases, sizes and bounds (the controller's
 * choice, sent to both workers as the protocol's "plan" object).
 */
struct tp_spec {
	unsigned int lat_iters;		/* timed round trips, 0 for none */
	unsigned int lat_ms;		/* latency phase time bound (warm-up included): stop
					 * there even before lat_iters; 0: none (tcp) */
	unsigned int msg_bytes;		/* latency message size */
	unsigned int duration_ms;	/* per bandwidth direction, 0 for none */
	unsigned int interval_ms;	/* bandwidth sampling interval */
	unsigned int streams;		/* parallel streams (tcp) */
	bool bw_fwd;			/* client -> server */
	bool bw_rev;			/* server -> client */
	unsigned int timeout_ms;	/* bound on every wait */
	struct tp_verbs_tuning verbs;
	/*
	 * tcp, steered tests (docs/paths.md "Steering"): the ports that make
	 * each phase's 5-tuple the one traced.  port: the server listens on
	 * it (SO_REUSEADDR); sport_fwd / sport_rev: the client's streams of
	 * the a -> b / b -> a phase leave from sport_fwd + i / sport_rev + i
	 * (stream i).  0: any free port (the kernel's), as before.  The
	 * latency connection's port is always the kernel's.  A b -> a
	 * stream closes with a reset once it has everything (no TIME_WAIT:
	 * its tuple can run again at once); an a -> b stream's tuple sits in
	 * TIME_WAIT at the client for 60 s (it sends the first FIN), so a
	 * retest within that time needs another sport_fwd.  A port held by
	 * another socket fails the test.  verbs on RoCE v2: sport_fwd /
	 * sport_rev are the UDP source ports of the client's / server's QP,
	 * set through the GRH flow label (verbs_sport_flow_label()) on
	 * devices that honour it (mlx5; rxe since rdma_get_udp_sport() in
	 * rxe_modify_qp(), Debian's 6.1 has it); port is not used.
	 */
	unsigned int port, sport_fwd, sport_rev;
};

struct tp_params {
	const char *local_addr;		/* this node's data-path address */
	const char *dev;		/* RDMA device ("" for tcp) */
	unsigned int dev_port;
	uint8_t token[TP_TOKEN_LEN];
	struct tp_spec spec;
};

struct tp_result {
	bool have_lat;
	struct stats_summary lat_ns;
	struct sweep_bw fwd, rev;	/* client->server, server->client */
	/*
	 * verbs on RoCE v2: the UDP source port of the client's QP (its
	 * packets go client -> server) and of the server's, as the kernel
	 * derives them (docs/verbs.md "The UDP source port"); 0 unknown
	 * (tcp, InfiniBand).
	 */
	uint16_t sport_fwd, sport_rev;
};

struct tp_session;

struct transport_ops {
	const char *name;
	int (*server_open)(const struct tp_params *p, struct tp_session **out,
			   json_t **endpoint, struct fab_err *err);
	int (*client_open)(const struct tp_params *p, const json_t *peer,
			   struct tp_session **out, json_t **endpoint, struct fab_err *err);
	/* May be NULL when the server needs nothing from the client. */
	int (*server_peer)(struct tp_session *s, const json_t *peer, struct fab_err *err);
	int (*server_run)(struct tp_session *s, int cancel_fd, struct fab_err *err);
	int (*client_run)(struct tp_session *s, int cancel_fd, struct tp_result *res,
			  struct fab_err *err);
	void (*close)(struct tp_session *s);	/* NULL-safe */
};

extern const struct transport_ops transport_tcp_ops;
/* Defined by src/transport/verbs.c when it is built. */
extern const struct transport_ops transport_verbs_ops __attribute__((weak));

/* The transport called @name, or NULL. */
static inline const struct transport_ops *transport_find(const char *name)
{
	const struct transport_ops *all[] = { &transport_tcp_ops, &transport_verbs_ops };

	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		if (all[i] && all[i]->name && __builtin_strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

/* Constant-time comparison of two tokens (TP_TOKEN_LEN bytes each). */
bool tp_token_equal(const uint8_t *a, const uint8_t *b);

/* @token as 2 * TP_TOKEN_LEN lowercase hex digits and a NUL, into @hex. */
void tp_token_hex(const uint8_t *token, char *hex);

/*
 * 2 * TP_TOKEN_LEN hex digits into @token: 0 or -EINVAL.  The worker
 * protocol's tokens are lowercase only; @any_case also takes A-F, as a
 * verbs endpoint's always has.
 */
int tp_token_parse(const char *hex, uint8_t *token, bool any_case);

#endif
