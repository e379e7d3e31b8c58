// SPDX-License-Identifier: GPL-2.0-or-later
/* The in-flight window of the PMA engine (sys/pma_win.h). */
#include <errno.h>
#include <stdlib.h>

#include "sys/pma_win.h"

int pma_win_init(struct pma_win *w, size_t n, unsigned int max, unsigned int retries,
		 uint32_t trid0)
{
	size_t m = n ? n : 1;

	*w = (struct pma_win){
		.n = n,
		.max = max ? max : 1,
		.retries = retries > 254 ? 254 : retries,
		.trid0 = trid0,
	};
	w->state = calloc(m, 1);
	w->tries = calloc(m, 1);
	w->deadline = calloc(m, sizeof(*w->deadline));
	w->pos = calloc(m, sizeof(*w->pos));
	w->redo = calloc(m, sizeof(*w->redo));
	w->wire = calloc(w->max, sizeof(*w->wire));
	if (!w->state || !w->tries || !w->deadline || !w->pos || !w->redo || !w->wire) {
		pma_win_free(w);
		return -ENOMEM;
	}
	return 0;
}

void pma_win_free(struct pma_win *w)
{
	free(w->state);
	free(w->tries);
	free(w->deadline);
	free(w->pos);
	free(w->redo);
	free(w->wire);
	*w = (struct pma_win){ 0 };
}

static void wire_remove(struct pma_win *w, size_t i)
{
	size_t k = w->pos[i], last = w->wire[--w->on_wire];

	w->wire[k] = last;
	w->pos[last] = k;
}

/* Request @i, off the wire, is lost: once more if it has a try left. */
static enum pma_win_match lost(struct pma_win *w, size_t i)
{
	if (w->tries[i] > w->retries) {
		w->state[i] = PMA_REQ_FAILED;
		w->failed++;
		return PMA_WIN_LOST;
	}
	w->state[i] = PMA_REQ_QUEUED;
	w->redo[w->n_redo++] = i;
	return PMA_WIN_RETRY;
}

bool pma_win_take(struct pma_win *w, double deadline, size_t *i, uint32_t *tid)
{
	size_t r;

	if (w->on_wire >= w->max)
		return false;
	if (w->n_redo) {
		r = w->redo[0];
		w->n_redo--;
		for (size_t k = 0; k < w->n_redo; k++)	/* oldest first; short */
			w->redo[k] = w->redo[k + 1];
		w->resent++;
	} else if (w->next < w->n) {
		r = w->next++;
	} else {
		return false;
	}
	*tid = (uint32_t)(w->trid0 + r + (uint64_t)w->tries[r] * w->n);
	w->tries[r]++;
	w->state[r] = PMA_REQ_WIRE;
	w->deadline[r] = deadline;
	w->pos[r] = w->on_wire;
	w->wire[w->on_wire++] = r;
	*i = r;
	return true;
}

enum pma_win_match pma_win_unsent(struct pma_win *w, size_t i)
{
	if (i >= w->n || w->state[i] != PMA_REQ_WIRE)
		return PMA_WIN_STALE;
	wire_remove(w, i);
	return lost(w, i);
}

enum pma_win_match pma_win_match(struct pma_win *w, uint32_t tid, bool is_lost, size_t *i)
{
	uint32_t d = tid - w->trid0;
	size_t r, t;

	if (!w->n)
		return PMA_WIN_STALE;
	r = d % w->n;
	t = d / w->n;
	/* Only a try that was sent, of a request that is still out. */
	if (t >= w->tries[r] || w->state[r] != PMA_REQ_WIRE)
		return PMA_WIN_STALE;
	/* A timeout report of an earlier try: the later one is still out. */
	if (is_lost && t + 1 != w->tries[r])
		return PMA_WIN_STALE;
	*i = r;
	wire_remove(w, r);
	if (is_lost)
		return lost(w, r);
	w->state[r] = PMA_REQ_DONE;
	w->answered++;
	return PMA_WIN_ANSWER;
}

void pma_win_refuse(struct pma_win *w, size_t i)
{
	if (i >= w->n || w->state[i] != PMA_REQ_DONE)
		return;
	w->state[i] = PMA_REQ_FAILED;
	w->answered--;
	w->failed++;
}

size_t pma_win_expire(struct pma_win *w, double now)
{
	size_t n = 0, k = 0;

	while (k < w->on_wire) {
		size_t r = w->wire[k];

		if (w->deadline[r] > now) {
			k++;
			continue;
		}
		wire_remove(w, r);	/* the last one moves into place k */
		lost(w, r);
		n++;
	}
	return n;
}

double pma_win_wait(const struct pma_win *w, double now)
{
	double best = -1;

	for (size_t k = 0; k < w->on_wire; k++) {
		double d = w->deadline[w->wire[k]] - now;

		if (best < 0 || d < best)
			best = d < 0 ? 0 : d;
	}
	return best;
}

bool pma_win_finished(const struct pma_win *w)
{
	return w->next >= w->n && !w->on_wire && !w->n_redo;
}
