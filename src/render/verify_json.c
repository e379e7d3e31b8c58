// SPDX-License-Identifier: GPL-2.0-or-later
/* verify, JSON: "fabricctl.verify/1" (docs/json-verify.md). */
#include <errno.h>
#include <stdio.h>

#include "model/changeset.h"
#include "render/render_impl.h"

/* -1 (not known, not reached) is null. */
static json_t *int_or_null(int v)
{
	return v < 0 ? json_null() : json_integer(v);
}

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *chain_cnp_json(const struct lossless_chain *c)
{
	return json_pack("{s:o, s:o, s:o}", "dscp", int_or_null(c->cnp_dscp),
			 "prio", int_or_null(c->cnp_prio), "tc", int_or_null(c->cnp_tc));
}

static json_t *chain_gid_json(const struct lossless_chain *c)
{
	return json_pack("{s:o, s:o, s:o}", "address", str_or_null(c->addr),
			 "index", int_or_null(c->gid_index), "gid", str_or_null(c->gid));
}

json_t *chain_to_json(const struct lossless_chain *c)
{
	char rdma[96];
	json_t *j;

	snprintf(rdma, sizeof(rdma), "%s/%u", c->rdma_dev, c->rdma_port);
	j = json_pack("{s:s, s:o, s:s, s:o, s:s, s:o, s:o}", "interface", c->ifname,
		      "rdma", c->rdma_dev[0] ? json_string(rdma) : json_null(),
		      "verdict", lossless_verdict_name(c->verdict),
		      "break", str_or_null(lossless_break_name(c->brk)), "path", c->path,
		      "finding", str_or_null(c->finding), "why", str_or_null(c->why));
	if (!j)
		return NULL;
	if (json_object_update_new(j, json_pack("{s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"lossless", c->lossless, "dcqcn", c->dcqcn, "tos", int_or_null(c->tos),
			"dscp", int_or_null(c->dscp), "prio", int_or_null(c->prio),
			"prio_by", str_or_null(c->prio_by), "tc", int_or_null(c->tc),
			"pfc", c->prio >= 0 && c->verdict != LOSSLESS_UNKNOWN ? json_boolean(c->pfc)
									      : json_null(),
			"buffer", int_or_null(c->buffer))) < 0 ||
	    json_object_update_new(j, json_pack("{s:o, s:o, s:o, s:o}",
			"buffer_bytes", c->buffer_bytes ? json_integer(c->buffer_bytes) : json_null(),
			"buffer_need", c->buffer_need ? json_integer(c->buffer_need) : json_null(),
			"cnp", chain_cnp_json(c), "gid", chain_gid_json(c))) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *chains_json(const struct changeset *cs)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < cs->n_chains; i++)
		if (json_array_append_new(a, chain_to_json(&cs->chains[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

json_t *verify_to_json(const char *profile, const char *hostname, const struct changeset *cs)
{
	json_t *drift = json_array();

	if (!drift)
		return NULL;
	for (size_t i = 0; i < cs->n_drift; i++) {
		const struct drift *d = &cs->drift[i];
		json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "interface", d->object,
				      "field", d->field, "wanted", d->wanted, "found", d->found);

		if (!j || json_array_append_new(drift, j) < 0) {
			json_decref(drift);
			return NULL;
		}
	}
	return json_pack("{s:s, s:s, s:s, s:b, s:I, s:o, s:o}", "schema", "fabricctl.verify/1",
			"profile", profile, "hostname", hostname, "ok", cs->n_drift == 0,
			"n_drift", (json_int_t)cs->n_drift, "drift", drift, "chains",
			chains_json(cs));
}

int verify_json(struct render *out, const char *profile, const char *hostname,
		const struct changeset *cs)
{
	json_t *doc = verify_to_json(profile, hostname, cs);

	return doc ? render_json_emit(out, doc) : -ENOMEM;
}
