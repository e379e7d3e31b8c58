// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * accept's optics (accept_impl.h): the new hosts' cable ends, read
 * through their workers (fleet_optics_read(): the hosts file's ifname=
 * port, else every port with a module interface) with stage 4's counters
 * and again with stage 6's, judged by model/optics.h and turned into
 * findings by model/accept_optics.h.  The stage's counters keep their own
 * verdict; optics findings fail it, and say so in its note.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "model/accept_optics.h"
#include "sweep/accept_impl.h"
#include "util/log.h"
#include "util/str.h"

#define ACCEPT_OPTICS_TIMEOUT_MS 20000

/* Every live worker's cable ends into @h (initialised here), judged against @before (or NULL). */
static int optics_read(struct sweep_ctx *ctx, struct accept_state *s, struct optics_hosts *h,
		       const struct optics_hosts *before)
{
	struct optics_policy pol;
	int rc;

	if (optics_hosts_init(h, s->f.n) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	rc = fleet_optics_read(&s->f, ACCEPT_OPTICS_TIMEOUT_MS, h->set, h->read, &ctx->err);
	if (rc < 0)
		return rc;
	optics_policy_default(&pol);
	for (size_t i = 0; i < s->f.n; i++) {
		const struct fab_host *host = s->f.w[i].host;
		const struct optics_set *b = before && i < before->n && before->read[i]
					     ? &before->set[i] : NULL;

		h->wanted[i] = h->read[i] && host->is_new && hosts_is_endpoint(host);
		if (h->wanted[i])
			optics_set_judge(&h->set[i], b, &pol);
	}
	return 0;
}

/* The findings of @h's new hosts at stage @st, and the stage's note and status amended. */
static int optics_judge(struct sweep_ctx *ctx, struct accept_state *s, enum accept_stage st,
			const struct optics_hosts *h, const struct optics_hosts *seen)
{
	struct accept_report *r = &s->rep;
	struct accept_optics_count c = { 0 };
	size_t before = accept_stage_findings(r, st);
	char note[sizeof(r->st[st].note)], unread[64] = "", noted[sizeof(c.noted_ends) + 64] = "";
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < h->n; i++)
		if (h->wanted[i])
			rc = accept_optics_findings(r, st, s->f.w[i].host->name, &h->set[i],
						    seen && seen->read[i] ? &seen->set[i] : NULL,
						    s->pol.optics_marginal_note, &c);
	if (rc < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "accept: out of memory");
	str_fmt(note, sizeof(note), "%s", r->st[st].note);
	if (c.unread)
		str_fmt(unread, sizeof(unread), "; %zu module%s not readable (counted, not judged)",
			c.unread, c.unread == 1 ? "" : "s");
	if (c.noted)
		str_fmt(noted, sizeof(noted), " (policy optics marginal: note; not findings: %s)",
			c.noted_ends);
	accept_stage_set(r, st, accept_stage_findings(r, st) > before ? ACCEPT_FAILED :
			 r->st[st].status, "%s%soptics of %zu new host%s%s: %zu cable end%s judged, "
			 "%zu %sfailing, %zu %smarginal%s%s", note, note[0] ? "; " : "", c.hosts,
			 c.hosts == 1 ? "" : "s", seen ? " since stage 4" : "", c.ports,
			 c.ports == 1 ? "" : "s", c.failing, seen ? "newly " : "", c.marginal,
			 seen ? "newly " : "", noted, unread);
	return 0;
}

int accept_optics_base(struct sweep_ctx *ctx, struct accept_state *s)
{
	int rc;

	if (!s->f.w || !fleet_live(&s->f))
		return 0;
	rc = optics_read(ctx, s, &s->optics0, NULL);
	if (rc < 0)
		return rc;
	s->optics_read = true;
	return optics_judge(ctx, s, ACCEPT_ST_COUNTERS_BASE, &s->optics0, NULL);
}

int accept_optics_after(struct sweep_ctx *ctx, struct accept_state *s)
{
	struct optics_hosts now;
	int rc;

	if (!s->optics_read)
		return 0;
	if (!s->f.w && (rc = fleet_start(&s->f, &s->all, &s->o.fo, &ctx->err)) < 0) {
		fab_warn("accept: optics after the traffic: %s", ctx->err.msg);
		fab_err_init(&ctx->err);
		return 0;
	}
	if (s->f.n != s->optics0.n)
		return 0;
	rc = optics_read(ctx, s, &now, &s->optics0);
	if (rc == 0)
		rc = optics_judge(ctx, s, ACCEPT_ST_COUNTERS_AFTER, &now, &s->optics0);
	optics_hosts_fini(&now);
	return rc;
}
