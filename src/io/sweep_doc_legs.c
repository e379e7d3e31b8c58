// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A saved sweep's dual-homed legs (pairs[].legs, docs/sweep.md) read back
 * into the report (sweep_doc.h sweep_doc_legs()): diagnose --from names
 * the slow or dead leg the sweep found, and exits 1 for it, as the sweep
 * did; and legs.not_measured[], the hosts whose worker did not answer the
 * bond request (sweep_doc_legs_unmeasured()), said as the sweep said
 * them.  The legs are as saved: nothing is judged again.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/sweep_doc.h"
#include "model/bond.h"
#include "model/bond_legs.h"

/* A string member copied into @buf (cut to fit); "" when null or absent; -1 when another type. */
static int str_copy(json_t *o, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(o, key);

	buf[0] = '\0';
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	snprintf(buf, len, "%s", json_string_value(v));
	return 0;
}

static int verdict_parse(const char *s, enum bond_leg_verdict *v)
{
	for (int k = BOND_LEG_OK; s && k <= BOND_LEG_UNTESTED; k++)
		if (!strcmp(s, bond_leg_verdict_name((enum bond_leg_verdict)k))) {
			*v = (enum bond_leg_verdict)k;
			return 0;
		}
	return -1;
}

/* Keep @s for the report (a direction's "why" is a borrowed string): d owns it. */
static const char *why_keep(struct sweep_doc *d, const char *s)
{
	char **n = realloc(d->legs_why, (d->n_legs_why + 1) * sizeof(*n));

	if (!n)
		return NULL;
	d->legs_why = n;
	n[d->n_legs_why] = strdup(s);
	return n[d->n_legs_why] ? n[d->n_legs_why++] : NULL;
}

/* One member of a direction, pairs[@i].legs.@dir.legs[@j]. */
static int leg_from_doc(const char *fname, size_t i, const char *dir, size_t j, json_t *v,
			struct bond_leg_result *l, struct fab_err *err)
{
	json_t *sport = json_object_get(v, "sport"), *bw = json_object_get(v, "bw_mbps");

	if (!json_is_object(v) || !json_is_string(json_object_get(v, "member")) ||
	    str_copy(v, "member", l->member, sizeof(l->member)) < 0 || !l->member[0])
		return fab_err_input(err, -EINVAL, "%s: pairs[%zu].legs.%s.legs[%zu]: no \"member\"",
				     fname, i, dir, j);
	if (verdict_parse(json_string_value(json_object_get(v, "verdict")), &l->verdict) < 0)
		return fab_err_input(err, -EINVAL, "%s: pairs[%zu].legs.%s.legs[%zu]: \"verdict\" is "
				     "none of ok, slow, dead, untested", fname, i, dir, j);
	if (str_copy(v, "switch", l->sw_node, sizeof(l->sw_node)) < 0 ||
	    str_copy(v, "switch_port", l->sw_port, sizeof(l->sw_port)) < 0 ||
	    str_copy(v, "finding", l->finding, sizeof(l->finding)) < 0)
		return fab_err_input(err, -EINVAL, "%s: pairs[%zu].legs.%s.legs[%zu]: \"switch\", "
				     "\"switch_port\" and \"finding\" are strings or null", fname, i,
				     dir, j);
	l->link_up = json_is_true(json_object_get(v, "link_up"));
	l->sport = json_is_integer(sport) && json_integer_value(sport) > 0 &&
		   json_integer_value(sport) < 65536 ? (unsigned int)json_integer_value(sport) : 0;
	l->failed = l->sport && !json_is_number(bw);
	l->mbps = json_is_number(bw) ? json_number_value(bw) : 0;
	l->bytes = (uint64_t)json_integer_value(json_object_get(v, "bytes"));
	l->tx_delta = (uint64_t)json_integer_value(json_object_get(v, "tx_bytes"));
	l->fault = json_is_true(json_object_get(v, "fault"));
	return 0;
}

/* One direction, pairs[@i].legs.@dir (null: its sender is no bond). */
static int dir_from_doc(struct sweep_doc *d, const char *fname, size_t i, const char *dir,
			json_t *v, struct bond_legs_dir *o, struct fab_err *err)
{
	json_t *legs = json_object_get(v, "legs"), *l;
	const char *why = json_string_value(json_object_get(v, "why"));
	size_t j;
	int rc;

	memset(o, 0, sizeof(*o));
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v) || !json_is_array(legs) ||
	    json_array_size(legs) > FAB_BOND_MAX_MEMBERS ||
	    str_copy(v, "node", o->node, sizeof(o->node)) < 0 || !o->node[0] ||
	    str_copy(v, "bond", o->bond, sizeof(o->bond)) < 0)
		return fab_err_input(err, -EINVAL, "%s: pairs[%zu].legs.%s: want null or {node, bond, "
				     "legs: [at most %d members]}", fname, i, dir,
				     FAB_BOND_MAX_MEMBERS);
	o->run = true;
	o->mode = fab_bond_mode_parse(json_string_value(json_object_get(v, "mode")));
	o->policy = fab_bond_xmit_parse(json_string_value(json_object_get(v, "xmit_hash_policy")));
	o->dport = (unsigned int)json_integer_value(json_object_get(v, "dport"));
	o->n_trials = (size_t)json_integer_value(json_object_get(v, "trials"));
	o->n_unclear = (size_t)json_integer_value(json_object_get(v, "unclear"));
	o->ref_mbps = json_number_value(json_object_get(v, "ref_mbps"));
	if (why && !(o->why = why_keep(d, why)))
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	json_array_foreach(legs, j, l) {
		if ((rc = leg_from_doc(fname, i, dir, j, l, &o->legs[j], err)) < 0)
			return rc;
		o->n_bad += o->legs[j].fault;
	}
	o->n_legs = json_array_size(legs);
	return 0;
}

int sweep_doc_legs(struct sweep_doc *d, const char *fname, json_t *pairs, struct sweep_report *r,
		   struct fab_err *err)
{
	size_t i, n = 0;
	json_t *v;
	int rc;

	json_array_foreach(pairs, i, v)
		n += json_object_get(v, "legs") != NULL;
	if (!n)
		return 0;
	d->legs = calloc(n, sizeof(*d->legs));
	if (!d->legs)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	json_array_foreach(pairs, i, v) {
		json_t *legs = json_object_get(v, "legs");
		struct bond_legs_pair *lp = &d->legs[d->n_legs];

		if (!legs)
			continue;
		if (!json_is_object(legs))
			return fab_err_input(err, -EINVAL, "%s: pairs[%zu].legs: not an object", fname,
					     i);
		lp->index = i;
		lp->a = d->ab[i][0];
		lp->b = d->ab[i][1];
		if ((rc = dir_from_doc(d, fname, i, "ab", json_object_get(legs, "ab"), &lp->ab,
				       err)) < 0 ||
		    (rc = dir_from_doc(d, fname, i, "ba", json_object_get(legs, "ba"), &lp->ba,
				       err)) < 0)
			return rc;
		r->n_legs_bad += lp->ab.n_bad + lp->ba.n_bad;
		d->n_legs++;
	}
	r->legs = d->legs;
	r->n_legs = d->n_legs;
	return 0;
}

int sweep_doc_legs_unmeasured(struct sweep_doc *d, const char *fname, json_t *legs,
			      struct sweep_report *r, struct fab_err *err)
{
	json_t *arr = json_is_object(legs) ? json_object_get(legs, "not_measured") : NULL, *v;
	size_t i, plen = strlen(BOND_LEGS_UNANSWERED_NOTE);

	if (legs && !json_is_null(legs) && !json_is_object(legs))
		return fab_err_input(err, -EINVAL, "%s: legs: not an object", fname);
	if (!arr || json_is_null(arr))
		return 0;
	if (!json_is_array(arr))
		return fab_err_input(err, -EINVAL, "%s: legs.not_measured: not an array", fname);
	if (!json_array_size(arr))
		return 0;
	d->legs_unans = calloc(json_array_size(arr), sizeof(*d->legs_unans));
	if (!d->legs_unans)
		return fab_err_set(err, -ENOMEM, "diagnose: out of memory");
	json_array_foreach(arr, i, v) {
		const char *node = json_string_value(json_object_get(v, "node"));
		const char *note = json_string_value(json_object_get(v, "note"));
		struct bond_legs_unanswered *u = &d->legs_unans[i];
		int h = node ? hosts_find(&d->hosts, node) : -1;

		if (!json_is_object(v) || !node)
			return fab_err_input(err, -EINVAL, "%s: legs.not_measured[%zu]: want {node, "
					     "note}", fname, i);
		if (h < 0)
			return fab_err_input(err, -EINVAL, "%s: legs.not_measured[%zu]: '%s' is not a "
					     "host of the sweep", fname, i, node);
		if (!note || strncmp(note, BOND_LEGS_UNANSWERED_NOTE, plen) != 0)
			return fab_err_input(err, -EINVAL, "%s: legs.not_measured[%zu]: \"note\" does "
					     "not start \"%s\"", fname, i, BOND_LEGS_UNANSWERED_NOTE);
		u->host = (unsigned int)h;
		snprintf(u->why, sizeof(u->why), "%s", note + plen);
		d->n_legs_unans++;
	}
	r->legs_unanswered = d->legs_unans;
	r->n_legs_unanswered = d->n_legs_unans;
	return 0;
}
