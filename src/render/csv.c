// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * CSV (RFC 4180): sweep --csv FILE (one row per pair) and discover --csv
 * (one row per link); docs/sweep.md and docs/discover.md list the
 * columns.  A header line first; records end in CRLF; a field holding a
 * comma, a double quote, CR or LF, or starting or ending in a space is
 * enclosed in double quotes with its quotes doubled.  An unknown figure
 * is an empty field.  Text from the wire that is not UTF-8 has its
 * non-ASCII bytes replaced by '?', as in the JSON documents.
 *
 * A text field a spreadsheet would take for a formula (starting with =,
 * +, -, @, tab or CR: a host or LLDP system name, a reason) is
 * neutralised as OWASP's "CSV Injection" advises: a single quote is put
 * before it and the field is quoted, so "=cmd|' /C calc'!A0" is written
 * "'=cmd|' /C calc'!A0" and read back as text.  Numbers are not text
 * fields: a negative figure stays a number.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/bond_legs.h"
#include "model/path.h"
#include "model/sweep_judge.h"
#include "model/topo.h"
#include "render/render_impl.h"
#include "util/file.h"

/* A text that would start a formula in a spreadsheet (OWASP's list). */
static bool csv_formula(const char *s)
{
	return s && *s && strchr("=+-@\t\r", *s);
}

void csv_field(FILE *f, const char *s)
{
	size_t len = s ? strlen(s) : 0;
	bool formula = csv_formula(s);
	bool quote = len && (formula || strpbrk(s, ",\"\r\n") || s[0] == ' ' || s[len - 1] == ' ');

	if (!quote) {
		if (len)
			fputs(s, f);
		return;
	}
	fputc('"', f);
	if (formula)
		fputc('\'', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* Text that came off the wire: csv_field() of its UTF-8 form (json_text()). */
static void csv_text(FILE *f, const char *s)
{
	json_t *j = s && *s ? json_text(s) : NULL;

	csv_field(f, j ? json_string_value(j) : NULL);
	json_decref(j);
}

/* ",%.*f", or "," alone when @v is unknown (NAN or, with @pos, not above 0). */
static void csv_num(FILE *f, int prec, double v, bool pos)
{
	fputc(',', f);
	if (!isnan(v) && (!pos || v > 0))
		fprintf(f, "%.*f", prec, v);
}

static void csv_uint(FILE *f, bool known, unsigned long long v)
{
	fputc(',', f);
	if (known)
		fprintf(f, "%llu", v);
}

static void csv_end(FILE *f)
{
	fputs("\r\n", f);
}

/* ------------------------------------------------------------------ sweep */

static const char *const sweep_cols[] = {
	"a", "b", "status", "reason", "round", "retested", "first_slow", "test_s",
	"lat_min_us", "lat_p50_us", "lat_p99_us", "lat_p999_us", "lat_max_us", "lat_mean_us",
	"lat_samples",
	"bw_ab_mbps", "bw_ab_min_mbps", "bw_ab_bytes", "bw_ab_secs", "bw_ab_intervals",
	"bw_ba_mbps", "bw_ba_min_mbps", "bw_ba_bytes", "bw_ba_secs", "bw_ba_intervals",
	"bw_mbps", "expected_mbps", "expected_from", "pct_expected", "class",
	"path",
};

/* "NODE:PORT" of a link end. */
static void end_text(FILE *f, const struct topo_port *p)
{
	if (p->name[0])
		fprintf(f, "%s:%s", p->node->name, p->name);
	else
		fprintf(f, "%s:%u", p->node->name, p->num);
}

/*
 * The pair's path: every link any of its paths crosses (both directions),
 * once, in order of first use, as "A:PORT<->B:PORT" joined by "|"; quoted
 * as one field.
 */
static void path_field(FILE *f, const struct sweep_report *r, size_t i, const struct sweep_pair *p)
{
	const struct topo *t = r->fabric.topo;
	struct pair_route tmp = { 0 };
	const struct pair_route *pr = sweep_pair_route(r, i, p, &tmp);
	unsigned char *seen;
	char *buf = NULL;
	size_t len = 0;
	bool first = true;
	FILE *m;

	fputc(',', f);
	if (!t || !pr || !pr->n_ab) {
		pair_route_fini(&tmp);
		return;
	}
	seen = calloc(t->n_links ? t->n_links : 1, 1);
	m = open_memstream(&buf, &len);
	for (int d = 0; seen && m && d < 2; d++) {
		const struct path *ps = d ? pr->ba : pr->ab;
		size_t n = d ? pr->n_ba : pr->n_ab;

		for (size_t k = 0; k < n; k++)
			for (size_t h = 0; h < ps[k].n_hops; h++) {
				uint32_t l = ps[k].hops[h].link;

				if (l >= t->n_links || seen[l])
					continue;
				if (!first)
					fputc('|', m);
				first = false;
				seen[l] = 1;
				end_text(m, t->links[l]->a);
				fputs("<->", m);
				end_text(m, t->links[l]->b);
			}
	}
	if (m && fclose(m) == 0)
		csv_text(f, buf);
	free(buf);
	free(seen);
	pair_route_fini(&tmp);
}

static void bw_fields(FILE *f, const struct sweep_bw *bw)
{
	csv_num(f, 3, bw->measured ? bw->avg_mbps : NAN, false);
	csv_num(f, 3, bw->measured ? bw->min_mbps : NAN, false);
	csv_uint(f, bw->measured, bw->bytes);
	csv_num(f, 6, bw->measured ? bw->secs : NAN, false);
	csv_uint(f, bw->measured, bw->intervals);
}

/* Hosts of several ports: an end's host, NIC and rail columns (rail empty: none). */
static void rail_fields(FILE *f, const struct fab_host *h)
{
	fputc(',', f);
	csv_field(f, hosts_node(h));
	fputc(',', f);
	csv_field(f, h->nic);
	fputc(',', f);
	if (h->rail >= 0)
		fprintf(f, "%d", h->rail);
}

/* One direction's legs, "NODE MEMBER MBPS VERDICT" ("NODE MEMBER VERDICT" unmeasured), into @f. */
static void dir_csv(FILE *f, const struct bond_legs_dir *d, size_t *n)
{
	for (size_t i = 0; d->run && i < d->n_legs; i++) {
		const struct bond_leg_result *l = &d->legs[i];

		fprintf(f, "%s%s %s", (*n)++ ? "|" : "", d->node, l->member);
		if (l->sport && !l->failed)
			fprintf(f, " %.3f", l->mbps);
		fprintf(f, " %s", bond_leg_verdict_name(l->verdict));
	}
}

static void dir_csv_findings(FILE *f, const struct bond_legs_dir *d, size_t *n)
{
	for (size_t i = 0; d->run && i < d->n_legs; i++)
		if (d->legs[i].fault)
			fprintf(f, "%s%s", (*n)++ ? "|" : "", d->legs[i].finding);
}

/*
 * Pair @i's three dual-homed legs columns (render/sweep_legs.c), each after
 * a comma: legs_not_ok, legs ("NODE MEMBER MBPS VERDICT" joined by '|'),
 * legs_findings (joined by '|'); three empty fields without legs.
 */
static int legs_fields(FILE *f, const struct sweep_report *r, size_t i)
{
	const struct bond_legs_pair *lp = sweep_legs_of_pair(r, i);
	char *legs = NULL, *finds = NULL;
	size_t nl = 0, nf = 0, len;
	FILE *ml, *mf;
	int rc = 0;

	if (!lp) {
		fputs(",,,", f);
		return 0;
	}
	ml = open_memstream(&legs, &len);
	mf = open_memstream(&finds, &len);
	if (ml && mf) {
		dir_csv(ml, &lp->ab, &nl);
		dir_csv(ml, &lp->ba, &nl);
		dir_csv_findings(mf, &lp->ab, &nf);
		dir_csv_findings(mf, &lp->ba, &nf);
	}
	if (!ml || !mf || ferror(ml) || ferror(mf))
		rc = -ENOMEM;
	if (ml && fclose(ml) == EOF)
		rc = -ENOMEM;
	if (mf && fclose(mf) == EOF)
		rc = -ENOMEM;
	if (rc == 0) {
		fprintf(f, ",%zu,", lp->ab.n_bad + lp->ba.n_bad);
		csv_text(f, legs);
		fputc(',', f);
		csv_text(f, finds);
	}
	free(legs);
	free(finds);
	return rc;
}

struct row_ctx {
	FILE *f;
	const struct sweep_report *r;
};

static int sweep_row(void *ctx, size_t i, const struct sweep_pair *p)
{
	FILE *f = ((struct row_ctx *)ctx)->f;
	const struct sweep_report *r = ((struct row_ctx *)ctx)->r;
	const struct stats_summary *l = &p->lat_ns;
	double us[] = { l->min, l->p50, l->p99, l->p999, l->max, l->mean };

	csv_field(f, r->hosts->hosts[p->a].name);
	fputc(',', f);
	csv_field(f, r->hosts->hosts[p->b].name);
	fprintf(f, ",%s,", sweep_status_name(p->status));
	csv_text(f, p->status == SWEEP_OK ? NULL : p->reason);
	fprintf(f, ",%u,%d,%d,%.6f", p->round, p->retested, p->first_slow, p->test_s);
	for (size_t k = 0; k < sizeof(us) / sizeof(us[0]); k++)
		csv_num(f, 3, p->have_lat ? us[k] / 1000 : NAN, false);
	csv_uint(f, p->have_lat, l->n);
	bw_fields(f, &p->ab);
	bw_fields(f, &p->ba);
	csv_num(f, 3, sweep_pair_bw(p), false);
	csv_num(f, 3, p->expected_mbps, true);
	fprintf(f, ",%s", p->expect_src == SWEEP_EXPECT_RATED ? "rated"
			  : p->expect_src == SWEEP_EXPECT_CLASS ? "class"
			  : p->expect_src == SWEEP_EXPECT_NODES ? "nodes" : "");
	csv_num(f, 3, p->pct_rated >= 0 ? p->pct_rated : NAN, false);
	csv_uint(f, p->klass, p->klass);
	path_field(f, r, i, p);
	if (r->rails) {
		rail_fields(f, &r->hosts->hosts[p->a]);
		rail_fields(f, &r->hosts->hosts[p->b]);
	}
	if (r->legs && legs_fields(f, r, i) < 0)
		return -ENOMEM;
	csv_end(f);
	return ferror(f) ? -EIO : 0;
}

int sweep_csv(struct render *out, const struct sweep_report *r)
{
	struct row_ctx c = { out->f, r };
	FILE *f = out->f;
	int rc;

	for (size_t k = 0; k < sizeof(sweep_cols) / sizeof(sweep_cols[0]); k++)
		fprintf(f, "%s%s", k ? "," : "", sweep_cols[k]);
	if (r->rails)
		fputs(",a_host,a_nic,a_rail,b_host,b_nic,b_rail", f);
	if (r->legs)	/* dual-homed legs (render/sweep_legs.c) */
		fputs(",legs_not_ok,legs,legs_findings", f);
	csv_end(f);
	rc = sweep_pairs_each(r, sweep_row, &c);
	return rc < 0 || fflush(f) == EOF || ferror(f) ? -EIO : 0;
}

/* Written as the rows are made (a large sweep's rows do not fit in memory), then renamed. */
int sweep_csv_write(const struct sweep_report *r, const char *path, struct fab_err *err)
{
	struct file_atomic w;
	int rc = file_atomic_open(&w, path, 0644, err);

	if (rc < 0)
		return rc;
	rc = sweep_csv(&(struct render){ .ops = &render_csv_ops, .f = w.f }, r);
	return file_atomic_finish(&w, rc, err);
}

/* ------------------------------------------------------------------ discover */

static const char *const end_cols[] = {
	"node", "guid", "port", "port_guid", "lid", "state", "phys_state", "width_x", "speed",
	"mtu", "eth_mbps",
};

static void guid_field(FILE *f, uint64_t guid)
{
	fputc(',', f);
	if (guid)
		fprintf(f, "0x%016llx", (unsigned long long)guid);
}

/* A link end's columns, each preceded by a comma except the first. */
static void end_fields(FILE *f, const struct topo_port *p)
{
	bool st = p->facts & TOPO_F_STATE;
	const char *sp = topo_speed_name(p->lane_mbps);

	csv_text(f, p->node->name);
	guid_field(f, p->node->guid);
	fputc(',', f);
	if (p->name[0])
		csv_text(f, p->name);
	else
		fprintf(f, "%u", p->num);
	guid_field(f, p->guid);
	csv_uint(f, (p->facts & TOPO_F_LID) && p->lid, p->lid);
	fprintf(f, ",%s", st ? topo_port_state_name(p->state) : "");
	fprintf(f, ",%s", st ? topo_phys_state_name(p->phys_state) : "");
	csv_uint(f, (p->facts & TOPO_F_WIDTH) && p->width_x, p->width_x);
	fprintf(f, ",%s", (p->facts & TOPO_F_SPEED) && sp ? sp : "");
	csv_uint(f, (p->facts & TOPO_F_MTU) && p->mtu, p->mtu);
	csv_uint(f, p->eth_mbps, p->eth_mbps);
}

static int csv_discover(struct render *out, const struct topo *t)
{
	FILE *f = out->f;

	for (int e = 0; e < 2; e++)
		for (size_t k = 0; k < sizeof(end_cols) / sizeof(end_cols[0]); k++)
			fprintf(f, "%s%s_%s", e || k ? "," : "", e ? "b" : "a", end_cols[k]);
	fputs(",status", f);
	csv_end(f);
	for (size_t i = 0; i < t->n_links; i++) {
		const struct topo_link *l = t->links[i];

		end_fields(f, l->a);
		fputc(',', f);
		end_fields(f, l->b);
		fprintf(f, ",%s", topo_link_status_name(l->status));
		csv_end(f);
	}
	return fflush(f) == EOF || ferror(f) ? -EIO : 0;
}

const struct render_ops render_csv_ops = {
	.name = "csv",
	.discover = csv_discover,
	.sweep = sweep_csv,
};
