// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * discover, text: one line per link (unhealthy ones marked '!'), then the
 * problems, the hosts' cable ends when any has a module
 * (render/discover_optics.c), then a summary line.  In the manner of
 * iblinkinfo.  The end columns are as wide as their longest end, so every
 * row lines up.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "model/ib_checks.h"
#include "model/topo.h"
#include "render/optics.h"
#include "render/render_impl.h"
#include "util/str.h"

/*
 * Lines are put together by hand, as "%s%c %-40s <-> %-40s %-8s %s%s\n"
 * and the like would print them: with printf a link's line cost 5,600
 * instructions, and a 1296-HCA fabric has 3888 of them.
 */
#define TEXT_LINE_MAX 4096	/* > colours, three ends of <= 2 + 127 + 1 + 63 bytes, a detail of 319 */

struct line {
	size_t len;
	char buf[TEXT_LINE_MAX];
};

static void line_put(struct line *l, const char *s)
{
	size_t n = strnlen(s, sizeof(l->buf) - 1 - l->len);

	memcpy(l->buf + l->len, s, n);
	l->len += n;
}

/*
 * Foreign text (node and port names off the wire, details quoting them):
 * as render_txt() would show it (control characters as \xNN), cleaned
 * straight into the line.
 */
static void line_txt(struct line *l, const char *s)
{
	size_t left = sizeof(l->buf) - 1 - l->len;

	if (str_is_clean(s, strlen(s))) {
		line_put(l, s);
		return;
	}
	str_clean(s, strlen(s), l->buf + l->len, left + 1);
	l->len += strlen(l->buf + l->len);
}

static void line_uint(struct line *l, unsigned int v)
{
	char d[12], *p = d + sizeof(d) - 1;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	line_put(l, p);
}

/* Spaces after the field begun at @from, up to @width bytes ("%-Ns"). */
static void line_pad(struct line *l, size_t from, size_t width)
{
	size_t n = l->len - from < width ? width - (l->len - from) : 0;

	if (n > sizeof(l->buf) - 1 - l->len)
		n = sizeof(l->buf) - 1 - l->len;
	memset(l->buf + l->len, ' ', n);
	l->len += n;
}

/* "\"node\"[N]" or "\"node\" name" (a named port). */
static void line_end(struct line *l, const char *node, unsigned int num, const char *port_name)
{
	line_put(l, "\"");
	line_txt(l, node);
	line_put(l, "\"");
	if (port_name && *port_name) {
		line_put(l, " ");
		line_txt(l, port_name);
	} else {
		line_put(l, "[");
		line_uint(l, num);
		line_put(l, "]");
	}
}

/* "4xEDR", "25000Mb/s" (lane rate x width, width unknown: 1) or "-". */
static void line_rate(struct line *l, const struct topo_port *p)
{
	const char *sp = topo_speed_name(p->lane_mbps);

	if ((p->facts & TOPO_F_WIDTH) && p->width_x && sp) {
		line_uint(l, p->width_x);
		line_put(l, "x");
		line_put(l, sp);
	} else if ((p->facts & TOPO_F_SPEED) && p->lane_mbps) {
		line_uint(l, p->lane_mbps * (p->width_x ? p->width_x : 1));
		line_put(l, "Mb/s");
	} else {
		line_put(l, "-");
	}
}

/* The widths of the two end columns: the longest end of each, so no long name breaks them. */
static void end_widths(const struct topo *t, size_t *wa, size_t *wb)
{
	struct line ln;		/* not zeroed: 4 KiB */

	*wa = *wb = 0;
	for (size_t i = 0; i < t->n_links; i++) {
		const struct topo_link *l = t->links[i];

		ln.len = 0;
		line_end(&ln, l->a->node->name, l->a->num, l->a->name);
		if (ln.len > *wa)
			*wa = ln.len;
		ln.len = 0;
		line_end(&ln, l->b->node->name, l->b->num, l->b->name);
		if (ln.len > *wb)
			*wb = ln.len;
	}
}

static void text_link(FILE *f, const struct topo_link *l, size_t wa, size_t wb,
		      const char *bad_on, const char *bad_off)
{
	bool bad = l->status != TOPO_LINK_OK;
	struct line ln;		/* not zeroed: 4 KiB a line */
	size_t from;

	ln.len = 0;

	line_put(&ln, bad ? bad_on : "");
	line_put(&ln, bad ? "! " : "  ");
	from = ln.len;
	line_end(&ln, l->a->node->name, l->a->num, l->a->name);
	line_pad(&ln, from, wa);
	line_put(&ln, " <-> ");
	from = ln.len;
	line_end(&ln, l->b->node->name, l->b->num, l->b->name);
	line_pad(&ln, from, wb);
	line_put(&ln, " ");
	from = ln.len;
	line_rate(&ln, l->a);
	line_pad(&ln, from, 8);
	line_put(&ln, " ");
	line_put(&ln, topo_link_status_name(l->status));
	line_put(&ln, bad ? bad_off : "");
	line_put(&ln, "\n");
	fwrite(ln.buf, 1, ln.len, f);
}

/* One problem: "  kind         end <-> end expected end: detail" (ends as far as known). */
static void text_problem(FILE *f, const struct topo_problem *p, const char *bad_on,
			 const char *bad_off)
{
	const struct {
		bool has;
		const char *what;
		const struct topo_end *e;
	} ends[] = {
		{ p->has_a, "", &p->a }, { p->has_b, "<-> ", &p->b },
		{ p->has_expected, "expected ", &p->expected },
	};
	struct line ln;		/* not zeroed: 4 KiB a line */
	size_t from;

	ln.len = 0;

	line_put(&ln, bad_on);
	line_put(&ln, "  ");
	from = ln.len;
	line_put(&ln, topo_problem_kind_name(p->kind));
	line_pad(&ln, from, 12);
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		if (!ends[i].has)
			continue;
		line_put(&ln, " ");
		line_put(&ln, ends[i].what);
		line_end(&ln, *ends[i].e->node ? ends[i].e->node : "?", ends[i].e->port,
			 ends[i].e->port_name);
	}
	if (*p->detail) {
		line_put(&ln, ": ");
		line_txt(&ln, p->detail);
	}
	line_put(&ln, bad_off);
	line_put(&ln, "\n");
	fwrite(ln.buf, 1, ln.len, f);
}

/* ---- ib checks (discover --checks): one line per family, tiers and SMs one each ---- */

static void line_out(FILE *f, struct line *ln)
{
	line_put(ln, "\n");
	fwrite(ln->buf, 1, ln->len, f);
	ln->len = 0;
}

/* "  family:       " or the same width blank, then the text. */
static void line_head(struct line *ln, const char *family)
{
	size_t from;

	line_put(ln, "  ");
	from = ln->len;
	if (family) {
		line_put(ln, family);
		line_put(ln, ":");
	}
	line_pad(ln, from, 14);
}

static void text_skipped(FILE *f, const char *family, const char *why)
{
	struct line ln = { 0 };

	line_head(&ln, family);
	line_put(&ln, "skipped: ");
	line_put(&ln, why);
	line_out(f, &ln);
}

static void text_tiers(FILE *f, const struct ib_balance_report *b)
{
	for (size_t i = 0; i < b->n_tiers; i++) {
		const struct ib_tier *tr = &b->tiers[i];
		char buf[160];
		struct line ln = { 0 };

		line_head(&ln, i ? NULL : "balance");
		snprintf(buf, sizeof(buf), "%-8s %zu links, routes min %u median %u max %u, "
			 "%zu over %dx median", tr->name, tr->n_links, tr->min, tr->median, tr->max,
			 tr->n_outliers, IB_BALANCE_FACTOR);
		line_put(&ln, buf);
		line_out(f, &ln);
	}
}

/* Per VL: "  vl 0  7 channels, 6 dependencies, 0 loops", then how the lanes were known. */
static void text_credit_vls(FILE *f, const struct ib_credit_report *cr)
{
	char buf[400];
	struct line ln = { 0 };

	for (size_t i = 0; i < cr->n_per_vl; i++) {
		ln.len = 0;
		line_head(&ln, NULL);
		snprintf(buf, sizeof(buf), "  vl %-2u %zu channels, %zu dependencies, %zu loop%s",
			 cr->per_vl[i].vl, cr->per_vl[i].n_channels, cr->per_vl[i].n_deps,
			 cr->per_vl[i].n_loops, cr->per_vl[i].n_loops == 1 ? "" : "s");
		line_put(&ln, buf);
		line_out(f, &ln);
	}
	ln.len = 0;
	line_head(&ln, NULL);
	snprintf(buf, sizeof(buf), "  %zu sl2vl tables, path sls: %s; %zu dependencies and %zu "
		 "loops across vls, %zu hops without a table, %zu routes dropped (vl 15)",
		 cr->n_tables, cr->path_sls, cr->n_cross_deps, cr->n_cross_loops, cr->n_unmapped,
		 cr->n_dropped);
	line_put(&ln, buf);
	line_out(f, &ln);
}

static void text_sms(FILE *f, const struct topo *t, const struct ib_sm_report *r)
{
	char buf[200];
	struct line ln = { 0 };

	line_head(&ln, "sm");
	snprintf(buf, sizeof(buf), "%zu master%s, %zu standby, %zu silent, %s", r->n_masters,
		 r->n_masters == 1 ? "" : "s", r->n_standby, r->n_silent,
		 r->agree ? "in agreement" : "not in agreement");
	line_put(&ln, buf);
	line_out(f, &ln);
	for (size_t i = 0; i < t->n_sms; i++) {
		const struct topo_sm *m = &t->sms[i];

		line_head(&ln, NULL);
		line_end(&ln, m->port->node->name, m->port->num, m->port->name);
		if (m->answered)
			snprintf(buf, sizeof(buf), " lid %u: %s, priority %u, guid 0x%016" PRIx64
				 ", act_count %u", m->port->lid, topo_sm_state_name(m->state),
				 m->priority, m->guid, m->act_count);
		else
			snprintf(buf, sizeof(buf), " lid %u: no answer to SMInfo", m->port->lid);
		line_put(&ln, buf);
		line_out(f, &ln);
	}
}

static void text_ib_checks(FILE *f, const struct topo *t, const struct ib_checks *c)
{
	char buf[256];
	struct line ln = { 0 };

	fprintf(f, "\nib checks:\n");
	if ((c->families & IB_CHECK_ROUTES) && c->routes.skipped)
		text_skipped(f, "routes", c->routes.skipped);
	else if (c->families & IB_CHECK_ROUTES) {
		line_head(&ln, "routes");
		snprintf(buf, sizeof(buf), "%zu ca ports, %zu lids, %zu pairs, %zu unreachable",
			 c->routes.n_cas, c->routes.n_lids, c->routes.n_pairs, c->routes.n_unreachable);
		line_put(&ln, buf);
		line_out(f, &ln);
	}
	if ((c->families & IB_CHECK_CREDIT) && c->credit.skipped)
		text_skipped(f, "credit-loops", c->credit.skipped);
	else if (c->families & IB_CHECK_CREDIT) {
		line_head(&ln, "credit-loops");
		snprintf(buf, sizeof(buf), "%zu loop%s (%u vl%s, %zu switch channels, %zu "
			 "dependencies)", c->credit.n_loops, c->credit.n_loops == 1 ? "" : "s",
			 c->credit.vls, c->credit.by_vl ? "s by sl2vl" : "", c->credit.n_channels,
			 c->credit.n_deps);
		line_put(&ln, buf);
		line_out(f, &ln);
		if (c->credit.by_vl)
			text_credit_vls(f, &c->credit);
	}
	if ((c->families & IB_CHECK_BALANCE) && c->balance.skipped)
		text_skipped(f, "balance", c->balance.skipped);
	else if (c->families & IB_CHECK_BALANCE)
		text_tiers(f, &c->balance);
	if (c->families & IB_CHECK_IDS) {
		line_head(&ln, "ids");
		snprintf(buf, sizeof(buf), "%zu lids, lmc %u..%u, %zu duplicate guids, %zu duplicate "
			 "lids, %zu zero lids, %zu unaligned", c->ids.n_lids, c->ids.lmc_min,
			 c->ids.lmc_max, c->ids.n_dup_guids, c->ids.n_dup_lids, c->ids.n_zero_lids,
			 c->ids.n_unaligned);
		line_put(&ln, buf);
		line_out(f, &ln);
	}
	if ((c->families & IB_CHECK_SM) && c->sm.skipped)
		text_skipped(f, "sm", c->sm.skipped);
	else if (c->families & IB_CHECK_SM)
		text_sms(f, t, &c->sm);
}

int discover_text(struct render *out, const struct topo *t)
{
	const char *bad_on = out->color ? "\033[31m" : "", *bad_off = out->color ? "\033[0m" : "";
	size_t n_sw = 0, n_ca = 0, n_host = 0, wa, wb;
	FILE *f = out->f;

	for (size_t i = 0; i < t->n_nodes; i++) {
		n_sw += t->nodes[i]->type == TOPO_NODE_SWITCH;
		n_ca += t->nodes[i]->type == TOPO_NODE_CA;
		n_host += t->nodes[i]->type == TOPO_NODE_HOST;
	}
	end_widths(t, &wa, &wb);
	for (size_t i = 0; i < t->n_links; i++)
		text_link(f, t->links[i], wa, wb, bad_on, bad_off);
	if (t->n_problems)
		fprintf(f, "\nproblems:\n");
	for (size_t i = 0; i < t->n_problems; i++)
		text_problem(f, &t->problems[i], bad_on, bad_off);
	if (t->ib_checks)
		text_ib_checks(f, t, t->ib_checks);
	discover_optics_text(f, t->optics);	/* nothing when no host has a module */
	fprintf(f, "\n%zu node%s (%zu switch%s, %zu ca%s, %zu host%s), %zu link%s, %zu problem%s\n",
		t->n_nodes, t->n_nodes == 1 ? "" : "s", n_sw, n_sw == 1 ? "" : "es",
		n_ca, n_ca == 1 ? "" : "s", n_host, n_host == 1 ? "" : "s",
		t->n_links, t->n_links == 1 ? "" : "s", t->n_problems, t->n_problems == 1 ? "" : "s");
	return fflush(f) == EOF ? -EIO : 0;
}
