// SPDX-License-Identifier: GPL-2.0-or-later
/* diagnose's cable evidence (sweep_optics.h): the suspects' hosts' cable ends over the sweep. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet_op.h"
#include "sweep/sweep_optics.h"
#include "util/log.h"

#define SWEEP_OPTICS_TIMEOUT_MS 20000

void sweep_optics_init(struct sweep_optics *so)
{
	memset(so, 0, sizeof(*so));
}

void sweep_optics_fini(struct sweep_optics *so)
{
	optics_hosts_fini(&so->before);
	optics_hosts_fini(&so->now);
	memset(so, 0, sizeof(*so));
}

/* Every live worker of @f into @h (optics_hosts_init'ed, f->n). */
static int read_all(struct sweep_ctx *ctx, struct fleet *f, struct optics_hosts *h)
{
	int rc = fleet_optics_read(f, SWEEP_OPTICS_TIMEOUT_MS, h->set, h->read, &ctx->err);

	for (size_t i = 0; rc == 0 && i < f->n; i++) {
		const char *why = f->w[i].dead ? "its worker is gone"
					       : "no answer (see the warnings)";

		if (!h->read[i] && !(h->why[i] = strdup(why)))
			rc = fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	}
	return rc;
}

int sweep_optics_before(struct sweep_ctx *ctx, struct sweep_optics *so, struct fleet *f)
{
	size_t n = 0;
	int rc;

	if (!f || !f->n)
		return 0;
	if (optics_hosts_init(&so->before, f->n) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	rc = read_all(ctx, f, &so->before);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < f->n; i++)
		n += so->before.read[i];
	so->have_before = true;
	fab_info("optics: read on %zu of %zu hosts before the sweep", n, f->n);
	return 0;
}

/* Flag every host @res's suspects name in @want (n hosts); how many. */
static size_t suspect_hosts(const struct loc_result *res, bool *want, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; res && i < res->n_suspects; i++)
		for (size_t m = 0; m < res->suspects[i].n_members; m++) {
			int h = res->suspects[i].members[m].host;

			if (h >= 0 && (size_t)h < n && !want[h]) {
				want[h] = true;
				k++;
			}
		}
	return k;
}

/* Keep only @s's port named @name, when it has one. */
static void narrow(struct optics_set *s, const char *name)
{
	struct optics_port *p = name && name[0] ? optics_set_find(s, name) : NULL;

	if (!p || s->n == 1)
		return;
	if (p != &s->v[0])
		s->v[0] = *p;
	s->n = 1;
}

int sweep_optics_suspects(struct sweep_ctx *ctx, struct sweep_optics *so, struct fleet *f,
			  const struct sweep_topo *st, const struct loc_result *res)
{
	struct optics_policy pol;
	struct optics_hosts *now = &so->now;
	size_t k;
	int rc;

	if (!so->have_before || !f || f->n != so->before.n)
		return 0;
	if (optics_hosts_init(now, f->n) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
	k = suspect_hosts(res, now->wanted, f->n);
	if (!k)
		return 0;
	rc = read_all(ctx, f, now);
	if (rc < 0)
		return rc;
	optics_policy_default(&pol);
	for (size_t i = 0; i < f->n; i++) {
		const struct topo_port *p = st && st->r && i < st->r->n_hosts ? st->r->hosts[i].port
									      : NULL;

		if (!now->wanted[i]) {
			optics_set_fini(&now->set[i]);
			continue;
		}
		if (now->read[i] && !so->before.read[i] && !now->why[i] &&
		    !(now->why[i] = strdup("not read before the sweep: one reading, no window")))
			return fab_err_set(&ctx->err, -ENOMEM, "sweep: out of memory");
		narrow(&now->set[i], p ? p->name : NULL);
		optics_set_judge(&now->set[i], so->before.read[i] ? &so->before.set[i] : NULL,
				 &pol);
	}
	so->have_now = true;
	fab_info("optics: the cable ends of %zu suspect host%s read again after the sweep", k,
		 k == 1 ? "" : "s");
	return 0;
}

/* ---- InfiniBand: the suspects' links' both ends from the PMA counters ---- */

/* @p's three counters in @s into @pma (ok when all three are there). */
static void ib_pma(const struct counter_snap *s, const struct topo_port *p,
		   struct optics_ib_pma *pma)
{
	static const char *const names[] = {
		"symbol_errors", "link_error_recovery", "link_downed",
	};
	uint64_t *to[] = { &pma->symbol_errors, &pma->link_recovers, &pma->link_downed };
	unsigned int got = 0;

	memset(pma, 0, sizeof(*pma));
	for (size_t i = 0; i < s->n; i++) {
		if (s->v[i].port != p)
			continue;
		for (unsigned int k = 0; k < 3; k++)
			if (strcmp(s->v[i].name, names[k]) == 0) {
				*to[k] = s->v[i].value;
				got |= 1u << k;
			}
	}
	pma->ok = got == 7;
}

static bool ib_have(const struct optics_hosts *h, const struct topo_port *p)
{
	for (size_t i = 0; i < h->n_ib; i++)
		if (h->ib[i].port == p->num && strcmp(h->ib[i].node, p->node->name) == 0)
			return true;
	return false;
}

static int ib_end(struct optics_hosts *h, const struct topo_port *p,
		  const struct counter_snap *before, const struct counter_snap *after,
		  const struct optics_policy *pol)
{
	struct optics_ib_end *e;

	if (!p || ib_have(h, p))
		return 0;
	if (!(e = optics_hosts_ib_add(h)))
		return -ENOMEM;
	snprintf(e->node, sizeof(e->node), "%s", p->node->name);
	e->port = p->num;
	e->rate_mbps = (double)p->width_x * p->lane_mbps;
	ib_pma(before, p, &e->before);
	ib_pma(after, p, &e->after);
	optics_ib_verdict(&e->before, &e->after, h->ib_window_s, e->rate_mbps, pol, &e->verdict);
	return 0;
}

int sweep_optics_ib(struct sweep_ctx *ctx, struct sweep_optics *so, const struct topo *t,
		    const struct counter_snap *before, const struct counter_snap *after,
		    const struct loc_result *res, double window_s)
{
	struct optics_policy pol;
	int rc = 0;

	if (!res || !res->n_suspects || !before->n)
		return 0;
	if (!so->have_now && optics_hosts_init(&so->now, 0) < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	so->have_now = true;
	so->now.ib_window_s = window_s > 0 ? window_s : 0;
	optics_policy_default(&pol);
	for (size_t i = 0; rc == 0 && i < res->n_suspects; i++)
		for (size_t m = 0; rc == 0 && m < res->suspects[i].n_members; m++) {
			uint32_t l = res->suspects[i].members[m].link;

			if (l == LOC_NO_LINK || l >= t->n_links)
				continue;
			rc = ib_end(&so->now, t->links[l]->a, before, after, &pol);
			if (rc == 0)
				rc = ib_end(&so->now, t->links[l]->b, before, after, &pol);
		}
	if (rc < 0)
		return fab_err_set(&ctx->err, -ENOMEM, "diagnose: out of memory");
	fab_info("optics: %zu InfiniBand cable end%s of the suspects' links judged from the PMA "
		 "counters", so->now.n_ib, so->now.n_ib == 1 ? "" : "s");
	return 0;
}
