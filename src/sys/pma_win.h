/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The window of a MAD engine that keeps many queries in flight: which
 * request goes out next, which transaction id it carries, which request an
 * answer belongs to, and which ones are lost (past their deadline, or sent
 * back by umad as timed out) and go out again, a bounded number of times.
 * Pure bookkeeping, no I/O: the caller sends, receives and reads the clock.
 *
 * Request i, try t carries the transaction id trid0 + i + t * n (the low
 * 32 bits; umad owns the high ones), so an answer finds its request by
 * arithmetic, and a late answer to an earlier try of a request still on
 * the wire is as good as the latest one.
 */
#ifndef FAB_SYS_PMA_WIN_H
#define FAB_SYS_PMA_WIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pma_win_state {
	PMA_REQ_QUEUED = 0,
	PMA_REQ_WIRE,
	PMA_REQ_DONE,
	PMA_REQ_FAILED,
};

struct pma_win {
	size_t n;			/* requests */
	size_t next;			/* the first request never sent */
	size_t on_wire;			/* entries of wire[] */
	size_t n_redo;			/* entries of redo[] */
	size_t answered, failed, resent;
	unsigned int max;		/* requests in flight at most */
	unsigned int retries;		/* sends after the first, per request */
	uint32_t trid0;
	uint8_t *state;			/* enum pma_win_state, per request */
	uint8_t *tries;			/* sends so far, per request */
	double *deadline;		/* per request on the wire, ms */
	size_t *wire;			/* the requests on the wire */
	size_t *pos;			/* request -> its place in wire[] */
	size_t *redo;			/* lost requests with a try left, oldest first */
};

enum pma_win_match {
	PMA_WIN_STALE = 0,	/* not ours, or a request no longer on the wire */
	PMA_WIN_ANSWER,		/* the request's answer: it left the wire */
	PMA_WIN_RETRY,		/* reported lost; queued to go out again */
	PMA_WIN_LOST,		/* reported lost, no try left: failed */
};

/* @n requests, @max in flight (at least 1), @retries more sends each. -ENOMEM. */
int pma_win_init(struct pma_win *w, size_t n, unsigned int max, unsigned int retries,
		 uint32_t trid0);
void pma_win_free(struct pma_win *w);

/*
 * The next request to send, if the window has room: a lost one first, else
 * the next new one.  It goes on the wire with @deadline (ms); *@i and
 * *@tid say which and with which transaction id.  false: nothing to send
 * now (window full, or nothing queued).
 */
bool pma_win_take(struct pma_win *w, double deadline, size_t *i, uint32_t *tid);

/* A send of request @i that failed locally: back to the queue, or failed. */
enum pma_win_match pma_win_unsent(struct pma_win *w, size_t i);

/*
 * What came back with transaction id @tid: @lost when umad reports the
 * send timed out.  *@i is the request (for ANSWER, RETRY and LOST).
 */
enum pma_win_match pma_win_match(struct pma_win *w, uint32_t tid, bool lost, size_t *i);

/* An answer the caller refused (a bad MAD status): the request failed. */
void pma_win_refuse(struct pma_win *w, size_t i);

/* Requests past their deadline at @now: queued again or failed; how many. */
size_t pma_win_expire(struct pma_win *w, double now);

/* Milliseconds from @now to the earliest deadline on the wire (0 if past, -1 if none). */
double pma_win_wait(const struct pma_win *w, double now);

/* Every request answered or failed. */
bool pma_win_finished(const struct pma_win *w);

#endif
