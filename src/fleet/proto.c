// SPDX-License-Identifier: GPL-2.0-or-later
/* Worker protocol: line framing, strict message parsing, wire forms. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleet/proto.h"
#include "util/str.h"
#include "transport/verbs_gid.h"

void proto_msg_fini(struct proto_msg *m)
{
	json_decref(m->doc);
	memset(m, 0, sizeof(*m));
}

/* The fields of the object m->doc into @m; an error leaves m->doc to the caller. */
static int msg_fields(struct proto_msg *m, struct fab_err *err)
{
	const json_t *v = json_object_get(m->doc, "v"), *id = json_object_get(m->doc, "id");
	const json_t *op = json_object_get(m->doc, "op"), *ev = json_object_get(m->doc, "event");
	const json_t *ok = json_object_get(m->doc, "ok"), *name = op ? op : ev;

	if (!json_is_integer(v) || json_integer_value(v) != FAB_PROTO_VERSION)
		return fab_err_set(err, -EPROTO, "protocol: want \"v\":%d", FAB_PROTO_VERSION);
	if (!json_is_integer(id) || json_integer_value(id) < 0)
		return fab_err_set(err, -EPROTO, "protocol: want a non-negative integer \"id\"");
	m->id = json_integer_value(id);
	if ((op != NULL) + (ev != NULL) + (ok != NULL) != 1)
		return fab_err_set(err, -EPROTO, "protocol: want exactly one of \"op\", \"event\", \"ok\"");
	if (name) {
		if (!json_is_string(name) || !*json_string_value(name))
			return fab_err_set(err, -EPROTO, "protocol: \"%s\" must be a string",
					   op ? "op" : "event");
		m->kind = op ? PROTO_REQUEST : PROTO_EVENT;
		*(op ? &m->op : &m->event) = json_string_value(name);
		return 0;
	}
	if (!json_is_boolean(ok))
		return fab_err_set(err, -EPROTO, "protocol: \"ok\" must be true or false");
	m->kind = PROTO_REPLY;
	m->ok = json_is_true(ok);
	if (m->ok) {
		m->result = json_object_get(m->doc, "result");
		return 0;
	}
	m->error = json_string_value(json_object_get(m->doc, "error"));
	if (!m->error)
		return fab_err_set(err, -EPROTO, "protocol: a failed reply needs an \"error\" string");
	return 0;
}

int proto_parse(const char *line, size_t len, struct proto_msg *m, struct fab_err *err)
{
	json_error_t jerr;
	int rc;

	memset(m, 0, sizeof(*m));
	if (len >= FAB_PROTO_LINE_MAX)
		return fab_err_set(err, -EMSGSIZE, "protocol: line longer than %d bytes",
				   FAB_PROTO_LINE_MAX);
	m->doc = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!m->doc)
		return fab_err_set(err, -EPROTO, "protocol: not JSON: %s at column %d",
				   jerr.text, jerr.column);
	rc = json_is_object(m->doc) ? msg_fields(m, err)
				    : fab_err_set(err, -EPROTO, "protocol: not a JSON object");
	if (rc < 0)
		proto_msg_fini(m);
	return rc;
}

size_t proto_str_clean(const char *s, size_t len, char *out, size_t out_len)
{
	return str_clean(s, len, out, out_len);
}

static bool str_dirty(const char *s, size_t len)
{
	return !str_is_clean(s, len);
}

/* A cleaned copy of @s (malloc'd), or NULL when out of memory. */
static char *str_cleaned(const char *s, size_t len, size_t *out_len)
{
	size_t n = proto_str_clean(s, len, NULL, 0);
	char *c = malloc(n + 1);

	if (c)
		proto_str_clean(s, len, c, n + 1);
	*out_len = n;
	return c;
}

static int clean_key(json_t *obj, const char *key)
{
	size_t n;
	char *c = str_cleaned(key, strlen(key), &n);
	json_t *v = json_object_get(obj, key);
	int rc = -ENOMEM;

	/* A key that clashes with another after cleaning replaces it: both were junk. */
	if (c && json_object_set(obj, c, v) == 0 && json_object_del(obj, key) == 0)
		rc = 0;
	free(c);
	return rc;
}

static int clean_json(json_t *v)
{
	const char *key;
	json_t *e, *dirty;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		if (str_dirty(json_string_value(v), json_string_length(v))) {
			size_t n;
			char *c = str_cleaned(json_string_value(v), json_string_length(v), &n);
			int rc = c ? json_string_setn_nocheck(v, c, n) : -1;

			free(c);
			return rc < 0 ? -ENOMEM : 0;
		}
		return 0;
	case JSON_ARRAY:
		json_array_foreach(v, i, e)
			if (clean_json(e) < 0)
				return -ENOMEM;
		return 0;
	case JSON_OBJECT:
		dirty = json_array();
		if (!dirty)
			return -ENOMEM;
		json_object_foreach(v, key, e) {
			if ((str_dirty(key, strlen(key)) &&
			     json_array_append_new(dirty, json_string_nocheck(key)) < 0) ||
			    clean_json(e) < 0) {
				json_decref(dirty);
				return -ENOMEM;
			}
		}
		json_array_foreach(dirty, i, e)
			if (clean_key(v, json_string_value(e)) < 0) {
				json_decref(dirty);
				return -ENOMEM;
			}
		json_decref(dirty);
		return 0;
	default:
		return 0;
	}
}

int proto_msg_clean(struct proto_msg *m)
{
	if (!m->doc || clean_json(m->doc) < 0)
		return -ENOMEM;
	/* The borrowed pointers may have moved with their strings. */
	m->op = json_string_value(json_object_get(m->doc, "op"));
	m->event = json_string_value(json_object_get(m->doc, "event"));
	if (m->kind == PROTO_REPLY && !m->ok)
		m->error = json_string_value(json_object_get(m->doc, "error"));
	return 0;
}

char *proto_format(json_t *msg, size_t *len)
{
	char *s, *line;
	size_t n;

	if (!msg)
		return NULL;
	json_object_set_new(msg, "v", json_integer(FAB_PROTO_VERSION));
	s = json_dumps(msg, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(msg);
	if (!s)
		return NULL;
	n = strlen(s);
	line = realloc(s, n + 2);
	if (!line) {
		free(s);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	*len = n + 1;
	return line;
}

void proto_reader_init(struct proto_reader *r)
{
	memset(r, 0, sizeof(*r));
}

void proto_reader_fini(struct proto_reader *r)
{
	free(r->buf);
	proto_reader_init(r);
}

/*
 * While r->skip, the bytes read since @old_len belong to an over-long line
 * that is being thrown away: drop them up to and including the first
 * newline, and leave skip mode when there is one.
 */
static void reader_skip(struct proto_reader *r, size_t old_len)
{
	char *nl = memchr(r->buf + old_len, '\n', r->len - old_len);

	if (!nl) {
		r->len = old_len;
		return;
	}
	nl++;
	memmove(r->buf + old_len, nl, r->len - (size_t)(nl - r->buf));
	r->len -= (size_t)(nl - (r->buf + old_len));
	r->skip = false;
}

int proto_reader_fill(struct proto_reader *r, int fd)
{
	size_t old_len = r->len, start;
	char *last;
	ssize_t n;

	if (r->eof)
		return 0;
	if (r->cap - r->len < 4096) {
		size_t cap = r->cap ? r->cap * 2 : 8192;
		char *tmp;

		if (cap > FAB_PROTO_LINE_MAX + 8192)
			cap = FAB_PROTO_LINE_MAX + 8192;
		if (cap <= r->len)
			return -EMSGSIZE;
		tmp = realloc(r->buf, cap);
		if (!tmp)
			return -ENOMEM;
		r->buf = tmp;
		r->cap = cap;
	}
	n = read(fd, r->buf + r->len, r->cap - r->len);
	if (n < 0)
		return errno == EINTR ? -EAGAIN : -errno;
	if (n == 0) {
		r->eof = true;
		return 0;
	}
	r->len += (size_t)n;
	if (r->skip)
		reader_skip(r, old_len);
	/*
	 * A line that cannot end within the limit is garbage: report it once,
	 * keep the complete lines before it, and throw it away up to its
	 * newline, so that the next line is read again (or EOF is seen).
	 */
	last = r->len ? memrchr(r->buf, '\n', r->len) : NULL;
	start = last ? (size_t)(last - r->buf) + 1 : 0;
	if (r->len - start >= FAB_PROTO_LINE_MAX) {
		r->len = start;
		r->skip = true;
		return -EMSGSIZE;
	}
	return 0;
}

int proto_reader_line(struct proto_reader *r, char **line, size_t *len)
{
	char *nl = r->len ? memchr(r->buf, '\n', r->len) : NULL;
	size_t n, used;

	if (nl) {
		n = (size_t)(nl - r->buf);
		used = n + 1;
	} else if (r->eof && r->len) {
		n = used = r->len;	/* the last line, without its newline */
	} else {
		return 0;
	}
	*line = malloc(n + 1);
	if (!*line)
		return -ENOMEM;
	memcpy(*line, r->buf, n);
	(*line)[n] = '\0';
	*len = n;
	memmove(r->buf, r->buf + used, r->len - used);
	r->len -= used;
	return 1;
}

/* The steered ports, only when set: a plan without them is the wire as before. */
static json_t *spec_ports(json_t *j, const struct tp_spec *p)
{
	const struct {
		const char *key;
		unsigned int v;
	} ports[] = { { "port", p->port }, { "sport_fwd", p->sport_fwd }, { "sport_rev", p->sport_rev } };

	for (size_t i = 0; j && i < sizeof(ports) / sizeof(ports[0]); i++)
		if (ports[i].v && json_object_set_new(j, ports[i].key, json_integer(ports[i].v)) < 0) {
			json_decref(j);
			return NULL;
		}
	return j;
}

json_t *proto_spec_to_json(const struct tp_spec *p)
{
	return spec_ports(json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:b, s:i, s:{s:i, s:i, s:i, s:i}}",
			 "lat_iters", (int)p->lat_iters,
			 "lat_ms", (int)p->lat_ms,
			 "msg_bytes", (int)p->msg_bytes,
			 "duration_ms", (int)p->duration_ms,
			 "interval_ms", (int)p->interval_ms,
			 "streams", (int)p->streams,
			 "bw_fwd", p->bw_fwd,
			 "bw_rev", p->bw_rev,
			 "timeout_ms", (int)p->timeout_ms,
			 "verbs",
			 "bw_bytes", (int)p->verbs.bw_bytes,
			 "tx_depth", (int)p->verbs.tx_depth,
			 "cq_mod", (int)p->verbs.cq_mod,
			 "spin_us", (int)p->verbs.spin_us), p);
}

static int get_uint(const json_t *j, const char *key, unsigned int max, unsigned int *out,
		    struct fab_err *err)
{
	const json_t *v = json_object_get(j, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return fab_err_set(err, -EPROTO, "protocol: plan: \"%s\" must be an integer 0..%u",
				   key, max);
	*out = (unsigned int)json_integer_value(v);
	return 0;
}

/* Optional (added later in version 1): absent means the defaults. */
static int verbs_tuning_from_json(const json_t *j, struct tp_verbs_tuning *v, struct fab_err *err)
{
	*v = (struct tp_verbs_tuning)TP_VERBS_TUNING_DEFAULT;
	if (!j)
		return 0;
	if (!json_is_object(j))
		return fab_err_set(err, -EPROTO, "protocol: plan: \"verbs\" must be an object");
	if (get_uint(j, "bw_bytes", VERBS_EP_MAX_REGION, &v->bw_bytes, err) < 0 ||
	    get_uint(j, "tx_depth", 8192, &v->tx_depth, err) < 0 ||
	    get_uint(j, "cq_mod", 8192, &v->cq_mod, err) < 0 ||
	    get_uint(j, "spin_us", 60000000, &v->spin_us, err) < 0)
		return -EPROTO;
	return 0;
}

int proto_spec_from_json(const json_t *j, struct tp_spec *p, struct fab_err *err)
{
	const json_t *f = json_object_get(j, "bw_fwd"), *r = json_object_get(j, "bw_rev");

	memset(p, 0, sizeof(*p));
	if (!json_is_object(j))
		return fab_err_set(err, -EPROTO, "protocol: \"plan\" must be an object");
	if (get_uint(j, "lat_iters", 10000000, &p->lat_iters, err) < 0 ||
	    get_uint(j, "msg_bytes", 65536, &p->msg_bytes, err) < 0 ||
	    get_uint(j, "duration_ms", 3600000, &p->duration_ms, err) < 0 ||
	    get_uint(j, "interval_ms", 60000, &p->interval_ms, err) < 0 ||
	    get_uint(j, "streams", 64, &p->streams, err) < 0 ||
	    get_uint(j, "timeout_ms", 86400000, &p->timeout_ms, err) < 0)
		return -EPROTO;
	/* Optional (added later in version 1): absent means no time bound. */
	if (json_object_get(j, "lat_ms") &&
	    get_uint(j, "lat_ms", 3600000, &p->lat_ms, err) < 0)
		return -EPROTO;
	/* Optional (added later in version 1, steered tests): absent means any port. */
	if ((json_object_get(j, "port") && get_uint(j, "port", 65535, &p->port, err) < 0) ||
	    (json_object_get(j, "sport_fwd") && get_uint(j, "sport_fwd", 65535, &p->sport_fwd, err) < 0) ||
	    (json_object_get(j, "sport_rev") && get_uint(j, "sport_rev", 65535, &p->sport_rev, err) < 0))
		return -EPROTO;
	if (!json_is_boolean(f) || !json_is_boolean(r))
		return fab_err_set(err, -EPROTO, "protocol: plan: bw_fwd and bw_rev must be booleans");
	p->bw_fwd = json_is_true(f);
	p->bw_rev = json_is_true(r);
	return verbs_tuning_from_json(json_object_get(j, "verbs"), &p->verbs, err);
}


static json_t *bw_to_json(const struct sweep_bw *bw)
{
	if (!bw->measured)
		return json_null();
	return json_pack("{s:f, s:f, s:I, s:f, s:i}",
			 "avg_mbps", bw->avg_mbps,
			 "min_mbps", bw->min_mbps,
			 "bytes", (json_int_t)bw->bytes,
			 "secs", bw->secs,
			 "intervals", (int)bw->intervals);
}

static json_t *lat_to_json(const struct stats_summary *s, bool have)
{
	if (!have)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:I}",
			 "min", s->min, "p50", s->p50, "p99", s->p99, "p999", s->p999,
			 "max", s->max, "mean", s->mean, "samples", (json_int_t)s->n);
}

json_t *proto_result_to_json(const struct tp_result *r)
{
	json_t *j = json_pack("{s:o, s:o, s:o}",
			      "lat_ns", lat_to_json(&r->lat_ns, r->have_lat),
			      "fwd", bw_to_json(&r->fwd),
			      "rev", bw_to_json(&r->rev));

	/* verbs on RoCE v2 only (added later in version 1): absent otherwise. */
	if (j && (r->sport_fwd || r->sport_rev) &&
	    json_object_set_new(j, "udp_sport", json_pack("{s:i, s:i}", "fwd", (int)r->sport_fwd,
							  "rev", (int)r->sport_rev)) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* The optional "udp_sport": {"fwd": 0..65535, "rev": 0..65535}. */
static int sport_from_json(const json_t *j, struct tp_result *r)
{
	const json_t *f = json_object_get(j, "fwd"), *v = json_object_get(j, "rev");

	if (!j)
		return 0;
	if (!json_is_integer(f) || !json_is_integer(v) || json_integer_value(f) < 0 ||
	    json_integer_value(f) > 65535 || json_integer_value(v) < 0 ||
	    json_integer_value(v) > 65535)
		return -EPROTO;
	r->sport_fwd = (uint16_t)json_integer_value(f);
	r->sport_rev = (uint16_t)json_integer_value(v);
	return 0;
}

static int get_num(const json_t *j, const char *key, double *out)
{
	const json_t *v = json_object_get(j, key);

	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) < 0)
		return -EPROTO;
	*out = json_number_value(v);
	return 0;
}

static int bw_from_json(const json_t *j, struct sweep_bw *bw)
{
	double bytes, intervals;

	memset(bw, 0, sizeof(*bw));
	if (json_is_null(j))
		return 0;
	if (!json_is_object(j) || get_num(j, "avg_mbps", &bw->avg_mbps) < 0 ||
	    get_num(j, "min_mbps", &bw->min_mbps) < 0 || get_num(j, "bytes", &bytes) < 0 ||
	    get_num(j, "secs", &bw->secs) < 0 || get_num(j, "intervals", &intervals) < 0 ||
	    intervals > 1e9 || bytes > 1.8e19)
		return -EPROTO;
	bw->bytes = (uint64_t)bytes;
	bw->intervals = (unsigned int)intervals;
	bw->measured = true;
	return 0;
}

int proto_result_from_json(const json_t *j, struct tp_result *r, struct fab_err *err)
{
	const json_t *lat;
	double n;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(j))
		return fab_err_set(err, -EPROTO, "protocol: result must be an object");
	lat = json_object_get(j, "lat_ns");
	if (lat && !json_is_null(lat)) {
		struct stats_summary *s = &r->lat_ns;

		if (!json_is_object(lat) || get_num(lat, "min", &s->min) < 0 ||
		    get_num(lat, "p50", &s->p50) < 0 || get_num(lat, "p99", &s->p99) < 0 ||
		    get_num(lat, "p999", &s->p999) < 0 || get_num(lat, "max", &s->max) < 0 ||
		    get_num(lat, "mean", &s->mean) < 0 || get_num(lat, "samples", &n) < 0 ||
		    n < 1 || n > 1e9)
			return fab_err_set(err, -EPROTO, "protocol: bad \"lat_ns\" in result");
		s->n = (size_t)n;
		r->have_lat = true;
	}
	if (bw_from_json(json_object_get(j, "fwd"), &r->fwd) < 0 ||
	    bw_from_json(json_object_get(j, "rev"), &r->rev) < 0)
		return fab_err_set(err, -EPROTO, "protocol: bad bandwidth figures in result");
	if (sport_from_json(json_object_get(j, "udp_sport"), r) < 0)
		return fab_err_set(err, -EPROTO, "protocol: bad \"udp_sport\" in result");
	return 0;
}

/* ---- the status reply ---- */

/* A string (or, when @null_ok, null: ""), shorter than @len, into @buf. */
static int status_str(const json_t *v, bool null_ok, char *buf, size_t len, const char *where,
		      const char *key, struct fab_err *err)
{
	const char *s = null_ok && json_is_null(v) ? "" : json_string_value(v);

	if (!s || strlen(s) >= len)
		return fab_err_set(err, -EPROTO, "protocol: status: %s.%s: %s", where, key,
				   s ? "too long" : null_ok ? "not a string or null" : "not a string");
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

/* "0x%016" PRIx64, as the status document writes GUIDs. */
static int status_guid(const json_t *v, uint64_t *guid)
{
	const char *s = json_string_value(v);

	return s && strncmp(s, "0x", 2) == 0 ? parse_uint(s, 0, guid) : -EINVAL;
}

static int status_link(struct host_state *hs, json_t *j, size_t idx, struct fab_err *err)
{
	json_t *name, *kind, *oper, *speed, *driver, *master, *addr;
	json_int_t ifindex, mtu;
	struct fab_link *l;
	json_error_t je;
	char where[32];
	int admin;

	snprintf(where, sizeof(where), "links[%zu]", idx);
	if (json_unpack_ex(j, &je, 0, "{s:o, s:I, s:o, s:o, s:b, s:I, s:o, s:o, s:o, s:o}",
			   "name", &name, "ifindex", &ifindex, "kind", &kind, "operstate", &oper,
			   "admin_up", &admin, "mtu", &mtu, "speed_mbps", &speed, "driver", &driver,
			   "master", &master, "address", &addr) < 0)
		return fab_err_set(err, -EPROTO, "protocol: status: %s: %s", where, je.text);
	if (ifindex < 0 || ifindex > INT32_MAX || mtu < 0 || mtu > UINT32_MAX ||
	    !(json_is_null(speed) || (json_is_integer(speed) && json_integer_value(speed) >= 0)))
		return fab_err_set(err, -EPROTO, "protocol: status: %s: ifindex, mtu or speed_mbps "
				   "out of range", where);
	l = host_state_link_add(hs);
	if (!l)
		return fab_err_set(err, -ENOMEM, "protocol: out of memory");
	l->ifindex = (int)ifindex;
	l->admin_up = admin;
	l->mtu = (unsigned int)mtu;
	l->speed_mbps = json_is_integer(speed) ? json_integer_value(speed) : -1;
	if (status_str(name, false, l->name, sizeof(l->name), where, "name", err) < 0 ||
	    status_str(kind, true, l->kind, sizeof(l->kind), where, "kind", err) < 0 ||
	    status_str(oper, false, l->operstate, sizeof(l->operstate), where, "operstate", err) < 0 ||
	    status_str(driver, true, l->driver, sizeof(l->driver), where, "driver", err) < 0 ||
	    status_str(master, true, l->master, sizeof(l->master), where, "master", err) < 0 ||
	    status_str(addr, true, l->address, sizeof(l->address), where, "address", err) < 0)
		return -EPROTO;
	return l->name[0] ? 0 : fab_err_set(err, -EPROTO, "protocol: status: %s.name: empty", where);
}

static int status_port(struct fab_rdma_dev *d, json_t *j, const char *dwhere, size_t idx,
		       struct fab_err *err)
{
	json_t *ll, *state, *phys, *width, *speed, *rate, *mtu, *guid, *netdev;
	json_int_t port, lid, sm_lid;
	struct fab_rdma_port *p;
	json_error_t je;
	char where[96];

	snprintf(where, sizeof(where), "%s.ports[%zu]", dwhere, idx);
	if (json_unpack_ex(j, &je, 0,
			   "{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:o}",
			   "port", &port, "link_layer", &ll, "state", &state, "phys_state", &phys,
			   "width", &width, "speed", &speed, "rate_gbps", &rate, "active_mtu", &mtu,
			   "lid", &lid, "sm_lid", &sm_lid, "port_guid", &guid, "netdev", &netdev) < 0)
		return fab_err_set(err, -EPROTO, "protocol: status: %s: %s", where, je.text);
	p = rdma_dev_port_add(d);
	if (!p)
		return fab_err_set(err, -ENOMEM, "protocol: out of memory");
	if (port < 1 || port > 255 || lid < 0 || lid > 0xffff || sm_lid < 0 || sm_lid > 0xffff ||
	    !(json_is_null(rate) || (json_is_number(rate) && json_number_value(rate) >= 0 &&
				     isfinite(json_number_value(rate)))) ||
	    !(json_is_null(mtu) || (json_is_integer(mtu) && json_integer_value(mtu) >= 0 &&
				    json_integer_value(mtu) <= 65536)) ||
	    !(json_is_null(width) || (json_is_string(width) &&
				      ib_width_parse(json_string_value(width)))) ||
	    status_guid(guid, &p->port_guid) < 0)
		return fab_err_set(err, -EPROTO, "protocol: status: %s: port, lid, rate_gbps, "
				   "active_mtu, width or port_guid out of range", where);
	p->port = (unsigned int)port;
	p->lid = (unsigned int)lid;
	p->sm_lid = (unsigned int)sm_lid;
	p->rate_gbps = json_is_null(rate) ? 0 : json_number_value(rate);
	p->active_mtu = json_is_null(mtu) ? 0 : (unsigned int)json_integer_value(mtu);
	p->width_x = json_is_null(width) ? 0 : ib_width_parse(json_string_value(width));
	if (status_str(ll, false, p->link_layer, sizeof(p->link_layer), where, "link_layer", err) < 0 ||
	    status_str(state, false, p->state, sizeof(p->state), where, "state", err) < 0 ||
	    status_str(phys, true, p->phys_state, sizeof(p->phys_state), where, "phys_state", err) < 0 ||
	    status_str(speed, true, p->speed, sizeof(p->speed), where, "speed", err) < 0 ||
	    status_str(netdev, true, p->netdev, sizeof(p->netdev), where, "netdev", err) < 0)
		return -EPROTO;
	return 0;
}

static int status_dev(struct host_state *hs, json_t *j, size_t idx, struct fab_err *err)
{
	json_t *name, *type, *guid, *fw, *ports, *pj;
	struct fab_rdma_dev *d;
	json_error_t je;
	char where[32];
	size_t i;

	snprintf(where, sizeof(where), "rdma[%zu]", idx);
	if (json_unpack_ex(j, &je, 0, "{s:o, s:o, s:o, s:o, s:o}", "name", &name,
			   "node_type", &type, "node_guid", &guid, "fw_ver", &fw, "ports", &ports) < 0)
		return fab_err_set(err, -EPROTO, "protocol: status: %s: %s", where, je.text);
	d = host_state_rdma_add(hs);
	if (!d)
		return fab_err_set(err, -ENOMEM, "protocol: out of memory");
	if (!json_is_array(ports) || status_guid(guid, &d->node_guid) < 0)
		return fab_err_set(err, -EPROTO, "protocol: status: %s: bad node_guid or ports not "
				   "an array", where);
	if (status_str(name, false, d->name, sizeof(d->name), where, "name", err) < 0 ||
	    status_str(type, true, d->node_type, sizeof(d->node_type), where, "node_type", err) < 0 ||
	    status_str(fw, true, d->fw_ver, sizeof(d->fw_ver), where, "fw_ver", err) < 0)
		return -EPROTO;
	if (!d->name[0])
		return fab_err_set(err, -EPROTO, "protocol: status: %s.name: empty", where);
	json_array_foreach(ports, i, pj)
		if (status_port(d, pj, where, i, err) < 0)
			return err->code;
	return 0;
}

int proto_status_from_json(json_t *j, struct host_state *hs, struct fab_err *err)
{
	json_t *schema, *host, *links, *rdma, *v;
	json_error_t je;
	size_t i;

	if (json_unpack_ex(j, &je, 0, "{s:o, s:o, s:o, s:o}", "schema", &schema,
			   "hostname", &host, "links", &links, "rdma", &rdma) < 0)
		return fab_err_set(err, -EPROTO, "protocol: status: %s", je.text);
	if (!json_is_string(schema) || strcmp(json_string_value(schema), "fabricctl.status/1") != 0 ||
	    !json_is_array(links) || !json_is_array(rdma))
		return fab_err_set(err, -EPROTO, "protocol: status: not a fabricctl.status/1 document");
	if (status_str(host, false, hs->hostname, sizeof(hs->hostname), "status", "hostname", err) < 0)
		return -EPROTO;
	json_array_foreach(links, i, v)
		if (status_link(hs, v, i, err) < 0)
			return err->code;
	json_array_foreach(rdma, i, v)
		if (status_dev(hs, v, i, err) < 0)
			return err->code;
	return 0;
}
