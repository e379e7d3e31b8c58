// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A sweep's dual-homed legs (sweep/sweep_legs.h) in the JSON document
 * (pairs[].legs, the top-level "legs") and in text (the "legs:" section);
 * docs/sweep.md "Dual-homed legs".  Nothing when the report has no legs.
 */
#include <errno.h>
#include <stdlib.h>

#include "model/bond.h"
#include "model/bond_legs.h"
#include "render/render_impl.h"

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *leg_json(const struct bond_leg_result *l)
{
	bool measured = l->sport && !l->failed;

	return json_pack("{s:s, s:b, s:o, s:o, s:o, s:o, s:s, s:b, s:o, s:o, s:o}",
			 "member", l->member,
			 "link_up", l->link_up,
			 "sport", l->sport ? json_integer(l->sport) : json_null(),
			 "bw_mbps", measured ? json_real(l->mbps) : json_null(),
			 "bytes", measured ? json_integer((json_int_t)l->bytes) : json_null(),
			 "tx_bytes", l->sport ? json_integer((json_int_t)l->tx_delta) : json_null(),
			 "verdict", bond_leg_verdict_name(l->verdict),
			 "fault", l->fault,
			 "switch", str_or_null(l->sw_node),
			 "switch_port", str_or_null(l->sw_port),
			 "finding", str_or_null(l->finding));
}

static json_t *dir_json(const struct bond_legs_dir *d)
{
	json_t *legs;

	if (!d->run)
		return json_null();
	legs = json_array();
	for (size_t i = 0; legs && i < d->n_legs; i++)
		json_array_append_new(legs, leg_json(&d->legs[i]));
	return json_pack("{s:s, s:s, s:o, s:o, s:i, s:i, s:i, s:o, s:o, s:o}",
			 "node", d->node,
			 "bond", d->bond,
			 "mode", str_or_null(fab_bond_mode_name(d->mode)),
			 "xmit_hash_policy", str_or_null(fab_bond_xmit_name(d->policy)),
			 "dport", (int)d->dport,
			 "trials", (int)d->n_trials,
			 "unclear", (int)d->n_unclear,
			 "ref_mbps", d->ref_mbps > 0 ? json_real(d->ref_mbps) : json_null(),
			 "why", str_or_null(d->why),
			 "legs", legs ? legs : json_null());
}

const struct bond_legs_pair *sweep_legs_of_pair(const struct sweep_report *r, size_t i)
{
	size_t lo = 0, hi = r->n_legs;

	while (r->legs && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->legs[mid].index == i)
			return &r->legs[mid];
		if (r->legs[mid].index < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void sweep_legs_pair_json(const struct sweep_report *r, size_t i, json_t *o)
{
	const struct bond_legs_pair *lp = sweep_legs_of_pair(r, i);

	if (lp)
		json_object_set_new(o, "legs", json_pack("{s:o, s:o}", "ab", dir_json(&lp->ab),
							 "ba", dir_json(&lp->ba)));
}

/* The faults of @d's legs, as their findings, into @arr. */
static void dir_findings(const struct bond_legs_dir *d, json_t *arr)
{
	for (size_t i = 0; d->run && i < d->n_legs; i++)
		if (d->legs[i].fault)
			json_array_append_new(arr, json_string(d->legs[i].finding));
}

/* "legs not measured: worker did not answer the bond request: WHY" for @u. */
static void unanswered_note(const struct bond_legs_unanswered *u, char *buf, size_t len)
{
	snprintf(buf, len, BOND_LEGS_UNANSWERED_NOTE "%s", u->why);
}

json_t *sweep_legs_doc_json(const struct sweep_report *r)
{
	json_t *findings = json_array(), *unmeasured = json_array();
	char note[256];

	for (size_t i = 0; findings && i < r->n_legs; i++) {
		dir_findings(&r->legs[i].ab, findings);
		dir_findings(&r->legs[i].ba, findings);
	}
	for (size_t i = 0; unmeasured && i < r->n_legs_unanswered; i++) {
		const struct bond_legs_unanswered *u = &r->legs_unanswered[i];

		unanswered_note(u, note, sizeof(note));
		json_array_append_new(unmeasured, json_pack("{s:s, s:s}", "node",
							    r->hosts->hosts[u->host].name,
							    "note", note));
	}
	return json_pack("{s:I, s:I, s:o, s:o}", "pairs", (json_int_t)r->n_legs,
			 "bad", (json_int_t)r->n_legs_bad,
			 "findings", findings ? findings : json_null(),
			 "not_measured", unmeasured ? unmeasured : json_null());
}

/* One direction: "  ha -> hb  bond0 balance-xor layer3+4: a1 port 29101 18.1 Mb/s ok, ..." */
static void dir_text(FILE *f, struct render_txt *tx, const struct bond_legs_dir *d,
		     const char *from, const char *to)
{
	const char *mode = fab_bond_mode_name(d->mode), *pol = fab_bond_xmit_name(d->policy);

	if (!d->run)
		return;
	fprintf(f, "  %s -> %s  %s (%s, %s):", render_txt(tx, from), render_txt(tx, to),
		render_txt(tx, d->bond), mode ? mode : "?", pol ? pol : "?");
	for (size_t i = 0; i < d->n_legs; i++) {
		const struct bond_leg_result *l = &d->legs[i];

		fprintf(f, "%s %s", i ? "," : "", render_txt(tx, l->member));
		if (l->sport && !l->failed)
			fprintf(f, " port %u %.1f Mb/s", l->sport, l->mbps);
		fprintf(f, " %s", bond_leg_verdict_name(l->verdict));
	}
	fputc('\n', f);
	if (d->why)
		fprintf(f, "    %s\n", render_txt(tx, d->why));
	for (size_t i = 0; i < d->n_legs; i++)
		if (d->legs[i].fault)
			fprintf(f, "    %s\n", render_txt(tx, d->legs[i].finding));
}

int sweep_legs_text(FILE *f, struct render_txt *tx, const struct sweep_report *r)
{
	char note[256];

	if (!r->legs && !r->legs_unanswered)
		return 0;
	fprintf(f, "dual-homed legs (one flow per bond member, one after another): %zu not ok",
		r->n_legs_bad);
	if (r->n_legs_unanswered)
		fprintf(f, ", %zu host%s not measured", r->n_legs_unanswered,
			r->n_legs_unanswered == 1 ? "" : "s");
	fputc('\n', f);
	for (size_t i = 0; i < r->n_legs_unanswered; i++) {
		const struct bond_legs_unanswered *u = &r->legs_unanswered[i];

		unanswered_note(u, note, sizeof(note));
		fprintf(f, "  %s: %s\n", render_txt(tx, r->hosts->hosts[u->host].name),
			render_txt(tx, note));
	}
	for (size_t i = 0; i < r->n_legs; i++) {
		const struct bond_legs_pair *lp = &r->legs[i];
		const char *a = r->hosts->hosts[lp->a].name, *b = r->hosts->hosts[lp->b].name;

		dir_text(f, tx, &lp->ab, a, b);
		dir_text(f, tx, &lp->ba, b, a);
	}
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}
