// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover, JSON ("fabricctl.discover/1", docs/discover.md).  The same keys
 * on every node, link end and problem whatever the source knew (unknown
 * facts are null).
 *
 * The document is described once, by the walk below (discover_doc()),
 * which hands each value to a sink.  Two sinks take it:
 *   - the tree: jansson values, for discover_to_json() (the whole
 *     document as a json_t, the reference that render_json_emit() writes);
 *   - the stream, for discover -j: the bytes jansson's dumper would write
 *     for that tree (dump.c: escapes, separators, indentation), straight
 *     into a 64 KiB buffer, without a json_t.
 * A 1665-node, 3888-link fabric is some 10^5 values and 2 MB of text:
 * built as json_t one item at a time and dumped through
 * json_dump_callback() it cost ~330 million instructions, three times the
 * SMP walk itself; streamed, ~25 million (docs/discover-performance.md).
 * tests/unit/test_discover_json.c and tests/fuzz/fuzz_discover_json.c hold
 * the stream to the tree's bytes, compact and indented.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/ib_checks.h"
#include "model/topo.h"
#include "model/topo_optics.h"
#include "render/optics.h"
#include "render/render_impl.h"
#include "util/array.h"

#define DJ_DEPTH 10		/* deepest: document, ib_checks, credit_loops, cycles, cycle, channels, channel, end */

/* ---- sinks ---- */

struct dj_sink;

struct dj_sink_ops {
	void (*open)(struct dj_sink *s, bool array);	/* a value: "{" or "[" ... */
	void (*close)(struct dj_sink *s);		/* ... "}" or "]" */
	/* An object's next member: @key a name of this file's (@len bytes, NUL after, nothing to escape). */
	void (*key)(struct dj_sink *s, const char *key, size_t len);
	void (*text)(struct dj_sink *s, const char *str);	/* json_text(str) */
	void (*integer)(struct dj_sink *s, json_int_t v);
	void (*guid)(struct dj_sink *s, uint64_t guid);		/* "0x%016" PRIx64 */
	void (*null)(struct dj_sink *s);
	void (*boolean)(struct dj_sink *s, bool v);
	void (*value)(struct dj_sink *s, json_t *v);		/* a jansson value, stolen */
};

struct dj_sink {
	const struct dj_sink_ops *ops;
};

/* The tree: jansson values, as render_json_emit() would be handed them. */
struct dj_tree {
	struct dj_sink base;
	json_t *root;
	json_t *open[DJ_DEPTH];		/* borrowed: the containers being filled */
	unsigned int depth;
	const char *key;		/* the pending member's key */
	bool failed;			/* out of memory: no document */
};

static void tree_add(struct dj_tree *t, json_t *v)
{
	json_t *top;

	if (!v || t->failed) {
		t->failed = true;
		json_decref(v);
		return;
	}
	if (!t->depth) {
		json_decref(t->root);
		t->root = v;
		return;
	}
	top = t->open[t->depth - 1];
	if (json_is_array(top) ? json_array_append_new(top, v) < 0 :
	    json_object_set_new_nocheck(top, t->key, v) < 0)
		t->failed = true;
}

static void tree_open(struct dj_sink *s, bool array)
{
	struct dj_tree *t = (struct dj_tree *)s;
	json_t *v = array ? json_array() : json_object();

	tree_add(t, v);
	if (t->depth >= DJ_DEPTH) {
		t->failed = true;
		return;
	}
	t->open[t->depth++] = t->failed ? NULL : v;
}

static void tree_close(struct dj_sink *s)
{
	struct dj_tree *t = (struct dj_tree *)s;

	if (t->depth)
		t->depth--;
}

static void tree_key(struct dj_sink *s, const char *key, size_t len)
{
	((struct dj_tree *)s)->key = key;
}

static void tree_text(struct dj_sink *s, const char *str)
{
	tree_add((struct dj_tree *)s, json_text(str));
}

static void tree_integer(struct dj_sink *s, json_int_t v)
{
	tree_add((struct dj_tree *)s, json_integer(v));
}

static void tree_guid(struct dj_sink *s, uint64_t guid)
{
	tree_add((struct dj_tree *)s, json_guid(guid));
}

static void tree_null(struct dj_sink *s)
{
	tree_add((struct dj_tree *)s, json_null());
}

static void tree_boolean(struct dj_sink *s, bool v)
{
	tree_add((struct dj_tree *)s, json_boolean(v));
}

static void tree_value(struct dj_sink *s, json_t *v)
{
	tree_add((struct dj_tree *)s, v);
}

static const struct dj_sink_ops tree_ops = {
	.open = tree_open, .close = tree_close, .key = tree_key, .text = tree_text,
	.integer = tree_integer, .guid = tree_guid, .null = tree_null, .boolean = tree_boolean,
	.value = tree_value,
};

/*
 * The stream: jansson's bytes for the tree above, flags JSON_PRESERVE_ORDER
 * and JSON_INDENT(2) (pretty) or JSON_COMPACT.  Strings as json_text()
 * makes them and dump_string() writes them: valid UTF-8 as it is, else
 * every byte >= 0x80 as '?'; '"', '\\' and control characters below 0x20
 * escaped ("\n", "\t"... or "\u001F"), nothing else.
 */
#define DJ_BUF 65536
#define DJ_ROOM 64		/* what one key, number, GUID or null needs at most */

struct dj_stream {
	struct dj_sink base;
	FILE *f;
	unsigned int indent;		/* spaces per level; 0: compact */
	unsigned int depth;		/* open containers */
	bool array[DJ_DEPTH + 1];	/* by depth: the container is an array */
	bool items[DJ_DEPTH + 1];	/* by depth: it has an item already */
	bool after_key;			/* the next value follows its key */
	bool failed;			/* a write failed */
	size_t len;
	char buf[DJ_BUF];
};

static void st_flush(struct dj_stream *st)
{
	if (st->len && fwrite(st->buf, 1, st->len, st->f) != st->len)
		st->failed = true;
	st->len = 0;
}

/* Where @n (<= DJ_BUF) more bytes go: the buffer is flushed first when they do not fit. */
static inline char *st_room(struct dj_stream *st, size_t n)
{
	if (st->len + n > sizeof(st->buf))
		st_flush(st);
	return st->buf + st->len;
}

/* The bytes up to @end (a pointer returned by st_room() and moved on) are written. */
static inline void st_done(struct dj_stream *st, const char *end)
{
	st->len = (size_t)(end - st->buf);
}

static void st_put(struct dj_stream *st, const char *s, size_t n)
{
	if (n > sizeof(st->buf)) {
		st_flush(st);
		if (fwrite(s, 1, n, st->f) != n)
			st->failed = true;
		return;
	}
	memcpy(st_room(st, n), s, n);
	st->len += n;
}

/* jansson's dump_indent() at @depth: pretty, a newline and the indent; compact, nothing. */
static inline void st_newline(struct dj_stream *st, unsigned int depth)
{
	unsigned int n = depth * st->indent;
	char *o;

	if (!st->indent)
		return;
	if (n >= DJ_BUF)
		n = DJ_BUF - 1;		/* not reached: DJ_DEPTH levels of a few spaces */
	o = st_room(st, n + 1);
	*o++ = '\n';
	memset(o, ' ', n);
	st_done(st, o + n);
}

/* Before an item of the open container: "," after the one before, then the indent. */
static inline void st_item(struct dj_stream *st)
{
	if (st->items[st->depth]) {
		*st_room(st, 1) = ',';
		st->len++;
	}
	st->items[st->depth] = true;
	st_newline(st, st->depth);
}

/* Before a value: its key placed it, or it is an array's item (or the document). */
static inline void st_value(struct dj_stream *st)
{
	if (st->after_key)
		st->after_key = false;
	else if (st->depth)
		st_item(st);
}

/* Valid UTF-8 as jansson's utf8_check_string() has it: no overlong form, surrogate or > U+10FFFF. */
static bool utf8_valid(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int c = s[i], need, cp;

		if (c < 0x80)
			continue;
		if (c >= 0xc2 && c <= 0xdf)
			need = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			need = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			need = 3, cp = c & 0x07;
		else
			return false;
		if (need > n - i - 1)
			return false;
		for (unsigned int k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    (need == 2 && cp < 0x800) || (need == 3 && cp < 0x10000))
			return false;
		i += need;
	}
	return true;
}

/* Bytes a string cannot copy as they are: '"', '\\', control characters, and non-ASCII. */
static inline bool plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* The string from @p on, past its plain prefix @run..@p: escapes, and '?' for bytes that are not UTF-8. */
static void st_string_slow(struct dj_stream *st, const unsigned char *s,
			   const unsigned char *run, const unsigned char *p)
{
	static const char hex[] = "0123456789ABCDEF";
	bool utf8 = true, checked = false;

	for (;;) {
		char esc[6] = { '\\', 0, '0', '0', 0, 0 };
		unsigned char c;
		size_t n = 2;

		while (plain(*p))
			p++;
		c = *p;
		if (!c)
			break;
		if (c >= 0x80 && !checked) {
			utf8 = utf8_valid(s, strlen((const char *)s));
			checked = true;
		}
		if (c >= 0x80 && utf8) {
			p++;
			continue;
		}
		st_put(st, (const char *)run, (size_t)(p - run));
		run = ++p;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			if (c >= 0x80) {	/* not UTF-8: json_text()'s '?' */
				esc[0] = '?';
				n = 1;
				break;
			}
			esc[1] = 'u';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			n = 6;
			break;
		}
		st_put(st, esc, n);
	}
	st_put(st, (const char *)run, (size_t)(p - run));
	st_put(st, "\"", 1);
}

static void st_string(struct dj_stream *st, const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *p = s;
	size_t n;
	char *o;

	while (plain(*p))
		p++;
	n = (size_t)(p - s);
	if (*p || n + 2 > DJ_BUF) {
		st_put(st, "\"", 1);
		st_string_slow(st, s, s, p);
		return;
	}
	/* All plain, the common case: quote, copy, quote. */
	o = st_room(st, n + 2);
	*o++ = '"';
	memcpy(o, s, n);
	o += n;
	*o++ = '"';
	st_done(st, o);
}

static void st_open(struct dj_sink *s, bool array)
{
	struct dj_stream *st = (struct dj_stream *)s;

	st_value(st);
	*st_room(st, 1) = array ? '[' : '{';
	st->len++;
	if (st->depth >= DJ_DEPTH) {
		st->failed = true;
		return;
	}
	st->depth++;
	st->array[st->depth] = array;
	st->items[st->depth] = false;
}

static void st_close(struct dj_sink *s)
{
	struct dj_stream *st = (struct dj_stream *)s;
	bool array = st->array[st->depth];

	if (!st->depth)
		return;
	if (st->items[st->depth])
		st_newline(st, st->depth - 1);
	st->depth--;
	*st_room(st, 1) = array ? ']' : '}';
	st->len++;
}

static void st_key(struct dj_sink *s, const char *key, size_t len)
{
	struct dj_stream *st = (struct dj_stream *)s;
	size_t n = len < DJ_ROOM - 4 ? len : DJ_ROOM - 4;
	char *o;

	st_item(st);
	o = st_room(st, DJ_ROOM);
	*o++ = '"';
	memcpy(o, key, n);
	o += n;
	*o++ = '"';
	*o++ = ':';
	if (st->indent)
		*o++ = ' ';
	st_done(st, o);
	st->after_key = true;
}

static void st_text(struct dj_sink *s, const char *str)
{
	struct dj_stream *st = (struct dj_stream *)s;

	st_value(st);
	st_string(st, str);
}

static void st_integer(struct dj_sink *s, json_int_t v)
{
	struct dj_stream *st = (struct dj_stream *)s;
	char buf[24], *p = buf + sizeof(buf);
	/* The magnitude, INT64_MIN included, as unsigned. */
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
	size_t n;

	st_value(st);
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	n = (size_t)(buf + sizeof(buf) - p);
	memcpy(st_room(st, sizeof(buf)), p, n);
	st->len += n;
}

static void st_guid(struct dj_sink *s, uint64_t guid)
{
	static const char hex[] = "0123456789abcdef";
	struct dj_stream *st = (struct dj_stream *)s;
	char *o;

	st_value(st);
	o = st_room(st, 20);
	o[0] = '"';
	o[1] = '0';
	o[2] = 'x';
	for (int i = 0; i < 16; i++)
		o[3 + i] = hex[(guid >> (60 - 4 * i)) & 0xf];
	o[19] = '"';
	st_done(st, o + 20);
}

static void st_null(struct dj_sink *s)
{
	struct dj_stream *st = (struct dj_stream *)s;

	st_value(st);
	memcpy(st_room(st, 4), "null", 4);
	st->len += 4;
}

static void st_boolean(struct dj_sink *s, bool v)
{
	struct dj_stream *st = (struct dj_stream *)s;

	st_value(st);
	memcpy(st_room(st, 5), v ? "true" : "false", v ? 4 : 5);
	st->len += v ? 4 : 5;
}

/*
 * A jansson value (the few parts built by other renderers: "cables"), as
 * jansson dumps it on its own, each of its lines indented to the depth it
 * sits at (a string holds no raw newline: jansson escapes it).
 */
static void st_json(struct dj_sink *s, json_t *v)
{
	struct dj_stream *st = (struct dj_stream *)s;
	size_t flags = JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
		       (st->indent ? JSON_INDENT(st->indent) : JSON_COMPACT);
	char *text = v ? json_dumps(v, flags) : NULL;
	const char *p = text, *nl;

	json_decref(v);
	if (!text) {
		st->failed = true;
		return;
	}
	st_value(st);
	while ((nl = strchr(p, '\n'))) {
		st_put(st, p, (size_t)(nl - p));
		st_newline(st, st->depth);	/* its own indent follows, in the text */
		p = nl + 1;
	}
	st_put(st, p, strlen(p));
	free(text);
}

static const struct dj_sink_ops stream_ops = {
	.open = st_open, .close = st_close, .key = st_key, .text = st_text,
	.integer = st_integer, .guid = st_guid, .null = st_null, .boolean = st_boolean,
	.value = st_json,
};

/* ---- the document ---- */

#define K(lit) lit, sizeof(lit) - 1	/* a key literal and its length */

static void key_text(struct dj_sink *s, const char *key, size_t klen, const char *v)
{
	s->ops->key(s, key, klen);
	s->ops->text(s, v);
}

/* "" means unknown: null, so consumers need not special-case it (json_text_or_null()). */
static void key_text_or_null(struct dj_sink *s, const char *key, size_t klen, const char *v)
{
	s->ops->key(s, key, klen);
	if (v && *v)
		s->ops->text(s, v);
	else
		s->ops->null(s);
}

static void key_int(struct dj_sink *s, const char *key, size_t klen, json_int_t v)
{
	s->ops->key(s, key, klen);
	s->ops->integer(s, v);
}

/* An integer when known and not 0, else null. */
static void key_uint_or_null(struct dj_sink *s, const char *key, size_t klen, bool known,
			     unsigned int v)
{
	s->ops->key(s, key, klen);
	if (known && v)
		s->ops->integer(s, v);
	else
		s->ops->null(s);
}

/* An integer when known (0 included), else null. */
static void key_int_or_null(struct dj_sink *s, const char *key, size_t klen, bool known,
			    json_int_t v)
{
	s->ops->key(s, key, klen);
	if (known)
		s->ops->integer(s, v);
	else
		s->ops->null(s);
}

static void key_guid_or_null(struct dj_sink *s, const char *key, size_t klen, uint64_t guid)
{
	s->ops->key(s, key, klen);
	if (guid)
		s->ops->guid(s, guid);
	else
		s->ops->null(s);
}

/* "port": the number, or null for a named port. */
static void key_port(struct dj_sink *s, unsigned int num, const char *name)
{
	s->ops->key(s, K("port"));
	if (*name)
		s->ops->null(s);
	else
		s->ops->integer(s, num);
}

static void sources_doc(struct dj_sink *s, const char *key, size_t klen, unsigned int src)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ TOPO_SRC_SMP, "smp" }, { TOPO_SRC_CACHE, "cache" }, { TOPO_SRC_LLDP, "lldp" },
		{ TOPO_SRC_PLAN, "plan" }, { TOPO_SRC_PROFILE, "profile" }, { TOPO_SRC_LOCAL, "local" },
	};

	s->ops->key(s, key, klen);
	s->ops->open(s, true);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (src & names[i].bit)
			s->ops->text(s, names[i].name);
	s->ops->close(s);
}

static void end_doc(struct dj_sink *s, const struct topo_end *e)
{
	s->ops->open(s, false);
	key_text_or_null(s, K("node"), e->node);
	key_guid_or_null(s, K("guid"), e->guid);
	key_port(s, e->port, e->port_name);
	key_text_or_null(s, K("port_name"), e->port_name);
	s->ops->close(s);
}

static void link_end_doc(struct dj_sink *s, const struct topo_port *p)
{
	const char *sp = topo_speed_name(p->lane_mbps);
	bool st = p->facts & TOPO_F_STATE;

	s->ops->open(s, false);
	key_text(s, K("node"), p->node->name);
	key_guid_or_null(s, K("guid"), p->node->guid);
	key_port(s, p->num, p->name);
	key_text_or_null(s, K("port_name"), p->name);
	key_guid_or_null(s, K("port_guid"), p->guid);
	key_uint_or_null(s, K("lid"), p->facts & TOPO_F_LID, p->lid);
	key_text_or_null(s, K("state"), st ? topo_port_state_name(p->state) : NULL);
	key_text_or_null(s, K("phys_state"), st ? topo_phys_state_name(p->phys_state) : NULL);
	key_uint_or_null(s, K("width_x"), p->facts & TOPO_F_WIDTH, p->width_x);
	key_text_or_null(s, K("speed"), p->facts & TOPO_F_SPEED ? sp : NULL);
	key_uint_or_null(s, K("mtu"), p->facts & TOPO_F_MTU, p->mtu);
	s->ops->key(s, K("counters"));
	if (p->facts & TOPO_F_COUNTERS) {
		s->ops->open(s, false);
		for (int c = 0; c < TOPO_CNT_MAX; c++)
			key_int(s, topo_counter_name(c), strlen(topo_counter_name(c)),
				(json_int_t)p->counters[c]);
		s->ops->close(s);
	} else {
		s->ops->null(s);
	}
	s->ops->close(s);
}

static void node_doc(struct dj_sink *s, const struct topo_node *n)
{
	size_t linked = 0;

	for (size_t j = 0; j < n->n_ports; j++)
		linked += n->ports[j]->peer != NULL;
	s->ops->open(s, false);
	key_text(s, K("name"), n->name);
	key_text(s, K("type"), topo_node_type_name(n->type));
	key_guid_or_null(s, K("guid"), n->guid);
	key_text_or_null(s, K("chassis_id"), n->chassis_id);
	key_uint_or_null(s, K("ports"), true, n->n_ports_max);
	key_int(s, K("linked_ports"), (json_int_t)linked);
	sources_doc(s, K("sources"), n->src);
	s->ops->close(s);
}

static void link_doc(struct dj_sink *s, const struct topo_link *l)
{
	s->ops->open(s, false);
	s->ops->key(s, K("a"));
	link_end_doc(s, l->a);
	s->ops->key(s, K("b"));
	link_end_doc(s, l->b);
	key_text(s, K("status"), topo_link_status_name(l->status));
	sources_doc(s, K("sources"), l->src);
	s->ops->close(s);
}

static void problem_doc(struct dj_sink *s, const struct topo_problem *p)
{
	s->ops->open(s, false);
	key_text(s, K("kind"), topo_problem_kind_name(p->kind));
	s->ops->key(s, K("ports"));
	s->ops->open(s, true);
	if (p->has_a)
		end_doc(s, &p->a);
	if (p->has_b)
		end_doc(s, &p->b);
	s->ops->close(s);
	s->ops->key(s, K("expected"));
	if (p->has_expected)
		end_doc(s, &p->expected);
	else
		s->ops->null(s);
	key_text(s, K("detail"), p->detail);
	s->ops->close(s);
}

/* ---- ib_checks (model/ib_checks.h), only when discover --checks ran ---- */

/* A port as the checks name it: node, its GUID, port number, LID (null when none). */
static void ib_end_doc(struct dj_sink *s, const struct topo_port *p)
{
	s->ops->open(s, false);
	key_text(s, K("node"), p->node->name);
	key_guid_or_null(s, K("guid"), p->node->guid);
	key_port(s, p->num, p->name);
	key_uint_or_null(s, K("lid"), p->facts & TOPO_F_LID, p->lid);
	s->ops->close(s);
}

static void key_ib_end(struct dj_sink *s, const char *key, size_t klen, const struct topo_port *p)
{
	s->ops->key(s, key, klen);
	if (p)
		ib_end_doc(s, p);
	else
		s->ops->null(s);
}

/* A channel: the port it leaves by and the port it enters. */
static void channel_doc(struct dj_sink *s, const struct topo_port *from)
{
	s->ops->open(s, false);
	key_ib_end(s, K("from"), from);
	key_ib_end(s, K("to"), from->peer);
	s->ops->close(s);
}

static void unreach_doc(struct dj_sink *s, const struct ib_unreachable *u)
{
	s->ops->open(s, false);
	key_ib_end(s, K("src"), u->src);
	key_ib_end(s, K("dst"), u->dst);
	key_int(s, K("dlid"), u->dlid);
	s->ops->key(s, K("switch"));
	if (u->sw) {
		s->ops->open(s, false);
		key_text(s, K("node"), u->sw->name);
		key_guid_or_null(s, K("guid"), u->sw->guid);
		s->ops->close(s);
	} else {
		s->ops->null(s);
	}
	key_uint_or_null(s, K("port"), u->sw && u->port != TOPO_LFT_NONE, u->port);
	key_ib_end(s, K("to"), u->to);
	key_text(s, K("reason"), ib_break_name(u->why));
	s->ops->close(s);
}

static void routes_doc(struct dj_sink *s, const struct ib_routes_report *r)
{
	s->ops->open(s, false);
	key_text_or_null(s, K("skipped"), r->skipped);
	key_int(s, K("ca_ports"), (json_int_t)r->n_cas);
	key_int(s, K("lids"), (json_int_t)r->n_lids);
	key_int(s, K("pairs"), (json_int_t)r->n_pairs);
	key_int(s, K("unreachable"), (json_int_t)r->n_unreachable);
	s->ops->key(s, K("unreachable_pairs"));
	s->ops->open(s, true);
	for (size_t i = 0; i < r->n_listed; i++)
		unreach_doc(s, &r->unreach[i]);
	s->ops->close(s);
	s->ops->close(s);
}

/* The per-VL figures (zero, null and [] when the loops were looked for on one VL). */
static void credit_vl_doc(struct dj_sink *s, const struct ib_credit_report *c)
{
	s->ops->key(s, K("by_vl"));
	s->ops->boolean(s, c->by_vl);
	key_int(s, K("sl2vl_tables"), (json_int_t)c->n_tables);
	key_text_or_null(s, K("path_sls"), c->path_sls);
	key_int(s, K("cross_vl_dependencies"), (json_int_t)c->n_cross_deps);
	key_int(s, K("cross_vl_loops"), (json_int_t)c->n_cross_loops);
	key_int(s, K("unmapped_hops"), (json_int_t)c->n_unmapped);
	key_int(s, K("dropped_routes"), (json_int_t)c->n_dropped);
	s->ops->key(s, K("per_vl"));
	s->ops->open(s, true);
	for (size_t i = 0; i < c->n_per_vl; i++) {
		s->ops->open(s, false);
		key_int(s, K("vl"), c->per_vl[i].vl);
		key_int(s, K("channels"), (json_int_t)c->per_vl[i].n_channels);
		key_int(s, K("dependencies"), (json_int_t)c->per_vl[i].n_deps);
		key_int(s, K("loops"), (json_int_t)c->per_vl[i].n_loops);
		s->ops->close(s);
	}
	s->ops->close(s);
}

static void credit_doc(struct dj_sink *s, const struct ib_credit_report *c)
{
	s->ops->open(s, false);
	key_text_or_null(s, K("skipped"), c->skipped);
	key_int(s, K("vls"), c->vls);
	key_int(s, K("channels"), (json_int_t)c->n_channels);
	key_int(s, K("dependencies"), (json_int_t)c->n_deps);
	key_int(s, K("loops"), (json_int_t)c->n_loops);
	credit_vl_doc(s, c);
	s->ops->key(s, K("cycles"));
	s->ops->open(s, true);
	for (size_t i = 0; i < c->n_listed; i++) {
		s->ops->open(s, false);
		key_int(s, K("component"), (json_int_t)c->loops[i].component);
		s->ops->key(s, K("vls"));
		if (c->loops[i].vl) {
			s->ops->open(s, true);
			for (size_t k = 0; k < c->loops[i].n; k++)
				s->ops->integer(s, c->loops[i].vl[k]);
			s->ops->close(s);
		} else {
			s->ops->null(s);
		}
		s->ops->key(s, K("channels"));
		s->ops->open(s, true);
		for (size_t k = 0; k < c->loops[i].n; k++)
			channel_doc(s, c->loops[i].ch[k]);
		s->ops->close(s);
		s->ops->close(s);
	}
	s->ops->close(s);
	s->ops->close(s);
}

static void tier_doc(struct dj_sink *s, const struct ib_tier *tr)
{
	s->ops->open(s, false);
	key_text(s, K("tier"), tr->name);
	key_int(s, K("from_level"), tr->from_level);
	key_int(s, K("to_level"), tr->to_level);
	key_int(s, K("links"), (json_int_t)tr->n_links);
	key_int(s, K("min"), tr->min);
	key_int(s, K("median"), tr->median);
	key_int(s, K("max"), tr->max);
	key_int(s, K("outliers"), (json_int_t)tr->n_outliers);
	s->ops->key(s, K("outlier_links"));
	s->ops->open(s, true);
	for (size_t i = 0; i < tr->n_listed; i++) {
		s->ops->open(s, false);
		key_ib_end(s, K("from"), tr->outliers[i].from);
		key_ib_end(s, K("to"), tr->outliers[i].from->peer);
		key_int(s, K("routes"), tr->outliers[i].routes);
		s->ops->close(s);
	}
	s->ops->close(s);
	s->ops->close(s);
}

static void balance_doc(struct dj_sink *s, const struct ib_balance_report *b)
{
	s->ops->open(s, false);
	key_text_or_null(s, K("skipped"), b->skipped);
	key_int(s, K("factor"), IB_BALANCE_FACTOR);
	s->ops->key(s, K("tiers"));
	s->ops->open(s, true);
	for (size_t i = 0; i < b->n_tiers; i++)
		tier_doc(s, &b->tiers[i]);
	s->ops->close(s);
	s->ops->close(s);
}

static void ids_doc(struct dj_sink *s, const struct ib_ids_report *r)
{
	s->ops->open(s, false);
	key_int(s, K("lids"), (json_int_t)r->n_lids);
	key_int(s, K("lmc_min"), r->lmc_min);
	key_int(s, K("lmc_max"), r->lmc_max);
	key_int(s, K("duplicate_guids"), (json_int_t)r->n_dup_guids);
	key_int(s, K("duplicate_lids"), (json_int_t)r->n_dup_lids);
	key_int(s, K("zero_lids"), (json_int_t)r->n_zero_lids);
	key_int(s, K("unaligned_lids"), (json_int_t)r->n_unaligned);
	s->ops->close(s);
}

static void sm_one_doc(struct dj_sink *s, const struct topo_sm *m, bool master)
{
	s->ops->open(s, false);
	key_ib_end(s, K("port"), m->port);
	key_guid_or_null(s, K("port_guid"), m->port->guid);
	s->ops->key(s, K("answered"));
	s->ops->boolean(s, m->answered);
	key_text_or_null(s, K("state"), m->answered ? topo_sm_state_name(m->state) : NULL);
	key_int_or_null(s, K("priority"), m->answered, m->priority);	/* 0 is a priority */
	key_guid_or_null(s, K("sm_guid"), m->answered ? m->guid : 0);
	key_int_or_null(s, K("act_count"), m->answered, m->act_count);
	s->ops->key(s, K("master"));
	s->ops->boolean(s, master);
	s->ops->close(s);
}

static void sm_doc(struct dj_sink *s, const struct topo *t, const struct ib_sm_report *r)
{
	s->ops->open(s, false);
	key_text_or_null(s, K("skipped"), r->skipped);
	key_int(s, K("masters"), (json_int_t)r->n_masters);
	key_int(s, K("standby"), (json_int_t)r->n_standby);
	key_int(s, K("silent"), (json_int_t)r->n_silent);
	key_int(s, K("ports_naming_another_master"), (json_int_t)r->n_ports_other_sm);
	s->ops->key(s, K("agree"));
	s->ops->boolean(s, r->agree);
	s->ops->key(s, K("sms"));
	s->ops->open(s, true);
	for (size_t i = 0; r->ran && i < t->n_sms; i++)
		sm_one_doc(s, &t->sms[i], &t->sms[i] == r->master);
	s->ops->close(s);
	s->ops->close(s);
}

/* "ib_checks": each family's figures, null for a family not asked. */
static void ib_checks_doc(struct dj_sink *s, const struct topo *t, const struct ib_checks *c)
{
	s->ops->key(s, K("ib_checks"));
	s->ops->open(s, false);
	s->ops->key(s, K("checks"));
	s->ops->open(s, true);
	for (unsigned int f = 1; f <= IB_CHECK_SM; f <<= 1)
		if (c->families & f)
			s->ops->text(s, ib_check_name(f));
	s->ops->close(s);
	s->ops->key(s, K("routes"));
	if (c->families & IB_CHECK_ROUTES)
		routes_doc(s, &c->routes);
	else
		s->ops->null(s);
	s->ops->key(s, K("credit_loops"));
	if (c->families & IB_CHECK_CREDIT)
		credit_doc(s, &c->credit);
	else
		s->ops->null(s);
	s->ops->key(s, K("balance"));
	if (c->families & IB_CHECK_BALANCE)
		balance_doc(s, &c->balance);
	else
		s->ops->null(s);
	s->ops->key(s, K("ids"));
	if (c->families & IB_CHECK_IDS)
		ids_doc(s, &c->ids);
	else
		s->ops->null(s);
	s->ops->key(s, K("sm"));
	if (c->families & IB_CHECK_SM)
		sm_doc(s, t, &c->sm);
	else
		s->ops->null(s);
	s->ops->close(s);
}

static void discover_doc(struct dj_sink *s, const struct topo *t)
{
	size_t n_sw = 0, n_ca = 0, n_host = 0;

	for (size_t i = 0; i < t->n_nodes; i++) {
		n_sw += t->nodes[i]->type == TOPO_NODE_SWITCH;
		n_ca += t->nodes[i]->type == TOPO_NODE_CA;
		n_host += t->nodes[i]->type == TOPO_NODE_HOST;
	}
	s->ops->open(s, false);
	key_text(s, K("schema"), "fabricctl.discover/1");
	sources_doc(s, K("sources"), t->src);
	s->ops->key(s, K("summary"));
	s->ops->open(s, false);
	key_int(s, K("nodes"), (json_int_t)t->n_nodes);
	key_int(s, K("switches"), (json_int_t)n_sw);
	key_int(s, K("cas"), (json_int_t)n_ca);
	key_int(s, K("hosts"), (json_int_t)n_host);
	key_int(s, K("links"), (json_int_t)t->n_links);
	key_int(s, K("problems"), (json_int_t)t->n_problems);
	s->ops->close(s);
	s->ops->key(s, K("nodes"));
	s->ops->open(s, true);
	for (size_t i = 0; i < t->n_nodes; i++)
		node_doc(s, t->nodes[i]);
	s->ops->close(s);
	s->ops->key(s, K("links"));
	s->ops->open(s, true);
	for (size_t i = 0; i < t->n_links; i++)
		link_doc(s, t->links[i]);
	s->ops->close(s);
	s->ops->key(s, K("problems"));
	s->ops->open(s, true);
	for (size_t i = 0; i < t->n_problems; i++)
		problem_doc(s, &t->problems[i]);
	s->ops->close(s);
	if (t->ib_checks)
		ib_checks_doc(s, t, t->ib_checks);
	if (t->optics && t->optics->n_cables) {	/* hosts' cable ends: render/discover_optics.c */
		s->ops->key(s, K("cables"));
		s->ops->value(s, discover_optics_json(t->optics));
	}
	s->ops->close(s);
}

json_t *discover_to_json(const struct topo *t)
{
	struct dj_tree tree = { .base = { &tree_ops } };

	discover_doc(&tree.base, t);
	if (tree.failed) {
		json_decref(tree.root);
		return NULL;
	}
	return tree.root;
}

int discover_json(struct render *out, const struct topo *t)
{
	struct dj_stream *st = calloc(1, sizeof(*st));
	int rc = -EIO;

	if (!st)
		return -ENOMEM;
	st->base.ops = &stream_ops;
	st->f = out->f;
	st->indent = out->pretty ? 2 : 0;
	discover_doc(&st->base, t);
	st_put(st, "\n", 1);
	st_flush(st);
	if (!st->failed)
		rc = 0;
	free(st);
	if (fflush(out->f) == EOF)
		rc = -EIO;
	return rc;
}
