// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The worker's test sessions (ops "listen" and "connect"): each in a
 * child process of its own (session_fork(): its stdin the controller's
 * messages for it, its stdout relayed by worker_io.c), so that the
 * sessions of a host's several ports run at once; in it a transport
 * session opened at each end of a pair, its endpoint sent in a "ready"
 * event, the controller's "peer" or "go" awaited, the test run with stdin
 * as its cancel_fd, one answer.  See worker.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/worker.h"
#include "fleet/proto.h"
#include "transport/transport.h"

/*
 * Wait for the controller's next step in session @id: @want ("peer" or
 * "go").  Returns 1 with @m; 0 with the failure to answer in @msg ("" when
 * the worker is to quit: stdin closed).
 */
static int session_wait(struct worker *w, long long id, const char *want, int timeout_ms,
			struct proto_msg *m, char *msg, size_t msglen)
{
	struct fab_err err;
	int rc;

	fab_err_init(&err);
	*msg = '\0';
	rc = worker_next(w, timeout_ms, m, &err);
	if (rc == 1 && m->id == id && strcmp(m->op, want) == 0)
		return 1;
	if (rc == 1 && m->id == id && strcmp(m->op, "abort") == 0) {
		proto_msg_fini(m);
		snprintf(msg, msglen, "aborted by the controller");
		return 0;
	}
	if (rc == 0) {
		w->quit = true;
		return 0;
	}
	if (rc == 1) {
		snprintf(msg, msglen, "protocol: want \"%s\" for session %lld, got \"%s\" (id %lld)",
			 want, id, m->op, m->id);
		proto_msg_fini(m);
	} else if (rc == -ETIMEDOUT) {
		snprintf(msg, msglen, "no \"%s\" from the controller within %d ms", want, timeout_ms);
	} else {
		snprintf(msg, msglen, "%s", err.msg[0] ? err.msg : strerror(-rc));
	}
	return 0;
}

/* After a transport returned -ECANCELED: stdin has something for us. */
static void session_cancelled(struct worker *w, long long id)
{
	struct proto_msg m;
	struct fab_err err;
	int rc;

	fab_err_init(&err);
	rc = worker_next(w, 1000, &m, &err);
	if (rc == 0) {
		w->quit = true;
		return;
	}
	if (rc == 1) {
		bool abort = m.id == id && strcmp(m.op, "abort") == 0;

		proto_msg_fini(&m);
		worker_fail(w, id, abort ? "aborted by the controller"
					 : "protocol: a request arrived during a test");
		return;
	}
	worker_fail(w, id, "cancelled");
}

static int session_params(const json_t *req, struct tp_params *p,
			  const struct transport_ops **tp, struct fab_err *err)
{
	const char *name = json_string_value(json_object_get(req, "transport"));
	const char *addr = json_string_value(json_object_get(req, "addr"));
	const char *dev = json_string_value(json_object_get(req, "dev"));
	const char *token = json_string_value(json_object_get(req, "token"));
	const json_t *port = json_object_get(req, "dev_port");

	memset(p, 0, sizeof(*p));
	if (!name || !(*tp = transport_find(name)))
		return fab_err_set(err, -EOPNOTSUPP, "transport '%s' not available on this node",
				   name ? name : "(none)");
	if (!addr)
		return fab_err_set(err, -EPROTO, "protocol: \"addr\" missing");
	if (tp_token_parse(token, p->token, false) < 0)
		return fab_err_set(err, -EPROTO, "protocol: \"token\" must be %d hex digits",
				   2 * TP_TOKEN_LEN);
	/* Absent means any port; otherwise a port number, never wrapped. */
	if (port && (!json_is_integer(port) || json_integer_value(port) < 0 ||
		     json_integer_value(port) > 255))
		return fab_err_set(err, -EPROTO, "protocol: \"dev_port\" must be an integer 0..255");
	p->local_addr = addr;
	p->dev = dev ? dev : "";
	p->dev_port = port ? (unsigned int)json_integer_value(port) : 0;
	return proto_spec_from_json(json_object_get(req, "plan"), &p->spec, err);
}

/* One transport session of the worker's, from "listen" or "connect" to its answer. */
struct wsession {
	const struct transport_ops *tp;
	struct tp_session *s;
	struct tp_params p;
	struct proto_msg m;		/* the controller's "peer" or "go" */
	struct fab_err err;
};

/*
 * A session's first half, alike at both ends: its parameters from @req, the
 * session opened (a server; with @server false a client of @req's "peer"),
 * its endpoint sent in a "ready" event, the controller's next step ("peer"
 * for a server, "go" for a client) into @ws->m.  False when the session
 * ended there, answered and closed.
 */
static bool session_start(struct worker *w, struct proto_msg *req, bool server,
			  struct wsession *ws)
{
	json_t *ep = NULL;
	char msg[1100];
	int rc;

	ws->tp = NULL;
	ws->s = NULL;
	fab_err_init(&ws->err);
	rc = session_params(req->doc, &ws->p, &ws->tp, &ws->err);
	if (rc == 0 && server)
		rc = ws->tp->server_open(&ws->p, &ws->s, &ep, &ws->err);
	else if (rc == 0)
		rc = ws->tp->client_open(&ws->p, json_object_get(req->doc, "peer"), &ws->s, &ep,
					 &ws->err);
	if (rc < 0) {
		worker_fail(w, req->id, ws->err.msg);
		return false;
	}
	worker_event(w, req->id, "ready", ep);
	json_decref(ep);
	if (session_wait(w, req->id, server ? "peer" : "go", (int)ws->p.spec.timeout_ms, &ws->m,
			 msg, sizeof(msg)))
		return true;
	ws->tp->close(ws->s);	/* before the answer: see session_end() */
	if (*msg)
		worker_fail(w, req->id, msg);
	return false;
}

/*
 * A session's last answer: the transport's @rc (ws->err), else @reply (may
 * be NULL).  The session is closed first: once the controller has the
 * answer it may start the host's next test on the same ports (a steered
 * tcp listener, docs/paths.md "Steering"), which must find them free.
 */
static void session_end(struct worker *w, long long id, struct wsession *ws, int rc,
			json_t *reply)
{
	ws->tp->close(ws->s);
	ws->s = NULL;
	if (rc == -ECANCELED)
		session_cancelled(w, id);
	else if (rc < 0)
		worker_fail(w, id, ws->err.msg);
	else
		worker_reply(w, id, reply);
}

static void session_listen(struct worker *w, struct proto_msg *req)
{
	struct wsession ws;
	int rc;

	if (!session_start(w, req, true, &ws))
		return;
	rc = ws.tp->server_peer ? ws.tp->server_peer(ws.s, json_object_get(ws.m.doc, "endpoint"),
						     &ws.err) : 0;
	proto_msg_fini(&ws.m);
	if (rc == 0) {
		worker_event(w, req->id, "armed", NULL);
		rc = ws.tp->server_run(ws.s, STDIN_FILENO, &ws.err);
	}
	session_end(w, req->id, &ws, rc, NULL);
}

static void session_connect(struct worker *w, struct proto_msg *req)
{
	struct wsession ws;
	struct tp_result res;
	int rc;

	if (!session_start(w, req, false, &ws))
		return;
	proto_msg_fini(&ws.m);
	rc = ws.tp->client_run(ws.s, STDIN_FILENO, &res, &ws.err);
	session_end(w, req->id, &ws, rc, rc < 0 ? NULL : proto_result_to_json(&res));
}

/* In the new child: stdin and stdout its pipes to the worker, the session served, exit. */
static void session_child(struct worker *w, struct proto_msg *req, const int ctl[2],
			  const int out[2], void (*op)(struct worker *w, struct proto_msg *req))
{
	worker_kids_forget(w);
	if (dup2(ctl[0], STDIN_FILENO) < 0 || dup2(out[1], STDOUT_FILENO) < 0)
		_exit(70);
	close(ctl[0]);
	close(ctl[1]);
	close(out[0]);
	close(out[1]);
	proto_reader_fini(&w->rd);	/* the parent's: what it read is its own */
	proto_reader_init(&w->rd);
	w->quit = false;
	op(w, req);
	_exit(0);
}

/*
 * Session @req in a child process (docs/worker-protocol.md, "Sessions at
 * once"): the worker goes on reading requests, routes the session's
 * "peer", "go" and "abort" to the child and relays its lines.
 */
static void session_fork(struct worker *w, struct proto_msg *req,
			 void (*op)(struct worker *w, struct proto_msg *req))
{
	int ctl[2] = { -1, -1 }, out[2] = { -1, -1 };
	char msg[128];
	pid_t pid;

	if (w->n_kids == WORKER_SESSIONS_MAX) {
		snprintf(msg, sizeof(msg), "too many sessions at once (at most %d)", WORKER_SESSIONS_MAX);
		worker_fail(w, req->id, msg);
		return;
	}
	if (pipe2(ctl, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		snprintf(msg, sizeof(msg), "session: %s", strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (ctl[i] >= 0)
				close(ctl[i]);
			if (out[i] >= 0)
				close(out[i]);
		}
		worker_fail(w, req->id, msg);
		return;
	}
	if (pid == 0)
		session_child(w, req, ctl, out, op);
	close(ctl[0]);
	close(out[1]);
	worker_kid_add(w, pid, req->id, ctl[1], out[0]);
}

void worker_op_listen(struct worker *w, struct proto_msg *req)
{
	session_fork(w, req, session_listen);
}

void worker_op_connect(struct worker *w, struct proto_msg *req)
{
	session_fork(w, req, session_connect);
}
