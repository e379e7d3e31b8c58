/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The monotonic clock and this process's CPU time, for deadlines and -v timings. */
#ifndef FAB_UTIL_CLOCK_H
#define FAB_UTIL_CLOCK_H

#include <stdint.h>

/* Nanoseconds on the monotonic clock. */
uint64_t clock_mono_ns(void);

/* Whole milliseconds on the monotonic clock. */
uint64_t clock_mono_ms(void);

/* CPU milliseconds (user + system) of this process so far, all threads; 0 when unknown. */
double clock_cpu_ms(void);

#endif
