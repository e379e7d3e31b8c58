/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fleet layer: start `fabricctl worker` on every node of a hosts file
 * through a launcher, talk the worker protocol (proto.h) with all of them
 * at once, never blocking on one.
 *
 * Launchers: "collective:TEMPLATE" (one command for all nodes, workers dial
 * back: fleet_dial.h), "ssh" (BatchMode, ConnectTimeout, no tty), "srun"
 * (srun -N1 -n1 -w {host}), "kubectl" (kubectl exec -i {host} --),
 * "netns" (ip netns exec {host} env FABRICCTL_RUNDIR=/run/fabricctl-netns-{host}:
 * namespaces share /run), or any template with {host}.  The
 * template is split at blanks into argv and exec'd directly (never a
 * shell); {host} is replaced by the node's NAME, already checked by
 * hosts_name_valid().  The worker command is appended.
 *
 * A worker that exits, closes its stdout, sends a line that is not valid
 * protocol, or misses a deadline is killed and marked dead with a reason;
 * callers see it as that node failing.  Killing is by process group (each
 * launcher leads its own, so its children go with it), SIGTERM first
 * (FLEET_STOP_GRACE_MS before SIGKILL), and dead launchers are reaped at
 * the next fleet_poll(), not at the end.  What a worker writes to stderr
 * and every string in its messages reach the terminal with control
 * characters shown as "\xNN" (proto_str_clean()); stderr lines are
 * relayed prefixed with the node's name.
 *
 * A host of several fabric ports (model/hosts.h) has one worker: its first
 * port's; its other ports are aliases of it (struct fleet_worker), sent
 * to and answered through it, dying with it; the worker serves their
 * test sessions at once (hello's "sessions", docs/worker-protocol.md).
 *
 * Ownership: struct fleet owns its workers (pipes, processes, buffers);
 * fleet_fini() closes every worker's stdin, waits briefly, then asks what
 * is left to stop (SIGTERM), SIGKILLs the process groups still there
 * after the grace, and reaps them.  Hosts are borrowed.
 */
#ifndef FAB_FLEET_FLEET_H
#define FAB_FLEET_FLEET_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fleet/fleet_proc.h"
#include "fleet/proto.h"
#include "model/hosts.h"
#include "util/err.h"

struct fleet_worker {
	const struct fab_host *host;	/* borrowed */
	pid_t pid;			/* launcher process, -1 once reaped */
	int wstatus;			/* its wait status once reaped, else -1 */
	pid_t pgid;			/* its own process group (launcher and children), 0 once gone */
	int to_fd, from_fd;		/* its stdin, its stdout; -1 when closed */
	int err_fd;			/* its stderr, relayed cleaned; -1 when closed */
	struct proto_reader rd;
	char errbuf[512];		/* a partial stderr line */
	size_t errlen;
	char err_last[160];		/* its last stderr line, cleaned: named in its failure reason */
	bool dead;
	char reason[256];		/* why dead */
	char stop_why[160];		/* why asked to stop (SIGTERM), "" if not */
	uint64_t kill_at_ms;		/* SIGKILL the group then, after a SIGTERM; 0: none */
	long long next_id;
	json_t *hello;			/* the hello result, NULL until up */
	bool sock;			/* dialled back: to_fd == from_fd, one TCP socket */
	/*
	 * Hosts of several fabric ports: one worker a host serves all its
	 * ports.  A port after the host's first is an alias: no process or
	 * connection of its own, its requests go to w[via] (the first port's
	 * worker), whose answers come back to it by request id (routes).
	 */
	bool alias;
	size_t via;
	bool notify;			/* died with its host's worker: fleet_poll() tells the caller */
	struct fleet_route *routes;	/* a worker serving ports: request id -> port */
	size_t n_routes, cap_routes;
};

struct fleet_route {
	long long id;
	size_t port;			/* its index in struct fleet's w[] */
};

struct fleet_opts {
	const char *launcher;		/* name or template */
	const char *ssh_config;		/* ssh -F FILE, NULL for none */
	const char *worker_cmd;		/* NULL: this binary + " worker" */
	const char *listen;		/* collective launcher: ADDR[:PORT] the workers dial */
	int verbose;			/* pass -v to workers */
	int hello_timeout_ms;
	int timeout_ms;			/* per op (fleet_op_run()); 0: the command's */
	int stop_grace_ms;		/* SIGTERM to SIGKILL; 0: FLEET_STOP_GRACE_MS */
	bool progress;			/* fleet_call_all(): "N of M nodes answered" on stderr */
	const volatile sig_atomic_t *stop;	/* non-zero once a signal asks to stop: fleet_start() ends with -EINTR; NULL: none */
};

/*
 * A worker is never SIGKILLed first: it is asked to stop (SIGTERM and
 * SIGCONT to its process group), so a worker in the middle of an apply
 * can roll back and answer; only a group still there this long after
 * gets SIGKILL.
 */
#define FLEET_STOP_GRACE_MS 30000
/* How long one request may take to go down a worker's stdin. */
#define FLEET_SEND_TIMEOUT_MS 10000

/* What status, verify, apply and sweep start with. */
#define FLEET_OPTS_DEFAULT { .launcher = "ssh", .hello_timeout_ms = 15000 }

struct fleet {
	struct fleet_worker *w;
	size_t n;			/* the hosts file's end points (one a port) */
	size_t n_procs;			/* of them, served by a worker of their own (not aliases) */
	const struct fab_hosts *hosts;
	int stop_grace_ms;
	const char *launcher;		/* borrowed from the options: named in failure reasons */
	struct fleet_dial *dial;	/* a collective launch (fleet_dial.h), NULL otherwise */
	bool progress;
};

/* Callback for every message and every death: @m is NULL when worker @i died. */
typedef void (*fleet_msg_fn)(struct fleet *f, size_t i, struct proto_msg *m, void *arg);

/*
 * Build the argv for @host: the launcher's words, then the worker command.
 * A NULL-terminated array; free with fleet_argv_free().
 */
int fleet_launcher_argv(const struct fleet_opts *o, const char *host, char ***argv,
			struct fab_err *err);

/*
 * Start a worker on every host at once and wait (up to hello_timeout_ms)
 * for all hellos.  Workers that fail are dead with a reason; the call
 * itself fails only on a bad launcher or a local error (bad input: 2),
 * or with -EINTR once *@o->stop is set (fleet_fini() then stops and
 * cleans up whatever started).
 */
int fleet_start(struct fleet *f, const struct fab_hosts *hosts, const struct fleet_opts *o,
		struct fab_err *err);
void fleet_fini(struct fleet *f);

/*
 * Send @req (stolen) to worker @i; it gets a fresh id unless it has one
 * (session messages); the id is stored in *@id.  -EPIPE when dead.
 */
int fleet_send(struct fleet *f, size_t i, json_t *req, long long *id);

/*
 * Wait up to @timeout_ms for output from any live worker and hand every
 * complete message to @fn (the message is freed after @fn returns).
 */
int fleet_poll(struct fleet *f, int timeout_ms, fleet_msg_fn fn, void *arg);

/*
 * Mark worker @i dead (the reason is kept if already dead), close its
 * pipes and ask its process group to stop: SIGTERM now, SIGKILL if still
 * there after the grace (done by fleet_poll() and fleet_fini()).
 */
void fleet_kill(struct fleet *f, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Number of live workers. */
size_t fleet_live(const struct fleet *f);
/*
 * What a fleet's entries are called in counts: "node(s)" when every
 * entry is a host, "end point(s)" when some host has several ports
 * (each port is an entry: "3 of 8 end points answered").
 */
const char *fleet_unit(const struct fleet *f, size_t n);

/*
 * Worker request for fleet_call_all(): a new object with "op" for the
 * worker on @host, or NULL with @err set (NULL with no error: ENOMEM),
 * which ends the call.
 */
typedef json_t *(*fleet_req_fn)(const struct fab_host *host, const void *arg,
				 struct fab_err *err);

/*
 * Send every live worker the request @req_fn builds for it and collect the
 * replies within @timeout_ms (events are skipped): results[i] gets the
 * result (new reference) or NULL with errors[i] (malloc'd) set.  A worker
 * still busy at @timeout_ms is asked to stop (SIGTERM) and its answer
 * (an apply's rollback) awaited for the stop grace before it is killed.
 * Fails only when a request cannot be built or polling fails.
 */
int fleet_call_all(struct fleet *f, fleet_req_fn req_fn, const void *arg, int timeout_ms,
		   json_t **results, char **errors, struct fab_err *err);

#endif
