// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "model/yaml_walk.h"
#include "util/str.h"

int yw_err(const struct yaml_walk *w, const yaml_node_t *n, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	str_vfmt(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fab_err_input(w->err, -EINVAL, "%s:%zu:%zu: %s", w->fname,
			     n ? n->start_mark.line + 1 : 1, n ? n->start_mark.column + 1 : 1, msg);
}

yaml_node_t *yw_node(const struct yaml_walk *w, int id)
{
	return yaml_document_get_node(w->doc, id);
}

const char *yw_kind(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

const char *yw_scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

int yw_want(const struct yaml_walk *w, const yaml_node_t *n, yaml_node_type_t t,
	    const char *what)
{
	static const char *const names[] = { "nothing", "a scalar", "a list", "a mapping" };

	if (n->type != t)
		return yw_err(w, n, "%s: expected %s, found %s", what, names[t], yw_kind(n));
	return 0;
}

int yw_str(const struct yaml_walk *w, const yaml_node_t *n, const char *what, char *buf,
	   size_t len)
{
	size_t l;

	if (n->type != YAML_SCALAR_NODE)
		return yw_err(w, n, "%s: expected a string, found %s", what, yw_kind(n));
	l = n->data.scalar.length;
	if (l == 0)
		return yw_err(w, n, "%s: empty", what);
	if (l >= len)
		return yw_err(w, n, "%s: longer than %zu characters", what, len - 1);
	if (memchr(n->data.scalar.value, '\0', l))
		return yw_err(w, n, "%s: contains a NUL byte", what);
	memcpy(buf, n->data.scalar.value, l);
	buf[l] = '\0';
	return 0;
}

/* A quoted scalar is a string: YAML's "9000" is not the number 9000. */
static bool yw_quoted(const yaml_node_t *n)
{
	return n->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
	       n->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
}

int yw_u64(const struct yaml_walk *w, const yaml_node_t *n, const char *what, int base,
	   uint64_t min, uint64_t max, uint64_t *val)
{
	uint64_t v;

	if (n->type != YAML_SCALAR_NODE)
		return yw_err(w, n, "%s: expected a number, found %s", what, yw_kind(n));
	if (yw_quoted(n))
		return yw_err(w, n, "%s: expected a number, found the string \"%.64s\" (write it "
			      "without quotes)", what, yw_scalar(n));
	if (memchr(n->data.scalar.value, '\0', n->data.scalar.length) ||
	    parse_uint(yw_scalar(n), base, &v) < 0)
		return yw_err(w, n, "%s: expected a number, found '%.64s'", what, yw_scalar(n));
	if (v < min || v > max)
		return yw_err(w, n, "%s: %" PRIu64 " out of range %" PRIu64 "..%" PRIu64, what, v,
			      min, max);
	*val = v;
	return 0;
}

int yw_uint(const struct yaml_walk *w, const yaml_node_t *n, const char *what, int base,
	    unsigned int min, unsigned int max, unsigned int *val)
{
	uint64_t v;
	int rc = yw_u64(w, n, what, base, min, max, &v);

	if (rc == 0)
		*val = (unsigned int)v;
	return rc;
}

int yw_bool(const struct yaml_walk *w, const yaml_node_t *n, const char *what, bool *val)
{
	const char *s;

	if (yw_want(w, n, YAML_SCALAR_NODE, what) < 0)
		return -EINVAL;
	s = yw_scalar(n);
	if (yw_quoted(n))
		return yw_err(w, n, "%s: expected true or false, found the string \"%.64s\" (write "
			      "it without quotes)", what, s);
	if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "on"))
		*val = true;
	else if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "off"))
		*val = false;
	else
		return yw_err(w, n, "%s: expected true or false, found '%.64s'", what, s);
	return 0;
}

static bool key_is(const yaml_node_t *k, const char *name)
{
	return k->data.scalar.length == strlen(name) &&
	       memcmp(k->data.scalar.value, name, k->data.scalar.length) == 0;
}

static int key_unknown(const struct yaml_walk *w, const yaml_node_t *k, const char *what,
		       const char *const *keys)
{
	char list[256];
	size_t off = 0;

	list[0] = '\0';
	for (int i = 0; keys[i] && off < sizeof(list); i++)
		off += (size_t)str_fmt(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
				       keys[i]);
	return yw_err(w, k, "%s: unknown key '%.64s' (known: %s)", what, yw_scalar(k), list);
}

int yw_map(const struct yaml_walk *w, const yaml_node_t *n, const char *what,
	   const char *const *keys, yw_pair_cb cb, void *arg)
{
	uint64_t seen = 0;

	if (yw_want(w, n, YAML_MAPPING_NODE, what) < 0)
		return -EINVAL;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yw_node(w, p->key), *v = yw_node(w, p->value);
		int idx = -1, rc;

		if (!k || !v)
			return yw_err(w, n, "%s: malformed mapping", what);
		if (k->type != YAML_SCALAR_NODE)
			return yw_err(w, k, "%s: keys must be scalars", what);
		for (int i = 0; keys[i] && idx < 0; i++)
			if (key_is(k, keys[i]))
				idx = i;
		if (idx < 0 || idx >= 64)
			return key_unknown(w, k, what, keys);
		if (seen & (UINT64_C(1) << idx))
			return yw_err(w, k, "%s: duplicate key '%s'", what, keys[idx]);
		seen |= UINT64_C(1) << idx;
		rc = cb(arg, idx, k, v);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int yw_seq_len(const struct yaml_walk *w, const yaml_node_t *n, const char *what, size_t max,
	       size_t *len)
{
	if (yw_want(w, n, YAML_SEQUENCE_NODE, what) < 0)
		return -EINVAL;
	*len = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
	if (*len > max)
		return yw_err(w, n, "%s: more than %zu items", what, max);
	return 0;
}

yaml_node_t *yw_seq_item(const struct yaml_walk *w, const yaml_node_t *n, size_t i)
{
	return yw_node(w, n->data.sequence.items.start[i]);
}

int yw_load(struct yaml_walk *w, yaml_parser_t *parser, yaml_document_t *doc, const char *buf,
	    size_t len)
{
	int rc;

	if (!yaml_parser_initialize(parser))
		return fab_err_set(w->err, -ENOMEM, "%s: out of memory", w->fname);
	yaml_parser_set_input_string(parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(parser, doc)) {
		rc = parser->error == YAML_MEMORY_ERROR
			? fab_err_set(w->err, -ENOMEM, "%s: out of memory", w->fname)
			: fab_err_input(w->err, -EINVAL, "%s:%zu:%zu: %s", w->fname,
					parser->problem_mark.line + 1, parser->problem_mark.column + 1,
					parser->problem ? parser->problem : "invalid YAML");
		yaml_parser_delete(parser);
		return rc;
	}
	w->doc = doc;
	return 0;
}

void yw_unload(yaml_parser_t *parser, yaml_document_t *doc)
{
	yaml_document_delete(doc);
	yaml_parser_delete(parser);
}
