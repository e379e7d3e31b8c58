// SPDX-License-Identifier: GPL-2.0-or-later
/* Sweep engine: rounds of concurrent pair sessions over the fleet; see sweep.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet/sweep.h"
#include "util/clock.h"
#include "util/log.h"

/* The longest poll while a stop flag is watched: a signal that lands
 * between the check and poll() still stops the sweep this soon. */
#define STOP_POLL_MS 200

enum job_state {
	J_LISTEN,	/* listen sent to b, waiting for b's "ready" */
	J_CONNECT,	/* connect sent to a, waiting for a's "ready" */
	J_PEER,		/* peer sent to b, waiting for b's "armed" */
	J_RUN,		/* go sent to a, waiting for both final replies */
	J_ABORT,	/* failed; waiting for the open sessions to end */
	J_DONE,
};

struct job {
	struct sweep_pair *p;
	enum job_state state;
	size_t wa, wb;			/* worker indices (client a, server b) */
	long long id_a, id_b;		/* session ids; -1 when none open */
	bool fin_a, fin_b;		/* final reply seen */
	uint64_t deadline_ms;
	uint64_t start_ms;
	const char *step;		/* for timeout messages */
	struct tp_spec spec;		/* the options' spec, with the pair's ports when steered */
};

struct round {
	struct fleet *f;
	const struct sweep_opts *o;
	struct job *jobs;
	size_t n_jobs, done, failed_total, done_total, total;
	size_t *job_of;			/* worker -> job index + 1, 0 when idle */
	size_t r, n_rounds;
};

static const char *wname(struct round *rd, size_t w)
{
	return rd->f->w[w].host->name;
}

static void progress(struct round *rd)
{
	if (!rd->o->progress)
		return;
	fprintf(stderr, "\r%s: round %zu of %zu, pairs %zu of %zu, failed %zu  ",
		rd->o->label ? rd->o->label : "sweep", rd->r + 1, rd->n_rounds,
		rd->done_total, rd->total, rd->failed_total);
	fflush(stderr);
}

static void job_finish(struct round *rd, struct job *j)
{
	if (j->state == J_DONE)
		return;
	j->state = J_DONE;
	j->p->test_s = (double)(clock_mono_ms() - j->start_ms) / 1000;
	rd->job_of[j->wa] = rd->job_of[j->wb] = 0;
	rd->done++;
	rd->done_total++;
	if (j->p->status == SWEEP_FAILED)
		rd->failed_total++;
	progress(rd);
}

/* Send a session message (peer, go, abort) to worker @w in session @id. */
static int session_send(struct round *rd, size_t w, long long id, const char *op, json_t *ep)
{
	json_t *m = json_pack("{s:s, s:I}", "op", op, "id", (json_int_t)id);

	if (m && ep)
		json_object_set(m, "endpoint", ep);
	return fleet_send(rd->f, w, m, NULL);
}

/* Both sides are done: each one's final reply seen, its worker dead, or never asked. */
static bool job_sides_done(const struct round *rd, const struct job *j)
{
	return (j->id_a < 0 || j->fin_a || rd->f->w[j->wa].dead) &&
	       (j->id_b < 0 || j->fin_b || rd->f->w[j->wb].dead);
}

/* Enter @state, named @step, with a deadline @extra_ms beyond the step timeout. */
static void job_enter(struct round *rd, struct job *j, enum job_state state, const char *step,
		      uint64_t extra_ms)
{
	j->state = state;
	j->step = step;
	j->deadline_ms = clock_mono_ms() + (uint64_t)rd->o->step_timeout_ms + extra_ms;
}

/*
 * A worker that dies or hangs while its pair winds down explains the
 * pair's failure better than the peer's timeout that started it.
 */
static void job_blame(struct round *rd, struct job *j, size_t w)
{
	char first[sizeof(j->p->reason)];

	memcpy(first, j->p->reason, sizeof(first));
	snprintf(j->p->reason, sizeof(j->p->reason), "worker %.63s: %.80s (peer: %.80s)",
		 wname(rd, w), rd->f->w[w].reason, first);
}

/*
 * A side whose worker is already dead, its part unanswered, explains the
 * failure better than the peer's error (a short read or a refused connect
 * to the dead one's port), whichever was read first; said once.
 */
static void blame_dead(struct round *rd, struct job *j)
{
	if (rd->f->w[j->wa].dead && !j->fin_a && !strstr(j->p->reason, wname(rd, j->wa)))
		job_blame(rd, j, j->wa);
	else if (rd->f->w[j->wb].dead && !j->fin_b && !strstr(j->p->reason, wname(rd, j->wb)))
		job_blame(rd, j, j->wb);
}

/* Mark the pair failed (first reason wins) and wind the sessions down. */
static void job_fail(struct round *rd, struct job *j, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void job_fail(struct round *rd, struct job *j, const char *fmt, ...)
{
	va_list ap;

	if (j->state == J_DONE)
		return;
	if (j->p->status != SWEEP_FAILED) {
		j->p->status = SWEEP_FAILED;
		va_start(ap, fmt);
		vsnprintf(j->p->reason, sizeof(j->p->reason), fmt, ap);
		va_end(ap);
		blame_dead(rd, j);
		fab_info("pair %s %s: %s", wname(rd, j->wa), wname(rd, j->wb), j->p->reason);
	}
	if (j->id_a >= 0 && !j->fin_a && !rd->f->w[j->wa].dead)
		session_send(rd, j->wa, j->id_a, "abort", NULL);
	if (j->id_b >= 0 && !j->fin_b && !rd->f->w[j->wb].dead)
		session_send(rd, j->wb, j->id_b, "abort", NULL);
	/* An abort that found its worker gone (a dead pipe) learnt who is to blame. */
	blame_dead(rd, j);
	if (job_sides_done(rd, j)) {
		job_finish(rd, j);
		return;
	}
	job_enter(rd, j, J_ABORT, "abort", 0);
}

static json_t *session_req(struct round *rd, const char *op, size_t w, const struct tp_spec *spec)
{
	char token[2 * TP_TOKEN_LEN + 1];
	const struct fab_host *h = rd->f->w[w].host;

	tp_token_hex(rd->o->token, token);
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:s, s:o}",
			 "op", op, "transport", rd->o->transport, "addr", h->addr,
			 "dev", h->rdma, "dev_port", (int)h->rdma_port, "token", token,
			 "plan", proto_spec_to_json(spec));
}

static void job_start(struct round *rd, struct job *j)
{
	struct fleet_worker *a = &rd->f->w[j->wa], *b = &rd->f->w[j->wb];

	j->start_ms = clock_mono_ms();
	if (a->dead || b->dead) {
		struct fleet_worker *d = a->dead ? a : b;

		/* No hello: the launcher never got a worker going (not a fabric fault). */
		job_fail(rd, j, "worker %s %s: %s", d->host->name,
			 d->hello ? "unavailable" : "did not start", d->reason);
		return;
	}
	job_enter(rd, j, J_LISTEN, "listen", 0);
	if (fleet_send(rd->f, j->wb, session_req(rd, "listen", j->wb, &j->spec), &j->id_b) < 0) {
		j->id_b = -1;
		job_fail(rd, j, "worker %s: %s", b->host->name, b->reason);
	}
}

static void job_result(struct round *rd, struct job *j, const json_t *res)
{
	struct tp_result r;
	struct fab_err err;

	fab_err_init(&err);
	if (proto_result_from_json(res, &r, &err) < 0) {
		fleet_kill(rd->f, j->wa, "sent garbage (%s)", err.msg);
		job_fail(rd, j, "worker %s: %s", wname(rd, j->wa), rd->f->w[j->wa].reason);
		return;
	}
	j->p->have_lat = r.have_lat;
	j->p->lat_ns = r.lat_ns;
	j->p->ab = r.fwd;
	j->p->ba = r.rev;
	j->p->sport_ab = r.sport_fwd;
	j->p->sport_ba = r.sport_rev;
	if (r.sport_fwd || r.sport_rev)
		fab_info("pair %s -> %s: RoCE v2 UDP source port %s -> %s %u, %s -> %s %u",
			 wname(rd, j->wa), wname(rd, j->wb), wname(rd, j->wa), wname(rd, j->wb),
			 r.sport_fwd, wname(rd, j->wb), wname(rd, j->wa), r.sport_rev);
}

static void on_msg(struct fleet *f, size_t w, struct proto_msg *m, void *arg)
{
	struct round *rd = arg;
	struct job *j = rd->job_of[w] ? &rd->jobs[rd->job_of[w] - 1] : NULL;
	bool is_a, is_b;

	if (!j) {
		if (m)
			fab_debug("worker %s: ignoring a message for ended session %lld",
				  f->w[w].host->name, m->id);
		return;
	}
	if (!m) {	/* the worker died: its sessions end with it */
		/* A worker that already answered its part loses nothing of the pair. */
		if ((w == j->wa && j->fin_a) || (w == j->wb && j->fin_b))
			return;
		if (j->state == J_ABORT)
			job_blame(rd, j, w);
		job_fail(rd, j, "worker %s: %s", f->w[w].host->name, f->w[w].reason);
		if (j->state == J_ABORT && job_sides_done(rd, j))
			job_finish(rd, j);
		return;
	}
	is_a = w == j->wa && m->id == j->id_a;
	is_b = w == j->wb && m->id == j->id_b;
	if (!is_a && !is_b) {
		fab_debug("worker %s: ignoring a message for ended session %lld",
			  f->w[w].host->name, m->id);
		return;
	}
	if (m->kind == PROTO_REPLY) {
		if (is_a)
			j->fin_a = true;
		else
			j->fin_b = true;
		if (!m->ok) {
			job_fail(rd, j, "%s: %s", f->w[w].host->name, m->error);
		} else if (j->state != J_RUN && j->state != J_ABORT) {
			job_fail(rd, j, "worker %s: ended its session before the test", f->w[w].host->name);
		} else if (is_a && j->state == J_RUN) {
			job_result(rd, j, m->result);
		}
		if (j->state == J_ABORT ? job_sides_done(rd, j)
					: j->state == J_RUN && j->fin_a && j->fin_b)
			job_finish(rd, j);
		return;
	}
	/* Events drive the handshake. */
	if (j->state == J_LISTEN && is_b && strcmp(m->event, "ready") == 0) {
		json_t *req = session_req(rd, "connect", j->wa, &j->spec);

		json_object_set(req, "peer", json_object_get(m->doc, "endpoint"));
		job_enter(rd, j, J_CONNECT, "connect", 0);
		if (fleet_send(f, j->wa, req, &j->id_a) < 0) {
			j->id_a = -1;
			job_fail(rd, j, "worker %s: %s", wname(rd, j->wa), f->w[j->wa].reason);
		}
	} else if (j->state == J_CONNECT && is_a && strcmp(m->event, "ready") == 0) {
		job_enter(rd, j, J_PEER, "peer", 0);
		if (session_send(rd, j->wb, j->id_b, "peer", json_object_get(m->doc, "endpoint")) < 0)
			job_fail(rd, j, "worker %s: %s", wname(rd, j->wb), f->w[j->wb].reason);
	} else if (j->state == J_PEER && is_b && strcmp(m->event, "armed") == 0) {
		job_enter(rd, j, J_RUN, "test", rd->o->spec.timeout_ms);
		if (session_send(rd, j->wa, j->id_a, "go", NULL) < 0)
			job_fail(rd, j, "worker %s: %s", wname(rd, j->wa), f->w[j->wa].reason);
	} else if (j->state != J_ABORT) {
		fleet_kill(f, w, "sent event \"%.32s\" out of turn", m->event);
		job_fail(rd, j, "worker %s: %s", f->w[w].host->name, f->w[w].reason);
	}
}

/* Kill whoever a job is waiting for past its deadline. */
static void job_timeout(struct round *rd, struct job *j)
{
	struct fleet *f = rd->f;
	bool wait_a, wait_b;

	switch (j->state) {
	case J_LISTEN:
	case J_PEER:
		wait_a = false;
		wait_b = true;
		break;
	case J_CONNECT:
		wait_a = true;
		wait_b = false;
		break;
	default:
		wait_a = j->id_a >= 0 && !j->fin_a;
		wait_b = j->id_b >= 0 && !j->fin_b;
		break;
	}
	if (wait_a)
		fleet_kill(f, j->wa, "no answer to %s within the deadline (hung)", j->step);
	if (wait_b)
		fleet_kill(f, j->wb, "no answer to %s within the deadline (hung)", j->step);
	if (j->state == J_ABORT)
		job_blame(rd, j, wait_a ? j->wa : j->wb);
	job_fail(rd, j, "worker %s: %s", wait_a ? wname(rd, j->wa) : wname(rd, j->wb),
		 wait_a ? f->w[j->wa].reason : f->w[j->wb].reason);
	if (j->state == J_ABORT)
		job_finish(rd, j);
}

static bool stopped(const struct sweep_opts *o)
{
	return o->stop && *o->stop;
}

/* Stopped mid-round: abort the open sessions; the round's pairs are not reported. */
static void round_abandon(struct round *rd)
{
	for (size_t k = 0; k < rd->n_jobs; k++) {
		struct job *j = &rd->jobs[k];

		if (j->state == J_DONE)
			continue;
		if (j->id_a >= 0 && !j->fin_a && !rd->f->w[j->wa].dead)
			session_send(rd, j->wa, j->id_a, "abort", NULL);
		if (j->id_b >= 0 && !j->fin_b && !rd->f->w[j->wb].dead)
			session_send(rd, j->wb, j->id_b, "abort", NULL);
	}
	fab_info("%s: interrupted in round %zu of %zu", rd->o->label ? rd->o->label : "sweep",
		 rd->r + 1, rd->n_rounds);
}

/* Wait for the round's jobs; -EINTR when stopped, <0 with @err on a poll failure. */
static int round_wait(struct round *rd, struct fab_err *err)
{
	while (rd->done < rd->n_jobs) {
		uint64_t now = clock_mono_ms(), next = UINT64_MAX;
		int timeout, rc;

		if (stopped(rd->o)) {
			round_abandon(rd);
			return -EINTR;
		}
		for (size_t k = 0; k < rd->n_jobs; k++) {
			struct job *j = &rd->jobs[k];

			if (j->state == J_DONE)
				continue;
			if (now >= j->deadline_ms)
				job_timeout(rd, j);
			else if (j->deadline_ms < next)
				next = j->deadline_ms;
		}
		if (rd->done >= rd->n_jobs)
			break;
		timeout = next == UINT64_MAX ? 100 : (int)(next - now) + 1;
		if (rd->o->stop && timeout > STOP_POLL_MS)
			timeout = STOP_POLL_MS;
		rc = fleet_poll(rd->f, timeout, on_msg, rd);
		if (rc < 0)
			return fab_err_set(err, rc, "sweep: poll: %s", strerror(-rc));
	}
	return 0;
}

int sweep_run_src(struct fleet *f, struct sched_src *src, const struct sweep_opts *o,
		  sweep_sink_fn sink, void *sink_ctx, size_t *rounds_done, struct fab_err *err)
{
	struct round rd = { .f = f, .o = o, .n_rounds = src->n_rounds, .total = src->n_pairs };
	struct sched_pair *sp = calloc(src->max_round ? src->max_round : 1, sizeof(*sp));
	struct sweep_pair *out = calloc(src->max_round ? src->max_round : 1, sizeof(*out));
	int rc = 0;

	*rounds_done = 0;
	rd.job_of = calloc(f->n ? f->n : 1, sizeof(*rd.job_of));
	rd.jobs = calloc(src->max_round ? src->max_round : 1, sizeof(*rd.jobs));
	if (!rd.job_of || !rd.jobs || !sp || !out) {
		rc = fab_err_set(err, -ENOMEM, "sweep: out of memory");
		goto out;
	}
	for (rd.r = 0;; rd.r++) {
		uint64_t t_round;

		rc = src->next(src, sp, &rd.n_jobs);
		if (rc <= 0) {
			/* A source that said why (sweep --steer's traces, in @err) keeps its message. */
			if (rc < 0 && !err->code)
				fab_err_set(err, rc, "sweep: schedule: %s", strerror(-rc));
			break;
		}
		rc = 0;
		if (rd.r >= rd.n_rounds)	/* a generator that could not tell */
			rd.n_rounds = rd.r + 1;
		t_round = clock_mono_ms();
		rd.done = 0;
		memset(rd.job_of, 0, f->n * sizeof(*rd.job_of));
		for (size_t k = 0; k < rd.n_jobs; k++) {
			struct job *j = &rd.jobs[k];

			memset(&out[k], 0, sizeof(out[k]));
			out[k].a = sp[k].a;
			out[k].b = sp[k].b;
			out[k].pct_rated = -1;
			out[k].round = (unsigned int)rd.r + 1;
			memset(j, 0, sizeof(*j));
			j->p = &out[k];
			j->wa = j->p->a;
			j->wb = j->p->b;
			j->spec = rd.o->spec;
			if (rd.o->pair_spec)
				rd.o->pair_spec(rd.o->pair_spec_ctx, j->wa, j->wb, &j->spec);
			j->id_a = j->id_b = -1;
			rd.job_of[j->wa] = rd.job_of[j->wb] = k + 1;
		}
		if (stopped(o)) {
			rc = -EINTR;
			break;
		}
		progress(&rd);
		for (size_t k = 0; k < rd.n_jobs; k++)
			job_start(&rd, &rd.jobs[k]);
		rc = round_wait(&rd, err);
		if (rc < 0)
			break;
		rc = sink(sink_ctx, rd.r + 1, out, rd.n_jobs, err);
		if (rc < 0)
			break;
		*rounds_done = rd.r + 1;
		fab_debug("%s: round %zu of %zu: %zu pairs in %llu ms", o->label ? o->label : "sweep",
			  rd.r + 1, rd.n_rounds, rd.n_jobs, (unsigned long long)(clock_mono_ms() - t_round));
	}
	/* The progress line ends however the sweep does. */
	if (o->progress)
		fputc('\n', stderr);
out:
	free(rd.job_of);
	free(rd.jobs);
	free(sp);
	free(out);
	return rc;
}

struct copy_sink {
	const struct sched *s;
	struct sweep_pair *out;
};

static int copy_round(void *ctx, size_t round, struct sweep_pair *pairs, size_t n,
		      struct fab_err *err)
{
	struct copy_sink *c = ctx;

	memcpy(c->out + c->s->round_start[round - 1], pairs, n * sizeof(*pairs));
	return 0;
}

static int run_fleet(void *ctx, struct sched_src *src, const struct sweep_opts *o,
		     sweep_sink_fn sink, void *sink_ctx, size_t *rounds_done, struct fab_err *err)
{
	return sweep_run_src(ctx, src, o, sink, sink_ctx, rounds_done, err);
}

void sweep_measure_fleet(struct sweep_measure *m, struct fleet *f)
{
	m->run = run_fleet;
	m->trace = NULL;	/* the workers trace through the fleet (fleet_trace_run()) */
	m->ctx = f;
}

int sweep_measure_sched(const struct sweep_measure *m, const struct sched *s,
			const struct sweep_opts *o, struct sweep_pair *out, size_t *rounds_done,
			struct fab_err *err)
{
	struct copy_sink c = { .s = s, .out = out };
	struct sched_src src;

	for (size_t k = 0; k < s->n_pairs; k++) {
		memset(&out[k], 0, sizeof(out[k]));
		out[k].a = s->pairs[k].a;
		out[k].b = s->pairs[k].b;
		out[k].pct_rated = -1;
	}
	sched_src_explicit(&src, s);
	return m->run(m->ctx, &src, o, copy_round, &c, rounds_done, err);
}
