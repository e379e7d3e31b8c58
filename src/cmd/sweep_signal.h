/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep's interruption: SIGINT and SIGTERM set a flag that the sweep
 * engine (fleet/sweep.h, sweep_opts.stop) watches; the sweep then stops
 * its workers and reports the rounds it finished, marked interrupted,
 * and exits 128 + the signal (130, 143).  One sweep per process.
 */
#ifndef FAB_CMD_SWEEP_SIGNAL_H
#define FAB_CMD_SWEEP_SIGNAL_H

#include <signal.h>
#include <stddef.h>

#include "model/schedule.h"
#include "model/sweep_judge.h"

/*
 * Catch SIGINT and SIGTERM (no SA_RESTART: poll() wakes with EINTR) until
 * sweep_signal_restore(); the flag returned is non-zero once one came.
 */
const volatile sig_atomic_t *sweep_signal_install(void);
void sweep_signal_restore(void);

/* 128 + the signal caught (130 for SIGINT, 143 for SIGTERM); 0 when none. */
int sweep_signal_exit(void);

/*
 * The sweep stopped after @rounds_done rounds: @r (whose store holds
 * their pairs and nothing else) is marked interrupted, and it is said.
 */
void sweep_report_cut(struct sweep_report *r, size_t rounds_done);

#endif
