// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * One worker a host of several fabric ports (src/fleet/fleet_ports.c): a
 * host's ports after its first are aliases of the first's worker (in any
 * line order, one-line hosts untouched, n_procs the hosts); answers come
 * back to the port that asked by request id, the route dropped with the
 * final one; an alias dies with its worker (told unless the caller tells
 * it); it shares the worker's hello only when the worker serves enough
 * sessions at once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fleet/fleet_ports.h"

/* gpu1 of 3 ports (lines 1, 3, 5), one-line hosts b and c, gpu2 of 2 (lines 4, 6). */
static const char hosts_text[] =
	"gpu1 10.0.0.1 ifname=eth0\n"
	"b 10.0.0.9\n"
	"gpu1 10.0.1.1 ifname=eth1\n"
	"gpu2 10.0.0.2 ifname=eth0\n"
	"gpu1 10.0.2.1 ifname=eth2\n"
	"gpu2 10.0.1.2 ifname=eth1\n"
	"c 10.0.0.8\n";

struct fx {
	struct fab_hosts hs;
	struct fleet f;
};

static void fx_up(struct fx *x, const char *text)
{
	struct fab_err err;

	fab_err_init(&err);
	hosts_init(&x->hs);
	if (hosts_parse(&x->hs, text, strlen(text), "hosts", &err) < 0)
		fail_msg("%s", err.msg);
	memset(&x->f, 0, sizeof(x->f));
	x->f.hosts = &x->hs;
	x->f.n = x->hs.n;
	x->f.w = calloc(x->hs.n, sizeof(*x->f.w));
	assert_non_null(x->f.w);
	for (size_t i = 0; i < x->hs.n; i++)
		x->f.w[i].host = &x->hs.hosts[i];
	assert_int_equal(fleet_ports_alias(&x->f), 0);
}

static void fx_down(struct fx *x)
{
	for (size_t i = 0; i < x->f.n; i++) {
		json_decref(x->f.w[i].hello);
		fleet_routes_fini(&x->f.w[i]);
	}
	free(x->f.w);
	hosts_fini(&x->hs);
}

static void test_alias(void **state)
{
	static const bool alias[] = { false, false, true, false, true, true, false };
	static const size_t via[] = { 0, 0, 0, 0, 0, 3, 0 };
	struct fx x;

	fx_up(&x, hosts_text);
	assert_int_equal(x.f.n_procs, 4);
	for (size_t i = 0; i < x.f.n; i++) {
		assert_int_equal(x.f.w[i].alias, alias[i]);
		if (alias[i])
			assert_int_equal(x.f.w[i].via, via[i]);
	}
	fx_down(&x);
	/* One line a host: nobody is an alias. */
	fx_up(&x, "a 10.0.0.1\nb 10.0.0.2\n");
	assert_int_equal(x.f.n_procs, 2);
	assert_false(x.f.w[0].alias || x.f.w[1].alias);
	fx_down(&x);
}

static void test_routes(void **state)
{
	struct fx x;
	struct fleet_worker *w;

	fx_up(&x, hosts_text);
	w = &x.f.w[0];
	assert_int_equal(fleet_route_add(w, 7, 2), 0);
	assert_int_equal(fleet_route_add(w, 8, 4), 0);
	assert_int_equal(fleet_route_add(w, 7, 2), 0);	/* a session's step: the same route */
	assert_int_equal(w->n_routes, 2);
	assert_int_equal(fleet_route_take(w, 0, 7, false), 2);	/* an event */
	assert_int_equal(fleet_route_take(w, 0, 6, true), 0);	/* the worker's own request */
	assert_int_equal(fleet_route_take(w, 0, 7, true), 2);	/* the final answer */
	assert_int_equal(fleet_route_take(w, 0, 7, true), 0);	/* gone */
	assert_int_equal(fleet_route_take(w, 0, 8, true), 4);
	assert_int_equal(w->n_routes, 0);
	fx_down(&x);
}

static void test_die(void **state)
{
	struct fx x;

	fx_up(&x, hosts_text);
	x.f.w[0].dead = true;
	snprintf(x.f.w[0].reason, sizeof(x.f.w[0].reason), "launcher ssh: killed by signal 9");
	fleet_ports_die(&x.f, 0, 2);	/* the caller tells port 2 itself */
	assert_true(x.f.w[2].dead && x.f.w[4].dead);
	assert_string_equal(x.f.w[4].reason, "launcher ssh: killed by signal 9");
	assert_false(x.f.w[2].notify);
	assert_true(x.f.w[4].notify);
	assert_false(x.f.w[5].dead || x.f.w[1].dead || x.f.w[3].dead);
	fx_down(&x);
}

static void test_hello(void **state)
{
	struct fx x;

	fx_up(&x, hosts_text);
	x.f.w[0].hello = json_pack("{s:i, s:i}", "version", 1, "sessions", 64);
	x.f.w[3].hello = json_pack("{s:i}", "version", 1);	/* older: one at a time */
	fleet_ports_hello(&x.f);
	assert_true(x.f.w[2].hello == x.f.w[0].hello && x.f.w[4].hello == x.f.w[0].hello);
	assert_false(x.f.w[2].dead || x.f.w[4].dead);
	assert_true(x.f.w[5].dead);
	assert_null(x.f.w[5].hello);
	assert_string_equal(x.f.w[5].reason, "the worker of gpu2 serves 1 test session at once, its 2 "
			    "ports need 2 (a fabricctl older than its controller)");
	fx_down(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alias),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_die),
		cmocka_unit_test(test_hello),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
