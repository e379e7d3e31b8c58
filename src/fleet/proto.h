/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Worker protocol (docs/worker-protocol.md): versioned JSON lines over the
 * launcher's stdin (controller -> worker) and stdout (worker -> controller).
 *
 *   request  {"v":1, "id":N, "op":"hello"|"status"|"verify"|"listen"|
 *             "connect"|"peer"|"go"|"abort"|"bye", ...}
 *   event    {"v":1, "id":N, "event":"ready"|"armed", ...}   (not final)
 *   reply    {"v":1, "id":N, "ok":true, "result":{...}}
 *            {"v":1, "id":N, "ok":false, "error":"message"}
 *
 * A line is at most FAB_PROTO_LINE_MAX bytes including its newline.
 * Parsing is strict (fuzzed by tests/fuzz/fuzz_proto.c): anything else is
 * a protocol error, and the controller then treats the worker as failed.
 *
 * Ownership: struct proto_msg owns its document (proto_msg_fini()); the
 * string pointers in it borrow from it.  struct proto_reader owns its
 * buffer (proto_reader_fini()).
 */
#ifndef FAB_FLEET_PROTO_H
#define FAB_FLEET_PROTO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/host_state.h"
#include "transport/transport.h"
#include "util/err.h"

#define FAB_PROTO_VERSION 1
#define FAB_PROTO_LINE_MAX (1024 * 1024)

enum proto_kind {
	PROTO_REQUEST,
	PROTO_EVENT,
	PROTO_REPLY,
};

struct proto_msg {
	json_t *doc;
	enum proto_kind kind;
	long long id;
	const char *op;		/* request */
	const char *event;	/* event */
	bool ok;		/* reply */
	const char *error;	/* reply with ok false */
	json_t *result;		/* reply with ok true: borrowed, may be NULL */
};

/* Parse one line (without its newline). */
int proto_parse(const char *line, size_t len, struct proto_msg *m, struct fab_err *err);
void proto_msg_fini(struct proto_msg *m);

/*
 * Node-supplied text reaches the admin's terminal: proto_str_clean()
 * writes @s with every control character (C0, DEL, C1) shown as "\xNN",
 * NUL-terminated, truncated to @out_len; returns the full cleaned length
 * (@out may be NULL to measure).  proto_msg_clean() does that to every
 * string and key of @m's document (the controller calls it on every
 * message from a worker); -ENOMEM on failure.
 */
size_t proto_str_clean(const char *s, size_t len, char *out, size_t out_len);
int proto_msg_clean(struct proto_msg *m);

/* The line for @msg (stolen), with "v" added, newline-terminated; free() it. */
char *proto_format(json_t *msg, size_t *len);

/* Buffered line reader over a file descriptor. */
struct proto_reader {
	char *buf;
	size_t len, cap;
	bool eof;
	bool skip;	/* discarding an over-long line up to its newline */
};

void proto_reader_init(struct proto_reader *r);
void proto_reader_fini(struct proto_reader *r);
/*
 * Read what @fd has (one read()); 0 on data; at EOF sets r->eof and
 * returns 0; -EAGAIN when nothing was there; other -errno on read errors.
 * -EMSGSIZE, once per line, when a line grows past FAB_PROTO_LINE_MAX:
 * that line is thrown away up to its newline (later reads skip the rest
 * of it), so the lines after it are read again and EOF is still seen.
 */
int proto_reader_fill(struct proto_reader *r, int fd);
/*
 * Take the next complete line out of @r into @line (malloc'd, NUL
 * terminated, newline removed; free() it): 1 when one was there, 0 when
 * not (yet).  After EOF, what is left without a newline is the last line.
 */
int proto_reader_line(struct proto_reader *r, char **line, size_t *len);

/* Plans, tokens and results on the wire. */
json_t *proto_spec_to_json(const struct tp_spec *p);
int proto_spec_from_json(const json_t *j, struct tp_spec *p, struct fab_err *err);
json_t *proto_result_to_json(const struct tp_result *r);
int proto_result_from_json(const json_t *j, struct tp_result *r, struct fab_err *err);

/*
 * A worker's "status" result ("fabricctl.status/1", docs/json-status.md,
 * as status_to_json() writes it) back into @hs (host_state_init'ed; on
 * failure it may hold what was decoded so far: the caller finis it).
 * Strict on the keys it reads: a missing key, a wrong type, a string too
 * long for its field is -EPROTO naming the place ("protocol: status:
 * links[2].operstate: not a string").  Not decoded: the RDMA ports' "gids"
 * and "counters" (n_gids and n_counters stay 0, counters_supported
 * false), and links' master_ifindex (0; "master" is kept by name).
 */
int proto_status_from_json(json_t *j, struct host_state *hs, struct fab_err *err);

#endif
