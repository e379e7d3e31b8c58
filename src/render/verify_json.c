// SPDX-License-Identifier: GPL-2.0-or-later
/* verify, JSON: "fabricctl.verify/1" (docs/json-verify.md). */
#include <errno.h>

#include "model/changeset.h"
#include "render/render_impl.h"

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
	return json_pack("{s:s, s:s, s:s, s:b, s:I, s:o}", "schema", "fabricctl.verify/1",
			"profile", profile, "hostname", hostname, "ok", cs->n_drift == 0,
			"n_drift", (json_int_t)cs->n_drift, "drift", drift);
}

int verify_json(struct render *out, const char *profile, const char *hostname,
		const struct changeset *cs)
{
	json_t *doc = verify_to_json(profile, hostname, cs);

	return doc ? render_json_emit(out, doc) : -ENOMEM;
}
