// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep renderers over the pair store: the streamed JSON (what `sweep -j`
 * writes, pairs and topology item by item) is byte for byte the whole
 * document sweep_to_json() builds, pretty and compact, with the store in
 * memory and on file; the CSV has a row per pair in store order; the text
 * summary counts and the not-ok list cap; --steer's keys (pairs[].steer,
 * the traced routes, schedule.counted) and text line, absent without it;
 * dual-homed legs (pairs[].legs, legs, the text section), absent without.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "io/pair_store.h"
#include "model/bond_legs.h"
#include "model/localize.h"
#include "model/route.h"
#include "model/schedule.h"
#include "model/topo_gen.h"
#include "render/render.h"
#include "render/render_impl.h"

struct fx {
	struct topo *t;
	struct route *r;
	struct fab_hosts hs;
	struct pair_store *ps;
	struct sweep_report rep;
	uint32_t *host_link, *host_leaf;
};

static int fx_route(void *ctx, unsigned int a, unsigned int b, struct pair_route *out)
{
	struct fab_err err;

	fab_err_init(&err);
	return route_pair(ctx, a, b, out, &err);
}

/* 3 leaves x 4 hosts, 2 spines; every pair in circle rounds, some slow, some failed. */
static void fx_build(struct fx *f, bool topo)
{
	static const struct topo_gen_2l g = { .leaves = 3, .hosts_per_leaf = 4, .spines = 2,
					      .host_mbps = 1000, .uplink_mbps = 1000 };
	struct sched s;
	struct fab_err err;
	char text[512];
	size_t len = 0, k = 0;

	memset(f, 0, sizeof(*f));
	fab_err_init(&err);
	for (int i = 1; i <= 12; i++)
		len += (size_t)sprintf(text + len, "h%d 10.0.0.%d%s\n", i, i, i % 5 ? "" : " rate_gbps=1");
	hosts_init(&f->hs);
	assert_int_equal(hosts_parse(&f->hs, text, len, "t", &err), 0);
	assert_int_equal(topo_gen_leaf_spine(&f->t, &g), 0);
	assert_int_equal(route_new(&f->r, f->t), 0);
	assert_int_equal(route_place(f->r, &f->hs, &err), 0);
	route_rates(f->r, &f->hs, NULL, NULL);
	f->host_link = calloc(12, sizeof(*f->host_link));
	f->host_leaf = calloc(12, sizeof(*f->host_leaf));
	for (int h = 0; h < 12; h++) {
		f->host_link[h] = f->r->hosts[h].link;
		f->host_leaf[h] = f->r->hosts[h].attach;
	}
	assert_int_equal(pair_store_new(&f->ps, 0, &err), 0);
	sched_init(&s);
	assert_int_equal(sched_circle(&s, 12), 0);
	for (size_t rd = 0; rd < s.n_rounds; rd++)
		for (size_t i = s.round_start[rd]; i < s.round_start[rd + 1]; i++, k++) {
			struct sweep_pair p = { .a = s.pairs[i].a, .b = s.pairs[i].b,
						.round = (unsigned int)rd + 1, .pct_rated = -1 };
			struct route_info info;

			assert_int_equal(route_pair_info(f->r, p.a, p.b, &info, &p.expected_mbps,
							 &p.klass), 0);
			p.expect_src = SWEEP_EXPECT_RATED;
			p.status = k % 7 == 3 ? SWEEP_SLOW : k % 11 == 5 ? SWEEP_FAILED : SWEEP_OK;
			if (p.status != SWEEP_FAILED) {
				p.ab = (struct sweep_bw){ true, 900.0 - (double)k, 850.5, 1125000 + k, 1.0, 10 };
				p.ba = (struct sweep_bw){ true, 880.25, 801.0, 1100000, 1.0, 10 };
				p.have_lat = true;
				p.lat_ns = (struct stats_summary){ 200, 10000 + (double)k, 12000.5, 30000,
								   31000, 40000, 12500.125 };
				p.pct_rated = 100 * 880.25 / p.expected_mbps;
			}
			if (p.status != SWEEP_OK)
				snprintf(p.reason, sizeof(p.reason), "%s \"quoted\" %zu",
					 p.status == SWEEP_SLOW ? "slow" : "worker h1: gone", k);
			f->rep.n_ok += p.status == SWEEP_OK;
			f->rep.n_slow += p.status == SWEEP_SLOW;
			f->rep.n_failed += p.status == SWEEP_FAILED;
			p.test_s = 2.5;
			if (k % 5 == 2) {	/* verbs on RoCE v2: the UDP source ports */
				p.sport_ab = (uint16_t)(0xc000 + k);
				p.sport_ba = k % 2 ? 0 : 0xffff;
			}
			assert_int_equal(pair_store_append(f->ps, &p, &err), 0);
		}
	f->rep.hosts = &f->hs;
	f->rep.transport = "tcp";
	f->rep.launcher = "netns";
	f->rep.mode = "all-pairs";
	sweep_cfg_default(&f->rep.cfg);
	f->rep.n_rounds = s.n_rounds;
	f->rep.duration_ms = 1000;
	f->rep.lat_iters = 200;
	f->rep.store = f->ps;
	f->rep.n_pairs = pair_store_count(f->ps);
	f->rep.ref = (struct sweep_ref){ .n = 50, .bw_median_mbps = 880, .bw_mad_mbps = 5,
					 .lat_median_ns = 12000, .lat_mad_ns = 100 };
	f->rep.started_unix = 1796000000;
	f->rep.wall_s = 12.5;
	if (topo) {
		f->rep.fabric.source = "plan.yaml";
		f->rep.fabric.topo = f->t;
		f->rep.fabric.route = fx_route;
		f->rep.fabric.route_ctx = f->r;
		f->rep.fabric.host_link = f->host_link;
		f->rep.fabric.host_leaf = f->host_leaf;
		f->rep.fabric.have_bound = true;
		f->rep.fabric.bound = 11;
	}
	sched_fini(&s);
}

static void fx_free(struct fx *f)
{
	pair_store_free(f->ps);
	route_free(f->r);
	topo_free(f->t);
	hosts_fini(&f->hs);
	free(f->host_link);
	free(f->host_leaf);
}

/* What a renderer writes, as a string (free() it). */
static char *render_to_string(const struct render_ops *ops, const struct sweep_report *r, bool pretty)
{
	char *buf = NULL;
	size_t len = 0;
	struct render out = { .ops = ops, .f = open_memstream(&buf, &len), .pretty = pretty };

	assert_non_null(out.f);
	assert_int_equal(ops->sweep(&out, r), 0);
	fclose(out.f);
	return buf;
}

static void streamed_is_whole(const struct sweep_report *r)
{
	for (int pretty = 0; pretty < 2; pretty++) {
		char *got = render_to_string(&render_json_ops, r, pretty), *want = NULL;
		size_t len = 0;
		struct render out = { .ops = &render_json_ops, .f = open_memstream(&want, &len),
				      .pretty = pretty };
		json_error_t jerr;
		json_t *doc;

		assert_non_null(out.f);
		assert_int_equal(render_json_emit(&out, sweep_to_json(r)), 0);
		fclose(out.f);
		assert_string_equal(got, want);
		doc = json_loads(got, 0, &jerr);
		assert_non_null(doc);
		assert_int_equal(json_array_size(json_object_get(doc, "pairs")), r->n_pairs);
		json_decref(doc);
		free(got);
		free(want);
	}
}

static void test_json_streamed(void **state)
{
	for (int topo = 0; topo < 2; topo++)
		for (int spill = 0; spill < 2; spill++) {
			struct fx f;

			if (spill)
				setenv("FABRICCTL_SPOOL_MEM", "1000", 1);
			fx_build(&f, topo);
			unsetenv("FABRICCTL_SPOOL_MEM");
			assert_int_equal(pair_store_on_file(f.ps), spill);
			streamed_is_whole(&f.rep);
			fx_free(&f);
		}
}

/* pairs[].udp_sport: {ab, ba} (null: unknown) where known, absent elsewhere. */
static void test_json_udp_sport(void **state)
{
	json_error_t jerr;
	struct fx f;
	json_t *doc, *pairs;
	char *got;

	(void)state;
	fx_build(&f, false);
	got = render_to_string(&render_json_ops, &f.rep, false);
	doc = json_loads(got, 0, &jerr);
	assert_non_null(doc);
	pairs = json_object_get(doc, "pairs");
	for (size_t k = 0; k < json_array_size(pairs); k++) {
		json_t *u = json_object_get(json_array_get(pairs, k), "udp_sport");

		if (k % 5 != 2) {
			assert_null(u);
			continue;
		}
		assert_int_equal(json_integer_value(json_object_get(u, "ab")), 0xc000 + k);
		if (k % 2)
			assert_true(json_is_null(json_object_get(u, "ba")));
		else
			assert_int_equal(json_integer_value(json_object_get(u, "ba")), 0xffff);
	}
	json_decref(doc);
	free(got);
	fx_free(&f);
}

static void test_csv_rows(void **state)
{
	struct fx f;
	char *csv, *line;
	size_t rows = 0;

	fx_build(&f, true);
	csv = render_to_string(&render_csv_ops, &f.rep, false);
	for (line = strstr(csv, "\r\n"); line; line = strstr(line + 2, "\r\n"))
		rows++;
	assert_int_equal(rows, 1 + 66);		/* header and 12 x 11 / 2 pairs */
	assert_non_null(strstr(csv, "\"slow \"\"quoted\"\" 3\""));
	free(csv);
	fx_free(&f);
}

static void test_text(void **state)
{
	struct fx f;
	char *txt;

	fx_build(&f, true);
	txt = render_to_string(&render_text_ops, &f.rep, false);
	assert_non_null(strstr(txt, "sweep: 12 nodes, 66 pairs in 11 rounds (tcp, netns, all-pairs): "));
	assert_non_null(strstr(txt, "bandwidth Gb/s"));
	assert_non_null(strstr(txt, "pairs not ok:"));
	assert_null(strstr(txt, "... and"));
	free(txt);
	fx_free(&f);
}

/*
 * --baseline: the headline counts the regressed pairs, both matrices'
 * legends explain the 'v' they carry, and a suspect whose bad pairs were
 * only regressed is not worded "slow".  Then both words, "slow or
 * regressed", when some pairs were slow too.
 */
static void test_text_regressed(void **state)
{
	struct fx f;
	struct loc_member m = { .link = 0, .host = 0 };
	struct loc_suspect su = { .kind = LOC_KIND_NODE, .members = &m, .n_members = 1,
				  .score = 0.9, .ev = { .cross_bad = 11, .cross_n = 11,
							.cross_pct_median = 85 } };
	struct loc_result lr = { .suspects = &su, .n_suspects = 1, .n_bad = 11 };
	const char *names[12];
	struct loc_input in = { 0 };
	struct fab_err err;
	struct sweep_pair p;
	size_t n_reg = 0, n_slow = 0;
	char *txt, *lat;

	fx_build(&f, true);
	fab_err_init(&err);
	for (int i = 0; i < 12; i++)
		names[i] = f.hs.hosts[i].name;
	in = (struct loc_input){ .topo = f.t, .host_link = f.host_link, .host_names = names,
				 .n_hosts = 12 };
	/* Every slow pair becomes regressed: none slow, some regressed. */
	for (size_t i = 0; i < f.rep.n_pairs; i++) {
		assert_int_equal(pair_store_get(f.ps, i, &p, &err), 0);
		if (p.status == SWEEP_SLOW) {
			p.status = SWEEP_REGRESSED;
			assert_int_equal(pair_store_put(f.ps, i, &p, &err), 0);
			n_reg++;
		}
	}
	assert_true(n_reg > 0);
	f.rep.n_regressed = n_reg;
	f.rep.n_slow = 0;
	f.rep.baseline.file = "old.json";
	f.rep.baseline.regress_pct = 10;
	f.rep.fabric.loc = &lr;
	f.rep.fabric.loc_in = &in;
	txt = render_to_string(&render_text_ops, &f.rep, false);
	{
		char want[128];

		snprintf(want, sizeof(want), ": %zu ok, 0 slow, %zu failed, %zu regressed\n",
			 f.rep.n_ok, f.rep.n_failed, n_reg);
		assert_non_null(strstr(txt, want));
	}
	assert_non_null(strstr(txt, "bandwidth Gb/s (row sends to column; * slow, v regressed"));
	lat = strstr(txt, "latency us (");
	assert_non_null(lat);
	assert_non_null(strstr(lat, "v regressed"));
	assert_true(strstr(lat, "v regressed") < strchr(lat, '\n'));
	assert_non_null(strstr(txt, "1. regressed node: "));
	assert_non_null(strstr(txt, "; regressed pairs at 85% of expected (median)"));
	assert_null(strstr(txt, "slow pairs at"));
	free(txt);

	/* One pair slow again: both words. */
	for (size_t i = 0; i < f.rep.n_pairs && !n_slow; i++) {
		assert_int_equal(pair_store_get(f.ps, i, &p, &err), 0);
		if (p.status == SWEEP_REGRESSED) {
			p.status = SWEEP_SLOW;
			assert_int_equal(pair_store_put(f.ps, i, &p, &err), 0);
			n_slow++;
		}
	}
	f.rep.n_regressed--;
	f.rep.n_slow = 1;
	txt = render_to_string(&render_text_ops, &f.rep, false);
	assert_non_null(strstr(txt, "; slow or regressed pairs at 85% of expected (median)"));
	free(txt);
	fx_free(&f);
}

/*
 * A loaded document that did not record its rounds or its wall time
 * (diagnose --from): the headline leaves them out, never "in 0 rounds"
 * or "wall 0.0 s".
 */
static void test_text_unknown_run(void **state)
{
	struct fx f;
	char *txt;

	fx_build(&f, false);
	f.rep.n_rounds = 0;
	f.rep.wall_s = NAN;
	txt = render_to_string(&render_text_ops, &f.rep, false);
	assert_non_null(strstr(txt, "sweep: 12 nodes, 66 pairs (tcp, netns, all-pairs): "));
	assert_null(strstr(txt, "rounds"));
	assert_null(strstr(txt, "wall"));
	assert_non_null(strstr(txt, "fleet median 0.88 Gb/s (MAD 0.01), latency median 12.0 us\n\n"));
	free(txt);
	txt = render_to_string(&render_json_ops, &f.rep, false);
	assert_non_null(strstr(txt, "\"wall_s\":null"));
	free(txt);
	fx_free(&f);
}

/* Pair @i of the fixture's store, changed by @fn. */
static void pair_edit(struct fx *f, size_t i, void (*fn)(struct sweep_pair *p))
{
	struct sweep_pair p;
	struct fab_err err;

	fab_err_init(&err);
	assert_int_equal(pair_store_get(f->ps, i, &p, &err), 0);
	fn(&p);
	assert_int_equal(pair_store_put(f->ps, i, &p, &err), 0);
}

static void base_huge(struct sweep_pair *p)
{
	p->have_base = true;
	p->base_ab_mbps = p->base_ba_mbps = 5e-324;
	p->change_pct = DBL_MAX;	/* what the judge gives a denormal baseline */
}

static void base_inf(struct sweep_pair *p)
{
	p->have_base = true;
	p->base_ab_mbps = p->base_ba_mbps = 1;
	p->change_pct = INFINITY;
	p->ab.avg_mbps = INFINITY;
	p->lat_ns.p99 = NAN;
}

static void formula_reason(struct sweep_pair *p)
{
	p->status = SWEEP_SLOW;
	snprintf(p->reason, sizeof(p->reason), "=HYPERLINK(\"http://x\")");
}

/*
 * Issue 22 item 11: no inf or nan reaches Prometheus (a sample whose figure
 * is not finite is left out; the huge ratio of a denormal baseline in
 * exponent form), and JSON keeps the pair's baseline (not null).
 */
static void test_prom_not_finite(void **state)
{
	char path[] = "/tmp/test_render_sweep.XXXXXX", *prom = NULL, *js;
	struct fx f;
	FILE *in;
	size_t len = 0;
	int fd;

	fx_build(&f, true);
	pair_edit(&f, 0, base_huge);
	f.rep.baseline.file = "old.json";
	js = render_to_string(&render_json_ops, &f.rep, false);
	assert_non_null(strstr(js, "\"baseline\":{\"bw_ab_mbps\":4.9406564584124654e-324,"));
	free(js);
	pair_edit(&f, 1, base_inf);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	{
		struct fab_err err;

		fab_err_init(&err);
		assert_int_equal(sweep_prom_write(&f.rep, path, &err), 0);
	}
	in = fopen(path, "r");
	assert_non_null(in);
	assert_true(getdelim(&prom, &len, '\0', in) > 0);
	fclose(in);
	unlink(path);
	assert_null(strstr(prom, "inf"));
	assert_null(strstr(prom, "nan"));
	assert_null(strstr(prom, "Inf"));
	assert_null(strstr(prom, "NaN"));
	assert_non_null(strstr(prom, "fabricctl_sweep_pair_bandwidth_baseline_ratio{a=\"h1\",b=\"h12\"} "
				     "1.79769e+306\n"));
	/* Pair 1 (h2 h11): no baseline ratio, no a->b bandwidth, no p99; its b->a is there. */
	assert_null(strstr(prom, "baseline_ratio{a=\"h2\",b=\"h11\"}"));
	assert_null(strstr(prom, "fabricctl_sweep_pair_bandwidth_mbps{a=\"h2\",b=\"h11\",dir=\"ab\"}"));
	assert_non_null(strstr(prom, "fabricctl_sweep_pair_bandwidth_mbps{a=\"h2\",b=\"h11\",dir=\"ba\"}"));
	assert_null(strstr(prom, "{a=\"h2\",b=\"h11\",quantile=\"0.99\"}"));
	assert_non_null(strstr(prom, "{a=\"h2\",b=\"h11\",quantile=\"0.5\"}"));
	free(prom);
	fx_free(&f);
}

/* Issue 22 item 8: text cells that would start a formula (a reason, a host name) are quoted text. */
static void test_csv_formula(void **state)
{
	struct fx f;
	char *csv;

	fx_build(&f, true);
	pair_edit(&f, 0, formula_reason);
	snprintf(f.hs.hosts[1].name, sizeof(f.hs.hosts[1].name), "@h2");
	csv = render_to_string(&render_csv_ops, &f.rep, false);
	assert_non_null(strstr(csv, ",slow,\"'=HYPERLINK(\"\"http://x\"\")\","));
	assert_non_null(strstr(csv, "\r\n\"'@h2\","));
	assert_null(strstr(csv, "\r\n@"));
	assert_null(strstr(csv, ",="));
	free(csv);
	fx_free(&f);
}

/* Issue 22 item 7: a mode, reason and topology names with escapes are shown as \xNN. */
static void esc_reason(struct sweep_pair *p)
{
	p->status = SWEEP_SLOW;
	snprintf(p->reason, sizeof(p->reason), "slow\033]0;owned\007\033[2J");
}

static void test_text_escapes(void **state)
{
	struct fx f;
	char *txt;

	fx_build(&f, true);
	f.rep.mode = "all-pairs\033[31m";
	pair_edit(&f, 0, esc_reason);
	for (size_t i = 0; i < f.t->n_nodes; i++)
		snprintf(f.t->nodes[i]->name, sizeof(f.t->nodes[i]->name), "n%zu\033[2J\302\233", i);
	for (int dry = 0; dry < 2; dry++) {
		f.rep.dry_run = dry;
		txt = render_to_string(&render_text_ops, &f.rep, false);
		assert_null(strchr(txt, '\033'));
		assert_null(strstr(txt, "\302\233"));
		assert_non_null(strstr(txt, "all-pairs\\x1b[31m"));
		assert_non_null(strstr(txt, dry ? "\\x1b[2J\\xc2\\x9b swp" : "slow\\x1b]0;owned\\x07\\x1b[2J"));
		free(txt);
	}
	fx_free(&f);
}

/*
 * --steer: a pair's facts as the fixture's callback gives them (cross-leaf
 * pairs steered when (a + b) % 3 == 0, onto path (a + b) % 2 each way, the
 * others fallen back "silent"; same-leaf pairs: nothing to steer).
 */
static struct {
	struct route *r;
	struct pair_route pr;	/* the last pair's route: the facts point into it */
} steer_fx;

static bool fx_cross(unsigned int a, unsigned int b)
{
	return steer_fx.r->hosts[a].leaf != steer_fx.r->hosts[b].leaf;
}

static void fx_steer_fact(const void *ctx, unsigned int a, unsigned int b,
			  struct sweep_steer_fact *out)
{
	struct fab_err err;

	(void)ctx;
	fab_err_init(&err);
	*out = (struct sweep_steer_fact){ 0 };
	if (!fx_cross(a, b))
		return;
	out->traced = true;
	out->steered = (a + b) % 3 == 0;
	if (!out->steered) {
		out->fallback = "silent";
		return;
	}
	pair_route_fini(&steer_fx.pr);
	assert_int_equal(route_pair(steer_fx.r, a, b, &steer_fx.pr, &err), 0);
	assert_int_equal(steer_fx.pr.n_ab, 2);
	out->ab = &steer_fx.pr.ab[(a + b) % 2];
	out->ba = &steer_fx.pr.ba[(a + b) % 2];
}

/* The index of the one route of @arr marked traced; -1 none, -2 more than one. */
static int traced_index(json_t *arr)
{
	int at = -1;

	for (size_t i = 0; i < json_array_size(arr); i++)
		if (json_object_get(json_array_get(arr, i), "traced")) {
			assert_true(json_is_true(json_object_get(json_array_get(arr, i), "traced")));
			at = at == -1 ? (int)i : -2;
		}
	return at;
}

static void steer_pair_check(json_t *pj, unsigned int a, unsigned int b)
{
	json_t *st = json_object_get(pj, "steer"), *routes = json_object_get(pj, "routes");
	bool cross = fx_cross(a, b), steered = cross && (a + b) % 3 == 0;
	json_t *fb = json_object_get(st, "fallback");

	assert_non_null(st);
	assert_int_equal(json_is_true(json_object_get(st, "traced")), cross);
	assert_int_equal(json_is_true(json_object_get(st, "steered")), steered);
	if (cross && !steered)
		assert_string_equal(json_string_value(fb), "silent");
	else
		assert_true(json_is_null(fb));
	assert_int_equal(traced_index(json_object_get(routes, "ab")), steered ? (int)(a + b) % 2 : -1);
	assert_int_equal(traced_index(json_object_get(routes, "ba")), steered ? (int)(a + b) % 2 : -1);
}

static unsigned int host_index(const struct fab_hosts *hs, const char *name)
{
	for (unsigned int i = 0; i < hs->n; i++)
		if (!strcmp(hs->hosts[i].name, name))
			return i;
	fail();
	return 0;
}

static void test_json_steer(void **state)
{
	struct sweep_steer_view v = { .rounds_whole = 20, .steered = 2, .fallback = 5, .n_why = 2,
				      .by_why = { { "silent", 4 }, { "unmapped", 1 } },
				      .fact = fx_steer_fact };
	size_t n_steered = 0, n_silent = 0;
	json_error_t jerr;
	json_t *doc, *pairs, *sch;
	char *got;
	struct fx f;

	fx_build(&f, true);
	steer_fx.r = f.r;
	/* Without --steer: none of its keys. */
	got = render_to_string(&render_json_ops, &f.rep, false);
	assert_null(strstr(got, "\"steer\""));
	assert_null(strstr(got, "\"traced\""));
	assert_null(strstr(got, "\"counted\""));
	assert_null(strstr(got, "\"rounds_whole\""));
	free(got);
	f.rep.fabric.steer = &v;
	streamed_is_whole(&f.rep);
	got = render_to_string(&render_json_ops, &f.rep, false);
	doc = json_loads(got, 0, &jerr);
	assert_non_null(doc);
	sch = json_object_get(doc, "schedule");
	assert_string_equal(json_string_value(json_object_get(sch, "counted")), "steered");
	assert_int_equal(json_integer_value(json_object_get(sch, "rounds_whole")), 20);
	assert_null(json_object_get(sch, "steer_skipped"));
	pairs = json_object_get(doc, "pairs");
	for (size_t i = 0; i < json_array_size(pairs); i++) {
		json_t *pj = json_array_get(pairs, i);
		unsigned int a = host_index(&f.hs, json_string_value(json_object_get(pj, "a")));
		unsigned int b = host_index(&f.hs, json_string_value(json_object_get(pj, "b")));

		steer_pair_check(pj, a, b);
		n_steered += json_is_true(json_object_get(json_object_get(pj, "steer"), "steered"));
		n_silent += json_is_string(json_object_get(json_object_get(pj, "steer"), "fallback"));
	}
	assert_true(n_steered > 0);
	assert_true(n_silent > 0);
	json_decref(doc);
	free(got);
	/* Text: the summary line after the headline. */
	got = render_to_string(&render_text_ops, &f.rep, false);
	assert_non_null(strstr(got, "\nsteer: 2 pairs steered, 5 fell back (silent 4, unmapped 1); "
			       "11 rounds on per-member loads (whole sets: 20)\n"));
	free(got);
	/* Steering skipped: the rounds counted on whole sets, every pair says so. */
	v = (struct sweep_steer_view){ .whole = true, .skipped = "only tcp tests are steered" };
	got = render_to_string(&render_json_ops, &f.rep, false);
	doc = json_loads(got, 0, &jerr);
	assert_non_null(doc);
	sch = json_object_get(doc, "schedule");
	assert_string_equal(json_string_value(json_object_get(sch, "counted")), "whole-set");
	assert_true(json_is_null(json_object_get(sch, "rounds_whole")));
	assert_string_equal(json_string_value(json_object_get(sch, "steer_skipped")),
			    "only tcp tests are steered");
	assert_null(json_object_get(json_array_get(json_object_get(doc, "pairs"), 0), "steer"));
	json_decref(doc);
	free(got);
	got = render_to_string(&render_text_ops, &f.rep, false);
	assert_non_null(strstr(got, "\nsteer: none (only tcp tests are steered); rounds count "
			       "whole ECMP sets\n"));
	free(got);
	pair_route_fini(&steer_fx.pr);
	steer_fx.r = NULL;
	fx_free(&f);
}

/*
 * The legs fixture every legs test starts from: @f built (fx_build(), no
 * topology), its renderings checked to carry no legs yet (@legs_word
 * absent from each of @ops), then one bonded direction put on pair 0, a ->
 * b, two legs, the second slow (as the VM lab measures it), in @lp and
 * the report.
 */
static void fx_build_legs(struct fx *f, struct bond_legs_pair *lp,
			  const struct render_ops *const *ops, const char *const *legs_word)
{
	struct bond_legs_dir *d = &lp->ab;
	struct sweep_pair p0;
	struct fab_err err;
	char *got;

	fab_err_init(&err);
	fx_build(f, false);
	for (size_t i = 0; ops[i]; i++) {
		got = render_to_string(ops[i], &f->rep, false);
		assert_null(strstr(got, legs_word[i]));
		free(got);
	}
	assert_int_equal(pair_store_get(f->ps, 0, &p0, &err), 0);
	memset(lp, 0, sizeof(*lp));
	lp->a = p0.a;
	lp->b = p0.b;
	*d = (struct bond_legs_dir){ .run = true, .node = "h1", .bond = "bond0",
				     .mode = FAB_BOND_MODE_BALANCE_XOR,
				     .policy = FAB_BOND_XMIT_LAYER34, .dport = 29099, .n_trials = 3,
				     .n_legs = 2 };
	strcpy(d->legs[0].member, "a1");
	strcpy(d->legs[1].member, "a2");
	d->legs[0].link_up = d->legs[1].link_up = true;
	d->legs[0].sport = 29100;
	d->legs[1].sport = 29102;
	d->legs[0].mbps = 19.0;
	d->legs[1].mbps = 3.9;
	d->legs[0].bytes = d->legs[0].tx_delta = 1187500;
	d->legs[1].bytes = d->legs[1].tx_delta = 243750;
	bond_legs_judge_dir(d, 80, false);
	f->rep.legs = lp;
	f->rep.n_legs = 1;
	f->rep.n_legs_bad = d->n_bad;
	assert_int_equal(d->n_bad, 1);
}

/*
 * Dual-homed legs: pairs[].legs only on the pair that has them, the
 * top-level legs with its findings, the text's section; none of it
 * without legs (the documents as before).
 */
static void test_legs(void **state)
{
	const struct render_ops *const ops[] = { &render_text_ops, &render_json_ops, NULL };
	const char *const word[] = { "dual-homed legs", "legs" };
	struct bond_legs_pair lp;
	json_error_t jerr;
	struct fx f;
	json_t *doc, *legs;
	char *got;

	fx_build_legs(&f, &lp, ops, word);
	streamed_is_whole(&f.rep);
	got = render_to_string(&render_json_ops, &f.rep, false);
	doc = json_loads(got, 0, &jerr);
	assert_non_null(doc);
	legs = json_object_get(doc, "legs");
	assert_int_equal(json_integer_value(json_object_get(legs, "bad")), 1);
	assert_string_equal(json_string_value(json_array_get(json_object_get(legs, "findings"), 0)),
			    "slow leg: h1 a2: 4 of 19 Mbit/s");
	legs = json_object_get(json_array_get(json_object_get(doc, "pairs"), 0), "legs");
	assert_true(json_is_null(json_object_get(legs, "ba")));
	legs = json_object_get(json_object_get(legs, "ab"), "legs");
	assert_string_equal(json_string_value(json_object_get(json_array_get(legs, 1), "verdict")),
			    "slow");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(legs, 1), "sport")),
			 29102);
	assert_true(json_is_true(json_object_get(json_array_get(legs, 1), "fault")));
	assert_null(json_object_get(json_array_get(json_object_get(doc, "pairs"), 1), "legs"));
	json_decref(doc);
	free(got);
	got = render_to_string(&render_text_ops, &f.rep, false);
	assert_non_null(strstr(got, "dual-homed legs (one flow per bond member, one after "
				    "another): 1 not ok\n"));
	assert_non_null(strstr(got, " failed; 1 dual-homed leg not ok\n"));
	assert_non_null(strstr(got, " bond0 (balance-xor, layer3+4): a1 port 29100 19.0 Mb/s ok, "
				    "a2 port 29102 3.9 Mb/s slow\n"
				    "    slow leg: h1 a2: 4 of 19 Mbit/s\n"));
	free(got);
	fx_free(&f);
}

/*
 * A host whose worker did not answer the bond request: its legs said not
 * measured, with the reason, in the JSON's top-level legs (not_measured)
 * and the text (the headline and the legs section), beside measured legs
 * and without any.
 */
static void test_legs_unanswered(void **state)
{
	const struct render_ops *const ops[] = { &render_text_ops, &render_json_ops, NULL };
	const char *const word[] = { "not measured", "not_measured" };
	struct bond_legs_unanswered u = { .why = "unknown op 'bond'" };
	struct bond_legs_pair lp;
	json_error_t jerr;
	char want[256];
	const char *name;
	struct fx f;
	json_t *doc, *nm;
	char *got;

	(void)state;
	fx_build_legs(&f, &lp, ops, word);
	u.host = lp.b;
	name = f.rep.hosts->hosts[u.host].name;
	f.rep.legs_unanswered = &u;
	f.rep.n_legs_unanswered = 1;
	for (int run = 0; run < 2; run++) {	/* the second: no legs measured at all */
		if (run) {
			f.rep.legs = NULL;
			f.rep.n_legs = f.rep.n_legs_bad = 0;
		}
		streamed_is_whole(&f.rep);
		got = render_to_string(&render_json_ops, &f.rep, false);
		doc = json_loads(got, 0, &jerr);
		assert_non_null(doc);
		assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "legs"),
								    "pairs")), run ? 0 : 1);
		nm = json_object_get(json_object_get(doc, "legs"), "not_measured");
		assert_int_equal(json_array_size(nm), 1);
		assert_string_equal(json_string_value(json_object_get(json_array_get(nm, 0), "node")),
				    name);
		assert_string_equal(json_string_value(json_object_get(json_array_get(nm, 0), "note")),
				    "legs not measured: worker did not answer the bond request: "
				    "unknown op 'bond'");
		json_decref(doc);
		free(got);
		got = render_to_string(&render_text_ops, &f.rep, false);
		snprintf(want, sizeof(want), "dual-homed legs (one flow per bond member, one after "
			 "another): %d not ok, 1 host not measured\n  %s: legs not measured: worker "
			 "did not answer the bond request: unknown op 'bond'\n", run ? 0 : 1, name);
		assert_non_null(strstr(got, want));
		assert_non_null(strstr(got, "; legs of 1 host not measured\n"));
		assert_int_equal(strstr(got, "; 1 dual-homed leg not ok;") != NULL, !run);
		free(got);
	}
	fx_free(&f);
}

/* The n-th CRLF-ended line of @s (0-based) into @buf. */
static void nth_line(const char *s, int n, char *buf, size_t len)
{
	for (; n > 0 && s; n--)
		s = strstr(s, "\r\n") ? strstr(s, "\r\n") + 2 : NULL;
	assert_non_null(s);
	assert_non_null(strstr(s, "\r\n"));
	assert_true((size_t)(strstr(s, "\r\n") - s) < len);
	snprintf(buf, len, "%.*s", (int)(strstr(s, "\r\n") - s), s);
}

/*
 * Dual-homed legs in CSV (three columns after the others, only when some
 * pair has legs: legs_not_ok, legs, legs_findings; empty on a pair
 * without) and Prometheus (a leg's bandwidth and ok, the count not ok;
 * no leg family without legs).
 */
static void test_legs_csv_prom(void **state)
{
	const struct render_ops *const ops[] = { &render_csv_ops, &render_prom_ops, NULL };
	const char *const word[] = { "legs", "_leg" };
	struct bond_legs_pair lp;
	char line[1024], want[512];
	const char *a, *b;
	struct fx f;
	char *got;

	fx_build_legs(&f, &lp, ops, word);
	a = f.rep.hosts->hosts[lp.a].name;
	b = f.rep.hosts->hosts[lp.b].name;
	got = render_to_string(&render_csv_ops, &f.rep, false);
	nth_line(got, 0, line, sizeof(line));
	assert_non_null(strstr(line, ",path,legs_not_ok,legs,legs_findings"));
	assert_int_equal(strlen(strstr(line, ",legs_findings")), strlen(",legs_findings"));
	nth_line(got, 1, line, sizeof(line));
	assert_int_equal(strncmp(line, a, strlen(a)), 0);
	assert_non_null(strstr(line, ",1,h1 a1 19.000 ok|h1 a2 3.900 slow,"
				     "slow leg: h1 a2: 4 of 19 Mbit/s"));
	assert_int_equal(strlen(strstr(line, ",1,h1 a1")),
			 strlen(",1,h1 a1 19.000 ok|h1 a2 3.900 slow,slow leg: h1 a2: 4 of 19 Mbit/s"));
	nth_line(got, 2, line, sizeof(line));
	assert_string_equal(line + strlen(line) - 3, ",,,");
	free(got);

	got = render_to_string(&render_prom_ops, &f.rep, false);
	snprintf(want, sizeof(want), "fabricctl_sweep_leg_bandwidth_mbps{a=\"%s\",b=\"%s\",dir=\"ab\","
		 "node=\"h1\",bond=\"bond0\",member=\"a2\"} 3.900\n", a, b);
	assert_non_null(strstr(got, want));
	snprintf(want, sizeof(want), "fabricctl_sweep_leg_ok{a=\"%s\",b=\"%s\",dir=\"ab\","
		 "node=\"h1\",bond=\"bond0\",member=\"a2\"} 0\n", a, b);
	assert_non_null(strstr(got, want));
	snprintf(want, sizeof(want), "fabricctl_sweep_leg_ok{a=\"%s\",b=\"%s\",dir=\"ab\","
		 "node=\"h1\",bond=\"bond0\",member=\"a1\"} 1\n", a, b);
	assert_non_null(strstr(got, want));
	assert_non_null(strstr(got, "\nfabricctl_sweep_legs_not_ok 1\n"));
	assert_non_null(strstr(got, "# TYPE fabricctl_sweep_leg_ok gauge\n"));
	free(got);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_streamed),
		cmocka_unit_test(test_json_udp_sport),
		cmocka_unit_test(test_csv_rows),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_regressed),
		cmocka_unit_test(test_text_unknown_run),
		cmocka_unit_test(test_prom_not_finite),
		cmocka_unit_test(test_csv_formula),
		cmocka_unit_test(test_text_escapes),
		cmocka_unit_test(test_json_steer),
		cmocka_unit_test(test_legs),
		cmocka_unit_test(test_legs_csv_prom),
		cmocka_unit_test(test_legs_unanswered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
