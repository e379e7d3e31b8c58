// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep, text: a summary line, the bandwidth matrix (row sends to column,
 * Gb/s; '*' slow, 'v' regressed against --baseline, 'X' failed), the latency matrix (median round trip, us),
 * the pairs that are not ok, and the suspects, most suspect first.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/localize.h"
#include "model/path.h"
#include "model/sweep_judge.h"
#include "model/topo.h"
#include "render/render_impl.h"

/* Hosts above this: no matrix (a row of 64 columns is already 500 characters). */
#define SWEEP_TEXT_MATRIX_MAX 64
/* Pairs not ok listed in text; the rest are counted. */
#define SWEEP_TEXT_NOT_OK_MAX 200

/* A host's group: its leaf in the topology, else its leaf= label, else "". */
static const char *group_name(const struct sweep_report *r, size_t i)
{
	const struct sweep_fabric_view *v = &r->fabric;

	if (v->topo && v->host_leaf && v->host_leaf[i] < v->topo->n_nodes)
		return v->topo->nodes[v->host_leaf[i]]->name;
	return r->hosts->hosts[i].leaf;
}

struct order_ctx {
	const struct sweep_report *r;
};

static int order_cmp(const void *x, const void *y, void *arg)
{
	const struct sweep_report *r = ((const struct order_ctx *)arg)->r;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = strcmp(group_name(r, a), group_name(r, b));

	return c ? c : (a > b) - (a < b);
}

/* Hosts ordered by group (leaf), then as listed; NULL on ENOMEM. */
static size_t *host_order(const struct sweep_report *r)
{
	size_t *o = calloc(r->hosts->n ? r->hosts->n : 1, sizeof(*o));
	struct order_ctx oc = { r };

	if (!o)
		return NULL;
	for (size_t i = 0; i < r->hosts->n; i++)
		o[i] = i;
	qsort_r(o, r->hosts->n, sizeof(*o), order_cmp, &oc);
	return o;
}

static bool group_starts(const struct sweep_report *r, const size_t *o, size_t k)
{
	return k > 0 && strcmp(group_name(r, o[k]), group_name(r, o[k - 1])) != 0;
}

/* The matrices' pairs, by host pair: cell[a * n + b] (both orders), NULL none. */
struct cells {
	size_t n;
	struct sweep_pair *pairs;
	const struct sweep_pair **cell;
	size_t k;
};

static int cells_add(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct cells *c = ctx;

	c->pairs[c->k] = *p;
	c->cell[p->a * c->n + p->b] = c->cell[p->b * c->n + p->a] = &c->pairs[c->k++];
	return 0;
}

static int cells_load(struct cells *c, const struct sweep_report *r)
{
	c->n = r->hosts->n;
	c->k = 0;
	c->pairs = calloc(r->n_pairs ? r->n_pairs : 1, sizeof(*c->pairs));
	c->cell = calloc(c->n ? c->n * c->n : 1, sizeof(*c->cell));
	if (!c->pairs || !c->cell)
		return -ENOMEM;
	return sweep_pairs_each(r, cells_add, c);
}

static void cells_fini(struct cells *c)
{
	free(c->pairs);
	free(c->cell);
}

static const char *mark(const struct render *out, const struct sweep_pair *p)
{
	if (p->status == SWEEP_OK)
		return out->color ? "\033[0m " : " ";
	if (p->status == SWEEP_REGRESSED)
		return out->color ? "v\033[0m" : "v";
	return out->color ? "*\033[0m" : "*";
}

static void cell(FILE *f, const struct render *out, const struct sweep_pair *p,
		 double v, bool have, int w)
{
	char buf[32];

	if (!p) {
		fprintf(f, " %*s ", w, "-");
		return;
	}
	if (p->status == SWEEP_FAILED || !have) {
		fprintf(f, " %s%*s%s", out->color && p->status == SWEEP_FAILED ? "\033[31m" : "",
			w, p->status == SWEEP_FAILED ? "X" : "-",
			out->color && p->status == SWEEP_FAILED ? "\033[0m " : " ");
		return;
	}
	snprintf(buf, sizeof(buf), "%.*f", v < 10 ? 2 : 1, v);
	fprintf(f, " %s%*s%s", out->color && (p->status == SWEEP_SLOW || p->status == SWEEP_REGRESSED)
		? "\033[31m" : "", w, buf,
		mark(out, p));
}

/*
 * Rows and columns ordered by leaf (or IB switch) with a separator
 * between groups: '|' between column groups, a "-- leaf --" line before
 * each row group when there is more than one.
 */
static void matrix(FILE *f, const struct render *out, struct render_txt *tx,
		   const struct sweep_report *r, const struct cells *c, const size_t *o, size_t n,
		   const char *title, bool lat, int w, int nw)
{
	bool groups = n && strcmp(group_name(r, o[0]), group_name(r, o[n - 1])) != 0;

	/* Columns are numbered like the rows: names may be long. */
	fprintf(f, "%s\n%-*s", title, nw + 5, "");
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%s %*zu ", group_starts(r, o, k) ? "|" : "", w, k + 1);
	fputc('\n', f);
	for (size_t ka = 0; ka < n; ka++) {
		size_t a = o[ka];

		if (groups && (ka == 0 || group_starts(r, o, ka)))
			fprintf(f, "-- %s --\n", group_name(r, a)[0] ? render_txt(tx, group_name(r, a))
				: "(no leaf)");
		fprintf(f, "%3zu  %-*.*s", ka + 1, nw, nw, render_txt(tx, r->hosts->hosts[a].name));
		for (size_t kb = 0; kb < n; kb++) {
			size_t b = o[kb];
			const struct sweep_pair *p = a == b ? NULL : c->cell[a * c->n + b];

			if (group_starts(r, o, kb))
				fputc('|', f);
			if (a == b) {
				fprintf(f, " %*s ", w, ".");
			} else if (lat) {
				cell(f, out, p, p ? p->lat_ns.p50 / 1000 : 0, p && p->have_lat, w);
			} else {
				const struct sweep_bw *bw = p && p->a == a ? &p->ab : p ? &p->ba : NULL;

				cell(f, out, p, bw ? bw->avg_mbps / 1000 : 0, bw && bw->measured, w);
			}
		}
		fputc('\n', f);
	}
	fputc('\n', f);
}

static void port_text(FILE *f, struct render_txt *tx, const struct topo_port *p)
{
	char buf[256];

	topo_port_text(p, buf, sizeof(buf));
	fputs(render_txt(tx, buf), f);
}

/*
 * The pairs a sweep of @hs can measure: n(n-1)/2, or with rails NIC i to
 * NIC i of another host (hosts_ports_pair()).
 */
static size_t pairs_possible(const struct fab_hosts *hs)
{
	size_t n = hs->n, k = 0;

	if (!hosts_have_rails(hs))
		return n * (n - 1) / 2;
	for (size_t a = 0; a < n; a++)
		for (size_t b = a + 1; b < n; b++)
			k += hosts_ports_pair(&hs->hosts[a], &hs->hosts[b], false);
	return k;
}

/* "topology lldp: 14 nodes, 13 links; 9 hosts on 3 leaves; 29 rounds, lower bound 27 (...)". */
static void topology_line(FILE *f, struct render_txt *tx, const struct sweep_report *r)
{
	const struct sweep_fabric_view *v = &r->fabric;
	size_t leaves = 0;

	if (!v->source || !v->topo)
		return;
	for (size_t i = 0; i < r->hosts->n; i++) {
		size_t j = 0;

		while (j < i && v->host_leaf[j] != v->host_leaf[i])
			j++;
		leaves += j == i;
	}
	fprintf(f, "topology %s: %zu nodes, %zu links; %zu hosts on %zu leaves", render_txt(tx, v->source),
		v->topo->n_nodes, v->topo->n_links, r->hosts->n, leaves);
	if (v->have_bound)
		fprintf(f, "; %zu rounds, lower bound %zu (node %zu, link %zu, cut %zu)", r->n_rounds,
			v->bound, v->bound_node, v->bound_link, v->bound_cut);
	fputc('\n', f);
	if (v->cov_k) {
		fprintf(f, "coverage %u: %zu pairs of %zu; %zu of %zu links crossed by >= %u pairs",
			v->cov_k, r->n_pairs, pairs_possible(r->hosts),
			v->cov_links_target - v->cov_links_short, v->cov_links_target, v->cov_k);
		if (v->cov_links_unreachable)
			fprintf(f, ", %zu no pair can cross", v->cov_links_unreachable);
		if (v->cov_hosts_short)
			fprintf(f, "; %zu hosts in fewer than %u pairs", v->cov_hosts_short, v->cov_k);
		fputc('\n', f);
	}
}

/* --steer: "steer: N pairs steered, M fell back (silent K, ...)", or why nothing was. */
static void steer_line(FILE *f, struct render_txt *tx, const struct sweep_report *r)
{
	const struct sweep_steer_view *v = r->fabric.steer;

	if (!v)
		return;
	if (v->whole) {
		fprintf(f, "steer: none (%s); rounds count whole ECMP sets\n",
			render_txt(tx, v->skipped ? v->skipped : "not applied"));
		return;
	}
	if (!v->fact) {		/* --dry-run */
		fprintf(f, "steer: %zu rounds as if every cross-leaf test could be steered "
			"(whole ECMP sets: %zu)\n", r->n_rounds, v->rounds_whole);
		return;
	}
	fprintf(f, "steer: %zu pairs steered, %zu fell back", v->steered, v->fallback);
	for (size_t i = 0; i < v->n_why; i++)
		fprintf(f, "%s%s %zu", i ? ", " : " (", render_txt(tx, v->by_why[i].why),
			v->by_why[i].n);
	fprintf(f, "%s; %zu rounds on per-member loads (whole sets: %zu)", v->n_why ? ")" : "",
		r->n_rounds, v->rounds_whole);
	if (v->windows)
		fprintf(f, "; traced %u base rounds at a time", v->windows);
	fputc('\n', f);
}

struct plan_ctx {
	const struct sweep_report *r;
	struct render_txt *tx;
	size_t round;		/* the last round begun */
	FILE *f;
};

/* --dry-run: each round's pairs (the store holds them round by round). */
static int plan_round(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct plan_ctx *c = ctx;
	const struct sweep_report *r = c->r;
	FILE *f = c->f;
	bool first = false;

	while (c->round < p->round) {
		fprintf(f, "%sround %zu:", c->round ? "\n" : "", c->round + 1);
		c->round++;
		first = true;
	}
	/* "a <-> b, c <-> d": neither separator can be in a name ('-' can). */
	fprintf(f, "%s %s <-> %s", first ? "" : ",", render_txt(c->tx, r->hosts->hosts[p->a].name),
		render_txt(c->tx, r->hosts->hosts[p->b].name));
	return ferror(f) ? -EIO : 0;
}

/* --dry-run: a pair's class, expected rate and paths. */
static int plan_path(void *ctx, size_t i, const struct sweep_pair *p)
{
	const struct sweep_report *r = ((struct plan_ctx *)ctx)->r;
	struct render_txt *tx = ((struct plan_ctx *)ctx)->tx;
	FILE *f = ((struct plan_ctx *)ctx)->f;
	const struct sweep_fabric_view *v = &r->fabric;
	struct pair_route tmp = { 0 };
	const struct pair_route *pr = sweep_pair_route(r, i, p, &tmp);

	fprintf(f, "  %s %s: class %u, ", render_txt(tx, r->hosts->hosts[p->a].name),
		render_txt(tx, r->hosts->hosts[p->b].name), p->klass);
	if (p->expected_mbps > 0)
		fprintf(f, "expected %.0f Mb/s", p->expected_mbps);
	else
		fprintf(f, "no rated speed");
	for (size_t k = 0; pr && k < pr->n_ab; k++) {
		fprintf(f, "\n    ");
		for (size_t h = 0; h < pr->ab[k].n_hops; h++) {
			const struct topo_link *l = v->topo->links[pr->ab[k].hops[h].link];
			bool fwd = pr->ab[k].hops[h].fwd;

			if (h)
				fputs(" -> ", f);
			port_text(f, tx, fwd ? l->a : l->b);
			fputs(" > ", f);
			port_text(f, tx, fwd ? l->b : l->a);
		}
	}
	fputc('\n', f);
	pair_route_fini(&tmp);
	return ferror(f) ? -EIO : 0;
}

static int plan_text(FILE *f, struct render_txt *tx, const struct sweep_report *r)
{
	struct plan_ctx c = { .r = r, .tx = tx, .f = f };

	if (sweep_pairs_each(r, plan_round, &c) < 0)
		return -EIO;
	while (c.round < r->n_rounds) {	/* rounds with no pair */
		fprintf(f, "%sround %zu:", c.round ? "\n" : "", c.round + 1);
		c.round++;
	}
	if (c.round)
		fputc('\n', f);
	if (!r->fabric.topo || r->n_pairs > SWEEP_PATHS_MAX_PAIRS)
		return 0;
	fprintf(f, "\npaths (a -> b; every equal-cost path, or the forwarding tables' route):\n");
	return sweep_pairs_each(r, plan_path, &c);
}

/*
 * What made the suspects' pairs bad, as a word: "slow", or "regressed"
 * when --baseline found regressed pairs and none was slow (both: "slow or
 * regressed").  The localiser counts both alike (a bad pair below its
 * figures), and a percentage of the expected rate is not "slow" when
 * every bad pair was only below the baseline's.
 */
static const char *bad_word(const struct sweep_report *r)
{
	if (!r->n_regressed)
		return "slow";
	return r->n_slow ? "slow or regressed" : "regressed";
}

/*
 * "slow link: leaf3 swp49 <-> spine1 swp3 - 12 of 12 pairs crossing it
 * slow, 0 of 16 others", a node's access link, or a group ("one of").
 */
static void loc_text(FILE *f, struct render_txt *tx, const struct sweep_report *r)
{
	const struct loc_result *lr = r->fabric.loc;
	const char *bad = bad_word(r);

	if (!lr->n_suspects) {
		fprintf(f, "suspects: none%s\n", lr->n_bad ? " (the bad pairs share no link: noise, or a "
			"fault off every path)" : "");
		return;
	}
	fprintf(f, "suspects:\n");
	for (size_t i = 0; i < lr->n_suspects; i++) {
		const struct loc_suspect *s = &lr->suspects[i];
		const struct loc_evidence *e = &s->ev;
		char m[256];

		loc_member_text(r->fabric.loc_in, &s->members[0], m, sizeof(m));
		if (s->kind == LOC_KIND_GROUP) {
			fprintf(f, "  %zu. one of %zu links (score %.2f):", i + 1, s->n_members, s->score);
			for (size_t k = 0; k < s->n_members; k++) {
				loc_member_text(r->fabric.loc_in, &s->members[k], m, sizeof(m));
				fprintf(f, "\n       %s", render_txt(tx, m));
			}
			fputs("\n     ", f);
		} else {
			fprintf(f, "  %zu. %s %s: %s (score %.2f)\n     ", i + 1, bad,
				s->kind == LOC_KIND_NODE ? "node" : "link", render_txt(tx, m), s->score);
		}
		fprintf(f, "%u of %u pairs crossing %s bad, %u of %u others", e->cross_bad, e->cross_n,
			s->kind == LOC_KIND_GROUP ? "them" : "it", e->other_bad, e->other_n);
		if (e->cross_pct_median >= 0)
			fprintf(f, "; %s pairs at %.0f%% of expected (median)", bad,
				e->cross_pct_median);
		if (e->probes_run)
			fprintf(f, "; %u probe%s, %u bad", e->probes_run, e->probes_run == 1 ? "" : "s",
				e->probes_bad);
		fputc('\n', f);
		for (size_t k = 0; k < s->n_counters; k++) {
			const struct counter_finding *c = &s->counters[k];

			fputs("     ", f);
			port_text(f, tx, c->port);
			fprintf(f, " %s +%llu (%s, threshold %llu)\n", render_txt(tx, c->name),
				(unsigned long long)c->delta, counter_sev_name(c->sev),
				(unsigned long long)c->threshold);
		}
		if (s->note[0])
			fprintf(f, "     %s\n", render_txt(tx, s->note));
	}
	if (lr->n_unexplained)
		fprintf(f, "  (%u bad pair%s explained by no suspect)\n", lr->n_unexplained,
			lr->n_unexplained == 1 ? "" : "s");
}

struct not_ok_ctx {
	const struct sweep_report *r;
	struct render_txt *tx;
	FILE *f;
	int nw;
	size_t shown, left;
};

static int not_ok_line(void *ctx, size_t i, const struct sweep_pair *p)
{
	struct not_ok_ctx *c = ctx;

	if (p->status == SWEEP_OK || p->status == SWEEP_PLANNED)
		return 0;
	if (c->shown == SWEEP_TEXT_NOT_OK_MAX) {
		c->left++;
		return 0;
	}
	c->shown++;
	fprintf(c->f, "  %-*s %-*s %-6s %s%s\n", c->nw, render_txt(c->tx, c->r->hosts->hosts[p->a].name),
		c->nw, render_txt(c->tx, c->r->hosts->hosts[p->b].name), sweep_status_name(p->status),
		render_txt(c->tx, p->reason),
		p->retested ? " (confirmed by retest)" : "");
	return ferror(c->f) ? -EIO : 0;
}

/*
 * The end points of rail @rail (and those of no rail) of @o, in order,
 * into @sub; their count.
 */
static size_t rail_order(const struct sweep_report *r, const size_t *o, int rail, size_t *sub)
{
	size_t n = 0;

	for (size_t k = 0; k < r->hosts->n; k++)
		if (r->hosts->hosts[o[k]].rail == rail || r->hosts->hosts[o[k]].rail < 0)
			sub[n++] = o[k];
	return n;
}

/* The highest rail of the end points, -1 with none. */
static int rail_max(const struct sweep_report *r)
{
	int m = -1;

	for (size_t i = 0; i < r->hosts->n; i++)
		if (r->hosts->hosts[i].rail > m)
			m = r->hosts->hosts[i].rail;
	return m;
}

/* Some pair among the end points @o[0..n) (a rail's matrix is worth printing). */
static bool any_cell(const struct cells *c, const size_t *o, size_t n)
{
	for (size_t i = 0; c->cell && i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (c->cell[o[i] * c->n + o[j]])
				return true;
	return false;
}

/* Hosts of the end points (their first ports). */
static size_t rails_hosts(const struct sweep_report *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->hosts->n; i++)
		n += r->hosts->hosts[i].port == 0;
	return n;
}

/*
 * Both matrices, once for the whole fleet or, for hosts of several
 * ports, once a rail ("bandwidth Gb/s, rail 1 (row sends ...)").
 */
static int matrices_text(FILE *f, const struct render *out, struct render_txt *tx,
			 const struct sweep_report *r, const struct cells *c, const size_t *o,
			 int w, int nw)
{
	static const char *const bw_title[] = { "bandwidth Gb/s", " (row sends to column; * slow, X failed)",
		" (row sends to column; * slow, v regressed: below the baseline's, X failed)" };
	static const char *const lat_title[] = { "latency us", " (median round trip; * slow, X failed)",
		" (median round trip; * slow, v regressed: bandwidth below the baseline's, X failed)" };
	size_t *sub = calloc(r->hosts->n ? r->hosts->n : 1, sizeof(*sub));
	int last = r->rails ? rail_max(r) : -1;
	char title[200], rail[32] = "";

	if (!sub)
		return -ENOMEM;
	for (int k = r->rails ? 0 : -1; k <= last || k == -1; k++) {
		size_t n = r->rails ? rail_order(r, o, k, sub) : r->hosts->n;

		if (r->rails && (n < 2 || !any_cell(c, sub, n)))
			continue;
		if (r->rails)
			snprintf(rail, sizeof(rail), ", rail %d", k);
		/* A regressed pair (by its bandwidth) is marked in both matrices. */
		snprintf(title, sizeof(title), "%s%s%s", bw_title[0], rail, bw_title[r->baseline.file ? 2 : 1]);
		if (r->duration_ms)
			matrix(f, out, tx, r, c, r->rails ? sub : o, n, title, false, w, nw);
		snprintf(title, sizeof(title), "%s%s%s", lat_title[0], rail,
			 lat_title[r->baseline.file || r->n_regressed ? 2 : 1]);
		if (r->lat_iters)
			matrix(f, out, tx, r, c, r->rails ? sub : o, n, title, true, w, nw);
		if (k == -1)
			break;
	}
	free(sub);
	return 0;
}

int sweep_text(struct render *out, const struct sweep_report *r)
{
	FILE *f = out->f;
	struct render_txt *tx = malloc(sizeof(*tx));
	struct cells c = { 0 };
	size_t *o = host_order(r);
	bool matrices = r->hosts->n <= SWEEP_TEXT_MATRIX_MAX;
	int w = 7, nw = 4, rc = 0;

	if (!o || !tx) {
		free(o);
		free(tx);
		return -ENOMEM;
	}
	tx->next = 0;
	for (size_t i = 0; i < r->hosts->n; i++) {
		int len = (int)strlen(r->hosts->hosts[i].name);

		if (len > nw)
			nw = len;
	}
	if (nw > 32)
		nw = 32;
	if (r->dry_run) {
		fprintf(f, "sweep --dry-run: %zu nodes, %zu pairs in %zu rounds (%s)\n", r->hosts->n,
			r->n_pairs, r->n_rounds, render_txt(tx, r->mode));
		topology_line(f, tx, r);
		steer_line(f, tx, r);
		rc = plan_text(f, tx, r);
		free(o);
		free(tx);
		return rc < 0 || fflush(f) == EOF ? -EIO : 0;
	}
	/* Rounds 0 with pairs: a loaded document that does not say (diagnose --from). */
	fprintf(f, "sweep: %zu nodes", r->hosts->n);
	if (r->rails)
		fprintf(f, " (end points: %zu hosts, %d rails)", rails_hosts(r), rail_max(r) + 1);
	fprintf(f, ", %zu pairs", r->n_pairs);
	if (r->n_rounds || !r->n_pairs)
		fprintf(f, " in %zu rounds", r->n_rounds);
	fprintf(f, " (%s, %s, %s): %zu ok, %zu slow, %zu failed", render_txt(tx, r->transport),
		render_txt(tx, r->launcher), render_txt(tx, r->mode), r->n_ok, r->n_slow, r->n_failed);
	if (r->baseline.file || r->n_regressed)
		fprintf(f, ", %zu regressed", r->n_regressed);
	if (r->legs)	/* dual-homed legs (sweep_legs.c): what else makes the exit 1 */
		fprintf(f, "; %zu dual-homed leg%s not ok", r->n_legs_bad,
			r->n_legs_bad == 1 ? "" : "s");
	if (r->n_legs_unanswered)	/* a worker did not answer the bond request */
		fprintf(f, "; legs of %zu host%s not measured", r->n_legs_unanswered,
			r->n_legs_unanswered == 1 ? "" : "s");
	fputc('\n', f);
	if (r->baseline.file)
		fprintf(f, "baseline %s: %zu pairs compared, %zu regressed (fell more than %.0f%%)\n",
			render_txt(tx, r->baseline.file), r->baseline.compared, r->n_regressed, r->baseline.regress_pct);
	if (r->interrupted && r->stop_error[0])
		fprintf(f, "stopped by an error after %zu of %zu rounds (%s): only the %zu pairs "
			"measured before it are shown\n", r->rounds_done, r->n_rounds, render_txt(tx, r->stop_error),
			r->n_pairs);
	else if (r->interrupted)
		fprintf(f, "interrupted: %zu of %zu rounds finished, only their pairs are shown\n",
			r->rounds_done, r->n_rounds);
	if (r->launch.dial)
		fprintf(f, "launch: collective, %u joined; refused %u wrong token, %u unknown host, %u wrong source, %u duplicate, %u not a join request, %u idle\n",
			r->launch.n.joined, r->launch.n.wrong_token, r->launch.n.unknown_host,
			r->launch.n.wrong_source, r->launch.n.duplicate, r->launch.n.not_join,
			r->launch.n.idle);
	topology_line(f, tx, r);
	steer_line(f, tx, r);
	if (!isnan(r->ref.bw_median_mbps))
		fprintf(f, "fleet median %.2f Gb/s (MAD %.2f)", r->ref.bw_median_mbps / 1000,
			r->ref.bw_mad_mbps / 1000);
	if (!isnan(r->ref.lat_median_ns))
		fprintf(f, "%slatency median %.1f us", isnan(r->ref.bw_median_mbps) ? "" : ", ",
			r->ref.lat_median_ns / 1000);
	if (!isnan(r->wall_s))	/* NAN: not known (a loaded document without it) */
		fprintf(f, "%swall %.1f s", isnan(r->ref.bw_median_mbps) &&
			isnan(r->ref.lat_median_ns) ? "" : ", ", r->wall_s);
	if (!isnan(r->wall_s) || !isnan(r->ref.bw_median_mbps) || !isnan(r->ref.lat_median_ns))
		fputc('\n', f);
	fputc('\n', f);
	if (!matrices) {
		fprintf(f, "(%zu nodes: the matrices are shown up to %d; -j, --csv FILE or --html FILE "
			   "has every pair)\n\n", r->hosts->n, SWEEP_TEXT_MATRIX_MAX);
	} else if ((r->duration_ms || r->lat_iters) && cells_load(&c, r) < 0) {
		rc = -EIO;
		goto out;
	}
	if (matrices && matrices_text(f, out, tx, r, &c, o, w, nw) < 0) {
		rc = -EIO;
		goto out;
	}
	if (r->n_slow + r->n_failed + r->n_regressed) {
		struct not_ok_ctx nc = { .r = r, .tx = tx, .f = f, .nw = nw };

		fprintf(f, "pairs not ok:\n");
		if (sweep_pairs_each(r, not_ok_line, &nc) < 0) {
			rc = -EIO;
			goto out;
		}
		if (nc.left)
			fprintf(f, "  ... and %zu more (-j or --csv FILE lists them all)\n", nc.left);
		fputc('\n', f);
	}
	if (sweep_legs_text(f, tx, r) < 0) {
		rc = -EIO;
		goto out;
	}
	if (r->n_not_started) {
		size_t k = 0;

		fprintf(f, "workers that did not start (launcher %s; their pairs failed unmeasured, "
			   "not a fabric fault):", r->launcher);
		for (size_t i = 0; r->not_started && i < r->hosts->n; i++)
			if (r->not_started[i])
				fprintf(f, "%s %s", k++ ? "," : "", r->hosts->hosts[i].name);
		fputs("\n\n", f);
	}
	if (r->fabric.loc) {
		loc_text(f, tx, r);
	} else if (r->n_suspects) {
		fprintf(f, "suspects:\n");
		for (size_t i = 0; i < r->n_suspects; i++) {
			const struct sweep_suspect *s = &r->suspects[i];

			if (s->is_node)
				fprintf(f, "  %zu. node %s (score %.2f): %s\n", i + 1,
					render_txt(tx, r->hosts->hosts[s->node].name), s->score,
					render_txt(tx, s->evidence));
			else
				fprintf(f, "  %zu. link %s - %s (score %.2f): %s\n", i + 1,
					render_txt(tx, r->hosts->hosts[s->a].name),
					render_txt(tx, r->hosts->hosts[s->b].name), s->score,
					render_txt(tx, s->evidence));
		}
		if (r->suspects_left_out)
			fprintf(f, "  (%zu more single-pair link suspects left out)\n", r->suspects_left_out);
	} else {
		fprintf(f, "suspects: none\n");
	}
out:
	cells_fini(&c);
	free(o);
	free(tx);
	return rc < 0 || fflush(f) == EOF ? -EIO : 0;
}
