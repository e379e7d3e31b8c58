/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Dial-back launch (docs/scale.md "Launch"): one collective command
 * starts the workers of the whole fleet, and each worker connects back to
 * the controller over TCP instead of being started node by node.
 *
 *   --launcher 'collective:srun -N{n} --ntasks-per-node=1 -w {hostlist}'
 *   --listen ADDR[:PORT]
 *
 * The controller binds ADDR (numeric; a wildcard only when given as
 * such), port PORT or an ephemeral one, before the launcher starts, and
 * closes the listener once every host has joined or FLEET_DIAL_JOIN_MS
 * has passed: nothing listens afterwards.  The template is split at
 * blanks (never a shell), placeholders substituted ({n}, {addr}, {port},
 * {hostlist}, {nodefile}, {token_file}; {host} is refused), and the
 * worker command is appended with "--connect ADDR:PORT" (--worker-cmd
 * gets the same substitutions).
 *
 * The sweep's token (16 random bytes) reaches the workers in the
 * launcher's environment (FABRICCTL_TOKEN, never in an argv) and, when
 * the template names {token_file}, in a 0600 file in a 0700 temporary
 * directory removed at the end.  A worker's first line is
 *
 *   {"v":1,"id":0,"op":"join","host":NAME,"token":HEX}
 *
 * answered {"v":1,"id":0,"ok":true,"result":{}} or ok:false with the
 * reason; after that the connection carries the worker protocol exactly
 * as a launcher's pipes do (hello first).  Refused and counted: a wrong
 * token, a name not in the hosts file, a join from an address that is
 * not the host's (its hosts-file ADDRESS, or one of its dial= label:
 * the token is shared by every worker, the source address binds a join
 * to its host), a name that already joined, a first line that is not a
 * join request, a connection that sends no complete line within
 * FLEET_DIAL_IDLE_MS.  At most FLEET_DIAL_PENDING_MAX connections wait
 * at once, FLEET_DIAL_PER_SOURCE_MAX of them from one address; to make
 * room the listener first reads the lines the waiting have sent, then
 * turns away one that has sent nothing (from the address with the most
 * waiting, the oldest), answered "retry": true: workers try again
 * (fleet_dial_connect()).  A connection that is sending is never turned
 * away for room.
 *
 * Ownership: struct fleet owns its struct fleet_dial (fleet_dial_fini()
 * from fleet_fini()): the listener, the launcher process and its output
 * pipe, the temporary directory.  Joined connections move into the
 * fleet's workers (to_fd == from_fd, sock set).
 */
#ifndef FAB_FLEET_FLEET_DIAL_H
#define FAB_FLEET_FLEET_DIAL_H

#include <stdbool.h>
#include <stddef.h>

#include "model/hosts.h"
#include "model/sweep_judge.h"
#include "util/err.h"

struct fleet;
struct fleet_opts;

#define FLEET_DIAL_PREFIX "collective:"
#define FLEET_DIAL_JOIN_MS 60000	/* every worker joined within this */
#define FLEET_DIAL_IDLE_MS 5000		/* a connection's time to send its join line */
#define FLEET_DIAL_PENDING_MAX 64	/* connections not yet joined, at once */
#define FLEET_DIAL_PER_SOURCE_MAX 8	/* of those, from one source address */
#define FLEET_DIAL_SOURCE_LABEL "dial"	/* hosts-file label: more addresses a host joins from */
#define FLEET_DIAL_LINE_MAX 1024	/* a join line, newline included */
#define FLEET_DIAL_TOKEN_ENV "FABRICCTL_TOKEN"
#define FLEET_DIAL_NODE_ENV "FABRICCTL_NODE"

/* True for a "collective:" launcher. */
bool fleet_dial_is(const char *launcher);

/*
 * The collective launcher's argv for @hosts with the worker command
 * appended; placeholders that need the listener ({addr}, {port},
 * {token_file}, {nodefile}) are left as they are when @f is NULL (for
 * fleet_launcher_check(): only argv[0] matters there).
 */
int fleet_dial_argv(const struct fleet *f, const struct fleet_opts *o,
		    const struct fab_hosts *hosts, char ***argv, struct fab_err *err);

/*
 * Descriptors and processes the controller needs for @n workers, checked
 * against RLIMIT_NOFILE and RLIMIT_NPROC before anything starts: a soft
 * limit too low is raised towards the hard one; past the hard one, a
 * clear error (bad input) that says what is needed.
 */
int fleet_limits_check(size_t n, bool collective, struct fab_err *err);

/*
 * Listen, start the collective launcher, take joins until every worker
 * of @f joined or the deadline, close the listener.  Workers that did not
 * join have no connection: the caller marks them dead, saying
 * fleet_dial_nojoin() (why: the deadline or the launcher's failure, and
 * the launcher's last words).  Fails on bad options (--listen
 * missing or bad, a template with {host}, a bad dial= label) and local
 * errors only, and with -EINTR when a signal ended the join: the
 * caller's flag (fleet_opts.stop) was set, or, without one, SIGINT,
 * SIGTERM or SIGHUP came (caught for the join only).  Then the launcher
 * is stopped at once (fleet_dial_fini() from fleet_fini()); without a
 * caller's flag the launcher and the token's directory are gone before
 * the signal is raised again with its old disposition.
 */
int fleet_dial_start(struct fleet *f, const struct fleet_opts *o, struct fab_err *err);
const char *fleet_dial_nojoin(const struct fleet *f);

/* The launcher's output pipe for fleet_poll() (-1: none), and relaying it. */
int fleet_dial_fd(const struct fleet *f);
void fleet_dial_relay(struct fleet *f);

/* The last launch's counts for the sweep's report (JSON "launch"); none: per-node launcher. */
void fleet_dial_report(const struct fleet *f, struct sweep_launch *l);

/*
 * After the workers' connections closed: wait for the launcher, stop its
 * process group if it lingers (SIGTERM, SIGKILL after the grace), remove
 * the temporary directory, free.
 */
void fleet_dial_fini(struct fleet *f);

/*
 * Worker side (`fabricctl worker --connect ADDR:PORT`): connect (from
 * numeric address @source when set), join as @name (NULL:
 * $FABRICCTL_NODE, else the host name) with the token from @token_file
 * (NULL: $FABRICCTL_TOKEN, which is then unset), wait for the answer and
 * put the connection on stdin and stdout.  A join that finds nobody
 * listening yet, a connection reset or unanswered, or an answer with
 * "retry": true (turned away while a crowd waits) is tried again after
 * 100 ms, doubling up to 2 s (+-25%), until FLEET_DIAL_JOIN_MS after the
 * first try; a refusal (wrong token, unknown host, wrong source, already
 * joined, joining over) ends it at once.
 */
int fleet_dial_connect(const char *target, const char *name, const char *source,
		       const char *token_file, struct fab_err *err);

#endif
