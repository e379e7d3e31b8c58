/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A worker's stderr (the launcher's own, e.g. ssh's "Host key
 * verification failed.", and the worker's log lines) comes through a pipe:
 * each line is relayed to our stderr as "NODE: line", sanitised (bytes
 * outside printable ASCII become '?': a node cannot drive the admin's
 * terminal), and the last one is kept to explain the worker's death:
 * "launcher ssh: exited with status 255: Host key verification failed.".
 * Internal to src/fleet/.
 */
#ifndef FAB_FLEET_FLEET_STDERR_H
#define FAB_FLEET_FLEET_STDERR_H

#include <stddef.h>

#include "fleet/fleet.h"

/*
 * Read what @w's stderr pipe holds now (non-blocking), relaying whole
 * lines; at its end (EOF), relay a partial last line and close it
 * (w->err_fd -1).
 */
void fleet_stderr_drain(struct fleet_worker *w);

/* At the end (pipe closed): relay a last partial line. */
void fleet_stderr_flush(struct fleet_worker *w);

/*
 * @w's death reason from @how ("exited with status 255"): "launcher
 * @launcher: @how: LAST STDERR LINE", or just "launcher @launcher: @how"
 * when it said nothing.
 */
void fleet_stderr_reason(const struct fleet_worker *w, const char *launcher, const char *how,
			 char *buf, size_t len);

#endif
