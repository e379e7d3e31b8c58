/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep's interruption: SIGINT, SIGTERM and SIGHUP (a dropped ssh
 * session) set a flag that the fleet's start (fleet_opts.stop) and the
 * sweep engine (fleet/sweep.h, sweep_opts.stop) watch; caught from
 * before the first worker starts.  The sweep then stops its workers and
 * reports the rounds it finished, marked interrupted, to every output,
 * and exits 128 + the signal (130, 143, 129).  A signal while the
 * workers start or join ends the command before any round with that
 * status, the launcher stopped and the join's files removed.  One sweep
 * per process.
 */
#ifndef FAB_SWEEP_SWEEP_SIGNAL_H
#define FAB_SWEEP_SWEEP_SIGNAL_H

#include <signal.h>
#include <stddef.h>

#include "model/schedule.h"
#include "model/sweep_judge.h"

/*
 * Catch SIGINT, SIGTERM and SIGHUP (SIGHUP not when ignored, as under
 * nohup) (no SA_RESTART: poll() wakes with EINTR) until
 * sweep_signal_restore(); the flag returned is non-zero once one came.
 */
const volatile sig_atomic_t *sweep_signal_install(void);
void sweep_signal_restore(void);

/* 128 + the signal caught (130 SIGINT, 143 SIGTERM, 129 SIGHUP); 0 when none. */
int sweep_signal_exit(void);

/* "SIGINT", "SIGTERM", "SIGHUP" for the signal caught, else "a signal". */
const char *sweep_signal_name(void);

/*
 * The sweep stopped after @rounds_done rounds: @r (whose store holds
 * their pairs and nothing else) is marked interrupted, and it is said.
 */
void sweep_report_cut(struct sweep_report *r, size_t rounds_done);

#endif
