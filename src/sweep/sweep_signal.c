// SPDX-License-Identifier: GPL-2.0-or-later
/* sweep's SIGINT/SIGTERM/SIGHUP: a flag, the exit status, the cut report.  See sweep_signal.h. */
#include <string.h>

#include "sweep/sweep_signal.h"
#include "util/log.h"

static volatile sig_atomic_t caught;
static struct sigaction old_int, old_term, old_hup;
static bool installed;

static void on_signal(int sig)
{
	caught = sig;
}

const volatile sig_atomic_t *sweep_signal_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: the engine's poll() returns EINTR */
	caught = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* What a dropped ssh session sends; left ignored under nohup(1). */
	sigaction(SIGHUP, NULL, &old_hup);
	if (old_hup.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	installed = true;
	return &caught;
}

void sweep_signal_restore(void)
{
	if (!installed)
		return;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	installed = false;
}

const char *sweep_signal_name(void)
{
	return caught == SIGTERM ? "SIGTERM" : caught == SIGINT ? "SIGINT" :
	       caught == SIGHUP ? "SIGHUP" : "a signal";
}

int sweep_signal_exit(void)
{
	return caught ? 128 + caught : 0;
}

void sweep_report_cut(struct sweep_report *r, size_t rounds_done)
{
	r->interrupted = true;
	r->rounds_done = rounds_done;
	fab_warn("sweep: interrupted by %s: reporting the %zu round%s finished (%zu pair%s)",
		 sweep_signal_name(),
		 rounds_done, rounds_done == 1 ? "" : "s", r->n_pairs, r->n_pairs == 1 ? "" : "s");
}
