// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Link localisation (localize.h): counter findings as evidence on the
 * suspects (loc_apply_counters()): a member's errors raise its suspect's
 * score and order a group's members; clean counters where the same paths
 * show errors elsewhere lower it.
 */
#include <errno.h>
#include <stdlib.h>

#include "util/str.h"
#include "model/localize_impl.h"

/* ---- counters ---- */

static bool port_read(const struct counter_report *rep, const struct topo_port *port)
{
	for (size_t i = 0; i < rep->n_ports; i++)
		if (rep->ports[i].port == port && rep->ports[i].compared)
			return true;
	return false;
}

/* The accumulator candidate of member @m: its link, else its host's virtual candidate. */
static uint32_t member_cand(const struct loc_acc *acc, const struct loc_member *m)
{
	if (m->link != LOC_NO_LINK)
		return m->link;
	return m->host >= 0 ? (uint32_t)(acc->topo->n_links + (size_t)m->host) : UINT32_MAX;
}

/* on[l]: some bad pair crossing member 0 of @s crosses link l.  -ENOMEM. */
static int bad_paths_links(const struct loc_acc *acc, const struct loc_suspect *s, bool **out)
{
	uint32_t c0 = member_cand(acc, &s->members[0]);
	bool *on = calloc(acc->topo->n_links ? acc->topo->n_links : 1, sizeof(*on));

	if (!on)
		return -ENOMEM;
	for (size_t i = 0; i < acc->n_bad; i++) {
		const struct loc_bad *p = &acc->bad[i];
		bool crossed = s->members[0].host >= 0 && (p->a == (unsigned int)s->members[0].host ||
							   p->b == (unsigned int)s->members[0].host);

		for (size_t j = 0; !crossed && j < p->n; j++)
			crossed = p->cand[j] == c0;
		if (!crossed)
			continue;
		for (size_t j = 0; j < p->n; j++)
			if (p->cand[j] < acc->topo->n_links)
				on[p->cand[j]] = true;
	}
	*out = on;
	return 0;
}

static int member_cmp(const void *x, const void *y)
{
	const struct loc_member *a = x, *b = y;

	if (a->counter_score != b->counter_score)
		return a->counter_score > b->counter_score ? -1 : 1;
	return a->link < b->link ? -1 : a->link > b->link;
}

static int suspect_counters(const struct loc_input *in, const struct loc_acc *acc,
			    struct loc_suspect *s, const struct counter_report *rep)
{
	bool all_read = true, elsewhere = false;
	size_t n = 0;

	for (size_t m = 0; m < s->n_members; m++) {
		struct loc_member *mb = &s->members[m];

		mb->counter_score = 0;
		if (mb->link == LOC_NO_LINK) {
			all_read = false;
			continue;
		}
		const struct topo_link *l = in->topo->links[mb->link];

		if (!port_read(rep, l->a) || !port_read(rep, l->b))
			all_read = false;
		for (size_t f = 0; f < rep->n_findings; f++)
			if (rep->findings[f].link == mb->link)
				n++;
	}
	free(s->counters);
	s->counters = calloc(n ? n : 1, sizeof(*s->counters));
	s->n_counters = 0;
	s->ev.counters_error = s->ev.counters_warn = 0;
	if (!s->counters)
		return -ENOMEM;
	s->score = s->traffic_score;
	for (size_t m = 0; m < s->n_members; m++) {
		struct loc_member *mb = &s->members[m];

		for (size_t f = 0; f < rep->n_findings && mb->link != LOC_NO_LINK; f++) {
			const struct counter_finding *cf = &rep->findings[f];

			if (cf->link != mb->link)
				continue;
			s->counters[s->n_counters++] = *cf;
			if (cf->sev == COUNTER_SEV_ERROR) {
				s->ev.counters_error++;
				mb->counter_score += 1.0;
				s->score += (1.0 - s->score) * 0.5;
			} else if (cf->sev == COUNTER_SEV_WARN) {
				s->ev.counters_warn++;
				mb->counter_score += 0.5;
				s->score += (1.0 - s->score) * 0.25;
			}
		}
	}
	if (!s->ev.counters_error && !s->ev.counters_warn && all_read) {
		bool *on;

		if (bad_paths_links(acc, s, &on))
			return -ENOMEM;
		for (size_t f = 0; f < rep->n_findings && !elsewhere; f++) {
			const struct counter_finding *cf = &rep->findings[f];

			if (cf->sev != COUNTER_SEV_INFO && cf->link != COUNTER_NO_LINK && on[cf->link])
				elsewhere = true;
		}
		free(on);
		if (elsewhere) {
			s->score *= 0.8;
			str_fmt(s->note, sizeof(s->note),
				 "counters clean here, errors elsewhere on the same paths");
		}
	}
	if (s->n_members > 1) {
		qsort(s->members, s->n_members, sizeof(*s->members), member_cmp);
		s->tie_by_counters = s->members[0].counter_score > s->members[1].counter_score;
		if (s->tie_by_counters) {
			char t[256];

			loc_member_text(in, &s->members[0], t, sizeof(t));
			str_fmt(s->note, sizeof(s->note), "%s; counters favour %.200s",
				 s->unsplittable ? "traffic cannot tell these apart" : "one of these", t);
		}
	}
	return 0;
}

int loc_apply_counters(const struct loc_input *in, struct loc_result *r,
		       const struct counter_report *rep)
{
	struct loc_acc *acc, *own;
	int rc = acc_of(in, &acc, &own, NULL);

	for (size_t i = 0; rc == 0 && i < r->n_suspects; i++)
		rc = suspect_counters(in, acc, &r->suspects[i], rep);
	loc_acc_free(own);
	if (rc)
		return rc;
	qsort(r->suspects, r->n_suspects, sizeof(*r->suspects), suspect_cmp);
	return 0;
}
