// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * accept as "fabricctl.accept/1" (docs/accept.md).  Same keys whatever the
 * outcome: absent inputs are null, arrays stay arrays.
 */
#include "render/accept.h"

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *stages_json(const struct accept_report *r)
{
	json_t *a = json_array();

	for (int s = 0; a && s < ACCEPT_ST_N; s++)
		json_array_append_new(a, json_pack("{s:i, s:s, s:s, s:o, s:i, s:f}",
			"stage", s + 1, "name", accept_stage_name(s),
			"status", accept_status_name(r->st[s].status),
			"note", str_or_null(r->st[s].note),
			"findings", (int)accept_stage_findings(r, s), "secs", r->st[s].secs));
	return a;
}

static json_t *findings_json(const struct accept_report *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->n_findings; i++) {
		const struct accept_finding *f = &r->findings[i];

		json_array_append_new(a, json_pack("{s:s, s:i, s:s, s:o, s:o, s:s}",
			"code", accept_code_name(f->code), "stage", (int)f->stage + 1,
			"stage_name", accept_stage_name(f->stage), "node", str_or_null(f->node),
			"link", str_or_null(f->link), "evidence", f->evidence));
	}
	return a;
}

static json_t *nodes_json(const struct accept_report *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->n_nodes; i++)
		json_array_append_new(a, json_pack("{s:s, s:b, s:s, s:b}", "node", r->nodes[i].name,
			"new", r->nodes[i].is_new, "role", r->nodes[i].endpoint ? "host" : "switch",
			"reached", r->nodes[i].reached));
	return a;
}

json_t *accept_to_json(const struct accept_report *r, const struct accept_meta *m)
{
	int first_failed = 0;

	for (int s = 0; s < ACCEPT_ST_N && !first_failed; s++)
		if (r->st[s].status == ACCEPT_FAILED || r->st[s].status == ACCEPT_BLOCKED)
			first_failed = s + 1;
	return json_pack("{s:s, s:s, s:o, s:{s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:b}, "
			 "s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o}, s:o, s:o}",
		"schema", "fabricctl.accept/1",
		"verdict", r->accept ? "ACCEPT" : "REJECT",
		"failed_stage", first_failed ? json_integer(first_failed) : json_null(),
		"input", "hosts", str_or_null(m->hosts), "profile", str_or_null(m->profile),
		"plan", str_or_null(m->plan), "topology", str_or_null(m->topology),
		"policy", str_or_null(m->policy), "pct_expected", (int)m->pct_expected,
		"coverage", (int)r->coverage_k, "keep_going", m->keep_going,
		"nodes", "new", (int)r->n_new, "existing", (int)r->n_existing,
		"new_switches", (int)r->n_switches_new, "pairs_measured", (int)r->n_pairs,
		"pairs_chosen", (int)r->n_pairs_chosen, "links_target", (int)r->links_target,
		"links_short", (int)r->links_short,
		"list", nodes_json(r),
		"stages", stages_json(r), "findings", findings_json(r));
}

int accept_json(struct render *out, const struct accept_report *r, const struct accept_meta *m)
{
	return render_json_emit(out, accept_to_json(r, m));
}
