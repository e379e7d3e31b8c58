// SPDX-License-Identifier: GPL-2.0-or-later
/* Fleet controller: launchers, worker processes, multiplexed protocol I/O. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet/fleet.h"
#include "fleet/fleet_dial.h"
#include "fleet/fleet_ports.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/log.h"

static const struct {
	const char *name;
	const char *tmpl;
} builtin_launchers[] = {
	{ "ssh", "ssh -T -o BatchMode=yes -o ConnectTimeout=10 {ssh_config} -- {host}" },
	{ "srun", "srun -N1 -n1 -w {host}" },
	{ "kubectl", "kubectl exec -i {host} --" },
	/* Namespaces share one /run: each gets its own run dir (apply's lock, --try state). */
	{ "netns", "ip netns exec {host} env FABRICCTL_RUNDIR=/run/fabricctl-netns-{host}" },
};

/* Split @s at blanks, substituting {host}; words are appended to @argv. */
static int split_words(const char *s, const char *host, char ***argv, size_t *n)
{
	const struct fleet_subst one = { "{host}", host };

	return fleet_split_subst(s, &one, 1, argv, n);
}

int fleet_launcher_argv(const struct fleet_opts *o, const char *host, char ***argv,
			struct fab_err *err)
{
	const char *tmpl = o->launcher;
	char **a = NULL, self[PATH_MAX];
	size_t n = 0;
	int rc = -ENOMEM;

	if (!hosts_name_valid(host))
		return fab_err_input(err, -EINVAL, "launcher: bad host name '%s'", host);
	if (fleet_dial_is(o->launcher)) {
		struct fab_hosts one = { .hosts = NULL, .n = 0 };

		return fleet_dial_argv(NULL, o, &one, argv, err);
	}
	for (size_t i = 0; i < ARRAY_SIZE(builtin_launchers); i++)
		if (strcmp(o->launcher, builtin_launchers[i].name) == 0)
			tmpl = builtin_launchers[i].tmpl;
	if (!strstr(tmpl, "{host}"))
		return fab_err_input(err, -EINVAL,
				     "launcher '%s': not ssh, srun, kubectl, netns or collective:..., and no {host} in it",
				     o->launcher);
	/* ssh's -F FILE is two words of our own, never host text. */
	for (const char *p = tmpl; *p;) {
		const char *tok = strstr(p, "{ssh_config}");
		char *chunk;

		if (!tok) {
			rc = split_words(p, host, &a, &n);
			break;
		}
		chunk = strndup(p, (size_t)(tok - p));
		rc = chunk ? split_words(chunk, host, &a, &n) : -ENOMEM;
		free(chunk);
		if (rc == 0 && o->ssh_config) {
			rc = fleet_argv_push(&a, &n, strdup("-F"));
			if (rc == 0)
				rc = fleet_argv_push(&a, &n, strdup(o->ssh_config));
		}
		if (rc < 0)
			break;
		p = tok + strlen("{ssh_config}");
	}
	if (rc < 0)
		goto fail;
	if (o->worker_cmd) {
		rc = split_words(o->worker_cmd, host, &a, &n);
	} else {
		rc = fleet_self_path(self, sizeof(self), err);
		if (rc < 0)
			goto fail;
		rc = fleet_argv_push(&a, &n, strdup(self));
		if (rc == 0)
			rc = fleet_argv_push(&a, &n, strdup("worker"));
	}
	for (int v = 0; rc == 0 && v < o->verbose; v++)
		rc = fleet_argv_push(&a, &n, strdup("-v"));
	if (rc < 0)
		goto fail;
	*argv = a;
	return 0;
fail:
	fleet_argv_free(a);
	return rc == -ENOMEM ? fab_err_set(err, rc, "launcher: out of memory") : rc;
}

/* ---- stderr relay: a node's messages reach the terminal cleaned ---- */

static void err_relay(struct fleet_worker *w)
{
	/* NAME: a host of several ports has one worker, for all of them. */
	fleet_relay_read(&w->err_fd, w->errbuf, sizeof(w->errbuf), &w->errlen, hosts_node(w->host),
			 w->err_last, sizeof(w->err_last));
}

/* ---- processes: one group per launcher, SIGTERM before SIGKILL, prompt reaping ---- */

static void worker_close(struct fleet_worker *w)
{
	if (w->to_fd >= 0)
		close(w->to_fd);
	if (w->from_fd >= 0 && w->from_fd != w->to_fd)	/* one socket when dialled back */
		close(w->from_fd);
	w->to_fd = w->from_fd = -1;
}

static void group_signal(struct fleet_worker *w, int sig)
{
	if (w->pgid > 0 && kill(-w->pgid, sig) < 0 && errno == ESRCH)
		w->pgid = 0;	/* nobody left in it */
}

/* Ask worker @w's group to stop: SIGTERM (and SIGCONT for a stopped one), SIGKILL later. */
static void group_stop(struct fleet *f, struct fleet_worker *w)
{
	group_signal(w, SIGTERM);
	group_signal(w, SIGCONT);
	if (w->pgid > 0 && !w->kill_at_ms)
		w->kill_at_ms = clock_mono_ms() + (uint64_t)f->stop_grace_ms;
}

/*
 * Reap worker @w's launcher if it exited (true; its status in wstatus), and
 * take down what it left in its group: asked to stop at once, SIGKILLed
 * at kill_at_ms.
 */
static bool worker_reap(struct fleet *f, struct fleet_worker *w)
{
	bool reaped = false;
	int st = 0;

	if (w->pid > 0 && waitpid(w->pid, &st, WNOHANG) == w->pid) {
		w->pid = -1;
		w->wstatus = st;
		reaped = true;
		group_stop(f, w);	/* the launcher's children must not outlive it */
	}
	if (w->kill_at_ms && w->pid <= 0) {
		group_signal(w, 0);	/* is anyone left? */
		if (!w->pgid)
			w->kill_at_ms = 0;
	}
	if (w->kill_at_ms && clock_mono_ms() >= w->kill_at_ms) {
		group_signal(w, SIGKILL);
		w->kill_at_ms = 0;
		if (w->pid > 0 && waitpid(w->pid, &st, 0) == w->pid) {
			w->pid = -1;
			w->wstatus = st;
			reaped = true;
		}
		w->pgid = 0;
	}
	return reaped;
}

/*
 * Worker @i (or, for a port served by its host's worker, that worker) dead
 * with the reason @fmt; the other ports it served are to be told by
 * fleet_poll(), but @told, whom the caller tells itself.
 */
static void kill_v(struct fleet *f, size_t i, size_t told, const char *fmt, va_list ap)
{
	size_t o = f->w[i].alias ? f->w[i].via : i;
	struct fleet_worker *w = &f->w[o];

	if (!w->dead) {
		vsnprintf(w->reason, sizeof(w->reason), fmt, ap);
		w->dead = true;
		w->notify = o != told;
		fab_info("worker %s: %s", hosts_node(w->host), w->reason);
		fleet_ports_die(f, o, told);
	}
	group_stop(f, w);
	worker_close(w);
	err_relay(w);
	/* A SIGTERM takes effect at once unless handled: reap without waiting for the next poll. */
	for (int k = 0; k < 20 && w->pid > 0; k++) {
		struct timespec ts = { 0, 1000000 };

		if (worker_reap(f, w))
			break;
		nanosleep(&ts, NULL);
	}
}

static void kill_told(struct fleet *f, size_t i, size_t told, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void kill_told(struct fleet *f, size_t i, size_t told, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kill_v(f, i, told, fmt, ap);
	va_end(ap);
}

void fleet_kill(struct fleet *f, size_t i, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kill_v(f, i, i, fmt, ap);
	va_end(ap);
}

static int spawn(struct fleet_worker *w, char **argv, struct fab_err *err)
{
	int in[2], out[2], er[2];
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0)
		return fab_err_set(err, -errno, "pipe: %s", strerror(errno));
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		return fab_err_set(err, -errno, "pipe: %s", strerror(errno));
	}
	if (pipe2(er, O_CLOEXEC) < 0) {
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		return fab_err_set(err, -errno, "pipe: %s", strerror(errno));
	}
	pid = fleet_exec(argv, in[0], out[1], er[1], NULL, NULL);
	if (pid < 0) {
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		close(er[0]);
		close(er[1]);
		return fab_err_set(err, (int)pid, "fork: %s", strerror((int)-pid));
	}
	close(in[0]);
	close(out[1]);
	close(er[1]);
	fcntl(in[1], F_SETFL, O_NONBLOCK);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(er[0], F_SETFL, O_NONBLOCK);
	w->pid = w->pgid = pid;
	w->to_fd = in[1];
	w->from_fd = out[0];
	w->err_fd = er[0];
	return 0;
}

static void worker_gone(struct fleet *f, size_t i, size_t told);

/*
 * Write all of @line to worker @w's stdin (non-blocking: a pipe takes
 * 64 KiB at a time, a profile can be larger): 0, -ETIMEDOUT when it took
 * nothing for FLEET_SEND_TIMEOUT_MS, -errno (-EPIPE: it closed it).
 * Its stderr is relayed meanwhile, so a worker that logs is never stuck.
 */
static int send_all(struct fleet_worker *w, const char *line, size_t len)
{
	uint64_t deadline = clock_mono_ms() + FLEET_SEND_TIMEOUT_MS;

	while (len) {
		struct pollfd pfd[2] = { { .fd = w->to_fd, .events = POLLOUT },
					 { .fd = w->err_fd, .events = POLLIN } };
		ssize_t n = write(w->to_fd, line, len);
		uint64_t now;

		if (n > 0) {
			line += n;
			len -= (size_t)n;
			deadline = clock_mono_ms() + FLEET_SEND_TIMEOUT_MS;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		now = clock_mono_ms();
		if (now >= deadline)
			return -ETIMEDOUT;
		if (poll(pfd, 2, (int)(deadline - now)) < 0 && errno != EINTR)
			return -errno;
		if (pfd[1].revents)
			err_relay(w);
	}
	return 0;
}

int fleet_send(struct fleet *f, size_t i, json_t *req, long long *id)
{
	size_t o = f->w[i].alias ? f->w[i].via : i;	/* a port's requests go to its host's worker */
	struct fleet_worker *w = &f->w[o];
	long long rid;
	size_t len;
	char *line;
	int rc;

	if (f->w[i].dead || w->dead || w->to_fd < 0) {
		json_decref(req);
		return -EPIPE;
	}
	if (!req)
		return -ENOMEM;
	/* Session messages (peer, go, abort) carry their session's id. */
	if (!json_is_integer(json_object_get(req, "id"))) {
		w->next_id++;
		json_object_set_new(req, "id", json_integer(w->next_id));
	}
	rid = json_integer_value(json_object_get(req, "id"));
	if (id)
		*id = rid;
	line = proto_format(req, &len);	/* takes @req */
	if (!line || (o != i && fleet_route_add(w, rid, i) < 0)) {
		free(line);
		return -ENOMEM;
	}
	rc = send_all(w, line, len);
	free(line);
	if (rc == -ETIMEDOUT)
		kill_told(f, o, i, "not reading its input (nothing taken for %d ms)",
			  FLEET_SEND_TIMEOUT_MS);
	else if (rc < 0)
		worker_gone(f, o, i);
	return rc < 0 ? -EPIPE : 0;
}

static void describe_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "went away");
}

/*
 * Worker @i's pipe closed: wait a moment for its exit, to name the reason
 * (@told: as kill_v()).
 */
static void worker_gone(struct fleet *f, size_t i, size_t told)
{
	struct fleet_worker *w = &f->w[i];
	char how[128] = "closed its output";

	for (int k = 0; k < 500 && w->pid > 0; k++) {
		struct timespec ts = { 0, 2000000 };

		if (worker_reap(f, w))
			break;
		nanosleep(&ts, NULL);
	}
	if (w->pid < 0 && w->wstatus != -1)
		describe_status(w->wstatus, how, sizeof(how));
	err_relay(w);
	/* Name the launcher and what it said last (ssh: "Host key verification failed."). */
	if (w->sock)
		kill_told(f, i, told, "its dial-back connection closed%s%s",
			  w->err_last[0] ? ": " : "", w->err_last);
	else if (w->stop_why[0])
		kill_told(f, i, told, "%s; asked to stop (SIGTERM): launcher %.60s: %s%s%s",
			  w->stop_why, f->launcher ? f->launcher : "?", how,
			  w->err_last[0] ? ": " : "", w->err_last);
	else
		kill_told(f, i, told, "launcher %.60s: %s%s%s", f->launcher ? f->launcher : "?", how,
			  w->err_last[0] ? ": " : "", w->err_last);
}

/* Hand every complete line of worker @i to @fn; kill the worker on garbage. */
static void drain_lines(struct fleet *f, size_t i, fleet_msg_fn fn, void *arg)
{
	struct fleet_worker *w = &f->w[i];
	struct fab_err err;
	char *line;
	size_t len;

	fab_err_init(&err);
	while (!w->dead && proto_reader_line(&w->rd, &line, &len) == 1) {
		struct proto_msg m;
		int rc = proto_parse(line, len, &m, &err);

		if (rc == 0 && m.kind == PROTO_REQUEST) {
			proto_msg_fini(&m);
			rc = fab_err_set(&err, -EPROTO, "protocol: a worker sent a request");
		}
		if (rc == 0 && proto_msg_clean(&m) < 0) {
			proto_msg_fini(&m);
			rc = fab_err_set(&err, -ENOMEM, "out of memory");
		}
		if (rc < 0) {
			char clean[64];

			proto_str_clean(line, len < 60 ? len : 60, clean, sizeof(clean));
			fleet_kill(f, i, "sent garbage (%s): \"%s%s\"", err.msg, clean,
				   len > 60 ? "..." : "");
			free(line);
			fn(f, i, NULL, arg);
			return;
		}
		free(line);
		/* A port's answers to the port (fleet_ports.h); the worker's own, and all others', to @i. */
		fn(f, w->n_routes ? fleet_route_take(w, i, m.id, m.kind == PROTO_REPLY) : i, &m, arg);
		proto_msg_fini(&m);
	}
}

/* Ports that died with their host's worker, not yet told: @fn hears of each. */
static void tell_dead(struct fleet *f, fleet_msg_fn fn, void *arg)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->w[i].notify) {
			f->w[i].notify = false;
			fn(f, i, NULL, arg);
		}
}

/* Reap dead launchers and escalate stops; true while some still need it. */
static bool reap_all(struct fleet *f)
{
	bool busy = false;

	for (size_t i = 0; i < f->n; i++) {
		struct fleet_worker *w = &f->w[i];

		if (w->dead || w->kill_at_ms)
			worker_reap(f, w);
		busy |= w->dead && (w->pid > 0 || w->kill_at_ms);
	}
	return busy;
}

int fleet_poll(struct fleet *f, int timeout_ms, fleet_msg_fn fn, void *arg)
{
	struct pollfd *pfd = calloc(2 * f->n + 1, sizeof(*pfd));
	int rc;

	if (!pfd)
		return -ENOMEM;
	tell_dead(f, fn, arg);
	/* Dead workers are reaped now, not at the end: wake up soon while one is not yet. */
	if (reap_all(f) && (timeout_ms < 0 || timeout_ms > 50))
		timeout_ms = 50;
	for (size_t i = 0; i < f->n; i++) {
		pfd[2 * i].fd = f->w[i].dead ? -1 : f->w[i].from_fd;
		pfd[2 * i].events = POLLIN;
		pfd[2 * i + 1].fd = f->w[i].err_fd;
		pfd[2 * i + 1].events = POLLIN;
	}
	pfd[2 * f->n].fd = fleet_dial_fd(f);	/* a collective launcher's output */
	pfd[2 * f->n].events = POLLIN;
	rc = poll(pfd, 2 * f->n + 1, timeout_ms);
	if (rc < 0) {
		rc = errno == EINTR ? 0 : -errno;
		goto out;
	}
	if (pfd[2 * f->n].fd >= 0 && pfd[2 * f->n].revents)
		fleet_dial_relay(f);
	for (size_t i = 0; i < f->n; i++) {
		struct fleet_worker *w = &f->w[i];

		if (pfd[2 * i + 1].fd >= 0 && pfd[2 * i + 1].revents)
			err_relay(w);
		if (pfd[2 * i].fd < 0 || !pfd[2 * i].revents)
			continue;
		rc = proto_reader_fill(&w->rd, w->from_fd);
		if (rc == -EMSGSIZE) {
			fleet_kill(f, i, "sent garbage (a line longer than %d bytes)",
				   FAB_PROTO_LINE_MAX);
			fn(f, i, NULL, arg);
			continue;
		}
		drain_lines(f, i, fn, arg);
		if (!w->dead && (w->rd.eof || (rc < 0 && rc != -EAGAIN))) {
			worker_gone(f, i, i);
			fn(f, i, NULL, arg);
		}
	}
	tell_dead(f, fn, arg);
	rc = 0;
out:
	free(pfd);
	return rc;
}

size_t fleet_live(const struct fleet *f)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++)
		n += !f->w[i].dead;
	return n;
}

const char *fleet_unit(const struct fleet *f, size_t n)
{
	if (f->n_procs < f->n)
		return n == 1 ? "end point" : "end points";
	return n == 1 ? "node" : "nodes";
}

struct call_all {
	long long *ids;
	json_t **results;
	char **errors;
	size_t pending;
	const char *op;
	size_t answered, failed;	/* for the progress line */
};

/* One line on stderr, rewritten as nodes answer (like the sweep's). */
static void call_all_progress(const struct fleet *f, const struct call_all *c)
{
	if (!f->progress)
		return;
	fprintf(stderr, "\r%s: %zu of %zu %s answered, %zu failed  ", c->op, c->answered,
		f->n, fleet_unit(f, f->n), c->failed);
	fflush(stderr);
}

static void call_all_msg(struct fleet *f, size_t i, struct proto_msg *m, void *arg)
{
	struct call_all *c = arg;

	if (c->ids[i] < 0)
		return;
	if (!m) {
		c->errors[i] = strdup(f->w[i].reason);
	} else if (m->kind == PROTO_EVENT) {
		return;		/* not final: the reply is still to come */
	} else if (m->kind != PROTO_REPLY || m->id != c->ids[i]) {
		fleet_kill(f, i, "sent an unexpected message (id %lld)", m->id);
		c->errors[i] = strdup(f->w[i].reason);
	} else if (!m->ok) {
		c->errors[i] = strdup(m->error);
	} else {
		c->results[i] = m->result ? json_incref(m->result) : json_object();
	}
	if (f->w[i].stop_why[0] && m)
		fab_warn("worker %s: %s; asked to stop (SIGTERM), it answered", f->w[i].host->name,
			 f->w[i].stop_why);
	c->ids[i] = -1;
	c->pending--;
	c->answered++;
	c->failed += c->results[i] == NULL;
	call_all_progress(f, c);
}

/* Send every live worker its request; a request that cannot be built ends the call. */
static int call_all_send(struct fleet *f, fleet_req_fn req_fn, const void *arg, struct call_all *c,
			 char *op, size_t op_len, struct fab_err *err)
{
	for (size_t i = 0; i < f->n; i++) {
		json_t *req;

		if (f->w[i].dead) {
			c->errors[i] = strdup(f->w[i].reason);
			continue;
		}
		req = req_fn(f->w[i].host, arg, err);
		if (!req)
			return err->code ? err->code : fab_err_set(err, -ENOMEM, "fleet: out of memory");
		if (json_is_string(json_object_get(req, "op")))
			snprintf(op, op_len, "%s", json_string_value(json_object_get(req, "op")));
		if (fleet_send(f, i, req, &c->ids[i]) < 0) {
			c->ids[i] = -1;
			c->errors[i] = strdup(f->w[i].reason);
			continue;
		}
		c->pending++;
	}
	return 0;
}

/*
 * The deadline passed with answers missing: ask those workers to stop
 * (an apply rolls back and answers), keep reading them for the grace.
 */
static void call_all_stop(struct fleet *f, struct call_all *c, const char *op, int timeout_ms)
{
	for (size_t i = 0; i < f->n; i++) {
		struct fleet_worker *w = &f->w[i];

		if (c->ids[i] < 0)
			continue;
		snprintf(w->stop_why, sizeof(w->stop_why), "no answer to %s within %d ms", op,
			 timeout_ms);
		fab_warn("worker %s: %s; asking it to stop (SIGTERM), %d ms before SIGKILL",
			 w->host->name, w->stop_why, f->stop_grace_ms);
		group_stop(f, w);
	}
}

int fleet_call_all(struct fleet *f, fleet_req_fn req_fn, const void *arg, int timeout_ms,
		   json_t **results, char **errors, struct fab_err *err)
{
	struct call_all c = { .results = results, .errors = errors };
	uint64_t deadline = clock_mono_ms() + (uint64_t)timeout_ms;
	bool stopping = false, shown;
	char op[64] = "";
	int rc;

	c.ids = calloc(f->n ? f->n : 1, sizeof(*c.ids));
	if (!c.ids)
		return fab_err_set(err, -ENOMEM, "fleet: out of memory");
	for (size_t i = 0; i < f->n; i++) {
		results[i] = NULL;
		errors[i] = NULL;
		c.ids[i] = -1;
	}
	rc = call_all_send(f, req_fn, arg, &c, op, sizeof(op), err);
	c.op = op;
	c.failed = c.answered = f->n - c.pending;	/* dead before the request */
	shown = !rc && f->progress && c.pending;	/* none to wait for (none started): no line */
	if (shown)
		call_all_progress(f, &c);
	while (!rc && c.pending) {
		uint64_t now = clock_mono_ms();

		if (now >= deadline && !stopping) {
			call_all_stop(f, &c, op, timeout_ms);
			stopping = true;
			deadline = now + (uint64_t)f->stop_grace_ms;
		} else if (now >= deadline) {
			for (size_t i = 0; i < f->n; i++)
				if (c.ids[i] >= 0) {
					fleet_kill(f, i, "%s; still running %d ms after SIGTERM",
						   f->w[i].stop_why, f->stop_grace_ms);
					errors[i] = strdup(f->w[i].reason);
					c.ids[i] = -1;
				}
			break;
		}
		rc = fleet_poll(f, (int)(deadline > now ? deadline - now : 0), call_all_msg, &c);
		if (rc < 0)
			fab_err_set(err, rc, "fleet: %s", strerror(-rc));
	}
	if (shown)
		fputc('\n', stderr);	/* the line ends however the call does */
	free(c.ids);
	return rc;
}

static void hello_msg(struct fleet *f, size_t i, struct proto_msg *m, void *arg)
{
	struct fleet_worker *w = &f->w[i];
	const json_t *ver;

	if (!m)
		return;
	if (m->kind != PROTO_REPLY || m->id != 1) {
		fleet_kill(f, i, "sent an unexpected message before its hello");
		return;
	}
	if (!m->ok) {
		fleet_kill(f, i, "hello refused: %s", m->error);
		return;
	}
	ver = json_object_get(m->result, "version");
	if (!json_is_integer(ver) || json_integer_value(ver) != FAB_PROTO_VERSION) {
		fleet_kill(f, i, "speaks another protocol version");
		return;
	}
	w->hello = json_incref(m->result);
}

int fleet_start(struct fleet *f, const struct fab_hosts *hosts, const struct fleet_opts *o,
		struct fab_err *err)
{
	uint64_t deadline;
	int rc;

	memset(f, 0, sizeof(*f));
	f->hosts = hosts;
	f->launcher = o->launcher;
	f->w = calloc(hosts->n ? hosts->n : 1, sizeof(*f->w));
	if (!f->w)
		return fab_err_set(err, -ENOMEM, "fleet: out of memory");
	f->n = hosts->n;
	f->stop_grace_ms = o->stop_grace_ms > 0 ? o->stop_grace_ms : FLEET_STOP_GRACE_MS;
	f->progress = o->progress;
	for (size_t i = 0; i < f->n; i++) {
		f->w[i].host = &hosts->hosts[i];
		f->w[i].to_fd = f->w[i].from_fd = f->w[i].err_fd = -1;
		f->w[i].pid = -1;
		f->w[i].wstatus = -1;
		proto_reader_init(&f->w[i].rd);
	}
	/* One worker a host: a host's other ports are served by its first's. */
	if (fleet_ports_alias(f) < 0)
		return fab_err_set(err, -ENOMEM, "fleet: out of memory");
	rc = fleet_limits_check(f->n_procs, fleet_dial_is(o->launcher), err);
	if (rc < 0)
		return rc;
	if (o->stop && *o->stop)	/* a signal came before anything started */
		return fab_err_set(err, -EINTR, "fleet: interrupted by a signal before the workers started");
	if (fleet_dial_is(o->launcher)) {
		/* One command starts them all; they dial back. */
		rc = fleet_dial_start(f, o, err);
		if (rc < 0)
			return rc;
		for (size_t i = 0; i < f->n; i++)
			if (!f->w[i].alias && !f->w[i].sock && !f->w[i].dead)
				fleet_kill(f, i, "did not dial back (%s)", fleet_dial_nojoin(f));
		for (size_t i = 0; i < f->n; i++)
			if (!f->w[i].alias && !f->w[i].dead)
				fleet_send(f, i, json_pack("{s:s, s:i}", "op", "hello", "version",
							   FAB_PROTO_VERSION), NULL);
	}
	/* Everyone at once: no serial start-ups. */
	for (size_t i = 0; !fleet_dial_is(o->launcher) && i < f->n; i++) {
		char **argv = NULL;

		if (f->w[i].alias)
			continue;

		rc = fleet_launcher_argv(o, hosts_node(&hosts->hosts[i]), &argv, err);
		if (rc < 0)
			return rc;
		if (i == 0 && fab_log_level >= 2) {
			for (char **a = argv; *a; a++)
				fprintf(stderr, "%s%s", a == argv ? "fabricctl: launch: " : " ", *a);
			fputc('\n', stderr);
		}
		rc = spawn(&f->w[i], argv, err);
		fleet_argv_free(argv);
		if (rc < 0)
			return rc;
		if (fleet_send(f, i, json_pack("{s:s, s:i}", "op", "hello", "version",
					       FAB_PROTO_VERSION), NULL) < 0)
			continue;
	}
	deadline = clock_mono_ms() + (uint64_t)o->hello_timeout_ms;
	for (;;) {
		size_t waiting = 0;
		uint64_t now = clock_mono_ms();

		for (size_t i = 0; i < f->n; i++)
			waiting += !f->w[i].alias && !f->w[i].dead && !f->w[i].hello;
		if (!waiting)
			break;
		if (o->stop && *o->stop)	/* fleet_fini() stops what started */
			return fab_err_set(err, -EINTR, "fleet: interrupted by a signal while %zu of %zu workers started",
					   waiting, f->n);
		if (now >= deadline) {
			for (size_t i = 0; i < f->n; i++)
				if (!f->w[i].alias && !f->w[i].dead && !f->w[i].hello)
					fleet_kill(f, i, "no hello within %d ms", o->hello_timeout_ms);
			break;
		}
		rc = fleet_poll(f, (int)(deadline - now), hello_msg, NULL);
		if (rc < 0)
			return fab_err_set(err, rc, "fleet: poll: %s", strerror(-rc));
	}
	fleet_ports_hello(f);
	for (size_t i = 0; i < f->n; i++)	/* told by now: they never started */
		f->w[i].notify = false;
	return 0;
}

/* Reap and escalate until every group is gone or @until_ms; true when all are. */
static bool fini_wait(struct fleet *f, uint64_t until_ms)
{
	for (;;) {
		struct timespec ts = { 0, 5000000 };
		bool left = false;

		for (size_t i = 0; i < f->n; i++) {
			struct fleet_worker *w = &f->w[i];

			worker_reap(f, w);
			err_relay(w);
			left |= w->pid > 0 || w->kill_at_ms;
		}
		if (!left)
			return true;
		if (clock_mono_ms() >= until_ms)
			return false;
		nanosleep(&ts, NULL);
	}
}

void fleet_fini(struct fleet *f)
{
	if (!f->w)
		return;
	/* Closing stdin is the workers' signal to exit: 2 s for that. */
	for (size_t i = 0; i < f->n; i++) {
		struct fleet_worker *w = &f->w[i];

		if (w->to_fd >= 0 && w->sock)
			shutdown(w->to_fd, SHUT_WR);	/* from_fd is the same socket */
		else if (w->to_fd >= 0)
			close(w->to_fd);
		w->to_fd = -1;
	}
	if (!fini_wait(f, clock_mono_ms() + 2000)) {
		/* Then asked to stop (SIGTERM: an apply rolls back), SIGKILL after the grace. */
		for (size_t i = 0; i < f->n; i++)
			if (f->w[i].pid > 0)
				group_stop(f, &f->w[i]);
		fini_wait(f, UINT64_MAX);
	}
	for (size_t i = 0; i < f->n; i++) {
		struct fleet_worker *w = &f->w[i];

		worker_close(w);
		if (w->err_fd >= 0)
			close(w->err_fd);
		proto_reader_fini(&w->rd);
		json_decref(w->hello);
		fleet_routes_fini(w);
	}
	fleet_dial_fini(f);
	free(f->w);
	memset(f, 0, sizeof(*f));
}
