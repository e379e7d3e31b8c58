// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * accept as a checklist: one line per stage in order, its findings under
 * it (code, node or link, evidence), then the verdict.
 */
#include <errno.h>
#include <stdio.h>

#include "render/accept.h"
#include "render/render_impl.h"

static const char *mark(enum accept_status s)
{
	switch (s) {
	case ACCEPT_PASSED:
		return "[ ok ]";
	case ACCEPT_FAILED:
		return "[FAIL]";
	case ACCEPT_BLOCKED:
		return "[BLKD]";
	case ACCEPT_SKIPPED:
		return "[skip]";
	default:
		return "[ -- ]";
	}
}

int accept_render_text(struct render *out, const struct accept_report *r,
		       const struct accept_meta *m)
{
	const char *red = out->color ? "\033[31m" : "", *green = out->color ? "\033[32m" : "";
	const char *off = out->color ? "\033[0m" : "";
	FILE *f = out->f;
	struct render_txt tx = { .next = 0 };

	fprintf(f, "accept %s: %zu new node%s, %zu existing, %zu new switch%s%s%s\n", m->hosts,
		r->n_new, r->n_new == 1 ? "" : "s", r->n_existing, r->n_switches_new,
		r->n_switches_new == 1 ? "" : "es", m->profile ? "; profile " : "",
		m->profile ? m->profile : "");
	for (int s = 0; s < ACCEPT_ST_N; s++) {
		const struct accept_stage_result *st = &r->st[s];
		bool bad = st->status == ACCEPT_FAILED || st->status == ACCEPT_BLOCKED;

		fprintf(f, "%s%s%s %d %-18s %s\n", bad ? red : "", mark(st->status), off, s + 1,
			accept_stage_name(s), render_txt(&tx, st->note));
		for (size_t i = 0; i < r->n_findings; i++) {
			const struct accept_finding *fd = &r->findings[i];

			if (fd->stage != (enum accept_stage)s)
				continue;
			fprintf(f, "         %s%s%s %s%s%s: %s\n", red, accept_code_name(fd->code), off,
				fd->node[0] ? render_txt(&tx, fd->node) : "",
				fd->node[0] && fd->link[0] ? " " : "", render_txt(&tx, fd->link),
				render_txt(&tx, fd->evidence));
		}
	}
	fprintf(f, "%s[%s]%s 7 verdict            %s: %zu finding%s\n", r->accept ? green : red,
		r->accept ? "ACCEPT" : "REJECT", off, r->accept ? "the new nodes may join" :
		"the new nodes must not join yet", r->n_findings, r->n_findings == 1 ? "" : "s");
	return fflush(f) == EOF ? -EIO : 0;
}
