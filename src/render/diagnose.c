// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diagnose: the sweep's view of what it measured or re-read, under
 * diagnose's own header.  Text: one line (the pair and how many pairs
 * were measured, or the saved sweep re-analysed), then the sweep's text.
 * Then the cable ends of the hosts the suspects name, when they were read
 * (render/optics.h).  JSON: the sweep's document as "fabricctl.diagnose/1"
 * with "from", "target" ({a, b, pair: that pair's entry} or null),
 * "extra_pairs" and "cables" (null when not read) after its members
 * (docs/diagnose.md).
 */
#include <errno.h>
#include <string.h>

#include "render/optics.h"
#include "render/render_impl.h"

/* The entry of @pairs between @a and @b, either way round (borrowed), or NULL. */
static json_t *find_pair(json_t *pairs, const char *a, const char *b)
{
	json_t *p;
	size_t i;

	json_array_foreach(pairs, i, p) {
		const char *pa = json_string_value(json_object_get(p, "a"));
		const char *pb = json_string_value(json_object_get(p, "b"));

		if (pa && pb && ((!strcmp(pa, a) && !strcmp(pb, b)) ||
				 (!strcmp(pa, b) && !strcmp(pb, a))))
			return p;
	}
	return NULL;
}

/* The pairs measured besides the slow one, probes among them (with --from: the probes). */
static size_t extra_pairs(const struct sweep_report *r, const struct diagnose_meta *m)
{
	unsigned int probes = r->fabric.probes_run;

	return !m->from && r->n_pairs ? r->n_pairs - 1 + probes : probes;
}

int diagnose_text(struct render *out, const struct sweep_report *r, const struct diagnose_meta *m)
{
	unsigned int probes = r->fabric.probes_run;
	int rc;

	if (!m->from)
		fprintf(out->f,
			"diagnose %s %s: %zu pairs measured (%zu extra, %u of them probes)\n",
			m->a, m->b, r->n_pairs + probes, r->n_pairs - 1 + probes, probes);
	else
		fprintf(out->f, "diagnose --from %s: %zu pairs re-analysed, no traffic\n", m->from,
			r->n_pairs);
	rc = sweep_text(out, r);
	if (rc == 0)
		optics_text_hosts(out->f, r->hosts, r->cables);
	return rc;
}

int diagnose_json(struct render *out, const struct sweep_report *r, const struct diagnose_meta *m)
{
	json_t *doc = sweep_to_json(r), *target = json_null();

	if (!doc)
		return -ENOMEM;
	if (!m->from)
		target = json_pack("{s:s, s:s, s:O*}", "a", m->a, "b", m->b, "pair",
				   find_pair(json_object_get(doc, "pairs"), m->a, m->b));
	json_object_set_new(doc, "schema", json_string("fabricctl.diagnose/1"));
	json_object_set_new(doc, "from", m->from ? json_string(m->from) : json_null());
	json_object_set_new(doc, "target", target);
	json_object_set_new(doc, "extra_pairs", json_integer((json_int_t)extra_pairs(r, m)));
	json_object_set_new(doc, "cables", optics_hosts_to_json(r->hosts, r->cables));
	return render_json_emit(out, doc);
}
