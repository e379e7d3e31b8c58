// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * src/cmd/apply.c and src/cmd/confirm.c over the recording sys: the apply
 * lock, refusing while a try is pending, arming the reverter and recording
 * the undo list, confirm, confirm --revert (both under the lock), the
 * reverter at its deadline (under the lock, only for its own try), and
 * confirm with nothing pending.  Every step is checked against the
 * exact sequence of sys calls it made.
 */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "node/apply.h"
#include "cmd/cmd.h"
#include "util/str.h"
#include "rec_sys.c"

static const char profile_text[] =
	"interfaces:\n"
	"  - match: eth0\n"
	"    mtu: 9000\n";

struct fixture {
	struct rec_sys r;
	struct profile *p;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct fab_err err;

	assert_non_null(f);
	rec_sys_init(&f->r);
	f->r.links[0] = "eth0";
	f->r.link_mtu[0] = 1500;
	fab_err_init(&err);
	assert_int_equal(profile_parse("p.yaml", (const unsigned char *)profile_text,
				       sizeof(profile_text) - 1, &f->p, &err), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rec_sys_fini(&f->r);
	profile_free(f->p);
	free(f);
	return 0;
}

static void assert_log(const struct rec_sys *r, const char *const *want)
{
	int n = 0;

	while (want[n])
		n++;
	for (int i = 0; i < r->n && i < n; i++)
		assert_string_equal(r->log[i], want[i]);
	assert_int_equal(r->n, n);
}

/* apply --try SECS on @f; 0 or -errno, the message in @err. */
static int apply_try(struct fixture *f, unsigned int secs, struct apply_report *rep,
		     struct fab_err *err)
{
	struct changeset cs;
	int rc;

	changeset_init(&cs);
	memset(rep, 0, sizeof(*rep));
	fab_err_init(err);
	rc = apply_node(&f->r.sys, f->p, "p.yaml", false, secs, &cs, rep, err);
	changeset_fini(&cs);
	rep->cs = NULL;
	return rc;
}

static int confirm(struct fixture *f, bool revert, struct fab_err *err)
{
	char *argv[] = { "confirm", revert ? "--revert" : NULL, NULL };
	/* confirm's outcome goes through the renderer table, as in main() */
	struct fab_ctx ctx = { .sys = &f->r.sys,
			       .render = { .ops = &render_text_ops, .f = stdout } };
	int rc;

	fab_err_init(&ctx.err);
	optind = 0;
	rc = cmd_confirm(&ctx, revert ? 2 : 1, argv);
	*err = ctx.err;
	return rc;
}

static void test_try_then_confirm(void **state)
{
	static const char *const armed[] = {
		/* journal, step 1 begins, the step, the reverter, the try's state */
		"lock", "pending-write", "pending-write", "mtu eth0 9000", "spawn", "pending-write",
		"unlock 7", NULL,
	};
	struct fixture *f = *state;
	struct apply_report rep;
	struct fab_err err;
	char want[64];

	assert_int_equal(apply_try(f, 30, &rep, &err), 0);
	assert_log(&f->r, armed);
	assert_string_equal(rep.pending_path, "rec:pending");
	assert_true(rep.try_deadline_s > 0);
	assert_int_equal(f->r.deadline, rep.try_deadline_s);
	assert_non_null(f->r.pending);
	snprintf(want, sizeof(want), "\"pid\": %d,", (int)getpid());
	assert_non_null(strstr(f->r.pending, want));
	assert_non_null(f->r.reverter_fn);

	/* confirm: under the lock, stop the reverter, forget the pending state. */
	f->r.n = 0;
	assert_int_equal(confirm(f, false, &err), FAB_EXIT_OK);
	snprintf(want, sizeof(want), "stop %d", (int)getpid());
	assert_int_equal(f->r.n, 4);
	assert_string_equal(f->r.log[0], "lock");
	assert_string_equal(f->r.log[1], want);
	assert_string_equal(f->r.log[2], "drop rec:pending");
	assert_string_equal(f->r.log[3], "unlock 7");
	assert_null(f->r.pending);

	/* The deadline passes after the confirm: the reverter finds nothing. */
	f->r.reverter_fn(&f->r.sys, f->r.deadline);
	assert_int_equal(f->r.n, 6);
	assert_string_equal(f->r.log[4], "lock");
	assert_string_equal(f->r.log[5], "unlock 7");
}

static void test_refused_while_pending(void **state)
{
	struct fixture *f = *state;
	struct apply_report rep;
	struct fab_err err;
	char want[400], when[STR_TIME_LEN];

	assert_int_equal(apply_try(f, 30, &rep, &err), 0);
	f->r.n = 0;
	assert_int_equal(apply_try(f, 30, &rep, &err), -EBUSY);
	snprintf(want, sizeof(want),
		 "a try is pending (rec:pending, reverter pid %d, reverts at %s): run 'fabricctl confirm' to keep it or 'fabricctl confirm --revert' to undo it",
		 (int)getpid(), str_time(when, sizeof(when), f->r.deadline));
	assert_string_equal(err.msg, want);
	/* Nothing was changed: the lock was taken and given back, that is all. */
	assert_int_equal(f->r.n, 2);
	assert_string_equal(f->r.log[0], "lock");
	assert_string_equal(f->r.log[1], "unlock 7");
}

static void test_refused_while_locked(void **state)
{
	struct fixture *f = *state;
	struct apply_report rep;
	struct fab_err err;

	f->r.locked = true;
	assert_int_equal(apply_try(f, 30, &rep, &err), -EBUSY);
	assert_string_equal(err.msg, "apply: another apply is running on this node (rec)");
	assert_int_equal(f->r.n, 0);
	assert_null(f->r.pending);
}

static void test_confirm_revert(void **state)
{
	struct fixture *f = *state;
	struct apply_report rep;
	struct fab_err err;
	char want[64];

	assert_int_equal(apply_try(f, 30, &rep, &err), 0);
	f->r.n = 0;
	assert_int_equal(confirm(f, true, &err), FAB_EXIT_OK);
	snprintf(want, sizeof(want), "stop %d", (int)getpid());
	assert_int_equal(f->r.n, 5);
	assert_string_equal(f->r.log[0], "lock");
	assert_string_equal(f->r.log[1], want);
	assert_string_equal(f->r.log[2], "mtu eth0 1500");
	assert_string_equal(f->r.log[3], "drop rec:pending");
	assert_string_equal(f->r.log[4], "unlock 7");
	assert_null(f->r.pending);
}

static void test_reverter_at_deadline(void **state)
{
	struct fixture *f = *state;
	struct apply_report rep;
	struct fab_err err;
	char want[96], when[STR_TIME_LEN], msg[300];

	assert_int_equal(apply_try(f, 30, &rep, &err), 0);
	f->r.n = 0;
	f->r.reverter_fn(&f->r.sys, f->r.deadline);
	/* the deadline as local ISO time, not Unix seconds */
	snprintf(want, sizeof(want), "log reverted 1 step(s) at deadline %s: ok",
		 str_time(when, sizeof(when), f->r.deadline));
	assert_int_equal(f->r.n, 5);
	assert_string_equal(f->r.log[0], "lock");
	assert_string_equal(f->r.log[1], "mtu eth0 1500");
	assert_string_equal(f->r.log[2], want);
	assert_string_equal(f->r.log[3], "drop rec:pending");
	assert_string_equal(f->r.log[4], "unlock 7");
	assert_null(f->r.pending);
	/* ... and a confirm after that finds nothing, and says the revert ran (exit 1). */
	assert_int_equal(confirm(f, false, &err), FAB_EXIT_UNHEALTHY);
	snprintf(msg, sizeof(msg), "no try pending (rec:pending absent): nothing to confirm; "
		 "the last automatic revert: %s", want + 4);
	assert_string_equal(err.msg, msg);
}

/* A reverter whose try was confirmed leaves a later try (another reverter's) alone. */
static void test_reverter_leaves_later_try(void **state)
{
	struct fixture *f = *state;
	struct apply_report rep;
	struct fab_err err;
	char *other;

	assert_int_equal(apply_try(f, 30, &rep, &err), 0);
	other = strdup("{\"schema\": \"fabricctl.pending/2\", \"deadline\": 1, \"pid\": 1,"
		       " \"pid_start\": 5, \"undo\": []}");
	assert_non_null(other);
	free(f->r.pending);
	f->r.pending = other;
	f->r.n = 0;
	f->r.reverter_fn(&f->r.sys, f->r.deadline);
	assert_int_equal(f->r.n, 2);
	assert_string_equal(f->r.log[0], "lock");
	assert_string_equal(f->r.log[1], "unlock 7");
	assert_ptr_equal(f->r.pending, other);
}

static void test_failed_step_arms_nothing(void **state)
{
	struct fixture *f = *state;
	struct apply_report rep;
	struct fab_err err;

	f->r.fail_at = 4;	/* the MTU change (after lock and two journal writes) */
	assert_int_equal(apply_try(f, 30, &rep, &err), -EOPNOTSUPP);
	assert_true(rep.rolled_back);
	assert_null(f->r.pending);	/* the journal went with the rollback */
	assert_null(f->r.reverter_fn);
	assert_int_equal(f->r.n, 6);
	assert_string_equal(f->r.log[4], "drop rec:pending");
	assert_string_equal(f->r.log[5], "unlock 7");
}

/*
 * An apply killed half-way leaves its journal ("applying"): confirm
 * refuses it, the next apply undoes the begun steps first, then change sets
 * from the state before.
 */
static void test_killed_apply_recovered(void **state)
{
	struct fixture *f = *state;
	struct apply_report rep;
	struct fab_err err;
	char *st, *doc;

	assert_int_equal(apply_try(f, 30, &rep, &err), 0);
	st = strstr(f->r.pending, "\"state\": \"try\"");
	assert_non_null(st);
	assert_true(asprintf(&doc, "%.*s\"state\": \"applying\"%s", (int)(st - f->r.pending),
			     f->r.pending, st + strlen("\"state\": \"try\"")) > 0);
	free(f->r.pending);
	f->r.pending = doc;
	assert_non_null(strstr(f->r.pending, "\"state\": \"applying\","));
	assert_int_equal(confirm(f, false, &err), FAB_EXIT_SYSTEM);
	assert_non_null(strstr(err.msg, "journal of an interrupted apply"));
	f->r.n = 0;
	assert_int_equal(apply_try(f, 0, &rep, &err), 0);
	assert_true(rep.recovered);
	assert_int_equal(rep.recovered_steps, 1);
	assert_string_equal(f->r.log[0], "lock");
	assert_string_equal(f->r.log[1], "mtu eth0 1500");
	assert_int_equal(strncmp(f->r.log[2], "log recovered an interrupted apply", 34), 0);
	assert_string_equal(f->r.log[3], "drop rec:pending");
	assert_string_equal(f->r.log[6], "mtu eth0 9000");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_try_then_confirm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_while_pending, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_while_locked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_confirm_revert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reverter_at_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reverter_leaves_later_try, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_step_arms_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_killed_apply_recovered, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
