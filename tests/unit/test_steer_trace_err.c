// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A trace that fails while `sweep --steer` steers in windows
 * (docs/paths.md "Steering in windows"): the sweep stops with the first
 * error's own message, which names the window, the pairs of the trace
 * request and the host, never the "sweep: schedule: ERRNO" that
 * sweep_run_src() used to write over it.  The whole sweep runs
 * (sweep_run(): hosts file, plan, topology, steering in windows of one
 * base round, FABRICCTL_STEER_WINDOW=1) on an 8-host fat tree; the rounds
 * go through sweep_run_src() over a fleet of no workers (the error comes
 * before the first round is handed out); the traces are the test's: the
 * first request is answered by no host (every pair of the window falls
 * back), the second fails as a lost worker would.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fleet/fleet.h"
#include "fleet/sweep.h"
#include "model/counter_rules.h"
#include "model/plan_yaml.h"
#include "model/topo.h"
#include "model/topo_gen.h"
#include "sweep/sweep.h"
#include "util/file.h"
#include "util/str.h"

struct fake {
	unsigned int calls;
	unsigned int fail_at;		/* the trace request that fails (1-based) */
	size_t hosts_asked;		/* hosts with flows in the failing request */
};

static int fake_trace(void *ctx, struct flow_trace *const *tr, const size_t *n, bool *got,
		      struct fab_err *err)
{
	struct fake *fk = ctx;

	(void)tr;
	if (++fk->calls == fk->fail_at) {
		for (size_t h = 0; h < 8; h++)
			fk->hosts_asked += n[h] > 0;
		return fab_err_set(err, -EPIPE, "trace: h3: the worker's connection was lost");
	}
	for (size_t h = 0; h < 8; h++)
		got[h] = false;	/* no answer: the window's pairs fall back */
	return 0;
}

/* The measurement: sweep_run_src() over a fleet without workers. */
static int fake_run(void *ctx, struct sched_src *src, const struct sweep_opts *o,
		    sweep_sink_fn sink, void *sink_ctx, size_t *rounds_done, struct fab_err *err)
{
	struct fleet f = { 0 };

	(void)ctx;
	return sweep_run_src(&f, src, o, sink, sink_ctx, rounds_done, err);
}

/* An 8-host fat tree (2 pods of 2 leaves of 2 hosts), every switch addressed, into @dir. */
static void fabric_write(const char *dir)
{
	struct topo_gen_3l g = { .pods = 2, .leaves_per_pod = 2, .hosts_per_leaf = 2,
				 .aggs_per_pod = 2, .cores_per_agg = 2, .host_mbps = 100000,
				 .leaf_mbps = 100000, .core_mbps = 100000 };
	struct topo *t = NULL;
	struct strbuf sb;
	struct fab_err err = { 0 };
	char path[512], hosts[256];
	size_t len = 0;
	unsigned int j = 0;

	for (int i = 1; i <= 8; i++)
		len += (size_t)snprintf(hosts + len, sizeof(hosts) - len, "h%d 10.0.0.%d\n", i, i);
	snprintf(path, sizeof(path), "%s/hosts", dir);
	assert_int_equal(file_write_atomic(path, hosts, len, 0600, &err), 0);
	assert_int_equal(topo_gen_fat_tree(&t, &g), 0);
	for (size_t i = 0; i < t->n_nodes; i++) {
		char a[TOPO_ADDR_LEN];

		if (t->nodes[i]->type == TOPO_NODE_HOST)
			continue;
		snprintf(a, sizeof(a), "172.16.0.%u", ++j);
		assert_int_equal(topo_node_addr_add(t->nodes[i], a), 0);
	}
	strbuf_init(&sb);
	assert_int_equal(plan_yaml_format(t, &sb), 0);
	snprintf(path, sizeof(path), "%s/plan.yaml", dir);
	assert_int_equal(file_write_atomic(path, sb.buf, sb.len, 0600, &err), 0);
	strbuf_fini(&sb);
	topo_free(t);
}

static void test_trace_error_in_window(void **state)
{
	char dir[] = "/tmp/test_steer_trace_err.XXXXXX", hosts[512], plan[512];
	struct fake fk = { .fail_at = 2 };
	struct sweep_measure m = { .run = fake_run, .trace = fake_trace, .ctx = &fk };
	struct counter_policy pol;
	struct sweep_outcome o;
	struct sweep_req req;
	struct fab_err err;
	int rc;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fabric_write(dir);
	snprintf(hosts, sizeof(hosts), "%s/hosts", dir);
	snprintf(plan, sizeof(plan), "%s/plan.yaml", dir);
	setenv("FABRICCTL_STEER_WINDOW", "1", 1);
	sweep_req_default(&req);
	counter_policy_default(&pol);
	req.policy = &pol;
	req.hosts = hosts;
	req.topology = plan;
	req.measure = &m;
	req.progress = 0;
	req.all_pairs = true;
	req.steer = true;
	fab_err_init(&err);
	rc = sweep_run(&req, &o, &err);
	fprintf(stderr, "sweep: rc %d: %s\n", rc, err.msg);
	if (rc == 0)
		sweep_outcome_fini(&o);
	assert_int_equal(rc, -EPIPE);
	assert_int_equal(fk.calls, 2);
	assert_true(fk.hosts_asked > 0);
	/* The first error's own words, with where it happened; not the schedule's errno. */
	assert_null(strstr(err.msg, "sweep: schedule"));
	assert_non_null(strstr(err.msg, "sweep --steer: window 2 (from base round 2): "));
	assert_non_null(strstr(err.msg, ": the trace request of "));
	assert_non_null(strstr(err.msg, " first): trace: h3: the worker's connection was lost"));
	unlink(hosts);
	unlink(plan);
	rmdir(dir);
	unsetenv("FABRICCTL_STEER_WINDOW");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_error_in_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
