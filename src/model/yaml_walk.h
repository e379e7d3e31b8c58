/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one YAML walker: reading typed values out of a libyaml document
 * (the document API: yaml_parser_load), for profiles (model/profile.c)
 * and cabling plans (model/plan_yaml.c).  Every error is bad input,
 * -EINVAL, "FILE:LINE:COL: WHAT: message" in the walk's fab_err, worded
 * the same for both:
 *
 *   WHAT: expected a list, found a mapping     (a scalar, a list, a mapping, nothing)
 *   WHAT: expected a string, found a list
 *   WHAT: expected a number, found 'big'
 *   WHAT: 70000 out of range 68..65535
 *   WHAT: expected true or false, found 'maybe'
 *   WHAT: empty / longer than N characters / contains a NUL byte
 *   WHAT: unknown key 'x' (known: a, b) / duplicate key 'a' / keys must be scalars
 *
 * Pure: reads a document the caller owns.
 */
#ifndef FAB_MODEL_YAML_WALK_H
#define FAB_MODEL_YAML_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "util/err.h"

struct yaml_walk {
	yaml_document_t *doc;	/* borrowed */
	const char *fname;	/* for messages */
	struct fab_err *err;
};

/*
 * Parse @buf (one YAML document) with the caller's @parser into @doc and
 * point w->doc at it: 0, or -ENOMEM / bad input "FILE:LINE:COL: problem"
 * with nothing left to release.  On 0, yw_unload() releases both.
 */
int yw_load(struct yaml_walk *w, yaml_parser_t *parser, yaml_document_t *doc, const char *buf,
	    size_t len);
void yw_unload(yaml_parser_t *parser, yaml_document_t *doc);

/* Bad input at @n (NULL: 1:1): "FILE:LINE:COL: message"; returns -EINVAL. */
int yw_err(const struct yaml_walk *w, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Node @id of the document (NULL when there is none). */
yaml_node_t *yw_node(const struct yaml_walk *w, int id);
/* "a scalar", "a list", "a mapping" or "nothing". */
const char *yw_kind(const yaml_node_t *n);
/* A scalar's text (NUL-terminated by libyaml). */
const char *yw_scalar(const yaml_node_t *n);

/* @n is of type @t, else "WHAT: expected a list, found a scalar". */
int yw_want(const struct yaml_walk *w, const yaml_node_t *n, yaml_node_type_t t,
	    const char *what);
/* A non-empty string scalar shorter than @len, copied into @buf. */
int yw_str(const struct yaml_walk *w, const yaml_node_t *n, const char *what, char *buf,
	   size_t len);
/* An unsigned number in [@min, @max]; @base 10 (decimal only) or 0 (also 0x hex). */
int yw_u64(const struct yaml_walk *w, const yaml_node_t *n, const char *what, int base,
	   uint64_t min, uint64_t max, uint64_t *val);
int yw_uint(const struct yaml_walk *w, const yaml_node_t *n, const char *what, int base,
	    unsigned int min, unsigned int max, unsigned int *val);
/* true/yes/on or false/no/off. */
int yw_bool(const struct yaml_walk *w, const yaml_node_t *n, const char *what, bool *val);

/*
 * Walk mapping @n in document order: each key must be a scalar naming one
 * of @keys (NULL-terminated, at most 64), at most once; @cb gets the key's
 * index and the value.  The first error (ours or @cb's) ends the walk.
 */
typedef int (*yw_pair_cb)(void *arg, int key, yaml_node_t *k, yaml_node_t *v);
int yw_map(const struct yaml_walk *w, const yaml_node_t *n, const char *what,
	   const char *const *keys, yw_pair_cb cb, void *arg);

/* A list of at most @max items: its length. */
int yw_seq_len(const struct yaml_walk *w, const yaml_node_t *n, const char *what, size_t max,
	       size_t *len);
yaml_node_t *yw_seq_item(const struct yaml_walk *w, const yaml_node_t *n, size_t i);

#endif
