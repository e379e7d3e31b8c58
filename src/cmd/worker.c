// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fabricctl worker: the node side of the fleet layer.  Reads protocol
 * requests (src/fleet/proto.h, docs/worker-protocol.md) as JSON lines on
 * stdin and answers on stdout; logs go to stderr.  Exits when stdin
 * closes, also in the middle of a test (stdin is the transports'
 * cancel_fd, a session child's stdin closes with it).  Each test session
 * runs in a child process (worker_session.c), so a host's worker serves
 * one session for each of its fabric ports at once.  What it does for
 * status, verify, apply and lldp is the node layer (src/node/) that the
 * local commands call too; this file only speaks the protocol.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/cmd_opt.h"
#include "cmd/worker.h"
#include "fleet/fleet_dial.h"
#include "fleet/proto.h"
#include "fleet/proto_bond.h"
#include "fleet/proto_trace.h"
#include "model/lldp_view.h"
#include "node/apply.h"
#include "node/node.h"
#include "node/optics.h"
#include "transport/trace.h"
#include "transport/transport.h"
#include "util/array.h"
#include "util/log.h"

/* Reply @result, or, when it is NULL, fail with @msg. */
static void worker_answer(struct worker *w, long long id, json_t *result, const char *msg)
{
	if (result)
		worker_reply(w, id, result);
	else
		worker_fail(w, id, msg);
}

static void op_hello(struct worker *w, struct proto_msg *req)
{
	const char *names[] = { "tcp", "verbs" };
	json_t *tps = json_array();
	char host[256] = "";

	gethostname(host, sizeof(host) - 1);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (transport_find(names[i]))
			json_array_append_new(tps, json_string(names[i]));
	worker_reply(w, req->id, json_pack("{s:i, s:s, s:I, s:o, s:[sssssssssssssss], s:i}",
		"version", FAB_PROTO_VERSION, "hostname", host, "pid", (json_int_t)getpid(),
		"transports", tps, "ops", "hello", "status", "verify", "apply", "lldp", "counters",
		"bond", "optics", "trace", "listen", "connect", "peer", "go", "abort", "bye",
		"sessions", WORKER_SESSIONS_MAX));
}

/* status; with "optics": true (status --hosts) its modules too, judged on one reading. */
static void op_status(struct worker *w, struct proto_msg *req)
{
	struct host_state hs;
	struct fab_err err;

	fab_err_init(&err);
	host_state_init(&hs);
	if (node_status_read(w->ctx->sys, &hs, &err) < 0 ||
	    (json_is_true(json_object_get(req->doc, "optics")) &&
	     node_optics_read(w->ctx->sys, &hs, NULL, &err) < 0))
		worker_fail(w, req->id, err.msg);
	else
		worker_reply(w, req->id, status_to_json(&hs));
	host_state_fini(&hs);
}

/*
 * The profile of a verify or apply request: its text in "profile" (the
 * controller validated the same bytes; nodes need not share a
 * filesystem), its name for messages in "profile_name".
 */
static int req_profile(const json_t *req, struct profile **p, const char **name,
		       struct fab_err *err)
{
	const json_t *text = json_object_get(req, "profile");
	const char *n = json_string_value(json_object_get(req, "profile_name"));

	if (!json_is_string(text))
		return fab_err_set(err, -EPROTO, "protocol: \"profile\" must be the profile's text");
	*name = n && *n ? n : "profile";
	return profile_parse(*name, (const unsigned char *)json_string_value(text),
			     json_string_length(text), p, err);
}

/*
 * verify --hosts: the same code path as `fabricctl verify` on this node;
 * the result is this node's "fabricctl.verify/1" document.
 */
static void op_verify(struct worker *w, struct proto_msg *req)
{
	struct profile *p = NULL;
	struct host_state hs;
	struct node_config ns;
	struct changeset cs;
	struct fab_err err;
	const char *name = NULL;

	fab_err_init(&err);
	host_state_init(&hs);
	node_config_init(&ns, &hs);
	changeset_init(&cs);
	if (req_profile(req->doc, &p, &name, &err) < 0 ||
	    node_verify(w->ctx->sys, p, &hs, &ns, &cs, &err) < 0) {
		worker_fail(w, req->id, err.msg);
		goto out;
	}
	worker_answer(w, req->id, verify_to_json(name, hs.hostname, &cs), "verify: out of memory");
out:
	changeset_fini(&cs);
	node_config_fini(&ns);
	host_state_fini(&hs);
	profile_free(p);
}

static volatile sig_atomic_t apply_stop_sig;

static void apply_stop(int sig)
{
	apply_stop_sig = sig;
}

/*
 * While a change set runs, SIGTERM and SIGINT (the controller asking a worker
 * past its deadline to stop) must not kill the node half-configured: they
 * are noted, the change set ends as the node layer ends it (done, or rolled back
 * where it stops on a signal), the answer goes out, then the worker exits.
 */
static void apply_signals(bool on, struct sigaction *saved)
{
	struct sigaction sa = { .sa_handler = apply_stop, .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	if (on) {
		apply_stop_sig = 0;
		sigaction(SIGTERM, &sa, &saved[0]);
		sigaction(SIGINT, &sa, &saved[1]);
	} else {
		sigaction(SIGTERM, &saved[0], NULL);
		sigaction(SIGINT, &saved[1], NULL);
	}
}

/*
 * apply --hosts: the same code path as `fabricctl apply [--dry-run]` on
 * this node (its lock, its rollback).  A failure before there is a change set
 * is a failed reply; a failed step answers the "fabricctl.apply/1"
 * document, which says what was rolled back.  No --try (see apply.8).
 */
static void op_apply(struct worker *w, struct proto_msg *req)
{
	struct apply_report rep = { .failed = -1 };
	const json_t *dry = json_object_get(req->doc, "dry_run");
	struct sigaction saved[2];
	struct profile *p = NULL;
	struct changeset cs;
	struct fab_err err;
	const char *name = NULL;

	fab_err_init(&err);
	changeset_init(&cs);
	if (dry && !json_is_boolean(dry)) {
		worker_fail(w, req->id, "protocol: \"dry_run\" must be true or false");
		goto out;
	}
	if (req_profile(req->doc, &p, &name, &err) < 0) {
		worker_fail(w, req->id, err.msg);
		goto out;
	}
	apply_signals(true, saved);
	apply_node(w->ctx->sys, p, name, json_is_true(dry), 0, &cs, &rep, &err);
	apply_signals(false, saved);
	if (apply_stop_sig || rep.signo) {
		fab_warn("worker: %s during apply: the plan ended, answering, then exiting",
			 strsignal(apply_stop_sig ? apply_stop_sig : rep.signo));
		w->quit = true;
	}
	if (!rep.cs) {
		worker_fail(w, req->id, err.msg);
		goto out;
	}
	worker_answer(w, req->id, apply_to_json(&rep), "apply: out of memory");
out:
	changeset_fini(&cs);
	profile_free(p);
}

/* `discover --lldp --hosts`: this node's LLDP view (node_lldp_read(), node/node.c). */
static void op_lldp(struct worker *w, struct proto_msg *req)
{
	const json_t *s = json_object_get(req->doc, "socket");
	struct lldp_view v;
	struct fab_err err;
	json_t *res = NULL;

	fab_err_init(&err);
	if (s && !json_is_null(s) && !json_is_string(s)) {
		worker_fail(w, req->id, "lldp: socket: not a string");
		return;
	}
	lldp_view_init(&v);
	if (node_lldp_read(w->ctx->sys, json_string_value(s), &v, &err) == 0) {
		res = lldp_view_to_json(&v);
		if (!res)
			fab_err_set(&err, -ENOMEM, "lldp: out of memory");
	}
	lldp_view_fini(&v);
	worker_answer(w, req->id, res, err.msg);
}

/* A string member of a request, or NULL when absent or null; -EPROTO when another type. */
static int req_str(const json_t *req, const char *key, const char **out)
{
	const json_t *v = json_object_get(req, key);

	*out = json_string_value(v);
	return !v || json_is_null(v) || json_is_string(v) ? 0 : -EPROTO;
}

/*
 * sweep --topology: this node's Ethernet / RoCE counters by name
 * (node_counters_read), for the interface "ifname" or the one holding
 * "addr", and the RDMA ports on it (plus "rdma", "rdma_port").
 */
static void op_counters(struct worker *w, struct proto_msg *req)
{
	struct nic_counters_req q = { 0 };
	const json_t *port = json_object_get(req->doc, "rdma_port");
	struct nic_counters c;
	struct fab_err err;
	json_t *res = NULL;

	fab_err_init(&err);
	if (req_str(req->doc, "ifname", &q.ifname) < 0 || req_str(req->doc, "addr", &q.addr) < 0 ||
	    req_str(req->doc, "rdma", &q.rdma) < 0) {
		worker_fail(w, req->id, "protocol: counters: \"ifname\", \"addr\", \"rdma\" must be strings");
		return;
	}
	if (port && !json_is_null(port) && (!json_is_integer(port) || json_integer_value(port) < 0 ||
					    json_integer_value(port) > 255)) {
		worker_fail(w, req->id, "protocol: counters: \"rdma_port\" must be an integer 0..255");
		return;
	}
	q.rdma_port = json_is_integer(port) ? (unsigned int)json_integer_value(port) : 0;
	nic_counters_init(&c);
	if (node_counters_read(w->ctx->sys, &q, &c, &err) == 0) {
		res = nic_counters_to_json(&c);
		if (!res)
			fab_err_set(&err, -ENOMEM, "counters: out of memory");
	}
	nic_counters_fini(&c);
	worker_answer(w, req->id, res, err.msg);
}

/*
 * sweep's dual-homed legs: the data-path interface ("ifname", or the one
 * holding "addr") and, when it is a bond, its members' tx_bytes.
 */
static void op_bond(struct worker *w, struct proto_msg *req)
{
	const char *addr, *ifname;
	struct bond_snap s;
	struct fab_err err;
	json_t *res = NULL;

	fab_err_init(&err);
	if (req_str(req->doc, "ifname", &ifname) < 0 || req_str(req->doc, "addr", &addr) < 0) {
		worker_fail(w, req->id, "protocol: bond: \"ifname\", \"addr\" must be strings");
		return;
	}
	if (node_bond_snap(w->ctx->sys, addr, ifname, &s, &err) == 0) {
		res = proto_bond_result(&s);
		if (!res)
			fab_err_set(&err, -ENOMEM, "bond: out of memory");
	}
	worker_answer(w, req->id, res, err.msg);
}

/*
 * diagnose, accept (and later status --hosts): this node's modules and
 * links, raw (node_optics_wire): "ifnames" an array of interface names,
 * or null for every hardware port with a module interface.
 */
static void op_optics(struct worker *w, struct proto_msg *req)
{
	const json_t *names = json_object_get(req->doc, "ifnames"), *v;
	const char *list[64];
	struct fab_err err;
	json_t *res;
	size_t i, n = 0;

	fab_err_init(&err);
	if (names && !json_is_null(names) &&
	    (!json_is_array(names) || json_array_size(names) > 64)) {
		worker_fail(w, req->id, "protocol: optics: \"ifnames\" must be null or an array");
		return;
	}
	json_array_foreach(names, i, v) {
		if (!json_is_string(v)) {
			worker_fail(w, req->id, "protocol: optics: \"ifnames\" must hold strings");
			return;
		}
		list[n++] = json_string_value(v);
	}
	res = node_optics_wire(w->ctx->sys, list, n, &err);
	worker_answer(w, req->id, res, err.msg);
}

/*
 * sweep (steering), diagnose: the paths of "flows" from this host
 * (transport/trace.h; docs/paths.md), the hops raw: the controller names
 * them after its topology.
 */
static void op_trace(struct worker *w, struct proto_msg *req)
{
	struct flow_trace *tr = NULL;
	struct trace_opts o;
	struct fab_err err;
	json_t *res = NULL;
	size_t n = 0;

	fab_err_init(&err);
	if (proto_trace_req_parse(req->doc, &tr, &n, &o, &err) == 0 &&
	    (n == 0 || trace_run(tr, n, &o, STDIN_FILENO, &err) == 0)) {
		res = proto_trace_result(tr, n);
		if (!res)
			fab_err_set(&err, -ENOMEM, "trace: out of memory");
	}
	for (size_t i = 0; tr && i < n; i++)
		flow_trace_fini(&tr[i]);
	free(tr);
	worker_answer(w, req->id, res, err.msg);
}

/* A session that already ended: nothing to do. */
static void op_abort(struct worker *w, struct proto_msg *req)
{
}

static void op_bye(struct worker *w, struct proto_msg *req)
{
	worker_reply(w, req->id, NULL);
	w->quit = true;
}

static const struct worker_op {
	const char *op;
	void (*fn)(struct worker *w, struct proto_msg *req);
} worker_ops[] = {
	{ "hello", op_hello }, { "status", op_status }, { "verify", op_verify },
	{ "apply", op_apply }, { "lldp", op_lldp }, { "counters", op_counters },
	{ "bond", op_bond }, { "optics", op_optics }, { "trace", op_trace },
	{ "listen", worker_op_listen }, { "connect", worker_op_connect }, { "abort", op_abort },
	{ "bye", op_bye },
};

/*
 * Test-only (tests/integration/sweep-faults.sh): FABRICCTL_TEST_UNKNOWN_OPS,
 * a comma-separated list of ops this worker answers as one that predates
 * them does ("unknown op 'bond'").
 */
static bool op_unknown_for_test(const char *op)
{
	const char *list = getenv("FABRICCTL_TEST_UNKNOWN_OPS");
	size_t n = strlen(op);

	for (const char *at = list; at && *at; at += strcspn(at, ","), at += *at == ',')
		if (strncmp(at, op, n) == 0 && (at[n] == ',' || at[n] == '\0'))
			return true;
	return false;
}

static void worker_handle(struct worker *w, struct proto_msg *m)
{
	bool known = !op_unknown_for_test(m->op);
	char msg[128];

	for (size_t i = 0; known && i < ARRAY_SIZE(worker_ops); i++)
		if (strcmp(m->op, worker_ops[i].op) == 0) {
			worker_ops[i].fn(w, m);
			return;
		}
	snprintf(msg, sizeof(msg), "unknown op '%.64s'", m->op);
	worker_fail(w, m->id, msg);
}

/*
 * A test measures the fabric, not the node's other work: the worker runs
 * at nice -@nice_abs (WORKER_NICE by default, threads inherit it) where it
 * may (root, CAP_SYS_NICE), so that a CPU-bound job beside it does not
 * starve its transfers and round trips; docs/sweep.md "How a pair is
 * judged".  Where it may not, it runs as it was started, saying so with -v.
 */
#define WORKER_NICE 10

static void worker_priority(unsigned int nice_abs)
{
	errno = 0;
	if (nice_abs && getpriority(PRIO_PROCESS, 0) > -(int)nice_abs && errno == 0 &&
	    setpriority(PRIO_PROCESS, 0, -(int)nice_abs) < 0)
		fab_info("worker: nice -%u: %s (running at the priority it was started with)", nice_abs,
			 strerror(errno));
}

struct worker_args {
	double nice;			/* --nice N, from -20 to 0 */
	/* Dial-back (src/fleet/dial_client.c). */
	const char *connect, *name, *source, *token_file;
};

static int worker_opt_verbose(struct fab_ctx *ctx, const char *cmd, const char *arg, void *args)
{
	fab_log_level++;
	return 0;
}

static const struct cmd_opt worker_rows[] = {
	CMD_CALL("verbose", 'v', NULL, worker_opt_verbose, CMD_SYN_SHORT),
	CMD_NUMBER("nice", 0, "N", struct worker_args, nice, -20, 0, 0),
	CMD_STRING("connect", 0, "ADDR:PORT", struct worker_args, connect, 0),
	CMD_STRING("name", 0, "NAME", struct worker_args, name, CMD_SYN_IN),
	CMD_STRING("source", 0, "ADDR", struct worker_args, source, CMD_SYN_IN),
	CMD_STRING("token-file", 0, "FILE", struct worker_args, token_file, CMD_SYN_IN),
	{ 0 },
};

const struct cmd_opts cmd_worker_opts = { "worker", worker_rows };

int cmd_worker(struct fab_ctx *ctx, int argc, char **argv)
{
	struct worker_args a = { .nice = -(double)WORKER_NICE };
	struct worker w = { .ctx = ctx };
	int rc = cmd_opts_parse(ctx, &cmd_worker_opts, argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (optind < argc)
		return cmd_usage_error(ctx, "worker", "unexpected argument '%s'", argv[optind]);
	if ((a.name || a.token_file || a.source) && !a.connect)
		return cmd_usage_error(ctx, "worker", "--name, --source and --token-file go with --connect");
	worker_priority((unsigned int)-a.nice);	/* the priority as -nice */
	if (a.connect &&
	    fleet_dial_connect(a.connect, a.name, a.source, a.token_file, &ctx->err) < 0)
		return fab_err_exit(&ctx->err);
	proto_reader_init(&w.rd);
	while (!w.quit) {
		struct proto_msg m;
		struct fab_err err;

		fab_err_init(&err);
		rc = worker_next(&w, -1, &m, &err);
		if (rc == 0)
			break;
		if (rc < 0) {
			fab_warn("worker: %s", err.msg[0] ? err.msg : strerror(-rc));
			worker_fail(&w, 0, err.msg[0] ? err.msg : strerror(-rc));
			if (rc != -EPROTO)
				break;
			continue;
		}
		worker_handle(&w, &m);
		proto_msg_fini(&m);
	}
	worker_kids_end(&w);	/* "bye" or a broken stdout: its sessions end too */
	proto_reader_fini(&w.rd);
	return FAB_EXIT_OK;
}
