// SPDX-License-Identifier: GPL-2.0-or-later
/* Hosts-file and pairs-file parsers (pure, no I/O; fuzzed by tests/fuzz/fuzz_hosts.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/hosts.h"
#include "util/str.h"

#define HOSTS_MAX 65536
/* field_shown()'s buffer: 64 bytes, each at most \xNN. */
#define FIELD_SHOWN_MAX (64 * 4 + 1)

/* One whitespace-separated field of a line. */
struct field {
	const char *s;
	size_t len;
	size_t col;	/* 1-based */
};

void hosts_init(struct fab_hosts *hs)
{
	hs->hosts = NULL;
	hs->n = 0;
}

void hosts_fini(struct fab_hosts *hs)
{
	free(hs->hosts);
	hosts_init(hs);
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-' || c == '@';
}

bool hosts_name_valid(const char *name)
{
	if (!*name || *name == '-')
		return false;
	for (const char *p = name; *p; p++)
		if (!name_char(*p))
			return false;
	return true;
}

/* A label value's characters: a name's, and '/', ':' and ',' (paths, DEV:PORT, lists). */
static bool label_char(char c)
{
	return name_char(c) || c == '/' || c == ':' || c == ',';
}

/*
 * Up to 64 bytes of a field as an error message may show it: control
 * characters as \xNN (util/str.c), so a hosts file cannot write escape
 * sequences to the terminal through its own error.
 */
static const char *field_shown(const struct field *f, char *buf, size_t len)
{
	str_clean(f->s, f->len > 64 ? 64 : f->len, buf, len);
	return buf;
}

bool hosts_is_endpoint(const struct fab_host *h)
{
	for (size_t i = 0; i < h->n_labels; i++)
		if (strcmp(h->labels[i].key, "role") == 0)
			return strcmp(h->labels[i].value, "host") == 0;
	return true;
}

int hosts_split_role(const struct fab_hosts *all, struct fab_hosts *ends, struct fab_hosts *fabric)
{
	size_t ne = 0, nf = 0;

	for (size_t i = 0; i < all->n; i++)	/* each list its own size (a host is ~2 KB) */
		ne += hosts_is_endpoint(&all->hosts[i]);
	ends->hosts = calloc(ne ? ne : 1, sizeof(*ends->hosts));
	fabric->hosts = calloc(all->n - ne ? all->n - ne : 1, sizeof(*fabric->hosts));
	ne = 0;
	if (!ends->hosts || !fabric->hosts) {
		hosts_fini(ends);
		hosts_fini(fabric);
		return -ENOMEM;
	}
	for (size_t i = 0; i < all->n; i++) {
		if (hosts_is_endpoint(&all->hosts[i]))
			ends->hosts[ne++] = all->hosts[i];
		else
			fabric->hosts[nf++] = all->hosts[i];
	}
	ends->n = ne;
	fabric->n = nf;
	return 0;
}


/*
 * Split @line (without newline) into fields, dropping a trailing comment.
 * Returns the number of fields (at most @max; -E2BIG when more).
 */
static int split_fields(const char *line, size_t len, struct field *f, int max)
{
	int n = 0;
	size_t i = 0;

	while (i < len) {
		size_t start;

		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i >= len || line[i] == '#')
			break;
		start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' &&
		       line[i] != '#')
			i++;
		if (n == max)
			return -E2BIG;
		f[n].s = line + start;
		f[n].len = i - start;
		f[n].col = start + 1;
		n++;
	}
	return n;
}

static int copy_field(char *dst, size_t size, const struct field *f)
{
	if (f->len >= size)
		return -ENAMETOOLONG;
	memcpy(dst, f->s, f->len);
	dst[f->len] = '\0';
	return 0;
}

static bool has_nul(const char *s, size_t len)
{
	return memchr(s, '\0', len) != NULL;
}

static int host_label_parse(struct fab_host *h, const struct field *f, const char *fname,
		      unsigned int lineno, struct fab_err *err)
{
	const char *eq = memchr(f->s, '=', f->len);
	struct fab_label *l;
	char shown[FIELD_SHOWN_MAX];
	size_t klen = eq ? (size_t)(eq - f->s) : f->len;
	size_t vlen = eq ? f->len - klen - 1 : 0;
	char *colon;

	if (h->n_labels == FAB_HOST_LABELS_MAX)
		return fab_err_input(err, -E2BIG, "%s:%u:%zu: more than %d labels",
				     fname, lineno, f->col, FAB_HOST_LABELS_MAX);
	if (klen == 0 || klen >= sizeof(l->key))
		return fab_err_input(err, -EINVAL, "%s:%u:%zu: bad label '%s': want key=value",
				     fname, lineno, f->col, field_shown(f, shown, sizeof(shown)));
	if (vlen >= sizeof(l->value))
		return fab_err_input(err, -ENAMETOOLONG, "%s:%u:%zu: label value too long",
				     fname, lineno, f->col + klen + 1);
	l = &h->labels[h->n_labels];
	memcpy(l->key, f->s, klen);
	l->key[klen] = '\0';
	if (eq)
		memcpy(l->value, eq + 1, vlen);
	l->value[vlen] = '\0';
	for (const char *p = l->key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return fab_err_input(err, -EINVAL, "%s:%u:%zu: bad label key '%s': want lowercase letters, digits and '_' (e.g. leaf=, rate_gbps=)",
					     fname, lineno, f->col,
					     field_shown(&(struct field){ f->s, klen, f->col }, shown,
							 sizeof(shown)));
	/* Values as names are: they reach reports, documents and terminals as they are. */
	for (size_t i = 0; i < vlen; i++)
		if (!label_char(l->value[i])) {
			char c[8];

			str_clean(&l->value[i], 1, c, sizeof(c));
			if (c[0] != '\\' && ((unsigned char)c[0] >= 0x80 || c[0] == ' '))
				str_fmt(c, sizeof(c), "\\x%02x", (unsigned char)l->value[i]);
			return fab_err_input(err, -EINVAL, "%s:%u:%zu: label '%s': bad character '%s' in its value: want letters, digits, '.', '_', '-', '@', '/', ':' or ','",
					     fname, lineno, f->col + klen + 1 + i, l->key, c);
		}
	for (size_t i = 0; i < h->n_labels; i++)
		if (strcmp(h->labels[i].key, l->key) == 0)
			return fab_err_input(err, -EEXIST, "%s:%u:%zu: label '%s' given twice",
					     fname, lineno, f->col, l->key);
	if (!eq && strcmp(l->key, "new") != 0)
		return fab_err_input(err, -EINVAL, "%s:%u:%zu: label '%s' needs a value (key=value)",
				     fname, lineno, f->col, l->key);
	if (strcmp(l->key, "new") == 0) {
		if (!eq || !strcmp(l->value, "yes") || !strcmp(l->value, "1") ||
		    !strcmp(l->value, "true"))
			h->is_new = true;
		else if (!strcmp(l->value, "no") || !strcmp(l->value, "0") ||
			 !strcmp(l->value, "false"))
			h->is_new = false;
		else
			return fab_err_input(err, -EINVAL, "%s:%u:%zu: new=%s: want yes or no",
					     fname, lineno, f->col + 4, l->value);
	} else if (strcmp(l->key, "rdma") == 0) {
		if (!*l->value)
			return fab_err_input(err, -EINVAL, "%s:%u:%zu: empty rdma device",
					     fname, lineno, f->col + 5);
		str_fmt(h->rdma, sizeof(h->rdma), "%s", l->value);
		colon = strchr(h->rdma, ':');
		if (colon) {
			uint64_t port;

			*colon = '\0';
			if (parse_uint(colon + 1, 10, &port) < 0 || !port || port > 255 || !*h->rdma)
				return fab_err_input(err, -EINVAL, "%s:%u:%zu: rdma=%s: want DEV or DEV:PORT",
						     fname, lineno, f->col + 5, l->value);
			h->rdma_port = (unsigned int)port;
		}
	} else if (strcmp(l->key, "ifname") == 0) {
		if (!*l->value || vlen >= sizeof(h->nic) || strpbrk(l->value, "/:,"))
			return fab_err_input(err, -EINVAL, "%s:%u:%zu: ifname=%s: want an interface name (at most %d characters, no '/', ':' or ',')",
					     fname, lineno, f->col + 7, l->value, FAB_HOST_NIC_MAX - 1);
		str_fmt(h->nic, sizeof(h->nic), "%s", l->value);
	} else if (strcmp(l->key, "rail") == 0) {
		uint64_t rail;

		if (parse_uint(l->value, 10, &rail) < 0 || rail > FAB_HOST_RAIL_MAX)
			return fab_err_input(err, -EINVAL, "%s:%u:%zu: rail=%s: want a rail number 0..%d",
					     fname, lineno, f->col + 5, l->value, FAB_HOST_RAIL_MAX);
		h->rail = (int)rail;
	} else if (strcmp(l->key, "leaf") == 0) {
		str_fmt(h->leaf, sizeof(h->leaf), "%.31s", l->value);
	} else if (strcmp(l->key, "rack") == 0) {
		str_fmt(h->rack, sizeof(h->rack), "%.31s", l->value);
	} else if (strcmp(l->key, "rate_gbps") == 0) {
		char *end;

		errno = 0;
		h->rate_gbps = strtod(l->value, &end);
		if (errno || end == l->value || *end || !isfinite(h->rate_gbps) ||
		    h->rate_gbps <= 0 || h->rate_gbps > 1e6)
			return fab_err_input(err, -EINVAL, "%s:%u:%zu: rate_gbps=%s: want a positive number",
					     fname, lineno, f->col + 10, l->value);
	}
	h->n_labels++;
	return 0;
}

const char *hosts_addr_unusable(const char *addr)
{
	static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const uint8_t zero[16];
	uint8_t b[16];

	if (inet_pton(AF_INET6, addr, b) == 1) {
		if (memcmp(b, v4mapped, sizeof(v4mapped)) != 0) {
			if (memcmp(b, zero, sizeof(zero)) == 0)
				return "the wildcard address (::)";
			if (b[0] == 0xff)
				return "a multicast address";
			return NULL;
		}
		memmove(b, b + 12, 4);	/* ::ffff:a.b.c.d: judged as IPv4 */
	} else if (inet_pton(AF_INET, addr, b) != 1) {
		return "not an IPv4 or IPv6 address";
	}
	if (b[0] == 0)
		return "a wildcard address (0.0.0.0/8)";
	if (b[0] >= 224 && b[0] <= 239)
		return "a multicast address";
	if (b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255)
		return "the broadcast address";
	if (b[0] >= 240)
		return "a reserved address (240.0.0.0/4)";
	return NULL;
}

/*
 * A NAME given again is another fabric port of that node: both lines
 * (every line of it) name their ifname=, each a different one.
 */
static int host_repeat_check(const struct fab_hosts *hs, const struct fab_host *h,
			     const char *fname, size_t col, struct fab_err *err)
{
	int first = hosts_find_node(hs, h->node);

	if (first < 0)
		return 0;
	if (!h->nic[0] || !hs->hosts[first].nic[0])
		return fab_err_input(err, -EEXIST, "%s:%u:%zu: host '%s' listed twice (first at line %u)%s",
				     fname, h->line, col, h->node, hs->hosts[first].line,
				     h->nic[0] || hs->hosts[first].nic[0] ?
				     ": a host of several fabric ports names each one's ifname= on its line" : "");
	for (size_t i = (size_t)first; i < hs->n; i++)
		if (strcmp(hs->hosts[i].node, h->node) == 0 && strcmp(hs->hosts[i].nic, h->nic) == 0)
			return fab_err_input(err, -EEXIST, "%s:%u:%zu: host '%s': ifname '%s' listed twice (first at line %u)",
					     fname, h->line, col, h->node, h->nic, hs->hosts[i].line);
	return 0;
}

static int host_line(struct fab_hosts *hs, const char *line, size_t len, const char *fname,
		     unsigned int lineno, struct fab_err *err)
{
	struct field f[2 + FAB_HOST_LABELS_MAX];
	struct fab_host *h, *tmp;
	char shown[FIELD_SHOWN_MAX];
	unsigned char addrbuf[16];
	const char *what;
	int n, rc;

	if (has_nul(line, len))
		return fab_err_input(err, -EINVAL, "%s:%u: NUL byte in line", fname, lineno);
	n = split_fields(line, len, f, 2 + FAB_HOST_LABELS_MAX);
	if (n == -E2BIG)
		return fab_err_input(err, -E2BIG, "%s:%u: more than %d labels", fname, lineno,
				     FAB_HOST_LABELS_MAX);
	if (n == 0)
		return 0;
	if (n < 2)
		return fab_err_input(err, -EINVAL, "%s:%u:%zu: missing address: want NAME ADDRESS [key=value ...]",
				     fname, lineno, f[0].col + f[0].len);
	if (hs->n == HOSTS_MAX)
		return fab_err_input(err, -E2BIG, "%s:%u: more than %d hosts", fname, lineno, HOSTS_MAX);
	tmp = realloc(hs->hosts, (hs->n + 1) * sizeof(*hs->hosts));
	if (!tmp)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", fname);
	hs->hosts = tmp;
	h = &hs->hosts[hs->n];
	memset(h, 0, sizeof(*h));
	h->line = lineno;
	if (copy_field(h->name, sizeof(h->name), &f[0]) < 0 || !hosts_name_valid(h->name))
		return fab_err_input(err, -EINVAL, "%s:%u:%zu: bad host name '%s': want letters, digits, '.', '_', '-' or '@', not starting with '-'", fname, lineno,
				     f[0].col, field_shown(&f[0], shown, sizeof(shown)));
	str_fmt(h->node, sizeof(h->node), "%s", h->name);
	h->rail = -1;
	if (copy_field(h->addr, sizeof(h->addr), &f[1]) < 0 ||
	    (inet_pton(AF_INET, h->addr, addrbuf) != 1 && inet_pton(AF_INET6, h->addr, addrbuf) != 1))
		return fab_err_input(err, -EINVAL, "%s:%u:%zu: bad address '%s': want an IPv4 or IPv6 address",
				     fname, lineno, f[1].col, field_shown(&f[1], shown, sizeof(shown)));
	what = hosts_addr_unusable(h->addr);
	if (what)
		return fab_err_input(err, -EINVAL, "%s:%u:%zu: address '%s' is %s: want this node's own unicast address",
				     fname, lineno, f[1].col, h->addr, what);
	for (int i = 2; i < n; i++) {
		rc = host_label_parse(h, &f[i], fname, lineno, err);
		if (rc < 0)
			return rc;
	}
	rc = host_repeat_check(hs, h, fname, f[0].col, err);
	if (rc < 0)
		return rc;
	hs->n++;
	return 0;
}

/* The next line of @buf from *@off (without its newline); NULL at the end. */
static const char *next_line(const char *buf, size_t len, size_t *off, size_t *llen)
{
	const char *line, *nl;

	if (*off >= len)
		return NULL;
	line = buf + *off;
	nl = memchr(line, '\n', len - *off);
	*llen = nl ? (size_t)(nl - line) : len - *off;
	*off += *llen + (nl ? 1 : 0);
	return line;
}

struct addr_key {
	unsigned char b[16];	/* IPv6, or IPv4 as ::ffff:a.b.c.d */
	size_t i;		/* host index */
};

static void addr_key(const char *addr, unsigned char b[16])
{
	memset(b, 0, 16);
	if (inet_pton(AF_INET6, addr, b) == 1)
		return;
	b[10] = b[11] = 0xff;
	inet_pton(AF_INET, addr, b + 12);
}

static int addr_key_cmp(const void *x, const void *y)
{
	const struct addr_key *a = x, *b = y;
	int c = memcmp(a->b, b->b, 16);

	return c ? c : (a->i > b->i) - (a->i < b->i);
}

/*
 * Every node is reached, and listens, at its own address: two hosts with
 * one address would meet as `bind: Cannot assign requested address` on
 * one of them, its link blamed.  Names the later line and the first.
 */
static int hosts_addr_unique(const struct fab_hosts *hs, const char *fname, struct fab_err *err)
{
	struct addr_key *k = calloc(hs->n, sizeof(*k));
	const struct fab_host *first = NULL, *dup = NULL;

	if (!k)
		return fab_err_set(err, -ENOMEM, "%s: out of memory", fname);
	for (size_t i = 0; i < hs->n; i++) {
		addr_key(hs->hosts[i].addr, k[i].b);
		k[i].i = i;
	}
	qsort(k, hs->n, sizeof(*k), addr_key_cmp);
	/* Of all duplicates, report the one on the earliest line. */
	for (size_t i = 1; i < hs->n; i++)
		if (memcmp(k[i - 1].b, k[i].b, 16) == 0 &&
		    (!dup || hs->hosts[k[i].i].line < dup->line)) {
			size_t j = i - 1;

			while (j > 0 && memcmp(k[j - 1].b, k[i].b, 16) == 0)
				j--;
			first = &hs->hosts[k[j].i];
			dup = &hs->hosts[k[i].i];
		}
	free(k);
	if (!dup)
		return 0;
	return fab_err_input(err, -EEXIST, "%s:%u: host '%s' has the same address as host '%s' "
			     "on line %u (%s): want each node's own address", fname, dup->line,
			     dup->name, first->name, first->line, first->addr);
}

int hosts_parse(struct fab_hosts *hs, const char *buf, size_t len, const char *fname,
		struct fab_err *err)
{
	unsigned int lineno = 0;
	size_t off = 0, llen;
	const char *line;
	int rc;

	while ((line = next_line(buf, len, &off, &llen))) {
		lineno++;
		rc = host_line(hs, line, llen, fname, lineno, err);
		if (rc < 0)
			return rc;
	}
	if (hs->n == 0)
		return fab_err_input(err, -ENOENT, "%s: no hosts", fname);
	rc = hosts_addr_unique(hs, fname, err);
	return rc < 0 ? rc : hosts_ports_finish(hs, fname, err);
}

void hosts_pairs_fini(struct fab_pairs_list *pl)
{
	free(pl->pairs);
	pl->pairs = NULL;
	pl->n = 0;
}

int hosts_pairs_parse(struct fab_pairs_list *pl, const struct fab_hosts *hs,
		      const char *buf, size_t len, const char *fname, struct fab_err *err)
{
	unsigned int lineno = 0, *lines = NULL;	/* the line of each pair, for messages */
	size_t off = 0, llen;
	const char *line;
	int rc = 0;

	pl->pairs = NULL;
	pl->n = 0;
	while ((line = next_line(buf, len, &off, &llen))) {
		struct field f[3];
		char name[2][FAB_HOST_NAME_MAX];
		int idx[2], n;
		unsigned int (*tmp)[2], *lt;

		lineno++;
		if (has_nul(line, llen)) {
			rc = fab_err_input(err, -EINVAL, "%s:%u: NUL byte in line", fname, lineno);
			goto out;
		}
		n = split_fields(line, llen, f, 3);
		if (n == 0)
			continue;
		if (n != 2) {
			rc = fab_err_input(err, -EINVAL, "%s:%u: want two host names", fname, lineno);
			goto out;
		}
		for (int i = 0; i < 2; i++) {
			if (copy_field(name[i], sizeof(name[i]), &f[i]) < 0 ||
			    (idx[i] = hosts_find(hs, name[i])) < 0) {
				char shown[FIELD_SHOWN_MAX];
				int node = f[i].len < sizeof(name[i]) ? hosts_find_node(hs, name[i]) : -1;

				if (node >= 0)
					rc = fab_err_input(err, -ENOENT, "%s:%u:%zu: '%s' is a host of several fabric ports: name one of them (%s)",
							     fname, lineno, f[i].col, name[i], hs->hosts[node].name);
				else
					rc = fab_err_input(err, -ENOENT, "%s:%u:%zu: '%s' is not in the hosts file",
							     fname, lineno, f[i].col,
							     field_shown(&f[i], shown, sizeof(shown)));
				goto out;
			}
		}
		if (idx[0] == idx[1]) {
			rc = fab_err_input(err, -EINVAL, "%s:%u:%zu: a pair needs two different hosts",
					     fname, lineno, f[1].col);
			goto out;
		}
		for (size_t i = 0; i < pl->n; i++)
			if ((pl->pairs[i][0] == (unsigned int)idx[0] && pl->pairs[i][1] == (unsigned int)idx[1]) ||
			    (pl->pairs[i][0] == (unsigned int)idx[1] && pl->pairs[i][1] == (unsigned int)idx[0])) {
				rc = fab_err_input(err, -EEXIST, "%s:%u: pair %s %s listed twice (first at line %u)",
						     fname, lineno, name[0], name[1], lines[i]);
				goto out;
			}
		if (pl->n >= (size_t)HOSTS_MAX * 4) {
			rc = fab_err_input(err, -E2BIG, "%s:%u: too many pairs", fname, lineno);
			goto out;
		}
		tmp = realloc(pl->pairs, (pl->n + 1) * sizeof(*pl->pairs));
		if (!tmp) {
			rc = fab_err_set(err, -ENOMEM, "%s: out of memory", fname);
			goto out;
		}
		pl->pairs = tmp;
		lt = realloc(lines, (pl->n + 1) * sizeof(*lines));
		if (!lt) {
			rc = fab_err_set(err, -ENOMEM, "%s: out of memory", fname);
			goto out;
		}
		lines = lt;
		lines[pl->n] = lineno;
		pl->pairs[pl->n][0] = (unsigned int)idx[0];
		pl->pairs[pl->n][1] = (unsigned int)idx[1];
		pl->n++;
	}
	if (pl->n == 0)
		rc = fab_err_input(err, -ENOENT, "%s: no pairs", fname);
out:
	free(lines);
	return rc;
}
