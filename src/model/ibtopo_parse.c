// SPDX-License-Identifier: GPL-2.0-or-later
/* ibnetdiscover topology files: parser and writer.  See ibtopo_parse.h. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model/ibtopo_parse.h"
#include "util/str.h"

#define IBTOPO_MAX_PORTS 255

struct ibtopo_parser {
	struct topo *t;
	const char *fname;
	unsigned int src;
	struct fab_err *err;
	unsigned int lineno;
	const char *line;		/* start of the current line (for columns) */
	struct topo_node *cur;		/* node whose port lines follow */
	unsigned int cur_nports;
	uint64_t pending_guid;		/* switchguid= / caguid= before a header */
	uint64_t pending_sysimg;
	uint32_t pending_vendid, pending_devid;
};

static int perr(struct ibtopo_parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct ibtopo_parser *ps, const char *at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	str_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fab_err_input(ps->err, -EINVAL, "%s:%u:%u: %s", ps->fname, ps->lineno,
			     (unsigned int)(at - ps->line) + 1, msg);
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* The position after the character @c at @p; NULL (error set) when @p does not hold it. */
static const char *expect_char(struct ibtopo_parser *ps, const char *p, const char *end, char c)
{
	if (p < end && *p == c)
		return p + 1;
	perr(ps, p, "expected '%c'", c);
	return NULL;
}

/* A quoted string at @p: copy into @out, return the position after the closing quote. */
static const char *parse_quoted(struct ibtopo_parser *ps, const char *p, const char *end,
				char *out, size_t out_len)
{
	const char *q;
	size_t n;

	if (!expect_char(ps, p, end, '"'))
		return NULL;
	q = memchr(p + 1, '"', (size_t)(end - p - 1));
	if (!q) {
		perr(ps, p, "unterminated string");
		return NULL;
	}
	n = (size_t)(q - p - 1);
	if (n == 0) {
		perr(ps, p, "empty node id");
		return NULL;
	}
	if (n >= out_len)
		n = out_len - 1;
	memcpy(out, p + 1, n);
	out[n] = '\0';
	return q + 1;
}

/*
 * Scan an unsigned number in @base at @p, up to @end (the buffer is not
 * NUL-terminated): the position past it, or NULL on error (message set).
 */
static const char *scan_uint(struct ibtopo_parser *ps, const char *p, const char *end,
			     int base, uint64_t max, uint64_t *val)
{
	uint64_t v = 0;
	const char *s = p, *digits;

	if (base == 16 && end - p > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	digits = p;
	for (; p < end && isxdigit((unsigned char)*p); p++) {
		unsigned int d;

		if (isdigit((unsigned char)*p))
			d = (unsigned int)(*p - '0');
		else if (base == 16)
			d = (unsigned int)(tolower((unsigned char)*p) - 'a' + 10);
		else
			break;
		if (v > (max - d) / (uint64_t)base) {
			perr(ps, s, "number out of range");
			return NULL;
		}
		v = v * (uint64_t)base + d;
	}
	if (p == digits) {
		perr(ps, s, "expected a number");
		return NULL;
	}
	*val = v;
	return p;
}

/* "S-0000000000200001" -> type and GUID; false for a plain name. */
static bool id_guid(const char *id, enum topo_node_type *type, uint64_t *guid)
{
	char *end;

	if (!(id[0] == 'S' || id[0] == 'H' || id[0] == 'R') || id[1] != '-' || !isxdigit((unsigned char)id[2]))
		return false;
	errno = 0;
	*guid = strtoull(id + 2, &end, 16);
	if (errno || *end || !*guid)
		return false;
	*type = id[0] == 'S' ? TOPO_NODE_SWITCH : id[0] == 'H' ? TOPO_NODE_CA : TOPO_NODE_ROUTER;
	return true;
}

/* The node an id names, created (as @type_hint) when first seen. */
static struct topo_node *node_for_id(struct ibtopo_parser *ps, const char *id,
				     enum topo_node_type type_hint)
{
	enum topo_node_type type = type_hint;
	struct topo_node *n;
	uint64_t guid = 0;
	bool has_guid = id_guid(id, &type, &guid);

	n = has_guid ? topo_node_by_guid(ps->t, guid) : topo_node_by_name(ps->t, id);
	if (n)
		return n;
	n = topo_node_add(ps->t, type, id, guid);
	if (!n) {
		fab_err_set(ps->err, -ENOMEM, "%s: out of memory", ps->fname);
		return NULL;
	}
	n->src |= ps->src;
	return n;
}

/* Find "NxSPEED" (4xQDR) and "lid N" in a comment. */
static void comment_rate(const char *c, const char *end, unsigned int *width_x,
			 unsigned int *lane_mbps)
{
	const char *p = c;

	*width_x = 0;
	*lane_mbps = 0;
	while (p < end) {
		const char *tok = p, *x;
		char speed[16];
		size_t n;

		while (p < end && !isspace((unsigned char)*p))
			p++;
		x = memchr(tok, 'x', (size_t)(p - tok));
		n = x ? (size_t)(p - x - 1) : 0;
		if (x && x > tok && n > 0 && n < sizeof(speed)) {
			bool digits = true;

			for (const char *d = tok; d < x; d++)
				digits &= isdigit((unsigned char)*d) != 0;
			memcpy(speed, x + 1, n);
			speed[n] = '\0';
			if (digits && x - tok <= 2 && topo_speed_parse(speed)) {
				*width_x = (unsigned int)strtoul(tok, NULL, 10);
				*lane_mbps = topo_speed_parse(speed);
			}
		}
		while (p < end && isspace((unsigned char)*p))
			p++;
	}
}

/* First quoted string in a comment, or "" */
static void comment_desc(const char *c, const char *end, char *out, size_t len)
{
	const char *q1 = memchr(c, '"', (size_t)(end - c)), *q2;
	size_t n;

	out[0] = '\0';
	if (!q1)
		return;
	q2 = memchr(q1 + 1, '"', (size_t)(end - q1 - 1));
	if (!q2)
		return;
	n = (size_t)(q2 - q1 - 1);
	if (n >= len)
		n = len - 1;
	memcpy(out, q1 + 1, n);
	out[n] = '\0';
}

static int parse_kv(struct ibtopo_parser *ps, const char *p, const char *end)
{
	const char *eq = memchr(p, '=', (size_t)(end - p)), *v;
	size_t klen = (size_t)(eq - p);
	uint64_t val;

	v = scan_uint(ps, eq + 1, end, 16, UINT64_MAX, &val);
	if (!v)
		return -EINVAL;
	/* switchguid=0x200001(200001): the part in parentheses is the port GUID. */
	if (v < end && *v == '(') {
		const char *c = memchr(v, ')', (size_t)(end - v));

		if (!c)
			return perr(ps, v, "expected ')'");
		v = c + 1;
	}
	v = skip_ws(v, end);
	if (v < end && *v != '#')
		return perr(ps, v, "unexpected text after value");
	if ((klen == 10 && memcmp(p, "switchguid", 10) == 0) ||
	    (klen == 6 && memcmp(p, "caguid", 6) == 0) ||
	    (klen == 10 && memcmp(p, "routerguid", 10) == 0))
		ps->pending_guid = val;
	else if (klen == 10 && memcmp(p, "sysimgguid", 10) == 0)
		ps->pending_sysimg = val;
	else if (klen == 6 && memcmp(p, "vendid", 6) == 0)
		ps->pending_vendid = (uint32_t)val;
	else if (klen == 5 && memcmp(p, "devid", 5) == 0)
		ps->pending_devid = (uint32_t)val;
	/* other keys (ibsim's width=, speed=) are ignored */
	return 0;
}

static int parse_header(struct ibtopo_parser *ps, const char *p, const char *end)
{
	enum topo_node_type type;
	const char *s = p, *word_end;
	char id[128], desc[128];
	struct topo_node *n;
	uint64_t nports, guid;
	enum topo_node_type id_type;

	word_end = p;
	while (word_end < end && isalpha((unsigned char)*word_end))
		word_end++;
	if ((size_t)(word_end - p) == 6 && memcmp(p, "Switch", 6) == 0)
		type = TOPO_NODE_SWITCH;
	else if (((size_t)(word_end - p) == 2 && memcmp(p, "Ca", 2) == 0) ||
		 ((size_t)(word_end - p) == 3 && memcmp(p, "Hca", 3) == 0))
		type = TOPO_NODE_CA;
	else if ((size_t)(word_end - p) == 2 && memcmp(p, "Rt", 2) == 0)
		type = TOPO_NODE_ROUTER;
	else
		return perr(ps, s, "expected Switch, Ca, Hca, Rt, a port line or key=value");
	p = skip_ws(word_end, end);
	p = scan_uint(ps, p, end, 10, IBTOPO_MAX_PORTS, &nports);
	if (!p)
		return -EINVAL;
	if (nports == 0)
		return perr(ps, p - 1, "node with no ports");
	p = skip_ws(p, end);
	s = p;
	p = parse_quoted(ps, p, end, id, sizeof(id));
	if (!p)
		return -EINVAL;
	p = skip_ws(p, end);
	/* ibnetdiscover may print "enhanced port 0 lid ..." only in the comment. */
	if (p < end && *p != '#')
		return perr(ps, p, "unexpected text after node id");
	desc[0] = '\0';
	if (p < end)
		comment_desc(p, end, desc, sizeof(desc));

	if (id_guid(id, &id_type, &guid)) {
		if (id_type != type)
			return perr(ps, s, "node id '%s' does not match its type", id);
	} else {
		guid = ps->pending_guid;
	}
	n = guid ? topo_node_by_guid(ps->t, guid) : NULL;
	if (!n)
		n = node_for_id(ps, id, type);
	if (!n)
		return -ENOMEM;
	if (n->n_ports_max)
		return perr(ps, s, "node '%s' defined twice", id);
	n->type = type;
	n->n_ports_max = (unsigned int)nports;
	if (!n->guid)
		topo_node_set_guid(ps->t, n, guid);
	if (*desc && guid && id_guid(id, &id_type, &guid))
		topo_node_set_name(ps->t, n, desc);
	n->sysimg_guid = ps->pending_sysimg;
	n->vendor_id = ps->pending_vendid;
	n->device_id = ps->pending_devid;
	/* A port that was referenced beyond NumPorts before the header. */
	for (size_t i = 0; i < n->n_ports; i++)
		if (n->ports[i]->num > nports)
			return perr(ps, s, "node '%s' has %" PRIu64 " ports but port %u is linked to it",
				    id, nports, n->ports[i]->num);
	ps->cur = n;
	ps->cur_nports = (unsigned int)nports;
	ps->pending_guid = ps->pending_sysimg = 0;
	ps->pending_vendid = ps->pending_devid = 0;
	return 0;
}

/* "[N]" then optional "(guid)" and "[ext N]". */
static const char *parse_portref(struct ibtopo_parser *ps, const char *p, const char *end,
				 uint64_t *num, uint64_t *guid)
{
	*guid = 0;
	p = expect_char(ps, p, end, '[');
	if (p)
		p = scan_uint(ps, p, end, 10, IBTOPO_MAX_PORTS, num);
	if (p)
		p = expect_char(ps, p, end, ']');
	if (p && p < end && *p == '(') {
		p = scan_uint(ps, p + 1, end, 16, UINT64_MAX, guid);
		if (p)
			p = expect_char(ps, p, end, ')');
	}
	if (!p)
		return NULL;
	if (end - p >= 5 && memcmp(p, "[ext ", 5) == 0) {
		const char *c = memchr(p, ']', (size_t)(end - p));

		if (!c) {
			perr(ps, p, "expected ']'");
			return NULL;
		}
		p = c + 1;
	}
	return p;
}

static int parse_port(struct ibtopo_parser *ps, const char *p, const char *end)
{
	const char *s = p, *rs, *comment = NULL;
	struct topo_port *lp, *rp;
	struct topo_node *rn;
	uint64_t lnum, rnum, lguid, rguid;
	unsigned int width_x, lane_mbps;
	char rid[128], rdesc[128];
	enum topo_node_type rtype;
	uint64_t g;
	int rc;

	if (!ps->cur)
		return perr(ps, p, "port line before any node header");
	p = parse_portref(ps, p, end, &lnum, &lguid);
	if (!p)
		return -EINVAL;
	if (lnum > ps->cur_nports || (lnum == 0 && ps->cur->type != TOPO_NODE_SWITCH))
		return perr(ps, s + 1, "port %" PRIu64 " out of range 1..%u", lnum, ps->cur_nports);
	p = skip_ws(p, end);
	rs = p;
	p = parse_quoted(ps, p, end, rid, sizeof(rid));
	if (!p)
		return -EINVAL;
	p = parse_portref(ps, p, end, &rnum, &rguid);
	if (!p)
		return -EINVAL;
	/* Trailing ibsim options (w=1 s=4 e=0) and a comment. */
	for (;;) {
		const char *tok;

		p = skip_ws(p, end);
		if (p >= end)
			break;
		if (*p == '#') {
			comment = p;
			break;
		}
		tok = p;
		while (p < end && !isspace((unsigned char)*p))
			p++;
		if (!memchr(tok, '=', (size_t)(p - tok)))
			return perr(ps, tok, "unexpected text after remote port");
	}
	rdesc[0] = '\0';
	width_x = lane_mbps = 0;
	if (comment) {
		comment_desc(comment, end, rdesc, sizeof(rdesc));
		comment_rate(comment, end, &width_x, &lane_mbps);
	}
	rtype = TOPO_NODE_CA;
	rn = node_for_id(ps, rid, rtype);
	if (!rn)
		return -ENOMEM;
	if (rn == ps->cur && rnum == lnum)
		return perr(ps, rs, "port %" PRIu64 " linked to itself", lnum);
	if (rn->n_ports_max && rnum > rn->n_ports_max)
		return perr(ps, rs, "'%s' has no port %" PRIu64, rid, rnum);
	if (rnum == 0 && rn->type != TOPO_NODE_SWITCH)
		return perr(ps, rs, "'%s' has no port 0", rid);
	/* A GUID id seen first as a remote gets its description as name. */
	if (*rdesc && !rn->n_ports_max && id_guid(rid, &rtype, &g) && strcmp(rn->name, rid) == 0)
		topo_node_set_name(ps->t, rn, rdesc);
	lp = topo_port_get(ps->cur, (unsigned int)lnum, NULL);
	rp = topo_port_get(rn, (unsigned int)rnum, NULL);
	if (!lp || !rp)
		return fab_err_set(ps->err, -ENOMEM, "%s: out of memory", ps->fname);
	lp->src |= ps->src;
	rp->src |= ps->src;
	if (lguid)
		lp->guid = lguid;
	if (rguid)
		rp->guid = rguid;
	if (width_x && lane_mbps) {
		lp->width_x = rp->width_x = width_x;
		lp->lane_mbps = rp->lane_mbps = lane_mbps;
		lp->facts |= TOPO_F_WIDTH | TOPO_F_SPEED;
		rp->facts |= TOPO_F_WIDTH | TOPO_F_SPEED;
	}
	rc = topo_link_add(ps->t, lp, rp, ps->src);
	if (rc == -EEXIST) {
		const struct topo_port *other = lp->peer && lp->peer != rp ? lp->peer : rp->peer;
		const struct topo_port *mine = lp->peer && lp->peer != rp ? lp : rp;

		return perr(ps, s, "'%s'[%u] is already linked to '%s'[%u]", mine->node->name,
			    mine->num, other->node->name, other->num);
	}
	if (rc < 0)
		return fab_err_set(ps->err, rc, "%s: out of memory", ps->fname);
	return 0;
}

static int parse_line(struct ibtopo_parser *ps, const char *p, const char *end)
{
	p = skip_ws(p, end);
	if (p >= end || *p == '#')
		return 0;
	if (*p == '[')
		return parse_port(ps, p, end);
	if (isalpha((unsigned char)*p)) {
		const char *q = p;

		while (q < end && (isalnum((unsigned char)*q) || *q == '_'))
			q++;
		if (q < end && *q == '=')
			return parse_kv(ps, p, end);
		return parse_header(ps, p, end);
	}
	return perr(ps, p, "expected a node header, a port line or key=value");
}

int ibtopo_parse(struct topo *t, const char *buf, size_t len, const char *fname,
		 unsigned int src, struct fab_err *err)
{
	struct ibtopo_parser ps = {
		.t = t, .fname = fname ? fname : "-", .src = src, .err = err,
	};
	const char *p = buf, *end = buf + len;
	int rc = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		ps.lineno++;
		ps.line = p;
		if (memchr(p, '\0', (size_t)(le - p))) {
			rc = perr(&ps, (const char *)memchr(p, '\0', (size_t)(le - p)), "NUL byte");
			break;
		}
		rc = parse_line(&ps, p, le);
		if (rc < 0)
			break;
		p = nl ? nl + 1 : end;
	}
	/* Nodes only ever named as a remote end keep their id as name. */
	if (rc == 0)
		t->src |= src;
	return rc;
}

/* ---- writer ---- */

static void write_id(struct strbuf *sb, const struct topo_node *n)
{
	if (!n->guid)
		strbuf_addf(sb, "\"%s\"", n->name);
	else
		strbuf_addf(sb, "\"%c-%016" PRIx64 "\"",
			n->type == TOPO_NODE_SWITCH ? 'S' : n->type == TOPO_NODE_ROUTER ? 'R' : 'H',
			n->guid);
}

static void write_rate(struct strbuf *sb, const struct topo_port *p)
{
	const char *sp = topo_speed_name(p->lane_mbps);

	if ((p->facts & TOPO_F_WIDTH) && (p->facts & TOPO_F_SPEED) && p->width_x && sp)
		strbuf_addf(sb, " %ux%s", p->width_x, sp);
}

static const struct topo_port *switch_port0(const struct topo_node *n)
{
	return topo_port_find(n, 0, NULL);
}

static void write_node(struct strbuf *sb, const struct topo_node *n)
{
	const struct topo_port *p0 = switch_port0(n);
	unsigned int nports = n->n_ports_max;
	const char *kind = n->type == TOPO_NODE_SWITCH ? "Switch" :
			   n->type == TOPO_NODE_ROUTER ? "Rt" : "Ca";
	const char *gkey = n->type == TOPO_NODE_SWITCH ? "switchguid" :
			   n->type == TOPO_NODE_ROUTER ? "routerguid" : "caguid";

	for (size_t i = 0; i < n->n_ports; i++)
		if (n->ports[i]->num > nports)
			nports = n->ports[i]->num;
	strbuf_addf(sb, "vendid=0x%" PRIx32 "\ndevid=0x%" PRIx32 "\n", n->vendor_id, n->device_id);
	if (n->guid) {
		strbuf_addf(sb, "sysimgguid=0x%" PRIx64 "\n", n->sysimg_guid);
		if (n->type == TOPO_NODE_SWITCH)
			strbuf_addf(sb, "%s=0x%" PRIx64 "(%" PRIx64 ")\n", gkey, n->guid,
				p0 && p0->guid ? p0->guid : n->guid);
		else
			strbuf_addf(sb, "%s=0x%" PRIx64 "\n", gkey, n->guid);
	}
	strbuf_addf(sb, "%s\t%u ", kind, nports);
	write_id(sb, n);
	strbuf_addf(sb, "\t\t# \"%s\"", n->name);
	if (n->type == TOPO_NODE_SWITCH)
		strbuf_addf(sb, " base port 0 lid %u lmc 0", p0 ? p0->lid : 0);
	strbuf_addc(sb, '\n');
	for (size_t i = 0; i < n->n_ports; i++) {
		const struct topo_port *p = n->ports[i], *r = p->peer;

		if (!r)
			continue;
		strbuf_addf(sb, "[%u]", p->num);
		if (n->type != TOPO_NODE_SWITCH && p->guid)
			strbuf_addf(sb, "(%" PRIx64 ")", p->guid);
		strbuf_addc(sb, '\t');
		write_id(sb, r->node);
		strbuf_addf(sb, "[%u]", r->num);
		if (r->node->type != TOPO_NODE_SWITCH && r->guid)
			strbuf_addf(sb, "(%" PRIx64 ")", r->guid);
		strbuf_addf(sb, "\t\t# ");
		if (n->type != TOPO_NODE_SWITCH)
			strbuf_addf(sb, "lid %u lmc 0 ", p->lid);
		strbuf_addf(sb, "\"%s\" lid %u", r->node->name,
			r->node->type == TOPO_NODE_SWITCH && switch_port0(r->node) ?
			switch_port0(r->node)->lid : r->lid);
		write_rate(sb, p);
		strbuf_addc(sb, '\n');
	}
	strbuf_addc(sb, '\n');
}

int ibtopo_format(const struct topo *t, struct strbuf *sb)
{
	strbuf_addf(sb, "#\n# Topology file: generated by fabricctl\n#\n\n");
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < t->n_nodes; i++) {
			const struct topo_node *n = t->nodes[i];

			if ((n->type == TOPO_NODE_SWITCH) != (pass == 0) || !n->n_ports)
				continue;
			write_node(sb, n);
		}
	return sb->failed ? -ENOMEM : 0;
}
