// SPDX-License-Identifier: GPL-2.0-or-later
/* Dial-back launch, controller side: listener, joins, the collective launcher (fleet_dial.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet/fleet.h"
#include "fleet/fleet_dial.h"
#include "model/sweep_judge.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/log.h"

/* The longest single argument execve() takes (MAX_ARG_STRLEN). */
#define ARG_STRLEN_MAX (32 * 4096)

/* A numeric address as compared: IPv4 (IPv4-mapped IPv6 too) in 4 bytes, IPv6 in 16. */
struct dial_addr {
	uint8_t a[16];
	uint8_t len;
};

struct dial_conn {
	int fd;
	uint64_t deadline_ms;
	struct dial_addr src;
	char src_s[INET6_ADDRSTRLEN];
	char peer[64];
	char buf[FLEET_DIAL_LINE_MAX];
	size_t len;
};

struct fleet_dial {
	int lfd;			/* the listener, -1 once closed */
	char addr[48];			/* as bound, without brackets */
	unsigned int port;
	bool v6;
	uint8_t token[TP_TOKEN_LEN];
	char token_hex[2 * TP_TOKEN_LEN + 1];
	char dir[PATH_MAX];		/* temporary directory, "" when none */
	char token_file[PATH_MAX + 16];
	char nodefile[PATH_MAX + 16];
	pid_t pid, pgid;		/* the launcher (-1 once reaped), its group (0 once gone) */
	int wstatus;
	int out_fd;			/* its stdout and stderr, relayed */
	char outbuf[512];
	size_t outlen;
	char out_last[160];
	char nojoin[384];		/* why the missing did not join (fleet_dial_nojoin()) */
	struct dial_conn pend[FLEET_DIAL_PENDING_MAX];
	size_t n_pend;
	struct launch_counts c;
	const volatile sig_atomic_t *stop;	/* the caller's signal flag, NULL: none */
	bool interrupted;		/* a signal ended the join: stop the launcher at once */
};

/* The worker command says where to dial itself: no --connect appended. */
static bool own_connect(const struct fleet_opts *o)
{
	return o->worker_cmd && strstr(o->worker_cmd, "--connect");
}

bool fleet_dial_is(const char *launcher)
{
	return launcher && strncmp(launcher, FLEET_DIAL_PREFIX, strlen(FLEET_DIAL_PREFIX)) == 0;
}

/* ---- limits ---- */

struct limit {
	int res;
	const char *name, *what, *ulimit, *unit;
};

static int limit_raise(const struct limit *l, rlim_t need, const char *why, struct fab_err *err)
{
	struct rlimit rl;

	if (getrlimit(l->res, &rl) < 0)
		return fab_err_set(err, -errno, "launcher: getrlimit(%s): %s", l->name, strerror(errno));
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return fab_err_input(err, -EMFILE,
				     "launcher: %s need %llu %s; %s (ulimit %s) is %llu, hard limit %llu: raise the hard limit (limits.conf, %s of the unit) or use --launcher collective:... (docs/scale.md)",
				     why, (unsigned long long)need, l->what, l->name, l->ulimit,
				     (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_max,
				     l->unit);
	fab_info("launcher: raising %s from %llu to %llu for %s", l->name,
		 (unsigned long long)rl.rlim_cur, (unsigned long long)need, why);
	rl.rlim_cur = need;
	if (setrlimit(l->res, &rl) < 0)
		return fab_err_set(err, -errno, "launcher: setrlimit(%s, %llu): %s", l->name,
				   (unsigned long long)need, strerror(errno));
	return 0;
}

int fleet_limits_check(size_t n, bool collective, struct fab_err *err)
{
	static const struct limit nofile = { RLIMIT_NOFILE, "RLIMIT_NOFILE", "open files", "-n",
					     "LimitNOFILE=" };
	static const struct limit nproc = { RLIMIT_NPROC, "RLIMIT_NPROC", "processes", "-u",
					    "LimitNPROC=" };
	char why[96];
	rlim_t fds, procs;
	int rc;

	/*
	 * Per node: stdin, stdout and stderr pipes (3 descriptors) and one
	 * launcher process each.  Collective: one socket each plus the
	 * joins in flight, one launcher.  poll() takes at most RLIMIT_NOFILE
	 * entries, and fleet_poll() has two per worker.  64 to spare.
	 */
	if (collective)
		fds = (rlim_t)(2 * n + FLEET_DIAL_PENDING_MAX + 64);
	else
		fds = (rlim_t)(3 * n + 64);
	procs = collective ? 0 : (rlim_t)(n + 64);
	snprintf(why, sizeof(why), "%zu workers through a %s launcher", n,
		 collective ? "collective" : "per-node");
	rc = limit_raise(&nofile, fds, why, err);
	/* Root is not held to RLIMIT_NPROC; it counts every process of the user. */
	if (rc == 0 && procs && geteuid() != 0)
		rc = limit_raise(&nproc, procs, why, err);
	return rc;
}

/* ---- the launcher's argv ---- */


/* "a,b,c" of the hosts' names, a host of several ports once (its NAME); NULL on ENOMEM. */
static char *host_list(const struct fab_hosts *hosts)
{
	size_t len = 1, o = 0;
	char *s;

	for (size_t i = 0; i < hosts->n; i++)
		len += strlen(hosts_node(&hosts->hosts[i])) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < hosts->n; i++)
		if (!hosts->hosts[i].port)	/* a host's first line: one worker a host */
			o += (size_t)sprintf(s + o, "%s%s", o ? "," : "", hosts_node(&hosts->hosts[i]));
	return s;
}

/* The workers a collective launch starts: one a host. */
static size_t host_count(const struct fab_hosts *hosts)
{
	size_t n = 0;

	for (size_t i = 0; i < hosts->n; i++)
		n += !hosts->hosts[i].port;
	return n;
}

int fleet_dial_argv(const struct fleet *f, const struct fleet_opts *o,
		    const struct fab_hosts *hosts, char ***argv, struct fab_err *err)
{
	const char *tmpl = o->launcher + strlen(FLEET_DIAL_PREFIX);
	const struct fleet_dial *d = f ? f->dial : NULL;
	char n_s[24], port_s[16], target[80], self[PATH_MAX], *list = NULL, **a = NULL;
	struct fleet_subst sub[] = {
		{ "{n}", n_s }, { "{addr}", NULL }, { "{port}", NULL }, { "{hostlist}", NULL },
		{ "{nodefile}", NULL }, { "{token_file}", NULL },
	};
	size_t n = 0;
	int rc;

	if (strstr(tmpl, "{host}") || (o->worker_cmd && strstr(o->worker_cmd, "{host}")))
		return fab_err_input(err, -EINVAL,
				     "launcher '%s': {host} in a collective launcher: one command starts every worker (use {n}, {hostlist}, {nodefile}, {addr}, {port}, {token_file})",
				     o->launcher);
	if (!tmpl[strspn(tmpl, " \t")])
		return fab_err_input(err, -EINVAL, "launcher '%s': no command after \"%s\"",
				     o->launcher, FLEET_DIAL_PREFIX);
	snprintf(n_s, sizeof(n_s), "%zu", host_count(hosts));
	if (d) {
		snprintf(port_s, sizeof(port_s), "%u", d->port);
		snprintf(target, sizeof(target), d->v6 ? "[%s]:%u" : "%s:%u", d->addr, d->port);
		sub[1].val = d->addr;
		sub[2].val = port_s;
		sub[4].val = d->nodefile;
		sub[5].val = d->token_file;
		list = host_list(hosts);
		if (!list)
			return fab_err_set(err, -ENOMEM, "launcher: out of memory");
		if (strstr(tmpl, "{hostlist}") && strlen(list) >= ARG_STRLEN_MAX) {
			free(list);
			return fab_err_input(err, -E2BIG,
					     "launcher '%s': {hostlist} of %zu hosts is longer than one argument may be (128 KiB): use {nodefile}",
					     o->launcher, host_count(hosts));
		}
		sub[3].val = list;
	} else {
		snprintf(target, sizeof(target), "{addr}:{port}");
	}
	rc = fleet_split_subst(tmpl, sub, ARRAY_SIZE(sub), &a, &n);
	if (rc == 0 && o->worker_cmd) {
		rc = fleet_split_subst(o->worker_cmd, sub, ARRAY_SIZE(sub), &a, &n);
	} else if (rc == 0) {
		rc = fleet_self_path(self, sizeof(self), err);
		if (rc == 0)
			rc = fleet_argv_push(&a, &n, strdup(self));
		if (rc == 0)
			rc = fleet_argv_push(&a, &n, strdup("worker"));
	}
	if (rc == 0 && !own_connect(o))
		rc = fleet_argv_push(&a, &n, strdup("--connect"));
	if (rc == 0 && !own_connect(o))
		rc = fleet_argv_push(&a, &n, strdup(target));
	for (int v = 0; rc == 0 && v < o->verbose; v++)
		rc = fleet_argv_push(&a, &n, strdup("-v"));
	free(list);
	if (rc < 0) {
		fleet_argv_free(a);
		return rc == -ENOMEM ? fab_err_set(err, rc, "launcher: out of memory") : rc;
	}
	*argv = a;
	return 0;
}

/* ---- listening ---- */

/* "ADDR", "ADDR:PORT", "[V6]" or "[V6]:PORT" into @addr and @port (0: any). */
static int listen_parse(const char *s, char *addr, size_t len, unsigned int *port,
			struct fab_err *err)
{
	const char *p = NULL, *end;
	size_t al;

	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end || (end[1] && end[1] != ':'))
			goto bad;
		al = (size_t)(end - s - 1);
		s++;
		p = end[1] ? end + 2 : NULL;
	} else {
		end = strchr(s, ':');
		if (end && strchr(end + 1, ':'))
			end = NULL;	/* a bare IPv6 address: no port */
		al = end ? (size_t)(end - s) : strlen(s);
		p = end ? end + 1 : NULL;
	}
	if (!al || al >= len)
		goto bad;
	memcpy(addr, s, al);
	addr[al] = '\0';
	*port = 0;
	if (p) {
		char *e;
		unsigned long v = strtoul(p, &e, 10);

		if (!*p || *e || v > 65535)
			goto bad;
		*port = (unsigned int)v;
	}
	return 0;
bad:
	return fab_err_input(err, -EINVAL,
			     "--listen '%s': want ADDR[:PORT] (IPv6 as [ADDR]:PORT), ADDR numeric", s);
}

static bool addr_is_wildcard(const char *a)
{
	return strcmp(a, "0.0.0.0") == 0 || strcmp(a, "::") == 0;
}

static int dial_listen(struct fleet_dial *d, const struct fleet_opts *o, struct fab_err *err)
{
	const char *spec = o->listen;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct addrinfo *ai = NULL;
	char port_s[8];
	int one = 1, rc;

	if (!spec)
		return fab_err_input(err, -EINVAL,
				     "a collective launcher needs --listen ADDR[:PORT]: the admin node's address the workers dial back to");
	rc = listen_parse(spec, d->addr, sizeof(d->addr), &d->port, err);
	if (rc < 0)
		return rc;
	/* Only when asked for, and then the workers must be told where to dial. */
	if (addr_is_wildcard(d->addr) &&
	    (strstr(o->launcher, "{addr}") || !own_connect(o) || strstr(o->worker_cmd, "{addr}")))
		return fab_err_input(err, -EINVAL,
				     "--listen %s: a wildcard is no address to dial (the workers' --connect would be %s): give the admin node's address, or write --connect ADDR:{port} in --worker-cmd",
				     spec, d->addr);
	snprintf(port_s, sizeof(port_s), "%u", d->port);
	rc = getaddrinfo(d->addr, port_s, &hints, &ai);
	if (rc != 0)
		return fab_err_input(err, -EINVAL, "--listen '%s': '%s' is not a numeric address",
				     spec, d->addr);
	d->v6 = ai->ai_family == AF_INET6;
	d->lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (d->lfd < 0) {
		rc = fab_err_set(err, -errno, "--listen %s: socket: %s", spec, strerror(errno));
		goto out;
	}
	setsockopt(d->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(d->lfd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(d->lfd, SOMAXCONN) < 0 ||
	    getsockname(d->lfd, (struct sockaddr *)&ss, &sl) < 0) {
		rc = fab_err_set(err, -errno, "--listen %s: %s", spec, strerror(errno));
		goto out;
	}
	d->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						 : ((struct sockaddr_in *)&ss)->sin_port);
	rc = 0;
out:
	freeaddrinfo(ai);
	return rc;
}

/* ---- the token and its files ---- */

static int write_private(const char *path, const char *text, struct fab_err *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	size_t len = strlen(text);

	if (fd < 0)
		return fab_err_set(err, -errno, "launcher: %s: %s", path, strerror(errno));
	if (write(fd, text, len) != (ssize_t)len) {
		int e = errno ? errno : EIO;

		close(fd);
		return fab_err_set(err, -e, "launcher: %s: %s", path, strerror(e));
	}
	close(fd);
	return 0;
}

static int dial_files(struct fleet_dial *d, const struct fleet *f, const struct fleet_opts *o,
		      struct fab_err *err)
{
	bool want_tok = strstr(o->launcher, "{token_file}") ||
			(o->worker_cmd && strstr(o->worker_cmd, "{token_file}"));
	bool want_nodes = strstr(o->launcher, "{nodefile}") ||
			  (o->worker_cmd && strstr(o->worker_cmd, "{nodefile}"));
	const char *tmp = getenv("TMPDIR");
	char line[2 * TP_TOKEN_LEN + 2];
	char *names;
	int rc;

	if (!want_tok && !want_nodes)
		return 0;
	snprintf(d->dir, sizeof(d->dir), "%s/fabricctl-dial.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(d->dir)) {
		rc = fab_err_set(err, -errno, "launcher: mkdtemp %s: %s", d->dir, strerror(errno));
		d->dir[0] = '\0';
		return rc;
	}
	snprintf(d->token_file, sizeof(d->token_file), "%s/token", d->dir);
	snprintf(d->nodefile, sizeof(d->nodefile), "%s/nodes", d->dir);
	if (want_tok) {
		snprintf(line, sizeof(line), "%s\n", d->token_hex);
		rc = write_private(d->token_file, line, err);
		if (rc < 0)
			return rc;
	}
	if (!want_nodes)
		return 0;
	names = host_list(f->hosts);
	if (!names)
		return fab_err_set(err, -ENOMEM, "launcher: out of memory");
	for (char *p = names; *p; p++)
		if (*p == ',')
			*p = '\n';
	rc = write_private(d->nodefile, names, err);
	free(names);
	return rc;
}

/* ---- the launcher process ---- */

static void launcher_reap(struct fleet_dial *d)
{
	int st;

	if (d->pid > 0 && waitpid(d->pid, &st, WNOHANG) == d->pid) {
		d->pid = -1;
		d->wstatus = st;
	}
}

void fleet_dial_relay(struct fleet *f)
{
	struct fleet_dial *d = f->dial;

	if (d)
		fleet_relay_read(&d->out_fd, d->outbuf, sizeof(d->outbuf), &d->outlen, "launcher",
				 d->out_last, sizeof(d->out_last));
	if (d)
		launcher_reap(d);
}

int fleet_dial_fd(const struct fleet *f)
{
	return f->dial ? f->dial->out_fd : -1;
}

static int launcher_spawn(struct fleet_dial *d, char **argv, struct fab_err *err)
{
	int out[2];
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) < 0)
		return fab_err_set(err, -errno, "pipe: %s", strerror(errno));
	/* The token in the environment, never in an argv (ps shows those to all). */
	pid = fleet_exec(argv, -1, out[1], out[1], FLEET_DIAL_TOKEN_ENV, d->token_hex);
	if (pid < 0) {
		close(out[0]);
		close(out[1]);
		return fab_err_set(err, (int)pid, "fork: %s", strerror((int)-pid));
	}
	close(out[1]);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	d->pid = d->pgid = pid;
	d->out_fd = out[0];
	return 0;
}

static void describe(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "went away");
}

/* ---- joins ---- */

static void conn_drop(struct fleet_dial *d, size_t k)
{
	if (d->pend[k].fd >= 0)
		close(d->pend[k].fd);
	d->pend[k] = d->pend[--d->n_pend];
}

/* ok, or ok:false with @error; "retry": true when the worker may try again. */
static void conn_answer(int fd, const char *error, bool retry)
{
	json_t *m = !error ? json_pack("{s:i, s:b, s:{}}", "id", 0, "ok", 1, "result")
		    : retry ? json_pack("{s:i, s:b, s:s, s:b}", "id", 0, "ok", 0, "error", error,
					"retry", 1)
			    : json_pack("{s:i, s:b, s:s}", "id", 0, "ok", 0, "error", error);
	size_t len;
	char *line = proto_format(m, &len);

	if (line && send(fd, line, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		fab_info("dial-back: answer: %s", strerror(errno));
	free(line);
}

static void refuse_how(struct fleet_dial *d, size_t k, unsigned int *count, const char *why,
		       bool retry)
{
	(*count)++;
	fab_info("dial-back: refused %s: %s", d->pend[k].peer, why);
	conn_answer(d->pend[k].fd, why, retry);
	conn_drop(d, k);
}

static void refuse(struct fleet_dial *d, size_t k, unsigned int *count, const char *why)
{
	refuse_how(d, k, count, why, false);
}

/* Turned away for now, not for good: the worker tries again (fleet_dial_connect()). */
static void turn_away(struct fleet_dial *d, size_t k, const char *why)
{
	refuse_how(d, k, &d->c.idle, why, true);
}

/* Numeric @s into @out; -EINVAL when it is not a numeric address. */
static int addr_norm(const char *s, struct dial_addr *out)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct in6_addr a6;
	struct in_addr a4;

	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		memcpy(out->a, &a4, 4);
		out->len = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a6) != 1)
		return -EINVAL;
	if (memcmp(&a6, mapped, sizeof(mapped)) == 0) {
		memcpy(out->a, (uint8_t *)&a6 + 12, 4);
		out->len = 4;
	} else {
		memcpy(out->a, &a6, 16);
		out->len = 16;
	}
	return 0;
}

static bool addr_eq(const struct dial_addr *a, const struct dial_addr *b)
{
	return a->len == b->len && memcmp(a->a, b->a, a->len) == 0;
}

/*
 * The addresses host @h may join from: its hosts-file ADDRESS and those of
 * its dial= label (comma-separated).  With @src: true when @src is one of
 * them.  Without: checks the label (-EINVAL with @err set when bad).
 */
static int host_sources(const struct fab_host *h, const struct dial_addr *src, bool *match,
			struct fab_err *err)
{
	const char *dial = hosts_label(h, FLEET_DIAL_SOURCE_LABEL);
	struct dial_addr a;
	char buf[sizeof(((struct fab_label *)0)->value)];

	if (match)
		*match = false;
	if (addr_norm(h->addr, &a) == 0 && src && addr_eq(&a, src)) {
		*match = true;
		return 0;
	}
	if (!dial)
		return 0;
	snprintf(buf, sizeof(buf), "%s", dial);
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (addr_norm(tok, &a) < 0)
			return fab_err_input(err, -EINVAL,
					     "hosts line %u: host '%s': %s=%s: '%s' is not a numeric address",
					     h->line, h->name, FLEET_DIAL_SOURCE_LABEL, dial, tok);
		if (src && addr_eq(&a, src)) {
			*match = true;
			return 0;
		}
	}
	return 0;
}

/* host_sources() over worker @i's host's ports: any of its addresses (or dial=) may join. */
static int port_sources(const struct fleet *f, size_t i, const struct dial_addr *src, bool *match)
{
	int rc = host_sources(f->w[i].host, src, match, NULL);

	for (size_t j = 0; rc == 0 && !*match && f->n_procs < f->n && j < f->n; j++)
		if (f->w[j].alias && f->w[j].via == i)
			rc = host_sources(f->w[j].host, src, match, NULL);
	return rc;
}

/* Connection @k sent its first line: join it to its host or refuse it. */
static void conn_line(struct fleet *f, size_t k, const char *line, size_t len)
{
	struct fleet_dial *d = f->dial;
	uint8_t tok[TP_TOKEN_LEN];
	const char *host, *hex;
	struct proto_msg m;
	struct fab_err err;
	bool from_ok = false;
	char why[256];
	size_t i;

	fab_err_init(&err);
	if (proto_parse(line, len, &m, &err) < 0) {
		refuse(d, k, &d->c.not_join, "refused: not a join request");
		return;
	}
	if (m.kind != PROTO_REQUEST || strcmp(m.op, "join") != 0 || proto_msg_clean(&m) < 0) {
		proto_msg_fini(&m);
		refuse(d, k, &d->c.not_join, "refused: not a join request");
		return;
	}
	host = json_string_value(json_object_get(m.doc, "host"));
	hex = json_string_value(json_object_get(m.doc, "token"));
	/* The token first: who has not got it learns nothing about the hosts. */
	if (!hex || tp_token_parse(hex, tok, false) < 0 || !tp_token_equal(tok, d->token)) {
		proto_msg_fini(&m);
		refuse(d, k, &d->c.wrong_token, "refused: wrong token");
		return;
	}
	for (i = 0; host && i < f->n; i++)	/* a host of several ports joins as its NAME */
		if (!f->w[i].alias && strcmp(hosts_node(f->w[i].host), host) == 0)
			break;
	if (!host || i == f->n) {
		snprintf(why, sizeof(why), "refused: host '%.64s' is not in the hosts file",
			 host ? host : "");
		proto_msg_fini(&m);
		refuse(d, k, &d->c.unknown_host, why);
		return;
	}
	/* Bound to its host: the token alone would let any holder join as anyone. */
	if (port_sources(f, i, &d->pend[k].src, &from_ok) < 0 || !from_ok) {
		snprintf(why, sizeof(why),
			 "refused: host '%.64s' may not join from %s (hosts file: %s%s%.63s)", host,
			 d->pend[k].src_s, f->w[i].host->addr,
			 hosts_label(f->w[i].host, FLEET_DIAL_SOURCE_LABEL) ? ", " FLEET_DIAL_SOURCE_LABEL "=" : "",
			 hosts_label(f->w[i].host, FLEET_DIAL_SOURCE_LABEL) ?: "");
		proto_msg_fini(&m);
		refuse(d, k, &d->c.wrong_source, why);
		return;
	}
	if (f->w[i].sock || f->w[i].dead) {
		snprintf(why, sizeof(why), "refused: host '%.64s' has already joined", host);
		proto_msg_fini(&m);
		refuse(d, k, &d->c.duplicate, why);
		return;
	}
	proto_msg_fini(&m);
	fab_log(2, "dial-back: %s joined from %s", f->w[i].host->name, d->pend[k].peer);
	conn_answer(d->pend[k].fd, NULL, false);
	f->w[i].to_fd = f->w[i].from_fd = d->pend[k].fd;
	f->w[i].sock = true;
	d->pend[k].fd = -1;
	conn_drop(d, k);
	d->c.joined++;
}

static void conn_read(struct fleet *f, size_t k)
{
	struct dial_conn *c = &f->dial->pend[k];
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - c->len, MSG_DONTWAIT);
	char *nl;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		refuse(f->dial, k, &f->dial->c.not_join, "refused: closed before joining");
		return;
	}
	c->len += (size_t)n;
	nl = memchr(c->buf, '\n', c->len);
	if (nl)
		conn_line(f, k, c->buf, (size_t)(nl - c->buf));
	else if (c->len == sizeof(c->buf))
		refuse(f->dial, k, &f->dial->c.not_join, "refused: not a join request (too long)");
}

/* Connections waiting from @src. */
static size_t source_count(const struct fleet_dial *d, const struct dial_addr *src)
{
	size_t n = 0;

	for (size_t k = 0; k < d->n_pend; k++)
		n += addr_eq(&d->pend[k].src, src);
	return n;
}

/*
 * A waiting connection that has said nothing, to make room: from @src
 * when given, else from the source with the most waiting; the oldest of
 * those.  Connections that sent part of a line are never taken (they
 * leave at their idle deadline).  -1 when there is none.
 */
static ssize_t silent_victim(const struct fleet_dial *d, const struct dial_addr *src)
{
	ssize_t best = -1;
	size_t best_n = 0;

	for (size_t k = 0; k < d->n_pend; k++) {
		const struct dial_conn *c = &d->pend[k];
		size_t n;

		if (c->len || (src && !addr_eq(&c->src, src)))
			continue;
		n = src ? 1 : source_count(d, &c->src);
		if (best < 0 || n > best_n ||
		    (n == best_n && c->deadline_ms < d->pend[best].deadline_ms)) {
			best = (ssize_t)k;
			best_n = n;
		}
	}
	return best;
}

/* Every waiting connection's data now, join lines handled (back to front: refusing moves). */
static void conn_read_all(struct fleet *f)
{
	for (size_t k = f->dial->n_pend; k-- > 0;)
		conn_read(f, k);
}

/*
 * The waiting set is full: read what the waiting have sent (their joins
 * are handled, freeing slots), then turn away one that has said nothing.
 * False when every slot holds a connection that is sending: the new ones
 * wait in the backlog.
 */
static bool make_room(struct fleet *f)
{
	struct fleet_dial *d = f->dial;
	ssize_t v;

	conn_read_all(f);
	if (d->n_pend < FLEET_DIAL_PENDING_MAX)
		return true;
	v = silent_victim(d, NULL);
	if (v < 0)
		return false;
	turn_away(d, (size_t)v, "refused: too many connections waiting to join (try again)");
	return true;
}

static void conn_accept(struct fleet *f)
{
	struct fleet_dial *d = f->dial;

	for (int k = 0; k < 256; k++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		char host[INET6_ADDRSTRLEN] = "?";
		int one = 1, fd;
		struct dial_conn *c;
		struct dial_addr src;

		if (d->n_pend == FLEET_DIAL_PENDING_MAX && !make_room(f))
			return;
		fd = accept4(d->lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;	/* EAGAIN, or out of descriptors: the rest wait in the backlog */
		if (ss.ss_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, host, sizeof(host));
		else
			inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, host, sizeof(host));
		if (addr_norm(host, &src) < 0)
			memset(&src, 0, sizeof(src));
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = &d->pend[d->n_pend++];
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->deadline_ms = clock_mono_ms() + FLEET_DIAL_IDLE_MS;
		c->src = src;
		snprintf(c->src_s, sizeof(c->src_s), "%s", host);
		snprintf(c->peer, sizeof(c->peer), "%s port %u", host,
			 ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
							: ((struct sockaddr_in *)&ss)->sin_port));
		/* One source holds at most FLEET_DIAL_PER_SOURCE_MAX of the waiting set. */
		if (source_count(d, &src) > FLEET_DIAL_PER_SOURCE_MAX) {
			size_t before = d->n_pend;
			ssize_t v;

			conn_read(f, before - 1);	/* its join may be here already */
			if (d->n_pend < before)
				continue;	/* it was: joined or refused */
			v = silent_victim(d, &src);
			turn_away(d, v >= 0 ? (size_t)v : d->n_pend - 1,
				  "refused: too many connections waiting to join from this address (try again)");
		}
	}
}

/* One wait of the join phase: until @deadline at the latest. */
static int join_poll(struct fleet *f, uint64_t deadline)
{
	struct fleet_dial *d = f->dial;
	struct pollfd pfd[FLEET_DIAL_PENDING_MAX + 2];
	uint64_t now = clock_mono_ms(), until = deadline;
	size_t np = d->n_pend;

	for (size_t k = 0; k < np; k++) {
		pfd[k + 2].fd = d->pend[k].fd;
		pfd[k + 2].events = POLLIN;
		if (d->pend[k].deadline_ms < until)
			until = d->pend[k].deadline_ms;
	}
	/* Full of connections that are all sending: new ones wait in the backlog. */
	pfd[0].fd = np < FLEET_DIAL_PENDING_MAX || silent_victim(d, NULL) >= 0 ? d->lfd : -1;
	pfd[0].events = POLLIN;
	pfd[1].fd = d->out_fd;
	pfd[1].events = POLLIN;
	/* A launcher not yet reaped: look again soon. */
	if (d->pid > 0 && d->out_fd < 0 && until > now + 50)
		until = now + 50;
	if (poll(pfd, np + 2, until > now ? (int)(until - now) : 0) < 0 && errno != EINTR)
		return -errno;
	if (pfd[1].revents)
		fleet_dial_relay(f);
	launcher_reap(d);
	/* Back to front: refusing one moves the last into its slot. */
	for (size_t k = np; k-- > 0;)
		if (pfd[k + 2].revents)
			conn_read(f, k);
	now = clock_mono_ms();
	for (size_t k = d->n_pend; k-- > 0;)
		if (now >= d->pend[k].deadline_ms)
			refuse(d, k, &d->c.idle, "refused: no join request in time");
	if (pfd[0].revents)
		conn_accept(f);
	return 0;
}

static void join_report(struct fleet *f, const char *why)
{
	struct fleet_dial *d = f->dial;
	const struct launch_counts *c = &d->c;
	unsigned int refused = c->wrong_token + c->unknown_host + c->wrong_source + c->duplicate +
			       c->not_join + c->idle;
	char how[96] = "";

	if (d->pid < 0)
		describe(d->wstatus, how, sizeof(how));
	snprintf(d->nojoin, sizeof(d->nojoin), "%s%s%s%s%s", why, how[0] ? "; launcher " : "", how,
		 d->out_last[0] ? ": " : "", d->out_last);
	if (refused)
		fab_warn("dial-back: %u of %zu workers joined; refused %u connection%s: %u wrong token, %u unknown host, %u wrong source, %u duplicate, %u not a join request, %u idle",
			 c->joined, f->n_procs, refused, refused == 1 ? "" : "s", c->wrong_token,
			 c->unknown_host, c->wrong_source, c->duplicate, c->not_join, c->idle);
	else
		fab_info("dial-back: %u of %zu workers joined", c->joined, f->n_procs);
}

static int dial_setup(struct fleet *f, const struct fleet_opts *o, struct fab_err *err)
{
	struct fleet_dial *d = calloc(1, sizeof(*d));
	char **argv = NULL;
	int rc;

	if (!d)
		return fab_err_set(err, -ENOMEM, "launcher: out of memory");
	d->lfd = d->out_fd = -1;
	d->pid = -1;
	d->wstatus = -1;
	d->stop = o->stop;
	f->dial = d;
	for (size_t i = 0; i < f->n; i++)
		if ((rc = host_sources(f->w[i].host, NULL, NULL, err)) < 0)
			return rc;
	if (getrandom(d->token, sizeof(d->token), 0) != (ssize_t)sizeof(d->token))
		return fab_err_set(err, -errno, "launcher: getrandom: %s", strerror(errno));
	tp_token_hex(d->token, d->token_hex);
	rc = dial_listen(d, o, err);
	if (rc == 0)
		rc = dial_files(d, f, o, err);
	if (rc == 0)
		rc = fleet_dial_argv(f, o, f->hosts, &argv, err);
	if (rc < 0)
		return rc;
	fab_info("dial-back: listening on %s%s%s:%u for %zu workers", d->v6 ? "[" : "", d->addr,
		 d->v6 ? "]" : "", d->port, f->n_procs);
	if (fab_log_level >= 2) {
		for (char **a = argv; *a; a++)
			fprintf(stderr, "%s%s", a == argv ? "fabricctl: launch: " : " ", *a);
		fputc('\n', stderr);
	}
	rc = launcher_spawn(d, argv, err);
	fleet_argv_free(argv);
	return rc;
}

/* The join's own catch of SIGINT, SIGTERM and SIGHUP, for callers without a flag. */
static volatile sig_atomic_t join_caught;
static const int join_sigs[] = { SIGINT, SIGTERM, SIGHUP };

static void join_on_signal(int sig)
{
	join_caught = sig;
}

static void join_catch(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = join_on_signal;
	sigemptyset(&sa.sa_mask);
	join_caught = 0;
	/* An ignored signal (nohup, a background job) does not end the command: left so. */
	for (size_t k = 0; k < ARRAY_SIZE(join_sigs); k++)
		if (sigaction(join_sigs[k], NULL, &old[k]) == 0 && old[k].sa_handler != SIG_IGN)
			sigaction(join_sigs[k], &sa, NULL);
}

static void join_uncatch(const struct sigaction *old)
{
	for (size_t k = 0; k < ARRAY_SIZE(join_sigs); k++)
		sigaction(join_sigs[k], &old[k], NULL);
}

static int join_wait(struct fleet *f, const struct fleet_opts *o, struct fab_err *err)
{
	uint64_t deadline = clock_mono_ms() + FLEET_DIAL_JOIN_MS;
	struct fleet_dial *d;
	char why[64] = "";
	int rc = dial_setup(f, o, err);

	if (rc < 0)
		return rc;
	d = f->dial;
	while (d->c.joined < f->n_procs) {
		uint64_t now = clock_mono_ms();
		int sig = d->stop ? *d->stop : join_caught;

		if (sig) {
			d->interrupted = true;
			return fab_err_set(err, -EINTR,
					   "dial-back: interrupted by %s while joining (%u of %zu workers joined): launcher stopped",
					   sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" :
					   sig == SIGHUP ? "SIGHUP" : "a signal", d->c.joined, f->n_procs);
		}
		if (now >= deadline) {
			if (d->pid < 0 && d->wstatus != -1 &&
			    !(WIFEXITED(d->wstatus) && WEXITSTATUS(d->wstatus) == 0))
				snprintf(why, sizeof(why), "the launcher failed");
			else
				snprintf(why, sizeof(why), "not within %d ms", FLEET_DIAL_JOIN_MS);
			break;
		}
		/* A launcher that failed: 2 s more for the workers it did start. */
		if (d->pid < 0 && d->wstatus != -1 && deadline > now + 2000 &&
		    !(WIFEXITED(d->wstatus) && WEXITSTATUS(d->wstatus) == 0))
			deadline = now + 2000;
		rc = join_poll(f, deadline);
		if (rc < 0)
			return fab_err_set(err, rc, "dial-back: poll: %s", strerror(-rc));
	}
	/* Nothing listens once the workers are in. */
	close(d->lfd);
	d->lfd = -1;
	while (d->n_pend)
		refuse(d, d->n_pend - 1, &d->c.idle, "refused: joining is over");
	join_report(f, why);
	return 0;
}

int fleet_dial_start(struct fleet *f, const struct fleet_opts *o, struct fab_err *err)
{
	struct sigaction old[ARRAY_SIZE(join_sigs)];
	int rc, sig;

	if (o->stop)
		return join_wait(f, o, err);
	/*
	 * No flag of the caller's: a signal in the join must not leave the
	 * launcher running and the token on disk.  Clean up, then let the
	 * signal do what it would have done.
	 */
	join_catch(old);
	rc = join_wait(f, o, err);
	sig = join_caught;
	if (sig && f->dial) {
		f->dial->interrupted = true;
		fleet_dial_fini(f);	/* the launcher and its group stopped, the files removed */
	}
	join_uncatch(old);
	if (!sig)
		return rc;
	raise(sig);
	/* Still here: the signal was ignored or handled by the caller. */
	return rc < 0 ? rc : fab_err_set(err, -EINTR, "dial-back: interrupted while joining");
}

const char *fleet_dial_nojoin(const struct fleet *f)
{
	return f->dial ? f->dial->nojoin : "";
}

void fleet_dial_report(const struct fleet *f, struct sweep_launch *l)
{
	memset(l, 0, sizeof(*l));
	if (!f->dial)
		return;
	l->dial = true;
	l->n = f->dial->c;
}

/* Wait for the launcher to exit until @until_ms; true when it did. */
static bool launcher_wait(struct fleet *f, uint64_t until_ms)
{
	struct fleet_dial *d = f->dial;

	for (;;) {
		struct timespec ts = { 0, 5000000 };

		fleet_dial_relay(f);
		if (d->pid < 0)
			return true;
		if (clock_mono_ms() >= until_ms)
			return false;
		nanosleep(&ts, NULL);
	}
}

void fleet_dial_fini(struct fleet *f)
{
	struct fleet_dial *d = f->dial;

	if (!d)
		return;
	if (d->lfd >= 0)
		close(d->lfd);
	while (d->n_pend)
		conn_drop(d, d->n_pend - 1);
	/* The workers saw their connections close: the launcher ends with them. */
	if (d->pid > 0 && !launcher_wait(f, clock_mono_ms() + (d->interrupted ? 0 : 5000))) {
		kill(-d->pgid, SIGTERM);
		kill(-d->pgid, SIGCONT);
		if (!launcher_wait(f, clock_mono_ms() + (uint64_t)f->stop_grace_ms)) {
			kill(-d->pgid, SIGKILL);
			waitpid(d->pid, &d->wstatus, 0);
			d->pid = -1;
		}
	}
	/* What it left in its group (workers it backgrounded) goes too. */
	if (d->pgid > 0 && kill(-d->pgid, 0) == 0) {
		kill(-d->pgid, SIGTERM);
		kill(-d->pgid, SIGCONT);
	}
	if (d->out_fd >= 0)
		close(d->out_fd);
	if (d->dir[0]) {
		unlink(d->token_file);
		unlink(d->nodefile);
		rmdir(d->dir);
	}
	explicit_bzero(d->token_hex, sizeof(d->token_hex));
	free(d);
	f->dial = NULL;
}
