/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the tcp and verbs transports share: deadlines in milliseconds for
 * poll(), and the bandwidth meter.  The clock is util/clock.h's.
 *
 * The meter counts bytes into interval_ns buckets from t0 (set by the
 * caller: tcp at the first bytes received, verbs at the end of warm-up).
 * Its figures travel between peers as five u64, in this order.
 * Ownership: the meter owns its buckets; tp_meter_fini() frees them.
 */
#ifndef FAB_TRANSPORT_TP_UTIL_H
#define FAB_TRANSPORT_TP_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/sweep_judge.h"

/* Milliseconds until @deadline_ns (monotonic), rounded up; 0 when past. */
int tp_ms_left(uint64_t deadline_ns);

/*
 * Poll @fd for @events and @cancel_fd (when >= 0) for input until
 * @deadline_ns: 0 when @fd is ready, -ECANCELED, -ETIMEDOUT, or poll's
 * -errno.  Nothing is reported in a struct fab_err: the caller says what.
 */
int tp_wait_fd(int fd, short events, int cancel_fd, uint64_t deadline_ns);

/* @cancel_fd (when >= 0) has input now: the session is to stop. */
bool tp_cancelled(int cancel_fd);

struct tp_meter {
	uint64_t t0, t_last, interval_ns, bytes;
	uint64_t *bucket;
	size_t n_bucket;
};

/* Count @bytes at @now (not before t0).  0, or -ENOMEM. */
int tp_meter_add(struct tp_meter *m, uint64_t now, uint64_t bytes);

/* bytes, elapsed_ns, full intervals, bytes in the slowest full interval, interval_ns */
void tp_meter_figures(const struct tp_meter *m, uint64_t fig[5]);

void tp_meter_fini(struct tp_meter *m);

/* A measured direction from the five figures. */
void tp_bw_from_figures(struct sweep_bw *bw, const uint64_t fig[5]);

#endif
